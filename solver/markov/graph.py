"""The reachable states of a game as arrays: the one representation the exact
solver, the best response and policy evaluation all work on."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .. import progress, state_table
from ..errors import InputError
from ..game import Game, State, joint_outcomes
from ..limits import MEMORY_CEILING, SHORTER_DUEL, ceiling
from ..sparse import sp

_GRAPHS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

#: what a state and an outcome (a next state of a joint action) take at a solve's peak,
#: at least: a Falkenstein duel to the death explored to 1.66 million states and 39
#: million outcomes held 5.6 GB, Uchronia's longest pistol duel (1.19 million states,
#: about 69 million outcomes) 7.0 GB at its solve's peak. An exploration whose states
#: and outcomes found so far already need more than the ceiling stops there, in words
STATE_BYTES, OUTCOME_BYTES = 1_100, 80
#: the exploration checks what it has found each time this many more states are done
CHECK_EVERY = 2**14


@dataclass
class StateGraph(state_table.PicklesStatesAsTable):
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
    _unit_starts: np.ndarray | None = field(default=None, repr=False, compare=False)

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

    def unit_starts(self, game: Game) -> np.ndarray:
        """(N,) bool: the states that open one of the game's length units (computed
        once per graph: training evaluates many policies on one graph)."""
        if self._unit_starts is None:
            self._unit_starts = np.fromiter(
                (not dead and game.starts_unit(s) for s, dead in zip(
                    self.states, self.terminal.tolist(), strict=True)),
                dtype=bool, count=self.size)
        return self._unit_starts

    def pairs_of(self, states: np.ndarray) -> np.ndarray:
        """The pairs of ``states``, state by state."""
        return ranges(self.pair_slices, states)

    @cached_property
    def ranked(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Each state's actions, legal ones first (``order_a`` / ``order_b``, (N,
        n_actions)), and each pair's actions as ranks among its state's legal actions
        (``rank_a`` / ``rank_b``, (P,)): how stage games are laid out, computed once."""
        kind = np.int16 if self.mask_a.shape[1] < 2 ** 15 else np.int64
        ranks = []
        for mask, actions in ((self.mask_a, self.pair_a), (self.mask_b, self.pair_b)):
            order = np.argsort(~mask, axis=1, kind="stable").astype(kind)
            rank = (np.cumsum(mask, axis=1, dtype=kind) - 1)[self.pair_state, actions]
            ranks.append((order, rank))
        (order_a, rank_a), (order_b, rank_b) = ranks
        return order_a, order_b, rank_a, rank_b


def build_graph(game: Game, roots: list[tuple[float, State]] | None = None) -> StateGraph:
    """Explore ``game`` from ``roots`` (its initial outcomes by default).

    The graph of the initial outcomes is cached per game object, since training
    evaluates many policies on the same game. A counter game too large to hold state by
    state is refused by ``solver.state_graph`` (the facade), which callers outside
    ``solver`` use; any exploration stops once what it has found passes the memory
    ceiling (``require_room``).
    """
    if roots is None:
        cached = _GRAPHS.get(game)
        if cached is None:
            cached = game.graph() if game.info.has("graph") else explore(game)
            _GRAPHS[game] = cached
        return cached
    return explore(game, roots)


def explore(game: Game, roots: list[tuple[float, State]] | None = None) -> StateGraph:
    """The generic exploration, state by state through the game protocol (the
    reference a declared ``graph`` fast path is checked against); the states found are
    reported as it goes (``solver.progress``: how many there will be is not known)."""
    if roots is None:
        roots = game.initial_outcomes()
    with progress.task("exploring the duel", None, "situations"):
        return _explored(game, roots)


def _explored(game: Game, roots: list[tuple[float, State]]) -> StateGraph:
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
    cursor = reported = 0
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
        if cursor % CHECK_EVERY == 0:
            require_room(len(states), len(rows))
            progress.advance(len(states) - reported)
            reported = len(states)

    require_room(len(states), len(rows))
    progress.advance(len(states) - reported)
    size = len(states)
    start = np.zeros(size)
    for s, p in start_items:
        start[s] += p
    transitions = sp.csr_matrix((probs, (rows, cols)), shape=(len(pair_state), size))
    return assemble(states, np.asarray(terminal), np.asarray(payoff), np.asarray(masks_a),
                    np.asarray(masks_b), np.asarray(pair_state, dtype=np.int64),
                    np.asarray(pair_a, dtype=np.int64), np.asarray(pair_b, dtype=np.int64),
                    transitions, start, index)


