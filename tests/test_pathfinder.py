"""Pathfinder 2e duels: checks, damage, reactions, conditions and a one-round duel, each
number derived by hand (reasoning in the comment) or by enumeration written here."""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction

import numpy as np
import pytest

import envs
from envs.pathfinder.rules import (
    CRIT,
    CRIT_FAIL,
    FAIL,
    SUCCESS,
    TurnContext,
    damage_distribution,
    degree_probabilities,
    initiative_first,
    resolve_turn,
)
from envs.pathfinder.state import DECIDE, FIRST, OVER, SECOND, State
from experiments.reference import linprog_value
from solver import InputError, solve_game

ONE_STRIKE = {"plans": {"strike3": ["strike"]}}


def make(a="fighter", b="fighter", **options):
    return envs.make("pathfinder", a=a, b=b, **options)


def action(game, skill, order, plan):
    return game.action_names.index(f"{skill}-{order}-{plan}")


def turn(game, actor="a", plan=0, actor_skill=0, target_skill=1, fr_actor=0, fr_target=0,
         off_guard=False, shield=False, cap=99):
    """One turn; by default the actor rolled Deception (no reaction in his own turn) and
    the target Intimidation (no Sidestep), so no reaction plays."""
    target = "b" if actor == "a" else "a"
    ctx = TurnContext(plan, actor_skill, target_skill, fr_actor, fr_target, off_guard, shield,
                      cap)
    return resolve_turn(game.fighters[actor], game.fighters[target], ctx, game.rules)


def marginal(outcomes, index):
    out: dict = {}
    for p, key in outcomes:
        out[key[index]] = out.get(key[index], 0.0) + p
    return out


# -- checks

def test_strike_degrees_by_hand():
    # +9 against AC 18: faces 9..20 reach 18; 19 and 20 reach 28 (critical); faces 2..8
    # give 11..17, a failure; face 1 gives 10, a failure lowered to a critical failure.
    p = degree_probabilities(9, 18)
    assert p[CRIT] == pytest.approx(2 / 20)
    assert p[SUCCESS] == pytest.approx(10 / 20)
    assert p[FAIL] == pytest.approx(7 / 20)
    assert p[CRIT_FAIL] == pytest.approx(1 / 20)


def test_natural_twenty_and_one_edges():
    # +30 against 18: every face reaches 28, a critical; the natural 1 lowers it to a success
    assert degree_probabilities(30, 18) == pytest.approx((0, 0, 1 / 20, 19 / 20))
    # +0 against 30: 20 is DC - 10, a critical failure; the natural 20 raises it to a
    # failure only, so no face ever hits
    assert degree_probabilities(0, 30) == pytest.approx((19 / 20, 1 / 20, 0, 0))
    # +7 against 18: face 20 gives 27 (a success), raised to a critical; 19 gives 26
    assert degree_probabilities(7, 18)[CRIT] == pytest.approx(1 / 20)
    # +1 against 20: faces 1..9 give 2..10 <= DC - 10 (critical failures), 10..18 fail,
    # 19 gives 20 (success), 20 gives 21, a success raised to a critical
    assert degree_probabilities(1, 20) == pytest.approx((9 / 20, 9 / 20, 1 / 20, 1 / 20))


def test_initiative_by_enumeration_and_tie_break():
    def brute(mod_a, mod_b):
        wins = Fraction(0)
        for x, y in itertools.product(range(1, 21), repeat=2):
            if x + mod_a != y + mod_b:
                wins += x + mod_a > y + mod_b
            else:
                wins += 1 if mod_a > mod_b else Fraction(1, 2) if mod_a == mod_b else 0
        return wins / 400
    assert initiative_first(3, 3) == pytest.approx(0.5)
    for mods in ((7, 3), (3, 7), (6, 5), (0, -2)):
        assert initiative_first(*mods) == pytest.approx(float(brute(*mods)))
    # +1 against +0: A wins the 190 pairs with x > y + 1... by hand: A wins when x >= y
    # (ties of the total x + 1 = y + 0 go to the higher modifier, A): 210 pairs, plus
    # the 19 pairs with y = x + 1, where the totals tie: 229 / 400
    assert initiative_first(1, 0) == pytest.approx(229 / 400)


def test_initiative_ties_to_b_by_hand():
    # +1 against +0: A's total beats B's when y <= x (210 of the 400 pairs); the 19 ties
    # (y = x + 1) now go to B: 210 / 400 (229 / 400 under the higher modifier)
    assert initiative_first(1, 0, ties="b_first") == pytest.approx(210 / 400)
    # +3 against +3: the 20 ties (x = y) go to B, A wins the 190 pairs x > y
    assert initiative_first(3, 3, ties="b_first") == pytest.approx(190 / 400)
    # -5 against +0 (A frightened, say): A needs x - 5 > y, so y <= x - 6: 14+13+...+1 =
    # 105 pairs; the 15 ties x = y + 5 went to B already (higher modifier)
    assert initiative_first(-5, 0, ties="b_first") == pytest.approx(105 / 400)
    assert initiative_first(-5, 0) == pytest.approx(105 / 400)
    game = make(initiative_tie="b_first")
    a = action(game, "perception", "first", "strike3")
    assert game.first_probability(game.start(), a, a) == pytest.approx(190 / 400)
    # the ruleset's key gives the default; the old spelling is the higher modifier
    assert make(ruleset={"initiative": {"tie_break": "b_first"}}).first_probability(
        game.start(), a, a) == pytest.approx(190 / 400)
    assert make(ruleset={"initiative": {"tie_break": "modifier_then_coin"}}
                ).first_probability(game.start(), a, a) == pytest.approx(0.5)
    with pytest.raises(InputError, match="b_first"):
        make(initiative_tie="coin")


# -- damage

def test_damage_of_longsword_and_its_critical():
    game = make()
    normal = damage_distribution(((1, 8),), 4, False, game.rules)
    assert normal == pytest.approx({d: 1 / 8 for d in range(5, 13)})
    critical = damage_distribution(((1, 8),), 4, True, game.rules)
    assert critical == pytest.approx({2 * d: 1 / 8 for d in range(5, 13)})


