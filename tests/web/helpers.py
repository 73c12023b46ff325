"""What the web tests share: the CLI's --json document of a command line, and the
small duel of each system (its example sheets and short options)."""

from __future__ import annotations

import contextlib
import io
import json

import envs
from agents.cli import main


def cli_json(argv: list[str]) -> object:
    """The document ``duel ARGV --json`` prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main([*argv, "--json"]) == 0
    return json.loads(out.getvalue())


def small_duel(system: str) -> dict:
    """A request for the short example duel of ``system`` (as the pages fill it)."""
    examples = envs.spec(system).examples
    return {"system": system, "a": examples.sheet_a, "b": examples.sheet_b,
            "options": dict(examples.quick)}


def small_argv(system: str) -> list[str]:
    """The command line of ``small_duel(system)``."""
    duel = small_duel(system)
    argv = [system, "--a", duel["a"], "--b", duel["b"]]
    for name, value in duel["options"].items():
        argv += ["-o", f"{name}={value}"]
    return argv


def request_argv(command: str, request: dict) -> list[str]:
    """The command line asking what ``request`` asks (sheets and states as text)."""
    argv = [command]
    for key, value in request.items():
        if key == "system" or key == "expression":
            argv.insert(1, value)
        elif key == "options":
            for name, given in value.items():
                argv += ["-o", f"{name}={given}"]
        elif isinstance(value, list):
            argv += [f"--{key.replace('_', '-')}", *map(str, value)]
        elif isinstance(value, dict):
            argv += [f"--{key}", ",".join(f"{k}={v}" for k, v in value.items())]
        else:
            argv += [f"--{key.replace('_', '-')}={value}"]
    return argv
