"""Houses of the Blooded: the seed's readings beside the specification's (issue 28),
each switch, its default, and numbers worked out by hand in the comments."""

from __future__ import annotations

import pytest
from graphs import assert_same_cores, assert_same_graph
from test_blooded import act, faces, legal_names, state

import envs
from envs.blooded import DBIND, RCANCEL, RISK, VICTOR
from envs.blooded.state import BID, DECLARE, PLANS, RESPOND, SPEND
from solver import solve_game
from solver.counters import walk
from solver.errors import InputError
from solver.markov.graph import explore

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


# ---------------------------------------------------------------- bash_cancellable

CANCELLABLE = {"bash_cancellable": True}


def test_bash_attack_cancellable_by_hand():
    # As test_blooded's Bash by enumeration: A (2 dice) bashes with 2 of 4 wagers, B
    # rolls 1 die and always falls. A higher and standing: A attacks with his 2 wagers
    # left. Cancellable, fallen B first cancels c of them with his 2 (a step of B),
    # then takes Injury 3 - c and banks floor((2 - c) / 2).
    game = envs.make("blooded", a="prowess=2,sword=2,strength=1,athletics=1,bash",
                     b="prowess=2,sword=2,strength=0,athletics=1", ruleset=CANCELLABLE)
    s = state(phase=VICTOR, victor=0, wv=4, wd=2)
    attack = sum(1 for r in faces(3) if r[0] + r[1] > r[2] and r[0] + r[1] >= 10) / 216
    got = dict((nxt, p) for p, nxt in act(game, s, "bash"))
    cancel = state(phase=RCANCEL, victor=0, wv=2, wd=2)
    assert got[cancel] == pytest.approx(attack, abs=1e-15)
    assert legal_names(game, cancel, "b") == ["0", "1", "2"]
    for c, rank, bank in ((0, 3, 1), (1, 2, 0), (2, 1, 0)):
        (p, nxt), = act(game, cancel, str(c))
        assert nxt == state(beat=2, aggressor=0, inj_b=rank, bank_b=bank)
    # without the key, the same attack is Injury 3 at once
    plain = envs.make("blooded", a="prowess=2,sword=2,strength=1,athletics=1,bash",
                      b="prowess=2,sword=2,strength=0,athletics=1")
    got = dict((nxt, p) for p, nxt in act(plain, s, "bash"))
    assert got[state(beat=2, aggressor=0, inj_b=3, bank_b=1)] == pytest.approx(attack)


def test_bash_by_the_defeated_cancellable():
    # As test_blooded's Bash by the defeated who stands: B (victor) bashes with 2 of 4
    # and always falls; A, the defeated, stands on 5d6 >= 10 and attacks with his 3
    # wagers. B cancels with his 2 left: the attacker A is the victor of that step.
    game = envs.make("blooded", a="prowess=2,sword=2,strength=2,athletics=3",
                     b="prowess=2,sword=2,strength=0,athletics=0,bash", ruleset=CANCELLABLE)
    s = state(phase=VICTOR, aggressor=0, victor=1, wv=4, wd=3)
    stand = sum(1 for roll in faces(5) if sum(roll) >= 10) / 6 ** 5
    got = dict((nxt, p) for p, nxt in act(game, s, "bash"))
    assert got[state(phase=RCANCEL, aggressor=0, victor=0, wv=3, wd=2)] == pytest.approx(stand)


# ---------------------------------------------------------------- riposte_rolls

def test_a_riposte_that_rolls_by_hand():
    # B (defender victor, Prowess 1 + The Sword 2) ripostes with 5 wagers: 3 paid, 2
    # left, A has none to cancel with. The riposte is a risk of 3d6 against 10: 135/216
    # lands (Injury 1 + 2 = 3 to A), 81/216 misses (B banks floor(2/2) = 1). B is
    # aggressor next beat either way ("a riposte does not count as an attack").
    game = envs.make("blooded", a="prowess=2,sword=2", b="prowess=1,sword=2,riposte",
                     ruleset={"riposte_rolls": True})
    s = state(phase=VICTOR, aggressor=0, victor=1, wv=5, wd=0)
    got = dict((nxt, p) for p, nxt in act(game, s, "riposte"))
    assert got == pytest.approx({state(beat=2, aggressor=1, inj_a=3): 135 / 216,
                                 state(beat=2, aggressor=1, bank_b=1): 81 / 216})
    # the specification's Riposte always lands
    sure = envs.make("blooded", a="prowess=2,sword=2", b="prowess=1,sword=2,riposte")
    assert dict((nxt, p) for p, nxt in act(sure, s, "riposte")) == {
        state(beat=2, aggressor=1, inj_a=3): 1.0}


