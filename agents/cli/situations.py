"""Naming moments of a duel on the command line."""

from __future__ import annotations

from solver.errors import InputError

from .common import parse_option


def parse_state(game, text: str):
    """``round=2,exchange=1,...`` -> a state of ``game`` (missing fields: the start's)."""
    if not hasattr(game, "state_from"):
        raise InputError(f"{game.system} does not support --state")
    values = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, value = parse_option(part)
        try:
            values[key] = int(value)
        except ValueError:
            raise InputError(f"state field {key} takes an integer, got {value!r}") from None
    return game.state_from(values)
