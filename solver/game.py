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
from inspect import signature
from typing import Protocol, runtime_checkable

import numpy as np

from .errors import InputError

PLAYERS = ("a", "b")
State = Hashable
Observation = tuple  # a tuple of ints, named by ``info.observation_fields``
Outcomes = list[tuple[float, State]]


def other(player: str) -> str:
    """The opponent of ``player``."""
    return "b" if player == "a" else "a"


@dataclass(frozen=True)
class GameInfo:
    """What a game declares about itself; every field but ``identity`` is required.

    ``observation_low`` / ``observation_high`` bound every observation field (inclusive),
    the same for both players. ``may_cycle`` says the state graph can return to a state
    (no turn cap), for readers of the metadata: the solver finds the cycles itself
    (and iterates through them to a stated tolerance), and the conformance suite checks
    that a game declaring False has none.
    ``fast_paths`` names the optional methods the game implements (``FAST_PATHS``),
    each one a Protocol below (``SampleFastPath`` ... ``CoresFastPath``) that
    ``check_game`` verifies on the game itself.
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
    #: what makes two games the same game (system, options and sheets, ruleset hash),
    #: set by whoever builds games by name (``envs.make``); the answer store keeps only
    #: games that have one (``solver.cache``)
    identity: str | None = field(default=None, compare=False)

    def has(self, fast_path: str) -> bool:
        return fast_path in self.fast_paths


# -- the optional fast paths: what declaring each one in ``GameInfo.fast_paths`` promises

@runtime_checkable
class SampleFastPath(Protocol):
    """``sample``: one draw from ``outcomes``, without building the whole list."""

    def sample(self, state: State, action_a: int, action_b: int,
               rng: np.random.Generator) -> State:
        """A next state drawn with ``outcomes(state, action_a, action_b)``'s chances
        (exactly its one state on a deterministic step)."""


@runtime_checkable
class TransitionsFastPath(Protocol):
    """``transitions``: every legal joint action of a state at once."""

    def transitions(self, state: State) -> list[tuple[int, int, Outcomes]]:
        """``[(action_a, action_b, outcomes), ...]``, one entry per legal pair, each
        ``outcomes`` as ``outcomes(state, action_a, action_b)`` gives it."""


@runtime_checkable
class GraphFastPath(Protocol):
    """``graph``: the whole state graph at once."""

    def graph(self):
        """A ``solver.markov.graph.StateGraph`` (built from arrays by
        ``solver.markov.graph.assemble``) of every state reachable from
        ``initial_outcomes``, with the states, masks, joint actions and transition
        probabilities the generic exploration finds, in any order (the conformance
        suite compares them)."""


@runtime_checkable
class CountersFastPath(Protocol):
    """``counters``: counters (hit points) that only fall, by amounts that do not depend
    on them, the game ending when one reaches 0; ``solver.counters`` then solves every
    counter value at once."""

    def counters(self, state: State) -> tuple[int, ...]:
        """The counter values of a live state (positive integers)."""

    def core(self, state: State) -> State:
        """``state`` without its counters."""

    def attach(self, core: State, counters: Sequence[int]) -> State:
        """The state of ``core`` holding ``counters``."""

    def core_transitions(self, core: State) -> list[tuple[int, int, list]]:
        """Every legal joint action ``(i, j, outcomes)``, outcomes ``(p, next_core,
        decrements)``, the same whatever the counters (masks too)."""

    def depleted(self, counter: int) -> State:
        """The terminal state reached when counter ``counter`` falls to 0 or below."""


@runtime_checkable
class CoresFastPath(Protocol):
    """``cores``: a counter game's whole core graph at once."""

    def cores(self):
        """A ``solver.counters.CoreWalk``: the cores ``solver.counters.walk`` finds
        through ``core_transitions``, in any order (the conformance suite compares)."""


@runtime_checkable
class CounterObservationsFastPath(Protocol):
    """``counter_observations``: what a player sees at one core holding many counter
    values, at once (the answers against a fixed policy read it at every core and
    point of the duel)."""

    def observe_counters(self, core: State, points: np.ndarray, player: str) -> np.ndarray:
        """(len(points), observation fields) integers: row k is ``observe(attach(core,
        points[k]), player)``."""


