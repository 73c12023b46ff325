"""Every system as an OpenSpiel game (``envs.openspiel``, optional: skipped where
OpenSpiel is not installed). OpenSpiel's own exploitability (its best responses over its
information states, a second implementation) of our exact equilibrium of one small
hidden duel per system is 0 to 1e-6; of uniform play it is what ours says."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspiel", reason="OpenSpiel is the optional extra .[bench]")

import pyspiel  # noqa: E402
from open_spiel.python import policy as openspiel_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability  # noqa: E402

import envs.openspiel as duel_openspiel  # noqa: E402
from solver.hidden.sequence import hidden_exploitability, solve_hidden  # noqa: E402
from solver.policy import UniformPolicy  # noqa: E402

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


def test_a_public_duel_loads_too():
    game = pyspiel.load_game("python_duel_uchronia", {"a": "sang-froid", "b": "adresse",
                                                      "max_turns": 2})
    assert game.duel.info.public_information
    state = game.new_initial_state()
    assert state.is_chance_node() and abs(sum(p for _, p in state.chance_outcomes()) - 1) < 1e-12
