"""Speed of the exact Pathfinder duel solver against the same schedule calling scipy's
HiGHS (linprog) once per stage game, measured in one run.

    python experiments/bench_pathfinder.py [--baseline-seconds 60] [--level10-hp 150]
                                           [--cases one,first,...] [--json]
    /usr/bin/time -v python experiments/bench_pathfinder.py --cases knockout,level10-knockout

Cases: the reference sheets (fighter against rogue) one round (the state graph), to
first blood and to knockout at full hit points (20 and 17), and level-10-like sheets
(about 150 HP, 2d8+10) one round, to first blood and to knockout (``--level10-hp``
scales both sheets' hit points down, for a run that fits). Whole duels (no round
limit) are solved over every pair of hit points at once (``solver.counters``): ours
counts every stage game the batched solver solves there (value iteration, policy
steps, maximum-entropy mixes) over the whole time, exploring included; the baseline is
the same layered schedule with each value-iteration stage game solved by its own
linprog call (``experiments/baseline.py``), its rate counted on its time inside linprog
only, so the ratio is a lower bound. Where the baseline would take more than
``--baseline-seconds`` it is stopped and its rate (stage games per second) is taken
from the part it solved, so the speed ratio is still measured in the same run. For
whole duels it also prints where the time went (exploring the cores, the stage games,
the damage sums read back and pushed forward, the rest of the forward push) and the
run's peak resident memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import time

import numpy as np
import report
from baseline import OutOfTime, budgeted_baseline, timed_schedule
from reference import linprog_value

import envs
from solver import solve_game
from solver.counters import explore, flow, solution, solve_counters, stage_rules
from solver.heap import keeping_freed_memory
from solver.markov.graph import build_graph
from solver.matrix.lp import solve_matrices

LEVEL10_A = ("hp=150,ac=29,attack=19,damage=2d8+10,perception=18:expert,"
             "intimidation=17:expert,deception=15:trained,will=29,perception_dc=28")
LEVEL10_B = ("hp=140,ac=30,attack=20,damage=2d6+9,agile,sneak=3d6,perception=18:expert,"
             "intimidation=14:trained,deception=19:expert,will=28,perception_dc=28")


def cases(level10_hp: int) -> list[tuple[str, str, str, str, dict]]:
    """(group, name, sheet A, sheet B, options) of every case."""
    tenth_a = LEVEL10_A.replace("hp=150", f"hp={level10_hp}")
    tenth_b = LEVEL10_B.replace("hp=140", f"hp={max(1, level10_hp * 14 // 15)}")
    tenth = f"level 10 ({level10_hp} HP)" if level10_hp != 150 else "level 10"
    return [
        ("one", "fighter v rogue, 1 round", "fighter", "rogue", {"max_rounds": 1}),
        ("first", "fighter v rogue, first blood", "fighter", "rogue",
         {"victory": "first_blood"}),
        ("knockout", "fighter v rogue, knockout", "fighter", "rogue", {}),
        ("level10", "level 10, 1 round", LEVEL10_A, LEVEL10_B, {"max_rounds": 1}),
        ("level10", "level 10, first blood", LEVEL10_A, LEVEL10_B,
         {"victory": "first_blood"}),
        ("level10-knockout", f"{tenth}, knockout", tenth_a, tenth_b, {}),
    ]


def ours(game) -> dict:
    """solve_game's value iteration (the same ``sweep`` and batched solver), counting
    its stage-game solves."""
    def solve_batch(batch) -> np.ndarray:
        return solve_matrices(batch.matrices, batch.row_mask, batch.col_mask).value

    return timed_schedule(build_graph(game), solve_batch, "the exact solution")


def measure(name: str, a: str, b: str, options: dict, budget: float) -> dict:
    game = envs.make("pathfinder", a=a, b=b, **options)
    if game.info.has("counters"):
        return measure_counters(name, game, budget)
    start = time.perf_counter()
    graph = build_graph(game)
    built = time.perf_counter() - start
    with keeping_freed_memory():   # as the CLI does (``solver.heap``)
        solution = solve_game(game)
    total = time.perf_counter() - start
    mine = ours(game)
    base = budgeted_baseline(build_graph(game), budget)
    ours_rate = mine["stage_games"] / mine["seconds"]
    base_rate = base["stage_games"] / base["seconds"]
    return {"case": name, "states": graph.size, "core_states": None, "decision_states": int(
        (graph.mask_a.sum(axis=1) > 1).sum()), "sweeps": solution.convergence.sweeps,
        "seconds_build": built, "seconds_total": total, "states_per_second": graph.size / total,
        "stage_games_ours": mine["stage_games"], "seconds_stages_ours": mine["seconds"],
        "stage_games_per_second_ours": ours_rate,
        "stage_games_per_second_linprog": base_rate, "speedup": ours_rate / base_rate,
        "baseline_finished": base["finished"], "value": solution.value,
        "value_gap": None if base["value"] is None else abs(base["value"] - solution.value)}


def measure_counters(name: str, game, budget: float) -> dict:
    """A whole duel solved over every pair of hit points: ours, then the same solver
    with each stage game solved by linprog (stopped after ``budget`` seconds)."""
    start = time.perf_counter()
    cores, grid, _ = explore(game)
    built = time.perf_counter() - start
    counted = {"ours": 0, "linprog": 0}
    batched = stage_rules.solve_matrices

    def counting(matrices: np.ndarray, *args, **kwargs):
        # every stage game the batched solver solves: value iteration, policy steps
        # and the maximum-entropy mixes
        counted["ours"] += int(np.prod(np.shape(matrices)[:-2]))
        return batched(matrices, *args, **kwargs)

    stage_rules.solve_matrices = counting
    phases = {"explore": built}
    timed = {(module, phase): getattr(module, phase) for module, phase in PHASES}
    for (module, phase), function in timed.items():
        setattr(module, phase, _timer(function, phases, phase))
    try:
        start = time.perf_counter()
        with keeping_freed_memory():
            solution = solve_counters(game)
        # the exploration above is kept with the game and reused: count it in
        total = built + time.perf_counter() - start
    finally:
        for (module, phase), function in timed.items():
            setattr(module, phase, function)
        stage_rules.solve_matrices = batched
    base_start = time.perf_counter()
    inside = {"seconds": 0.0}  # the baseline's time in linprog only: a generous rate

    def one_by_one(matrices: np.ndarray) -> np.ndarray:
        found = []
        entered = time.perf_counter()
        for matrix in matrices:
            if time.perf_counter() - base_start > budget:
                inside["seconds"] += time.perf_counter() - entered
                raise OutOfTime
            found.append(linprog_value(matrix))
            counted["linprog"] += 1
        inside["seconds"] += time.perf_counter() - entered
        return np.asarray(found)

    finished, base_value = True, None
    try:
        with keeping_freed_memory():
            base_value = solve_counters(game, stage_values=one_by_one).value
    except OutOfTime:
        finished = False
    base_seconds = inside["seconds"]
    # every (core, hit points) pair a state; the generic graph holds those reachable
    states = cores.size * grid.size
    ours_rate = counted["ours"] / total
    base_rate = counted["linprog"] / base_seconds
    return {"case": name, "states": states, "core_states": cores.size,
            "decision_states": int(cores.chooses.sum()) * grid.size,
            "sweeps": solution.convergence.sweeps, "seconds_build": built,
            "seconds_total": total, "states_per_second": states / total,
            "stage_games_ours": counted["ours"], "seconds_stages_ours": total,
            "stage_games_per_second_ours": ours_rate,
            "stage_games_per_second_linprog": base_rate, "speedup": ours_rate / base_rate,
            "baseline_finished": finished, "value": solution.value,
            "value_gap": None if base_value is None else abs(base_value - solution.value),
            "phases": _breakdown(phases, total)}


#: the parts of ``solve_counters`` timed on their own (see ``_breakdown``)
PHASES = ((stage_rules, "solve_matrices"), (solution, "read_lowered"), (flow, "feed"),
          (solution, "play_forward"))


def _timer(function, phases: dict, name: str):
    def timed(*args, **kwargs):
        entered = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            phases[name] = phases.get(name, 0.0) + time.perf_counter() - entered
    return timed


def _breakdown(phases: dict, total: float) -> dict:
    """Seconds of each part of a whole duel's solution: exploring the cores, the stage
    games (value iteration, policy steps, maximum-entropy mixes), the damage sums read
    back (``read_lowered``) and pushed forward (``feed``), the rest of the forward push
    (win, loss, length) and the rest (stage values, policy evaluation, bookkeeping)."""
    parts = {"explore": phases["explore"], "stage games": phases.get("solve_matrices", 0.0),
             "damage back": phases.get("read_lowered", 0.0),
             "damage forward": phases.get("feed", 0.0),
             "push forward": phases.get("play_forward", 0.0) - phases.get("feed", 0.0)}
    parts["rest"] = total - sum(parts.values())
    return parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-seconds", type=float, default=60.0,
                        help="stop the linprog baseline after this long per case")
    parser.add_argument("--level10-hp", type=int, default=150,
                        help="hit points of the level-10 sheets in their knockout case "
                        "(default 150 / 140, the full sheets; 30 or 60 for a short run)")
    parser.add_argument("--cases", default="one,first,knockout,level10,level10-knockout",
                        help="groups of cases to run (one, first, knockout, level10, "
                        "level10-knockout)")
    parser.add_argument("--json", action="store_true")
    report.add_flag(parser)
    args = parser.parse_args()
    chosen = set(args.cases.split(","))
    rows = [measure(name, a, b, options, args.baseline_seconds)
            for group, name, a, b, options in cases(args.level10_hp) if group in chosen]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20   # KiB -> GiB
    if args.write_docs:
        write_docs(rows, peak)
    if args.json:
        print(json.dumps({"cases": rows, "peak_resident_gib": peak}, indent=2))
        return
    print(f"{'case':<34}{'states':>10}{'cores':>7}{'decide':>9}{'sweeps':>8}{'build s':>9}"
          f"{'total s':>9}{'states/s':>10}{'ours games/s':>14}{'linprog games/s':>17}"
          f"{'ratio':>8}{'|dv|':>9}")
    for r in rows:
        gap = "-" if r["value_gap"] is None else f"{r['value_gap']:.1e}"
        cores = "-" if r["core_states"] is None else str(r["core_states"])
        print(f"{r['case']:<34}{r['states']:>10}{cores:>7}{r['decision_states']:>9}"
              f"{r['sweeps']:>8}{r['seconds_build']:>9.1f}{r['seconds_total']:>9.1f}"
              f"{r['states_per_second']:>10.0f}{r['stage_games_per_second_ours']:>14.0f}"
              f"{r['stage_games_per_second_linprog']:>17.0f}{r['speedup']:>7.0f}x{gap:>9}")
    print("states: the state graph's, or for whole duels cores (states without hit "
          "points) times hit-point pairs; build s: exploring them (included in total s);"
          " ratio: stage games solved per second (ours, batched, everything included) "
          "over the linprog baseline's (whole duels: its time inside linprog only), on "
          "the same schedule; |dv|: value difference when the baseline finished")
    timed = [r for r in rows if r.get("phases")]
    if timed:
        names = list(timed[0]["phases"])
        print(f"\n{'where the seconds went':<34}" + "".join(f"{n:>15}" for n in names))
        for r in timed:
            print(f"{r['case']:<34}" + "".join(f"{r['phases'][n]:>15.1f}" for n in names))
    print(f"peak resident memory of this run: {peak:.2f} GiB")


def write_docs(rows: list[dict], peak: float) -> None:
    columns = [("case", "case"), ("states", "states"), ("cores", "core_states"),
               ("decision states", "decision_states"), ("sweeps", "sweeps"),
               ("build s", "seconds_build"), ("total s", "seconds_total"),
               ("ours games/s", "stage_games_per_second_ours"),
               ("linprog games/s", "stage_games_per_second_linprog"),
               ("ratio", lambda r: f"{r['speedup']:.0f}x"), ("value gap", "value_gap")]
    timed = [r for r in rows if r.get("phases")]
    phases = ""
    if timed:
        names = list(timed[0]["phases"])
        phases = "\n\nWhere the seconds went (whole duels):\n\n" + report.table(
            [("case", "case"), *[(n, lambda r, n=n: r["phases"][n]) for n in names]], timed)
    report.write_section("bench_pathfinder", "Pathfinder 2e: one round, first blood, knockout",
                         columns, rows,
                         notes="states: the state graph's, or for whole duels cores times "
                               "hit-point pairs. ratio: stage games solved per second, ours "
                               "(everything included) over the linprog baseline's on the "
                               "same schedule (its time inside linprog only, stopped after "
                               f"--baseline-seconds). Peak resident memory {peak:.2f} GiB."
                               + phases)


if __name__ == "__main__":
    main()
