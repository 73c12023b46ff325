"""Duels whose hits land only sometimes, on every state: their cycles are left rarely,
so value iteration contracts slowly and a small change per sweep is no sign of a value
near its fixed point. Both backends (forced with the test-only ``forcing``) must agree
to 1e-9 on every state, and match values counted by hand."""

from __future__ import annotations

import numpy as np
import pytest
from test_counters import HitPennies, RolledPennies

import solver.solve as facade
from solver import solve_game
from solver.markov.graph import build_graph
from solver.markov.stages import BLOCK_SHARE, TOLERANCE, error_bound, sweep

AGREE = 1e-9
#: chance that an exchange's hit lands: a cycle is left once in fifty exchanges, so a
#: sweep contracts by 0.98 and a change of 1e-10 leaves an error up to 5e-9
RARELY = 0.02


class RarelyRolledPennies(RolledPennies):
    """RolledPennies whose landing roll succeeds with chance ``lands``: two steps per
    exchange in the cycle, a choice and a roll."""

    def __init__(self, hp_a: int, hp_b: int, lands: float):
        super().__init__(hp_a, hp_b)
        self.lands = lands

    def _steps(self, roll, a, b):
        if roll == 0:
            return [(1.0, (1 if a == b else 2,), (0, 0))]
        hit = (0, self.damage_a) if roll == 1 else (1, 0)
        return [(self.lands, (0,), hit), (1 - self.lands, (0,), (0, 0))]


def by_hand(hp_a: int, hp_b: int, damage_a: int) -> float:
    """The value of matching pennies until someone drops, whatever the chance of a hit
    landing: a replayed exchange adds (1 - p) v to every entry of the stage game, so
    v = val(p H + (1 - p) v) = p val(H) + (1 - p) v, and v = val(H). H is
    [[x, y], [y, x]], x after A's hit, y after B's, with value (x + y) / 2."""
    if hp_b <= 0:
        return 1.0
    if hp_a <= 0:
        return -1.0
    return (by_hand(hp_a, hp_b - damage_a, damage_a) + by_hand(hp_a - 1, hp_b, damage_a)) / 2


def _expected(game, state) -> float:
    """By hand, at a choosing state or a roll (worth p x + (1 - p) v, x its hit's)."""
    if game.is_terminal(state):
        return game.payoff(state)
    value = by_hand(state.hp_a, state.hp_b, game.damage_a)
    roll = getattr(state, "roll", 0)
    if roll == 0:
        return value
    hit = (by_hand(state.hp_a, state.hp_b - game.damage_a, game.damage_a) if roll == 1
           else by_hand(state.hp_a - 1, state.hp_b, game.damage_a))
    return game.lands * hit + (1 - game.lands) * value


GAMES = [HitPennies(3, 4, lands=RARELY), HitPennies(2, 5, damage_a=1, lands=RARELY),
         RarelyRolledPennies(3, 3, RARELY)]
IDS = ["hits", "hits-by-one", "rolled"]


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_both_backends_reach_the_hand_count_on_every_state(game):
    on_counters = solve_game(game)
    with facade.forcing("states"):
        on_states = solve_game(game)
    states = build_graph(game).states
    assert len(states) >= 8
    for state in states:
        expected = _expected(game, state)
        assert on_states.value_at(state) == pytest.approx(expected, abs=AGREE), state
        if not game.is_terminal(state):
            assert on_counters.value_at(state) == pytest.approx(expected, abs=AGREE), state
            assert on_counters.value_at(state) == pytest.approx(on_states.value_at(state),
                                                                abs=AGREE)
    for solution in (on_counters, on_states):
        assert solution.convergence.converged
        assert solution.convergence.error <= AGREE


def test_the_value_of_a_fixed_play_matches_a_linear_solve():
    """With both sides' mixes fixed, a cyclic duel is a Markov chain: its values solve
    (I - Q) v = R (Q among live states, R the payoffs reached in one step), one numpy
    solve, against the state graph's value iteration."""
    game = RarelyRolledPennies(3, 3, RARELY)
    with facade.forcing("states"):
        solution = solve_game(game)
    graph = build_graph(game)
    live = np.flatnonzero(~graph.terminal)
    chain = np.zeros((graph.size, graph.size))
    for s in live:
        state = graph.states[s]
        mix_a, mix_b = solution.policy(state)
        for a, pa in enumerate(mix_a):
            for b, pb in enumerate(mix_b):
                if pa * pb:
                    for p, nxt in game.outcomes(state, a, b):
                        chain[s, graph.index[nxt]] += pa * pb * p
    ends = np.array([game.payoff(t) if game.is_terminal(t) else 0.0 for t in graph.states])
    q = chain[np.ix_(live, live)]
    r = chain[live] @ ends
    values = np.linalg.solve(np.eye(len(live)) - q, r)
    found = np.array([solution.value_at(graph.states[s]) for s in live])
    assert np.abs(found - values).max() < AGREE


