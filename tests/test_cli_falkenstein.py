"""The duel command on Castle Falkenstein, as a user runs it."""

import json
import subprocess
import sys

import pytest

from agents.cli import main

SMALL = ["-o", "max_rounds=2"]


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_solve_prints_the_opening_exchange(capsys):
    assert main(["solve", "falkenstein", "--a", "fencing=GR,physique=AV", "--b",
                 "fencing=GD"]) == 0
    out = capsys.readouterr().out
    for text in ("two Attacks", "two Rests", "you win", "How duels end",
                 "least predictable safe play"):
        assert text in out
    for jargon in ("Value of the duel", "Continuation", "maximum entropy", "NashConv"):
        assert jargon.lower() not in out.lower()
    assert main(["solve", "falkenstein", "--a", "fencing=GR,physique=AV", "--b",
                 "fencing=GD", "--detail"]) == 0
    assert "Value of the duel to A" in capsys.readouterr().out


def test_every_header_names_the_rules_in_force(capsys, tmp_path):
    ruleset = tmp_path / "house.toml"
    ruleset.write_text("max_rounds = 4\n")
    for argv in (["solve", "falkenstein", "--ruleset", str(ruleset), "-o", "edge=ledge"],
                 ["odds", "falkenstein", "--ruleset", str(ruleset), "-o", "edge=ledge",
                  "--vs", "uniform"]):
        assert main(argv) == 0
        head = capsys.readouterr().out.split("\n\n")[0]
        assert str(ruleset) in head and "edge=ledge" in head and "max_rounds=4" in head


def test_solve_json_is_consistent(capsys):
    report = run_json(capsys, "solve", "falkenstein", "--me", "fencing=AV", "--them",
                      "fencing=GD", "-o", "edge=ledge", "-o", "convention=to_the_death")
    assert report["win"] + report["draw"] + report["loss"] == pytest.approx(1)
    assert sum(report["endings"].values()) == pytest.approx(1)
    assert len(report["stage_matrix"]) == 6
    assert sum(report["mix_a"].values()) == pytest.approx(1)
    # the value is the mix pair's expectation over the opening table
    names = report["actions"]
    value = sum(report["mix_a"][a] * report["mix_b"][b] * report["stage_matrix"][i][j]
                for i, a in enumerate(names) for j, b in enumerate(names)
                if report["stage_matrix"][i][j] is not None)
    assert value == pytest.approx(report["value"], abs=1e-9)


def test_solve_at_a_given_moment(capsys):
    # last exchange of the last round, A with his back to the wall owing one Rest:
    # he must play a Rest card, so neither AA, AD nor DD is legal for him
    report = run_json(capsys, "solve", "falkenstein", "--a", "fencing=GD", "--b", "fencing=GD",
                      *SMALL, "--state", "round=2,exchange=3,owed_a=1,owed_b=0,back_a=0")
    assert report["state"]["back_a"] == 0
    for i in (0, 1, 3):
        assert all(v is None for v in report["stage_matrix"][i])
    assert report["mix_a"]["AA"] == 0


def test_all_pairings_json(capsys):
    report = run_json(capsys, "solve", "falkenstein", "--all-pairings", "-o", "max_rounds=1")
    assert len(report["pairings"]) == 36
    same = [p for p in report["pairings"] if p["a"] == p["b"]]
    assert all(p["value"] == pytest.approx(0, abs=1e-9) for p in same)


def test_odds_against_a_mix_reports_the_fallback(capsys):
    report = run_json(capsys, "odds", "falkenstein", "--me", "fencing=GD", "--them",
                      "fencing=GD", *SMALL, "--vs", "mix=AA:1")
    # B must Rest at some point in every round, where AA alone is never legal
    assert report["mix_fallback"]["steps_per_duel"] > 0
    best, eq = report["best_response"], report["equilibrium_against_it"]
    assert best["value"] >= eq["value"] - 1e-9


def test_odds_rows_are_plays_against_this_opponent(capsys):
    # against a duellist who always Rests when he may, the equilibrium wins (against
    # itself, GD vs GD, it only ever draws): the row is "you play it against him"
    report = run_json(capsys, "odds", "falkenstein", "--me", "fencing=GD", "--them",
                      "fencing=GD", *SMALL, "--vs", "mix=RR:1")
    assert report["equilibrium_against_it"]["win"] > 0.5
    assert report["plan"][0]["reach"] == pytest.approx(1.0)


def test_odds_against_the_equilibrium_gains_nothing(capsys):
    report = run_json(capsys, "odds", "falkenstein", "--me", "fencing=AV", "--them",
                      "fencing=GD", *SMALL, "--vs", "equilibrium")
    assert report["best_response"]["value"] == pytest.approx(
        report["equilibrium_against_it"]["value"], abs=1e-9)


def test_odds_recommends_the_safest_of_equal_plays(capsys):
    # GD against GD: every best reply to the equilibrium is worth a draw on average, but
    # splitting them evenly loses 10% of duels; the equilibrium itself never loses
    report = run_json(capsys, "odds", "falkenstein", "--me", "fencing=GD", "--them",
                      "fencing=GD", "--vs", "equilibrium")
    assert report["best_response"]["value"] == pytest.approx(0, abs=1e-9)
    assert report["best_response"]["loss"] == pytest.approx(0, abs=1e-9)


