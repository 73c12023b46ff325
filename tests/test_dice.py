"""Exact dice distributions, checked by hand, by brute force and against icepool."""

from fractions import Fraction
from itertools import product

import icepool
import pytest

from envs.d20 import DEGREES, degree_counts, degrees_of_success
from solver.dice import (
    Distribution,
    at_least,
    margin,
    parse_dice,
    parse_expression,
    sum_of_dice,
)
from solver.errors import InputError


def icepool_fractions(die: icepool.Die) -> dict[int, Fraction]:
    return {outcome: Fraction(q, die.denominator()) for outcome, q in die.items()}


def brute_force(n: int, sides: int) -> dict[int, Fraction]:
    counts: dict[int, int] = {}
    for faces in product(range(1, sides + 1), repeat=n):
        counts[sum(faces)] = counts.get(sum(faces), 0) + 1
    return {k: Fraction(c, sides**n) for k, c in counts.items()}


# --- hand-derived values


def test_two_d6_seven_is_six_in_thirty_six():
    assert sum_of_dice(2).probability(7) == Fraction(6, 36)
    assert sum_of_dice(2).count(7) == 6
    assert sum_of_dice(2).denominator == 36


def test_three_d6_eleven_or_more_is_one_half_by_symmetry():
    # 3..18 is symmetric about 10.5, so the halves are <= 10 and >= 11; 10 or more adds
    # P(10) = 27/216 on top of the half.
    assert at_least(sum_of_dice(3), 11) == Fraction(1, 2)
    assert at_least(sum_of_dice(3), 10) == Fraction(1, 2) + Fraction(27, 216) == Fraction(5, 8)


def test_four_d6_ten_or_more_matches_enumeration():
    rolls = list(product(range(1, 7), repeat=4))
    expected = Fraction(sum(1 for r in rolls if sum(r) >= 10), len(rolls))
    assert sum_of_dice(4).probability_at_least(10) == expected


@pytest.mark.parametrize(("n", "sides"), [(1, 6), (2, 4), (3, 6), (4, 6), (3, 10), (5, 2)])
def test_sums_match_enumeration(n, sides):
    assert dict(sum_of_dice(n, sides)) == brute_force(n, sides)


def test_one_d6_vs_one_d6_ties_one_in_six():
    diff = margin(sum_of_dice(1), sum_of_dice(1))
    assert diff.probability(0) == Fraction(1, 6)
    assert diff.probability_at_least(1) == diff.probability_at_most(-1) == Fraction(5, 12)


def test_zero_dice_is_a_point_mass_at_the_modifier():
    assert dict(sum_of_dice(0, modifier=3)) == {3: 1}
    assert dict(sum_of_dice(0)) == {0: 1}


def test_modifier_shifts_and_mean_is_exact():
    dist = sum_of_dice(2, 6, modifier=-1)
    assert (dist.low, dist.high) == (1, 11)
    assert dist.mean() == 6
    assert sum_of_dice(1, 4).mean() == Fraction(5, 2)


def test_thresholds_outside_the_support():
    dist = sum_of_dice(3)
    assert dist.probability_at_least(3) == dist.probability_at_least(-100) == 1
    assert dist.probability_at_least(19) == 0
    assert dist.probability_at_most(2) == 0
    assert dist.probability_at_most(18) == 1
    assert dist.probability(99) == 0
    with pytest.raises(KeyError):
        dist[99]


def test_probabilities_sum_to_one_for_a_large_pool():
    dist = sum_of_dice(200, 6)
    assert sum(dist.values()) == 1
    assert dist.denominator == 6**200


def test_distribution_from_counts_and_arithmetic():
    coin = Distribution({0: 1, 1: 1})
    assert dict(coin + coin) == {0: Fraction(1, 4), 1: Fraction(1, 2), 2: Fraction(1, 4)}
    assert dict(coin + 5) == {5: Fraction(1, 2), 6: Fraction(1, 2)}
    assert dict(-coin) == {-1: Fraction(1, 2), 0: Fraction(1, 2)}
    assert coin == Distribution({0: 2, 1: 2, 7: 0})
    assert hash(coin) == hash(Distribution({0: 2, 1: 2}))


def test_ten_or_more_on_d6_pools():
    # 2d6 >= 10: (4,6) (5,5) (6,4) (5,6) (6,5) (6,6) = 6 of 36; 3d6 >= 10: 135 of 216
    assert sum_of_dice(1).probability_at_least(10) == 0
    assert sum_of_dice(2).probability_at_least(10) == Fraction(6, 36)
    assert sum_of_dice(3).probability_at_least(10) == Fraction(5, 8)


# --- against icepool


@pytest.mark.parametrize(("n", "sides"), [(1, 6), (4, 6), (5, 6), (10, 6), (3, 20), (6, 8)])
def test_sums_match_icepool(n, sides):
    assert dict(sum_of_dice(n, sides)) == icepool_fractions(n @ icepool.d(sides))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 6, 9])
@pytest.mark.parametrize("threshold", [1, 10, 15, 20])
def test_thresholds_match_icepool(n, threshold):
    expected = (n @ icepool.d6).probability(">=", threshold)
    assert sum_of_dice(n).probability_at_least(threshold) == expected
    assert sum_of_dice(n).probability_at_most(threshold) == (n @ icepool.d6).probability(
        "<=", threshold
    )


@pytest.mark.parametrize(("a", "b"), [(1, 1), (5, 4), (3, 6), (0, 2), (8, 7)])
def test_margins_match_icepool(a, b):
    expected = icepool_fractions(a @ icepool.d6 - b @ icepool.d6)
    assert dict(margin(sum_of_dice(a), sum_of_dice(b))) == expected


