"""``solver.counters``: games whose counters only fall, solved over every counter value
at once, on a toy whose values follow from a hand count."""

from __future__ import annotations

import warnings
from math import comb
from typing import NamedTuple

import numpy as np
import pytest
import scipy.sparse as sp
from bare import BareGame

import envs
from solver import solve_game, solve_moment
from solver.counters import explore, solve_counters, walk
from solver.counters import sums as counter_sums
from solver.counters.flow import feed as feed
from solver.counters.grid import Grid
from solver.counters.grid import Move as Move
from solver.counters.grid import Windows as Windows
from solver.counters.layers import read_lowered as read_lowered
from solver.counters.solution import _rows
from solver.counters.stage_rules import WarmStarts
from solver.errors import InputError
from solver.markov.stages import ConvergenceWarning
from solver.solve import forcing

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


class Trio(NamedTuple):
    hp: tuple[int, int, int]
    ending: int = 0   # k + 1: counter k is down


class HitTriples(BareGame):
    """Three counters (beyond the one or two of the duels): each joint action lowers
    one of them by 1 or 2 or misses, so a layer's moves reach points of an earlier layer
    that are not consecutive (read and written point by point)."""

    system = "toy_hit_triples"
    action_names = ("low", "high")
    observation_fields = ("hp_a", "hp_b", "hp_c", "ending")
    observation_low = (0, 0, 0, 0)
    observation_high = (9, 9, 9, 3)
    may_cycle = True
    fast_paths = frozenset({"counters"})

    def __init__(self, *hp: int):
        self.start = Trio(tuple(hp))

    def initial_outcomes(self):
        return [(1.0, self.start)]

    def legal_mask(self, state, player):
        return np.array([not self.is_terminal(state)] * 2)

    def is_terminal(self, state):
        return state.ending != 0

    def payoff(self, state):
        return (1.0, -1.0, 0.5)[state.ending - 1]

    def result(self, state):
        return f"counter {state.ending - 1} down"

    def observe(self, state, player):
        return (*state.hp, state.ending)

    def outcomes(self, state, a, b):
        out = []
        for p, _, lowered in self._hits(a, b):
            hp = tuple(h - d for h, d in zip(state.hp, lowered, strict=True))
            low = [k for k in range(3) if hp[k] <= 0]
            out.append((p, self.depleted(low[0]) if low else Trio(hp)))
        return out

    def _hits(self, a, b):
        hit = [0, 0, 0]
        hit[(a + 2 * b) % 3] = 1 + a
        other = [0, 0, 0]
        other[(a + b + 1) % 3] = 2 - b
        return [(0.5, (), tuple(hit)), (0.3, (), tuple(other)), (0.2, (), (0, 0, 0))]

    def counters(self, state):
        return state.hp

    def core(self, state):
        return ()

    def attach(self, core, counters):
        return Trio(tuple(int(c) for c in counters))

    def depleted(self, counter):
        return Trio((0, 0, 0), counter + 1)

    def core_transitions(self, core):
        return [(a, b, self._hits(a, b)) for a in (0, 1) for b in (0, 1)]


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


def test_the_game_is_asked_once_which_cores_open_a_unit():
    # every play pushed forward on one explored duel counts its length over the same
    # cores: the second solve asks the game nothing and counts the same hand count
    asked = []

    class Counted(HitPennies):
        def starts_unit(self, state) -> bool:
            asked.append(state)
            return super().starts_unit(state)

    game = Counted(3, 4)
    first = solve_counters(game)
    cores = len(asked)
    second = solve_counters(game)
    assert cores > 0 and len(asked) == cores
    assert second.expected_length == first.expected_length


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
    with forcing("states"):  # the generic solver, over the state graph
        generic = solve_game(game, start=game.start)
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


@pytest.mark.parametrize("game", [HitPennies(5, 4), RolledPennies(4, 6), HitTriples(3, 4, 2)],
                         ids=["hit", "rolled", "triples"])
