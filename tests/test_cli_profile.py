"""``duel train`` and ``duel profile``: end to end on a tiny duel, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import envs
from agents import load_profile, make_profile, save_profile, temperament, validate_profile
from agents.cli import main
from agents.personalities import CALIBRATION_TOLERANCE
from solver import MixPolicy, best_response, solve_game

#: the allowed range of --minutes, as the error names it
MINUTES = "minutes must be a finite number > 0"
TINY = ["falkenstein", "-o", "max_rounds=1", "--a", "fencing=AV", "--b", "fencing=GD"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One short training run with a personality, shared by the tests that read it. The
    game has public information, so only --network trains (a table would be computed
    exactly)."""
    out = tmp_path_factory.mktemp("train") / "baron.json"
    code = main(["train", *TINY, "--personality", "cautious", "--network",
                 "--strength", "0.5", "--iterations", "30", "--seed", "3", "--out", str(out)])
    assert code == 0
    return out


def test_train_writes_a_valid_profile_with_its_curve(trained):
    document = validate_profile(trained)
    assert document["side"] == "b"
    assert document["personality"] == {"name": "cautious", "strength": 0.5}
    training = document["training"]
    assert training["steps"] == 30 and training["seed"] == 3
    assert training["stored"] == document["policy"]["source"] == "trained"
    assert set(training["candidates"]) == {"trained", "exact"}
    assert document["metrics"]["exploitability"] > 0
    for name in (training["curve_csv"], training["curve_png"], training["checkpoint"]):
        assert (trained.parent / name).exists()
    assert load_profile(trained).side == "b"


