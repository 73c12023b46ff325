"""What every plot of the package and of the experiments shares: integer ticks where
the axis counts something (exchanges, dice, levels), no point drawn where nothing was
measured (an exchange never reached), and titles, legends and tick labels kept whole
when the figure is saved."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Sequence

#: a title wraps at about this many characters per inch of figure width
TITLE_CHARACTERS_PER_INCH = 11


def integer_ticks(axis) -> None:
    """Ticks at whole numbers only on ``axis`` (``axes.xaxis``, ``axes.yaxis``)."""
    from matplotlib.ticker import MaxNLocator
    axis.set_major_locator(MaxNLocator(integer=True))


def reached(points: Iterable[tuple[float, float, float]]) -> tuple[list, list]:
    """The (x, y) of the points whose weight (how often the point is reached) is above
    0, from (x, y, weight) triples: a step no duel reaches has no value to draw (its 0
    would read as certainty)."""
    kept = [(x, y) for x, y, weight in points if weight > 0]
    return [x for x, _ in kept], [y for _, y in kept]


def title(axes, text: str, **options) -> None:
    """``axes``'s title wrapped to the figure's width, so that it is never cut off."""
    width = axes.figure.get_figwidth() * axes.get_position().width
    lines = textwrap.wrap(text, max(20, int(width * TITLE_CHARACTERS_PER_INCH)))
    axes.set_title("\n".join(lines), **options)


def save(figure, target, dpi: int, **options) -> None:
    """Save ``figure`` with everything drawn around the axes inside it (a title, a
    legend above the axes, slanted tick labels): the bounding box is taken tight."""
    figure.savefig(target, dpi=dpi, bbox_inches="tight", pad_inches=0.1, **options)


def wrapped(labels: Sequence[str], width: int = 24) -> list[str]:
    """Long tick labels broken over lines."""
    return ["\n".join(textwrap.wrap(str(label), width)) or str(label) for label in labels]
