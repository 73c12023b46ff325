"""The questions a game master asks at the table, timed as the GM waits for them: each
one cold (a fresh process, an empty answer store) and warm (asked again, the store
kept), with the peak memory of each process, then p50, p95 and max in one table.

    python experiments/bench_questions.py [--quick] [--only TEXT] [--timeout S] [--json]

For each system: a ``solve``, an ``odds --vs equilibrium``, an ``odds`` against a
personality, an ``odds`` against a trained profile, the first step of ``play`` (``q``
on its input) and a ``profile show``, on realistic sheets: every system's reference
sheets, Pathfinder at level 1 and 5, Houses of the Blooded's Prowess 4 / The Sword 3
with maneuvers, both Uchronia modes. The profiles are trained first, off the clock,
on each system's small example duel (``duel train ... --personality NAME``).

The full list takes many minutes (the largest duels minutes each): ``--only`` keeps
the questions whose label contains TEXT, ``--quick`` runs a small subset on tiny duels
(the test of the experiments runs it). The compiled solver (numba's cache) is kept
between runs, as on a GM's machine after the first question; the answer store is what
cold and warm differ by. Peak memory is the process's ``ru_maxrss`` (``os.wait4``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

#: (system, sheet of A, sheet of B, options, personality) of each realistic duel
PATHFINDER_5 = ("hp=68,ac=23,attack=15,damage=2d8+4,perception=12:expert,will=21,"
                "perception_dc=22",
                "hp=53,ac=22,attack=12,damage=2d6+4,agile,sneak=2d6,deception=12:expert,"
                "perception=12:expert,will=19,perception_dc=22")
DUELS = {
    "falkenstein": ("fencing=GR,physique=AV", "fencing=GD", [], "aggressive"),
    "blooded": ("duellist", "novice", [], "reckless"),
    "blooded maneuvers": ("prowess=4,sword=3,lunge,riposte", "novice", [], "reckless"),
    "pathfinder 1": ("fighter", "rogue", [], "bully"),
    "pathfinder 5": (*PATHFINDER_5, [], "bully"),
    "uchronia pistol": ("fine_shot", "cold_shot", ["mode=pistol"], "hothead"),
    "uchronia melee": ("fencer", "brawler", ["mode=melee"], "wrestler"),
}
#: the duels on which every kind of question is asked (the others: solve and odds)
EVERY_QUESTION = ("falkenstein", "blooded", "pathfinder 1", "uchronia pistol")
#: the tiny duels of ``--quick``
QUICK_DUELS = {"falkenstein": ("fencing=GR,physique=AV", "fencing=GD", ["max_rounds=2"],
                               "aggressive"),
               "uchronia": ("adresse,tireur", "sang-froid", ["max_turns=6"], "hothead")}
#: the small duel each system's profile is trained on (off the clock)
TRAINING = {"falkenstein": ["--a", "fencing=GR,physique=AV", "--b", "fencing=GD",
                            "-o", "max_rounds=2"],
            "blooded": ["--a", "prowess=2,sword=1", "--b", "prowess=1,sword=2",
                        "-o", "max_beats=3"],
            "pathfinder": ["--a", "fighter,hp=6", "--b", "rogue,hp=6", "-o", "max_rounds=1"],
            "uchronia": ["--a", "adresse,tireur", "--b", "sang-froid", "-o", "max_turns=6"]}
TRAINING_ITERATIONS = 200


@dataclass
class Question:
    label: str
    argv: list[str]
    stdin: str = ""


def system_of(duel: str) -> str:
    return duel.split()[0]


def duel_args(duel: tuple) -> list[str]:
    sheet_a, sheet_b, options, _ = duel
    return ["--a", sheet_a, "--b", sheet_b, *[part for o in options for part in ("-o", o)]]


def questions(duels: dict, every: tuple, profiles: dict[str, Path]) -> list[Question]:
    """The fixed list: on every duel a solve and odds against the equilibrium and a
    personality; on the duels of ``every`` also odds against the trained profile, the
    first step of play and the profile shown."""
    listed = []
    for name, duel in duels.items():
        system, game = system_of(name), duel_args(duel)
        listed += [Question(f"{name}: solve", ["solve", system, *game]),
                   Question(f"{name}: odds vs equilibrium",
                            ["odds", system, *game, "--vs", "equilibrium"]),
                   Question(f"{name}: odds vs {duel[3]}:0.5",
                            ["odds", system, *game, "--vs", f"{duel[3]}:0.5"])]
        if name in every:
            profile = str(profiles[system])
            listed += [Question(f"{name}: odds vs trained profile",
                                ["odds", system, *game, "--vs", profile]),
                       Question(f"{name}: play, first step", ["play", system, *game], "q\n"),
                       Question(f"{name}: profile show", ["profile", "show", profile])]
    return listed


def duel_command() -> list[str]:
    return [sys.executable, "-m", "agents.cli"]


def run_once(argv: list[str], env: dict, stdin: str, timeout: float) -> dict:
    """One question in a fresh process: seconds, peak memory (MB), exit status."""
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
        process.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        said = errors.read().decode(errors="replace").strip().splitlines()
    timed_out = seconds >= timeout and process.returncode < 0
    return {"seconds": seconds, "peak_mb": usage.ru_maxrss / 1024,
            "status": "timeout" if timed_out else ("ok" if process.returncode == 0
                                                   else f"exit {process.returncode}"),
            "error": said[-1] if process.returncode and said else ""}


def environment(store: Path) -> dict:
    return dict(os.environ, DUEL_CACHE_DIR=str(store),
                PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


def train_profiles(systems: list[str], folder: Path, personalities: dict[str, str],
                   timeout: float) -> dict[str, Path]:
    """One profile per system, trained off the clock on its small duel."""
    profiles = {}
    for system in systems:
        out = folder / f"{system}.json"
        argv = ["train", system, *TRAINING[system], "--personality", personalities[system],
                "--iterations", str(TRAINING_ITERATIONS), "--out", str(out)]
        done = run_once(argv, environment(folder / "train-store"), "", timeout)
        if done["status"] != "ok":
            raise SystemExit(f"training the {system} profile failed: {done['error']}")
        profiles[system] = out
    return profiles


def measure(listed: list[Question], folder: Path, timeout: float) -> list[dict]:
    rows = []
    for n, question in enumerate(listed):
        env = environment(folder / f"store-{n}")   # empty: the question is asked cold
        cold = run_once(question.argv, env, question.stdin, timeout)
        warm = run_once(question.argv, env, question.stdin, timeout)
        rows.append({"question": question.label, "cold": cold, "warm": warm})
        print(f"  {question.label}: cold {cold['seconds']:.2f} s ({cold['status']}), "
              f"warm {warm['seconds']:.2f} s ({warm['status']})", file=sys.stderr)
    return rows


def summary(rows: list[dict]) -> dict:
    """p50, p95 and max of the seconds and the peak memory, cold and warm."""
    out = {}
    for when in ("cold", "warm"):
        for what in ("seconds", "peak_mb"):
            values = np.array([row[when][what] for row in rows])
            out[f"{when} {what}"] = {"p50": float(np.percentile(values, 50)),
                                     "p95": float(np.percentile(values, 95)),
                                     "max": float(values.max())}
    return out


def table(rows: list[dict], totals: dict) -> str:
    width = max(len(row["question"]) for row in rows)
    lines = [f"{'question':<{width}}  {'cold s':>8}  {'warm s':>8}  {'cold MB':>8}  "
             f"{'warm MB':>8}  status"]
    lines.append("-" * len(lines[0]))
    for row in rows:
        cold, warm = row["cold"], row["warm"]
        status = cold["status"] if cold["status"] == warm["status"] else (
            f"{cold['status']} / {warm['status']}")
        lines.append(f"{row['question']:<{width}}  {cold['seconds']:8.2f}  "
                     f"{warm['seconds']:8.2f}  {cold['peak_mb']:8.0f}  {warm['peak_mb']:8.0f}"
                     f"  {status}")
    lines.append("-" * len(lines[0]))
    for stat in ("p50", "p95", "max"):
        lines.append(f"{stat:<{width}}  {totals['cold seconds'][stat]:8.2f}  "
                     f"{totals['warm seconds'][stat]:8.2f}  "
                     f"{totals['cold peak_mb'][stat]:8.0f}  {totals['warm peak_mb'][stat]:8.0f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="a small subset on tiny duels (seconds, for the tests)")
    parser.add_argument("--only", metavar="TEXT",
                        help="only the questions whose label contains TEXT")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds allowed to each question (default 600)")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    args = parser.parse_args(argv)
    duels, every = (QUICK_DUELS, tuple(QUICK_DUELS)) if args.quick else (DUELS,
                                                                         EVERY_QUESTION)
    if args.quick:   # one profile is enough to time its two questions
        every = ("falkenstein",)
    personalities = {system_of(name): duel[3] for name, duel in duels.items()}
    with tempfile.TemporaryDirectory(prefix="bench-questions-") as name:
        folder = Path(name)
        planned = questions(duels, every, {s: folder / f"{s}.json" for s in personalities})
        if args.only:
            planned = [q for q in planned if args.only in q.label]
        if not planned:
            raise SystemExit(f"no question matches --only {args.only!r}")
        needed = sorted({q.argv[1] if q.argv[0] != "profile" else Path(q.argv[2]).stem
                         for q in planned if any(str(folder) in part for part in q.argv)})
        train_profiles(needed, folder, personalities, args.timeout)
        rows = measure(planned, folder, args.timeout)
    totals = summary(rows)
    if args.json:
        json.dump({"questions": rows, "summary": totals}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(table(rows, totals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
