"""Stage games of many states at once, and the one driver that orders their solution.

A state's stage game is the matrix of continuation values of its legal joint actions.
States are batched by the numbers of legal actions of both sides, so each batch is a
dense (k, rows, cols) array without padding: a sequential step (one side waits) is a
1 x m game, cheap to store and answered in closed form by the matrix solver.

``sweep`` is the only place that decides the order of solution: the state graph's
strongly connected components in dependency order (``StateGraph.schedule``); a block
without a cycle is solved once, a block with cycles by value iteration (Shapley)
until no value in it moves by more than ``tolerance``. At ``max_sweeps`` without
reaching it, the values are kept, a ``ConvergenceWarning`` is issued and the
returned ``Convergence`` says so; nothing raises and nothing stops silently.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from .graph import StateGraph, ranges

#: value iteration stops when no value moves by more than this in a sweep
TOLERANCE = 1e-10
MAX_SWEEPS = 100_000
#: action lists this short are batched whole, padded with masks: one batch per call
#: beats one per shape there; longer lists (sequential steps with many choices) are
#: batched by shape so that a 1 x m step never costs an m x m array
PADDED_UP_TO = 8


class ConvergenceWarning(UserWarning):
    """Value iteration stopped at its sweep limit before reaching its tolerance."""


@dataclass(frozen=True)
class Convergence:
    """How a game's values were reached: ``sweeps`` counts value-iteration sweeps (0
    when the graph has no cycle), ``residual`` is the largest change of a value in the
    last sweep of any cyclic block."""

    cyclic: bool
    sweeps: int
    residual: float
    tolerance: float
    converged: bool

    def as_dict(self) -> dict:
        return {"cyclic": self.cyclic, "sweeps": self.sweeps, "residual": self.residual,
                "tolerance": self.tolerance, "converged": self.converged}


def sweep(graph: StateGraph, values: np.ndarray, update: Callable[[np.ndarray], None],
          tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS,
          what: str = "the values") -> Convergence:
    """Bring ``values`` to their fixed point: ``update(states)`` writes new values of
    ``states`` into ``values`` from the values of their successors."""
    sweeps, residual, converged = 0, 0.0, True
    for states, cyclic in graph.schedule:
        if not cyclic:
            update(states)
            continue
        change = np.inf
        for _ in range(max_sweeps):
            before = values[states].copy()
            update(states)
            sweeps += 1
            change = float(np.max(np.abs(values[states] - before), initial=0.0))
            if change <= tolerance:
                break
        residual = max(residual, change)
        converged = converged and change <= tolerance
    if not converged:
        warnings.warn(f"{what}: value iteration stopped after {max_sweeps} sweeps with "
                      f"values still moving by {residual:.3g} (tolerance {tolerance:g})",
                      ConvergenceWarning, stacklevel=2)
    return Convergence(graph.cyclic, sweeps, residual, tolerance, converged)


@dataclass
class StageBatch:
    """The stage games of ``states``: either all with the same numbers of legal actions
    (dense, every row and column legal) or, for short action lists, padded to the whole
    list with masks (masked entries hold 0)."""

    states: np.ndarray    # (k,)
    matrices: np.ndarray  # (k, rows, cols) continuation values to A
    rows: np.ndarray      # (k, rows) A's action index of each row
    cols: np.ndarray      # (k, cols) B's action index of each column
    row_mask: np.ndarray  # (k, rows) which rows are legal
    col_mask: np.ndarray  # (k, cols)

    def compact(self, full: np.ndarray, player: str) -> np.ndarray:
        """Per-state vectors over the action list (indexed by state), restricted to the
        player's legal actions in this batch's order."""
        index = self.rows if player == "a" else self.cols
        return np.take_along_axis(full[self.states], index, axis=1)

    def expand(self, compact: np.ndarray, player: str, n_actions: int) -> np.ndarray:
        """(k, n_actions) vectors from vectors over the legal actions, 0 elsewhere."""
        index, mask = (self.rows, self.row_mask) if player == "a" else (self.cols,
                                                                          self.col_mask)
        full = np.zeros((len(self.states), n_actions))
        np.put_along_axis(full, index, np.where(mask, compact, 0.0), axis=1)
        return full


def stage_batches(graph: StateGraph, states: np.ndarray,
                  values: np.ndarray) -> Iterator[StageBatch]:
    """The stage games of ``states`` under ``values``, batch by batch."""
    states = np.asarray(states, dtype=np.int64)
    if not len(states):
        return
    continuation = np.zeros(graph.transitions.shape[0])
    pairs = graph.pairs_of(states)
    continuation[pairs] = expected_next(graph, pairs, values)
    if graph.mask_a.shape[1] <= PADDED_UP_TO:
        yield _padded(graph, states, continuation)
        return
    count_a = graph.mask_a[states].sum(axis=1)
    count_b = graph.mask_b[states].sum(axis=1)
    shapes = count_a * (graph.mask_b.shape[1] + 1) + count_b
    for shape in np.unique(shapes):
        members = states[shapes == shape]
        yield _batch(graph, members, int(count_a[shapes == shape][0]),
                     int(count_b[shapes == shape][0]), continuation)


def expected_next(graph: StateGraph, pairs: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The expected value of the next state of each joint action in ``pairs``: the rows
    of the transition matrix gathered by hand, which beats building a sliced matrix."""
    matrix = graph.transitions
    entries = ranges(matrix.indptr, pairs)
    terms = matrix.data[entries] * values[matrix.indices[entries]]
    counts = np.diff(matrix.indptr)[pairs]  # every joint action has at least one outcome
    return np.add.reduceat(terms, np.cumsum(counts) - counts) if len(pairs) else terms


def _padded(graph: StateGraph, states: np.ndarray, continuation: np.ndarray) -> StageBatch:
    k, n = len(states), graph.mask_a.shape[1]
    position = np.empty(graph.size, dtype=np.int64)
    position[states] = np.arange(k)
    pairs = graph.pairs_of(states)
    matrices = np.zeros((k, n, n))
    matrices[position[graph.pair_state[pairs]], graph.pair_a[pairs], graph.pair_b[pairs]] = (
        continuation[pairs])
    every = np.broadcast_to(np.arange(n), (k, n))
    return StageBatch(states, matrices, every, every, graph.mask_a[states],
                      graph.mask_b[states])


def _batch(graph: StateGraph, members: np.ndarray, rows: int, cols: int,
           continuation: np.ndarray) -> StageBatch:
    k = len(members)
    row_actions = np.nonzero(graph.mask_a[members])[1].reshape(k, rows)
    col_actions = np.nonzero(graph.mask_b[members])[1].reshape(k, cols)
    pairs = graph.pairs_of(members)
    owner = np.repeat(np.arange(k), np.diff(graph.pair_slices)[members])
    rank_a = np.cumsum(graph.mask_a[members], axis=1) - 1
    rank_b = np.cumsum(graph.mask_b[members], axis=1) - 1
    matrices = np.full((k, rows, cols), np.nan)
    matrices[owner, rank_a[owner, graph.pair_a[pairs]],
             rank_b[owner, graph.pair_b[pairs]]] = continuation[pairs]
    return StageBatch(members, matrices, row_actions, col_actions,
                      np.ones((k, rows), dtype=bool), np.ones((k, cols), dtype=bool))
