"""Exact statistics of a policy pair: value, win / draw / loss, length and endings."""

from __future__ import annotations

import warnings
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..errors import InputError
from ..game import BatchPolicy, Game, Policy, State, policy_mix, renormalise
from ..policy import named_policy
from .graph import StateGraph, build_graph
from .stages import sweep


@dataclass
class Evaluation:
    """What happens when a policy pair plays the game, computed exactly; all from A's side."""

    value: float
    win: float
    draw: float
    loss: float
    expected_length: float    # in the game's ``info.length_unit``
    endings: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"value": self.value, "win": self.win, "draw": self.draw, "loss": self.loss,
                "expected_length": self.expected_length, "endings": dict(self.endings)}


def require_public(game: Game, what: str) -> None:
    if not game.info.public_information:
        raise InputError(
            f"{what} of a game with hidden information is not available yet "
            f"({game.info.system} with these options); solve the public variant instead")


def mixes_of(game: Game, graph: StateGraph, policy: Policy, player: str) -> np.ndarray:
    """(N, n_actions) mix of ``policy`` at every non-terminal state, from what the
    player observes only. A policy may offer ``batch_probabilities`` for speed; the
    names ``uniform`` and ``mix=...`` are accepted for a policy."""
    policy = named_policy(policy, game, player)
    mixes = np.zeros((graph.size, len(game.info.action_names)))
    live = np.flatnonzero(~graph.terminal)
    masks = graph.mask_a if player == "a" else graph.mask_b
    if isinstance(policy, BatchPolicy) and len(live):
        observations = np.asarray([game.observe(graph.states[s], player) for s in live])
        mixes[live] = renormalise(policy.batch_probabilities(observations, masks[live]),
                                  masks[live])
        return mixes
    for s in live:
        mixes[s] = policy_mix(policy, game, graph.states[s], player)
    return mixes


def visit_counts(graph: StateGraph, mix_a: np.ndarray, mix_b: np.ndarray,
                 start: np.ndarray | None = None) -> np.ndarray:
    """Expected number of visits of every state (for terminal states: the probability
    of ending there) when A plays ``mix_a`` and B ``mix_b``."""
    weights = mix_a[graph.pair_state, graph.pair_a] * mix_b[graph.pair_state, graph.pair_b]
    step = sp.csr_matrix((weights, (graph.pair_state, np.arange(len(weights)))),
                         shape=(graph.size, len(weights))) @ graph.transitions
    start = graph.start if start is None else start
    if graph.levels is not None:
        return _forward_by_levels(graph, step.tocsr(), start)
    system = (sp.identity(graph.size, format="csc") - step.T.tocsc())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spla.MatrixRankWarning)
        visits = spla.spsolve(system, start)
    if not np.all(np.isfinite(visits)):
        raise InputError("under this play the game can go on forever with positive "
                         "probability, so its outcome probabilities are not defined")
    return visits


def _forward_by_levels(graph: StateGraph, step: sp.csr_matrix, start: np.ndarray) -> np.ndarray:
    visits = start.astype(float).copy()
    flow = step.T.tocsr()
    leaving = np.zeros_like(visits)
    for level in reversed(graph.levels):
        # a whole product per level beats slicing the sparse matrix by rows
        leaving[:] = 0.0
        leaving[level] = visits[level]
        visits += flow @ leaving
    return visits


def statistics(game: Game, graph: StateGraph, visits: np.ndarray) -> Evaluation:
    ended = np.flatnonzero(graph.terminal)
    reach = visits[ended]
    payoff = graph.payoff[ended]
    endings: dict[str, float] = defaultdict(float)
    for s, p in zip(ended, reach, strict=True):
        if p > 0:
            endings[game.result(graph.states[s])] += float(p)
    return Evaluation(
        value=float(reach @ payoff),
        win=float(reach[payoff > 0].sum()),
        draw=float(reach[payoff == 0].sum()),
        loss=float(reach[payoff < 0].sum()),
        expected_length=float(visits[graph.unit_starts(game)].sum()),
        endings=dict(sorted(endings.items(), key=lambda item: -item[1])))


def evaluate_graph(game: Game, policy_a: Policy, policy_b: Policy,
                   start: State | None = None) -> Evaluation:
    """Exact value and outcome probabilities of ``policy_a`` against ``policy_b`` over
    the state graph (the state-graph backend of ``solver.evaluate``)."""
    graph = build_graph(game) if start is None else build_graph(game, [(1.0, start)])
    mix_a = mixes_of(game, graph, policy_a, "a")
    mix_b = mixes_of(game, graph, policy_b, "b")
    return statistics(game, graph, visit_counts(graph, mix_a, mix_b))


def state_chances(graph: StateGraph, mix_a: np.ndarray, mix_b: np.ndarray) -> np.ndarray:
    """(N, 3): A's probabilities of winning, drawing and losing from every state when A
    plays ``mix_a`` and B ``mix_b`` (by state index). On a cyclic graph play that never
    ends counts in none of the three."""
    ends = np.stack([graph.payoff > 0, graph.terminal & (graph.payoff == 0),
                     graph.payoff < 0], axis=1).astype(float)
    weights = mix_a[graph.pair_state, graph.pair_a] * mix_b[graph.pair_state, graph.pair_b]
    step = sp.csr_matrix((weights, (graph.pair_state, np.arange(len(weights)))),
                         shape=(graph.size, len(weights))) @ graph.transitions
    step = step.tocsr()

    def update(states: np.ndarray) -> None:
        chances[states] = step[states] @ chances

    chances = ends.copy()
    sweep(graph.schedule, chances, update, what="the chances of each ending")
    return chances
