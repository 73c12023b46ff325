"""A duel exported as a Gambit ``.efg`` file (``solver.write_efg``, ``duel solve
--export-efg FILE --horizon N``), read back by an independent reader
(``tests/efg_reader.py``): its uniform play is worth what ``solver.evaluate`` says, and
its sequence-form value is the duel's (public: ``solve_game``; hidden: the hand-derived
value of TinyBluff and ``solve_hidden``)."""

from __future__ import annotations

import pytest

import envs
import solver
from agents.cli import main
from solver import InputError
from solver.hidden.sequence import solve_hidden
from tests.efg_reader import read_efg, sequence_form_value, uniform_payoff
from tests.hidden_games import TinyBluff

#: every step of these small duels fits the horizon: nothing is cut
WHOLE = 50


def _read(path):
    return read_efg(path.read_text(encoding="utf-8"))


def test_a_public_duel_read_back_plays_and_solves_as_ours(tmp_path):
    game = envs.make("falkenstein", a={"fencing": "AV"}, b={"fencing": "GD"}, max_rounds=1)
    path = tmp_path / "duel.efg"
    nodes = solver.write_efg(game, path, horizon=WHOLE)
    tree = _read(path)
    assert nodes > 10 and tree.players == ["A", "B"]
    assert uniform_payoff(tree) == pytest.approx(
        solver.evaluate(game, "uniform", "uniform").value, abs=1e-12)
    assert sequence_form_value(tree) == pytest.approx(solver.solve_game(game).value, abs=1e-7)


def test_a_duel_cut_at_a_horizon_keeps_its_value(tmp_path):
    """The duel still going after two steps ends there with its value: the cut tree's
    value is the whole duel's."""
    game = envs.make("uchronia", mode="pistol", start_band="grande", max_turns=4)
    path = tmp_path / "cut.efg"
    solver.write_efg(game, path, horizon=2)
    text = path.read_text(encoding="utf-8")
    assert "cut at the horizon" in text
    assert sequence_form_value(read_efg(text)) == pytest.approx(
        solver.solve_game(game).value, abs=1e-7)


def test_hidden_information_as_information_sets(tmp_path):
    path = tmp_path / "bluff.efg"
    solver.write_efg(TinyBluff(), path, horizon=WHOLE)
    tree = _read(path)
    # the hand derivation of tests/hidden_games.py: the value to A is 3/4; uniform
    # play is worth 1/2 * (2 + 1 + 0 + 0) / 4 = 3/8
    assert sequence_form_value(tree) == pytest.approx(0.75, abs=1e-9)
    assert uniform_payoff(tree) == pytest.approx(3 / 8, abs=1e-12)
    game = envs.make("falkenstein", hidden_levels=True, max_rounds=1,
                     prior_a="GD:1,GR:1", prior_b="GD:1")
    solver.write_efg(game, path, horizon=WHOLE)
    assert sequence_form_value(_read(path)) == pytest.approx(solve_hidden(game).value,
                                                             abs=1e-7)


def test_the_command_line_writes_it(tmp_path, capsys):
    path = tmp_path / "cli.efg"
    assert main(["solve", "falkenstein", "--a", "fencing=AV", "--b", "fencing=GD",
                 "-o", "max_rounds=1", "--export-efg", str(path), "--horizon", "3",
                 "--no-cache"]) == 0
    assert "Wrote" in capsys.readouterr().out
    game = envs.make("falkenstein", a={"fencing": "AV"}, b={"fencing": "GD"}, max_rounds=1)
    assert sequence_form_value(_read(path)) == pytest.approx(solver.solve_game(game).value,
                                                             abs=1e-7)


def test_bad_horizons_are_refused(tmp_path, monkeypatch):
    for bad in (0, -1, 2.5, True):
        with pytest.raises(InputError, match="horizon must be an integer >= 1"):
            solver.write_efg(TinyBluff(), tmp_path / "x.efg", horizon=bad)
    monkeypatch.setattr("solver.efg.MAX_EFG_NODES", 100)
    with pytest.raises(InputError, match="more than 100 nodes; give a shorter --horizon"):
        solver.write_efg(envs.make("falkenstein", max_rounds=1), tmp_path / "x.efg",
                         horizon=30)
