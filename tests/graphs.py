"""Two state graphs of one game compared entry by entry: a declared ``graph`` fast path
against the generic exploration (``solver.graph.explore``), the reference."""

from __future__ import annotations

import numpy as np

from solver.graph import StateGraph


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