#: the optional fast paths a game may declare in ``GameInfo.fast_paths``, each with the
#: methods it promises
@runtime_checkable
class RollsFastPath(Protocol):
    """``rolls``: a step told with its dice. The exact rules merge results that end in
    the same state (a miss and a shrugged-off wound); the dice behind a drawn next state
    are drawn again, given that state, so that they can be told."""

    def rolls(self, state: State, action_a: int, action_b: int, next_state: State,
              rng: np.random.Generator) -> object:
        """The dice of one step that led from ``state`` to ``next_state``, drawn with
        their chances given that result (None where no roll was made, or none is
        found); ``narrate(..., rolls=...)`` tells them."""


FAST_PATH_PROTOCOLS: dict[str, type] = {
    "sample": SampleFastPath, "transitions": TransitionsFastPath, "graph": GraphFastPath,
    "counters": CountersFastPath, "cores": CoresFastPath, "rolls": RollsFastPath,
    "counter_observations": CounterObservationsFastPath}
FAST_PATHS = tuple(FAST_PATH_PROTOCOLS)
#: fast paths that only make sense on top of another
FAST_PATH_NEEDS = {"cores": "counters", "counter_observations": "counters"}


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
    problems += [f"the {path} fast path needs the {needed} fast path"
                 for path, needed in FAST_PATH_NEEDS.items()
                 if path in info.fast_paths and needed not in info.fast_paths]
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


def check_game(game: object) -> Game:
    """``game`` if it has complete metadata (``check_info``), every method of the
    protocol and every method of each fast path it declares, each taking the
    protocol's arguments; else an InputError naming what is missing."""
    name = type(game).__name__
    if not hasattr(game, "info"):
        raise InputError(f"{name} is not a duel game (solver.game.Game): it declares no "
                         "metadata `info` (a solver.game.GameInfo)")
    info = check_info(game.info)
    problems = [f"{problem} (the protocol solver.game.Game)"
                for problem in method_problems(game, Game)]
    for path in sorted(info.fast_paths):
        protocol = FAST_PATH_PROTOCOLS[path]
        problems += [f"{problem} (declared fast path {path!r}, {protocol.__name__})"
                     for problem in method_problems(game, protocol)]
    if problems:
        raise InputError(f"{name} ({info.system}) is not a duel game (solver.game.Game): "
                         + "; ".join(problems))
    return game


def protocol_methods(protocol: type) -> dict[str, object]:
    """The methods ``protocol`` itself defines, by name."""
    return {name: member for name, member in vars(protocol).items()
            if callable(member) and not name.startswith("_")}


def method_problems(game: object, protocol: type) -> list[str]:
    """What ``game`` lacks of ``protocol``'s methods: a missing one, or one that cannot
    be called with the protocol's arguments."""
    problems = []
    for name, template in protocol_methods(protocol).items():
        method = getattr(game, name, None)
        if not callable(method):
            problems.append(f"no method {name}")
            continue
        parameters = list(signature(template).parameters)[1:]  # less self
        try:
            signature(method).bind(*parameters)
        except TypeError:
            problems.append(f"{name} must take ({', '.join(parameters)})")
        except ValueError:
            continue  # no signature to read (a builtin): trusted
    return problems


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


def narration(game: Game, state: State, action_a: int, action_b: int, next_state: State,
              rng: np.random.Generator | None = None) -> str:
    """One step in words, with its dice where the game can tell them (the ``rolls``
    fast path) and ``rng`` draws them; else ``narrate`` alone."""
    if rng is not None and game.info.has("rolls"):
        rolls = game.rolls(state, action_a, action_b, next_state, rng)
        if rolls is not None:
            return game.narrate(state, action_a, action_b, next_state, rolls=rolls)
    return game.narrate(state, action_a, action_b, next_state)


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
    observation only, renormalised over the legal actions. A policy the solver made
    over a game's states may read its mix there directly (``mix_at_state``, the same
    mix its observation table holds) instead of building that table first."""
    mask = game.legal_mask(state, player)
    at_state = getattr(policy, "mix_at_state", None)
    found = None if at_state is None else at_state(game, state)
    if found is None:
        found = policy.probabilities(game.observe(state, player), mask)
    return renormalise(found, mask)


def mask_indices(mask: Sequence[bool]) -> np.ndarray:
    return np.flatnonzero(np.asarray(mask, dtype=bool))
