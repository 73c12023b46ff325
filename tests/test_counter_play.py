"""Answers against fixed policies over counters (``solver.counters.play``): on knockout
duels small enough for the state graph they agree with the state graph's answers (which
have their own hand and second-library tests) at every state, and on toy duels of
several hits; one toy case is counted by hand; and ``duel odds`` answers the same way
when the state graph is refused."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from test_counters import LANDS, Duel, HitPennies, HitTriples, RolledPennies

import envs
import solver.solve as facade
from agents.cli import main
from agents.profiles import Profile, build_profile
from agents.temperaments import temperament
from solver import (
    best_response,
    evaluate,
    exploitability,
    read_policy,
    resolve_policy,
    solve_game,
    solve_moment,
    solve_regularized,
)
from solver.counters import play, stage_rules
from solver.counters.cores import fits_state_graph
from solver.counters.play import (
    CounterResponse,
    _distinct,
    counter_best_response,
    counter_chances,
    counter_decisions,
    counter_evaluate,
    counter_mixes,
    losses_follow_value,
)
from solver.counters.regularized import counter_regularized
from solver.counters.solution import solve_counters
from solver.game import policy_mix
from solver.markov.graph import build_graph
from solver.policy import MixPolicy, TabularPolicy, UniformPolicy

AGREE = 1e-8
SMALL = {"a": "fighter,hp=3", "b": "rogue,hp=3"}
#: a Blooded duel on counters, drawn when its two beats run out
DRAWN = {"a": "prowess=2,sword=2,invokes=0", "b": "prowess=1,sword=2,invokes=0",
         "max_beats": 2}


def _with_graph(game):
    graph = build_graph(game)
    return game, graph, np.flatnonzero(~graph.terminal)


@pytest.fixture(scope="module")
def small():
    return _with_graph(envs.make("pathfinder", **SMALL))


@pytest.fixture(scope="module")
def drawn():
    return _with_graph(envs.make("blooded", **DRAWN))


def test_a_play_solved_from_a_moment_is_read_at_the_whole_duels_points(small):
    # a solution from a given moment lays its mixes out on the cores and points below
    # it: read back as they are, they would stand for other points of the whole duel
    game, _, _ = small
    played = solve_moment(game, game.state_from({"hp_a": 2, "hp_b": 3})).policy_for("b")
    observed = TabularPolicy(played.table, "the same table")
    assert np.array_equal(counter_mixes(game, played, "b"),
                          counter_mixes(game, observed, "b"))


@pytest.mark.parametrize("player", ["a", "b"])
def test_a_profile_read_over_the_counters_plays_its_mix_at_every_decision(small, player):
    # a profile of a shorter duel: its table has the moments of this one at 2 hit points
    # or fewer (renormalised over what is legal) and lacks the others (uniform there);
    # asked in turn with another policy on the same explored duel, each is read afresh
    game, _, _ = small
    shorter = envs.make("pathfinder", a="fighter,hp=2", b="rogue,hp=2")
    profile = Profile(build_profile(shorter, solve_game(shorter).policy_for(player), player,
                                    metrics={}))
    decisions = counter_decisions(game)
    for played in (profile, UniformPolicy(), profile):
        rows = decisions.rows(game, counter_mixes(game, played, player), player)
        by_state = [policy_mix(played, game, state, player) for state in decisions.states]
        assert np.abs(rows - np.array(by_state)).max() <= 1e-15


def test_an_observation_past_its_declared_bounds_is_read_whole():
    # HitPennies declares hit points up to 9: at 300 they pass the uint8 the bounds fit
    game = HitPennies(300, 2)
    table = {(hp_a, hp_b, 0): np.array([0.25, 0.75]) for hp_a in range(1, 301)
             for hp_b in (1, 2)}
    mixes = counter_decisions(game).rows(
        game, counter_mixes(game, TabularPolicy(table, "skewed"), "a"), "a")
    assert np.array_equal(mixes, np.tile([0.25, 0.75], (len(mixes), 1)))


@pytest.mark.parametrize("player", ["a", "b"])
def test_a_counter_policy_reads_at_a_state_the_mix_its_table_holds(small, player):
    game, graph, live = small
    policy = solve_game(game).policy_for(player)
    by_observation = TabularPolicy(policy.table, "its table")
    for k in live.tolist():
        state = graph.states[k]
        assert np.array_equal(policy_mix(policy, game, state, player),
                              policy_mix(by_observation, game, state, player))
    other_game = envs.make("pathfinder", **SMALL)   # the same duel, another object
    assert policy.mix_at_state(other_game, graph.states[live[0]]) is None


def _responder_values(response, live):
    return np.nanmax(response.action_values[live], axis=1)


@pytest.mark.parametrize("duel", ["small", "drawn"])
@pytest.mark.parametrize("responder", ["a", "b"])
@pytest.mark.parametrize("opponent", ["uniform", "equilibrium"])
def test_the_best_response_agrees_with_the_state_graph_at_every_state(duel, responder,
                                                                      opponent, request):
    # the safest play of a knockout takes one solve over the counters, of a duel with
    # draws two (``losses_follow_value``); the state graph's always two passes
    game, graph, live = request.getfixturevalue(duel)
    safest = solve_game(game).policy_for(responder) if opponent == "equilibrium" else None
    with facade.forcing("states"):
        on_graph = best_response(game, opponent, responder, safest=safest)
    fixed = resolve_policy(opponent, game, "b" if responder == "a" else "a")
    on_counters = counter_best_response(game, fixed, responder, safest=safest)
    sign = 1.0 if responder == "a" else -1.0
    values = np.array([sign * on_counters.values.value_at(graph.states[s]) for s in live])
    assert np.abs(values - _responder_values(on_graph, live)).max() < AGREE
    side = 0 if responder == "a" else 1
    mixes = np.array([on_counters.play.policy(graph.states[s])[side] for s in live])
    assert np.abs(mixes - on_graph.mixes[live]).max() < AGREE
    assert on_counters.value == pytest.approx(on_graph.value, abs=AGREE)
    for key in ("win", "draw", "loss", "expected_length"):
        assert getattr(on_counters.evaluation, key) == pytest.approx(
            getattr(on_graph.evaluation, key), abs=AGREE)


def test_a_safest_best_response_frees_the_tables_nobody_reads(drawn):
    """With the safest tie-break solved apart, the best reply's own mixes (the safest
    play's stand for them) and the safest play's values (the responder's chances of
    losing) are freed: a level-5 Pathfinder question held them, 1 GB, through its plan's
    solves. What the answers read is kept: the test above reads it at every state."""
    game, graph, live = drawn
    response = counter_best_response(game, "uniform", "a",
                                     safest=solve_game(game).policy_for("a"))
    with pytest.raises(RuntimeError, match="not kept"):
        response.play.value_at(graph.states[live[0]])
    choosing = int(np.flatnonzero(response.values.cores.mask_a.sum(axis=1) > 1)[0])
    with pytest.raises(RuntimeError, match="released"):
        response.values.mix_at("a", choosing, 0)
    assert len(response.decisions(chances=True)) > 0



def test_a_safest_best_response_solved_twice_says_each_solve_as_a_part(drawn):
    """Where the safest tie-break takes a solve of its own, the two solves are the two
    parts of one task: the time left said during the first counts the second."""
    from solver import progress
    game, _, _ = drawn
    equilibrium = solve_game(game).policy_for("a")
    said = []
    with progress.listening(said.append):
        counter_best_response(game, "uniform", "a", safest=equilibrium)
    inside = [r for r in said if r.tasks[:2] == ("the safest best response", "solving")]
    assert {r.steps[0] for r in inside} == {"solve 1 of 2", "solve 2 of 2"}
    last = said[-1]
    assert last.tasks == ("the safest best response",) and last.finished
    assert (last.done, last.total) == (2, 2)

class ScaledPennies(RolledPennies):
    """RolledPennies (every cycle left for sure) whose ends pay ``scale`` times as much."""

    def __init__(self, scale: float):
        super().__init__(3, 2)
        self.scale = scale

    def payoff(self, state):
        return self.scale * super().payoff(state)


@pytest.mark.parametrize("game, follows", [
    (envs.make("pathfinder", **SMALL), True),   # a knockout: wins pay 1, losses -1
    (ScaledPennies(3.0), True),                 # 3 and -3
    (ScaledPennies(0.5), False),                # 1/2 and -1/2: 1 apart, no more
    (HitTriples(2, 3, 2), False),               # two wins, paying 1 and 1/2
    (envs.make("blooded", **DRAWN), False),     # draws
], ids=["knockout", "three", "half", "two wins", "draws"])
def test_the_chance_of_losing_follows_the_value_where_wins_and_losses_pay_one_amount_each(
        game, follows):
    assert losses_follow_value(game) is follows


@pytest.mark.parametrize("responder", ["a", "b"])
@pytest.mark.parametrize("opponent", ["uniform", "equilibrium", "bully"])
def test_a_knockouts_safest_play_takes_one_solve_and_plays_as_two_would(
        small, responder, opponent, monkeypatch):
    """The safest tie-break's own solve (least chance of losing among the tied actions)
    keeps every tied action where the chance of losing follows the value: the best
    reply's solve, given the reference, plays them as it would. Compared with the two
    solves forced, at every state (the two solves agree with the state graph above)."""
    game, graph, live = small
    them = "b" if responder == "a" else "a"
    fixed = read_policy(game, _opponent(game, opponent, them), them)
    safest = solve_game(game).policy_for(responder)
    solves = []

    def counted(*args, **kwargs):
        solves.append(kwargs.get("rule"))
        return solve_counters(*args, **kwargs)

    monkeypatch.setattr(play, "solve_counters", counted)
    one = counter_best_response(game, fixed, responder, safest=safest)
    monkeypatch.setattr(play, "losses_follow_value", lambda _: False)
    two = counter_best_response(game, fixed, responder, safest=safest)
    # one, then two; against the equilibrium the one is the equilibrium itself
    assert len(solves) == (2 if opponent == "equilibrium" else 3)
    # every counter value's mixes and values, in the one layout both solves share
    assert np.abs(one.play.mixes[responder] - two.play.mixes[responder]).max() <= 1e-12
    assert np.abs(one.values.held - two.values.held).max() <= 1e-12
    for key in ("value", "win", "draw", "loss", "expected_length"):
        assert getattr(one.evaluation, key) == pytest.approx(getattr(two.evaluation, key),
                                                             abs=1e-12)
    rows = {state: rest for state, *rest in two.decisions(chances=True)}
    found = one.decisions(chances=True)
    assert len(found) == len(rows) > 0
    for state, reach, mix, value, chances in found:
        expected = rows[state]
        assert reach == pytest.approx(expected[0], abs=1e-12)
        assert np.abs(mix - expected[1]).max() <= 1e-12
        assert value == pytest.approx(expected[2], abs=1e-12)
        assert np.allclose(chances, expected[3], rtol=0, atol=1e-12)


@pytest.mark.parametrize("responder", ["a", "b"])
def test_a_knockouts_best_response_to_the_equilibrium_is_its_play_pushed_once(
        small, responder, monkeypatch):
    """Against the equilibrium every action it plays is tied for the best, and the
    safest tie-break plays them as it does: the best response's play is the
    equilibrium's own, to the last bit, and its push forward is the one the odds against
    the equilibrium already did. Its answers are the state graph's (the test above)."""
    game, graph, live = small
    them = "b" if responder == "a" else "a"
    solution = solve_counters(game, later=True)
    solution.reply_gaps = None   # solved, not read off it (the test below)
    pushes = []
    monkeypatch.setattr(solution, "pushed_forward", lambda: pushes.append(1) or
                        type(solution).pushed_forward(solution))
    fixed = read_policy(game, solution.policy_for(them), them)
    response = counter_best_response(game, fixed, responder,
                                     safest=solution.policy_for(responder))
    assert response.play is solution and not pushes
    assert response.values.mixes[responder] is solution.mixes[responder]   # one copy
    borrowed, visits = response.evaluation, solution.visits
    assert len(pushes) == 1
    # the best response's own play pushed forward: the same numbers, to the last bit
    own, (chances, expected) = response.values.pushed_forward()
    for key in ("win", "draw", "loss", "expected_length", "endings"):
        assert getattr(borrowed, key) == getattr(own, key)
    assert np.array_equal(visits, chances) and np.array_equal(solution.core_visits, expected)
    assert borrowed.value == response.values.value and own.value == solution.worth
    # against another opponent the best response plays its own mixes
    other = counter_best_response(game, read_policy(game, "uniform", them), responder,
                                  safest=solution.policy_for(responder))
    assert other.play is other.values and other.play is not solution


