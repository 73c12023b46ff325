"""The command line answers before any heavy work: ``--help`` and ``duel dice`` import
no numerical library at all, and bad input of every kind is one line on stderr with exit
code 2 before the solver's compiled backends, torch or the environments' libraries are
imported. Each case runs in a fresh process: what a process has imported is the test."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

#: what a bad input must never wait for
HEAVY = ("numba", "torch", "gymnasium", "pettingzoo", "matplotlib")

HARNESS = """
import contextlib, io, json, sys
from agents.cli import main
err, out = io.StringIO(), io.StringIO()
with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
    try:
        code = main(ARGV)
    except SystemExit as done:
        code = done.code
print(json.dumps({"code": code, "stderr": err.getvalue(), "stdout": out.getvalue(),
                  "loaded": sorted(m for m in MODULES if m in sys.modules)}))
"""


def run_python(script: str) -> str:
    """What ``script`` prints, run in a fresh interpreter (which must succeed)."""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def run_cli(argv: list[str], modules=HEAVY) -> dict:
    script = (f"ARGV = {argv!r}\nMODULES = {tuple(modules)!r}\n") + HARNESS
    return json.loads(run_python(script))


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("bad")
    (folder / "garbage.json").write_text("garbage")
    (folder / "rules.toml").write_text("[default\n")
    return {"dir": str(folder), "garbage": str(folder / "garbage.json"),
            "toml": str(folder / "rules.toml"), "missing": str(folder / "no" / "x.json")}


#: (arguments, what the one line must say); {dir}, {garbage}, {toml}, {missing} are files
BAD = [
    (["systems", "--bogus"], "unrecognized arguments: --bogus"),
    (["dice", "2x6"], "'2x6'"),
    (["dice", "2d6", "--vs", "3q"], "'3q'"),
    (["dice", "2d6", "--dc", "10"], "--dc needs a single d20"),
    (["dice", "d20", "--dc", "x"], "expected an integer in ASCII digits, got 'x'"),
    (["solve", "nosuchsystem"], "unknown system 'nosuchsystem'"),
    (["solve", "blooded", "-o", "nosuch=1"], "unknown option 'nosuch'"),
    (["solve", "falkenstein", "--a", "fencing=ZZ"], "'ZZ'"),
    (["solve", "pathfinder", "--a", "damage=1d8+x"], "'1d8+x'"),
    (["solve", "falkenstein", "--ruleset", "{missing}"], "not found"),
    (["solve", "falkenstein", "--ruleset", "{toml}"], "rules.toml"),
    (["solve", "falkenstein", "--state", "round=zz"], "'zz'"),
    (["solve", "uchronia", "--state", "nosuch=1"], "nosuch"),
    (["solve", "falkenstein", "--by", "nosuch"], "unknown state field 'nosuch' for --by"),
    (["solve", "blooded", "--all-pairings"], "no ability to cross for --all-pairings"),
    (["solve", "falkenstein", "-o", "hidden_levels=true", "--state", "round=1"],
     "--state is not available with hidden information"),
    (["solve", "falkenstein", "--a", "fencing=GD", "--me", "fencing=GR"], "--me names side A"),
    (["odds", "blooded", "--vs", "nosuchthing"], "unknown opponent 'nosuchthing'"),
    (["odds", "falkenstein", "--vs", "equilbrium"], "did you mean 'equilibrium'?"),
    (["odds", "falkenstein", "--vs", "mix=ZZ:1"], "unknown action 'ZZ'"),
    (["odds", "uchronia", "--vs", "hothead:2"], "strength must be a number in [0, 1]"),
    (["odds", "pathfinder", "--vs", "bully:x"], "got 'x'"),
    (["odds", "pathfinder", "--vs", "bully:"], "strength must be a number in [0, 1], got ''"),
    (["odds", "falkenstein", "--vs", "{garbage}"], "not JSON"),
    (["odds", "falkenstein", "--vs", "{missing}"], "not found"),
    (["odds", "falkenstein", "--vs", "uniform", "--limit", "-1"], "--limit must be 0 or more"),
    (["odds", "falkenstein", "-o", "hidden_levels=true", "--vs", "cautious"],
     "the exact personality of a game with hidden information"),
    (["odds", "blooded", "--vs", "reckless", "-o", "max_beats=0"], "max_beats"),
    (["play", "uchronia", "--vs", "nosuch"], "unknown opponent 'nosuch'"),
    (["play", "falkenstein", "--seed", "-1"], "--seed must be an integer 0.."),
    (["play", "pathfinder", "--a", "nosuchsheet"], "unknown entry 'nosuchsheet'"),
    (["play", "blooded", "--vs", "{garbage}"], "not JSON"),
    # (--vs equilibrium plays the hidden-information equilibrium: tests/test_researchers.py)
    (["play", "falkenstein", "-o", "hidden_levels=true", "--vs", "cautious"],
     "is not available yet"),
    (["train", "falkenstein", "--personality", "nosuch", "--out", "{dir}/x.json"],
     "unknown personality 'nosuch'"),
    (["train", "falkenstein", "--strength", "0.5", "--out", "{dir}/x.json"],
     "--strength needs --personality"),
    (["train", "falkenstein", "--personality", "cautious", "--strength", "3", "--out",
      "{dir}/x.json"], "strength must be a number in [0, 1]"),
    (["train", "falkenstein", "--out", "{dir}"], "is a directory"),
    (["train", "falkenstein", "--out", "{missing}"], "does not exist"),
    (["train", "falkenstein", "--iterations", "0", "--out", "{dir}/x.json"],
     "iterations must be an integer >= 1"),
    (["train", "falkenstein", "--minutes", "-1", "--out", "{dir}/x.json"],
     "minutes must be a finite number > 0"),
    (["train", "blooded", "--seed", "x", "--network", "--out", "{dir}/x.json"],
     "seed must be an integer >= 0"),
    (["train", "uchronia", "-o", "mode=nosuch", "--out", "{dir}/x.json"], "'nosuch'"),
    (["profile", "show", "{missing}"], "not found"),
    (["profile", "validate", "{garbage}"], "not JSON"),
    (["profile", "show", "{dir}"], "is not a regular file (a directory)"),
]


@pytest.mark.parametrize("argv, said", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_line_and_code_2_before_any_heavy_import(argv, said, files):
    found = run_cli([part.format(**files) for part in argv])
    lines = found["stderr"].splitlines()
    assert found["code"] == 2, found
    assert len(lines) == 1, lines
    assert re.match(rf"duel( {argv[0]})?: error: ", lines[0]), lines
    assert said.format(**files) in lines[0]
    assert found["loaded"] == [], f"{' '.join(argv)} imported {found['loaded']} first"


@pytest.mark.parametrize("argv", [["--help"], ["solve", "--help"], ["dice", "2d6"],
                                  ["dice", "d20+9", "--dc", "15", "20"]])
def test_help_and_dice_import_no_numerical_library(argv):
    found = run_cli(argv, modules=(*HEAVY, "numpy", "scipy"))
    assert found["code"] == 0
    assert found["stdout"]
    assert found["loaded"] == []


def test_dice_odds_are_the_same_in_a_light_process():
    # 2d6 >= 10: 6 of the 36 rolls (4+6, 5+5, 5+6, 6+4, 6+5, 6+6) by hand
    found = run_cli(["dice", "2d6", "--at-least", "10", "--json"])
    document = json.loads(found["stdout"])
    assert document["at_least"] == [{"threshold": 10,
                                     "probability": {"fraction": "1/6", "float": 1 / 6}}]


def test_solver_and_envs_alone_pay_for_no_backend():
    script = """