def test_damage_with_sneak_attack_doubled():
    game = make()
    counts: dict[int, int] = {}
    for d8, d6 in itertools.product(range(1, 9), range(1, 7)):
        counts[2 * (d8 + d6 + 4)] = counts.get(2 * (d8 + d6 + 4), 0) + 1
    expected = {k: v / 48 for k, v in counts.items()}
    got = damage_distribution(((1, 8), (1, 6)), 4, True, game.rules)
    assert got == pytest.approx(expected)
    # the extreme totals 2 * (1 + 1 + 4) and 2 * (8 + 6 + 4) each have one way in 48
    assert got[12] == pytest.approx(1 / 48) and got[36] == pytest.approx(1 / 48)


def test_minimum_damage_then_doubled():
    game = make()
    # 1d4-3: the rolls 1, 2, 3 would deal 0 or less and deal 1; 4 deals 1
    assert damage_distribution(((1, 4),), -3, False, game.rules) == pytest.approx({1: 1.0})
    assert damage_distribution(((1, 4),), -3, True, game.rules) == pytest.approx({2: 1.0})


def test_rogue_sneak_attack_only_when_off_guard():
    game = make(a="rogue", ruleset=ONE_STRIKE)
    # +7 against AC 18: crit 1/20 (face 20), success faces 11..19: 9/20
    plain = marginal(turn(game, "a", 0), 0)
    assert plain[0] == pytest.approx(10 / 20)
    assert sum(p * d for d, p in plain.items()) == pytest.approx(
        9 / 20 * 7.5 + 1 / 20 * 15)
    # off-guard: AC 16, success faces 9..18 (10/20), crit 19, 20 (2/20); hits add 1d6
    sneaky = marginal(turn(game, "a", 0, off_guard=True), 0)
    assert sum(p * d for d, p in sneaky.items()) == pytest.approx(
        10 / 20 * 11 + 2 / 20 * 22)


def test_sneak_attack_needs_an_agile_or_finesse_weapon():
    # the reference rogue's shortsword is agile and finesse (the specification)
    assert make(a="rogue").fighters["a"].finesse
    with pytest.raises(InputError, match="agile or finesse"):
        make(a="fighter,sneak=1d6")
    with pytest.raises(InputError, match="agile or finesse"):
        make(b="rogue,agile=false,finesse=false")
    # a finesse weapon that is not agile keeps Sneak Attack: one Strike (no multiple
    # attack penalty) off-guard as in test_rogue_sneak_attack_only_when_off_guard: AC 16,
    # +7 succeeds on faces 9..18 (10/20) for 1d6+4 + 1d6 (mean 11), crits on 19, 20 (22)
    game = make(a="rogue,agile=false", ruleset=ONE_STRIKE)
    sneaky = marginal(turn(game, "a", 0, off_guard=True), 0)
    assert sum(p * d for d, p in sneaky.items()) == pytest.approx(
        10 / 20 * 11 + 2 / 20 * 22)
    # and a fighter with no Sneak Attack needs neither
    assert not make(a="fighter").fighters["a"].sneak


# -- the multiple attack penalty

def test_multiple_attack_penalty_normal_and_agile():
    fighter = make(a="fighter,damage=1d1+0", b="fighter,hp=99")
    # strikes at +9, +4, -1 against 18: hit 12/20, 7/20 (faces 14..20; 20 gives 24,
    # a success raised to critical), 2/20 (faces 19, 20: 18 and 19 hit)
    miss = (8 / 20) * (13 / 20) * (18 / 20)
    assert marginal(turn(fighter, "a", 0), 0)[0] == pytest.approx(miss)
    rogue = make(a="rogue,damage=1d1+0,sneak=0", b="fighter,hp=99")
    # agile: +7, +3, -1: hit 10/20, 6/20 (faces 15..20), 2/20
    miss = (10 / 20) * (14 / 20) * (18 / 20)
    assert marginal(turn(rogue, "a", 0), 0)[0] == pytest.approx(miss)


# -- the reactions and the cycle

def test_bullying_press_frightens_on_a_hit():
    # B untrained in Deception: his Sidestep cannot mix in
    game = make(b="fighter,deception=3:untrained", ruleset=ONE_STRIKE)
    intim, deception, perception = 1, 0, 2
    # the declared Strike hits 12/20: frightened 1, or 2 against Perception
    fright = marginal(turn(game, "a", 0, actor_skill=intim, target_skill=deception), 1)
    assert fright == pytest.approx({0: 8 / 20, 1: 12 / 20})
    fright = marginal(turn(game, "a", 0, actor_skill=intim, target_skill=perception), 1)
    assert fright == pytest.approx({0: 8 / 20, 2: 12 / 20})
    # untrained in Intimidation: no reaction
    untrained = make(a="fighter,intimidation=3:untrained", ruleset=ONE_STRIKE)
    fright = marginal(turn(untrained, "a", 0, actor_skill=intim, target_skill=perception), 1)
    assert fright == pytest.approx({0: 1.0})


def test_bullying_press_lowers_ac_for_later_strikes():
    # two strikes, 1 damage a hit, critical hits not doubled: damage counts the hits
    rules = {"plans": {"strike3": ["strike", "strike"]}, "strike": {"critical_multiplier": 1}}
    game = make(a="fighter,damage=1d1+0", b="fighter,hp=99,deception=3:untrained",
                ruleset=rules)
    # strike 1 at +9 v 18 hits 12/20 and frightens B (AC 17): strike 2 at +4 then hits
    # faces 13..20 (8/20), else faces 14..20 (7/20)
    pressed = marginal(turn(game, "a", 0, actor_skill=1, target_skill=0), 0)
    assert sum(p * d for d, p in pressed.items()) == pytest.approx(
        12 / 20 + 12 / 20 * 8 / 20 + 8 / 20 * 7 / 20)
    plain = marginal(turn(game, "a", 0, actor_skill=0, target_skill=0), 0)
    assert sum(p * d for d, p in plain.items()) == pytest.approx(12 / 20 + 7 / 20)


