"""The sums over the steps that lower a counter (``solver.counters``), as compiled loops.

A kernel is one distribution over moves (decrement vectors) into one landing core: its
entries are (move, probability), and a layer's point i under move m lands on column
``columns[m, i]`` of the landing core's row (``Grid.column``). Where the live points
lo..hi of a run r of the layer (its points of one sum: ``run_of``) land on
consecutive columns from ``start[m, r] + lo`` (always with one or two counters) they
are read or written as one slice; a move's other live points (``apart[m]``) one by
one. The points a move depletes a counter from are not visited
entry by entry: the kernel's chance of depleting counter c from a point where it holds
h = ``values[c, i]`` is ``tails[at[k, c] + h - 1]`` where h <= ``reach[k, c]``, none
beyond (``Landings.tails``), and that counter's column is ``depleted + c`` (its
payoff in every row of the values).

The kernels come sorted by landing core and cut into ``batches`` of whole landing cores
(about equal numbers of entries): a batch's kernels read or write the rows of its own
landing cores only, so the batches run in parallel without conflicting writes, and the
rows stay in cache while their kernels go by. Each kernel sums its entries in order,
whatever the threads, so the results do not depend on how many there are.

Besides: the chance of playing each joint action in the forward push (``play``) and
under a pair of mixes (``joint``), a policy's payoffs summed per core
(``weighted_sums``), the mixes written where the solution keeps them
(``write_mixes``), the kernels' chances of depleting a counter from each value
(``from_the_top``), and how far a pair of mixes is from best replies at each stage
(``reply_gaps``).

Indices are cast to unsigned where the compiler cannot see they are not negative: a
signed index is checked for wrapping around, which keeps the loops from being
vectorised.
"""

from __future__ import annotations

import numba
import numpy as np

#: the kernels are cut into this many batches (a fixed number: the sums of the depleted
#: columns, added batch by batch, are then the same on any machine)
BATCHES = 64

_U = np.uint64


def batches(landing: np.ndarray, bounds: np.ndarray, count: int = BATCHES) -> np.ndarray:
    """Cuts (at most ``count`` + 1, from 0 to the number of kernels) between kernels of
    different landing cores (``landing``, ascending) such that the batches hold about
    the same number of entries (``bounds``: where each kernel's entries start)."""
    edges = np.concatenate([[0], np.flatnonzero(np.diff(landing)) + 1, [len(landing)]])
    wanted = np.linspace(0, bounds[-1], count + 1)
    return np.unique(edges[np.searchsorted(bounds[edges], wanted)]).astype(np.int64)


@numba.njit(parallel=True, cache=True)
def read_back(landed, landing, bounds, move, prob, tails, reach, at, cuts, columns, start,
              lo, hi, apart, run_of, values, depleted):
    """(kernels, points): each kernel's entries summed at a layer's points, the
    probability times the landing core's value (``landed``: a row per landing core)
    where the move takes the point."""
    (counters, width), runs = values.shape, lo.shape[1]
    out = np.zeros((len(landing), width))
    for batch in numba.prange(len(cuts) - 1):
        for k in range(cuts[batch], cuts[batch + 1]):
            row = landing[k]
            for e in range(bounds[k], bounds[k + 1]):
                m, p = move[e], prob[e]
                for r in range(runs):
                    first = lo[m, r]
                    shift = start[m, r] + first
                    for i in range(hi[m, r] - first):
                        out[k, _U(first + i)] += p * landed[row, _U(shift + i)]
                if apart[m]:
                    for i in range(width):
                        column, r = columns[m, i], run_of[i]
                        if column < depleted and not lo[m, r] <= i < hi[m, r]:
                            out[k, i] += p * landed[row, _U(column)]
            for c in range(counters):
                payoff, most, first = landed[row, _U(depleted + c)], reach[k, c], at[k, c] - 1
                for i in range(width):
                    if values[c, i] <= most:
                        out[k, i] += payoff * tails[_U(first + values[c, i])]
    return out


