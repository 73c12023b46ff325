"""One backend per game behind one interface (``solver.solve``): a counter game asked
through the facade answers over its counters, and every answer offers the same
interface, with the same numbers to 1e-9, as the state graph's (forced with the
test-only ``forcing``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_counters import HitPennies, RolledPennies

import solver.solve as facade
from agents.cli import main
from solver import (
    InputError,
    best_response,
    decisions,
    evaluate,
    exploitability,
    policy_table,
    solve_game,
    solve_moment,
    solve_regularized,
)
from solver.markov.graph import build_graph
from solver.policy import MixPolicy, UniformPolicy

AGREE = 1e-9
GAMES = [HitPennies(3, 4), RolledPennies(3, 4)]
IDS = ["hits", "rolled"]
OUTCOMES = ("value", "win", "draw", "loss", "expected_length")


def _leaning(game):
    return MixPolicy({"heads": 0.8, "tails": 0.2}, game.action_names)


def _both(ask):
    """``ask()`` through the facade (the counters, for these games) and on the state
    graph."""
    with facade.forcing("states"):
        on_states = ask()
    return ask(), on_states


def _same_outcomes(found, expected):
    for key in OUTCOMES:
        assert getattr(found, key) == pytest.approx(getattr(expected, key), abs=AGREE), key
    assert found.endings.keys() == expected.endings.keys()
    for label, p in expected.endings.items():
        assert found.endings[label] == pytest.approx(p, abs=AGREE)


def _live(game):
    graph = build_graph(game)
    return [graph.states[s] for s in np.flatnonzero(~graph.terminal)]


def test_a_counter_game_is_answered_over_its_counters_and_any_other_over_its_states():
    from toy_games import PenniesDuel

    assert facade.backend(HitPennies(3, 4)) == "counters"
    assert facade.backend(PenniesDuel()) == "states"
    with facade.forcing("states"):
        assert facade.backend(HitPennies(3, 4)) == "states"
    with pytest.raises(InputError, match="unknown backend 'graph'; allowed: counters, states"):
        with facade.forcing("graph"):
            pass


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_solution_is_the_same_at_every_state(game):
    on_counters, on_states = _both(lambda: solve_game(game))
    assert type(on_counters) is not type(on_states)   # two backends, one interface
    _same_outcomes(on_counters, on_states)
    for state in _live(game):
        assert on_counters.value_at(state) == pytest.approx(on_states.value_at(state),
                                                            abs=AGREE)
        for found, expected in zip(on_counters.policy(state), on_states.policy(state),
                                   strict=True):
            assert np.abs(found - expected).max() < AGREE
        assert np.allclose(on_counters.stage_matrix(state), on_states.stage_matrix(state),
                           atol=AGREE, rtol=0, equal_nan=True)
    for player in ("a", "b"):
        found = on_counters.policy_for(player)
        expected = on_states.policy_for(player)
        for state in _live(game):
            seen = game.observe(state, player)
            mask = game.legal_mask(state, player)
            assert np.abs(found.probabilities(seen, mask) -
                          expected.probabilities(seen, mask)).max() < AGREE


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_table_by_state_is_the_same(game):
    found, expected = (solution.state_table() for solution in _both(lambda: solve_game(game)))
    where = {state: k for k, state in enumerate(found.states)}
    assert set(where) == set(expected.states)
    rows = [where[state] for state in expected.states]
    assert np.abs(found.visits[rows] - expected.visits).max() < AGREE
    assert np.abs(found.mix_a[rows] - expected.mix_a).max() < AGREE
    assert np.abs(found.mix_b[rows] - expected.mix_b).max() < AGREE
    # the visits of the live states add up to the expected number of exchanges (each
    # live state of these toys opens one)
    assert found.visits.sum() == pytest.approx(solve_game(game).expected_length, abs=AGREE)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_moment_is_solved_alike(game):
    moment = _live(game)[-1]
    on_counters, on_states = _both(lambda: solve_moment(game, moment))
    _same_outcomes(on_counters, on_states)
    assert on_counters.value_at(moment) == pytest.approx(on_states.value_at(moment),
                                                         abs=AGREE)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_an_evaluation_against_a_fixed_policy_is_the_same(game):
    on_counters, on_states = _both(lambda: evaluate(game, _leaning(game), "uniform"))
    _same_outcomes(on_counters, on_states)


@pytest.mark.parametrize("responder", ["a", "b"])
@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_best_response_offers_the_same_answers(game, responder):
    fixed = _leaning(game)
    on_counters, on_states = _both(lambda: best_response(game, fixed, responder,
                                                         safest="equilibrium"))
    assert on_counters.responder == on_states.responder == responder
    assert on_counters.value == pytest.approx(on_states.value, abs=AGREE)
    _same_outcomes(on_counters.evaluation, on_states.evaluation)
    for state in _live(game):
        assert on_counters.value_at(state) == pytest.approx(on_states.value_at(state),
                                                            abs=AGREE)
        assert np.abs(on_counters.mix_at(state) - on_states.mix_at(state)).max() < AGREE
    found = {state: rest for state, *rest in on_counters.decisions()}
    expected = {state: rest for state, *rest in on_states.decisions()}
    assert found.keys() == expected.keys() and expected
    chances = on_counters.chances(), on_states.chances()
    for state, (reach, mix, value) in expected.items():
        got_reach, got_mix, got_value = found[state]
        assert got_reach == pytest.approx(reach, abs=AGREE)
        assert got_value == pytest.approx(value, abs=AGREE)
        assert np.abs(got_mix - mix).max() < AGREE
        assert chances[0].at(state) == pytest.approx(chances[1].at(state), abs=AGREE)
    for player in ("a", "b"):
        (masks, visits), (masks_s, visits_s) = (r.live_visits(player) for r in (
            on_counters, on_states))
        assert visits.sum() == pytest.approx(visits_s.sum(), abs=AGREE)
        assert masks.shape[1] == masks_s.shape[1] == len(game.action_names)


def _worth_of_each_action(game, response, fixed, state, responder):
    """The responder's worth of each legal action at ``state``, from the rules: every
    reply of the fixed side and every outcome, the best response's value after it."""
    other = "b" if responder == "a" else "a"
    theirs = fixed.probabilities(game.observe(state, other), game.legal_mask(state, other))
    sign = 1.0 if responder == "a" else -1.0
    worths = np.full(len(game.action_names), np.nan)
    for i in np.flatnonzero(game.legal_mask(state, responder)).tolist():
        worths[i] = 0.0
        for j in np.flatnonzero(theirs).tolist():
            for p, after in game.outcomes(state, *((i, j) if responder == "a" else (j, i))):
                worth = (sign * game.payoff(after) if game.is_terminal(after)
                         else response.value_at(after))
                worths[i] += theirs[j] * p * worth
    return worths


