"""What a best response gains over the play it answers: never negative, by proof.

A best response can always copy the play it answers, so a negative gain is rounding when
tiny and a bug when not. Every exploitability in the package goes through ``gain_over``,
so a broken best response raises instead of reading as a perfect equilibrium.
"""

from __future__ import annotations

#: a best response may fall short of the play it answers by this share of the payoff
#: range (rounding of the solves), never more
ROUNDING_SHARE = 1e-9


class WorseResponseError(ArithmeticError):
    """A best response scored clearly less than the play it should improve on: a bug in
    the solver or in a game, never bad input."""


def gain_over(response: float, baseline: float, payoff_bounds: tuple[float, float],
              what: str = "the best response") -> float:
    """What a best response worth ``response`` gains over ``baseline`` (both to the
    responder): never negative, since a best response can always copy the play it answers.
    A shortfall within rounding (``ROUNDING_SHARE`` of the payoff range) reads as 0; a
    larger one raises WorseResponseError with the numbers."""
    gain = response - baseline
    low, high = payoff_bounds
    allowed = ROUNDING_SHARE * (high - low)
    if gain < -allowed:
        raise WorseResponseError(
            f"{what} is worse than the play it answers: worth {response!r} against {baseline!r} "
            f"(short by {-gain:.3g}; rounding allows {allowed:.3g} over payoffs in "
            f"[{low}, {high}])")
    return max(0.0, gain)