@pytest.mark.parametrize("responder", ["a", "b"])
@pytest.mark.parametrize("duel", [SMALL, {"a": "fighter,hp=9", "b": "rogue,hp=8"}],
                         ids=["small", "cycles"])
def test_a_knockouts_best_response_to_the_equilibrium_is_read_off_it_without_a_solve(
        duel, responder, monkeypatch):
    """An equilibrium's mixes are best replies to each other within its ``ReplyGaps``:
    the best response to one side is the other side's play, values and push, with no
    solve. Against the best reply's own solve (the equilibrium told apart from
    its gaps): the same play to the last bit, and values, action values and chances
    within 1e-12 (the solve's values are the highest action's, its play's within the
    spreads along it)."""
    game = envs.make("pathfinder", **duel)
    them = "b" if responder == "a" else "a"
    solution = solve_counters(game, later=True)
    assert solution.reply_gaps.spread < play.REPLAYED_GAP
    fixed = read_policy(game, solution.policy_for(them), them)
    solves = []

    def counted(*args, **kwargs):
        solves.append(kwargs.get("rule"))
        return solve_counters(*args, **kwargs)
    monkeypatch.setattr(play, "solve_counters", counted)
    read = counter_best_response(game, fixed, responder, safest=solution.policy_for(responder))
    assert not solves and read.values is read.play is solution
    found = read.decisions(chances=True)   # their chances read off the values
    gaps, solution.reply_gaps = solution.reply_gaps, None
    solved = counter_best_response(game, fixed, responder,
                                   safest=solution.policy_for(responder))
    assert len(solves) == 1 and solved.play is solution   # the same mixes, bit for bit
    assert np.abs(read.values.held - solved.values.held).max() <= 1e-12
    assert read.value == pytest.approx(solved.value, abs=1e-12)
    # the chances' own pass: the play's gaps unknown
    expected = {state: rest for state, *rest in solved.decisions(chances=True)}
    solution.reply_gaps = gaps
    assert len(found) == len(expected) > 50
    for state, reach, mix, value, chances in found:
        assert (reach, mix.tolist()) == (expected[state][0], expected[state][1].tolist())
        assert value == pytest.approx(expected[state][2], abs=1e-12)
        assert np.allclose(chances, expected[state][3], rtol=0, atol=1e-12)
    states = [row[0] for row in found[:50]]
    for mine, theirs in zip(read.action_values_of(states), solved.action_values_of(states),
                            strict=True):
        assert np.allclose(mine, theirs, rtol=0, atol=1e-12, equal_nan=True)


