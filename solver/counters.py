"""Exact solution of games whose counters only fall (hit points), every counter value
at once.

A game declares the structure with the fast path ``counters`` (``GameInfo.fast_paths``)
and these methods:

- ``counters(state)``: the counter values of a live state (positive integers);
- ``core(state)`` / ``attach(core, counters)``: the state without its counters, and back;
- ``core_transitions(core)``: every legal joint action ``(i, j, outcomes)`` with outcomes
  ``(p, next_core, decrements)``, the same whatever the counters (masks too); at most
  one counter falls in a step;
- ``depleted(k)``: the terminal state reached when counter ``k`` falls to 0 or below.

Besides depletion, a step may also lead to a terminal core (a duel that ends however
many points the counters hold): its payoff is the same at every counter value.

The core graph (states without counters) is explored once: by ``walk``, core by core
through ``core_transitions``, or at once by the game's own ``cores()`` when it declares
that fast path (``CoreWalk``: the same cores, masks and outcomes, checked against the
walk by the conformance suite). Values are arrays over the
grid of counter values, solved anti-diagonal by anti-diagonal (the sum of the counters
falls with every positive decrement, so a layer depends only on earlier layers and on
itself). Within a layer the steps that change no counter can cycle. The core graph's
strongly connected components under those steps (``solver.graph``'s schedule) are
solved in order: an acyclic one at once (value and maximum-entropy mixes from one
batch of stage games per shape); a cyclic one by value iteration through
``solver.stages.sweep``, as the generic solver does, from 0 (endless play is worth 0),
on its choice cores only when the chance steps between them are acyclic (their values
are then affine in the choice cores'). Win, loss and the expected number of steps
under the maximum-entropy mixes are carried along as three more channels.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from itertools import chain

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .errors import InputError
from .evaluate import Evaluation
from .game import Game, State
from .graph import _heights, _schedule, ranges
from .matrix import solve_matrices
from .policy import TabularPolicy
from .stages import MAX_SWEEPS, TOLERANCE, Convergence, sweep


@dataclass
class _Group:
    """Cores of one block sharing a stage-game shape: ``pairs`` (k, rows, cols) are
    positions in the block's pair list, ``rows`` / ``cols`` the actions."""

    members: np.ndarray
    pairs: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    #: player -> (k, actions): where each core's mix over its legal actions goes in a
    #: row of the solution's mixes (``CoreGraph.slots``); None for a single action
    places: dict


@dataclass
class _Part:
    """Cores updated together: their pairs, core by core, with the zero-decrement
    transitions of those pairs (pairs, N) and the stage shapes."""

    cores: np.ndarray
    pairs: np.ndarray
    zero: sp.csr_matrix
    groups: list[_Group]
    offsets: np.ndarray    # where each core's pairs start in ``pairs``


@dataclass
class _Block:
    """A strongly connected component of the zero-decrement graph (or a set of acyclic
    cores at one height); a cyclic block is swept part by part, successors first."""

    cores: np.ndarray
    cyclic: bool
    parts: list[_Part]
    reduced: _Reduced | None = None


@dataclass
class _Reduced:
    """A cyclic block seen from its choice cores: when the chance cores between them
    are acyclic and have one joint action each, their values are affine in the choice
    cores' values ``x``, and the choice cores' stage games are ``base + links @ x``
    with ``links`` the same at every counter value. Value iteration then sweeps the
    choice cores only, and the statistics under fixed mixes are one linear solve."""

    choice: _Part
    chance: list[_Part]      # successors first
    links: sp.csr_matrix     # (choice pairs, choice cores)


class _Move:
    """The transitions of one decrement vector, into every core (``full``) and into
    the landing cores only (``matrix``), so that a layer reads only what it needs."""

    def __init__(self, decrement: np.ndarray, full: sp.csr_matrix, landing: np.ndarray):
        self.decrement = decrement
        self.full = full
        self.matrix = full[:, landing]


