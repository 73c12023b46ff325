"""The exact dice of Uchronia: pools of d6 as fractions, an Épreuve, a resistance test,
margins, and the tables of a shot, an opposed Confrontation and a roll against a
helpless foe (each by enumeration of the pool, memoised)."""

from __future__ import annotations

from fractions import Fraction
from functools import cache, lru_cache

from solver.dice import sum_of_dice

from .state import EXCEPTIONAL, MINOR, SIGNIFICANT


@cache
def pool(n: int) -> dict[int, Fraction]:
    """Exact distribution of the sum of ``n`` d6."""
    return dict(sum_of_dice(n).items())


def at_least(n: int, threshold: int) -> Fraction:
    """P(n d6 total >= threshold): an Épreuve, Prouesse or Exploit succeeds."""
    return sum((p for total, p in pool(n).items() if total >= threshold), Fraction(0))


@cache
def resistance(n: int, threshold: int, cancel: int) -> tuple[Fraction, Fraction, Fraction]:
    """(fail, cancel, apply) of a resistance test of ``n`` dice against ``threshold``:
    failing is Hors de Combat, succeeding by ``cancel`` or more ignores the wound."""
    fail = 1 - at_least(n, threshold)
    cancelled = at_least(n, threshold + cancel)
    return fail, cancelled, 1 - fail - cancelled


def margin_class(margin: int, significant: int, exceptional: int) -> int:
    if margin >= exceptional:
        return EXCEPTIONAL
    return SIGNIFICANT if margin >= significant else MINOR


def merge(items) -> list[tuple[float, object]]:
    """(probability, state) pairs with equal states merged and zeros dropped (the
    probabilities summed exactly, then made floats)."""
    merged: dict = {}
    for p, state in items:
        if p > 0:
            merged[state] = merged.get(state, 0) + p
    return [(float(p), state) for state, p in merged.items()]


@lru_cache(maxsize=4096)
def shot_table(dice: int, threshold: int, significant: int, exceptional: int):
    """(miss, Blessé, Grièvement Blessé, Tué) of one shot by exact enumeration of the
    pool: a hit is total >= threshold, its margin total - threshold; a fumble (every
    die a 1, the total equal to the dice) is a miss whatever the threshold."""
    probs = [Fraction(0)] * 4
    for total, p in pool(dice).items():
        if total < threshold or total == dice:
            probs[0] += p
        else:
            probs[1 + margin_class(total - threshold, significant, exceptional)] += p
    return tuple(probs)


@lru_cache(maxsize=4096)
def confrontation_table(dice_a: int, dice_b: int, significant: int, exceptional: int):
    """{(winner 0/1/2, margin class, fumble_a, fumble_b): p} of an opposed roll; a
    fumble is every die a 1, i.e. a total equal to the number of dice."""
    table: dict = {}
    for ta, pa in pool(dice_a).items():
        for tb, pb in pool(dice_b).items():
            winner = 0 if ta == tb else 1 if ta > tb else 2
            margin = margin_class(abs(ta - tb), significant, exceptional) if winner else 0
            key = (winner, margin, int(ta == dice_a), int(tb == dice_b))
            table[key] = table.get(key, 0) + pa * pb
    return table


@lru_cache(maxsize=4096)
def alone_table(dice: int, significant: int, exceptional: int):
    """{(margin class, fumbled): p} of a roll against a helpless foe (total 0)."""
    table: dict = {}
    for total, p in pool(dice).items():
        key = (margin_class(total, significant, exceptional), int(total == dice))
        table[key] = table.get(key, 0) + p
    return table
