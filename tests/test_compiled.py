"""numba compiles the counters backend once: a second process loads the machine code
from disk (``cache=True``), and the first run says what it is doing."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from solver.counters import compiled

ROOT = Path(__file__).resolve().parents[1]

SOLVE_AND_COUNT = """
import json, envs, solver
from solver.counters.compiled import cached_functions
game = envs.make("blooded", **envs.spec("blooded").examples.counters)
solver.solve_game(game)
used = {name: f for name, f in cached_functions().items() if f.signatures}
print(json.dumps({
    "used": sorted(used),
    "hits": sum(sum(f.stats.cache_hits.values()) for f in used.values()),
    "misses": sum(sum(f.stats.cache_misses.values()) for f in used.values()),
    "indexes": all(__import__("os").path.exists(f._cache._cache_file._index_path)
                   for f in used.values()),
}))
"""


def solve_in_a_new_process() -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", SOLVE_AND_COUNT], env=env, check=True,
                          capture_output=True, text=True, timeout=600)
    return json.loads(done.stdout.splitlines()[-1])


def test_a_second_process_loads_the_compiled_code_from_disk():
    first = solve_in_a_new_process()   # compiles what is not on disk yet, and keeps it
    second = solve_in_a_new_process()
    # a process that compiles a function lists the helpers it compiled into it too; one
    # that loads it from disk does not
    assert set(second["used"]) <= set(first["used"]) and len(second["used"]) >= 10
    assert second["misses"] == 0
    assert second["hits"] >= len(second["used"])
    assert second["indexes"]
    assert len(compiled.uncompiled()) < len(compiled.cached_functions()) / 2


def test_every_numba_function_of_the_solver_is_cached():
    text = "\n".join(path.read_text() for path in (ROOT / "solver").rglob("*.py"))
    decorators = [line.strip() for line in text.splitlines()
                  if line.strip().startswith(("@numba.njit", "@numba.jit", "@njit"))]
    assert decorators
    # inlined helpers are compiled into their (cached) callers, never on their own
    assert all("cache=True" in d or 'inline="always"' in d for d in decorators), decorators


def test_the_first_run_says_it_prepares_the_solver_once(monkeypatch):
    monkeypatch.setattr(compiled, "_announced", False)
    monkeypatch.setattr(compiled, "uncompiled", lambda: list(compiled.cached_functions()))
    said = io.StringIO()
    assert compiled.announce(said)
    assert said.getvalue() == f"preparing the solver (once, about {compiled.COMPILE_SECONDS} s)\n"
    assert not compiled.announce(said)   # once per process
    assert said.getvalue().count("preparing") == 1


def test_nothing_is_said_when_the_code_is_on_disk_or_not_on_a_terminal(monkeypatch):
    monkeypatch.setattr(compiled, "_announced", False)
    monkeypatch.setattr(compiled, "uncompiled", lambda: [])
    said = io.StringIO()
    assert not compiled.announce(said) and said.getvalue() == ""
    monkeypatch.setattr(compiled, "_announced", False)
    monkeypatch.setattr(compiled, "uncompiled", lambda: list(compiled.cached_functions()))
    monkeypatch.setattr(sys, "stderr", io.StringIO())   # not a terminal
    assert not compiled.announce()
    assert sys.stderr.getvalue() == ""
