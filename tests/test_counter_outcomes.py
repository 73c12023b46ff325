"""The compiled passes that sort a counter game's outcomes (``solver.counters.outcomes``)
against the numpy they replace: hashes that all collide still find exactly the equal
runs, and the kernels come in ``np.unique``'s order of byte rows."""

import numpy as np
import pytest

from solver.counters import outcomes as counter_outcomes


def _runs(seed: int, count: int = 400):
    """Runs of outcomes (one landing core each, sorted by key) drawn from few values,
    so that many runs repeat; a few long ones and large keys test every byte."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 4, count)
    sizes[:3] = [300, 300, 257]
    landing = np.repeat(rng.integers(0, 5, count), sizes)
    key = np.concatenate([np.sort(rng.choice([1, 2, 255, 256, 513], size)) for size in sizes])
    prob = rng.choice([0.25, 0.5, 1 / 3, 1e-300], len(key))
    return np.concatenate([[0], np.cumsum(sizes)]), landing, key, prob


def _rows(starts, landing, key, prob):
    """Each run as ``solver.counters`` once wrote it: core, size, moves, bits, padded."""
    width = int(np.diff(starts).max())
    table = np.zeros((len(starts) - 1, 2 + 2 * width), np.int64)
    for r, (lo, hi) in enumerate(zip(starts[:-1], starts[1:], strict=True)):
        table[r, :2] = landing[lo], hi - lo
        table[r, 2:2 + hi - lo] = key[lo:hi]
        table[r, 2 + width:2 + width + hi - lo] = prob[lo:hi].view(np.int64)
    return table.view(np.dtype((np.void, table.shape[1] * 8))).ravel()


@pytest.mark.parametrize("mask", [counter_outcomes.ALL_BITS, np.uint64(0), np.uint64(1)])
def test_runs_sharing_a_hash_are_told_apart_entry_by_entry(mask):
    starts, landing, key, prob = _runs(0)
    kernel, first = counter_outcomes.distinct(starts, landing, key, prob.view(np.uint64), mask)
    rows = _rows(starts, landing, key, prob)
    _, reference_first, reference = np.unique(rows, return_index=True, return_inverse=True)
    # the same partition of the runs, numbered by first occurrence
    assert len(first) == len(reference_first) < len(rows)
    assert np.array_equal(first, np.sort(reference_first))
    assert np.array_equal(first[kernel], reference_first[reference])


def test_the_kernels_come_in_the_order_of_their_byte_rows_by_landing_core():
    starts, landing, key, prob = _runs(1)
    bits = prob.view(np.uint64)
    _, first = counter_outcomes.distinct(starts, landing, key, bits)
    order = counter_outcomes.ordered(first, starts, landing, key, bits)
    _, reference = np.unique(_rows(starts, landing, key, prob), return_index=True)
    reference = reference[np.argsort(landing[starts[reference]], kind="stable")]
    assert np.array_equal(first[order], reference)


def test_each_pairs_outcomes_are_sorted_stably_by_core_then_key():
    rng = np.random.default_rng(2)
    sizes = np.array([0, 5, 40, 120, 7])
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    # runs into one core in disorder, runs that overlap, more runs than a few, repeats
    target = np.concatenate([np.repeat([3, 1], [3, 2]), rng.integers(0, 3, 40),
                             rng.integers(0, 60, 120), [2, 2, 1, 1, 1, 0, 0]])
    key = np.concatenate([[1, 2, 3, 1, 2], rng.integers(1, 4, 40), rng.integers(1, 4, 120),
                          [2, 2, 3, 1, 1, 2, 1]])
    prob = np.arange(len(key), dtype=float)
    expected = [lo + np.lexsort((key[lo:hi], target[lo:hi]))
                for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
    expected = np.concatenate(expected).astype(np.int64)
    starts, per_pair = counter_outcomes.sort_pairs(bounds, target, key, prob, 10)
    assert np.array_equal(prob, expected)   # each outcome's place before the sort
    first = np.flatnonzero(np.diff(target, prepend=-1) != 0)
    cuts = np.union1d(first, bounds[:-1][sizes > 0])
    assert np.array_equal(starts, np.append(cuts, len(key)))
    assert np.array_equal(per_pair, np.searchsorted(cuts, bounds))
