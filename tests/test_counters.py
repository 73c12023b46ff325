"""``solver.counters``: games whose counters only fall, solved over every counter value
at once, on a toy whose values follow from a hand count."""

from __future__ import annotations

import warnings
from math import comb
from typing import NamedTuple

import numpy as np
import pytest
from bare import BareGame

import envs
from solver import solve_game
from solver.backward import solve_moment
from solver.counters import Grid, _Chunks, _lowered, _Move, _Windows, explore, solve_counters
from solver.errors import InputError
from solver.stage_rules import WarmStarts
from solver.stages import ConvergenceWarning

LANDS = 0.6   # chance that the winner of an exchange hits; else nothing happens


class Duel(NamedTuple):
    hp_a: int
    hp_b: int
    ending: int = 0   # 1: B is down, 2: A is down


class HitPennies(BareGame):
    """Matching pennies until someone drops: on a match A hits for ``damage_a``, on a
    mismatch B hits for 1, each hit landing with chance LANDS (else the exchange is
    replayed). ``both`` makes a hit lower both counters (not a counter game)."""

    system = "toy_hit_pennies"
    action_names = ("heads", "tails")
    observation_fields = ("hp_a", "hp_b", "ending")
    observation_low = (0, 0, 0)
    observation_high = (9, 9, 2)
    may_cycle = True
    fast_paths = frozenset({"counters"})

    def __init__(self, hp_a: int, hp_b: int, damage_a: int = 2, both: bool = False,
                 lands: float = LANDS):
        self.start, self.damage_a, self.both = Duel(hp_a, hp_b), damage_a, both
        self.lands = lands

    def initial_outcomes(self):
        return [(1.0, self.start)]

    def legal_mask(self, state, player):
        return np.array([not self.is_terminal(state)] * 2)

    def is_terminal(self, state):
        return state.ending != 0

    def payoff(self, state):
        return {1: 1.0, 2: -1.0}[state.ending]

    def result(self, state):
        return {1: "B drops", 2: "A drops"}[state.ending]

    def observe(self, state, player):
        return tuple(state)

    def outcomes(self, state, a, b):
        out = []
        for p, _, (down_a, down_b) in self._hits(a, b):
            hp_a, hp_b = state.hp_a - down_a, state.hp_b - down_b
            nxt = (Duel(0, 0, 1) if hp_b <= 0 else Duel(0, 0, 2) if hp_a <= 0
                   else Duel(hp_a, hp_b))
            out.append((p, nxt))
        return out

    def _hits(self, a, b):
        hit = (0, self.damage_a) if a == b else (1, 0)
        if self.both:
            hit = (1, 1)
        if self.lands == 1:
            return [(1.0, (), hit)]  # every exchange lands: no step leaves the counters
        return [(self.lands, (), hit), (1 - self.lands, (), (0, 0))]

    # the counters fast path
    def counters(self, state):
        return state.hp_a, state.hp_b

    def core(self, state):
        return ()

    def attach(self, core, counters):
        return Duel(int(counters[0]), int(counters[1]))

    def depleted(self, counter):
        return Duel(0, 0, 2 if counter == 0 else 1)

    def core_transitions(self, core):
        return [(a, b, self._hits(a, b)) for a in (0, 1) for b in (0, 1)]


class Roll(NamedTuple):
    hp_a: int
    hp_b: int
    roll: int = 0     # 0: both choose; 1: A's hit is being rolled; 2: B's
    ending: int = 0


