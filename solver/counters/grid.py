"""The grid of a counter game's counter values (``Grid``: points, layers, the columns of
a solution's tables), the steps that lower the counters by one decrement vector
(``Move``) and the windows through which a layer's steps read earlier layers
(``Windows``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Move:
    """One decrement vector of the steps that lower a counter (its transitions, pairs by
    cores: ``CoreGraph.move_matrices``)."""

    decrement: np.ndarray


#: a layer holds several sums of the counters when no step lowers the sum by less, up
#: to this many points: fewer, wider layers spread each layer's fixed cost, and the
#: arrays of a layer (pairs by points) stay within a few hundred MB
LAYER_POINTS = 256
#: the layers read back together (``Grid.reads``) hold at most this many points: the
#: sums' arrays (kernels by points) then stay under about a GB
READ_POINTS = 2048


@dataclass
class Grid:
    """Counter values 1..top[k] for every counter, flattened; ``layers`` the points
    in increasing order of their sum, cut where the sum has grown by ``band`` (no step
    lowers the sum by less: a layer depends only on earlier layers and on itself) or
    the layer has reached LAYER_POINTS; within a layer the points of one sum (a
    run) are consecutive. Index ``size + k`` stands for "counter k depleted".
    ``reads``: runs of layers whose steps that lower a counter are summed in one pass
    (their sums span less than ``band``, so none reads another's values; at most
    READ_POINTS points): each earlier value is then read once for all of them."""

    top: tuple[int, ...]
    band: int = 1

    def __post_init__(self):
        axes = np.indices(self.top).reshape(len(self.top), -1).T + 1
        order = np.argsort(axes.sum(axis=1), kind="stable")
        sums = axes[order].sum(axis=1)
        edges = np.concatenate([[0], np.flatnonzero(np.diff(sums)) + 1, [len(sums)]])
        self.points = axes            # (size, k) counter values of each flat index
        runs = sums[edges[:-1]]
        cuts = list(_spans(runs, runs, np.diff(edges), self.band, LAYER_POINTS))
        self.layers = [order[edges[first]:edges[last]] for first, last in cuts]
        low = [sums[edges[first]] for first, _ in cuts]
        high = [sums[edges[last] - 1] for _, last in cuts]
        self.reads = list(_spans(low, high, [len(points) for points in self.layers],
                                 self.band, READ_POINTS))
        self.floor = np.empty(self.size, dtype=np.int64)  # the least sum of each layer
        for points in self.layers:
            self.floor[points] = axes[points[0]].sum()
        # a solution's tables hold a core's values by point in one row: the layers one
        # after the other (each in the order above), then each counter depleted (``size
        # + k``); ``column`` is each point's place there. With one or two counters a move
        # takes a run's live points (those it depletes no counter of) to consecutive
        # points of an earlier run: one run of columns, a window
        self.columns = self.size + len(self.top)
        self.column = np.empty(self.size + len(self.top), dtype=np.int64)
        self.column[order] = np.arange(self.size)
        self.column[self.size:] = self.size + np.arange(len(self.top))

    @property
    def size(self) -> int:
        return len(self.points)

    def flat(self, counters) -> int:
        counters = tuple(int(c) for c in counters)
        if len(counters) != len(self.top) or any(not 1 <= c <= t for c, t in
                                                  zip(counters, self.top, strict=True)):
            raise KeyError(f"counters {counters} outside 1..{self.top}")
        return int(np.ravel_multi_index(tuple(c - 1 for c in counters), self.top))

    def together(self, first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
        """The points of layers ``first`` .. ``last`` - 1 one after the other (their
        columns are consecutive), and where each layer starts among them."""
        layers = self.layers[first:last]
        return np.concatenate(layers), np.cumsum([0] + [len(p) for p in layers[:-1]])

    def span(self, layer: np.ndarray) -> slice:
        """The columns of a layer's points (consecutive: a slice reads them in place)."""
        first = int(self.column[layer[0]])
        return slice(first, first + len(layer))

    def lowered(self, points: np.ndarray, drops: int = 1) -> np.ndarray:
        """Flat index of each point lowered on its largest counter to the sum just
        below its layer's (solved at an earlier layer: where a layer's first guesses
        come from), or by ``drops`` times that much; -1 where that counter does not
        reach so far."""
        values = self.points[points]
        drop = drops * (values.sum(axis=1) - self.floor[points] + 1)
        after = values - drop[:, None] * (np.arange(values.shape[1]) == values.argmax(
            axis=1)[:, None])
        out = np.full(len(points), -1, dtype=np.int64)
        live = np.all(after >= 1, axis=1)
        out[live] = np.ravel_multi_index(tuple((after[live] - 1).T), self.top)
        return out

    def shifted(self, points: np.ndarray, decrement: np.ndarray) -> np.ndarray:
        """Flat indices of ``points`` lowered by ``decrement`` (or by each of a stack of
        them: then one row per decrement); ``size + k`` where counter k falls to 0 or
        below."""
        after = self.points[points] - np.asarray(decrement)[..., None, :]
        live = np.all(after >= 1, axis=-1)
        flat = np.ravel_multi_index(tuple(np.moveaxis(np.maximum(after, 1) - 1, -1, 0)),
                                    self.top)
        return np.where(live, flat, self.size + np.argmax(after < 1, axis=-1))


