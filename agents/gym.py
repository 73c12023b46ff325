"""Gymnasium's entry point for ``duel/<system>-npc-v0``: the single-agent environment
with its opponent in any form ``agents.opponents`` accepts (a profile file or a
personality too), so ``gymnasium.make("agents:duel/falkenstein-npc-v0",
opponent="cautious:0.5")`` works. ``duel/<system>-v0`` is ``envs``' own, for the
opponents the solver names (``envs.gym_registration``)."""

from __future__ import annotations

from typing import Any

import envs
from envs.single import SingleDuelEnv
from solver.game import other

from .opponents import opponent_policy


def single_env(system: str, opponent: Any = "uniform", player: str = "a",
               render_mode: str | None = None, illegal: str = "raise",
               skip_forced: bool = True, **options: Any) -> SingleDuelEnv:
    game = envs.make(system, **options)
    policy = opponent_policy(opponent, game, other(player))
    return SingleDuelEnv(game, opponent=policy, player=player, render_mode=render_mode,
                         illegal=illegal, skip_forced=skip_forced)
