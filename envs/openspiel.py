"""Every duel system as an OpenSpiel game, for researchers: ``import envs.openspiel``
registers ``python_duel_<system>`` for each system, loaded by
``pyspiel.load_game("python_duel_uchronia", {"a": "sang-froid", "b_prior":
"adresse+tireur@1;adresse@1", "max_turns": 3})``. OpenSpiel is optional (the
``.[bench]`` extra): this module alone imports it.

Parameters: ``a``, ``b``, ``a_prior``, ``b_prior``, ``ruleset`` and every option of
the system, as on the command line (an empty text is "not given"; integer options are
integers). OpenSpiel's game strings separate parameters by commas, so a sheet's fields
are joined by ``+`` there: ``{"b_prior": "fighter+hp=6@1;rogue@1"}``
(``game_parameters`` writes ``envs.make``'s keyword arguments so).

A duel's step is simultaneous; OpenSpiel's algorithms for imperfect information want
turns, so a step is played as A's turn then B's, B not seeing A's choice (the classic
conversion, exact: B's information state is what he saw before A chose), then a chance
node for the step's outcomes (one action per outcome, in ``outcomes``' order). A step
(or the start) with a single outcome has no chance node: it happens with probability 1,
so no return or reach probability changes.

The parameter ``information`` keys a player's information state:

- ``history`` (the default): his observation at every step so far with his own actions,
  perfect recall, in public and hidden duels alike;
- ``observation``: his current observation only, the key our tables use. It is a Markov
  key, sound only where observations tell states apart (public information, where the
  continuation from a state does not depend on how it was reached); a hidden duel
  refuses it. ``game.state_at(duel_state, pending)`` builds the OpenSpiel state at a
  duel state, and ``observation_tables(game, policy)`` reads a policy learnt on this
  key back into our tables state by state (the inverse of ``DuelPolicy``).

Every information state names its player first (``0|...``): OpenSpiel's tabular
policies keep both players' information states in one table.
"""

from __future__ import annotations

import numpy as np
import pyspiel

import envs
import envs.rulesets
from solver import TabularPolicy, state_graph
from solver.errors import InputError, check_choice

PREFIX = "python_duel_"
#: parameters every system takes besides its options
SHEET_PARAMETERS = ("a", "b", "a_prior", "b_prior", "ruleset")
#: how an information state is keyed (the parameter ``information``), the default first
INFORMATION = ("history", "observation")
#: an upper bound OpenSpiel asks for (it sizes nothing by it in the algorithms used here)
MAX_GAME_LENGTH = 10_000
MAX_CHANCE_OUTCOMES = 100_000


def _parameters(system: str) -> dict:
    """Each parameter's default, typed as OpenSpiel reads it back from a game's string
    (an integer option an int, a flag a bool); ``""`` for "not given"."""
    spec = envs.spec(system)
    ruleset = envs.rulesets.load_ruleset(spec.name, None, spec.ruleset_file)
    parameters: dict = {name: "" for name in SHEET_PARAMETERS}
    parameters["information"] = INFORMATION[0]
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
    a sheet's ``+`` is its comma; ``information`` is the adapter's, not the duel's)."""
    return {name: value.replace("+", ",") if name in SHEET_PARAMETERS else value
            for name, value in params.items()
            if name != "information" and not (isinstance(value, str) and value == "")}


def game_parameters(system: str, options: dict) -> dict:
    """OpenSpiel's parameters from ``envs.make(system, **options)``'s keyword arguments:
    a sheet given as a mapping is written as the command line takes it, and a sheet's
    commas become ``+``; the other options pass as they are."""
    spec = envs.spec(system)
    parameters = {}
    for name, value in options.items():
        if name in ("a", "b") and not isinstance(value, str):
            ruleset = envs.rulesets.load_ruleset(spec.name, options.get("ruleset"),
                                                 spec.ruleset_file)
            value = spec.sheet.text(spec.sheet.normalise(value, name, ruleset), ruleset)
        if name in SHEET_PARAMETERS:
            if not isinstance(value, str):
                raise InputError(f"OpenSpiel takes {name} as text, got {value!r}")
            value = value.replace(",", "+")
        parameters[name] = value
    return parameters