def test_each_moves_transitions_rebuilt_from_the_kernels_are_the_games_own(game):
    """Every joint action's outcomes that lower a counter, read one by one from the
    game's ``core_transitions``, added up by move: the matrices the graph rebuilds
    from its kernels (``move_matrices``) hold the same chances, and are rebuilt once."""
    import solver.counters.cores as counters

    graph, _, _ = counters._explore(game)
    expected = {tuple(move.decrement): np.zeros((len(graph.pair_core), graph.size))
                for move in graph.moves}
    pair = 0
    for core, dead in zip(graph.cores, graph.terminal, strict=True):
        for _, _, outcomes in ([] if dead else game.core_transitions(core)):
            for chance, after, decrement in outcomes:
                if any(decrement):
                    expected[tuple(decrement)][pair, graph.index[after]] += chance
            pair += 1
    assert pair == len(graph.pair_core)
    rebuilt = graph.move_matrices()
    for move, steps in zip(graph.moves, rebuilt, strict=True):
        assert steps.has_canonical_format
        np.testing.assert_allclose(steps.toarray(), expected[tuple(move.decrement)],
                                   rtol=0, atol=1e-15)
    assert graph.move_matrices() is rebuilt
    assert "_by_move" not in graph.__getstate__()   # never kept with the graph
    some = np.arange(len(graph.pair_core))[::-3]    # a few rows, in any order
    for steps, rows in zip(rebuilt, graph.move_rows(some), strict=True):
        assert np.array_equal(rows.toarray(), steps[some].toarray())


def test_moves_too_many_to_mark_in_a_table_are_numbered_alike(monkeypatch):
    # a hit for a hundred million: the move keys are numbered by sorting, not in a table
    # of every key; the moves, their matrices and the kernels are the same either way
    import solver.counters.cores as counters

    def arrays():
        graph, _, _ = counters._explore(HitPennies(4, 5, damage_a=10**8))
        land = graph.landings
        return [m.decrement for m in graph.moves] + [
            steps.toarray() for steps in graph.move_matrices()] + [
            land.spread.toarray(), land.landing, land.bounds, land.move, land.prob,
            land.tails, land.reach, land.at]

    table = arrays()
    monkeypatch.setattr(counters, "DENSE_KEYS", 0)
    sorted_ = arrays()
    assert [tuple(m) for m in table[:2]] == [(0, 10**8), (1, 0)]
    assert all(np.array_equal(a, b) for a, b in zip(table, sorted_, strict=True))


def test_a_counter_game_too_large_for_the_state_graph_is_refused_in_words(monkeypatch):
    # 3 x 4 = 12 pairs of counter values, each with at least its one choosing core: a
    # limit of 11 states is exceeded, one of 10,000 is not
    import solver.counters.cores as cores
    from solver import state_graph

    monkeypatch.setattr(cores, "MAX_COUNTED_STATES", 11)
    with pytest.raises(InputError, match=r"counters at 3 and 4 it has up to"):
        state_graph(HitPennies(3, 4))
    monkeypatch.setattr(cores, "MAX_COUNTED_STATES", 10_000)
    assert not state_graph(HitPennies(3, 4)).terminal.all()


def test_a_duel_where_every_step_lowers_a_counter_is_solved_without_cycles():
    # every exchange lands: the core never stays where it is (an acyclic schedule whose
    # only core lowers a counter at every step); the hand count is the same as above
    solution = solve_counters(HitPennies(4, 5, lands=1))
    for hp_a, hp_b in [(1, 1), (2, 3), (4, 5)]:
        win = a_wins(hp_a, hp_b, 2)
        assert solution.value_at(Duel(hp_a, hp_b)) == pytest.approx(2 * win - 1, abs=1e-9)
    assert not solution.convergence.cyclic


