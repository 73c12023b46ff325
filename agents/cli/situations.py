"""Naming moments of a duel on the command line."""

from __future__ import annotations

import dataclasses

from envs.schema import state_values
from solver.errors import InputError

from .arguments import parse_option


def parse_state(game, text: str):
    """``round=2,exchange=1,...`` -> a state of ``game`` (missing fields: the start's);
    the game checks the names and values."""
    values: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, value = parse_option(part)
        if key in values:  # the last would silently win
            raise InputError(f"state field {key!r} is given twice in {text!r}")
        values[key] = value
    state = game.state_from(state_values(values))
    if game.is_terminal(state):
        raise InputError(f"--state {text!r} is a moment at which the duel is over "
                         f"({game.result(state)}); give one at which it goes on")
    return state


def moment_key(game, state) -> str:
    """A moment as the answer store names it: its state fields, or ``start``."""
    if state is None:
        return "start"
    return ",".join(f"{k}={v}" for k, v in game.state_fields(state).items())


def single_start(game):
    """The one state ``game`` starts from; a duel that starts from a random draw needs
    ``--state`` to pick a moment."""
    starts = game.initial_outcomes()
    if len(starts) != 1:
        raise InputError("this duel starts from a random draw; give --state to pick a moment")
    return starts[0][1]


def check_state_field(game, field: str, flag: str) -> None:
    """``field`` must name a field of ``game``'s states (every state has the same)."""
    fields = game.state_fields(game.initial_outcomes()[0][1])
    if field not in fields:
        raise InputError(f"unknown state field {field!r} for {flag}; allowed: "
                         f"{', '.join(fields)}")


class MomentGame:
    """``game`` from the moment ``start`` on: the same duel, begun there. It answers
    "what now?" with the questions asked of a whole duel (a best response, an
    evaluation) and is explored from ``start`` over the protocol alone: fast paths that
    build the whole duel from its own start (its graph, its counters) are not offered."""

    #: fast paths that follow the protocol step by step, so hold from any moment
    STEPWISE = frozenset({"sample", "transitions", "rolls"})

    def __init__(self, game, start):
        self._game, self._start = game, start
        self.info = dataclasses.replace(game.info, identity=None,
                                        fast_paths=game.info.fast_paths & self.STEPWISE)

    def initial_outcomes(self):
        return [(1.0, self._start)]

    def __getattr__(self, name: str):
        if name in ("graph", "counters", "core", "attach", "core_transitions", "depleted",
                    "cores"):
            raise AttributeError(name)  # not offered from a moment (see the class)
        return getattr(self._game, name)
