"""The questions a game master asks at the table, timed as the GM waits for them: each
one cold (a fresh process, an empty answer store) and warm (asked again, the store
kept), with the peak memory of each process, then p50, p95 and max in one table.

    python experiments/bench_questions.py [--quick] [--only TEXT ...] [--repeats N]
                                          [--timeout S] [--json]

For each system: a ``solve``, an ``odds --vs equilibrium``, an ``odds`` against a
personality, an ``odds`` against a trained profile, the first step of ``play`` (``q``
on its input) and a ``profile show``, on realistic sheets: every system's reference
sheets, Pathfinder at level 1, 5 and 10, Houses of the Blooded's Prowess 4 / The Sword 3
with maneuvers, both Uchronia modes. The profiles are trained first, off the clock,
on each system's small example duel (``duel train ... --personality NAME``).

The full list takes many minutes (the largest duels minutes each): ``--only`` keeps
the questions whose label contains TEXT, ``--quick`` runs a small subset on tiny duels
(the test of the experiments runs it). The compiled solver (numba's cache) is kept
between runs, as on a GM's machine after the first question; the answer store is what
cold and warm differ by. The bytecode of each tree is compiled first, as installing a
wheel does: a machine that sets ``PYTHONDONTWRITEBYTECODE`` would otherwise compile every
module on every question (0.1 to 0.2 s of each bad-input answer here). Peak memory is the
process's ``ru_maxrss`` (``os.wait4``). A cold question is asked ``--repeats`` times (3 by
default) and its median run kept: on a shared machine one run of the same question moved
by a second or more from the next; it is then asked warm as many times, the median kept (a
warm answer takes tenths of a second, and one busy moment doubled it). A question's
seconds end when its process does (the prompt comes back); ``duel solve`` and ``odds``
then write their answers to the store in a process of their own (``agents.store``),
which the next question waits for before it starts, so that no question shares the
machine with the last one's writing: that wait is each run's ``keeping`` (seconds) in
``--json``.
"""

from __future__ import annotations

import argparse
import compileall
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.store import AnswerStore

ROOT = Path(__file__).resolve().parents[1]

#: (system, sheet of A, sheet of B, options, personality) of each realistic duel
PATHFINDER_5 = ("hp=68,ac=23,attack=15,damage=2d8+4,perception=12:expert,will=21,"
                "perception_dc=22",
                "hp=53,ac=22,attack=12,damage=2d6+4,agile,sneak=2d6,deception=12:expert,"
                "perception=12:expert,will=19,perception_dc=22")
#: level-10 sheets (``experiments/bench_pathfinder.py``'s): a fighter and a rogue
PATHFINDER_10 = ("hp=150,ac=29,attack=19,damage=2d8+10,perception=18:expert,"
                 "intimidation=17:expert,deception=15:trained,will=29,perception_dc=28",
                 "hp=140,ac=30,attack=20,damage=2d6+9,agile,sneak=3d6,perception=18:expert,"
                 "intimidation=14:trained,deception=19:expert,will=28,perception_dc=28")
DUELS = {
    "falkenstein": ("fencing=GR,physique=AV", "fencing=GD", [], "aggressive"),
    "blooded": ("duellist", "novice", [], "reckless"),
    "blooded maneuvers": ("prowess=4,sword=3,lunge,riposte", "novice", [], "reckless"),
    "pathfinder 1": ("fighter", "rogue", [], "bully"),
    "pathfinder 5": (*PATHFINDER_5, [], "bully"),
    "pathfinder 10": (*PATHFINDER_10, [], "bully"),
    "uchronia pistol": ("fine_shot", "cold_shot", ["mode=pistol"], "hothead"),
    "uchronia melee": ("fencer", "brawler", ["mode=melee"], "wrestler"),
}
#: the duels on default or reference sheets, whose cold questions the issue holds to a p95
REFERENCE_DUELS = ("falkenstein", "blooded", "pathfinder 1", "uchronia pistol",
                   "uchronia melee")