def test_a_layer_reads_each_move_as_one_window_of_an_earlier_layer():
    # counters up to (3, 2), points (a, b) layer by layer: (1,1) -> column 0; (1,2),
    # (2,1) -> 1, 2; (2,2), (3,1) -> 3, 4; (3,2) -> 5; then "A depleted" 6, "B depleted" 7
    grid = Grid((3, 2))
    assert grid.columns == 8
    assert grid.column.tolist() == [0, 1, 2, 3, 4, 5, 6, 7]
    layer = grid.layers[2]          # (2, 2), (3, 1)
    moves = [Move(np.array(step)) for step in [(1, 0), (0, 1), (2, 0)]]
    windows = Windows.of(grid, layer, moves)
    # (1, 0): (1, 2), (2, 1) -> columns 1, 2; (0, 1): (2, 1) -> 2, then B depleted;
    # (2, 0): A depleted, then (1, 1) -> 0, so the window starts one column earlier
    assert windows.columns.tolist() == [[1, 2], [2, 7], [6, 0]]
    assert windows.start.tolist() == [[1], [2], [-1]]
    assert windows.lo.tolist() == [[0], [0], [1]]
    assert windows.hi.tolist() == [[2], [1], [2]]
    assert not windows.apart.any()


def test_a_layer_of_several_sums_reads_a_window_per_sum():
    # counters up to (3, 3), no step lowering their sum by less than 2: the layers hold
    # sums 2-3, 4-5, 6. Columns: (1,1) 0; (1,2) 1, (2,1) 2; (1,3) 3, (2,2) 4, (3,1) 5;
    # (2,3) 6, (3,2) 7; (3,3) 8; then A depleted 9, B depleted 10
    grid = Grid((3, 3), band=2)
    assert [grid.points[p].sum(axis=1).tolist() for p in grid.layers] == [
        [2, 3, 3], [4, 4, 4, 5, 5], [6]]
    layer = grid.layers[1]
    windows = Windows.of(grid, layer, [Move(np.array((2, 0)))])
    # (1,3), (2,2) deplete A, (3,1) -> (1,1) column 0: the run of sum 4 is points 2..3
    # reading from column 0; (2,3) depletes A, (3,2) -> (1,2) column 1: points 4..5
    # from column 1 - 4 = -3
    assert windows.columns.tolist() == [[9, 9, 0, 9, 1]]
    assert windows.start.tolist() == [[-2, -3]]
    assert windows.lo.tolist() == [[2, 4]]
    assert windows.hi.tolist() == [[3, 5]]
    assert not windows.apart.any()
    # a layer's points look below its least sum: (2,3) and (3,2), of sums 5 in the layer
    # of 4-5, drop 2 on their largest counter, to (2,1) and (1,2)
    assert grid.lowered(np.array([grid.flat((2, 3)), grid.flat((3, 2))])).tolist() == [
        grid.flat((2, 1)), grid.flat((1, 2))]


def test_points_landing_apart_are_read_one_by_one():
    # three counters up to 3: from the layer of sum 6, lowering the last counter by one
    # takes (1,2,3) (1,3,2) (2,1,3) (2,2,2) to (1,2,2) (1,3,1) (2,1,2) (2,2,1), columns
    # 5 to 8 of the layer of sum 5 (columns 4 to 9), then (2,3,1) to "C depleted"
    # (column 29), (3,1,2) to (3,1,1) (column 9) and (3,2,1) to C depleted: no window
    grid = Grid((3, 3, 3))
    layer = grid.layers[3]
    assert grid.points[layer].sum(axis=1).tolist() == [6] * 7
    windows = Windows.of(grid, layer, [Move(np.array((0, 0, 1)))])
    assert windows.columns[0].tolist() == [5, 6, 7, 8, 29, 9, 29]
    assert (windows.lo[0, 0], windows.hi[0, 0], windows.apart[0]) == (0, 0, True)


@pytest.mark.parametrize("game", [
    HitPennies(5, 4), RolledPennies(4, 6),
    HitTriples(3, 4, 2),
    # thousands of landing cores, damage up to the cap, both counters lowered
    envs.make("pathfinder", a="fighter,hp=7", b="rogue,hp=6")], ids=[
        "hit", "rolled", "triples", "pathfinder"])
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
    for points in grid.layers:
        found = graph.landings.spread @ read_lowered(graph, grid, points, table)
        for column, counters in enumerate(grid.points[points]):
            expected = np.zeros(len(graph.pair_core))
            for move, steps in zip(graph.moves, graph.move_matrices(), strict=True):
                after = counters - move.decrement
                low = np.flatnonzero(after < 1)
                landed = np.zeros(graph.size)
                landed[graph.landing] = (payoffs[low[0]] if len(low) else
                                         values[(slice(None),) + tuple(after - 1)])
                expected += steps @ landed
            assert np.allclose(found[:, column], expected, atol=1e-12)


