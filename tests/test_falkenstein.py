"""Castle Falkenstein card duel: every expected number here is derived by hand from
shared/rules/falkenstein.md (the reasoning is in the comments), never from the code."""

from __future__ import annotations

import json
from collections import deque

import numpy as np
import pytest

import envs
from envs.falkenstein import ACTIONS
from solver.errors import InputError


def duel(a: str | dict = "GD", b: str | dict = "GD", **options):
    sheet_a = {"fencing": a} if isinstance(a, str) else a
    sheet_b = {"fencing": b} if isinstance(b, str) else b
    return envs.make("falkenstein", a=sheet_a, b=sheet_b, **options)


def start(game):
    ((probability, state),) = game.initial_outcomes()
    assert probability == 1.0
    return state


def play(game, state, action_a: str, action_b: str):
    ((probability, nxt),) = game.outcomes(state, ACTIONS.index(action_a),
                                          ACTIONS.index(action_b))
    assert probability == 1.0
    return nxt


def legal(game, state, player: str) -> set[str]:
    return {name for name, ok in zip(ACTIONS, game.legal_mask(state, player), strict=True)
            if ok}


def parse_table(text: str) -> dict:
    """Rows ``A B  letter_on_A letter_on_B  back_a back_b  result`` ("-": none)."""
    table = {}
    for line in filter(None, (raw.strip() for raw in text.splitlines())):
        act_a, act_b, on_a, on_b, back_a, back_b, *result = line.split()
        label = " ".join(result)
        table[act_a, act_b] = (on_a, on_b, int(back_a), int(back_b),
                               "" if label == "-" else label)
    assert len(table) == 36
    return table


def check_table(game, table: dict) -> None:
    state = start(game)
    for (act_a, act_b), (on_a, on_b, back_a, back_b, label) in table.items():
        nxt = play(game, state, act_a, act_b)
        ex = game.resolve(state, ACTIONS.index(act_a), ACTIONS.index(act_b))
        got = (ex.letter_a or "-", ex.letter_b or "-", game.state_fields(nxt)["back_a"],
               game.state_fields(nxt)["back_b"], game.result(nxt))
        assert got == (on_a, on_b, back_a, back_b, label), (act_a, act_b)
        assert game.is_terminal(nxt) == bool(label)


# Hits on B = max(0, attacks of A - defenses of B): attacks AA 2, AD 1, AR 1, others 0;
# defenses DD 2, AD 1, DR 1, others 0. GD against GD: d = 0 both ways, single R, double BP.
# Both start with 2 m behind them on the default 6 m ground, so every R is a 2 m retreat.
# A duel that ends keeps the positions its last exchange produced (documented reading).
GD_VS_GD = """
AA AA  BP BP  2 2  draw: both wounded alike
AA AD  R  R   2 2  -
AA AR  R  BP  0 4  A wins: first blood
AA DD  -  -   2 2  -
AA DR  -  R   4 0  -
AA RR  -  BP  2 2  A wins: first blood
AD AA  R  R   2 2  -
AD AD  -  -   2 2  -
AD AR  -  R   4 0  -
AD DD  -  -   2 2  -
AD DR  -  -   2 2  -
AD RR  -  R   4 0  -
AR AA  BP R   4 0  B wins: first blood
AR AD  R  -   0 4  -
AR AR  R  R   2 2  -
AR DD  -  -   2 2  -
AR DR  -  -   2 2  -
AR RR  -  R   4 0  -
DD AA  -  -   2 2  -
DD AD  -  -   2 2  -
DD AR  -  -   2 2  -
DD DD  -  -   2 2  -
DD DR  -  -   2 2  -
DD RR  -  -   2 2  -
DR AA  R  -   0 4  -
DR AD  -  -   2 2  -
DR AR  -  -   2 2  -
DR DD  -  -   2 2  -
DR DR  -  -   2 2  -
DR RR  -  -   2 2  -
RR AA  BP -   2 2  B wins: first blood
RR AD  R  -   0 4  -
RR AR  R  -   0 4  -
RR DD  -  -   2 2  -
RR DR  -  -   2 2  -
RR RR  -  -   2 2  -
"""
# AA/AD and AD/AA: one touch each way, two retreats cancel. DD/DD: corps-à-corps with equal
# (Average) Physique, no net movement. AR/AR: one unopposed attack each way, both retreat.