class RolledPennies(HitPennies):
    """HitPennies with the landing roll as its own chance step after the choice: the
    same odds in twice the steps. The cycle choice -> roll -> choice keeps the
    counters, so the block holds a choosing core and chance cores (solved through its
    choosing core, and pushed forward the same way)."""

    system = "toy_rolled_pennies"
    observation_fields = ("hp_a", "hp_b", "roll", "ending")
    observation_low = (0, 0, 0, 0)
    observation_high = (9, 9, 2, 2)

    def __init__(self, hp_a: int, hp_b: int):
        super().__init__(hp_a, hp_b)
        self.start = Roll(hp_a, hp_b)

    def legal_mask(self, state, player):
        live = not self.is_terminal(state)
        return np.array([live, live and state.roll == 0])

    def outcomes(self, state, a, b):
        out = []
        for p, core, (down_a, down_b) in self._steps(state.roll, a, b):
            hp = (state.hp_a - down_a, state.hp_b - down_b)
            low = [k for k in (0, 1) if hp[k] <= 0]
            out.append((p, self.depleted(low[0]) if low else self.attach(core, hp)))
        return out

    def _steps(self, roll, a, b):
        if roll == 0:
            return [(1.0, (1 if a == b else 2,), (0, 0))]
        hit = (0, self.damage_a) if roll == 1 else (1, 0)
        return [(LANDS, (0,), hit), (1 - LANDS, (0,), (0, 0))]

    def core(self, state):
        return (state.roll,)

    def attach(self, core, counters):
        return Roll(int(counters[0]), int(counters[1]), core[0])

    def depleted(self, counter):
        return Roll(0, 0, 0, 2 if counter == 0 else 1)

    def core_transitions(self, core):
        pairs = [(0, 0)] if core[0] else [(a, b) for a in (0, 1) for b in (0, 1)]
        return [(a, b, self._steps(core[0], a, b)) for a, b in pairs]


