"""Pathfinder's ``reaction_choice = "each_strike"`` (under ``plans = "per_turn"``): the
owner of Bullying Press, Sense Weakness or Deceptive Sidestep chooses at each Strike
whether to spend it, knowing what the turn did so far. Every expected value below is
worked out by hand from the d20 faces, not by the solver."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import envs
from envs.pathfinder.state import SECOND, State
from envs.pathfinder.strikes import ACTOR_BEFORE_STRIKE, TARGET_AFTER_HIT
from solver import InputError, solve_game

EACH_STRIKE = {"plans": "per_turn", "reaction_choice": "each_strike"}
PLAN = {"plans": "per_turn"}
DECEPTION, INTIMIDATION, PERCEPTION = range(3)


def make(a="fighter", b="rogue", ruleset=None, **options):
    return envs.make("pathfinder", a=a, b=b, ruleset=ruleset, **options)


def only(*plans: str) -> dict:
    return {"plans": {"order": list(plans)}}


# -- Sense Weakness after the Feint: the fighter (A: Feint +3, Strike +9 then +4) acts
# last against the rogue (B: AC 18, Perception DC 16), who rolled Intimidation (no
# Sidestep). A's Feint fails on faces 1-12 (0.6), succeeds on 13-19 (0.35: the rogue is
# off-guard, AC 16, for the next Strike), is critical on the 20 (0.05: off-guard all
# turn). A Strike at +9 misses AC 16 on faces 1-6, AC 18 on 1-8; at +4, AC 16 on 1-11,
# AC 18 on 1-13. To first blood any hit wins, so A's value is P(a hit):
# - after a successful Feint, Sense Weakness on the second Strike: miss 6/20 * 11/20 =
#   0.165; on the first (already off-guard): 6/20 * 13/20 = 0.195;
# - after the critical: 6/20 * 11/20 = 0.165 whatever A does;
# - after a failed Feint, on the first Strike: 6/20 * 13/20 = 0.195 (on the second:
#   8/20 * 11/20 = 0.22).
# Chosen at each Strike: P(no hit) = 0.6 * 0.195 + 0.4 * 0.165 = 0.183; in the plan
# (the first Strike): 0.95 * 0.195 + 0.05 * 0.165 = 0.1935.

FEINT_TURN = State(phase=SECOND, hp_a=1, hp_b=1, skill_a=PERCEPTION, skill_b=INTIMIDATION,
                   first=1)


@pytest.mark.parametrize(("options", "blood"), [(EACH_STRIKE, 1 - 0.183),
                                                (PLAN, 1 - 0.1935)])
def test_sense_weakness_after_the_feint(options, blood):
    game = make(ruleset=only("feint_strike2"), victory="first_blood", max_rounds=1,
                **options)
    assert solve_game(game, start=FEINT_TURN).value == pytest.approx(blood, abs=1e-12)


def test_after_a_successful_feint_sense_weakness_waits_for_the_second_strike():
    game = make(ruleset=only("feint_strike2"), victory="first_blood", max_rounds=1,
                **EACH_STRIKE)
    # the pause before the first Strike after the Feint succeeded
    pause = FEINT_TURN._replace(step=2, pending=ACTOR_BEFORE_STRIKE, feint_next=1)
    names = game.info.action_names
    assert [names[i] for i in np.flatnonzero(game.legal_mask(pause, "a"))] == [
        "spend-reaction", "keep-reaction"]
    assert [names[i] for i in np.flatnonzero(game.legal_mask(pause, "b"))] == ["wait"]
    solved = solve_game(game, start=pause)
    assert solved.value == pytest.approx(1 - 0.165, abs=1e-12)
    mix, _ = solved.policy(pause)
    assert mix[names.index("keep-reaction")] == pytest.approx(1.0)
    # spent now, the second Strike is at +4 against AC 18: blood but for 6/20 * 13/20
    spent = game.outcomes(pause, names.index("spend-reaction"), game.wait)
    assert sum(p for p, s in spent if game.is_terminal(s) and game.payoff(s) > 0) == \
        pytest.approx(1 - 0.195, abs=1e-12)


# -- Deceptive Sidestep kept for the hit that kills: the fighter (A, Deception, no Strike
# reaction; 1d1+4, so 5 a hit and 10 a critical) strikes three times (+9, +4, -1 against
# AC 18) at the rogue (B, 10 HP, Deception: his Sidestep is ready) in the last turn. The
# first Strike rolled an exact success. A degree at +9 is critical on 19-20 (0.1), a
# success on 9-18 (0.5); at +4 critical on the 20 (0.05), a success on 14-19 (0.3); at
# -1 critical on the 20, a success on the 19 (0.05 each).
# - Spent now: the reroll is critical 0.1 (B is out), a success 0.5 (5 dealt: one more
#   hit of the two left, 1 - 13/20 * 18/20 = 0.415), a miss 0.4 (10 more: a critical of
#   the second, 0.05, its success and any hit of the third, 0.3 * 0.1, or its miss and a
#   critical of the third, 0.65 * 0.05: 0.1125): 0.1 + 0.5 * 0.415 + 0.4 * 0.1125 =
#   0.3525.
# - Kept: 5 dealt, any later hit kills, so B spends it on the next exact success: on
#   the second Strike 0.05 + 0.3 * (the reroll hits 0.35, else the third hits 0.65 *
#   0.1) + 0.65 * (the third: its critical 0.05, its success rerolled and hitting
#   0.05 * 0.1) = 0.05 + 0.3 * 0.415 + 0.65 * 0.055 = 0.21025.

SIDESTEP_PAUSE = State(phase=SECOND, hp_a=20, hp_b=10, skill_a=DECEPTION, skill_b=DECEPTION,
                       first=1, step=1, pending=TARGET_AFTER_HIT, ready=1)


def _sidestep_game():
    return make(a="fighter,damage=1d1+4", b="rogue,hp=10", ruleset=only("strike3"),
                max_rounds=1, **EACH_STRIKE)


def test_the_sidestep_is_kept_for_the_hit_that_kills():
    game = _sidestep_game()
    names = game.info.action_names
    assert [names[i] for i in np.flatnonzero(game.legal_mask(SIDESTEP_PAUSE, "b"))] == [
        "spend-reaction", "keep-reaction"]
    solved = solve_game(game, start=SIDESTEP_PAUSE)
    assert solved.value == pytest.approx(0.21025, abs=1e-12)
    _, mix = solved.policy(SIDESTEP_PAUSE)
    assert mix[names.index("keep-reaction")] == pytest.approx(1.0)
    # spent now, no choice is left in the turn: its outcomes are the knockout or the draw
    spent = game.outcomes(SIDESTEP_PAUSE, game.wait, names.index("spend-reaction"))
    assert all(game.is_terminal(s) for _, s in spent)
    assert sum(p for p, s in spent if game.payoff(s) > 0) == pytest.approx(0.3525, abs=1e-12)


def test_in_the_plan_the_sidestep_takes_the_first_exact_success():
    # the same turn from its start, the Sidestep on the first exact success: the first
    # Strike is critical 0.1 (10: B is out), an exact success 0.5 (rerolled: 0.3525
    # above), a miss 0.4; after the miss, 10 to deal from the last two with the Sidestep
    # ready: a critical of the second 0.05; its exact success 0.3 rerolled (critical
    # 0.05; success 0.3, then any hit of the third 0.1; miss 0.65, then the third's
    # critical 0.05); its miss 0.65, then the third's critical 0.05 or its exact success
    # 0.05 rerolled to a critical 0.05 (5 is not enough)
    second_success = 0.3 * (0.05 + 0.3 * 0.1 + 0.65 * 0.05)
    after_miss = 0.05 + second_success + 0.65 * (0.05 + 0.05 * 0.05)
    expected = 0.1 + 0.5 * 0.3525 + 0.4 * after_miss
    game = make(a="fighter,damage=1d1+4", b="rogue,hp=10", ruleset=only("strike3"),
                max_rounds=1, **PLAN)
    start = SIDESTEP_PAUSE._replace(step=0, pending=0, ready=0)
    assert solve_game(game, start=start).value == pytest.approx(expected, abs=1e-12)
    # chosen at each Strike, B does at least as well (a lower value to A)
    chosen = solve_game(_sidestep_game(), start=start).value
    assert chosen <= expected + 1e-12


# -- a choice can only help its owner: in the last turn of the duel only the actor's
# Strike reaction, or only his target's Sidestep, is chosen, and each_strike can play
# what the plan does

@pytest.mark.parametrize("victory", ["first_blood", "knockout"])
def test_choosing_at_each_strike_never_hurts_the_chooser(victory):
    chosen = make(a="fighter,hp=9", b="rogue,hp=9", victory=victory, max_rounds=1,
                  **EACH_STRIKE)
    planned = make(a="fighter,hp=9", b="rogue,hp=9", victory=victory, max_rounds=1, **PLAN)
    gained = 0.0
    for skill_a, skill_b, fright, off_guard in itertools.product(range(3), range(3),
                                                                 (0, 1), (0, 2)):
        state = State(phase=SECOND, hp_a=9, hp_b=9, skill_a=skill_a, skill_b=skill_b,
                      first=1, fr_b=fright, og_b=off_guard)
        a_chooses = skill_a != DECEPTION and skill_b != DECEPTION
        b_chooses = skill_a == DECEPTION and skill_b == DECEPTION
        if not (a_chooses or b_chooses):
            continue
        change = (solve_game(chosen, start=state).value
                  - solve_game(planned, start=state).value)
        assert (change if a_chooses else -change) >= -1e-12, state
        gained += abs(change)
    assert gained > 0.01  # some of these turns are worth more chosen Strike by Strike


# -- the protocol and the words

def test_each_strike_needs_per_turn_plans():
    with pytest.raises(InputError, match="reaction_choice=each_strike needs plans=per_turn"):
        make(reaction_choice="each_strike")
    with pytest.raises(InputError, match="plan.*each_strike"):
        make(reaction_choice="sometimes", plans="per_turn")


def test_a_turn_under_way_reads_back_and_bad_ones_are_refused():
    game = make(ruleset=only("feint_strike2"), **EACH_STRIKE)
    pause = FEINT_TURN._replace(plan_a=0, step=2, pending=ACTOR_BEFORE_STRIKE, feint_next=1)
    assert game.state_from(game.state_fields(pause)) == pause
    assert "Sense Weakness on this Strike" in game.describe(pause)
    with pytest.raises(InputError, match="step at a Strike of the actor's plan"):
        game.state_from({**game.state_fields(pause), "step": 1})  # the Feint
    with pytest.raises(InputError, match="pending 1..3"):
        game.state_from({**game.state_fields(pause), "pending": 0})
    # elsewhere a turn under way is no field at all
    assert "step" not in make(plans="per_turn").state_fields(FEINT_TURN)


def test_systems_lists_the_option(capsys):
    from agents.cli import main
    assert main(["systems", "pathfinder"]) == 0
    out = capsys.readouterr().out
    assert "one of plan|each_strike (default plan)" in out