def test_the_error_bound_is_the_geometric_tail_of_the_changes():
    # changes halving: what is still to come sums to the last change (1/2 + 1/4 + ...)
    assert error_bound([8.0, 4.0, 2.0, 1.0]) == pytest.approx(1.0)
    # a contraction of 0.999 leaves 999 times the last change to come
    assert error_bound([1.0, 0.999]) == pytest.approx(0.999 * 999)
    # a change that grew shows no contraction yet: no bound
    assert error_bound([1.0, 2.0]) == np.inf
    assert error_bound([1.0]) == np.inf
    # a change within rounding is the fixed point
    assert error_bound([1.0, 1e-17], rounding=1e-15) == 1e-17
    assert error_bound([0.0]) == 0.0


def test_value_iteration_stops_at_the_stage_games_rounding():
    # values contracting by half towards 2, each sweep adding noise of 3e-13 (an LP's last
    # digits over a large block): the changes stop shrinking near 1e-12, above floating
    # point's rounding, and the contraction seen before bounds the error
    rng = np.random.default_rng(0)
    values = np.zeros(500)

    def update(states):
        values[states] = 0.5 * values[states] + 1.0 + rng.uniform(-3e-13, 3e-13, len(states))

    found = sweep([(np.arange(500), True)], values, update, max_sweeps=5_000)
    assert found.converged and found.sweeps < 100
    # the fixed point of v = v / 2 + 1, to the noise: within 2 * 3e-13 / (1 - 1/2)
    assert np.abs(values - 2.0).max() < 1.2e-12
    assert found.error <= TOLERANCE * BLOCK_SHARE


@pytest.mark.parametrize("rate, noise, start", [
    # a block that begins at its fixed point (a warm start): its changes never rise
    # above the stage games' rounding, so there is no contraction to see
    (0.5, 3e-14, 2.0),
    # a block contracting slowly to a floor whose tail exceeds the block's share of the
    # tolerance: more sweeps cannot lower it
    (0.95, 3e-13, 0.0),
])
def test_value_iteration_stops_where_rounding_holds_the_changes(rate, noise, start):
    rng = np.random.default_rng(1)
    values = np.full(200, start)
    fixed_point = 1 / (1 - rate)

    def update(states):
        values[states] = rate * values[states] + 1.0 + rng.uniform(-noise, noise, len(states))

    found = sweep([(np.arange(200), True)], values, update, max_sweeps=5_000)
    assert found.converged and found.sweeps < 1_000
    # the noisy operator's fixed point lies within 2 * noise / (1 - rate) of the true one
    assert np.abs(values - fixed_point).max() < 2 * noise / (1 - rate)
    assert found.error <= TOLERANCE


def test_a_layers_slices_add_the_largest_error_and_its_layers_add_up():
    # the blocks of one slice of points rest on each other (their bounds add); the slices
    # of a layer are apart (the largest counts); each layer rests on those below (added)
    from solver.counters.layers import Record
    from solver.markov.stages import Convergence

    def block(error: float, sweeps: int = 3, residual: float = 1e-15) -> Convergence:
        return Convergence(True, sweeps, residual, TOLERANCE, True, error)

    record = Record(TOLERANCE)
    record.slice_of(0)
    record.add(block(1e-13))
    record.add(block(2e-13))          # this slice: 3e-13
    record.slice_of(0)
    record.add(block(5e-13, residual=4e-15))
    record.slice_of(7)
    record.add(block(1e-13))
    record.slice_of(7)
    record.add(block(0.5e-13))
    found = record.convergence()
    assert found.error == pytest.approx(5e-13 + 1e-13, rel=1e-12)
    assert found.sweeps == 15 and found.residual == 4e-15
    assert found.cyclic and found.converged