def require_room(states: int, outcomes: int) -> None:
    """Refuse a duel whose exploration has found more states and outcomes than a solve
    can hold under the memory ceiling (``solver.limits``; lifted by ``beyond_ceiling``):
    the systems' own estimates refuse most such duels before any state is explored."""
    needed = STATE_BYTES * states + OUTCOME_BYTES * outcomes
    if needed <= ceiling():
        return
    raise InputError(
        f"this duel is too large to solve here: its exploration reached {states:,} "
        f"situations and {outcomes:,} ways on from them, and solving those alone needs "
        f"more than the {MEMORY_CEILING / 2**30:.0f} GiB of memory allowed. "
        f"{SHORTER_DUEL.capitalize()}, or --allow-large goes ahead anyway")


def assemble(states: list[State], terminal: np.ndarray, payoff: np.ndarray,
             mask_a: np.ndarray, mask_b: np.ndarray, pair_state: np.ndarray,
             pair_a: np.ndarray, pair_b: np.ndarray, transitions: sp.csr_matrix,
             start: np.ndarray, index: dict[State, int] | None = None) -> StateGraph:
    """A StateGraph from its arrays (pairs sorted by state; ``index`` is built when not
    given); the schedule is computed here, so every graph gets the same one."""
    size = len(states)
    if index is None:
        index = state_table.index_of(states)
    slices = np.searchsorted(pair_state, np.arange(size + 1))
    return StateGraph(
        states=states, index=index, terminal=terminal, payoff=payoff, mask_a=mask_a,
        mask_b=mask_b, pair_state=pair_state, pair_a=pair_a, pair_b=pair_b,
        transitions=transitions, start=start, pair_slices=slices.astype(np.int64),
        schedule=dependency_order(terminal, pair_state, transitions, slices, size))


def dependency_order(terminal: np.ndarray, pair_state: np.ndarray, transitions: sp.csr_matrix,
              slices: np.ndarray, size: int) -> list[tuple[np.ndarray, bool]]:
    """Non-terminal states as blocks in dependency order: the strongly connected
    components of the successor graph, grouped by height (longest path to a terminal
    state) and split into acyclic states (solved at once) and cyclic ones.

    Without a cycle every component is one state: the heights then come straight from
    the outcomes of each state's pairs (listed state by state), with no product of
    matrices and no component search."""
    successor = sp.csr_matrix((np.ones(transitions.nnz, np.int8), transitions.indices,
                               transitions.indptr[slices]), shape=(size, size))
    height = heights(successor, repeats=True)
    if (height >= 0).all():
        live = ~terminal
        # from 0: a live state without successors (a counter game's core whose every
        # step lowers a counter) is a block of its own too
        return [(states, False) for level in range(int(height.max(initial=0)) + 1)
                if len(states := np.flatnonzero(live & (height == level)))]
    pairs = len(pair_state)
    successor = sp.csr_matrix((np.ones(pairs), (pair_state, np.arange(pairs))),
                              shape=(size, pairs)) @ transitions
    successor = (successor > 0).tocoo()
    from scipy.sparse.csgraph import connected_components  # 0.25 s to load: when used
    count, labels = connected_components(successor, directed=True, connection="strong")
    source, target = labels[successor.row], labels[successor.col]
    inside = source == target
    cyclic = np.bincount(labels, minlength=count) > 1
    cyclic[source[inside]] = True  # a state that can stay where it is
    condensed = sp.csr_matrix((np.ones(int((~inside).sum())), (source[~inside], target[~inside])),
                              shape=(count, count))
    height = heights(condensed)
    live = ~terminal
    blocks = []
    for level in range(int(height.max(initial=0)) + 1):
        at_level = live & (height[labels] == level)
        for has_cycles in (False, True):
            states = np.flatnonzero(at_level & (cyclic[labels] == has_cycles))
            if len(states):
                blocks.append((states, has_cycles))
    return blocks


def heights(successor: sp.csr_matrix, repeats: bool = False) -> np.ndarray:
    """Longest path from every node of a DAG to a node without successors (Kahn's
    algorithm on the reversed graph); -1 for nodes on or above a cycle. With
    ``repeats`` the entries of ``successor`` are edges, repeated edges included (each
    is counted once on both sides, which changes nothing)."""
    successor = successor.tocsr()
    if not repeats:
        successor = (successor > 0).astype(np.int8).tocsr()
    remaining = np.diff(successor.indptr)
    predecessors = successor.T.tocsr()
    height = np.full(successor.shape[0], -1)
    frontier = np.flatnonzero(remaining == 0)
    height[frontier] = 0
    level = 0
    while len(frontier):
        level += 1
        touched = predecessors.indices[ranges(predecessors.indptr, frontier)]
        hits, counts = np.unique(touched, return_counts=True)
        remaining[hits] -= counts
        ready = hits[remaining[hits] == 0]
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
