"""The outcomes of a counter game's cores sorted into the solver's arrays
(``solver.counters``: the zero-decrement matrix, one matrix per move, the distinct
distributions of the lowering steps), as compiled loops: each pass reads the outcomes
once, where numpy would sort all of them (millions) or build temporaries as large.

The outcomes come pair by pair (``bounds``: where each pair's outcomes start). A step
lowers at most one counter: counter c lowered by h has the key (counters - 1 - c) *
span + h, so the keys sort as the decrement vectors do (lexicographically, as
``np.unique`` of the vectors' flat indices did); the moves are the keys met, numbered
in that order, and the later passes take each outcome's move.

A kernel (``solver.counters.cores.Landings``) is one distinct distribution into one landing
core: the runs of one pair's outcomes into one core are hashed, and checked entry by
entry against the kernels with the same hash; the kernels come in the order
``np.unique`` of the runs as byte rows (landing core, size, moves, probabilities'
bits: little-endian words compared byte by byte) gave them, landing core first.
"""

from __future__ import annotations

import numba
import numpy as np

_U = np.uint64
#: every bit of the hashes (a test keeps fewer, to force collisions)
ALL_BITS = _U(0xFFFFFFFFFFFFFFFF)
#: past this many ascending runs a pair's outcomes are sorted from scratch
_FEW_RUNS = 32


@numba.njit(inline="always")
def _key(decrements, e, span):
    """Outcome e's move key (-1 where no counter falls), and whether it raises a
    counter or lowers two."""
    counters = decrements.shape[1]
    key, wrong = -1, False
    for c in range(counters):
        d = decrements[e, c]
        wrong |= d < 0 or (d > 0 and key >= 0)
        if d > 0:
            key = (counters - 1 - c) * span + d
    return key, wrong


@numba.njit(cache=True)
def split(counts, decrements, targets, probs, span, present, seen):
    """The first outcome that raises a counter or lowers two (-1 if none); the outcomes
    that change no counter and those that lower one, apart, each pair by pair:
    (bounds, next cores, probabilities) of the first, and of the others besides their
    keys, whose next cores are marked in ``seen`` and keys in ``present`` (unless it
    is empty: too many keys to mark)."""
    pairs, count = len(counts), len(targets)
    bounds = np.zeros((2, pairs + 1), np.int64)
    still_t, still_p = np.empty(count, np.int64), np.empty(count)
    low_t, low_p, low_k = np.empty(count, np.int64), np.empty(count), np.empty(count, np.int64)
    wrong, e, kept, low = -1, 0, 0, 0
    for p in range(pairs):
        for _ in range(counts[p]):
            key, bad = _key(decrements, e, span)
            if bad and wrong < 0:
                wrong = e
            if key < 0:
                still_t[kept], still_p[kept] = targets[e], probs[e]
                kept += 1
            else:
                low_t[low], low_p[low], low_k[low] = targets[e], probs[e], key
                seen[targets[e]] = True
                if len(present):
                    present[key] = True
                low += 1
            e += 1
        bounds[0, p + 1], bounds[1, p + 1] = kept, low
    return (wrong, (bounds[0], still_t[:kept].copy(), still_p[:kept].copy()),
            (bounds[1], low_t[:low], low_p[:low], low_k[:low]))


@numba.njit(inline="always")
def _less(a, b, target, move):
    return target[a] < target[b] or (target[a] == target[b] and move[a] < move[b])


@numba.njit(cache=True)
def _by_runs(lo, hi, target, move):
    """The positions lo..hi in order when their runs (ascending, into one core) sorted
    by their first outcome follow one another (each ends before the next begins: most
    pairs list each next core's outcomes together, in order); else none."""
    cuts = np.empty(hi - lo + 1, np.int64)
    cuts[0], runs = lo, 1
    for e in range(lo + 1, hi):
        if target[e] != target[e - 1] or move[e] < move[e - 1]:
            cuts[runs] = e
            runs += 1
    cuts[runs] = hi
    if runs > _FEW_RUNS:
        return np.empty(0, np.int64)
    order = np.arange(runs)
    for i in range(1, runs):   # insertion sort of the runs' first outcomes
        j = i
        while j > 0 and _less(cuts[order[j]], cuts[order[j - 1]], target, move):
            order[j], order[j - 1] = order[j - 1], order[j]
            j -= 1
    out = np.empty(hi - lo, np.int64)
    k = 0
    for i in range(runs):
        run = order[i]
        if i and not _less(out[k - 1], cuts[run], target, move):
            return np.empty(0, np.int64)
        for e in range(cuts[run], cuts[run + 1]):
            out[k] = e
            k += 1
    return out


@numba.njit(cache=True)
def _sort(lo, hi, target, move, prob, moves):
    """Sorts positions lo..hi by next core, then move (stably), in place."""
    order = _by_runs(lo, hi, target, move)
    if not len(order):
        order = lo + np.argsort(target[lo:hi] * moves + move[lo:hi], kind="mergesort")
    target[lo:hi], move[lo:hi], prob[lo:hi] = target[order], move[order], prob[order]


