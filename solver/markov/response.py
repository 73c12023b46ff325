"""Best response against a fixed policy (an MDP, solved exactly) and exploitability."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..decision_table import DecisionTable
from ..errors import InputError
from ..gains import gain_over
from ..game import Game, Policy, State, other
from ..policy import TabularPolicy, observation_table
from ..results import outcome_numbers, summary
from ..sparse import sp
from .evaluate import (
    Evaluation,
    StateChances,
    mixes_of,
    require_public,
    statistics,
    visit_counts,
)
from .graph import StateGraph, build_graph
from .stages import MAX_SWEEPS, TOLERANCE, Convergence, sweep

#: best-response actions whose values are this close count as tied, and share the play
TIE_TOLERANCE = 1e-9
#: a decision reached less often than this is left out of a plan
MIN_REACH = 1e-12


@dataclass
class BestResponse:
    """The best response of ``responder`` to a fixed policy on the other side.

    ``value`` is the **responder's** expected payoff; ``evaluation`` (win, draw, loss,
    endings) is from **A's** side, like every ``Evaluation``. ``action_values`` are the
    responder's values of each own action at every state (NaN where illegal), ``visits``
    the expected visits of every state in the resulting play.
    """

    responder: str
    value: float              # expected payoff to the responder
    policy: TabularPolicy     # the responder's play, ties split evenly
    mixes: np.ndarray         # (N, n_actions) the same by state index
    opponent_mixes: np.ndarray  # (N, n_actions) the fixed policy by state index
    action_values: np.ndarray  # (N, n_actions) responder's value of each action, NaN if illegal
    visits: np.ndarray        # (N,) expected visits of every state in the resulting play
    evaluation: Evaluation    # the resulting play, from A's side
    graph: StateGraph
    convergence: Convergence

    def __repr__(self) -> str:
        return summary(f"BestResponse[{self.responder.upper()}]", None,
                       _response_numbers(self))

    def _pair(self) -> tuple[np.ndarray, np.ndarray]:
        return ((self.mixes, self.opponent_mixes) if self.responder == "a"
                else (self.opponent_mixes, self.mixes))

    def _index(self, state: State) -> int:
        try:
            return self.graph.index[state]
        except KeyError:
            raise KeyError(f"state not reachable in this play: {state!r}") from None

    def mix_at(self, state: State) -> np.ndarray:
        """The responder's mix over the action list at ``state``."""
        return self.mixes[self._index(state)].copy()

    def value_at(self, state: State) -> float:
        """The responder's value of ``state`` under the best response."""
        s = self._index(state)
        if self.graph.terminal[s]:
            return (1.0 if self.responder == "a" else -1.0) * float(self.graph.payoff[s])
        return float(np.nanmax(self.action_values[s]))

    def action_values_at(self, state: State) -> np.ndarray:
        """The responder's value of each of his actions at ``state`` against the fixed
        side's mix, the best response played after it (NaN where illegal)."""
        return self.action_values[self._index(state)].copy()

    def action_values_of(self, states: list[State]) -> list[np.ndarray]:
        """``action_values_at`` of each of ``states``."""
        return [self.action_values_at(state) for state in states]

    def decisions(self, chances: bool = False) -> DecisionTable:
        """Every state where the responder chooses that the play reaches (at least
        ``MIN_REACH``): the state, its expected visits, the responder's mix over the
        action list and his value there; with ``chances``, A's (win, draw, loss) from
        there too."""
        masks = self.graph.mask_a if self.responder == "a" else self.graph.mask_b
        kept = np.flatnonzero((masks.sum(axis=1) > 1) & (self.visits > MIN_REACH))
        return DecisionTable([self.graph.states[s] for s in kept.tolist()],
                             self.visits[kept], self.mixes[kept],
                             np.nanmax(self.action_values[kept], axis=1),
                             self.chances().chances[kept] if chances else None)

    def chances(self) -> StateChances:
        """A's chances of winning, drawing and losing from every state in this play."""
        return StateChances(self.graph, *self._pair())

    def live_visits(self, player: str) -> tuple[np.ndarray, np.ndarray]:
        """``player``'s legal actions at every live state and its expected visits."""
        live = np.flatnonzero(~self.graph.terminal)
        masks = self.graph.mask_a if player == "a" else self.graph.mask_b
        return masks[live], self.visits[live]


