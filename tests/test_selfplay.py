"""Self-play training: it learns, it is reproducible, it resumes, its networks survive
a round trip. Small games and few steps only; no timing asserts."""

import json
import os
import signal
import threading

import numpy as np
import pytest
from selfplay_toy import ToyDuel

import envs
from agents.policies import NetworkPolicy, fit, tabulate
from agents.selfplay import SelfPlay, TrainConfig, train
from solver import exploitability
from solver.errors import InputError
from solver.markov.graph import build_graph
from solver.policy import MixPolicy, UniformPolicy


def quick(**overrides) -> TrainConfig:
    settings = {"iterations": 300, "eval_every": 100, "distill_steps": 0, "seed": 3}
    settings.update(overrides)
    return TrainConfig(**settings)


def tables_of(result):
    return {side: {k: v.copy() for k, v in table.table.items()}
            for side, table in (("a", result.table_a), ("b", result.table_b))}


def assert_same_tables(first, second):
    for side in ("a", "b"):
        assert first[side].keys() == second[side].keys()
        for key in first[side]:
            np.testing.assert_array_equal(first[side][key], second[side][key])


def falkenstein(**options):
    return envs.make("falkenstein", a={"fencing": "GD"}, b={"fencing": "GD"}, **options)


def test_training_reduces_exploitability_on_the_toy_duel():
    game = ToyDuel()
    uniform = exploitability(game, UniformPolicy(), UniformPolicy()).value
    result = train(game, quick(), progress=False)
    assert result.step == 300
    assert result.table_exploitability.value < 0.5 * uniform
    assert [row["step"] for row in result.curve] == [100, 200, 300]


@pytest.mark.parametrize("steps, seconds, evaluated_at, due", [
    (150, 9.0, (0.0, 0.0), False),    # not a multiple of eval_every
    (200, 5.2, (5.0, 0.9), True),     # a quick evaluation is never postponed
    (200, 6.0, (5.0, 3.0), False),    # 3 s of evaluating after 1 s of training
    (300, 8.0, (5.0, 3.0), True),     # as much training as the evaluation took
    (300, 6.5, (5.0, 1.4), True),     # 1.5 s of training after 1.4 s of evaluating
])
def test_a_slow_evaluation_waits_for_as_much_training(steps, seconds, evaluated_at, due):
    trainer = SelfPlay(ToyDuel(), quick())
    trainer.steps, trainer.seconds, trainer.evaluated_at = steps, seconds, evaluated_at
    assert trainer.evaluation_due() is due


@pytest.mark.parametrize("fencing_a", ["GD", "AV"])
def test_training_reduces_exploitability_on_a_one_round_falkenstein(fencing_a):
    game = envs.make("falkenstein", a={"fencing": fencing_a}, b={"fencing": "GD"}, max_rounds=1)
    uniform = exploitability(game, UniformPolicy(), UniformPolicy()).value
    result = train(game, quick(iterations=200), progress=False)
    assert result.table_exploitability.value < 0.25 * uniform
    # the curve's numbers are the exact evaluation of the tables
    assert result.curve[-1]["exploitability"] == pytest.approx(
        result.table_exploitability.value)


def test_same_seed_same_policies_and_networks():
    game = ToyDuel()
    config = quick(iterations=80, distill_steps=30)
    first, second = (train(game, config, progress=False) for _ in range(2))
    assert_same_tables(tables_of(first), tables_of(second))
    graph = build_graph(game)
    for s in np.flatnonzero(~graph.terminal):
        observation = game.observe(graph.states[s], "a")
        np.testing.assert_array_equal(first.policy_a.probabilities(observation, graph.mask_a[s]),
                                      second.policy_a.probabilities(observation, graph.mask_a[s]))
    other = train(game, quick(iterations=80, seed=4), progress=False)
    assert any(not np.array_equal(tables_of(first)["a"][k], v)
               for k, v in tables_of(other)["a"].items())


def test_resume_continues_from_the_checkpoint_and_matches_a_straight_run(tmp_path):
    game = ToyDuel()
    checkpoint = tmp_path / "run.json"
    half = train(game, quick(iterations=60, eval_every=20, checkpoint=checkpoint),
                 progress=False)
    assert half.step == 60
    saved = json.loads(checkpoint.read_text())
    assert saved["step"] == 60
    resumed = train(game, quick(iterations=120, eval_every=20, checkpoint=checkpoint),
                    progress=False, resume=True)
    straight = train(game, quick(iterations=120, eval_every=20), progress=False)
    assert resumed.step == 120
    assert [row["step"] for row in resumed.curve] == [20, 40, 60, 80, 100, 120]
    assert resumed.curve[:3] == half.curve
    assert_same_tables(tables_of(resumed), tables_of(straight))
    assert resumed.curve_csv.exists() and resumed.curve_png.exists()
    assert resumed.curve_csv.read_text().splitlines()[0] == \
        "step,seconds,exploitability,gain_a,gain_b,value"


def test_interrupt_saves_a_checkpoint_that_resumes(tmp_path):
    game = ToyDuel()
    checkpoint = tmp_path / "run.json"
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            train(game, quick(iterations=10**9, eval_every=0, checkpoint=checkpoint,
                              checkpoint_every=10**6), progress=False)
    finally:
        timer.cancel()
    stopped = json.loads(checkpoint.read_text())["step"]
    assert stopped > 0
    resumed = train(game, quick(iterations=stopped + 5, eval_every=0, checkpoint=checkpoint),
                    progress=False, resume=True)
    assert resumed.step == stopped + 5


