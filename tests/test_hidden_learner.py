"""The hidden-level learner (``agents.hidden_learner``), its estimated exploitability and its
profiles. Expected numbers are derived by hand in the comments (the tiny bluff of
``hidden_games``) or by the exact solver ``solver.hidden.sequence`` (tested on its own against
brute force in ``test_hidden.py``), never read from the code under test."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hidden_games import STRONG, WEAK, TinyBluff

import envs
from agents import build_profile, load_profile, save_profile
from agents.cli import main
from agents.hidden_learner import (
    HiddenConfig,
    estimate_exploitability,
    exact_measure,
    train_hidden,
)
from agents.hidden_metrics import hidden_metrics
from solver.errors import InputError
from solver.game import renormalise
from solver.hidden.sequence import best_response_value, build_tree, policy_plan, solve_hidden
from solver.policy import MixPolicy, UniformPolicy

TARGET = ["-o", "hidden_levels=true", "-o", "max_rounds=1", "-o", "prior_a=GD:0.5,GR:0.5",
          "-o", "prior_b=GD:1"]
MASK = np.ones(2, dtype=bool)


def tiny_exploitability(strong_x: float, weak_x: float, left: float) -> float:
    """NashConv / 2 of the tiny bluff, by hand (payoffs in ``hidden_games``): against B's
    LEFT r, Strong's best pays max(2r + (1 - r), 0) = 1 + r, Weak's max(1 - 2r, 2r - 1);
    against A (Strong X s, Weak X q) B's LEFT costs him s + 1/2 - q, RIGHT s/2 + q - 1/2,
    and he takes the smaller. The pair's value cancels out of the sum."""
    best_a = 0.5 * (1 + left) + 0.5 * abs(1 - 2 * left)
    best_b = -min(strong_x + 0.5 - weak_x, 0.5 * strong_x + weak_x - 0.5)
    return (best_a + best_b) / 2


def test_the_learner_finds_the_tiny_bluff_by_hand():
    result = train_hidden(TinyBluff(), HiddenConfig(seed=0, iterations=5000, distill_steps=0,
                                                    eval_every=0))
    strong = result.policy_a.probabilities((STRONG, 0), MASK)[0]
    weak = result.policy_a.probabilities((WEAK, 0), MASK)[0]
    left = result.policy_b.probabilities((-1, 0), MASK)[0]
    # the equilibrium by hand: Strong plays X, Weak X 3/4 of the time, B LEFT half the time
    assert strong == pytest.approx(1.0, abs=0.01)
    assert weak == pytest.approx(0.75, abs=0.1)
    assert left == pytest.approx(0.5, abs=0.1)
    gap = tiny_exploitability(strong, weak, left)
    assert gap < 0.03  # the stated bound after 5,000 seeded iterations
    assert result.measurement.exact
    assert result.measurement.exploitability == pytest.approx(gap, abs=1e-9)


def test_training_is_seeded():
    config = {"iterations": 300, "distill_steps": 0, "eval_every": 0}
    first = train_hidden(TinyBluff(), HiddenConfig(seed=4, **config))
    second = train_hidden(TinyBluff(), HiddenConfig(seed=4, **config))
    assert first.policy_a.table.keys() == second.policy_a.table.keys()
    for key, mix in first.policy_a.table.items():
        assert np.array_equal(mix, second.policy_a.table[key])


def test_the_one_round_falkenstein_target_is_reached():
    """The issue's game; the solver says its value is 0.5 (test_hidden.py). A bound that
    holds after 3,000 iterations (the benchmark reaches it in seconds)."""
    game = envs.make("falkenstein", hidden_levels=True, max_rounds=1, prior_a="GD:0.5,GR:0.5",
                     prior_b="GD:1")
    result = train_hidden(game, HiddenConfig(seed=0, iterations=3000, distill_steps=0,
                                             eval_every=1000))
    assert result.measurement.exact
    assert result.measurement.exploitability < 0.01
    rows = [row["exploitability"] for row in result.curve]
    assert [row["step"] for row in result.curve] == [1000, 2000, 3000]
    assert rows[-1] < rows[0]


@pytest.mark.parametrize("a, b", [(UniformPolicy(), UniformPolicy()),
                                  ("mix", UniformPolicy())])