def best_response_graph(game: Game, policy: Policy, responder: str,
                        tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS,
                        safest: Policy | None = None) -> BestResponse:
    """The state-graph backend of ``solver.best_response`` (its docstring says what the
    best response is, and how ties and ``safest`` are settled).
    """
    require_public(game, "the exact best response")
    if not isinstance(responder, str) or responder not in ("a", "b"):
        raise InputError(f"unknown responder {responder!r}; allowed: a, b")
    graph = build_graph(game)
    fixed = mixes_of(game, graph, policy, other(responder))
    sign = 1.0 if responder == "a" else -1.0
    values = sign * graph.payoff

    def update(states: np.ndarray) -> None:
        _improve(graph, states, fixed, responder, values)

    convergence = sweep(graph.schedule, values, update, tolerance, max_sweeps, "the best response")
    action_values = _action_values(graph, fixed, responder, values)
    if safest is None:
        mixes = _even_split(action_values)
    else:
        reference = mixes_of(game, graph, safest, responder)
        mixes = _safest(graph, fixed, responder, action_values, reference, tolerance,
                        max_sweeps)
    mix_a, mix_b = (mixes, fixed) if responder == "a" else (fixed, mixes)
    visits = visit_counts(graph, mix_a, mix_b)
    evaluation = statistics(game, graph, visits)
    policy = observation_table(game, graph, mixes, responder, f"best response of {responder}")
    return BestResponse(responder, sign * evaluation.value, policy,
                        mixes, fixed, action_values, visits, evaluation, graph, convergence)


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


def _tied(action_values: np.ndarray) -> np.ndarray:
    """(N, n) the actions within TIE_TOLERANCE of each state's best (none if terminal)."""
    filled = np.nan_to_num(action_values, nan=-np.inf)
    best = filled.max(axis=1, keepdims=True)
    return np.isfinite(filled) & (filled >= best - TIE_TOLERANCE)


def _safest(graph: StateGraph, fixed: np.ndarray, responder: str, action_values: np.ndarray,
            reference: np.ndarray, tolerance: float, max_sweeps: int) -> np.ndarray:
    """Among the value-maximising actions, those of least probability of losing, mixed
    as ``reference`` mixes them (evenly where it gives them nothing)."""
    tied = _tied(action_values)
    sign = 1.0 if responder == "a" else -1.0
    losing = (sign * graph.payoff < 0).astype(float)  # 1 at the responder's losses
    restricted = np.where(tied, 0.0, np.nan)

    def update(states: np.ndarray) -> None:
        # minimising the loss is maximising its negative over the tied actions only
        chances = _action_values(graph, fixed, responder, losing, states)
        losing[states] = np.nanmin(chances + restricted[states], axis=1)

    sweep(graph.schedule, losing, update, tolerance, max_sweeps, "the safest best response")
    loss = _action_values(graph, fixed, responder, losing) + restricted
    safest = _tied(-loss)
    weights = np.where(safest, reference, 0.0)
    weights = np.where(weights.sum(axis=1, keepdims=True) > 0, weights, safest)
    totals = weights.sum(axis=1, keepdims=True)
    return np.divide(weights, totals, out=np.zeros_like(weights), where=totals > 0)


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


def _response_numbers(response) -> dict[str, float]:
    """A best response's labelled numbers: its value to the responder, the play's
    chances from A's side (as its ``evaluation``)."""
    chances = outcome_numbers(response.evaluation)
    return {"value_to_responder": response.value,
            **{f"{name}_of_a": chances[name] for name in ("win", "draw", "loss")}}


def exploitability_of(game: Game, pair: float, against_b: float,
                      against_a: float) -> Exploitability:
    """The exploitability of a pair worth ``pair`` to A, against which a best-responding
    A gets ``against_b`` and a best-responding B ``against_a`` (each the responder's
    value; ``solver.exploitability`` computes them). 0 at an equilibrium; in payoff
    units. Gains within rounding are reported as 0 and a clearly negative gain raises
    (see ``gain_over``)."""
    gain_a = gain_over(against_b, pair, game.info.payoff_bounds, "A's best response")
    gain_b = gain_over(against_a, -pair, game.info.payoff_bounds, "B's best response")
    return Exploitability((gain_a + gain_b) / 2, gain_a, gain_b, pair)