# AV (A) against GD (B): B's touches on A have d = +1 (single BP, double BT); A's touches
# on B have d = -1 (single R, double BP).
AV_VS_GD = """
AA AA  BT BP  2 2  B wins: first blood
AA AD  BP R   4 0  B wins: first blood
AA AR  BP BP  2 2  draw: both wounded alike
AA DD  -  -   2 2  -
AA DR  -  R   4 0  -
AA RR  -  BP  2 2  A wins: first blood
AD AA  BP R   4 0  B wins: first blood
AD AD  -  -   2 2  -
AD AR  -  R   4 0  -
AD DD  -  -   2 2  -
AD DR  -  -   2 2  -
AD RR  -  R   4 0  -
AR AA  BT R   4 0  B wins: first blood
AR AD  BP -   2 2  B wins: first blood
AR AR  BP R   4 0  B wins: first blood
AR DD  -  -   2 2  -
AR DR  -  -   2 2  -
AR RR  -  R   4 0  -
DD AA  -  -   2 2  -
DD AD  -  -   2 2  -
DD AR  -  -   2 2  -
DD DD  -  -   2 2  -
DD DR  -  -   2 2  -
DD RR  -  -   2 2  -
DR AA  BP -   2 2  B wins: first blood
DR AD  -  -   2 2  -
DR AR  -  -   2 2  -
DR DD  -  -   2 2  -
DR DR  -  -   2 2  -
DR RR  -  -   2 2  -
RR AA  BT -   2 2  B wins: first blood
RR AD  BP -   2 2  B wins: first blood
RR AR  BP -   2 2  B wins: first blood
RR DD  -  -   2 2  -
RR DR  -  -   2 2  -
RR RR  -  -   2 2  -
"""
# AA/AA: A takes BT, B takes BP; the worse wound loses. AA/AR: both take BP: a draw.
# AA/AD: B retreats (A's single R) while A is wounded (B's single BP): B still wins.


@pytest.mark.parametrize("sheets, text", [(("GD", "GD"), GD_VS_GD), (("AV", "GD"), AV_VS_GD)])
def test_all_card_pairs_from_the_start(sheets, text):
    check_table(duel(*sheets), parse_table(text))


def test_start_state():
    game = duel("AV", "GD")
    state = start(game)
    view = game.state_fields(state)
    # 6 m ground, 2 m apart, centred: 2 m behind each; AV and GD both owe 2 Rests;
    # Health AV x AV = 5
    assert (view["round"], view["exchange"], view["back_a"], view["back_b"]) == (1, 1, 2, 2)
    assert (view["owed_a"], view["owed_b"], view["health_a"], view["health_b"]) == (2, 2, 5, 5)
    assert not game.is_terminal(state) and game.result(state) == ""


# ---------------------------------------------------------------- the wall and the ledge

def test_retreat_at_the_wall_becomes_a_wound():
    game = duel()
    state = game.state_from({"back_a": 0})
    # B's single touch is R, but A has no room: BP, first blood at the wall
    end = play(game, state, "RR", "AD")
    assert game.result(end) == "B wins: first blood at the wall"
    assert game.payoff(end) == -1
    # both get R: A's turns into BP from the position before the exchange, B's retreat
    # still happens (B had 4 m), so A steps forward to 2 m
    end = play(game, state, "AR", "AR")
    assert game.result(end) == "B wins: first blood at the wall"
    assert game.state_fields(end)["back_a"] == 2
    # A drives B back from 4 m to 2 m
    assert play(game, state, "AD", "RR").back_a == 2


def test_retreat_on_an_eight_metre_ground():
    # 8 m: 3 m behind each; a retreat leaves 1 m, then R is BP at the wall
    game = duel(field_m=8)
    state = start(game)
    assert state.back_a == 3
    state = play(game, state, "AD", "RR")
    assert game.state_fields(state)["back_b"] == 1 and state.back_a == 5
    end = play(game, state, "AD", "RR")
    assert game.result(end) == "A wins: first blood at the wall"