def test_the_estimate_agrees_with_the_exact_measure_within_its_interval(a, b):
    game = TinyBluff()
    if a == "mix":
        a = MixPolicy({"x_or_left": 0.9, "y_or_right": 0.1}, game.action_names)
    exact = exact_measure(game, build_tree(game), a, b)
    estimate = estimate_exploitability(game, a, b, HiddenConfig(
        seed=1, responder_iterations=300, responder_games=4000))
    assert not estimate.exact and estimate.interval > 0
    # a trained responder is never better than the exact best response, so the estimate
    # lies below the exact value up to its sampling interval, and here close to it
    assert estimate.exploitability <= exact.exploitability + estimate.interval
    assert estimate.exploitability >= exact.exploitability - estimate.interval - 0.01


def test_uniform_play_of_the_tiny_bluff_by_hand():
    # uniform: s = q = r = 1/2: best A gets 3/4, best B concedes min(1/2, 1/4) = 1/4
    exact = exact_measure(TinyBluff(), build_tree(TinyBluff()), UniformPolicy(),
                          UniformPolicy())
    assert exact.exploitability == pytest.approx(tiny_exploitability(0.5, 0.5, 0.5))
    assert exact.exploitability == pytest.approx(0.25)


def test_the_estimate_on_the_one_round_falkenstein_duel():
    game = envs.make("falkenstein", hidden_levels=True, max_rounds=1, prior_a="GD:0.5,GR:0.5",
                     prior_b="GD:1")
    exact = exact_measure(game, build_tree(game), UniformPolicy(), UniformPolicy())
    estimate = estimate_exploitability(game, UniformPolicy(), UniformPolicy(), HiddenConfig(
        seed=0, responder_iterations=1000, responder_games=2000))
    assert estimate.exploitability <= exact.exploitability + estimate.interval
    assert estimate.exploitability >= exact.exploitability - estimate.interval - 0.05


def test_profile_round_trip_keeps_every_observation(tmp_path):
    out = tmp_path / "npc.json"
    assert main(["train", "falkenstein", *TARGET, "--iterations", "100", "--seed", "3",
                 "--out", str(out)]) == 0
    profile = load_profile(out)
    game = envs.make("falkenstein", hidden_levels=True, max_rounds=1, prior_a="GD:0.5,GR:0.5",
                     prior_b="GD:1")
    trained = train_hidden(game, HiddenConfig(seed=3, iterations=100, eval_every=0))
    sequences = build_tree(game).players["b"]  # the NPC plays B (--side a is yours)
    assert len(profile.table) == len(sequences.observation)
    for observation, mask in zip(sequences.observation, sequences.mask, strict=True):
        expected = renormalise(trained.policy_b.probabilities(observation, mask), mask)
        assert profile.probabilities(observation, mask) == pytest.approx(expected, abs=1e-12)
    metrics = profile.metrics
    assert metrics["exact"] and "exactly" in metrics["exploitability_method"]
    # the profile's exploitability is what A's exact best response to what it plays gets
    # above the value of the duel (B's side of it)
    tree = build_tree(game)
    best = best_response_value(tree, "a", policy_plan(game, tree, profile, "b"))
    assert metrics["exploitability"] == pytest.approx(best - solve_hidden(game).value,
                                                      abs=1e-9)


def test_profile_show_says_exact_or_estimated_in_words(tmp_path, capsys):
    game = TinyBluff()
    policy = MixPolicy({"x_or_left": 0.5, "y_or_right": 0.5}, game.action_names)
    table = {(-1, 0): np.array([0.5, 0.5])}
    for measure, words in (("exact", "exactly"), ("estimated", "by estimate")):
        config = HiddenConfig(measure=measure, responder_iterations=200, responder_games=500)
        metrics, _ = hidden_metrics(game, policy, "b", opponent=UniformPolicy(), config=config)
        path = save_profile(tmp_path / f"{measure}.json", build_profile(
            game, policy, "b", metrics=metrics, table=table, source="trained"))
        assert main(["profile", "show", str(path)]) == 0
        text = capsys.readouterr().out
        assert f"Exploitability measured {words}" in text
        if measure == "estimated":
            assert "Metrics (estimated" in text and "+-" in text
            assert json.loads(path.read_text())["metrics"]["exact"] is False


@pytest.mark.parametrize("extra, needle", [
    (["--iterations", "-5"], "iterations must be an integer >= 1, got '-5'"),
    (["--iterations", "0"], "iterations must be an integer >= 1"),
    (["--minutes", "0"], "minutes must be a finite number > 0"),
])
def test_bad_training_input_is_one_line_and_exit_2(tmp_path, capsys, extra, needle):
    code = main(["train", "falkenstein", *TARGET, "--out", str(tmp_path / "x.json"), *extra])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1


