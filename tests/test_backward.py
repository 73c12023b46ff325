"""Whole-game solutions checked against values derived by hand."""

import numpy as np
import pytest
from solver_games import ConstantStage, LoopingPennies, MatrixThenChance

from solver import InputError, UniformPolicy, best_response, evaluate, exploitability, solve_game


def test_two_stage_game_value_by_hand():
    # Second stage [[1,-1],[-1,1/2]]: value (ad-bc)/(a+d-b-c) = -1/7, A plays H 3/7.
    # First stage [[1, c], [c, 1]] with c = 1/2*0 + 1/2*(-1/7) = -1/14:
    # value (1 - c^2)/(2 - 2c) = 13/28, both mix 1/2.
    solution = solve_game(MatrixThenChance())
    assert solution.value == pytest.approx(13 / 28, abs=1e-12)
    a, b = solution.policy(("second",))
    assert a == pytest.approx([3 / 7, 4 / 7], abs=1e-9)
    assert b == pytest.approx([3 / 7, 4 / 7], abs=1e-9)
    assert solution.value_at(("second",)) == pytest.approx(-1 / 7, abs=1e-12)


def test_two_stage_outcome_probabilities_by_hand():
    # match 1/2 -> win; mismatch 1/2 -> coin: draw 1/4, second stage 1/4 where
    # HH 9/49 (+1), TT 16/49 (+1/2) are wins and HT, TH 24/49 are losses.
    solution = solve_game(MatrixThenChance())
    assert solution.win == pytest.approx(1 / 2 + 25 / 196)
    assert solution.draw == pytest.approx(1 / 4)
    assert solution.loss == pytest.approx(24 / 196)
    assert solution.expected_length == pytest.approx(1.25)
    assert sum(solution.endings.values()) == pytest.approx(1.0)


def test_stage_matrix_holds_continuation_values():
    solution = solve_game(MatrixThenChance())
    matrix = solution.stage_matrix(("first",))
    assert matrix == pytest.approx(np.array([[1, -1 / 14], [-1 / 14, 1]]))


def test_cyclic_game_by_value_iteration():
    # V = value of [[1, c], [c, 1]], c = (V - 1)/2  =>  V = (1 + c)/2  =>  V = 1/3
    solution = solve_game(LoopingPennies(), tolerance=1e-13)
    assert solution.value == pytest.approx(1 / 3, abs=1e-10)
    # win: each round a match (1/2) wins, a mismatch continues half the time
    # P(win) = (1/2) / (1 - 1/4) = 2/3
    assert solution.win == pytest.approx(2 / 3, abs=1e-9)
    assert solution.expected_length == pytest.approx(1 / (1 - 1 / 4))


def test_maximum_entropy_mix_on_a_degenerate_stage():
    solution = solve_game(ConstantStage())
    a, b = solution.policy(("first",))
    assert a == pytest.approx([0.5, 0.5, 0.0], abs=1e-7)
    assert b == pytest.approx([1 / 3, 1 / 3, 1 / 3], abs=1e-7)
    assert solution.value == pytest.approx(0.0, abs=1e-12)
    assert solution.draw == pytest.approx(1.0)


def test_best_response_against_uniform_by_hand():
    game = MatrixThenChance()
    # A against uniform B: second stage H is worth 0, T -1/4, so c = 0 and
    # both first actions are worth 1/2: a tie, split evenly.
    response = best_response(game, UniformPolicy(), "a")
    assert response.value == pytest.approx(0.5)
    assert response.mixes[response.graph.index[("first",)]] == pytest.approx([0.5, 0.5])
    assert response.mixes[response.graph.index[("second",)]] == pytest.approx([1.0, 0.0])
    # B against uniform A: second stage column T is worth -1/4 to A, c = -1/8,
    # first stage (1 + c)/2 = 7/16 to A.
    assert best_response(game, UniformPolicy(), "b").value == pytest.approx(-7 / 16)


def test_exploitability_by_hand():
    game = MatrixThenChance()
    # uniform pair: second stage averages -1/8, c = -1/16, value 1/2 - 1/32 = 15/32
    assert evaluate(game, UniformPolicy(), UniformPolicy()).value == pytest.approx(15 / 32)
    result = exploitability(game, UniformPolicy(), UniformPolicy())
    assert result.gain_a == pytest.approx(1 / 2 - 15 / 32)
    assert result.gain_b == pytest.approx(15 / 32 - 7 / 16)
    assert result.value == pytest.approx(1 / 32)


def test_solved_pair_is_unexploitable():
    for game in (MatrixThenChance(), LoopingPennies(), ConstantStage()):
        solution = solve_game(game)
        result = exploitability(game, solution.policy_for("a"), solution.policy_for("b"))
        assert abs(result.value) < 1e-8


def test_hidden_information_is_refused():
    game = MatrixThenChance()
    game.public_information = False
    with pytest.raises(InputError, match="hidden information"):
        solve_game(game)


def test_play_that_never_ends_is_reported_not_nan():
    from solver_games import Stalling

    from solver import MixPolicy
    game = Stalling()
    stall = MixPolicy({"T": 1.0}, game.action_names)
    with pytest.raises(InputError, match="forever"):
        evaluate(game, UniformPolicy(), stall)
