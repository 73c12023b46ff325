"""``duel play`` tells the dice and its prompts do not lie: for each system, a seeded
duel whose every step with chance names its rolls, each roll checked against the rules
as written here (d6 pools against their target, a d20's degree of success, damage
dice and their sum), and prompts whose numbers pick what they show."""

from __future__ import annotations

import re

import numpy as np
import pytest

import envs
from agents.cli.play import choices, pick
from envs.blooded.state import RISK
from solver.game import narration, sample_outcome, sample_step

DUELS = {
    "blooded": {},
    "uchronia": {},
    "uchronia_melee": {"mode": "melee"},
    "pathfinder": {"a": "fighter", "b": "rogue"},
}


def _system(name: str) -> str:
    return name.split("_")[0]


def _duel(name: str, seed: int, steps: int = 60):
    """(game, [(state, action_a, action_b, next_state, narration)]) of a duel played
    uniformly at random."""
    game = envs.make(_system(name), **DUELS[name])
    rng, dice = np.random.default_rng(seed), np.random.default_rng([seed, 1])
    state = sample_outcome(game.initial_outcomes(), rng)
    played = []
    while not game.is_terminal(state) and len(played) < steps:
        a, b = (int(rng.choice(np.flatnonzero(game.legal_mask(state, p)))) for p in "ab")
        following = sample_step(game, state, a, b, rng)
        played.append((state, a, b, following, narration(game, state, a, b, following, dice)))
        state = following
    return game, played


def _chance(game, state, a, b) -> bool:
    return len(game.outcomes(state, a, b)) > 1


POOL = re.compile(r"([AB]) rolls (\d+) (?:die|dice)(?: for his ([\w-]+))?: "
                  r"(no dice|[\d+]+(?: = (\d+))?)")


def _pools(text: str):
    """Every pool told: (who, dice count, what for, faces, stated total)."""
    for who, count, what, shown, total in POOL.findall(text):
        rolled = [] if shown == "no dice" else [int(f) for f in shown.split(" = ")[0].split("+")]
        yield who, int(count), what, rolled, int(total) if total else sum(rolled)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_blooded_risk_tells_both_pools_and_who_won(seed):
    game, played = _duel("blooded", seed)
    risks = 0
    for state, a, b, _, text in played:
        if state.phase != RISK:
            continue
        risks += 1
        pools = list(_pools(text))
        assert [p[0] for p in pools] == ["A", "B"], text
        totals = {}
        for who, count, _, rolled, total in pools:
            side = "AB".index(who)
            assert count == game.dice_left(state, side) - (a, b)[side], text
            assert len(rolled) == count and all(1 <= f <= 6 for f in rolled), text
            assert total == sum(rolled), text
            made = "a success" if total >= 10 and count else "a failure"
            assert f"{total}, {made}" in text or (not count and made in text), text
            totals[who] = total if count and total >= 10 else None
        if totals["A"] is None and totals["B"] is None:
            assert "Both fail." in text
        else:
            # the higher success wins; equal totals go to the defender
            ta, tb = totals["A"] or -1, totals["B"] or -1
            winner = "A" if ta > tb else "B" if tb > ta else "AB"[1 - state.aggressor]
            assert f"{winner} wins the risk." in text, text
    assert risks


def _grade(margin: int) -> str:
    """Uchronia's margins: 5 or more significant, 10 or more exceptional (the ruleset's
    defaults)."""
    return "exceptional" if margin >= 10 else "significant" if margin >= 5 else "minor"


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_an_uchronia_pistol_shot_tells_its_dice_margin_and_resistance(seed):
    game, played = _duel("uchronia", seed)
    shots = 0
    for state, a, b, following, text in played:
        fired = [s for s, act in zip("AB", (a, b), strict=True) if act in (0, 4)]
        if not fired:
            assert "rolls" not in text
            continue
        pools = list(_pools(text))
        told = [p for p in pools if p[2] == "shot"]
        assert {p[0] for p in told} <= set(fired) and told, text
        for _who, count, _, rolled, total in told:
            shots += 1
            assert len(rolled) == count and total == sum(rolled)
            if total == count:
                assert "a fumble" in text
            elif total < 10:
                assert f"= {total} against 10, a miss" in text, text
            else:
                assert f"a hit by {total - 10}, {_grade(total - 10)}" in text, text
        for who, count, _, rolled, _total in (p for p in pools if p[2] == "resistance"):
            assert count == 3 and len(rolled) == 3  # the default resistance pool
            side = who.lower()
            if following.ending:
                continue
            shrugged = getattr(following, f"health_{side}") == getattr(state, f"health_{side}")
            assert ("shrugged off" in text) == shrugged or len(fired) == 2, text
    assert shots


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_uchronia_melee_tells_each_confrontation_and_who_won_it(seed):
    game, played = _duel("uchronia_melee", seed)
    rolled_steps = 0
    for state, a, b, _following, text in played:
        if not _chance(game, state, a, b):
            continue
        rolled_steps += 1
        pools = {p[0]: p for p in _pools(text) if p[2] == "confrontation"}
        if len(pools) == 2:
            ta, tb = pools["A"][4], pools["B"][4]
            if ta == tb:
                assert "neither gains the upper hand" in text
            else:
                assert f"{'A' if ta > tb else 'B'} wins the roll by {abs(ta - tb)}, " \
                       f"{'an' if _grade(abs(ta - tb)) == 'exceptional' else 'a'} " \
                       f"{_grade(abs(ta - tb))} margin" in text, text
        assert "rolls" in text, text
    assert rolled_steps


