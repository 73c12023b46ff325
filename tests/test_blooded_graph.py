"""The Blooded state graph built beat by beat (the declared ``graph`` fast path) against
the generic exploration, the reference, on duels where the middle beats are copied:
invokes over several beats, every maneuver, a bid every beat, first blood, Style
banked, a Feint's bonus."""

from __future__ import annotations

import numpy as np
import pytest
from graphs import assert_same_graph

import envs
from experiments.reference import linprog_value
from solver import solve_game
from solver.markov.graph import build_graph, explore

CASES = [
    {"a": "prowess=2,sword=2", "b": "prowess=2,sword=3", "max_beats": 5},
    {"a": "prowess=2,sword=2,feint,bash,riposte,blind,bind,lunge,strength=2,style=3",
     "b": "prowess=1,sword=2,riposte,bind,invokes=2,style=1", "max_beats": 6},
    {"a": "prowess=2,sword=1,lunge,strength=3", "b": "prowess=1,sword=2,feint,bash",
     "max_beats": 6, "bid_every_beat": True, "convention": "first_blood"},
    {"a": "prowess=1,sword=1,invokes=0", "b": "prowess=1,sword=2,invokes=3", "max_beats": 7},
]


@pytest.mark.parametrize("options", CASES)
def test_beat_by_beat_graph_equals_the_exploration(options):
    game = envs.make("blooded", **options)
    fast = game.graph()
    assert fast.size > 500  # big enough that several middle beats were copied
    assert_same_graph(fast, explore(envs.make("blooded", **options)))


def test_a_duel_too_short_to_copy_is_explored():
    # max_beats 2 with one invoke: beat 1 is the opening, beat 2 the last, no middle
    options = {"a": "prowess=2,sword=1", "b": "prowess=1,sword=2", "max_beats": 2}
    assert_same_graph(envs.make("blooded", **options).graph(),
                      explore(envs.make("blooded", **options)))


def test_the_batched_solution_is_an_equilibrium_at_every_state():
    # Long action lists (a Blooded risk offers up to 11 wagers a side) are solved in
    # padded buckets; every state's value must equal the value of its own stage game
    # by an independent linprog, and both mixes must guarantee it (min / max over the
    # other side's legal actions), summing to 1 on legal actions only. (The solution is
    # the counter solver's, the beats left as the counter; the states are the graph's.)
    game = envs.make("blooded", a="prowess=2,sword=2,feint,riposte", b="prowess=2,sword=3",
                     max_beats=3)
    solution = solve_game(game)
    graph = build_graph(game)
    for s in np.flatnonzero(~graph.terminal)[::7]:
        state = graph.states[s]
        matrix = solution.stage_matrix(state)
        rows, cols = graph.mask_a[s], graph.mask_b[s]
        stage = matrix[np.ix_(rows, cols)]
        value = solution.value_at(state)
        assert linprog_value(stage) == pytest.approx(value, abs=1e-8)
        mix_a, mix_b = solution.policy(state)
        assert mix_a[~rows].sum() == 0 and mix_b[~cols].sum() == 0
        assert mix_a.sum() == pytest.approx(1) and mix_b.sum() == pytest.approx(1)
        assert (mix_a[rows] @ stage).min() >= value - 1e-8
        assert (stage @ mix_b[cols]).max() <= value + 1e-8


