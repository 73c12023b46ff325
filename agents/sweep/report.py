"""A designer's reading of a sweep's results file: Markdown with plots (matplotlib, Agg).

Every sentence states its numbers; every number is read from the rows (value is A's
worth, +1 a sure win; win is A's chance of winning, both playing the least predictable
safe play)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from .. import plots
from .results import read_results

#: a change of A's chance of winning below this (in points of percent) is negligible
NEGLIGIBLE_POINTS = 0.5
#: rows of a table shown before the rest are counted
SHOWN = 12


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


def _points(gain: float) -> str:
    """Percentage points, signed, without a ``-0.0``."""
    return f"{gain + 0.0:+.1f}" if abs(gain) >= 0.05 else "+0.0"


def write_report(results: str | Path, report: str | Path) -> Path:
    """Write the report of ``results`` to ``report`` (its plots beside it)."""
    rows, grid = read_results(results)
    sweep = Sweep(rows, grid)
    report = Path(report)
    plots = report.with_name(report.stem + "_plots")
    plots.mkdir(parents=True, exist_ok=True)
    sections = [_header(sweep, results), _heat_map(sweep, plots, report.parent),
                _marginal_worth(sweep, plots, report.parent), _dominated(sweep),
                _negligible(sweep), _balance(sweep)]
    report.write_text("\n\n".join(s for s in sections if s) + "\n")
    return report


def _header(sweep: Sweep, results) -> str:
    grid = sweep.grid
    axes = "\n".join(f"- `{a['label']}`: {', '.join(map(str, a['values']))}"
                     for a in sweep.axes)
    base = ", ".join(f"--{side} {text!r}" for side, text in grid["base_sheets"].items()
                     if text) or "default sheets"
    options = ", ".join(f"{k}={v}" for k, v in grid["base_options"].items()) or "none"
    unrefined = sum(bool(row["unrefined"]) for row in sweep.rows)
    lines = [f"# Balance sweep: {grid['system']}", "",
             f"{len(sweep.rows)} duels from `{Path(results).name}`, each solved exactly "
             f"(base: {base}; options: {options}; rules: "
             f"{grid['base_ruleset'] or 'the defaults'}). The grid:", "", axes, "",
             "Value is A's worth of the duel (+1 a sure win, -1 a sure loss); win is A's "
             "chance of winning, both sides playing the least predictable safe play."]
    if unrefined:
        lines += ["", f"In {unrefined} duels some mixes are optimal but not confirmed the "
                      "least predictable: their values are exact, their odds those of the "
                      "optimal mixes found."]
    return "\n".join(lines)


def _heat_map(sweep: Sweep, plots: Path, home: Path) -> str:
    if len(sweep.axes) < 2:
        return ""
    # the two axes with the most levels, numeric ones first
    k, j = sorted(range(len(sweep.axes)),
                  key=lambda i: (not sweep.numeric(i), -len(sweep.levels[i])))[:2]
    rows_k, cols_j = sweep.levels[k], sweep.levels[j]
    table = np.full((len(rows_k), len(cols_j)), np.nan)
    for r, level_k in enumerate(rows_k):
        for c, level_j in enumerate(cols_j):
            values = [row["value"] for point, row in sweep.at.items()
                      if point[k] == level_k and point[j] == level_j]
            table[r, c] = np.mean(values)
    averaged = len(sweep.axes) > 2
    path = plots / "heat_map.png"
    _plot_heat_map(table, rows_k, cols_j, sweep.axes[k]["label"], sweep.axes[j]["label"],
                   path)
    best = np.unravel_index(np.nanargmax(table), table.shape)
    worst = np.unravel_index(np.nanargmin(table), table.shape)
    ties = {name: int(np.sum(np.abs(table - table[at]) <= 1e-9)) - 1
            for name, at in (("best", best), ("worst", worst))}
    tied = {name: f", tied with {n} other square{'s' if n > 1 else ''}" if n else ""
            for name, n in ties.items()}
    lk, lj = sweep.axes[k]["label"], sweep.axes[j]["label"]
    return "\n".join([
        f"## Value over {lk} and {lj}", "",
        f"![value over {lk} and {lj}]({path.relative_to(home)})", "",
        (f"Each square is the mean over the other axes' {len(sweep.rows) // table.size} "
         "combinations. " if averaged else "") +
        f"The best for A is {lk}={rows_k[best[0]]}, {lj}={cols_j[best[1]]} "
        f"({table[best]:+.3f}{tied['best']}); the worst {lk}={rows_k[worst[0]]}, "
        f"{lj}={cols_j[worst[1]]} ({table[worst]:+.3f}{tied['worst']})."])


def _plot_heat_map(table, rows, cols, row_label, col_label, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(1.2 + 0.8 * len(cols), 1.0 + 0.6 * len(rows)))
    image = axes.imshow(table, cmap="RdBu", vmin=-1, vmax=1, aspect="auto")
    axes.set_xticks(range(len(cols)), [str(c) for c in cols], rotation=30, ha="right")
    axes.set_yticks(range(len(rows)), [str(r) for r in rows])
    axes.set_xlabel(col_label)
    axes.set_ylabel(row_label)
    for (r, c), value in np.ndenumerate(table):
        axes.text(c, r, f"{value:+.2f}", ha="center", va="center", fontsize=8)
    figure.colorbar(image, label="value to A")
    figure.tight_layout()
    plots.save(figure, path, 100)
    plt.close(figure)


def _marginal_worth(sweep: Sweep, plots: Path, home: Path) -> str:
    parts = ["## What each field is worth", "",
             "A's chance of winning gained by one step of each axis, at every level of the "
             "others (percentage points per point for a numeric field; against the "
             "first value for the others)."]
    for k in range(len(sweep.axes)):
        parts += ["", *_worth_of_axis(sweep, k, plots, home)]
    return "\n".join(parts)


def _worth_of_axis(sweep: Sweep, k: int, plots: Path, home: Path) -> list[str]:
    label, levels = sweep.axes[k]["label"], sweep.levels[k]
    if len(levels) < 2:
        return [f"### {label}", "", "One level only: nothing to compare."]
    steps = list(zip(levels, levels[1:], strict=False)) if sweep.numeric(k) else [
        (levels[0], level) for level in levels[1:]]
    header = [f"{a}→{b}" for a, b in steps]
    table, gains = [], []
    for fixed in sweep.others(k):
        row = []
        for low, high in steps:
            before, after = sweep.row(k, low, fixed), sweep.row(k, high, fixed)
            if before is None or after is None:
                row.append(None)
                continue
            per = (high - low) if sweep.numeric(k) else 1
            gain = 100 * (after["win"] - before["win"]) / per
            row.append(gain)
            gains.append(gain)
        table.append((sweep.label(fixed), row))
    lines = [f"### {label}", ""]
    if gains:
        lines.append(f"Over {len(table)} combinations of the others, one step of {label} "
                     f"changes A's chance of winning by {_points(min(gains))} to "
                     f"{_points(max(gains))} points (mean {_points(np.mean(gains))}).")
    lines += ["", "| others | " + " | ".join(header) + " |",
              "|---|" + "---:|" * len(header)]
    for name, row in table[:SHOWN]:
        lines.append(f"| {name} | " + " | ".join("-" if g is None else _points(g)
                                                  for g in row) + " |")
    if len(table) > SHOWN:
        lines.append(f"\n({len(table) - SHOWN} more combinations in the results file.)")
    if sweep.numeric(k):
        path = plots / f"worth_{sweep.axes[k]['column']}.png"
        _plot_worth(sweep, k, path)
        lines += ["", f"![win % over {label}]({path.relative_to(home)})"]
    return lines


def _plot_worth(sweep: Sweep, k: int, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    levels = sweep.levels[k]
    for fixed in itertools.islice(sweep.others(k), SHOWN):
        wins = [100 * r["win"] if (r := sweep.row(k, level, fixed)) else np.nan
                for level in levels]
        axes.plot(levels, wins, marker="o", label=sweep.label(fixed))
    axes.set_xlabel(sweep.axes[k]["label"])
    if all(isinstance(level, int) and not isinstance(level, bool) for level in levels):
        plots.integer_ticks(axes.xaxis)
    axes.set_ylabel("A wins (%)")
    if len(sweep.axes) > 1:
        axes.legend(fontsize=7)
    figure.tight_layout()
    plots.save(figure, path, 100)
    plt.close(figure)


def _dominated(sweep: Sweep) -> str:
    """A's sheets never better than another A sheet against any opponent in the grid."""
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
            found.append((mine, beater, len(shared), min(gaps), max(gaps)))
    lines = ["## Dominated sheets", "",
             f"The schema of {sweep.grid['system']} gives sheets no cost, so no sheet is "
             "dominated *at the same cost*; below instead are A's sheets that are never "
             "better than another of A's sheets against every opponent and option they "
             "were both tried with (a designer weighs what each costs)."]
    if not found:
        return "\n".join(lines + ["", "No sheet of A is dominated in this grid."])
    lines += ["", "| sheet | never better than | opponents | gap min | gap max |",
              "|---|---|---:|---:|---:|"]
    for mine, beater, count, low, high in found[:SHOWN]:
        lines.append(f"| `{mine or '(default)'}` | `{beater or '(default)'}` | {count} | "
                     f"{low:+.3f} | {high:+.3f} |")
    if len(found) > SHOWN:
        lines.append(f"\n({len(found) - SHOWN} more dominated pairs.)")
    return "\n".join(lines)


