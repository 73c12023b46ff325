"""Exact against sampled: the goodness-of-fit helpers the environment tests share."""

from __future__ import annotations

from collections import Counter

import numpy as np
from scipy.stats import chisquare


def chi_square_pvalue(outcomes, draws: list) -> float:
    """Goodness of fit of ``draws`` to the exact ``outcomes``, pooling rare states."""
    expected: Counter = Counter()
    for probability, state in outcomes:
        expected[state] += probability
    observed = Counter(draws)
    assert set(observed) <= set(expected), "a sampled state is not among the outcomes"
    states = sorted(expected, key=lambda s: -expected[s])
    exp = np.array([expected[s] * len(draws) for s in states])
    obs = np.array([observed[s] for s in states], dtype=float)
    rare = exp < 5
    if rare.any():
        exp = np.append(exp[~rare], exp[rare].sum())
        obs = np.append(obs[~rare], obs[rare].sum())
    if len(exp) < 2:
        return 1.0
    return float(chisquare(obs, exp * obs.sum() / exp.sum()).pvalue)


def legal_pairs(game, state):
    mask_a, mask_b = game.legal_mask(state, "a"), game.legal_mask(state, "b")
    return [(int(a), int(b)) for a in np.flatnonzero(mask_a) for b in np.flatnonzero(mask_b)]
