"""The `duel` command on Uchronia: the solve report with its table by distance band, and
bad input as one line with exit code 2."""

from __future__ import annotations

import json

import pytest

from agents.cli import main


def test_solve_prints_the_play_by_band(capsys):
    assert main(["solve", "uchronia", "-o", "mode=pistol", "--a", "adresse,tireur",
                 "--b", "sang-froid", "-o", "max_turns=4", "--by", "band", "--detail"]) == 0
    out = capsys.readouterr().out
    for text in ("twenty paces", "least predictable safe play", "you win",
                 "How duels end", "safe play by band", "Value of the duel to A", "fire"):
        assert text in out
    # the stage game: the melee's actions are never legal in the pistol duel
    assert "Stage game" in out and "grapple" not in out


def test_solve_json_by_band(capsys):
    assert main(["solve", "uchronia", "--a", "tireur", "--b", "", "-o", "max_turns=3",
                 "-o", "start_band=grande", "--by", "band", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # three turns from grande: the distance can only have closed to faible at most
    assert {row["value"] for row in report["by"]["rows"]} <= {1, 2, 3}
    for row in report["by"]["rows"]:
        assert sum(row["mix_a"].values()) == pytest.approx(1.0)


def test_solve_a_moment_of_the_melee(capsys):
    assert main(["solve", "uchronia", "-o", "mode=melee", "--a", "fencer", "--b",
                 "weapon=couteau", "-o", "max_rounds=3", "--state",
                 "chooser=1,margin=2,intent=0"]) == 0
    out = capsys.readouterr().out
    assert "disarm" in out and "chooses between" in out


@pytest.mark.parametrize("argv,word", [
    (["solve", "uchronia", "--a", "sharpshooter"], "sharpshooter"),
    (["solve", "uchronia", "--a", "weapon=musket"], "musket"),
    (["solve", "uchronia", "-o", "mode=joust"], "joust"),
    (["solve", "uchronia", "-o", "paces=20"], "paces"),
    (["solve", "uchronia", "--by", "distance"], "distance"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, word):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert word in err and "allowed" in err and "\n" not in err
