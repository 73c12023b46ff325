"""Best response against a fixed policy (an MDP, solved exactly) and exploitability."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .evaluate import Evaluation, evaluate, mixes_of, require_public, statistics, visit_counts
from .game import Game, Policy, other
from .graph import StateGraph, build_graph
from .policy import TabularPolicy

#: best-response actions whose values are this close count as tied, and share the play
TIE_TOLERANCE = 1e-9


@dataclass
class BestResponse:
    responder: str
    value: float              # expected payoff to the responder
    policy: TabularPolicy     # the responder's play, ties split evenly
    mixes: np.ndarray         # (N, n_actions) the same by state index
    opponent_mixes: np.ndarray  # (N, n_actions) the fixed policy by state index
    action_values: np.ndarray  # (N, n_actions) responder's value of each action, NaN if illegal
    visits: np.ndarray        # (N,) expected visits of every state in the resulting play
    evaluation: Evaluation    # the resulting play, from A's side
    graph: StateGraph


def best_response(game: Game, policy: Policy, responder: str,
                  tolerance: float = 1e-12, max_iterations: int = 100_000) -> BestResponse:
    """What ``responder`` ("a" or "b") should play against ``policy`` on the other side.

    The responder sees the whole state (the game is of public information), the fixed
    side is evaluated on its own observations. Cyclic games use value iteration to
    ``tolerance``.
    """
    require_public(game, "the exact best response")
    if responder not in ("a", "b"):
        raise ValueError(f"responder must be 'a' or 'b', got {responder!r}")
    graph = build_graph(game)
    fixed = mixes_of(game, graph, policy, other(responder))
    sign = 1.0 if responder == "a" else -1.0
    values = sign * graph.payoff
    if graph.levels is not None:
        for level in graph.levels:
            _improve(graph, level, fixed, responder, values)
    else:
        live = np.flatnonzero(~graph.terminal)
        for _ in range(max_iterations):
            before = values[live].copy()
            _improve(graph, live, fixed, responder, values)
            if np.max(np.abs(values[live] - before), initial=0.0) <= tolerance:
                break
    action_values = _action_values(graph, fixed, responder, values)
    mixes = _even_split(action_values)
    mix_a, mix_b = (mixes, fixed) if responder == "a" else (fixed, mixes)
    visits = visit_counts(graph, mix_a, mix_b)
    evaluation = statistics(game, graph, visits)
    table = {tuple(game.observe(graph.states[s], responder)): mixes[s]
             for s in np.flatnonzero(~graph.terminal)}
    return BestResponse(responder, sign * evaluation.value,
                        TabularPolicy(table, name=f"best response of {responder}"),
                        mixes, fixed, action_values, visits, evaluation, graph)


def _action_values(graph: StateGraph, fixed: np.ndarray, responder: str,
                   values: np.ndarray, states: np.ndarray | None = None) -> np.ndarray:
    """Responder's expected value of each own action at every state."""
    own, theirs = (graph.pair_a, graph.pair_b) if responder == "a" else (graph.pair_b, graph.pair_a)
    n = fixed.shape[1]
    continuation = graph.transitions @ values
    weighted = continuation * fixed[graph.pair_state, theirs]
    result = np.full((graph.size, n), np.nan)
    flat = sp.coo_matrix((weighted, (graph.pair_state, own)), shape=(graph.size, n)).toarray()
    mask = graph.mask_a if responder == "a" else graph.mask_b
    result[mask] = flat[mask]
    return result if states is None else result[states]


def _improve(graph, states, fixed, responder, values) -> None:
    best = _action_values(graph, fixed, responder, values, states)
    values[states] = np.nanmax(best, axis=1)


def _even_split(action_values: np.ndarray) -> np.ndarray:
    live = ~np.all(np.isnan(action_values), axis=1)
    mixes = np.zeros_like(action_values)
    best = np.nanmax(action_values[live], axis=1, keepdims=True)
    ties = np.nan_to_num(action_values[live], nan=-np.inf) >= best - TIE_TOLERANCE
    mixes[live] = ties / ties.sum(axis=1, keepdims=True)
    return mixes


@dataclass
class Exploitability:
    """NashConv / 2 as in OpenSpiel, and what each best responder gains."""

    value: float
    gain_a: float   # what a best-responding A gains over the pair's value
    gain_b: float
    pair_value: float  # value of the pair to A

    @property
    def nash_conv(self) -> float:
        return self.gain_a + self.gain_b


def exploitability(game: Game, policy_a: Policy, policy_b: Policy) -> Exploitability:
    """0 at an equilibrium; in payoff units (payoffs in [-1, 1])."""
    pair = evaluate(game, policy_a, policy_b).value
    against_b = best_response(game, policy_b, "a").value
    against_a = best_response(game, policy_a, "b").value
    gain_a = against_b - pair
    gain_b = against_a + pair
    return Exploitability((gain_a + gain_b) / 2, gain_a, gain_b, pair)
