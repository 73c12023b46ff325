"""The reachable states of a game as arrays: the one representation the exact
solver, the best response and policy evaluation all work on."""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .game import Game, State

_GRAPHS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass
class StateGraph:
    """Every state reachable from ``roots``.

    A *pair* is one legal joint action (i, j) at a non-terminal state; ``transitions``
    maps pairs to next states with their exact probabilities.
    """

    states: list[State]
    index: dict[State, int]
    terminal: np.ndarray          # (N,) bool
    payoff: np.ndarray            # (N,) payoff to A at terminal states, 0 elsewhere
    mask_a: np.ndarray            # (N, n_actions) bool, all False at terminal states
    mask_b: np.ndarray
    pair_state: np.ndarray        # (P,) the state each pair belongs to
    pair_a: np.ndarray            # (P,) A's action
    pair_b: np.ndarray            # (P,) B's action
    transitions: sp.csr_matrix    # (P, N)
    start: np.ndarray             # (N,) probability of starting in each state
    levels: list[np.ndarray] | None  # non-terminal states by height (1, 2, ...); None if cyclic
    pair_slices: np.ndarray       # (N+1,) pairs of state s are pair_slices[s]:pair_slices[s+1]

    @property
    def size(self) -> int:
        return len(self.states)

    def pairs_of(self, states: np.ndarray) -> np.ndarray:
        """The pairs of ``states``, state by state."""
        return ranges(self.pair_slices, states)


def build_graph(game: Game, roots: list[tuple[float, State]] | None = None) -> StateGraph:
    """Explore ``game`` from ``roots`` (its initial outcomes by default).

    The graph of the initial outcomes is cached per game object, since training
    evaluates many policies on the same game.
    """
    if roots is None:
        cached = _GRAPHS.get(game)
        if cached is None:
            cached = _explore(game, game.initial_outcomes())
            _GRAPHS[game] = cached
        return cached
    return _explore(game, roots)


def _explore(game: Game, roots: list[tuple[float, State]]) -> StateGraph:
    n_actions = len(game.action_names)
    states: list[State] = []
    index: dict[State, int] = {}

    def visit(state: State) -> int:
        found = index.get(state)
        if found is None:
            found = index[state] = len(states)
            states.append(state)
        return found

    start_items = [(visit(state), p) for p, state in roots]
    # the loop below inlines ``visit``: it runs once per outcome of every joint action
    rows, cols, probs = [], [], []
    pair_state, pair_a, pair_b, masks_a, masks_b, terminal, payoff = [], [], [], [], [], [], []
    slices = [0]
    cursor = 0
    while cursor < len(states):
        state = states[cursor]
        done = bool(game.is_terminal(state))
        terminal.append(done)
        payoff.append(float(game.payoff(state)) if done else 0.0)
        if done:
            masks_a.append(np.zeros(n_actions, bool))
            masks_b.append(np.zeros(n_actions, bool))
        else:
            mask_a = np.asarray(game.legal_mask(state, "a"), bool)
            mask_b = np.asarray(game.legal_mask(state, "b"), bool)
            masks_a.append(mask_a)
            masks_b.append(mask_b)
            for i, j, outcomes in _joint_outcomes(game, state, mask_a, mask_b):
                pair = len(pair_state)
                pair_state.append(cursor)
                pair_a.append(i)
                pair_b.append(j)
                for p, nxt in outcomes:
                    found = index.get(nxt)
                    if found is None:
                        found = index[nxt] = len(states)
                        states.append(nxt)
                    rows.append(pair)
                    cols.append(found)
                    probs.append(p)
        slices.append(len(pair_state))
        cursor += 1

    size = len(states)
    start = np.zeros(size)
    for s, p in start_items:
        start[s] += p
    transitions = sp.csr_matrix((probs, (rows, cols)), shape=(len(pair_state), size))
    pair_state_arr = np.asarray(pair_state, dtype=np.int64)
    terminal_arr = np.asarray(terminal)
    return StateGraph(
        states=states, index=index, terminal=terminal_arr, payoff=np.asarray(payoff),
        mask_a=np.asarray(masks_a), mask_b=np.asarray(masks_b),
        pair_state=pair_state_arr, pair_a=np.asarray(pair_a, dtype=np.int64),
        pair_b=np.asarray(pair_b, dtype=np.int64), transitions=transitions, start=start,
        levels=_levels(terminal_arr, pair_state_arr, transitions, size),
        pair_slices=np.asarray(slices, dtype=np.int64))


def _joint_outcomes(game: Game, state: State, mask_a: np.ndarray, mask_b: np.ndarray):
    """Every legal joint action with its outcomes: the game's own ``transitions`` when
    it has that faster path, else one ``outcomes`` call per pair."""
    joint = getattr(game, "transitions", None)
    if joint is not None:
        return joint(state)
    legal_b = np.flatnonzero(mask_b).tolist()
    return [(i, j, game.outcomes(state, i, j))
            for i in np.flatnonzero(mask_a).tolist() for j in legal_b]


def _levels(terminal: np.ndarray, pair_state: np.ndarray, transitions: sp.csr_matrix,
            size: int) -> list[np.ndarray] | None:
    """Non-terminal states grouped by height (longest path to a terminal state), so
    each group depends only on lower ones; None when the graph has a cycle."""
    pairs = len(pair_state)
    successor = sp.csr_matrix((np.ones(pairs), (pair_state, np.arange(pairs))),
                              shape=(size, pairs)) @ transitions
    successor = (successor > 0).astype(np.int8).tocsr()
    # successors of each state not yet given a height
    remaining = np.diff(successor.indptr)
    predecessors = successor.T.tocsr()
    # Kahn's algorithm on the reversed graph, peeling terminal states first
    height = np.full(size, -1)
    frontier = np.flatnonzero(terminal)
    height[frontier] = 0
    levels: list[np.ndarray] = []
    placed = len(frontier)
    while len(frontier):
        touched = predecessors.indices[ranges(predecessors.indptr, frontier)]
        np.subtract.at(remaining, touched, 1)
        ready = np.unique(touched[remaining[touched] == 0])
        ready = ready[height[ready] < 0]
        height[ready] = len(levels) + 1
        if len(ready):
            levels.append(ready)
        placed += len(ready)
        frontier = ready
    return levels if placed == size else None


def ranges(bounds: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The positions ``bounds[r]:bounds[r + 1]`` of every row r, concatenated in order
    (the rows of a CSR matrix, the pairs of states)."""
    rows = np.asarray(rows, dtype=np.int64)
    first = bounds[rows]
    counts = bounds[rows + 1] - first
    return np.repeat(first - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
