"""Every system as an OpenSpiel game (``envs.openspiel``, optional: skipped where
OpenSpiel is not installed). OpenSpiel's own exploitability (its best responses over its
information states, a second implementation) of our exact equilibrium of one small
hidden duel per system is 0 to 1e-6; of uniform play it is what ours says. On a public
duel both information keys (``history``, ``observation``) give OpenSpiel's exploitability
and expected value of a policy on observations as our solver does, and a policy OpenSpiel
learns on observations reads back state by state (``state_at``) to what it measures."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspiel", reason="OpenSpiel is the optional extra .[bench]")

import pyspiel  # noqa: E402
from open_spiel.python import policy as openspiel_policy  # noqa: E402
from open_spiel.python.algorithms import cfr, exploitability  # noqa: E402
from open_spiel.python.algorithms.expected_game_score import policy_value  # noqa: E402

import envs  # noqa: E402
import envs.openspiel as duel_openspiel  # noqa: E402
from solver import InputError, solve_game  # noqa: E402
from solver import exploitability as our_exploitability  # noqa: E402
from solver.hidden.sequence import hidden_exploitability, solve_hidden  # noqa: E402
from solver.policy import MixPolicy, UniformPolicy  # noqa: E402

#: one small hidden duel per system (a sheet's commas are ``+`` in OpenSpiel's params)
HIDDEN = {
    "uchronia": {"a": "sang-froid", "b_prior": "adresse+tireur@1;adresse@1", "max_turns": 2},
    "pathfinder": {"a_prior": "fighter+hp=2@1;fighter+hp=2+ac=14@1", "b": "rogue+hp=2",
                   "victory": "first_blood", "max_rounds": 1},
    "blooded": {"a_prior": "prowess=1+sword=1@1;prowess=2+sword=1@1", "b": "prowess=1+sword=1",
                "max_beats": 1},
    "falkenstein": {"a_prior": "fencing=GD@1;fencing=GR@1", "b": "fencing=GD",
                    "max_rounds": 1, "discipline": "boxing"},
}


def test_every_system_is_registered():
    names = set(pyspiel.registered_names())
    assert {f"python_duel_{system}" for system in HIDDEN} <= names
    assert set(duel_openspiel.REGISTERED) >= {f"python_duel_{system}" for system in HIDDEN}


@pytest.mark.parametrize("system", sorted(HIDDEN))
def test_openspiel_finds_our_hidden_equilibrium_unexploitable(system):
    game = pyspiel.load_game(f"python_duel_{system}", HIDDEN[system])
    solution = solve_hidden(game.duel)
    ours = duel_openspiel.DuelPolicy(game, {0: solution.policy_for("a"),
                                            1: solution.policy_for("b")}).policy
    assert 0 <= exploitability.exploitability(game, ours) < 1e-6


def test_openspiel_and_we_measure_uniform_play_alike():
    game = pyspiel.load_game("python_duel_uchronia", HIDDEN["uchronia"])
    theirs = exploitability.exploitability(game, openspiel_policy.UniformRandomPolicy(game))
    ours, _ = hidden_exploitability(game.duel, UniformPolicy(), UniformPolicy())
    assert theirs == pytest.approx(ours, abs=1e-9)
    assert theirs > 0.1


#: a small public duel: every observation tells its state apart
PUBLIC = {"a": "sang-froid", "b": "adresse", "max_turns": 2}


def load_public(information: str):
    return pyspiel.load_game("python_duel_uchronia", {**PUBLIC, "information": information})


def walk(state):
    """Every non-terminal node of the game below ``state``."""
    if state.is_terminal():
        return
    yield state
    actions = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
               else state.legal_actions())
    for action in actions:
        yield from walk(state.child(action))


def test_a_public_duel_has_a_chance_node_only_where_a_step_draws():
    game = load_public("history")
    assert game.duel.info.public_information
    assert len(game.duel.initial_outcomes()) == 1
    assert game.new_initial_state().current_player() == 0    # no draw at the start
    nodes = list(walk(game.new_initial_state()))
    chances = [node.chance_outcomes() for node in nodes if node.is_chance_node()]
    assert chances and all(len(outcomes) >= 2 for outcomes in chances)
    assert all(abs(sum(p for _, p in outcomes) - 1) < 1e-12 for outcomes in chances)
    # OpenSpiel's tabular policies hold both players' information states in one table
    keys = [{node.information_state_string(player) for node in nodes
             if node.current_player() == player} for player in (0, 1)]
    assert keys[0] and keys[1] and not keys[0] & keys[1]


def leaning(duel) -> MixPolicy:
    """A fixed policy neither uniform nor an equilibrium: action k weighs k + 1."""
    names = duel.info.action_names
    return MixPolicy({name: k + 1 for k, name in enumerate(names)}, names)


@pytest.mark.parametrize("played", ["uniform", "leaning", "equilibrium"])
def test_both_information_keys_measure_a_policy_on_observations_as_we_do(played):
    duel = load_public("history").duel
    solution = solve_game(duel)
    pair = {"uniform": (UniformPolicy(), UniformPolicy()),
            "leaning": (leaning(duel), leaning(duel)),
            "equilibrium": (solution.policy_for("a"), solution.policy_for("b"))}[played]
    ours = our_exploitability(duel, *pair)
    for information in duel_openspiel.INFORMATION:
        game = load_public(information)
        theirs = duel_openspiel.DuelPolicy(game, {0: pair[0], 1: pair[1]}).policy
        assert exploitability.exploitability(game, theirs) == pytest.approx(
            ours.value, abs=1e-9)
        value = policy_value(game.new_initial_state(), [theirs, theirs])[0]
        assert value == pytest.approx(ours.pair_value, abs=1e-9)
    if played == "equilibrium":
        assert ours.value < 1e-9 and ours.pair_value == pytest.approx(solution.value)
    else:
        assert ours.value > 0.05


def test_a_policy_learnt_on_observations_reads_back_state_by_state():
    game = load_public("observation")
    for node in walk(game.new_initial_state()):
        if node.is_chance_node():
            continue
        player = node.current_player()
        rebuilt = game.state_at(node.state, node.pending)
        assert rebuilt.current_player() == player
        assert rebuilt.legal_actions() == node.legal_actions()
        assert (rebuilt.information_state_string(player)
                == node.information_state_string(player))
    solver = cfr.CFRSolver(game)
    for _ in range(5):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    ours = our_exploitability(game.duel, *duel_openspiel.observation_tables(game, average))
    assert exploitability.exploitability(game, average) == pytest.approx(ours.value, abs=1e-9)
    assert ours.value > 1e-3    # five iterations are not an equilibrium


def test_the_observation_key_is_refused_where_observations_hide_a_sheet():
    with pytest.raises(InputError, match="information=observation"):
        pyspiel.load_game("python_duel_uchronia", {**HIDDEN["uchronia"],
                                                   "information": "observation"})
    with pytest.raises(InputError, match="history, observation"):
        load_public("markov")
    history = load_public("history")
    with pytest.raises(InputError, match="state_at needs information=observation"):
        history.state_at(history.duel.initial_outcomes()[0][1])


def test_game_parameters_load_the_duel_envs_make_builds():
    options = {"a": {"fencing": "GD"}, "b": "fencing=GR", "max_rounds": 1,
               "discipline": "boxing"}
    parameters = duel_openspiel.game_parameters("falkenstein", options)
    game = pyspiel.load_game("python_duel_falkenstein", parameters)
    assert game.duel.info.identity == envs.make("falkenstein", **options).info.identity
    pathfinder = duel_openspiel.game_parameters("pathfinder", {"a": "fighter,hp=2"})
    assert pathfinder == {"a": "fighter+hp=2"}
