"""Regularised play: the most robust play that stays close to a prior.

One player (the regularised one) keeps close to a prior mix ``p`` at every state; the
other is a best responder. At each state the regularised player plays

    x* = argmax_x  min_y  x^T Q y  -  beta * KL(x || p)

where ``Q`` holds the continuation values, from the regularised player's side, of the
regularised game below. The value ``min_y x*^T Q y - beta * KL(x* || p)`` propagates up,
so over the whole game the player maximises its expected payoff against a best
responder minus ``beta`` times the expected KL divergence summed over the states it
visits. ``beta = 0`` is the (maximum-entropy) equilibrium, ``beta = inf`` the prior.

The stage problem is solved exactly up to a certified tolerance. By the minimax
theorem it equals its dual ``min_y beta * log sum_i p_i exp((Q y)_i / beta)`` (the inner
max over x is the Gibbs mix ``x ∝ p exp(Q y / beta)``), a smooth convex problem over the
opponent's simplex, solved by a barrier (interior point) Newton method, state by state
in compiled loops (``solver.matrix.barrier``) over a whole batch at once. The duality gap
between that dual value and what the Gibbs mix guarantees is the certificate; it is
reported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..game import Game, Policy, State, renormalise
from ..matrix import barrier, solve_matrices
from ..policy import TabularPolicy, observation_table
from ..results import summary
from .evaluate import mixes_of, require_public
from .graph import StateGraph, build_graph
from .stages import MAX_SWEEPS, TOLERANCE, Convergence, stage_batches, sweep

#: a stage problem is solved once its duality gap is below this (times the payoff scale)
GAP_TOLERANCE = 1e-12
#: below this barrier weight (relative to the payoff scale) rounding dominates the gap
_MU_FLOOR = 1e-15
#: mu shrinks by this factor at each centring (fewest Newton steps on Falkenstein)
_MU_SHRINK = 100.0
#: a Newton decrement below this times mu is close enough to the barrier optimum to
#: shrink mu (only speed depends on it: the duality gap decides when a state is done)
_CENTRED = 1e-2
#: a Newton decrement below this (relative) takes the full step without a line search
_FULL_STEP = 1e-12
_MAX_NEWTON = 1000
#: a warm start begins at this barrier weight (relative to the payoff scale): from a
#: nearby answer, Newton steps at a weight this small settle in a few steps, where the
#: cold start's centring path takes about 44 (Pathfinder's regularised duels)
_WARM_MU = 1e-15
_MAX_HALVINGS = 60
#: a start whose duality gap is below this (relative to the payoff scale) takes no
#: Newton step: it is where the steps would end (the same game solved a moment before:
#: 201,684 of the 534,012 stage games of a level-1 Pathfinder personality's solve, 12%
#: of its Newton steps; below 1e-15 the gap's own rounding keeps almost all of them
#: out). The gap tolerance would do for the value, but a step still moves the mix's
#: last certified digits (an exploitability by 8e-12 on Blooded); with this, four
#: systems' personalities (beta, exploitability) stayed within 1.3e-13 of the steps'
_SETTLED = 1e-14


def strength_to_beta(strength: float) -> float:
    """The fixed map from a strength s in [0, 1] to a KL weight: s / (1 - s), infinite at
    s = 1. It knows no game, so it is not a scale a game master can feel (on GD vs GD a
    personality of s = 0.25 already gives away 75% of what its temperament gives away):
    ``agents.personalities`` calibrates beta per game on the exact exploitability and
    uses this map only as the trainer's weight where the game has hidden information."""
    if not 0.0 <= strength <= 1.0:
        raise ValueError(f"strength must lie in [0, 1], got {strength}")
    return np.inf if strength == 1.0 else strength / (1.0 - strength)


@dataclass
class StageSolutions:
    """Regularised max-min of a batch of stage games, from the row player's side."""

    row: np.ndarray    # (B, n) the regularised player's mix
    col: np.ndarray    # (B, m) a minimising opponent mix
    value: np.ndarray  # (B,) what the row mix guarantees: min_y x^T Q y - beta KL(x || p)
    gap: np.ndarray    # (B,) duality gap, an upper bound on the value's error