@numba.njit(cache=True)
def sort_pairs(bounds, target, move, prob, moves):
    """Sorts each pair's outcomes by next core, then move (stably), in place, and finds
    the runs into one core: where each starts (then the end), and where each pair's
    runs start (pairs + 1)."""
    pairs = len(bounds) - 1
    starts = np.empty(len(target) + 1, np.int64)
    per_pair = np.zeros(pairs + 1, np.int64)
    runs = 0
    for p in range(pairs):
        lo, hi = bounds[p], bounds[p + 1]
        for e in range(lo + 1, hi):
            if _less(e, e - 1, target, move):
                _sort(lo, hi, target, move, prob, moves)
                break
        for e in range(lo, hi):
            if e == lo or target[e] != target[e - 1]:
                starts[runs] = e
                runs += 1
        per_pair[p + 1] = runs
    starts[runs] = len(target)
    return starts[:runs + 1].copy(), per_pair


@numba.njit(inline="always")
def _mix(h, x):
    """splitmix64's finaliser of h + x times an odd constant: every bit of x and h moves
    about half the bits."""
    z = h + x * _U(0x9E3779B97F4A7C15)
    z = (z ^ (z >> _U(30))) * _U(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U(27))) * _U(0x94D049BB133111EB)
    return z ^ (z >> _U(31))


@numba.njit(cache=True)
def _hashes(starts, target, move, bits, mask):
    """Each run's hash: its core and size, plus a mix of each entry's place, move and
    bits (mixed apart, so the entries' mixes do not wait for one another)."""
    out = np.empty(len(starts) - 1, np.uint64)
    for r in range(len(out)):
        lo, hi = starts[r], starts[r + 1]
        h = _mix(_U(target[lo]), _U(hi - lo))
        for e in range(lo, hi):
            h += _mix(_U(move[e]) * _U(0xD6E8FEB86659FD93) + _U(e - lo), bits[e])
        out[r] = _mix(h, _U(0)) & mask
    return out


@numba.njit(inline="always")
def _same(a, b, starts, target, move, bits):
    lo, other, size = starts[a], starts[b], starts[a + 1] - starts[a]
    if starts[b + 1] - other != size or target[lo] != target[other]:
        return False
    for i in range(size):
        if move[lo + i] != move[other + i] or bits[lo + i] != bits[other + i]:
            return False
    return True


@numba.njit(cache=True)
def distinct(starts, target, move, bits, mask=ALL_BITS):
    """The kernel of each run (runs equal entry by entry share one, numbered by first
    occurrence) and each kernel's first run: an open-addressing table of the runs'
    hashes (``mask`` of their bits), equal hashes checked entry by entry."""
    count = len(starts) - 1
    hashes = _hashes(starts, target, move, bits, mask)
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
            if hashes[first[k]] == hashes[r] and _same(first[k], r, starts, target, move,
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
def _before(a, b, starts, move, bits):
    """Whether run a's row comes before run b's, both into one core: the bytes of the
    size, then of the moves, then of the probabilities' bits."""
    lo, other = starts[a], starts[b]
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
def ordered(first, starts, target, move, bits):
    """The kernels (positions in ``first``, their first runs) sorted by their rows (see
    ``_before``; their landing cores read at once, the rest for kernels into one core
    only): a bottom-up merge sort."""
    count = len(first)
    landing = target[starts[first]]
    order, spare = np.arange(count), np.empty(count, np.int64)
    width = 1
    while width < count:
        for lo in range(0, count, 2 * width):
            mid, hi = min(lo + width, count), min(lo + 2 * width, count)
            i, j = lo, mid
            for k in range(lo, hi):
                if j < hi and (i >= mid or landing[order[j]] < landing[order[i]] or (
                        landing[order[j]] == landing[order[i]] and _before(
                            first[order[j]], first[order[i]], starts, move, bits))):
                    spare[k] = order[j]
                    j += 1
                else:
                    spare[k] = order[i]
                    i += 1
        order, spare = spare, order
        width *= 2
    return order


@numba.njit(cache=True)
def tails(bounds, move, prob, counter_of, amount_of, counters):
    """``Landings.tails``, ``reach`` and ``at`` before ``counter_sums.from_the_top``:
    each kernel's chance of lowering counter c by exactly h (kernel k's entries from
    ``bounds[k]``; each move's counter and amount, at most the counter's top)."""
    kernels = len(bounds) - 1
    reach = np.zeros((kernels, counters), np.int64)
    for k in range(kernels):
        for e in range(bounds[k], bounds[k + 1]):
            c = counter_of[move[e]]
            reach[k, c] = max(reach[k, c], amount_of[move[e]])
    at = np.empty_like(reach)
    total = 0
    for k in range(kernels):
        for c in range(counters):
            at[k, c] = total
            total += reach[k, c]
    out = np.zeros(total)
    for k in range(kernels):
        for e in range(bounds[k], bounds[k + 1]):
            out[at[k, counter_of[move[e]]] + amount_of[move[e]] - 1] += prob[e]
    return out, reach, at
