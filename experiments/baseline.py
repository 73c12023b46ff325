"""The reference the solver benchmarks compare against: the same backward induction
(and, on cyclic graphs, the same value iteration), solving each state's stage game by
its own scipy HiGHS ``linprog`` call. Shared by every ``bench_*.py`` script."""

from __future__ import annotations

import time

import numpy as np
from scipy.optimize import linprog

from solver.graph import build_graph
from solver.stages import stage_batches, sweep


def linprog_value(matrix: np.ndarray) -> float:
    """Value of a zero-sum matrix game for the row player by one HiGHS call."""
    m, n = matrix.shape
    cost = np.zeros(m + 1)
    cost[-1] = -1.0
    upper = np.hstack([-matrix.T, np.ones((n, 1))])
    equal = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    done = linprog(cost, A_ub=upper, b_ub=np.zeros(n), A_eq=equal, b_eq=[1.0],
                   bounds=[(0, None)] * m + [(None, None)], method="highs")
    return float(done.x[-1])


def stage_matrices(batch):
    """Each stage game of a batch, restricted to its legal rows and columns."""
    return [matrix[np.ix_(rows, cols)] for matrix, rows, cols in
            zip(batch.matrices, batch.row_mask, batch.col_mask, strict=True)]


def baseline_solve(game, tolerance: float = 1e-10) -> float:
    """The duel's value with one linprog call per stage game (per sweep when cyclic)."""
    graph = build_graph(game, game.initial_outcomes())  # uncached, as solve_game's first call
    values = graph.payoff.astype(float).copy()

    def update(states: np.ndarray) -> None:
        for batch in stage_batches(graph, states, values):
            values[batch.states] = [linprog_value(m) for m in stage_matrices(batch)]

    sweep(graph, values, update, tolerance, what="the linprog baseline")
    return float(graph.start @ values)


class OutOfTime(Exception):
    pass


def budgeted_baseline(graph, budget: float) -> dict:
    """The linprog schedule on ``graph``, stopped after ``budget`` seconds: the stage
    games it solved, its seconds, and the value if it finished."""
    values = graph.payoff.astype(float).copy()
    solved = 0
    start = time.perf_counter()

    def update(states: np.ndarray) -> None:
        nonlocal solved
        for batch in stage_batches(graph, states, values):
            for k, matrix in enumerate(stage_matrices(batch)):
                values[batch.states[k]] = linprog_value(matrix)
                solved += 1
                if time.perf_counter() - start > budget:
                    raise OutOfTime

    finished = True
    try:
        sweep(graph, values, update, what="the linprog baseline")
    except OutOfTime:
        finished = False
    return {"seconds": time.perf_counter() - start, "stage_games": solved,
            "finished": finished, "value": float(graph.start @ values) if finished else None}