#: the duels the issue gives targets of their own (cold seconds of their longest question)
OWN_TARGETS = {"pathfinder 5": 30.0, "pathfinder 10": 120.0}
#: the limits the issue sets (seconds; megabytes)
AT_ONCE_SECONDS, WARM_SECONDS, REFERENCE_P95_SECONDS, PEAK_MB = 0.5, 1.0, 10.0, 4096.0
#: the duels on which every kind of question is asked (the others: solve and odds)
EVERY_QUESTION = ("falkenstein", "blooded", "pathfinder 1", "uchronia pistol")
#: the duels whose odds against the equilibrium are also asked with ``--no-cache``, the
#: largest the 4 GB limit holds for: without the store, nothing is read back as pages
WITHOUT_STORE = ("pathfinder 5",)
#: the tiny duels of ``--quick``
QUICK_DUELS = {"falkenstein": ("fencing=GR,physique=AV", "fencing=GD", ["max_rounds=2"],
                               "aggressive"),
               "uchronia": ("adresse,tireur", "sang-froid", ["max_turns=6"], "hothead")}
#: the small duel each system's profile is trained on (off the clock)
TRAINING = {"falkenstein": ["--a", "fencing=GR,physique=AV", "--b", "fencing=GD",
                            "-o", "max_rounds=2"],
            # the sheets of the duel asked: a Blooded action list depends on them
            "blooded": ["--a", "duellist", "--b", "novice", "-o", "max_beats=3"],
            "pathfinder": ["--a", "fighter,hp=6", "--b", "rogue,hp=6", "-o", "max_rounds=1"],
            "uchronia": ["--a", "adresse,tireur", "--b", "sang-froid", "-o", "max_turns=6"]}
TRAINING_ITERATIONS = 200
#: bad inputs, each refused in one line (exit 2): the time a user waits for the error
REFUSED = {
    "odds, an unknown opponent": ["odds", "blooded", "--vs", "nosuchthing"],
    "odds, a strength typed 0_5": ["odds", "blooded", "--vs", "reckless:0_5"],
    "solve, a huge damage bonus": ["solve", "pathfinder", "--a", "damage=1d8+999999999999"],
    "solve, 200 HP on both sides": ["solve", "pathfinder", "--a", "fighter,hp=200",
                                    "--b", "fighter,hp=200"],
    "solve, 200 beats bid every beat": ["solve", "blooded", "--a", "master", "--b", "master",
                                        "-o", "max_beats=200", "-o", "bid_every_beat=true"],
    "solve, a state past int's limit": ["solve", "falkenstein",
                                        "--state", "round=99999999999999999999"],
    "solve, a superscript in --state": ["solve", "uchronia", "-o", "mode=pistol",
                                        "--state", "band=\u00b2"],
    "train, a seed of 2^200": ["train", "blooded", "--seed", str(2**200), "--network",
                               "--out", "b.json"],
    "solve, an empty --ruleset": ["solve", "falkenstein", "--ruleset", ""],
}
#: the refusals of ``--quick``
QUICK_REFUSED = ("odds, an unknown opponent",)
#: what is answered at once, without a duel: the same wait is allowed as for a bad input
ANSWERED_AT_ONCE = {
    "duel --help": ["--help"],
    "duel solve --help": ["solve", "--help"],
    "duel dice, 2d6+3 at least 10": ["dice", "2d6+3", "--at-least", "10"],
    "duel dice, 1d20+7 vs 1d20+5": ["dice", "1d20+7", "--vs", "1d20+5"],
}


@dataclass
class Question:
    label: str
    argv: list[str]
    stdin: str = ""
    #: whether the question reads the store: one asked with --no-cache is never warm
    stored: bool = True


def system_of(duel: str) -> str:
    return duel.split()[0]


def duel_args(duel: tuple) -> list[str]:
    sheet_a, sheet_b, options, _ = duel
    return ["--a", sheet_a, "--b", sheet_b, *[part for o in options for part in ("-o", o)]]