def test_wall_wound_costs_health_to_the_death():
    game = duel(convention="to_the_death")
    # R at the wall is a partial wound: the rapier's 4; Health 5 -> 1, the duel goes on
    nxt = play(game, game.state_from({"back_a": 0}), "RR", "AD")
    assert (nxt.health_a, game.is_terminal(nxt)) == (1, False)


def test_fall_from_the_ledge():
    game = duel(edge="ledge", ledge="fall")
    state = game.state_from({"back_a": 0})
    assert game.result(play(game, state, "RR", "AD")) == "B wins: A falls from the ledge"
    # reading: a fall puts the faller out, like HC; it beats B's lesser wound (BP)
    end = play(game, state, "AA", "AR")
    assert game.resolve(state, 0, 2).letter_b == "BP"
    assert game.result(end) == "B wins: A falls from the ledge"
    # the same under to_the_death: B's BP costs 4 Health, A is out
    deadly = duel(edge="ledge", ledge="fall", convention="to_the_death")
    end = play(deadly, deadly.state_from({"back_a": 0}), "AA", "AR")
    assert deadly.result(end) == "B wins: A falls from the ledge" and end.health_b == 1


def test_fall_against_out_of_combat_is_both_out():
    # A GR vs B PR: A's double touch has d = +3: HC; B's single touch d = -3: R, A falls
    game = duel("GR", "PR", edge="ledge", ledge="fall")
    end = play(game, game.state_from({"back_a": 0}), "AA", "AR")
    assert game.result(end) == "draw: both out" and game.payoff(end) == 0


def test_both_fall_on_a_two_metre_ground():
    game = duel(field_m=2, edge="ledge", ledge="fall")
    state = start(game)
    assert (state.back_a, game.state_fields(state)["back_b"]) == (0, 0)
    assert game.result(play(game, state, "AR", "AR")) == "draw: both out"
    # the same at a wall: both single R become BP, equal wounds
    walled = duel(field_m=2)
    assert walled.result(play(walled, start(walled), "AR", "AR")) == "draw: both wounded alike"


# ---------------------------------------------------------------- corps-à-corps

def test_corps_a_corps_stronger_pushes():
    game = duel({"fencing": "GD", "physique": "GR"}, {"fencing": "GD", "physique": "AV"})
    state = play(game, start(game), "DD", "DD")
    assert (state.back_a, game.state_fields(state)["back_b"]) == (4, 0)
    # into the wall: nothing moves
    assert play(game, state, "DD", "DD").back_a == 4
    # B stronger: A is pushed
    game = duel({"fencing": "GD", "physique": "PR"}, {"fencing": "GD", "physique": "AV"})
    assert play(game, start(game), "DD", "DD").back_a == 0


def test_corps_a_corps_equal_physique_does_not_move():
    game = duel({"physique": "EXC"}, {"physique": "exc"})
    nxt = play(game, start(game), "DD", "DD")
    assert nxt.back_a == 2 and not game.is_terminal(nxt)


def test_corps_a_corps_partial_push_and_ledge():
    sheets = ({"physique": "GR"}, {"physique": "AV"})
    # 8 m ground, B has 1 m: pushed as far as the wall allows, 1 m
    game = duel(*sheets, field_m=8)
    nxt = play(game, game.state_from({"back_b": 1}), "DD", "DD")
    assert game.state_fields(nxt)["back_b"] == 0 and nxt.back_a == 6
    # at a ledge, pushed with less than 2 m behind him: he falls (reading)
    game = duel(*sheets, field_m=8, edge="ledge", ledge="fall")
    end = play(game, game.state_from({"back_b": 1}), "DD", "DD")
    assert game.result(end) == "A wins: B falls from the ledge"
    end = play(game, game.state_from({"back_b": 0}), "DD", "DD")
    assert game.result(end) == "A wins: B falls from the ledge"


# ---------------------------------------------------------------- the Rest obligation

def walk(game, state, moves: list[str]):
    """A plays ``moves``; B (EXT, never owes a Rest) always parries with DD."""
    for move in moves:
        state = play(game, state, move, "DD")
    return state


