"""The compiled sparse sums of the counters backend against scipy's product, in one run.

Every layer of a counter solve sums each joint action's continuation over the cores it
leads to: a sparse matrix (joint actions by cores) times the layer's values (cores by
the layer's counter values). This times ``solver.counters.sums.times`` against scipy's
``matrix @ dense`` on Pathfinder's fighter against rogue to knockout, at the width of
each layer of its counter grid, and checks that the two give the same numbers bit for
bit (the terms are added in scipy's order).
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import report
import scipy.sparse as sp
from bench_matrix import best_time

import envs
from solver.counters import sums
from solver.counters.cores import explore


def stage_sums(hp: int | None) -> tuple[sp.csr_matrix, list[int]]:
    """The matrix of every part's steps that keep the counters (joint actions by cores)
    and the widths of the grid's layers."""
    sheets = ("fighter", "rogue") if hp is None else (f"fighter,hp={hp}", f"rogue,hp={hp}")
    graph, grid, _ = explore(envs.make("pathfinder", a=sheets[0], b=sheets[1]))
    matrix = sp.vstack([part.zero for block in graph.blocks for part in block.parts]).tocsr()
    return matrix, sorted({len(points) for points in grid.layers})


def measure(matrix: sp.csr_matrix, width: int, repeats: int) -> dict:
    dense = np.random.default_rng(width).random((matrix.shape[1], width))
    ours, theirs = sums.times(matrix, dense), matrix @ dense   # compiled before timing
    return {"points": width, "entries": matrix.nnz,
            "ours ms": 1e3 * best_time(lambda: sums.times(matrix, dense), repeats),
            "scipy ms": 1e3 * best_time(lambda: matrix @ dense, repeats),
            "equal": bool(np.array_equal(ours, theirs))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hp", type=int, default=None,
                        help="both sheets' hit points (default: the reference sheets')")
    parser.add_argument("--repeats", type=int, default=15,
                        help="timings of each product; the fastest is kept")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    report.add_flag(parser)
    args = parser.parse_args()
    matrix, widths = stage_sums(args.hp)
    rows = []
    for width in widths:
        row = measure(matrix, width, args.repeats)
        row["scipy / ours"] = row["scipy ms"] / row["ours ms"]
        rows.append(row)
        if not args.json:
            print(f"{width:>4} points: ours {row['ours ms']:.2f} ms, scipy "
                  f"{row['scipy ms']:.2f} ms ({row['scipy / ours']:.2f}x), "
                  f"equal: {row['equal']}", flush=True)
    if args.json:
        print(json.dumps({"hp": args.hp, "rows": rows}))
    if args.write_docs:
        report.write_section(
            "bench_sums", "The sparse sums of a layer: compiled against scipy",
            [("points", "points"), ("entries", "entries"), ("ours ms", "ours ms"),
             ("scipy ms", "scipy ms"), ("scipy / ours", "scipy / ours"),
             ("equal bit for bit", "equal")], rows,
            notes="Pathfinder's fighter against rogue to knockout: every joint action's steps "
                  "that keep the counters (joint actions by cores), times the values of one "
                  "layer of counter values, at each width the grid's layers have; the "
                  "fastest of the repeats. scipy's product runs in one thread, ours on every "
                  "core.")
    if not all(row["equal"] for row in rows):
        raise SystemExit("the compiled sums differ from scipy's product")


if __name__ == "__main__":
    main()
