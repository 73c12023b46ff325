"""``duel profile``."""

from __future__ import annotations

from solver.errors import InputError

from .common import add_json


def register(subparsers) -> None:
    parser = subparsers.add_parser("profile", help="(not yet available)")
    add_json(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    raise InputError("duel profile is not available yet")
