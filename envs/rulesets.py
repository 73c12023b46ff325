"""Ruleset data: each system's [default] tables live in a TOML file; a user file
overrides any of them. The defaults are the schema of an override: an unknown key is
an error, a table stays a table, a list a list of the same kind of items, a number a
number, a word a word. So a typo or a misplaced value is never silently ignored."""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from solver.errors import InputError

from .reading import checked_path, read_limited

#: the largest ruleset file read (the package's own are a few kilobytes)
MAX_RULESET_BYTES = 2**20
#: nesting deeper than this is not a ruleset (and would exhaust the recursion limit)
MAX_DEPTH = 32


def default_ruleset(system: str, path: Path | None = None) -> dict:
    """The [default] rules of ``system`` (the package's file, or ``path``)."""
    if path is not None:
        return tomllib.loads(Path(path).read_text("utf-8"))
    return copy.deepcopy(_package_ruleset(system))  # a copy: merging writes into it


@functools.cache
def _package_ruleset(system: str) -> dict:
    """The package's own [default] file, read once: a hidden duel builds one public duel
    per pair of sheets, each from the same rules."""
    text = resources.files("envs").joinpath("rulesets", f"{system}.toml").read_text("utf-8")
    return tomllib.loads(text)


def load_override(source: str | Path | dict | None) -> dict:
    if source is None:
        return {}
    if isinstance(source, dict):
        check_depth(source, "ruleset")
        return source
    if not isinstance(source, str | Path):
        raise InputError(f"ruleset must be a TOML file path or a table, got {source!r}")
    path = checked_path(source, "ruleset")
    raw = read_limited(path, "ruleset", MAX_RULESET_BYTES)
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise InputError(f"cannot read ruleset file {path}: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"ruleset file {path} is not valid TOML: {error}") from None
    except RecursionError:
        raise InputError(f"ruleset file {path} is nested too deeply") from None
    check_depth(data, f"ruleset file {path}")
    return data


def check_depth(value: object, where: str, limit: int = MAX_DEPTH) -> None:
    """InputError when ``value`` nests lists or tables deeper than ``limit``."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            raise InputError(f"{where} is nested more than {limit} levels deep")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def merge(defaults: dict, override: dict, where: str = "") -> dict:
    """``defaults`` updated by ``override``; tables merge key by key, values replace,
    each checked against the default's shape."""
    if not isinstance(override, dict):
        raise InputError(f"ruleset {where.rstrip('.') or 'file'}: expected a table, "
                         f"got {override!r}")
    merged = dict(defaults)
    for key, value in override.items():
        if key not in defaults:
            allowed = ", ".join(sorted(defaults))
            raise InputError(f"unknown ruleset key {where}{key!r}; allowed: {allowed}")
        if isinstance(defaults[key], dict):
            merged[key] = merge(defaults[key], value, f"{where}{key}.")
        else:
            check_shape(defaults[key], value, f"{where}{key}")
            merged[key] = value
    return merged


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a word"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


def check_shape(default: object, value: object, key: str) -> None:
    """``value`` has the default's kind: an integer where an integer is expected (a
    number where a float is), lists item by item against the default's first item."""
    wrong = _kind(default) != _kind(value) or (
        isinstance(default, int) and not isinstance(default, bool) and isinstance(value, float))
    if wrong:
        expected = "an integer" if isinstance(default, int) and not isinstance(
            default, bool) else _kind(default)
        raise InputError(f"ruleset {key}: expected {expected}, got {value!r}")
    if isinstance(default, list) and default:
        for index, item in enumerate(value):
            check_shape(default[0], item, f"{key}[{index}]")
    if isinstance(default, dict):
        merge(default, value, f"{key}.")


def load_ruleset(system: str, override: str | Path | dict | None = None,
                 defaults_path: Path | None = None) -> dict:
    """The system's ruleset with the user's overrides applied."""
    return merge(default_ruleset(system, defaults_path), load_override(override))


def ruleset_hash(ruleset: dict) -> str:
    canonical = json.dumps(ruleset, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def ruleset_error(key: str, message: str) -> InputError:
    """The error of a bad value at ``key`` of a system's ruleset."""
    return InputError(f"ruleset {key}: {message}")


def ruleset_int(value: object, key: str, low: int, high: int) -> int:
    """``value`` if it is an integer in ``low..high`` (a boolean is not one)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ruleset_error(key, f"expected an integer {low}..{high}, got {value!r}")
    return value


def check_bounds(ruleset: Mapping, bounds: Mapping[str, tuple[int, int]]) -> None:
    """Every number ``bounds`` names is an integer in its ``(low, high)``: a dotted key,
    ``*`` for every entry of a table, each item of a list. So a value the rules cannot
    take (a negative multiplier, a minimum damage of 1e9) is refused before any work,
    naming the key, the value and the range."""
    for pattern, (low, high) in bounds.items():
        for key, value in _at(ruleset, pattern.split("."), ""):
            items = enumerate(value) if isinstance(value, list) else [(None, value)]
            for index, item in items:
                ruleset_int(item, key if index is None else f"{key}[{index}]", low, high)


def _at(table: Mapping, parts: list[str], where: str):
    """``(dotted key, value)`` of every entry ``parts`` (with ``*``) names in ``table``."""
    head, rest = parts[0], parts[1:]
    names = list(table) if head == "*" else [head] if head in table else []
    for name in names:
        key = f"{where}{name}"
        if not rest:
            yield key, table[name]
        elif isinstance(table[name], Mapping):
            yield from _at(table[name], rest, key + ".")
