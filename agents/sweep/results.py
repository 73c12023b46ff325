"""The results file (Parquet) and its journal, so a sweep survives being killed.

Solved cells are appended in batches to part files in ``OUT.parts/``, each written to a
temporary name and renamed into place (a rename is atomic: a part is whole or absent).
At the end the parts are compacted into ``OUT``, one row per cell in the grid's order,
written the same way; then the parts go. A sweep started again reads the parts and the
rows of an earlier ``OUT`` and solves only what neither holds.

Parquet through pyarrow rather than a DuckDB database: one file of plain columns that
pandas, polars, DuckDB itself (``SELECT * FROM 'results.parquet'``), Spark and
spreadsheet importers all read, whose rename is atomic; a database file would tie the
results to one engine and need its lock held by one writer.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from solver.errors import InputError

from .cells import RESULT_COLUMNS, mirrored
from .grid import Cell, Grid

#: the schema metadata key holding the sweep's grid (for reports and readers)
METADATA_KEY = b"duel.sweep"
CELL_COLUMNS = ("cell", "system", "a", "b", "options", "ruleset")


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ModuleNotFoundError:
        raise InputError("writing the results file needs pyarrow: "
                         "pip install 'duel-solver[sweep]'") from None
    return pa, pq


def row_key(row: dict) -> str:
    """A stored row's cell key (as ``Cell.key``)."""
    return json.dumps([row["system"], row["a"], row["b"], row["options"],
                       row["ruleset_hash"]])


class Journal:
    """The solved cells of a sweep writing to ``out``: what is already done, and the
    batches appended as cells are solved."""

    def __init__(self, out: Path, batch: int = 32, seconds: float = 10.0):
        self.out = Path(out)
        self.parts = self.out.with_name(self.out.name + ".parts")
        self.batch, self.seconds = batch, seconds
        self.pending: list[dict] = []
        self.last = time.monotonic()
        self.stamp = f"{time.time_ns():x}"
        self.written = 0

    def done(self) -> dict[str, dict]:
        """Every solved cell in the parts and in an earlier results file, by key (cells
        read from their mirror there are left out: their mirror is what was solved)."""
        _, pq = _pyarrow()
        found: dict[str, dict] = {}
        sources = sorted(self.parts.glob("*.parquet")) if self.parts.is_dir() else []
        for path in ([self.out] if self.out.is_file() else []) + sources:
            try:
                rows = pq.read_table(path).to_pylist()
            except (OSError, ValueError) as error:  # pyarrow's errors are ValueErrors
                raise InputError(f"cannot read {path} to resume the sweep ({error}); move "
                                 "it away to start again") from None
            for row in rows:
                if row.get("mirrored"):
                    continue
                key = row["key"] if "key" in row else row_key(row)
                found[key] = {column: row[column] for column in RESULT_COLUMNS}
        return found

    def add(self, key: str, result: dict) -> None:
        self.pending.append({"key": key, **result})
        if len(self.pending) >= self.batch or time.monotonic() - self.last >= self.seconds:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        pa, pq = _pyarrow()
        self.parts.mkdir(parents=True, exist_ok=True)
        self.written += 1
        path = self.parts / f"part-{self.stamp}-{self.written:06d}.parquet"
        _write_atomically(pa.Table.from_pylist(self.pending), path, pq)
        self.pending = []
        self.last = time.monotonic()

    def compact(self, grid: Grid, cells: list[Cell], done: dict[str, dict]) -> int:
        """Write ``out``: every cell in order, each solved or read from its mirror; then
        drop the parts. Returns the number of cells read from their mirror."""
        pa, pq = _pyarrow()
        rows, from_mirror = [], 0
        for cell in cells:
            result = done.get(cell.key)
            flipped = result is None
            if flipped:
                result = mirrored(done[cell.mirror_key()])
                from_mirror += 1
            rows.append({"cell": cell.index, "system": cell.system, "a": cell.a, "b": cell.b,
                         "options": cell.options_json, "ruleset": cell.ruleset,
                         **cell.point, **result, "mirrored": flipped})
        table = _typed(pa, pa.Table.from_pylist(rows)).replace_schema_metadata(
            {METADATA_KEY: json.dumps(describe(grid)).encode()})
        _write_atomically(table, self.out, pq)
        for part in self.parts.glob("*") if self.parts.is_dir() else []:
            part.unlink()
        if self.parts.is_dir():
            self.parts.rmdir()
        return from_mirror


def describe(grid: Grid) -> dict:
    """The grid as stored in the results file: what a report needs to read it."""
    return {"system": grid.system, "base_sheets": grid.base_sheets,
            "base_options": grid.base_options, "base_ruleset": grid.base_ruleset,
            "axes": [{"label": a.label, "column": a.column, "target": a.target,
                      "name": a.name, "values": list(a.values)} for a in grid.axes]}


def read_results(path: str | Path) -> tuple[list[dict], dict]:
    """A results file's rows and its grid (``describe``)."""
    _, pq = _pyarrow()
    table = pq.read_table(path)
    metadata = table.schema.metadata or {}
    if METADATA_KEY not in metadata:
        raise InputError(f"{path} is not a results file of duel sweep (no grid recorded)")
    return table.to_pylist(), json.loads(metadata[METADATA_KEY])


def _typed(pa, table):
    """Text columns typed as text even when every value is missing (``ruleset``)."""
    for index, column in enumerate(table.schema):
        if pa.types.is_null(column.type):
            table = table.set_column(index, column.name,
                                     table.column(index).cast(pa.string()))
    return table


def _write_atomically(table, path: Path, pq) -> None:
    temporary = path.with_name(path.name + ".tmp")
    pq.write_table(table, temporary)
    with open(temporary, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(temporary, path)
