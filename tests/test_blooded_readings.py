"""Houses of the Blooded: the seed's readings beside the specification's (issue 28),
each switch, its default, and numbers worked out by hand in the comments."""

from __future__ import annotations

import pytest

import envs
from solver import solve_game
from solver.errors import InputError

# ---------------------------------------------------------------- the Style bank cap in force

def test_sheet_style_is_bounded_by_the_bank_cap_in_force():
    # a ruleset that raises the cap to 20 accepts a sheet with 15 banked
    game = envs.make("blooded", a="style=15", ruleset={"style_bank_cap": 20})
    assert game.start().bank_a == 15
    # the default cap (10) still refuses it, naming what is allowed
    with pytest.raises(InputError, match="style 15.*0..10"):
        envs.make("blooded", a="style=15")
    # and a lowered cap refuses what the default would allow
    with pytest.raises(InputError, match="style 8.*0..5"):
        envs.make("blooded", a="style=8", ruleset={"style_bank_cap": 5})


# ---------------------------------------------------------------- bid_tie

def tied_bid(ruleset_tie: str, a: str, b: str):
    """[(p, who chooses the role)] after both bid 0."""
    game = envs.make("blooded", a=a, b=b, ruleset={"bid_tie": ruleset_tie})
    out = game.outcomes(game.start(), 0, 0)
    return sorted((p, "ab"[s.victor]) for p, s in out)


@pytest.mark.parametrize("tie, a, b, expected", [
    # the default: the higher Prowess chooses; equal Prowess, a fair coin
    ("prowess_then_coin", "prowess=2", "prowess=1", [(1.0, "a")]),
    ("prowess_then_coin", "prowess=2", "prowess=2", [(0.5, "a"), (0.5, "b")]),
    # a fair coin whatever the Prowess
    ("coin", "prowess=2", "prowess=1", [(0.5, "a"), (0.5, "b")]),
    # one side always chooses, whatever the Prowess
    ("a", "prowess=1", "prowess=5", [(1.0, "a")]),
    ("b", "prowess=5", "prowess=1", [(1.0, "b")]),
])
def test_bid_tie_readings(tie, a, b, expected):
    assert tied_bid(tie, a, b) == expected


def test_bid_tie_unknown_is_refused():
    with pytest.raises(InputError, match="bid_tie.*'rebid'.*prowess_then_coin, coin, a, b"):
        envs.make("blooded", ruleset={"bid_tie": "rebid"})


def test_bid_tie_values_in_order():
    # A has the higher Prowess, so the default gives him every tie, as "a" does; the
    # choice of role can only help whoever holds it: a coin lies between "b" and "a"
    sheets = {"a": "prowess=2,sword=1,invokes=0", "b": "prowess=1,sword=2,invokes=0",
              "max_beats": 2, "convention": "first_blood"}

    def value(tie):
        return solve_game(envs.make("blooded", ruleset={"bid_tie": tie}, **sheets)).value

    assert value("prowess_then_coin") == pytest.approx(value("a"), abs=1e-12)
    assert value("b") - 1e-12 <= value("coin") <= value("a") + 1e-12
    assert value("b") < value("a")
