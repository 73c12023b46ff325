"""Exact dice algebra: pools, thresholds, opposed rolls, dice expressions. No system's
rules live here (those are in ``envs``).

Everything is built from integer counts by exact convolution, so every probability is
a Fraction: no sampling and no floating-point error reaches a solver or a table.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate, chain, repeat
from operator import add, mul, sub

from .errors import InputError

# Limits keep a typo such as 10000d6 from hanging a terminal. Building a pool costs
# (number of dice) x (number of distinct totals) big-integer steps (1000d6 is 5 million,
# under a second); an opposed roll costs (totals of A) x (totals of B) products.
MAX_DICE = 1000
MAX_SIDES = 1000
MAX_POOL_WORK = 10_000_000
MAX_MARGIN_WORK = 2_500_000

EXPRESSION_FORM = "NdS[+NdS...][+K], e.g. 4d6, d20+9, 2d8-1, 3d6+1d4+2"


class Distribution(Mapping[int, Fraction]):
    """An immutable distribution over integer totals, read as ``total -> Fraction``.

    It is stored as integer counts over a common denominator (``6**n`` for n d6), which is
    what exact convolution produces and what a table of "ways to roll" shows.
    """

    __slots__ = ("_low", "_counts", "_total")

    def __init__(self, counts: Mapping[int, int]) -> None:
        for outcome, count in counts.items():
            if not isinstance(outcome, int) or not isinstance(count, int) or count < 0:
                raise InputError(
                    f"a distribution maps integer totals to counts >= 0, got {outcome!r}: {count!r}"
                )
        support = [outcome for outcome, count in counts.items() if count]
        if not support:
            raise InputError("a distribution needs at least one outcome with a positive count")
        low = min(support)
        dense = [0] * (max(support) - low + 1)
        for outcome in support:
            dense[outcome - low] = counts[outcome]
        self._set(low, dense)

    @classmethod
    def _from_dense(cls, low: int, dense: list[int]) -> Distribution:
        # Internal constructor for counts already known to be valid; skips the checks.
        self = cls.__new__(cls)
        self._set(low, dense)
        return self

    def _set(self, low: int, dense: list[int]) -> None:
        # Zero counts at the ends would make low/high lie about the support.
        start = next(i for i, count in enumerate(dense) if count)
        stop = len(dense) - next(i for i, count in enumerate(reversed(dense)) if count)
        self._low = low + start
        self._counts = tuple(dense[start:stop])
        self._total = sum(self._counts)

    @classmethod
    def constant(cls, value: int) -> Distribution:
        """The point mass at ``value``."""
        return cls._from_dense(value, [1])

    # --- Mapping protocol: only totals that can occur are keys.
    def __getitem__(self, outcome: int) -> Fraction:
        count = self.count(outcome)
        if not count:
            raise KeyError(outcome)
        return Fraction(count, self._total)

    def __iter__(self) -> Iterator[int]:
        return (self._low + i for i, count in enumerate(self._counts) if count)

    def __len__(self) -> int:
        return sum(1 for count in self._counts if count)

    def __hash__(self) -> int:
        return hash(frozenset(self.items()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}: {p}" for k, p in list(self.items())[:8])
        more = ", ..." if len(self) > 8 else ""
        return f"Distribution({{{shown}{more}}})"

    # --- exact queries
    @property
    def low(self) -> int:
        """The smallest possible total."""
        return self._low

    @property
    def high(self) -> int:
        """The largest possible total."""
        return self._low + len(self._counts) - 1

    @property
    def denominator(self) -> int:
        """The common denominator of the counts (``sides**n`` for a pool), not reduced."""
        return self._total

    def count(self, outcome: int) -> int:
        """The number of ways (out of ``denominator``) to roll ``outcome``."""
        index = outcome - self._low
        return self._counts[index] if 0 <= index < len(self._counts) else 0

    def counts(self) -> dict[int, int]:
        """Every possible total with its number of ways, in ascending order."""
        return {self._low + i: c for i, c in enumerate(self._counts) if c}

    def probability(self, outcome: int) -> Fraction:
        """P(total = outcome); 0 for a total that cannot occur."""
        return Fraction(self.count(outcome), self._total)

    def probability_at_least(self, threshold: int) -> Fraction:
        """P(total >= threshold)."""
        start = max(threshold - self._low, 0)
        return Fraction(sum(self._counts[start:]), self._total)

    def probability_at_most(self, threshold: int) -> Fraction:
        """P(total <= threshold)."""
        stop = max(threshold - self._low + 1, 0)
        return Fraction(sum(self._counts[:stop]), self._total)

    def mean(self) -> Fraction:
        """The exact expected total."""
        weighted = sum(i * count for i, count in enumerate(self._counts))
        return self._low + Fraction(weighted, self._total)

    # --- arithmetic on independent rolls
    def __add__(self, other: Distribution | int) -> Distribution:
        if isinstance(other, int):
            return Distribution._from_dense(self._low + other, list(self._counts))
        if isinstance(other, Distribution):
            return Distribution._from_dense(
                self._low + other._low, _convolve(self._counts, other._counts)
            )
        return NotImplemented

    __radd__ = __add__

    def __neg__(self) -> Distribution:
        return Distribution._from_dense(-self.high, list(reversed(self._counts)))

    def __sub__(self, other: Distribution | int) -> Distribution:
        if isinstance(other, int | Distribution):
            return self + (-other)
        return NotImplemented


def _convolve(a: tuple[int, ...] | list[int], b: tuple[int, ...] | list[int]) -> list[int]:
    # One slice update per count of `a`, so the inner loop runs in C rather than Python.
    result = [0] * (len(a) + len(b) - 1)
    for i, weight in enumerate(a):
        if weight:
            window = result[i : i + len(b)]
            result[i : i + len(b)] = map(add, window, map(mul, repeat(weight), b))
    return result


def _roll_into(counts: list[int], sides: int) -> list[int]:
    # Adding one die multiplies the generating polynomial by 1 + x + ... + x^(sides-1):
    # a window sum of width `sides`, which prefix sums turn into one subtraction a total.
    prefix = list(accumulate(chain(counts, repeat(0, sides - 1))))
    return list(map(sub, prefix, chain(repeat(0, sides), prefix)))


def check_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{name} must be a whole number, got {value!r}")
    return value


def _check_count(name: str, value: object, low: int, high: int) -> int:
    check_int(name, value)
    if value < low:
        raise InputError(f"{name} must be {low} or more, got {value}")
    if value > high:
        raise InputError(f"{name} must be at most {high}, got {value}")
    return value


def _pool(dice: list[tuple[int, int]], modifier: int) -> Distribution:
    """The sum of every die in ``(count, sides)`` groups, plus ``modifier``."""
    for count, sides in dice:
        _check_count("number of dice", count, 0, MAX_DICE)
        _check_count("number of sides", sides, 1, MAX_SIDES)
    check_int("modifier", modifier)
    total_dice = sum(count for count, _ in dice)
    span = sum(count * (sides - 1) for count, sides in dice)
    if total_dice > MAX_DICE:
        raise InputError(f"too many dice: {total_dice} (at most {MAX_DICE})")
    if total_dice * span > MAX_POOL_WORK:
        raise InputError(
            f"pool too large to compute exactly: {total_dice} dice with {span + 1} possible "
            f"totals (dice x totals at most {MAX_POOL_WORK}); use fewer or smaller dice"
        )
    counts = [1]
    for count, sides in dice:
        for _ in range(count):
            counts = _roll_into(counts, sides)
    # Every die contributes at least 1, so the lowest total is the dice count plus modifier.
    return Distribution._from_dense(modifier + total_dice, counts)


def sum_of_dice(n: int, sides: int = 6, modifier: int = 0) -> Distribution:
    """The distribution of the sum of ``n`` dice with ``sides`` faces, plus ``modifier``.

    ``n = 0`` is the point mass at ``modifier``.
    """
    return _pool([(n, sides)], modifier)


def at_least(dist: Distribution, threshold: int) -> Fraction:
    """P(total >= threshold)."""
    return dist.probability_at_least(threshold)


def margin(dist_a: Distribution, dist_b: Distribution) -> Distribution:
    """The distribution of A - B for independent rolls A and B (an opposed roll)."""
    work = len(dist_a._counts) * len(dist_b._counts)
    if work > MAX_MARGIN_WORK:
        raise InputError(
            f"opposed roll too large to compute exactly ({work} pairs of totals, "
            f"at most {MAX_MARGIN_WORK}); use smaller pools"
        )
    return dist_a - dist_b


# --- dice expressions

# Spaces are allowed around signs only, so "4d6 6" is an error rather than 4d66.
# ASCII digits only: ``\d`` alone would read "1d٨" as 1d8
_TERM = re.compile(r"\s*([+-]?)\s*(?:(\d*)d(\d+)|(\d+))\s*", re.ASCII)


@dataclass(frozen=True)
class DiceExpression:
    """A parsed expression: groups of ``(count, sides)`` dice, summed, plus a modifier."""

    dice: tuple[tuple[int, int], ...]
    modifier: int = 0

    def distribution(self) -> Distribution:
        return _pool(list(self.dice), self.modifier)

    def is_single_d20(self) -> bool:
        """True for a Pathfinder check, d20 + K."""
        return self.dice == ((1, 20),)

    def __str__(self) -> str:
        text = "+".join(f"{'' if count == 1 else count}d{sides}" for count, sides in self.dice)
        if self.modifier:
            text += f"{self.modifier:+d}"
        return text


def _bad_expression(text: str, why: str = "") -> InputError:
    reason = f" ({why})" if why else ""
    return InputError(f"bad dice expression {text!r}{reason}; expected {EXPRESSION_FORM}")


def _number(text: str, digits: str) -> int:
    # Python refuses to parse very long digit strings; no sensible roll needs them anyway.
    if len(digits) > 12:
        raise _bad_expression(text, f"number {digits[:12]}... is too large")
    return int(digits)


def parse_expression(text: str) -> DiceExpression:
    """Parse ``NdS[+NdS...][+K]`` (N defaults to 1, K may be negative) without rolling it."""
    if not isinstance(text, str):
        raise InputError(f"a dice expression must be text, got {text!r}")
    compact = text.lower()
    groups: dict[int, int] = {}
    modifier, position, saw_dice = 0, 0, False
    while position < len(compact):
        match = _TERM.match(compact, position)
        # Every term after the first needs its own sign, else "4d6 6" would read as 4d66.
        if not match or (position and not match.group(1)):
            raise _bad_expression(text)
        sign, count, sides, constant = match.groups()
        if constant is not None:
            modifier += _number(text, constant) * (-1 if sign == "-" else 1)
        elif sign == "-" and not position:
            raise _bad_expression(text, "a pool cannot have a negative number of dice")
        elif sign == "-":
            raise _bad_expression(text, "dice cannot be subtracted; compare pools with --vs")
        else:
            saw_dice = True
            count_value = _check_count("number of dice", _number(text, count or "1"), 0, MAX_DICE)
            sides_value = _check_count("number of sides", _number(text, sides), 1, MAX_SIDES)
            groups[sides_value] = groups.get(sides_value, 0) + count_value
        position = match.end()
    if not saw_dice:
        raise _bad_expression(text)
    # every group of none (0d6) is kept as typed: a bare "0" would not parse back
    dice = tuple((count, sides) for sides, count in groups.items() if count) or tuple(
        (count, sides) for sides, count in groups.items())
    return DiceExpression(dice, modifier)


def parse_dice(text: str) -> Distribution:
    """The exact distribution of a dice expression such as ``4d6``, ``d20+9`` or
    ``3d6+1d4+2``."""
    return parse_expression(text).distribution()
