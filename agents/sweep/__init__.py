"""Balance sweeps for designers: a grid of duels solved on one machine or a Ray cluster,
into one Parquet file, with a designer's report.

``Grid`` (``grid.py``) turns ``--grid`` axes into checked cells; ``run_sweep``
(``runner.py``) solves them on a backend (``backends.py``) into a results file
(``results.py``); ``report_data`` (``report.py``) reads it back for people, as one
document that ``duel sweep --report`` writes as Markdown (``markdown.py``) and the web
screen draws.
"""

from .backends import BACKENDS, make_backend
from .grid import MAX_CELLS, Axis, Cell, Grid, parse_axis
from .results import read_results
from .runner import SweepSummary, run_sweep

__all__ = ["BACKENDS", "MAX_CELLS", "Axis", "Cell", "Grid", "SweepSummary", "make_backend",
           "parse_axis", "read_results", "run_sweep"]