ALL = set(ACTIONS)
WITH_REST = {"AR", "DR", "RR"}


@pytest.mark.parametrize("level, moves, expected", [
    # PR owes 3: exchange 1 anything (3 - 0 <= 4); after DD, 3 owed at exchange 2 needs
    # a Rest now (owed after <= 2); after DD, AR, 2 owed at exchange 3: only RR
    ("PR", [], ALL), ("PR", ["DD"], WITH_REST), ("PR", ["DD", "AR"], {"RR"}),
    ("PR", ["AR"], ALL), ("PR", ["AR", "DD"], {"RR"}), ("PR", ["AR", "DR"], WITH_REST),
    ("PR", ["RR"], ALL), ("PR", ["RR", "AD"], WITH_REST), ("PR", ["RR", "RR"], ALL),
    # AV owes 2: anything at exchanges 1 and 2; 2 owed at exchange 3: RR
    ("AV", [], ALL), ("AV", ["DD"], ALL), ("AV", ["DD", "AA"], {"RR"}),
    ("AV", ["DD", "AR"], WITH_REST), ("AV", ["AR", "AR"], ALL),
    # extra Rests: RR twice leaves nothing owed, never negative
    ("AV", ["RR"], ALL), ("AV", ["RR", "RR"], ALL),
    # GR owes 1: only exchange 3 can force a Rest
    ("GR", [], ALL), ("GR", ["AA"], ALL), ("GR", ["AA", "AD"], WITH_REST),
    ("GR", ["DR", "AD"], ALL),
    # EXT owes nothing
    ("EXT", [], ALL), ("EXT", ["AA"], ALL), ("EXT", ["AA", "AA"], ALL),
])
def test_rest_masks(level, moves, expected):
    game = duel(level, "EXT")
    state = walk(game, start(game), moves)
    assert state.exchange == len(moves) + 1
    assert legal(game, state, "a") == expected
    assert legal(game, state, "b") == ALL


def test_rests_owed_reset_each_round():
    game = duel("PR", "EXT")
    state = walk(game, start(game), ["RR", "RR", "AD"])  # 4 Rests, extra ones
    assert (state.round, state.exchange, state.owed_a) == (2, 1, 3)
    state = walk(game, state, ["DD"])
    assert legal(game, state, "a") == WITH_REST


def test_illegal_action_names_the_legal_ones():
    game = duel("AV", "EXT")
    state = walk(game, start(game), ["DD", "DD"])
    with pytest.raises(InputError, match=r"AA.*legal: RR"):
        game.outcomes(state, ACTIONS.index("AA"), ACTIONS.index("DD"))
    with pytest.raises(InputError):
        game.outcomes(state, 9, 0)


# ---------------------------------------------------------------- conventions

def test_surrender_disarm():
    game = duel(convention="surrender")
    end = play(game, start(game), "AA", "RR")  # B takes double BP: disarmed, no Health lost
    assert game.result(end) == "A wins: disarm" and (end.health_a, end.health_b) == (5, 5)
    assert game.result(play(game, start(game), "AA", "AA")) == "draw: both disarmed"
    # at the wall an R turned into BP is a disarm too
    end = play(game, game.state_from({"back_a": 0}), "RR", "AD")
    assert game.result(end) == "B wins: disarm"


def test_surrender_wound_then_disarm():
    # AV vs GD, AA/AA: A takes BT (rapier 5: Health 5 -> 0, still standing), B takes BP:
    # disarmed, so A wins although wounded
    game = duel("AV", "GD", convention="surrender")
    end = play(game, start(game), "AA", "AA")
    assert game.result(end) == "A wins: disarm" and end.health_a == 0


def test_surrender_draw_when_the_disarmer_is_put_out():
    # GR vs PR, A at the wall: B's single touch d = -3 is R -> BP at the wall: A disarmed;
    # A's double touch d = +3 is HC: the disarmer is out in the same exchange
    game = duel("GR", "PR", convention="surrender")
    end = play(game, game.state_from({"back_a": 0}), "AA", "AR")
    assert game.result(end) == "draw: disarmed and out"


