"""Speed of the exact Houses of the Blooded solver against the same backward induction
calling scipy's HiGHS (linprog) once per stage game, measured in one run.

    python experiments/bench_blooded.py [--largest-beats 5] [--baseline-seconds 60]
                                        [--cases default,largest] [--json]

Cases: the default sheets (``prowess=3,sword=3`` against ``prowess=2,sword=4``, the
README's example) at the ruleset's 30 beats, and the largest sheets the specification
allows (Prowess 5, The Sword 5, Style 10 banked, an invoke, every maneuver known,
Strength and Athletics 5, mortal convention) on both sides at ``--largest-beats``
beats (the most that fit in 2 minutes here; 30 are out of reach, see the README).

Ours: a fresh game, its state graph (built beat by beat, ``envs/blooded/beats.py``)
and ``solve_game`` (values, maximum-entropy mixes, win / draw / loss), all timed.
The baseline (``experiments/baseline.py``) solves the same graph in the same order,
one linprog call per stage game, without the time to build the graph; when it would
take more than ``--baseline-seconds`` it is stopped and its rate (stage games per
second) is taken from the part it solved. The ratio compares stage games per second:
ours, graph included, over the baseline's.
"""

from __future__ import annotations

import argparse
import json
import time

from baseline import budgeted_baseline

import envs
from solver import solve_game
from solver.graph import build_graph

DEFAULT = ("prowess=3,sword=3", "prowess=2,sword=4")
LARGEST = ("prowess=5,sword=5,strength=5,athletics=5,style=10,invokes=1,"
           "bash,bind,blind,feint,lunge,riposte")
LARGEST_BEATS = 4


def measure(case: str, a: str, b: str, max_beats: int, budget: float) -> dict:
    game = envs.make("blooded", a=a, b=b, convention="mortal", max_beats=max_beats)
    start = time.perf_counter()
    graph = build_graph(game)
    built = time.perf_counter() - start
    solution = solve_game(game)
    total = time.perf_counter() - start
    stage_games = int((~graph.terminal).sum())
    base = budgeted_baseline(graph, budget)
    ours_rate = stage_games / total
    base_rate = base["stage_games"] / base["seconds"]
    return {"case": case, "max_beats": max_beats, "states": graph.size,
            "stage_games": stage_games, "seconds_graph": built, "seconds_total": total,
            "states_per_second": graph.size / total, "stage_games_per_second_ours": ours_rate,
            "stage_games_per_second_linprog": base_rate, "speedup": ours_rate / base_rate,
            "baseline_finished": base["finished"], "value": solution.value,
            "win": solution.win, "draw": solution.draw, "loss": solution.loss,
            "value_gap": None if base["value"] is None else abs(base["value"] - solution.value)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="default,largest")
    parser.add_argument("--default-beats", type=int, default=30)
    parser.add_argument("--largest-beats", type=int, default=LARGEST_BEATS)
    parser.add_argument("--baseline-seconds", type=float, default=60.0,
                        help="stop the linprog baseline after this long per case")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    setups = {"default": (*DEFAULT, args.default_beats),
              "largest": (LARGEST, LARGEST, args.largest_beats)}
    rows = [measure(case.strip(), *setups[case.strip()], args.baseline_seconds)
            for case in args.cases.split(",")]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'case':<9}{'beats':>6}{'states':>9}{'stage games':>12}{'graph s':>9}"
          f"{'total s':>9}{'states/s':>10}{'ours games/s':>14}{'linprog games/s':>17}"
          f"{'ratio':>8}{'|dv|':>9}")
    for r in rows:
        gap = "-" if r["value_gap"] is None else f"{r['value_gap']:.1e}"
        print(f"{r['case']:<9}{r['max_beats']:>6}{r['states']:>9}{r['stage_games']:>12}"
              f"{r['seconds_graph']:>9.1f}{r['seconds_total']:>9.1f}"
              f"{r['states_per_second']:>10.0f}{r['stage_games_per_second_ours']:>14.0f}"
              f"{r['stage_games_per_second_linprog']:>17.0f}{r['speedup']:>7.0f}x{gap:>9}")
    for r in rows:
        print(f"{r['case']}: A wins {r['win']:.1%}, draws {r['draw']:.1%}, loses "
              f"{r['loss']:.1%} (value {r['value']:+.4f})")
    print("total s: a fresh game's state graph and its whole solution; ratio: stage games "
          "per second, ours (graph included) over the linprog baseline's on the same graph "
          "(stopped after --baseline-seconds when it would take longer); |dv|: value "
          "difference when the baseline finished")


if __name__ == "__main__":
    main()
