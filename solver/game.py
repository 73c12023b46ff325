"""The contract every duel system implements: a two-player zero-sum game with
simultaneous hidden moves, public or private state, and exact chance.

The solver, the best response, the environments, the trainer and the CLI are written
once against this module; a system module contains rules only. What changed from
``shared/DESIGN.md``'s first sketch, and why:

- **Declared metadata.** Every game carries one ``GameInfo`` (as OpenSpiel's
  ``GameType``/``GameInfo``): action names, observation fields *with bounds*, whether
  information is public (no default anywhere: a hidden game silently solved as public
  would be a wrong answer), payoff bounds, whether the state graph may cycle, the
  options it was built with, its ruleset hash and which optional fast paths exist.
  ``check_info`` validates it; nothing discovers capabilities with ``getattr``.
- **Presentation is part of the contract.** ``state_fields`` / ``state_from`` (the
  state as named integers and back, for ``--state``), ``describe`` (the table as a
  viewer sees it), ``narrate`` (one step in words) and ``situation`` (a decision
  point in plain words, from one duellist's side, for a game master). The CLI,
  the environments' ``render`` and the profile reports use only these.

Players are ``"a"`` and ``"b"``. Both share one fixed action list; masks say what is
legal. A sequential decision (a choice made after the dice, by one side) is a step in
which the other player's only legal action is ``wait``; so one protocol covers
simultaneous and sequential moves and the solver needs no special case.

Payoffs are to A (B gets the negative): positive is A's win, negative his loss, 0 a
draw. Terminal states only; every payoff lies in ``info.payoff_bounds``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from .errors import InputError

PLAYERS = ("a", "b")
State = Hashable
Observation = tuple  # a tuple of ints, named by ``info.observation_fields``
Outcomes = list[tuple[float, State]]
#: the optional fast paths a game may declare in ``GameInfo.fast_paths``
FAST_PATHS = ("sample", "transitions", "graph", "counters", "cores")


def other(player: str) -> str:
    """The opponent of ``player``."""
    return "b" if player == "a" else "a"


@dataclass(frozen=True)
class GameInfo:
    """What a game declares about itself; every field is required.

    ``observation_low`` / ``observation_high`` bound every observation field (inclusive),
    the same for both players. ``may_cycle`` says the state graph can return to a state
    (no turn cap): the solver then uses value iteration to a stated tolerance.
    ``fast_paths`` names the optional methods the game implements (``FAST_PATHS``):
    ``sample(state, a, b, rng) -> State`` draws from ``outcomes``;
    ``transitions(state) -> [(a, b, outcomes), ...]`` gives every legal joint action at
    once, as ``outcomes`` would; ``graph() -> solver.markov.graph.StateGraph`` gives every
    state reachable from ``initial_outcomes`` at once (built from arrays by
    ``solver.markov.graph.assemble``), with the states, masks, joint actions and transition
    probabilities the generic exploration would find (the conformance suite compares
    them), in any order; ``counters`` declares counters (hit points) that only fall, by
    amounts that do not depend on them, the game ending when one reaches 0 (the methods
    are listed in ``solver.counters``, which then solves every counter value at once);
    ``cores() -> solver.counters.CoreWalk`` gives a counter game's cores at once, as
    ``solver.counters.walk`` finds them through ``core_transitions`` (the conformance
    suite compares them).
    ``length_unit`` names what a duel's length is counted in ("round", "exchange",
    "beat"): the live states where ``starts_unit`` holds, one per unit played.
    """

    system: str
    action_names: tuple[str, ...]
    observation_fields: tuple[str, ...]
    observation_low: tuple[int, ...]
    observation_high: tuple[int, ...]
    public_information: bool
    payoff_bounds: tuple[float, float]
    may_cycle: bool
    options: Mapping = field(hash=False, compare=False)
    ruleset_hash: str
    fast_paths: frozenset[str]
    length_unit: str

    def has(self, fast_path: str) -> bool:
        return fast_path in self.fast_paths


def check_info(info: object) -> GameInfo:
    """``info`` if it is a complete, consistent ``GameInfo``; else an InputError."""
    if not isinstance(info, GameInfo):
        raise InputError(f"a game must declare its metadata as solver.game.GameInfo, "
                         f"got {type(info).__name__}")
    fields = len(info.observation_fields)
    problems = []
    if not info.action_names or len(set(info.action_names)) != len(info.action_names):
        problems.append("action_names must be distinct and non-empty")
    if len(info.observation_low) != fields or len(info.observation_high) != fields:
        problems.append(f"observation_low/high need one bound per field ({fields})")
    elif any(lo > hi for lo, hi in zip(info.observation_low, info.observation_high,
                                       strict=True)):
        problems.append("observation_low must not exceed observation_high")
    if not isinstance(info.public_information, bool) or not isinstance(info.may_cycle, bool):
        problems.append("public_information and may_cycle must be booleans")
    low, high = info.payoff_bounds
    if not (np.isfinite(low) and np.isfinite(high) and low <= 0 <= high):
        problems.append(f"payoff_bounds must be finite and contain 0, got {info.payoff_bounds}")
    if not (isinstance(info.length_unit, str) and info.length_unit.isalpha()
            and info.length_unit.islower()):
        problems.append(f"length_unit must be one lower-case word, got {info.length_unit!r}")
    unknown = set(info.fast_paths) - set(FAST_PATHS)
    if unknown:
        problems.append(f"unknown fast paths {sorted(unknown)}; allowed: {', '.join(FAST_PATHS)}")
    if problems:
        raise InputError(f"{info.system}: " + "; ".join(problems))
    return info


@runtime_checkable
class Game(Protocol):
    """What a duel system provides. States are immutable and hashable."""

    info: GameInfo

    # -- the rules
    def initial_outcomes(self) -> Outcomes:
        """The exact ``(probability, state)`` list the duel starts from."""

    def legal_mask(self, state: State, player: str) -> np.ndarray:
        """Boolean mask over ``info.action_names`` (never empty at a live state)."""

    def outcomes(self, state: State, action_a: int, action_b: int) -> Outcomes:
        """The exact next states; probabilities are positive and sum to 1."""

    def is_terminal(self, state: State) -> bool: ...

    def payoff(self, state: State) -> float:
        """To A, at a terminal state."""

    def result(self, state: State) -> str:
        """How the duel ended, for people ("B retreats to the wall and is wounded")."""

    def observe(self, state: State, player: str) -> Observation:
        """What ``player`` may see: private information is hidden here and nowhere else."""

    def starts_unit(self, state: State) -> bool:
        """Whether a live state opens one ``info.length_unit`` (a round, an exchange):
        a duel's expected length counts these, not its chance steps. With the
        ``counters`` fast path it must not depend on the counters."""

    # -- presentation
    def state_fields(self, state: State) -> dict[str, int]:
        """The state as named integers (what ``state_from`` reads back)."""

    def state_from(self, values: Mapping[str, object]) -> State:
        """A live state from named values; missing fields are the start's. Bad names or
        values raise InputError naming the allowed ones."""

    def describe(self, state: State, viewer: str | None = None) -> str:
        """The whole table in words, as ``viewer`` may see it (everything if None)."""

    def narrate(self, state: State, action_a: int, action_b: int, next_state: State) -> str:
        """What happened in one step, in words."""

    def situation(self, state: State, player: str) -> str:
        """The decision ``player`` faces, in a few plain words for a game master, always
        with his own position ("with your back to the wall, one Rest still owed")."""


class DeclaredGame:
    """Convenience base: the declared metadata as attributes (``game.action_names`` is
    ``game.info.action_names``). Code written against the contract reads ``info``."""

    info: GameInfo

    @property
    def system(self) -> str:
        return self.info.system

    @property
    def action_names(self) -> tuple[str, ...]:
        return self.info.action_names

    @property
    def observation_fields(self) -> tuple[str, ...]:
        return self.info.observation_fields

    @property
    def public_information(self) -> bool:
        return self.info.public_information

    @property
    def options(self) -> Mapping:
        return self.info.options

    @property
    def ruleset_hash(self) -> str:
        return self.info.ruleset_hash


@runtime_checkable
class Policy(Protocol):
    """Anything that mixes over the action list from what its player sees."""

    def probabilities(self, observation: Observation, mask: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class BatchPolicy(Policy, Protocol):
    """A policy that also mixes for many observations at once (a network)."""

    def batch_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray: ...


def renormalise(probs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``probs`` restricted to ``mask`` and summing to 1 along the last axis; uniform over
    the legal actions wherever nothing legal has a positive, finite weight."""
    mask = np.asarray(mask, dtype=bool)
    probs = np.where(mask, np.nan_to_num(np.asarray(probs, dtype=float), nan=0.0,
                                         posinf=0.0, neginf=0.0), 0.0)
    probs = np.clip(probs, 0.0, None)
    total = probs.sum(axis=-1, keepdims=True)
    uniform = mask / np.maximum(mask.sum(axis=-1, keepdims=True), 1)
    return np.where(total > 0, probs / np.where(total > 0, total, 1.0), uniform)


