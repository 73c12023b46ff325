"""Zero-sum matrix games: one at a time or many at once.

The row player maximises. Games with one row, one column or constant payoffs have
closed forms; every other game is solved by the batched simplex of
``solver.matrix.simplex`` on the classic positive-matrix LP and checked by its regret.
The rare game that fails the check (nearly degenerate ones lose accuracy over the
pivots) is re-solved from its final basis, then if need be by HiGHS, so a returned
pair is an equilibrium to within REGRET_TOL. With ``max_entropy=True`` each
player's mix is the maximum-entropy one among all its optimal mixes (see
``solver.matrix.entropy``).

A batch may come with a start: earlier answers to nearby games. Most games of a
layer of a counter game keep their supports from one solve to the next, so each game
first tries the equilibrium on its start's supports (a square linear system; for one
action each, a saddle point checked on its row and column), then on its own saddle
point, and keeps it only where it is strictly complementary, hence the only
equilibrium and the maximum-entropy one; the simplex solves the rest.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..errors import InputError, RefinementWarning
from .entropy import max_entropy_mixes
from .simplex import Tableaux, dual_values, primal_values, resolve_basis, solve_lps

#: regret allowed, per unit of max(1, max |payoff|), before a game's answer is repaired
REGRET_TOL = 1e-9
#: a game whose payoffs differ by at most this fraction of their magnitude is constant:
#: such differences are rounding noise, and normalising them would blow them up
CONSTANT_TOL = 1e-12
#: in a one-row or one-column game, replies within this fraction of the payoff range of
#: the best one tie with it (and share the mix evenly)
TIE_TOL = 1e-10
#: basic values and reduced costs above this count as nondegenerate
UNIQUE_TOL = 1e-9
#: games whose largest |payoff| is above this (or below its inverse) are solved
#: rescaled by a power of two (see ``_scales``)
SCALE_ABOVE = 2.0 ** 500
#: a square game whose payoffs, shifted onto [1, 2], have an inverse larger than this
#: (max row sum) is too close to singular for its equalising mixes (``solver.matrix.starts``)
INVERSE_LIMIT = 1e5
#: the most games whose simplex tableaux pivot together (``_hard_mixes_in_parts``)
HARD_PART = 512
#: lines up to this long are reduced column by column (see ``_across``)
SHORT_LINE = 16
REAL_KINDS = "real numbers (int or float; not bool, complex, string or other objects)"


class MatrixSolutions(NamedTuple):
    """Equilibria of a batch of games; mixes are zero on masked or padded entries."""

    row: np.ndarray  # (B, m_max)
    col: np.ndarray  # (B, n_max)
    value: np.ndarray  # (B,)


def solve_matrix(A, max_entropy: bool = False) -> tuple[np.ndarray, np.ndarray, float]:
    """Zero-sum matrix game, row player maximises. Returns (row_mix, col_mix, value)."""
    max_entropy = _check_flag(max_entropy, "max_entropy")
    matrix = _as_matrix(A, "matrix")
    scale = float(_scales(np.abs(matrix).max()[None])[0])
    easy = _easy_game(matrix / scale)
    if easy is not None:
        return easy[0], easy[1], easy[2] * scale
    m, n = matrix.shape
    batch = _Batch(matrix[None], np.ones((1, m), dtype=bool), np.ones((1, n), dtype=bool), True)
    sol = _solve(batch, max_entropy)
    return sol.row[0], sol.col[0], float(sol.value[0])


def solve_matrices(matrices, row_masks=None, col_masks=None, max_entropy: bool = False,
                   start: tuple[np.ndarray, np.ndarray] | None = None) -> MatrixSolutions:
    """Many games at once.

    ``matrices`` is a list of 2-D arrays of possibly different shapes, or a padded
    array (..., m, n) (its leading axes index the games: (B, m, n), or (k, width, m, n)
    for k groups of width games) with optional boolean masks (..., m) / (..., n) saying
    which rows and columns exist; masked entries are ignored and may hold anything, nan
    included. The solutions have the games' leading axes. A (k, width, m, n) array laid
    out as (k, m, n, width) (a transposed view, as a counter game's stage games come)
    is read in place where it can be.
    ``start`` (row mixes (..., m), column mixes (..., n); nan rows where there are none)
    are answers to nearby games, typically the same games a step earlier: each game
    first tries the equilibrium on its start's supports, then (in a (k, width, m, n)
    array) on the answer's at the game before it in its group, then its saddle point,
    kept only where it is certainly the one equilibrium (``solver.matrix.starts.started``: so
    the answers are those without a start, to rounding); the others are solved as
    without it.
    """
    max_entropy = _check_flag(max_entropy, "max_entropy")
    batch, lead = _as_batch(matrices, row_masks, col_masks)
    if start is not None:
        start = _as_start(start, (lead + batch.rows.shape[1:], lead + batch.cols.shape[1:]))
        start = tuple(mix.reshape(len(batch.rows), -1) for mix in start)
    solved = _solve(batch, max_entropy, start)
    return MatrixSolutions(solved.row.reshape(lead + solved.row.shape[1:]),
                           solved.col.reshape(lead + solved.col.shape[1:]),
                           solved.value.reshape(lead))


class _Batch(NamedTuple):
    payoffs: np.ndarray | None  # (B, m, n), zero where masked; None: only `games` holds them
    rows: np.ndarray  # (B, m) legal rows
    cols: np.ndarray  # (B, n) legal columns
    full: bool  # nothing is masked, so the hot path may skip the masking
    #: the same games in place as (k, m, n, width), C-contiguous: game b is
    #: games[b // width, :, :, b % width] (a counter game's stage games)
    games: np.ndarray | None = None


def _laid_flat(batch: _Batch) -> _Batch:
    """``batch`` with its ``payoffs`` (a copy of the ``games`` where it had none)."""
    if batch.payoffs is not None:
        return batch
    k, m, n, width = batch.games.shape
    return batch._replace(payoffs=batch.games.transpose(0, 3, 1, 2).reshape(k * width, m, n))


def _games_of(batch: _Batch) -> np.ndarray:
    """The batch's games as (k, m, n, width), C-contiguous: in place where they are."""
    if batch.games is not None:
        return batch.games
    return np.ascontiguousarray(batch.payoffs)[:, :, :, None]


