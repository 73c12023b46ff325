"""Gymnasium environment: the learner plays one duellist, an opponent policy the other.

Registered as ``gymnasium.make("duel/<system>-v0", opponent=..., player=...)``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from solver.errors import InputError, check_choice
from solver.game import PLAYERS, Game, State, other, sample_step

from .opponents import play, resolve_opponent
from .parallel import (
    ILLEGAL_MODES,
    Exchange,
    build_game,
    forced_action,
    legal_action,
    observation_space,
    observe,
    render_text,
    start_state,
)


class SingleDuelEnv(gymnasium.Env):
    """One side of a duel against a fixed opponent policy.

    The observation is the learner's ``{"observation", "action_mask"}``; the reward is
    the payoff from the learner's side on the step that ends the duel, 0 before. The
    opponent is drawn from its masked mix with the env's rng, so a seed fixes the
    whole episode. With ``skip_forced`` (the default) a step in which the learner's
    only legal action is a ``wait`` is played for him, so every step is a decision.
    ``illegal`` is as in ``ParallelDuelEnv``. ``state`` is the current game state.

    ``reset(options={"state": s})`` starts from a chosen moment, as in
    ``ParallelDuelEnv``: a live state of this game or a dict of its named fields
    (``{"round": 2, "exchange": 1}``, read by the game's ``state_from``).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, system: str | Game, opponent: Any = "uniform", player: str = "a",
                 render_mode: str | None = None, illegal: str = "raise",
                 skip_forced: bool = True, **options: Any):
        self.game = build_game(system, options)
        check_choice("player", player, PLAYERS)
        check_choice("render mode", render_mode, [None, "ansi"])
        check_choice("illegal-action mode", illegal, ILLEGAL_MODES)
        if not isinstance(skip_forced, bool):  # "no" would be truthy
            raise InputError(f"skip_forced must be True or False, got {skip_forced!r}")
        self.player = player
        self.opponent_player = other(player)
        self.opponent = resolve_opponent(opponent, self.game, self.opponent_player)
        self.render_mode = render_mode
        self.illegal = illegal
        self.skip_forced = skip_forced
        self.metadata = {**type(self).metadata, "name": f"duel_{self.game.info.system}_v0"}
        self.observation_space = observation_space(self.game)
        self.action_space = spaces.Discrete(len(self.game.info.action_names))
        self.state: State | None = None
        self.exchanges: list[Exchange] = []

    @property
    def duel_state(self) -> State | None:
        """The same as ``state``, under the name the parallel env uses."""
        return self.state

    def set_opponent(self, spec: Any) -> None:
        """Play the next steps against ``spec`` (as accepted by ``resolve_opponent``)."""
        self.opponent = resolve_opponent(spec, self.game, self.opponent_player)

    def reset(self, *, seed: int | None = None,
              options: dict | None = None) -> tuple[dict[str, np.ndarray], dict]:
        super().reset(seed=seed)
        self.state = start_state(self.game, self.np_random, options)
        self.exchanges = []
        self._play_forced()
        return observe(self.game, self.state, self.player), self._info({})

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict]:
        if self.state is None or self.game.is_terminal(self.state):
            raise InputError("the duel is over (or not started): call reset() first")
        index, replaced = legal_action(self.game, self.state, self.player, action,
                                       self.illegal, self.np_random)
        self.exchanges = []
        self._exchange(index)
        self._play_forced()
        over = bool(self.game.is_terminal(self.state))
        reward = self._sign() * float(self.game.payoff(self.state)) + 0.0 if over else 0.0
        info = self._info({"illegal_action": replaced} if replaced else {})
        return observe(self.game, self.state, self.player), reward, over, False, info

    def _sign(self) -> float:
        return 1.0 if self.player == "a" else -1.0

    def _exchange(self, learner_action: int) -> None:
        theirs = play(self.opponent, self.game, self.state, self.opponent_player,
                      self.np_random)
        a, b = (learner_action, theirs) if self.player == "a" else (theirs, learner_action)
        before = self.state
        self.state = sample_step(self.game, before, a, b, self.np_random)
        self.exchanges.append((before, a, b, self.state))

    def _play_forced(self) -> None:
        while self.skip_forced and not self.game.is_terminal(self.state):
            forced = forced_action(self.game, self.state, self.player)
            if forced is None:
                return
            self._exchange(forced)

    def _info(self, info: dict) -> dict:
        names = self.game.info.action_names
        theirs = 2 if self.player == "a" else 1  # (state, action_a, action_b, next)
        info["opponent_actions"] = tuple(names[exchange[theirs]] for exchange in self.exchanges)
        if self.game.is_terminal(self.state):
            info["result"] = self.game.result(self.state)
        return info

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render mode; "
                                  "build the env with render_mode='ansi'")
            return None
        if self.state is None:
            return None
        return render_text(self.game, self.state, self.exchanges)


def single_env(system: str | Game, opponent: Any = "uniform", player: str = "a",
               render_mode: str | None = None, **options: Any) -> SingleDuelEnv:
    """A Gymnasium env in which the learner plays ``player`` of ``system`` (a system
    name built with ``envs.make(system, **options)``, or a game object) against
    ``opponent``."""
    return SingleDuelEnv(system, opponent=opponent, player=player, render_mode=render_mode,
                         **options)

