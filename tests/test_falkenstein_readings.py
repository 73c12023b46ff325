"""Castle Falkenstein: the readings of the seed (issue 28) beside the previous ones.

Every expected number is derived by hand from shared/rules/falkenstein.md and the seed
(the reasoning is in the comments), never read from the code."""

from __future__ import annotations

import pytest

import envs
from envs.falkenstein import ACTIONS

DD = ACTIONS.index("DD")


def duel(a: dict | None = None, b: dict | None = None, **options):
    return envs.make("falkenstein", a=a or {"fencing": "GD"}, b=b or {"fencing": "GD"},
                     **options)


def after(game, state, action_a: str, action_b: str) -> list:
    """The exact outcomes of one exchange, as (probability, state) sorted by probability."""
    outcomes = game.outcomes(state, ACTIONS.index(action_a), ACTIONS.index(action_b))
    assert sum(p for p, _ in outcomes) == pytest.approx(1.0, abs=1e-12)
    return sorted(outcomes, key=lambda outcome: outcome[0])


def only(outcomes: list):
    ((probability, state),) = outcomes
    assert probability == 1.0
    return state


# ---------------------------------------------------------------- equal Physique

def test_equal_physique_at_the_wall_frees_the_one_against_it():
    # 6 m: 4 m of room; A against the wall (0 m), B has 4. Both AV Physique: each drives
    # the other back 1 m. A has no room and stays; B goes back 1, so A gains 1 m: 1 / 3.
    game = duel()
    nxt = only(after(game, game.state_from({"back_a": 0}), "DD", "DD"))
    assert (nxt.back_a, game.state_fields(nxt)["back_b"]) == (1, 3)


def test_equal_physique_in_the_open_moves_nobody_net():
    # 8 m: 6 m of room, 3 / 3. Each goes back 1 m and the other steps in: 3 - 1 + 1 = 3.
    game = duel(field_m=8)
    assert only(after(game, game.state_from({"back_a": 3}), "DD", "DD")).back_a == 3


def test_equal_physique_close_again_is_the_previous_reading():
    # the previous reading: they close again, A stays against the wall
    game = duel(corps_a_corps_tie="close_again")
    assert only(after(game, game.state_from({"back_a": 0}), "DD", "DD")).back_a == 0


def test_equal_physique_on_a_two_metre_ledge_throws_both_off():
    # 2 m of ground: nobody has room; both driven back 1 m over the ledge, both out: a
    # draw. Closing again, nothing happens.
    sheets = {"physique": "GR"}, {"physique": "GR"}
    game = duel(*sheets, field_m=2, edge="ledge", ledge="fall")
    assert game.result(only(after(game, game.state_from({}), "DD", "DD"))) == \
        "draw: both out"
    game = duel(*sheets, field_m=2, edge="ledge", ledge="fall",
                corps_a_corps_tie="close_again")
    assert not game.is_terminal(only(after(game, game.state_from({}), "DD", "DD")))


def test_unequal_physique_still_pushes_two_metres():
    # GR against AV from 2 / 2: B is driven back 2 m, A follows: 4 / 0
    game = duel({"physique": "GR"}, {"physique": "AV"})
    assert only(after(game, game.state_from({}), "DD", "DD")).back_a == 4


# ---------------------------------------------------------------- the ledge is a jump

def test_a_jump_at_the_ledge_is_a_feat_on_athletics():
    # 4 m at a ledge: 1 m behind each. B's single touch (GD on GD, d = 0) is an R; A has
    # 1 m < 2, so he jumps: Athletics AV succeeds with 0.5 (the default feat chances).
    # Landed, he has 0 m behind him and B 2; missed, he falls.
    game = duel(field_m=4, edge="ledge")
    outcomes = after(game, game.state_from({}), "RR", "AD")
    assert [p for p, _ in outcomes] == [0.5, 0.5]
    (fell,), (landed,) = ([s for _, s in outcomes if game.is_terminal(s) == over]
                          for over in (True, False))
    assert game.result(fell) == "B wins: A falls from the ledge"
    assert not game.is_terminal(landed)
    assert (landed.back_a, game.state_fields(landed)["back_b"]) == (0, 2)


