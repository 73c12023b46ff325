"""``duel train``."""

from __future__ import annotations

from solver.errors import InputError

from .common import add_json


def register(subparsers) -> None:
    parser = subparsers.add_parser("train", help="(not yet available)")
    add_json(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    raise InputError("duel train is not available yet")