def _some(batch: _Batch, which: np.ndarray) -> _Batch:
    """The games ``which`` of ``batch`` (a new array of payoffs)."""
    if batch.payoffs is not None:
        payoffs = batch.payoffs[which]
    else:
        width = batch.games.shape[3]
        payoffs = batch.games[which // width, :, :, which % width]
    return _Batch(payoffs, batch.rows[which], batch.cols[which], batch.full)


# --- validation ------------------------------------------------------------------


def _as_matrix(data, name: str) -> np.ndarray:
    if isinstance(data, (list, tuple)) and data and all(
            isinstance(r, (list, tuple, np.ndarray)) for r in data):
        lengths = [len(r) for r in data]
        if len(set(lengths)) > 1:
            raise InputError(f"{name} has ragged rows of lengths {lengths}")
    matrix = _real_array(data, name)
    if matrix.size == 0:
        raise InputError(f"{name} is empty (shape {matrix.shape})")
    if matrix.ndim != 2:
        raise InputError(f"{name} must be 2-D, got shape {matrix.shape}")
    if not np.isfinite(matrix).all():
        _check_finite(matrix, np.ones(matrix.shape, dtype=bool), name)
    return matrix


def _real_array(data, name: str) -> np.ndarray:
    """``data`` as a float array, if every entry is a real number: complex, boolean,
    string and other objects are refused, never silently converted (``float`` would
    drop an imaginary part, and ``True`` or ``"1"`` as a payoff is a caller's bug)."""
    try:
        array = np.asarray(data)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} is not a rectangular array of numbers: {data!r:.80} "
                         f"({exc})") from None
    if array.dtype.kind == "O":
        bad = [x for x in array.flat if isinstance(x, bool | np.bool_)
               or not isinstance(x, numbers.Real)][:1]
        if bad:
            bad = bad[0]
            raise InputError(f"{name} holds {bad!r:.40} ({type(bad).__name__}); "
                             f"allowed: {REAL_KINDS}")
    elif array.dtype.kind not in "iuf":
        first = array.flat[0].item() if array.size else None
        raise InputError(f"{name} holds {first!r:.40} ({array.dtype} entries); "
                         f"allowed: {REAL_KINDS}")
    try:
        return array.astype(float, copy=False)
    except OverflowError:  # an integer beyond float range
        raise InputError(f"{name} holds an integer too large for a float; allowed: "
                         f"{REAL_KINDS}") from None


