"""A sweep from its grid to its results file: check every cell, skip what is done, solve
the rest on a backend, journal as it goes, compact at the end."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .backends import LocalBackend
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
    seconds: float

    def as_dict(self) -> dict:
        return dict(vars(self))


def plan(cells: list[Cell], done: dict) -> list[Cell]:
    """The cells to solve: not done before, not the same duel as another cell, and (in a
    system whose swap symmetry is exact) not the mirror of a cell done or to be done."""
    mirrors = cells[0].system in MIRROR_EXACT if cells else False
    known = set(done)
    chosen = []
    for cell in cells:
        if cell.key in known or (mirrors and cell.mirror_key() in known):
            continue
        known.add(cell.key)
        chosen.append(cell)
    return chosen


def run_sweep(grid: Grid, out: str | Path, backend=None, max_cells: int = MAX_CELLS,
              stream: TextIO | None = None, progress: bool = True,
              batch: int = 32, cells: list[Cell] | None = None) -> SweepSummary:
    """Solve every cell of ``grid`` into the Parquet file ``out`` (resuming from what an
    interrupted run of it, or ``out`` itself, already holds); ``cells`` are
    ``grid.cells(max_cells)`` when the caller has them already."""
    started = time.monotonic()
    if cells is None:
        cells = grid.cells(max_cells)  # every bad value refused before any work
    journal = Journal(Path(out), batch=batch)
    done = journal.done()
    todo = plan(cells, done)
    reused = sum(cell.key in done for cell in cells)
    shown = SweepProgress(len(todo), len(cells) - len(todo), stream) if progress else None
    backend = backend or LocalBackend()
    tasks = [(cell.key, cell.system, cell.make_arguments()) for cell in todo]
    try:
        for key, result in backend.run(tasks):
            done[key] = result
            journal.add(key, result)
            if shown:
                shown.step()
    finally:
        journal.flush()  # an interrupted sweep keeps every cell it finished
        if shown:
            shown.close()
    from_mirror = journal.compact(grid, cells, done)
    return SweepSummary(str(out), len(cells), len(todo), reused, from_mirror,
                        time.monotonic() - started)
