"""A dense tableau simplex that runs a whole batch of small LPs in lockstep.

Each LP is ``max c.y  s.t.  G y <= b, y >= 0`` with ``b >= 0``, so the slack basis
is feasible and no phase one is needed. Every game pivots on its own row and
column through fancy indexing; games leave the working set as they finish, so a
batch costs about as many numpy calls as its slowest member needs pivots.

Zero rows and zero columns are inert (a zero column never has a negative
reduced cost, a zero row never wins a ratio test), which is how callers pad
games of different sizes into one array.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: a reduced cost must be below -COST_TOL for its column to enter
COST_TOL = 1e-11
#: pivot elements at or below this are treated as zero; stops a pivot on rounding noise
PIVOT_TOL = 1e-9
#: ratios this close to the minimum count as ties, broken by Bland's rule
TIE_TOL = 1e-12


class Tableaux(NamedTuple):
    table: np.ndarray  # (B, R + 1, N + R + 1): constraint rows, then the objective row
    basis: np.ndarray  # (B, R) index of the basic variable of each constraint row
    ok: np.ndarray  # (B,) True where the LP reached optimality


def solve_lps(G: np.ndarray, b: np.ndarray, c: np.ndarray, *, dantzig_pivots: int | None = None,
              max_pivots: int | None = None) -> Tableaux:
    """Optimal tableaux of ``max c.y, G y <= b, y >= 0`` for a batch (G is (B, R, N)).

    The most negative reduced cost enters for the first ``dantzig_pivots`` pivots
    (fewest pivots in practice), then Bland's rule, which cannot cycle, takes over.
    """
    count, rows, cols = G.shape
    if dantzig_pivots is None:
        dantzig_pivots = 2 * (rows + cols)
    if max_pivots is None:
        max_pivots = dantzig_pivots + 50 * (rows + cols)
    table = _initial_table(G, b, c)
    basis = np.tile(np.arange(cols, cols + rows), (count, 1))
    out = Tableaux(np.empty_like(table), np.empty_like(basis), np.zeros(count, dtype=bool))
    ids = np.arange(count)
    for step in range(max_pivots):
        if ids.size == 0:
            return out
        costs = table[:, rows, :-1]
        entering = costs < -COST_TOL
        running = entering.any(axis=1)
        if step < dantzig_pivots:
            enter = np.argmin(costs, axis=1)
        else:
            enter = np.argmax(entering, axis=1)
        leave = _ratio_test(table, basis, enter)
        done = ~running | (leave < 0)
        if done.any():
            _store(out, table[done], basis[done], ids[done], optimal=~running[done])
            keep = ~done
            table, basis, ids = table[keep], basis[keep], ids[keep]
            enter, leave = enter[keep], leave[keep]
        _pivot(table, leave, enter)
        basis[np.arange(ids.size), leave] = enter
    _store(out, table, basis, ids, optimal=np.zeros(ids.size, dtype=bool))
    return out


def _initial_table(G: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    count, rows, cols = G.shape
    table = np.zeros((count, rows + 1, cols + rows + 1))
    table[:, :rows, :cols] = G
    table[:, np.arange(rows), cols + np.arange(rows)] = 1.0
    table[:, :rows, -1] = b
    table[:, rows, :cols] = -c
    return table


def _ratio_test(table: np.ndarray, basis: np.ndarray, enter: np.ndarray) -> np.ndarray:
    """Leaving row per LP, ties broken by the smallest basic index (Bland); -1 if unbounded."""
    count = table.shape[0]
    column = table[np.arange(count), :-1, enter]
    rhs = np.maximum(table[:, :-1, -1], 0.0)
    usable = column > PIVOT_TOL
    ratio = np.where(usable, rhs / np.where(usable, column, 1.0), np.inf)
    best = ratio.min(axis=1)
    tied = usable & (ratio <= best[:, None] + TIE_TOL * (1.0 + best[:, None]))
    leave = np.argmin(np.where(tied, basis, np.iinfo(basis.dtype).max), axis=1)
    return np.where(np.isfinite(best), leave, -1)


def _pivot(table: np.ndarray, leave: np.ndarray, enter: np.ndarray) -> None:
    idx = np.arange(table.shape[0])
    pivot_row = table[idx, leave, :] / table[idx, leave, enter][:, None]
    column = table[idx, :, enter]
    table -= column[:, :, None] * pivot_row[:, None, :]
    table[idx, leave, :] = pivot_row
    # exact zeros in the pivot column keep later reduced costs free of residue
    table[idx, :, enter] = 0.0
    table[idx, leave, enter] = 1.0


def _store(out: Tableaux, table: np.ndarray, basis: np.ndarray, ids: np.ndarray,
           optimal: np.ndarray) -> None:
    out.table[ids] = table
    out.basis[ids] = basis
    out.ok[ids] = optimal


def primal_values(tableaux: Tableaux, cols: int) -> np.ndarray:
    """The optimal ``y`` (B, cols) read from the basic rows of each tableau."""
    table, basis = tableaux.table, tableaux.basis
    count, rows = basis.shape
    y = np.zeros((count, cols + rows))
    np.put_along_axis(y, basis, table[:, :rows, -1], axis=1)
    return np.maximum(y[:, :cols], 0.0)


def dual_values(tableaux: Tableaux, cols: int) -> np.ndarray:
    """The optimal duals of the constraints (B, R): the reduced costs of the slacks."""
    return np.maximum(tableaux.table[:, -1, cols:-1], 0.0)
