"""Learning curves of self-play: the exact exploitability against training time, as a
CSV file and a PNG plot beside it (both written atomically, see ``agents.files``)."""

from __future__ import annotations

import csv
from pathlib import Path

from solver.game import Game

from . import plots
from .files import write_atomically

CURVE_FIELDS = ("step", "seconds", "exploitability", "gain_a", "gain_b", "value")


def curve_path(curve_csv: str | Path | None, checkpoint: str | Path | None) -> Path | None:
    """Where the curve goes: the given CSV, else beside the checkpoint, else nowhere."""
    if curve_csv:
        return Path(curve_csv)
    if checkpoint:
        checkpoint = Path(checkpoint)
        return checkpoint.with_name(checkpoint.stem + ".curve.csv")
    return None


def curve_title(game: Game) -> str:
    """The system and what sets the two sheets apart (the whole sheet if nothing does)."""
    sheet_a, sheet_b = game.info.options.get("a"), game.info.options.get("b")
    if not sheet_a or not sheet_b:
        return game.info.system
    differ = [k for k in sheet_a if sheet_a.get(k) != sheet_b.get(k)] or list(sheet_a)
    text = [",".join(f"{k}={sheet[k]}" for k in differ if sheet.get(k) is not None)
            for sheet in (sheet_a, sheet_b)]
    return f"{game.info.system} {text[0]} vs {text[1]}"


def write_curve(curve: list[dict], path: Path, title: str = "") -> tuple[Path, Path]:
    """The learning curve as CSV and as a PNG beside it (same name, .png)."""

    def write(handle) -> None:
        writer = csv.DictWriter(handle, fieldnames=CURVE_FIELDS)
        writer.writeheader()
        writer.writerows({k: row[k] for k in CURVE_FIELDS} for row in curve)

    write_atomically(path, write)
    png = path.with_suffix(".png")
    plot_curves({"self-play": curve}, png, title=title)
    return path, png


def plot_curves(curves: dict[str, list[dict]], path: Path, title: str = "",
                target: float | None = 0.02) -> Path:
    """Exploitability against training seconds, one line per curve, log scale."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.5))
    for label, curve in curves.items():
        points = [(r["seconds"], r["exploitability"]) for r in curve if r["exploitability"] > 0]
        if points:
            axes.plot(*zip(*points, strict=True), marker=".", label=label)
    if target:
        axes.axhline(target, color="grey", linestyle="--", linewidth=1, label=f"{target:g}")
    axes.set_yscale("log")
    axes.set_xlabel("training seconds")
    axes.set_ylabel("how much a best responder gains (payoff units)")
    plots.title(axes, title)
    axes.legend()
    figure.tight_layout()
    try:
        write_atomically(path, lambda handle: plots.save(figure, handle, 110, format="png"),
                         binary=True)
    finally:
        plt.close(figure)
    return Path(path)
