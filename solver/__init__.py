"""Pure game theory: matrix games, backward induction, best responses, exact dice.

Knows nothing about duels; every system implements ``solver.game.Game``.
"""

from .backward import Solution, solve_game
from .errors import InputError
from .evaluate import Evaluation, evaluate
from .game import PLAYERS, Game, Policy
from .matrix import MatrixSolutions, solve_matrices, solve_matrix
from .policy import MixPolicy, TabularPolicy, UniformPolicy
from .response import BestResponse, Exploitability, best_response, exploitability

__all__ = [
    "PLAYERS", "BestResponse", "Evaluation", "Exploitability", "Game", "InputError",
    "MatrixSolutions", "MixPolicy", "Policy", "Solution", "TabularPolicy", "UniformPolicy",
    "best_response", "evaluate", "exploitability", "solve_game", "solve_matrices",
    "solve_matrix",
]