import json, sys
import solver, solver.dice, solver.errors
two_d6 = solver.dice.parse_expression("2d6").distribution()
light = sorted(m for m in ("numpy", "scipy") + MODULES if m in sys.modules)
import envs
envs.make("pathfinder")
print(json.dumps({"seven": str(two_d6.probability(7)), "light": light,
                  "envs": sorted(m for m in MODULES if m in sys.modules)}))
"""
    found = json.loads(run_python(f"MODULES = {HEAVY!r}\n" + script))
    assert found == {"seven": "1/6", "light": [], "envs": []}


def test_the_solver_imports_scipy_sparse_only_to_build_a_matrix():
    """A question read back from the answer store builds no matrix: importing the
    solver's modules loads no scipy.sparse (0.3 s); building one does."""
    script = """
import json, sys
from solver import best_response, evaluate, solve_game
import solver.counters.cores, solver.hidden.sequence, solver.markov.response
before = "scipy.sparse" in sys.modules
from solver.sparse import sp
identity = sp.identity(3, format="csr")
print(json.dumps({"before": before, "after": "scipy.sparse" in sys.modules,
                  "trace": float(identity.diagonal().sum())}))
"""
    assert json.loads(run_python(script)) == {"before": False, "after": True, "trace": 3.0}


def test_the_duel_command_collects_garbage_rarely():
    """``duel`` sets the collector's thresholds before anything else (what a level-1
    question spent 1.2 s on): asked of the process as it exits, after a command."""
    script = ("import atexit, gc, sys\n"
              "atexit.register(lambda: print(gc.get_threshold()))\n"
              "sys.argv = ['duel', 'dice', '2d6']\n"
              "from agents.cli import entry_point\n"
              "entry_point()\n")
    assert run_python(script).strip().splitlines()[-1] == "(50000, 20, 10)"


