"""Answers against a fixed opponent over the counters (``solver.counters.play``) beside
the state graph's (``solver.markov.response``, ``solver.markov.evaluate``,
``solver.markov.regularized``),
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

import report

import envs
from agents.temperaments import temperament
from solver import solve_game
from solver.counters import explore
from solver.counters.play import counter_best_response, counter_evaluate
from solver.counters.regularized import counter_regularized
from solver.heap import keeping_freed_memory
from solver.markov.evaluate import evaluate_graph
from solver.markov.graph import build_graph
from solver.markov.regularized import solve_regularized_graph
from solver.markov.response import best_response_graph


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
            lambda: best_response_graph(game, "uniform", "a", safest=safest).value),
        "bully against uniform, evaluated": (
            kept(lambda: counter_evaluate(game, "uniform", bully).value),
            lambda: evaluate_graph(game, "uniform", bully).value),
        "bully regularised, beta 0.3": (
            kept(lambda: counter_regularized(game, "b", bully, 0.3).value),
            lambda: solve_regularized_graph(game, "b", bully, 0.3).value),
    }


def _row(hp: int | None) -> list[dict]:
    """Time the questions at these hit points, print their rows, and return them."""
    sheets = ({"a": "fighter", "b": "rogue"} if hp is None else
              {"a": f"fighter,hp={hp}", "b": f"rogue,hp={hp}"})
    game = envs.make("pathfinder", **sheets)
    cores, grid, _ = explore(game)
    graph = None if hp is None else build_graph(game)
    label = "20 / 17 HP" if hp is None else f"{hp} / {hp} HP"
    states = f"{cores.size * grid.size:,} bound" if graph is None else f"{graph.size:,}"
    rows = []
    for name, (on_counters, on_graph) in _questions(game).items():
        fast, fast_s = _timed(on_counters)
        row = {"hit points": label, "states": states, "question": name,
               "counters s": fast_s, "state graph s": None, "ratio": None, "gap": None}
        rows.append(row)
        if graph is None:
            print(f"| {label} | {states} | {name} | {fast_s:.1f} | - | - | - |")
            continue
        slow, slow_s = _timed(on_graph)
        row.update({"state graph s": slow_s, "ratio": f"{slow_s / fast_s:.2f}x",
                    "gap": abs(fast - slow)})
        print(f"| {label} | {states} | {name} | {fast_s:.1f} | {slow_s:.1f} | "
              f"{slow_s / fast_s:.2f}x | {abs(fast - slow):.1e} |", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hp", type=int, nargs="*", default=[4, 8],
                        help="hit points of both sheets where the state graph also answers")
    parser.add_argument("--full", action="store_true",
                        help="also the reference sheets at full hit points (counters only)")
    report.add_flag(parser)
    args = parser.parse_args()
    print("| hit points | states | question | counters s | state graph s | "
          "graph / counters | answers differ by |")
    print("|---|---|---|---|---|---|---|")
    rows = [row for hp in args.hp for row in _row(hp)]
    if args.full:
        rows += _row(None)
    if args.write_docs:
        report.write_section(
            "bench_counter_play", "Answers against a fixed opponent: counters and state graph",
            [("hit points", "hit points"), ("states", "states"), ("question", "question"),
             ("counters s", "counters s"), ("state graph s", "state graph s"),
             ("graph / counters", "ratio"), ("answers differ by", "gap")], rows,
            notes="Pathfinder's fighter against rogue to knockout; each time includes reading "
                  "the opponent into the solver's layout, not exploring.")


if __name__ == "__main__":
    main()
