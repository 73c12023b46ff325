"""The compiled self-play traversal (``agents.counter_traversal``): its action values are
unbiased estimates of the exact ones, it learns, it is reproducible and it resumes."""

import json

import numpy as np
import pytest
from test_counters import RolledPennies

import envs
from agents.selfplay import SelfPlay, TrainConfig, train
from solver import exploitability
from solver.counters import solve_counters
from solver.counters.play import pair_mixes
from solver.counters.stage_rules import FixedPair
from solver.errors import InputError
from solver.policy import UniformPolicy

TINY = ("hp=2,ac=14,attack=4,damage=1d2,shield,will=13,perception_dc=13,"
        "deception=2:trained,intimidation=1:trained,perception=3:trained")


def tiny(**options):
    return envs.make("pathfinder", a=TINY, b=TINY, **options)


def blooded():
    return envs.make("blooded", a="prowess=3,sword=3", b="prowess=2,sword=4", max_beats=2)


def root_samples(trainer, me, count, compiled=True):
    """The traverser's action values at the start, one traversal each, the tables reset
    to their first state every time (no learning in between)."""
    samples = []
    for _ in range(count):
        for table in trainer.tables:
            table.baselines[:table.size] = 0.0
        if compiled:
            trainer._compiled.clear_values()
            visits = trainer._traverse_compiled(me)
        else:
            visits = trainer._traverse(me)
        samples.append(visits.q[-1])   # the start closes last
    return np.array(samples)


@pytest.mark.parametrize("me", [0, 1])
def test_root_action_values_are_unbiased(me):
    """On an acyclic counter duel, the traverser's action values at the start average
    to the exact ones under uniform play (the counter solver's policy evaluation),
    within four standard errors."""
    game = blooded()
    start = game.start()
    mixes = pair_mixes(game, UniformPolicy(), UniformPolicy())
    matrix = solve_counters(game, rule=FixedPair(mixes)).stage_matrix(start)
    legal_a, legal_b = (np.flatnonzero(game.legal_mask(start, p)) for p in "ab")
    played = matrix[np.ix_(legal_a, legal_b)]
    mine = legal_a if me == 0 else legal_b
    exact = played.mean(axis=1) if me == 0 else -played.mean(axis=0)
    trainer = SelfPlay(game, TrainConfig(seed=5, distill_steps=0))
    assert trainer._compiled is not None
    samples = root_samples(trainer, me, 3000)[:, mine]
    error = np.abs(samples.mean(axis=0) - exact)
    assert np.all(error <= 4 * samples.std(axis=0) / np.sqrt(len(samples)) + 1e-9)
    assert samples.std(axis=0).max() > 1e-3   # the estimates vary: the check bites


def test_compiled_and_python_traversals_estimate_the_same_values_on_a_cycle():
    """On the knockout (cycles cut where the traversal meets a state it is expanding)
    the compiled traversal and the Python one have the same expected action values at
    the start: two independent implementations of one estimator."""
    game = RolledPennies(4, 3)
    trainer = SelfPlay(game, TrainConfig(seed=6, distill_steps=0))
    compiled = root_samples(trainer, 0, 4000)
    reference = SelfPlay(game, TrainConfig(seed=7, distill_steps=0))
    reference._compiled = None
    python = root_samples(reference, 0, 4000, compiled=False)
    legal = np.flatnonzero(game.legal_mask(game.start, "a"))
    spread = np.sqrt((compiled.var(axis=0) + python.var(axis=0)) / 4000)[legal]
    gap = np.abs(compiled.mean(axis=0) - python.mean(axis=0))[legal]
    assert np.all(gap <= 4.5 * spread + 1e-9)
    assert spread.max() > 1e-4


def test_compiled_training_learns():
    game = blooded()
    uniform = exploitability(game, UniformPolicy(), UniformPolicy()).value
    result = train(game, TrainConfig(iterations=400, eval_every=0, distill_steps=0, seed=1),
                   progress=False)
    assert result.table_exploitability.value < 0.05 * uniform


def test_compiled_training_on_a_cycle_stays_near_the_uniform_equilibrium():
    """Rolled pennies: uniform play is the equilibrium (exploitability 0); the sampled
    training ends near it, as the Python traversal does (0.07 to 0.08 at 400 steps)."""
    result = train(RolledPennies(4, 3), TrainConfig(iterations=400, eval_every=0,
                                                    distill_steps=0, seed=1), progress=False)
    assert result.table_exploitability.value < 0.15


def test_only_counter_games_without_magnets_are_compiled():
    config = TrainConfig(distill_steps=0)
    assert SelfPlay(tiny(), config)._compiled is not None
    falkenstein = envs.make("falkenstein", a={"fencing": "GD"}, b={"fencing": "GD"},
                            max_rounds=1)
    assert SelfPlay(falkenstein, config)._compiled is None
    pulled = TrainConfig(distill_steps=0, magnet_a=UniformPolicy(), regularization=0.5)
    assert SelfPlay(tiny(), pulled)._compiled is None


