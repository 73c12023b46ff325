"""`duel dice`: tables, JSON documents and errors."""

import argparse
import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from agents.cli import arguments, main
from agents.cli.dice import run
from envs.d20 import degrees_of_success
from solver.dice import margin, sum_of_dice
from solver.errors import InputError

ROOT = Path(__file__).resolve().parents[1]


def invoke(argv: list[str], capsys) -> str:
    """Run the command through its own subparser, so these tests need only this module."""
    parser = argparse.ArgumentParser(prog="duel")
    arguments.COMMANDS["dice"](parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    assert args.command == "dice"
    assert run(args) == 0
    return capsys.readouterr().out


def invoke_json(argv: list[str], capsys) -> dict:
    return json.loads(invoke([*argv, "--json"], capsys))


def exact(p: Fraction) -> dict:
    return {"fraction": str(p), "float": pytest.approx(float(p))}


def test_full_table_lists_every_total(capsys):
    out = invoke(["dice", "4d6"], capsys)
    lines = out.strip().splitlines()
    assert lines[0].startswith("4d6: mean 14")
    rows = [line.split() for line in lines if line[:5].strip().isdigit()]
    assert [int(row[0]) for row in rows] == list(range(4, 25))
    row_14 = next(row for row in rows if row[0] == "14")
    assert row_14[1:3] == ["73/648", "11.27%"]
    assert rows[0][3:] == ["1", "100.00%"]  # at least the minimum is certain


def test_full_json(capsys):
    document = invoke_json(["dice", "4d6"], capsys)
    dist = sum_of_dice(4)
    assert document["expression"] == "4d6"
    assert document["mean"] == exact(Fraction(14))
    assert document["denominator"] == 1296
    assert [o["total"] for o in document["outcomes"]] == list(range(4, 25))
    for outcome in document["outcomes"]:
        total = outcome["total"]
        assert outcome["probability"] == exact(dist.probability(total))
        assert outcome["at_least"] == exact(dist.probability_at_least(total))


def test_at_least(capsys):
    out = invoke(["dice", "4d6", "--at-least", "10", "15", "20"], capsys)
    assert "65/72" in out and "90.28%" in out
    document = invoke_json(["dice", "4d6", "--at-least", "10", "15", "20"], capsys)
    dist = sum_of_dice(4)
    assert document["at_least"] == [
        {"threshold": t, "probability": exact(dist.probability_at_least(t))} for t in (10, 15, 20)
    ]


def test_opposed_pools(capsys):
    out = invoke(["dice", "5d6", "--vs", "4d6"], capsys)
    assert "A > B" in out and "A = B" in out and "A < B" in out
    document = invoke_json(["dice", "5d6", "--vs", "4d6"], capsys)
    diff = margin(sum_of_dice(5), sum_of_dice(4))
    assert document["a_wins"] == exact(diff.probability_at_least(1))
    assert document["tie"] == exact(diff.probability(0))
    assert document["b_wins"] == exact(diff.probability_at_most(-1))
    total = sum(Fraction(document[k]["fraction"]) for k in ("a_wins", "tie", "b_wins"))
    assert total == 1
    assert document["margin_mean"] == exact(Fraction(7, 2))
    assert {m["margin"]: Fraction(m["probability"]["fraction"]) for m in document["margin"]} == (
        dict(diff)
    )


def test_degrees_against_several_dcs(capsys):
    out = invoke(["dice", "d20+9", "--dc", "18", "30"], capsys)
    assert "critical success" in out and "1/10 (10.00%)" in out
    document = invoke_json(["dice", "d20+9", "--dc", "18", "30"], capsys)
    assert document["modifier"] == 9
    assert [check["dc"] for check in document["checks"]] == [18, 30]
    for check in document["checks"]:
        chances = degrees_of_success(9, check["dc"])
        for name, p in chances.items():
            assert check[name] == exact(p)
        assert check["success_or_better"] == exact(chances["critical_success"] + chances["success"])


def test_negative_modifier_and_dc(capsys):
    document = invoke_json(["dice", "d20-2", "--dc", "-5"], capsys)
    assert document["modifier"] == -2
    assert document["checks"][0]["critical_success"] == exact(
        degrees_of_success(-2, -5)["critical_success"]
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["dice", "4x6"],
        ["dice", "d20-1d4"],
        ["dice", "4d0"],
        ["dice", "2d20+3", "--dc", "15"],
        ["dice", "4d6", "--vs", "nonsense"],
        ["dice", "2000d6"],
    ],
)
def test_bad_input_raises_input_error(argv, capsys):
    with pytest.raises(InputError):
        invoke(argv, capsys)


@pytest.mark.parametrize(
    "argv",
    [
        ["dice", "-3d6"],
        ["dice", "4d6", "--at-least", "x"],
        ["dice", "4d6", "--vs", "d6", "--dc", "5"],
    ],
)
def test_malformed_command_lines_exit_two(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        invoke(argv, capsys)
    assert exit_info.value.code == 2


def test_through_main(capsys):
    assert main(["dice", "2d6", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["outcomes"][5] == {
        "total": 7,
        **{
            "probability": exact(Fraction(1, 6)),
            "at_least": exact(Fraction(7, 12)),
        },
    }
    assert main(["dice", "4x6"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and "'4x6'" in captured.err


def duel_command() -> list[str]:
    if shutil.which("duel"):
        return ["duel"]
    return [sys.executable, "-c", "import sys; from agents.cli import main; sys.exit(main())"]


@pytest.mark.parametrize("expression", ["4x6", "-3d6", "1001d6"])
def test_subprocess_bad_input_exits_two_without_traceback(expression):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [*duel_command(), "dice", expression],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr


def test_subprocess_json_is_one_document():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [*duel_command(), "dice", "5d6", "--vs", "4d6", "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["a"] == "5d6"
