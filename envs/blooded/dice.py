"""The exact dice of a Blooded duel: a risk (both roll the dice they did not wager
against 10) and a Bash (both roll Strength + Athletics), as sums of d6; and the table of
a risk's results for every pair of wagers, shared by every risk with the same dice."""

from __future__ import annotations

from functools import cache

import numpy as np

from solver.dice import sum_of_dice


@cache
def _totals(n: int, sides: int) -> tuple[int, tuple[int, ...]]:
    """(low, counts) of the total of n dice; zero dice total 0."""
    if n <= 0:
        return 0, (1,)
    dist = sum_of_dice(n, sides)
    return dist.low, tuple(dist.count(t) for t in range(dist.low, dist.high + 1))


@cache
def success_probability(n: int, target: int = 10, sides: int = 6) -> float:
    """P(n dice total at least ``target``); zero dice fail."""
    if n <= 0:
        return 0.0
    low, counts = _totals(n, sides)
    return sum(c for i, c in enumerate(counts) if low + i >= target) / sides ** n


@cache
def risk_split(na: int, nb: int, target: int = 10, sides: int = 6) -> tuple[float, ...]:
    """Exact (neither, A only, B only, both & A higher, both & equal, both & B higher)
    for A rolling ``na`` dice and B ``nb`` (zero dice fail)."""
    la, ca = _totals(na, sides)
    lb, cb = _totals(nb, sides)
    ok_a = [(la + i, c) for i, c in enumerate(ca) if la + i >= target and na > 0]
    ok_b = [(lb + i, c) for i, c in enumerate(cb) if lb + i >= target and nb > 0]
    sa, sb = sum(c for _, c in ok_a), sum(c for _, c in ok_b)
    ta, tb = sum(ca), sum(cb)
    higher = equal = lower = 0
    cum_b = _cumulative(ok_b)
    for total, count in ok_a:
        below, at = cum_b(total)
        higher += count * below
        equal += count * at
        lower += count * (sb - below - at)
    whole = ta * tb
    return ((ta - sa) * (tb - sb) / whole, sa * (tb - sb) / whole, (ta - sa) * sb / whole,
            higher / whole, equal / whole, lower / whole)


def _cumulative(points: list[tuple[int, int]]):
    """For sorted (total, count) points: total -> (count strictly below, count at)."""
    table = dict(points)
    running, below = 0, {}
    for total, count in points:
        below[total] = running
        running += count

    def lookup(total: int) -> tuple[int, int]:
        if total in table:
            return below[total], table[total]
        return sum(c for t, c in points if t < total), 0
    return lookup


@cache
def bash_split(na: int, nb: int, target: int = 10, sides: int = 6) -> tuple[float, ...]:
    """Exact (A attacks, A higher without attack, B attacks, B higher without attack,
    equal) for a Bash: A rolls ``na`` dice, B ``nb``; below ``target`` falls; the
    higher roller attacks when he stands and the other fell."""
    la, ca = _totals(na, sides)
    lb, cb = _totals(nb, sides)
    out = [0, 0, 0, 0, 0]
    for i, x in enumerate(ca):
        ta = la + i
        for j, y in enumerate(cb):
            tb = lb + j
            if ta == tb:
                out[4] += x * y
            elif ta > tb:
                out[0 if ta >= target and tb < target else 1] += x * y
            else:
                out[2 if tb >= target and ta < target else 3] += x * y
    whole = sum(ca) * sum(cb)
    return tuple(v / whole for v in out)


@cache
def risk_table(la: int, lb: int, tie: int, target: int, sides: int):
    """For dice left ``la`` / ``lb``: every pair of wagers with its results as
    ``(probability, case)``, a case being None (both failed) or (victor, his usable
    wagers, the defeated's); and the set of cases. ``tie`` wins equal totals."""
    table, cases = [], set()
    for wa in range(la + 1):
        half_a = (wa + 1) // 2
        for wb in range(lb + 1):
            half_b = (wb + 1) // 2
            split = risk_split(la - wa, lb - wb, target, sides)
            tie_case = (0, wa, half_b) if tie == 0 else (1, wb, half_a)
            items: dict = {}
            for p, case in zip(split, (None, (0, wa, 0), (1, wb, 0), (0, wa, half_b),
                                       tie_case, (1, wb, half_a)), strict=True):
                if p > 0:
                    items[case] = items.get(case, 0.0) + p
            cases.update(items)
            table.append((wa, wb, tuple((p, case) for case, p in items.items())))
    return tuple(table), tuple(cases)


def risk_case(rolled_a: tuple[int, ...], rolled_b: tuple[int, ...], wagers: tuple[int, int],
              tie: int, target: int):
    """The case of one roll of a risk, as ``risk_table`` lists them: None (both failed)
    or (victor, his usable wagers, the defeated's half kept); no dice fail."""
    wa, wb = wagers
    ok_a = bool(rolled_a) and sum(rolled_a) >= target
    ok_b = bool(rolled_b) and sum(rolled_b) >= target
    if not ok_a and not ok_b:
        return None
    if ok_a != ok_b:
        return (0, wa, 0) if ok_a else (1, wb, 0)
    higher = sum(rolled_a) - sum(rolled_b)
    victor = tie if higher == 0 else 0 if higher > 0 else 1
    return (0, wa, (wb + 1) // 2) if victor == 0 else (1, wb, (wa + 1) // 2)


def bash_case(total_a: int, total_b: int, target: int) -> tuple[int | None, bool]:
    """(the higher roller or None on equal totals, whether he attacks) of a Bash, as
    ``bash_split`` splits them: he attacks when he stands and the other fell."""
    if total_a == total_b:
        return None, False
    roller = 0 if total_a > total_b else 1
    high, low = (total_a, total_b) if roller == 0 else (total_b, total_a)
    return roller, high >= target and low < target


@cache
def risk_table_layout(la: int, lb: int, tie: int, target: int, sides: int):
    """``risk_table`` as flat lists: each pair's wagers and number of results, then
    each result's case (a position in the cases tuple) and probability."""
    table, cases = risk_table(la, lb, tie, target, sides)
    position = {case: k for k, case in enumerate(cases)}
    wagers_a = [wa for wa, _, _ in table]
    wagers_b = [wb for _, wb, _ in table]
    counts = [len(items) for _, _, items in table]
    which = np.array([position[case] for _, _, items in table for _, case in items])
    probs = [p for _, _, items in table for p, _ in items]
    return wagers_a, wagers_b, counts, which, probs, cases

