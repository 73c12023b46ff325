"""Opponent specifications turned into policies the environments can play.

A profile file is not accepted here by path: ``agents.load_profile(path)`` turns it
into a policy object, and ``envs`` never imports ``agents``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from solver.errors import InputError, check_choice
from solver.game import PLAYERS, Game, Policy, State, policy_mix
from solver.policy import MixPolicy, UniformPolicy

ACCEPTED = ("a policy object (with probabilities(observation, mask)), 'uniform', "
            "'equilibrium', or 'mix=ACTION:WEIGHT,...'; a profile file becomes a policy "
            "with agents.load_profile(path)")


def resolve_opponent(spec: Any, game: Game, player: str) -> Policy:
    """The policy ``spec`` names, to be played as ``player`` in ``game``."""
    check_choice("player", player, PLAYERS)
    if callable(getattr(spec, "probabilities", None)):
        if callable(getattr(spec, "check_game", None)):  # a loaded profile
            spec.check_game(game, player)
        return spec
    if not isinstance(spec, str):
        raise InputError(f"unknown opponent {spec!r}; expected {ACCEPTED}")
    if spec == "uniform":
        return UniformPolicy()
    if spec == "equilibrium":
        return equilibrium_policy(game, player)
    if spec.startswith("mix="):
        return MixPolicy.parse(spec, game.info.action_names)
    raise InputError(f"unknown opponent {spec!r}; expected {ACCEPTED}")


def equilibrium_policy(game: Game, player: str) -> Policy:
    """``player``'s maximum-entropy equilibrium of the whole duel."""
    if not game.info.public_information:
        raise InputError(f"the exact equilibrium of {game.info.system} with hidden information "
                         "is not available yet; use the public variant, a mix or a "
                         "trained profile as the opponent")
    # late import: solving is only needed for this opponent, and it is the slow part
    from solver.backward import solve_game
    return solve_game(game).policy_for(player)


def play(policy: Policy, game: Game, state: State, player: str,
         rng: np.random.Generator) -> int:
    """One action of ``policy`` as ``player``, drawn from its masked mix with ``rng``."""
    mix = policy_mix(policy, game, state, player)
    return int(rng.choice(len(mix), p=mix))
