"""Speed of the exact Houses of the Blooded solver against the same backward induction
calling scipy's HiGHS (linprog) once per state, measured in one run.

    python experiments/bench_blooded.py [--max-beats N] [--cases default,largest]
                                        [--repeats 1] [--json]

Cases: the default sheets, and the largest sheets the specification allows (Prowess 5,
The Sword 5, Style 10 banked, an invoke, every maneuver known, mortal convention) on
both sides. Both solvers start from a fresh game (no cached graph) and explore the
same state graph with the same code (timed apart as "explore"); the baseline then
solves each stage game by its own linprog call (``experiments/baseline.py``), ours
solves the graph in batches and refines every mix to the maximum-entropy one.
"""

from __future__ import annotations

import argparse
import json
import time

from baseline import baseline_solve

import envs
from solver import solve_game
from solver.graph import build_graph

LARGEST = "prowess=5,sword=5,strength=5,athletics=5,style=10,invokes=1," \
          "bash,bind,blind,feint,lunge,riposte"
CASES = {"default": ({}, {}), "largest": (LARGEST, LARGEST)}


def game_of(case: str, max_beats: int | None):
    a, b = CASES[case]
    options = {} if max_beats is None else {"max_beats": max_beats}
    return envs.make("blooded", a=a, b=b, convention="mortal", **options)


def timed(solve, case: str, max_beats: int | None) -> tuple[float, float]:
    game = game_of(case, max_beats)
    start = time.perf_counter()
    value = solve(game)
    return time.perf_counter() - start, value


def measure(case: str, max_beats: int | None, repeats: int) -> dict:
    ours = linprog = explore = float("inf")
    for _ in range(repeats):
        seconds, value_ours = timed(lambda g: solve_game(g).value, case, max_beats)
        ours = min(ours, seconds)
        game = game_of(case, max_beats)  # exploring alone, with the dice tables warm
        start = time.perf_counter()
        graph = build_graph(game)
        explore = min(explore, time.perf_counter() - start)
        seconds, value_linprog = timed(baseline_solve, case, max_beats)
        linprog = min(linprog, seconds)
    stage_games = int((~graph.terminal).sum())
    return {"case": case, "max_beats": game.info.options["max_beats"], "states": graph.size,
            "stage_games": stage_games, "seconds_explore": explore, "seconds_ours": ours,
            "seconds_linprog": linprog, "states_per_second_ours": graph.size / ours,
            "states_per_second_linprog": graph.size / linprog,
            "speedup": linprog / ours, "value": value_ours,
            "max_value_gap": abs(value_ours - value_linprog)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-beats", type=int, default=None,
                        help="beats before the draw (default: the ruleset's, 30)")
    parser.add_argument("--cases", default="default,largest")
    parser.add_argument("--repeats", type=int, default=1, help="best of this many runs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [measure(case.strip(), args.max_beats, args.repeats)
            for case in args.cases.split(",")]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'case':<10}{'beats':>6}{'states':>10}{'stage games':>12}{'explore s':>10}"
          f"{'ours s':>9}{'linprog s':>11}{'ours st/s':>11}{'linprog st/s':>13}"
          f"{'speedup':>9}{'|dv|':>9}")
    for r in rows:
        print(f"{r['case']:<10}{r['max_beats']:>6}{r['states']:>10}{r['stage_games']:>12}"
              f"{r['seconds_explore']:>10.2f}{r['seconds_ours']:>9.2f}"
              f"{r['seconds_linprog']:>11.2f}{r['states_per_second_ours']:>11.0f}"
              f"{r['states_per_second_linprog']:>13.0f}{r['speedup']:>8.1f}x"
              f"{r['max_value_gap']:>9.1e}")


if __name__ == "__main__":
    main()
