"""Every extreme equilibrium of one zero-sum exchange, by nashpy's vertex enumeration,
and the maximum-entropy mix written as a convex combination of them.

In a zero-sum matrix game the equilibria are the pairs of optimal mixes, a product of
two polytopes; its extreme points (the extreme equilibria) are the pairs of their
vertices. nashpy enumerates the fully labelled vertex pairs of the two best-response
polytopes, which needs positive payoffs: each side's payoffs are shifted to at least 1
(an equilibrium does not move when a constant is added to a player's payoffs). The
matrix is rounded to ``DIGITS`` decimals first, so that values equal up to floating
point are equal (a tie broken by rounding noise would hide equilibria). The weights of
the maximum-entropy pair come from a small linear program over the extreme equilibria
found (a basic solution: few of them carry weight).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from ..errors import InputError

#: decimals the stage matrix is rounded to before the enumeration
DIGITS = 10
#: a mix found differs from another by more than this to count as another vertex
SAME = 1e-7
#: the most legal actions a side may have: the enumeration visits subsets of them
MAX_ACTIONS = 14


@dataclass
class ExtremeEquilibria:
    """The extreme equilibria of a matrix game over the legal actions ``rows`` (A's) and
    ``columns`` (B's): ``pairs`` of (A's mix, B's mix), the game's ``value`` to A, and
    the ``weights`` of each pair in the maximum-entropy pair ``entropy`` (summing to 1)."""

    rows: tuple[str, ...]
    columns: tuple[str, ...]
    value: float
    pairs: list[tuple[np.ndarray, np.ndarray]]
    entropy: tuple[np.ndarray, np.ndarray]
    weights: np.ndarray

    def __repr__(self) -> str:
        used = int((self.weights > SAME).sum())
        return (f"<ExtremeEquilibria: {len(self.pairs)} extreme equilibria, value "
                f"{self.value:+.6g}; the maximum-entropy pair mixes {used} of them>")

    def as_dict(self) -> dict:
        def named(names, mix):
            return {name: float(p) for name, p in zip(names, mix, strict=True) if p > SAME}
        return {
            "value": self.value, "count": len(self.pairs),
            "equilibria": [{"a": named(self.rows, x), "b": named(self.columns, y),
                            "weight_in_maximum_entropy": float(w)}
                           for (x, y), w in zip(self.pairs, self.weights, strict=True)],
            "maximum_entropy": {"a": named(self.rows, self.entropy[0]),
                                "b": named(self.columns, self.entropy[1])},
        }


def extreme_equilibria(matrix: np.ndarray, rows, columns,
                       entropy: tuple[np.ndarray, np.ndarray]) -> ExtremeEquilibria:
    """The extreme equilibria of the zero-sum game ``matrix`` (to the row player), and
    the weights that make the maximum-entropy pair ``entropy`` of them."""
    matrix = np.round(np.asarray(matrix, dtype=float), DIGITS)
    if max(matrix.shape) > MAX_ACTIONS:
        raise InputError(f"this exchange has {matrix.shape[0]} x {matrix.shape[1]} legal "
                         f"actions; listing every extreme equilibrium is offered up to "
                         f"{MAX_ACTIONS} a side (the enumeration grows exponentially)")
    pairs = _enumerate(matrix)
    value = float(pairs[0][0] @ matrix @ pairs[0][1])
    weights = _weights(pairs, entropy)
    return ExtremeEquilibria(tuple(rows), tuple(columns), value, pairs,
                             (np.asarray(entropy[0]), np.asarray(entropy[1])), weights)


def _enumerate(matrix: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    if min(matrix.shape) == 1:
        return _against_one_action(matrix)
    import nashpy  # imported here: only this question needs it

    row_payoff = matrix - matrix.min() + 1.0
    column_payoff = -matrix + matrix.max() + 1.0
    found: list[tuple[np.ndarray, np.ndarray]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # nashpy's own degenerate steps
        for x, y in nashpy.Game(row_payoff, column_payoff).vertex_enumeration():
            x, y = _clean(x), _clean(y)
            if not any(np.abs(x - a).max() <= SAME and np.abs(y - b).max() <= SAME
                       for a, b in found):
                found.append((x, y))
    found.sort(key=lambda pair: (tuple(-pair[0]), tuple(-pair[1])))
    return found


def _against_one_action(matrix: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """A side with one action plays it; the other's optimal mixes are those over its best
    replies to it, whose extreme points are the pure best replies (vertex enumeration
    needs two actions a side: its polytopes are flat here)."""
    rows, columns = matrix.shape
    if rows == 1:
        best = np.flatnonzero(matrix[0] == matrix[0].min())
        return [(np.ones(1), np.eye(columns)[j]) for j in best]
    best = np.flatnonzero(matrix[:, 0] == matrix[:, 0].max())
    return [(np.eye(rows)[i], np.ones(1)) for i in best]


def _clean(mix: np.ndarray) -> np.ndarray:
    mix = np.where(np.abs(mix) <= SAME, 0.0, np.asarray(mix, dtype=float))
    return mix / mix.sum()


def _weights(pairs, entropy) -> np.ndarray:
    """Convex weights over ``pairs`` whose mixes average to the ``entropy`` pair."""
    stacked = np.array([np.concatenate([x, y]) for x, y in pairs]).T
    target = np.concatenate([np.asarray(entropy[0]), np.asarray(entropy[1])])
    equalities = np.vstack([stacked, np.ones(len(pairs))])
    found = linprog(np.zeros(len(pairs)), A_eq=equalities,
                    b_eq=np.concatenate([target, [1.0]]), bounds=(0, None), method="highs")
    if found.status != 0:
        raise ArithmeticError("the maximum-entropy pair is not a convex combination of the "
                              "extreme equilibria found (a degenerate enumeration)")
    return np.where(found.x > SAME, found.x, 0.0)
