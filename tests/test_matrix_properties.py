"""Properties of the matrix-game solver (``solver.matrix``) over generated games:
degenerate games, ties and rescaling are where a hand-picked example misses. Each value
is checked against a second route (scipy's HiGHS, the min-max bounds, the definition of
an equilibrium), never against the solver's own output."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from experiments.reference import TIGHT, linprog_value
from solver import solve_matrices, solve_matrix

PROPERTIES = settings(max_examples=60, deadline=None)

#: small integers make ties, saddle points, duplicated and dominated lines common
ENTRIES = st.one_of(st.integers(-3, 3).map(float),
                    st.floats(-100, 100, allow_nan=False, allow_infinity=False))
SHAPES = st.tuples(st.integers(1, 5), st.integers(1, 5))
GAMES = SHAPES.flatmap(lambda shape: arrays(np.float64, shape, elements=ENTRIES))


def tolerance(matrix) -> float:
    return 1e-9 * max(1.0, float(np.abs(matrix).max()))


def assert_equilibrium(matrix, row, col, value):
    tol = tolerance(matrix)
    assert row.min() >= 0 and col.min() >= 0
    assert abs(row.sum() - 1) <= 1e-9 and abs(col.sum() - 1) <= 1e-9
    # each mix is a best response to the other: no pure deviation gains
    assert (row @ matrix).min() >= value - tol
    assert (matrix @ col).max() <= value + tol


@PROPERTIES
@given(GAMES, st.booleans())
def test_the_mixes_are_best_responses_to_each_other(matrix, max_entropy):
    row, col, value = solve_matrix(matrix, max_entropy=max_entropy)
    assert_equilibrium(matrix, row, col, value)


@PROPERTIES
@given(GAMES)
# worth exactly 0 (the first row guarantees it, the second column holds everyone to it),
# where HiGHS at its default tolerances said 7.5e-6
@example(np.array([[0, 0, 0, 0, 0], [0, 0, 0, -1, 1], [0, 0, 1, 2e-5, 0], [1, 0, 0, 0, 0],
                   [0, -75, 0, 51, -1]], dtype=float))
def test_the_value_lies_between_maximin_and_minimax_and_agrees_with_highs(matrix):
    _, _, value = solve_matrix(matrix)
    tol = tolerance(matrix)
    assert matrix.min(axis=1).max() - tol <= value <= matrix.max(axis=0).min() + tol
    assert abs(value - linprog_value(matrix, TIGHT)) <= 1e-8 * max(
        1.0, float(np.abs(matrix).max()))


@PROPERTIES
@given(GAMES, st.floats(-50, 50, allow_nan=False), st.floats(1e-3, 1e3))
def test_the_value_shifts_with_a_constant_and_scales_with_a_positive_factor(matrix, shift,
                                                                           factor):
    _, _, value = solve_matrix(matrix)
    _, _, shifted = solve_matrix(matrix + shift)
    _, _, scaled = solve_matrix(matrix * factor)
    assert abs(shifted - (value + shift)) <= tolerance(matrix + shift) * 10
    assert abs(scaled - value * factor) <= tolerance(matrix * factor) * 10


@PROPERTIES
@given(GAMES, st.data())
def test_masked_lines_get_nothing_and_the_rest_is_the_smaller_game(matrix, data):
    m, n = matrix.shape
    rows = np.array(data.draw(st.lists(st.booleans(), min_size=m, max_size=m)))
    cols = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    rows[data.draw(st.integers(0, m - 1))] = True  # at least one live line each
    cols[data.draw(st.integers(0, n - 1))] = True
    padded = matrix.copy()
    padded[~rows, :] = np.nan  # masked entries may hold anything
    padded[:, ~cols] = np.nan
    solved = solve_matrices(padded[None], rows[None], cols[None])
    row, col, value = solved.row[0], solved.col[0], float(solved.value[0])
    assert np.all(row[~rows] == 0) and np.all(col[~cols] == 0)
    sub = matrix[np.ix_(rows, cols)]
    assert_equilibrium(sub, row[rows], col[cols], value)
    assert abs(value - linprog_value(sub, TIGHT)) <= 1e-8 * max(1.0, float(np.abs(sub).max()))


@PROPERTIES
@given(GAMES, st.data())
def test_a_duplicated_row_or_column_changes_nothing_but_the_mix_split(matrix, data):
    m, n = matrix.shape
    i, j = data.draw(st.integers(0, m - 1)), data.draw(st.integers(0, n - 1))
    _, _, value = solve_matrix(matrix)
    for bigger in (np.vstack([matrix, matrix[i]]), np.hstack([matrix, matrix[:, [j]]])):
        row, col, again = solve_matrix(bigger)
        assert abs(again - value) <= tolerance(matrix)
        assert_equilibrium(bigger, row, col, again)


@PROPERTIES
@given(SHAPES, st.floats(-100, 100, allow_nan=False), st.booleans())
def test_a_constant_game_is_worth_its_constant(shape, constant, max_entropy):
    matrix = np.full(shape, constant)
    row, col, value = solve_matrix(matrix, max_entropy=max_entropy)
    assert abs(value - constant) <= tolerance(matrix)
    assert_equilibrium(matrix, row, col, value)
    if max_entropy:  # every mix is optimal: the least predictable is uniform
        assert np.allclose(row, 1 / shape[0]) and np.allclose(col, 1 / shape[1])


@PROPERTIES
@given(st.lists(GAMES, min_size=1, max_size=6))
def test_a_batch_gives_each_game_its_own_value(games):
    solved = solve_matrices(games)
    for k, matrix in enumerate(games):
        m, n = matrix.shape
        assert abs(solved.value[k] - linprog_value(matrix, TIGHT)) <= 1e-8 * max(
            1.0, float(np.abs(matrix).max()))
        assert_equilibrium(matrix, solved.row[k, :m], solved.col[k, :n], solved.value[k])
        assert np.all(solved.row[k, m:] == 0) and np.all(solved.col[k, n:] == 0)
