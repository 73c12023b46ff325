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
    game = duel(*sheets, field_m=2, edge="ledge")
    assert game.result(only(after(game, game.state_from({}), "DD", "DD"))) == \
        "draw: both out"
    game = duel(*sheets, field_m=2, edge="ledge", corps_a_corps_tie="close_again")
    assert not game.is_terminal(only(after(game, game.state_from({}), "DD", "DD")))


def test_unequal_physique_still_pushes_two_metres():
    # GR against AV from 2 / 2: B is driven back 2 m, A follows: 4 / 0
    game = duel({"physique": "GR"}, {"physique": "AV"})
    assert only(after(game, game.state_from({}), "DD", "DD")).back_a == 4
