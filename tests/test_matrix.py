"""Matrix games: hand-derived equilibria, agreement with HiGHS, degenerate games,
batching with masks, bad input, and the maximum-entropy optimal mixes."""

import itertools
import warnings

import nashpy
import numpy as np
import pytest
from scipy.optimize import linprog, minimize

from experiments.reference import linprog_value
from solver.errors import InputError
from solver.matrix.lp import MatrixSolutions, solve_matrices, solve_matrix
from solver.matrix.simplex import primal_values, solve_lps

RPS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
TOL = 1e-8


def regret(A, row, col) -> float:
    """Largest gain of a pure deviation by either player over the pair's value."""
    A = np.asarray(A, dtype=float)
    value = row @ A @ col
    return max((A @ col).max() - value, value - (row @ A).min())


def assert_equilibrium(A, row, col, value):
    assert row.sum() == pytest.approx(1.0) and col.sum() == pytest.approx(1.0)
    assert row.min() >= 0 and col.min() >= 0
    assert regret(A, row, col) <= TOL
    assert value == pytest.approx(linprog_value(A), abs=TOL)


# --- games solved by hand ----------------------------------------------------------


def test_matching_pennies():
    row, col, value = solve_matrix([[1, -1], [-1, 1]])
    assert value == pytest.approx(0.0, abs=1e-12)
    assert row == pytest.approx([0.5, 0.5]) and col == pytest.approx([0.5, 0.5])


def test_rock_paper_scissors():
    row, col, value = solve_matrix(RPS)
    assert value == pytest.approx(0.0, abs=1e-12)
    assert row == pytest.approx([1 / 3] * 3) and col == pytest.approx([1 / 3] * 3)


def test_weighted_rock_paper_scissors():
    # Rock crushing scissors pays 2. A = [[0,-1,2],[1,0,-1],[-2,1,0]] is skew-symmetric,
    # so its value is 0 and both players use the same mix x. At an interior
    # equilibrium every column scores 0 against x:
    #   column R: xP - 2 xS = 0  ->  xP = 2 xS
    #   column P: -xR + xS = 0   ->  xR = xS
    #   column S: 2 xR - xP = 0  (implied)
    # and xR + xP + xS = 1 gives x = (1/4, 1/2, 1/4). Adding 1 to every payoff adds
    # 1 to the value and changes no mix.
    A = np.array([[0, -1, 2], [1, 0, -1], [-2, 1, 0]]) + 1.0
    row, col, value = solve_matrix(A)
    assert value == pytest.approx(1.0, abs=1e-12)
    assert row == pytest.approx([0.25, 0.5, 0.25]) and col == pytest.approx([0.25, 0.5, 0.25])


def test_dominated_row_is_never_played():
    # Row (2, 0) is strictly dominated by (3, 1). In [[3, 1], [1, 2]] the row mix
    # makes both columns equal: 3p + (1 - p) = p + 2(1 - p) -> p = 1/3; likewise
    # the column mix q = 1/3, and the value is 3/3 + 2/3 = 5/3.
    row, col, value = solve_matrix([[3, 1], [2, 0], [1, 2]])
    assert row == pytest.approx([1 / 3, 0, 2 / 3])
    assert col == pytest.approx([1 / 3, 2 / 3])
    assert value == pytest.approx(5 / 3)


def test_one_row_game_picks_the_smallest_columns():
    row, col, value = solve_matrix([[3, 1, 2, 1]])
    assert row == pytest.approx([1.0])
    assert col == pytest.approx([0, 0.5, 0, 0.5])
    assert value == pytest.approx(1.0)


def test_one_column_game_picks_the_largest_rows():
    row, col, value = solve_matrix([[3], [1], [3]])
    assert row == pytest.approx([0.5, 0, 0.5])
    assert col == pytest.approx([1.0])
    assert value == pytest.approx(3.0)


def test_constant_game_is_uniform():
    row, col, value = solve_matrix(np.full((3, 4), 2.5))
    assert row == pytest.approx([1 / 3] * 3) and col == pytest.approx([1 / 4] * 4)
    assert value == pytest.approx(2.5)


def test_duplicate_rows():
    A = [[1, -1], [1, -1], [-1, 1]]
    row, col, value = solve_matrix(A)
    assert_equilibrium(A, row, col, value)
    assert row[0] + row[1] == pytest.approx(0.5)


def test_single_and_batch_agree():
    rng = np.random.default_rng(3)
    games = rng.uniform(-1, 1, (20, 4, 5))
    batch = solve_matrices(games)
    assert isinstance(batch, MatrixSolutions)
    for k, A in enumerate(games):
        row, col, value = solve_matrix(A)
        assert batch.value[k] == pytest.approx(value, abs=1e-12)
        assert batch.row[k] == pytest.approx(row, abs=1e-9)
        assert batch.col[k] == pytest.approx(col, abs=1e-9)


# --- agreement with HiGHS ------------------------------------------------------------


@pytest.mark.parametrize("shape", [(6, 6), (2, 7), (7, 2), (5, 3), (1, 4), (4, 1)])
@pytest.mark.parametrize("max_entropy", [False, True])
def test_random_games_match_highs(shape, max_entropy):
    rng = np.random.default_rng(sum(shape))
    games = rng.uniform(-1, 1, (60,) + shape)
    solved = solve_matrices(games, max_entropy=max_entropy)
    for k, A in enumerate(games):
        assert_equilibrium(A, solved.row[k], solved.col[k], solved.value[k])