@dataclass
class CoreGraph:
    """The states of a counter game without their counters, and their transitions
    split into those that change no counter (``zero``) and the rest (``moves``: one
    sparse matrix per decrement vector, into the cores they land on)."""

    cores: list[State]
    index: dict[State, int]
    mask_a: np.ndarray
    mask_b: np.ndarray
    pair_core: np.ndarray
    pair_a: np.ndarray
    pair_b: np.ndarray
    pair_slices: np.ndarray
    zero: sp.csr_matrix                                  # (P, N)
    moves: list[_Move]
    landing: np.ndarray    # the cores some decrement leads to
    landed: sp.csr_matrix  # (P, moves x landing cores): the moves side by side
    blocks: list[_Block]
    terminal: np.ndarray   # (N,) cores that end the game whatever the counters
    payoff: np.ndarray     # (N,) their payoff to A (0 elsewhere)

    @property
    def size(self) -> int:
        return len(self.cores)

    def __post_init__(self):
        #: cores where someone has more than one legal action
        self.chooses = (self.mask_a.sum(axis=1) > 1) | (self.mask_b.sum(axis=1) > 1)
        #: where each core's mix of each player starts in a row of the solution's mixes
        #: (its legal actions in order, only where that player has more than one)
        self.slots = {}
        for player, mask in (("a", self.mask_a), ("b", self.mask_b)):
            count = mask.sum(axis=1)
            count[count < 2] = 0
            self.slots[player] = np.concatenate([[0], np.cumsum(count)])


@dataclass
class Grid:
    """Counter values 1..top[k] for every counter, flattened; ``layers`` the points
    of equal sum, in increasing order. Index ``size + k`` stands for "counter k
    depleted"."""

    top: tuple[int, ...]

    def __post_init__(self):
        axes = np.indices(self.top).reshape(len(self.top), -1).T + 1
        order = np.argsort(axes.sum(axis=1), kind="stable")
        sums = axes[order].sum(axis=1)
        cuts = np.flatnonzero(np.diff(sums)) + 1
        self.points = axes            # (size, k) counter values of each flat index
        self.layers = np.split(order, cuts)

    @property
    def size(self) -> int:
        return len(self.points)

    def flat(self, counters) -> int:
        counters = tuple(int(c) for c in counters)
        if len(counters) != len(self.top) or any(not 1 <= c <= t for c, t in
                                                  zip(counters, self.top, strict=True)):
            raise KeyError(f"counters {counters} outside 1..{self.top}")
        return int(np.ravel_multi_index(tuple(c - 1 for c in counters), self.top))

    def shifted(self, points: np.ndarray, decrement: np.ndarray) -> np.ndarray:
        """Flat indices of ``points`` lowered by ``decrement``; ``size + k`` where
        counter k falls to 0 or below."""
        after = self.points[points] - decrement
        out = np.empty(len(points), dtype=np.int64)
        live = np.all(after >= 1, axis=1)
        out[live] = np.ravel_multi_index(tuple((after[live] - 1).T), self.top)
        out[~live] = self.size + np.argmax(after[~live] < 1, axis=1)
        return out


_CORES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def explore(game: Game) -> tuple[CoreGraph, Grid, list[tuple[float, int, int]]]:
    """The core graph from the game's initial outcomes, the grid up to their counters,
    and the roots as ``(probability, core, flat point)``; explored once per game (the
    size check of ``solver.graph`` and the solution both need it)."""
    found = _CORES.get(game)
    if found is None:
        found = _CORES[game] = _explore(game)
    return found


@dataclass
class CoreWalk:
    """Every core reachable from the start, as the walk through ``core_transitions``
    finds them (what a game declaring the ``cores`` fast path returns at once, in any
    order): per core its mask and whether it ends the game (and how); per legal joint
    action (``pair_*``, pairs sorted by core, as ``core_transitions`` lists them) its
    number of outcomes; per outcome the next core (a position in ``cores``), the
    probability and the decrement of every counter."""

    cores: list[State]
    terminal: np.ndarray      # (N,) bool
    payoff: np.ndarray        # (N,) to A where terminal
    mask_a: np.ndarray        # (N, n_actions) bool, all False where terminal
    mask_b: np.ndarray
    pair_core: np.ndarray     # (P,)
    pair_a: np.ndarray        # (P,)
    pair_b: np.ndarray        # (P,)
    counts: np.ndarray        # (P,) outcomes of each pair
    targets: np.ndarray       # (E,)
    probs: np.ndarray         # (E,)
    decrements: np.ndarray    # (E, counters)