def test_a_best_reply_to_mixes_further_from_an_equilibrium_is_solved(small, monkeypatch):
    """An equilibrium whose mixes a best reply could beat by more than
    ``REPLAYED_GAP`` somewhere, or whose cycles are further from their fixed point (or
    kept by an older version, without gaps), is not read off: the best response is
    solved."""
    from solver.counters.gaps import ReplyGaps
    game, _, _ = small
    solution = solve_counters(game, later=True)
    fixed = read_policy(game, solution.policy_for("b"), "b")
    exact, loose = solution.convergence, replace(solution.convergence,
                                                 error=play.REPLAYED_GAP * 1.01)
    for gaps, convergence in ((ReplyGaps(play.REPLAYED_GAP * 1.01, 0.0), exact),
                              (solution.reply_gaps, loose), (None, exact)):
        solution.reply_gaps, solution.convergence = gaps, convergence
        response = counter_best_response(game, fixed, "a", safest=solution.policy_for("a"))
        assert response.values is not solution


def test_the_reply_gaps_of_stage_games_counted_by_hand():
    """Matching pennies, A paid 1 on a match and -1 otherwise, values given. At the
    equilibrium nothing beats anything: no gap. A playing (0.6, 0.4) against (0.5, 0.5):
    A's actions pay 0 each against B's mix; B's pay A 0.2 and -0.2 against A's, B plays
    both, so his best beats the worst he plays by 0.4; the mixes' payoff 0 is 0.1 from
    a stated value 0.1. A mix summing to 1 - 1e-11 is no distribution: no tie trusted."""
    from solver.counters.gaps import ReplyGaps, reply_gaps
    games = np.array([[1.0, -1.0], [-1.0, 1.0]]).reshape(1, 2, 2, 1)

    def gaps(row, col, value):
        return reply_gaps(games, np.array([[row]]), np.array([[col]]), np.array([[value]]))
    assert gaps([0.5, 0.5], [0.5, 0.5], 0.0) == ReplyGaps(0.0, 0.0)
    found = gaps([0.6, 0.4], [0.5, 0.5], 0.1)
    assert found.spread == pytest.approx(0.4, abs=1e-15)
    assert found.payoff == pytest.approx(0.1, abs=1e-15)
    # A's first row alone: B's columns pay A 1 and -1, and B plays both
    assert gaps([1.0, 0.0], [0.5, 0.5], 0.0) == ReplyGaps(2.0, 0.0)
    assert gaps([0.5, 0.5 - 1e-11], [0.5, 0.5], 0.0).spread == np.inf
    assert gaps([0.5, 0.5], [0.5, 0.5], np.nan) == ReplyGaps(0.0, np.inf)


def _gaps_by_numpy(games, row, col, value):
    """The gaps of ``solver.counters.sums.reply_gaps`` by numpy's matmul, max and min."""
    by_point = games.transpose(0, 3, 1, 2)
    paid_a = (by_point @ col[..., None])[..., 0]
    paid_b = (row[..., None, :] @ by_point)[..., 0, :]
    return np.stack([paid_a.max(axis=2) - np.where(row > 0, paid_a, np.inf).min(axis=2),
                     np.where(col > 0, paid_b, -np.inf).max(axis=2) - paid_b.min(axis=2),
                     np.maximum(np.abs(row.sum(axis=2) - 1), np.abs(col.sum(axis=2) - 1)),
                     (row * paid_a).sum(axis=2) - value])


@pytest.mark.parametrize("shape", [(1, 2, 2, 1), (3, 4, 3, 700), (2, 1, 5, 300),
                                   (2, 6, 6, 4000)])