@pytest.mark.parametrize("responder", ["a", "b"])
@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_best_response_gives_each_action_its_worth_and_the_plan_its_chances(game, responder):
    fixed = _leaning(game)
    answers = _both(lambda: best_response(game, fixed, responder, safest="equilibrium"))
    for response in answers:
        live = _live(game)
        # asked state by state, and all at once (their steps rebuilt once for all)
        for state, together in zip(live, response.action_values_of(live), strict=True):
            expected = _worth_of_each_action(game, response, fixed, state, responder)
            for found in (response.action_values_at(state), together):
                assert np.array_equal(np.isnan(found), np.isnan(expected))
                assert np.nanmax(np.abs(found - expected)) < AGREE
        chances = response.chances()
        plan = response.decisions(chances=True)
        plain = response.decisions()
        assert len(plan) == len(plain) > 0
        for (state, reach, mix, value, said), row in zip(plan, plain, strict=True):
            assert (state, reach, value) == (row[0], row[1], row[3])
            assert np.array_equal(mix, row[2])
            assert said == pytest.approx(chances.at(state), abs=1e-15)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_equilibrium_against_itself_is_the_solution(game):
    solution = solve_game(game)
    played = evaluate(game, solution.policy_for("a"), solution.policy_for("b"))
    # read, not solved again, where the solution's values are the game's to rounding
    assert (played is solution.evaluation) == solution.exact
    with facade.forcing("states"):
        expected = evaluate(game, solve_game(game).policy_for("a"),
                            solve_game(game).policy_for("b"))
    _same_outcomes(played, expected)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_exploitability_is_the_same(game):
    on_counters, on_states = _both(lambda: exploitability(game, _leaning(game), "uniform"))
    for key in ("value", "gain_a", "gain_b", "pair_value"):
        assert getattr(on_counters, key) == pytest.approx(getattr(on_states, key), abs=AGREE)
    assert on_states.value > 0.01   # a leaning mix is exploitable: the test has teeth


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_regularised_solution_is_the_same(game):
    on_counters, on_states = _both(lambda: solve_regularized(game, "a", _leaning(game), 0.2))
    assert on_counters.value == pytest.approx(on_states.value, abs=AGREE)
    found, expected = on_counters.policy(), on_states.policy()
    for state in _live(game):
        assert on_counters.value_at(state) == pytest.approx(on_states.value_at(state),
                                                            abs=AGREE)
        assert np.abs(on_counters.mix_at(state) - on_states.mix_at(state)).max() < AGREE
        seen, mask = game.observe(state, "a"), game.legal_mask(state, "a")
        assert np.abs(found.probabilities(seen, mask) -
                      expected.probabilities(seen, mask)).max() < AGREE


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_pairs_decisions_and_tables_agree_where_someone_chooses(game):
    fixed = _leaning(game)
    on_counters, on_states = _both(lambda: decisions(game, fixed, "uniform"))
    _same_outcomes(on_counters.evaluation, on_states.evaluation)
    assert on_counters.live == pytest.approx(on_states.live, abs=AGREE)
    where = {state: k for k, state in enumerate(on_states.states)}
    # the counters list every counter value, those play never reaches too
    reached = [k for k, state in enumerate(on_counters.states) if state in where]
    assert np.abs(np.delete(on_counters.visits, reached)).max(initial=0.0) < AGREE
    rows = [where[on_counters.states[k]] for k in reached]
    assert np.abs(on_counters.visits[reached] - on_states.visits[rows]).max() < AGREE
    assert np.abs(on_counters.mixes(fixed, "a")[reached] -
                  on_states.mixes(fixed, "a")[rows]).max() < AGREE
    over_counters, over_states = _both(lambda: policy_table(game, fixed, "a"))
    shared = over_counters.keys() & over_states.keys()
    assert shared
    for observation in shared:
        assert np.abs(over_counters[observation] - over_states[observation]).max() < AGREE