def test_deceptive_sidestep_and_its_penalty():
    game = make(ruleset=ONE_STRIKE)
    # A strikes at +9 against B's AC 18. B chose Deception and is trained: the first
    # exact success (10/20) is rerolled; the reroll's degree stands.
    hit = 2 / 20 + 10 / 20 * 12 / 20
    assert 1 - marginal(turn(game, "a", 0, actor_skill=0, target_skill=0), 0)[0] == \
        pytest.approx(hit)
    # A chose Intimidation: the reroll is at +7: hits 10/20 (crit 1/20)
    hit = 2 / 20 + 10 / 20 * 10 / 20
    assert 1 - marginal(turn(game, "a", 0, actor_skill=1, target_skill=0), 0)[0] == \
        pytest.approx(hit)
    # crits of the reroll deal double: expected damage 2/20*17 + 10/20*(10/20*8.5 + 2/20*17)
    dmg = marginal(turn(game, "a", 0, actor_skill=0, target_skill=0), 0)
    assert sum(p * d for d, p in dmg.items()) == pytest.approx(
        2 / 20 * 17 + 10 / 20 * (10 / 20 * 8.5 + 2 / 20 * 17))


def test_sidestep_spent_on_first_success_only():
    game = make(a="fighter,damage=1d1+0", b="fighter,hp=99",
                ruleset={"plans": {"strike3": ["strike", "strike"]}})
    # first strike +9: crit 2/20 (sidestep kept), success 10/20 (spent, reroll hits
    # 12/20), miss 8/20 (kept). Second strike +4: crit 1/20 (20 -> 24, raised),
    # success 6/20 (faces 14..19), miss 13/20; with sidestep kept its success rerolls:
    # hits 1/20 + 6/20 * 7/20.
    kept_hit = 1 / 20 + 6 / 20 * 7 / 20
    plain_hit = 7 / 20
    p_none = (8 / 20) * (1 - kept_hit) + (10 / 20) * (8 / 20) * (1 - plain_hit)
    out = marginal(turn(game, "a", 0, actor_skill=0, target_skill=0), 0)
    assert out[0] == pytest.approx(p_none)


def test_sense_weakness_one_strike_or_lingering():
    game = make(a="fighter,damage=1d1+0", b="fighter,hp=99",
                ruleset={"plans": {"strike3": ["strike", "strike"]}})
    # first strike off-guard: +9 v 16 hits 14/20; second +4 v 18 hits 7/20
    out = turn(game, "a", 0, actor_skill=2, target_skill=1)
    assert marginal(out, 0)[0] == pytest.approx(6 / 20 * 13 / 20)
    assert marginal(out, 2) == pytest.approx({False: 1.0})
    # against Deception the target stays off-guard: second +4 v 16 hits 9/20, and the
    # off-guard lingers past the turn (until the start of his next turn)
    out = turn(game, "a", 0, actor_skill=2, target_skill=0)
    # B's Sidestep (he chose Deception, trained) rerolls the first exact success.
    # First strike +9 v 16: crit faces 17..20 (4/20), success 7..16 (10/20, rerolled:
    # misses 6/20), miss 6/20 (Sidestep kept). Second +4 v 16: crit on 20 (24, raised),
    # success 12..19 (8/20): with Sidestep kept it misses 1 - (1/20 + 8/20 * 9/20) =
    # 0.77, once spent 11/20.
    p_none = 6 / 20 * 0.77 + 10 / 20 * 6 / 20 * 11 / 20
    assert marginal(out, 0)[0] == pytest.approx(p_none)
    assert marginal(out, 2) == pytest.approx({True: 1.0})


# -- Feint, Demoralize, frightened, off-guard across turns

def test_feint_three_degrees():
    game = make(a="fighter,damage=1d1+0", b="fighter,hp=99")
    feint = game.rules.plan_names.index("feint_strike2")
    out = turn(game, "a", feint)
    # Deception +3 v Perception DC 16: crit only on 20 (23, raised), success 13..19
    # (7/20), failure 4..12, critical failure on 1..3 (totals 4..6 <= DC - 10)
    assert marginal(out, 3) == pytest.approx({True: 1 / 20, False: 19 / 20})
    assert marginal(out, 4) == pytest.approx({True: 3 / 20, False: 17 / 20})
    # no damage: after a success only the first strike is off-guard (+9 v 16 misses
    # 6/20, then +4 v 18 misses 13/20); after a critical both are (6/20, +4 v 16: 11/20);
    # otherwise 8/20 and 13/20
    miss = 7 / 20 * 6 / 20 * 13 / 20 + 1 / 20 * 6 / 20 * 11 / 20 + 12 / 20 * 8 / 20 * 13 / 20
    assert marginal(out, 0)[0] == pytest.approx(miss)


def test_feint_needs_deception_training():
    game = make(a="fighter,deception=3:untrained")
    names = [game.action_names[i] for i in np.flatnonzero(game.legal_mask(game.start(), "a"))]
    assert not any("feint" in n for n in names)
    assert not any("shield" in n for n in names)  # no shield either
    assert any("demoralize" in n for n in names)


def test_demoralize_frightens_and_leaves_immunity():
    game = make(a="fighter,damage=1d1+0", b="fighter,hp=99")
    dem = game.rules.plan_names.index("demoralize_strike2")
    # Intimidation +3 v Will 16: crit on 20 only (23 raised), success 13..19 (7/20)
    fright = marginal(turn(game, "a", dem), 1)
    assert fright == pytest.approx({0: 12 / 20, 1: 7 / 20, 2: 1 / 20})
    state = State(phase=FIRST, hp_a=20, hp_b=20, plan_a=dem, plan_b=0, first=0)
    after = {s.dem_a for _, s in game.outcomes(state, game.wait, game.wait)}
    assert after == {1}
    later = State(hp_a=20, hp_b=20, dem_a=1)
    assert not any("demoralize" in game.action_names[i]
                   for i in np.flatnonzero(game.legal_mask(later, "a")))


