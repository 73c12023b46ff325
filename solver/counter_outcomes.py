"""The outcomes of a counter game's cores sorted into the solver's arrays
(``solver.counters``: the zero-decrement matrix, one matrix per move, the distinct
distributions of the lowering steps), as compiled loops: each pass reads the outcomes
once, where numpy would sort all of them (millions) or build temporaries as large.

The outcomes come pair by pair (``bounds``: where each pair's outcomes start). A step
lowers at most one counter: counter c lowered by h has the key (counters - 1 - c) *
span + h, so the keys sort as the decrement vectors do (lexicographically, as
``np.unique`` of the vectors' flat indices would).

A kernel (``solver.counters._Landings``) is one distinct distribution into one landing
core; the runs of one pair's outcomes into one core are hashed and checked entry by
entry against the candidates with the same hash, and the kernels come in the order
``np.unique`` of the runs as byte rows (landing core, size, moves, probabilities'
bits: little-endian words compared byte by byte) gave them, landing core first.
"""

from __future__ import annotations

import numba
import numpy as np

_U = np.uint64
#: every bit of the hashes (a test keeps fewer, to force collisions)
ALL_BITS = _U(0xFFFFFFFFFFFFFFFF)


@numba.njit(cache=True)
def keys(decrements, span):
    """Each outcome's move key (-1 where no counter falls), and the first outcome that
    raises a counter or lowers two (-1 if none)."""
    count, counters = decrements.shape
    out = np.full(count, -1, np.int64)
    wrong = -1
    for e in range(count):
        for c in range(counters):
            d = decrements[e, c]
            if (d < 0 or (d > 0 and out[e] >= 0)) and wrong < 0:
                wrong = e
            if d > 0:
                out[e] = (counters - 1 - c) * span + d
    return out, wrong


@numba.njit(cache=True)
def split(counts, key, targets, probs):
    """The outcomes that change no counter and those that lower one, apart, each pair
    by pair: (bounds, targets, probabilities) of the first, and of the others besides
    their keys."""
    pairs = len(counts)
    bounds = np.zeros((2, pairs + 1), np.int64)
    e = 0
    for p in range(pairs):
        for _ in range(counts[p]):
            bounds[int(key[e] >= 0), p + 1] += 1
            e += 1
    for side in range(2):
        bounds[side] = np.cumsum(bounds[side])
    still_t, still_p = np.empty(bounds[0, -1], np.int64), np.empty(bounds[0, -1])
    low_t, low_p = np.empty(bounds[1, -1], np.int64), np.empty(bounds[1, -1])
    low_k = np.empty(bounds[1, -1], np.int64)
    fill = np.zeros(2, np.int64)
    for e in range(len(key)):
        if key[e] < 0:
            still_t[fill[0]], still_p[fill[0]] = targets[e], probs[e]
            fill[0] += 1
        else:
            low_t[fill[1]], low_p[fill[1]], low_k[fill[1]] = targets[e], probs[e], key[e]
            fill[1] += 1
    return (bounds[0], still_t, still_p), (bounds[1], low_t, low_p, low_k)


@numba.njit(cache=True)
def sort_pairs(bounds, landing, move, prob, moves):
    """Sorts each pair's outcomes by landing core, then move (stably), in place; most
    pairs come sorted, or nearly (runs of one landing core each)."""
    for p in range(len(bounds) - 1):
        lo, hi = bounds[p], bounds[p + 1]
        key = landing[lo:hi] * moves + move[lo:hi]
        if np.all(key[1:] >= key[:-1]):
            continue
        order = lo + np.argsort(key, kind="mergesort")
        landing[lo:hi], move[lo:hi], prob[lo:hi] = landing[order], move[order], prob[order]


@numba.njit(cache=True)
def runs(bounds, landing):
    """Where each run of one pair's outcomes into one landing core starts (then the
    end), and where each pair's runs start (pairs + 1)."""
    pairs = len(bounds) - 1
    per_pair = np.zeros(pairs + 1, np.int64)
    for p in range(pairs):
        for e in range(bounds[p], bounds[p + 1]):
            if e == bounds[p] or landing[e] != landing[e - 1]:
                per_pair[p + 1] += 1
    per_pair = np.cumsum(per_pair)
    starts = np.empty(per_pair[-1] + 1, np.int64)
    starts[-1] = bounds[-1]
    r = 0
    for p in range(pairs):
        for e in range(bounds[p], bounds[p + 1]):
            if e == bounds[p] or landing[e] != landing[e - 1]:
                starts[r] = e
                r += 1
    return starts, per_pair


@numba.njit(inline="always")
def _mix(h, x):
    """splitmix64's finaliser of h + x times an odd constant: every bit of x and h moves
    about half the bits."""
    z = h + x * _U(0x9E3779B97F4A7C15)
    z = (z ^ (z >> _U(30))) * _U(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U(27))) * _U(0x94D049BB133111EB)
    return z ^ (z >> _U(31))


@numba.njit(cache=True)
def _hashes(starts, landing, move, bits, mask):
    out = np.empty(len(starts) - 1, np.uint64)
    for r in range(len(out)):
        lo, hi = starts[r], starts[r + 1]
        h = _mix(_mix(_U(0), _U(landing[lo])), _U(hi - lo))
        for e in range(lo, hi):
            h = _mix(_mix(h, _U(move[e])), bits[e])
        out[r] = h & mask
    return out