class DuelGame(pyspiel.Game):
    """One duel (``envs.make(system, **params)``) as a turn-based OpenSpiel game."""

    system: str = ""

    def __init__(self, params: dict | None = None):
        system = self.system
        params = dict(params or {})
        information = params.get("information", INFORMATION[0])
        check_choice("information", information, INFORMATION)
        duel = envs.make(system, **duel_options(params))
        if information == "observation" and not duel.info.public_information:
            raise InputError("information=observation keys a player's information state "
                             "on his current observation alone, sound only when "
                             "observations tell states apart; this duel hides a sheet: "
                             "use information=history")
        self.duel = duel
        self.perfect_recall = information == "history"
        # the duel is a class attribute of this game's states, not an attribute of each:
        # OpenSpiel clones a state by a deepcopy of every attribute
        self.state_class = type(f"DuelState_{system}", (DuelState,), {"duel": duel})
        low, high = self.duel.info.payoff_bounds
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.duel.info.action_names),
            max_chance_outcomes=MAX_CHANCE_OUTCOMES, num_players=2,
            min_utility=float(low), max_utility=float(high), utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH)
        super().__init__(_game_type(system), info, {**_parameters(system), **params})

    def new_initial_state(self):
        return self.state_class(self)

    def state_at(self, duel_state, pending: int | None = None) -> DuelState:
        """The OpenSpiel state at the live ``duel_state`` of ``self.duel``: A to choose,
        or B to choose with A's choice ``pending``. Only with ``information=observation``,
        where the state alone makes the information state (under ``history`` a history
        leads there, which a state does not tell)."""
        if self.perfect_recall:
            raise InputError("state_at needs information=observation: with "
                             "information=history an information state is a history")
        return self.state_class(self, duel_state, pending)

    def make_py_observer(self, iig_obs_type=None, params=None):
        information_state = iig_obs_type is None or iig_obs_type.perfect_recall
        return DuelObserver(information_state and self.perfect_recall)


class DuelState(pyspiel.State):
    """A moment of the duel: a chance node (the start, a step's outcomes), A's turn, or
    B's turn with A's choice pending."""

    duel = None  # the game's duel, set on the class each game makes (``state_class``)

    def __init__(self, game: DuelGame, duel_state=None, pending: int | None = None):
        super().__init__(game)
        self.state = None                     # the duel's state (None: not drawn yet)
        self.pending = pending                # A's choice, during B's turn
        self.chances = None                   # the outcomes to draw, at a chance node
        # the trail of observations and own actions, kept under information=history
        self.seen: dict[int, list] | None = {0: [], 1: []} if game.perfect_recall else None
        if duel_state is None:
            self._draw(self.duel.initial_outcomes())
        else:
            self.state = duel_state

    def __deepcopy__(self, memo):
        # OpenSpiel's clone, not its pickling (which would load the game anew)
        return self.clone()

    def _draw(self, outcomes) -> None:
        """Reach the outcomes' state, through a chance node unless there is only one."""
        if len(outcomes) == 1:
            self._arrive(outcomes[0][1])
        else:
            self.chances = outcomes

    def _arrive(self, state) -> None:
        self.state = state
        self.chances = None
        if self.seen is not None and not self.duel.is_terminal(state):
            for player in (0, 1):
                self.seen[player].append(self.observation_now(player))

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
            self._arrive(self.chances[action][1])
            return
        if self.seen is not None:
            self.seen[self.current_player()].append(("played", int(action)))
        if self.pending is None:
            self.pending = int(action)
            return
        pending, self.pending = self.pending, None
        self._draw(self.duel.outcomes(self.state, pending, int(action)))

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
        return tuple(map(int, self.duel.observe(self.state, "ab"[player])))

    def __str__(self):
        return f"{self.state!r} pending={self.pending}"


class DuelObserver:
    """Information states (the trail so far under ``history``, else the current
    observation) and observations (the current observation), each naming its player."""

    def __init__(self, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict = {}

    def set_from(self, state, player):
        pass

    def string_from(self, state, player):
        if state.state is None:
            return f"{player}|start"
        if self.perfect_recall:
            return f"{player}|{state.seen[player]!r}"
        # the protocol's tuple as it is (no copy to ints: this runs at every node visited)
        return f"{player}|{state.duel.observe(state.state, 'ab'[player])!r}"


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


def observation_tables(game: DuelGame, policy,
                       name: str = "openspiel") -> tuple[TabularPolicy, TabularPolicy]:
    """An OpenSpiel policy (``action_probabilities(state)``) of a game loaded with
    ``information=observation`` as our tables, A's and B's, read at every live state of
    the duel; B's mix is read with A's first legal choice pending, which he does not see."""
    duel = game.duel
    graph = state_graph(duel)
    tables: tuple[dict, dict] = ({}, {})
    for s in np.flatnonzero(~graph.terminal):
        state = graph.states[s]
        pending = int(np.flatnonzero(graph.mask_a[s])[0])
        for player, at in ((0, game.state_at(state)), (1, game.state_at(state, pending))):
            mix = np.zeros(len(duel.info.action_names))
            for action, probability in policy.action_probabilities(at).items():
                mix[action] = probability
            tables[player][tuple(duel.observe(state, "ab"[player]))] = mix
    return TabularPolicy(tables[0], f"{name} a"), TabularPolicy(tables[1], f"{name} b")


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