def test_a_riposte_rolls_before_the_cancellation():
    # with wagers to cancel with, a landed riposte (135/216) leads to A's cancellation
    # step; a miss banks B's 3 left (1 Style) and A's 2 (1)
    game = envs.make("blooded", a="prowess=2,sword=2", b="prowess=1,sword=2,riposte",
                     ruleset={"riposte_rolls": True})
    s = state(phase=VICTOR, aggressor=0, victor=1, wv=6, wd=2)
    got = dict((nxt, p) for p, nxt in act(game, s, "riposte"))
    assert got == pytest.approx({
        state(phase=RCANCEL, aggressor=0, victor=1, wv=3, wd=2): 135 / 216,
        state(beat=2, aggressor=1, bank_a=1, bank_b=1): 81 / 216})


# ---------------------------------------------------------------- declaration

def plan(name: str) -> int:
    return PLANS.index(name)


def test_declarations_come_before_the_risk_aggressor_first():
    # A wins the bid (3 against 0) and attacks: he declares first (Injure, Lunge or
    # Bash, his maneuvers that end a sequence), B waits; then B, knowing it, declares
    # (Parry or Riposte); then the secret wagers.
    game = envs.make("blooded", a="prowess=2,sword=2,strength=1,lunge,bash",
                     b="prowess=2,sword=2,riposte", declaration="before")
    (_, chose), = game.outcomes(game.start(), 3, 0)
    (_, declaring), = act(game, chose, "aggressor")
    assert declaring == state(phase=DECLARE, aggressor=0, bid_a=3)
    assert legal_names(game, declaring, "a") == ["declare_injure", "declare_lunge",
                                                 "declare_bash"]
    assert legal_names(game, declaring, "b") == ["wait"]
    (_, responding), = act(game, declaring, "declare_lunge")
    assert responding == state(phase=RESPOND, aggressor=0, bid_a=3, plan_a=plan("lunge"))
    assert legal_names(game, responding, "b") == ["declare_parry", "declare_riposte"]
    (_, risk), = act(game, responding, "declare_riposte")
    assert risk == responding._replace(phase=RISK, plan_b=plan("riposte"))
    # both see both declarations
    assert game.observe(risk, "b")[-2:] == (plan("riposte"), plan("lunge"))


def test_a_lone_declaration_is_made_at_once():
    # B knows no maneuver: as defender he can only declare Parry, so that step is
    # played at once; A still declares
    game = envs.make("blooded", a="prowess=2,sword=2,bash", b="prowess=2,sword=2",
                     declaration="before")
    (_, chose), = game.outcomes(game.start(), 1, 0)
    (_, declaring), = act(game, chose, "aggressor")
    assert declaring.phase == DECLARE
    (_, risk), = act(game, declaring, "declare_bash")
    assert risk == state(phase=RISK, bid_a=1, plan_a=plan("bash"), plan_b=plan("parry"))


def test_the_victor_makes_what_he_declared():
    game = envs.make("blooded", a="prowess=2,sword=2,strength=1,lunge,feint,bash",
                     b="prowess=2,sword=2", declaration="before")
    lunge = state(phase=VICTOR, victor=0, wv=4, wd=0, plan_a=plan("lunge"),
                  plan_b=plan("parry"))
    # a Feint may still come first; then only the Lunge, with 0..2 wagers added
    assert legal_names(game, lunge, "a") == ["feint", "lunge0", "lunge1", "lunge2"]
    # he cannot pay for it (1 wager, the Lunge costs 2): the basic Injure of his role
    short = lunge._replace(wv=1)
    assert legal_names(game, short, "a") == ["injure0", "injure1"]
    # after the dice, today's victor chooses among them all
    after = envs.make("blooded", a="prowess=2,sword=2,strength=1,lunge,feint,bash",
                      b="prowess=2,sword=2")
    assert set(legal_names(after, lunge._replace(plan_a=0, plan_b=0), "a")) >= {
        "feint", "injure0", "lunge0", "bash"}


def test_the_defeated_binds_only_if_he_declared_it():
    # A is defeated with 3 wagers and knows Bind: he may Bind (pay 2) only if he
    # declared it; otherwise the step is skipped and B, the victor, parries (both
    # bank floor(w / 2): B's 2 -> 1, A's 3 -> 1) and attacks next beat, where B (no
    # maneuver) can only declare Injure and A answers: Parry or Bind
    game = envs.make("blooded", a="prowess=2,sword=2,bind", b="prowess=2,sword=2",
                     declaration="before")
    declared = state(phase=DBIND, aggressor=0, victor=1, wv=2, wd=3, plan_a=plan("bind"),
                     plan_b=plan("parry"))
    assert set(legal_names(game, declared, "a")) == {"bind", "pass"}
    out = game._settle(declared._replace(plan_a=plan("injure")))
    assert out == state(beat=2, phase=RESPOND, aggressor=1, bank_a=1, bank_b=1,
                        plan_b=plan("injure"))


def test_without_maneuvers_declaring_first_changes_nothing():
    # with no maneuver on either sheet every declaration is forced (Injure attacking,
    # Parry defending): the same duel
    sheets = {"a": "prowess=2,sword=1,invokes=0", "b": "prowess=1,sword=2,invokes=0",
              "max_beats": 2, "convention": "first_blood"}
    before = solve_game(envs.make("blooded", declaration="before", **sheets))
    after = solve_game(envs.make("blooded", **sheets))
    for field in ("value", "win", "draw", "loss"):
        assert getattr(before, field) == pytest.approx(getattr(after, field), abs=1e-12)