@pytest.mark.parametrize("level, chance", [("PR", 0.3), ("GR", 0.8), ("EXT", 0.95)])
def test_the_feat_chance_is_read_by_athletics_level(level, chance):
    game = duel({"fencing": "GD", "athletics": level}, field_m=4, edge="ledge")
    outcomes = after(game, game.state_from({}), "RR", "AD")
    landed = [p for p, state in outcomes if not game.is_terminal(state)]
    assert landed == [pytest.approx(chance, abs=1e-12)]


def test_the_feat_chances_are_ruleset_data():
    # a GM's table in which an Average jumper never misses: one outcome, he lands
    game = duel(field_m=4, edge="ledge", ruleset={"feat_chance": {"AV": 1.0}})
    assert only(after(game, game.state_from({}), "RR", "AD")).back_a == 0


def test_two_jumps_in_one_exchange_are_independent():
    # 4 m, both at 1 m: AR against AR, both single R, both jump at 0.5 each.
    # Both land (0.25): each lands at his wall; the moves cancel, A keeps 1 m.
    # One lands (0.25 each): the other falls and loses. Both miss (0.25): both out.
    game = duel(field_m=4, edge="ledge")
    outcomes = after(game, game.state_from({}), "AR", "AR")
    assert [p for p, _ in outcomes] == [0.25] * 4
    results = sorted(game.result(state) for _, state in outcomes)
    assert results == ["", "A wins: B falls from the ledge", "B wins: A falls from the ledge",
                       "draw: both out"]
    (kept,) = [state for _, state in outcomes if not game.is_terminal(state)]
    assert kept.back_a == 1


def test_a_landed_jump_is_no_blood_against_a_wound():
    # A GR against B PR, A at 0 m at a ledge: A's single touch d = +3 is a BM on B; B's
    # d = -3 is an R on A, who jumps (AV, 0.5). Landed: only B bleeds, A wins. Missed:
    # A's fall (out) outranks B's BM, B wins.
    game = duel({"fencing": "GR"}, {"fencing": "PR"}, edge="ledge")
    results = {game.result(state): p
               for p, state in after(game, game.state_from({"back_a": 0}), "AR", "AR")}
    assert results == {"A wins: first blood": 0.5, "B wins: A falls from the ledge": 0.5}


def test_a_corps_a_corps_push_at_the_ledge_is_a_jump_too():
    # 8 m, B (AV Physique) has 1 m; A (GR) pushes him 2 m: B jumps (Athletics AV, 0.5),
    # lands with 0 m behind him (A 6 m), or falls
    game = duel({"physique": "GR"}, {"physique": "AV"}, field_m=8, edge="ledge")
    outcomes = after(game, game.state_from({"back_b": 1}), "DD", "DD")
    assert [p for p, _ in outcomes] == [0.5, 0.5]
    states = {game.result(state): state for _, state in outcomes}
    assert set(states) == {"", "A wins: B falls from the ledge"}
    assert states[""].back_a == 6


@pytest.mark.parametrize("athletics, ledge, value", [
    ("AV", "jump", -0.5), ("GR", "jump", -0.2), ("AV", "fall", -1.0)])
def test_the_value_of_a_forced_rest_at_the_ledge(athletics, ledge, value):
    # Last exchange of a one-round duel on 4 m: A (GD) owes 2 Rests, so he must play RR;
    # B (PR, owes nothing) either touches (d = -2: R; A has 1 m and goes over the ledge:
    # a jump saved with A's feat chance p, a draw at the end of time, else a loss) or does
    # nothing (a draw). B's best is to touch: the value is -(1 - p); -1 when A just falls.
    import solver
    game = duel({"fencing": "GD", "athletics": athletics}, {"fencing": "PR"}, field_m=4,
                edge="ledge", ledge=ledge, max_rounds=1)
    moment = game.state_from({"exchange": 3, "owed_a": 2, "owed_b": 0})
    assert solver.solve_game(game, start=moment).value == pytest.approx(value, abs=1e-12)


