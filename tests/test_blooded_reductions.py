"""Blooded's state-space reductions (``envs/blooded/reductions.py``) against the plain
rules (``reductions=false``), live: on small duels the two games have the same value and
win / draw / loss, and the same values and equilibrium mixes at every beat start (a bid
or a risk, the states both games share), while the plain game is larger; and on
hand-built states the plain game offers what the reduced one drops, with next states
derived by hand from shared/rules/blooded.md."""

from __future__ import annotations

import numpy as np
import pytest
from graphs import assert_same_cores, assert_same_graph
from test_blooded import act, legal_names, only, state

import envs
from envs.blooded import BID, BLIND, CANCEL, DBIND, OVER, RISK, VICTOR
from solver import exploitability, solve_game
from solver.counters import walk
from solver.errors import InputError
from solver.markov.graph import explore

ALL = "bash,bind,blind,feint,lunge,riposte"

DUELS = [
    # every maneuver between them, first blood, Style banked
    {"a": "prowess=2,sword=1,feint,riposte", "b": "prowess=1,sword=2,style=2,bash,blind,bind",
     "convention": "first_blood", "max_beats": 3},
    # Blind, Bind and Lunge against Riposte and Bind, mortal
    {"a": "prowess=2,sword=2,blind,bind,lunge,strength=2", "b": "prowess=1,sword=2,riposte,bind",
     "max_beats": 2},
    # big pools: Injuries beyond the rank cap, finishing blows, losing cancellations
    {"a": "prowess=3,sword=3,blind,feint", "b": "prowess=3,sword=3,bind,riposte",
     "max_beats": 2},
    # a bid every beat, first blood, Lunge against Bash
    {"a": "prowess=2,sword=1,lunge,strength=3", "b": "prowess=1,sword=2,feint,bash",
     "convention": "first_blood", "bid_every_beat": True, "max_beats": 2},
    # a Blind that does nothing (The Sword 0), Bash against a Riposte, four beats
    {"a": "prowess=2,sword=0,blind,bash,athletics=2", "b": "prowess=2,sword=2,riposte,style=3",
     "max_beats": 4},
    # no maneuvers, invokes over two beats
    {"a": "prowess=1,sword=1,invokes=0", "b": "prowess=1,sword=2,invokes=2", "max_beats": 4},
]


def pair(options):
    return (envs.make("blooded", **options),
            envs.make("blooded", reductions=False, **options))


def by_name(game, mix: np.ndarray) -> dict[str, float]:
    return {name: float(p) for name, p in zip(game.action_names, mix, strict=True) if p}


@pytest.mark.parametrize("options", DUELS)
def test_the_reductions_change_no_value_no_odds_and_no_mix_at_a_beat_start(options):
    reduced, plain = pair(options)
    (_, start), = reduced.initial_outcomes()
    assert plain.initial_outcomes() == [(1.0, start)]
    # every beat start (a bid or a risk) of the reduced duel is a state of both games
    # (the reductions act after the dice), seen alike by both players
    starts = [s for s in explore(reduced).states if s.phase in (BID, RISK)]
    assert start in starts and len(starts) > 100
    # each game solved twice, by its cores and on its explored state graph; like is
    # compared with like (where a stage's value is 0 up to rounding the two backends
    # may pick different maximum-entropy mixes)
    for backend in ({}, {"start": start}):
        want, got = solve_game(reduced, **backend), solve_game(plain, **backend)
        assert (got.value, got.win, got.draw, got.loss) == pytest.approx(
            (want.value, want.win, want.draw, want.loss), abs=1e-9)
        for s in starts:
            assert plain.observe(s, "a") == reduced.observe(s, "a")
            assert got.value_at(s) == pytest.approx(want.value_at(s), abs=1e-9)
            for mine, theirs in zip(got.policy(s), want.policy(s), strict=True):
                mine, theirs = by_name(plain, mine), by_name(reduced, theirs)
                assert mine.keys() == theirs.keys()
                assert [mine[k] for k in theirs] == pytest.approx(list(theirs.values()),
                                                                  abs=1e-9)


def test_the_plain_equilibrium_is_unexploitable_in_the_plain_game():
    # the best responses walk the plain game state by state: neither side gains by
    # deviating, and the pair is worth the reduced game's value
    reduced, plain = pair(DUELS[0])
    solution = solve_game(plain)
    gap = exploitability(plain, solution.policy_for("a"), solution.policy_for("b"))
    assert gap.gain_a < 1e-9 and gap.gain_b < 1e-9
    assert gap.pair_value == pytest.approx(solve_game(reduced).value, abs=1e-9)


@pytest.mark.parametrize("options", DUELS[:3])
def test_the_plain_game_is_larger(options):
    reduced, plain = pair(options)
    assert explore(plain).size > explore(reduced).size


def test_the_fast_paths_of_the_plain_game_equal_their_references():
    options = {"a": f"prowess=2,sword=2,strength=2,{ALL}",
               "b": "prowess=1,sword=2,riposte,bind,invokes=2,style=1", "max_beats": 5}
    plain = envs.make("blooded", reductions=False, **options)
    assert_same_cores(plain.cores(), walk(plain))
    assert_same_graph(plain.graph(), explore(envs.make("blooded", reductions=False, **options)))