def test_exact_measure_refuses_a_horizon_it_cannot_take(tmp_path, capsys):
    options = [o if o != "max_rounds=1" else "max_rounds=2" for o in TARGET]
    code = main(["train", "falkenstein", *options, "--exact", "--out", str(tmp_path / "x.json")])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "exact exploitability cannot take this game" in err
    assert "estimated" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("changes, needle", [
    ({"iterations": -1}, "iterations must be an integer >= 1, got -1"),
    ({"measure": "roughly"}, "unknown measure 'roughly'; allowed: auto, exact, estimated"),
    ({"exploration": 0.0}, "exploration must be a number in (0, 1]"),
    ({"iterations": None, "minutes": None}, "give iterations or minutes"),
])
def test_bad_config_names_the_value_and_the_allowed_ones(changes, needle):
    with pytest.raises(InputError) as error:
        train_hidden(TinyBluff(), HiddenConfig(**changes))
    assert needle in str(error.value)


def test_a_table_with_a_fallback_network_round_trips(tmp_path):
    """Beyond one round the profile stores the visited observations and the network for
    the others; both come back as they were."""
    from agents.hidden_learner import LearnedPolicy
    from agents.policies import NetworkPolicy

    game = TinyBluff()
    network = NetworkPolicy.for_game(game, hidden=(4,))
    table = {(STRONG, 0): np.array([0.25, 0.75])}
    learned = LearnedPolicy(table, network)
    path = save_profile(tmp_path / "fallback.json", build_profile(
        game, learned, "a", metrics={"exact": False}, table=table, fallback=network,
        source="trained"))
    profile = load_profile(path)
    assert profile.kind == "tabular" and profile.network is not None
    assert profile.probabilities((STRONG, 0), MASK) == pytest.approx([0.25, 0.75])
    unseen = (WEAK, 0)
    assert profile.probabilities(unseen, MASK) == pytest.approx(
        network.probabilities(unseen, MASK), abs=1e-7)
    assert learned.probabilities(unseen, MASK) == pytest.approx(
        network.probabilities(unseen, MASK), abs=1e-7)


def test_a_resumed_run_ends_where_a_straight_run_ends(tmp_path):
    settings = {"seed": 2, "distill_steps": 0, "eval_every": 100}
    straight = train_hidden(TinyBluff(), HiddenConfig(iterations=400, **settings))
    checkpoint = tmp_path / "run.ckpt"
    train_hidden(TinyBluff(), HiddenConfig(iterations=150, checkpoint=checkpoint, **settings))
    resumed = train_hidden(TinyBluff(), HiddenConfig(iterations=400, checkpoint=checkpoint,
                                                     **settings), resume=True)
    assert resumed.iterations == 400
    assert [row["step"] for row in resumed.curve] == [100, 200, 300, 400]
    for mine, theirs in ((resumed.policy_a, straight.policy_a),
                         (resumed.policy_b, straight.policy_b)):
        assert mine.table.keys() == theirs.table.keys()
        for key, mix in theirs.table.items():
            assert np.array_equal(mine.table[key], mix)


def test_a_checkpoint_of_other_settings_is_refused(tmp_path):
    checkpoint = tmp_path / "run.ckpt"
    train_hidden(TinyBluff(), HiddenConfig(iterations=10, checkpoint=checkpoint,
                                           distill_steps=0))
    with pytest.raises(InputError, match="was made for other settings"):
        train_hidden(TinyBluff(), HiddenConfig(iterations=20, checkpoint=checkpoint, seed=9,
                                               distill_steps=0), resume=True)
    checkpoint.write_text('{"format": "duel-hidden-checkpoint", "version": 7}')
    with pytest.raises(InputError, match="unsupported checkpoint version 7; allowed: 1"):
        train_hidden(TinyBluff(), HiddenConfig(iterations=20, checkpoint=checkpoint,
                                               distill_steps=0), resume=True)


def test_sampled_decisions_learn_too():
    """``branch_depth=0``: the traverser's one decision is sampled with importance weights
    (outcome sampling, the scheme of every decision past the third in a long duel); slower
    than branching, it still halves uniform play's 1/4 (by hand, above) in 5,000 seeded
    iterations."""
    result = train_hidden(TinyBluff(), HiddenConfig(seed=0, iterations=5000, branch_depth=0,
                                                    distill_steps=0, eval_every=0))
    strong = result.policy_a.probabilities((STRONG, 0), MASK)[0]
    weak = result.policy_a.probabilities((WEAK, 0), MASK)[0]
    left = result.policy_b.probabilities((-1, 0), MASK)[0]
    assert tiny_exploitability(strong, weak, left) < 0.1
    assert strong > 0.9  # Strong's X dominates Y whatever B does
