"""Answers against a fixed opponent over the counters (``solver.counter_play``) beside
the state graph's (``solver.response``, ``solver.evaluate``, ``solver.regularized``),
in the same run, on Pathfinder's fighter against rogue to knockout.

At hit points where the state graph fits, both are timed on the same questions (best
response with the safest tie-break, a pair's evaluation, a regularised solve) and their
answers compared; at full hit points (15.5M states) only the counters answer. Each
row's time includes reading the opponent into the solver's layout; the cores and the
state graph are explored before the clock starts (both are cached per game).

    python experiments/bench_counter_play.py [--hp 4 8] [--full]
"""

from __future__ import annotations

import argparse
import time

import envs
from agents.personalities import temperament
from solver import solve_game
from solver.counter_play import counter_best_response, counter_evaluate, counter_regularized
from solver.counters import explore
from solver.evaluate import evaluate
from solver.graph import build_graph
from solver.heap import keeping_freed_memory
from solver.regularized import solve_regularized
from solver.response import best_response


def _timed(work):
    began = time.perf_counter()
    found = work()
    return found, time.perf_counter() - began


def _questions(game):
    """name -> (counters' answer, graph's answer), each a function of the game."""
    with keeping_freed_memory():
        equilibrium = solve_game(game)
    # the counters' answers with freed memory kept, as the CLI runs them (``solver.heap``;
    # a decorator enters it afresh on each call)
    kept = keeping_freed_memory()
    safest = equilibrium.policy_for("a")
    bully = temperament("pathfinder", "bully").policy(game)
    return {
        "best response to uniform (safest)": (
            kept(lambda: counter_best_response(game, "uniform", "a", safest=safest).value),
            lambda: best_response(game, "uniform", "a", safest=safest).value),
        "bully against uniform, evaluated": (
            kept(lambda: counter_evaluate(game, "uniform", bully).value),
            lambda: evaluate(game, "uniform", bully).value),
        "bully regularised, beta 0.3": (
            kept(lambda: counter_regularized(game, "b", bully, 0.3).value),
            lambda: solve_regularized(game, "b", bully, 0.3).value),
    }


def _row(hp: int | None) -> None:
    sheets = ({"a": "fighter", "b": "rogue"} if hp is None else
              {"a": f"fighter,hp={hp}", "b": f"rogue,hp={hp}"})
    game = envs.make("pathfinder", **sheets)
    cores, grid, _ = explore(game)
    graph = None if hp is None else build_graph(game)
    label = "20 / 17 HP" if hp is None else f"{hp} / {hp} HP"
    states = f"{cores.size * grid.size:,} bound" if graph is None else f"{graph.size:,}"
    for name, (on_counters, on_graph) in _questions(game).items():
        fast, fast_s = _timed(on_counters)
        if graph is None:
            print(f"| {label} | {states} | {name} | {fast_s:.1f} | - | - | - |")
            continue
        slow, slow_s = _timed(on_graph)
        print(f"| {label} | {states} | {name} | {fast_s:.1f} | {slow_s:.1f} | "
              f"{slow_s / fast_s:.2f}x | {abs(fast - slow):.1e} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hp", type=int, nargs="*", default=[4, 8],
                        help="hit points of both sheets where the state graph also answers")
    parser.add_argument("--full", action="store_true",
                        help="also the reference sheets at full hit points (counters only)")
    args = parser.parse_args()
    print("| hit points | states | question | counters s | state graph s | "
          "graph / counters | answers differ by |")
    print("|---|---|---|---|---|---|---|")
    for hp in args.hp:
        _row(hp)
    if args.full:
        _row(None)


if __name__ == "__main__":
    main()