def _scales(magnitude: np.ndarray) -> np.ndarray:
    """Per game, a power of two that brings payoffs of extreme size (``magnitude`` is
    the largest |payoff|) near 1: differences of payoffs near 1e308 overflow, and
    subnormal ones have lost their digits. Powers of two rescale exactly, and games
    of ordinary size get 1, so their answers are bit for bit unchanged."""
    extreme = (magnitude > SCALE_ABOVE) | ((magnitude > 0) & (magnitude < 1 / SCALE_ABOVE))
    exponent = np.frexp(np.where(extreme, magnitude, 1.0))[1] - 1  # 2**1024 overflows
    return np.where(extreme, np.ldexp(1.0, exponent), 1.0)


def _check_finite(payoffs: np.ndarray, legal: np.ndarray, name: str) -> None:
    bad = legal & ~np.isfinite(payoffs)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InputError(f"non-finite payoff {payoffs[where]} in {name} at index {where}")


def _as_batch(matrices, row_masks, col_masks) -> tuple[_Batch, tuple[int, ...]]:
    """The games as a batch, and the leading axes they came with."""
    if isinstance(matrices, (list, tuple)):
        mats = [_as_matrix(a, f"matrix {k}") for k, a in enumerate(matrices)]
        payoffs, rows, cols = _pad(mats)
        full, lead = len({a.shape for a in mats}) <= 1, (len(mats),)
    else:
        payoffs = _as_array(matrices)
        lead, (m, n) = payoffs.shape[:-2], payoffs.shape[-2:]
        in_place = np.moveaxis(payoffs, 1, 3) if payoffs.ndim == 4 else None
        if row_masks is None and col_masks is None and in_place is not None and (
                in_place.flags.c_contiguous):
            _check_all_finite(payoffs)
            count = int(np.prod(lead))
            return _Batch(None, np.ones((count, m), dtype=bool), np.ones((count, n), dtype=bool),
                          True, in_place), lead
        payoffs = payoffs.reshape(-1, m, n)
        rows = np.ones(payoffs.shape[:2], dtype=bool)
        cols = np.ones((payoffs.shape[0], payoffs.shape[2]), dtype=bool)
        full = True
    if row_masks is not None:
        rows = rows & _mask(row_masks, lead, rows.shape, "row_masks")
    if col_masks is not None:
        cols = cols & _mask(col_masks, lead, cols.shape, "col_masks")
    full = full and row_masks is None and col_masks is None
    if full:
        _check_all_finite(payoffs)
        return _Batch(payoffs, rows, cols, True), lead
    for mask, kind in ((rows, "row"), (cols, "column")):
        empty = np.flatnonzero(~mask.any(axis=1))
        if empty.size:
            raise InputError(f"game {empty[0]} has no legal {kind} (its mask is all False)")
    legal = rows[:, :, None] & cols[:, None, :]
    _check_finite(payoffs, legal, "matrices")
    return _Batch(np.where(legal, payoffs, 0.0), rows, cols, False), lead


def _check_all_finite(payoffs: np.ndarray) -> None:
    # a finite sum (one fast pass) has finite terms; only another sum is looked into
    with np.errstate(over="ignore", invalid="ignore"):
        total = payoffs.sum()
    if not np.isfinite(total) and not np.isfinite(payoffs).all():
        _check_finite(payoffs, np.ones(payoffs.shape, dtype=bool), "matrices")