@pytest.mark.parametrize("game", [
    HitPennies(5, 4), RolledPennies(4, 6), HitTriples(3, 4, 2),
    envs.make("pathfinder", a="fighter,hp=7", b="rogue,hp=6")], ids=[
        "hit", "rolled", "triples", "pathfinder"])
def test_the_damage_sums_pushed_forward_match_each_outcome_summed(game):
    # every pair played with a random chance at each point of a layer: what reaches
    # each landing core at each earlier point, and each depleted counter (row 0), is
    # summed again outcome by outcome from the walk through ``core_transitions``
    graph, grid, _ = explore(game)
    found = walk(game)
    number = {key: k for k, key in enumerate(zip(
        graph.pair_core.tolist(), graph.pair_a.tolist(), graph.pair_b.tolist(), strict=True))}
    core = np.array([graph.index[c] for c in found.cores])
    pair = np.array([number[key] for key in zip(
        core[found.pair_core].tolist(), found.pair_a.tolist(), found.pair_b.tolist(),
        strict=True)])
    lowers = found.decrements.any(axis=1)
    outcome_pair = np.repeat(pair, found.counts)[lowers]
    landing = np.searchsorted(graph.landing, core[found.targets[lowers]])
    prob, decrement = found.probs[lowers], found.decrements[lowers]
    rng = np.random.default_rng(5)
    for points in grid.layers:
        played = rng.random((len(graph.pair_core), len(points)))
        arriving = np.zeros((len(graph.landing), grid.columns))
        feed(graph, grid, points, counter_sums.times(graph.landings.gather, played), arriving)
        after = grid.points[points][None, :, :] - decrement[:, None, :]   # (outcomes, points)
        dead = (after < 1).any(axis=2)
        column = np.where(dead, grid.column[grid.size + np.argmax(after < 1, axis=2)],
                          grid.column[np.ravel_multi_index(
                              tuple(np.maximum(after, 1).transpose(2, 0, 1) - 1), grid.top)])
        row = np.where(dead, 0, landing[:, None])
        expected = np.bincount((row * grid.columns + column).ravel(), (
            played[outcome_pair] * prob[:, None]).ravel(), arriving.size)
        assert np.allclose(arriving.ravel(), expected, rtol=1e-12, atol=1e-12)


def test_three_counters_agree_with_the_graph():
    # the layers' moves read and write points one by one (no windows): the same value
    # and chances as the state graph's solver
    game = HitTriples(3, 4, 2)
    fast = solve_game(game)
    with forcing("states"):  # the generic solver, over the state graph
        generic = solve_game(game, start=game.start)
    assert fast.value == pytest.approx(generic.value, abs=1e-9)
    assert fast.evaluation.win == pytest.approx(generic.evaluation.win, abs=1e-9)
    assert fast.evaluation.expected_length == pytest.approx(
        generic.evaluation.expected_length, abs=1e-8)


def test_layers_are_read_together_while_their_sums_span_less_than_the_band(monkeypatch):
    import solver.counters.grid as counters
    monkeypatch.setattr(counters, "LAYER_POINTS", 2)
    # 4 x 4: sums 2..8 hold 1, 2, 3, 4, 3, 2, 1 points, a layer each (two points at most)
    grid = Grid((4, 4), band=3)
    assert [len(points) for points in grid.layers] == [1, 2, 3, 4, 3, 2, 1]
    assert grid.reads == [(0, 3), (3, 6), (6, 7)]        # sums 2-4, 5-7, 8
    monkeypatch.setattr(counters, "READ_POINTS", 5)
    assert Grid((4, 4), band=3).reads == [(0, 2), (2, 3), (3, 4), (4, 6), (6, 7)]
    together, starts = grid.together(0, 3)
    assert together.tolist() == np.concatenate(grid.layers[:3]).tolist()
    assert starts.tolist() == [0, 1, 3]


