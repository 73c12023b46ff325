"""Pure game theory: matrix games, backward induction, best responses, exact dice.

Knows nothing about duels; every system implements ``solver.game.Game``. The public
questions go through ``solver.solve``, the one place a backend is chosen:

- ``solver.matrix``: matrix games (LP, simplex, maximum entropy, warm starts, barrier);
- ``solver.markov``: the state-graph backend (graph, stages, backward induction,
  evaluation, best response, regularised play);
- ``solver.counters``: the counters backend (games whose counters only fall);
- ``solver.hidden``: hidden information (sequence form, CFR+).

The public names are imported on first use, so ``solver.dice`` or ``solver.errors``
alone never pay for numpy, scipy or the compiled backends behind ``solve_game``.
"""

from __future__ import annotations

import importlib

#: each public name and the module that defines it
_PUBLIC = {
    "InputError": "errors",
    "PLAYERS": "game", "Game": "game", "Policy": "game",
    "Solution": "markov.backward",
    "Evaluation": "markov.evaluate",
    "BestResponse": "markov.response", "Exploitability": "markov.response",
    "MatrixSolutions": "matrix", "solve_matrices": "matrix", "solve_matrix": "matrix",
    "write_efg": "efg",
    "MixPolicy": "policy", "TabularPolicy": "policy", "UniformPolicy": "policy",
    **{name: "solve" for name in (
        "best_response", "decisions", "equilibrium_policy", "evaluate", "exploitability",
        "policy_table", "read_policy", "replies_with_equilibrium", "require_states",
        "require_table", "resolve_policy",
        "solve_game", "solve_moment", "solve_regularized", "stage_equilibria",
        "state_graph", "together")},
}


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_PUBLIC[name]}", __name__), name)
    globals()[name] = value   # looked up once
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC])


__all__ = sorted(_PUBLIC)