def test_the_compiled_reply_gaps_are_numpys_at_every_point(shape):
    """Random stage games and mixes, some actions unplayed, a NaN payoff and a mix
    playing nothing: the compiled pass finds numpy's gaps, point by point (NaN where
    numpy's is; the sums differ in their last bits only), on one thread or, for the
    largest, on several."""
    from solver.counters.sums import PARALLEL_TERMS, reply_gaps
    assert (np.prod(shape) >= PARALLEL_TERMS) == (shape[3] == 4000)
    rng = np.random.default_rng(7)
    k, rows, cols, width = shape
    games = rng.normal(size=shape)
    row = rng.dirichlet(np.ones(rows), size=(k, width)) * (rng.random((k, width, rows)) > 0.3)
    col = rng.dirichlet(np.ones(cols), size=(k, width))
    value = rng.normal(size=(k, width))
    if width > 1:
        games[0, 0, 0, 1] = np.nan
        row[-1, -1] = 0.0
    found, expected = reply_gaps(games, row, col, value), _gaps_by_numpy(games, row, col, value)
    finite = np.isfinite(expected)
    if width > 1:
        assert np.isnan(expected).any() and np.isneginf(expected).any()
    np.testing.assert_array_equal(found[~finite], expected[~finite])   # NaN where NaN
    assert np.isfinite(found[finite]).all()
    assert np.abs(found[finite] - expected[finite]).max() <= 1e-14


def test_a_plans_chances_are_read_off_an_equilibriums_values_where_close_enough(
        small, drawn, monkeypatch):
    """In a knockout (a win pays 1, a loss -1) the chance of winning under the
    equilibrium is (value + 1) / 2 at every state: the same, within 1e-12, as the win's
    own pass, which is taken where the values' error bound is wider than
    ``CHANCES_IN_VALUES`` or a duel may be drawn."""
    game, _, _ = small
    solution = solve_counters(game)
    found = play._find_decisions(game)
    read = play._wins_in_values(solution, found.core, found.point)
    passed, _ = play.values_at(game, play._indicator(solution, 1.0), found.core, found.point)
    assert len(read) == len(found.core) > 100
    assert np.abs(read - passed).max() <= 1e-12
    assert np.abs(read - (solution.values_of(found.core, found.point) + 1) / 2).max() == 0
    loose = replace(solution.convergence, error=2e-12)
    monkeypatch.setattr(solution, "convergence", loose)
    assert play._wins_in_values(solution, found.core, found.point) is None
    drawn_game = drawn[0]
    drawn_found = play._find_decisions(drawn_game)
    assert play._wins_in_values(solve_counters(drawn_game), drawn_found.core,
                                drawn_found.point) is None


def test_a_best_replys_payoff_gap_counted_by_hand():
    """B plays (0.5, 0.5). A's first action pays 0.5 * 1 + 0.5 * 0 = 0.5, his second
    0.5 * 0.5 + 0.5 * (0.5 - 2e-10) = 0.5 - 1e-10: tied within ``TIE_TOLERANCE``, so he
    plays both evenly, which pays 0.5 - 0.5e-10, 0.5e-10 short of the stage's value 0.5.
    B is no reply: his spread is infinite. With ``scores`` the values are no payoffs."""
    from solver.counters.gaps import ReplyGaps
    games = np.array([[1.0, 0.0], [0.5, 0.5 - 2e-10]]).reshape(1, 2, 2, 1)
    places, points = {"a": np.array([[0, 1]]), "b": np.array([[0, 1]])}, np.array([0])
    rule = stage_rules.BestReply("a", np.array([[0.5, 0.5]]), 2)
    mixes = {"a": np.zeros((1, 2)), "b": np.zeros((1, 2))}
    assert rule.settle(games, places, points, mixes)[0, 0] == 0.5
    assert mixes["a"][0].tolist() == [0.5, 0.5]
    assert rule.gaps.spread == np.inf
    assert rule.gaps.payoff == pytest.approx(0.5e-10, abs=1e-16)   # rounding at 0.5
    assert stage_rules.BestReply("a", np.array([[0.5, 0.5]]), 2).gaps == ReplyGaps(np.inf, 0.0)
    assert stage_rules.BestReply("a", np.array([[0.5, 0.5]]), 2,
                                 scores=lambda ends: ends).gaps is None


@pytest.mark.parametrize("responder", ["a", "b"])
def test_a_best_responses_chances_are_read_off_its_values_where_they_are_its_plays(
        small, drawn, responder, monkeypatch):
    """A best response to a temperament in a knockout: its values are its play's, so
    the chance that A wins is (value + 1) / 2, the same within 1e-12 as the win's own
    pass; in a duel that may be drawn the pass is taken."""
    game, _, _ = small
    fixed = temperament("pathfinder", "bully").policy(game)
    safest = solve_game(game).policy_for(responder)
    response = counter_best_response(game, fixed, responder, safest=safest)
    solution = response.play
    assert solution.reply_gaps.payoff <= play.CHANCES_IN_VALUES
    found = play._find_decisions(game)
    passed, _ = play.values_at(game, play._indicator(solution, 1.0), found.core, found.point)
    calls = []
    monkeypatch.setattr(play, "values_at", lambda *args: calls.append(args))
    read = play.chances_of(solution, found.core, found.point)
    assert calls == [] and len(read) == len(found.core) > 100
    assert np.abs(read[:, 0] - passed).max() <= 1e-12
    assert np.abs(read[:, 2] - (1.0 - passed)).max() <= 1e-12
    drawn_game = drawn[0]
    drawn_response = counter_best_response(drawn_game, "uniform", responder)
    drawn_found = play._find_decisions(drawn_game)
    assert play._wins_in_values(drawn_response.play, drawn_found.core,
                                drawn_found.point) is None


def test_a_solution_kept_by_an_older_version_evaluates_its_own_pair_by_a_push():
    """A solution whose cycles stopped short of their fixed point (a loose tolerance),
    pushed forward and pickled before solutions kept the push's payoff (``worth``):
    its own pair is pushed forward again, as any pair, and valued as that push finds."""
    from solver.counters.solution import CounterSolution
    game = envs.make("pathfinder", a="fighter,hp=8", b="rogue,hp=6")
    solution = solve_counters(game, tolerance=1e-3, max_sweeps=3)
    assert not solution.exact
    state = solution.__getstate__()
    del state["worth"], state["pushed_within"]
    older = CounterSolution.__new__(CounterSolution)   # as unpickling makes it
    older.__dict__.update(state)
    found = counter_evaluate(game, older.policy_for("a"), older.policy_for("b"))
    assert found.value == solution.worth != solution.value
    fresh = counter_evaluate(game, solution.policy_for("a"), solution.policy_for("b"),
                             tolerance=1e-3, max_sweeps=3)
    assert fresh.value == solution.worth