def questions(duels: dict, every: tuple, profiles: dict[str, Path]) -> list[Question]:
    """The fixed list: on every duel a solve and odds against the equilibrium and a
    personality; on the duels of ``WITHOUT_STORE`` the odds against the equilibrium
    without the store too; on the duels of ``every`` also odds against the trained
    profile, the first step of play and the profile shown."""
    listed = []
    for name, duel in duels.items():
        system, game = system_of(name), duel_args(duel)
        listed += [Question(f"{name}: solve", ["solve", system, *game]),
                   Question(f"{name}: odds vs equilibrium",
                            ["odds", system, *game, "--vs", "equilibrium"]),
                   Question(f"{name}: odds vs {duel[3]}:0.5",
                            ["odds", system, *game, "--vs", f"{duel[3]}:0.5"])]
        if name in WITHOUT_STORE:
            listed.append(Question(f"{name}: odds vs equilibrium, --no-cache",
                                   ["odds", system, *game, "--vs", "equilibrium",
                                    "--no-cache"], stored=False))
        if name in every:
            profile = str(profiles[system])
            listed += [Question(f"{name}: odds vs trained profile",
                                ["odds", system, *game, "--vs", profile]),
                       Question(f"{name}: play, first step", ["play", system, *game], "q\n"),
                       Question(f"{name}: profile show", ["profile", "show", profile])]
    return listed


def refusals(labels) -> list[Question]:
    return [Question(f"refused: {label}", REFUSED[label]) for label in labels]


def answered_at_once() -> list[Question]:
    return [Question(f"at once: {label}", argv) for label, argv in ANSWERED_AT_ONCE.items()]


def measure_instant(listed: list[Question], folder: Path, timeout: float) -> list[dict]:
    """Each question in a fresh process, twice: the seconds before its answer or error."""
    rows = []
    for n, question in enumerate(listed):
        env = environment(folder / f"store-at-once-{n}")
        times = [run_once(question.argv, env, "", timeout) for _ in range(2)]
        rows.append({"question": question.label, "seconds": max(t["seconds"] for t in times),
                     "peak_mb": max(t["peak_mb"] for t in times),
                     "status": times[0]["status"], "error": times[0]["error"]})
        print(f"  {question.label}: {rows[-1]['seconds']:.2f} s ({rows[-1]['status']})",
              file=sys.stderr)
    return rows


def instant_table(rows: list[dict]) -> str:
    width = max(len(row["question"]) for row in rows)
    lines = [f"{'answered at once':<{width}}  {'s':>5}  {'MB':>4}  error", "-" * (width + 40)]
    lines += [f"{row['question']:<{width}}  {row['seconds']:5.2f}  {row['peak_mb']:4.0f}  "
              f"{row['status']}: {row['error'][:90]}" for row in rows]
    lines.append(f"{'max':<{width}}  {max(r['seconds'] for r in rows):5.2f}")
    return "\n".join(lines)


def duel_command() -> list[str]:
    # -P: the working directory is not put first on the path, so each tree's code is
    # the one on PYTHONPATH (run from a checkout, ``-m`` would import the checkout's)
    return [sys.executable, "-P", "-m", "agents.cli"]


def run_once(argv: list[str], env: dict, stdin: str, timeout: float) -> dict:
    """One question in a fresh process: seconds, peak memory (MB), exit status, and the
    warnings it said (an answer the store could not keep is asked cold again when
    asked warm: said, not hidden by a successful exit)."""
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        process = subprocess.Popen([*duel_command(), *argv], env=env, stdin=subprocess.PIPE,
                                   stdout=subprocess.DEVNULL, stderr=errors)
        killer = threading.Timer(timeout, process.kill)
        killer.start()
        try:
            process.stdin.write(stdin.encode())
            process.stdin.close()
        except BrokenPipeError:
            pass
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        killer.cancel()
        AnswerStore(env["DUEL_CACHE_DIR"]).settle()
        keeping = time.perf_counter() - started - seconds
        process.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        said = errors.read().decode(errors="replace").strip().splitlines()
    timed_out = seconds >= timeout and process.returncode < 0
    return {"seconds": seconds, "keeping": keeping, "peak_mb": usage.ru_maxrss / 1024,
            "status": "timeout" if timed_out else ("ok" if process.returncode == 0
                                                   else f"exit {process.returncode}"),
            "error": said[-1] if process.returncode and said else "",
            "warnings": [line for line in said if WARNING in line]}


