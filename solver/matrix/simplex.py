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
              dantzig_pivots: int | None = None, start: np.ndarray | None = None) -> Tableaux:
    """Optimal tableaux of ``max c.y, G y <= b, y >= 0`` for a batch (G is (B, R, N)).

    The most negative reduced cost enters for the first ``dantzig_pivots`` pivots
    (fewest pivots in practice), then Bland's rule, which cannot cycle, takes over.
    ``bounded=True`` promises every LP is bounded, so a column that seems to open an
    unbounded ray is rounding noise: its reduced cost is zeroed and the LP goes on.
    Otherwise such an LP stops, marked not ok. ``start`` is a (B, R) basis to start
    from instead of the slacks, typically the final basis of an earlier run whose
    tableau drifted: the tableau is rebuilt from the data and pivoting resumes.
    """
    count, rows, cols = G.shape
    if dantzig_pivots is None:
        dantzig_pivots = 2 * (rows + cols)
    if start is None:
        table = _initial_table(G, b, c)
        basis = np.tile(np.arange(cols, cols + rows), (count, 1))
    else:
        table, basis = _table_from_basis(G, b, c, start), start.copy()
    out = Tableaux(table, basis, np.zeros(count, dtype=bool))
    ids = all_ids = np.arange(count)
    for step in range(dantzig_pivots + 50 * (rows + cols)):
        idx = all_ids[:ids.size]
        bland = step >= dantzig_pivots
        costs = table[:, rows, :-1]
        enter = np.argmax(costs < -COST_TOL, axis=1) if bland else costs.argmin(axis=1)
        column = table[idx, :, enter]
        optimal = column[:, -1] >= -COST_TOL
        leave, stuck = _leaving(table, column[:, :-1], basis, bland)
        done = optimal | stuck if not bounded else optimal
        if done.any():
            keep = ~done
            _store(out, table, basis, ids, done, optimal)
            if not keep.any():
                return out
            table, basis, ids = table[keep], basis[keep], ids[keep]
            enter, leave, column, idx = enter[keep], leave[keep], column[keep], idx[:ids.size]
            stuck = stuck[keep]
        if bounded and stuck.any():
            table[idx[stuck], rows, enter[stuck]] = 0.0
            idx, leave, enter, column = idx[~stuck], leave[~stuck], enter[~stuck], column[~stuck]
        _pivot(table, basis, idx, leave, enter, column)
    _store(out, table, basis, ids, np.ones(ids.size, dtype=bool), np.zeros(ids.size, dtype=bool))
    return out


def _pivot(table: np.ndarray, basis: np.ndarray, idx: np.ndarray, leave: np.ndarray,
           enter: np.ndarray, column: np.ndarray) -> None:
    pivot_row = table[idx, leave]
    pivot_row /= column[np.arange(idx.size), leave][:, None]
    if idx.size == table.shape[0]:
        table -= column[:, :, None] * pivot_row[:, None, :]
    else:
        table[idx] -= column[:, :, None] * pivot_row[:, None, :]
    table[idx, leave] = pivot_row
    basis[idx, leave] = enter


def _initial_table(G: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    count, rows, cols = G.shape
    table = np.zeros((count, rows + 1, cols + rows + 1))
    table[:, :rows, :cols] = G
    table[:, np.arange(rows), cols + np.arange(rows)] = 1.0
    table[:, :rows, -1] = b
    table[:, rows, :cols] = -c
    return table


def _table_from_basis(G: np.ndarray, b: np.ndarray, c: np.ndarray,
                      basis: np.ndarray) -> np.ndarray:
    """The tableau of a given basis: B^-1 [G | I | b], and the reduced costs."""
    count, rows, cols = G.shape
    start = _initial_table(G, b, c)
    body = start[:, :rows]
    matrix = np.take_along_axis(body[:, :, :-1], basis[:, None, :], axis=2)
    table = np.empty_like(start)
    table[:, :rows] = np.linalg.solve(matrix, body)
    costs = np.take_along_axis(-start[:, rows, :-1], basis, axis=1)
    table[:, rows] = start[:, rows] + (costs[:, None, :] @ table[:, :rows])[:, 0]
    return table


def _leaving(table: np.ndarray, column: np.ndarray, basis: np.ndarray,
             bland: bool) -> tuple[np.ndarray, np.ndarray]:
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
    return leave, ~usable.any(axis=1)


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


def resolve_basis(G: np.ndarray, b: np.ndarray, c: np.ndarray,
                  basis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Primal ``y`` and constraint duals of each final basis, recomputed from the
    original data. The tableau accumulates rounding over its pivots, which matters
    in nearly degenerate LPs; one fresh solve per basis does not. nan if singular."""
    count, rows, cols = G.shape
    columns = np.concatenate([G, np.broadcast_to(np.eye(rows), (count, rows, rows))], axis=2)
    matrix = np.take_along_axis(columns, basis[:, None, :], axis=2)
    costs = np.take_along_axis(np.concatenate([c, np.zeros((count, rows))], axis=1), basis, axis=1)
    try:
        values = np.linalg.solve(matrix, b[:, :, None])[:, :, 0]
        duals = np.linalg.solve(matrix.transpose(0, 2, 1), costs[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:
        return np.full((count, cols), np.nan), np.full((count, rows), np.nan)
    y = np.zeros((count, cols + rows))
    y[np.arange(count)[:, None], basis] = values
    return np.maximum(y[:, :cols], 0.0), np.maximum(duals, 0.0)
