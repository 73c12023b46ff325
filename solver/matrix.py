"""Zero-sum matrix games: one at a time or many at once.

The row player maximises. Every game is solved by the batched simplex of
``solver.simplex`` on the classic positive-matrix LP, then checked by its regret;
the rare game that fails the check is solved again by HiGHS, so a returned pair is
always an equilibrium to within ``regret_tolerance``. With ``max_entropy=True``
each player's mix is the maximum-entropy one among all its optimal mixes (see
``solver.entropy``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from scipy.optimize import linprog

from .entropy import max_entropy_mixes
from .errors import InputError
from .simplex import dual_values, primal_values, solve_lps

#: regret allowed per unit of payoff scale (max(1, max |payoff|)) before a game is re-solved
REGRET_TOL = 1e-9
#: in max-entropy mode payoffs are snapped to 2**-SNAP_BITS of their magnitude so that
#: ties broken only by rounding noise count as ties (the optimal face would otherwise jump)
SNAP_BITS = 40


class MatrixSolutions(NamedTuple):
    """Equilibria of a batch of games; mixes are zero on masked or padded entries."""

    row: np.ndarray  # (B, m_max)
    col: np.ndarray  # (B, n_max)
    value: np.ndarray  # (B,)


def solve_matrix(A, max_entropy: bool = False) -> tuple[np.ndarray, np.ndarray, float]:
    """Zero-sum matrix game, row player maximises. Returns (row_mix, col_mix, value)."""
    matrix = _as_matrix(A, "matrix")
    ones_r = np.ones((1, matrix.shape[0]), dtype=bool)
    ones_c = np.ones((1, matrix.shape[1]), dtype=bool)
    sol = _solve_batch(matrix[None], ones_r, ones_c, max_entropy)
    return sol.row[0], sol.col[0], float(sol.value[0])


def solve_matrices(matrices, row_masks=None, col_masks=None,
                   max_entropy: bool = False) -> MatrixSolutions:
    """Many games at once.

    ``matrices`` is a list of 2-D arrays of possibly different shapes, or a padded
    array (B, m, n) with optional boolean masks (B, m) / (B, n) saying which rows
    and columns exist; masked entries are ignored and may hold anything, nan included.
    """
    payoffs, rmask, cmask = _as_batch(matrices, row_masks, col_masks)
    return _solve_batch(payoffs, rmask, cmask, max_entropy)


# --- validation ------------------------------------------------------------------


def _as_matrix(data, name: str) -> np.ndarray:
    if isinstance(data, (list, tuple)) and data and all(
            isinstance(r, (list, tuple, np.ndarray)) for r in data):
        lengths = [len(r) for r in data]
        if len(set(lengths)) > 1:
            raise InputError(f"{name} has ragged rows of lengths {lengths}")
    try:
        matrix = np.asarray(data, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} is not a rectangular array of numbers: {data!r:.80} ({exc})") \
            from None
    if matrix.ndim != 2:
        raise InputError(f"{name} must be 2-D, got shape {matrix.shape}")
    if matrix.size == 0:
        raise InputError(f"{name} is empty (shape {matrix.shape})")
    _check_finite(matrix, np.ones(matrix.shape, dtype=bool), name)
    return matrix


def _check_finite(payoffs: np.ndarray, legal: np.ndarray, name: str) -> None:
    bad = legal & ~np.isfinite(payoffs)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InputError(f"non-finite payoff {payoffs[where]} in {name} at index {where}")


def _as_batch(matrices, row_masks, col_masks) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if isinstance(matrices, (list, tuple)):
        payoffs, rmask, cmask = _pad([_as_matrix(a, f"matrix {k}")
                                      for k, a in enumerate(matrices)])
    else:
        try:
            payoffs = np.asarray(matrices, dtype=float)
        except (TypeError, ValueError) as exc:
            raise InputError(f"matrices is not an array of numbers ({exc})") from None
        if payoffs.ndim != 3:
            raise InputError(f"expected a (B, m, n) array or a list of matrices, "
                             f"got shape {payoffs.shape}")
        if payoffs.shape[0] and 0 in payoffs.shape[1:]:
            raise InputError(f"matrices are empty (shape {payoffs.shape})")
        rmask = np.ones(payoffs.shape[:2], dtype=bool)
        cmask = np.ones((payoffs.shape[0], payoffs.shape[2]), dtype=bool)
    rmask = rmask & _mask(row_masks, rmask.shape, "row_masks")
    cmask = cmask & _mask(col_masks, cmask.shape, "col_masks")
    for mask, kind in ((rmask, "row"), (cmask, "column")):
        empty = np.flatnonzero(~mask.any(axis=1))
        if empty.size:
            raise InputError(f"game {empty[0]} has no legal {kind} (its mask is all False)")
    legal = rmask[:, :, None] & cmask[:, None, :]
    _check_finite(payoffs, legal, "matrices")
    return np.where(legal, payoffs, 0.0), rmask, cmask


def _pad(mats: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    m = max((a.shape[0] for a in mats), default=0)
    n = max((a.shape[1] for a in mats), default=0)
    payoffs = np.zeros((len(mats), m, n))
    rmask = np.zeros((len(mats), m), dtype=bool)
    cmask = np.zeros((len(mats), n), dtype=bool)
    for k, a in enumerate(mats):
        payoffs[k, :a.shape[0], :a.shape[1]] = a
        rmask[k, :a.shape[0]] = True
        cmask[k, :a.shape[1]] = True
    return payoffs, rmask, cmask


def _mask(mask, shape: tuple[int, int], name: str) -> np.ndarray:
    if mask is None:
        return np.ones(shape, dtype=bool)
    arr = np.asarray(mask)
    if arr.shape != shape:
        raise InputError(f"{name} has shape {arr.shape}, expected {shape}")
    return arr.astype(bool)


# --- solving ---------------------------------------------------------------------


def _solve_batch(payoffs: np.ndarray, rmask: np.ndarray, cmask: np.ndarray,
                 max_entropy: bool) -> MatrixSolutions:
    count = payoffs.shape[0]
    row = np.zeros(rmask.shape)
    col = np.zeros(cmask.shape)
    if count == 0:
        return MatrixSolutions(row, col, np.zeros(0))
    unit, span = _normalise(payoffs, rmask, cmask, snap=max_entropy)
    trivial = (span == 0) | (rmask.sum(1) == 1) | (cmask.sum(1) == 1)
    if trivial.any():
        row[trivial], col[trivial] = _trivial_mixes(unit[trivial], rmask[trivial],
                                                    cmask[trivial], span[trivial] == 0)
    hard = np.flatnonzero(~trivial)
    if hard.size:
        row[hard], col[hard] = _hard_mixes(payoffs[hard], unit[hard], rmask[hard],
                                           cmask[hard], max_entropy)
    value = np.einsum("bi,bij,bj->b", row, payoffs, col)
    return MatrixSolutions(row, col, value)


def _normalise(payoffs: np.ndarray, rmask: np.ndarray, cmask: np.ndarray,
               snap: bool) -> tuple[np.ndarray, np.ndarray]:
    """Payoffs mapped affinely onto [0, 1] per game (masked entries 0) and each range.

    Equilibria and the max-entropy mixes are invariant under this map, and the
    simplex tolerances can then be absolute. With ``snap`` the payoffs are first
    rounded to a binary grid of 2**-40 of their magnitude, so that payoffs equal
    up to rounding noise (as backward induction produces) tie exactly.
    """
    legal = rmask[:, :, None] & cmask[:, None, :]
    if snap:
        magnitude = np.abs(payoffs).max(axis=(1, 2))
        grid = np.exp2(np.ceil(np.log2(np.where(magnitude > 0, magnitude, 1.0))) - SNAP_BITS)
        payoffs = np.round(payoffs / grid[:, None, None]) * grid[:, None, None]
    low = np.where(legal, payoffs, np.inf).min(axis=(1, 2))
    span = np.where(legal, payoffs, -np.inf).max(axis=(1, 2)) - low
    scale = np.where(span > 0, span, 1.0)
    unit = np.where(legal, (payoffs - low[:, None, None]) / scale[:, None, None], 0.0)
    return unit, span


def _trivial_mixes(unit: np.ndarray, rmask: np.ndarray, cmask: np.ndarray,
                   constant: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Closed forms for constant games and games with one row or one column.

    The optimal face is then "any mix over the tied best replies", so the uniform
    mix over them is both an equilibrium and the maximum-entropy one.
    """
    # with one legal column (row) the sum over columns (rows) is that column (row)
    column = np.where(rmask, unit.sum(axis=2), -np.inf)
    line = np.where(cmask, unit.sum(axis=1), np.inf)
    free_rows = constant | (cmask.sum(1) > 1)
    free_cols = constant | (rmask.sum(1) > 1)
    best_rows = rmask & (free_rows[:, None] | (column == column.max(1, keepdims=True)))
    best_cols = cmask & (free_cols[:, None] | (line == line.min(1, keepdims=True)))
    return _uniform(best_rows), _uniform(best_cols)


