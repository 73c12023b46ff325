"""PettingZoo parallel environment over any game of the protocol in ``solver.game``.

Both duellists move at once every step (a sequential decision is a step in which
one of them can only ``wait``), so the duel maps onto ``ParallelEnv`` directly,
with no turn-based conversion. The helpers here are shared with ``envs.single``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from solver.errors import InputError, check_choice
from solver.game import (
    PLAYERS,
    Game,
    State,
    check_game,
    mask_indices,
    sample_outcome,
    sample_step,
)

from .schema import state_values

#: what to do with an action the mask forbids
ILLEGAL_MODES = ("raise", "uniform")


Exchange = tuple[State, int, int, State]
Observations = dict[str, dict[str, np.ndarray]]
StepResult = tuple[Observations, dict[str, float], dict[str, bool], dict[str, bool],
                   dict[str, dict]]


def build_game(system: str | Game, options: Mapping[str, Any]) -> Game:
    """The game named ``system`` built with ``options``, or ``system`` itself when it
    is already a game."""
    if isinstance(system, str):
        import envs  # late: envs/__init__ imports this module lazily
        return envs.make(system, **options)
    if options:
        raise InputError(f"options {sorted(options)} apply only when the game is built by "
                         "name; pass them to envs.make() instead")
    return check_game(system)


def observation_space(game: Game) -> spaces.Dict:
    """What one duellist sees: the observation fields and the mask of legal actions."""
    info = game.info
    return spaces.Dict({
        "observation": spaces.Box(np.asarray(info.observation_low, dtype=np.int64),
                                  np.asarray(info.observation_high, dtype=np.int64),
                                  dtype=np.int64),
        "action_mask": spaces.MultiBinary(len(info.action_names)),
    })


def observe(game: Game, state: State, player: str) -> dict[str, np.ndarray]:
    """A fresh observation dict; no legal action at all once the duel is over."""
    n = len(game.info.action_names)
    if game.is_terminal(state):
        mask = np.zeros(n, dtype=np.int8)
    else:
        mask = np.array(game.legal_mask(state, player), dtype=np.int8)
    # np.array copies, so a game that caches its tuples or masks never leaks them
    return {"observation": np.array(game.observe(state, player), dtype=np.int64),
            "action_mask": mask}


def action_index(game: Game, action: Any, player: str) -> int:
    """``action`` as an index into the action list: an action name, or an integer
    (Python or numpy, a 0-d integer array included). Floats and bools are refused
    rather than rounded: ``1.9`` or ``True`` as an action is a caller's bug."""
    names = game.info.action_names
    if isinstance(action, str):
        check_choice(f"action of {player.upper()}", action, names)
        return names.index(action)
    if isinstance(action, np.ndarray) and action.ndim == 0:
        action = action[()]
    if isinstance(action, int | np.integer) and not isinstance(action, bool | np.bool_) \
            and 0 <= action < len(names):
        return int(action)
    raise InputError(f"action {action!r} of {player.upper()} is not an action index; "
                     f"allowed: 0..{len(names) - 1} or a name ({', '.join(names)})")


def legal_action(game: Game, state: State, player: str, action: Any, illegal: str,
                 rng: np.random.Generator) -> tuple[int, str | None]:
    """The action played and, when ``action`` was illegal and replaced, its name."""
    index = action_index(game, action, player)
    legal = mask_indices(game.legal_mask(state, player))
    if index in legal:
        return index, None
    names = game.info.action_names
    if illegal == "raise":
        raise InputError(f"illegal action {names[index]} (index {index}) for {player.upper()} "
                         f"here; legal: {', '.join(f'{names[i]} ({i})' for i in legal)}")
    return int(rng.choice(legal)), names[index]


def forced_action(game: Game, state: State, player: str) -> int | None:
    """The only legal action of ``player`` (a ``wait``), or None when he has a choice."""
    legal = mask_indices(game.legal_mask(state, player))
    return int(legal[0]) if len(legal) == 1 else None


def start_state(game: Game, rng: np.random.Generator, options: Mapping | None) -> State:
    """``options["state"]`` when given (to study a position), else a draw from the
    initial outcomes. Other keys are ignored, as the PettingZoo API test requires."""
    if options is not None and not isinstance(options, Mapping):
        raise InputError(f"reset options must be a dict such as {{'state': ...}}, "
                         f"got {options!r:.80}")
    if options and "state" in options:
        return given_state(game, options["state"])
    return sample_outcome(game.initial_outcomes(), rng)


