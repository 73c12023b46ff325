"""Speed of the exact Houses of the Blooded solver against the same backward induction
calling scipy's HiGHS (linprog) once per stage game, measured in one run.

    python experiments/bench_blooded.py [--largest-beats 30] [--baseline-beats 3]
                                        [--baseline-seconds 60] [--cases default,largest]
                                        [--json]

Cases: the default sheets (``prowess=3,sword=3`` against ``prowess=2,sword=4``, the
README's example) at the ruleset's 30 beats, and the largest sheets the specification
allows (Prowess 5, The Sword 5, Style 10 banked, an invoke, every maneuver known,
Strength and Athletics 5, mortal convention) on both sides at ``--largest-beats`` (30
by default, the ruleset's beats: about 110 s here).

Ours: a fresh game and ``solve_game`` (values, maximum-entropy mixes, win / draw /
loss), all timed. The beats left are the counter of ``solver.counters``: the states of
one beat without the beats left (the *cores*) are explored once, then solved once per
beat left; its stage games are the live cores times the beats.
The baseline (``experiments/baseline.py``) solves the state graph (every state with its
beat, built by ``envs/blooded/beats.py``, not timed) in the same order, one linprog
call per stage game; when that graph is too large to hold (the largest sheets at many
beats) it runs on the same sheets at ``--baseline-beats``. When it would take more
than ``--baseline-seconds`` it is stopped and its rate (stage games per second) is
taken from the part it solved. The ratio compares stage games per second: ours, the
exploration included, over the baseline's.
"""

from __future__ import annotations

import argparse
import json
import time

import report
from baseline import budgeted_baseline

import envs
from solver import solve_game
from solver.heap import keeping_freed_memory
from solver.markov.graph import build_graph

DEFAULT = ("prowess=3,sword=3", "prowess=2,sword=4")
LARGEST = ("prowess=5,sword=5,strength=5,athletics=5,style=10,invokes=1,"
           "bash,bind,blind,feint,lunge,riposte")
LARGEST_BEATS = 30
#: the most states the baseline's state graph may hold here (memory, and its budget)
BASELINE_STATES = 2_000_000


def measure(case: str, a: str, b: str, max_beats: int, budget: float,
            baseline_beats: int) -> dict:
    game = envs.make("blooded", a=a, b=b, convention="mortal", max_beats=max_beats)
    start = time.perf_counter()
    with keeping_freed_memory():   # as the CLI does (``solver.heap``)
        solution = solve_game(game)
    total = time.perf_counter() - start
    cores = solution.cores
    live = int((cores.mask_a.any(axis=1)).sum())
    stage_games = live * solution.grid.size
    beats = max_beats if live * max_beats <= BASELINE_STATES else baseline_beats
    reference = envs.make("blooded", a=a, b=b, convention="mortal", max_beats=beats)
    graph = build_graph(reference)
    base = budgeted_baseline(graph, budget)
    ours_rate = stage_games / total
    base_rate = base["stage_games"] / base["seconds"]
    same = beats == max_beats
    return {"case": case, "max_beats": max_beats, "cores": cores.size,
            "stage_games": stage_games, "seconds_total": total,
            "stage_games_per_second_ours": ours_rate, "baseline_beats": beats,
            "baseline_states": graph.size, "stage_games_per_second_linprog": base_rate,
            "speedup": ours_rate / base_rate, "baseline_finished": base["finished"],
            "value": solution.value, "win": solution.win, "draw": solution.draw,
            "loss": solution.loss,
            "value_gap": (abs(base["value"] - solution.value)
                          if same and base["value"] is not None else None)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="default,largest")
    parser.add_argument("--default-beats", type=int, default=30)
    parser.add_argument("--largest-beats", type=int, default=LARGEST_BEATS)
    parser.add_argument("--baseline-seconds", type=float, default=60.0,
                        help="stop the linprog baseline after this long per case")
    parser.add_argument("--baseline-beats", type=int, default=3,
                        help="beats of the baseline's state graph when the case's is "
                             "too large to hold")
    parser.add_argument("--json", action="store_true")
    report.add_flag(parser)
    args = parser.parse_args()
    setups = {"default": (*DEFAULT, args.default_beats),
              "largest": (LARGEST, LARGEST, args.largest_beats)}
    rows = [measure(case.strip(), *setups[case.strip()], args.baseline_seconds,
                    args.baseline_beats) for case in args.cases.split(",")]
    if args.write_docs:
        write_docs(rows)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'case':<9}{'beats':>6}{'cores':>10}{'stage games':>13}{'total s':>9}"
          f"{'ours games/s':>14}{'baseline':>10}{'linprog games/s':>17}{'ratio':>8}"
          f"{'|dv|':>9}")
    for r in rows:
        gap = "-" if r["value_gap"] is None else f"{r['value_gap']:.1e}"
        print(f"{r['case']:<9}{r['max_beats']:>6}{r['cores']:>10,}{r['stage_games']:>13,}"
              f"{r['seconds_total']:>9.1f}{r['stage_games_per_second_ours']:>14,.0f}"
              f"{r['baseline_beats']:>4} beats{r['stage_games_per_second_linprog']:>17,.0f}"
              f"{r['speedup']:>7.0f}x{gap:>9}")
    for r in rows:
        print(f"{r['case']}: A wins {r['win']:.1%}, draws {r['draw']:.1%}, loses "
              f"{r['loss']:.1%} (value {r['value']:+.4f})")
    print("total s: a fresh game's whole solution (its cores explored, then solved beat "
          "by beat); stage games: live cores times beats; baseline: the beats of the state "
          "graph the linprog baseline ran on (the case's own when it fits); ratio: stage "
          "games per second, ours over the baseline's (stopped after --baseline-seconds "
          "when it would take longer); |dv|: value difference when the baseline finished "
          "the same duel")


def write_docs(rows: list[dict]) -> None:
    report.write_section("bench_blooded", "Houses of the Blooded: beats left as a counter", [
        ("case", "case"), ("beats", "max_beats"), ("cores", "cores"),
        ("stage games", "stage_games"), ("total s", "seconds_total"),
        ("ours games/s", "stage_games_per_second_ours"),
        ("baseline beats", "baseline_beats"),
        ("linprog games/s", "stage_games_per_second_linprog"),
        ("ratio", lambda r: f"{r['speedup']:.0f}x"), ("value gap", "value_gap")], rows,
        notes="total s: a fresh game's whole solution (cores explored, then solved beat by "
              "beat). ratio: stage games per second, ours over the per-state linprog "
              "baseline's on the state graph (at the baseline's beats when the case's graph "
              "is too large to hold), stopped after --baseline-seconds.")


if __name__ == "__main__":
    main()