def test_frightened_decays_at_the_end_of_its_owners_turn():
    game = make(a="fighter,hp=50", b="fighter,hp=50")
    # A frightened 2 acts first: at the end of his turn he is frightened 1; B's turn
    # does not lower A's value.
    state = State(phase=FIRST, hp_a=50, hp_b=50, fr_a=2, fr_b=2, first=0)
    mids = [(p, s) for p, s in game.outcomes(state, game.wait, game.wait) if s.phase != OVER]
    assert {s.fr_a for _, s in mids} == {1}
    assert {s.fr_b for _, s in mids} == {2}
    mid = mids[0][1]
    assert mid.phase == SECOND
    ends = game.outcomes(mid, game.wait, game.wait)
    assert {s.fr_a for _, s in ends if s.phase == DECIDE} == {1}
    assert {s.fr_b for _, s in ends if s.phase == DECIDE} == {1}


def test_frightened_lowers_strikes_and_ac():
    game = make(a="fighter,damage=1d1+0", b="fighter,hp=99", ruleset=ONE_STRIKE)
    # A frightened 2 strikes at +7 v 18 (10/20); B frightened 2 has AC 16: +9 hits 14/20
    assert 1 - marginal(turn(game, "a", 0, fr_actor=2), 0)[0] == pytest.approx(10 / 20)
    assert 1 - marginal(turn(game, "a", 0, fr_target=2), 0)[0] == pytest.approx(14 / 20)


def test_shield_raised_until_the_owners_next_turn():
    game = make(a="fighter,shield", b="fighter")
    plan = game.rules.plan_names.index("strike2_shield")
    state = State(phase=FIRST, hp_a=20, hp_b=20, plan_a=plan, plan_b=0, first=0)
    mids = [s for _, s in game.outcomes(state, game.wait, game.wait) if s.phase != OVER]
    assert {s.sh_a for s in mids} == {1}
    # B's strikes now face AC 20: +9 hits faces 11..20, so B misses all three with
    # P = 10/20 * 15/20 * 20/20... third at -1 needs 21: only the natural 20 (a failure
    # raised to success) hits: 19/20
    # (A rolled Intimidation, so no Sidestep of his mixes in)
    mid = State(phase=SECOND, hp_a=99, hp_b=20, sh_a=1, skill_a=1, first=0)
    game99 = make(a="fighter,shield,hp=99", b="fighter")
    ends = game99.outcomes(mid, game99.wait, game99.wait)
    missed = sum(p for p, s in ends if s.hp_a == 99)
    assert missed == pytest.approx(10 / 20 * 15 / 20 * 19 / 20)


def test_off_guard_carries_to_the_next_round():
    game = make(a="fighter,hp=50", b="fighter,hp=50")
    feint = game.rules.plan_names.index("feint_strike2")
    # A acts second and critically feints (1/20): B is off-guard through A's next turn
    state = State(phase=SECOND, hp_a=50, hp_b=50, plan_a=feint, first=1)
    ends = game.outcomes(state, game.wait, game.wait)
    assert sum(p for p, s in ends if s.og_b == 2) == pytest.approx(1 / 20)
    # and the critical failure (3/20) leaves A off-guard until his next turn
    assert sum(p for p, s in ends if s.og_a & 1) == pytest.approx(3 / 20)


def test_feint_lasting_one_turn_ends_with_the_feinters_turn():
    # A (Deception, no reaction in his turn) feints B (Intimidation, no Sidestep), then
    # strikes twice for exactly 1 (2 on a critical). Feint +3 against DC 16: critical on
    # face 20 (1/20), success on 13..19 (7/20), critical failure on 1..3 (3/20).
    # Strikes: +9 against AC 16 hits 7..16 and crits 17..20: E = 10/20 + 2 * 4/20 = 18/20;
    # against 18, 9..18 and 19..20: 14/20; +4 against 16, 12..19 and 20: 10/20; against
    # 18, 14..19 and 20: 8/20. A critical Feint makes both off-guard (28/20), a success
    # the first (26/20), else neither (22/20): E = (28 + 7 * 26 + 12 * 22) / 400.
    feint = make().rules.plan_names.index("feint_strike2")
    state = State(phase=SECOND, hp_a=50, hp_b=50, plan_a=feint, skill_a=0, skill_b=1,
                  first=1)
    for turns in (1, 2):
        game = make(a="fighter,hp=50,damage=1d1+0", b="fighter,hp=50",
                    ruleset={"conditions": {"feint_lasting_turns": turns}})
        ends = game.outcomes(state, game.wait, game.wait)
        assert sum(p * (50 - s.hp_b) for p, s in ends) == pytest.approx(474 / 400)
        # with 1 nothing lasts past A's turn: B is not off-guard in A's next turn, nor A
        # in B's; with 2, 1/20 and 3/20 as in test_off_guard_carries_to_the_next_round
        assert sum(p for p, s in ends if s.og_b == 2) == pytest.approx(
            (turns - 1) / 20)
        assert sum(p for p, s in ends if s.og_a & 1) == pytest.approx((turns - 1) * 3 / 20)
    for wrong in (0, 3):
        with pytest.raises(InputError, match="feint_lasting_turns"):
            make(ruleset={"conditions": {"feint_lasting_turns": wrong}})


def test_sense_weakness_lingers_into_next_round_when_acting_second():
    game = make(a="fighter,hp=50", b="fighter,hp=50")
    # A (Perception) acts second against B (Deception): B stays off-guard until the
    # start of his next turn, so through A's turn if A acts first next round
    state = State(phase=SECOND, hp_a=50, hp_b=50, skill_a=2, skill_b=0, first=1)
    ends = [(p, s) for p, s in game.outcomes(state, game.wait, game.wait) if s.phase != OVER]
    assert {s.og_b for _, s in ends} == {1}
    # if B acts next, his turn ends it
    nxt = ends[0][1]
    start = State(phase=FIRST, hp_a=nxt.hp_a, hp_b=nxt.hp_b, og_b=1, first=1)
    assert {s.og_b for _, s in game.outcomes(start, game.wait, game.wait)} == {0}