def test_odds_situations_are_words_from_my_side(capsys):
    report = run_json(capsys, "odds", "falkenstein", "--a", "fencing=GD", "--b", "fencing=AV",
                      *SMALL, "--vs", "uniform", "--side", "b")
    first = report["plan"][0]
    # B (Average) owes 2 Rests in the first exchange: his own obligation is in the words
    assert first["situation"].startswith("round 1, exchange 1 of 3, you owe 2 Rests")
    assert 0 <= first["loss"] <= 1 and first["win"] + first["draw"] + first["loss"] == \
        pytest.approx(1)
    assert main(["odds", "falkenstein", "--a", "fencing=GD", "--b", "fencing=AV", *SMALL,
                 "--vs", "uniform", "--side", "b"]) == 0
    out = capsys.readouterr().out
    assert "you win" in out and "owed_a=" not in out


def test_odds_as_side_b(capsys):
    report = run_json(capsys, "odds", "falkenstein", "--a", "fencing=GD", "--b", "fencing=AV",
                      *SMALL, "--vs", "uniform", "--side", "b")
    assert report["side"] == "b"
    assert report["best_response"]["win"] + report["best_response"]["loss"] <= 1 + 1e-9


@pytest.mark.parametrize("argv, needle", [
    (["solve", "falkenstein", "--a", "fencing=XX"], "XX"),
    (["solve", "falkenstein", "-o", "colour=red"], "colour"),
    (["solve", "nowhere"], "nowhere"),
    (["solve", "falkenstein", "-o", "discipline=painting"], "painting"),
    (["solve", "falkenstein", "-o", "hidden_levels=true"], "hidden"),
    (["odds", "falkenstein", "--vs", "mix=ZZ:1"], "ZZ"),
    (["odds", "falkenstein", "--vs", "cheater"], "cheater"),
    (["solve", "falkenstein", "--a", "weapon=dagger"], "duel"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, needle):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and needle in err and "Traceback" not in err


def test_play_reasks_bad_keystrokes(capsys, monkeypatch):
    from agents.cli import play
    answers = iter(["banana", "9", "RR", "AA", "q"])
    parser_args = ["play", "falkenstein", "--vs", "uniform", "--seed", "3", *SMALL]
    from agents.cli import build_parser
    args = build_parser().parse_args(parser_args)
    assert play.run(args, read=lambda prompt: next(answers)) == 0
    out = capsys.readouterr().out
    assert "'banana' is not a legal choice" in out
    assert "'9' is not a legal choice" in out


def test_play_from_a_real_terminal_pipe():
    done = subprocess.run([sys.executable, "-m", "agents.cli", "play", "falkenstein", "--vs",
                           "equilibrium", "--seed", "1", *SMALL, "--json"],
                          input="x\n" + "RR\n" * 12, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["exchanges"] and report["exchanges"][0]["a"] == "RR"


def test_me_is_the_sheet_of_the_side_played(capsys):
    # GR against AV is a forced win for GR: as side B with --me GR, I win
    report = run_json(capsys, "odds", "falkenstein", "--me", "fencing=GR", "--them",
                      "fencing=AV", *SMALL, "--vs", "equilibrium", "--side", "b")
    assert report["options"]["b"]["fencing"] == "GR"
    assert report["best_response"]["win"] == pytest.approx(1.0)


def test_argument_errors_are_one_line(capsys):
    assert main(["solve", "falkenstein", "--a", "fencing="]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "fencing=" in err


def test_hidden_levels_stay_hidden_in_play(capsys):
    from agents.cli import build_parser, play
    args = build_parser().parse_args(["play", "falkenstein", "-o", "hidden_levels=1",
                                      "--vs", "uniform", "--seed", "5"])
    answers = iter(["q"])
    assert play.run(args, read=lambda prompt: next(answers)) == 0
    out = capsys.readouterr().out
    assert "B: Fencing unknown" in out


def test_play_reveals_hidden_levels_when_the_duel_ends(capsys):
    from agents.cli import build_parser, play
    args = build_parser().parse_args(["play", "falkenstein", "-o", "hidden_levels=1",
                                      "-o", "prior_b=GR:1", "-o", "max_rounds=1",
                                      "--vs", "uniform", "--seed", "5"])
    answers = iter(["RR"] * 3)
    assert play.run(args, read=lambda prompt: next(answers)) == 0
    out = capsys.readouterr().out
    during, _, after = out.rpartition("The duel is over.")
    assert "B: Fencing unknown" in during
    assert "B: Fencing GR." in after


def test_the_last_board_of_a_duel_won_shows_no_health_from_before_the_touch(capsys):
    from agents.cli import build_parser, play
    # B plays two Rests, then A's two Attacks land a double touch: first blood
    args = build_parser().parse_args(["play", "falkenstein", "-o", "max_rounds=1",
                                      "--vs", "mix=RR:1"])
    answers = iter(["AA"] * 3)
    assert play.run(args, read=lambda prompt: next(answers)) == 0
    out = capsys.readouterr().out
    said, _, after = out.rpartition("The duel is over.")
    assert "B is wounded" in said and "A wins: first blood" in said
    assert after.split() == ["A:", "Fencing", "AV.", "B:", "Fencing", "AV."]