@pytest.mark.parametrize("low,high", [(0, 1), (-1, 1), (-2, 2)])
@pytest.mark.parametrize("max_entropy", [False, True])
def test_integer_games_match_highs(low, high, max_entropy):
    # small integer payoffs make ties, duplicate and dominated rows everywhere
    rng = np.random.default_rng(high - low)
    games = rng.integers(low, high + 1, (150, 5, 5)).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        solved = solve_matrices(games, max_entropy=max_entropy)
    for k, A in enumerate(games):
        assert_equilibrium(A, solved.row[k], solved.col[k], solved.value[k])


@pytest.mark.parametrize("scale", [1e-6, 1e6])
def test_payoff_scale_does_not_matter(scale):
    rng = np.random.default_rng(11)
    games = rng.integers(-2, 3, (40, 4, 4)).astype(float)
    small = solve_matrices(games, max_entropy=True)
    scaled = solve_matrices(games * scale, max_entropy=True)
    assert scaled.value == pytest.approx(small.value * scale, abs=1e-9 * scale)
    assert scaled.row == pytest.approx(small.row, abs=1e-8)
    assert scaled.col == pytest.approx(small.col, abs=1e-8)


def test_failed_simplex_answer_is_repaired(monkeypatch):
    # an LP answer that is plainly wrong must be caught by the regret check
    import solver.matrix.lp as matrix

    def broken(duals, y):
        return np.full(duals.shape, 1.0 / duals.shape[1]), np.eye(y.shape[1])[[0] * len(y)]

    monkeypatch.setattr(matrix, "_mixes", broken)
    games = np.random.default_rng(5).uniform(-1, 1, (4, 3, 3))
    solved = solve_matrices(games)
    for k, A in enumerate(games):
        assert_equilibrium(A, solved.row[k], solved.col[k], solved.value[k])


def test_batched_simplex_matches_highs_on_lps():
    rng = np.random.default_rng(8)
    G = rng.uniform(-1, 1, (30, 5, 4))
    b = rng.uniform(0, 1, (30, 5))
    c = rng.uniform(-0.5, 1, (30, 4))
    G[:, 0] = 1.0  # a row of ones bounds every LP
    tableaux = solve_lps(G, b, c)
    assert tableaux.ok.all()
    y = primal_values(tableaux, 4)
    for k in range(30):
        best = linprog(-c[k], A_ub=G[k], b_ub=b[k], method="highs")
        assert c[k] @ y[k] == pytest.approx(-best.fun, abs=1e-10)
        assert (G[k] @ y[k] <= b[k] + 1e-10).all()


# --- degenerate games where support enumeration fails ---------------------------------


def nashpy_equilibria(A) -> list:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nashpy warns that the game is degenerate
        return list(nashpy.Game(np.asarray(A, dtype=float)).support_enumeration())


def test_degenerate_game_where_support_enumeration_finds_nothing():
    # x1 = x2 is forced by the first two columns; the third caps them at 0.2 each
    A = [[1, -1, -3], [-1, 1, -3], [0, 0, 2]]
    assert nashpy_equilibria(A) == []
    row, col, value = solve_matrix(A)
    assert_equilibrium(A, row, col, value)
    assert value == pytest.approx(0.0, abs=1e-12)


def test_degenerate_game_where_support_enumeration_misses_equilibria():
    # any x with x2 = x3 is optimal (row 1 scores 0 against everything); support
    # enumeration reports only (0, 1/2, 1/2), missing e.g. the pure row 1
    A = [[0, 0], [1, -1], [-1, 1]]
    found = nashpy_equilibria(A)
    assert len(found) == 1
    assert regret(A, np.array([1.0, 0, 0]), np.array([0.5, 0.5])) == 0.0
    row, col, value = solve_matrix(A, max_entropy=True)
    assert_equilibrium(A, row, col, value)
    assert row == pytest.approx([1 / 3] * 3)
    assert not any(np.allclose(x, row) for x, _ in found)


def test_many_optimal_strategies():
    # any split of 1/3 between the two identical rows (columns) is optimal; support
    # enumeration lists only the four vertex pairs, never an interior split
    A = [[2, 2, 0], [2, 2, 0], [0, 0, 1]]
    found = nashpy_equilibria(A)
    assert len(found) == 4
    for max_entropy in (False, True):
        row, col, value = solve_matrix(A, max_entropy=max_entropy)
        assert_equilibrium(A, row, col, value)
        assert row[0] + row[1] == pytest.approx(1 / 3) and value == pytest.approx(2 / 3)
    assert row == pytest.approx([1 / 6, 1 / 6, 2 / 3])
    assert col == pytest.approx([1 / 6, 1 / 6, 2 / 3])
    assert not any(np.allclose(x, row) for x, _ in found)


# --- batches with masks ----------------------------------------------------------------


def test_padded_masked_input_equals_list_input():
    rng = np.random.default_rng(2)
    shapes = [(3, 3), (1, 4), (4, 2), (2, 2), (4, 4), (3, 1)]
    games = [rng.integers(-2, 3, s).astype(float) for s in shapes]
    padded = np.full((len(games), 4, 4), np.nan)
    rows = np.zeros((len(games), 4), dtype=bool)
    cols = np.zeros((len(games), 4), dtype=bool)
    places = []
    for k, A in enumerate(games):
        # game rows go to padded rows 3, 2, ...; narrow games use columns 0 and 2
        r = np.array([3, 2, 1, 0])[:A.shape[0]]
        c = (np.array([0, 2]) if A.shape[1] <= 2 else np.arange(4))[:A.shape[1]]
        padded[k][np.ix_(r, c)] = A
        rows[k, r], cols[k, c] = True, True
        places.append((r, c))
    for max_entropy in (False, True):
        listed = solve_matrices(games, max_entropy=max_entropy)
        masked = solve_matrices(padded, rows, cols, max_entropy=max_entropy)
        assert masked.value == pytest.approx(listed.value, abs=1e-12)
        for k, (r, c) in enumerate(places):
            assert (masked.row[k][~rows[k]] == 0).all() and (masked.col[k][~cols[k]] == 0).all()
            x, q = masked.row[k][r], masked.col[k][c]
            assert_equilibrium(games[k], x, q, masked.value[k])
            if max_entropy:  # unique, so the order of the rows cannot matter
                assert x == pytest.approx(listed.row[k][:len(r)], abs=1e-9)
                assert q == pytest.approx(listed.col[k][:len(c)], abs=1e-9)