def _by_beat(capsys) -> dict:
    assert main(["solve", "blooded", "-o", "max_beats=3", "--by", "beat", "--json"]) == 0
    return json.loads(capsys.readouterr().out)["by"]


def test_duel_solve_by_a_field_answers_a_counter_game(capsys):
    # Houses of the Blooded declares counters: its table by beat now comes from the
    # counters' solution, state by state; the state graph's own solution gives the same
    found = _by_beat(capsys)
    with facade.forcing("states"):
        expected = _by_beat(capsys)
    assert found["field"] == "beat" and [row["value"] for row in found["rows"]] == [1, 2, 3]
    assert len(found["rows"]) == len(expected["rows"])
    for row, reference in zip(found["rows"], expected["rows"], strict=True):
        assert row["value"] == reference["value"]
        assert row["visits"] == pytest.approx(reference["visits"], abs=AGREE)
        for key in ("mix_a", "mix_b"):
            for action, p in reference[key].items():
                assert row[key][action] == pytest.approx(p, abs=AGREE)
            assert sum(row[key].values()) == pytest.approx(1.0, abs=1e-12)


def test_uniform_play_over_many_situations_is_each_ones_legal_actions_evenly():
    masks = np.array([[True, True, True, True], [False, True, False, True],
                      [False, False, True, False]])
    found = UniformPolicy().batch_probabilities(np.zeros((3, 2)), masks)
    assert np.array_equal(found, [[0.25] * 4, [0.0, 0.5, 0.0, 0.5], [0.0, 0.0, 1.0, 0.0]])
    for row, mask in enumerate(masks):
        assert np.array_equal(UniformPolicy().probabilities((row,), mask), found[row])


def test_a_fixed_mix_over_many_situations_is_each_ones_mix():
    """A fixed mix asked in one call (as the solver asks a knockout's situations) is
    its weights renormalised over each row's legal actions, by hand."""
    mix = MixPolicy({"x": 1.0, "y": 3.0}, ("x", "y", "z"))
    masks = np.array([[True, True, True], [False, True, True], [False, False, True]])
    assert np.array_equal(mix.batch_probabilities(np.zeros((3, 2)), masks),
                          [[0.25, 0.75, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    for row, mask in enumerate(masks):
        assert np.array_equal(mix.probabilities((row,), mask),
                              mix.batch_probabilities(np.zeros((1, 2)), mask[None])[0])


@pytest.mark.parametrize("system, options", [
    ("uchronia", {"mode": "pistol", "a": "fine_shot", "b": "cold_shot"}),
    ("falkenstein", {"a": {"fencing": "AV"}, "b": {"fencing": "GD"}, "max_rounds": 2})])
def test_a_tables_mixes_over_the_state_graph_are_its_mixes_state_by_state(system, options):
    """A table read at every state at once (``mixes_of``) plays what ``policy_mix`` reads
    state by state, to the last bit: weights that are not yet mixes (some on illegal
    actions), and observations the table lacks (played uniformly)."""
    import envs
    from solver.game import policy_mix
    from solver.markov.evaluate import mixes_of
    from solver.policy import TabularPolicy

    game = envs.make(system, **options)
    graph = build_graph(game)
    live = np.flatnonzero(~graph.terminal)
    weights = np.random.default_rng(7).uniform(0.0, 3.0, (len(live), len(game.action_names)))
    for player in ("a", "b"):
        seen = [tuple(game.observe(graph.states[s], player)) for s in live]
        rows = enumerate(zip(seen, weights, strict=True))
        table = TabularPolicy({key: row for i, (key, row) in rows if i % 3},
                              "two states in three")
        found = mixes_of(game, graph, table, player)
        for s in live:
            assert np.array_equal(found[s], policy_mix(table, game, graph.states[s], player))