def test_reaction_refresh_at_the_start_of_the_owners_turn():
    # B strikes once (+9 against AC 18): critical on 19, 20 (2/20), success on 9..18
    # (10/20). A rolled Deception (trained): his Sidestep rerolls the success at -2 (B
    # rolled Intimidation), +7 hitting on 11..20: P(hit) = 2/20 + 10/20 * 10/20 = 0.35;
    # without it 12/20.
    def hit(game, state):
        return sum(p for p, s in game.outcomes(state, game.wait, game.wait)
                   if s.phase == OVER or s.hp_a < 99)

    b_acts = State(phase=FIRST, hp_a=99, hp_b=99, skill_a=0, skill_b=1, first=1)
    turn_game = make(a="fighter,hp=99", b="fighter,hp=99", ruleset=ONE_STRIKE)
    round_game = make(a="fighter,hp=99", b="fighter,hp=99", ruleset=ONE_STRIKE,
                      reaction_refresh="round")
    assert turn_game.rules.refresh_each_turn and not round_game.rules.refresh_each_turn
    for game in (turn_game, round_game):
        assert hit(game, b_acts) == pytest.approx(0.35)
    # the Sidestep is spent on the 10/20 successes; with "turn" the state remembers it
    after = turn_game.outcomes(b_acts, turn_game.wait, turn_game.wait)
    assert sum(p for p, s in after if s.spent_a) == pytest.approx(10 / 20)
    assert {s.spent_a for _, s in round_game.outcomes(b_acts, round_game.wait, round_game.wait)
            if s.phase != OVER} == {0}
    # B acts again before A's turn (second in round r, first in r + 1): A's reaction
    # has not come back, so no Sidestep, P(hit) 12/20
    assert hit(turn_game, b_acts._replace(spent_a=1)) == pytest.approx(12 / 20)
    # A's own turn gives it back: after a turn on Deception (no reaction of his own to
    # spend) it is free; on Perception (trained) Sense Weakness spends it again, and on
    # an untrained Perception there is no reaction to spend
    a_acts = State(phase=FIRST, hp_a=99, hp_b=99, skill_a=0, skill_b=1, first=0,
                   spent_a=1)
    assert {s.spent_a for _, s in turn_game.outcomes(a_acts, turn_game.wait, turn_game.wait)} == {0}
    sensed = a_acts._replace(skill_a=2)
    assert {s.spent_a for _, s in turn_game.outcomes(sensed, turn_game.wait, turn_game.wait)} == {1}
    untrained = make(a="fighter,hp=99,perception=6:untrained", b="fighter,hp=99",
                     ruleset=ONE_STRIKE)
    assert {s.spent_a for _, s in untrained.outcomes(sensed, untrained.wait, untrained.wait)} == {0}
    # a round's end keeps what is spent: the second turn leads to the next decision
    b_second = b_acts._replace(phase=SECOND, first=0)
    nxt = {s.spent_a: s.phase for _, s in turn_game.outcomes(b_second, turn_game.wait,
                                                                turn_game.wait)}
    assert nxt == {0: DECIDE, 1: DECIDE}
    with pytest.raises(InputError, match="spent_a"):
        round_game.state_from({"phase": 1, "spent_a": 1})
    with pytest.raises(InputError, match="round"):
        make(reaction_refresh="never")


def test_shield_block_takes_the_reaction_and_the_hardness():
    # A's shield is up and his reaction kept for Shield Block (sh_a = 2); he rolled
    # Deception, but the block takes his reaction from the Sidestep. B strikes once, +9
    # for 1d4+4, against AC 18 + 2: faces 11..19 succeed (9/20) for 5..8, less the
    # Hardness 5: 0..3 (mean 1.5); face 20 gives 29, raised to a critical (1/20): 10, 12,
    # 14 or 16, less 5 (mean 8). E = 9/20 * 1.5 + 1/20 * 8 = 1.075; no damage with
    # P = 10/20 (misses) + 9/20 * 1/4 (a success for 5, blocked to 0).
    block = {"plans": {"strike3": ["strike"],
                       "order": ["strike3", "strike2_shield", "strike2_shield_block"]}}
    game = make(a="fighter,shield,hp=99", b="fighter,hp=99,damage=1d4+4", ruleset=block)
    b_acts = State(phase=FIRST, hp_a=99, hp_b=99, sh_a=2, skill_a=0, skill_b=1, first=1)
    ends = game.outcomes(b_acts, game.wait, game.wait)
    assert sum(p * (99 - s.hp_a) for p, s in ends) == pytest.approx(1.075)
    assert sum(p for p, s in ends if s.hp_a == 99) == pytest.approx(0.6125)
    # every hit is blocked, which spends the reaction (it comes back with A's turn)
    assert sum(p for p, s in ends if s.spent_a) == pytest.approx(10 / 20)
    # with it spent, neither block nor Sidestep: 9/20 * 6.5 + 1/20 * 13 = 3.575
    ends = game.outcomes(b_acts._replace(spent_a=1), game.wait, game.wait)
    assert sum(p * (99 - s.hp_a) for p, s in ends) == pytest.approx(3.575)
    # A's block plan keeps his reaction: on Perception (trained) no Sense Weakness spends
    # it, and his shield is left kept for the block; the plain shield plan spends it
    keep, plain = (game.rules.plan_names.index(name)
                   for name in ("strike2_shield_block", "strike2_shield"))
    a_acts = State(phase=FIRST, hp_a=99, hp_b=99, skill_a=2, skill_b=1, first=0)
    after = game.outcomes(a_acts._replace(plan_a=keep), game.wait, game.wait)
    assert {(s.spent_a, s.sh_a) for _, s in after} == {(0, 2)}
    after = game.outcomes(a_acts._replace(plan_a=plain), game.wait, game.wait)
    assert {(s.spent_a, s.sh_a) for _, s in after} == {(1, 1)}
    # a block plan needs a shield (on the sheet, and a shield step in the plan)
    no_shield = make(a="fighter", ruleset=block)
    assert keep not in no_shield.legal_plans(no_shield.start(), "a")
    with pytest.raises(InputError, match="block needs a shield"):
        make(ruleset={"plans": {"strike3": ["strike", "strike", "block"]}})
    with pytest.raises(InputError, match="hardness"):
        make(ruleset={"shield_block": {"hardness": -1}})