def test_list_output_is_zero_padded():
    solved = solve_matrices([np.ones((1, 1)), RPS])
    assert solved.row.shape == (2, 3) and solved.col.shape == (2, 3)
    assert solved.row[0] == pytest.approx([1, 0, 0])
    assert solved.value == pytest.approx([1.0, 0.0], abs=1e-12)


def test_empty_batch():
    solved = solve_matrices(np.zeros((0, 3, 3)))
    assert solved.row.shape == (0, 3) and solved.value.shape == (0,)


# --- bad input --------------------------------------------------------------------------


@pytest.mark.parametrize("bad,word", [
    ([[1.0, np.nan], [0.0, 1.0]], "nan"),
    ([[1.0, np.inf], [0.0, 1.0]], "inf"),
    ([[1.0, 2.0], [3.0]], "ragged"),
    (np.zeros((0, 3)), "empty"),
    ([], "empty"),
    ([1.0, 2.0], "2-D"),
    ([["a", "b"]], "'a'"),
])
def test_bad_matrix(bad, word):
    with pytest.raises(InputError, match=word):
        solve_matrix(bad)
    with pytest.raises(InputError, match=word):
        solve_matrices([RPS, bad])


def test_bad_batches():
    with pytest.raises(InputError, match="nan"):
        solve_matrices(np.full((2, 2, 2), np.nan))
    with pytest.raises(InputError, match="no legal row"):
        solve_matrices(np.zeros((2, 2, 2)), row_masks=[[True, True], [False, False]])
    with pytest.raises(InputError, match="no legal column"):
        solve_matrices(np.zeros((2, 2, 2)), col_masks=[[False, False], [True, False]])
    with pytest.raises(InputError, match=r"\(3, 2\)"):
        solve_matrices(np.zeros((2, 2, 2)), row_masks=np.ones((3, 2), dtype=bool))
    with pytest.raises(InputError, match="shape"):
        solve_matrices(np.zeros((2, 2)))


def test_masked_entries_may_hold_anything():
    A = np.array([[[1.0, -1.0, np.nan], [-1.0, 1.0, np.inf], [np.nan, 5.0, 0.0]]])
    solved = solve_matrices(A, [[True, True, False]], [[True, True, False]])
    assert solved.value == pytest.approx([0.0], abs=1e-12)
    assert solved.row[0] == pytest.approx([0.5, 0.5, 0])


# --- maximum entropy ----------------------------------------------------------------------


def entropy(mix) -> float:
    mix = mix[mix > 0]
    return float(-(mix * np.log(mix)).sum())


def reference_max_entropy(A, value) -> np.ndarray:
    """The max-entropy optimal row mix by SLSQP from several starts."""
    A = np.asarray(A, dtype=float)
    m = A.shape[0]
    constraints = [{"type": "ineq", "fun": lambda x: x @ A - value, "jac": lambda x: A.T},
                   {"type": "eq", "fun": lambda x: x.sum() - 1.0,
                    "jac": lambda x: np.ones((1, m))}]
    starts = [np.full(m, 1.0 / m)] + list(np.random.default_rng(0).dirichlet(np.ones(m), 3))
    best = None
    for start in starts:
        found = minimize(lambda x: x @ np.log(np.maximum(x, 1e-300)), start,
                         jac=lambda x: np.log(np.maximum(x, 1e-300)) + 1.0,
                         bounds=[(0, 1)] * m, constraints=constraints, method="SLSQP",
                         options={"ftol": 1e-14, "maxiter": 500})
        x = np.maximum(found.x, 0.0) / np.maximum(found.x, 0.0).sum()
        if (x @ A - value).min() > -1e-7 and (best is None or entropy(x) > entropy(best)):
            best = x
    return best


@pytest.mark.parametrize("A,row,col", [
    ([[1, 1], [1, 1]], [0.5, 0.5], [0.5, 0.5]),
    ([[1, 0], [1, 0]], [0.5, 0.5], [0, 1]),
    (np.vstack([RPS, RPS[:1]]), [1 / 6, 1 / 3, 1 / 3, 1 / 6], [1 / 3] * 3),
    (np.hstack([RPS, RPS[:, 1:2], RPS[:, 1:2]]), [1 / 3] * 3, [1 / 3, 1 / 9, 1 / 3, 1 / 9, 1 / 9]),
    # the optimal face of the row player is the segment x1 = x2 = t, x3 = 1 - 2t with
    # t <= 0.2 (column 3); entropy grows up to t = 1/3, so the maximum sits on the end
    # t = 0.2 where column 3 binds
    ([[1, -1, -3], [-1, 1, -3], [0, 0, 2]], [0.2, 0.2, 0.6], [0.5, 0.5, 0]),
    # x3 = 0 and x2 >= 1/2: the maximum is the end (1/2, 1/2, 0); for the column
    # player q3 = 0 and q2 <= 1/2: again the end (1/2, 1/2, 0)
    ([[2, 2, 1], [2, 2, 3], [1, 3, 2]], [0.5, 0.5, 0], [0.5, 0.5, 0]),
])
def test_max_entropy_by_hand(A, row, col):
    x, q, value = solve_matrix(A, max_entropy=True)
    assert x == pytest.approx(row, abs=1e-9) and q == pytest.approx(col, abs=1e-9)
    assert regret(A, x, q) <= TOL


