"""Opponent profiles: save, load and validate; clear errors; another game warns."""

from __future__ import annotations

import copy
import json
import warnings

import numpy as np
import pytest

import envs
from agents import (
    SCHEMA,
    Profile,
    ProfileWarning,
    build_profile,
    load_profile,
    personality,
    save_profile,
    validate_profile,
)
from agents.metrics import profile_metrics
from solver import InputError, evaluate, solve_game
from solver.markov.graph import build_graph
from tests.toy_games import PenniesDuel


@pytest.fixture(scope="module")
def game():
    return envs.make("falkenstein", a={"fencing": "AV"}, b={"fencing": "GD"}, max_rounds=2)


@pytest.fixture(scope="module")
def baron(game):
    return personality(game, "cautious", 0.5, "b")


@pytest.fixture(scope="module")
def document(game, baron):
    return build_profile(game, baron.policy, "b",
                         personality={"name": "cautious", "strength": 0.5},
                         metrics=profile_metrics(game, baron.policy, "b"), name="baron")


@pytest.fixture
def saved(tmp_path, document):
    return save_profile(tmp_path / "baron.json", document)


def _write(tmp_path, document, name="edited.json"):
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


def test_round_trip_keeps_every_probability(game, baron, document, saved):
    assert validate_profile(saved)["schema"] == SCHEMA
    loaded = load_profile(saved)
    assert (loaded.side, loaded.system, loaded.name) == ("b", "falkenstein", "baron")
    assert loaded.personality == {"name": "cautious", "strength": 0.5}
    assert loaded.document["policy"]["table"] == document["policy"]["table"]
    in_memory = Profile(document)
    graph = build_graph(game)
    for s in np.flatnonzero(~graph.terminal):
        observation = game.observe(graph.states[s], "b")
        mask = graph.mask_b[s]
        assert np.array_equal(loaded.probabilities(observation, mask),
                              in_memory.probabilities(observation, mask))
        assert loaded.probabilities(observation, mask) == pytest.approx(
            baron.policy.probabilities(observation, mask), abs=1e-15)
    assert not list(saved.parent.glob(".*.tmp"))  # the atomic write cleaned up


def test_a_loaded_profile_plays_in_the_solver_and_the_environment(game, baron, saved):
    loaded = load_profile(saved)
    equilibrium = solve_game(game).policy_for("a")
    assert evaluate(game, equilibrium, loaded).value == pytest.approx(
        evaluate(game, equilibrium, baron.policy).value, abs=1e-12)
    env = envs.single_env(game, opponent=loaded, player="a")
    observation, info = env.reset(seed=1)
    assert observation is not None


def test_metrics_say_how_exploitable_and_how_to_exploit(document):
    metrics = document["metrics"]
    assert metrics["exact"]
    assert metrics["exploitability"] == pytest.approx(
        metrics["game_value"] - metrics["value_against_best_response"])
    assert metrics["exploitability"] > 0
    outcome = metrics["against_equilibrium"]
    assert outcome["win"] + outcome["draw"] + outcome["loss"] == pytest.approx(1)
    overall = metrics["situations"][0]
    assert overall["name"] == "overall" and overall["reach"] == pytest.approx(1)
    assert sum(overall["frequencies"].values()) == pytest.approx(1)
    assert metrics["exploit"] and "answer" in metrics["exploit"][0]["text"]


def test_network_profiles_embed_the_network(tmp_path, game):
    from agents.policies import NetworkPolicy

    network = NetworkPolicy.for_game(game, hidden=(8,))
    document = build_profile(game, network, "a", tabular=False)
    path = save_profile(tmp_path / "net.json", document)
    loaded = load_profile(path)
    assert loaded.kind == "network"
    graph = build_graph(game)
    live = np.flatnonzero(~graph.terminal)
    observations = np.asarray([game.observe(graph.states[s], "a") for s in live])
    assert np.array_equal(loaded.batch_probabilities(observations, graph.mask_a[live]),
                          network.batch_probabilities(observations, graph.mask_a[live]))