def _uniform(selected: np.ndarray) -> np.ndarray:
    return selected / selected.sum(axis=1, keepdims=True)


def _hard_mixes(payoffs: np.ndarray, unit: np.ndarray, rmask: np.ndarray,
                cmask: np.ndarray, max_entropy: bool) -> tuple[np.ndarray, np.ndarray]:
    row, col = _simplex_mixes(unit, rmask, cmask)
    bad = np.flatnonzero(_max_regret(payoffs, rmask, cmask, row, col) > _regret_tol(payoffs))
    for k in bad:
        row[k], col[k] = _highs_mixes(payoffs[k], rmask[k], cmask[k])
    if max_entropy:
        value = np.einsum("bi,bij,bj->b", row, unit, col)
        ent_row, ent_col = max_entropy_mixes(unit, rmask, cmask, row, col, value)
        ok = _max_regret(payoffs, rmask, cmask, ent_row, ent_col) <= _regret_tol(payoffs)
        if not ok.all():
            warnings.warn(f"max-entropy refinement failed for {int((~ok).sum())} game(s); "
                          "returning their LP equilibria instead", RuntimeWarning, stacklevel=4)
        row = np.where(ok[:, None], ent_row, row)
        col = np.where(ok[:, None], ent_col, col)
    return row, col