#: what begins a warning of the command line (``agents.cli``)
WARNING = "duel: warning:"


PACKAGES = ("agents", "envs", "solver")


def compile_bytecode(tree: Path) -> None:
    for package in PACKAGES:
        compileall.compile_dir(tree / package, quiet=1)


def environment(store: Path, tree: Path = ROOT) -> dict:
    """A question's environment: its answer store, and the tree whose code answers it
    (this one, or ``--baseline``'s, first on the path)."""
    return dict(os.environ, DUEL_CACHE_DIR=str(store),
                PYTHONPATH=os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]))


def train_profiles(systems: list[str], folder: Path, personalities: dict[str, str],
                   timeout: float, tree: Path = ROOT) -> dict[str, Path]:
    """One profile per system, trained off the clock on its small duel (by ``tree``'s
    code: for the baseline the profiles are thrown away, the training only compiles its
    solver, as this tree's was, before anything is timed)."""
    profiles = {}
    for system in systems:
        out = folder / f"{system}.json"
        argv = ["train", system, *TRAINING[system], "--personality", personalities[system],
                "--iterations", str(TRAINING_ITERATIONS), "--out", str(out)]
        done = run_once(argv, environment(folder / "train-store", tree), "", timeout)
        if done["status"] != "ok" and tree == ROOT:
            raise SystemExit(f"training the {system} profile failed ({tree}): "
                             f"{done['error']}")
        if done["status"] != "ok":   # the baseline's is thrown away: its failure is a note
            print(f"  the baseline could not train the {system} profile: {done['error']}",
                  file=sys.stderr)
        profiles[system] = out
    return profiles


def prepare(systems: list[str], personalities: dict[str, str], folder: Path,
            timeout: float, tree: Path = ROOT) -> None:
    """Off the clock, an answer against a personality on each system's small duel by
    ``tree``'s code: numba compiles (or loads) every compiled part of
    the solver those questions use, as on a GM's machine after the first question, so
    that no tree's cold question pays for compiling."""
    for system in systems:
        # its own store, which no timed question reads (and --no-cache, which an older
        # tree may not have, is not needed)
        argv = ["odds", system, *TRAINING[system], "--vs", f"{personalities[system]}:0.5"]
        done = run_once(argv, environment(folder / "prepare-store", tree), "", timeout)
        if done["status"] != "ok":
            raise SystemExit(f"preparing {system} failed ({tree}): {done['error']}")


#: the tree of each side of a comparison, in the rows of ``measure``
SIDES = ("now", "baseline")