@numba.njit(parallel=True, cache=True)
def push_forward(summed, arriving, landing, bounds, move, prob, tails, reach, at, cuts,
                 columns, start, lo, hi, apart, run_of, values, depleted):
    """Add to ``arriving`` (a row per landing core) each kernel's chance at a layer's
    points (``summed``, kernels by points) times each entry's probability, where the
    move takes the point. The chance of depleting each counter is returned instead, by
    batch (batches, counters): every landing core shares those columns."""
    (counters, width), runs = values.shape, lo.shape[1]
    lost = np.zeros((len(cuts) - 1, counters, width))
    for batch in numba.prange(len(cuts) - 1):
        for k in range(cuts[batch], cuts[batch + 1]):
            row = landing[k]
            for e in range(bounds[k], bounds[k + 1]):
                m, p = move[e], prob[e]
                for r in range(runs):
                    first = lo[m, r]
                    shift = start[m, r] + first
                    for i in range(hi[m, r] - first):
                        arriving[row, _U(shift + i)] += p * summed[k, _U(first + i)]
                if apart[m]:
                    for i in range(width):
                        column, r = columns[m, i], run_of[i]
                        if column < depleted and not lo[m, r] <= i < hi[m, r]:
                            arriving[row, _U(column)] += p * summed[k, i]
            for c in range(counters):
                most, first = reach[k, c], at[k, c] - 1
                for i in range(width):
                    if values[c, i] <= most:
                        lost[batch, c, i] += summed[k, i] * tails[_U(first + values[c, i])]
    return lost.sum(axis=2)


def play(mass, owner, pairs, slot_a, slot_b, mix_a, mix_b, out) -> None:
    """The chance of playing each of a part's joint actions at a layer's points, into
    row ``pairs[r]`` of ``out``: its core's chance (``mass``, row ``owner[r]``) times
    both players' mixes (rows ``slot_a[r]``, ``slot_b[r]`` of ``mix_a``, ``mix_b``;
    slot -1 is their last row, ones). In parallel only when large: a parallel region
    waits for its slowest thread (long on a busy machine)."""
    run = _play_in_parallel if len(pairs) * out.shape[1] >= PARALLEL_TERMS else _play
    run(mass, owner, pairs, slot_a, slot_b, mix_a, mix_b, out)


@numba.njit(cache=True)
def _play_pair(r, mass, owner, pairs, slot_a, slot_b, mix_a, mix_b, out):
    row, core, a, b = pairs[r], owner[r], slot_a[r], slot_b[r]
    for i in range(out.shape[1]):
        out[row, i] = mass[core, i] * (mix_a[a, i] * mix_b[b, i])


@numba.njit(cache=True)
def _play(mass, owner, pairs, slot_a, slot_b, mix_a, mix_b, out):
    for r in range(len(pairs)):
        _play_pair(r, mass, owner, pairs, slot_a, slot_b, mix_a, mix_b, out)


@numba.njit(parallel=True, cache=True)
def _play_in_parallel(mass, owner, pairs, slot_a, slot_b, mix_a, mix_b, out):
    for r in numba.prange(len(pairs)):
        _play_pair(r, mass, owner, pairs, slot_a, slot_b, mix_a, mix_b, out)


@numba.njit(cache=True)
def joint(weight, pairs, row, col) -> None:
    """Into row ``pairs[g, i, j]`` of ``weight`` (pairs, points): the chance that game
    g's players play i and j, from their mixes ``row`` (k, points, rows) and ``col``
    (k, points, cols)."""
    k, rows, cols = pairs.shape
    for g in range(k):
        for i in range(rows):
            for j in range(cols):
                into = pairs[g, i, j]
                for point in range(weight.shape[1]):
                    weight[into, point] = row[g, point, i] * col[g, point, j]


def weighted_sums(weight: np.ndarray, constant: np.ndarray, starts: np.ndarray
                  ) -> np.ndarray:
    """(len(starts), points): ``weight`` times ``constant`` (pairs, points) summed over
    each run of rows from ``starts[c]`` to the next start (the last to the end), row
    after row: ``np.add.reduceat(weight * constant, starts, axis=0)`` (within an ulp:
    numpy adds some columns in pairs) without its product's temporary, which cost a
    level-5 duel 1.3 s over 600 calls."""
    run = (_weighted_sums_in_parallel if weight.size >= PARALLEL_TERMS
           else _weighted_sums)
    out = np.empty((len(starts), weight.shape[1]))
    run(np.ascontiguousarray(weight, dtype=float), np.ascontiguousarray(constant, dtype=float),
        starts, out)
    return out


