"""The reachable states of a game as arrays: the one representation the exact
solver, the best response and policy evaluation all work on."""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .game import Game, State, joint_outcomes

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
    pair_slices: np.ndarray       # (N+1,) pairs of state s are pair_slices[s]:pair_slices[s+1]
    #: non-terminal states in dependency order, as blocks ``(states, has_cycles)``: the
    #: strongly connected components by height, a block's values depending only on
    #: earlier blocks and itself
    schedule: list[tuple[np.ndarray, bool]]

    @property
    def cyclic(self) -> bool:
        """Whether a state can be reached again (the solver iterates then)."""
        return any(cyclic for _, cyclic in self.schedule)

    @property
    def levels(self) -> list[np.ndarray] | None:
        """Non-terminal states by height (1, 2, ...); None when the graph has cycles."""
        return None if self.cyclic else [states for states, _ in self.schedule]

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
    n_actions = len(game.info.action_names)
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
            for i, j, outcomes in joint_outcomes(game, state, mask_a, mask_b):
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
        pair_slices=np.asarray(slices, dtype=np.int64),
        schedule=_schedule(terminal_arr, pair_state_arr, transitions, size))


def _schedule(terminal: np.ndarray, pair_state: np.ndarray, transitions: sp.csr_matrix,
              size: int) -> list[tuple[np.ndarray, bool]]:
    """Non-terminal states as blocks in dependency order: the strongly connected
    components of the successor graph, grouped by height (longest path to a terminal
    state) and split into acyclic states (solved at once) and cyclic ones."""
    pairs = len(pair_state)
    successor = sp.csr_matrix((np.ones(pairs), (pair_state, np.arange(pairs))),
                              shape=(size, pairs)) @ transitions
    successor = (successor > 0).tocoo()
    count, labels = connected_components(successor, directed=True, connection="strong")
    source, target = labels[successor.row], labels[successor.col]
    inside = source == target
    cyclic = np.bincount(labels, minlength=count) > 1
    cyclic[source[inside]] = True  # a state that can stay where it is
    condensed = sp.csr_matrix((np.ones(int((~inside).sum())), (source[~inside], target[~inside])),
                              shape=(count, count))
    height = _heights(condensed)
    live = ~terminal
    blocks = []
    for level in range(int(height.max(initial=0)) + 1):
        at_level = live & (height[labels] == level)
        for has_cycles in (False, True):
            states = np.flatnonzero(at_level & (cyclic[labels] == has_cycles))
            if len(states):
                blocks.append((states, has_cycles))
    return blocks


def _heights(successor: sp.csr_matrix) -> np.ndarray:
    """Longest path from every node of a DAG to a node without successors (Kahn's
    algorithm on the reversed graph)."""
    successor = successor.tocsr()
    remaining = np.diff((successor > 0).astype(np.int8).tocsr().indptr)
    predecessors = (successor > 0).T.tocsr()
    height = np.full(successor.shape[0], -1)
    frontier = np.flatnonzero(remaining == 0)
    height[frontier] = 0
    level = 0
    while len(frontier):
        level += 1
        touched = predecessors.indices[ranges(predecessors.indptr, frontier)]
        np.subtract.at(remaining, touched, 1)
        ready = np.unique(touched[remaining[touched] == 0])
        height[ready] = level
        frontier = ready
    return height


def ranges(bounds: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The positions ``bounds[r]:bounds[r + 1]`` of every row r, concatenated in order
    (the rows of a CSR matrix, the pairs of states)."""
    rows = np.asarray(rows, dtype=np.int64)
    first = bounds[rows]
    counts = bounds[rows + 1] - first
    return np.repeat(first - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
