"""Pathfinder's ``plans = "per_turn"``: each turn's plan chosen by its actor as his turn
starts. The one-round duel's value is enumerated here from the specification (every d20
face, the best plan of each turn chosen knowing what came before), not by the solver."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

import envs
from envs.pathfinder import SYSTEM
from envs.pathfinder.state import DECIDE, FIRST, SECOND, State
from experiments.reference import linprog_value
from solver import InputError, solve_game
from solver.solve import forcing


def make(a="fighter", b="rogue", **options):
    return envs.make("pathfinder", a=a, b=b, **options)


# -- the reference sheets as the specification gives them (the rogue: agile, Deception +7)

SHEETS = {
    "fighter": {"ac": 18, "attack": 9, "map": (0, 5, 10), "will": 16, "pdc": 16,
                "mods": {"deception": 3, "intimidation": 3, "perception": 6}},
    "rogue": {"ac": 18, "attack": 7, "map": (0, 4, 8), "will": 16, "pdc": 16,
              "mods": {"deception": 7, "intimidation": 3, "perception": 6}},
}
SKILL_NAMES = ("deception", "intimidation", "perception")
# both sheets are trained in all three skills and carry no shield: these are the legal
# plans of round one (no Demoralize yet)
PLANS = {"strike3": ("strike", "strike", "strike"),
         "demoralize_strike2": ("demoralize", "strike", "strike"),
         "feint_strike2": ("feint", "strike", "strike")}


def _degree(face: int, total: int, dc: int) -> int:
    """0 critical failure .. 3 critical success, the natural 20 / 1 a step up / down."""
    found = 3 if total >= dc + 10 else 2 if total >= dc else 1 if total > dc - 10 else 0
    return min(3, found + 1) if face == 20 else max(0, found - 1) if face == 1 else found


def _blood_turn(me: dict, him: dict, plan: tuple, my_skill: str, his_skill: str,
                my_fright: int, his_fright: int, his_off_guard: bool):
    """One turn to first blood: (P it draws blood, {(his frightened, I fumbled my Feint):
    P} of the turns that do not). Every die is walked; any hit draws blood (at least 1
    damage), so Bullying Press never matters here; Sense Weakness goes with the first
    Strike, the Sidestep with the first exact success against a Deception roller."""
    sense = my_skill == "perception"
    blood = 0.0
    rest: dict = {}

    def walk(i, p, fright, feint_next, feint_crit, linger, fumble, ready, made):
        nonlocal blood
        if i == len(plan):
            rest[fright, fumble] = rest.get((fright, fumble), 0.0) + p
            return
        step = plan[i]
        if step == "demoralize":
            for face in range(1, 21):
                d = _degree(face, face + me["mods"]["intimidation"] - my_fright,
                            him["will"] - fright)
                walk(i + 1, p / 20, max(fright, {3: 2, 2: 1}.get(d, 0)), feint_next,
                     feint_crit, linger, fumble, ready, made)
            return
        if step == "feint":
            for face in range(1, 21):
                d = _degree(face, face + me["mods"]["deception"] - my_fright,
                            him["pdc"] - fright)
                walk(i + 1, p / 20, fright, feint_next or d == 2, feint_crit or d == 3,
                     linger, fumble or d == 0, ready, made)
            return
        sensed = sense and made == 0
        linger = linger or (sensed and his_skill == "deception")
        off_guard = his_off_guard or feint_next or feint_crit or linger or sensed
        ac = him["ac"] - fright - 2 * off_guard
        modifier = me["attack"] - me["map"][made] - my_fright
        reroll = modifier - 2 * (my_skill == "intimidation")
        for face in range(1, 21):
            d = _degree(face, face + modifier, ac)
            if d == 2 and ready:
                for again in range(1, 21):
                    if _degree(again, again + reroll, ac) >= 2:
                        blood += p / 400
                    else:
                        walk(i + 1, p / 400, fright, False, feint_crit, linger, fumble,
                             False, made + 1)
            elif d >= 2:
                blood += p / 20
            else:
                walk(i + 1, p / 20, fright, False, feint_crit, linger, fumble, ready,
                     made + 1)

    walk(0, 1.0, his_fright, False, False, False, False, his_skill == "deception", 0)
    return blood, rest


@functools.cache
def _second_turn(y: str, x: str, skill_y: str, skill_x: str, fright_y: int,
                 x_off_guard: bool) -> float:
    """P(y draws blood) in the round's last turn, his plan the best knowing the first."""
    return max(_blood_turn(SHEETS[y], SHEETS[x], plan, skill_y, skill_x, fright_y, 0,
                           x_off_guard)[0] for plan in PLANS.values())