@numba.njit(cache=True)
def _weighted_run(c, weight, constant, starts, out):
    first = starts[c]
    last = starts[c + 1] if c + 1 < len(starts) else weight.shape[0]
    for i in range(weight.shape[1]):
        out[c, i] = weight[first, i] * constant[first, i]
    for p in range(first + 1, last):
        for i in range(weight.shape[1]):
            out[c, i] += weight[p, i] * constant[p, i]


@numba.njit(cache=True)
def _weighted_sums(weight, constant, starts, out):
    for c in range(len(starts)):
        _weighted_run(c, weight, constant, starts, out)


@numba.njit(parallel=True, cache=True)
def _weighted_sums_in_parallel(weight, constant, starts, out):
    for c in numba.prange(len(starts)):
        _weighted_run(c, weight, constant, starts, out)


@numba.njit(cache=True)
def write_mixes(mixes, place, points, mix) -> None:
    """Each game g's mix ``mix[g, i]`` (k, points, actions) at row ``points[i]`` of
    ``mixes``, action a in column ``place[g, a]``."""
    k, width, actions = mix.shape
    for i in range(width):          # a point's row at a time: its slots lie together
        for g in range(k):
            for a in range(actions):
                mixes[points[i], place[g, a]] = mix[g, i, a]


@numba.njit(cache=True)
def from_the_top(chances, at, reach):
    """Each segment ``at[j]`` .. ``at[j] + reach[j]`` of ``chances`` summed from each
    place to the segment's end, in place (the chance of h or more from that of each h)."""
    for j in range(len(at)):
        for h in range(reach[j] - 2, -1, -1):
            chances[at[j] + h] += chances[at[j] + h + 1]


#: products with fewer terms (entries times columns) run in one thread
PARALLEL_TERMS = 1 << 18
#: the rows one thread sums at a time, into one accumulator
ROWS_AT_ONCE = 256


def times(matrix, dense: np.ndarray, out: np.ndarray | None = None,
          rows: np.ndarray | None = None, add: bool = True) -> np.ndarray:
    """``matrix @ dense`` for a CSR ``matrix`` and a dense (rows, points) array, or
    into ``out`` (its rows ``rows``, distinct; all of them unless given), added to what
    they hold unless ``add`` is false; rows in parallel when the product is large
    (scipy's runs in one thread), each row's terms added in the order scipy adds them.
    ``out`` may be ``dense`` itself when no written row is read."""
    dense = np.ascontiguousarray(dense, dtype=float)
    fresh = out is None or not add
    if out is None:
        out = np.empty((matrix.shape[0], dense.shape[1]))
    rows = np.arange(matrix.shape[0]) if rows is None else rows
    run = _rows_in_parallel if matrix.nnz * dense.shape[1] >= PARALLEL_TERMS else _rows
    run(matrix.indptr, matrix.indices, matrix.data, dense, out, rows, fresh)
    return out


@numba.njit(cache=True)
def _row_run(first, last, indptr, indices, data, dense, out, rows, fresh, total):
    """Rows ``first`` .. ``last``, each summed in ``total`` (its start: 0, or what its
    row of ``out`` holds), then written. A row of ``out`` may be ``dense`` itself, so
    summed there it was stored and read again at every entry; ``total`` is known apart
    from both. The terms are added in the same order."""
    width = dense.shape[1]
    for r in range(first, last):
        into = _U(rows[r])
        for i in range(width):
            total[i] = 0.0 if fresh else out[into, _U(i)]
        for e in range(indptr[r], indptr[r + 1]):
            j, p = _U(indices[e]), data[e]
            for i in range(width):
                total[_U(i)] += p * dense[j, _U(i)]
        for i in range(width):
            out[into, _U(i)] = total[i]