def _as_array(matrices) -> np.ndarray:
    payoffs = _real_array(matrices, "matrices")
    if payoffs.ndim < 3:
        raise InputError(f"expected a (..., m, n) array or a list of matrices, "
                         f"got shape {payoffs.shape}")
    if 0 in payoffs.shape[-2:]:  # no games is fine, games without rows or columns not
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


def _mask(mask, lead: tuple[int, ...], shape: tuple[int, int], name: str) -> np.ndarray:
    """A mask as booleans: booleans, or the integers 0 and 1 (``astype(bool)`` alone
    would read NaN, 0.5, -1 and the string "no" as True)."""
    try:
        arr = np.asarray(mask)
    except ValueError:  # ragged
        raise InputError(f"{name} is not a rectangular array of booleans") from None
    if arr.shape != lead + shape[1:]:
        raise InputError(f"{name} has shape {arr.shape}, expected {lead + shape[1:]}")
    if arr.dtype.kind not in "biu" or (arr.dtype.kind != "b" and not np.isin(arr, (0, 1)).all()):
        flat = arr.ravel() if arr.dtype.kind not in "biu" else arr[~np.isin(arr, (0, 1))]
        bad = flat[0].item() if flat.size else None
        raise InputError(f"{name} holds {bad!r:.40} ({arr.dtype}); allowed: booleans, or "
                         f"the integers 0 and 1")
    return arr.astype(bool).reshape(shape)


