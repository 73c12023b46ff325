"""A sweep from its grid to its results file: check every cell, skip what is done, solve
the rest on a backend, journal as it goes, compact at the end."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .backends import LocalBackend, solve_task
from .cells import MIRROR_EXACT
from .grid import MAX_CELLS, Cell, Grid
from .progress import SweepProgress
from .results import Journal


@dataclass(frozen=True)
class SweepSummary:
    out: str
    cells: int
    solved: int
    reused: int
    from_mirror: int
    #: cells some of whose mixes are optimal but not confirmed the least predictable
    unrefined: int
    seconds: float

    def as_dict(self) -> dict:
        return dict(vars(self))


def plan(cells: list[Cell], done: dict) -> list[Cell]:
    """The cells to solve next: not done, not the same duel as another cell, and (in a
    system whose swap symmetry is exact) not the mirror of a cell done with all its
    least predictable mixes found, or of a cell solved before it in this round."""
    mirrors = bool(cells) and cells[0].system in MIRROR_EXACT
    planned: set[str] = set()
    chosen = []
    for cell in cells:
        if cell.key in done or cell.key in planned:
            continue
        if mirrors:
            mirror = cell.mirror_key()
            if mirror in planned or (mirror in done and not done[mirror]["unrefined"]):
                continue
        planned.add(cell.key)
        chosen.append(cell)
    return chosen


def run_sweep(grid: Grid, out: str | Path, backend=None, max_cells: int = MAX_CELLS,
              stream: TextIO | None = None, progress: bool = True,
              batch: int = 32, cells: list[Cell] | None = None,
              on_solved: Callable[[int, int], None] | None = None) -> SweepSummary:
    """Solve every cell of ``grid`` into the Parquet file ``out`` (resuming from what an
    interrupted run of it, or ``out`` itself, already holds); ``cells`` are
    ``grid.cells(max_cells)`` when the caller has them already; ``on_solved(solved,
    planned)`` hears of each cell solved (``planned``: the cells this run solves, as
    known so far: a second round for unrefined mirrors adds to it)."""
    started = time.monotonic()
    if cells is None:
        cells = grid.cells(max_cells)  # every bad value refused before any work
    journal = Journal(Path(out), batch=batch)
    done = journal.done()
    reused = sum(cell.key in done for cell in cells)
    backend = backend or LocalBackend()
    solved = planned = 0
    # a second round solves the mirrors of cells whose mixes were not all refined
    while todo := plan(cells, done):
        shown = SweepProgress(len(todo), len(cells) - len(todo), stream) if progress else None
        tasks = [solve_task(cell.key, cell.system, cell.make_arguments()) for cell in todo]
        planned += len(todo)
        try:
            for key, result in backend.run(tasks):
                done[key] = result
                journal.add(key, result)
                solved += 1
                if shown:
                    shown.step()
                if on_solved:
                    on_solved(solved, planned)
        finally:
            journal.flush()  # an interrupted sweep keeps every cell it finished
            if shown:
                shown.close()
    from_mirror = journal.compact(grid, cells, done)
    unrefined = sum(bool((done.get(c.key) or done[c.mirror_key()])["unrefined"])
                    for c in cells)
    return SweepSummary(str(out), len(cells), solved, reused, from_mirror, unrefined,
                        time.monotonic() - started)