def test_sampling_a_jump_follows_its_chance():
    import numpy as np
    game = duel(field_m=4, edge="ledge")
    state = game.state_from({})
    rng = np.random.default_rng(7)
    landed = sum(not game.is_terminal(game.sample(state, ACTIONS.index("RR"),
                                                   ACTIONS.index("AD"), rng))
                 for _ in range(4000))
    assert abs(landed / 4000 - 0.5) < 0.03  # 4 standard deviations of 0.0079


# ---------------------------------------------------------------- open ground

def test_on_open_ground_a_retreat_never_turns_into_a_wound():
    # GD on GD, d = 0: a single touch is an R. At a wall, A with 0 m behind him would take
    # a BP (first blood, B wins); on open ground he just gives 2 m and the duel goes on.
    walled = duel()
    assert walled.result(only(after(walled, walled.state_from({"back_a": 0}), "RR", "AD"))) \
        == "B wins: first blood at the wall"
    game = duel(edge="open")
    nxt = only(after(game, game.state_from({"back_a": 0}), "RR", "AD"))
    assert not game.is_terminal(nxt) and nxt.back_a == 0


def test_on_open_ground_a_push_is_never_stopped():
    # GR against AV: the push moves both 2 m but nothing stands behind, so nobody's room
    # changes and nobody falls
    game = duel({"physique": "GR"}, {"physique": "AV"}, edge="open")
    nxt = only(after(game, game.state_from({"back_b": 0}), "DD", "DD"))
    assert not game.is_terminal(nxt) and game.state_fields(nxt)["back_b"] == 0


@pytest.mark.parametrize("edge, value", [("wall", -1.0), ("open", 0.0)])
def test_the_value_of_a_forced_rest_on_open_ground(edge, value):
    # Last exchange of a one-round duel, A (GD) against the end with 0 m, owing 2 Rests:
    # he must play RR. B (PR, d = -2: R/R) touches: at a wall the R is a BP and B wins
    # (-1); on open ground A retreats and time runs out (0), so B is indifferent (0).
    import solver
    game = duel({"fencing": "GD"}, {"fencing": "PR"}, edge=edge, max_rounds=1)
    moment = game.state_from({"exchange": 3, "owed_a": 2, "owed_b": 0, "back_a": 0})
    assert solver.solve_game(game, start=moment).value == pytest.approx(value, abs=1e-12)


# ---------------------------------------------------------------- sorcery by talent

SORCERY_WOUNDS = {"disciplines": {"sorcery": {
    "wounds": "talent", "conventions": ["first_blood", "surrender", "to_the_death"]}}}


def test_a_sorcery_duel_can_wound_by_sorcery_talent():
    # A GR against B GD in Sorcery: d = +1, a single touch is BP, a double BT. The talent
    # wounds of a Great sorcerer are 4 / 5 / 6 (the ruleset's [default]); B's Health is
    # AV Physique x AV Courage = 5: a BP leaves 1, a BT leaves 0 (still conscious).
    game = duel({"sorcery": "GR"}, {"sorcery": "GD"}, discipline="sorcery",
                convention="to_the_death", ruleset=SORCERY_WOUNDS)
    state = game.state_from({})
    assert only(after(game, state, "AR", "RR")).health_b == 1
    assert only(after(game, state, "AA", "RR")).health_b == 0
    # B's touch on A (d = -1) is an R: no ground in sorcery, nothing happens to A
    assert only(after(game, state, "RR", "AR")).health_a == 5