@numba.njit(parallel=True, cache=True)
def _rows_in_parallel(indptr, indices, data, dense, out, rows, fresh):
    count = len(indptr) - 1
    for run in numba.prange((count + ROWS_AT_ONCE - 1) // ROWS_AT_ONCE):
        _row_run(run * ROWS_AT_ONCE, min(count, (run + 1) * ROWS_AT_ONCE), indptr, indices,
                 data, dense, out, rows, fresh, np.empty(dense.shape[1]))


@numba.njit(cache=True)
def _rows(indptr, indices, data, dense, out, rows, fresh):
    _row_run(0, len(indptr) - 1, indptr, indices, data, dense, out, rows, fresh,
             np.empty(dense.shape[1]))


#: the points of one stage game's gaps (``reply_gaps``) a thread takes at a time
GAP_POINTS = 256


def reply_gaps(games: np.ndarray, row: np.ndarray, col: np.ndarray,
               value: np.ndarray) -> np.ndarray:
    """(4, k, points) at each of a group's stage games (k, rows, cols, points) under the
    mixes ``row`` and ``col`` (k, points, actions) worth ``value`` (k, points): how much
    A's best action pays beyond the worst his mix plays, how much B's worst (for A) pays
    below the best B's mix plays, the farther of the mixes' sums from 1, and the mixes'
    expected payoff less the value. NaN where a payoff is (``solver.counters.gaps``).
    In parallel only when large (a Blooded duel settles thousands of small groups)."""
    games = np.ascontiguousarray(games, dtype=float)
    out = np.empty((4, games.shape[0], games.shape[3]))
    run = _reply_gaps_in_parallel if games.size >= PARALLEL_TERMS else _reply_gaps
    run(games, np.ascontiguousarray(row, dtype=float), np.ascontiguousarray(col, dtype=float),
        np.ascontiguousarray(value, dtype=float), out)
    return out


@numba.njit(cache=True)
def _gap_tasks(games) -> int:
    """The tasks of ``reply_gaps``: each of a group's games, ``GAP_POINTS`` points at a
    time."""
    return games.shape[0] * ((games.shape[3] + GAP_POINTS - 1) // GAP_POINTS)


@numba.njit(cache=True)
def _reply_gaps(games, row, col, value, out):
    for task in range(_gap_tasks(games)):
        _gap_task(task, games, row, col, value, out)


@numba.njit(parallel=True, cache=True)
def _reply_gaps_in_parallel(games, row, col, value, out):
    for task in numba.prange(_gap_tasks(games)):
        _gap_task(task, games, row, col, value, out)


@numba.njit(cache=True)
def _gap_task(task, games, row, col, value, out):
    """One game's gaps at ``GAP_POINTS`` of its points."""
    _, rows, cols, width = games.shape
    chunks = (width + GAP_POINTS - 1) // GAP_POINTS
    g, first = task // chunks, (task % chunks) * GAP_POINTS
    last = min(width, first + GAP_POINTS)
    paid_a = np.zeros((rows, last - first))      # each of A's actions against B's mix
    paid_b = np.zeros((cols, last - first))      # each of B's against A's
    for i in range(rows):
        for j in range(cols):
            for p in range(first, last):
                payoff = games[g, i, j, p]
                paid_a[i, p - first] += payoff * col[g, p, j]
                paid_b[j, p - first] += row[g, p, i] * payoff
    for p in range(first, last):
        _gaps_at(g, p, paid_a[:, p - first], paid_b[:, p - first], row[g, p], col[g, p],
                 value[g, p], out)


@numba.njit(cache=True)
def _gaps_at(g, p, paid_a, paid_b, row, col, value, out):
    """One point's four gaps (``reply_gaps``); B's spread is A's on his payoffs negated
    (his own)."""
    expected = 0.0
    for i in range(len(paid_a)):
        expected += row[i] * paid_a[i]
    out[0, g, p] = _spread(paid_a, row)
    out[1, g, p] = _spread(-paid_b, col)
    off_a, off_b = abs(row.sum() - 1.0), abs(col.sum() - 1.0)
    out[2, g, p] = off_a if off_a > off_b or off_a != off_a else off_b
    out[3, g, p] = expected - value


@numba.njit(cache=True)
def _spread(paid, mix):
    """How much the best action pays beyond the worst one ``mix`` plays; NaN if any
    payoff is, as numpy's max and min say."""
    best, worst_played = -np.inf, np.inf
    for i in range(len(paid)):
        if paid[i] != paid[i]:
            return np.nan
        best = max(best, paid[i])
        if mix[i] > 0:
            worst_played = min(worst_played, paid[i])
    return best - worst_played
