"""Stage games of many states at once, and the one driver that orders their solution.

A state's stage game is the matrix of continuation values of its legal joint actions.
Long action lists are batched by bucket of the numbers of legal actions of both sides
(1, 2, 3-4, 5-8, ...), each game padded with masks to the largest of its batch, so a
sequential step (one side waits) stays a 1 x m game, cheap to store and answered in
closed form by the matrix solver; short action lists are batched whole.

``sweep`` is the only place that decides the order of solution: a schedule of
blocks in dependency order (the state graph's strongly connected components,
``StateGraph.schedule``); a block without a cycle is solved once, a block with cycles
by value iteration (Shapley) until the error of its values is bounded by its share of
``tolerance`` (``BLOCK_SHARE``): the last change times ``rate / (1 - rate)``, the sum
of the geometric tail of changes still to come, with ``rate`` the contraction of a
sweep read from the last changes (``error_bound``). A small change alone is no stop: a
block that leaves its cycle rarely contracts slowly, and its values may still be far
from their fixed point while each sweep moves them little. At ``max_sweeps`` without
reaching it, the values are kept, a ``ConvergenceWarning`` is issued and the returned
``Convergence`` says so; nothing raises and nothing stops silently.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from .graph import StateGraph, ranges

#: value iteration stops when the error of every value is bounded by this
TOLERANCE = 1e-10
#: the share of ``tolerance`` each cyclic block may use: a block's values rest on those
#: of the blocks it leads to, whose errors they carry on (a game's value is an average
#: of what its play reaches), so errors add along a chain of blocks; a hundredth each
#: leaves room for chains of a hundred cyclic blocks
BLOCK_SHARE = 0.01
MAX_SWEEPS = 100_000
#: the contraction of a sweep is the largest ratio of a change to the one before among
#: this many of the last sweeps (early sweeps of a game need not contract evenly)
RATE_WINDOW = 8
#: changes this many times above the ones rounding keeps from shrinking still show the
#: contraction of a block (``_past_the_noise``)
NOISE_MARGIN = 16
#: the changes kept to look back at: a block that takes longer to fall to its noise
#: floor contracts too slowly to be bounded past it
NOISE_HISTORY = 256
#: a change this small, relative to the largest value, is rounding: the values are at
#: their fixed point as far as floating point can tell
ROUNDING = 32 * float(np.finfo(float).eps)
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
    last sweep of any cyclic block, ``error`` a bound on any value's error (the sum of
    the blocks' ``error_bound``: errors add along a chain of blocks); ``converged`` when
    every block came within its share of ``tolerance`` (``BLOCK_SHARE``), or within
    ``tolerance`` where rounding held its changes at a floor."""

    cyclic: bool
    sweeps: int
    residual: float
    tolerance: float
    converged: bool
    error: float = 0.0

    def as_dict(self) -> dict:
        return {"cyclic": self.cyclic, "sweeps": self.sweeps, "residual": self.residual,
                "error": self.error, "tolerance": self.tolerance,
                "converged": self.converged}


#: blocks of states in dependency order, each ``(states, has_cycles)``: a block's values
#: depend only on earlier blocks and on itself (``StateGraph.schedule``, or a counter
#: game's blocks of cores)
Schedule = list[tuple[np.ndarray, bool]]


def sweep(schedule: Schedule, values: np.ndarray, update: Callable[[np.ndarray], None],
          tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS,
          what: str = "the values") -> Convergence:
    """Bring ``values`` to their fixed point, block by block of ``schedule``:
    ``update(states)`` writes new values of ``states`` into ``values`` from the values
    of their successors."""
    sweeps, residual, error, converged = 0, 0.0, 0.0, True
    target = tolerance * BLOCK_SHARE
    for states, cyclic in schedule:
        if not cyclic:
            update(states)
            continue
        history: list[float] = []
        bound, settled = np.inf, False
        for _ in range(max_sweeps):
            before = values[states].copy()
            update(states)
            sweeps += 1
            history.append(float(np.max(np.abs(values[states] - before), initial=0.0)))
            del history[:-NOISE_HISTORY]
            bound, settled = _bound(history, values[states], target)
            if bound <= target or settled:
                break
        residual = max(residual, history[-1] if history else np.inf)
        error += bound
        # a block held at its floor is as close as floating point brings it
        converged = converged and bound <= (tolerance if settled else target)
    if not converged:
        warnings.warn(f"{what}: value iteration stopped after {sweeps} sweeps with "
                      f"values still moving by {residual:.3g} (error up to {error:.3g}, "
                      f"tolerance {tolerance:g})", ConvergenceWarning, stacklevel=2)
    cyclic = any(has_cycles for _, has_cycles in schedule)
    return Convergence(cyclic, sweeps, residual, tolerance, converged, error)


def error_bound(changes: list[float], rounding: float = 0.0) -> float:
    """A bound on how far values are from their fixed point after sweeps that moved them
    by ``changes`` (the last ones, oldest first): the changes still to come form a
    geometric tail of the contraction ``rate`` (the largest ratio of a change to the one
    before), whose sum is ``last * rate / (1 - rate)``. A last change within ``rounding``
    is the fixed point itself; without a contraction seen yet there is no bound."""
    last = changes[-1]
    if last <= rounding:
        return last
    return _tail(last, contraction(changes))


def contraction(changes: list[float]) -> float:
    """The contraction the changes show: the largest ratio of a change to the one
    before (inf before two changes, or where none shrank)."""
    rates = [after / before for before, after in zip(changes, changes[1:], strict=False)
             if before > 0]
    return max(rates, default=np.inf)