def given_state(game: Game, given: Any) -> State:
    """``given`` (a state of ``game``, or its named fields as a dict, read by the
    contract's ``state_from``) if it is a live state of this game whose observations
    lie within the declared bounds; else an InputError."""
    if isinstance(given, Mapping):
        return _checked_state(game, game.state_from(state_values(given)))
    kinds = {type(state) for _, state in game.initial_outcomes()}
    if type(given) not in kinds:
        expected = " or ".join(sorted(kind.__name__ for kind in kinds))
        raise InputError(f"reset state {given!r:.80} is not a state of "
                         f"{game.info.system}; expected a {expected} or a dict of its fields")
    return _checked_state(game, _round_trip(game, given))


def _round_trip(game: Game, state: State) -> State:
    """``state`` read back from its named fields: ``state_from`` checks every value
    against this game (another game's state of the same type fails here). Games that
    do not take named states (toys) skip the check; the bounds below still apply."""
    try:
        fields = game.state_fields(state)
        again = game.state_from(state_values(fields))
    except NotImplementedError:
        return state
    except (AttributeError, TypeError, KeyError, IndexError, ValueError) as error:
        if isinstance(error, InputError):
            raise InputError(f"reset state {state!r:.80} is not a state of this "
                             f"{game.info.system} game: {error}") from None
        raise InputError(f"reset state {state!r:.80} is not a state of "
                         f"{game.info.system} ({type(error).__name__}: {error})") from None
    if again != state:
        raise InputError(f"reset state {state!r:.80} is not a consistent state of this "
                         f"{game.info.system} game (its fields read back as {again!r:.80})")
    return state


def _checked_state(game: Game, state: State) -> State:
    info = game.info
    for player in PLAYERS:
        try:
            observation = np.asarray(game.observe(state, player))
        except (AttributeError, TypeError, KeyError, IndexError, ValueError) as error:
            raise InputError(f"reset state {state!r:.80} cannot be observed by "
                             f"{player.upper()} ({type(error).__name__}: {error})") from None
        low, high = np.asarray(info.observation_low), np.asarray(info.observation_high)
        if observation.shape != low.shape or not np.all((low <= observation)
                                                        & (observation <= high)):
            bounds = ", ".join(f"{name} {lo}..{hi}" for name, lo, hi in
                               zip(info.observation_fields, low, high, strict=True))
            raise InputError(f"reset state {state!r:.80} is outside the observation "
                             f"bounds of {player.upper()}: {observation.tolist()}; "
                             f"allowed: {bounds}")
    if game.is_terminal(state):
        raise InputError(f"reset state {state!r:.80} is not live: the duel is over "
                         f"({game.result(state)})")
    return state


def exchange_text(game: Game, exchange: Exchange) -> str:
    return game.narrate(*exchange)


def state_text(game: Game, state: State) -> str:
    text = game.describe(state)
    if game.is_terminal(state):
        text += f"\nThe duel is over: {game.result(state)}."
    return text


def render_text(game: Game, state: State, exchanges: list[Exchange]) -> str:
    """``exchanges`` (those of the last step), then the position."""
    parts = [exchange_text(game, exchange) for exchange in exchanges]
    if not exchanges:
        parts.append("The duel begins.")
    parts.append(state_text(game, state))
    return "\n".join(parts) + "\n"