@numba.njit(inline="always")
def _same(a, b, starts, landing, move, bits):
    lo, other, size = starts[a], starts[b], starts[a + 1] - starts[a]
    if starts[b + 1] - other != size or landing[lo] != landing[other]:
        return False
    for i in range(size):
        if move[lo + i] != move[other + i] or bits[lo + i] != bits[other + i]:
            return False
    return True


@numba.njit(cache=True)
def distinct(starts, landing, move, bits, mask=ALL_BITS):
    """The kernel of each run (runs equal entry by entry share one, numbered by first
    occurrence) and each kernel's first run: an open-addressing table of the runs'
    hashes (``mask`` of their bits), equal hashes checked entry by entry."""
    count = len(starts) - 1
    hashes = _hashes(starts, landing, move, bits, mask)
    size = 1
    while size < 2 * count:
        size *= 2
    table = np.full(size, -1, np.int64)
    kernel, first = np.empty(count, np.int64), np.empty(count, np.int64)
    kernels = 0
    for r in range(count):
        slot = hashes[r] & _U(size - 1)
        while True:
            k = table[slot]
            if k < 0:
                table[slot], first[kernels], kernel[r] = kernels, r, kernels
                kernels += 1
                break
            if hashes[first[k]] == hashes[r] and _same(first[k], r, starts, landing, move,
                                                       bits):
                kernel[r] = k
                break
            slot = (slot + _U(1)) & _U(size - 1)
    return kernel, first[:kernels]


@numba.njit(inline="always")
def _swapped(x):
    """The word whose unsigned order is the byte order of x's little-endian bytes."""
    x = _U(x)
    out = _U(0)
    for _ in range(8):
        out = (out << _U(8)) | (x & _U(0xFF))
        x >>= _U(8)
    return out


@numba.njit(inline="always")
def _before(a, b, starts, landing, move, bits):
    """Whether run a's row comes before run b's: the landing core, then the bytes of
    the size, the moves and the probabilities' bits."""
    lo, other = starts[a], starts[b]
    if landing[lo] != landing[other]:
        return landing[lo] < landing[other]
    size, size_b = starts[a + 1] - lo, starts[b + 1] - other
    if size != size_b:
        return _swapped(size) < _swapped(size_b)
    for i in range(size):
        if move[lo + i] != move[other + i]:
            return _swapped(move[lo + i]) < _swapped(move[other + i])
    for i in range(size):
        if bits[lo + i] != bits[other + i]:
            return _swapped(bits[lo + i]) < _swapped(bits[other + i])
    return False


@numba.njit(cache=True)
def ordered(first, starts, landing, move, bits):
    """The kernels (positions in ``first``, their first runs) sorted by their rows (see
    ``_before``): a bottom-up merge sort."""
    count = len(first)
    order, spare = np.arange(count), np.empty(count, np.int64)
    width = 1
    while width < count:
        for lo in range(0, count, 2 * width):
            mid, hi = min(lo + width, count), min(lo + 2 * width, count)
            i, j = lo, mid
            for k in range(lo, hi):
                if j < hi and (i >= mid or _before(first[order[j]], first[order[i]], starts,
                                                   landing, move, bits)):
                    spare[k] = order[j]
                    j += 1
                else:
                    spare[k] = order[i]
                    i += 1
        order, spare = spare, order
        width *= 2
    return order


@numba.njit(cache=True)
def tails(bounds, counter, amount, prob, counters):
    """``_Landings.tails``, ``reach`` and ``at`` before ``counter_sums.from_the_top``:
    each kernel's chance of lowering counter c by exactly h (kernel k's entries from
    ``bounds[k]``, each lowering ``counter`` by ``amount``)."""
    kernels = len(bounds) - 1
    reach = np.zeros((kernels, counters), np.int64)
    for k in range(kernels):
        for e in range(bounds[k], bounds[k + 1]):
            reach[k, counter[e]] = max(reach[k, counter[e]], amount[e])
    at = np.empty_like(reach)
    total = 0
    for k in range(kernels):
        for c in range(counters):
            at[k, c] = total
            total += reach[k, c]
    out = np.zeros(total)
    for k in range(kernels):
        for e in range(bounds[k], bounds[k + 1]):
            out[at[k, counter[e]] + amount[e] - 1] += prob[e]
    return out, reach, at


@numba.njit(cache=True)
def by_move(bounds, move, landing, cores, prob, indptr, indices, data):
    """The outcomes move by move, each move's pair by pair (as they come: sorted by
    landing core within a pair): each move's ``indptr`` row, its outcomes' cores
    (``cores`` of their ``landing`` positions) and probabilities in ``indices`` and
    ``data`` from the returned cuts."""
    moves, pairs = indptr.shape[0], len(bounds) - 1
    cuts = np.zeros(moves + 1, np.int64)
    for p in range(pairs):
        for e in range(bounds[p], bounds[p + 1]):
            cuts[move[e] + 1] += 1
            indptr[move[e], p + 1] += 1
    cuts = np.cumsum(cuts)
    for m in range(moves):
        for p in range(pairs):
            indptr[m, p + 1] += indptr[m, p]
    fill = cuts[:-1].copy()
    for e in range(len(move)):
        at = fill[move[e]]
        indices[at], data[at] = cores[landing[e]], prob[e]
        fill[move[e]] += 1
    return cuts
