"""The reference the solver benchmarks compare against: the same backward induction
(and, on cyclic graphs, the same value iteration), solving each state's stage game by
its own scipy HiGHS ``linprog`` call. Shared by every ``bench_*.py`` script."""

from __future__ import annotations

import time

import numpy as np
from reference import linprog_value

from solver.markov.graph import build_graph
from solver.markov.stages import TOLERANCE, stage_batches, sweep


def stage_matrices(batch):
    """Each stage game of a batch, restricted to its legal rows and columns."""
    return [matrix[np.ix_(rows, cols)] for matrix, rows, cols in
            zip(batch.matrices, batch.row_mask, batch.col_mask, strict=True)]


class OutOfTime(Exception):
    """A benchmark's budget is spent."""


def timed_schedule(graph, solve_batch, what: str, tolerance: float = TOLERANCE) -> dict:
    """``solver.markov.stages.sweep``'s schedule on ``graph``, each batch's stage games valued
    by ``solve_batch(batch)``, which may stop the run by raising ``OutOfTime``: the
    batches' stage games solved, the seconds, and the value if it finished."""
    values = graph.payoff.astype(float).copy()
    solved = 0
    start = time.perf_counter()

    def update(states: np.ndarray) -> None:
        nonlocal solved
        for batch in stage_batches(graph, states, values):
            values[batch.states] = solve_batch(batch)
            solved += len(batch.states)

    finished = True
    try:
        sweep(graph.schedule, values, update, tolerance, what=what)
    except OutOfTime:
        finished = False
    return {"seconds": time.perf_counter() - start, "stage_games": solved,
            "finished": finished, "value": float(graph.start @ values) if finished else None}


def linprog_batch(batch) -> list[float]:
    return [linprog_value(matrix) for matrix in stage_matrices(batch)]


def baseline_solve(game, tolerance: float = 1e-10) -> float:
    """The duel's value with one linprog call per stage game (per sweep when cyclic)."""
    graph = build_graph(game, game.initial_outcomes())  # uncached, as solve_game's first call
    return timed_schedule(graph, linprog_batch, "the linprog baseline", tolerance)["value"]


def budgeted_baseline(graph, budget: float) -> dict:
    """The linprog schedule on ``graph``, stopped after ``budget`` seconds: the stage
    games it solved (counted one by one, as a batch may be cut short), its seconds, and
    the value if it finished."""
    solved = 0
    start = time.perf_counter()

    def solve_batch(batch) -> list[float]:
        nonlocal solved
        found = []
        for matrix in stage_matrices(batch):
            found.append(linprog_value(matrix))
            solved += 1
            if time.perf_counter() - start > budget:
                raise OutOfTime
        return found

    return {**timed_schedule(graph, solve_batch, "the linprog baseline"),
            "stage_games": solved}
