"""Pure game theory: matrix games, backward induction, best responses, exact dice.

Knows nothing about duels; every system implements ``solver.game.Game``. The public
questions go through ``solver.solve``, the one place a backend is chosen:

- ``solver.matrix.lp``: matrix games (LP, simplex, maximum entropy, warm starts, barrier);
- ``solver.markov``: the state-graph backend (graph, stages, backward induction,
  evaluation, best response, regularised play);
- ``solver.counters``: the counters backend (games whose counters only fall);
- ``solver.hidden.sequence``: hidden information (sequence form, CFR+).
"""

from .errors import InputError
from .game import PLAYERS, Game, Policy
from .markov.backward import Solution
from .markov.evaluate import Evaluation
from .markov.response import BestResponse, Exploitability
from .matrix import MatrixSolutions, solve_matrices, solve_matrix
from .policy import MixPolicy, TabularPolicy, UniformPolicy
from .solve import (
    best_response,
    decisions,
    equilibrium_policy,
    evaluate,
    exploitability,
    policy_table,
    require_states,
    require_table,
    resolve_policy,
    solve_game,
    solve_moment,
    solve_regularized,
    state_graph,
)

__all__ = [
    "PLAYERS", "BestResponse", "Evaluation", "Exploitability", "Game", "InputError",
    "MatrixSolutions", "MixPolicy", "Policy", "Solution", "TabularPolicy", "UniformPolicy",
    "best_response", "decisions", "equilibrium_policy", "evaluate", "exploitability",
    "policy_table", "require_states", "require_table", "resolve_policy", "solve_game",
    "solve_matrices", "solve_matrix", "solve_moment", "solve_regularized", "state_graph",
]