def test_talent_wounds_follow_a_hidden_level():
    # With hidden levels A's Sorcery is drawn (here surely EXC, whatever the sheet says):
    # a single touch EXC on GD is d = +2, a BT; an Exceptional sorcerer's BT is 6, so B
    # (Health 5) falls to -1, unconscious.
    game = duel({"sorcery": "PR"}, {"sorcery": "GD"}, discipline="sorcery",
                convention="to_the_death", ruleset=SORCERY_WOUNDS, hidden_levels=True,
                prior_a={"EXC": 1}, prior_b={"GD": 1}, max_rounds=1)
    ((_, state),) = game.initial_outcomes()
    end = only(after(game, state, "AR", "RR"))
    assert end.inner.health_b == -1 and game.result(end) == "A wins: unconscious"


def test_sorcery_without_talent_wounds_keeps_first_blood_only():
    from solver.errors import InputError
    with pytest.raises(InputError, match="to_the_death"):
        duel(discipline="sorcery", convention="to_the_death")


# ---------------------------------------------------------------- disarm at the attacker's choice

def names(game, state, player: str) -> list[str]:
    mask = game.legal_mask(state, player)
    return [name for name, ok in zip(game.action_names, mask, strict=True) if ok]


def choose(game, state, choice_a: str, choice_b: str):
    return game.outcomes(state, game.action_names.index(choice_a),
                         game.action_names.index(choice_b))


def test_a_partial_wound_waits_for_the_attackers_choice():
    # GR on GD, d = +1: A's single touch is a BP. Under disarm=attacker_chooses the
    # exchange stops at a step where A chooses and B can only wait.
    game = duel({"fencing": "GR"}, disarm="attacker_chooses")
    state = game.state_from({})
    pending = only(after(game, state, "AR", "RR"))
    assert not game.is_terminal(pending) and pending.step
    assert names(game, pending, "a") == ["wound", "disarm"]
    assert names(game, pending, "b") == ["wait"]
    # first blood: a wound is first blood, a disarm makes B yield; both end it for A
    assert game.result(only(choose(game, pending, "wound", "wait"))) == "A wins: first blood"
    assert game.result(only(choose(game, pending, "disarm", "wait"))) == "A wins: disarm"


def test_under_first_blood_a_disarm_is_no_blood():
    # 2 m at a wall: no room for either; GD on GD, AR against AR: each single R becomes
    # a BP at the wall, so both choose. Wound against wound: equal wounds, a draw. A
    # disarm against a wound: only the disarmer bled, the wound wins. Two disarms: a draw.
    game = duel(field_m=2, disarm="attacker_chooses")
    pending = only(after(game, game.state_from({}), "AR", "AR"))
    assert names(game, pending, "a") == names(game, pending, "b") == ["wound", "disarm"]
    results = {(x, y): game.result(only(choose(game, pending, x, y)))
               for x in ("wound", "disarm") for y in ("wound", "disarm")}
    assert results == {("wound", "wound"): "draw: both wounded alike",
                       ("wound", "disarm"): "A wins: first blood at the wall",
                       ("disarm", "wound"): "B wins: first blood at the wall",
                       ("disarm", "disarm"): "draw: both disarmed"}


def test_under_surrender_the_attacker_may_wound_instead():
    # surrender: the previous reading always disarms; the choice may wound instead: the
    # rapier's BP is 4, B's Health 5 -> 1, and the duel goes on
    game = duel({"fencing": "GR"}, convention="surrender", disarm="attacker_chooses")
    pending = only(after(game, game.state_from({}), "AR", "RR"))
    wounded = only(choose(game, pending, "wound", "wait"))
    assert (wounded.health_b, game.is_terminal(wounded), wounded.step) == (1, False, 0)
    assert wounded.exchange == 2 and wounded.owed_a == 0  # A's Rest counted
    assert game.result(only(choose(game, pending, "disarm", "wait"))) == "A wins: disarm"