def test_a_best_reply_plays_the_reference_as_it_is_where_it_weighs_tied_actions_only():
    """One stage game where A's first two actions are tied for the best against B's
    single action: a reference on those two alone is played bit for bit (dividing by
    its sum, 1 - 1e-14, would move its last bits); one with weight elsewhere, or one
    that is no distribution to 1e-12, is renormalised over the tied actions."""
    from solver.counters.stage_rules import BestReply
    games = np.array([1.0, 1.0, 0.0]).reshape(1, 3, 1, 1)
    places, points = {"a": np.array([[0, 1, 2]]), "b": None}, np.array([0])
    for reference, expected in (([0.3, 0.7 - 1e-14, 0.0], [0.3, 0.7 - 1e-14, 0.0]),
                                ([0.3, 0.6, 0.1], [1 / 3, 2 / 3, 0.0]),
                                ([0.3, 0.7 - 1e-10, 0.0], [0.3 / (1 - 1e-10),
                                                           (0.7 - 1e-10) / (1 - 1e-10), 0.0]),
                                ([0.3, 0.6, 0.0], [1 / 3, 2 / 3, 0.0])):
        rule = BestReply("a", np.zeros((1, 0)), 3, reference=np.array([reference]))
        mixes = {"a": np.zeros((1, 3)), "b": np.zeros((1, 0))}
        assert rule.settle(games, places, points, mixes).tolist() == [[1.0]]
        assert mixes["a"][0].tolist() == pytest.approx(expected, abs=1e-15)
        if reference == expected:
            assert mixes["a"][0].tolist() == reference


def _opponent(game, name, side):
    if name == "bully":
        return temperament("pathfinder", "bully").policy(game)
    return resolve_policy(name, game, side)


def test_evaluation_and_chances_from_every_state_agree_with_the_state_graph(small):
    game, graph, live = small
    prior = temperament("pathfinder", "bully").policy(game)
    with facade.forcing("states"):
        on_graph = evaluate(game, prior, "uniform")
    on_counters = counter_evaluate(game, prior, "uniform")
    for key in ("value", "win", "draw", "loss", "expected_length"):
        assert getattr(on_counters, key) == pytest.approx(getattr(on_graph, key), abs=AGREE)
    assert on_counters.endings.keys() == on_graph.endings.keys()
    # win / draw / loss from every state under a best response and its opponent
    with facade.forcing("states"):
        response = best_response(game, "uniform", "b")
    chances = counter_chances(counter_best_response(game, "uniform", "b").play)
    from solver.markov.evaluate import state_chances
    expected = state_chances(graph, response.opponent_mixes, response.mixes)
    found = np.array([chances.at(graph.states[s]) for s in live])
    assert np.abs(found - expected[live]).max() < AGREE


@pytest.mark.parametrize("exact", [True, False])
def test_a_solutions_own_pair_is_evaluated_by_its_own_push(monkeypatch, exact):
    # the solution's own play is pushed forward once, and kept (a best response that
    # plays it reads it again); a solution whose cycles stopped short of their fixed
    # point has a value the push of the ends would not give: the push's is the pair's
    game = envs.make("pathfinder", a="fighter,hp=4", b="rogue,hp=4")
    solution = solve_counters(game, later=True)
    monkeypatch.setattr(type(solution), "exact", property(lambda self: exact))
    evaluation = counter_evaluate(game, solution.policy_for("a"), solution.policy_for("b"))
    assert solution.later is None and solution.visits is not None
    assert evaluation.value == (solution.value if exact else solution.worth)
    # the pair read as tables, another policy: pushed forward as any pair is
    pushed = facade.evaluate(game, TabularPolicy(solution.policy_for("a").table),
                             TabularPolicy(solution.policy_for("b").table))
    assert evaluation.value == pytest.approx(pushed.value, abs=1e-12)
    assert evaluation.win == pytest.approx(pushed.win, abs=1e-12)


def test_exploitability_over_counters_agrees_with_the_state_graph(small):
    game, _, _ = small
    prior = temperament("pathfinder", "bully").policy(game)
    with facade.forcing("states"):
        on_graph = exploitability(game, prior, "uniform")
    # the same call as a counter game is answered: every part goes over the counters
    assert isinstance(best_response(game, "uniform", "a"), CounterResponse)
    on_counters = exploitability(game, prior, "uniform")
    for key in ("value", "gain_a", "gain_b", "pair_value"):
        assert getattr(on_counters, key) == pytest.approx(getattr(on_graph, key), abs=AGREE)


@pytest.mark.parametrize("beta", [0.3])
def test_the_regularised_solution_agrees_with_the_state_graph(small, beta):
    game, graph, live = small
    prior = temperament("pathfinder", "bully").policy(game)
    with facade.forcing("states"):
        on_graph = solve_regularized(game, "b", prior, beta)
    on_counters = counter_regularized(game, "b", prior, beta)
    values = np.array([-on_counters.solution.value_at(graph.states[s]) for s in live])
    assert np.abs(values - on_graph.values[live]).max() < AGREE
    mixes = np.array([on_counters.solution.policy(graph.states[s])[1] for s in live])
    assert np.abs(mixes - on_graph.mix[live]).max() < AGREE
    assert on_counters.value == pytest.approx(on_graph.value, abs=AGREE)


def _warm_rows(monkeypatch) -> list[int]:
    """The stage problems of each regularised batch that start warm (no NaN row)."""
    counted, solve = [], stage_rules.regularized_maxmin

    def counting(*args, start=None, **kwargs):
        counted.append(0 if start is None else int((~np.isnan(start).any(axis=1)).sum()))
        return solve(*args, start=start, **kwargs)

    monkeypatch.setattr(stage_rules, "regularized_maxmin", counting)
    return counted


@pytest.mark.parametrize("player", ["a", "b"])
def test_a_regularised_solve_started_from_a_nearby_beta_finds_the_same_play(
        small, player, monkeypatch):
    game, graph, live = small
    prior = temperament("pathfinder", "bully").policy(game)
    near = counter_regularized(game, player, prior, 0.1)
    warm = _warm_rows(monkeypatch)
    cold = counter_regularized(game, player, prior, 0.15)
    cold_starts = sum(warm)
    warm.clear()
    started = solve_regularized(game, player, prior, 0.15, near=near)
    # the first solve of each layer's stage problems starts from beta 0.1's answers too
    assert sum(warm) > cold_starts
    assert started.value == pytest.approx(cold.value, abs=1e-12)
    seat = 0 if player == "a" else 1
    mixes = [np.abs(started.solution.policy(graph.states[s])[seat]
                    - cold.solution.policy(graph.states[s])[seat]).max() for s in live]
    assert max(mixes) < AGREE


