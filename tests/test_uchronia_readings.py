"""Uchronia's readings of the seed beside the specification's (issue 28): each switch,
its default, and numbers worked out by hand in the comments."""

from __future__ import annotations

from fractions import Fraction

import pytest

import envs
from envs.uchronia import FIGHT, Bout
from solver import solve_game

F = Fraction


def melee(a="", b="", **options):
    return envs.make("uchronia", mode="melee", a=a, b=b, **options)


def act(game, name: str) -> int:
    return game.action_names.index(name)


def dist(game, state, action_a: str, action_b: str) -> dict:
    out = game.outcomes(state, act(game, action_a), act(game, action_b))
    assert abs(sum(p for p, _ in out) - 1) < 1e-12
    return {s: p for p, s in out}


def start(game):
    return game.initial_outcomes()[0][1]


# ---------------------------------------------------------------- melee.weapon_dice

@pytest.mark.parametrize("reading, a, b, pools", [
    # the weapon table: couteau +1, hache +2, each to its wielder's own pool
    ("always", "weapon=hache", "weapon=couteau", (5, 4)),
    ("always", "weapon=couteau", "", (4, 3)),
    # the seed: a weapon's dice only against a bare-handed foe
    ("against_unarmed", "weapon=hache", "weapon=couteau", (3, 3)),
    ("against_unarmed", "weapon=couteau", "", (4, 3)),
    # the better-armed side gets the difference: hache 2 - couteau 1 = 1
    ("difference", "weapon=hache", "weapon=couteau", (4, 3)),
    ("difference", "weapon=lance", "", (5, 3)),
    # Escrimeur still counts with a duel weapon: épée and canne both +1, difference 0
    ("difference", "escrimeur,weapon=epee", "weapon=canne", (4, 3)),
])
def test_weapon_dice_pools_by_hand(reading, a, b, pools):
    game = melee(a, b, weapon_dice=reading)
    s = start(game)
    assert (game.confrontation_dice(s, "a", FIGHT),
            game.confrontation_dice(s, "b", FIGHT)) == pools


def test_weapon_dice_default_is_the_weapon_table():
    assert melee("weapon=hache", "weapon=couteau")._options["weapon_dice"] == "always"


def test_hache_against_couteau_by_reading():
    # against_unarmed: two armed blades, 3 dice each, neither may grapple: the same
    # game from both sides, worth 0. Under the weapon table the hache's extra die is
    # worth a great deal (the issue's +0.836).
    even = melee("weapon=hache", "weapon=couteau", weapon_dice="against_unarmed")
    assert solve_game(even).value == pytest.approx(0.0, abs=1e-9)
    table = melee("weapon=hache", "weapon=couteau", weapon_dice="always")
    assert solve_game(table).value == pytest.approx(0.836, abs=5e-4)


# ---------------------------------------------------------------- melee.failed_break_off

def test_failed_break_off_round_lost_by_hand():
    # A breaks off: 3d6 against 15 succeeds 20/216 (A flees). Under round_lost a
    # failure is a round that passes: no Confrontation, so B's roll neither wounds nor
    # fumbles. (Under helpless B's whole 3d6 total would be his margin.)
    game = melee(failed_break_off="round_lost")
    out = dist(game, start(game), "break_off", "fight")
    assert out == pytest.approx({Bout(0, 0, 0, 0, 0, 0, 0, ending=8): 20 / 216,
                                 Bout(1, 0, 0, 0, 0, 0, 0): 196 / 216})
    # a fumble from the last round is spent by the round that passed
    fumbled = start(game)._replace(fumble_a=1, fumble_b=1)
    out = dist(game, fumbled, "fight", "break_off")
    # B's break-off with his fumble: 2d6 can never reach 15
    assert out == pytest.approx({Bout(1, 0, 0, 0, 0, 0, 0): 1.0})


def test_failed_break_off_default_is_helpless():
    game = melee()
    assert game._options["failed_break_off"] == "helpless"
    out = dist(game, start(game), "break_off", "fight")
    # helpless: B's 3d6 total is his margin; only a total of 4 (3 ways; 3 is a fumble)
    # is minor and unfumbled, so the round passes unchanged (196/216) * (3/216)
    assert out[Bout(1, 0, 0, 0, 0, 0, 0)] == pytest.approx(196 / 216 * 3 / 216)


def test_round_lost_leaves_both_break_off_as_it_was():
    # both break off: each succeeds 20/216; two failures change nothing either way
    p = 20 / 216
    for reading in ("helpless", "round_lost"):
        game = melee(failed_break_off=reading)
        out = dist(game, start(game), "break_off", "break_off")
        assert out[Bout(0, 0, 0, 0, 0, 0, 0, ending=9)] == pytest.approx(p * p)
        assert out[Bout(1, 0, 0, 0, 0, 0, 0)] == pytest.approx((1 - p) ** 2)