def test_resume_refuses_a_checkpoint_of_another_game_or_seed(tmp_path):
    checkpoint = tmp_path / "run.json"
    train(ToyDuel(), quick(iterations=5, checkpoint=checkpoint), progress=False)
    with pytest.raises(InputError, match="another game"):
        train(falkenstein(max_rounds=1), quick(iterations=10, checkpoint=checkpoint),
              progress=False, resume=True)
    with pytest.raises(InputError, match="other settings"):
        train(ToyDuel(), quick(iterations=10, seed=9, checkpoint=checkpoint),
              progress=False, resume=True)
    checkpoint.write_text("not json")
    with pytest.raises(InputError, match="cannot read checkpoint"):
        train(ToyDuel(), quick(iterations=10, checkpoint=checkpoint), progress=False,
              resume=True)


def test_network_spec_round_trip_gives_identical_probabilities():
    game = falkenstein(max_rounds=1)
    policy = NetworkPolicy.for_game(game, hidden=(16, 8))
    graph = build_graph(game)
    live = np.flatnonzero(~graph.terminal)
    observations = np.asarray([game.observe(graph.states[s], "a") for s in live])
    targets = graph.mask_a[live] * np.arange(1, 7)
    fit(policy, observations, graph.mask_a[live], targets / targets.sum(1, keepdims=True),
        steps=20)
    loaded = NetworkPolicy.from_spec(json.loads(json.dumps(policy.to_spec())))
    np.testing.assert_array_equal(policy.batch_probabilities(observations, graph.mask_a[live]),
                                  loaded.batch_probabilities(observations, graph.mask_a[live]))
    single = loaded.probabilities(observations[0], graph.mask_a[live[0]])
    assert single.sum() == pytest.approx(1.0)
    assert np.all(single[~graph.mask_a[live[0]]] == 0)


def test_malformed_network_spec_is_an_input_error():
    spec = NetworkPolicy.for_game(ToyDuel(), hidden=(4,)).to_spec()
    with pytest.raises(InputError, match="version"):
        NetworkPolicy.from_spec({**spec, "version": 99})
    with pytest.raises(InputError, match="shape"):
        NetworkPolicy.from_spec({**spec, "hidden": [5]})
    with pytest.raises(InputError):
        NetworkPolicy.from_spec({**spec, "weights": {}})


def test_tabulate_covers_every_reachable_observation():
    game = ToyDuel()
    result = train(game, quick(iterations=50, distill_steps=20), progress=False)
    table = tabulate(game, result.policy_b, "b")
    graph = build_graph(game)
    expected = {tuple(game.observe(graph.states[s], "b")) for s in np.flatnonzero(~graph.terminal)}
    assert set(table) == expected
    for mix in table.values():
        assert mix.sum() == pytest.approx(1.0)


def test_a_strong_magnet_pulls_a_side_to_its_temperament():
    game = ToyDuel()
    magnet = MixPolicy({"attack": 0.8, "feint": 0.1, "guard": 0.1}, game.action_names)
    free = train(game, quick(iterations=200), progress=False)
    pulled = train(game, quick(iterations=200, magnet_a=magnet, regularization=10.0),
                   progress=False)
    start = game.initial_outcomes()[0][1]
    mask = game.legal_mask(start, "a")
    observation = game.observe(start, "a")
    target = magnet.probabilities(observation, mask)

    def distance(policy):
        return np.abs(policy.probabilities(observation, mask) - target).sum()

    assert distance(pulled.policy_a) < 0.2 < distance(free.policy_a)


@pytest.mark.parametrize("bad", [
    {"minutes": -1}, {"iterations": 0}, {"iterations": None, "minutes": None},
    {"discounting": "fast"}, {"exploration": 1.5}, {"regularization": 0.5},
    {"regularization": -1.0, "magnet_a": UniformPolicy()}, {"magnet_b": "cautious"},
    {"minutes": 0}, {"minutes": float("nan")}, {"layer_sizes": (8, 0)},
])
def test_bad_config_is_an_input_error(bad):
    with pytest.raises(InputError):
        train(ToyDuel(), TrainConfig(**bad), progress=False)


def test_a_game_with_a_cycle_trains_without_endless_recursion():
    from solver_games import LoopingPennies

    game = LoopingPennies()
    result = train(game, quick(iterations=100), progress=False)
    assert result.table_exploitability.value < 0.05


def test_the_progress_bar_shows_the_larger_share_of_either_budget():
    import io

    from agents.progress import Progress
    from agents.selfplay import SelfPlay

    config = TrainConfig(iterations=8, minutes=1.0)
    trainer = SelfPlay(ToyDuel(), config)
    trainer.steps, trainer.seconds = 2, 30.0       # 25% of the steps, 50% of the time
    trainer.curve = [{"exploitability": 0.125}]
    stream = io.StringIO()
    Progress(config, stream).show(trainer)
    assert stream.getvalue() == ("\r[" + "#" * 14 + "." * 14 + "]  50% step 2    30.0s  "
                                 "exploitability 0.1250 ")