def walk(game: Game) -> CoreWalk:
    """The cores from the start's, one by one through ``core_transitions`` (the
    reference a declared ``cores`` fast path is checked against)."""
    starts = game.initial_outcomes()
    top = _top(game, starts)
    cores: list[State] = []
    index: dict[State, int] = {}

    def visit(core) -> int:
        found = index.get(core)
        if found is None:
            found = index[core] = len(cores)
            cores.append(core)
        return found

    for _, s in starts:
        visit(game.core(s))
    masks_a, masks_b, pair_core, pair_a, pair_b = [], [], [], [], []
    terminal, payoff = [], []
    nothing = np.zeros(len(game.info.action_names), bool)
    # every outcome: its pair, next core, probability and decrement (flat, one entry
    # per counter), grouped by decrement once the exploration is done
    counts, targets, probs, decrements = [], [], [], []
    cursor = 0
    while cursor < len(cores):
        core = cores[cursor]
        sample = game.attach(core, top)
        terminal.append(bool(game.is_terminal(sample)))
        payoff.append(float(game.payoff(sample)) if terminal[-1] else 0.0)
        if terminal[-1]:
            masks_a.append(nothing)
            masks_b.append(nothing)
            cursor += 1
            continue
        masks_a.append(np.asarray(game.legal_mask(sample, "a"), bool))
        masks_b.append(np.asarray(game.legal_mask(sample, "b"), bool))
        # a core's outcomes repeat the same next core (one per damage): its object's
        # identity finds it again without hashing the whole state
        known: dict[int, int] = {}
        for i, j, outcomes in game.core_transitions(core):
            pair_core.append(cursor)
            pair_a.append(i)
            pair_b.append(j)
            counts.append(len(outcomes))
            chances, nexts, lowered = zip(*outcomes, strict=True)
            for key, nxt in {id(nxt): nxt for nxt in nexts}.items():
                if key not in known:
                    known[key] = visit(nxt)
            targets.extend(map(known.__getitem__, map(id, nexts)))
            probs.extend(chances)
            decrements.extend(chain.from_iterable(lowered))
        cursor += 1
    whole = np.int64
    return CoreWalk(cores, np.asarray(terminal, bool), np.asarray(payoff, float),
                    np.asarray(masks_a), np.asarray(masks_b), np.asarray(pair_core, whole),
                    np.asarray(pair_a, whole), np.asarray(pair_b, whole),
                    np.asarray(counts, whole), np.asarray(targets, whole),
                    np.asarray(probs, float),
                    np.asarray(decrements, whole).reshape(len(targets), len(top)))


def _top(game: Game, starts) -> tuple[int, ...]:
    return tuple(int(max(c)) for c in zip(*(game.counters(s) for _, s in starts),
                                          strict=True))


def _explore(game: Game) -> tuple[CoreGraph, Grid, list[tuple[float, int, int]]]:
    starts = game.initial_outcomes()
    grid = Grid(_top(game, starts))
    found = game.cores() if game.info.has("cores") else walk(game)
    cores = found.cores
    index = dict(zip(cores, range(len(cores)), strict=True))
    roots = [(p, index[game.core(s)], grid.flat(game.counters(s))) for p, s in starts]
    size, pairs = len(cores), len(found.pair_core)
    rows = np.repeat(np.arange(pairs), found.counts)
    targets, probs, decrements = found.targets, found.probs, found.decrements
    _check_decrements(game, decrements)
    shape = tuple(decrements.max(axis=0) + 1)
    codes, kind = np.unique(np.ravel_multi_index(tuple(decrements.T), shape),
                            return_inverse=True)
    kinds = np.stack(np.unravel_index(codes, shape), axis=1)

    def matrix(chosen: np.ndarray) -> sp.csr_matrix:
        return sp.csr_matrix((probs[chosen], (rows[chosen], targets[chosen])),
                             shape=(pairs, size))

    still = ~decrements.any(axis=1)
    zero = matrix(still)
    landing = np.unique(targets[~still])
    moves = [_Move(decrement, matrix(kind == k), landing)
             for k, decrement in enumerate(kinds) if decrement.any()]
    slices = np.searchsorted(found.pair_core, np.arange(size + 1)).astype(np.int64)
    graph = CoreGraph(cores, index, found.mask_a, found.mask_b, found.pair_core,
                      found.pair_a, found.pair_b, slices, zero, moves, landing,
                      sp.hstack([move.matrix for move in moves]).tocsr(), [],
                      found.terminal, found.payoff)
    graph.blocks = _blocks(graph)
    return graph, grid, roots