def _bound(history: list[float], values: np.ndarray, target: float) -> tuple[float, bool]:
    """The error bound of a block's values after sweeps that changed them by ``history``,
    and whether sweeping on is useless: the changes stopped shrinking at a floor below
    ``target``, where the stage games' own rounding (an LP's last digits, over a large
    block) holds them, so that more sweeps cannot lower the bound."""
    changes = history[-RATE_WINDOW - 1:]
    scale = max(1.0, float(np.max(np.abs(values), initial=0.0)))
    bound = error_bound(changes, ROUNDING * scale)
    if bound < np.inf:
        return bound, False
    floor = max(changes)
    return _past_the_noise(history, floor), floor <= target


def _past_the_noise(history: list[float], floor: float) -> float:
    """The error bound where the changes no longer shrink because rounding keeps them at
    ``floor``: the block contracts as the changes well above that floor showed, and its
    tail from the floor bounds the error. A block whose changes never rose above their
    floor began at its fixed point as far as floating point can tell."""
    clear = [change for change in history if change > NOISE_MARGIN * floor][-RATE_WINDOW - 1:]
    if not clear:
        return floor
    if len(clear) < 2 or clear[-1] >= clear[0]:
        return np.inf
    # their mean ratio: the noise, a sixteenth of them at most, blurs each ratio
    return _tail(floor, (clear[-1] / clear[0]) ** (1 / (len(clear) - 1)))


def _tail(last: float, rate: float) -> float:
    """What is still to come after a change ``last`` contracting by ``rate``."""
    return last * rate / (1 - rate) if rate < 1 else np.inf


@dataclass
class StageBatch:
    """The stage games of ``states``, padded with masks (masked entries hold 0): to the
    largest numbers of legal actions of the batch, or for short action lists to the
    whole list. ``rows`` / ``cols`` give the action of each row / column, distinct
    within a game (padding uses illegal actions)."""

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
    stages = _Stages(graph, states, values)
    if graph.mask_a.shape[1] <= PADDED_UP_TO:
        yield _padded(stages, np.arange(len(states)))
        return
    count_a = graph.mask_a[states].sum(axis=1)
    count_b = graph.mask_b[states].sum(axis=1)
    buckets = _bucket(count_a) * 64 + _bucket(count_b)
    for bucket in np.unique(buckets):
        which = np.flatnonzero(buckets == bucket)
        yield _batch(stages, which, int(count_a[which].max()), int(count_b[which].max()))


def _bucket(counts: np.ndarray) -> np.ndarray:
    """Stage games are padded up to the largest in their bucket (numbers of legal
    actions 1, 2, 3-4, 5-8, ... for each side): a few batches per call instead of one
    per shape, at most four times the entries, and a sequential step (one side has one
    action) stays a 1 x m game."""
    return np.ceil(np.log2(counts)).astype(np.int64)


class _Stages:
    """The joint actions of ``states`` with their continuation values (``pairs`` and
    ``continuation`` aligned), and where each state's pairs lie among them."""

    def __init__(self, graph: StateGraph, states: np.ndarray, values: np.ndarray):
        self.graph, self.states = graph, states
        self.pairs = graph.pairs_of(states)
        self.continuation = expected_next(graph, self.pairs, values)
        self.counts = graph.pair_slices[states + 1] - graph.pair_slices[states]
        self.bounds = np.concatenate([[0], np.cumsum(self.counts)])

    def of(self, which: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For the states at positions ``which``: each pair's owner (0..len(which)-1),
        the pairs and their continuation values."""
        positions = ranges(self.bounds, which)
        owner = np.repeat(np.arange(len(which)), self.counts[which])
        return owner, self.pairs[positions], self.continuation[positions]


def expected_next(graph: StateGraph, pairs: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The expected value of the next state of each joint action in ``pairs``: the rows
    of the transition matrix gathered by hand, which beats building a sliced matrix."""
    matrix = graph.transitions
    entries = ranges(matrix.indptr, pairs)
    terms = matrix.data[entries] * values[matrix.indices[entries]]
    # every joint action has at least one outcome
    counts = matrix.indptr[pairs + 1] - matrix.indptr[pairs]
    return np.add.reduceat(terms, np.cumsum(counts) - counts) if len(pairs) else terms


def _padded(stages: _Stages, which: np.ndarray) -> StageBatch:
    graph, members = stages.graph, stages.states[which]
    k, n = len(members), graph.mask_a.shape[1]
    owner, pairs, continuation = stages.of(which)
    matrices = np.zeros((k, n, n))
    matrices[owner, graph.pair_a[pairs], graph.pair_b[pairs]] = continuation
    every = np.broadcast_to(np.arange(n), (k, n))
    return StageBatch(members, matrices, every, every, graph.mask_a[members],
                      graph.mask_b[members])


def _batch(stages: _Stages, which: np.ndarray, rows: int, cols: int) -> StageBatch:
    """Stage games with at most ``rows`` x ``cols`` legal actions: row r of a state's
    game is A's r-th legal action (masked beyond their count; the padding uses illegal
    actions, so each row and column names a distinct action), and so on."""
    graph, members = stages.graph, stages.states[which]
    order_a, order_b, rank_a, rank_b = graph.ranked
    row_actions = order_a[members, :rows].astype(np.int64)
    col_actions = order_b[members, :cols].astype(np.int64)
    owner, pairs, continuation = stages.of(which)
    matrices = np.zeros((len(members), rows, cols))
    matrices[owner, rank_a[pairs], rank_b[pairs]] = continuation
    return StageBatch(members, matrices, row_actions, col_actions,
                      np.take_along_axis(graph.mask_a[members], row_actions, axis=1),
                      np.take_along_axis(graph.mask_b[members], col_actions, axis=1))
