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
    out = Tableaux(table, basis, np.zeros(count, dtype=bool))
    ids = np.arange(count)
    # the working arrays start as the output arrays and become compacted copies
    # once some LPs finish; finished LPs are written back then
    for step in range(max_pivots):
        idx = np.arange(ids.size)
        bland = step >= dantzig_pivots
        enter = _entering(table[:, rows, :-1], bland)
        column = table[idx, :, enter]
        leave = _leaving(table, column[:, :-1], basis, bland)
        done = (column[:, -1] >= -COST_TOL) | (leave < 0)
        if done.any():
            _store(out, table, basis, ids, done, optimal=column[:, -1] >= -COST_TOL)
            keep = ~done
            if not keep.any():
                return out
            table, basis, ids = table[keep], basis[keep], ids[keep]
            enter, leave, column, idx = enter[keep], leave[keep], column[keep], idx[:keep.sum()]
        _pivot(table, idx, leave, enter, column)
        basis[idx, leave] = enter
    _store(out, table, basis, ids, np.ones(ids.size, dtype=bool),
           optimal=np.zeros(ids.size, dtype=bool))
    return out


def _entering(costs: np.ndarray, bland: bool) -> np.ndarray:
    if bland:
        # first column with a negative reduced cost; argmax of all-False is 0,
        # whose cost is then >= -COST_TOL and marks the LP as optimal
        return np.argmax(costs < -COST_TOL, axis=1)
    return np.argmin(costs, axis=1)


def _initial_table(G: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    count, rows, cols = G.shape
    table = np.zeros((count, rows + 1, cols + rows + 1))
    table[:, :rows, :cols] = G
    table[:, np.arange(rows), cols + np.arange(rows)] = 1.0
    table[:, :rows, -1] = b
    table[:, rows, :cols] = -c
    return table


def _leaving(table: np.ndarray, column: np.ndarray, basis: np.ndarray,
             bland: bool) -> np.ndarray:
    """Leaving row per LP by the ratio test; -1 where the LP is unbounded.

    Under Bland's rule ties go to the smallest basic index; before that, to the
    first row, which is cheaper and harmless since Bland's phase ends any cycle.
    """
    usable = column > PIVOT_TOL
    ratio = np.full(column.shape, np.inf)
    np.divide(table[:, :-1, -1], column, out=ratio, where=usable)
    # a slightly negative right-hand side is rounding; it makes a degenerate pivot
    np.maximum(ratio, 0.0, out=ratio)
    if bland:
        best = ratio.min(axis=1, keepdims=True)
        tied = ratio <= best + TIE_TOL * (1.0 + best)
        leave = np.argmin(np.where(tied, basis, np.iinfo(basis.dtype).max), axis=1)
    else:
        leave = np.argmin(ratio, axis=1)
    return np.where(usable.any(axis=1), leave, -1)


def _pivot(table: np.ndarray, idx: np.ndarray, leave: np.ndarray, enter: np.ndarray,
           column: np.ndarray) -> None:
    pivot_row = table[idx, leave, :] / column[idx, leave][:, None]
    table -= column[:, :, None] * pivot_row[:, None, :]
    table[idx, leave, :] = pivot_row


def _store(out: Tableaux, table: np.ndarray, basis: np.ndarray, ids: np.ndarray,
           done: np.ndarray, optimal: np.ndarray) -> None:
    if table is out.table:
        out.ok[ids[done]] = optimal[done]
        return
    out.table[ids[done]] = table[done]
    out.basis[ids[done]] = basis[done]
    out.ok[ids[done]] = optimal[done]


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
