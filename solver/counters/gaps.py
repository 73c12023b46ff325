"""How far a pair of mixes is from best replies to each other, stage by stage: what an
equilibrium's solve records (``solver.counters.stage_rules.Equilibrium``) so that a best
reply to it can be read off it (``solver.counters.play``). numpy only, not beside the
rules: a solution read back from the answer store loads without numba."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: how far from 1 a reference mix may sum and be played as it is: an equilibrium's
#: mixes, from its stage solves, sum to 1 within 3e-13 (a level-5 Pathfinder duel's);
#: played renormalised instead, none moves by more than this
WHOLE = 1e-12


class ReplyGaps(NamedTuple):
    """How far an equilibrium's mixes are from best replies to each other, at its worst
    stage: ``spread``, the most any action pays its side beyond the worst action its mix
    plays (infinite where a mix sums to 1 less closely than
    ``WHOLE``); ``payoff``, the most a stage's value differs from the mixes'
    expected payoff (``reply_gaps``). A best response's has an infinite spread (the
    fixed side is no reply) and its own payoff gap
    (``solver.counters.stage_rules.BestReply``)."""

    spread: float
    payoff: float

    def widest(self, other: ReplyGaps) -> ReplyGaps:
        return ReplyGaps(max(self.spread, other.spread), max(self.payoff, other.payoff))


def reply_gaps(games: np.ndarray, row: np.ndarray, col: np.ndarray,
               value: np.ndarray) -> ReplyGaps:
    """``ReplyGaps`` of a group's stage games (k, rows, cols, points) under the mixes
    ``row`` and ``col`` (k, points, actions) with values ``value`` (k, points): by
    point in one compiled pass (``solver.counters.sums.reply_gaps``; imported here, as
    only a solve asks)."""
    from .sums import reply_gaps as by_point
    spread_a, spread_b, whole, payoff = by_point(games, row, col, value)
    spread = np.inf if largest_gap(whole) > WHOLE else max(largest_gap(spread_a),
                                                          largest_gap(spread_b))
    return ReplyGaps(spread, largest_gap(payoff))


def largest_gap(gaps: np.ndarray) -> float:
    """The largest gap, infinite if any is NaN (no tie is trusted on it)."""
    widest = float(np.abs(gaps).max(initial=0.0))    # a NaN comes through max
    return np.inf if np.isnan(widest) else widest
