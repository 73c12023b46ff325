"""Speed of the exact Pathfinder duel solver against the same schedule calling scipy's
HiGHS (linprog) once per stage game, measured in one run.

    python experiments/bench_pathfinder.py [--baseline-seconds 60] [--json]

Cases: the reference sheets (fighter against rogue) one round, the whole duel to first
blood (cyclic: value iteration), the whole duel to knockout with the hit points cut to
8 (cyclic), and level-10-like sheets (about 150 HP, 2d8+10) one round and to first
blood. The baseline (``experiments/baseline.py``) runs the same state graph and the
same strongly-connected-component schedule; where it would take more than
``--baseline-seconds`` it is stopped and its rate (stage games per second) is taken
from the part it solved, so the speed ratio is still measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from baseline import linprog_value, stage_matrices

import envs
from solver import solve_game
from solver.graph import build_graph
from solver.matrix import solve_matrices
from solver.stages import stage_batches, sweep

LEVEL10_A = ("hp=150,ac=29,attack=19,damage=2d8+10,perception=18:expert,"
             "intimidation=17:expert,deception=15:trained,will=29,perception_dc=28")
LEVEL10_B = ("hp=140,ac=30,attack=20,damage=2d6+9,agile,sneak=3d6,perception=18:expert,"
             "intimidation=14:trained,deception=19:expert,will=28,perception_dc=28")
CASES = (
    ("fighter v rogue, 1 round", "fighter", "rogue", {"max_rounds": 1}),
    ("fighter v rogue, first blood", "fighter", "rogue", {"victory": "first_blood"}),
    ("fighter v rogue, knockout, 8 HP", "fighter,hp=8", "rogue,hp=8", {}),
    ("level 10, 1 round", LEVEL10_A, LEVEL10_B, {"max_rounds": 1}),
    ("level 10, first blood", LEVEL10_A, LEVEL10_B, {"victory": "first_blood"}),
)


class _OutOfTime(Exception):
    pass


def baseline(game, budget: float) -> dict:
    """The linprog schedule on ``game``'s graph, stopped after ``budget`` seconds."""
    graph = build_graph(game)
    values = graph.payoff.astype(float).copy()
    solved = 0
    start = time.perf_counter()

    def update(states: np.ndarray) -> None:
        nonlocal solved
        for batch in stage_batches(graph, states, values):
            for k, matrix in enumerate(stage_matrices(batch)):
                values[batch.states[k]] = linprog_value(matrix)
                solved += 1
                if time.perf_counter() - start > budget:
                    raise _OutOfTime

    finished = True
    try:
        sweep(graph, values, update, what="the linprog baseline")
    except _OutOfTime:
        finished = False
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "stage_games": solved, "finished": finished,
            "value": float(graph.start @ values) if finished else None}


def ours(game) -> dict:
    """solve_game's value iteration (the same ``sweep`` and batched solver), counting
    its stage-game solves."""
    graph = build_graph(game)
    values = graph.payoff.astype(float).copy()
    solved = 0
    start = time.perf_counter()

    def update(states: np.ndarray) -> None:
        nonlocal solved
        for batch in stage_batches(graph, states, values):
            values[batch.states] = solve_matrices(batch.matrices, batch.row_mask,
                                                  batch.col_mask).value
            solved += len(batch.states)

    sweep(graph, values, update, what="the exact solution")
    return {"seconds": time.perf_counter() - start, "stage_games": solved,
            "value": float(graph.start @ values)}


def measure(name: str, a: str, b: str, options: dict, budget: float) -> dict:
    game = envs.make("pathfinder", a=a, b=b, **options)
    start = time.perf_counter()
    graph = build_graph(game)
    built = time.perf_counter() - start
    solution = solve_game(game)
    total = time.perf_counter() - start
    mine = ours(game)
    base = baseline(game, budget)
    ours_rate = mine["stage_games"] / mine["seconds"]
    base_rate = base["stage_games"] / base["seconds"]
    return {"case": name, "states": graph.size, "decision_states": int(
        (graph.mask_a.sum(axis=1) > 1).sum()), "sweeps": solution.convergence.sweeps,
        "seconds_build": built, "seconds_total": total, "states_per_second": graph.size / total,
        "stage_games_ours": mine["stage_games"], "seconds_stages_ours": mine["seconds"],
        "stage_games_per_second_ours": ours_rate,
        "stage_games_per_second_linprog": base_rate, "speedup": ours_rate / base_rate,
        "baseline_finished": base["finished"], "value": solution.value,
        "value_gap": None if base["value"] is None else abs(base["value"] - solution.value)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-seconds", type=float, default=60.0,
                        help="stop the linprog baseline after this long per case")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [measure(*case, args.baseline_seconds) for case in CASES]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'case':<34}{'states':>9}{'decide':>8}{'sweeps':>8}{'build s':>9}{'total s':>9}"
          f"{'states/s':>10}{'ours games/s':>14}{'linprog games/s':>17}{'ratio':>8}"
          f"{'|dv|':>9}")
    for r in rows:
        gap = "-" if r["value_gap"] is None else f"{r['value_gap']:.1e}"
        print(f"{r['case']:<34}{r['states']:>9}{r['decision_states']:>8}{r['sweeps']:>8}"
              f"{r['seconds_build']:>9.1f}{r['seconds_total']:>9.1f}"
              f"{r['states_per_second']:>10.0f}{r['stage_games_per_second_ours']:>14.0f}"
              f"{r['stage_games_per_second_linprog']:>17.0f}{r['speedup']:>7.0f}x{gap:>9}")
    print("ratio: stage games solved per second (ours, batched) over the linprog "
          "baseline's, on the same graph and schedule; |dv|: value difference when the "
          "baseline finished")


if __name__ == "__main__":
    main()
