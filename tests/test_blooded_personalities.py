"""Each Houses of the Blooded temperament's description is a claim about its play; the
exact personality (agents.personality) must keep it against the maximum-entropy
equilibrium at strengths 0.25, 0.5, 0.75 and 1, averaged over the decision points of
a small duel where the claim applies."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from agents.personalities import personality, personality_names
from envs.blooded import BID, BLIND, CANCEL, CHOOSE, RCANCEL, RISK, VICTOR
from solver import solve_game
from solver.game import policy_mix
from solver.markov.graph import build_graph

STRENGTHS = (0.25, 0.5, 0.75, 1.0)
SIDE = "a"


@pytest.fixture(scope="module")
def plain():
    return envs.make("blooded", a="prowess=1,sword=2,invokes=0",
                     b="prowess=2,sword=1,invokes=0", max_beats=2)


@pytest.fixture(scope="module")
def fancy():
    sheet = "prowess=1,sword=2,strength=1,athletics=1,invokes=0,feint,lunge,bash,riposte,blind"
    return envs.make("blooded", a=sheet, b="prowess=2,sword=1,invokes=0", max_beats=2)


def _decisions(game, phases):
    """States of ``phases`` where A has more than one legal action."""
    graph = build_graph(game)
    return [s for s in graph.states if not game.is_terminal(s) and s.phase in phases
            and game.legal_mask(s, SIDE).sum() > 1]


def _mean(game, policy_of, states, score) -> float:
    """Mean over ``states`` of the expected ``score`` (a vector over the actions)."""
    return float(np.mean([policy_of(s) @ score for s in states]))


def _compare(game, name, phases, score):
    states = _decisions(game, phases)
    assert states, "the duel must reach the situation the claim is about"
    solution = solve_game(game)
    equilibrium = _mean(game, lambda s: solution.policy(s)[0], states, score)
    for strength in STRENGTHS:
        play = personality(game, name, strength, side=SIDE).policy
        mean = _mean(game, lambda s, p=play: policy_mix(p, game, s, SIDE), states, score)
        yield strength, mean, equilibrium


def _counts(game) -> np.ndarray:
    return np.array([float(n) if n.isdigit() else 0.0 for n in game.action_names])


def _named(game, names) -> np.ndarray:
    return np.array([1.0 if n in names else 0.0 for n in game.action_names])


def test_every_temperament_is_checked():
    assert set(personality_names("blooded")) == {"reckless", "patient", "showy", "grudging"}


def test_reckless_bids_high_and_attacks(plain):
    for strength, mean, eq in _compare(plain, "reckless", {BID}, _counts(plain)):
        assert mean > eq + 1e-6, strength
    aggressor = _named(plain, {"aggressor"})
    for strength, mean, eq in _compare(plain, "reckless", {CHOOSE}, aggressor):
        assert mean > eq + 1e-6, strength


def test_patient_defends_and_wagers_little(plain):
    defender = _named(plain, {"defender"})
    for strength, mean, eq in _compare(plain, "patient", {CHOOSE}, defender):
        assert mean > eq + 1e-6, strength
    for strength, mean, eq in _compare(plain, "patient", {RISK}, _counts(plain)):
        assert mean < eq - 1e-6, strength


def test_showy_loves_maneuvers(fancy):
    names = {"feint", "bash", "riposte", "blind"} | {f"lunge{k}" for k in range(5)}
    for strength, mean, eq in _compare(fancy, "showy", {VICTOR, BLIND}, _named(fancy, names)):
        assert mean > eq + 1e-6, strength


def test_grudging_cancels_more(plain):
    for strength, mean, eq in _compare(plain, "grudging", {CANCEL, RCANCEL}, _counts(plain)):
        assert mean > eq + 1e-6, strength
