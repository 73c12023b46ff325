"""Speed of the exact Castle Falkenstein solver against the same backward induction
calling scipy's HiGHS (linprog) once per state, measured in one run.

    python experiments/bench_falkenstein.py [--repeats 3] [--json]

Both sides explore the state graph with the same code; the baseline then solves each
stage game by its own linprog call (value and one optimal mix), ours solves each level
of the graph in one batch and also refines every mix to the maximum-entropy one.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import report
from baseline import baseline_solve

import envs
from solver import solve_game
from solver.heap import keeping_freed_memory
from solver.markov.graph import build_graph

LEVELS = ("PR", "AV", "GD", "GR", "EXC", "EXT")


def ours_solve(game) -> float:
    with keeping_freed_memory():   # as the CLI does (``solver.heap``)
        return solve_game(game).value


def timed(solve, games) -> tuple[float, list[float]]:
    start = time.perf_counter()
    values = [solve(game) for game in games]
    return time.perf_counter() - start, values


def duel(a: str, b: str, max_rounds: int | None = None):
    return envs.make("falkenstein", a={"fencing": a}, b={"fencing": b}, max_rounds=max_rounds)


def measure(name: str, make_games, repeats: int) -> dict:
    best = {"ours": np.inf, "linprog": np.inf}
    for _ in range(repeats):
        for key, solve in (("ours", ours_solve), ("linprog", baseline_solve)):
            games = make_games()  # fresh games: no cached graph
            seconds, values = timed(solve, games)
            best[key] = min(best[key], seconds)
            if key == "ours":
                ours_values = values
            else:
                gap = max(abs(x - y) for x, y in zip(ours_values, values, strict=True))
    games = make_games()
    states = sum(int((~build_graph(g).terminal).sum()) for g in games)
    return {"case": name, "stage_games": states, "seconds_ours": best["ours"],
            "seconds_linprog": best["linprog"], "states_per_second_ours": states / best["ours"],
            "states_per_second_linprog": states / best["linprog"],
            "speedup": best["linprog"] / best["ours"], "max_value_gap": gap}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs")
    parser.add_argument("--max-rounds", type=int, default=None,
                        help="rounds of every duel (default: the ruleset's)")
    parser.add_argument("--json", action="store_true")
    report.add_flag(parser)
    args = parser.parse_args()
    rounds = args.max_rounds
    rows = [
        measure("AV vs GD, default options", lambda: [duel("AV", "GD", rounds)], args.repeats),
        measure("all 36 pairings",
                lambda: [duel(a, b, rounds) for a in LEVELS for b in LEVELS],
                max(1, args.repeats - 2)),
    ]
    if args.write_docs:
        write_docs(rows)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'case':<28}{'stage games':>12}{'ours s':>10}{'linprog s':>11}"
          f"{'ours st/s':>11}{'linprog st/s':>14}{'speedup':>9}{'max |dv|':>10}")
    for r in rows:
        print(f"{r['case']:<28}{r['stage_games']:>12}{r['seconds_ours']:>10.3f}"
              f"{r['seconds_linprog']:>11.3f}{r['states_per_second_ours']:>11.0f}"
              f"{r['states_per_second_linprog']:>14.0f}{r['speedup']:>8.1f}x"
              f"{r['max_value_gap']:>10.1e}")


def write_docs(rows: list[dict]) -> None:
    report.write_section("bench_falkenstein", "Castle Falkenstein: the whole duel", [
        ("case", "case"), ("stage games", "stage_games"), ("ours s", "seconds_ours"),
        ("linprog s", "seconds_linprog"), ("ratio", lambda r: f"{r['speedup']:.1f}x"),
        ("max value gap", "max_value_gap")], rows,
        notes="ratio: the per-state linprog backward induction's time over ours, the same "
              "duels in the same run.")


if __name__ == "__main__":
    main()