def _check_decrements(game: Game, decrements: np.ndarray) -> None:
    wrong = (decrements < 0).any(axis=1) | ((decrements > 0).sum(axis=1) > 1)
    if wrong.any():
        raise InputError(f"{game.info.system}: a step must lower at most one counter and "
                         f"raise none, got {tuple(decrements[np.argmax(wrong)].tolist())}")


def _blocks(graph: CoreGraph) -> list[_Block]:
    """The zero-decrement graph's strongly connected components in dependency order
    (``solver.graph``'s schedule, with no terminal core), each with its stage shapes."""
    schedule = _schedule(graph.terminal, graph.pair_core, graph.zero,
                         graph.pair_slices, graph.size)
    blocks = []
    for cores, cyclic in schedule:
        parts = [_part(graph, members) for members in _sweep_order(graph, cores, cyclic)]
        blocks.append(_Block(cores, cyclic, parts, _reduce(graph, cores, parts)))
    return blocks


def _part(graph: CoreGraph, members: np.ndarray) -> _Part:
    pairs = ranges(graph.pair_slices, members)
    counts = np.diff(graph.pair_slices)[members]
    return _Part(members, pairs, graph.zero[pairs], _groups(graph, members),
                 np.cumsum(counts) - counts)


def _reduce(graph: CoreGraph, cores: np.ndarray, parts: list[_Part]) -> _Reduced | None:
    """The block from its choice cores (see ``_Reduced``), or None where it does not
    apply (an acyclic block, chance cores in a cycle of their own or with choices)."""
    chooses = graph.chooses[cores]
    chance = cores[~chooses]
    if len(parts) < 2 or not chooses.any() or np.any(
            np.diff(graph.pair_slices)[chance] != 1):
        return None
    choice = cores[chooses]
    # each core's value as a combination of the choice cores' values (N, choice cores);
    # cores outside the block are constants, read through the stage games' base
    expand = sp.csr_matrix((np.ones(len(choice)), (choice, np.arange(len(choice)))),
                           shape=(graph.size, len(choice)))
    chance_parts = []
    for part in parts:
        members = part.cores[~graph.chooses[part.cores]]
        if not len(members):
            continue
        sub = _part(graph, members)
        rows = (sub.zero @ expand).tocoo()   # one pair per chance core: pair = core
        expand = expand + sp.csr_matrix((rows.data, (members[rows.row], rows.col)),
                                        shape=expand.shape)
        chance_parts.append(sub)
    head = _part(graph, choice)
    return _Reduced(head, chance_parts, (head.zero @ expand).tocsr())


def _sweep_order(graph: CoreGraph, cores: np.ndarray, cyclic: bool) -> list[np.ndarray]:
    """The cores of a block in the order one sweep updates them. In a cyclic block
    the cores where nobody chooses (chance steps) are updated after their successors
    when the block without the edges into choice cores is acyclic (Gauss-Seidel: a
    round of chance steps then costs one sweep instead of one per step); else at once."""
    if not cyclic or len(cores) == 1:
        return [cores]
    local = np.full(graph.size, -1)
    local[cores] = np.arange(len(cores))
    pairs = ranges(graph.pair_slices, cores)
    edges = graph.zero[pairs].tocoo()
    source = local[graph.pair_core[pairs][edges.row]]
    target = local[edges.col]
    kept = (target >= 0) & ~graph.chooses[edges.col]
    successor = sp.csr_matrix((np.ones(int(kept.sum())), (source[kept], target[kept])),
                              shape=(len(cores), len(cores)))
    count, _ = connected_components(successor, directed=True, connection="strong")
    if count < len(cores) or np.any(source[kept] == target[kept]):
        return [cores]
    height = _heights(successor)
    return [cores[height == level] for level in range(int(height.max()) + 1)]