def test_a_regularised_solve_starts_cold_from_a_far_or_foreign_solution(small, drawn,
                                                                         monkeypatch):
    game, _, _ = small
    prior = temperament("pathfinder", "bully").policy(game)
    warm = _warm_rows(monkeypatch)
    cold = counter_regularized(game, "b", prior, 0.15)
    cold_starts = sum(warm)
    others = {"a beta ten times larger": counter_regularized(game, "b", prior, 1.5),
              "the other player's": counter_regularized(game, "a", prior, 0.15),
              "another game's": counter_regularized(drawn[0], "b", "uniform", 0.15),
              "the equilibrium": solve_game(game)}
    for label, near in others.items():
        warm.clear()
        started = solve_regularized(game, "b", prior, 0.15, near=near)
        assert sum(warm) == cold_starts, label
        assert started.value == cold.value, label
    with facade.forcing("states"):
        on_graph = solve_regularized(game, "b", prior, 0.15, near=cold)
    assert on_graph.value == pytest.approx(cold.value, abs=AGREE)


def test_a_best_response_to_a_fixed_mix_counted_by_hand():
    # B plays heads 70% of the time. A's best reply is heads: a landed hit is then his
    # with chance 0.7 (a match), else B's; A needs ceil(3 / 2) = 2 hits before B lands
    # 2: 0.7^2 + 2 * 0.7^2 * 0.3 = 0.784, worth 2 * 0.784 - 1 = 0.568 to A. From (1, 1)
    # the next landed hit decides: 0.7, worth 0.4. An exchange lands with chance LANDS,
    # so the duel lasts (landed hits) / LANDS exchanges:
    # 2 * 0.49 + 3 * 0.294 (A wins) + 2 * 0.09 + 3 * 2 * 0.7 * 0.09 (B wins) = 2.42.
    game = HitPennies(2, 3)
    response = counter_best_response(game, MixPolicy({"heads": 0.7, "tails": 0.3},
                                                     game.action_names), "a")
    assert response.value == pytest.approx(0.568, abs=1e-9)
    assert response.values.value_at(Duel(1, 1)) == pytest.approx(0.4, abs=1e-9)
    assert response.evaluation.win == pytest.approx(0.784, abs=1e-9)
    assert response.evaluation.expected_length == pytest.approx(2.42 / LANDS, abs=1e-8)
    assert response.play.policy(Duel(2, 3))[0] == pytest.approx([1.0, 0.0])


def _odds(capsys, *extra):
    argv = ["odds", "pathfinder", "--a", SMALL["a"], "--b", SMALL["b"], *extra, "--json"]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("vs, pushes", [("equilibrium", 1), ("uniform", 2)])
def test_duel_odds_push_the_equilibriums_play_forward_once_in_a_knockout(
        capsys, monkeypatch, vs, pushes):
    """The best response to the equilibrium is its very play in a knockout: the odds
    push it forward once, for both rows (a level-5 duel's 8 s); against another
    opponent, the equilibrium's play against it and the best response's are two pushes.
    The answers are the state graph's (the test below)."""
    import solver.counters.solution as solution_module
    real, made = solution_module.forward_statistics, []

    def counted(*args, **kwargs):
        if (args[8] if len(args) > 8 else kwargs.get("statistics", True)):
            made.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(solution_module, "forward_statistics", counted)
    monkeypatch.setattr(play, "forward_statistics", counted)
    answer = _odds(capsys, "--vs", vs, "--no-cache")
    assert len(made) == pushes
    assert answer["equally_good"] is (vs == "equilibrium")


@pytest.mark.parametrize("extra", [["--vs", "equilibrium"],
                                   ["--vs", "mix=intimidation-first-strike3:1", "--side", "b"]])
def test_duel_odds_over_counters_answers_as_on_the_state_graph(capsys, extra):
    with facade.forcing("states"):
        on_graph = _odds(capsys, *extra)
    on_counters = _odds(capsys, *extra)
    for row in ("best_response", "equilibrium_against_it"):
        for key in ("value", "win", "draw", "loss", "expected_length"):
            assert on_counters[row][key] == pytest.approx(on_graph[row][key], abs=AGREE)
    if "mix_fallback" in on_graph:
        for key in ("steps_per_duel", "share_of_steps"):
            assert on_counters["mix_fallback"][key] == pytest.approx(
                on_graph["mix_fallback"][key], abs=AGREE)
    by_state = {json.dumps(row["state"], sort_keys=True): row for row in on_graph["plan"]}
    assert len(on_counters["plan"]) == len(by_state)
    for row in on_counters["plan"]:
        expected = by_state[json.dumps(row["state"], sort_keys=True)]
        assert row["situation"] == expected["situation"]
        assert row["words"] == expected["words"]
        for key in ("reach", "win", "draw", "loss", "value"):
            assert row[key] == pytest.approx(expected[key], abs=AGREE)
        for action, p in expected["play"].items():
            assert row["play"].get(action, 0.0) == pytest.approx(p, abs=AGREE)