def regularized_maxmin(matrices: np.ndarray, beta: float, priors: np.ndarray,
                       rows: np.ndarray | None = None,
                       cols: np.ndarray | None = None,
                       start: np.ndarray | None = None) -> StageSolutions:
    """``max_x min_y x^T Q y - beta KL(x || p)`` for each ``Q`` of a (B, n, m) batch.

    ``rows`` / ``cols`` are boolean masks of the legal actions (all legal by default);
    ``priors`` (B, n) is renormalised over the legal rows, uniform where it gives them
    no weight. ``start`` (B, m) gives opponent mixes to start the barrier method from
    (rows of NaN start cold, at the uniform mix): the answers of nearby games (the same
    games a moment before, or a neighbour's) settle in a few steps, the duality gap
    still deciding when a game is solved.
    """
    Q = np.asarray(matrices, dtype=float)
    if Q.ndim == 2:
        single = regularized_maxmin(Q[None], beta, np.asarray(priors)[None],
                                    None if rows is None else np.asarray(rows)[None],
                                    None if cols is None else np.asarray(cols)[None])
        return StageSolutions(single.row[0], single.col[0], single.value[0], single.gap[0])
    count, n, m = Q.shape
    rows = np.ones((count, n), bool) if rows is None else np.asarray(rows, bool)
    cols = np.ones((count, m), bool) if cols is None else np.asarray(cols, bool)
    Q = np.where(rows[:, :, None] & cols[:, None, :], Q, 0.0)
    p = renormalise(priors, rows)
    if beta == 0:
        solved = solve_matrices(Q, rows, cols, max_entropy=True)
        return StageSolutions(solved.row, solved.col, solved.value, np.zeros(count))
    if np.isinf(beta):
        return _prior_play(Q, p, cols)
    return _barrier_newton(Q, p, cols, beta, start)


def _prior_play(Q: np.ndarray, p: np.ndarray, cols: np.ndarray) -> StageSolutions:
    payoff = np.where(cols, np.einsum("bi,bij->bj", p, Q), np.inf)
    best = payoff.min(axis=1, keepdims=True)
    ties = cols & (payoff <= best + 1e-12)
    return StageSolutions(p, ties / ties.sum(axis=1, keepdims=True), best[:, 0],
                          np.zeros(len(Q)))


def _kl(x, p) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(x > 0, x * np.log(x / p), 0.0)
    return terms.sum(axis=1)


def _barrier_newton(Q, p, cols, beta, start=None) -> StageSolutions:
    """The opponent mix minimising the dual, by a barrier method: for a shrinking
    weight mu, Newton steps on dual(y) - mu * sum log y_j over the simplex. At the
    barrier optimum the duality gap is at most (legal columns) * mu; each game stops
    once its gap is below GAP_TOLERANCE (or mu reaches rounding level). The steps are
    compiled loops, game by game (``solver.matrix.barrier``), which also give the Gibbs
    mix against the opponent's (the regularised player's best answer), what it
    guarantees and the gap."""
    legal = cols.astype(float)
    y = legal / legal.sum(axis=1, keepdims=True)
    scale = max(float(np.abs(Q).max(initial=0.0)), 1e-3)
    mu = np.full(len(Q), scale)
    if start is not None:
        # strictly inside the simplex, as the barrier needs
        warm = ~np.isnan(start).any(axis=1)
        inside = np.where(cols, np.maximum(np.nan_to_num(start), 1e-16), 0.0)
        y[warm] = (inside / inside.sum(axis=1, keepdims=True))[warm]
        mu[warm] = _WARM_MU * scale
    constants = np.array([GAP_TOLERANCE, _MU_FLOOR, _MU_SHRINK, _CENTRED, _FULL_STEP,
                          _MAX_NEWTON, _MAX_HALVINGS, _SETTLED], dtype=float)
    x, value, gap = np.empty(p.shape), np.empty(len(Q)), np.empty(len(Q))
    barrier.barrier_newton(np.ascontiguousarray(Q, dtype=float),
                           np.ascontiguousarray(p, dtype=float),
                           np.ascontiguousarray(cols, dtype=bool), float(beta), y, mu,
                           scale, constants, x, value, gap)
    return StageSolutions(x, y, value, gap)


class ShownAsRegularized:
    """How a regularised solution shows itself, on the state graph or over the counters
    (``solver.counters.regularized``): its player, beta, value and gap."""

    def __repr__(self) -> str:
        return summary(f"RegularizedSolution[{self.player.upper()}]", self.game,
                       {"beta": self.beta, "value": self.value, "gap": self.gap})


