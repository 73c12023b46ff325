"""Properties of the exact dice algebra (``solver.dice``) over generated expressions,
against brute-force enumeration and the closed-form mean."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from solver.dice import parse_dice, parse_expression, sum_of_dice
from solver.errors import InputError

PROPERTIES = settings(max_examples=80, deadline=None)

GROUPS = st.lists(st.tuples(st.integers(0, 3), st.integers(1, 8)), min_size=1, max_size=3)
MODIFIERS = st.integers(-20, 20)


def expression(groups, modifier) -> str:
    text = "+".join(f"{count}d{sides}" for count, sides in groups)
    return text + (f"{modifier:+d}" if modifier else "")


@PROPERTIES
@given(st.integers(0, 12), st.integers(1, 20), MODIFIERS)
def test_a_pool_sums_to_one_and_its_mean_is_n_times_s_plus_one_over_two_plus_k(n, sides, k):
    dist = sum_of_dice(n, sides, k)
    assert sum(dist.values()) == 1
    assert sum(total * p for total, p in dist.items()) == Fraction(n * (sides + 1), 2) + k
    assert dist == parse_dice(f"{n}d{sides}{k:+d}")


@PROPERTIES
@given(GROUPS, MODIFIERS)
def test_an_expression_matches_brute_force_enumeration(groups, modifier):
    faces = [range(1, sides + 1) for count, sides in groups for _ in range(count)]
    ways = Counter(sum(roll) + modifier for roll in itertools.product(*faces))
    everything = sum(ways.values())
    expected = {total: Fraction(count, everything) for total, count in ways.items()}
    assert dict(parse_dice(expression(groups, modifier))) == expected


@PROPERTIES
@given(GROUPS, MODIFIERS)
def test_an_expression_written_back_parses_to_the_same(groups, modifier):
    parsed = parse_expression(expression(groups, modifier))
    assert parse_expression(str(parsed)) == parsed


@PROPERTIES
@given(st.text(alphabet="0123456789d+- xX", max_size=12))
def test_any_text_parses_or_raises_an_input_error(text):
    try:
        dist = parse_dice(text)
    except InputError:
        return
    assert sum(dist.values()) == 1