def measure(listed: list[Question], folder: Path, timeout: float,
            baseline: Path | None, repeats: int) -> list[dict]:
    """Each question cold ``repeats`` times (the median run kept: ``median_run``), then
    warm as many times (the median kept), on this tree and (with ``baseline``) on the
    baseline's, the two trees taking turns to go first from one run to the next (so
    that neither always meets the machine in the same state)."""
    trees = {"now": ROOT, **({"baseline": baseline} if baseline is not None else {})}
    rows = []
    for n, question in enumerate(listed):
        row = {"question": question.label, "stored": question.stored,
               **({"baseline": {}} if baseline else {})}
        colds: dict[str, list[dict]] = {side: [] for side in trees}
        for run in range(repeats):
            order = list(trees) if (n + run) % 2 == 0 else list(reversed(trees))
            for side in order:
                # an empty store: the question is asked cold (the last run's store is
                # then asked warm)
                env = environment(folder / f"store-{side}-{n}-{run}", trees[side])
                colds[side].append(run_once(question.argv, env, question.stdin, timeout))
        for side in trees:
            cold = median_run(colds[side])
            env = environment(folder / f"store-{side}-{n}-{repeats - 1}", trees[side])
            # asked again without the store, it is asked cold: not asked again; a warm
            # answer takes tenths of a second, which one busy moment doubles
            warm = median_run([run_once(question.argv, env, question.stdin, timeout)
                               for _ in range(repeats)]) if question.stored else cold
            _side(row, side).update(cold=cold, warm=warm)
        # its answers go: level 5's take gigabytes a run, and with the disk full a later
        # question's answers were not kept (asked warm, it was answered cold)
        for side, run in itertools.product(trees, range(repeats)):
            shutil.rmtree(folder / f"store-{side}-{n}-{run}", ignore_errors=True)
        rows.append(row)
        print(f"  {question.label}: {'; '.join(_said(_side(row, side), side) for side in trees)}",
              file=sys.stderr)
        for warning in _warnings([row["cold"], row["warm"]]):
            print(f"    {warning}", file=sys.stderr)
    return rows


def _warnings(runs: list[dict]) -> list[str]:
    """The distinct warnings of a question's runs, in the order first said."""
    return list(dict.fromkeys(line for run in runs for line in run.get("warnings", [])))


def _said(times: dict, side: str) -> str:
    return "; ".join(f"{side} {when} {_runs_said(times[when])}" for when in ("cold", "warm"))


def _runs_said(run: dict) -> str:
    """A median run's seconds, and every run's where there were several."""
    runs = run.get("runs", [])
    of = "" if len(runs) < 2 else " of " + ", ".join(f"{seconds:.2f}" for seconds in runs)
    return f"{run['seconds']:.2f} s{of} ({run['status']})"


