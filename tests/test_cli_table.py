"""What a game master reads at the table: odds from any moment, advice that says when
nothing matters, and plays equally good said to be so."""

from __future__ import annotations

import json
from functools import cache

import numpy as np
import pytest

import envs
from agents.cli import main
from agents.cli.common import json_text
from agents.cli.situations import parse_state
from agents.cli.solve import indifferent

SHEETS = ["--me", "fencing=GD", "--them", "fencing=AV", "-o", "max_rounds=1"]


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _best_against_uniform(game, state) -> tuple[float, float]:
    """(A's best value, his chance to win) against a B who plays every legal action alike,
    by plain recursion over the rules' outcomes (the first best action: no two are tied
    in these duels)."""

    @cache
    def value(s) -> tuple[float, float]:
        if game.is_terminal(s):
            payoff = game.payoff(s)
            return payoff, float(payoff > 0)
        legal_b = np.flatnonzero(game.legal_mask(s, "b"))
        best = None
        for i in np.flatnonzero(game.legal_mask(s, "a")):
            total = np.zeros(2)
            for j in legal_b:
                for p, after in game.outcomes(s, int(i), int(j)):
                    total += p * np.array(value(after)) / len(legal_b)
            if best is None or total[0] > best[0] + 1e-12:
                best = total
        return float(best[0]), float(best[1])
    return value(state)


@pytest.mark.parametrize("moment", ["round=1,exchange=2,back_a=4",
                                    "round=1,exchange=3,owed_a=1,owed_b=1"])
def test_odds_from_a_moment_are_the_best_reply_played_from_there(capsys, moment):
    game = envs.make("falkenstein", a="fencing=GD", b="fencing=AV", max_rounds=1)
    state = parse_state(game, moment)
    report = run_json(capsys, "odds", "falkenstein", *SHEETS, "--vs", "uniform",
                      "--state", moment, "--no-cache")
    value, win = _best_against_uniform(game, state)
    assert report["best_response"]["value"] == pytest.approx(value, abs=1e-9)
    assert report["best_response"]["win"] == pytest.approx(win, abs=1e-9)
    assert report["state"] == game.state_fields(state)
    assert report["plan"][0]["reach"] == pytest.approx(1.0)  # the moment itself comes first


def test_odds_from_the_start_moment_are_the_odds_of_the_whole_duel(capsys):
    whole = run_json(capsys, "odds", "falkenstein", *SHEETS, "--vs", "cautious:0.5",
                     "--no-cache")
    start = run_json(capsys, "odds", "falkenstein", *SHEETS, "--vs", "cautious:0.5",
                     "--state", "round=1", "--no-cache")
    for key in ("best_response", "equilibrium_against_it"):
        for number in ("win", "draw", "loss", "value"):
            assert start[key][number] == pytest.approx(whole[key][number], abs=1e-12)


def test_odds_refuse_a_bad_moment_naming_the_fields(capsys):
    assert main(["odds", "falkenstein", "--vs", "uniform", "--state", "rnd=2"]) == 2
    assert "allowed" in capsys.readouterr().err


def test_the_stage_game_says_when_a_side_cannot_change_the_odds():
    nan = float("nan")
    assert indifferent([[1, 1], [1, 1]]) == {"a": True, "b": True}
    # A's rows differ, B's columns do not: only B is indifferent
    assert indifferent([[1, 1], [0, 0]]) == {"a": False, "b": True}
    # an illegal row (NaN) is left out; matching pennies matters to both
    assert indifferent([[0.5, 0.5], [nan, nan]]) == {"a": True, "b": True}
    assert indifferent([[1, -1], [-1, 1]]) == {"a": False, "b": False}


