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
    assert end.health_b == -1 and game.result(end) == "A wins: unconscious"


def test_sorcery_without_talent_wounds_keeps_first_blood_only():
    from solver.errors import InputError
    with pytest.raises(InputError, match="to_the_death"):
        duel(discipline="sorcery", convention="to_the_death")