def _spans(low: np.ndarray, high: np.ndarray, sizes: np.ndarray, band: int, cap: int):
    """(first, last) runs of consecutive items (each with its least and greatest sum of
    the counters, ``low`` and ``high``, and its number of points) whose sums span less
    than ``band`` and which hold at most ``cap`` points together, unless one item alone
    holds more: the runs of a layer, or the layers read together."""
    first, count = 0, 0
    for item, size in enumerate(sizes):
        count += size
        if item > first and (high[item] - low[first] >= band or count > cap):
            yield first, item
            first, count = item, size
    if len(sizes):
        yield first, len(sizes)


@dataclass
class Windows:
    """A layer's moves: the column each of its points lands on (moves, points:
    ``Grid.column`` of the targets, a depleted counter's column where one falls to 0);
    where the live targets of a run of the layer (its points of one sum) are one
    window, its points lo..hi landing on columns start + lo..start + hi (moves, runs; always with
    one or two counters; elsewhere lo = hi = 0), and which moves have live targets
    besides (``apart``, read one by one; ``run_of``: each point's run). The depleted
    points are summed per counter, from ``Landings.tails`` at the points' ``values``
    (counters, points)."""

    columns: np.ndarray
    start: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    apart: np.ndarray
    run_of: np.ndarray
    values: np.ndarray

    @classmethod
    def of(cls, grid: Grid, points: np.ndarray, moves: list[Move]) -> Windows:
        """The windows of ``moves`` from the layer ``points``."""
        sums = grid.points[points].sum(axis=1)
        runs = np.concatenate([[0], np.flatnonzero(np.diff(sums)) + 1, [len(points)]])
        targets = move_targets(moves, grid, points)
        columns = grid.column[targets]
        live = targets < grid.size
        windows = [_window(columns[:, lo:hi], live[:, lo:hi], lo)
                   for lo, hi in zip(runs[:-1], runs[1:], strict=True)]
        start, lo, hi, outside = (np.stack(part, axis=1) for part in zip(*windows,
                                                                         strict=True))
        return cls(columns, start, lo, hi, outside.any(axis=1),
                   np.repeat(np.arange(len(runs) - 1), np.diff(runs)),
                   np.ascontiguousarray(grid.points[points].T))

    def sums(self) -> tuple:
        """The windows as ``solver.counters.sums`` takes them."""
        return (self.columns, self.start, self.lo, self.hi, self.apart, self.run_of,
                self.values)


def _window(columns: np.ndarray, live: np.ndarray, offset: int) -> tuple:
    """Each move's window over one run of a layer (its ``columns`` and ``live`` targets,
    moves by the run's points, the run starting at point ``offset``): start, lo, hi as
    ``Windows`` has them, and whether live targets lie outside it."""
    width = columns.shape[1]
    first = np.argmax(live, axis=1)
    last = width - np.argmax(live[:, ::-1], axis=1)
    # the columns of first..last go up by one: no other step in between
    breaks = np.zeros(columns.shape, dtype=np.int64)
    breaks[:, 1:] = np.cumsum(np.diff(columns, axis=1) != 1, axis=1)
    rows = np.arange(len(columns))
    window = live.any(axis=1) & (last - first == live.sum(axis=1)) & (
        breaks[rows, np.maximum(last - 1, 0)] == breaks[rows, first])
    lo, hi = np.where(window, first, 0), np.where(window, last, 0)
    start = np.where(window, columns[rows, first] - first - offset, 0)
    inside = (np.arange(width) >= lo[:, None]) & (np.arange(width) < hi[:, None])
    return (start, np.where(window, lo + offset, 0), np.where(window, hi + offset, 0),
            (live & ~inside).any(axis=1))


def move_targets(moves: list[Move], grid: Grid, points: np.ndarray) -> np.ndarray:
    """(moves, points): the flat point each move leads to from ``points``."""
    if not moves:
        return np.zeros((0, len(points)), dtype=np.int64)
    return grid.shifted(points, np.stack([move.decrement for move in moves]))
