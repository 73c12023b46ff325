"""Files the trainer and ``duel train`` write: atomic, never sharing a temporary name,
and a failed write leaves the old file as it was. Written to fail on a fixed temporary
name (``FILE.tmp``) and on writing straight to the target."""

from __future__ import annotations

import json
import os

import matplotlib.figure
import pytest
from selfplay_toy import ToyDuel

import envs
from agents import build_profile, load_profile, save_profile
from agents.curves import write_curve
from agents.selfplay import TrainConfig, train
from solver.policy import UniformPolicy


def quick(**overrides) -> TrainConfig:
    return TrainConfig(**{"iterations": 10, "eval_every": 5, "distill_steps": 0, "seed": 3,
                          **overrides})


def _strays(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture
def documents():
    game = envs.make("falkenstein", a={"fencing": "AV"}, b={"fencing": "GD"}, max_rounds=1)
    return [build_profile(game, UniformPolicy(), "b", name=name) for name in ("first", "second")]


def _once(monkeypatch, action):
    """Run ``action`` inside the first ``os.fsync``: a second writer that starts while
    the first one's data is written but not yet moved into place."""
    real = os.fsync
    calls = []

    def fsync(fd):
        real(fd)
        if not calls:
            calls.append(fd)
            action()

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


def test_two_profile_writers_on_one_target_leave_a_valid_file(tmp_path, monkeypatch, documents):
    target = tmp_path / "baron.json"
    first, second = documents
    calls = _once(monkeypatch, lambda: save_profile(target, second))
    save_profile(target, first)
    assert calls
    # the first writer moved its file last, so its profile is the one kept, whole
    assert load_profile(target).name == "first"
    assert _strays(tmp_path) == []


def test_two_trainers_on_one_checkpoint_leave_a_valid_one(tmp_path, monkeypatch):
    checkpoint = tmp_path / "run.json"
    calls = _once(monkeypatch, lambda: train(ToyDuel(), quick(iterations=3, checkpoint=checkpoint),
                                             progress=False))
    train(ToyDuel(), quick(checkpoint=checkpoint, checkpoint_every=5), progress=False)
    assert calls
    assert json.loads(checkpoint.read_text())["step"] == 10
    assert _strays(tmp_path) == []
    resumed = train(ToyDuel(), quick(iterations=12, checkpoint=checkpoint), progress=False,
                    resume=True)
    assert resumed.step == 12


def _half_dump(document, handle, **options):
    handle.write(json.dumps(document)[:50])
    raise OSError("disk full")


def test_a_failed_profile_write_keeps_the_old_profile(tmp_path, monkeypatch, documents):
    target = save_profile(tmp_path / "baron.json", documents[0])
    before = target.read_bytes()
    monkeypatch.setattr(json, "dump", _half_dump)
    with pytest.raises(OSError, match="disk full"):
        save_profile(target, documents[1])
    assert target.read_bytes() == before
    assert _strays(tmp_path) == []


def test_a_failed_checkpoint_write_keeps_the_old_checkpoint(tmp_path, monkeypatch):
    checkpoint = tmp_path / "run.json"
    train(ToyDuel(), quick(iterations=5, checkpoint=checkpoint), progress=False)
    before = checkpoint.read_bytes()
    monkeypatch.setattr(json, "dump", _half_dump)
    with pytest.raises(OSError, match="disk full"):
        train(ToyDuel(), quick(checkpoint=checkpoint), progress=False, resume=True)
    assert checkpoint.read_bytes() == before
    assert _strays(tmp_path) == []


def test_a_failed_plot_keeps_the_old_curve_png(tmp_path, monkeypatch):
    curve = [{"step": 1, "seconds": 0.5, "exploitability": 0.3, "gain_a": 0.2, "gain_b": 0.4,
              "value": 0.1}]
    csv_path, png = write_curve(curve, tmp_path / "run.curve.csv")
    before = png.read_bytes()
    assert before.startswith(b"\x89PNG")

    def half_png(figure, target, **options):
        data = b"\x89PNG half"
        if hasattr(target, "write"):
            target.write(data)
        else:
            with open(target, "wb") as handle:
                handle.write(data)
        raise OSError("disk full")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", half_png)
    with pytest.raises(OSError, match="disk full"):
        write_curve(curve * 2, csv_path)
    assert png.read_bytes() == before
    assert _strays(tmp_path) == []


def test_an_atomic_file_gets_the_mode_of_an_ordinary_one(tmp_path, documents):
    plain = tmp_path / "plain.json"
    plain.write_text("{}")
    saved = save_profile(tmp_path / "baron.json", documents[0])
    assert saved.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777
