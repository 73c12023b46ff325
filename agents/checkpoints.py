"""Self-play checkpoints: the whole training state as versioned JSON, so a run can be
interrupted and resumed with the same result as a straight run.

A checkpoint holds the game's and the settings' fingerprints (a checkpoint of another
game or other settings is refused), the step and training seconds, the random
generator's state, the learning curve and both regret tables. It is written
atomically (``agents.files``); reading checks every field's type, shape and
finiteness, so a malformed file is an ``InputError`` naming the bad field, never a
traceback or a silently broken run.
"""

from __future__ import annotations

import json
import math
import reprlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from envs.reading import read_limited
from solver.errors import InputError
from solver.game import Game

from .curves import CURVE_FIELDS
from .files import parse_json, write_atomically
from .regrets import RegretTable

if TYPE_CHECKING:
    from .selfplay import SelfPlay

CHECKPOINT_FORMAT = "duel-selfplay-checkpoint"
CHECKPOINT_VERSION = 2
#: the largest checkpoint read: both regret tables of a large duel, as JSON
MAX_CHECKPOINT_BYTES = 2**30
#: more steps or training seconds than any run takes (ten years; a trillion steps is
#: weeks at the fastest traversal) is a damaged or forged checkpoint
MAX_STEPS = 10**12
MAX_SECONDS = 10 * 365.25 * 24 * 3600
#: version 1 had no chance states' values: read back, they start again from 0
READABLE_VERSIONS = (1, 2)
FIELDS = ("format", "version", "game", "config", "step", "seconds", "rng", "curve", "tables",
          "chance_values")
#: the numpy kinds each array type accepts from JSON (integers are fine as floats)
KINDS = {bool: "b", float: "iuf", np.int64: "iu"}


def save_checkpoint(trainer: SelfPlay, path: Path) -> None:
    write_atomically(path, lambda handle: json.dump(checkpoint_document(trainer), handle))


def load_checkpoint(trainer: SelfPlay, path: Path) -> None:
    """Restore ``trainer`` from the checkpoint at ``path``; InputError if unusable."""
    raw = read_limited(path, "checkpoint", MAX_CHECKPOINT_BYTES)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"cannot read checkpoint {path}: {error}") from None
    restore(trainer, parse_json(text, f"cannot read checkpoint {path}"), str(path))


def checkpoint_document(trainer: SelfPlay) -> dict:
    return {"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION,
            "game": game_fingerprint(trainer.game), "config": trainer.config.fingerprint(),
            "step": trainer.steps, "seconds": trainer.seconds,
            "rng": trainer.rng.bit_generator.state, "curve": trainer.curve,
            "tables": [table.to_json() for table in trainer.tables],
            "chance_values": trainer.chance_document()}


def restore(trainer: SelfPlay, data: Any, source: str) -> None:
    """Check ``data`` whole, then put it in ``trainer`` (nothing changes if it fails)."""
    _check_header(data, trainer, source)
    where = f"malformed checkpoint {source}"
    step = int(_number(data["step"], "step", where, integer=True, high=MAX_STEPS))
    seconds = float(_number(data["seconds"], "seconds", where, high=MAX_SECONDS))
    curve = _curve(data["curve"], where)
    tables = _tables(data["tables"], trainer, where)
    chance = _chance_values(data.get("chance_values", {"states": [], "values": [[], []]}),
                            trainer.chance_states(), where)
    generator = trainer.rng.bit_generator
    previous = generator.state
    try:
        generator.state = data["rng"]
    except (KeyError, TypeError, ValueError, OverflowError) as error:
        generator.state = previous
        raise InputError(f"{where}: field 'rng' is not a {type(generator).__name__} "
                         f"state ({error})") from None
    trainer.steps, trainer.seconds, trainer.curve, trainer.tables = step, seconds, curve, tables
    trainer.forget_states(chance)


def game_fingerprint(game: Game) -> dict:
    """What identifies a game for a checkpoint, as it reads back from JSON."""
    return json.loads(json.dumps({
        "system": game.info.system, "options": game.info.options,
        "ruleset_hash": game.info.ruleset_hash}, default=str))


def _check_header(data: Any, trainer: SelfPlay, source: str) -> None:
    if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
        raise InputError(f"{source} is not a self-play checkpoint")
    version = data.get("version")
    if isinstance(version, bool) or version not in READABLE_VERSIONS:
        raise InputError(f"{source}: unsupported checkpoint version {_short(version)}; "
                         f"allowed: {', '.join(map(str, READABLE_VERSIONS))}")
    fields = FIELDS if version == CHECKPOINT_VERSION else FIELDS[:-1]
    missing = [key for key in fields if key not in data]
    if missing or len(data) != len(fields):
        raise InputError(f"malformed checkpoint {source}: fields {_short(sorted(data))}; "
                         f"allowed: exactly {', '.join(fields)}")
    game = game_fingerprint(trainer.game)
    if data["game"] != game:
        raise InputError(f"{source} was trained on another game ({_short(data['game'])}); "
                         f"this one is {game}")
    if data["config"] != trainer.config.fingerprint():
        raise InputError(f"{source} was trained with other settings "
                         f"({_short(data['config'])}); now {trainer.config.fingerprint()}")