def test_the_plan_says_which_strike_the_reaction_goes_with():
    # A (Perception, expert: Sense Weakness) feints B (Intimidation: Sense for one Strike
    # only, no Sidestep) and strikes twice for exactly 1 (2 on a critical). From
    # test_feint_lasting_one_turn_ends_with_the_feinters_turn: E(+9) = 18/20 off-guard,
    # 14/20 not; E(+4) = 10/20 off-guard, 8/20 not; the Feint crits 1/20, succeeds 7/20.
    # Sense with the first Strike: crit 18 + 10, else 18 + 8 (the success's off-guard
    # and the Sense fall on the same Strike): (28 + 19 * 26) / 400 = 1.305.
    # Sense with the second: crit 28, success 18 + 10, else 14 + 10: (28 + 7 * 28 +
    # 12 * 24) / 400 = 1.28.
    rules = {"plans": {"order": ["feint_strike2", "feint_strike_strike_reaction"]}}
    game = make(a="fighter,hp=99,damage=1d1+0", b="fighter,hp=99", ruleset=rules)
    state = State(phase=FIRST, hp_a=99, hp_b=99, skill_a=2, skill_b=1, first=0)
    for plan, mean in ((0, 1.305), (1, 1.28)):
        ends = game.outcomes(state._replace(plan_a=plan), game.wait, game.wait)
        assert sum(p * (99 - s.hp_b) for p, s in ends) == pytest.approx(mean)
    # Bullying Press (A on Intimidation, B on Perception: frightened 2) goes with the
    # marked Strike: it frightens only if the second Strike (+4 against 18: faces 14..20,
    # 7/20) hits; unmarked, if the first (+9: 12/20) does
    press = {"plans": {"strike3": ["strike", "strike_reaction"],
                       "strike2_shield": ["strike", "strike", "shield"]}}
    game = make(a="fighter,hp=99", b="fighter,hp=99", ruleset=press)
    state = State(phase=FIRST, hp_a=99, hp_b=99, skill_a=1, skill_b=2, first=0)
    for plan, scared in ((0, 7 / 20), (1, 12 / 20)):
        ends = game.outcomes(state._replace(plan_a=plan), game.wait, game.wait)
        assert sum(p for p, s in ends if s.fr_b == 2) == pytest.approx(scared)
    with pytest.raises(InputError, match="at most one strike_reaction"):
        make(ruleset={"plans": {"strike3": ["strike_reaction", "strike_reaction"]}})


# -- the round

def test_order_preference_and_initiative():
    game = make()
    state = game.start()
    # both Perception +6: A wins half; A wants first, B wants first: A first 1/2
    a = action(game, "perception", "first", "strike3")
    b = action(game, "perception", "first", "strike3")
    assert game.first_probability(state, a, b) == pytest.approx(0.5)
    # A wants second, B wants second: whoever wins acts second, so A first when B wins
    a2 = action(game, "perception", "second", "strike3")
    b2 = action(game, "perception", "second", "strike3")
    assert game.first_probability(state, a2, b2) == pytest.approx(0.5)
    # A wants first, B wants second: A always first
    assert game.first_probability(state, a, b2) == pytest.approx(1.0)
    # A frightened 1 at Perception: +5 against +6, B wins ties: A wins 190 / 400 minus
    # ... by enumeration in test_initiative_by_enumeration_and_tie_break
    assert game.first_probability(state._replace(fr_a=1), a, b) == pytest.approx(
        initiative_first(5, 6))


def test_first_blood_ends_on_the_first_damage():
    game = make(victory="first_blood")
    # (B rolled Intimidation: no Sidestep)
    state = State(phase=FIRST, hp_a=1, hp_b=1, skill_b=1, first=0)
    ends = game.outcomes(state, game.wait, game.wait)
    # three strikes +9, +4, -1 against 18: A draws blood unless all miss
    won = sum(p for p, s in ends if s.phase == OVER and s.ending == 3)
    assert won == pytest.approx(1 - 8 / 20 * 13 / 20 * 18 / 20)


# -- a one-round duel solved by brute force

def _brute_turn(me, him, plan, my_skill, his_skill, fr_me, fr_him, og_him, sh_him, hp_him,
                sidestep_ready):
    """{(damage dealt, his frightened, my fumble): probability}, walking every face (a
    second, straightforward reading of the rules; memoised on the walk's position)."""

    @functools.cache
    def walk(i, dmg, fright, nxt, crit, linger, fumble, ready, made):
        if i == len(plan) or dmg >= hp_him:
            return {(min(dmg, hp_him), fright, fumble): 1.0}
        out: dict = {}

        def add(p, sub):
            for key, q in sub.items():
                out[key] = out.get(key, 0.0) + p * q

        step = plan[i]
        if step == "shield":
            return walk(i + 1, dmg, fright, nxt, crit, linger, fumble, ready, made)
        if step in ("demoralize", "feint"):
            skill, dc = (("intimidation", him["will"]) if step == "demoralize"
                         else ("deception", him["pdc"]))
            for face in range(1, 21):
                d = _deg(face, face + me[skill] - fr_me, dc - fright)
                if step == "demoralize":
                    f2 = max(fright, {3: 2, 2: 1}.get(d, 0))
                    add(1 / 20, walk(i + 1, dmg, f2, nxt, crit, linger, fumble, ready, made))
                else:
                    add(1 / 20, walk(i + 1, dmg, fright, nxt or d == 2, crit or d == 3, linger,
                                     fumble or d == 0, ready, made))
            return out
        first = made == 0
        sense = first and my_skill == "perception" and me["trained_perception"]
        linger2 = linger or (sense and his_skill == "deception")
        og = og_him or nxt or crit or linger2 or sense
        ac = him["ac"] + 2 * sh_him - fright - 2 * og
        mod = me["attack"] - (0, 5, 10)[made] - fr_me
        for face in range(1, 21):
            rolls = [(1 / 20, _deg(face, face + mod, ac), ready)]
            if rolls[0][1] == 2 and ready:
                rolls = [(1 / 400, _deg(f2, f2 + mod - 2 * (my_skill == "intimidation"), ac),
                          False) for f2 in range(1, 21)]
            for q, d, still in rolls:
                f2 = fright
                press = first and my_skill == "intimidation" and me["trained_intimidation"]
                if press and d >= 2:
                    f2 = max(fright, 2 if his_skill == "perception" else 1)
                if d < 2:
                    add(q, walk(i + 1, dmg, f2, False, crit, linger2, fumble, still, made + 1))
                    continue
                for side in (1, 2):  # damage 1d2
                    hit = side * (2 if d == 3 else 1)
                    add(q / 2, walk(i + 1, dmg + hit, f2, False, crit, linger2, fumble, still,
                                    made + 1))
        return out

    return walk(0, 0, fr_him, False, False, False, False, sidestep_ready, 0)