def a_wins(hp_a: int, hp_b: int, damage_a: int) -> float:
    """A lands ceil(hp_b / damage_a) hits before B lands hp_a: each landed hit is A's
    with chance 1/2 under the uniform equilibrium (negative binomial count)."""
    need = -(-hp_b // damage_a)
    return sum(comb(need - 1 + k, k) * 0.5 ** (need + k) for k in range(hp_a))


@pytest.mark.parametrize("hp_a, hp_b", [(1, 1), (2, 2), (1, 3), (2, 3), (3, 5), (4, 2)])
def test_every_hit_point_pair_has_its_hand_counted_value(hp_a, hp_b):
    # e.g. (2, 3): A needs 2 hits before B's 2, 1/4 + 2/8 = 1/2, value 0;
    # (1, 3): A needs 2 hits before B's 1, 1/4, value -1/2
    solution = solve_counters(HitPennies(4, 5))
    win = a_wins(hp_a, hp_b, 2)
    assert solution.value_at(Duel(hp_a, hp_b)) == pytest.approx(2 * win - 1, abs=1e-9)
    mix_a, mix_b = solution.policy(Duel(hp_a, hp_b))
    assert np.allclose(mix_a, 0.5) and np.allclose(mix_b, 0.5)


def test_the_start_statistics_follow_the_same_count():
    # from (3, 4): A needs 2 hits before B's 3 -> 1/4 + 2/8 + 3/16 = 11/16; each
    # exchange lands with chance 0.6, and a duel of n landed hits takes n / 0.6 steps
    solution = solve_counters(HitPennies(3, 4))
    assert solution.win == pytest.approx(11 / 16, abs=1e-9)
    assert solution.loss == pytest.approx(5 / 16, abs=1e-9)
    assert solution.draw == pytest.approx(0.0, abs=1e-9)
    # landed hits: A's 2nd with k of B's before it (k = 0, 1, 2), or B's 3rd with j of
    # A's (j = 0, 1): sum of P * hits
    hits = (sum(comb(1 + k, k) * 0.5 ** (2 + k) * (2 + k) for k in range(3))
            + sum(comb(2 + j, j) * 0.5 ** (3 + j) * (3 + j) for j in range(2)))
    assert solution.expected_length == pytest.approx(hits / LANDS, abs=1e-8)
    assert solution.endings == pytest.approx({"B drops": 11 / 16, "A drops": 5 / 16})
    assert solution.convergence.cyclic and solution.convergence.converged


def test_a_chance_step_inside_the_cycle_keeps_the_hand_count():
    # the same count as HitPennies (the roll only moved to a step of its own): from
    # (3, 4) A wins 11/16, and every exchange now takes two steps
    solution = solve_counters(RolledPennies(3, 4))
    for hp_a, hp_b in [(1, 1), (2, 3), (3, 4), (1, 4)]:
        win = a_wins(hp_a, hp_b, 2)
        assert solution.value_at(Roll(hp_a, hp_b)) == pytest.approx(2 * win - 1, abs=1e-9)
        mix_a, mix_b = solution.policy(Roll(hp_a, hp_b))
        assert np.allclose(mix_a, 0.5) and np.allclose(mix_b, 0.5)
    # A's hit being rolled at (2, 3): it lands (B at 1: A needs 1 hit before B's 2,
    # 3/4) or the exchange is replayed at (2, 3) (1/2)
    rolled = LANDS * (2 * 0.75 - 1) + (1 - LANDS) * (2 * 0.5 - 1)
    assert solution.value_at(Roll(2, 3, roll=1)) == pytest.approx(rolled, abs=1e-9)
    assert solution.win == pytest.approx(11 / 16, abs=1e-9)
    assert solution.loss == pytest.approx(5 / 16, abs=1e-9)
    hits = (sum(comb(1 + k, k) * 0.5 ** (2 + k) * (2 + k) for k in range(3))
            + sum(comb(2 + j, j) * 0.5 ** (3 + j) * (3 + j) for j in range(2)))
    assert solution.expected_length == pytest.approx(2 * hits / LANDS, abs=1e-8)


def test_solve_game_takes_the_counters_path_and_agrees_with_the_graph():
    game = HitPennies(3, 4, damage_a=1)
    fast = solve_game(game)
    generic = solve_game(game, start=game.start)  # a given start explores the graph
    assert fast.value == pytest.approx(generic.value, abs=1e-9)
    assert fast.value == pytest.approx(2 * a_wins(3, 4, 1) - 1, abs=1e-9)


def test_a_given_moment_is_solved_over_the_counters_below_it():
    # from a roll of A's hit at (2, 3): it lands (A then needs 1 hit before B's 2, won
    # 3/4 of the time) or the exchange is replayed from (2, 3) (won 1/2)
    solution = solve_moment(RolledPennies(4, 5), Roll(2, 3, roll=1))
    assert solution.grid.top == (2, 3)
    assert solution.win == pytest.approx(LANDS * 0.75 + (1 - LANDS) * 0.5, abs=1e-9)
    assert solution.value == pytest.approx(2 * solution.win - 1, abs=1e-9)
    assert solution.value_at(Roll(1, 3)) == pytest.approx(2 * a_wins(1, 3, 2) - 1, abs=1e-9)


def test_stopping_short_warns_and_says_so():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        solution = solve_counters(HitPennies(2, 2), max_sweeps=2)
    assert any(issubclass(w.category, ConvergenceWarning) for w in caught)
    assert not solution.convergence.converged


def test_a_step_lowering_two_counters_is_refused():
    with pytest.raises(InputError, match=r"at most one counter.*\(1, 1\)"):
        solve_counters(HitPennies(2, 2, both=True))


def test_a_counter_game_too_large_for_the_state_graph_is_refused_in_words(monkeypatch):
    # 3 x 4 = 12 pairs of counter values, each with at least its one choosing core: a
    # limit of 11 states is exceeded, one of 10,000 is not
    import solver.graph as graph_module

    monkeypatch.setattr(graph_module, "MAX_COUNTED_STATES", 11)
    with pytest.raises(InputError, match=r"counters at 3 and 4 it has up to"):
        graph_module.build_graph(HitPennies(3, 4))
    monkeypatch.setattr(graph_module, "MAX_COUNTED_STATES", 10_000)
    assert not graph_module.build_graph(HitPennies(3, 4)).terminal.all()


def test_a_duel_where_every_step_lowers_a_counter_is_solved_without_cycles():
    # every exchange lands: the core never stays where it is (an acyclic schedule whose
    # only core lowers a counter at every step); the hand count is the same as above
    solution = solve_counters(HitPennies(4, 5, lands=1))
    for hp_a, hp_b in [(1, 1), (2, 3), (4, 5)]:
        win = a_wins(hp_a, hp_b, 2)
        assert solution.value_at(Duel(hp_a, hp_b)) == pytest.approx(2 * win - 1, abs=1e-9)
    assert not solution.convergence.cyclic


def test_a_layer_reads_each_move_as_one_window_of_an_earlier_layer():
    # counters up to (3, 2), points (a, b) layer by layer, a margin of 2 (the widest
    # layer) first: (1,1) -> column 2; (1,2), (2,1) -> 3, 4; (2,2), (3,1) -> 5, 6;
    # (3,2) -> 7; then 2 columns of margin, then "A depleted" 10, "B depleted" 11
    grid = Grid((3, 2))
    assert grid.columns == 12
    assert grid.column.tolist() == [2, 3, 4, 5, 6, 7, 10, 11]
    layer = grid.layers[2]          # (2, 2), (3, 1)
    moves = [_Move(np.array(step), None) for step in [(1, 0), (0, 1), (2, 0)]]
    windows = _Windows.of(grid, layer, moves)
    # (1, 0): (1, 2), (2, 1) -> columns 3, 4; (0, 1): (2, 1) -> 4, then B depleted;
    # (2, 0): A depleted, then (1, 1) -> 2, so the window starts one column earlier
    assert windows.start.tolist() == [3, 4, 1]
    assert windows.runs.all()
    assert windows.live.tolist() == [[True, True], [True, False], [False, True]]
    assert [windows.dead[k] for k in (1, 2)] == [slice(1, 2), slice(0, 1)]


@pytest.mark.parametrize("game", [
    HitPennies(5, 4), RolledPennies(4, 6),
    # thousands of landing cores, damage up to the cap, both counters lowered
    envs.make("pathfinder", a="fighter,hp=7", b="rogue,hp=6")], ids=["hit", "rolled",
                                                                      "pathfinder"])
def test_the_damage_sums_read_through_windows_match_each_outcome_summed(game):
    # every landing core gets values that are a known function of its counters (the
    # depleted ends their payoffs); each pair's sum over its lowering outcomes is then
    # recomputed outcome by outcome from the moves' transition matrices
    graph, grid, _ = explore(game)
    rng = np.random.default_rng(3)
    values = rng.normal(size=(len(graph.landing),) + grid.top)
    payoffs = [game.payoff(game.depleted(k)) for k in range(len(grid.top))]
    table = np.zeros((len(graph.landing), grid.columns))
    for point, counters in enumerate(grid.points):
        table[:, grid.column[point]] = values[(slice(None),) + tuple(counters - 1)]
    table[:, grid.column[grid.size:]] = payoffs
    chunks = _Chunks(graph.landings, grid.margin)
    for points in grid.layers:
        found = _lowered(graph, grid, points, table, chunks)
        for column, counters in enumerate(grid.points[points]):
            expected = np.zeros(len(graph.pair_core))
            for move in graph.moves:
                after = counters - move.decrement
                low = np.flatnonzero(after < 1)
                landed = np.zeros(graph.size)
                landed[graph.landing] = (payoffs[low[0]] if len(low) else
                                         values[(slice(None),) + tuple(after - 1)])
                expected += move.full @ landed
            assert np.allclose(found[:, column], expected, atol=1e-12)


def test_a_points_neighbour_is_one_lower_on_its_largest_counter():
    # by hand on counters 1..3 and 1..2: (3, 2) -> (2, 2); (1, 2) -> (1, 1); a tie
    # (2, 2) lowers the first counter -> (1, 2); (1, 1) has no neighbour below
    grid = Grid((3, 2))
    points = [grid.flat(p) for p in ((3, 2), (1, 2), (2, 2), (1, 1))]
    expected = [grid.flat((2, 2)), grid.flat((1, 1)), grid.flat((1, 2)), -1]
    assert grid.lowered(np.array(points)).tolist() == expected


def test_warm_starts_come_from_the_layer_then_from_the_neighbour_below():
    # at 2 x 3 counters, the layer of sum 4 is (1, 3), (2, 2); their neighbours one
    # lower on the largest counter are (1, 2) and (1, 2) (a tie lowers the first):
    # the layer of sum 3 is (1, 2), (2, 1), whose answers were (10, 11) and (20, 21)
    # for two cores
    grid = Grid((2, 3))
    starts = WarmStarts(grid)
    below = np.array([grid.flat((1, 2)), grid.flat((2, 1))])
    layer = np.array([grid.flat((1, 3)), grid.flat((2, 2))])
    assert starts.start("group", below, 2) is None
    starts.keep("group", below, np.array([[10.0], [20.0], [11.0], [21.0]]), 2)
    assert starts.start("group", below, 2)[:, 0].tolist() == [10, 20, 11, 21]
    assert starts.start("group", layer, 2)[:, 0].tolist() == [10, 10, 11, 11]
    starts.keep("group", layer, np.array([[1.0], [2.0], [3.0], [4.0]]), 2)
    assert starts.start("group", layer, 2)[:, 0].tolist() == [1, 2, 3, 4]
    assert starts.start("other", layer, 2) is None
