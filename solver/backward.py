"""The exact solution of a whole duel: backward induction over the reachable states
of a simultaneous-move game with public state, each stage a matrix game.

Acyclic games (a turn cap) are solved level by level, every level in one batch;
games with cycles by Shapley's value iteration to a stated tolerance. The mixes
are the maximum-entropy optimal ones at every state, so every derived statistic
is well defined.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .evaluate import Evaluation, require_public, statistics, visit_counts
from .game import Game, State
from .graph import StateGraph, build_graph
from .matrix import solve_matrices
from .policy import TabularPolicy


@dataclass
class Solution:
    """The value and equilibrium of a game (from A's side), with its statistics."""

    game: Game
    graph: StateGraph
    values: np.ndarray   # (N,) value of every state
    mix_a: np.ndarray    # (N, n_actions)
    mix_b: np.ndarray
    evaluation: Evaluation

    @property
    def value(self) -> float:
        return self.evaluation.value

    @property
    def win(self) -> float:
        return self.evaluation.win

    @property
    def draw(self) -> float:
        return self.evaluation.draw

    @property
    def loss(self) -> float:
        return self.evaluation.loss

    @property
    def expected_length(self) -> float:
        return self.evaluation.expected_length

    @property
    def endings(self) -> dict[str, float]:
        return self.evaluation.endings

    def _index(self, state: State) -> int:
        try:
            return self.graph.index[state]
        except KeyError:
            raise KeyError(f"state not reachable in this solution: {state!r}") from None

    def policy(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """The equilibrium mixes of A and B at ``state``."""
        s = self._index(state)
        return self.mix_a[s].copy(), self.mix_b[s].copy()

    def value_at(self, state: State) -> float:
        return float(self.values[self._index(state)])

    def stage_matrix(self, state: State) -> np.ndarray:
        """Continuation values of every joint action at ``state`` (NaN where illegal)."""
        s = self._index(state)
        n = len(self.game.action_names)
        matrix = np.full((n, n), np.nan)
        pairs = np.arange(self.graph.pair_slices[s], self.graph.pair_slices[s + 1])
        matrix[self.graph.pair_a[pairs], self.graph.pair_b[pairs]] = (
            self.graph.transitions[pairs] @ self.values)
        return matrix

    def policy_for(self, player: str) -> TabularPolicy:
        """The equilibrium of ``player`` as a policy on its observations."""
        mixes = self.mix_a if player == "a" else self.mix_b
        table = {}
        for s in np.flatnonzero(~self.graph.terminal):
            observation = tuple(self.game.observe(self.graph.states[s], player))
            if observation in table and not np.allclose(table[observation], mixes[s]):
                raise ValueError("observations do not determine the state; "
                                 "the equilibrium cannot be played from observations")
            table[observation] = mixes[s]
        return TabularPolicy(table, name="equilibrium")


def solve_game(game: Game, start: State | None = None, tolerance: float = 1e-10,
               max_iterations: int = 100_000) -> Solution:
    """Solve ``game`` from its initial outcomes (or from ``start``).

    ``tolerance`` and ``max_iterations`` apply to games with cycles only, solved by
    value iteration until no state value moves by more than ``tolerance``.
    """
    require_public(game, "the exact solution")
    graph = build_graph(game) if start is None else build_graph(game, [(1.0, start)])
    values = graph.payoff.astype(float).copy()
    n = len(game.action_names)
    mix_a = np.zeros((graph.size, n))
    mix_b = np.zeros((graph.size, n))
    if graph.levels is not None:
        for level in graph.levels:
            matrices, rows, cols = stage_games(graph, level, values, n)
            values[level] = solve_matrices(matrices, rows, cols).value
    else:
        _value_iteration(graph, values, n, tolerance, max_iterations)
    # The values are unique, so the maximum-entropy mixes can wait until every stage
    # game is known, and then come from one batch instead of one per level.
    _solve_states(graph, np.flatnonzero(~graph.terminal), values, mix_a, mix_b, n)
    evaluation = statistics(game, graph, visit_counts(graph, mix_a, mix_b))
    return Solution(game, graph, values, mix_a, mix_b, evaluation)


def stage_games(graph: StateGraph, states: np.ndarray, values: np.ndarray, n: int):
    """Padded continuation matrices of ``states`` with their masks."""
    pairs = graph.pairs_of(states)
    position = np.empty(graph.size, dtype=np.int64)
    position[states] = np.arange(len(states))
    matrices = np.zeros((len(states), n, n))
    # one product over every pair beats slicing the sparse matrix by rows
    continuation = graph.transitions @ values
    matrices[position[graph.pair_state[pairs]], graph.pair_a[pairs], graph.pair_b[pairs]] = (
        continuation[pairs])
    return matrices, graph.mask_a[states], graph.mask_b[states]


def _solve_states(graph, states, values, mix_a, mix_b, n) -> None:
    matrices, rows, cols = stage_games(graph, states, values, n)
    solved = solve_matrices(matrices, rows, cols, max_entropy=True)
    mix_a[states] = solved.row
    mix_b[states] = solved.col


def _value_iteration(graph, values, n, tolerance, max_iterations) -> None:
    live = np.flatnonzero(~graph.terminal)
    for _ in range(max_iterations):
        matrices, rows, cols = stage_games(graph, live, values, n)
        new = solve_matrices(matrices, rows, cols).value
        change = np.max(np.abs(new - values[live])) if len(live) else 0.0
        values[live] = new
        if change <= tolerance:
            return
    raise RuntimeError(f"value iteration did not reach tolerance {tolerance} "
                       f"in {max_iterations} iterations")