def test_max_entropy_with_a_binding_inequality_by_hand():
    # From a duel: rows 2 and 5 lose to column 0, so x2 = x5 = 0; column 5 asks
    # x0 >= x1 + x3, which binds at the maximum. By symmetry x1 = x3 = t, x0 = 2t,
    # x4 = 1 - 4t, and d/dt of the entropy vanishes where (1 - 4t)^2 = 2 t^2,
    # t = 1 / (4 + sqrt 2).
    A = [[0, 0, 1, 0, 0, 1], [0, 0, 0, 0, 0, -1], [-1, 0, 0, 0, 0, 0],
         [0, 0, 0, 0, 0, -1], [0, 0, 0, 0, 0, 0], [-1, 1, 0, 1, 0, 0]]
    t = 1 / (4 + np.sqrt(2))
    x, q, value = solve_matrix(A, max_entropy=True)
    assert x == pytest.approx([2 * t, t, 0, t, 1 - 4 * t, 0], abs=1e-9)
    assert value == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4), (4, 4)])
def test_max_entropy_matches_slsqp(shape):
    rng = np.random.default_rng(shape[0] * 10 + shape[1])
    games = rng.integers(-1, 2, (25,) + shape).astype(float)
    solved = solve_matrices(games, max_entropy=True)
    for k, A in enumerate(games):
        for mix, payoff, value in ((solved.row[k], A, solved.value[k]),
                                   (solved.col[k], -A.T, -solved.value[k])):
            reference = reference_max_entropy(payoff, value)
            assert entropy(mix) >= entropy(reference) - 1e-7
            assert mix == pytest.approx(reference, abs=2e-3)


def test_max_entropy_is_noise_stable():
    # payoffs equal up to rounding noise must tie, not flip the face
    rng = np.random.default_rng(4)
    games = rng.integers(-1, 2, (200, 5, 5)).astype(float)
    clean = solve_matrices(games, max_entropy=True)
    noisy = solve_matrices(games + rng.normal(0, 1e-15, games.shape), max_entropy=True)
    assert noisy.row == pytest.approx(clean.row, abs=1e-9)
    assert noisy.col == pytest.approx(clean.col, abs=1e-9)


def test_max_entropy_masked_constant_game_is_uniform_over_legal_actions():
    A = np.zeros((1, 3, 3))
    A[0, 2, :] = 7.0  # masked row
    solved = solve_matrices(A, [[True, True, False]], [[True, False, True]], max_entropy=True)
    assert solved.row[0] == pytest.approx([0.5, 0.5, 0])
    assert solved.col[0] == pytest.approx([0.5, 0, 0.5])


# --- the batch shortcuts: one-sided games on a line, repeated games solved once -----


def test_one_sided_batch_with_masks_by_hand():
    # one row: B takes the smallest legal columns; the masked column (nan, and 0
    # smaller than any legal entry) is never chosen. Value 1 = min(3, 1, 1).
    # one column: A takes the largest legal rows; the masked row 9 is ignored.
    rows = solve_matrices(np.array([[[3.0, np.nan, 1.0, 1.0]]]), None,
                          [[True, False, True, True]], max_entropy=True)
    assert rows.col[0] == pytest.approx([0, 0, 0.5, 0.5]) and rows.row[0] == [1.0]
    assert rows.value[0] == pytest.approx(1.0)
    cols = solve_matrices(np.array([[[2.0], [9.0], [-1.0]]]), [[True, False, True]])
    assert cols.row[0] == pytest.approx([1.0, 0, 0]) and cols.col[0] == [1.0]
    assert cols.value[0] == pytest.approx(2.0)
    zero = solve_matrices(np.array([[[0.0, 0.0, -5.0]]]), None, [[True, True, False]])
    assert zero.col[0] == pytest.approx([0.5, 0.5, 0]) and zero.value[0] == 0.0


def test_one_sided_batch_ties_by_hand():
    # payoffs 1 and 1 + 1e-12 differ by 1e-12 of the range 1: below TIE_TOL (1e-10),
    # so they tie; 1 + 1e-9 does not. A constant line is uniform over all entries.
    games = np.array([[[1.0], [1.0 + 1e-12], [0.0]], [[1.0], [1.0 + 1e-9], [0.0]],
                      [[4.0], [4.0], [4.0]]])
    solved = solve_matrices(games)
    assert solved.row[0] == pytest.approx([0.5, 0.5, 0], abs=1e-15)
    assert solved.row[1] == pytest.approx([0, 1, 0], abs=1e-15)
    assert solved.row[2] == pytest.approx([1 / 3] * 3)
    assert solved.value == pytest.approx([1 + 5e-13, 1 + 1e-9, 4.0], abs=1e-15)


def test_one_sided_batch_of_extreme_size_by_hand():
    # payoffs near 1e300 (rescaled before solving) and near 1e-300 (subnormal range)
    huge = solve_matrices(np.array([[[1e300, 3e300, 3e300]]]))
    assert huge.col[0] == pytest.approx([1, 0, 0]) and huge.value[0] == 1e300
    tiny = solve_matrices(np.array([[[1e-300], [3e-300]]]))
    assert tiny.row[0] == pytest.approx([0, 1]) and tiny.value[0] == pytest.approx(3e-300)


