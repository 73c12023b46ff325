"""A designer's reading of a sweep's results file, computed once as data: the grid, the
value over two fields, the marginal worth of each field, dominated sheets, axes of
negligible worth and the most and least balanced pairings.

``report_data`` is the analysis; ``markdown.render`` writes it as Markdown with plots
(``duel sweep --report``) and the web screen draws the same document (``POST
/api/sweep``), so no number is computed in two places. Every number is read from the
rows (value is A's worth, +1 a sure win; win is A's chance of winning, both playing the
least predictable safe play). Fractions stay fractions (``win``, ``value``); what is
named ``points`` is in percentage points of A's chance of winning.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np

from .results import read_results

#: a change of A's chance of winning below this (in points of percent) is negligible
NEGLIGIBLE_POINTS = 0.5
#: rows of a table kept before the rest are counted
SHOWN = 12
#: the pairings listed at each end of the balance ranking
BALANCE_SHOWN = 5
#: two squares of the heat map whose values are this close are tied
TIE = 1e-9


class Sweep:
    """The rows of a results file indexed by their grid point."""

    def __init__(self, rows: list[dict], grid: dict):
        self.rows, self.grid = rows, grid
        self.axes = grid["axes"]
        self.columns = [axis["column"] for axis in self.axes]
        # levels in the grid's order (rows come in it): PR, AV, GD... stays a ladder
        self.levels = [list(dict.fromkeys(row[c] for row in rows)) for c in self.columns]
        self.at = {tuple(row[c] for c in self.columns): row for row in rows}

    def numeric(self, k: int) -> bool:
        return all(isinstance(v, int | float) and not isinstance(v, bool)
                   for v in self.levels[k])

    def others(self, k: int):
        """Every combination of the other axes' levels, as {axis index: level}."""
        indices = [i for i in range(len(self.axes)) if i != k]
        for combo in itertools.product(*(self.levels[i] for i in indices)):
            yield dict(zip(indices, combo, strict=True))

    def row(self, k: int, level, fixed: dict) -> dict | None:
        point = tuple(level if i == k else fixed[i] for i in range(len(self.axes)))
        return self.at.get(point)

    def label(self, fixed: dict) -> str:
        return ", ".join(f"{self.axes[i]['label']}={v}" for i, v in fixed.items()) or "-"


def read_report(results: str | Path, source: str | None = None) -> dict:
    """The report of the results file ``results`` (``source``: the name it is known by,
    its file name unless given)."""
    rows, grid = read_results(results)
    return report_data(rows, grid, source or Path(results).name)


def report_data(rows: list[dict], grid: dict, source: str) -> dict:
    """Every section of the report of ``rows`` (a results file's, with its ``grid``), as
    plain data (JSON as it is)."""
    sweep = Sweep(rows, grid)
    return {"header": _header(sweep, source), "heat_map": _heat_map(sweep),
            "worth": [_worth_of_axis(sweep, k) for k in range(len(sweep.axes))],
            "dominated": _dominated(sweep), "negligible": _negligible(sweep),
            "balance": _balance(sweep)}


def write_report(results: str | Path, report: str | Path) -> Path:
    """Write the report of ``results`` to ``report`` as Markdown (its plots beside it)."""
    from .markdown import render
    report = Path(report)
    plots = report.with_name(report.stem + "_plots")
    plots.mkdir(parents=True, exist_ok=True)
    report.write_text(render(read_report(results), plots, report.parent))
    return report


def _header(sweep: Sweep, source: str) -> dict:
    grid = sweep.grid
    return {"system": grid["system"], "cells": len(sweep.rows), "source": source,
            "base_sheets": dict(grid["base_sheets"]), "base_options": dict(grid["base_options"]),
            "base_ruleset": grid["base_ruleset"],
            "axes": [{"label": a["label"], "values": [str(v) for v in a["values"]]}
                     for a in sweep.axes],
            "unrefined": sum(bool(row["unrefined"]) for row in sweep.rows)}


def _heat_map(sweep: Sweep) -> dict | None:
    """The mean value over the two axes with the most levels (numeric ones first), the
    other axes averaged out; None for a grid of one axis."""
    if len(sweep.axes) < 2:
        return None
    k, j = sorted(range(len(sweep.axes)),
                  key=lambda i: (not sweep.numeric(i), -len(sweep.levels[i])))[:2]
    rows_k, cols_j = sweep.levels[k], sweep.levels[j]
    table = np.full((len(rows_k), len(cols_j)), np.nan)
    for r, level_k in enumerate(rows_k):
        for c, level_j in enumerate(cols_j):
            values = [row["value"] for point, row in sweep.at.items()
                      if point[k] == level_k and point[j] == level_j]
            if values:
                table[r, c] = np.mean(values)

    def square(at) -> dict:
        ties = int(np.sum(np.abs(table - table[at]) <= TIE)) - 1
        return {"row": str(rows_k[at[0]]), "column": str(cols_j[at[1]]),
                "value": float(table[at]), "ties": ties}

    return {"row_axis": sweep.axes[k]["label"], "column_axis": sweep.axes[j]["label"],
            "rows": [str(level) for level in rows_k],
            "columns": [str(level) for level in cols_j],
            "values": [[None if math.isnan(v) else float(v) for v in line] for line in table],
            "averaged_over": len(sweep.rows) // table.size if len(sweep.axes) > 2 else None,
            "best": square(np.unravel_index(np.nanargmax(table), table.shape)),
            "worst": square(np.unravel_index(np.nanargmin(table), table.shape))}