class ParallelDuelEnv(ParallelEnv):
    """Both duellists as PettingZoo agents ``"a"`` and ``"b"``, moving simultaneously.

    Observations are ``{"observation": int64 fields, "action_mask": int8}``; the reward
    is the payoff (to A, its negative to B) on the step that ends the duel, 0 before.
    ``illegal="raise"`` rejects a masked action with an InputError; ``"uniform"``
    replaces it by a legal action drawn with the env's rng (for tools that sample
    without the mask) and reports it as ``infos[agent]["illegal_action"]``.
    The current game state is ``duel_state`` (``state()`` is PettingZoo's global view).

    ``reset(options={"state": s})`` starts from a chosen moment: ``s`` is a live state of
    this game, or its named fields as a dict (``{"round": 2, "exchange": 1}``, read by
    the game's ``state_from``; missing fields are the start's). Anything else, another
    game's state, or a state whose observation leaves the declared bounds, is an
    InputError.
    """

    def __init__(self, system: str | Game, render_mode: str | None = None,
                 illegal: str = "raise", **options: Any):
        self.game = build_game(system, options)
        check_choice("render mode", render_mode, [None, "ansi"])
        check_choice("illegal-action mode", illegal, ILLEGAL_MODES)
        self.render_mode = render_mode
        self.illegal = illegal
        self.metadata = {"render_modes": ["ansi"], "name": f"duel_{self.game.info.system}_v0",
                         "is_parallelizable": True, "render_fps": 1}
        self.possible_agents = list(PLAYERS)
        self.agents: list[str] = []
        self._observation_spaces = {p: observation_space(self.game) for p in PLAYERS}
        actions = len(self.game.info.action_names)
        self._action_spaces = {p: spaces.Discrete(actions) for p in PLAYERS}
        self.state_space = spaces.Box(
            np.tile(self._observation_spaces["a"]["observation"].low, 2),
            np.tile(self._observation_spaces["a"]["observation"].high, 2), dtype=np.int64)
        self.duel_state: State | None = None
        self.exchanges: list[Exchange] = []
        self._rng: np.random.Generator | None = None

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None,
              options: dict | None = None) -> tuple[Observations, dict[str, dict]]:
        # an unseeded reset continues the current stream, so one seed fixes every episode
        if seed is not None or self._rng is None:
            self._rng, _ = seeding.np_random(seed)
        self.duel_state = start_state(self.game, self._rng, options)
        self.exchanges = []
        self.agents = [] if self.game.is_terminal(self.duel_state) else list(PLAYERS)
        observations = {p: observe(self.game, self.duel_state, p) for p in PLAYERS}
        return observations, {p: {} for p in PLAYERS}

    def step(self, actions: Mapping[str, Any]) -> StepResult:
        if not self.agents:
            raise InputError("the duel is over (or not started): call reset() first")
        played, replaced = self._joint_action(actions)
        state = self.duel_state
        self.duel_state = sample_step(self.game, state, played["a"], played["b"], self._rng)
        self.exchanges.append((state, played["a"], played["b"], self.duel_state))
        return self._transition(replaced)

    def _joint_action(self, actions: Mapping[str, Any]) -> tuple[dict[str, int], dict[str, str]]:
        if not isinstance(actions, Mapping):
            raise InputError(f"actions must be a dict {{agent: action}} with agents a, b, "
                             f"got {actions!r:.60}")
        unknown = set(actions) - set(PLAYERS)
        if unknown:
            raise InputError(f"unknown agents {sorted(unknown)}; agents: a, b")
        played, replaced = {}, {}
        for player in PLAYERS:
            if player not in actions:
                # a forced move (waiting while the other decides) may be left out
                forced = forced_action(self.game, self.duel_state, player)
                if forced is None:
                    raise InputError(f"no action for agent {player!r}; both agents move "
                                     "every step")
                played[player] = forced
                continue
            played[player], name = legal_action(self.game, self.duel_state, player,
                                                actions[player], self.illegal, self._rng)
            if name is not None:
                replaced[player] = name
        return played, replaced

    def _transition(self, replaced: dict[str, str]) -> StepResult:
        state = self.duel_state
        over = bool(self.game.is_terminal(state))
        payoff = float(self.game.payoff(state)) if over else 0.0
        observations = {p: observe(self.game, state, p) for p in PLAYERS}
        rewards = {"a": payoff + 0.0, "b": 0.0 - payoff}  # a draw pays 0.0, never -0.0
        terminations = {p: over for p in PLAYERS}
        truncations = {p: False for p in PLAYERS}
        infos: dict[str, dict] = {p: {} for p in PLAYERS}
        for player, name in replaced.items():
            infos[player]["illegal_action"] = name
        if over:
            result = self.game.result(state)
            for player in PLAYERS:
                infos[player]["result"] = result
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render mode; "
                                  "build the env with render_mode='ansi'")
            return None
        if self.duel_state is None:
            return None
        return render_text(self.game, self.duel_state, self.exchanges[-1:])

    def state(self) -> np.ndarray:
        """Both duellists' observations side by side: everything either of them knows."""
        if self.duel_state is None:
            raise InputError("call reset() before state()")
        return np.concatenate([np.array(self.game.observe(self.duel_state, p), dtype=np.int64)
                               for p in PLAYERS])

    def close(self) -> None:
        pass


def parallel_env(system: str | Game, render_mode: str | None = None, illegal: str = "raise",
                 **options: Any) -> ParallelDuelEnv:
    """A PettingZoo ``ParallelEnv`` of ``system`` (a system name built with
    ``envs.make(system, **options)``, or a game object)."""
    if "opponent" in options:
        raise InputError("the parallel env has no opponent: both duellists are agents; "
                         "use envs.single_env(system, opponent=...) to play against a policy")
    return ParallelDuelEnv(system, render_mode=render_mode, illegal=illegal, **options)