def test_repeated_hard_games_each_get_their_own_answer():
    # the batch repeats two games out of order; each copy must carry its own
    # max-entropy answer. Matching pennies: (1/2, 1/2) both, value 0. Rock-paper-
    # scissors with rock doubled: B plays 1/3 each; A's optimal face is x0 + x3 = 1/3,
    # x1 = x2 = 1/3, whose entropy is largest at x0 = x3 = 1/6; value 0.
    pennies = np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0, 0, 0], [0, 0, 0]])
    rps = np.vstack([RPS, RPS[:1]])
    games = np.stack([rps, pennies, rps, rps, pennies])
    rows = np.array([[True] * 4, [True, True, False, False]] + [[True] * 4] * 2
                    + [[True, True, False, False]])
    cols = np.array([[True] * 3, [True, True, False]] + [[True] * 3] * 2
                    + [[True, True, False]])
    solved = solve_matrices(games, rows, cols, max_entropy=True)
    for k in (0, 2, 3):
        assert solved.row[k] == pytest.approx([1 / 6, 1 / 3, 1 / 3, 1 / 6], abs=1e-9)
        assert solved.col[k] == pytest.approx([1 / 3] * 3, abs=1e-9)
    for k in (1, 4):
        assert solved.row[k] == pytest.approx([0.5, 0.5, 0, 0], abs=1e-9)
        assert solved.col[k] == pytest.approx([0.5, 0.5, 0], abs=1e-9)
    assert solved.value == pytest.approx([0] * 5, abs=1e-12)


@pytest.mark.parametrize("max_entropy", [False, True])
def test_a_batch_solved_in_parts_gives_every_game_its_own_equilibrium(monkeypatch,
                                                                      max_entropy):
    # parts of 3 games for 10 games of different shapes (padded, masked): each game's
    # value is HiGHS's, and its mixes leave neither player a better pure reply
    import solver.matrix.lp as matrix_module

    monkeypatch.setattr(matrix_module, "HARD_PART", 3)
    rng = np.random.default_rng(11)
    games = [rng.normal(size=(rng.integers(2, 6), rng.integers(2, 6))) for _ in range(10)]
    solved = solve_matrices(games, max_entropy=max_entropy)
    for k, game in enumerate(games):
        m, n = game.shape
        row, col = solved.row[k, :m], solved.col[k, :n]
        assert solved.value[k] == pytest.approx(linprog_value(game), abs=1e-9)
        assert (game @ col).max() <= solved.value[k] + 1e-9
        assert (row @ game).min() >= solved.value[k] - 1e-9



# --- warm starts -------------------------------------------------------------------


def enumerated_equilibria(A) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """Every equilibrium on a pair of equal-size supports with a nonsingular square
    system, by trying them all (brute force, independent of the solver)."""
    A = np.asarray(A, dtype=float)
    m, n = A.shape
    found = []
    for s in range(1, min(m, n) + 1):
        for rows, cols in itertools.product(itertools.combinations(range(m), s),
                                            itertools.combinations(range(n), s)):
            block = A[np.ix_(rows, cols)]
            unit = np.r_[np.zeros(s), 1.0]
            border, corner = np.ones((1, s)), np.zeros((1, 1))
            try:
                y = np.linalg.solve(np.block([[block, -border.T], [border, corner]]), unit)
                x = np.linalg.solve(np.block([[block.T, -border.T], [border, corner]]), unit)
            except np.linalg.LinAlgError:
                continue
            row, col = np.zeros(m), np.zeros(n)
            row[list(rows)], col[list(cols)] = x[:s], y[:s]
            if min(row.min(), col.min()) >= -1e-12 and regret(A, row, col) <= 1e-12:
                found.append((row, col, float(row @ A @ col)))
    return found


def test_start_on_the_right_supports_is_answered_without_the_simplex(monkeypatch):
    # [[3, -1], [-2, 1]] by hand: x = (3/7, 4/7), y = (2/7, 5/7), value 1/7; a third
    # row and column strictly dominated. Started from the answer's supports, no game
    # reaches the simplex.
    import solver.matrix.lp as matrix_module

    A = np.array([[3.0, -1.0, 5.0], [-2.0, 1.0, 4.0], [-3.0, -2.0, 3.5]])
    saddle = np.array([[1.0, 2.0, 3.0], [0.0, 1.5, 0.5], [0.2, 4.0, 0.1]])  # row 1, col 1
    monkeypatch.setattr(matrix_module, "_solve_cold", None)
    for max_entropy in (False, True):
        solved = solve_matrices(np.stack([A, saddle]), max_entropy=max_entropy,
                                start=([[1, 1, 0], [1, 0, 0]], [[0.5, 0.5, 0], [1, 0, 0]]))
        assert solved.row[0] == pytest.approx([3 / 7, 4 / 7, 0], abs=1e-12)
        assert solved.col[0] == pytest.approx([2 / 7, 5 / 7, 0], abs=1e-12)
        assert solved.value == pytest.approx([1 / 7, 1.0], abs=1e-12)
        assert solved.row[1].tolist() == [1, 0, 0] and solved.col[1].tolist() == [1, 0, 0]


@pytest.mark.parametrize("max_entropy", [False, True])
def test_wrong_starts_give_the_same_equilibrium(max_entropy):
    # random games, each with a unique equilibrium (found by support enumeration),
    # started from the right supports, wrong ones, a start of the wrong size, none
    rng = np.random.default_rng(5)
    games = rng.normal(size=(40, 4, 5))
    truth = [enumerated_equilibria(game) for game in games]
    assert all(len(found) == 1 for found in truth)
    right = (np.array([t[0][0] for t in truth]), np.array([t[0][1] for t in truth]))
    starts = [right, (np.roll(right[0], 1, axis=1), right[1]),
              (rng.random((40, 4)), rng.random((40, 5))),
              (np.full((40, 4), np.nan), np.full((40, 5), np.nan)),
              (np.eye(4)[rng.integers(0, 4, 40)], np.eye(5)[rng.integers(0, 5, 40)])]
    for start in starts:
        solved = solve_matrices(games, max_entropy=max_entropy, start=start)
        assert solved.row == pytest.approx(right[0], abs=1e-10)
        assert solved.col == pytest.approx(right[1], abs=1e-10)
        assert solved.value == pytest.approx([t[0][2] for t in truth], abs=1e-10)