def sample_outcome(outcomes: Outcomes, rng: np.random.Generator) -> State:
    """Draw one next state from an exact outcome list."""
    if len(outcomes) == 1:
        return outcomes[0][1]
    weights = np.fromiter((p for p, _ in outcomes), dtype=float, count=len(outcomes))
    return outcomes[int(rng.choice(len(outcomes), p=weights / weights.sum()))][1]


def sample_step(game: Game, state: State, action_a: int, action_b: int,
                rng: np.random.Generator) -> State:
    """The game's declared fast sampler, else a draw from ``outcomes``."""
    if game.info.has("sample"):
        return game.sample(state, action_a, action_b, rng)
    return sample_outcome(game.outcomes(state, action_a, action_b), rng)


def joint_outcomes(game: Game, state: State, mask_a: np.ndarray, mask_b: np.ndarray):
    """Every legal joint action with its outcomes: the declared ``transitions`` fast
    path, else one ``outcomes`` call per pair."""
    if game.info.has("transitions"):
        return game.transitions(state)
    legal_b = np.flatnonzero(mask_b).tolist()
    return [(i, j, game.outcomes(state, i, j))
            for i in np.flatnonzero(mask_a).tolist() for j in legal_b]


def observation_key(game: Game, observation: Observation) -> str:
    """A readable, stable key for tabular policies saved to JSON: ``field=value,...``."""
    return ",".join(f"{k}={v}" for k, v in zip(game.info.observation_fields, observation,
                                                strict=True))


def policy_mix(policy: Policy, game: Game, state: State, player: str) -> np.ndarray:
    """The mix ``policy`` plays as ``player`` at ``state``: evaluated on the player's
    observation only, renormalised over the legal actions."""
    mask = game.legal_mask(state, player)
    return renormalise(policy.probabilities(game.observe(state, player), mask), mask)


def mask_indices(mask: Sequence[bool]) -> np.ndarray:
    return np.flatnonzero(np.asarray(mask, dtype=bool))