def test_to_the_death_health():
    game = duel(convention="to_the_death")
    state = play(game, start(game), "AA", "RR")  # BP: 5 - 4 = 1
    assert (state.health_b, game.is_terminal(state)) == (1, False)
    end = play(game, state, "AA", "RR")  # 1 - 4 = -3 < 0
    assert game.result(end) == "A wins: unconscious" and end.health_b == -3
    # Health exactly 0 goes on
    nxt = play(game, game.state_from({"health_b": 4}), "AA", "RR")
    assert nxt.health_b == 0 and not game.is_terminal(nxt)
    # both below 0 in one exchange
    end = play(game, game.state_from({"health_a": 1, "health_b": 1}), "AA", "AA")
    assert game.result(end) == "draw: both out"


def test_to_the_death_out_of_combat_and_small_weapons():
    game = duel("GR", "PR", convention="to_the_death")
    assert game.result(play(game, start(game), "AA", "RR")) == "A wins: out of combat"
    # dagger against knife (one size class): partial wound 1
    game = duel({"weapon": "dagger"}, {"weapon": "Knife"}, convention="to_the_death")
    assert play(game, start(game), "AA", "RR").health_b == 4


def test_first_blood_out_of_combat_label():
    game = duel("GR", "PR")
    assert game.result(play(game, start(game), "AA", "RR")) == "A wins: out of combat"


def test_health_does_not_change_at_first_blood():
    game = duel("AV", "GD")
    end = play(game, start(game), "AA", "AA")
    assert (end.health_a, end.health_b) == (5, 5)


def test_out_of_time():
    game = duel("AV", "AV", max_rounds=1)
    state = start(game)
    for move_a, move_b in (("DR", "DR"), ("DR", "DR")):
        state = play(game, state, move_a, move_b)
    end = play(game, state, "AD", "AD")
    assert game.result(end) == "draw: out of time" and game.payoff(end) == 0
    longer = duel("AV", "AV", max_rounds=2)
    state = start(longer)
    for _ in range(3):
        state = play(longer, state, "DR", "DR")
    assert (state.round, state.exchange, state.owed_a, longer.is_terminal(state)) == (
        2, 1, 2, False)


# ---------------------------------------------------------------- disciplines and options

def test_sorcery_ignores_retreats_and_corps_a_corps():
    game = duel({"sorcery": "GD", "physique": "EXT"}, {"sorcery": "GD"}, discipline="sorcery")
    state = start(game)
    assert play(game, state, "RR", "AD").back_a == 2  # R does nothing
    assert not game.is_terminal(play(game, game.state_from({"back_a": 0}), "RR", "AD"))
    assert play(game, state, "DD", "DD").back_a == 2
    assert game.result(play(game, state, "AA", "RR")) == "A wins: first blood"


def test_discipline_uses_its_own_ability():
    # sorcery reads the sheet's sorcery, not fencing: PR owes 3 Rests
    game = duel({"fencing": "EXT", "sorcery": "PR"}, {}, discipline="sorcery")
    assert (start(game).level_a, start(game).owed_a) == (0, 3)
    game = duel({"athletics": "GR"}, {"fisticuffs": "GR"}, discipline="boxing")
    assert (start(game).level_a, start(game).level_b) == (1, 3)


@pytest.mark.parametrize("discipline", ["sorcery", "chess"])
@pytest.mark.parametrize("convention", ["surrender", "to_the_death"])
def test_first_blood_only_disciplines(discipline, convention):
    with pytest.raises(InputError, match=convention):
        duel(discipline=discipline, convention=convention)


def test_wrestling_blows_by_physique():
    # A's Physique GD: a blow's partial wound is 1; B's Health AV x AV = 5 -> 4.
    # Weapons are ignored, so a sabre against a dagger is no error here.
    game = duel({"athletics": "GD", "physique": "GD", "weapon": "sabre"},
                {"athletics": "GD", "weapon": "dagger"},
                discipline="wrestling", convention="to_the_death")
    assert play(game, start(game), "AA", "RR").health_b == 4


