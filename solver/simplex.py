"""A dense tableau simplex that runs a whole batch of small LPs in lockstep.

Each LP is ``max c.y  s.t.  G y <= b, y >= 0`` with ``b >= 0``, so the slack basis
is feasible and no phase one is needed. Every LP pivots on its own row and column
through fancy indexing; LPs leave the working set as they finish. The cost of a
batch is dominated by numpy's per-call overhead times the pivots its slowest
member needs, so the loop is kept to about fifteen numpy calls per pivot.

Zero rows and zero columns are inert (a zero column never has a negative
reduced cost, a zero row never wins a ratio test), which is how callers pad
LPs of different sizes into one array.
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


def solve_lps(G: np.ndarray, b: np.ndarray, c: np.ndarray, *, bounded: bool = False,
              dantzig_pivots: int | None = None) -> Tableaux:
    """Optimal tableaux of ``max c.y, G y <= b, y >= 0`` for a batch (G is (B, R, N)).

    The most negative reduced cost enters for the first ``dantzig_pivots`` pivots
    (fewest pivots in practice), then Bland's rule, which cannot cycle, takes over.
    ``bounded=True`` promises every entering column has a positive entry, which
    skips the unboundedness test.
    """
    count, rows, cols = G.shape
    if dantzig_pivots is None:
        dantzig_pivots = 2 * (rows + cols)
    table = _initial_table(G, b, c)
    basis = np.tile(np.arange(cols, cols + rows), (count, 1))
    out = Tableaux(table, basis, np.zeros(count, dtype=bool))
    ids = all_ids = np.arange(count)
    for step in range(dantzig_pivots + 50 * (rows + cols)):
        idx = all_ids[:ids.size]
        bland = step >= dantzig_pivots
        costs = table[:, rows, :-1]
        enter = np.argmax(costs < -COST_TOL, axis=1) if bland else costs.argmin(axis=1)
        column = table[idx, :, enter]
        optimal = column[:, -1] >= -COST_TOL
        leave, stuck = _leaving(table, column[:, :-1], basis, bland, bounded)
        done = optimal if stuck is None else optimal | stuck
        if done.any():
            keep = ~done
            _store(out, table, basis, ids, done, optimal)
            if not keep.any():
                return out
            table, basis, ids = table[keep], basis[keep], ids[keep]
            enter, leave, column, idx = enter[keep], leave[keep], column[keep], idx[:ids.size]
        pivot_row = table[idx, leave]
        pivot_row /= column[idx, leave][:, None]
        table -= column[:, :, None] * pivot_row[:, None, :]
        table[idx, leave] = pivot_row
        basis[idx, leave] = enter
    _store(out, table, basis, ids, np.ones(ids.size, dtype=bool), np.zeros(ids.size, dtype=bool))
    return out


def _initial_table(G: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    count, rows, cols = G.shape
    table = np.zeros((count, rows + 1, cols + rows + 1))
    table[:, :rows, :cols] = G
    table[:, np.arange(rows), cols + np.arange(rows)] = 1.0
    table[:, :rows, -1] = b
    table[:, rows, :cols] = -c
    return table


def _leaving(table: np.ndarray, column: np.ndarray, basis: np.ndarray, bland: bool,
             bounded: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """Leaving row per LP by the ratio test, and where no row can leave (unbounded).

    Under Bland's rule ties go to the smallest basic index; before that, to the
    first row, which is cheaper and harmless since Bland's phase ends any cycle.
    A slightly negative right-hand side is rounding: its ratio is a tiny negative
    number, so it simply makes a degenerate pivot.
    """
    usable = column > PIVOT_TOL
    ratio = np.divide(table[:, :-1, -1], column, out=np.full(column.shape, np.inf),
                      where=usable)
    if bland:
        best = ratio.min(axis=1, keepdims=True)
        tied = ratio <= best + TIE_TOL * (1.0 + np.abs(best))
        leave = np.argmin(np.where(tied, basis, np.iinfo(basis.dtype).max), axis=1)
    else:
        leave = ratio.argmin(axis=1)
    return leave, (None if bounded else ~usable.any(axis=1))


def _store(out: Tableaux, table: np.ndarray, basis: np.ndarray, ids: np.ndarray,
           done: np.ndarray, optimal: np.ndarray) -> None:
    """Record finished LPs; the working arrays are the output arrays themselves
    until the first LP finishes, and compacted copies after that."""
    if table is not out.table:
        out.table[ids[done]] = table[done]
        out.basis[ids[done]] = basis[done]
    out.ok[ids[done]] = optimal[done]


def primal_values(tableaux: Tableaux, cols: int) -> np.ndarray:
    """The optimal ``y`` (B, cols) read from the basic rows of each tableau."""
    table, basis = tableaux.table, tableaux.basis
    count, rows = basis.shape
    y = np.zeros((count, cols + rows))
    y[np.arange(count)[:, None], basis] = table[:, :rows, -1]
    return np.maximum(y[:, :cols], 0.0)


def dual_values(tableaux: Tableaux, cols: int) -> np.ndarray:
    """The optimal duals of the constraints (B, R): the reduced costs of the slacks."""
    return np.maximum(tableaux.table[:, -1, cols:-1], 0.0)