@dataclass(repr=False)
class RegularizedSolution(ShownAsRegularized):
    """The regularised player's mix at every state and its regularised values."""

    game: Game
    graph: StateGraph
    player: str
    beta: float
    values: np.ndarray  # (N,) regularised value of every state, to ``player``
    mix: np.ndarray     # (N, n_actions) the regularised player's mix
    gap: float          # the largest duality gap of a stage problem
    convergence: Convergence

    @property
    def value(self) -> float:
        """The regularised value of the game to ``player``: payoff minus beta times
        the expected KL divergence, against a best responder."""
        return float(self.graph.start @ self.values)

    def policy(self, name: str = "regularized") -> TabularPolicy:
        """The regularised play as a policy on the player's observations."""
        return observation_table(self.game, self.graph, self.mix, self.player, name)

    def _index(self, state: State) -> int:
        try:
            return self.graph.index[state]
        except KeyError:
            raise KeyError(f"state not reachable in this solution: {state!r}") from None

    def mix_at(self, state: State) -> np.ndarray:
        """The regularised player's mix over the action list at ``state``."""
        return self.mix[self._index(state)].copy()

    def value_at(self, state: State) -> float:
        """The regularised value of ``state`` to the player."""
        return float(self.values[self._index(state)])


def solve_regularized_graph(game: Game, player: str, prior: Policy, beta: float,
                            tolerance: float = TOLERANCE,
                            max_sweeps: int = MAX_SWEEPS) -> RegularizedSolution:
    """Backward induction of the regularised game: ``player`` stays within ``beta`` KL of
    ``prior`` (a policy on its observations), the other side best-responds.

    Cyclic parts of the graph use value iteration (``solver.markov.stages.sweep``). The
    state-graph backend of ``solver.solve_regularized``.
    """
    require_public(game, "the regularised solution")
    if player not in ("a", "b"):
        raise ValueError(f"player must be 'a' or 'b', got {player!r}")
    if beta < 0 or np.isnan(beta):
        raise ValueError(f"beta must be >= 0, got {beta}")
    graph = build_graph(game)
    priors = mixes_of(game, graph, prior, player)
    values = graph.payoff.astype(float).copy()  # from A's side while solving
    mix = np.zeros((graph.size, len(game.info.action_names)))
    gaps = np.zeros(graph.size)

    def update(states: np.ndarray) -> None:
        _solve_states(graph, states, values, mix, priors, player, beta, gaps)

    convergence = sweep(graph.schedule, values, update, tolerance, max_sweeps,
                        "the regularised solution")
    sign = 1.0 if player == "a" else -1.0
    return RegularizedSolution(game, graph, player, beta, sign * values, mix,
                               float(gaps.max(initial=0.0)), convergence)


def _solve_states(graph, states, values, mix, priors, player, beta, gaps) -> None:
    n = mix.shape[1]
    for batch in stage_batches(graph, states, values):
        prior = batch.compact(priors, player)
        if player == "a":
            solved = regularized_maxmin(batch.matrices, beta, prior, batch.row_mask,
                                        batch.col_mask)
            values[batch.states] = solved.value
        else:
            # B's rows: transpose, and B's payoff is the negative of A's
            solved = regularized_maxmin(-batch.matrices.transpose(0, 2, 1), beta, prior,
                                        batch.col_mask, batch.row_mask)
            values[batch.states] = -solved.value
        mix[batch.states] = batch.expand(solved.row, player, n)
        gaps[batch.states] = solved.gap


def regularized_value(game: Game, player: str, policy: Policy, prior: Policy | None,
                      beta: float, tolerance: float = TOLERANCE,
                      max_sweeps: int = MAX_SWEEPS) -> float:
    """The regularised value of a fixed ``policy`` for ``player``: its expected payoff
    against a best responder minus ``beta`` times its expected KL divergence from
    ``prior``, summed over the states it visits (the objective ``solve_regularized``
    maximises). With ``beta = 0`` it is the value against a best responder."""
    require_public(game, "the regularised value")
    graph = build_graph(game)
    mix = mixes_of(game, graph, policy, player)
    penalty = np.zeros(graph.size)
    if beta > 0 and prior is not None:
        live = ~graph.terminal
        penalty[live] = beta * _kl(mix[live], mixes_of(game, graph, prior, player)[live])
    sign = 1.0 if player == "a" else -1.0
    values = sign * graph.payoff.astype(float)  # from the player's side

    def update(states: np.ndarray) -> None:
        _guarantee(graph, states, values, mix, penalty, player)

    sweep(graph.schedule, values, update, tolerance, max_sweeps, "the regularised value")
    return float(graph.start @ values)


def _guarantee(graph, states, values, mix, penalty, player) -> None:
    # values are the player's own, so the continuation matrices are too
    for batch in stage_batches(graph, states, values):
        matrices, replies = ((batch.matrices, batch.col_mask) if player == "a"
                             else (batch.matrices.transpose(0, 2, 1), batch.row_mask))
        payoff = np.einsum("bi,bij->bj", batch.compact(mix, player), matrices)
        payoff = np.where(replies, payoff, np.inf)
        values[batch.states] = payoff.min(axis=1) - penalty[batch.states]
