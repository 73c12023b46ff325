"""The Blooded state graph built beat by beat (the declared ``graph`` fast path) against
the generic exploration, the reference, on duels where the middle beats are copied:
invokes over several beats, every maneuver, a bid every beat, first blood, Style
banked, a Feint's bonus."""

from __future__ import annotations

import pytest
from graphs import assert_same_graph

import envs
from solver.graph import explore

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
