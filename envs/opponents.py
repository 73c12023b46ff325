"""Opponent specifications turned into policies the environments can play.

A profile file is not accepted here by path: ``agents.load_profile(path)`` turns it
into a policy object, and ``envs`` never imports ``agents``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from solver import equilibrium_policy, resolve_policy
from solver.errors import check_choice
from solver.game import PLAYERS, Game, Policy, State, policy_mix

#: what an opponent may be (the solver's policy names, and profiles through agents)


def resolve_opponent(spec: Any, game: Game, player: str) -> Policy:
    """The policy ``spec`` names, to be played as ``player`` in ``game``: the solver's
    ``resolve_policy`` (a policy object, ``uniform``, ``equilibrium``, ``mix=...``),
    with a loaded profile checked against the game first."""
    check_choice("player", player, PLAYERS)
    if callable(getattr(spec, "check_game", None)):  # a loaded profile
        spec.check_game(game, player)
    return resolve_policy(spec, game, player)


def play(policy: Policy, game: Game, state: State, player: str,
         rng: np.random.Generator) -> int:
    """One action of ``policy`` as ``player``, drawn from its masked mix with ``rng``."""
    mix = policy_mix(policy, game, state, player)
    return int(rng.choice(len(mix), p=mix))


__all__ = ["equilibrium_policy", "play", "resolve_opponent"]
