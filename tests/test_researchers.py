"""What a researcher meets first: the facade on a game with hidden information (it calls
the hidden solver, or names it), ``duel play --vs equilibrium`` on hidden levels, and
results that print as labelled numbers."""

from __future__ import annotations

import pytest

import envs
import solver
from agents.cli import build_parser, play
from solver import InputError
from solver.hidden.sequence import solve_hidden
from tests.hidden_games import TinyBluff


def test_solve_game_on_hidden_information_names_the_hidden_solver():
    with pytest.raises(InputError, match=r"solver\.hidden\.sequence\.solve_hidden\(game\)") \
            as refused:
        solver.solve_game(TinyBluff())
    assert "public variant" not in str(refused.value)
    with pytest.raises(InputError, match=r"solve_hidden"):
        solver.best_response(TinyBluff(), "uniform", "b")


def test_exploitability_on_hidden_information_by_information_set():
    """TinyBluff (tests/hidden_games.py), both uniform, by hand: the pair is worth
    1/2 * (2 + 1 + 0 + 0) / 4 + 1/2 * 0 = 3/8 to A. A best-responding A plays X when
    Strong (3/2) and either when Weak (0): 3/4, a gain of 3/8. B, seeing nothing, plays
    RIGHT: 1/2 * 1/2 + 1/2 * 0 = 1/4 to A, a gain of 1/8. NashConv / 2 = 1/4."""
    found = solver.exploitability(TinyBluff(), "uniform", "uniform")
    assert found.pair_value == pytest.approx(3 / 8, abs=1e-12)
    assert (found.gain_a, found.gain_b) == pytest.approx((3 / 8, 1 / 8), abs=1e-12)
    assert found.value == pytest.approx(1 / 4, abs=1e-12)
    # the sequence-form equilibrium, by name or as policies, gives nothing away
    assert solver.exploitability(TinyBluff(), "equilibrium", "equilibrium").value == \
        pytest.approx(0.0, abs=1e-9)
    solution = solve_hidden(TinyBluff())
    assert solver.exploitability(TinyBluff(), solution.policy_for("a"),
                                 solution.policy_for("b")).value == pytest.approx(0.0, abs=1e-9)


def test_play_against_the_equilibrium_of_hidden_levels(capsys):
    args = build_parser().parse_args(["play", "falkenstein", "-o", "hidden_levels=1",
                                      "-o", "max_rounds=1", "--vs", "equilibrium",
                                      "--seed", "5", "--no-cache"])
    answers = iter(["RR"] * 3)
    assert play.run(args, read=lambda prompt: next(answers)) == 0
    out = capsys.readouterr().out
    assert "Your opponent plays equilibrium." in out
    assert "B: Fencing unknown" in out


def test_root_values_are_labelled_by_type():
    # Strong (own_kind 0) earns 3/2, Weak 0: the hand derivation of TinyBluff
    assert solve_hidden(TinyBluff()).root_values() == pytest.approx(
        {"A own_kind=0": 1.5, "A own_kind=1": 0.0}, abs=1e-9)


def test_results_print_as_labelled_numbers():
    game = envs.make("falkenstein", a={"fencing": "GR"}, b={"fencing": "AV"}, max_rounds=1)
    solution = solver.solve_game(game)
    # GR against AV is a forced win for GR (tests/test_cli_falkenstein.py)
    assert repr(solution) == ("<Solution of falkenstein: value=+1, win=100.00%, draw=0.00%, "
                              "loss=0.00%>")
    response = solver.best_response(game, "uniform", "b")
    assert repr(response).startswith("<BestResponse[B]: value_to_responder=")
    assert "win_of_a=" in repr(response) and "%" in repr(response)
    assert repr(solver.solve_regularized(game, "a", "uniform", 1.0)).startswith(
        "<RegularizedSolution[A] of falkenstein: beta=+1, value=")
    assert repr(solution.policy_for("a")).startswith("<TabularPolicy 'equilibrium': ")
    assert repr(solve_hidden(TinyBluff())) == (
        "<HiddenSolution of tiny_bluff: value=+0.75, exploitability=+0, decision_points=2>")
    blooded = solver.solve_game(envs.make("blooded", max_beats=1))
    assert repr(blooded).startswith("<Solution of blooded: value=")