def _ordered(x: str, y: str, skill_x: str, skill_y: str) -> float:
    """x's payoff (+1 win, -1 loss) when x acts first: his best plan, then y's."""
    best = -1.0
    for plan in PLANS.values():
        blood, rest = _blood_turn(SHEETS[x], SHEETS[y], plan, skill_x, skill_y, 0, 0, False)
        value = blood - sum(q * _second_turn(y, x, skill_y, skill_x, fright, bool(fumble))
                            for (fright, fumble), q in rest.items())
        best = max(best, value)
    return best


def _a_wins_initiative(mod_a: int, mod_b: int) -> float:
    tie = 1.0 if mod_a > mod_b else 0.5 if mod_a == mod_b else 0.0
    return sum((x + mod_a > y + mod_b) + tie * (x + mod_a == y + mod_b)
               for x, y in itertools.product(range(1, 21), repeat=2)) / 400


def _round_matrix() -> tuple[list, np.ndarray]:
    """The decision's payoffs to A (fighter) against B (rogue): skill and order each."""
    actions = [(s, o) for s in SKILL_NAMES for o in ("first", "second")]
    matrix = np.zeros((6, 6))
    for (i, (sa, oa)), (j, (sb, ob)) in itertools.product(enumerate(actions), repeat=2):
        win = _a_wins_initiative(SHEETS["fighter"]["mods"][sa], SHEETS["rogue"]["mods"][sb])
        a_first = win * (oa == "first") + (1 - win) * (ob == "second")
        matrix[i, j] = (a_first * _ordered("fighter", "rogue", sa, sb)
                        - (1 - a_first) * _ordered("rogue", "fighter", sb, sa))
    return actions, matrix


def test_one_round_first_blood_against_an_enumeration():
    game = make(victory="first_blood", max_rounds=1, plans="per_turn")
    solved = solve_game(game)
    actions, matrix = _round_matrix()
    names = game.info.action_names
    stage = solved.stage_matrix(game.start())
    for (i, (sa, oa)), (j, (sb, ob)) in itertools.product(enumerate(actions), repeat=2):
        assert stage[names.index(f"{sa}-{oa}"), names.index(f"{sb}-{ob}")] == pytest.approx(
            matrix[i, j], abs=1e-12)
    assert solved.value == pytest.approx(linprog_value(matrix), abs=1e-9)


def test_the_second_plan_answers_the_first_turn():
    # first blood, one round, A (fighter) acting second with Perception against a rogue
    # who rolled Intimidation (no Sidestep): A takes the plan most likely to draw blood.
    # Sense Weakness makes the rogue off-guard (AC 16) for the first Strike.
    # - strike3: +9 vs 16 misses on faces 1-6, +4 vs 18 on 1-13, -1 vs 18 on 1-18:
    #   P(no blood) = 6/20 * 13/20 * 18/20 = 0.1755;
    # - demoralize-strike2: Intimidation +3 vs Will 16 fails on 1-12, succeeds on 13-19
    #   (frightened 1: AC 15 then 17), the 20 is critical (frightened 2: AC 14 then 16):
    #   12/20 * (6*13)/400 + 7/20 * (5*12)/400 + 1/20 * (4*11)/400 = 0.175;
    # - feint-strike2: a Feint's success is spent on the first Strike, already off-guard;
    #   only its critical (the 20) helps the second: 6/20 * (19/20 * 13/20 + 1/20 * 11/20)
    #   = 0.1935.
    game = make(victory="first_blood", max_rounds=1, plans="per_turn")
    state = State(phase=SECOND, hp_a=1, hp_b=1, skill_a=2, skill_b=1, first=1)
    solved = solve_game(game, start=state)
    assert solved.value == pytest.approx(1 - 0.175, abs=1e-12)
    mix_a, _ = solved.policy(state)
    assert mix_a[game.info.action_names.index("demoralize-strike2")] == pytest.approx(1.0)


# -- the protocol: who chooses what, and when

def test_the_decision_holds_skill_and_order_the_turn_its_plan():
    game = make(plans="per_turn")
    names = game.info.action_names
    decide = [names[i] for i in np.flatnonzero(game.legal_mask(game.start(), "a"))]
    assert decide == [f"{s}-{o}" for s in SKILL_NAMES for o in ("first", "second")]
    # B acts first and has demoralized A already: no Demoralize plan for him; A waits
    turn = State(phase=FIRST, hp_a=5, hp_b=5, first=1, dem_b=1)
    assert [names[i] for i in np.flatnonzero(game.legal_mask(turn, "a"))] == ["wait"]
    assert [names[i] for i in np.flatnonzero(game.legal_mask(turn, "b"))] == [
        "strike3", "feint-strike2"]
    with pytest.raises(InputError, match="allowed: strike3, feint-strike2"):
        game.outcomes(turn, game.wait, names.index("demoralize-strike2"))