def test_sabre_uses_physique():
    sabre = {"fencing": "AV", "physique": "GR", "weapon": "sabre"}
    # Physique GR (3) against Fencing GD (2): d = +1, a single touch is BP
    game = duel(sabre, "GD", sabre_uses_physique=True)
    assert game.result(play(game, start(game), "AD", "RR")) == "A wins: first blood"
    # without the option, Fencing AV against GD: d = -1, R
    game = duel(sabre, "GD")
    assert play(game, start(game), "AD", "RR").back_a == 4
    # a rapier keeps Fencing even with the option
    game = duel({**sabre, "weapon": "rapier"}, "GD", sabre_uses_physique=True)
    assert play(game, start(game), "AD", "RR").back_a == 4


def test_weapons_of_one_size_class():
    with pytest.raises(InputError, match="not a duel"):
        duel({"weapon": "sabre"}, {"weapon": "dagger"})
    duel({"weapon": "sword-cane"}, {"weapon": "court sword"})
    with pytest.raises(InputError, match="rapier"):
        duel({"weapon": "pistol"}, {})


def test_bad_input_names_the_allowed_values():
    with pytest.raises(InputError, match="PR.*EXT"):
        duel("XX", "GD")
    with pytest.raises(InputError, match="fencing"):
        duel({"charm": "GD"}, {})
    with pytest.raises(InputError, match="fencing.*wrestling"):
        duel(discipline="fishing")
    with pytest.raises(InputError, match="speed"):
        envs.make("falkenstein", speed=3)
    with pytest.raises(InputError, match="field_m"):
        duel(field_m=7)
    with pytest.raises(InputError, match="wall"):
        duel(edge="cliff")
    with pytest.raises(InputError, match="health"):
        duel({"health": -1}, {})
    with pytest.raises(InputError, match="prior_a"):
        duel(prior_a={"GD": 1})


def test_level_aliases_are_case_insensitive():
    game = duel({"fencing": "gd", "physique": "Great", "courage": "exc"},
                {"fencing": "Extraordinary"})
    assert game.sheets["a"]["fencing"] == "GD" and game.sheets["b"]["fencing"] == "EXT"
    # Health: Physique GR, Courage EXC -> 8
    assert game.sheets["a"]["health"] == 8
    assert duel({"health": 12}, {}).sheets["a"]["health"] == 12


def test_none_options_take_the_defaults():
    game = envs.make("falkenstein", a=None, b=None, convention=None, max_rounds=None,
                     field_m=None, edge=None, sabre_uses_physique=None, discipline=None,
                     hidden_levels=None, prior_a=None, prior_b=None, ruleset=None)
    assert (game.convention, game.max_rounds, game.field_m, game.edge) == (
        "first_blood", 10, 6, "wall")
    assert game.sheets["a"]["fencing"] == "AV" and game.sheets["a"]["weapon"] == "rapier"


def test_options_are_json_and_rebuild_the_game():
    game = duel("AV", "GD", convention="surrender", edge="ledge")
    again = envs.make("falkenstein", **json.loads(json.dumps(game.options)))
    assert again.ruleset_hash == game.ruleset_hash
    assert again.initial_outcomes() == game.initial_outcomes()
    assert again.options == game.options


# ---------------------------------------------------------------- hidden levels

def test_hidden_levels_initial_outcomes():
    game = duel(hidden_levels=True)
    starts = game.initial_outcomes()
    assert len(starts) == 36 and sum(p for p, _ in starts) == pytest.approx(1.0)
    assert all(p == pytest.approx(1 / 36) for p, _ in starts)
    assert not game.public_information
    game = duel(hidden_levels=True, prior_a={"GD": 1, "gr": 3}, prior_b={"PR": 2, "EXT": 2})
    # hidden levels are hidden sheets (envs.hidden): one public duel per pair of levels
    starts = {(s.inner.level_a, s.inner.level_b): p for p, s in game.initial_outcomes()}
    assert sum(starts.values()) == pytest.approx(1.0)
    assert starts == pytest.approx({(2, 0): 0.125, (2, 5): 0.125, (3, 0): 0.375,
                                    (3, 5): 0.375})
    # the drawn level sets the Rests owed: PR 3, EXT 0
    state = next(s for _, s in game.initial_outcomes() if s.inner.level_b == 0)
    assert state.inner.owed_b == 3