def test_duel_odds_answers_a_duel_too_large_for_the_state_graph(capsys):
    # 11 and 10 hit points: 110 pairs times the 45,622 cores pass the state graph's
    # 5,000,000, so the whole answer goes over the counters
    sheets = ["--a", "fighter,hp=11", "--b", "rogue,hp=10"]
    assert not fits_state_graph(envs.make("pathfinder", a=sheets[1], b=sheets[3]))
    assert main(["odds", "pathfinder", *sheets, "--vs", "equilibrium", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    best, steady = report["best_response"], report["equilibrium_against_it"]
    # nothing beats a best response against the same opponent
    assert best["value"] >= steady["value"] - 1e-9
    for row in (best, steady):
        assert row["win"] + row["draw"] + row["loss"] == pytest.approx(1.0, abs=1e-9)
    # the first decision is the opening at full hit points, reached once per duel
    opening = max(report["plan"], key=lambda row: row["reach"])
    assert (opening["state"]["hp_a"], opening["state"]["hp_b"]) == (11, 10)
    assert sum(opening["play"].values()) == pytest.approx(1.0, abs=1e-9)


def test_training_a_duel_too_large_for_the_state_graph_is_refused_before_any_work(capsys,
                                                                                  tmp_path):
    # (without --network the exact profile is computed over the counters instead)
    argv = ["train", "pathfinder", "--a", "fighter", "--b", "rogue", "--network", "--out",
            str(tmp_path / "npc.json")]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert "too large to take situation by situation" in error
    assert "20 and 17" in error and "`duel odds`" in error
    assert not (tmp_path / "npc.json").exists()


def test_a_temperament_mixes_many_observations_as_it_mixes_each(small):
    # the batched mixes (what a large duel reads) against the one-by-one rule, at every
    # state of the small duel, for both sides of every Pathfinder temperament
    game, graph, live = small
    from agents.temperaments import personality_names
    for name in personality_names("pathfinder"):
        prior = temperament("pathfinder", name).policy(game)
        for player, masks in (("a", graph.mask_a), ("b", graph.mask_b)):
            seen = np.array([game.observe(graph.states[s], player) for s in live])
            one = np.array([prior.probabilities(o, m) for o, m in zip(seen, masks[live],
                                                                      strict=True)])
            assert np.abs(prior.batch_probabilities(seen, masks[live]) - one).max() < 1e-15


@pytest.mark.parametrize("game", [HitPennies(4, 5), RolledPennies(3, 4)],
                         ids=["hits", "rolled"])
def test_over_several_hits_the_answers_agree_with_the_state_graph(game):
    # Pathfinder's small duels above end at the first hit (every hit deals 5 or more);
    # these toys take several hits, so the counters' layers, their cycles (and, rolled,
    # the chance cores inside them) all matter. A fixed mix that leans on heads:
    graph = build_graph(game)
    live = np.flatnonzero(~graph.terminal)
    leaning = MixPolicy({"heads": 0.8, "tails": 0.2}, game.action_names)
    for responder in ("a", "b"):
        fixed = leaning if responder == "b" else "uniform"
        with facade.forcing("states"):
            on_graph = best_response(game, fixed, responder)
        on_counters = counter_best_response(game, fixed, responder)
        sign = 1.0 if responder == "a" else -1.0
        values = np.array([sign * on_counters.values.value_at(graph.states[s]) for s in live])
        assert np.abs(values - _responder_values(on_graph, live)).max() < AGREE
        assert on_counters.evaluation.expected_length == pytest.approx(
            on_graph.evaluation.expected_length, abs=AGREE)
    with facade.forcing("states"):
        on_graph_value = evaluate(game, leaning, "uniform").value
        on_graph = solve_regularized(game, "a", leaning, 0.2)
    assert counter_evaluate(game, leaning, "uniform").value == pytest.approx(
        on_graph_value, abs=AGREE)
    on_counters = counter_regularized(game, "a", leaning, 0.2)
    values = np.array([on_counters.solution.value_at(graph.states[s]) for s in live])
    assert np.abs(values - on_graph.values[live]).max() < AGREE


@pytest.mark.parametrize("rows", [
    np.array([[2, -1, 7], [0, 5, 7], [2, -1, 7], [0, 5, 6], [-3, 0, 0]], dtype=np.int8),
    np.random.default_rng(3).integers(-4, 5, size=(400, 4)).astype(np.int16),
    np.array([[0, 2**40], [2**40, 0], [0, 2**40]], dtype=np.int64),   # past one key
], ids=["by hand", "random", "wide"])
def test_the_distinct_observations_are_numpys_unique_rows_in_its_order(rows):
    distinct, back = _distinct(rows)
    expected, inverse = np.unique(rows, axis=0, return_inverse=True)
    assert np.array_equal(distinct, expected)
    assert np.array_equal(back.reshape(-1), inverse.reshape(-1))
    assert np.array_equal(distinct[back.reshape(-1)], rows)


class _Counted:
    """A table policy that counts the observations it is asked."""

    def __init__(self, table: dict):
        self.table, self.name, self.asked = table, "counted", 0

    def probabilities(self, observation, mask):
        self.asked += 1
        return TabularPolicy(self.table).probabilities(observation, mask)


def test_a_policy_read_once_is_never_asked_again_and_answers_the_same(small):
    game, _, _ = small
    shorter = envs.make("pathfinder", a="fighter,hp=2", b="rogue,hp=2")
    table = solve_game(shorter).policy_for("b").table
    counted, fresh = _Counted(table), _Counted(table)
    read = read_policy(game, counted, "b")
    assert counted.asked == 0   # read when first needed
    answers = (evaluate(game, "equilibrium", read).value,
               best_response(game, read, "a").value,
               solve_regularized(game, "b", read, 1.0).value)
    once = counted.asked
    assert once > 0
    # asked afresh, each question reads the policy again, and finds the same numbers
    assert answers == (evaluate(game, "equilibrium", fresh).value,
                       best_response(game, fresh, "a").value,
                       solve_regularized(game, "b", fresh, 1.0).value)
    assert fresh.asked == 3 * once and counted.asked == once
    # anything else is the policy's own
    assert read.name == "counted"
    mask = np.ones(len(game.info.action_names), bool)
    key = next(iter(table))
    assert np.array_equal(read.probabilities(key, mask), counted.probabilities(key, mask))


def test_a_policy_read_for_a_game_without_counters_is_the_policy():
    game = envs.make("falkenstein")
    policy = UniformPolicy()
    assert read_policy(game, policy, "a") is policy


def test_a_solved_play_read_once_is_itself(small):
    # its mixes are already the solver's: an evaluation of the solution's own pair stays
    # the solution's, with nothing pushed forward again
    game, _, _ = small
    solution = solve_game(game)
    played = solution.policy_for("b")
    assert read_policy(game, played, "b") is played
    assert evaluate(game, solution.policy_for("a"), read_policy(game, played, "b")
                    ) is solution.evaluation


def test_a_fixed_pair_takes_one_policy_evaluation_step_and_the_same_values(monkeypatch):
    """Both mixes fixed, a cyclic block's first policy-evaluation step solves it: the
    values are bit for bit those of the steps taken until they stop moving."""
    import solver.counters.layers as layers
    from solver.counters.stage_rules import FixedPair

    game = envs.make("pathfinder", a="fighter,hp=6", b="rogue,hp=6")
    response = counter_best_response(game, "uniform", "b")
    steps = []
    real = layers._policy_values
    monkeypatch.setattr(layers, "_policy_values", lambda *a: steps.append(1) or real(*a))

    def won(payoff) -> np.ndarray:
        return (np.asarray(payoff) > 0).astype(float)

    def chances() -> tuple[np.ndarray, int]:
        steps.clear()
        solved = solve_counters(game, rule=FixedPair(response.play.mixes, scores=won),
                                statistics=False)
        return solved.held.copy(), len(steps)
    once, taken = chances()
    monkeypatch.setattr(FixedPair, "played_as_given", False)
    repeated, taken_before = chances()
    assert taken > 0 and taken_before == 2 * taken   # the second step confirmed the first
    np.testing.assert_array_equal(once, repeated)


def test_the_chances_read_layer_by_layer_are_those_of_the_whole_table(small):
    """A plan's chances are read from each layer as it is solved, keeping only what the
    layers above read: the same values as the whole duel's table of chances (which
    agrees with the state graph's, test above), at every decision, reached or not."""
    import solver.counters.play as play
    from solver.counters.solution import values_at

    game, _, _ = small
    response = counter_best_response(game, "uniform", "b")
    found = play._find_decisions(game)
    for sign in (1.0, -1.0):
        whole = play._chance(response.play, sign, 1e-12, 10_000).values_of(
            found.core, found.point)
        read, _ = values_at(game, play._indicator(response.play, sign), found.core,
                            found.point, 1e-12, 10_000)
        assert len(read) == len(found.core) > 100
        assert np.abs(read - whole).max() <= 1e-12


def test_the_chances_solved_side_by_side_are_those_solved_one_after_the_other(
        small, monkeypatch):
    import threading

    import solver.counters.play as play

    game, _, _ = small
    response = counter_best_response(game, "uniform", "b")
    found = play._find_decisions(game)
    threads, real = {}, play._indicator
    monkeypatch.setattr(play, "decided", lambda game: False)   # a pass each, as with draws

    def chance(solution, sign):
        threads[sign] = threading.current_thread()
        return real(solution, sign)
    monkeypatch.setattr(play, "_indicator", chance)

    def chances(together: bool) -> np.ndarray:
        threads.clear()
        monkeypatch.setattr(play, "loops_run_side_by_side", lambda: together)
        return play.chances_of(response.play, found.core, found.point)
    apart = chances(False)
    assert threads[1.0] is threads[-1.0] is threading.current_thread()
    assert np.array_equal(chances(True), apart)
    assert threads[1.0] is threading.current_thread() is not threads[-1.0]
    monkeypatch.setattr(play, "SIDE_BY_SIDE_BYTES", response.play.held.nbytes - 1)
    assert np.array_equal(chances(True), apart)
    assert threads[-1.0] is threading.current_thread()   # too large: one at a time


def test_where_every_duel_is_won_or_lost_the_loss_is_what_the_win_leaves(small, monkeypatch):
    """A knockout without a round limit ends in a win or a loss whatever is played: the
    plan's chances take one pass (the win's), and agree with the loss's own pass and
    with the state graph's chances at every decision (the best response's values, from
    which they would be read off, are not trusted here: the passes are what is tested).
    Blooded's duels may end drawn when the beats run out: two passes there."""
    import solver.counters.play as play
    from solver.counters.solution import values_at
    from solver.markov.evaluate import state_chances

    game, graph, _ = small
    assert play.decided(game)
    assert not play.decided(envs.make("blooded", **envs.spec("blooded").examples.duel()))
    response = counter_best_response(game, "uniform", "b")
    monkeypatch.setattr(response.play, "reply_gaps", None)
    found = play._find_decisions(game)
    passes, real = [], play._indicator
    monkeypatch.setattr(play, "_indicator", lambda solution, sign: (
        passes.append(sign), real(solution, sign))[1])
    said = play.chances_of(response.play, found.core, found.point)
    assert passes == [1.0]
    loss, _ = values_at(game, real(response.play, -1.0), found.core, found.point)
    assert np.abs(said[:, 2] - loss).max() <= 1e-13
    assert np.abs(said[:, 1]).max() <= 1e-13   # no draw
    with facade.forcing("states"):
        on_graph = best_response(game, "uniform", "b")
    expected = state_chances(graph, on_graph.opponent_mixes, on_graph.mixes)
    # the decisions the graph reaches from the start (the counters' hold every value)
    known = [k for k, state in enumerate(found.states) if state in graph.index]
    rows = [graph.index[found.states[k]] for k in known]
    assert len(known) > 100
    assert np.abs(said[known] - expected[rows]).max() < AGREE


@pytest.mark.parametrize(("layer", "allowed"), [("omp", True), ("tbb", True),
                                                ("workqueue", False)])
def test_the_compiled_loops_run_side_by_side_on_openmp_or_tbb_only(monkeypatch, layer,
                                                                    allowed):
    import numba

    from solver.counters.compiled import loops_run_side_by_side
    monkeypatch.setattr(numba, "threading_layer", lambda: layer)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert loops_run_side_by_side() is allowed
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    assert loops_run_side_by_side() is False


def test_questions_asked_together_answer_as_one_after_the_other(small, monkeypatch):
    """On a small counter game the second question runs on its own thread, the opponent
    read once for both; the answers are those asked one after the other, and where the
    tables are too large, or on another backend, they are."""
    import threading

    import solver.counters.play as play
    from solver import together

    game, _, _ = small
    shorter = envs.make("pathfinder", a="fighter,hp=2", b="rogue,hp=2")
    table = solve_game(shorter).policy_for("b").table

    def asked(on_game, player="b"):
        counted = _Counted(table)
        read = read_policy(on_game, counted, player)
        threads = {}

        def response():
            threads["response"] = threading.current_thread()
            return best_response(on_game, read, "a", safest="equilibrium").evaluation

        def evaluation():
            threads["evaluation"] = threading.current_thread()
            return evaluate(on_game, "equilibrium", read)
        found = together(on_game, response, evaluation)
        return found, threads, counted.asked

    monkeypatch.setattr(play, "loops_run_side_by_side", lambda: True)
    found, threads, reads = asked(game)
    assert threads["response"] is threading.current_thread() is not threads["evaluation"]
    monkeypatch.setattr(play, "SIDE_BY_SIDE_BYTES", 0)
    apart, threads, reads_apart = asked(game)
    assert set(threads.values()) == {threading.current_thread()}
    assert found == apart and reads == reads_apart > 0   # each read once
    falkenstein = envs.make("falkenstein")
    assert together(falkenstein, lambda: threading.current_thread(),
                    threading.current_thread) == [threading.current_thread()] * 2
