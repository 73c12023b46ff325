"""Every checkpoint the trainer writes resumes, on every system's smallest duels (issue
29: at one beat of Blooded every resume failed with ``KeyError: counters (0,)``), and a
resumed run ends where a straight one does: the same tables, bit for bit."""

from __future__ import annotations

import pytest
from test_counter_traversal import same_tables

import envs
from agents.checkpoints import load_checkpoint
from agents.selfplay import SelfPlay, TrainConfig, train

SMALLEST = [
    ("falkenstein", {"max_rounds": 1}),
    ("blooded", {"max_beats": 1}),
    ("blooded", {"max_beats": 1, "convention": "first_blood"}),
    ("uchronia", {"max_turns": 1}),
    ("pathfinder", {"a": "fighter,hp=2", "b": "rogue,hp=2"}),
    ("pathfinder", {"a": "fighter,hp=2", "b": "rogue,hp=2", "max_rounds": 1}),
]


@pytest.mark.parametrize("system, options", SMALLEST,
                         ids=[f"{s}-{'-'.join(map(str, o.values()))}" for s, o in SMALLEST])
def test_a_resumed_run_ends_where_a_straight_one_does(tmp_path, system, options):
    checkpoint = tmp_path / "run.json"
    settings = {"eval_every": 0, "distill_steps": 0, "seed": 4}
    train(envs.make(system, **options), TrainConfig(iterations=6, checkpoint=checkpoint,
                                                    **settings), progress=False)
    resumed = SelfPlay(envs.make(system, **options),
                       TrainConfig(iterations=12, checkpoint=checkpoint, **settings))
    load_checkpoint(resumed, checkpoint)
    straight = SelfPlay(envs.make(system, **options), TrainConfig(iterations=12, **settings))
    for _ in range(6):
        straight.step()
    assert resumed.steps == straight.steps == 6
    for _ in range(6):
        straight.step()
        resumed.step()
    same_tables(resumed, straight)
