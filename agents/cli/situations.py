"""Naming moments of a duel on the command line."""

from __future__ import annotations

from .common import parse_option


def parse_state(game, text: str):
    """``round=2,exchange=1,...`` -> a state of ``game`` (missing fields: the start's);
    the game checks the names and values."""
    values = dict(parse_option(part) for part in filter(None, (p.strip() for p in
                                                                text.split(","))))
    return game.state_from(values)
