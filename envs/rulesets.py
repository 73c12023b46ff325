"""Ruleset data: each system's [default] tables live in ``rulesets/<system>.toml``; a
user file overrides any of them. Unknown keys are errors, so a typo is never ignored."""

from __future__ import annotations

import hashlib
import json
import tomllib
from importlib import resources
from pathlib import Path

from solver.errors import InputError


def default_ruleset(system: str) -> dict:
    text = resources.files("envs").joinpath("rulesets", f"{system}.toml").read_text("utf-8")
    return tomllib.loads(text)


def load_override(source: str | Path | dict | None) -> dict:
    if source is None:
        return {}
    if isinstance(source, dict):
        return source
    path = Path(source)
    try:
        return tomllib.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise InputError(f"ruleset file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read ruleset file {path}: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"ruleset file {path} is not valid TOML: {error}") from None


def merge(defaults: dict, override: dict, where: str = "") -> dict:
    """``defaults`` updated by ``override``; tables merge key by key, values replace."""
    merged = dict(defaults)
    for key, value in override.items():
        if key not in defaults:
            allowed = ", ".join(sorted(defaults))
            raise InputError(f"unknown ruleset key {where}{key!r}; allowed: {allowed}")
        if isinstance(defaults[key], dict) and isinstance(value, dict):
            merged[key] = merge(defaults[key], value, f"{where}{key}.")
        else:
            merged[key] = value
    return merged


def load_ruleset(system: str, override: str | Path | dict | None = None) -> dict:
    """The system's ruleset with the user's overrides applied."""
    return merge(default_ruleset(system), load_override(override))


def ruleset_hash(ruleset: dict) -> str:
    canonical = json.dumps(ruleset, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]