def test_a_decided_duel_says_nothing_matters_instead_of_a_uniform_mix(capsys):
    # one level of Fencing apart wins every time (see the README's table)
    argv = ["solve", "falkenstein", "--a", "fencing=GR", "--b", "fencing=AV"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "nothing either of you chooses here changes the odds" in out
    assert "two Attacks 17%" not in out.split("Then,")[0]
    report = run_json(capsys, *argv)
    assert report["indifferent"] == {"a": True, "b": True}
    assert report["mix_a"]["AA"] == pytest.approx(1 / 6)  # the mix itself is unchanged


def test_equally_good_plays_are_said_to_be_so(capsys):
    """Against the equilibrium every reply is worth the duel's value: the best play and
    the safe play are equally good, and the answer says so."""
    assert main(["odds", "falkenstein", *SHEETS, "--vs", "equilibrium", "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert "both plays are equally good against it" in out


def _toml(path: str) -> dict:
    import tomllib
    from pathlib import Path
    return tomllib.loads((Path(__file__).parents[1] / path).read_text(encoding="utf-8"))


@pytest.mark.parametrize("system", ["blooded", "falkenstein", "pathfinder", "uchronia"])
def test_systems_lists_each_personality_and_reference_sheet_from_the_data(capsys, system):
    assert main(["systems"]) == 0
    out = capsys.readouterr().out
    for name, temperament in _toml(f"agents/personalities/{system}.toml")["temperament"].items():
        assert f"  {name:<12} {temperament['description']}" in out
    for name, fields in _toml(f"envs/rulesets/{system}.toml").get("sheets", {}).items():
        line = next(line for line in out.splitlines() if line.startswith(f"  {name:<12} ")
                    and (not fields or "=" in line))
        for key, value in fields.items():
            shown = str(value).lower() if isinstance(value, bool) else str(value)
            assert f"{key}={shown}" in line, (name, key, line)
    assert "options (-o KEY=VALUE)" not in out  # those are for `duel systems SYSTEM`


def test_systems_of_one_shows_it_in_full(capsys):
    assert main(["systems", "pathfinder"]) == 0
    out = capsys.readouterr().out
    assert "pathfinder: options (-o KEY=VALUE)" in out and "reaction_refresh" in out
    assert "perception_dc" in out and "bully" in out and "fighter" in out
    assert "falkenstein" not in out and "blooded" not in out
    document = run_json(capsys, "systems", "pathfinder")
    assert document["name"] == "pathfinder"
    assert document["reference_sheet_fields"]["fighter"]["ac"] == 18
    assert {p["name"] for p in document["personalities"]} == set(
        _toml("agents/personalities/pathfinder.toml")["temperament"])
    assert main(["systems", "pathfindr"]) == 2
    assert "unknown system 'pathfindr'; allowed: blooded, falkenstein, pathfinder" in \
        capsys.readouterr().err


def test_every_header_shows_every_field_of_both_sheets(capsys):
    assert main(["odds", "pathfinder", "--a", "fighter", "--b", "rogue,hp=12",
                 "-o", "victory=first_blood", "--vs", "uniform", "--limit", "0"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    fighter = _toml("envs/rulesets/pathfinder.toml")["sheets"]["fighter"]
    mine, theirs = head.split("against B (")
    for key, value in fighter.items():
        if value is not False:
            assert (f"{key}={value}" if value is not True else key) in mine, key
    assert "hp=12" in theirs and "ac=18" in theirs and "sneak=1d6" in theirs


@pytest.mark.parametrize("fencing, rounds, equal", [("GR", 2, True), ("GR", 1, False)])
def test_a_situation_where_every_choice_is_worth_the_same_says_so(capsys, fencing, rounds,
                                                                   equal):
    """Against a uniform B, the first situation's choices are all worth the same exactly
    when the plain recursion finds them equal (a round to spare makes the better fencer
    sure to win whatever he opens with; one round does not); the answer then says so."""
    sheets = ["--me", f"fencing={fencing}", "--them", "fencing=AV", "-o",
              f"max_rounds={rounds}"]
    game = envs.make("falkenstein", a=f"fencing={fencing}", b="fencing=AV",
                     max_rounds=rounds)
    start = game.initial_outcomes()[0][1]
    legal_b = np.flatnonzero(game.legal_mask(start, "b"))
    worths = [sum(p * _best_against_uniform(game, after)[0] / len(legal_b)
                  for j in legal_b for p, after in game.outcomes(start, int(i), int(j)))
              for i in np.flatnonzero(game.legal_mask(start, "a"))]
    assert (max(worths) - min(worths) <= 1e-9) == equal
    report = run_json(capsys, "odds", "falkenstein", *sheets, "--vs", "uniform", "--no-cache")
    first = report["plan"][0]
    assert first["reach"] == pytest.approx(1.0) and first["all_equal"] == equal
    assert main(["odds", "falkenstein", *sheets, "--vs", "uniform", "--no-cache"]) == 0
    said = ("any choice (two Attacks, Attack+Defense, Attack+Rest, two Defenses, "
            "Defense+Rest, two Rests): all are equally good against it")
    assert (said in capsys.readouterr().out) == equal


def test_json_text_is_the_document_one_entry_a_line_to_two_levels():
    document = {"plan": [{"reach": 0.5, "play": {"AA": 1.0}}, {"reach": np.float64(0.25)}],
                "best": {"win": np.float32(0.5), "endings": {"draw": 1}}, "empty": {},
                "none": [], "word": "é", "numbers": np.arange(3), "pair": (1, 2)}
    text = json_text(document)
    assert json.loads(text) == json.loads(json.dumps(document, default=_plain))
    assert text.splitlines() == [
        "{", '  "plan": [', '    {"reach": 0.5, "play": {"AA": 1.0}},',
        '    {"reach": 0.25}', "  ],", '  "best": {', '    "win": 0.5,',
        '    "endings": {"draw": 1}', "  },", '  "empty": {},', '  "none": [],',
        '  "word": "\\u00e9",', '  "numbers": [0, 1, 2],', '  "pair": [', "    1,", "    2",
        "  ]", "}"]


def _plain(value):
    return value.tolist() if hasattr(value, "tolist") else value.item()