def test_declaring_first_is_worth_no_more_than_choosing_after():
    # Whoever wins the risk can always make, after the dice, what he would have
    # declared before; declaring first only removes choices, from both sides. On this
    # duel the one with more maneuvers (B: Bash, Riposte, Bind) loses the most.
    sheets = {"a": "prowess=2,sword=1,feint,riposte,bash,lunge",
              "b": "prowess=1,sword=2,style=2,bash,riposte,bind",
              "max_beats": 2, "convention": "first_blood"}
    before = solve_game(envs.make("blooded", declaration="before", **sheets)).value
    after = solve_game(envs.make("blooded", **sheets)).value
    assert before > after + 0.1


# ---------------------------------------------------------------- auto_spend_style = false

MANUAL = {"auto_spend_style": False}


def test_chosen_spend_opens_the_beat_by_hand():
    # B has 3 Style banked, A none: the duel opens with the spend, both at once; A can
    # only spend 0, B 0..3. Spending 2: B gathers 1 + 2 + 2 + 3 (the invoke) = 8 dice
    # for the bid, and after the roll keeps 3 - 2 = 1 in the bank.
    game = envs.make("blooded", a="prowess=2,sword=1", b="prowess=1,sword=2,style=3",
                     ruleset=MANUAL)
    opening = game.start()
    assert opening == state(phase=SPEND, bank_b=3)
    assert legal_names(game, opening, "a") == ["0"]
    assert legal_names(game, opening, "b") == ["0", "1", "2", "3"]
    (_, bid), = game.outcomes(opening, 0, 2)
    assert bid == state(phase=BID, bank_b=3, spend_b=2)
    assert game.pool(bid, 1) == 8 and game.pool(bid, 0) == 2 + 1 + 3
    risk = bid._replace(phase=RISK, aggressor=0)
    assert game._risk_base(risk).bank_b == 1
    # the automatic spend takes all 3 at once, with no step
    auto = envs.make("blooded", a="prowess=2,sword=1", b="prowess=1,sword=2,style=3")
    assert auto.start() == state(phase=BID, bank_b=3)
    assert auto.pool(auto.start(), 1) == 9


def test_chosen_spend_is_capped_and_skipped_without_style():
    game = envs.make("blooded", a="style=7", b="", ruleset=MANUAL)
    assert legal_names(game, game.start(), "a") == [str(k) for k in range(6)]  # cap 5
    # nobody has Style: no spend step
    plain = envs.make("blooded", ruleset=MANUAL)
    assert plain.start().phase == BID


def test_chosen_spend_before_a_later_beat_keeps_the_roles():
    # B parries with 4 wagers against A's 3: both bank 2 and 1; beat 2 opens with the
    # spend (A 0..1, B 0..2), B the aggressor, then the risk
    game = envs.make("blooded", a="prowess=2,sword=2", b="prowess=2,sword=2", ruleset=MANUAL)
    victor = state(phase=VICTOR, aggressor=0, victor=1, wv=4, wd=3)
    (_, nxt), = act(game, victor, "parry")
    assert nxt == state(beat=2, phase=SPEND, aggressor=1, bank_a=1, bank_b=2)
    (_, risk), = game.outcomes(nxt, 1, 0)
    assert risk == nxt._replace(phase=RISK, spend_a=1)


# ---------------------------------------------------------------- every reading, every path

READINGS = [{"bash_cancellable": True}, {"riposte_rolls": True},
            {"bash_cancellable": True, "riposte_rolls": True, "bid_tie": "b"},
            {"declaration": "before"},
            {"declaration": "before", "riposte_rolls": True, "bash_cancellable": True},
            {"auto_spend_style": False}]
DUEL = {"a": "prowess=2,sword=1,feint,riposte,bash", "b": "prowess=1,sword=2,style=2,bash,riposte",
        "max_beats": 2}


# a chosen Style spend in a mortal duel multiplies the cores past what a test may hold
# (over 7 GB): that reading is checked to first blood only
CASES = [(convention, ruleset) for convention in ("first_blood", "mortal") for ruleset in READINGS
         if not (convention == "mortal" and ruleset.get("auto_spend_style") is False)]


@pytest.mark.parametrize("convention, ruleset", CASES)
def test_readings_keep_the_reductions_and_the_fast_paths_exact(ruleset, convention):
    options = dict(DUEL, convention=convention, ruleset=ruleset)
    reduced = envs.make("blooded", **options)
    plain = envs.make("blooded", reductions=False, **options)
    one, other = solve_game(reduced), solve_game(plain)
    for field in ("value", "win", "draw", "loss"):
        assert getattr(one, field) == pytest.approx(getattr(other, field), abs=1e-12)
    assert_same_cores(reduced.cores(), walk(envs.make("blooded", **options)))
    assert_same_graph(reduced.graph(), explore(envs.make("blooded", **options)))
