"""Every duel system as an OpenSpiel game, for researchers: ``import envs.openspiel``
registers ``python_duel_<system>`` for each system, loaded by
``pyspiel.load_game("python_duel_uchronia", {"a": "sang-froid", "b_prior":
"adresse+tireur@1;adresse@1", "max_turns": 3})``. OpenSpiel is optional (the
``.[bench]`` extra): this module alone imports it.

Parameters: ``a``, ``b``, ``a_prior``, ``b_prior``, ``ruleset`` and every option of
the system, as on the command line (an empty text is "not given"; integer options are
integers). OpenSpiel's game strings separate parameters by commas, so a sheet's fields
are joined by ``+`` there: ``{"b_prior": "fighter+hp=6@1;rogue@1"}``.

A duel's step is simultaneous; OpenSpiel's algorithms for imperfect information want
turns, so a step is played as A's turn then B's, B not seeing A's choice (the classic
conversion, exact: B's information state is what he saw before A chose), then a chance
node for the step's outcomes (one action per outcome, in ``outcomes``' order). An
information state is the player's observation at every step so far with his own actions:
perfect recall, in public and hidden duels alike.
"""

from __future__ import annotations

import copy

import numpy as np
import pyspiel

import envs
import envs.rulesets

PREFIX = "python_duel_"
#: parameters every system takes besides its options
SHEET_PARAMETERS = ("a", "b", "a_prior", "b_prior", "ruleset")
#: an upper bound OpenSpiel asks for (it sizes nothing by it in the algorithms used here)
MAX_GAME_LENGTH = 10_000
MAX_CHANCE_OUTCOMES = 100_000


def _parameters(system: str) -> dict:
    """Each parameter's default, typed as OpenSpiel reads it back from a game's string
    (an integer option an int, a flag a bool); ``""`` for "not given"."""
    spec = envs.spec(system)
    ruleset = envs.rulesets.load_ruleset(spec.name, None, spec.ruleset_file)
    parameters: dict = {name: "" for name in SHEET_PARAMETERS}
    for entry in spec.options:
        default = entry.default_value(ruleset)
        parameters[entry.name] = default if isinstance(default, bool | int | float) and (
            entry.kind in ("int", "float", "bool")) else ""
    return parameters


def _game_type(system: str) -> pyspiel.GameType:
    spec = envs.spec(system)
    parameters = _parameters(system)
    return pyspiel.GameType(
        short_name=f"{PREFIX}{system}", long_name=f"duel: {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=False,
        parameter_specification=parameters)


def duel_options(params: dict) -> dict:
    """``envs.make``'s keyword arguments from OpenSpiel's parameters (empty: not given;
    a sheet's ``+`` is its comma)."""
    return {name: value.replace("+", ",") if name in SHEET_PARAMETERS else value
            for name, value in params.items()
            if not (isinstance(value, str) and value == "")}


#: every duel an OpenSpiel game holds, by key (a state holds the key)
_DUELS: list = []


class DuelGame(pyspiel.Game):
    """One duel (``envs.make(system, **params)``) as a turn-based OpenSpiel game."""

    system: str = ""

    def __init__(self, params: dict | None = None):
        system = self.system
        params = dict(params or {})
        self.duel = envs.make(system, **duel_options(params))
        self.duel_key = len(_DUELS)
        _DUELS.append(self.duel)
        low, high = self.duel.info.payoff_bounds
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.duel.info.action_names),
            max_chance_outcomes=MAX_CHANCE_OUTCOMES, num_players=2,
            min_utility=float(low), max_utility=float(high), utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH)
        super().__init__(_game_type(system), info, {**_parameters(system), **params})

    def new_initial_state(self):
        return DuelState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        perfect = iig_obs_type is None or iig_obs_type.perfect_recall
        return DuelObserver(perfect)


