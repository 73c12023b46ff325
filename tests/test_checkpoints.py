"""Malformed self-play checkpoints: every kind of damage is an InputError naming what
is wrong, never a traceback and never a silently broken run."""

from __future__ import annotations

import copy
import json
import re

import pytest
from selfplay_toy import ToyDuel

from agents.selfplay import TrainConfig, train
from solver.errors import InputError


def quick(**overrides) -> TrainConfig:
    return TrainConfig(**{"iterations": 10, "eval_every": 5, "distill_steps": 0, "seed": 3,
                          **overrides})


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> dict:
    checkpoint = tmp_path_factory.mktemp("ckpt") / "run.json"
    train(ToyDuel(), quick(checkpoint=checkpoint), progress=False)
    return json.loads(checkpoint.read_text())


#: written as 1e999, which JSON readers parse as infinity (json.dumps would write Infinity)
HUGE = "__1e999__"


def _resume(path):
    return train(ToyDuel(), quick(iterations=15, checkpoint=path), progress=False, resume=True)


def _set(path: tuple, value):
    def edit(data):
        *parents, last = path
        for key in parents:
            data = data[key]
        data[last] = value
    return edit


def _nested(depth: int):
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("edit, message", [
    (_set(("step",), "5"), "step must be an integer >= 0, got '5'"),
    (_set(("step",), True), "step must be an integer"),
    (_set(("seconds",), -1.0), "seconds must be a finite number >= 0"),
    (_set(("seconds",), HUGE), "seconds must be a finite number"),
    (_set(("curve",), {}), "curve must be a list"),
    (_set(("curve", 0, "exploitability"), "low"), "exploitability must be a finite number"),
    (_set(("curve", 0, "speed"), 1.0), "a curve row must have exactly the fields"),
    (_set(("rng", "state"), "x"), "field 'rng' is not a PCG64 state"),
    (_set(("tables",), []), "tables must be a list of two"),
    (_set(("tables", 0, "observations", 0), [1.5, 0, 0]), "observations must be a list of"),
    (_set(("tables", 0, "regrets", 0, 0), HUGE), "regrets holds a number that is not finite"),
    (_set(("tables", 0, "regrets", 0), [0.0]), "table a regrets must be an array of shape"),
    (_set(("tables", 1, "masks", 0, 0), "yes"), "table b masks must be an array"),
    (_set(("tables", 1, "masks", 0), [False, False, False]), "needs a legal action"),
    (_set(("tables", 1, "visits", 0), -3), "visits must be >= 0"),
    (_set(("tables", 1, "baselines"), "none"), "baselines must be an array"),
    (_set(("tables", 0, "totals"), None), "totals must be an array"),
    (_set(("extra",), 1), "allowed: exactly format, version"),
    (_set(("version",), _nested(50)), "nested 52 levels deep; allowed: at most 32"),
])
def test_a_damaged_checkpoint_is_an_input_error(tmp_path, saved, edit, message):
    data = copy.deepcopy(saved)
    edit(data)
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data).replace(f'"{HUGE}"', "1e999"))
    with pytest.raises(InputError, match=re.escape(message)):
        _resume(path)


def test_nan_is_an_input_error(tmp_path, saved):
    data = dict(saved, seconds="__NaN__")
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data).replace('"__NaN__"', "NaN"))
    with pytest.raises(InputError, match="NaN is not a number JSON allows"):
        _resume(path)


def test_nesting_that_would_exhaust_the_stack_is_an_input_error(tmp_path):
    path = tmp_path / "run.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputError, match="nested too deeply"):
        _resume(path)


def test_the_saved_checkpoint_itself_resumes(tmp_path, saved):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(saved))
    assert _resume(path).step == 15
