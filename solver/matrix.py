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
    easy = _easy_game(matrix, max_entropy)
    if easy is not None:
        return easy
    m, n = matrix.shape
    batch = _Batch(matrix[None], np.ones((1, m), dtype=bool), np.ones((1, n), dtype=bool), True)
    sol = _solve(batch, max_entropy)
    return sol.row[0], sol.col[0], float(sol.value[0])


def solve_matrices(matrices, row_masks=None, col_masks=None,
                   max_entropy: bool = False) -> MatrixSolutions:
    """Many games at once.

    ``matrices`` is a list of 2-D arrays of possibly different shapes, or a padded
    array (B, m, n) with optional boolean masks (B, m) / (B, n) saying which rows
    and columns exist; masked entries are ignored and may hold anything, nan included.
    """
    return _solve(_as_batch(matrices, row_masks, col_masks), max_entropy)


class _Batch(NamedTuple):
    payoffs: np.ndarray  # (B, m, n), zero where masked
    rows: np.ndarray  # (B, m) legal rows
    cols: np.ndarray  # (B, n) legal columns
    full: bool  # nothing is masked, so the hot path may skip the masking


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
    if not np.isfinite(matrix).all():
        _check_finite(matrix, np.ones(matrix.shape, dtype=bool), name)
    return matrix


def _check_finite(payoffs: np.ndarray, legal: np.ndarray, name: str) -> None:
    bad = legal & ~np.isfinite(payoffs)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InputError(f"non-finite payoff {payoffs[where]} in {name} at index {where}")


def _as_batch(matrices, row_masks, col_masks) -> _Batch:
    if isinstance(matrices, (list, tuple)):
        mats = [_as_matrix(a, f"matrix {k}") for k, a in enumerate(matrices)]
        payoffs, rows, cols = _pad(mats)
        full = len({a.shape for a in mats}) <= 1
    else:
        payoffs = _as_array(matrices)
        rows = np.ones(payoffs.shape[:2], dtype=bool)
        cols = np.ones((payoffs.shape[0], payoffs.shape[2]), dtype=bool)
        full = True
    if row_masks is not None:
        rows = rows & _mask(row_masks, rows.shape, "row_masks")
    if col_masks is not None:
        cols = cols & _mask(col_masks, cols.shape, "col_masks")
    full = full and row_masks is None and col_masks is None
    if full:
        if not np.isfinite(payoffs).all():
            _check_finite(payoffs, np.ones(payoffs.shape, dtype=bool), "matrices")
        return _Batch(payoffs, rows, cols, True)
    for mask, kind in ((rows, "row"), (cols, "column")):
        empty = np.flatnonzero(~mask.any(axis=1))
        if empty.size:
            raise InputError(f"game {empty[0]} has no legal {kind} (its mask is all False)")
    legal = rows[:, :, None] & cols[:, None, :]
    _check_finite(payoffs, legal, "matrices")
    return _Batch(np.where(legal, payoffs, 0.0), rows, cols, False)


def _as_array(matrices) -> np.ndarray:
    try:
        payoffs = np.asarray(matrices, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"matrices is not an array of numbers ({exc})") from None
    if payoffs.ndim != 3:
        raise InputError(f"expected a (B, m, n) array or a list of matrices, "
                         f"got shape {payoffs.shape}")
    if payoffs.shape[0] and 0 in payoffs.shape[1:]:
        raise InputError(f"matrices are empty (shape {payoffs.shape})")
    return payoffs


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


def _easy_game(matrix: np.ndarray, snap: bool) -> tuple[np.ndarray, np.ndarray, float] | None:
    """One row, one column or a constant matrix, answered without the batch machinery."""
    m, n = matrix.shape
    if n == 1 or m == 1:
        line = _snapped(matrix.reshape(1, -1), snap)[0]
        best = line == (line.max() if n == 1 else line.min())
        mix = best / best.sum()
        value = float(mix @ matrix.ravel())
        return (mix, np.ones(1), value) if n == 1 else (np.ones(1), mix, value)
    low, high = matrix.min(), matrix.max()
    if low == high:
        return np.full(m, 1.0 / m), np.full(n, 1.0 / n), float(low)
    return None


def _snapped(payoffs: np.ndarray, snap: bool) -> np.ndarray:
    """Payoffs rounded to a binary grid of 2**-SNAP_BITS of each game's magnitude
    (when ``snap``), so that payoffs equal up to rounding noise tie exactly."""
    if not snap:
        return payoffs
    axes = tuple(range(1, payoffs.ndim))
    magnitude = np.abs(payoffs).max(axis=axes, keepdims=True)
    grid = np.exp2(np.ceil(np.log2(np.where(magnitude > 0, magnitude, 1.0))) - SNAP_BITS)
    return np.round(payoffs / grid) * grid