@pytest.mark.parametrize("disarm, value", [("by_convention", 0.0), ("attacker_chooses", 1.0)])
def test_a_disarm_to_the_death(disarm, value):
    # to the death, the last exchange of a one-round duel: B (GD) owes 2 Rests and must
    # play RR; A (GR, owes nothing) touches. d = +1: a single touch is a BP (4: Health
    # 5 -> 1), a double a BT (5: Health 0, still conscious), so wounding only runs out
    # the time: a draw. With the attacker's choice A disarms after a single touch: +1.
    import solver
    game = duel({"fencing": "GR"}, convention="to_the_death", disarm=disarm, max_rounds=1)
    moment = game.state_from({"exchange": 3, "owed_a": 0, "owed_b": 2})
    assert solver.solve_game(game, start=moment).value == pytest.approx(value, abs=1e-12)


def test_no_choice_without_a_partial_wound():
    # a BT (GR's double touch on GD) is no partial wound: no step, first blood at once
    game = duel({"fencing": "GR"}, disarm="attacker_chooses")
    assert game.result(only(after(game, game.state_from({}), "AA", "RR"))) == \
        "A wins: first blood"


# ---------------------------------------------------------------- movement between exchanges

def moving(a: dict | None = None, b: dict | None = None, **options):
    return duel(a, b, movement="circle", **options)


def test_an_exchange_that_leaves_the_duel_running_is_followed_by_movement():
    game = moving()
    nxt = only(after(game, game.state_from({}), "RR", "RR"))
    assert names(game, nxt, "a") == names(game, nxt, "b") == ["stand", "circle", "press"]
    assert nxt.exchange == 2  # the exchange is counted; the movement comes before the next
    # standing or pressing against standing or pressing: nothing moves
    for x, y in (("stand", "stand"), ("press", "stand"), ("press", "press")):
        assert only(choose(game, nxt, x, y)) == nxt._replace(step=0)


@pytest.mark.parametrize("a_move, b_move, chance", [
    ("circle", "stand", 0.5),                  # A's feat (Athletics AV)
    ("circle", "circle", 1 - 0.5 * 0.5),       # either feat re-centres
    ("circle", "press", 0.5 * (1 - 0.65)),     # A's feat and not B's (Fencing GD)
    ("press", "circle", 0.5 * (1 - 0.65)),     # B circles, A presses
])
def test_a_circle_recentres_by_its_feat(a_move, b_move, chance):
    # 6 m: A has 0 m, B 4; the middle is 2 / 2, within 2 m: a circle brings A to 2
    game = moving()
    moment = game.state_from({"back_a": 0, "step": 37})
    outcomes = {state.back_a: p for p, state in choose(game, moment, a_move, b_move)}
    assert outcomes == {2: pytest.approx(chance, abs=1e-12),
                        0: pytest.approx(1 - chance, abs=1e-12)}


def test_a_circle_moves_at_most_two_metres():
    # 12 m: 10 m of room, the middle 5 / 5. From 0 a circle reaches 2; from 4 it reaches 5
    game = moving({"athletics": "EXT"}, field_m=12, ruleset={"feat_chance": {"EXT": 1.0}})
    for back, centred in ((0, 2), (4, 5), (9, 7)):
        moment = game.state_from({"back_a": back, "step": 37})
        assert only(choose(game, moment, "circle", "stand")).back_a == centred


def test_no_movement_after_the_end_or_where_positions_do_not_count():
    game = moving({"fencing": "GR"})
    end = only(after(game, game.state_from({}), "AA", "RR"))
    assert game.is_terminal(end) and not end.step
    for options in ({"edge": "open"}, {"discipline": "sorcery"}):
        game = moving(**options)
        assert game.action_names == ACTIONS
        assert not only(after(game, game.state_from({}), "RR", "RR")).step


