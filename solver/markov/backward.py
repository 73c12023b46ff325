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

from .. import progress
from ..game import Game, State
from ..matrix import solve_matrices
from ..policy import TabularPolicy, observation_table
from ..results import outcome_numbers, summary
from .evaluate import (
    Evaluation,
    StateTable,
    require_public,
    state_table,
    statistics,
    visit_counts,
)
from .graph import StateGraph, build_graph
from .stages import MAX_SWEEPS, TOLERANCE, Convergence, stage_batches, sweep


@dataclass
class Solution:
    """The value and equilibrium of a whole game, every number from A's side.

    ``value`` (unique) is A's expected payoff under equilibrium play; ``win``, ``draw``
    and ``loss`` are A's probabilities, ``expected_length`` the expected number of
    ``game.info.length_unit`` played (rounds, exchanges) and ``endings`` the
    probability of each ``game.result`` label, all under the maximum-entropy
    equilibrium (``mix_a`` / ``mix_b``, by state index of ``graph``).
    ``convergence`` says whether value iteration was needed and how it ended.
    """

    game: Game
    graph: StateGraph
    values: np.ndarray   # (N,) value of every state, to A
    mix_a: np.ndarray    # (N, n_actions)
    mix_b: np.ndarray
    evaluation: Evaluation
    convergence: Convergence

    def __repr__(self) -> str:
        return summary("Solution", self.game, outcome_numbers(self))

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
        """Continuation values to A of every joint action at ``state`` (NaN where illegal)."""
        s = self._index(state)
        n = len(self.game.info.action_names)
        matrix = np.full((n, n), np.nan)
        pairs = np.arange(self.graph.pair_slices[s], self.graph.pair_slices[s + 1])
        matrix[self.graph.pair_a[pairs], self.graph.pair_b[pairs]] = (
            self.graph.transitions[pairs] @ self.values)
        return matrix

    def policy_for(self, player: str, name: str = "equilibrium") -> TabularPolicy:
        """The equilibrium of ``player`` as a policy on its observations."""
        mixes = self.mix_a if player == "a" else self.mix_b
        return observation_table(self.game, self.graph, mixes, player, name)

    def state_table(self) -> StateTable:
        """Every live state with its expected visits and both mixes."""
        return state_table(self.graph, self.mix_a, self.mix_b)


def solve_graph(game: Game, start: State | None = None, tolerance: float = TOLERANCE,
                max_sweeps: int = MAX_SWEEPS) -> Solution:
    """Solve ``game`` over its state graph, from its initial outcomes (or from ``start``):
    the state-graph backend of ``solver.solve_game``.

    ``tolerance`` and ``max_sweeps`` apply to the parts of the state graph with cycles,
    solved by value iteration (see ``solver.markov.stages.sweep``); ``solution.convergence``
    says how it went.
    """
    require_public(game, "the exact solution")
    graph = build_graph(game) if start is None else build_graph(game, [(1.0, start)])
    values = graph.payoff.astype(float).copy()

    def update(states: np.ndarray) -> None:
        for batch in stage_batches(graph, states, values):
            values[batch.states] = solve_matrices(batch.matrices, batch.row_mask,
                                                  batch.col_mask).value
        progress.advance(len(states), "stage games")   # a cycle's states once per sweep

    live = np.flatnonzero(~graph.terminal)
    # the states' values, then their mixes in batches of like shape, then the play
    with progress.task("solving", 2 * len(live), "states"):
        convergence = sweep(graph.schedule, values, update, tolerance, max_sweeps,
                            "the exact solution")
        # The values are unique, so the maximum-entropy mixes can wait until every
        # stage game is known, and then come from one batch per shape instead of one
        # per level.
        n = len(game.info.action_names)
        mix_a = np.zeros((graph.size, n))
        mix_b = np.zeros((graph.size, n))
        for batch in stage_batches(graph, live, values):
            solved = solve_matrices(batch.matrices, batch.row_mask, batch.col_mask,
                                    max_entropy=True)
            mix_a[batch.states] = batch.expand(solved.row, "a", n)
            mix_b[batch.states] = batch.expand(solved.col, "b", n)
            progress.advance(len(batch.states), "least predictable mixes")
        evaluation = statistics(game, graph, visit_counts(graph, mix_a, mix_b))
    return Solution(game, graph, values, mix_a, mix_b, evaluation, convergence)