def test_mixed_expression_matches_icepool():
    expected = icepool_fractions(3 @ icepool.d6 + icepool.d4 + 2)
    assert dict(parse_dice("3d6+1d4+2")) == expected


# --- d20 degrees of success


def degrees_by_hand(modifier: int, dc: int) -> dict[str, int]:
    counts = dict.fromkeys(DEGREES, 0)
    for face in range(1, 21):
        total = face + modifier
        if total >= dc + 10:
            step = 0
        elif total >= dc:
            step = 1
        elif total <= dc - 10:
            step = 3
        else:
            step = 2
        if face == 20:
            step = max(step - 1, 0)
        if face == 1:
            step = min(step + 1, 3)
        counts[DEGREES[step]] += 1
    return counts


@pytest.mark.parametrize(
    ("modifier", "dc"), [(9, 18), (0, 30), (20, 10), (0, 10), (5, 15), (-5, 40), (30, 5)]
)
def test_degrees_match_the_faces_enumerated(modifier, dc):
    expected = degrees_by_hand(modifier, dc)
    assert degree_counts(modifier, dc) == expected
    chances = degrees_of_success(modifier, dc)
    assert list(chances) == list(DEGREES)
    assert chances == {name: Fraction(c, 20) for name, c in expected.items()}
    assert sum(chances.values()) == 1


def test_degrees_plus_nine_vs_dc_eighteen():
    # 1: 10 failure -> crit failure; 2..8: failure; 9..18: success; 19: 28 = DC+10 crit;
    # 20: 29 crit success (already the top).
    assert degree_counts(9, 18) == {
        "critical_success": 2,
        "success": 10,
        "failure": 7,
        "critical_failure": 1,
    }


def test_natural_twenty_rescues_a_hopeless_check():
    # +0 vs 30: every total is a critical failure; the natural 20 lifts it to failure.
    assert degree_counts(0, 30) == {
        "critical_success": 0,
        "success": 0,
        "failure": 1,
        "critical_failure": 19,
    }


def test_natural_one_spoils_a_sure_check():
    # +20 vs 10: 2..20 reach 30 = DC+10, a critical; the natural 1 (21) drops one step.
    assert degree_counts(20, 10) == {
        "critical_success": 19,
        "success": 1,
        "failure": 0,
        "critical_failure": 0,
    }


# --- parsing


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4d6", 4 @ icepool.d6),
        ("d20+9", icepool.d20 + 9),
        ("1D20 + 9", icepool.d20 + 9),
        ("2d8-1", 2 @ icepool.d8 - 1),
        ("3d6+1d4+2", 3 @ icepool.d6 + icepool.d4 + 2),
        ("d6+2+d6-5", 2 @ icepool.d6 - 3),
    ],
)
def test_parse_dice(text, expected):
    assert dict(parse_dice(text)) == icepool_fractions(expected)


def test_parse_expression_structure():
    expression = parse_expression("d20 + 9")
    assert expression.is_single_d20() and expression.modifier == 9
    assert str(parse_expression("3d6+1d4+2")) == "3d6+d4+2"
    assert not parse_expression("2d20").is_single_d20()
    assert dict(parse_dice("0d6+4")) == {4: 1}


@pytest.mark.parametrize("text, said", [("0d6", "0d6"), ("0d6+4", "0d6+4"),
                                        ("0d6+0d4-1", "0d6+0d4-1"), ("0d6+2d4", "2d4")])
def test_a_pool_of_no_dice_is_named_as_typed(text, said):
    assert str(parse_expression(text)) == said
    assert parse_expression(said) == parse_expression(text)


@pytest.mark.parametrize(
    "text", ["4x6", "-3d6", "", "d", "4d6 6", "4d6+", "d20-1d4", "5", "abc", "4d6++2"]
)
def test_bad_expressions_name_the_text_and_the_form(text):
    with pytest.raises(InputError) as error:
        parse_dice(text)
    assert repr(text) in str(error.value)
    assert "NdS[+NdS...][+K]" in str(error.value)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("4d0", "number of sides must be 1 or more, got 0"),
        ("1001d6", "at most 1000, got 1001"),
        ("600d6+600d6", "at most 1000, got 1200"),
        ("1000d100", "pool too large"),
        ("99999999999999999d6", "too large"),
    ],
)
def test_absurd_sizes_are_clear_errors(text, words):
    with pytest.raises(InputError, match=words):
        parse_dice(text)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"n": -3}, "number of dice must be 0 or more, got -3"),
        ({"n": 2, "sides": 0}, "number of sides must be 1 or more, got 0"),
        ({"n": 2.5}, "number of dice must be a whole number, got 2.5"),
        ({"n": 2, "modifier": "3"}, "modifier must be a whole number"),
    ],
)
def test_sum_of_dice_rejects_bad_values(kwargs, words):
    with pytest.raises(InputError, match=words):
        sum_of_dice(**kwargs)


def test_other_bad_values():
    with pytest.raises(InputError, match="-1"):
        sum_of_dice(-1)
    with pytest.raises(InputError, match="DC must be a whole number"):
        degrees_of_success(3, "15")
    with pytest.raises(InputError, match="counts"):
        Distribution({1: -1})
    with pytest.raises(InputError, match="positive count"):
        Distribution({})
    big = sum_of_dice(1000)
    with pytest.raises(InputError, match="opposed roll too large"):
        margin(big, big)