def _solve(batch: _Batch, max_entropy: bool) -> MatrixSolutions:
    row = np.zeros(batch.rows.shape)
    col = np.zeros(batch.cols.shape)
    if len(row) == 0:
        return MatrixSolutions(row, col, np.zeros(0))
    unit, constant = _normalise(batch, snap=max_entropy)
    trivial = constant | (batch.rows.sum(1) == 1) | (batch.cols.sum(1) == 1)
    if trivial.all():
        row, col = _trivial_mixes(unit, batch.rows, batch.cols, constant)
    elif not trivial.any():
        row, col = _hard_mixes(batch, unit, max_entropy)
    else:
        row[trivial], col[trivial] = _trivial_mixes(unit[trivial], batch.rows[trivial],
                                                    batch.cols[trivial], constant[trivial])
        hard = ~trivial
        sub = _Batch(batch.payoffs[hard], batch.rows[hard], batch.cols[hard], batch.full)
        row[hard], col[hard] = _hard_mixes(sub, unit[hard], max_entropy)
    value = (row[:, None, :] @ batch.payoffs @ col[:, :, None])[:, 0, 0]
    return MatrixSolutions(row, col, value)


def _normalise(batch: _Batch, snap: bool) -> tuple[np.ndarray, np.ndarray]:
    """Payoffs mapped affinely onto [0, 1] per game (masked entries 0), and which
    games are constant.

    Equilibria and max-entropy mixes are invariant under this map, and the simplex
    tolerances can then be absolute.
    """
    payoffs = _snapped(batch.payoffs, snap)
    if batch.full:
        low = payoffs.min(axis=(1, 2))
        high = payoffs.max(axis=(1, 2))
    else:
        legal = batch.rows[:, :, None] & batch.cols[:, None, :]
        low = np.where(legal, payoffs, np.inf).min(axis=(1, 2))
        high = np.where(legal, payoffs, -np.inf).max(axis=(1, 2))
    span = high - low
    constant = span == 0
    unit = (payoffs - low[:, None, None]) / np.where(constant, 1.0, span)[:, None, None]
    if not batch.full:
        unit = np.where(legal, unit, 0.0)
    return unit, constant


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


def _hard_mixes(batch: _Batch, unit: np.ndarray,
                max_entropy: bool) -> tuple[np.ndarray, np.ndarray]:
    row, col = _simplex_mixes(batch, unit)
    tolerance = REGRET_TOL * np.maximum(1.0, np.abs(batch.payoffs).max(axis=(1, 2)))
    # "not <=" also catches the nan of an LP that failed outright
    for k in np.flatnonzero(~(_max_regret(batch, row, col) <= tolerance)):
        row[k], col[k] = _highs_mixes(batch.payoffs[k], batch.rows[k], batch.cols[k])
    if max_entropy:
        value = (row[:, None, :] @ unit @ col[:, :, None])[:, 0, 0]
        ent_row, ent_col = max_entropy_mixes(unit, batch.rows, batch.cols, row, col, value)
        ok = _max_regret(batch, ent_row, ent_col) <= tolerance
        if not ok.all():
            warnings.warn(f"max-entropy refinement failed for {int((~ok).sum())} game(s); "
                          "returning their LP equilibria instead", RuntimeWarning, stacklevel=4)
            ent_row[~ok], ent_col[~ok] = row[~ok], col[~ok]
        row, col = ent_row, ent_col
    return row, col


def _simplex_mixes(batch: _Batch, unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both mixes from one LP: max sum(y), (unit + 1) y <= 1, y >= 0.

    With every payoff in [1, 2] the game value is positive, the LP is feasible at
    y = 0 and bounded; y / sum(y) is the column mix and the constraint duals,
    normalised, are the row mix. Masked rows and columns are zero and so inert.
    """
    count, m, n = unit.shape
    if batch.full:
        tableaux = solve_lps(unit + 1.0, np.ones((count, m)), np.ones((count, n)), bounded=True)
    else:
        legal = batch.rows[:, :, None] & batch.cols[:, None, :]
        tableaux = solve_lps(np.where(legal, unit + 1.0, 0.0), batch.rows.astype(float),
                             batch.cols.astype(float), bounded=True)
    y = primal_values(tableaux, n)
    u = dual_values(tableaux, n)
    return u / u.sum(axis=1, keepdims=True), y / y.sum(axis=1, keepdims=True)


def _max_regret(batch: _Batch, row: np.ndarray, col: np.ndarray) -> np.ndarray:
    """Largest gain of a legal pure deviation by either player over the pair's value."""
    row_scores = (batch.payoffs @ col[:, :, None])[:, :, 0]
    col_scores = (row[:, None, :] @ batch.payoffs)[:, 0, :]
    value = (row * row_scores).sum(axis=1)
    if not batch.full:
        row_scores = np.where(batch.rows, row_scores, -np.inf)
        col_scores = np.where(batch.cols, col_scores, np.inf)
    return np.maximum(row_scores.max(axis=1) - value, value - col_scores.min(axis=1))


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
