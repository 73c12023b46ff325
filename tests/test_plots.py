"""The plots' shared rules (``agents.plots``): no point for a step never reached,
integer ticks on counted axes, titles wrapped to the figure and kept whole on saving."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from agents import plots  # noqa: E402
from experiments.bluffing import belief_points  # noqa: E402


def test_an_exchange_never_reached_is_not_drawn():
    # played 1, then 0.4, then never: the third exchange's 0 bits is no measurement
    result = {"belief_about_a": [(1.0, 2.58), (0.4, 0.9), (0.0, 0.0)]}
    assert belief_points(result) == ([1, 2], [2.58, 0.9])


def test_counted_axes_tick_at_whole_numbers():
    figure, axes = plt.subplots()
    axes.plot([1, 2, 3], [0.5, 0.2, 0.1])
    plots.integer_ticks(axes.xaxis)
    figure.canvas.draw()
    ticks = [t for t in axes.get_xticks() if axes.get_xlim()[0] <= t <= axes.get_xlim()[1]]
    assert isinstance(axes.xaxis.get_major_locator(), MaxNLocator)
    assert ticks and all(float(t).is_integer() for t in ticks)
    plt.close(figure)


def test_long_titles_are_wrapped_and_saved_whole(tmp_path):
    figure, axes = plt.subplots(figsize=(4, 3))
    text = "Exploitability against training seconds for every personality of the duel"
    plots.title(axes, text)
    assert "\n" in axes.get_title() and axes.get_title().replace("\n", " ") == text
    axes.plot([0, 1], [0, 1], label="a legend above the axes")
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, 1.6))
    path = tmp_path / "whole.png"
    plots.save(figure, path, 50)
    # the tight box grows the image beyond 4 x 3 inches to hold the legend above
    height = plt.imread(path).shape[0]
    assert height > 3 * 50
    plt.close(figure)


def test_wrapped_labels():
    assert plots.wrapped(["short", "a label much longer than the width"], 10) == [
        "short", "a label\nmuch\nlonger\nthan the\nwidth"]
    assert np.array_equal(plots.reached([(1, 5, 0.0)]), ([], []))