DEGREES = ("a critical failure", "a failure", "a success", "a critical success")
CHECK = re.compile(r"(Demoralize|Feint|Strike) (\d+)([+-]\d+) = (-?\d+) against [AB]'s "
                   r"(?:AC|Will DC|Perception DC) (-?\d+): (a [a-z ]+?)(?:[,;.]|$)")
DAMAGE = re.compile(r"damage dice ([\d+]+), bonus ([+-]\d+)(, doubled on the critical hit)?"
                    r"(, less \d+ for the Shield Block)?: (\d+)")


def _degree(natural: int, total: int, dc: int) -> str:
    """PF2e: 10 over the DC a critical success, at least it a success, within 10 below
    a failure, else a critical failure; a natural 20 one step up, a 1 one step down."""
    step = 3 if total >= dc + 10 else 2 if total >= dc else 1 if total > dc - 10 else 0
    step += (natural == 20) - (natural == 1)
    return DEGREES[min(3, max(0, step))]


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_pathfinder_turn_tells_each_check_and_the_damage_dealt(seed):
    game, played = _duel("pathfinder", seed)
    turns = 0
    for state, _a, _b, following, text in played:
        if state.phase == 0:  # the initiative: both rolls and their totals
            found = re.search(r"Initiative: A rolls (\d+)([+-]\d+) = (\d+), B (\d+)([+-]\d+) = "
                              r"(\d+)", text)
            assert found, text
            x, mx, tx, y, my, ty = map(int, found.groups())
            assert tx == x + mx and ty == y + my and 1 <= x <= 20 and 1 <= y <= 20
            continue
        turns += 1
        checks = CHECK.findall(text)
        actor = game.acting(state)
        plan = game.rules.plans[getattr(state, f"plan_{actor}")]
        rolled = [step for step in plan if step in ("demoralize", "feint", "strike",
                                                    "strike_reaction")]
        assert len(checks) == len(rolled), text  # one roll told per check of the plan
        for _, natural, modifier, total, dc, said in checks:
            assert int(total) == int(natural) + int(modifier)
            assert said == _degree(int(natural), int(total), int(dc)), text
        dealt = 0
        for dice, bonus, doubled, blocked, damage in DAMAGE.findall(text):
            hit = max(0, sum(map(int, dice.split("+"))) + int(bonus)) * (2 if doubled else 1)
            if blocked:
                hit = max(0, hit - 5)
            assert int(damage) == hit, text
            dealt += hit
        target = "b" if actor == "a" else "a"
        before = getattr(state, f"hp_{target}")
        if following.phase == 3:
            assert dealt >= before, text
        else:
            assert before - getattr(following, f"hp_{target}") == dealt, text
    assert turns


@pytest.mark.parametrize("name", sorted(DUELS) + ["falkenstein"])
def test_each_prompt_number_picks_the_choice_it_shows(name):
    """At every decision of a seeded duel, typing the number shown for a choice picks it
    (its place from 1, or its amount where every choice is a bid or a wager), and typing
    the words shown or the action's name picks the same."""
    game = envs.make(_system(name), **DUELS.get(name, {}))
    rng = np.random.default_rng(7)
    state = sample_outcome(game.initial_outcomes(), rng)
    asked = 0
    while not game.is_terminal(state) and asked < 30:
        legal = np.flatnonzero(game.legal_mask(state, "a")).tolist()
        shown = choices(game, state, "a")
        assert [action for action, _ in shown] == legal
        amounts = [int(words.split()[-1]) for _, words in shown] if all(
            words.split()[0] in ("bid", "wager", "cancel") for _, words in shown) else None
        numbers = amounts or range(1, len(shown) + 1)
        for number, (action, words) in zip(numbers, shown, strict=True):
            assert pick(game, shown, str(number)) == action
            assert pick(game, shown, words.upper()) == action
            name = game.info.action_names[action]
            assert pick(game, shown, name) == action
        assert pick(game, shown, str(max(numbers) + 1)) is None
        if amounts is None:
            assert pick(game, shown, "0") is None
        asked += len(shown) > 1
        a, b = (int(rng.choice(np.flatnonzero(game.legal_mask(state, p)))) for p in "ab")
        state = sample_step(game, state, a, b, rng)


def test_a_falkenstein_feat_names_its_chance_from_the_ruleset():
    """Falkenstein draws no dice; its one chance, a jump at the ledge, is a feat of
    Athletics whose chance the ruleset's table gives (GD: 65%, AV: 50%)."""
    game = envs.make("falkenstein", a="fencing=GD,athletics=GD", b="fencing=GD",
                     edge="ledge", field_m=4)
    feats = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        state = sample_outcome(game.initial_outcomes(), rng)
        while not game.is_terminal(state):
            a, b = (int(rng.choice(np.flatnonzero(game.legal_mask(state, p)))) for p in "ab")
            following = sample_step(game, state, a, b, rng)
            text = narration(game, state, a, b, following, rng)
            if len(game.outcomes(state, a, b)) > 1:
                feats += 1
                assert "(Athletics GD: 65% to succeed)" in text or \
                       "(Athletics AV: 50% to succeed)" in text, text
            state = following
    assert feats
