"""The cores of a Blooded duel (its states without the beats left) built at once, the
steps after the dice copied over the Injuries (the declared ``cores`` fast path),
against the walk through ``core_transitions``, the reference; and the counter
solution against the generic one on the state graph."""

from __future__ import annotations

import numpy as np
import pytest
from graphs import assert_same_cores
from test_blooded_graph import CASES as GRAPH_CASES

import envs
from solver import best_response, solve_game
from solver.counters import walk
from solver.counters.cores import explore
from solver.counters.play import counter_decisions
from solver.solve import forcing

# the state graph's duels (every maneuver, invokes, bids every beat, first blood), and one
# whose every roll ends the beat at once
CASES = [*GRAPH_CASES,
         {"a": "prowess=1,sword=1,invokes=0", "b": "prowess=1,sword=1,invokes=0",
          "max_beats": 2}]


@pytest.mark.parametrize("options", CASES)
def test_the_cores_at_once_equal_the_walk(options):
    fast = envs.make("blooded", **options).cores()
    assert len(fast.cores) > 100  # Injuries reached, so steps were copied
    assert_same_cores(fast, walk(envs.make("blooded", **options)))


def test_a_duel_whose_rolls_end_every_beat_at_once():
    # First blood with tiny pools: every roll either ends the beat or the duel at once
    # (any Injury is a finishing blow), so there is no step after the dice to copy.
    options = {"a": "prowess=2,sword=1,invokes=0", "b": "prowess=1,sword=1,invokes=0",
               "convention": "first_blood", "max_beats": 1}
    fast = envs.make("blooded", **options).cores()
    assert_same_cores(fast, walk(envs.make("blooded", **options)))


def test_a_copy_is_raised_to_its_injuries():
    # B already has rank 3. A, aggressor and victor with 3 wagers, Injures with k = 0..3
    # of them: rank 1 + k = 1, 2, 3, 4; B keeps his highest, 3, 3, 3, 4 (the copy of the
    # unhurt step, whose next states have B at 1, 2, 3, 4, raised to B's 3).
    options = {"a": "prowess=3,sword=3", "b": "prowess=3,sword=3", "max_beats": 4}
    game = envs.make("blooded", **options)
    found = game.cores()
    index = {core: k for k, core in enumerate(found.cores)}
    victor = next(c for c in found.cores if c.phase == 6 and c.inj_b == 3 and c.victor == 0
                  and c.aggressor == 0 and c.wv == 3 and c.inj_a == 0)
    k = index[victor]
    pairs = np.flatnonzero(found.pair_core == k)
    starts = np.concatenate([[0], np.cumsum(found.counts)])
    ranks = {}
    for q in pairs:
        name = game.action_names[found.pair_a[q]]
        (target,) = found.targets[starts[q]:starts[q + 1]]
        ranks[name] = found.cores[target].inj_b
    assert ranks == {"injure0": 3, "injure1": 3, "injure2": 3, "injure3": 4}


def test_the_counter_solution_agrees_with_the_state_graph():
    # every maneuver, Style banked, a second invoke: the same value and win / draw /
    # loss as the generic solver on every state of the graph
    options = CASES[1]
    game = envs.make("blooded", **options)
    (_, start), = game.initial_outcomes()
    with forcing("states"):
        generic = solve_game(game, start=start)
    fast = solve_game(game)
    for key in ("value", "win", "draw", "loss", "expected_length"):
        assert getattr(fast, key) == pytest.approx(getattr(generic, key), abs=1e-9), key
    for s, state in enumerate(generic.graph.states):
        if not game.is_terminal(state):
            assert fast.value_at(state) == pytest.approx(generic.values[s], abs=1e-9)


def test_the_equilibrium_policy_is_the_generic_one_at_every_state():
    # The cores of the beats after the invoke exist from beat 2 on: at the top counter
    # (30 beats left, beat 1) they are no state of the duel, and their mixes there must
    # not stand for beat 2's in the policy (both would be observed at beat 2).
    game = envs.make("blooded", a="prowess=2,sword=2,feint,riposte", b="prowess=2,sword=3",
                     max_beats=4)
    (_, start), = game.initial_outcomes()
    with forcing("states"):
        generic = solve_game(game, start=start)
    fast = solve_game(game)
    for player in ("a", "b"):
        ours, reference = fast.policy_for(player), generic.policy_for(player)
        for state in generic.graph.states:
            if game.is_terminal(state):
                continue
            seen, mask = game.observe(state, player), game.legal_mask(state, player)
            assert np.abs(ours.probabilities(seen, mask)
                          - reference.probabilities(seen, mask)).max() < 1e-9, state


def test_a_best_response_reports_the_state_graphs_decisions_where_some_pairs_are_none():
    # A best response's decisions over the counters are the pairs its play reaches, their
    # states attached when read and not checked: play steps from the start, so it never
    # reaches the pairs that are no state (the beats after the invoke at the top counter).
    game = envs.make("blooded", a="prowess=2,sword=2,feint,riposte", b="prowess=2,sword=3",
                     max_beats=4)
    graph, grid, _ = explore(game)
    assert len(counter_decisions(game).core) < graph.chooses.sum() * grid.size
    for responder in ("a", "b"):
        fast = best_response(game, "uniform", responder)
        with forcing("states"):
            generic = best_response(game, "uniform", responder)
        found = {state: rest for state, *rest in fast.decisions(chances=True)}
        expected = {state: rest for state, *rest in generic.decisions(chances=True)}
        assert found.keys() == expected.keys() and expected
        for state, (reach, mix, value, chances) in expected.items():
            got_reach, got_mix, got_value, got_chances = found[state]
            assert abs(got_reach - reach) < 1e-9 and abs(got_value - value) < 1e-9
            assert np.abs(got_mix - mix).max() < 1e-9
            assert np.abs(np.subtract(got_chances, chances)).max() < 1e-9