def test_resume_continues_from_the_checkpoint(trained, capsys):
    code = main(["train", *TINY, "--personality", "cautious", "--network",
                 "--strength", "0.5", "--iterations", "45", "--seed", "3", "--resume",
                 "--out", str(trained), "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["training"]["steps"] == 45


def test_strength_one_is_the_temperament_without_training(tmp_path, capsys):
    out = tmp_path / "pure.json"
    code = main(["train", *TINY, "--personality", "trickster", "--strength", "1",
                 "--out", str(out), "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["stored"] == "exact" and "steps" not in report["training"]
    assert not (tmp_path / "pure.json.ckpt").exists()


def test_train_without_personality_stores_the_equilibrium(tmp_path, capsys):
    out = tmp_path / "plain.json"
    assert main(["train", *TINY, "--iterations", "10", "--out", str(out)]) == 0
    assert "Wrote" in capsys.readouterr().out
    metrics = validate_profile(out)["metrics"]
    assert metrics["exploitability"] == pytest.approx(0, abs=1e-9)


def test_a_sure_draw_summed_past_one_is_still_a_profile(tmp_path, capsys):
    # two average fencers over one round: neither can touch twice, so every duel is a
    # draw; its chances summed to 1 + 2^-52, which the profile's own check refused
    out = tmp_path / "even.json"
    assert main(["train", "falkenstein", "-o", "max_rounds=1", "--out", str(out)]) == 0
    capsys.readouterr()
    against = validate_profile(out)["metrics"]["against_equilibrium"]
    assert (against["win"], against["draw"], against["loss"]) == (0.0, 1.0, 0.0)


def test_profile_show_and_validate(trained, capsys):
    assert main(["profile", "show", str(trained)]) == 0
    shown = capsys.readouterr().out
    for part in ("Personality: cautious, strength 0.5", "Tendencies by situation",
                 "exploitability (value lost)", "How to exploit it"):
        assert part in shown
    assert main(["profile", "show", str(trained), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert "table" not in document["policy"] and document["metrics"]["exact"]
    assert main(["profile", "validate", str(trained)]) == 0
    assert "valid duel-profile/1 profile" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["train", *TINY, "--personality", "baron", "--out", "x.json"], "unknown personality"),
    (["train", "chess960", "--out", "x.json"], "unknown system"),
    (["train", *TINY, "--personality", "cautious", "--strength", "1.5", "--out", "x.json"],
     "strength must be a number in [0, 1]"),
    (["train", *TINY, "--personality", "cautious", "--strength", "high", "--out", "x.json"],
     "strength must be a number"),
    (["train", *TINY, "--minutes", "-1", "--out", "x.json"], MINUTES),
    (["train", *TINY, "--minutes", "0", "--out", "x.json"], MINUTES),
    (["train", *TINY, "--minutes", "nan", "--out", "x.json"], MINUTES),
    (["train", *TINY, "--minutes", "inf", "--out", "x.json"], MINUTES),
    (["train", *TINY, "--strength", "0.5", "--out", "x.json"], "--strength needs --personality"),
])
def test_bad_train_input_exits_2(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert not (tmp_path / "x.json").exists()


def test_train_on_a_public_game_computes_the_exact_personality(tmp_path, capsys):
    """No training whose result is discarded: the exact personality, and it says so."""
    out = tmp_path / "exact.json"
    code = main(["train", *TINY, "--personality", "cautious", "--strength",
                 "0.5", "--minutes", "5", "--out", str(out)])
    assert code == 0
    said = capsys.readouterr().out
    assert "public information" in said and "nothing was trained" in said
    assert "--minutes ignored" in said
    document = validate_profile(out)
    assert document["policy"]["source"] == "exact" and "steps" not in document["training"]
    assert not (tmp_path / "exact.json.ckpt").exists()
    # it is the personality: half the temperament's exploitability, measured afresh
    game = envs.make("falkenstein", max_rounds=1, a={"fencing": "AV"}, b={"fencing": "GD"})
    own = -solve_game(game).value
    full = own + best_response(game, temperament("falkenstein", "cautious").policy(game),
                               "a").value
    lost = own + best_response(game, load_profile(out), "a").value
    assert document["metrics"]["exploitability"] == pytest.approx(lost, abs=1e-9)
    assert abs(lost - 0.5 * full) <= CALIBRATION_TOLERANCE * full + 1e-9


@pytest.fixture(scope="module")
def shown(tmp_path_factory):
    """A personality's profile on a small public duel."""
    game = envs.make("falkenstein", max_rounds=2, a={"fencing": "GD"}, b={"fencing": "GD"})
    profile = make_profile(game, "a", personality="aggressive", strength=0.5)
    path = save_profile(tmp_path_factory.mktemp("show") / "brute.json", profile.document)
    return path, profile.document


@pytest.mark.parametrize("hidden", [False, True])
def test_profile_show_has_no_python_reprs(shown, tmp_path, capsys, hidden):
    path = shown[0]
    if hidden:  # options holding a weights table (the prior) and booleans
        game = envs.make("falkenstein", max_rounds=1, hidden_levels=True,
                         prior_a={"PR": 0.25, "AV": 0.75})
        mix = MixPolicy({"AA": 1, "DR": 1}, game.action_names)
        path = save_profile(tmp_path / "mix.json", make_profile(game, "a", policy=mix).document)
    assert main(["profile", "show", str(path)]) == 0
    text = capsys.readouterr().out
    for repr_part in ("{", "}", "['", "None", "True", "False", "np."):
        assert repr_part not in text, repr_part
    if hidden:
        assert "prior_a=PR:0.25,AV:0.75" in text and "hidden_levels=true" in text


def test_profile_show_weights_situations_one_way_and_drops_the_obvious(shown, capsys):
    metrics = shown[1]["metrics"]
    tendencies = {row["name"]: row for row in metrics["situations"]}
    # the same play, the same weights: the exploit section quotes the tendency table
    for row in metrics["exploit"]:
        assert row["its_frequency"] == pytest.approx(
            tendencies[row["name"]]["frequencies"][row["most_frequent"]], abs=1e-12)
    assert main(["profile", "show", str(shown[0])]) == 0
    text = capsys.readouterr().out
    listed = {line.split()[0] for line in text.splitlines()
              if line.split() and line.split()[0] in tendencies}
    obvious = {name for name, row in tendencies.items()
               if row["reach"] > 0.9 and name != "overall"}
    assert obvious, "this duel has situation classes that hold almost always"
    assert listed and not listed & obvious
    assert "against the equilibrium" in text.split("How to exploit it")[1].splitlines()[0]


def test_a_profile_that_is_not_json_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{ this is not json")
    for action in ("show", "validate"):
        assert main(["profile", action, str(bad)]) == 2
        err = capsys.readouterr().err
        assert "is not JSON" in err and err.count("\n") == 1


def test_a_profile_nested_too_deeply_exits_2(tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    for action in ("show", "validate"):
        assert main(["profile", action, str(deep)]) == 2
        err = capsys.readouterr().err
        assert "nested too deeply" in err and err.count("\n") == 1


def test_bad_input_through_the_real_command(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2")
    done = subprocess.run([sys.executable, "-m", "agents.cli", "profile", "validate", str(bad)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "is not JSON" in done.stderr


def test_the_same_flags_mean_the_same_duel_in_train_and_odds(tmp_path):
    # --me is the user in every command; the NPC trained is --them, on the other side.
    # Asking `duel odds` about it with the very same flags must raise no warning.
    import warnings
    out = tmp_path / "npc.json"
    flags = ["falkenstein", "--me", "fencing=GD", "--them", "fencing=GR", "-o",
             "max_rounds=1"]
    assert main(["train", *flags, "--personality", "cautious", "--out", str(out)]) == 0
    document = json.loads(out.read_text())
    assert document["side"] == "b" and document["options"]["b"]["fencing"] == "GR"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["odds", *flags, "--vs", str(out)]) == 0