def _negligible(sweep: Sweep) -> str:
    """Axes that are not numeric (flags, maneuvers, options, sheets, rules) whose change
    moves A's chance of winning by less than NEGLIGIBLE_POINTS everywhere."""
    lines = ["## Options and flags of negligible worth", ""]
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
            found.append((axis["label"], max(moves), np.mean(moves)))
    if not found:
        return "\n".join(lines + ["No flag, option or sheet axis to weigh in this grid."])
    for label, most, mean in found:
        verdict = "negligible" if most < NEGLIGIBLE_POINTS else "not negligible"
        lines.append(f"- `{label}`: its values move A's chance of winning by at most "
                     f"{most:.2f} points (mean {mean:.2f}): {verdict} (the line is "
                     f"{NEGLIGIBLE_POINTS} points).")
    return "\n".join(lines)


def _balance(sweep: Sweep) -> str:
    pairs = [row for row in sweep.rows if row["a"] != row["b"]]
    same = len(sweep.rows) - len(pairs)
    lines = ["## The most and least balanced pairings", ""]
    if not pairs:
        return "\n".join(lines + ["Every duel of this grid pits a sheet against itself."])
    ranked = sorted(pairs, key=lambda r: (abs(r["value"]), r["cell"]))
    lines.append("Pairings of different sheets by how far the value is from 0"
                 + (f" ({same} duels of a sheet against itself left out: they are "
                    "even by symmetry)." if same else "."))
    for title, chosen in (("Most balanced", ranked[:5]), ("Least balanced", ranked[::-1][:5])):
        lines += ["", f"{title}:", "", "| A | B | options | value | A wins | draw | B wins |",
                  "|---|---|---|---:|---:|---:|---:|"]
        for row in chosen:
            lines.append(f"| `{row['a'] or '(default)'}` | `{row['b'] or '(default)'}` | "
                         f"{_short_options(sweep, row)} | {row['value']:+.3f} | "
                         f"{100 * row['win']:.1f}% | {100 * row['draw']:.1f}% | "
                         f"{100 * row['loss']:.1f}% |")
    return "\n".join(lines)


def _short_options(sweep: Sweep, row: dict) -> str:
    """Only the options the grid varies (the others are the same in every row)."""
    varied = [a for a in sweep.axes if a["target"] in ("o", "ruleset")]
    return ", ".join(f"{a['label']}={row[a['column']]}" for a in varied) or "-"
