"""Exact statistics of a policy pair: value, win / draw / loss, length and endings."""

from __future__ import annotations

import warnings
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..game import BatchPolicy, Game, Policy, State, policy_mix, renormalise
from ..policy import TabularPolicy, named_policy
from ..sparse import sp
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

    def __post_init__(self):
        # sums of chances that total 1 may pass it by an ulp or two (a sure draw read
        # 1.0000000000000002, which a profile's check then refused)
        self.win, self.draw, self.loss = (_chance(self.win), _chance(self.draw),
                                          _chance(self.loss))
        self.endings = {label: _chance(p) for label, p in self.endings.items()}

    def as_dict(self) -> dict:
        return {"value": self.value, "win": self.win, "draw": self.draw, "loss": self.loss,
                "expected_length": self.expected_length, "endings": dict(self.endings)}


#: how far rounding may take a sum of chances past 0 or 1 (a few ulps of a sum of many)
ROUNDING = 1e-12


def _chance(p: float) -> float:
    """``p`` back into [0, 1] where rounding took it just out; anything further out is
    left as it is, for the checks downstream to refuse."""
    if 1.0 < p <= 1.0 + ROUNDING:
        return 1.0
    if -ROUNDING <= p < 0.0:
        return 0.0
    return p


#: where the exact answers about a game with hidden information are
HIDDEN_SOLVER = "solver.hidden.sequence.solve_hidden(game)"


def require_public(game: Game, what: str) -> None:
    if not game.info.public_information:
        raise InputError(
            f"{what} of a game with hidden information is not available yet "
            f"({game.info.system} with these options); its exact equilibrium is "
            f"{HIDDEN_SOLVER} (value, each side's policy_for, type_values, root_values), "
            "and solver.exploitability takes its policies")


def mixes_of(game: Game, graph: StateGraph, policy: Policy, player: str) -> np.ndarray:
    """(N, n_actions) mix of ``policy`` at every non-terminal state, from what the
    player observes only. A policy may offer ``batch_probabilities`` for speed, and a
    table is read at every state at once; the names ``uniform`` and ``mix=...`` are
    accepted for a policy."""
    policy = named_policy(policy, game, player)
    mixes = np.zeros((graph.size, len(game.info.action_names)))
    live = np.flatnonzero(~graph.terminal)
    masks = graph.mask_a if player == "a" else graph.mask_b
    if isinstance(policy, BatchPolicy) and len(live):
        observations = np.asarray([game.observe(graph.states[s], player) for s in live])
        mixes[live] = renormalise(policy.batch_probabilities(observations, masks[live]),
                                  masks[live])
        return mixes
    if isinstance(policy, TabularPolicy) and not hasattr(policy, "mix_at_state") and len(live):
        mixes[live] = _table_mixes(game, graph, policy, player, live, masks[live])
        return mixes
    for s in live:
        mixes[s] = policy_mix(policy, game, graph.states[s], player)
    return mixes


def _table_mixes(game: Game, graph: StateGraph, policy: TabularPolicy, player: str,
                 live: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``policy_mix`` of a table at the ``live`` states, to the last bit: looked up as its
    ``probabilities`` would (renormalised, uniform where it has none), then renormalised
    again, each over all states at once. State by state, those renormalisations took
    0.5 s of each best response to a personality on a Uchronia melee duel (7,211
    states)."""
    found = [policy.table.get(tuple(game.observe(graph.states[s], player))) for s in live]
    known = np.array([row is not None for row in found], dtype=bool)
    rows = masks / masks.sum(axis=1, keepdims=True)   # each row's uniform_over
    if known.any():
        rows[known] = renormalise(np.array([row for row in found if row is not None]),
                                  masks[known])
    return renormalise(rows, masks)


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
    import scipy.sparse.linalg as spla  # 0.25 s to load: only when solving
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


@dataclass
class StateTable:
    """Every live state of a play, one by one: the states, the expected visits of each
    and both players' mixes there (by row). What a table by state (``duel solve --by``)
    reads, whichever backend solved the play."""

    states: list[State]
    visits: np.ndarray   # (k,)
    mix_a: np.ndarray    # (k, n_actions)
    mix_b: np.ndarray


def state_table(graph: StateGraph, mix_a: np.ndarray, mix_b: np.ndarray) -> StateTable:
    """The live states of ``graph`` under ``mix_a`` / ``mix_b`` (by state index)."""
    live = np.flatnonzero(~graph.terminal)
    visits = visit_counts(graph, mix_a, mix_b)
    return StateTable([graph.states[s] for s in live], visits[live], mix_a[live],
                      mix_b[live])


class StateChances:
    """A's chances of winning, drawing and losing from every state of a graph under
    fixed mixes (``state_chances``), looked up by state."""

    def __init__(self, graph: StateGraph, mix_a: np.ndarray, mix_b: np.ndarray):
        self.graph, self.chances = graph, state_chances(graph, mix_a, mix_b)

    def at(self, state: State) -> tuple[float, float, float]:
        """A's (win, draw, loss) from ``state``."""
        return tuple(float(c) for c in self.chances[self.graph.index[state]])


class GraphPlay:
    """The live states of the state graph and their expected visits when ``policy_a``
    plays ``policy_b`` (``states``, ``visits``; ``live``: their sum), with the play's
    ``evaluation``: where a play is reported state by state."""

    def __init__(self, game: Game, policy_a: Policy, policy_b: Policy):
        self.game, self.graph = game, build_graph(game)
        self.rows = np.flatnonzero(~self.graph.terminal)
        pair = (mixes_of(game, self.graph, policy_a, "a"),
                mixes_of(game, self.graph, policy_b, "b"))
        visits = visit_counts(self.graph, *pair)
        self.evaluation = statistics(game, self.graph, visits)
        self.visits = visits[self.rows]
        self.live = float(self.visits.sum())
        self.states = [self.graph.states[s] for s in self.rows]

    def mixes(self, policy: Policy, player: str) -> np.ndarray:
        """(decisions, actions) ``policy``'s mix as ``player`` at every decision."""
        return mixes_of(self.game, self.graph, policy, player)[self.rows]

    def response_mixes(self, response) -> np.ndarray:
        """The mixes of a best response (``best_response_graph``) at every decision."""
        return response.mixes[self.rows]


def graph_table(game: Game, policy: Policy, player: str) -> dict:
    """``policy``'s mix (over the whole action list, zero where illegal) at every
    observation ``player`` can make on a live state of the state graph."""
    graph = build_graph(game)
    masks = graph.mask_a if player == "a" else graph.mask_b
    table: dict = {}
    rows: list[int] = []
    for s in np.flatnonzero(~graph.terminal):
        observation = tuple(int(x) for x in game.observe(graph.states[s], player))
        if observation not in table:
            table[observation] = masks[s]
            rows.append(int(s))
    if not rows:
        return {}
    mixes = mixes_of(game, graph, policy, player)[rows]
    return dict(zip(list(table), mixes, strict=True))
