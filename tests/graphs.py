"""Two state graphs of one game compared entry by entry: a declared ``graph`` fast path
against the generic exploration (``solver.markov.graph.explore``), the reference; and two
walks of a counter game's cores (``cores`` against ``solver.counters.walk``)."""

from __future__ import annotations

import numpy as np

from solver.counters import CoreWalk
from solver.markov.graph import StateGraph


def assert_same_graph(fast: StateGraph, reference: StateGraph, tolerance: float = 1e-12):
    """The same states (in any order), masks, terminal payoffs, start, joint actions and
    transition probabilities (within ``tolerance``)."""
    assert len(fast.states) == len(reference.states)
    assert set(fast.states) == set(reference.states)
    where = np.array([reference.index[s] for s in fast.states])  # fast index -> reference
    assert np.array_equal(fast.mask_a, reference.mask_a[where])
    assert np.array_equal(fast.mask_b, reference.mask_b[where])
    assert np.array_equal(fast.terminal, reference.terminal[where])
    assert np.array_equal(fast.payoff, reference.payoff[where])
    assert np.allclose(fast.start, reference.start[where], rtol=0, atol=tolerance)
    fast_entries = _entries(fast, where)
    reference_entries = _entries(reference, np.arange(reference.size))
    for got, expected in zip(fast_entries[:2], reference_entries[:2], strict=True):
        assert np.array_equal(got, expected)
    assert np.allclose(fast_entries[2], reference_entries[2], rtol=0, atol=tolerance)


def _entries(graph: StateGraph, rename: np.ndarray):
    """Every joint action as (state, a, b) and every outcome as (joint action, next
    state, probability), in the reference's state numbers, sorted."""
    n = graph.mask_a.shape[1]
    pair_key = (rename[graph.pair_state] * n + graph.pair_a) * n + graph.pair_b
    transitions = graph.transitions.tocoo()
    transitions.sum_duplicates()
    rows, targets = pair_key[transitions.row], rename[transitions.col]
    order = np.lexsort((targets, rows))
    return (np.sort(pair_key), np.stack([rows[order], targets[order]]),
            transitions.data[order])


def assert_same_cores(fast: CoreWalk, reference: CoreWalk, tolerance: float = 1e-12):
    """Two walks of a counter game's cores (a declared ``cores`` fast path against
    ``solver.counters.walk``): the same cores (in any order), masks, terminal payoffs,
    each core's joint actions in the same order, and the same outcomes (next core and
    decrements, probabilities within ``tolerance``)."""
    assert len(fast.cores) == len(reference.cores)
    assert set(fast.cores) == set(reference.cores)
    index = {core: k for k, core in enumerate(reference.cores)}
    where = np.array([index[core] for core in fast.cores])  # fast index -> reference
    for name in ("mask_a", "mask_b", "terminal", "payoff"):
        assert np.array_equal(getattr(fast, name), getattr(reference, name)[where]), name
    fast_pairs, fast_outcomes = _core_entries(fast, where)
    reference_pairs, reference_outcomes = _core_entries(reference,
                                                         np.arange(len(reference.cores)))
    assert np.array_equal(fast_pairs, reference_pairs)
    assert np.array_equal(fast_outcomes[0], reference_outcomes[0])
    assert np.allclose(fast_outcomes[1], reference_outcomes[1], rtol=0, atol=tolerance)


def _core_entries(walk: CoreWalk, rename: np.ndarray):
    """Every joint action as (core, a, b), core by core in the walk's order within a
    core, and every outcome as (joint action, next core, decrements) with its
    probability, duplicates added up, sorted; in the reference's core numbers."""
    cores = rename[walk.pair_core]
    order = np.lexsort((np.arange(len(cores)), cores))  # stable within a core
    pairs = np.stack([cores[order], walk.pair_a[order], walk.pair_b[order]], axis=1)
    position = np.empty(len(order), np.int64)
    position[order] = np.arange(len(order))
    owner = np.repeat(position, walk.counts)
    keys = np.concatenate([owner[:, None], rename[walk.targets][:, None], walk.decrements],
                          axis=1)
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    probs = np.bincount(inverse.ravel(), weights=walk.probs, minlength=len(unique))
    return pairs, (unique, probs)
