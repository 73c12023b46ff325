"""The d20 check of Pathfinder 2e: four degrees of success, with the natural 20 and 1
stepping the degree. Pathfinder's rules use it, and ``duel dice --dc`` shows it."""

from __future__ import annotations

from fractions import Fraction

from solver.dice import check_int

DEGREES = ("critical_success", "success", "failure", "critical_failure")


def degree_of_check(natural: int, modifier: int, dc: int) -> int:
    """The degree of one d20 check: 3 critical success, 2 success, 1 failure,
    0 critical failure (so ``DEGREES[3 - degree]`` names it)."""
    total = natural + modifier
    if total >= dc + 10:
        degree = 3
    elif total >= dc:
        degree = 2
    elif total > dc - 10:
        degree = 1
    else:
        degree = 0
    # The natural die shifts the degree after the total has set it, and cannot leave the scale.
    if natural == 20:
        degree = min(degree + 1, 3)
    elif natural == 1:
        degree = max(degree - 1, 0)
    return degree


def degree_counts(modifier: int, dc: int) -> dict[str, int]:
    """How many of the 20 faces give each degree, best degree first."""
    check_int("modifier", modifier)
    check_int("DC", dc)
    counts = dict.fromkeys(DEGREES, 0)
    for natural in range(1, 21):
        counts[DEGREES[3 - degree_of_check(natural, modifier, dc)]] += 1
    return counts


def degrees_of_success(modifier: int, dc: int) -> dict[str, Fraction]:
    """Exact probabilities of critical success, success, failure and critical failure of
    d20 + ``modifier`` against ``dc``, in that order."""
    return {name: Fraction(count, 20) for name, count in degree_counts(modifier, dc).items()}