def test_the_plain_game_offers_a_blind_that_does_nothing():
    # A, aggressor and victor with 4 wagers, knows Blind; B has no wagers left. Reduced:
    # the Blind step is skipped, nothing to cancel, B cannot Bind, and A's Injure 4 (rank
    # 5) kills at once. Plain: A chooses; Blind costs 2 (4 - 2 = 2 left) and takes
    # max(0, 0 - 3) = 0 from B, then A chooses his Injure among 0..2.
    options = {"a": "prowess=3,sword=3,blind", "b": "prowess=3,sword=3"}
    reduced, plain = pair(options)
    s = state(phase=BLIND, victor=0, wv=4, wd=0)
    assert reduced._settle(s) == state(phase=OVER, inj_b=5, ending=1)
    assert plain._settle(s) == s
    assert legal_names(plain, s, "a") == ["blind", "pass"]
    blinded = only(act(plain, s, "blind"))
    assert blinded == state(phase=VICTOR, victor=0, wv=2, wd=0)
    assert legal_names(plain, blinded, "a") == ["injure0", "injure1", "injure2"]


def test_the_plain_game_offers_a_cancellation_that_loses_at_once():
    # A's 4 wagers against B's 3: cancelling none lets A's Injure 4 kill; the reduced game
    # drops that choice, the plain one offers it and A then chooses among Injure 0..4.
    reduced, plain = pair({"a": "prowess=3,sword=3", "b": "prowess=3,sword=3"})
    s = state(phase=CANCEL, victor=0, wv=4, wd=3)
    assert legal_names(reduced, s, "b") == ["1", "2", "3"]
    assert legal_names(plain, s, "b") == ["0", "1", "2", "3"]
    after = only(act(plain, s, "0"))
    assert after == state(phase=VICTOR, victor=0, wv=4, wd=3)
    assert legal_names(plain, after, "a") == [f"injure{k}" for k in range(5)]


def test_the_plain_game_lets_the_defeated_pass_bind_and_cancel_and_keeps_dead_wagers():
    # B, defeated with 2 wagers, knows Bind; passing lets A's 4 wagers kill. Reduced: B
    # binds at once. Plain: B chooses; binding ends the beat, A banks 4 // 2 = 2 Style,
    # B nothing, B is aggressor on beat 2 (as in the reduced game).
    reduced, plain = pair({"a": "prowess=3,sword=3", "b": "prowess=3,sword=3,bind"})
    s = state(phase=DBIND, victor=0, wv=4, wd=2)
    bound = state(beat=2, phase=RISK, aggressor=1, bank_a=2)
    assert reduced._settle(s) == bound
    assert plain._settle(s) == s
    assert legal_names(plain, s, "b") == ["pass", "bind"]
    assert only(act(plain, s, "bind")) == bound
    # A, victor with 5 wagers against B's 2, no maneuvers known: reduced, the one
    # sensible cancellation (2: cancelling 0 or 1 leaves A a mortal Injure) plays at
    # once; plain, B chooses to cancel 0, 1 or 2.
    reduced, plain = pair({"a": "prowess=3,sword=3", "b": "prowess=3,sword=3"})
    s = state(phase=CANCEL, victor=0, wv=5, wd=2)
    assert reduced._settle(s) == state(phase=VICTOR, victor=0, wv=3, wd=0)
    assert plain._settle(s) == s
    assert legal_names(plain, s, "b") == ["0", "1", "2"]
    # A chooses his Injure (3 wagers: rank 4 at most) with B's 3 wagers left, which can
    # only bank Style: 3 // 2 = 1 point, as 2 would. Reduced, they are dropped to 2;
    # plain, kept.
    s = state(phase=VICTOR, victor=0, wv=3, wd=3)
    assert reduced._settle(s) == state(phase=VICTOR, victor=0, wv=3, wd=2)
    assert plain._settle(s) == s


def test_the_plain_game_offers_wagers_beyond_the_rank_cap():
    # A, aggressor and victor with 6 wagers: Injure 0..6 (rank 1..7, capped at 5); the
    # reduced game offers 0..4 only and plays the mortal Injure 4 at once.
    reduced, plain = pair({"a": "prowess=3,sword=3", "b": "prowess=3,sword=3"})
    s = state(phase=VICTOR, victor=0, wv=6)
    assert reduced._settle(s) == state(phase=OVER, inj_b=5, ending=1)
    assert legal_names(plain, s, "a") == [f"injure{k}" for k in range(7)]
    assert only(act(plain, s, "injure6")) == state(phase=OVER, inj_b=5, ending=1)
    assert "injure5" not in reduced.action_names
    assert f"injure{plain.max_dice}" in plain.action_names


def test_reductions_takes_a_bool():
    with pytest.raises(InputError, match="reductions"):
        envs.make("blooded", reductions="maybe")