def test_not_json(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{ not json")
    with pytest.raises(InputError, match="not JSON"):
        validate_profile(path)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_profile(tmp_path / "nobody.json")


def test_wrong_schema_version(tmp_path, document):
    edited = dict(document, schema="duel-profile/2")
    with pytest.raises(InputError, match="unsupported profile schema 'duel-profile/2'"):
        validate_profile(_write(tmp_path, edited))


@pytest.mark.parametrize("field", ["system", "side", "policy", "metrics", "ruleset_hash"])
def test_missing_field(tmp_path, document, field):
    edited = {k: v for k, v in document.items() if k != field}
    with pytest.raises(InputError, match=f"missing field '{field}'"):
        validate_profile(_write(tmp_path, edited))


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(options=[1, 2]), "field 'options' must be dict"),
    (lambda d: d.update(side="c"), "side must be 'a' or 'b'"),
    (lambda d: d.update(extra=1), "unknown field 'extra'"),
    (lambda d: d["personality"].update(strength=2), "strength must be a number in"),
    (lambda d: d["policy"].update(kind="oracle"), "unknown policy kind 'oracle'"),
])
def test_wrong_types_and_values(tmp_path, document, edit, message):
    edited = copy.deepcopy(document)
    edit(edited)
    with pytest.raises(InputError, match=message):
        validate_profile(_write(tmp_path, edited))


def test_bad_mixes_are_named(tmp_path, document):
    key = next(iter(document["policy"]["table"]))
    for mix, message in (({"AA": 0.5, "DD": 0.4}, "sum to 0.9"),
                         ({"ZZ": 1.0}, "unknown action 'ZZ'"),
                         ({"AA": "half", "DD": 0.5}, "probability of AA")):
        edited = copy.deepcopy(document)
        edited["policy"]["table"][key] = mix
        with pytest.raises(InputError, match=message):
            validate_profile(_write(tmp_path, edited))
    edited = copy.deepcopy(document)
    edited["policy"]["table"]["round=1,exchange=x"] = {"AA": 1.0}
    with pytest.raises(InputError, match="bad observation key"):
        validate_profile(_write(tmp_path, edited))


def test_another_system_is_an_error(saved):
    with pytest.raises(InputError, match="is for falkenstein, not toy_pennies"):
        load_profile(saved).check_game(PenniesDuel())


def test_another_ruleset_or_side_is_a_warning(saved, game):
    profile = load_profile(saved)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        profile.check_game(game, "b")  # its own game: silent
    other_rules = envs.make("falkenstein", a={"fencing": "AV"}, b={"fencing": "GD"},
                            max_rounds=2, ruleset={"rests_required": {"GD": 1}})
    with pytest.warns(ProfileWarning, match="another ruleset"):
        profile.check_game(other_rules)
    with pytest.warns(ProfileWarning, match="side b"):
        profile.check_game(game, "a")


def test_another_package_version_is_a_warning(tmp_path, document, game):
    path = _write(tmp_path, dict(document, package_version="0.0.1"))
    with pytest.warns(ProfileWarning, match="package version 0.0.1"):
        load_profile(path).check_game(game)


def test_saving_refuses_a_malformed_document(tmp_path, document):
    with pytest.raises(InputError):
        save_profile(tmp_path / "bad.json", dict(document, side="both"))
    assert not (tmp_path / "bad.json").exists()


def test_nan_anywhere_in_a_profile_is_an_input_error(tmp_path, document):
    text = json.dumps(dict(document, metrics={"exploitability": "__NaN__"}))
    path = tmp_path / "nan.json"
    path.write_text(text.replace('"__NaN__"', "NaN"))
    with pytest.raises(InputError, match="NaN is not a number JSON allows"):
        load_profile(path)


@pytest.mark.parametrize("depth, message", [
    (100_000, "nested too deeply"),         # json itself would raise RecursionError
    (40, "nested 41 levels deep; allowed: at most 32"),  # the document is 1
])
def test_deeply_nested_profiles_are_input_errors(tmp_path, document, depth, message):
    path = tmp_path / "deep.json"
    nested = "[" * depth + "]" * depth
    text = json.dumps(dict(document, options="__DEEP__")).replace('"__DEEP__"', nested)
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        load_profile(path)


def test_a_network_profile_with_a_nan_weight_is_an_input_error(tmp_path, game):
    import base64

    from agents.policies import NetworkPolicy

    document = build_profile(game, NetworkPolicy.for_game(game, hidden=(4,)), "a",
                             tabular=False)
    weights = document["policy"]["network"]["weights"]
    key = next(iter(weights))
    raw = bytearray(base64.b64decode(weights[key]["data"]))
    raw[0:4] = np.array([np.nan], dtype="<f4").tobytes()
    weights[key]["data"] = base64.b64encode(bytes(raw)).decode("ascii")
    with pytest.raises(InputError, match=f"network weight {key} holds a value that is not finite"):
        load_profile(_write(tmp_path, document))
    document["policy"]["network"]["hidden"] = ["four"]
    with pytest.raises(InputError, match="malformed network spec"):
        load_profile(_write(tmp_path, document))