class DuelState(pyspiel.State):
    """A moment of the duel: a chance node (the start, a step's outcomes), A's turn, or
    B's turn with A's choice pending."""

    def __init__(self, game: DuelGame):
        super().__init__(game)
        self.duel_key = game.duel_key
        self.state = None                     # the duel's state (None: not drawn yet)
        self.pending: int | None = None       # A's choice, during B's turn
        self.chances = self.duel.initial_outcomes()
        self.seen: dict[int, list] = {0: [], 1: []}

    @property
    def duel(self):
        # looked up, not held: OpenSpiel clones a state by deepcopy of its attributes
        return _DUELS[self.duel_key]

    def __deepcopy__(self, memo):
        clone = copy.copy(self)
        clone.seen = {0: list(self.seen[0]), 1: list(self.seen[1])}
        return clone

    def current_player(self):
        if self.chances is not None:
            return pyspiel.PlayerId.CHANCE
        if self.duel.is_terminal(self.state):
            return pyspiel.PlayerId.TERMINAL
        return 0 if self.pending is None else 1

    def _legal_actions(self, player):
        mask = self.duel.legal_mask(self.state, "ab"[player])
        return [int(k) for k in np.flatnonzero(mask)]

    def chance_outcomes(self):
        return [(k, float(p)) for k, (p, _) in enumerate(self.chances)]

    def _apply_action(self, action):
        if self.chances is not None:
            self.state = self.chances[action][1]
            self.chances = None
            if not self.duel.is_terminal(self.state):
                for player in (0, 1):
                    self.seen[player].append(
                        tuple(int(x) for x in self.duel.observe(self.state, "ab"[player])))
            return
        self.seen[self.current_player()].append(("played", int(action)))
        if self.pending is None:
            self.pending = int(action)
            return
        self.chances = self.duel.outcomes(self.state, self.pending, int(action))
        self.pending = None

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"outcome {action}"
        return self.duel.info.action_names[action]

    def is_terminal(self):
        return self.chances is None and self.duel.is_terminal(self.state)

    def returns(self):
        if not self.is_terminal():
            return [0.0, 0.0]
        payoff = float(self.duel.payoff(self.state))
        return [payoff, -payoff]

    def observation_now(self, player: int) -> tuple:
        """What ``player`` sees of the duel now (the protocol's ``observe``)."""
        return tuple(int(x) for x in self.duel.observe(self.state, "ab"[player]))

    def __str__(self):
        return f"{self.state!r} pending={self.pending}"


class DuelObserver:
    """Information states (every observation and own action so far) and observations."""

    def __init__(self, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict = {}

    def set_from(self, state, player):
        pass

    def string_from(self, state, player):
        if state.state is None:
            return "start"
        if self.perfect_recall:
            return repr(state.seen[player])
        return repr(state.observation_now(player))


class DuelPolicy:
    """A policy of ours (on observations) as OpenSpiel's ``policy.Policy`` wants it:
    ``action_probabilities(state)`` over the current player's legal actions."""

    def __init__(self, game: DuelGame, policies: dict[int, object]):
        from open_spiel.python import policy as openspiel_policy

        class _Adapter(openspiel_policy.Policy):
            def action_probabilities(inner, state, player_id=None):
                player = state.current_player() if player_id is None else player_id
                mask = game.duel.legal_mask(state.state, "ab"[player])
                mix = policies[player].probabilities(state.observation_now(player), mask)
                total = float(np.sum(np.asarray(mix)[mask]))
                return {int(k): float(mix[k]) / total for k in np.flatnonzero(mask)}

        self.policy = _Adapter(game, [0, 1])


def register_all() -> list[str]:
    """Register ``python_duel_<system>`` for every implemented system (again is fine)."""
    names = []
    for system, spec in envs.systems().items():
        if not spec.implemented:
            continue
        game_type = _game_type(system)
        # a class per system, as OpenSpiel's own Python games register (a closure kept
        # in OpenSpiel's registry is released after Python, which aborts at exit)
        factory = type(f"DuelGame_{system}", (DuelGame,), {"system": system})
        pyspiel.register_game(game_type, factory)
        names.append(game_type.short_name)
    return names


REGISTERED = register_all()