def test_layers_read_together_keep_the_graphs_values(monkeypatch):
    # narrow layers read back and pushed forward several at a time: the same value and
    # chances as the state graph's solution
    import solver.counters.grid as counters
    monkeypatch.setattr(counters, "LAYER_POINTS", 3)
    game = envs.make("pathfinder", a="fighter,hp=7", b="rogue,hp=6")
    solution = solve_counters(game)
    assert any(last - first > 1 for first, last in solution.grid.reads)
    with forcing("states"):
        generic = solve_game(game, start=game.initial_outcomes()[0][1])
    assert solution.value == pytest.approx(generic.value, abs=1e-9)
    assert solution.win == pytest.approx(generic.win, abs=1e-9)
    assert solution.expected_length == pytest.approx(generic.expected_length, abs=1e-8)


def test_chance_cores_valued_through_their_stage_games_keep_the_graphs_values(monkeypatch):
    # the way taken when a part's steps could lead to its own chance cores: their values
    # read from the continuation instead of written in place
    import solver.counters.cores as counters
    split = counters.Part._split_single

    def not_apart(part):
        split(part)
        part.apart = False

    monkeypatch.setattr(counters.Part, "_split_single", not_apart)
    game = envs.make("pathfinder", a="fighter,hp=5", b="rogue,hp=4")
    solution = solve_counters(game)
    with forcing("states"):
        generic = solve_game(game, start=game.initial_outcomes()[0][1])
    assert solution.value == pytest.approx(generic.value, abs=1e-9)
    assert solution.win == pytest.approx(generic.win, abs=1e-9)


def test_a_points_neighbour_is_one_lower_on_its_largest_counter():
    # by hand on counters 1..3 and 1..2: (3, 2) -> (2, 2); (1, 2) -> (1, 1); a tie
    # (2, 2) lowers the first counter -> (1, 2); (1, 1) has no neighbour below
    grid = Grid((3, 2))
    points = [grid.flat(p) for p in ((3, 2), (1, 2), (2, 2), (1, 1))]
    expected = [grid.flat((2, 2)), grid.flat((1, 1)), grid.flat((1, 2)), -1]
    assert grid.lowered(np.array(points)).tolist() == expected


def test_a_points_neighbours_one_and_two_drops_below_its_layer():
    # band 2 on counters up to 5: the layer of sums 8-9. (3, 5), of sum 8, drops 1 on
    # its largest counter: (3, 4), then (3, 3); (4, 5) drops 2: (4, 3), (4, 1); (5, 4)
    # too, on the first: (3, 4), (1, 4). (2, 3), of sum 5 in the layer of 4-5, drops 2:
    # (2, 1), then past 1
    grid = Grid((5, 5), band=2)
    points = np.array([grid.flat(p) for p in ((3, 5), (4, 5), (5, 4), (2, 3))])
    assert grid.lowered(points).tolist() == [grid.flat(p) for p in ((3, 4), (4, 3), (3, 4),
                                                                     (2, 1))]
    assert grid.lowered(points, drops=2).tolist() == [
        grid.flat((3, 3)), grid.flat((4, 1)), grid.flat((1, 4)), -1]


def test_a_first_guess_follows_the_values_below_along_their_line():
    # landing cores 2 and 7 hold the values 2a + b and 3a + 7b at counters (a, b): on a
    # line through two neighbours below, the guess is the value at the point itself;
    # with one neighbour known, that neighbour's; a core that nothing lands on, 0
    from types import SimpleNamespace

    from solver.counters.layers import _neighbour_values
    grid = Grid((5, 5), band=2)
    landed = np.zeros((2, grid.columns))
    counters = grid.points[:grid.size]
    landed[0, grid.column[:grid.size]] = 2 * counters[:, 0] + counters[:, 1]
    landed[1, grid.column[:grid.size]] = 3 * counters[:, 0] + 7 * counters[:, 1]
    points = np.array([grid.flat(p) for p in ((3, 5), (4, 5), (5, 4), (2, 3), (1, 1))])
    guess = _neighbour_values(SimpleNamespace(landing=np.array([2, 7])), grid, points,
                              landed, np.array([7, 3, 2]))
    assert guess.tolist() == [[44, 47, 43, 13, 0], [0, 0, 0, 0, 0], [11, 13, 14, 5, 0]]


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