def test_a_tie_off_the_supports_refuses_the_start():
    # rows 0 and 1 are the same, and columns 0 and 2: the start's supports {0, 2} x
    # {0, 1} give x = (1/2, 0, 1/2), y = (1/2, 1/2, 0), an equilibrium that no pure
    # deviation improves (a naive check would keep it), but row 1 and column 2 tie
    # with the value. The maximum-entropy mixes spread over the ties: x = (1/4, 1/4,
    # 1/2), y = (1/4, 1/2, 1/4), value 1/2.
    A = np.array([[1.0, 0.0, 1.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    x, y = np.array([0.5, 0, 0.5]), np.array([0.5, 0.5, 0])
    assert regret(A, x, y) == 0.0
    solved = solve_matrices(A[None], max_entropy=True, start=(x[None], y[None]))
    assert solved.row[0] == pytest.approx([0.25, 0.25, 0.5], abs=1e-9)
    assert solved.col[0] == pytest.approx([0.25, 0.5, 0.25], abs=1e-9)
    assert solved.value[0] == pytest.approx(0.5, abs=1e-12)


def test_a_zero_weight_on_the_supports_refuses_the_start():
    # the start's supports {0, 2} x {0, 1} solve to x = (0, 0, 1): row 0 gets no
    # weight, and row 1 ties off the supports. (0, 0, 1) is optimal, but the optimal
    # face is x = (t, t, 1 - 2t), whose entropy is largest at t = 1/3; B's only
    # optimal mix is (1/2, 1/2); value 1/2
    A = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    x, y = np.array([0.0, 0.0, 1.0]), np.array([0.5, 0.5])
    assert regret(A, x, y) == 0.0
    start = (np.array([[0.5, 0.0, 0.5]]), y[None])
    solved = solve_matrices(A[None], max_entropy=True, start=start)
    assert solved.row[0] == pytest.approx([1 / 3] * 3, abs=1e-9)
    assert solved.col[0] == pytest.approx([0.5, 0.5], abs=1e-9)
    plain = solve_matrices(A[None], start=start)
    assert_equilibrium(A, plain.row[0], plain.col[0], plain.value[0])


def test_started_masked_and_constant_games_by_hand():
    # a masked game whose start lies on its legal actions: [[2, 0], [0, 1]] has x =
    # (1/3, 2/3), y = (1/3, 2/3), value 2/3; a constant game is uniform over its legal
    # actions whatever the start
    games = np.array([[[2.0, 9.0, 0.0], [0.0, 9.0, 1.0]], [[4.0, 4.0, 4.0], [4.0, 4.0, 4.0]]])
    rows = np.array([[True, True], [True, True]])
    cols = np.array([[True, False, True], [True, True, False]])
    start = (np.array([[0.5, 0.5], [1.0, 0.0]]), np.array([[0.5, 0.0, 0.5], [1.0, 0.0, 0.0]]))
    solved = solve_matrices(games, rows, cols, max_entropy=True, start=start)
    assert solved.row == pytest.approx(np.array([[1 / 3, 2 / 3], [0.5, 0.5]]), abs=1e-12)
    assert solved.col == pytest.approx(np.array([[1 / 3, 0, 2 / 3], [0.5, 0.5, 0]]),
                                       abs=1e-12)
    assert solved.value == pytest.approx([2 / 3, 4.0], abs=1e-12)


def test_start_of_the_wrong_shape_is_refused():
    with pytest.raises(InputError, match="start mixes"):
        solve_matrices(np.zeros((2, 3, 3)), start=(np.zeros((2, 3)), np.zeros((2, 2))))


def test_a_tied_saddle_point_refuses_the_start():
    # column 0 is better for B in both rows, and both rows score 1 against it: the
    # pure pair (row 0, column 0) leaves no one a better reply, but A's optimal mixes
    # are all of them, so the maximum-entropy one is (1/2, 1/2); B's is (1, 0)
    A = np.array([[1.0, 2.0], [1.0, 3.0]])
    solved = solve_matrices(A[None], max_entropy=True, start=([[1.0, 0.0]], [[1.0, 0.0]]))
    assert solved.row[0] == pytest.approx([0.5, 0.5], abs=1e-9)
    assert solved.col[0] == pytest.approx([1.0, 0.0], abs=1e-9)
    assert solved.value[0] == pytest.approx(1.0, abs=1e-12)


def test_a_start_whose_square_system_has_no_equalising_mix_is_refused():
    # on rows {1, 2} and columns {0, 3} the payoffs mapped onto [1, 2] are B = [[2, 7/6],
    # [11/6, 1]], whose inverse sums to 0: no mix equalises both sides (the equalising
    # value would be infinite), so the start is refused and the simplex answers
    A = np.array([[0.0, -1.0, 0.0, 1.0], [1.5, -1.0, 0.5, -1.0], [1.0, 0.5, 1.0, -1.5]])
    start = (np.array([[0.0, 0.5, 0.5]]), np.array([[0.6, 0.0, 0.0, 0.4]]))
    for max_entropy in (False, True):
        solved = solve_matrices(A[None], max_entropy=max_entropy, start=start)
        cold = solve_matrices(A[None], max_entropy=max_entropy)
        assert solved.row == pytest.approx(cold.row, abs=1e-12)
        assert solved.col == pytest.approx(cold.col, abs=1e-12)
        assert solved.value[0] == pytest.approx(linprog_value(A), abs=1e-12)


def nearby_games(kind: str, rng, count: int = 240, m: int = 4, n: int = 5):
    """``count`` games of a ``kind`` (payoffs, row and column masks or None) and, for
    each, a game nearby whose answer is its start: families of 20 games around a
    common one, as a counter game's stage games at neighbouring points."""
    families = count // 20
    if kind == "ties":   # small integers, each game its family's with a few entries moved
        games = np.repeat(rng.integers(-2, 3, size=(families, 1, m, n)), 20, axis=1)
        games = games + (rng.random(games.shape) < 0.1) * rng.integers(-1, 2, size=games.shape)
    elif kind == "saddle":   # a_i + b_j: a strict saddle point at the best a, the least b
        games = (rng.normal(size=(families, 1, m, 1)) + rng.normal(size=(families, 1, 1, n))
                 + 0.01 * rng.normal(size=(families, 20, m, n)))
    else:
        games = rng.normal(size=(families, 1, m, n)) + 0.05 * rng.normal(size=(families, 20, m, n))
    games = games.reshape(count, m, n).astype(float)
    nearby = games + 0.02 * rng.normal(size=games.shape)
    if kind == "extreme":   # payoffs whose range overflows, or tiny ones
        size = np.where(np.arange(count) % 40 < 20, 2.0 ** 1022, 2.0 ** -600)[:, None, None]
        games, nearby = games * size, nearby * size
    rows = cols = None
    if kind == "masked":
        rows, cols = rng.random((count, m)) < 0.8, rng.random((count, n)) < 0.8
        rows[:, 0] = cols[:, 0] = True
        legal = rows[:, :, None] & cols[:, None, :]
        games, nearby = np.where(legal, games, np.nan), np.where(legal, nearby, 0.0)
    return games, rows, cols, nearby


@pytest.mark.parametrize("kind", ["generic", "masked", "ties", "saddle", "extreme"])
def test_warm_starts_give_the_cold_answers(kind, monkeypatch):
    # started from the answers to nearby games (some starts nan: none), every game gets
    # the answer it gets without a start: where the start's supports give the unique
    # equilibrium, that is the simplex's; where they give a merely optimal pair (the
    # integer games' ties), the start must be refused for the maximum-entropy one
    import solver.matrix.lp as matrix_module

    rng = np.random.default_rng(["generic", "masked", "ties", "saddle", "extreme"].index(kind))
    games, rows, cols, nearby = nearby_games(kind, rng)
    # each game's size, a power of two (by which dividing is exact)
    scale = np.ldexp(1.0, np.frexp(np.nanmax(np.abs(games), axis=(1, 2)))[1] - 1)
    cold_solve, from_scratch = matrix_module._solve_cold, []
    monkeypatch.setattr(matrix_module, "_solve_cold", lambda batch, *args: (
        from_scratch.append(len(batch.rows)), cold_solve(batch, *args))[1])
    for max_entropy in (False, True):
        start = solve_matrices(nearby, rows, cols, max_entropy=max_entropy)
        start = start.row.copy(), start.col.copy()
        start[0][::7], start[1][3::11] = np.nan, np.nan
        from_scratch.clear()
        warm = solve_matrices(games, rows, cols, max_entropy=max_entropy, start=start)
        started = len(games) - sum(from_scratch)
        cold = solve_matrices(games, rows, cols, max_entropy=max_entropy)
        assert warm.row == pytest.approx(cold.row, abs=1e-9)
        assert warm.col == pytest.approx(cold.col, abs=1e-9)
        assert warm.value / scale == pytest.approx(cold.value / scale, abs=1e-9)
        if kind != "ties":   # the starts were used, not merely refused
            assert started > len(games) / 2
    # the values by one HiGHS LP per game, on its legal payoffs
    for k in range(0, len(games), 4):
        legal = np.ix_(rows[k], cols[k]) if kind == "masked" else np.s_[:, :]
        value = linprog_value(games[k][legal] / scale[k])
        assert warm.value[k] / scale[k] == pytest.approx(value, abs=1e-9)


def test_games_laid_out_by_point_are_read_in_place(monkeypatch):
    # (cores, m, n, points) as a counter game's stage games, passed as the transposed
    # view (cores, points, m, n): the same answers as the same games in a plain batch,
    # the warm start reading them where they are (enough games to run in parallel)
    import solver.matrix.starts as matrix_starts

    rng = np.random.default_rng(11)
    k, m, n, width = 24, 3, 4, 200
    games = rng.normal(size=(k, m, n, 1)) + 0.05 * rng.normal(size=(k, m, n, width))
    view = games.transpose(0, 3, 1, 2)
    plain = np.ascontiguousarray(view).reshape(k * width, m, n)
    assert k * width >= matrix_starts.PARALLEL_FROM
    nearby = solve_matrices(plain + 0.02 * rng.normal(size=plain.shape), max_entropy=True)
    start = nearby.row.reshape(k, width, m), nearby.col.reshape(k, width, n)
    started, seen = matrix_starts.started, []
    monkeypatch.setattr(matrix_starts, "started", lambda games_read, *args: (
        seen.append(np.shares_memory(games_read, games)), started(games_read, *args))[1])
    for max_entropy in (False, True):
        for begin in (start, None):
            solved = solve_matrices(view, max_entropy=max_entropy, start=begin)
            flat = solve_matrices(plain, max_entropy=max_entropy, start=None if begin is None
                                  else (begin[0].reshape(k * width, m),
                                        begin[1].reshape(k * width, n)))
            assert solved.row.shape == (k, width, m) and solved.col.shape == (k, width, n)
            assert solved.value.shape == (k, width)
            assert solved.row.reshape(-1, m) == pytest.approx(flat.row, abs=1e-12)
            assert solved.col.reshape(-1, n) == pytest.approx(flat.col, abs=1e-12)
            assert solved.value.ravel() == pytest.approx(flat.value, abs=1e-12)
    assert seen == [True, False, True, False]   # the view in place, the plain batch not


def _started_alone(game: np.ndarray, start_row, start_col):
    """``solver.matrix.starts.started`` on one game (no game before it, every action
    legal): whether it settled, and its row mix, column mix and value."""
    import solver.matrix.lp as matrix
    import solver.matrix.starts as matrix_starts

    m, n = game.shape
    tolerances = (matrix.UNIQUE_TOL, matrix.CONSTANT_TOL, matrix.REGRET_TOL,
                  matrix.INVERSE_LIMIT, matrix.SCALE_ABOVE)
    row, col, value, settled, _, _ = matrix_starts.started(
        np.ascontiguousarray(game[None, :, :, None]), np.ones((1, m), bool),
        np.ones((1, n), bool), True, (np.array([start_row], float),
                                        np.array([start_col], float)), tolerances)
    return bool(settled[0]), row[0], col[0], float(value[0])


@pytest.mark.parametrize("game, start_row, start_col", [
    # [[1, 0], [0, 2]] in rows 0-1, columns 0-1 is the equilibrium: x = y = (2/3, 1/3),
    # worth 2/3; column 2 pays the row player 3 and row 2 pays -1 against y, both left
    # out strictly. From (row 0, column 0): column 1 does better for the column player
    # (0 < 1), no row does; row 1 is the first row to answer column 1 (the ratio test:
    # 1/3, row 2 never), and adding both settles it
    ([[1.0, 0.0, 3.0], [0.0, 2.0, 3.0], [-1.0, -1.0, -1.0]], [1, 0, 0], [1, 0, 0]),
    # the same equilibrium, row 2 now paying 1/2 against y (below 2/3); from rows {0, 2}
    # (row 0 at weight 0 in their equaliser, row 1 paying 1 against its (1/2, 1/2)):
    # row 1 enters in place of a support row; in place of row 2 it settles
    ([[1.0, 0.0], [0.0, 2.0], [0.5, 0.5]], [0.5, 0, 0.5], [0.5, 0.5]),
])
def test_a_start_one_pivot_away_settles_without_the_simplex(game, start_row, start_col):
    # neither start is a saddle point, nor is the game's own maximin pair: before the
    # pivots, both went to the simplex
    game = np.array(game)
    settled, row, col, value = _started_alone(game, start_row, start_col)
    assert settled
    assert row == pytest.approx(np.r_[2 / 3, 1 / 3, np.zeros(len(row) - 2)], abs=1e-12)
    assert col == pytest.approx(np.r_[2 / 3, 1 / 3, np.zeros(len(col) - 2)], abs=1e-12)
    assert value == pytest.approx(2 / 3, abs=1e-12)


def test_starts_from_nearby_games_settle_only_on_the_equilibrium():
    # random games (one equilibrium each, almost surely), each started from the answer
    # of a game near it, whose supports are often a pivot or two away: whatever settles
    # is the simplex's answer, worth linprog's value. Without the pivots 155 of these 300
    # settled (on the start's supports, or a saddle point); with them, 234
    rng = np.random.default_rng(13)
    settled_count = 0
    for _ in range(300):
        m, n = rng.integers(3, 7, size=2)
        game = rng.normal(size=(m, n))
        start_row, start_col, _ = solve_matrix(game + 0.3 * rng.normal(size=(m, n)),
                                               max_entropy=True)
        settled, row, col, value = _started_alone(game, start_row, start_col)
        if not settled:
            continue
        settled_count += 1
        cold_row, cold_col, _ = solve_matrix(game, max_entropy=True)
        assert row == pytest.approx(cold_row, abs=1e-9)
        assert col == pytest.approx(cold_col, abs=1e-9)
        assert value == pytest.approx(linprog_value(game), abs=1e-9)
    assert settled_count > 200


def test_a_game_without_a_start_tries_the_answer_one_point_before():
    # rock-paper-scissors with unequal stakes (one mixed equilibrium on every action, no
    # saddle point), drifting slowly from point to point; only each core's first point
    # has a start. The others settle on the supports of the point before (within one
    # chunk of the compiled loop: fewer than CHUNK games here), and every answer is the
    # cold one, its value linprog's
    import solver.matrix.lp as matrix
    import solver.matrix.starts as matrix_starts

    rng = np.random.default_rng(12)
    k, width = 5, 12
    assert k * width <= matrix_starts.CHUNK
    base = np.array([[0.0, -1.0, 2.0], [1.5, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    drift = np.linspace(0.0, 0.05, width)
    games = base[None, :, :, None] + drift * rng.normal(size=(k, 3, 3, 1))
    view = games.transpose(0, 3, 1, 2)
    cold = solve_matrices(view, max_entropy=True)
    start = np.full((k, width, 3), np.nan), np.full((k, width, 3), np.nan)
    start[0][:, 0], start[1][:, 0] = cold.row[:, 0], cold.col[:, 0]
    warm = solve_matrices(view, max_entropy=True, start=start)
    assert warm.row == pytest.approx(cold.row, abs=1e-9)
    assert warm.col == pytest.approx(cold.col, abs=1e-9)
    for core, point in [(0, 0), (2, 7), (4, width - 1)]:
        assert warm.value[core, point] == pytest.approx(linprog_value(view[core, point]), abs=1e-8)
    tolerances = (matrix.UNIQUE_TOL, matrix.CONSTANT_TOL, matrix.REGRET_TOL,
                  matrix.INVERSE_LIMIT, matrix.SCALE_ABOVE)
    legal_rows, legal_cols = np.ones((k * width, 3), bool), np.ones((k * width, 3), bool)
    settled = matrix_starts.started(np.ascontiguousarray(games), legal_rows, legal_cols, True,
                                    tuple(np.ascontiguousarray(s.reshape(k * width, 3))
                                          for s in start), tolerances)[3]
    assert settled.all()