def test_a_chosen_plan_plays_as_the_committed_one():
    # the same turn, its plan chosen now or committed before initiative
    per_turn, committed = make(plans="per_turn"), make()
    names = per_turn.info.action_names
    state = State(phase=SECOND, hp_a=9, hp_b=9, skill_a=2, skill_b=0, first=1, fr_a=1)
    for plan, steps in enumerate(committed.rules.plan_names):
        if steps not in PLANS:
            continue
        chosen = per_turn.outcomes(state, names.index(steps.replace("_", "-")), per_turn.wait)
        fixed = committed.outcomes(state._replace(plan_a=plan), committed.wait, committed.wait)
        assert _by_state(chosen).keys() == _by_state(fixed).keys()
        for outcome, chance in _by_state(fixed).items():
            assert _by_state(chosen)[outcome] == pytest.approx(chance, abs=1e-15)


def _by_state(outcomes) -> dict:
    """Each state's chance (compared by state: sorting on floats that differ in their
    last bit would pair the wrong states)."""
    chances: dict = {}
    for chance, state in outcomes:
        chances[state] = chances.get(state, 0.0) + chance
    return chances


@pytest.mark.parametrize("reaction_choice", ["plan", "each_strike"])
def test_counters_agree_with_the_state_graph_per_turn(reaction_choice):
    game = make(a="fighter,hp=4", b="rogue,hp=3", plans="per_turn",
                reaction_choice=reaction_choice)
    assert game.info.has("counters") and not game.info.has("cores")
    fast = solve_game(game)
    with forcing("states"):
        generic = solve_game(game, start=game.start())
    assert fast.value == pytest.approx(generic.value, abs=1e-8)
    for s, state in enumerate(generic.graph.states):
        if not game.is_terminal(state):
            assert fast.value_at(state) == pytest.approx(generic.values[s], abs=1e-8)


def test_plans_option_words():
    with pytest.raises(InputError, match="committed.*per_turn"):
        make(plans="sometimes")
    game = make(plans="per_turn")
    with pytest.raises(InputError, match="plan_a takes 0"):
        game.state_from({"phase": 1, "plan_a": 2})
    assert game.advice("perception-second") == "Perception for initiative, second on winning it"
    assert game.advice("feint-strike2") == "Feint, Strike, Strike"
    assert SYSTEM.action_parts("perception-second") == {"initiative skill": "perception",
                                                        "order": "second"}
    assert SYSTEM.action_parts("feint-strike2") == {"plan": "feint-strike2"}
    assert SYSTEM.action_parts("perception-second-feint-strike2")["plan"] == "feint-strike2"
    assert make().start().phase == DECIDE


def test_solve_per_turn_tells_no_plan_at_the_decision(capsys):
    # the decision holds no plan: the answer gives the skill and the order, not an empty
    # plan line
    from agents.cli import main
    assert main(["solve", "pathfinder", "--a", "fighter,hp=2", "--b", "rogue,hp=2", "-o",
                 "victory=first_blood", "-o", "plans=per_turn"]) == 0
    out = capsys.readouterr().out
    assert "initiative skill: you " in out and "order: you " in out
    assert "plan:" not in out


def test_play_asks_for_the_plan_on_the_players_own_turn(capsys):
    # one round: the skill and order at the decision, then the plan on his own turn (and
    # nothing on the foe's); the uniform foe's turns are his own plans
    import json

    from agents.cli import build_parser, play

    asked = []

    def read(prompt):
        asked.append(prompt)
        return ["perception-first", "strike3"][len(asked) - 1]

    args = build_parser().parse_args(["play", "pathfinder", "--a", "fighter", "--b", "rogue",
                                      "-o", "max_rounds=1", "-o", "plans=per_turn", "--vs",
                                      "uniform", "--seed", "5", "--json"])
    assert play.run(args, read=read) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["finished"] and len(asked) == 2
    rows = report["exchanges"]
    assert rows[0]["a"] == "perception-first" and "strike3" in [row["a"] for row in rows]
    assert all(row["b"] == "wait" for row in rows if row["a"] == "strike3")