def _exit_of(script: str) -> subprocess.CompletedProcess:
    """``script`` run with its output buffered, as it is for most users."""
    buffered = {name: value for name, value in os.environ.items()
                if name != "PYTHONUNBUFFERED"}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env=buffered)


def _leaving_after(script: str, code: int = 0) -> subprocess.CompletedProcess:
    """``script`` run with its output buffered, then ``duel``'s way of leaving."""
    return _exit_of(f"from agents.cli import _leave\n{script}_leave({code}, [])\n")


def test_leaving_flushes_what_was_written_and_keeps_the_exit_code():
    """``duel`` ends without Python's teardown: what sits in the output's buffer (a pipe
    is block-buffered) still reaches the reader, and the command's code is the process's."""
    done = _leaving_after("import sys\n"
                          "sys.stdout.write('x' * 100_000)\n"
                          "sys.stdout.write('end')\n"
                          "sys.stderr.write('said')\n", code=3)
    assert (done.returncode, len(done.stdout), done.stdout[-3:], done.stderr) == \
        (3, 100_003, "end", "said")


def test_leaving_runs_the_exit_handlers_and_delivers_what_they_print():
    """An exit handler (a library's, a user's) still runs, and what it prints reaches a
    pipe's reader although the process then ends without Python's teardown."""
    done = _leaving_after("import atexit\n"
                          "print('answer')\n"
                          "atexit.register(print, 'handler ran')\n")
    assert (done.returncode, done.stdout) == (0, "answer\nhandler ran\n")


def test_leaving_waits_for_a_thread_still_at_work():
    """A thread that is not a daemon finishes its work before the process ends, as on
    Python's own exit."""
    done = _leaving_after("import threading, time\n"
                          "late = lambda: (time.sleep(0.5), print('finished'))\n"
                          "threading.Thread(target=late).start()\n")
    assert (done.returncode, done.stdout) == (0, "finished\n")


def test_the_duel_command_prints_all_of_a_long_answer_into_a_pipe():
    """Every line of ``duel dice`` read through a pipe, as the same command prints it
    in the test's own process."""
    import contextlib
    import io

    from agents.cli import main
    here = io.StringIO()
    with contextlib.redirect_stdout(here):
        assert main(["dice", "12d10", "--json"]) == 0
    done = _exit_of("import sys\n"
                    "sys.argv = ['duel', 'dice', '12d10', '--json']\n"
                    "from agents.cli import entry_point\n"
                    "entry_point()\n")
    assert done.returncode == 0
    assert done.stdout == here.getvalue() and len(done.stdout) > 8192


def test_a_counter_solution_read_back_loads_without_numba(tmp_path):
    """A counter solution kept as the answer store keeps it (``solver.cache``) and read
    back in a fresh process: nothing compiled is imported (a warm answer's second), its
    equilibrium's ``ReplyGaps`` included."""
    import envs
    from solver.cache import write_answer
    from solver.counters.solution import solve_counters
    sheets = {"a": "fighter,hp=3", "b": "rogue,hp=3"}
    solution = solve_counters(envs.make("pathfinder", **sheets))
    path = tmp_path / "answer"
    path.write_bytes(b"".join(bytes(piece) for piece in write_answer(
        {"answer": solution}, solution.game)))
    script = f"""
import json, sys
import envs
from solver.cache import read_answer
game = envs.make("pathfinder", **{sheets!r})
solution = read_answer(open({str(path)!r}, "rb").read(), game)["answer"]
print(json.dumps({{"value": solution.value, "gaps": list(solution.reply_gaps),
                  "loaded": sorted(m for m in {HEAVY!r} if m in sys.modules)}}))
"""
    assert json.loads(run_python(script)) == {"value": solution.value,
                                              "gaps": list(solution.reply_gaps), "loaded": []}


def test_odds_read_back_load_without_numba(tmp_path, monkeypatch):
    """Odds asked again are read from the answer store with their plan, whose states over
    the counters are kept as arrays (``solver.decision_table.AttachedStates``): nothing
    compiled is imported, and the answer is the one first given."""
    monkeypatch.setenv("DUEL_CACHE_DIR", str(tmp_path))
    argv = ["odds", "pathfinder", "--a", "fighter,hp=6", "--b", "rogue,hp=6", "--vs",
            "equilibrium", "--limit", "3"]
    first = subprocess.run([sys.executable, "-m", "agents.cli", *argv], capture_output=True,
                           text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    again = run_cli(argv)
    assert (again["code"], again["loaded"]) == (0, [])
    assert again["stdout"] == first.stdout and "comes up" in again["stdout"]