def median_run(runs: list[dict]) -> dict:
    """The run of median time (of an even number, the slower of the middle two), with
    every run's seconds under ``runs`` and what any of them warned under ``warnings``;
    a run that failed is shown instead, never hidden by the others."""
    failed = [run for run in runs if run["status"] != "ok"]
    chosen = failed[0] if failed else sorted(runs, key=lambda run: run["seconds"])[
        len(runs) // 2]
    return dict(chosen, runs=[run["seconds"] for run in runs], warnings=_warnings(runs))


def _side(row: dict, side: str) -> dict:
    """A question's times on one tree: this tree's in the row itself, the baseline's
    under ``baseline``."""
    return row if side == "now" else row[side]


def summary(rows: list[dict]) -> dict:
    """p50, p95 and max of the seconds and the peak memory, cold and warm, of each tree
    measured (``baseline ...`` for the baseline's)."""
    out = {}
    for side in SIDES:
        if side != "now" and side not in rows[0]:
            continue
        prefix = "" if side == "now" else f"{side} "
        for when in ("cold", "warm"):
            # a question asked without the store is never warm: its cold is not counted
            asked = [row for row in rows if when == "cold" or row.get("stored", True)]
            for what in ("seconds", "peak_mb"):
                values = np.array([_side(row, side)[when][what] for row in asked])
                out[f"{prefix}{when} {what}"] = {
                    "p50": float(np.percentile(values, 50)),
                    "p95": float(np.percentile(values, 95)),
                    "max": float(values.max())} if asked else dict.fromkeys(("p50", "p95",
                                                                            "max"))
    return out


def targets(rows: list[dict], at_once: list[dict]) -> list[dict]:
    """Each of the issue's targets against this tree's measures: what is measured, the
    limit, and whether it is met. A question refused up front (it says what it needs)
    is not timed against a target; it is counted beside it."""
    def duel(row: dict) -> str:
        return row["question"].split(": ")[0]

    answered = [row for row in rows if row["cold"]["status"] == "ok"]
    found = []

    def add(target: str, values: list[float], limit: float, stat: str, refused: int = 0):
        if not values and not refused:
            return
        measured = (None if not values else
                    float(np.percentile(values, 95) if stat == "p95" else max(values)))
        found.append({"target": target, "measured": measured, "limit": limit,
                      "met": None if measured is None else measured < limit,
                      "questions": len(values), "refused": refused})

    add("bad input, help and dice: max s", [r["seconds"] for r in at_once], AT_ONCE_SECONDS,
        "max")
    add("warm: max s", [r["warm"]["seconds"] for r in answered if r.get("stored", True)],
        WARM_SECONDS, "max")
    add("cold, default or reference sheets: p95 s",
        [r["cold"]["seconds"] for r in answered if duel(r) in REFERENCE_DUELS],
        REFERENCE_P95_SECONDS, "p95")
    for name, limit in OWN_TARGETS.items():
        add(f"cold, {name}: max s", [r["cold"]["seconds"] for r in answered if duel(r) == name],
            limit, "max", sum(duel(r) == name for r in rows) - sum(
                duel(r) == name for r in answered))
    add("peak memory: max MB", [max(r["cold"]["peak_mb"], r["warm"]["peak_mb"])
                                for r in answered], PEAK_MB, "max", len(rows) - len(answered))
    return found


def targets_table(found: list[dict]) -> str:
    width = max(len(row["target"]) for row in found)
    lines = [f"{'target':<{width}}  {'measured':>9}  {'limit':>7}  met", "-" * (width + 30)]
    lines += [f"{row['target']:<{width}}  {_measured(row):>9}  {row['limit']:7.1f}  "
              f"{_met(row)}" + (f" ({row['refused']} refused up front)"
                                if row["refused"] and row["met"] is not None else "")
              for row in found]
    return "\n".join(lines)


def _measured(row: dict) -> str:
    return "-" if row["measured"] is None else f"{row['measured']:.2f}"


def _met(row: dict) -> str:
    """Whether a target is met; where every question was refused, that it was."""
    return "refused up front" if row["met"] is None else ("yes" if row["met"] else "no")


def _status(row: dict) -> str:
    said = [_side(row, side)[when]["status"] for side in SIDES
            if side == "now" or side in row for when in ("cold", "warm")]
    return said[0] if len(set(said)) == 1 else " / ".join(said)


def _columns(compared: bool) -> list[tuple[str, object]]:
    """(header, cell of a row) of the table: this tree's seconds and peak memory, and
    with a baseline its seconds and how many times longer it took (baseline / now)."""
    columns = [("cold s", lambda r: r["cold"]["seconds"]),
               ("warm s", lambda r: _warm(r)["seconds"])]
    if compared:
        columns += [("base cold s", lambda r: r["baseline"]["cold"]["seconds"]),
                    ("base warm s", lambda r: _warm(r["baseline"], r)["seconds"]),
                    ("cold x", lambda r: _ratio(r, "cold")),
                    ("warm x", lambda r: _ratio(r, "warm"))]
    columns += [("cold MB", lambda r: r["cold"]["peak_mb"]),
                ("warm MB", lambda r: _warm(r)["peak_mb"])]
    if compared:
        columns.append(("base cold MB", lambda r: r["baseline"]["cold"]["peak_mb"]))
    return columns


def _warm(times: dict, row: dict | None = None) -> dict:
    """A tree's warm times in a row; none (None each) for a question asked without the
    store, which is never warm, or where no question was (a total over none)."""
    if not (row or times).get("stored", True) or times["warm"]["seconds"] is None:
        return {"seconds": None, "peak_mb": None}
    return times["warm"]


def _ratio(row: dict, when: str) -> float | None:
    now = row["cold"] if when == "cold" else _warm(row)
    then = row["baseline"]["cold"] if when == "cold" else _warm(row["baseline"], row)
    if now["seconds"] is None or then["seconds"] is None:
        return None
    return then["seconds"] / max(now["seconds"], 1e-9)


def _totals(totals: dict, stat: str, compared: bool) -> dict:
    """A row of ``stat`` (p50, p95, max) in the shape of a question's row."""
    def side(prefix: str) -> dict:
        return {when: {what: totals[f"{prefix}{when} {what}"][stat]
                       for what in ("seconds", "peak_mb")} for when in ("cold", "warm")}
    row = {"question": stat, **side("")}
    if compared:
        row["baseline"] = side("baseline ")
    return row


def table(rows: list[dict], totals: dict) -> str:
    compared = "baseline" in rows[0]
    columns = _columns(compared)
    width = max(len(row["question"]) for row in rows)
    cells = [max(8, len(header)) for header, _ in columns]
    lines = ["  ".join([f"{'question':<{width}}", *(f"{h:>{w}}" for (h, _), w in
                                                   zip(columns, cells, strict=True)),
                        "status"])]
    lines.append("-" * len(lines[0]))

    def line(row: dict, status: str = "") -> str:
        values = [f"{'-':>{w}}" if read(row) is None else
                  f"{read(row):{w}.{0 if 'MB' in h else 2}f}"
                  for (h, read), w in zip(columns, cells, strict=True)]
        return "  ".join([f"{row['question']:<{width}}", *values, status]).rstrip()
    lines += [line(row, _status(row)) for row in rows]
    lines.append("-" * len(lines[0]))
    lines += [line(_totals(totals, stat, compared)) for stat in ("p50", "p95", "max")]
    return "\n".join(lines)


def write_docs(rows: list[dict], totals: dict, at_once: list[dict], repeats: int,
               met: list[dict]) -> None:
    """This run's tables as ``docs/performance.md``'s sections ``bench_questions``,
    ``bench_refusals`` and ``bench_targets``."""
    sys.path.insert(0, str(ROOT / "experiments"))
    import report

    if met:
        report.write_section(
            "bench_targets", "The issue's targets, measured",
            [("target", "target"), ("measured", _measured), ("limit", "limit"),
             ("met", _met), ("questions", "questions"),
             ("refused up front", "refused")], met,
            notes="From the run of the questions' and the refusals' tables, this tree's side: a "
                  "question "
                  "refused up front (it says the memory and time it needs, and stops) is "
                  "counted, not timed. The p95 is over the cold questions on default or "
                  "reference sheets (Falkenstein, Blooded, Pathfinder level 1 and both "
                  "Uchronia modes); Pathfinder levels 5 and 10 have limits of their own.")

    if at_once:
        report.write_section(
            "bench_refusals", "Bad inputs, help and dice: the wait before the answer",
            [("question", "question"), ("seconds", "seconds"), ("peak MB", "peak_mb"),
             ("status", "status"), ("error", lambda r: r["error"][:100])], at_once,
            notes="Each question twice in a fresh process; the longer wait is shown. "
                  "Target: under 0.5 s. The bytecode is compiled first, as installing a wheel "
                  "does (this machine sets PYTHONDONTWRITEBYTECODE, which added 0.1 to 0.2 s "
                  "of compiling to every earlier row).")
    if not rows:
        return

    compared = "baseline" in rows[0]
    columns = [("question", "question"), *_columns(compared),
               ("status", lambda r: r["status"] if "status" in r else _status(r))]
    listed = [*rows, *(dict(_totals(totals, stat, compared), status="")
                       for stat in ("p50", "p95", "max"))]
    notes = ("Each question in a fresh process: cold with an empty answer store, then warm "
             "(asked again, the store kept); peak memory is the process's. A question's "
             "seconds end with its process; an answer it hands to a writer of its own is in "
             "the store before the next question starts (that wait is each run's `keeping` "
             "in `--json`). numba's compiled code is on disk beforehand for every tree.")
    if repeats > 1:
        notes += (f" Cold is the median of {repeats} runs, each in a fresh process with an "
                  f"empty store; warm the median of {repeats} more, each in a fresh process "
                  "reading the last cold run's store (every run's seconds are in `--json`, "
                  "under `runs`).")
    if compared:
        notes += (" The baseline is an older tree run by the same interpreter in the same "
                  "run, the two trees taking turns; `cold x` and `warm x` are its seconds "
                  "over this tree's (above 1: this tree is faster).")
    report.write_section("bench_questions", "The questions a GM asks: cold and warm",
                         columns, listed, notes=notes)


def _positive(text: str) -> int:
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {number}")
    return number


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="a small subset on tiny duels (seconds, for the tests)")
    parser.add_argument("--only", metavar="TEXT", action="append",
                        help="only the questions whose label contains TEXT (repeatable: "
                        "any of them)")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds allowed to each question (default 600)")
    parser.add_argument("--baseline", metavar="TREE", type=Path,
                        help="also ask every question of an older tree of the project (e.g. "
                        "a git worktree of an older commit), in the same run")
    parser.add_argument("--repeats", type=_positive, default=3, metavar="N",
                        help="ask each question cold N times, each in a fresh process with "
                        "an empty store, and keep the median run (default 3: one run on a "
                        "shared machine moves by a second)")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument("--write-docs", action="store_true",
                        help="replace this benchmark's table in docs/performance.md")
    args = parser.parse_args(argv)
    if args.baseline is not None and not (args.baseline / "agents" / "cli").is_dir():
        raise SystemExit(f"--baseline {args.baseline}: not a tree of this project "
                         "(no agents/cli in it)")
    for tree in (ROOT, *([args.baseline] if args.baseline is not None else [])):
        compile_bytecode(tree)
    duels, every = (QUICK_DUELS, tuple(QUICK_DUELS)) if args.quick else (DUELS,
                                                                         EVERY_QUESTION)
    if args.quick:   # one profile is enough to time its two questions
        every = ("falkenstein",)
    personalities = {system_of(name): duel[3] for name, duel in duels.items()}
    with tempfile.TemporaryDirectory(prefix="bench-questions-") as name:
        folder = Path(name)
        planned = questions(duels, every, {s: folder / f"{s}.json" for s in personalities})
        quick = [*refusals(QUICK_REFUSED if args.quick else REFUSED), *answered_at_once()]
        if args.only:
            planned = [q for q in planned if any(text in q.label for text in args.only)]
            quick = [q for q in quick if any(text in q.label for text in args.only)]
        if not planned and not quick:
            raise SystemExit(f"no question matches --only {' or '.join(args.only)!r}")
        at_once = measure_instant(quick, folder, args.timeout)
        rows = ask(planned, folder, personalities, args) if planned else []
    totals = summary(rows) if rows else {}
    met = targets(rows, at_once)
    if args.json:
        json.dump({"questions": rows, "summary": totals, "at_once": at_once, "targets": met},
                  sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print("\n\n".join([*([table(rows, totals)] if rows else []),
                            *([instant_table(at_once)] if at_once else []),
                            *([targets_table(met)] if met else [])]))
    if args.write_docs:
        write_docs(rows, totals, at_once, args.repeats, met)
    return 0


def ask(planned: list[Question], folder: Path, personalities: dict, args) -> list[dict]:
    """The GM's questions timed, after their profiles are trained and the solver is
    compiled, off the clock, for this tree and the baseline's."""
    needed = sorted({q.argv[1] if q.argv[0] != "profile" else Path(q.argv[2]).stem
                     for q in planned if any(str(folder) in part for part in q.argv)})
    asked = sorted({system_of(q.label.split(": ")[0]) for q in planned})
    train_profiles(needed, folder, personalities, args.timeout)
    prepare(asked, personalities, folder, args.timeout)
    if args.baseline is not None:
        (folder / "baseline").mkdir()
        train_profiles(needed, folder / "baseline", personalities, args.timeout,
                       args.baseline.resolve())
        prepare(asked, personalities, folder / "baseline", args.timeout,
                args.baseline.resolve())
    return measure(planned, folder, args.timeout,
                   None if args.baseline is None else args.baseline.resolve(), args.repeats)


if __name__ == "__main__":
    sys.exit(main())