def _deg(face, total, dc):
    d = 3 if total >= dc + 10 else 2 if total >= dc else 1 if total > dc - 10 else 0
    return min(3, d + 1) if face == 20 else max(0, d - 1) if face == 1 else d


def _brute_round(sheet, plans, skill_a, skill_b, order_a, order_b, plan_a, plan_b):
    """(P A wins, P B wins) of one round from the start, by enumeration."""
    a_wins = 0.0
    for x, y in itertools.product(range(1, 21), repeat=2):
        ta, tb = x + sheet[skill_a], y + sheet[skill_b]
        if ta != tb:
            a_wins += (ta > tb) / 400
        else:
            diff = sheet[skill_a] - sheet[skill_b]
            a_wins += (1.0 if diff > 0 else 0.5 if diff == 0 else 0.0) / 400
    a_first = a_wins * (order_a == "first") + (1 - a_wins) * (order_b == "second")
    win_a = win_b = 0.0
    for weight, order in ((a_first, ("a", "b")), (1 - a_first, ("b", "a"))):
        if weight:
            pa, pb = _brute_order(sheet, plans, order, skill_a, skill_b, plan_a, plan_b)
            win_a += weight * pa
            win_b += weight * pb
    return win_a, win_b


_ORDERS: dict = {}


def _brute_order(sheet, plans, order, skill_a, skill_b, plan_a, plan_b):
    key = (order, skill_a, skill_b, plan_a, plan_b)
    if key not in _ORDERS:
        _ORDERS[key] = _brute_order_uncached(sheet, plans, order, skill_a, skill_b, plan_a,
                                             plan_b)
    return _ORDERS[key]


def _brute_order_uncached(sheet, plans, order, skill_a, skill_b, plan_a, plan_b):
    skills = {"a": skill_a, "b": skill_b}
    chosen = {"a": plans[plan_a], "b": plans[plan_b]}
    x, y = order
    win = {"a": 0.0, "b": 0.0}
    sidestep = {s: skills[s] == "deception" for s in "ab"}
    for (dmg, fr_y, fumble), p in _brute_turn(sheet, sheet, chosen[x], skills[x], skills[y], 0,
                                            0, False, False, sheet["hp"], sidestep[y]).items():
        if dmg >= sheet["hp"]:
            win[x] += p
            continue
        shield_x = "shield" in chosen[x]
        for (dmg2, _, _), q in _brute_turn(sheet, sheet, chosen[y], skills[y], skills[x], fr_y,
                                         0, fumble, shield_x, sheet["hp"], sidestep[x]).items():
            if dmg2 >= sheet["hp"]:
                win[y] += p * q
    return win["a"], win["b"]


def test_one_round_duel_against_brute_force():
    text = "hp=2,ac=14,attack=4,damage=1d2,shield,will=13,perception_dc=13," \
           "deception=2:trained,intimidation=1:trained,perception=3:trained"
    game = make(a=text, b=text, max_rounds=1)
    solved = solve_game(game)
    sheet = {"hp": 2, "ac": 14, "attack": 4, "will": 13, "pdc": 13, "deception": 2,
             "intimidation": 1, "perception": 3, "trained_perception": True,
             "trained_intimidation": True}
    plans = {"strike3": ["strike"] * 3, "strike2_shield": ["strike", "strike", "shield"],
             "demoralize_strike2": ["demoralize", "strike", "strike"],
             "feint_strike2": ["feint", "strike", "strike"],
             "shield_demoralize_strike": ["shield", "demoralize", "strike"]}
    actions = [(s, o, p) for s in ("deception", "intimidation", "perception")
               for o in ("first", "second") for p in plans]
    matrix = np.zeros((len(actions), len(actions)))
    cache = {}
    for i, (sa, oa, pa) in enumerate(actions):
        for j, (sb, ob, pb) in enumerate(actions):
            key = (sa, sb, oa, ob, pa, pb)
            if key not in cache:
                cache[key] = _brute_round(sheet, plans, sa, sb, oa, ob, pa, pb)
            wa, wb = cache[key]
            matrix[i, j] = wa - wb
            assert solved.stage_matrix(game.start())[
                action(game, sa, oa, pa.replace("_", "-")),
                action(game, sb, ob, pb.replace("_", "-"))] == pytest.approx(wa - wb, abs=1e-9)
    assert solved.value == pytest.approx(linprog_value(matrix), abs=1e-7)


# -- bad input

@pytest.mark.parametrize("sheet, words", [
    ("fighter,hp=-3", "hp"),
    ("fighter,perception=6:grandmaster", "legendary"),
    ("fighter,damage=1d8+", "dice"),
    ("fighter,damage=4", "dice expression"),
    ("wizard", "fighter, rogue"),
    ("fighter,acrobatics=3:trained", "perception_dc"),
    ("fighter,deception=lots", "MODIFIER:RANK"),
    ("fighter,sneak=2d8", "d6"),
])
def test_bad_sheets_name_the_allowed_values(sheet, words):
    with pytest.raises(InputError, match=words):
        make(a=sheet)


def test_bad_options():
    with pytest.raises(InputError, match="knockout"):
        make(victory="surrender")
    with pytest.raises(InputError, match="max_rounds"):
        make(max_rounds=-1)
    with pytest.raises(InputError, match="allowed"):
        make(ruleset={"plans": {"strike3": ["dance"]}})
    # the turn caps the hits' sum once, which needs no hit to heal
    with pytest.raises(InputError, match="minimum_damage"):
        make(ruleset={"strike": {"minimum_damage": -1}})


def test_illegal_action_is_an_input_error():
    game = make()
    dem = action(game, "perception", "first", "demoralize-strike2")
    with pytest.raises(InputError, match="illegal action"):
        game.outcomes(State(hp_a=20, hp_b=20, dem_a=1), dem, 0)


