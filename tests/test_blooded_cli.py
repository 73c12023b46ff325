"""``duel solve blooded``: the strike bid and the opening wager games, in words."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from agents.cli import main

SHEETS = ["--a", "prowess=3,sword=3", "--b", "prowess=2,sword=4", "-o", "max_beats=3"]


def test_solve_shows_the_bid_and_the_opening_wagers_in_words(capsys):
    assert main(["solve", "blooded", *SHEETS]) == 0
    out = capsys.readouterr().out
    for text in ("strike bid", "you:  bid", "Then, where both choose at once", "you:  wager",
                 "how many to wager", "you win", "worth", "How duels end"):
        assert text in out, text
    for jargon in ("Stage game", "continuation", "maximum-entropy", "Value of the duel"):
        assert jargon.lower() not in out.lower()
    assert main(["solve", "blooded", *SHEETS, "--detail"]) == 0
    detail = capsys.readouterr().out
    assert "Stage game now" in detail and "Stage game then" in detail
    assert "Value of the duel to A" in detail


def test_the_opening_wager_games_follow_the_bids(capsys):
    assert main(["solve", "blooded", *SHEETS, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    bids = defaultdict(float)
    for moment in report["next"]:
        # nothing ends a duel before its first risk, where both wager at once
        assert (moment["state"]["beat"], moment["state"]["phase"]) == (1, 2)
        assert moment["words"]["3"] == "wager 3"
        bids[moment["state"]["bid_a"], moment["state"]["bid_b"]] += moment["chance"]
        names = list(moment["mix_a"])
        value = sum(moment["mix_a"][a] * moment["mix_b"][b] * moment["stage_matrix"][i][j]
                    for i, a in enumerate(names) for j, b in enumerate(names)
                    if moment["stage_matrix"][i][j] is not None)
        assert value == pytest.approx(moment["value_here"], abs=1e-9)
    assert report["words"]["3"] == "bid 3"
    # the bids are independent: each pair of bids leads to its risks (whoever chooses
    # the role) with the product of the two opening mixes
    expected = {(int(i), int(j)): p * q for i, p in report["mix_a"].items() if i.isdigit()
                for j, q in report["mix_b"].items() if j.isdigit() and p * q > 0}
    assert sum(bids.values()) == pytest.approx(1.0)
    assert bids.keys() == expected.keys()
    for pair, chance in expected.items():
        assert bids[pair] == pytest.approx(chance, abs=1e-12)


def test_moments_past_the_json_limit_are_counted_not_lost(capsys, monkeypatch):
    import agents.cli.solve as solve

    assert main(["solve", "blooded", *SHEETS, "--json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    count, chance = len(whole["next"]), sum(m["chance"] for m in whole["next"])
    assert count > 3 and whole["next_others"] == {"moments": 0, "chance": 0.0}
    monkeypatch.setattr(solve, "NEXT_IN_JSON", 2)
    assert main(["solve", "blooded", *SHEETS, "--json"]) == 0
    capped = json.loads(capsys.readouterr().out)
    assert [m["state"] for m in capped["next"]] == [m["state"] for m in whole["next"][:2]]
    assert capped["next_others"]["moments"] == count - 2
    assert (sum(m["chance"] for m in capped["next"]) + capped["next_others"]["chance"]
            == pytest.approx(chance, abs=1e-12))


def test_odds_say_each_best_play_in_the_duels_words(capsys):
    # the opening situation is the strike bid, then a risk: its plays read "bid N" and
    # "wager N", never a bare number after "play"
    argv = ["odds", "blooded", "--me", "prowess=3,sword=3", "--them", "prowess=2,sword=4",
            "-o", "max_beats=3", "--vs", "reckless:0.5", "--limit", "3"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    advice = [line for line in out.splitlines() if line.startswith("- ")]
    assert advice and "Strike bid" in advice[0] and ": bid " in advice[0]
    assert any(": wager " in line for line in advice[1:])
    assert not any(": play " in line for line in advice)