def _simplex_mixes(unit: np.ndarray, rmask: np.ndarray,
                   cmask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both mixes from one LP: max sum(y), (unit + 1) y <= 1, y >= 0.

    With every payoff in [1, 2] the game value is positive, the LP is feasible at
    y = 0 and bounded; y / sum(y) is the column mix and the constraint duals,
    normalised, are the row mix. Masked rows and columns are zero and so inert.
    """
    legal = rmask[:, :, None] & cmask[:, None, :]
    tableaux = solve_lps(np.where(legal, unit + 1.0, 0.0), rmask.astype(float),
                         cmask.astype(float))
    n = unit.shape[2]
    y = primal_values(tableaux, n) * cmask
    u = dual_values(tableaux, n) * rmask
    row = _normalised(u, rmask)
    col = _normalised(y, cmask)
    return row, col


def _normalised(weights: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Weights scaled to sum 1; an all-zero row (a failed LP) becomes uniform so the
    regret check catches it instead of dividing by zero."""
    total = weights.sum(axis=1, keepdims=True)
    return np.where(total > 0, weights / np.where(total > 0, total, 1.0), _uniform(mask))


def _max_regret(payoffs: np.ndarray, rmask: np.ndarray, cmask: np.ndarray,
                row: np.ndarray, col: np.ndarray) -> np.ndarray:
    """Largest gain of a legal pure deviation by either player over the pair's value."""
    value = np.einsum("bi,bij,bj->b", row, payoffs, col)
    row_gain = np.where(rmask, np.einsum("bij,bj->bi", payoffs, col), -np.inf)
    col_loss = np.where(cmask, np.einsum("bi,bij->bj", row, payoffs), np.inf)
    return np.maximum(row_gain.max(axis=1) - value, value - col_loss.min(axis=1))


def _regret_tol(payoffs: np.ndarray) -> np.ndarray:
    return REGRET_TOL * np.maximum(1.0, np.abs(payoffs).max(axis=(1, 2)))


def _highs_mixes(payoffs: np.ndarray, rmask: np.ndarray,
                 cmask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One game by HiGHS: min t s.t. A q <= t, sum(q) = 1; the row mix is the duals."""
    A = payoffs[np.ix_(rmask, cmask)]
    m, n = A.shape
    result = linprog(
        np.r_[np.zeros(n), 1.0], A_ub=np.c_[A, -np.ones(m)], b_ub=np.zeros(m),
        A_eq=np.r_[np.ones(n), 0.0][None], b_eq=[1.0],
        bounds=[(0, None)] * n + [(None, None)], method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    row = np.zeros(rmask.shape)
    col = np.zeros(cmask.shape)
    row[rmask] = _clean(-result.ineqlin.marginals)
    col[cmask] = _clean(result.x[:n])
    return row, col


def _clean(mix: np.ndarray) -> np.ndarray:
    mix = np.maximum(mix, 0.0)
    return mix / mix.sum()