@pytest.mark.parametrize("movement, value", [("none", -1.0), ("circle", -0.65)])
def test_the_value_of_circling_off_the_wall(movement, value):
    # One round; before exchange 3, A (GD) is against the wall and owes 2 Rests, so he will
    # play RR; B (PR, owes nothing) will touch (d = -2: R): a BP at the wall (B wins,
    # -1) unless A has 2 m behind him by then (a retreat, then time: 0). Without movement:
    # -1. With it, A's payoff is -(1 - P(re-centred)):
    #            B stand        B circle                 B press
    # A stand    -1             -(1 - 0.5) = -0.5         -1
    # A circle   -0.5           -(0.5 * 0.5) = -0.25      -(1 - 0.5 * 0.7) = -0.65
    # A press    -1             -(1 - 0.5 * 0.35) = -0.825 -1
    # (Athletics AV 0.5 for both; Fencing GD 0.65 for A, PR 0.3 for B.) B's best against
    # a circle is to press (-0.65), and against a press A's best is to circle: a saddle.
    import solver
    game = duel({"fencing": "GD"}, {"fencing": "PR"}, movement=movement, max_rounds=1)
    fields = {"exchange": 3, "owed_a": 2, "owed_b": 0, "back_a": 0}
    if movement == "circle":
        fields["step"] = 37
    moment = game.state_from(fields)
    assert solver.solve_game(game, start=moment).value == pytest.approx(value, abs=1e-12)


def test_movement_with_hidden_levels_is_refused():
    from solver.errors import InputError
    with pytest.raises(InputError, match="movement=circle"):
        duel(movement="circle", hidden_levels=True, max_rounds=1)


def test_hidden_athletics_at_a_jumping_ledge_is_refused():
    # wrestling draws Athletics, the ability of a jump at the ledge: the sheet's or the
    # drawn level's, the two readings differ, so neither is given
    from solver.errors import InputError
    with pytest.raises(InputError, match="ledge=jump"):
        duel(discipline="wrestling", edge="ledge", field_m=4, hidden_levels=True,
             max_rounds=1)
    # a fall needs no feat, and fencing draws Fencing, not Athletics
    duel(discipline="wrestling", edge="ledge", ledge="fall", hidden_levels=True, max_rounds=1)
    duel(edge="ledge", hidden_levels=True, max_rounds=1)


# ---------------------------------------------------------------- the keys themselves

@pytest.mark.parametrize("name, choices, default", [
    ("corps_a_corps_tie", ("push_apart", "close_again"), "push_apart"),
    ("ledge", ("jump", "fall"), "jump"),
    ("edge", ("wall", "ledge", "open"), "wall"),
    ("disarm", ("by_convention", "attacker_chooses"), "by_convention"),
    ("movement", ("none", "circle"), "none"),
])
def test_the_readings_are_options_with_their_choices(name, choices, default):
    (field,) = [f for f in envs.spec("falkenstein").options if f.name == name]
    assert field.choices == choices
    game = duel()
    assert game.options[name] == default


@pytest.mark.parametrize("ruleset, word", [
    ({"feat_chance": {"AV": 1.5}}, "feat_chance.AV"),
    ({"footwork_ability": "juggling"}, "juggling"),
    ({"corps_a_corps_tie_m": 3}, "corps_a_corps_tie_m"),
])
def test_bad_feat_data_is_refused_in_words(ruleset, word):
    from solver.errors import InputError
    with pytest.raises(InputError, match=word):
        duel(ruleset=ruleset)


def test_both_steps_in_one_duel():
    # the disarm choice, then the movement: GR's BP on GD, A disarms under surrender ends
    # it; A wounds instead (Health 5 -> 1) and the movement step follows
    game = duel({"fencing": "GR"}, convention="surrender", disarm="attacker_chooses",
                movement="circle")
    pending = only(after(game, game.state_from({}), "AR", "RR"))
    assert names(game, pending, "a") == ["wound", "disarm"]
    moved = only(choose(game, pending, "wound", "wait"))
    assert moved.health_b == 1 and names(game, moved, "b") == ["stand", "circle", "press"]
