"""Matrix games: the zero-sum LP and its batched simplex (``lp``, ``simplex``), the
maximum-entropy optimal mixes (``entropy``), warm starts from nearby games (``starts``)
and the compiled barrier method of the regularised stage problem (``barrier``)."""

from .lp import MatrixSolutions, solve_matrices, solve_matrix

__all__ = ["MatrixSolutions", "solve_matrices", "solve_matrix"]
