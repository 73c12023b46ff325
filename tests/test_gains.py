"""Exploitability is never negative by proof: a shortfall within rounding reads as 0 and a
broken best response (one worse than the play it answers) raises instead of passing for
a perfect equilibrium."""

import dataclasses

import pytest
from solver_games import MatrixThenChance

import solver.hidden.sequence
import solver.solve
from solver import UniformPolicy, exploitability, solve_game
from solver.gains import ROUNDING_SHARE, WorseResponseError, gain_over


def test_gain_within_rounding_reads_as_zero():
    # payoffs in [-2, 2]: rounding allows 4e-9
    assert gain_over(0.5 - 3e-9, 0.5, (-2.0, 2.0)) == 0.0
    assert gain_over(0.75, 0.5, (-2.0, 2.0)) == 0.25


def test_shortfall_beyond_rounding_raises_with_the_numbers():
    with pytest.raises(WorseResponseError, match=r"worse than the play it answers.*0\.25.*0\.5"):
        gain_over(0.25, 0.5, (-1.0, 1.0))
    with pytest.raises(WorseResponseError):
        gain_over(0.5 - 5 * ROUNDING_SHARE * 2.0, 0.5, (-1.0, 1.0))


def _worse_by(shortfall, real):
    def broken(game, policy, responder, *args, **kwargs):
        response = real(game, policy, responder, *args, **kwargs)
        return dataclasses.replace(response, value=response.value - shortfall)
    return broken


def test_a_broken_best_response_makes_exploitability_raise(monkeypatch):
    game = MatrixThenChance()
    solution = solve_game(game)
    pair = solution.policy_for("a"), solution.policy_for("b")
    assert exploitability(game, *pair).value < 1e-8  # honest responder: an equilibrium
    monkeypatch.setattr(solver.solve, "best_response",
                        _worse_by(0.1, solver.solve.best_response))
    with pytest.raises(WorseResponseError, match="A's best response"):
        exploitability(game, *pair)


def test_a_best_response_worse_by_rounding_only_still_reads_as_equilibrium(monkeypatch):
    game = MatrixThenChance()
    solution = solve_game(game)
    monkeypatch.setattr(solver.solve, "best_response",
                        _worse_by(1e-12, solver.solve.best_response))
    result = exploitability(game, solution.policy_for("a"), solution.policy_for("b"))
    assert result.gain_a == 0.0 and result.gain_b == 0.0


def test_a_broken_best_response_raises_in_the_profile_metrics(monkeypatch):
    import agents.metrics

    game = MatrixThenChance()
    monkeypatch.setattr(agents.metrics, "best_response",
                        _worse_by(0.1, agents.metrics.best_response))
    with pytest.raises(WorseResponseError):
        agents.metrics.profile_metrics(game, UniformPolicy(), "a")


def test_a_broken_sequence_form_response_raises(monkeypatch):
    real = solver.hidden.sequence.best_response_value
    monkeypatch.setattr(solver.hidden.sequence, "best_response_value",
                        lambda tree, player, plan, payoff: real(tree, player, plan, payoff) - 0.1)
    game = MatrixThenChance()
    game.public_information = False
    with pytest.raises(WorseResponseError):
        solver.hidden.sequence.solve_hidden(game)


def test_chances_rounded_past_their_bounds_are_put_back_and_nothing_further():
    from solver.markov.evaluate import ROUNDING, Evaluation
    ulp = 2.0 ** -52
    found = Evaluation(0.0, -ulp, 1.0 + ulp, 0.0, 1.0, {"draw": 1.0 + 2 * ulp})
    assert (found.win, found.draw, found.loss, found.endings) == (0.0, 1.0, 0.0,
                                                                  {"draw": 1.0})
    wrong = Evaluation(0.0, 1.0 + 10 * ROUNDING, -10 * ROUNDING, 0.0, 1.0)
    assert (wrong.win, wrong.draw) == (1.0 + 10 * ROUNDING, -10 * ROUNDING)