def test_hidden_levels_observations():
    game = duel(hidden_levels=True)
    fields = game.observation_fields
    starts = [s for _, s in game.initial_outcomes()]
    gd_vs_pr = next(s for s in starts if (s.inner.level_a, s.inner.level_b) == (2, 0))
    gd_vs_ext = next(s for s in starts if (s.inner.level_a, s.inner.level_b) == (2, 5))
    # A cannot tell B's level nor what he owes
    assert game.observe(gd_vs_pr, "a") == game.observe(gd_vs_ext, "a")
    seen = dict(zip(fields, game.observe(gd_vs_pr, "a"), strict=True))
    assert (seen["own_sheet"], seen["own_level"], seen["opp_level"], seen["own_owed"],
            seen["opp_owed"]) == (2, 2, -1, 2, -1)
    seen_b = dict(zip(fields, game.observe(gd_vs_pr, "b"), strict=True))
    assert (seen_b["own_level"], seen_b["own_owed"], seen_b["opp_level"]) == (0, 3, -1)
    # the cards played are public: B's RR and his DR leave A the same view of the table
    # (no touch, B's obligation unseen), yet A tells them apart (his trail)
    rests, one_rest = play(game, gd_vs_pr, "DR", "RR"), play(game, gd_vs_pr, "DR", "DR")
    assert game.public_view(rests, "a") == game.public_view(one_rest, "a")
    assert game.observe(rests, "a") != game.observe(one_rest, "a")
    seen = dict(zip(fields, game.observe(rests, "a"), strict=True))
    assert (seen["own_owed"], seen["opp_owed"]) == (1, -1)
    low = dict(zip(fields, game.info.observation_low, strict=True))
    assert low["opp_level"] == -1 and low["opp_owed"] == -1


# ---------------------------------------------------------------- rulesets

def test_full_grid_from_a_toml_file(tmp_path):
    # every pair R/R except attacker AV (row 1) against defender GD (column 2): BM/HC
    rows = [["R/R"] * 6 for _ in range(6)]
    rows[1][2] = "BM/HC"
    grid = ",\n".join("  [" + ", ".join(f'"{cell}"' for cell in row) + "]" for row in rows)
    path = tmp_path / "house.toml"
    path.write_text(f"[damage]\ngrid = [\n{grid}\n]\n", "utf-8")
    game = duel("AV", "GD", ruleset=str(path))
    assert game.ruleset_hash != duel("AV", "GD").ruleset_hash
    state = start(game)
    assert game.resolve(state, ACTIONS.index("AD"), ACTIONS.index("RR")).letter_b == "BM"
    assert game.result(play(game, state, "AD", "RR")) == "A wins: first blood"
    # B attacking A reads row GD, column AV: R, so A merely retreats
    assert play(game, state, "RR", "AD").back_a == 0
    assert game.options["ruleset"] == str(path)


def test_ruleset_overrides_as_data():
    # by difference: equal levels now wound with a single touch
    game = duel(ruleset={"damage": {"by_difference": {"0": "BP/BT"}}})
    assert game.result(play(game, start(game), "AD", "RR")) == "A wins: first blood"
    game = duel("GD", "EXT", ruleset={"rests_required": {"GD": 0}})
    assert legal(game, walk(game, start(game), ["DD", "DD"]), "a") == ALL
    game = duel(ruleset={"max_rounds": 3, "edge": "ledge", "field_m": 4})
    assert (game.max_rounds, game.edge, game.field_m) == (3, "ledge", 4)