def test_warm_starts_read_every_slice_of_the_layer_below_kept_so_far():
    # at 3 x 3 counters, the layer of sum 4 is (1, 3), (2, 2), (3, 1), whose neighbours
    # one lower on the largest counter are (1, 2), (1, 2), (2, 1): the layer of sum 3,
    # solved in two slices, (2, 1) first. Read after the first slice, the layer gives
    # the third point's answers only; after the second, all of them
    grid = Grid((3, 3))
    starts = WarmStarts(grid)
    first, second = np.array([grid.flat((2, 1))]), np.array([grid.flat((1, 2))])
    layer = np.array([grid.flat(p) for p in ((1, 3), (2, 2), (3, 1))])
    assert starts.start("group", first, 2) is None
    starts.keep("group", first, np.array([[20.0], [21.0]]), 2)
    early = starts.start("group", layer, 2)[:, 0]
    assert np.isnan(early[[0, 1, 3, 4]]).all() and early[[2, 5]].tolist() == [20, 21]
    assert starts.start("group", second, 2) is None
    starts.keep("group", second, np.array([[10.0], [11.0]]), 2)
    assert starts.start("group", layer, 2)[:, 0].tolist() == [10, 10, 20, 11, 11, 21]
    # a slice solved again: its last answers
    starts.start("group", second, 2)
    starts.keep("group", second, np.array([[30.0], [31.0]]), 2)
    assert starts.start("group", layer, 2)[:, 0].tolist() == [30, 30, 20, 31, 31, 21]


@pytest.mark.parametrize("columns", [3, 4096])   # one thread, then rows in parallel
def test_the_compiled_sparse_products_match_scipys(columns):
    rng = np.random.default_rng(5)
    matrix = sp.random(300, 200, density=0.05, format="csr", random_state=rng)
    dense = rng.normal(size=(200, columns))
    # each row's terms added in scipy's order: the same sums, bit for bit (300 rows:
    # more than one thread's run of rows)
    assert np.array_equal(counter_sums.times(matrix, dense), matrix @ dense)
    # added into given rows of a larger array, the others untouched
    out = rng.normal(size=(400, columns))
    rows = rng.permutation(400)[:300]
    expected = out.copy()
    expected[rows] += matrix @ dense
    counter_sums.times(matrix, dense, out, rows)
    assert np.allclose(out, expected, atol=1e-12)
    # or written over them
    expected[rows] = matrix @ dense
    counter_sums.times(matrix, dense, out, rows, add=False)
    assert np.array_equal(out, expected)


@pytest.mark.parametrize("parallel", [False, True])
def test_a_policys_payoffs_are_summed_per_core_row_after_row(parallel, monkeypatch):
    # cores own rows 0-2, 3, 4-6 of the pairs: each sum is the products added in row
    # order, as a loop adds them, to the bit; in parallel the same
    monkeypatch.setattr(counter_sums, "PARALLEL_TERMS", 1 if parallel else 1 << 40)
    rng = np.random.default_rng(9)
    weight, constant = rng.random((7, 5)), rng.normal(size=(7, 5))
    starts = np.array([0, 3, 4])
    expected = np.zeros((3, 5))
    for core, (first, last) in enumerate([(0, 3), (3, 4), (4, 7)]):
        for column in range(5):
            total = weight[first, column] * constant[first, column]
            for row in range(first + 1, last):
                total += weight[row, column] * constant[row, column]
            expected[core, column] = total
    assert np.array_equal(counter_sums.weighted_sums(weight, constant, starts), expected)


def test_a_product_may_write_rows_of_the_array_it_reads():
    # rows 0-1 are each the sum of rows 2-4 weighted (a layer's chance steps write the
    # values of their cores from those of their successors, in the same array)
    values = np.arange(10.0).reshape(5, 2)
    matrix = sp.csr_matrix([[0, 0, 0.5, 0.5, 0], [0, 0, 0, 0.25, 0.75]])
    counter_sums.times(matrix, values, values, np.array([1, 0]), add=False)
    assert values[1].tolist() == [5.0, 6.0] and values[0].tolist() == [7.5, 8.5]
    assert values[2:].ravel().tolist() == list(range(4, 10))


