"""Speed and accuracy of the batched matrix-game solver against scipy's HiGHS and
nashpy, measured in one run on random 6x6 games (payoffs uniform in [-1, 1]).

    python experiments/bench_matrix.py [--games 10000] [--degenerate 2000] [--nashpy 500]
                                       [--seed 0] [--repeats 3] [--json]

Ours solves every game in one call of ``solve_matrices`` (and again with
``max_entropy=True``, and in batches of 20 as backward induction calls it); the
baselines call ``scipy.optimize.linprog(method="highs")`` once per game, and
``nashpy.Game(A).linear_program()`` (two HiGHS LPs) once per game on a subsample
whose throughput stands for the whole set. A second set of games with payoffs in
{-1, 0, 1} is degenerate throughout (ties, many optimal mixes), which is where the
max-entropy refinement has real work to do. Accuracy: the largest difference of our
values from HiGHS's, and the largest regret (gain of a pure deviation by either
player) of our pairs.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np
import report as performance_page
from reference import linprog_value

from solver.matrix.lp import solve_matrices

SMALL_BATCH = 20


def make_games(count: int, seed: int, kind: str) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "uniform":
        return rng.uniform(-1.0, 1.0, (count, 6, 6))
    # payoffs in {-1, 0, 1}: ties, duplicate and dominated actions, many optimal mixes
    return rng.integers(-1, 2, (count, 6, 6)).astype(float)


def best_time(run, repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def max_regret(games: np.ndarray, row: np.ndarray, col: np.ndarray) -> float:
    row_scores = np.einsum("bij,bj->bi", games, col)
    col_scores = np.einsum("bi,bij->bj", row, games)
    value = np.einsum("bi,bi->b", row, row_scores)
    return float(np.max(np.maximum(row_scores.max(1) - value, value - col_scores.min(1))))


def time_ours(games: np.ndarray, repeats: int) -> dict:
    batches = [games[k:k + SMALL_BATCH] for k in range(0, len(games), SMALL_BATCH)]
    return {
        "ours": best_time(lambda: solve_matrices(games), repeats),
        "ours_max_entropy": best_time(lambda: solve_matrices(games, max_entropy=True), repeats),
        f"ours_batches_of_{SMALL_BATCH}": best_time(
            lambda: [solve_matrices(b) for b in batches], repeats),
        f"ours_batches_of_{SMALL_BATCH}_max_entropy": best_time(
            lambda: [solve_matrices(b, max_entropy=True) for b in batches], repeats),
    }


def time_baselines(games: np.ndarray, sample: int) -> tuple[dict, np.ndarray]:
    start = time.perf_counter()
    values = np.array([linprog_value(A) for A in games])
    seconds = {"linprog": time.perf_counter() - start}
    try:
        import nashpy
    except ImportError:
        return seconds, values
    if sample == 0:
        return seconds, values
    subset = games[:sample]
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for A in subset:
            nashpy.Game(A).linear_program()
    seconds["nashpy"] = (time.perf_counter() - start) * len(games) / len(subset)
    return seconds, values


CASES = {"uniform": "payoffs uniform in [-1, 1]",
         "degenerate": "payoffs in {-1, 0, 1} (degenerate)"}
LABELS = {"ours": "ours, one call", "ours_max_entropy": "ours, one call, max-entropy",
          f"ours_batches_of_{SMALL_BATCH}": f"ours, batches of {SMALL_BATCH}",
          f"ours_batches_of_{SMALL_BATCH}_max_entropy":
              f"ours, batches of {SMALL_BATCH}, max-entropy",
          "linprog": "linprog (HiGHS) per game"}


def run(kind: str, count: int, sample: int, seed: int, repeats: int) -> dict:
    games = make_games(count, seed, kind)
    seconds = time_ours(games, repeats)
    baseline_seconds, linprog_values = time_baselines(games, min(sample, count))
    seconds.update(baseline_seconds)
    plain = solve_matrices(games)
    entropic = solve_matrices(games, max_entropy=True)
    rate = {name: count / s for name, s in seconds.items()}
    ours = [k for k in rate if k.startswith("ours")]
    return {
        "case": kind, "description": CASES[kind], "games": count, "shape": [6, 6],
        "seed": seed, "nashpy_sample": min(sample, count) if "nashpy" in rate else 0,
        "seconds": seconds, "games_per_second": rate,
        "speedup_vs_linprog": {k: rate[k] / rate["linprog"] for k in ours},
        "speedup_vs_nashpy": {k: rate[k] / rate["nashpy"] for k in ours if "nashpy" in rate},
        "max_value_difference_vs_highs": float(np.max(np.abs(plain.value - linprog_values))),
        "max_value_difference_vs_highs_max_entropy":
            float(np.max(np.abs(entropic.value - linprog_values))),
        "max_regret": max_regret(games, plain.row, plain.col),
        "max_regret_max_entropy": max_regret(games, entropic.row, entropic.col),
    }


def report(result: dict) -> None:
    print(f"{result['games']} random 6x6 games, {result['description']}, seed {result['seed']}")
    print(f"{'method':<44}{'seconds':>9}{'games/s':>10}{'vs linprog':>12}{'vs nashpy':>11}")
    for name, seconds in result["seconds"].items():
        label = LABELS.get(name, name)
        if name == "nashpy":
            label = f"nashpy linear_program (on {result['nashpy_sample']}, scaled)"
        vs_lp = result["speedup_vs_linprog"].get(name)
        vs_nash = result["speedup_vs_nashpy"].get(name)
        print(f"{label:<44}{seconds:>9.3f}{result['games_per_second'][name]:>10.0f}"
              f"{f'{vs_lp:.1f}x' if vs_lp else '':>12}{f'{vs_nash:.1f}x' if vs_nash else '':>11}")
    print(f"max |value - HiGHS|: {result['max_value_difference_vs_highs']:.1e} "
          f"(max-entropy {result['max_value_difference_vs_highs_max_entropy']:.1e}); "
          f"max regret: {result['max_regret']:.1e} "
          f"(max-entropy {result['max_regret_max_entropy']:.1e})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="number of random games")
    parser.add_argument("--degenerate", type=int, default=2_000,
                        help="number of games with payoffs in {-1, 0, 1} (0: skip)")
    parser.add_argument("--nashpy", type=int, default=500, help="games timed for nashpy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs (ours)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    performance_page.add_flag(parser)
    args = parser.parse_args()
    if args.games < 1 or args.nashpy < 1 or args.repeats < 1 or args.degenerate < 0:
        parser.error("--games, --nashpy and --repeats must be positive")
    results = [run("uniform", args.games, args.nashpy, args.seed, args.repeats)]
    if args.degenerate:
        results.append(run("degenerate", args.degenerate, 0, args.seed, args.repeats))
    if args.write_docs:
        write_docs(results)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for k, result in enumerate(results):
        if k:
            print()
        report(result)


def write_docs(results: list[dict]) -> None:
    rows = [{"games": f"{r['games']:,} {r['description']}", "method": LABELS.get(name, name),
             "seconds": seconds, "games/s": r["games_per_second"][name],
             "vs linprog": _times(r["speedup_vs_linprog"].get(name)),
             "vs nashpy": _times(r["speedup_vs_nashpy"].get(name))}
            for r in results for name, seconds in r["seconds"].items()]
    performance_page.write_section("bench_matrix", "Matrix games: 6x6 batches", [
        ("games", "games"), ("method", "method"), ("seconds", "seconds"),
        ("games/s", "games/s"), ("vs linprog", "vs linprog"), ("vs nashpy", "vs nashpy")],
        rows, notes="vs linprog, vs nashpy: how many times faster than scipy's HiGHS called "
                    "per game and nashpy's linear_program (timed on a sample, scaled).")


def _times(ratio: float | None) -> str | None:
    return None if ratio is None else f"{ratio:.1f}x"


if __name__ == "__main__":
    main()