def test_ruleset_errors(tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text("[damage]\ngrids = []\n", "utf-8")
    with pytest.raises(InputError, match="grids"):
        duel(ruleset=str(path))
    with pytest.raises(InputError, match="speed"):
        duel(ruleset={"speed": 3})
    with pytest.raises(InputError, match="XX"):
        duel(ruleset={"damage": {"by_difference": {"0": "XX/R"}}})
    with pytest.raises(InputError, match="grid"):
        duel(ruleset={"damage": {"grid": [["R/R"] * 6]}})
    with pytest.raises(InputError, match="not found"):
        duel(ruleset=str(tmp_path / "missing.toml"))


# ---------------------------------------------------------------- states and text

def test_state_from_and_state_fields():
    game = duel("AV", "AV")
    state = game.state_from({"round": "2", "exchange": "1", "owed_a": "1", "owed_b": "0",
                             "back_a": "0", "health_a": "5", "health_b": "5"})
    view = game.state_fields(state)
    assert (view["round"], view["owed_a"], view["back_b"]) == (2, 1, 4)
    assert game.state_from(view) == state
    assert game.state_from({"back_b": 0}).back_a == 4
    assert game.state_from({}) == start(game)


@pytest.mark.parametrize("values", [
    {"round": 0}, {"round": 11}, {"exchange": 4}, {"back_a": 5}, {"owed_a": 3},
    {"exchange": 3, "owed_a": 2, "owed_b": 3}, {"level_a": "GD"}, {"speed": 1},
    {"round": "two"}, {"back_a": 0, "back_b": 0},
])
def test_state_from_rejects_bad_values(values):
    with pytest.raises(InputError):
        duel("AV", "AV").state_from(values)


def test_each_card_pair_is_said_in_words():
    spec = envs.spec("falkenstein")
    game = envs.make("falkenstein", disarm="attacker_chooses", convention="surrender")
    start = game.initial_outcomes()[0][1]
    said = {name: spec.action_words(game, start, name) for name in game.info.action_names}
    assert said == {"AA": "two Attacks", "AD": "Attack+Defense", "AR": "Attack+Rest",
                    "DD": "two Defenses", "DR": "Defense+Rest", "RR": "two Rests",
                    "wound": "wound", "disarm": "disarm", "wait": "wait"}


def test_describe_and_narrate():
    game = duel({"fencing": "GD", "name": "Baron"}, "GD")
    state = start(game)
    text = game.describe(state)
    for part in ("Round 1 of 10", "exchange 1 of 3", "A (Baron) has 2 m behind him",
                 "Health 5", "owes 2 Rests"):
        assert part in text
    nxt = play(game, state, "AD", "RR")
    story = game.narrate(state, 1, 5, nxt)
    assert story.startswith("A plays Attack+Defense, B plays two Rests: ")
    assert "single touch (R)" in story and "B retreats 2 m toward the wall" in story
    end = play(game, state, "AA", "RR")
    assert "A wins: first blood" in game.narrate(state, 0, 5, end)
    assert "at the wall" in game.describe(game.state_from({"back_a": 0}))


def test_sample_matches_outcomes():
    game = duel("AV", "GD")
    rng = np.random.default_rng(0)
    state = start(game)
    for a in range(6):
        for b in range(6):
            assert game.sample(state, a, b, rng) == game.outcomes(state, a, b)[0][1]


def reachable(game) -> set:
    seen = {s for _, s in game.initial_outcomes()}
    queue = deque(seen)
    while queue:
        state = queue.popleft()
        if game.is_terminal(state):
            continue
        legal_a = np.flatnonzero(game.legal_mask(state, "a"))
        legal_b = np.flatnonzero(game.legal_mask(state, "b"))
        for a in legal_a:
            for b in legal_b:
                for probability, nxt in game.outcomes(state, int(a), int(b)):
                    assert probability == 1.0
                    if nxt not in seen:
                        seen.add(nxt)
                        queue.append(nxt)
    return seen


def test_reachable_states_av_vs_gd():
    game = duel("AV", "GD")
    states = reachable(game)
    live = [s for s in states if not game.is_terminal(s)]
    print(f"AV vs GD: {len(live)} live states, {len(states)} with the endings")
    assert 0 < len(live) < len(states) < 5000
    assert all(game.legal_mask(s, p).any() for s in live for p in "ab")
    # the observation determines the state (the solver maps mixes by observation)
    for player in "ab":
        assert len({game.observe(s, player) for s in states}) == len(states)
    low, high = np.array(game.info.observation_low), np.array(game.info.observation_high)
    for s in states:
        for player in "ab":
            seen = np.array(game.observe(s, player))
            assert (low <= seen).all() and (seen <= high).all()
    assert {game.result(s) for s in states if game.is_terminal(s)} <= set(game.endings)
