"""The independent reference for the value of a zero-sum matrix game: one scipy HiGHS
``linprog`` call. The one copy, used by the benchmark baselines (``baseline.py``,
``bench_matrix.py``) and by the tests (``from experiments.reference import ...``)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

#: HiGHS's tightest feasibility tolerances: its defaults (1e-7 of the largest payoff)
#: are looser than what the properties of ``tests/test_matrix_properties.py`` ask of the
#: value (1e-8), so a generated game could find HiGHS off where the solver was exact
TIGHT = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def linprog_value(matrix, options: dict | None = None) -> float:
    """The row player's maximin value: max v s.t. x @ matrix >= v, x a mix. The LP runs on
    the matrix divided by its largest entry (payoffs near the float limits need it) and
    the value is scaled back; ``options`` go to HiGHS (``TIGHT``: its tightest
    tolerances)."""
    matrix = np.asarray(matrix, dtype=float)
    scale = float(np.abs(matrix).max()) or 1.0
    m, n = matrix.shape
    cost = np.zeros(m + 1)
    cost[-1] = -1.0
    upper = np.hstack([-matrix.T / scale, np.ones((n, 1))])
    equal = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    done = linprog(cost, A_ub=upper, b_ub=np.zeros(n), A_eq=equal, b_eq=[1.0],
                   bounds=[(0, None)] * m + [(None, None)], method="highs", options=options)
    if not done.success:
        raise RuntimeError(f"the HiGHS reference failed on a {m}x{n} game: {done.message}")
    return float(done.x[-1]) * scale
