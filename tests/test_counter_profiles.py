"""Profiles of counter games too large for the state graph: ``duel train`` computes them
exactly over the counters, with their metrics and their table of every decision, and
writes them compressed when asked. On a duel small enough for both routes the counters'
answers agree with the state graph's (which have their own hand-derived tests)."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

import envs
import solver.solve as facade
from agents import load_profile
from agents.cli import main
from agents.metrics import profile_metrics
from agents.policies import tabulate
from agents.profiles import file_stem
from agents.temperaments import temperament
from solver.errors import InputError
from solver.policy import UniformPolicy

AGREE = 1e-9
SMALL = ["--a", "fighter,hp=3", "--b", "rogue,hp=3"]


@pytest.fixture(scope="module")
def game():
    return envs.make("pathfinder", a=SMALL[1], b=SMALL[3])


def _policy(game, which: str):
    return UniformPolicy() if which == "uniform" else temperament("pathfinder", which).policy(game)


def _assert_close(found, expected, where="metrics"):
    """The same structure, numbers within AGREE, everything else equal."""
    if isinstance(expected, dict):
        assert set(found) == set(expected), where
        for key in expected:
            _assert_close(found[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert len(found) == len(expected), where
        for k, (mine, theirs) in enumerate(zip(found, expected, strict=True)):
            _assert_close(mine, theirs, f"{where}[{k}]")
    elif isinstance(expected, float):
        assert found == pytest.approx(expected, abs=AGREE), where
    else:
        assert found == expected, where


@pytest.mark.parametrize("side", ["a", "b"])
@pytest.mark.parametrize("which", ["uniform", "bully"])
def test_metrics_over_counters_agree_with_the_state_graph(game, side, which):
    policy = _policy(game, which)
    with facade.forcing("states"):
        on_graph = profile_metrics(game, policy, side)
    assert facade.backend(game) == "counters"
    _assert_close(profile_metrics(game, policy, side), on_graph)


def test_a_table_over_counters_holds_the_state_graphs_mix_at_every_decision(game):
    policy = _policy(game, "trickster")
    with facade.forcing("states"):
        on_graph = tabulate(game, policy, "b")
    on_counters = tabulate(game, policy, "b")
    for observation, mix in on_graph.items():
        if observation in on_counters:
            assert np.allclose(on_counters[observation], mix, atol=AGREE, rtol=0)
        else:   # left out where the side has one move (a missing observation plays it)
            assert np.count_nonzero(mix) == 1 and mix.max() == 1.0
    # every pair of hit points is tabulated, even those this duel never reaches (a hit
    # knocks out at 3 hit points): more observations, never other mixes
    assert len(on_counters) > len([m for m in on_graph.values() if np.count_nonzero(m) > 1])


def _train(capsys, path, *extra) -> dict:
    argv = ["train", "pathfinder", *SMALL, "--out", str(path), "--json", *extra]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_duel_train_over_the_counters_writes_the_same_profile_compressed(capsys, tmp_path):
    with facade.forcing("states"):
        plain = _train(capsys, tmp_path / "graph.json")
    path = tmp_path / "knockout.json.gz"
    compressed = _train(capsys, path)
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    _assert_close(compressed["metrics"], plain["metrics"])
    profile = load_profile(path)
    assert profile.name == "knockout" == file_stem(path)
    assert profile.metrics["exploitability"] == pytest.approx(0.0, abs=1e-9)
    # the same table as on the state graph, but for the observations with one move
    again = json.loads((tmp_path / "graph.json").read_text())["policy"]["table"]
    table = json.loads(gzip.decompress(path.read_bytes()))["policy"]["table"]
    for key, mix in again.items():
        if len(mix) > 1:
            assert table[key] == pytest.approx(mix, abs=AGREE)


def test_duel_odds_takes_a_compressed_profile(capsys, tmp_path):
    path = tmp_path / "npc.json.gz"
    _train(capsys, path)
    assert main(["odds", "pathfinder", *SMALL, "--vs", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # against the equilibrium nothing does better than the duel's value
    assert report["best_response"]["value"] == pytest.approx(
        report["equilibrium_against_it"]["value"], abs=1e-9)


def test_a_damaged_compressed_profile_is_one_clear_error(tmp_path):
    path = tmp_path / "broken.json.gz"
    path.write_bytes(gzip.compress(b'{"schema": "duel-profile/1"')[:-6])
    with pytest.raises(InputError, match="broken.json.gz"):
        load_profile(path)


def test_profile_show_groups_pathfinders_actions_by_part(capsys, tmp_path):
    # each part's columns add up the actions that have that value (read from the JSON
    # metrics), and every row's shares of one part cover all its decisions
    path = tmp_path / "npc.json"
    main(["train", "pathfinder", *SMALL, "--personality", "trickster", "--out", str(path)])
    capsys.readouterr()
    assert main(["profile", "show", str(path)]) == 0
    text = capsys.readouterr().out
    situations = json.loads(path.read_text())["metrics"]["situations"]
    overall = next(row for row in situations if row["name"] == "overall")["frequencies"]
    table = text.split("initiative skill:\n")[1].split("\n\n")[0].splitlines()
    header, row = table[0].split(), next(line.split() for line in table if
                                        line.startswith("overall"))
    for skill in ("deception", "intimidation", "perception"):
        expected = sum(p for action, p in overall.items() if action.startswith(skill + "-"))
        shown = row[header.index(skill)]
        assert shown == f"{100 * expected:.0f}%"
    assert "order:" in text and "plan:" in text and "wait" not in text.split("Tendencies")[1]


def test_a_duel_with_too_many_decisions_for_a_table_is_refused_before_solving(
        capsys, monkeypatch, tmp_path):
    import solver.counters.play as counter_play
    monkeypatch.setattr(counter_play, "MAX_TABLE_DECISIONS", 100)
    path = tmp_path / "npc.json"
    assert main(["train", "pathfinder", *SMALL, "--out", str(path)]) == 2
    error = capsys.readouterr().err
    assert "too many decisions for a profile's table" in error and "3 and 3" in error
    assert "`duel odds`" in error and not path.exists()


def test_a_share_of_every_decision_summed_in_another_order_is_still_a_probability(
        capsys, tmp_path):
    # Blooded's first situation covers every decision; its visits summed over the
    # situation's members came to 1.0000000000000002 of the whole, and the profile
    # was refused by its own check
    out = tmp_path / "reckless.json"
    main(["train", "blooded", "--a", "duellist", "--b", "novice", "-o", "max_beats=3",
          "--personality", "reckless", "--out", str(out)])
    situations = json.loads(out.read_text())["metrics"]["situations"]
    assert situations[0]["reach"] == 1.0
    assert all(0 <= row["reach"] <= 1 for row in situations)
