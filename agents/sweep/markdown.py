"""The report of a sweep (``report.report_data``'s document) written as Markdown, with
its plots (matplotlib, Agg) beside it: every number is the document's, only worded and
drawn here."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import plots


def render(report: dict, plots_folder: Path, home: Path) -> str:
    """The Markdown of ``report``; its plots are written in ``plots_folder`` and linked
    relative to ``home`` (the report's folder)."""
    sections = [_header(report["header"]),
                _heat_map(report["heat_map"], plots_folder, home),
                _marginal_worth(report["worth"], plots_folder, home),
                _dominated(report["dominated"]), _negligible(report["negligible"]),
                _balance(report["balance"])]
    return "\n\n".join(s for s in sections if s) + "\n"


def sheet_name(text: str) -> str:
    return text or "(default)"


def _points(gain: float) -> str:
    """Percentage points, signed, without a ``-0.0``."""
    return f"{gain + 0.0:+.1f}" if abs(gain) >= 0.05 else "+0.0"


def _header(header: dict) -> str:
    axes = "\n".join(f"- `{a['label']}`: {', '.join(a['values'])}" for a in header["axes"])
    base = ", ".join(f"--{side} {text!r}" for side, text in header["base_sheets"].items()
                     if text) or "default sheets"
    options = ", ".join(f"{k}={v}" for k, v in header["base_options"].items()) or "none"
    lines = [f"# Balance sweep: {header['system']}", "",
             f"{header['cells']} duels from `{header['source']}`, each solved exactly "
             f"(base: {base}; options: {options}; rules: "
             f"{header['base_ruleset'] or 'the defaults'}). The grid:", "", axes, "",
             "Value is A's worth of the duel (+1 a sure win, -1 a sure loss); win is A's "
             "chance of winning, both sides playing the least predictable safe play."]
    if header["unrefined"]:
        lines += ["", f"In {header['unrefined']} duels some mixes are optimal but not "
                      "confirmed the least predictable: their values are exact, their odds "
                      "those of the optimal mixes found."]
    return "\n".join(lines)


def _heat_map(heat: dict | None, folder: Path, home: Path) -> str:
    if heat is None:
        return ""
    lk, lj = heat["row_axis"], heat["column_axis"]
    path = folder / "heat_map.png"
    _plot_heat_map(heat, path)
    said = {}
    for name in ("best", "worst"):
        square, ties = heat[name], heat[name]["ties"]
        tied = f", tied with {ties} other square{'s' if ties > 1 else ''}" if ties else ""
        said[name] = (f"{lk}={square['row']}, {lj}={square['column']} "
                      f"({square['value']:+.3f}{tied})")
    averaged = (f"Each square is the mean over the other axes' {heat['averaged_over']} "
                "combinations. " if heat["averaged_over"] else "")
    return "\n".join([
        f"## Value over {lk} and {lj}", "",
        f"![value over {lk} and {lj}]({path.relative_to(home)})", "",
        f"{averaged}The best for A is {said['best']}; the worst {said['worst']}."])


def _plot_heat_map(heat: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = np.array([[np.nan if v is None else v for v in line] for line in heat["values"]])
    rows, cols = heat["rows"], heat["columns"]
    figure, axes = plt.subplots(figsize=(1.2 + 0.8 * len(cols), 1.0 + 0.6 * len(rows)))
    image = axes.imshow(table, cmap="RdBu", vmin=-1, vmax=1, aspect="auto")
    axes.set_xticks(range(len(cols)), cols, rotation=30, ha="right")
    axes.set_yticks(range(len(rows)), rows)
    axes.set_xlabel(heat["column_axis"])
    axes.set_ylabel(heat["row_axis"])
    for (r, c), value in np.ndenumerate(table):
        axes.text(c, r, f"{value:+.2f}", ha="center", va="center", fontsize=8)
    figure.colorbar(image, label="value to A")
    figure.tight_layout()
    plots.save(figure, path, 100)
    plt.close(figure)


def _marginal_worth(worth: list[dict], folder: Path, home: Path) -> str:
    parts = ["## What each field is worth", "",
             "A's chance of winning gained by one step of each axis, at every level of the "
             "others (percentage points per point for a numeric field; against the "
             "first value for the others)."]
    for axis in worth:
        parts += ["", *_worth_of_axis(axis, folder, home, several=len(worth) > 1)]
    return "\n".join(parts)


def _worth_of_axis(axis: dict, folder: Path, home: Path, several: bool) -> list[str]:
    label = axis["axis"]
    if not axis["steps"]:
        return [f"### {label}", "", "One level only: nothing to compare."]
    lines = [f"### {label}", ""]
    if axis["low"] is not None:
        lines.append(f"Over {axis['combinations']} combinations of the others, one step of "
                     f"{label} changes A's chance of winning by {_points(axis['low'])} to "
                     f"{_points(axis['high'])} points (mean {_points(axis['mean'])}).")
    lines += ["", "| others | " + " | ".join(axis["steps"]) + " |",
              "|---|" + "---:|" * len(axis["steps"])]
    for row in axis["rows"]:
        lines.append(f"| {row['others']} | " + " | ".join(
            "-" if g is None else _points(g) for g in row["points"]) + " |")
    if axis["more"]:
        lines.append(f"\n({axis['more']} more combinations in the results file.)")
    if axis["numeric"]:
        path = folder / f"worth_{axis['column']}.png"
        _plot_worth(axis, path, several)
        lines += ["", f"![win % over {label}]({path.relative_to(home)})"]
    return lines


def _plot_worth(axis: dict, path: Path, several: bool) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    levels = [float(level) for level in axis["levels"]]
    for row in axis["rows"]:
        wins = [np.nan if w is None else 100 * w for w in row["wins"]]
        axes.plot(levels, wins, marker="o", label=row["others"])
    axes.set_xlabel(axis["axis"])
    if all(level.is_integer() for level in levels):
        plots.integer_ticks(axes.xaxis)
    axes.set_ylabel("A wins (%)")
    if several:
        axes.legend(fontsize=7)
    figure.tight_layout()
    plots.save(figure, path, 100)
    plt.close(figure)


def _dominated(dominated: dict) -> str:
    lines = ["## Dominated sheets", "",
             f"The schema of {dominated['system']} gives sheets no cost, so no sheet is "
             "dominated *at the same cost*; below instead are A's sheets that are never "
             "better than another of A's sheets against every opponent and option they "
             "were both tried with (a designer weighs what each costs)."]
    if not dominated["pairs"]:
        return "\n".join(lines + ["", "No sheet of A is dominated in this grid."])
    lines += ["", "| sheet | never better than | opponents | gap min | gap max |",
              "|---|---|---:|---:|---:|"]
    for pair in dominated["pairs"]:
        lines.append(f"| `{sheet_name(pair['sheet'])}` | `{sheet_name(pair['better'])}` | "
                     f"{pair['opponents']} | {pair['gap_min']:+.3f} | {pair['gap_max']:+.3f} |")
    if dominated["more"]:
        lines.append(f"\n({dominated['more']} more dominated pairs.)")
    return "\n".join(lines)


def _negligible(negligible: dict) -> str:
    lines = ["## Options and flags of negligible worth", ""]
    if not negligible["axes"]:
        return "\n".join(lines + ["No flag, option or sheet axis to weigh in this grid."])
    for axis in negligible["axes"]:
        verdict = "negligible" if axis["negligible"] else "not negligible"
        lines.append(f"- `{axis['axis']}`: its values move A's chance of winning by at most "
                     f"{axis['most_points']:.2f} points (mean {axis['mean_points']:.2f}): "
                     f"{verdict} (the line is {negligible['line_points']} points).")
    return "\n".join(lines)


def _balance(balance: dict) -> str:
    lines = ["## The most and least balanced pairings", ""]
    if not balance["most"]:
        return "\n".join(lines + ["Every duel of this grid pits a sheet against itself."])
    same = balance["same_sheet"]
    lines.append("Pairings of different sheets by how far the value is from 0"
                 + (f" ({same} duels of a sheet against itself left out: they are "
                    "even by symmetry)." if same else "."))
    for title, chosen in (("Most balanced", balance["most"]),
                          ("Least balanced", balance["least"])):
        lines += ["", f"{title}:", "", "| A | B | options | value | A wins | draw | B wins |",
                  "|---|---|---|---:|---:|---:|---:|"]
        for row in chosen:
            lines.append(f"| `{sheet_name(row['a'])}` | `{sheet_name(row['b'])}` | "
                         f"{row['options']} | {row['value']:+.3f} | "
                         f"{100 * row['win']:.1f}% | {100 * row['draw']:.1f}% | "
                         f"{100 * row['loss']:.1f}% |")
    return "\n".join(lines)