def _groups(graph: CoreGraph, cores: np.ndarray) -> list[_Group]:
    count_a = graph.mask_a[cores].sum(axis=1)
    count_b = graph.mask_b[cores].sum(axis=1)
    # position of each core's first pair in the block's pair list
    offsets = np.concatenate([[0], np.cumsum(np.diff(graph.pair_slices)[cores])[:-1]])
    groups = []
    for rows, cols in sorted(set(zip(count_a.tolist(), count_b.tolist(), strict=True))):
        members = np.flatnonzero((count_a == rows) & (count_b == cols))
        chosen = cores[members]
        # the pairs of a core come as its legal rows times its legal columns, row-major
        pairs = offsets[members][:, None, None] + np.arange(rows * cols).reshape(rows, cols)
        got_a = graph.pair_a[graph.pair_slices[chosen][:, None] + np.arange(rows * cols)]
        got_b = graph.pair_b[graph.pair_slices[chosen][:, None] + np.arange(rows * cols)]
        row_actions = got_a.reshape(-1, rows, cols)[:, :, 0]
        col_actions = got_b.reshape(-1, rows, cols)[:, 0, :]
        if not (np.array_equal(got_a.reshape(-1, rows, cols), np.broadcast_to(
                row_actions[:, :, None], (len(members), rows, cols))) and np.array_equal(
                got_b.reshape(-1, rows, cols), np.broadcast_to(
                col_actions[:, None, :], (len(members), rows, cols)))):
            raise InputError("core_transitions must list every legal joint action, A's "
                             "actions in order, B's within each")
        places = {player: _places(graph, player, chosen, actions)
                  for player, actions in (("a", row_actions), ("b", col_actions))}
        groups.append(_Group(members, pairs, row_actions, col_actions, places))
    return groups


def _places(graph: CoreGraph, player: str, cores: np.ndarray,
            actions: np.ndarray) -> np.ndarray | None:
    """Where the mixes of ``player`` over ``actions`` at ``cores`` are stored."""
    if actions.shape[1] < 2:
        return None  # a single legal action: no slot, the mix is the mask
    mask = graph.mask_a if player == "a" else graph.mask_b
    # each action's place among its core's legal actions, in order
    rank = np.take_along_axis(np.cumsum(mask[cores], axis=1) - 1, actions, axis=1)
    return graph.slots[player][cores][:, None] + rank


