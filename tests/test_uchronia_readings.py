"""Uchronia's readings of the seed beside the specification's (issue 28): each switch,
its default, and numbers worked out by hand in the comments."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

import envs
from envs.uchronia import FIGHT, Bout, Shot
from solver import solve_game
from solver.errors import InputError

F = Fraction


def faces(n: int):
    """Every roll of n d6, each with probability 1/6**n."""
    return itertools.product(range(1, 7), repeat=n)


def p_total(n: int, low: int, high: int = 10 ** 6) -> Fraction:
    """P(low <= total of n d6 <= high), by enumeration."""
    return F(sum(low <= sum(r) <= high for r in faces(n)), 6 ** n)


def p_out(n: int) -> Fraction:
    """An unhurt target is out after one shot of n dice: 10..14 is Blessé and the 3d6
    resistance against 15 fails; 15..19 is Grièvement Blessé, resisted against 20 (3d6
    never makes it); 20 and more kills."""
    return p_total(n, 10, 14) * (1 - p_total(3, 15)) + p_total(n, 15)


def pistol(a="", b="", **options):
    return envs.make("uchronia", mode="pistol", a=a, b=b, **options)


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


# ---------------------------------------------------------------- pistol.reload_per_turn = 0

def legal(game, state, player: str) -> set[str]:
    return {n for n, ok in zip(game.action_names, game.legal_mask(state, player),
                               strict=True) if ok}


NO_RELOAD = {"pistol": {"reload_per_turn": 0}}


def test_no_reload_an_emptied_duellist_may_stand():
    game = pistol(ruleset=NO_RELOAD)
    empty = Shot(0, 1, 0, 0, 0, 1, 0, 0)
    assert legal(game, empty, "a") == {"advance", "wait"}
    assert legal(game, empty._replace(band=0), "a") == {"wait"}
    # with reloading he reloads instead, and never waits
    assert legal(pistol(), empty, "a") == {"advance", "reload"}
    assert "reload" not in legal(game, empty, "b")  # a loaded gun: fire, aim, ...


def test_no_reload_standing_is_worth_a_die():
    # Two turns left, faible, A emptied, B loaded (duel pistol: faible adds nothing,
    # très faible +1). Only B can shoot, once. If A stands, B's best is aim then fire
    # from faible: 3 + 1 = 4 dice (closing himself gives the same 4: +1 range, no aim).
    # Were A made to advance, B would aim at très faible and fire with 5. A stands:
    # the duel is worth -P(out | 4 dice) to A.
    game = pistol(ruleset=NO_RELOAD, max_turns=2)
    value = solve_game(game, start=Shot(0, 1, 0, 0, 0, 1, 0, 0)).value
    assert value == pytest.approx(-float(p_out(4)), abs=1e-9)
    assert float(p_out(5)) > float(p_out(4)) + 0.05  # advancing would cost him


# ---------------------------------------------------------------- pistol.aim_weapons

def test_aim_weapons_limits_who_may_aim():
    rules = {"pistol": {"aim_weapons": ["duel_pistol"]}}
    game = pistol("weapon=revolver", "", ruleset=rules)
    s = game.initial_outcomes()[0][1]
    assert "aim" not in legal(game, s, "a")
    assert "aim" in legal(game, s, "b")
    everyone = pistol("weapon=revolver", "")  # the default: all three may aim
    assert "aim" in legal(everyone, s, "a")


def test_aim_weapons_refuses_an_unknown_firearm():
    with pytest.raises(InputError, match="aim_weapons.*'musket'.*duel_pistol"):
        pistol(ruleset={"pistol": {"aim_weapons": ["musket"]}})


# ---------------------------------------------------------------- pistol.wound_breaks_aim

def test_wound_breaks_aim_on_one_shot_by_hand():
    # A fires 3 dice at moyenne at B, who aims: a miss (81/216) leaves B's aim; a
    # Blessé B survives (115/216 * 20/216; the 3d6 never cancels it: 25 needed) loses
    # it, his health rose. With the key false the same hit keeps it.
    game = pistol()
    assert game._options["wound_breaks_aim"] is True
    out = dist(game, game.initial_outcomes()[0][1], "fire", "aim")
    assert out[Shot(1, 2, 0, 0, 0, 1, 0, 1)] == pytest.approx(81 / 216)
    assert out[Shot(1, 2, 0, 1, 0, 1, 0, 0)] == pytest.approx(115 / 216 * 20 / 216)
    old = pistol(wound_breaks_aim=False)
    kept = dist(old, old.initial_outcomes()[0][1], "fire", "aim")
    assert kept[Shot(1, 2, 0, 1, 0, 1, 0, 1)] == pytest.approx(115 / 216 * 20 / 216)


def test_a_cancelled_wound_keeps_the_aim():
    # B has Constitution, Colosse and Volonté: 6 resistance dice. A's 3 dice at B who
    # aims: 10..14 Blessé, resisted against 15: 6d6 >= 25 cancels (aim kept), 15..24
    # applies (aim lost), below 15 is out; 15..18 Grièvement Blessé, resisted against
    # 20: >= 30 cancels, 20..29 applies (health 2, aim lost).
    game = pistol("", "constitution,colosse,volonte")
    out = dist(game, game.initial_outcomes()[0][1], "fire", "aim")
    blessed, grave = p_total(3, 10, 14), p_total(3, 15)
    # a miss and a cancelled wound both leave B unhurt and aiming
    assert out[Shot(1, 2, 0, 0, 0, 1, 0, 1)] == pytest.approx(
        float(p_total(3, 0, 9) + blessed * p_total(6, 25) + grave * p_total(6, 30)))
    assert out[Shot(1, 2, 0, 1, 0, 1, 0, 0)] == pytest.approx(
        float(blessed * p_total(6, 15, 24)))
    assert out[Shot(1, 2, 0, 2, 0, 1, 0, 0)] == pytest.approx(
        float(grave * p_total(6, 20, 29)))


def test_wound_breaks_the_second_shooters_aim():
    # A (Adresse) shoots first: 4 dice at moyenne. B aimed last turn and fires back:
    # 3 + aim = 4 dice unhurt. A Blessé B still standing (A's 10..14, B's 3d6 >= 15)
    # replies at his penalty: 3 - 1 = 2 dice if the wound broke his aim, else 3.
    state = Shot(0, 2, 0, 0, 1, 1, 0, 1)
    for breaks, reply in ((True, 2), (False, 3)):
        game = pistol("adresse", "", wound_breaks_aim=breaks)
        out = dist(game, state, "fire", "fire")
        # B wins: A is killed (3) or out of combat (4)
        a_out = out[Shot(0, 0, 0, 0, 0, 0, 0, 0, 3)] + out[Shot(0, 0, 0, 0, 0, 0, 0, 0, 4)]
        expected = (p_total(4, 0, 9) * p_out(4)
                    + p_total(4, 10, 14) * p_total(3, 15) * p_out(reply))
        assert a_out == pytest.approx(float(expected))


# ---------------------------------------------------------------- readings beyond the list

def grapple_won(game, grip_b: int):
    """A won a grapple with a significant margin and applies it (``press``)."""
    chooser = Bout(0, 0, 0, 0, grip_b, 0, 0, chooser=1, intent=1, margin=1)
    return dist(game, chooser, "press", "wait")


IMMOBILISED_B = Bout(0, 0, 0, 0, 0, 0, 0, ending=3)  # A wins: B is immobilised


@pytest.mark.parametrize("b, full_pool", [
    ("", 3),                          # bare hands: 3 dice
    ("pugiliste", 4),                 # Excellent Pugiliste counts, bare-handed
    ("escrimeur,weapon=epee", 5),     # 3 + Escrimeur (duel weapon) + épée
    ("escrimeur,weapon=hache", 5),    # the hache is no duel weapon: 3 + 2
])
def test_immobilisation_against_the_full_pool(b, full_pool):
    # a grapple counter that reaches B's full pool (his Atouts for fighting included)
    # immobilises him; one below it only costs him a die
    game = melee("", b)
    assert grapple_won(game, full_pool - 1) == {IMMOBILISED_B: 1.0}
    below = grapple_won(game, full_pool - 2)
    assert below == {Bout(1, 0, 0, 0, full_pool - 1, 0, 0): 1.0}


def test_disarm_after_the_foes_failed_break_off():
    # A (épée, 4 dice) fights, B (couteau) breaks off: 3d6 >= 15 flees 20/216. On a
    # failure A's whole 4d6 total is his margin; 10 and more is exceptional against an
    # armed foe: A chooses, and may disarm.
    game = melee("weapon=epee", "weapon=couteau")
    out = dist(game, start(game), "fight", "break_off")
    choosing = Bout(0, 0, 0, 0, 0, 0, 0, chooser=1, intent=0, margin=2)
    assert out[choosing] == pytest.approx(float(F(196, 216) * p_total(4, 10)))
    assert legal(game, choosing, "a") == {"press", "disarm"}
    assert dist(game, choosing, "disarm", "wait") == {Bout(0, 0, 0, 0, 0, 0, 0, ending=2): 1}


def test_free_after_the_foes_failed_break_off():
    # A is grappled (grip 1: 3 - 1 = 2 dice) and fights; B breaks off and fails
    # (196/216). A's 2d6 total is his margin: 5..9 significant (A chooses: press or
    # shed one die of grip), 10..12 exceptional (press or free himself entirely).
    game = melee()
    held = start(game)._replace(grip_a=1)
    out = dist(game, held, "fight", "break_off")
    significant = Bout(0, 0, 0, 1, 0, 0, 0, chooser=1, intent=0, margin=1)
    exceptional = significant._replace(margin=2)
    assert out[significant] == pytest.approx(float(F(196, 216) * p_total(2, 5, 9)))
    assert out[exceptional] == pytest.approx(float(F(196, 216) * p_total(2, 10)))
    assert legal(game, significant, "a") == {"press", "free"}
    assert dist(game, significant, "free", "wait") == {Bout(1, 0, 0, 0, 0, 0, 0): 1}
