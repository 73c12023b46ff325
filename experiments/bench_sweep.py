"""Cells per second of `duel sweep` on the local backend and on Ray, in one run, with the
scaling from 1 to 2 workers; and the seconds of one full-size cell of Houses of the
Blooded and of Pathfinder, from which docs/cluster.md extrapolates the full grids.

    python experiments/bench_sweep.py [--system blooded] [--cells-seconds] [--json]

(needs pyarrow, ``pip install -e '.[sweep]'``; Ray, ``.[cluster]``, for its Ray rows)

The grid is tiny on purpose (the machine is shared): Houses of the Blooded at first
blood over two beats, Prowess 1-3 of A against Prowess 1-3 of B (9 cells, each about a
second; those read from their mirror are not solved), or Castle Falkenstein's 36 cells
of a few hundredths of a second each (``--system falkenstein``: there the workers'
overhead shows). Each backend writes its own results file; the files are compared cell
for cell (timing columns aside), so a faster backend cannot be a wrong one. The process
pool and the Ray instance (as many CPUs as workers) are started before the clock and
their start timed apart; each backend sweeps the grid once to warm its workers (every
process compiles the solver's kernels on its first cell), then again on the clock.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

from agents.sweep import Grid, parse_axis, run_sweep
from agents.sweep.backends import LocalBackend, RayBackend
from agents.sweep.cells import TIMING_COLUMNS, solve_cell

TINY = {"falkenstein": (["a.fencing=PR,AV,GD,GR,EXC,EXT", "b.fencing=PR,AV,GD,GR,EXC,EXT"],
                        {"max_rounds": "2"}),
        "blooded": (["a.prowess=1..3", "b.prowess=1..3"],
                    {"max_beats": "2", "convention": "first_blood"})}
#: one cell of each full grid of docs/cluster.md, at the systems' default options
FULL_CELLS = {"blooded": {"a": "prowess=3,sword=3", "b": "prowess=2,sword=4"},
              "pathfinder": {"a": "fighter", "b": "rogue"}}


def rows_without_timing(path: Path) -> list[dict]:
    return [{k: v for k, v in row.items() if k not in TIMING_COLUMNS}
            for row in pq.read_table(path).to_pylist()]


def timed_sweep(grid: Grid, folder: Path, name: str, backend) -> dict:
    """The grid swept twice on ``backend``: once to warm its workers (each process
    compiles the solver's kernels on its first cell), then timed."""
    run_sweep(grid, folder / f"{name}-warm.parquet", backend, progress=False)
    started = time.perf_counter()
    summary = run_sweep(grid, folder / f"{name}.parquet", backend, progress=False)
    seconds = time.perf_counter() - started
    return {"solved": summary.solved, "cells": summary.cells, "seconds": seconds,
            "cells_per_second": summary.solved / seconds}


def ray_sweep(grid: Grid, folder: Path, name: str, workers: int) -> dict:
    import ray
    started = time.perf_counter()
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    ray.get(ray.remote(lambda: None).remote())  # a worker up and answering
    start_seconds = time.perf_counter() - started
    try:
        result = timed_sweep(grid, folder, name, RayBackend(workers, memory=512 * 1024**2))
    finally:
        ray.shutdown()
    return {**result, "start_seconds": start_seconds}


def local_sweep(grid: Grid, folder: Path, name: str, workers: int) -> dict:
    started = time.perf_counter()
    backend = LocalBackend(workers).start()
    start_seconds = time.perf_counter() - started
    try:
        return {**timed_sweep(grid, folder, name, backend), "start_seconds": start_seconds}
    finally:
        backend.close()


def cell_seconds(system: str, sheets: dict) -> dict:
    """One full-size cell solved twice in this process: the first pays for compiling."""
    first = solve_cell(system, sheets)["seconds"]
    return {"first": first, "warm": solve_cell(system, sheets)["seconds"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default="blooded", choices=sorted(TINY))
    parser.add_argument("--cells-seconds", action="store_true",
                        help="also time one full-size cell of blooded and pathfinder")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    axes, options = TINY[args.system]
    grid = Grid(args.system, [parse_axis(a) for a in axes], {"a": "", "b": ""}, options)
    runs: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)
        runs["local, 1 worker"] = local_sweep(grid, here, "l1", 1)
        runs["local, 2 workers"] = local_sweep(grid, here, "l2", 2)
        try:
            import ray  # noqa: F401
        except ModuleNotFoundError:
            ray_files = []
        else:
            runs["ray, 1 CPU"] = ray_sweep(grid, here, "r1", 1)
            runs["ray, 2 CPUs"] = ray_sweep(grid, here, "r2", 2)
            ray_files = ["r1.parquet", "r2.parquet"]
        reference = rows_without_timing(here / "l1.parquet")
        same = all(rows_without_timing(here / name) == reference
                   for name in ["l2.parquet", *ray_files])
    document = {"system": args.system, "grid": axes, "options": options, "runs": runs,
                "same_cells_everywhere": same,
                "scaling_local_1_to_2": runs["local, 2 workers"]["cells_per_second"]
                / runs["local, 1 worker"]["cells_per_second"]}
    if "ray, 1 CPU" in runs:
        document["scaling_ray_1_to_2"] = (runs["ray, 2 CPUs"]["cells_per_second"]
                                          / runs["ray, 1 CPU"]["cells_per_second"])
    if args.cells_seconds:
        document["full_cells"] = {system: cell_seconds(system, sheets)
                                  for system, sheets in FULL_CELLS.items()}
    if args.json:
        print(json.dumps(document, indent=2))
        return
    print(f"{args.system}: {len(reference)} cells, "
          f"{runs['local, 1 worker']['solved']} solved (the rest read from their mirror); "
          f"every backend gave the same cells: {same}")
    print(f"{'backend':<18}{'seconds':>9}{'cells/s':>9}{'start s':>9}")
    for name, run in runs.items():
        print(f"{name:<18}{run['seconds']:>9.2f}{run['cells_per_second']:>9.2f}"
              f"{run['start_seconds']:>9.1f}")
    print(f"scaling from 1 to 2 workers: local {document['scaling_local_1_to_2']:.2f}x"
          + (f", ray {document['scaling_ray_1_to_2']:.2f}x" if "scaling_ray_1_to_2" in
             document else ""))
    for system, seconds in document.get("full_cells", {}).items():
        print(f"one full-size {system} cell ({FULL_CELLS[system]}): {seconds['warm']:.1f} s "
              f"warm, {seconds['first']:.1f} s the first in a process")


if __name__ == "__main__":
    main()
