"""The conformance suite runs on each system's example duel, which for Uchronia is the
pistol duel (the default mode); the same checks here on the melee, a separate game
with its own states and sequential steps (the winner's choice after the roll)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

import envs

sys.path.insert(0, str(Path(__file__).parent))
suite = importlib.import_module("conformance.test_conformance")

CHECKS = ["test_metadata_is_declared_and_consistent",
          "test_outcome_probabilities_are_a_distribution",
          "test_declared_transitions_equal_outcomes",
          "test_declared_sampler_draws_from_outcomes",
          "test_observations_lie_within_their_declared_bounds",
          "test_one_observation_one_mask", "test_every_live_state_lets_both_players_act",
          "test_terminal_payoffs_lie_within_their_bounds", "test_presentation_speaks_words",
          "test_pettingzoo_api", "test_pettingzoo_seed", "test_same_seed_same_trajectory",
          "test_the_solved_pair_is_unexploitable"]


@pytest.fixture(scope="module", params=["", "weapon=epee", "weapon=matraque"])
def melee(request):
    # A bare-handed brawler against a (possibly armed) opponent: grapples, disarms and
    # the grappled winner's choice all occur in these three.
    return envs.make("uchronia", mode="melee", a="pugiliste,athlete", b=request.param,
                     max_rounds=3)


@pytest.mark.parametrize("check", CHECKS)
def test_melee_conforms(melee, check):
    getattr(suite, check)(melee)


@pytest.mark.parametrize("player", ["a", "b"])
def test_melee_gymnasium(melee, player):
    suite.test_gymnasium_check_env(melee, player)


def test_melee_state_fields_read_back():
    game = envs.make("uchronia", mode="melee", a="pugiliste", b="weapon=couteau",
                     max_rounds=3)
    for state in suite.live_states(game)[:200]:
        fields = game.state_fields(state)
        assert game.state_from(fields) == state
        assert game.state_from({k: str(v) for k, v in fields.items()}) == state


def test_melee_mirror_is_worth_nothing():
    sheet = "athlete,colosse"
    game = envs.make("uchronia", mode="melee", a=sheet, b=sheet, max_rounds=4)
    assert suite.solve_game(game).value == pytest.approx(0.0, abs=1e-9)