def _check_flag(value: object, name: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise InputError(f"{name} must be True or False, got {value!r:.40}")
    return bool(value)


def _as_start(start, shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> tuple:
    """``start`` as (row mixes, column mixes) of real numbers of the batch's shapes."""
    if not isinstance(start, tuple | list) or len(start) != 2:
        raise InputError(f"start must be a pair (row mixes, column mixes), got "
                         f"{start!r:.60}")
    mixes = []
    for mix, name in zip(start, ("row", "column"), strict=True):
        try:
            array = np.asarray(mix, dtype=float)
        except (ValueError, TypeError):
            raise InputError(f"start's {name} mixes are not a rectangular array of "
                             f"numbers") from None
        mixes.append(array)
    if mixes[0].shape != shapes[0] or mixes[1].shape != shapes[1]:
        raise InputError(f"start mixes have shapes {mixes[0].shape} and "
                         f"{mixes[1].shape}, expected {shapes[0]} and {shapes[1]}")
    return tuple(mixes)


# --- solving ---------------------------------------------------------------------


def _easy_game(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, float] | None:
    """One row, one column or a constant matrix, answered without the batch machinery."""
    m, n = matrix.shape
    if n == 1 or m == 1:
        line = matrix.ravel() if n == 1 else -matrix.ravel()
        best = line >= line.max() - TIE_TOL * (line.max() - line.min())
        mix = best / best.sum()
        value = float(mix @ matrix.ravel())
        return (mix, np.ones(1), value) if n == 1 else (np.ones(1), mix, value)
    low, high = matrix.min(), matrix.max()
    if high - low <= CONSTANT_TOL * max(abs(low), abs(high)):
        return np.full(m, 1.0 / m), np.full(n, 1.0 / n), float(matrix.mean())
    return None


def _solve(batch: _Batch, max_entropy: bool, start: tuple | None = None) -> MatrixSolutions:
    if len(batch.rows) == 0:
        return MatrixSolutions(np.zeros(batch.rows.shape), np.zeros(batch.cols.shape),
                               np.zeros(0))
    if 1 in (batch.rows.shape[1], batch.cols.shape[1]):
        batch = _laid_flat(batch)
        solved = _one_sided(batch)
        if solved is not None:
            return solved
    if start is not None:
        return _solve_started(batch, max_entropy, start)
    batch = _laid_flat(batch)
    return _solve_bounded(batch, max_entropy, *_bounds(batch))


def _solve_bounded(batch: _Batch, max_entropy: bool, low: np.ndarray, high: np.ndarray,
                   start: tuple | None = None) -> MatrixSolutions:
    """Games whose legal payoffs go from ``low`` to ``high``: those of extreme size
    rescaled (and started again, if they have a start), the others from scratch."""
    scale = _scales(np.maximum(np.abs(low), np.abs(high)))
    if (scale != 1.0).any():
        scaled = _Batch(batch.payoffs / scale[:, None, None], batch.rows, batch.cols,
                        batch.full)
        solved = _solve(scaled, max_entropy, start)
        return MatrixSolutions(solved.row, solved.col, solved.value * scale)
    return _solve_cold(batch, max_entropy, low, high)


def _solve_started(batch: _Batch, max_entropy: bool,
                   start: tuple[np.ndarray, np.ndarray]) -> MatrixSolutions:
    """Each game tried on its start's supports, then on its neighbour's answer and on
    its saddle point, kept where it is certainly the only equilibrium
    (``solver.matrix.starts.started``); the rest as without a start."""
    from . import (
        starts as matrix_starts,  # numba: only counter games start, so `import solver` stays light
    )

    row, col, value, settled, low, high = matrix_starts.started(
        _games_of(batch), batch.rows, batch.cols, batch.full,
        tuple(np.ascontiguousarray(mix) for mix in start),
        (UNIQUE_TOL, CONSTANT_TOL, REGRET_TOL, INVERSE_LIMIT, SCALE_ABOVE))
    rest = np.flatnonzero(~settled)
    if rest.size:
        row[rest], col[rest], value[rest] = _solve_bounded(
            _some(batch, rest), max_entropy, low[rest], high[rest],
            (start[0][rest], start[1][rest]))
    return MatrixSolutions(row, col, value)


def _solve_cold(batch: _Batch, max_entropy: bool, low: np.ndarray,
                high: np.ndarray) -> MatrixSolutions:
    """Games of ordinary size (their legal payoffs between ``low`` and ``high``) from
    scratch: closed forms where trivial, else the simplex."""
    row = np.zeros(batch.rows.shape)
    col = np.zeros(batch.cols.shape)
    unit, constant = _normalise(batch, low, high)
    trivial = constant | (batch.rows.sum(1) == 1) | (batch.cols.sum(1) == 1)
    if trivial.all():
        row, col = _trivial_mixes(unit, batch.rows, batch.cols, constant)
    elif not trivial.any():
        row, col = _distinct_hard_mixes(batch, unit, max_entropy)
    else:
        row[trivial], col[trivial] = _trivial_mixes(unit[trivial], batch.rows[trivial],
                                                    batch.cols[trivial], constant[trivial])
        hard = ~trivial
        sub = _Batch(batch.payoffs[hard], batch.rows[hard], batch.cols[hard], batch.full)
        row[hard], col[hard] = _distinct_hard_mixes(sub, unit[hard], max_entropy)
    value = (row[:, None, :] @ batch.payoffs @ col[:, :, None])[:, 0, 0]
    return MatrixSolutions(row, col, value)


def _one_sided(batch: _Batch) -> MatrixSolutions | None:
    """Games of one row or one column (their padded shape), in closed form on a line
    of payoffs: the chooser takes its best legal entries (uniformly over those tied
    within TIE_TOL of the payoff range), the other player its one action.

    Exactly the answer of ``_normalise`` and ``_trivial_mixes`` (same snapping of
    near-ties, same tie rule) with a fraction of the array work, which matters when
    a counter solves millions of one-sided steps a beat. None for games of extreme
    size, which the general path rescales first.
    """
    count, m, n = batch.payoffs.shape
    rows_choose = n == 1
    line = batch.payoffs[:, :, 0] if rows_choose else batch.payoffs[:, 0, :]
    legal = None if batch.full else (batch.rows if rows_choose else batch.cols)
    if legal is None:
        low, high = _across(np.minimum, line), _across(np.maximum, line)
    else:
        low = np.where(legal, line, np.inf).min(axis=1)
        high = np.where(legal, line, -np.inf).max(axis=1)
        line = np.where(legal, line, low[:, None])  # inert: never beyond the best entry
    magnitude = np.maximum(np.abs(low), np.abs(high))
    if ((magnitude > SCALE_ABOVE) | ((magnitude > 0) & (magnitude < 1 / SCALE_ABOVE))).any():
        return None
    span = high - low
    constant = span <= CONSTANT_TOL * magnitude
    stretch = np.where(constant, 1.0, span)[:, None]
    unit = (line - low[:, None]) / stretch
    grid = (CONSTANT_TOL * magnitude)[:, None] / stretch
    snapped = grid > 0
    unit = np.where(snapped, np.round(unit / np.where(snapped, grid, 1.0)) * grid, unit)
    # the snap is monotone, so the best unit entry is the snapped best one
    if rows_choose:
        best = unit >= (_across(np.maximum, unit) - TIE_TOL)[:, None]
    else:
        best = unit <= (_across(np.minimum, unit) + TIE_TOL)[:, None]
    best |= constant[:, None]
    if legal is not None:
        best &= legal
    mix = best / _across(np.add, best.astype(float))[:, None]
    value = _across(np.add, mix * line)
    other = np.ones((count, 1))
    return MatrixSolutions(mix, other, value) if rows_choose else MatrixSolutions(other, mix, value)


def _across(ufunc: np.ufunc, lines: np.ndarray) -> np.ndarray:
    """``ufunc.reduce(lines, axis=1)``, column by column: numpy reduces a short axis of
    many rows far slower than it combines a few long columns."""
    if lines.shape[1] > SHORT_LINE:
        return ufunc.reduce(lines, axis=1)
    out = lines[:, 0].copy()
    for column in range(1, lines.shape[1]):
        ufunc(out, lines[:, column], out=out)
    return out


def _bounds(batch: _Batch) -> tuple[np.ndarray, np.ndarray]:
    """The least and the greatest legal payoff of each game."""
    payoffs = batch.payoffs
    if batch.full:
        flat = payoffs.reshape(len(payoffs), -1)
        return flat.min(axis=1), flat.max(axis=1)
    legal = batch.rows[:, :, None] & batch.cols[:, None, :]
    return (np.where(legal, payoffs, np.inf).min(axis=(1, 2)),
            np.where(legal, payoffs, -np.inf).max(axis=(1, 2)))


def _normalise(batch: _Batch, low: np.ndarray,
               high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Payoffs mapped affinely onto [0, 1] per game (masked entries 0), from the
    least and greatest legal payoffs ``low`` and ``high``, and which games are
    constant.

    Equilibria and max-entropy mixes are invariant under this map, and the simplex
    tolerances can then be absolute.
    """
    shift, stretch, grid, constant = (part[:, None, None] for part in _unit_map(low, high))
    unit = (batch.payoffs - shift) / stretch
    unit /= grid
    np.round(unit, out=unit)
    unit *= grid
    if not batch.full:
        unit = np.where(batch.rows[:, :, None] & batch.cols[:, None, :], unit, 0.0)
    return unit, constant[:, 0, 0]


def _unit_map(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per game, the map of ``_normalise`` (shift, stretch, snapping grid) and whether
    the game is constant."""
    span = high - low
    scale = np.maximum(np.abs(low), np.abs(high))
    constant = span <= CONSTANT_TOL * scale
    stretch = np.where(constant, 1.0, span)
    # Payoffs closer than CONSTANT_TOL * scale are ties: rounding noise in them would
    # otherwise be stretched with a small span past the tolerances (and split ties the
    # maximum-entropy mix depends on). Snapping to that grid costs at most that much.
    # (a grid of 0 means every payoff is 0: unit is 0 already, and stays so)
    grid = CONSTANT_TOL * scale / stretch
    grid[grid == 0] = 1.0
    return low, stretch, grid, constant


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
    best_rows = rmask & (free_rows[:, None] | (column >= column.max(1, keepdims=True) - TIE_TOL))
    best_cols = cmask & (free_cols[:, None] | (line <= line.min(1, keepdims=True) + TIE_TOL))
    return _uniform(best_rows), _uniform(best_cols)


def _uniform(selected: np.ndarray) -> np.ndarray:
    return selected / selected.sum(axis=1, keepdims=True)


def _distinct_hard_mixes(batch: _Batch, unit: np.ndarray,
                         max_entropy: bool) -> tuple[np.ndarray, np.ndarray]:
    """``_hard_mixes`` solving each distinct game once: the stage games of a duel
    repeat (in Houses of the Blooded some twenty times over), and a game's answer
    depends on its payoffs and masks alone."""
    count = len(unit)
    if count < 2:
        return _hard_mixes(batch, unit, max_entropy)
    parts = [batch.payoffs.reshape(count, -1)]
    if not batch.full:
        parts += [batch.rows, batch.cols]
    keys = np.ascontiguousarray(np.concatenate(
        [np.ascontiguousarray(part).view(np.uint8).reshape(count, -1) for part in parts], axis=1))
    keys = keys.view(np.dtype((np.void, keys.shape[1])))[:, 0]
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    if len(first) == count:
        return _hard_mixes_in_parts(batch, unit, max_entropy)
    sub = _Batch(batch.payoffs[first], batch.rows[first], batch.cols[first], batch.full)
    row, col = _hard_mixes_in_parts(sub, unit[first], max_entropy)
    return row[inverse], col[inverse]


def _hard_mixes_in_parts(batch: _Batch, unit: np.ndarray,
                         max_entropy: bool) -> tuple[np.ndarray, np.ndarray]:
    """``_hard_mixes`` on parts of at most HARD_PART games: a part's tableaux stay in
    the processor's cache over its pivots (a game's answer does not depend on the
    others in its batch, so the answers are the same)."""
    count = len(unit)
    if count <= HARD_PART:
        return _hard_mixes(batch, unit, max_entropy)
    row, col = np.zeros(batch.rows.shape), np.zeros(batch.cols.shape)
    for lo in range(0, count, HARD_PART):
        part = slice(lo, lo + HARD_PART)
        row[part], col[part] = _hard_mixes(
            _Batch(batch.payoffs[part], batch.rows[part], batch.cols[part], batch.full),
            unit[part], max_entropy)
    return row, col


def _hard_mixes(batch: _Batch, unit: np.ndarray,
                max_entropy: bool) -> tuple[np.ndarray, np.ndarray]:
    lp = _game_lps(batch, unit)
    tableaux = solve_lps(*lp)
    n = unit.shape[2]
    row, col = _mixes(dual_values(tableaux, n), primal_values(tableaux, n))
    tolerance = REGRET_TOL * np.maximum(1.0, np.abs(batch.payoffs).max(axis=(1, 2)))
    # "not <=" also catches the nan of an LP that failed outright
    bad = np.flatnonzero(~(_max_regret(batch, row, col) <= tolerance))
    if bad.size:
        _repair(batch, lp, tableaux.basis, row, col, bad, tolerance)
    if max_entropy:
        unique = _unique_mixes(tableaux, batch)
        unique[0][bad] = unique[1][bad] = False
        value = (row[:, None, :] @ unit @ col[:, :, None])[:, 0, 0]
        ent_row, ent_col = max_entropy_mixes(unit, batch.rows, batch.cols, row, col, value,
                                             unique)
        ok = _max_regret(batch, ent_row, ent_col) <= tolerance
        if not ok.all():
            warnings.warn(RefinementWarning(int((~ok).sum())), stacklevel=4)
            ent_row[~ok], ent_col[~ok] = row[~ok], col[~ok]
        row, col = ent_row, ent_col
    return row, col


def _unique_mixes(tableaux: Tableaux, batch: _Batch) -> tuple[np.ndarray, np.ndarray]:
    """Games whose row mix, and whose column mix, is certainly the only optimal one.

    At an optimal basis whose basic variables are all positive, the duals (the row
    mix) are unique; where all reduced costs of legal nonbasic variables are
    positive, the primal (the column mix) is. Almost every game passes both.
    """
    table, basis = tableaux.table, tableaux.basis
    count, rows = basis.shape
    row_unique = (table[:, :rows, -1] > UNIQUE_TOL).all(axis=1)
    nonbasic = np.concatenate([batch.cols, batch.rows], axis=1)
    nonbasic[np.arange(count)[:, None], basis] = False
    col_unique = ~(nonbasic & (table[:, rows, :-1] <= UNIQUE_TOL)).any(axis=1)
    return row_unique, col_unique


def _repair(batch: _Batch, lp: tuple, basis: np.ndarray, row: np.ndarray, col: np.ndarray,
            bad: np.ndarray, tolerance: np.ndarray) -> None:
    """Fix, in place, the games whose simplex answer failed the regret check: first
    rebuild their tableau from the data at the final basis, pivot on, and read the
    values off a fresh solve of the basis; then ask HiGHS for those still failing.
    A new pair replaces the old one only where its regret is smaller."""
    lp = tuple(part[bad] for part in lp)
    try:
        basis = solve_lps(*lp, start=basis[bad]).basis
    except np.linalg.LinAlgError:  # a singular basis: HiGHS will do
        basis = basis[bad]
    y, u = resolve_basis(*lp, basis)
    regret = _improve(batch, bad, row, col, *_mixes(u, y))
    for i in np.flatnonzero(~(regret <= tolerance[bad])):
        k = bad[i:i + 1]
        found = _highs_mixes(batch.payoffs[k[0]], batch.rows[k[0]], batch.cols[k[0]])
        if found is not None:
            regret[i] = _improve(batch, k, row, col, found[0][None], found[1][None])[0]
    failed = ~(regret <= tolerance[bad])
    if failed.any():
        warnings.warn(f"{int(failed.sum())} game(s) solved only to a regret of "
                      f"{np.nanmax(regret):.1e}", RuntimeWarning, stacklevel=5)


def _improve(batch: _Batch, which: np.ndarray, row: np.ndarray, col: np.ndarray,
             new_row: np.ndarray, new_col: np.ndarray) -> np.ndarray:
    """Take the new pairs of games ``which`` where they have a smaller regret (a nan
    regret never wins); return the regrets kept."""
    sub = _Batch(batch.payoffs[which], batch.rows[which], batch.cols[which], batch.full)
    old = _max_regret(sub, row[which], col[which])
    new = _max_regret(sub, new_row, new_col)
    better = ~(old <= new) & ~np.isnan(new)
    row[which[better]], col[which[better]] = new_row[better], new_col[better]
    return np.where(better, new, old)


def _game_lps(batch: _Batch, unit: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The LP max sum(y), (unit + 1) y <= 1, y >= 0 of each game, as (G, b, c).

    With every payoff in [1, 2] the game value is positive, the LP is feasible at
    y = 0 and bounded; y / sum(y) is the column mix and the constraint duals,
    normalised, are the row mix. Masked rows and columns are zero and so inert.
    """
    count, m, n = unit.shape
    if batch.full:
        return unit + 1.0, np.ones((count, m)), np.ones((count, n))
    legal = batch.rows[:, :, None] & batch.cols[:, None, :]
    # a masked row is all zero with a right-hand side of 1, so its slack stays basic
    # and positive: inert, and no obstacle to the nondegeneracy test
    return np.where(legal, unit + 1.0, 0.0), np.ones(batch.rows.shape), batch.cols.astype(float)


def _mixes(duals: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return duals / duals.sum(axis=1, keepdims=True), y / y.sum(axis=1, keepdims=True)


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
                 cmask: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """One game by HiGHS: min t s.t. A q <= t, sum(q) = 1; the row mix is the duals."""
    from scipy.optimize import linprog  # a rare fallback: scipy.optimize takes 0.3 s to load
    A = payoffs[np.ix_(rmask, cmask)]
    m, n = A.shape
    result = linprog(
        np.r_[np.zeros(n), 1.0], A_ub=np.c_[A, -np.ones(m)], b_ub=np.zeros(m),
        A_eq=np.r_[np.ones(n), 0.0][None], b_eq=[1.0],
        bounds=[(0, None)] * n + [(None, None)], method="highs")
    if result.status != 0:
        return None
    row = np.zeros(rmask.shape)
    col = np.zeros(cmask.shape)
    row[rmask] = _clean(-result.ineqlin.marginals)
    col[cmask] = _clean(result.x[:n])
    return row, col


def _clean(mix: np.ndarray) -> np.ndarray:
    mix = np.maximum(mix, 0.0)
    return mix / mix.sum()