def _worth_of_axis(sweep: Sweep, k: int) -> dict:
    """A's chance of winning gained by one step of axis ``k`` (per point for a numeric
    field; against the first value for the others), at every level of the other axes:
    the first ``SHOWN`` combinations with A's chance at each level, and the range and
    mean over all of them."""
    label, levels = sweep.axes[k]["label"], sweep.levels[k]
    numeric = sweep.numeric(k)
    worth = {"axis": label, "column": sweep.axes[k]["column"], "numeric": numeric,
             "levels": [str(level) for level in levels], "steps": [], "combinations": 0,
             "rows": [], "more": 0, "low": None, "high": None, "mean": None}
    if len(levels) < 2:
        return worth
    steps = list(zip(levels, levels[1:], strict=False)) if numeric else [
        (levels[0], level) for level in levels[1:]]
    table, gains = [], []
    for fixed in sweep.others(k):
        points = []
        for low, high in steps:
            before, after = sweep.row(k, low, fixed), sweep.row(k, high, fixed)
            if before is None or after is None:
                points.append(None)
                continue
            per = (high - low) if numeric else 1
            points.append(100 * (after["win"] - before["win"]) / per)
            gains.append(points[-1])
        wins = [r["win"] if (r := sweep.row(k, level, fixed)) else None for level in levels]
        table.append({"others": sweep.label(fixed), "points": points, "wins": wins})
    worth.update(steps=[f"{a}→{b}" for a, b in steps], combinations=len(table),
                 rows=table[:SHOWN], more=max(0, len(table) - SHOWN))
    if gains:
        worth.update(low=min(gains), high=max(gains), mean=float(np.mean(gains)))
    return worth


def _dominated(sweep: Sweep) -> dict:
    """A's sheets never better than another A sheet against any opponent in the grid
    (the gaps are the other sheet's value less this one's)."""
    contexts: dict = {}
    for row in sweep.rows:
        contexts.setdefault(row["a"], {})[(row["b"], row["options"], row["ruleset"])] = (
            row["value"])
    found = []
    for mine, beater in itertools.permutations(contexts, 2):
        shared = contexts[mine].keys() & contexts[beater].keys()
        if len(shared) < 2:
            continue
        gaps = [contexts[beater][c] - contexts[mine][c] for c in shared]
        if min(gaps) >= -1e-12 and max(gaps) > 1e-9:
            found.append({"sheet": mine, "better": beater, "opponents": len(shared),
                          "gap_min": min(gaps), "gap_max": max(gaps)})
    return {"system": sweep.grid["system"], "pairs": found[:SHOWN],
            "more": max(0, len(found) - SHOWN)}


def _negligible(sweep: Sweep) -> dict:
    """Axes that are not numeric (flags, maneuvers, options, sheets, rules): how far
    their change moves A's chance of winning at most and on average over the others."""
    found = []
    for k, axis in enumerate(sweep.axes):
        if sweep.numeric(k) or len(sweep.levels[k]) < 2:
            continue
        moves = []
        for fixed in sweep.others(k):
            wins = [r["win"] for level in sweep.levels[k] if (r := sweep.row(k, level, fixed))]
            if len(wins) > 1:
                moves.append(100 * (max(wins) - min(wins)))
        if moves:
            found.append({"axis": axis["label"], "most_points": max(moves),
                          "mean_points": float(np.mean(moves)),
                          "negligible": max(moves) < NEGLIGIBLE_POINTS})
    return {"line_points": NEGLIGIBLE_POINTS, "axes": found}


def _balance(sweep: Sweep) -> dict:
    """Pairings of different sheets ranked by how far their value is from 0."""
    pairs = [row for row in sweep.rows if row["a"] != row["b"]]
    ranked = sorted(pairs, key=lambda r: (abs(r["value"]), r["cell"]))
    varied = [a for a in sweep.axes if a["target"] in ("o", "ruleset")]

    def pairing(row: dict) -> dict:
        # only the options the grid varies: the others are the same in every row
        options = ", ".join(f"{a['label']}={row[a['column']]}" for a in varied) or "-"
        return {"cell": row["cell"], "a": row["a"], "b": row["b"], "options": options,
                **{k: row[k] for k in ("value", "win", "draw", "loss")}}

    return {"same_sheet": len(sweep.rows) - len(pairs),
            "most": [pairing(r) for r in ranked[:BALANCE_SHOWN]],
            "least": [pairing(r) for r in ranked[::-1][:BALANCE_SHOWN]]}
