"""The compiled KKT solve of the regularised stage problem, against numpy's LAPACK."""

from __future__ import annotations

import numpy as np

from solver.matrix.barrier import _solve_kkt


def test_the_kkt_solve_matches_lapack():
    rng = np.random.default_rng(4)
    for size in (2, 5, 13):
        matrix = rng.normal(size=(size, size))
        right = rng.normal(size=size)
        assert np.allclose(_solve_kkt(matrix, right), np.linalg.solve(matrix, right),
                           atol=1e-10)


def test_a_singular_system_falls_back_to_the_pseudo_inverse():
    # the second row is twice the first: an exact zero pivot after one elimination
    matrix = np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 3.0]])
    right = np.array([1.0, 2.0, 6.0])
    found = _solve_kkt(matrix, right)
    assert np.allclose(found, np.linalg.pinv(matrix) @ right, atol=1e-12)
    assert np.allclose(found, [0.2, 0.4, 2.0], atol=1e-12)     # least norm, by hand