def test_the_chance_of_each_joint_action_is_both_mixes_multiplied():
    row = np.array([[[0.25, 0.75], [1.0, 0.0]]])          # one game, two points, 2 rows
    col = np.array([[[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]]])  # 3 columns
    pairs = np.array([[[5, 4, 3], [2, 1, 0]]])
    weight = np.full((7, 2), -1.0)
    counter_sums.joint(weight, pairs, row, col)
    assert weight[5].tolist() == [0.125, 0.2] and weight[0].tolist() == [0.0, 0.0]
    assert weight[4].tolist() == [0.125, 0.3] and weight[2].tolist() == [0.375, 0.0]
    assert weight[3].tolist() == [0.0, 0.5] and weight[1].tolist() == [0.375, 0.0]
    assert weight[6].tolist() == [-1.0, -1.0]     # not a pair of the game: untouched


def test_mixes_are_written_at_their_points_and_places():
    mixes = np.zeros((6, 5))
    place = np.array([[4, 1], [0, 2]])                      # two games' slots
    mix = np.array([[[0.1, 0.9], [0.2, 0.8]], [[0.3, 0.7], [0.4, 0.6]]])
    counter_sums.write_mixes(mixes, place, np.array([5, 2]), mix)
    expected = np.zeros((6, 5))
    expected[5, [4, 1]], expected[2, [4, 1]] = [0.1, 0.9], [0.2, 0.8]
    expected[5, [0, 2]], expected[2, [0, 2]] = [0.3, 0.7], [0.4, 0.6]
    assert np.array_equal(mixes, expected)


@pytest.mark.parametrize("points", [3, 8192])    # one thread, then pairs in parallel
def test_the_chance_of_each_pair_is_its_cores_times_both_mixes(points):
    rng = np.random.default_rng(6)
    mass, mix_a, mix_b = (rng.random((n, points)) for n in (5, 4, 3))
    owner, pairs = np.array([0, 0, 2, 4]), np.array([3, 0, 1, 2])
    slot_a, slot_b = np.array([1, -1, 3, 0]), np.array([2, 0, -1, 1])
    out = np.zeros((4, points))
    counter_sums.play(mass, owner, pairs, slot_a, slot_b, mix_a, mix_b, out)
    for r in range(4):
        assert np.allclose(out[pairs[r]], mass[owner[r]] * mix_a[slot_a[r]] * mix_b[slot_b[r]])


def test_play_pushed_forward_one_point_at_a_time_is_the_same_play(monkeypatch):
    # a layer's points play apart: pushing them one at a time (the working arrays of a
    # large grid kept small) must give the chances, the length and the visits of the
    # whole layer pushed at once
    import solver.counters.flow as flow
    game = envs.make("pathfinder", a="fighter,hp=7", b="rogue,hp=6")
    whole = solve_counters(game)
    assert max(len(points) for points in whole.grid.layers) > 1
    monkeypatch.setattr(flow, "FLOW_ENTRIES", 1)
    apart = solve_counters(game)
    for field in ("win", "loss", "draw", "expected_length"):
        assert getattr(apart.evaluation, field) == pytest.approx(
            getattr(whole.evaluation, field), abs=1e-12)
    assert np.abs(apart.visits - whole.visits).max() < 1e-12
    assert np.abs(apart.core_visits - whole.core_visits).max() < 1e-12


def test_the_rows_of_a_sparse_matrix_are_scipys_entry_for_entry():
    kept = np.ones((30, 1))
    kept[4] = 0   # an empty row
    matrix = sp.csr_matrix(sp.random(30, 12, density=0.3, format="csr",
                                     random_state=5).multiply(kept))
    matrix.eliminate_zeros()
    assert matrix[4].nnz == 0 and matrix.nnz > 50
    rows = np.array([7, 4, 7, 0, 29, 13])   # one asked twice, one empty
    owner, columns, values = _rows(matrix, rows)
    expected = matrix[rows]
    assert np.array_equal(owner, np.repeat(np.arange(len(rows)), np.diff(expected.indptr)))
    assert np.array_equal(columns, expected.indices) and np.array_equal(values, expected.data)
    assert len(_rows(matrix, np.array([], dtype=np.int64))[1]) == 0