def test_state_from_round_trip_and_errors():
    game = make()
    state = game.state_from({"hp_a": 12, "hp_b": 9, "fr_b": 1})
    assert game.state_fields(state)["hp_a"] == 12 and state.fr_b == 1
    with pytest.raises(InputError, match="allowed"):
        game.state_from({"health": 3})
    with pytest.raises(InputError, match="0..2"):
        game.state_from({"fr_a": 5})


def test_situation_speaks_from_the_players_side():
    game = make()
    state = State(hp_a=9, hp_b=14, fr_a=1, dem_a=1)
    text = game.situation(state, "a")
    assert "you are at 9 HP" in text and "frightened 1" in text
    assert "cannot be demoralized again" in text


def test_each_side_of_a_situation_says_its_shield_guard_and_reaction():
    game = make()
    state = State(hp_a=9, hp_b=14, sh_a=2, og_b=1, spent_b=1, fr_b=2)
    assert game.situation(state, "b") == (
        "a new round, choosing skill, order and plan: you are at 14 HP, frightened 2, "
        "off-guard until his own next turn, reaction spent until your next turn; "
        "he is at 9 HP, shield raised, reaction kept for Shield Block")


def test_a_side_worded_once_reads_as_worded_afresh_in_every_state():
    """``side_words`` words each side once: every field it reads is in its key (the
    other fields of the state change nothing)."""
    game = make()
    fields = itertools.product((9, 14), (0, 1, 2), (0, 1, 2), (0, 1, 3), (0, 1), (0, 1))
    states = [State(hp_a=hp, fr_a=fr, sh_a=sh, og_a=og, spent_a=spent, dem_b=dem,
                    hp_b=14 - hp % 5, fr_b=2 - fr, sh_b=sh, og_b=og, spent_b=1 - spent,
                    dem_a=1 - dem) for hp, fr, sh, og, spent, dem in fields]
    worded = []
    for some in (states, [state._replace(phase=FIRST, step=1, hp_a=9) for state in states]):
        for state in some:
            for side, viewer in itertools.product("ab", ("a", "b", None)):
                assert game.side_words(state, side, viewer) == game._side_words(
                    state, side, viewer)
        worded.append(len(game._sides_said))
    # A's 216 positions and B's 108 (its hit points are the same in all) from 3 viewers;
    # the phase and A's hit points changed, none new
    assert worded == [3 * (216 + 108)] * 2


def test_an_action_reads_as_a_game_master_says_it():
    # the ruleset's plan feint_strike2 is feint, strike, strike; order 1 is "second"
    game = make()
    assert game.advice("deception-second-feint-strike2") == (
        "Deception for initiative, second on winning it; Feint, Strike, Strike")
    assert game.advice("perception-first-shield-demoralize-strike") == (
        "Perception for initiative, first on winning it; Raise a Shield, Demoralize, Strike")
    with pytest.raises(InputError, match="allowed"):
        game.advice("dance")


def test_the_sheets_skills_are_told_with_the_table_not_in_each_situation():
    game = envs.make("pathfinder", a="fighter", b="rogue,intimidation=2:untrained")
    (_, start), = game.initial_outcomes()
    assert "initiative skills" not in game.situation(start, "a")
    table = game.describe(start, "b")
    assert "Your initiative skills: deception +7 (trained); intimidation +2 (untrained), " \
           "no reaction; perception +6 (expert)." in table
    assert "His initiative skills: deception +3 (trained)" in table


def test_odds_say_each_best_play_in_words(capsys):
    from agents.cli import main
    argv = ["odds", "pathfinder", "--me", "fighter,hp=4", "--them", "rogue,hp=4",
            "--vs", "uniform", "--limit", "3"]
    assert main(argv) == 0
    advice = [line for line in capsys.readouterr().out.splitlines() if line.startswith("- ")]
    assert advice and all(" for initiative, " in line for line in advice)
    assert not any(": play " in line for line in advice)


def test_solve_gives_each_initiative_skill_its_chance(capsys):
    # the chance of a skill is the total weight of the actions that name it first
    import json

    from agents.cli import main
    argv = ["solve", "pathfinder", "--a", "fighter", "--b", "rogue", "-o",
            "victory=first_blood"]
    assert main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    for side in ("a", "b"):
        by_skill: dict = {}
        for name, p in report[f"mix_{side}"].items():
            skill = name.partition("-")[0]
            if name != "wait":
                by_skill[skill] = by_skill.get(skill, 0.0) + p
        chances = report["action_parts"]["initiative skill"][side]
        assert sum(chances.values()) == pytest.approx(1.0)
        for skill, p in by_skill.items():
            assert chances.get(skill, 0.0) == pytest.approx(p)
    assert main(argv) == 0
    assert "initiative skill: you " in capsys.readouterr().out


def test_without_a_round_limit_no_round_number_is_claimed():
    # the state keeps no count of rounds then (round stays 1), so "round 1" would be false
    game = envs.make("pathfinder", a="fighter", b="rogue", victory="first_blood")
    (_, start), = game.initial_outcomes()
    assert game.situation(start, "a").startswith("a new round, choosing")
    assert game.describe(start).startswith("A new round, decide.")
    limited = envs.make("pathfinder", a="fighter", b="rogue", max_rounds=3)
    (_, start), = limited.initial_outcomes()
    assert limited.situation(start, "a").startswith("round 1 of 3, choosing")


def test_play_waits_unasked_through_the_turns(capsys):
    # one round: the player chooses once; both turns are dice and waiting, so one answer
    # finishes the duel (before, every turn asked for "wait" and this ran out of answers)
    from agents.cli import build_parser, play

    answers = iter(["perception-first-strike3"])
    args = build_parser().parse_args(["play", "pathfinder", "--a", "fighter", "--b", "rogue",
                                      "-o", "max_rounds=1", "--vs", "uniform", "--seed",
                                      "5", "--json"])
    assert play.run(args, read=lambda prompt: next(answers)) == 0
    import json
    report = json.loads(capsys.readouterr().out)
    assert report["finished"] and report["exchanges"][0]["a"] == "perception-first-strike3"
    assert {row["a"] for row in report["exchanges"][1:]} == {"wait"}
