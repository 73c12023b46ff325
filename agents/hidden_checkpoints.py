"""Checkpoints of the hidden-level learner: its whole state as versioned JSON, so a run
interrupted and resumed ends where a straight run ends (the tables' floats, the random
generator's state, the iteration count, the training seconds and the curve). Written
atomically (``agents.files``); a checkpoint of another game or other sampling settings,
or a malformed one, is an ``InputError`` naming what is wrong.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from solver.errors import InputError

from .checkpoints import game_fingerprint
from .files import read_json, write_atomically

if TYPE_CHECKING:
    from .hidden_learner import InfosetTable, Traversal

FORMAT = "duel-hidden-checkpoint"
VERSION = 1


def settings(trainer: Traversal) -> dict:
    """What a resumed run must share with the checkpoint's (the budget may change)."""
    config = trainer.config
    return {"seed": config.seed, "branch_depth": config.branch_depth,
            "exploration": config.exploration}


def save_checkpoint(trainer: Traversal, seconds: float, curve: list[dict], path: Path) -> None:
    document = {"format": FORMAT, "version": VERSION, "game": game_fingerprint(trainer.game),
                "settings": settings(trainer), "iterations": trainer.iterations,
                "seconds": seconds, "rng": trainer.rng.bit_generator.state, "curve": curve,
                "tables": {p: _table_rows(table) for p, table in trainer.tables.items()}}
    write_atomically(path, lambda handle: json.dump(document, handle))


def _table_rows(table: InfosetTable) -> list:
    rows = []
    for obs in dict.fromkeys([*table.regrets, *table.sums]):
        regrets, sums, mask = (table.regrets.get(obs), table.sums.get(obs),
                               table.masks.get(obs))
        rows.append([list(obs), *(None if x is None else x.tolist()
                                  for x in (regrets, sums, mask))])
    return rows


def load_checkpoint(trainer: Traversal, path: Path) -> tuple[float, list[dict]]:
    """Restore ``trainer`` from ``path``; returns (training seconds, curve)."""
    data = read_json(path, "checkpoint")
    where = str(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"{where} is not a checkpoint of the hidden-level learner")
    if data.get("version") != VERSION:
        raise InputError(f"{where}: unsupported checkpoint version {data.get('version')!r}; "
                         f"allowed: {VERSION}")
    for key, mine in (("game", game_fingerprint(trainer.game)), ("settings", settings(trainer))):
        if data.get(key) != mine:
            raise InputError(f"{where} was made for other {key} ({data.get(key)!r:.200}); "
                             f"this run has {mine!r:.200}")
    try:
        return _restore(trainer, data)
    except (KeyError, TypeError, ValueError) as error:
        raise InputError(f"{where}: malformed checkpoint ({error})") from None


def _restore(trainer: Traversal, data: dict) -> tuple[float, list[dict]]:
    iterations, seconds = data["iterations"], data["seconds"]
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
        raise ValueError(f"iterations must be an integer >= 0, got {iterations!r}")
    if not isinstance(seconds, int | float) or not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"seconds must be a finite number >= 0, got {seconds!r}")
    for player, table in trainer.tables.items():
        for row in data["tables"][player]:
            _restore_row(table, row)
    trainer.rng.bit_generator.state = data["rng"]
    trainer.iterations = iterations
    curve = data["curve"]
    if not isinstance(curve, list):
        raise ValueError("curve must be a list")
    return float(seconds), curve


def _restore_row(table: InfosetTable, row: Any) -> None:
    obs, regrets, sums, mask = row
    key = tuple(int(x) for x in obs)
    for name, values, store, kind in (("regrets", regrets, table.regrets, float),
                                      ("sums", sums, table.sums, float),
                                      ("mask", mask, table.masks, bool)):
        if values is None:
            continue
        array = np.asarray(values, dtype=kind)
        if array.shape != (table.n_actions,) or not np.isfinite(array.astype(float)).all():
            raise ValueError(f"{name} at {list(key)} must hold {table.n_actions} finite numbers")
        store[key] = array