def test_the_last_values_read_are_the_tables_and_the_payoffs():
    """What a traversal reads as a state's last value: a choosing state's is its table
    row's (found here by its observation), an ended state's is the game's payoff."""
    trainer = SelfPlay(blooded(), TrainConfig(distill_steps=0, seed=5))
    for _ in range(40):
        trainer.step()
    compiled, game = trainer._compiled, trainer.game
    found = 0
    for core in range(compiled.graph.size):
        for point in range(compiled.points):
            state = game.attach(compiled.graph.cores[core],
                                tuple(compiled.grid.points[point].tolist()))
            if compiled.grid.flat(game.counters(state)) != point:
                continue
            last = compiled.last_values[:, core * compiled.points + point]
            if game.is_terminal(state):
                assert list(last) == [game.payoff(state), -game.payoff(state)]
                continue
            row = trainer.tables[0].index.get(tuple(int(x) for x in game.observe(state, "a")))
            if row is not None and compiled.graph.chooses[core]:
                found += 1
                assert list(last) == [trainer.tables[side].values[row] for side in (0, 1)]
    assert found == trainer.tables[0].size and found > 10


def same_tables(first, second):
    for one, two in zip(first.tables, second.tables, strict=True):
        assert one.observations == two.observations
        for name in one.layout(0):
            np.testing.assert_array_equal(getattr(one, name)[:one.size],
                                          getattr(two, name)[:two.size])


def test_same_seed_same_tables_other_seed_other_tables():
    runs = []
    for seed in (2, 2, 3):
        trainer = SelfPlay(blooded(), TrainConfig(seed=seed, distill_steps=0))
        for _ in range(40):
            trainer.step()
        runs.append(trainer)
    same_tables(runs[0], runs[1])
    assert not np.array_equal(runs[0].tables[0].regrets[:runs[0].tables[0].size],
                              runs[2].tables[0].regrets[:runs[2].tables[0].size])


def test_resume_matches_a_straight_run(tmp_path):
    checkpoint = tmp_path / "run.json"
    settings = {"eval_every": 0, "distill_steps": 0, "seed": 4}
    train(blooded(), TrainConfig(iterations=30, checkpoint=checkpoint, **settings),
          progress=False)
    saved = json.loads(checkpoint.read_text())
    assert saved["version"] == 2 and saved["chance_values"]["states"]
    resumed = SelfPlay(blooded(), TrainConfig(iterations=60, checkpoint=checkpoint, **settings))
    from agents.checkpoints import load_checkpoint
    load_checkpoint(resumed, checkpoint)
    straight = SelfPlay(blooded(), TrainConfig(iterations=60, **settings))
    for _ in range(30):
        straight.step()
    for _ in range(30):
        straight.step()
        resumed.step()
    same_tables(resumed, straight)


@pytest.mark.parametrize("chance, words", [
    ({"states": [-1], "values": [[0.0], [0.0]]}, "integers in"),
    ({"states": [1, 1], "values": [[0.0, 0.0], [0.0, 0.0]]}, "twice"),
    ({"states": [1], "values": [["x"], [0.0]]}, "float64 values"),
    ({"states": [1], "values": [[0.0]]}, "shape"),
    ({"states": [1]}, "exactly the fields"),
])
def test_bad_chance_values_in_a_checkpoint_are_input_errors(tmp_path, chance, words):
    checkpoint = tmp_path / "run.json"
    train(blooded(), TrainConfig(iterations=5, checkpoint=checkpoint, eval_every=0,
                              distill_steps=0), progress=False)
    document = json.loads(checkpoint.read_text())
    document["chance_values"] = chance
    checkpoint.write_text(json.dumps(document))
    with pytest.raises(InputError, match=words):
        train(blooded(), TrainConfig(iterations=10, checkpoint=checkpoint, eval_every=0,
                                  distill_steps=0), progress=False, resume=True)


def test_a_version_1_checkpoint_still_resumes(tmp_path):
    checkpoint = tmp_path / "run.json"
    settings = {"eval_every": 0, "distill_steps": 0}
    train(blooded(), TrainConfig(iterations=5, checkpoint=checkpoint, **settings), progress=False)
    document = json.loads(checkpoint.read_text())
    document["version"] = 1
    del document["chance_values"]
    checkpoint.write_text(json.dumps(document))
    resumed = train(blooded(), TrainConfig(iterations=10, checkpoint=checkpoint, **settings),
                    progress=False, resume=True)
    assert resumed.step == 10