def _short(value: Any) -> str:
    """A bounded repr of file content for a message (it may be huge or deeply nested)."""
    return reprlib.repr(value)


def _finite(value: Any, kinds: type | Any = int | float) -> bool:
    """A JSON number of ``kinds`` that is finite as a float (an integer too large for
    one is not: the trainer computes with floats)."""
    if isinstance(value, bool) or not isinstance(value, kinds):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _number(value: Any, name: str, where: str, integer: bool = False,
            high: float | None = None) -> float:
    if not _finite(value, int if integer else int | float) or value < 0:
        wanted = "an integer" if integer else "a finite number"
        raise InputError(f"{where}: {name} must be {wanted} >= 0, got {_short(value)}")
    if high is not None and value > high:
        raise InputError(f"{where}: {name} must be at most {high:g}, got {_short(value)}")
    return value


def _curve(curve: Any, where: str) -> list[dict]:
    if not isinstance(curve, list):
        raise InputError(f"{where}: curve must be a list, got {type(curve).__name__}")
    for row in curve:
        if not isinstance(row, dict) or set(row) != set(CURVE_FIELDS):
            raise InputError(f"{where}: a curve row must have exactly the fields "
                             f"{', '.join(CURVE_FIELDS)}; got {_short(row)}")
        _number(row["step"], "a curve row's step", where, integer=True)
        for key in CURVE_FIELDS[1:]:
            value = row[key]
            if not _finite(value):
                raise InputError(f"{where}: a curve row's {key} must be a finite number, "
                                 f"got {_short(value)}")
    return [dict(row) for row in curve]


def _tables(tables: Any, trainer: SelfPlay, where: str) -> tuple[RegretTable, RegretTable]:
    if not isinstance(tables, list) or len(tables) != 2:
        raise InputError(f"{where}: tables must be a list of two (A's and B's), "
                         f"got {_short(tables)}")
    fields = len(trainer.game.info.observation_fields)
    return tuple(_table(table, trainer.n, fields, f"{where}: table {side}")
                 for side, table in zip("ab", tables, strict=True))


def _table(data: Any, n_actions: int, n_fields: int, where: str) -> RegretTable:
    layout = RegretTable(n_actions).layout(0)
    if not isinstance(data, dict) or set(data) != {"observations", *layout}:
        raise InputError(f"{where} must have exactly the fields observations, "
                         f"{', '.join(layout)}")
    observations = _observations(data["observations"], n_fields, where)
    arrays = {name: _array(data[name], shape, dtype, f"{where} {name}")
              for name, (shape, dtype) in RegretTable(n_actions).layout(
                  len(observations)).items()}
    if len(observations) and not arrays["masks"].any(axis=1).all():
        raise InputError(f"{where}: every observation needs a legal action in its mask")
    if (arrays["visits"] < 0).any():
        raise InputError(f"{where}: visits must be >= 0")
    return RegretTable.from_arrays(n_actions, observations, arrays)


def _chance_values(data: Any, states: int, where: str) -> tuple[np.ndarray, np.ndarray]:
    """The last values of the states with one joint action (``agents.counter_traversal``)
    as (states, values of A and B): distinct states below ``states``."""
    where = f"{where}: chance_values"
    if not isinstance(data, dict) or set(data) != {"states", "values"}:
        raise InputError(f"{where} must have exactly the fields states, values")
    found = data["states"]
    if not isinstance(found, list) or not all(
            isinstance(s, int) and not isinstance(s, bool) and 0 <= s < states for s in found):
        raise InputError(f"{where}: states must be a list of integers in 0..{states - 1}"
                         if states else f"{where}: this game keeps none; states must be []")
    if len(set(found)) != len(found):
        raise InputError(f"{where}: a state is listed twice")
    values = _array(data["values"], (2, len(found)), float, f"{where} values")
    return np.asarray(found, dtype=np.int64), values


def _observations(observations: Any, n_fields: int, where: str) -> list[tuple]:
    if not isinstance(observations, list) or not all(
            isinstance(o, list) and len(o) == n_fields
            and all(isinstance(x, int) and not isinstance(x, bool) for x in o)
            for o in observations):
        raise InputError(f"{where}: observations must be a list of lists of {n_fields} "
                         "integers")
    found = [tuple(o) for o in observations]
    if len(set(found)) != len(found):
        raise InputError(f"{where}: an observation is listed twice")
    return found


def _array(value: Any, shape: tuple, dtype: type, where: str) -> np.ndarray:
    """``value`` as an array of ``shape``, refusing other types, shapes and non-finite
    numbers (a NaN regret would silently turn the strategy uniform)."""
    try:
        array = np.asarray(value)
    except (ValueError, TypeError):
        array = None
    if array is None or (array.size and array.dtype.kind not in KINDS[dtype]) \
            or array.shape != shape and not (array.size == 0 == math.prod(shape)):
        raise InputError(f"{where} must be an array of shape {list(shape)} of "
                         f"{np.dtype(dtype).name} values")
    array = array.astype(dtype).reshape(shape)
    if array.dtype.kind == "f" and not np.isfinite(array).all():
        raise InputError(f"{where} holds a number that is not finite; allowed: finite numbers")
    return array
