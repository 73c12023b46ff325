"""The protocol every duel system implements: a two-player zero-sum game with
simultaneous hidden moves, public or private state, and exact chance.

The solver, the best response, the environments and the trainer are written once
against this protocol; a system module contains rules only.

Players are named ``"a"`` and ``"b"``. Both share one fixed action list
(``action_names``); masks say what is legal. A sequential decision is a step in
which the other player's only legal action is ``wait``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

PLAYERS = ("a", "b")
State = Hashable
Observation = tuple  # a tuple of ints, named by ``game.observation_fields``
Outcomes = list[tuple[float, State]]


def other(player: str) -> str:
    """The opponent of ``player``."""
    return "b" if player == "a" else "a"


@runtime_checkable
class Game(Protocol):
    """What a duel system provides. States are immutable and hashable."""

    system: str
    action_names: tuple[str, ...]
    #: names of the integer fields of an observation, the same for both players
    observation_fields: tuple[str, ...]
    #: True when both players see the whole state (the exact solver needs it)
    public_information: bool
    #: the options (sheets included) the game was built with, JSON-serialisable
    options: dict
    #: a short hash of the ruleset data, recorded in profiles
    ruleset_hash: str

    def initial_outcomes(self) -> Outcomes: ...

    def legal_mask(self, state: State, player: str) -> np.ndarray: ...

    def outcomes(self, state: State, action_a: int, action_b: int) -> Outcomes: ...

    def is_terminal(self, state: State) -> bool: ...

    def payoff(self, state: State) -> float: ...

    def result(self, state: State) -> str: ...

    def observe(self, state: State, player: str) -> Observation: ...

    def describe(self, state: State, viewer: str | None = None) -> str:
        """The situation in words, as ``viewer`` may see it (everything if None)."""

    # Optional, for speed (the solver and the environments fall back without them):
    #   sample(state, action_a, action_b, rng) -> State: one draw from ``outcomes``;
    #   transitions(state) -> [(action_a, action_b, outcomes), ...] for every legal
    #     joint action at once, as ``outcomes`` would give them.


@runtime_checkable
class Policy(Protocol):
    """Anything that mixes over the action list from what its player sees."""

    def probabilities(self, observation: Observation, mask: np.ndarray) -> np.ndarray: ...


def sample_outcome(outcomes: Outcomes, rng: np.random.Generator) -> State:
    """Draw one next state from an exact outcome list."""
    if len(outcomes) == 1:
        return outcomes[0][1]
    weights = np.fromiter((p for p, _ in outcomes), dtype=float, count=len(outcomes))
    return outcomes[int(rng.choice(len(outcomes), p=weights / weights.sum()))][1]


def sample_step(game: Game, state: State, action_a: int, action_b: int,
                rng: np.random.Generator) -> State:
    """The game's own fast sampler when it has one, else a draw from ``outcomes``."""
    sampler = getattr(game, "sample", None)
    if sampler is not None:
        return sampler(state, action_a, action_b, rng)
    return sample_outcome(game.outcomes(state, action_a, action_b), rng)


def observation_key(game: Game, observation: Observation) -> str:
    """A readable, stable key for tabular policies saved to JSON: ``field=value,...``."""
    return ",".join(f"{k}={v}" for k, v in zip(game.observation_fields, observation, strict=True))


def policy_mix(policy: Policy, game: Game, state: State, player: str) -> np.ndarray:
    """The mix ``policy`` plays as ``player`` at ``state``: evaluated on the player's
    observation only, renormalised over the legal actions."""
    mask = game.legal_mask(state, player)
    probs = np.asarray(policy.probabilities(game.observe(state, player), mask), dtype=float)
    probs = np.where(mask, probs, 0.0)
    total = probs.sum()
    if not np.isfinite(total) or total <= 0:
        return mask / mask.sum()
    return probs / total


def mask_indices(mask: Sequence[bool]) -> np.ndarray:
    return np.flatnonzero(np.asarray(mask, dtype=bool))
