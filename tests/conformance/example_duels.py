"""The example duels the conformance suite and the stored playthroughs cover: for every
registered system its quick duel and each variant it declares
(``envs.schema.Examples.variants``), named ``system`` or ``system-variant``. A variant
may hold a ``ruleset`` table (a reading that is ruleset data): ``envs.make`` takes it as
it is, the command line as a TOML file (``ruleset_file``)."""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

import envs
from solver.game import Game

SYSTEMS = [name for name, spec in envs.systems().items() if spec.implemented]
#: (system, variant or None for the quick duel)
EXAMPLES = [(system, variant) for system in SYSTEMS
            for variant in (None, *envs.spec(system).examples.variants)]


def example_name(system: str, variant: str | None) -> str:
    return system if variant is None else f"{system}-{variant}"


EXAMPLE_NAMES = [example_name(*example) for example in EXAMPLES]
#: variants whose rules favour one side whatever the sheets (initiative ties to B):
#: mirrored sheets are not worth nothing there
FAVOURING_ONE_SIDE = {("pathfinder", "b_first")}


def example_options(system: str, variant: str | None = None, a: str | None = None,
                    b: str | None = None) -> dict:
    """The example duel's options, sheets included; ``a`` / ``b`` replace its sheets."""
    options = envs.spec(system).examples.duel(variant)
    return {**options, **({"a": a} if a is not None else {}),
            **({"b": b} if b is not None else {})}


def example_game(system: str, variant: str | None = None) -> Game:
    return envs.make(system, **example_options(system, variant))


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML spelling here for {value!r}")


def toml_text(table: dict, prefix: str = "") -> str:
    """A ruleset table as TOML: its values first, then each of its tables, dotted."""
    lines = [f"{key} = {_toml_value(value)}" for key, value in table.items()
             if not isinstance(value, dict)]
    text = "\n".join(lines) + "\n" if lines else ""
    for key, value in table.items():
        if isinstance(value, dict):
            name = f"{prefix}{key}"
            text += f"[{name}]\n" + toml_text(value, f"{name}.")
    return text


def ruleset_file(table: dict) -> str:
    """A ruleset table written as a TOML file for the command line's ``--ruleset``."""
    text = toml_text(table)
    name = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"duel-conformance-{name}.toml"
    if not path.exists():
        path.write_text(text, encoding="utf-8")
    return str(path)