class CounterSolution:
    """The value and maximum-entropy equilibrium of a counter game at every state
    reachable from its start, as ``solver.backward.Solution`` offers them."""

    def __init__(self, game: Game, graph: CoreGraph, grid: Grid, values: np.ndarray,
                 mixes: dict[str, np.ndarray], evaluation: Evaluation,
                 convergence: Convergence):
        self.game, self.cores, self.grid = game, graph, grid
        self.values = values        # (grid.size + counters, N) value of every core
        # player -> (grid.size, slots): at each point the mixes of every core where the
        # player has a choice, over his legal actions, from ``CoreGraph.slots``
        self.mixes = mixes
        self.evaluation = evaluation
        self.convergence = convergence

    value = property(lambda self: self.evaluation.value)
    win = property(lambda self: self.evaluation.win)
    draw = property(lambda self: self.evaluation.draw)
    loss = property(lambda self: self.evaluation.loss)
    expected_length = property(lambda self: self.evaluation.expected_length)
    endings = property(lambda self: self.evaluation.endings)

    @property
    def graph(self):
        raise InputError(f"{self.game.info.system}: per-state tables (such as --by) are not "
                         "available for a duel solved over every counter value (hit "
                         "points, beats left) at once")

    def _locate(self, state: State) -> tuple[int, int]:
        try:
            return self.cores.index[self.game.core(state)], self.grid.flat(
                self.game.counters(state))
        except KeyError:
            raise KeyError(f"state not reachable in this solution: {state!r}") from None

    def value_at(self, state: State) -> float:
        if self.game.is_terminal(state):
            return float(self.game.payoff(state))
        core, point = self._locate(state)
        return float(self.values[point, core])

    def policy(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """The equilibrium mixes of A and B at ``state``."""
        core, point = self._locate(state)
        return tuple(self._mix(player, core, point) for player in ("a", "b"))

    def _mix(self, player: str, core: int, point: int) -> np.ndarray:
        mask = (self.cores.mask_a if player == "a" else self.cores.mask_b)[core]
        if mask.sum() == 1:
            return mask.astype(float)
        first, last = self.cores.slots[player][core:core + 2]
        full = np.zeros(len(mask))
        full[mask] = self.mixes[player][point, first:last]
        return full

    def stage_matrix(self, state: State) -> np.ndarray:
        """Continuation values to A of every joint action at ``state`` (NaN where illegal)."""
        core, point = self._locate(state)
        pairs = np.arange(self.cores.pair_slices[core], self.cores.pair_slices[core + 1])
        n = len(self.game.info.action_names)
        matrix = np.full((n, n), np.nan)
        matrix[self.cores.pair_a[pairs], self.cores.pair_b[pairs]] = _continuation(
            self.cores, self.grid, pairs, np.array([point]), self.values)[:, 0]
        return matrix

    def policy_for(self, player: str) -> TabularPolicy:
        """The equilibrium of ``player`` as a policy on its observations. A core may
        exist at some counter values only (a game's opening, say): where the state it
        attaches to reports other counters, that pair is no state of the game and is
        left out (its mix would overwrite a real state's)."""
        table = {}
        for core in np.flatnonzero(self.cores.chooses):
            for point in range(self.grid.size):
                counters = self.grid.points[point]
                state = self.game.attach(self.cores.cores[core], counters)
                if tuple(self.game.counters(state)) != tuple(counters.tolist()):
                    continue
                table[tuple(self.game.observe(state, player))] = self._mix(player, core, point)
        return TabularPolicy(table, name="equilibrium")


def _continuation(graph: CoreGraph, grid: Grid, pairs: np.ndarray, points: np.ndarray,
                  values: np.ndarray) -> np.ndarray:
    """(len(pairs), len(points)) expected value after each joint action of ``pairs``
    at ``points``; ``values`` is indexed by flat point, then core."""
    total = graph.zero[pairs] @ values[points].T
    for move in graph.moves:
        rows = move.full[pairs]
        if rows.nnz:
            total = total + rows @ values[grid.shifted(points, move.decrement)].T
    return np.asarray(total)


def matrix_values(matrices: np.ndarray) -> np.ndarray:
    """Values of a batch of zero-sum matrix games (B, rows, cols), by the batched solver."""
    return solve_matrices(matrices).value


def solve_counters(game: Game, tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS,
                   stage_values: Callable[[np.ndarray], np.ndarray] = matrix_values
                   ) -> CounterSolution:
    """Solve a game that declares the ``counters`` fast path (see the module).
    ``stage_values`` solves the stage games of value iteration (benchmarks swap it for
    a reference solver)."""
    graph, grid, roots = explore(game)
    counters = len(grid.top)
    ends = [game.depleted(k) for k in range(counters)]
    payoffs = np.array([float(game.payoff(s)) for s in ends])
    # the value of every core by hit points, and for the landing cores (those a
    # decrement reaches) with the start's ones, four channels by hit points first (what
    # a layer reads): 0 the value, 1 A's win, 2 A's loss, 3 the steps still to play
    values = np.zeros((grid.size + counters, graph.size))
    values[grid.size:] = payoffs[:, None]
    # the landing cores first, so that a layer reads them as a slice
    kept = np.concatenate([graph.landing, np.setdiff1d([core for _, core, _ in roots],
                                                       graph.landing)]).astype(np.int64)
    landed = np.zeros((grid.size + counters, len(kept), 4))
    landed[grid.size:] = np.stack([payoffs, payoffs > 0, payoffs < 0, 0 * payoffs],
                                  axis=1)[:, None, :]
    chooses = graph.chooses
    mixes = {p: np.zeros((grid.size, int(graph.slots[p][-1]))) for p in ("a", "b")}
    record = _Record(tolerance)
    for points in grid.layers:
        layer, play = _solve_layer(graph, grid, points, landed[:, :len(graph.landing)],
                                   mixes, chooses, record, tolerance, max_sweeps,
                                   stage_values)
        values[points] = layer.T
        landed[points, :, 0] = layer[kept].T
        landed[points, :, 1:] = play[kept].transpose(1, 0, 2)
    start = np.zeros(4)
    for p, core, point in roots:
        start += p * landed[point, int(np.flatnonzero(kept == core)[0])]
    labels = _endings(game, graph, grid, ends, start)
    evaluation = Evaluation(value=float(start[0]), win=float(start[1]),
                            draw=float(max(0.0, 1.0 - start[1] - start[2])),
                            loss=float(start[2]), expected_length=float(start[3]),
                            endings=labels)
    return CounterSolution(game, graph, grid, values, mixes, evaluation,
                           record.convergence())


def _endings(game: Game, graph: CoreGraph, grid: Grid, ends: list[State],
             start: np.ndarray) -> dict[str, float]:
    """The probability of each way the game ends (``game.result``), from A's chances
    of winning and losing (``start``'s channels 1 and 2): the ends are told apart by the
    sign of their payoff only, so several labels of one sign share its chance (joined
    by "or")."""
    finals = ends + [game.attach(graph.cores[c], grid.top) for c in np.flatnonzero(
        graph.terminal)]
    by_sign: dict[int, list[str]] = {}
    for state in finals:
        label = game.result(state)
        sign = int(np.sign(game.payoff(state)))
        if label not in by_sign.setdefault(sign, []):
            by_sign[sign].append(label)
    chance = {1: start[1], -1: start[2], 0: max(0.0, 1.0 - start[1] - start[2])}
    labels = {" or ".join(names): float(chance[sign]) for sign, names in by_sign.items()}
    return {k: v for k, v in sorted(labels.items(), key=lambda kv: -kv[1]) if v > 0}


class _Record:
    """The layers' value iterations summed into one ``Convergence``."""

    def __init__(self, tolerance: float):
        self.tolerance, self.sweeps, self.residual, self.converged = tolerance, 0, 0.0, True
        self.cyclic = False

    def add(self, convergence: Convergence) -> None:
        self.sweeps += convergence.sweeps
        self.residual = max(self.residual, convergence.residual)
        self.converged = self.converged and convergence.converged
        self.cyclic = self.cyclic or convergence.cyclic

    def convergence(self) -> Convergence:
        return Convergence(self.cyclic, self.sweeps, self.residual, self.tolerance,
                           self.converged)


@dataclass
class _Schedule:
    """What ``solver.stages.sweep`` reads of a graph: its blocks in order."""

    schedule: list[tuple[np.ndarray, bool]]

    @property
    def cyclic(self) -> bool:
        return any(cyclic for _, cyclic in self.schedule)


def _solve_layer(graph: CoreGraph, grid: Grid, points: np.ndarray, landed: np.ndarray,
                 mixes: dict, chooses: np.ndarray, record: _Record, tolerance: float,
                 max_sweeps: int, matrix_solver: Callable) -> tuple[np.ndarray, np.ndarray]:
    """The value (cores, points) and the three statistics (cores, points, 3) of every
    core at ``points``, one layer; the mixes are written into ``mixes``. ``landed``
    holds the landing cores' four channels by point (earlier layers filled)."""
    width = len(points)
    # what the steps that lower a counter bring, known from earlier layers: the value
    # (channel 0) and the three statistics, kept apart so that each is contiguous
    targets = np.stack([grid.shifted(points, move.decrement) for move in graph.moves])
    before = landed[targets].transpose(0, 2, 1, 3)     # (moves, landing, points, 4)
    fixed = (graph.landed @ before.reshape(-1, width * 4)).reshape(-1, width, 4)
    known = {"value": np.ascontiguousarray(fixed[:, :, 0]),
             "play": np.ascontiguousarray(fixed[:, :, 1:]).reshape(-1, width * 3)}
    layer = {"value": np.zeros((graph.size, width)),
             "play": np.zeros((graph.size, width * 3))}
    ends = graph.payoff[graph.terminal]
    layer["value"][graph.terminal] = ends[:, None]
    layer["play"][graph.terminal] = np.tile(np.stack([ends > 0, ends < 0, 0 * ends], axis=1),
                                            width)

    def stage_values(part: _Part, channel: str) -> np.ndarray:
        return known[channel][part.pairs] + part.zero @ layer[channel]

    def solve_part(part: _Part, continuation: np.ndarray) -> None:
        for group in part.groups:
            games = continuation[group.pairs]                      # (k, r, c, L)
            k, r, c, _ = games.shape
            if r * c == 1:
                found = games[:, 0, 0]
            else:
                stacked = games.transpose(0, 3, 1, 2).reshape(k * width, r, c)
                found = matrix_solver(stacked).reshape(k, width)
            layer["value"][part.cores[group.members]] = found

    def solve(block: _Block) -> None:
        for part in block.parts:
            solve_part(part, stage_values(part, "value"))

    def play(block: _Block, weights: list) -> None:
        """The three statistics under the equilibrium mixes of this layer."""
        for part, weight in zip(block.parts, weights, strict=True):
            play_part(part, weight)

    def play_part(part: _Part, weight: np.ndarray | None) -> None:
        terms = stage_values(part, "play").reshape(-1, width, 3)
        if weight is not None:
            terms = np.add.reduceat(terms * weight[:, :, None], part.offsets, axis=0)
        terms[:, :, 2] += 1.0  # one more step played
        layer["play"][part.cores] = terms.reshape(len(part.cores), -1)

    def chance_values(reduced: _Reduced, channel: str) -> None:
        for part in reduced.chance:
            if channel == "value":
                layer["value"][part.cores] = stage_values(part, "value")
            else:
                play_part(part, None)

    def solve_reduced(block: _Block) -> np.ndarray:
        """Value iteration on the choice cores only; their final stage games."""
        reduced = block.reduced
        head = reduced.choice
        chance_values(reduced, "value")          # with every choice core still at 0
        base = stage_values(head, "value")
        schedule = _Schedule([(head.cores, True)])
        record.add(sweep(schedule, layer["value"], lambda _: solve_part(
            head, base + reduced.links @ layer["value"][head.cores]), tolerance,
            max_sweeps, "the value"))
        chance_values(reduced, "value")
        return base + reduced.links @ layer["value"][head.cores]

    def play_reduced(block: _Block, weight: np.ndarray) -> bool:
        """The statistics of the choice cores by one linear solve per point, then of
        the chance cores; False if play under the mixes may never end (singular)."""
        reduced = block.reduced
        head = reduced.choice
        chance_values(reduced, "play")
        base = stage_values(head, "play").reshape(-1, width, 3)
        owner = np.repeat(np.arange(len(head.cores)), np.diff(head.offsets, append=len(
            head.pairs)))
        found = np.empty((len(head.cores), width, 3))
        for column in range(width):
            mix = sp.csr_matrix((weight[:, column], (owner, np.arange(len(head.pairs)))),
                                shape=(len(head.cores), len(head.pairs)))
            step = (mix @ reduced.links).toarray()
            constant = mix @ base[:, column, :]
            constant[:, 2] += 1.0
            try:
                found[:, column] = np.linalg.solve(np.eye(len(head.cores)) - step, constant)
            except np.linalg.LinAlgError:
                return False
        if not np.all(np.isfinite(found)):
            return False
        layer["play"][head.cores] = found.reshape(len(head.cores), -1)
        chance_values(reduced, "play")
        return True

    for block in graph.blocks:
        schedule = _Schedule([(block.cores, block.cyclic)])
        if not block.cyclic:
            # one stage solve per core gives value and mixes at once; the block's cores
            # depend on earlier blocks only
            part, = block.parts
            weight = _equilibrium_mixes(part, stage_values(part, "value"), points, mixes,
                                        layer["value"])
            play_part(part, weight)
            continue
        if block.reduced is not None:
            head = block.reduced.choice
            weight = _equilibrium_mixes(head, solve_reduced(block), points, mixes)
            if play_reduced(block, weight):
                continue
        else:
            record.add(sweep(schedule, layer["value"], lambda _, b=block: solve(b), tolerance,
                             max_sweeps, "the value"))
        weights = [_equilibrium_mixes(part, stage_values(part, "value"), points, mixes)
                   for part in block.parts]
        sweep(schedule, layer["play"], lambda _, b=block, w=weights: play(b, w),
              tolerance, max_sweeps, "the chances of each ending")
    return layer["value"], layer["play"].reshape(graph.size, width, 3)


def _equilibrium_mixes(part: _Part, continuation: np.ndarray, points: np.ndarray,
                       mixes: dict, values: np.ndarray | None = None) -> np.ndarray:
    """The maximum-entropy mixes of the part's cores at ``points`` (written into
    ``mixes``), and the probability of each of its pairs under them (pairs, points);
    with ``values`` (cores, points) the stage games' values are written there too."""
    width = len(points)
    weight = np.ones((len(part.pairs), width))
    for group in part.groups:
        games = continuation[group.pairs]
        k, r, c, _ = games.shape
        cores = part.cores[group.members]
        if r * c == 1:
            if values is not None:
                values[cores] = games[:, 0, 0]
            continue
        solved = solve_matrices(games.transpose(0, 3, 1, 2).reshape(k * width, r, c),
                                max_entropy=True)
        if values is not None:
            values[cores] = solved.value.reshape(k, width)
        row, col = solved.row.reshape(k, width, r), solved.col.reshape(k, width, c)
        joint = row[:, :, :, None] * col[:, :, None, :]             # (k, L, r, c)
        weight[group.pairs] = joint.transpose(0, 2, 3, 1)
        for player, mix in (("a", row), ("b", col)):
            place = group.places[player]
            if place is not None:
                mixes[player][points[None, :, None], place[:, None, :]] = mix
    return weight
