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
walk by the conformance suite); compiled passes (``solver.counter_outcomes``) sort its
outcomes into the matrices below. Values are arrays over the grid of counter values,
solved layer by layer of the counters' sum (it falls with every positive decrement, by
at least the least one: a layer holds that many consecutive sums, ``Grid``, and depends
only on earlier layers and on itself). The steps that lower a counter are factored
(``_Landings``): each pair's outcomes into one core form a distribution over
decrements, stored once however many pairs share it, and a layer sums each one once,
reading each decrement's values from the points of one sum as one run of columns of the
core's row (``Grid.column``: the points layer after layer), in
compiled loops (``solver.counter_sums``). Within a layer
the steps that change no counter can cycle. The core graph's strongly connected
components under those steps (``solver.graph``'s schedule) are solved in order: an
acyclic one at once (value and maximum-entropy mixes from one batch of stage games per
shape); a cyclic one by value iteration through ``solver.stages.sweep``, as the
generic solver does, from 0 (endless play is worth 0), on its choice cores only when
the chance steps between them are acyclic (their values are then affine in the choice
cores'). When no joint action of such a block stays in it for sure, its fixed point is
unique: policy-evaluation steps from the values one counter lower reach it first, and
the sweeps confirm it. Win, loss and the expected length (in the game's
``length_unit``) under the rule's mixes are then pushed forward from the start, layer
by layer. The
solution keeps the values of the cores a step lowers into, and of the choosing and
cyclic ones; any other core's value is rebuilt from its one joint action on demand.

Each stage game is settled by a rule passed to ``solve_counters``
(``solver.stage_rules``): the maximum-entropy equilibrium by default, or a best reply
to fixed mixes, a fixed pair, a regularised player (``solver.counter_play`` answers
with them); the layers, the policy-evaluation steps and the sweeps are the same for
every rule.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from itertools import chain

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from . import counter_outcomes, counter_sums
from .errors import InputError
from .evaluate import Evaluation
from .game import Game, State
from .graph import _heights, _schedule, ranges
from .heap import keeping_freed_memory
from .policy import TabularPolicy
from .stage_rules import Equilibrium, StageRule
from .stages import MAX_SWEEPS, TOLERANCE, Convergence, sweep

#: a cyclic block contracts when no joint action stays in it with more than this
#: close to certainty (a chance of leaving under 1e-9 would need too many sweeps anyway)
CONTRACTION_MARGIN = 1e-9
#: at most this many policy-evaluation steps before the value iteration of a contracting
#: block: each solves the stage games once, then the block's values under those mixes
#: exactly (they stop when the values no longer move; two or three usually do)
NEWTON_STEPS = 6
#: a layer holds several sums of the counters when no step lowers the sum by less, up
#: to this many points: fewer, wider layers spread each layer's fixed cost, and the
#: arrays of a layer (pairs by points) stay within a few hundred MB
LAYER_POINTS = 256
#: the layers read back together (``Grid.reads``) hold at most this many points: the
#: sums' arrays (kernels by points) then stay under about a GB
READ_POINTS = 2048


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

    @property
    def single(self) -> bool:
        """One joint action: each core is worth its continuation."""
        return self.pairs.shape[1] * self.pairs.shape[2] == 1


@dataclass
class _Part:
    """Cores updated together: their pairs, core by core, with the zero-decrement
    transitions of those pairs (pairs, N), the kernels their lowering steps add up to
    (pairs, kernels: ``_Landings.spread``'s rows) and the stage shapes."""

    cores: np.ndarray
    pairs: np.ndarray
    zero: sp.csr_matrix
    lowering: sp.csr_matrix
    groups: list[_Group]
    offsets: np.ndarray    # where each core's pairs start in ``pairs``

    def __post_init__(self):
        #: the cores the pairs' steps that change no counter lead to, and those steps
        #: (targets, pairs), for pushing the chance of play forward
        self.targets = _sorted_set(self.zero.indices)
        self.inflow = self.zero[:, self.targets].T.tocsr()
        #: the same steps read from ``_Flow.pairs`` (its columns: the pairs themselves,
        #: up to the part's last)
        self.feeds = sp.csr_matrix((self.inflow.data, self.pairs[self.inflow.indices],
                                    self.inflow.indptr),
                                   shape=(len(self.targets), int(self.pairs.max(initial=-1)) + 1))
        #: the position in ``cores`` of each pair's core
        self.owner = np.repeat(np.arange(len(self.cores)), np.diff(self.offsets, append=len(
            self.pairs)))
        self._split_single()
        #: player -> where each pair's action sits in a row of the solution's mixes; -1
        #: where the player has that one action (or the core that one pair): weight 1
        self.slots = {player: np.full(len(self.pairs), -1, dtype=np.int64)
                      for player in ("a", "b")}
        for group in self.groups:
            _, rows, cols = group.pairs.shape
            if rows * cols > 1:
                for player, place in group.places.items():
                    if place is not None:
                        self.slots[player][group.pairs] = (
                            place[:, :, None] if player == "a" else place[:, None, :])

    def _split_single(self) -> None:
        """The pairs of the cores of one joint action apart from the others: when no
        step of the part leads to those cores (``apart``), a layer writes their values
        where they are kept, with no stage game in between (most cores of a duel are
        such steps within a round)."""
        single = [group for group in self.groups if group.single]
        forced = np.concatenate([group.pairs[:, 0, 0] for group in single] + [[]]).astype(
            np.int64)
        #: the cores of one joint action, in the order of their pairs' rows in ``forced``
        self.forced_cores = self.cores[np.concatenate(
            [group.members for group in single] + [[]]).astype(np.int64)]
        self.apart = not np.isin(self.forced_cores, self.targets).any()
        #: the other pairs' positions
        self.chosen = np.setdiff1d(np.arange(len(self.pairs)), forced)
        self._forced_pairs = forced

    @cached_property
    def forced(self) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        """The steps of the pairs of one joint action (built where a layer uses them)."""
        return self.zero[self._forced_pairs], self.lowering[self._forced_pairs]

    @cached_property
    def chosen_steps(self) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        return self.zero[self.chosen], self.lowering[self.chosen]


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
    #: (chance cores of ``chance`` in order, choice cores): the chance of reaching each
    #: choice core from each chance core through the block's chance steps
    routes: sp.csr_matrix
    #: every joint action leaves the block's choice cores with positive probability, so
    #: its value iteration contracts: the fixed point is unique, whatever the start
    contracting: bool

    def __post_init__(self):
        #: (cores * cores, pairs): ``links`` summed per owning core, the same for any
        #: mixes, so a point's step between choice cores is this times the pairs' chances
        found = self.links.tocoo()
        cores = len(self.choice.cores)
        self.steps = sp.csr_matrix(
            (found.data, (self.choice.owner[found.row] * cores + found.col, found.row)),
            shape=(cores * cores, self.links.shape[0]))


@dataclass
class _Move:
    """The transitions of one decrement vector (pairs, cores)."""

    decrement: np.ndarray
    full: sp.csr_matrix


@dataclass
class _Landings:
    """The steps that lower a counter, factored for a layer: a pair's outcomes that
    reach one core form a little distribution over decrements, and many pairs share
    the same one (the same dice into the same next core). Each distinct one is kept
    once, as a kernel: its landing core (a position in ``CoreGraph.landing``) and its
    entries (a move, a probability; ``bounds``: where each kernel's entries start);
    ``spread`` (pairs, kernels) adds them up per pair. So a layer sums each distinct
    distribution once, instead of once per outcome (``solver.counter_sums``)."""

    spread: sp.csr_matrix    # (P, kernels), 0 / 1
    landing: np.ndarray      # (kernels,) ascending
    bounds: np.ndarray       # (kernels + 1,)
    move: np.ndarray         # (entries,)
    prob: np.ndarray         # (entries,)
    #: the kernel's chance of lowering counter c by h or more (of depleting it from h),
    #: for h = 1..reach[k, c] (its largest decrement of c, within the counter's top;
    #: none beyond) at tails[at[k, c] + h - 1]
    tails: np.ndarray
    reach: np.ndarray        # (kernels, counters)
    at: np.ndarray           # (kernels, counters)

    def __post_init__(self):
        self.gather = self.spread.T.tocsr()   # (kernels, P)
        #: batches of whole landing cores, summed in parallel
        self.cuts = counter_sums.batches(self.landing, self.bounds)

    def sums(self) -> tuple:
        """The kernels' arrays as ``solver.counter_sums`` takes them."""
        return (self.landing, self.bounds, self.move, self.prob, self.tails, self.reach,
                self.at, self.cuts)


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
    landings: _Landings
    blocks: list[_Block]
    terminal: np.ndarray   # (N,) cores that end the game whatever the counters
    payoff: np.ndarray     # (N,) their payoff to A (0 elsewhere)

    @property
    def size(self) -> int:
        return len(self.cores)

    def __post_init__(self):
        #: cores where someone has more than one legal action, and the place of each
        #: among them
        self.chooses = (self.mask_a.sum(axis=1) > 1) | (self.mask_b.sum(axis=1) > 1)
        self.chooser = np.cumsum(self.chooses) - 1
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
    in increasing order of their sum, cut where the sum has grown by ``band`` (no step
    lowers the sum by less: a layer depends only on earlier layers and on itself) or
    the layer has reached LAYER_POINTS; within a layer the points of one sum (a
    run) are consecutive. Index ``size + k`` stands for "counter k depleted".
    ``reads``: runs of layers whose steps that lower a counter are summed in one pass
    (their sums span less than ``band``, so none reads another's values; at most
    READ_POINTS points): each earlier value is then read once for all of them."""

    top: tuple[int, ...]
    band: int = 1

    def __post_init__(self):
        axes = np.indices(self.top).reshape(len(self.top), -1).T + 1
        order = np.argsort(axes.sum(axis=1), kind="stable")
        sums = axes[order].sum(axis=1)
        edges = np.concatenate([[0], np.flatnonzero(np.diff(sums)) + 1, [len(sums)]])
        self.points = axes            # (size, k) counter values of each flat index
        runs = sums[edges[:-1]]
        cuts = list(_spans(runs, runs, np.diff(edges), self.band, LAYER_POINTS))
        self.layers = [order[edges[first]:edges[last]] for first, last in cuts]
        low = [sums[edges[first]] for first, _ in cuts]
        high = [sums[edges[last] - 1] for _, last in cuts]
        self.reads = list(_spans(low, high, [len(points) for points in self.layers],
                                 self.band, READ_POINTS))
        self.floor = np.empty(self.size, dtype=np.int64)  # the least sum of each layer
        for points in self.layers:
            self.floor[points] = axes[points[0]].sum()
        # a solution's tables hold a core's values by point in one row: the layers one
        # after the other (each in the order above), then each counter depleted (``size
        # + k``); ``column`` is each point's place there. With one or two counters a move
        # takes a run's live points (those it depletes no counter of) to consecutive
        # points of an earlier run: one run of columns, a window
        self.columns = self.size + len(self.top)
        self.column = np.empty(self.size + len(self.top), dtype=np.int64)
        self.column[order] = np.arange(self.size)
        self.column[self.size:] = self.size + np.arange(len(self.top))

    @property
    def size(self) -> int:
        return len(self.points)

    def flat(self, counters) -> int:
        counters = tuple(int(c) for c in counters)
        if len(counters) != len(self.top) or any(not 1 <= c <= t for c, t in
                                                  zip(counters, self.top, strict=True)):
            raise KeyError(f"counters {counters} outside 1..{self.top}")
        return int(np.ravel_multi_index(tuple(c - 1 for c in counters), self.top))

    def together(self, first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
        """The points of layers ``first`` .. ``last`` - 1 one after the other (their
        columns are consecutive), and where each layer starts among them."""
        layers = self.layers[first:last]
        return np.concatenate(layers), np.cumsum([0] + [len(p) for p in layers[:-1]])

    def span(self, layer: np.ndarray) -> slice:
        """The columns of a layer's points (consecutive: a slice reads them in place)."""
        first = int(self.column[layer[0]])
        return slice(first, first + len(layer))

    def lowered(self, points: np.ndarray) -> np.ndarray:
        """Flat index of each point lowered on its largest counter to the sum just
        below its layer's (solved at an earlier layer: where a layer's first guesses
        come from); -1 where that counter does not reach so far."""
        values = self.points[points]
        drop = values.sum(axis=1) - self.floor[points] + 1
        after = values - drop[:, None] * (np.arange(values.shape[1]) == values.argmax(
            axis=1)[:, None])
        out = np.full(len(points), -1, dtype=np.int64)
        live = np.all(after >= 1, axis=1)
        out[live] = np.ravel_multi_index(tuple((after[live] - 1).T), self.top)
        return out

    def shifted(self, points: np.ndarray, decrement: np.ndarray) -> np.ndarray:
        """Flat indices of ``points`` lowered by ``decrement`` (or by each of a stack of
        them: then one row per decrement); ``size + k`` where counter k falls to 0 or
        below."""
        after = self.points[points] - np.asarray(decrement)[..., None, :]
        live = np.all(after >= 1, axis=-1)
        flat = np.ravel_multi_index(tuple(np.moveaxis(np.maximum(after, 1) - 1, -1, 0)),
                                    self.top)
        return np.where(live, flat, self.size + np.argmax(after < 1, axis=-1))


def _spans(low: np.ndarray, high: np.ndarray, sizes: np.ndarray, band: int, cap: int):
    """(first, last) runs of consecutive items (each with its least and greatest sum of
    the counters, ``low`` and ``high``, and its number of points) whose sums span less
    than ``band`` and which hold at most ``cap`` points together, unless one item alone
    holds more: the runs of a layer, or the layers read together."""
    first, count = 0, 0
    for item, size in enumerate(sizes):
        count += size
        if item > first and (high[item] - low[first] >= band or count > cap):
            yield first, item
            first, count = item, size
    if len(sizes):
        yield first, len(sizes)


@dataclass
class _Windows:
    """A layer's moves: the column each of its points lands on (moves, points:
    ``Grid.column`` of the targets, a depleted counter's column where one falls to 0);
    where the live targets of a run of the layer (its points of one sum) are one
    window, its points lo..hi landing on columns start + lo..start + hi (moves, runs; always with
    one or two counters; elsewhere lo = hi = 0), and which moves have live targets
    besides (``apart``, read one by one; ``run_of``: each point's run). The depleted
    points are summed per counter, from ``_Landings.tails`` at the points' ``values``
    (counters, points)."""

    columns: np.ndarray
    start: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    apart: np.ndarray
    run_of: np.ndarray
    values: np.ndarray

    @classmethod
    def of(cls, grid: Grid, points: np.ndarray, moves: list[_Move]) -> _Windows:
        """The windows of ``moves`` from the layer ``points``."""
        sums = grid.points[points].sum(axis=1)
        runs = np.concatenate([[0], np.flatnonzero(np.diff(sums)) + 1, [len(points)]])
        targets = _targets(moves, grid, points)
        columns = grid.column[targets]
        live = targets < grid.size
        windows = [_window(columns[:, lo:hi], live[:, lo:hi], lo)
                   for lo, hi in zip(runs[:-1], runs[1:], strict=True)]
        start, lo, hi, outside = (np.stack(part, axis=1) for part in zip(*windows,
                                                                         strict=True))
        return cls(columns, start, lo, hi, outside.any(axis=1),
                   np.repeat(np.arange(len(runs) - 1), np.diff(runs)),
                   np.ascontiguousarray(grid.points[points].T))

    def sums(self) -> tuple:
        """The windows as ``solver.counter_sums`` takes them."""
        return (self.columns, self.start, self.lo, self.hi, self.apart, self.run_of,
                self.values)


def _window(columns: np.ndarray, live: np.ndarray, offset: int) -> tuple:
    """Each move's window over one run of a layer (its ``columns`` and ``live`` targets,
    moves by the run's points, the run starting at point ``offset``): start, lo, hi as
    ``_Windows`` has them, and whether live targets lie outside it."""
    width = columns.shape[1]
    first = np.argmax(live, axis=1)
    last = width - np.argmax(live[:, ::-1], axis=1)
    # the columns of first..last go up by one: no other step in between
    breaks = np.zeros(columns.shape, dtype=np.int64)
    breaks[:, 1:] = np.cumsum(np.diff(columns, axis=1) != 1, axis=1)
    rows = np.arange(len(columns))
    window = live.any(axis=1) & (last - first == live.sum(axis=1)) & (
        breaks[rows, np.maximum(last - 1, 0)] == breaks[rows, first])
    lo, hi = np.where(window, first, 0), np.where(window, last, 0)
    start = np.where(window, columns[rows, first] - first - offset, 0)
    inside = (np.arange(width) >= lo[:, None]) & (np.arange(width) < hi[:, None])
    return (start, np.where(window, lo + offset, 0), np.where(window, hi + offset, 0),
            (live & ~inside).any(axis=1))


_CORES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def explore(game: Game, starts: list[tuple[float, State]] | None = None
            ) -> tuple[CoreGraph, Grid, list[tuple[float, int, int]]]:
    """The core graph from ``starts`` (the game's initial outcomes unless given), the
    grid up to their counters, and the roots as ``(probability, core, flat point)``;
    from the initial outcomes explored once per game (the size check of
    ``solver.graph`` and the solution both need it)."""
    if starts is not None:
        return _explore(game, starts)
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


def walk(game: Game, starts: list[tuple[float, State]] | None = None) -> CoreWalk:
    """The cores from the starts' (the game's initial outcomes unless given), one by one
    through ``core_transitions`` (the reference a declared ``cores`` fast path is
    checked against)."""
    starts = game.initial_outcomes() if starts is None else starts
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
        # (all the core's outcomes at once: a choosing core has hundreds of pairs)
        transitions = game.core_transitions(core)
        pair_core.extend([cursor] * len(transitions))
        pair_a.extend(i for i, _, _ in transitions)
        pair_b.extend(j for _, j, _ in transitions)
        counts.extend(len(outcomes) for _, _, outcomes in transitions)
        every = list(chain.from_iterable(outcomes for _, _, outcomes in transitions))
        cursor += 1
        if not every:
            continue
        chances, nexts, lowered = zip(*every, strict=True)
        known = dict(zip(map(id, nexts), nexts, strict=True))
        for key, nxt in known.items():
            known[key] = visit(nxt)
        targets.extend(map(known.__getitem__, map(id, nexts)))
        probs.extend(chances)
        decrements.extend(chain.from_iterable(lowered))
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


def _sorted_set(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)``, by sorting (numpy's hashing ``unique`` takes ten times
    as long on these arrays)."""
    ordered = np.sort(values)
    first = np.ones(len(ordered), bool)
    first[1:] = ordered[1:] != ordered[:-1]
    return ordered[first]


def _explore(game: Game, given: list[tuple[float, State]] | None = None
             ) -> tuple[CoreGraph, Grid, list[tuple[float, int, int]]]:
    starts = game.initial_outcomes() if given is None else given
    # the declared fast path gives the cores from the game's start only
    found = game.cores() if game.info.has("cores") and given is None else walk(game, given)
    cores = found.cores
    index = dict(zip(cores, range(len(cores)), strict=True))
    shape = (len(found.pair_core), len(cores))
    zero, lowering = _split(game, found, shape)
    # every step that lowers a counter lowers their sum by this much or more
    band = int(lowering.decrements.sum(axis=1).min()) if len(lowering.decrements) else 1
    grid = Grid(_top(game, starts), band)
    roots = [(p, index[game.core(s)], grid.flat(game.counters(s))) for p, s in starts]
    slices = np.searchsorted(found.pair_core, np.arange(shape[1] + 1)).astype(np.int64)
    graph = CoreGraph(cores, index, found.mask_a, found.mask_b, found.pair_core,
                      found.pair_a, found.pair_b, slices, zero, _moves(lowering, shape),
                      lowering.landing, _factor(lowering, shape[0], grid), [],
                      found.terminal, found.payoff)
    graph.blocks = _blocks(graph)
    return graph, grid, roots


#: at most this many move keys are marked in a table; past it (a step lowering a counter
#: by millions, say) they are numbered by ``np.unique`` instead
DENSE_KEYS = 1 << 24


@dataclass
class _Lowering:
    """The outcomes that lower a counter, pair by pair (``bounds``), sorted within a pair
    by next core then move (in place): their next cores, probabilities and moves (each
    move's decrement vector in ``decrements``), and the runs into one core (``runs``:
    where each starts, then the end; ``per_pair``: each pair's first run)."""

    bounds: np.ndarray
    targets: np.ndarray
    probs: np.ndarray
    moves: np.ndarray
    decrements: np.ndarray   # (moves, counters)
    seen: np.ndarray         # (N,) the cores some step lowers into

    def __post_init__(self):
        self.runs, self.per_pair = counter_outcomes.sort_pairs(
            self.bounds, self.targets, self.moves, self.probs, len(self.decrements))
        self.landing = np.flatnonzero(self.seen)

    def lowered(self, top: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, int]:
        """Each move's counter and amount (at most the counter's top), and the number of
        counters."""
        counter = np.argmax(self.decrements > 0, axis=1)
        amount = self.decrements[np.arange(len(counter)), counter]
        return counter, np.minimum(amount, np.array(top)[counter]), len(top)


def _split(game: Game, found: CoreWalk, shape: tuple[int, int]
           ) -> tuple[sp.csr_matrix, _Lowering]:
    """The zero-decrement matrix (pairs, cores) and the lowering outcomes."""
    decrements = found.decrements
    counters, span = decrements.shape[1], int(decrements.max(initial=0)) + 1
    dense = counters * span <= DENSE_KEYS
    present, seen = np.zeros(counters * span if dense else 0, bool), np.zeros(shape[1], bool)
    wrong, still, (bounds, targets, probs, keys) = counter_outcomes.split(
        found.counts, decrements, found.targets, found.probs, span, present, seen)
    if wrong >= 0:
        raise InputError(f"{game.info.system}: a step must lower at most one counter and "
                         f"raise none, got {tuple(decrements[wrong].tolist())}")
    if dense:
        codes, moves = np.flatnonzero(present), (np.cumsum(present) - 1)[keys]
    else:
        codes, moves = np.unique(keys, return_inverse=True)
    vectors = np.zeros((len(codes), counters), np.int64)
    vectors[np.arange(len(codes)), counters - 1 - codes // span] = codes % span
    return (_matrix(still[2], still[1], still[0], shape),
            _Lowering(bounds, targets, probs, moves, vectors, seen))


def _matrix(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray,
            shape: tuple[int, int], canonical: bool = False) -> sp.csr_matrix:
    """A CSR matrix from rows in order, duplicates summed and columns sorted within each
    row as ``csr_matrix((data, (rows, columns)))`` does (both keep each row's entries
    in order, then sort and add up the same way), unless known ``canonical``."""
    matrix = sp.csr_matrix((data, indices, indptr), shape=shape)
    if canonical:
        matrix.has_canonical_format = True
    else:
        matrix.sum_duplicates()
    return matrix


def _moves(low: _Lowering, shape: tuple[int, int]) -> list[_Move]:
    """The lowering outcomes as one sparse matrix (pairs, cores) per move."""
    kind = np.int32 if max(*shape, len(low.moves)) <= np.iinfo(np.int32).max else np.int64
    indptr = np.zeros((len(low.decrements), shape[0] + 1), kind)
    indices, data = np.empty(len(low.moves), kind), np.empty(len(low.moves))
    cuts, canonical = counter_outcomes.by_move(low.bounds, low.moves, low.targets, low.probs,
                                               indptr, indices, data)
    return [_Move(decrement, _matrix(data[lo:hi], indices[lo:hi], row, shape, canonical))
            for decrement, lo, hi, row in zip(low.decrements, cuts[:-1], cuts[1:], indptr,
                                              strict=True)]


def _factor(low: _Lowering, pairs: int, grid: Grid) -> _Landings:
    """The lowering outcomes factored into distinct kernels (see ``_Landings``); the
    sums are the same terms regrouped."""
    starts, bits = low.runs, low.probs.view(np.uint64)
    kernel, first = counter_outcomes.distinct(starts, low.targets, low.moves, bits)
    # the kernels by landing core (``solver.counter_sums`` sums them core by core)
    order = counter_outcomes.ordered(first, starts, low.targets, low.moves, bits)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    # a pair's runs come by landing core, so their kernels' ranks ascend
    spread = sp.csr_matrix((np.ones(len(kernel)), rank[kernel], low.per_pair),
                           shape=(pairs, len(order)))
    first = first[order]
    entries = ranges(starts, first)
    bounds = np.concatenate([[0], np.cumsum(starts[first + 1] - starts[first])])
    move, prob = low.moves[entries], low.probs[entries]
    tails, reach, at = counter_outcomes.tails(bounds, move, prob, *low.lowered(grid.top))
    counter_sums.from_the_top(tails, at.ravel(), reach.ravel())
    landing = (np.cumsum(low.seen) - 1)[low.targets[starts[first]]]
    return _Landings(spread, landing, bounds, move, prob, tails, reach, at)


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
    return _Part(members, pairs, graph.zero[pairs], graph.landings.spread[pairs],
                 _groups(graph, members), np.cumsum(counts) - counts)


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
    links = (head.zero @ expand).tocsr()
    staying = float(np.asarray(links.sum(axis=1)).max(initial=0.0))
    routes = expand.tocsr()[np.concatenate([sub.cores for sub in chance_parts])]
    return _Reduced(head, chance_parts, links, routes, staying < 1.0 - CONTRACTION_MARGIN)


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

    def __init__(self, game: Game, graph: CoreGraph, grid: Grid, kept: tuple,
                 mixes: dict[str, np.ndarray], evaluation: Evaluation,
                 convergence: Convergence, visits: tuple | None = None):
        self.game, self.cores, self.grid = game, graph, grid
        # (kept cores, grid.columns) the value of the kept cores (``_kept``) at each
        # point's ``Grid.column``; the depleted counters' columns hold their payoffs
        kept_cores, self.held = kept
        self.position = np.full(graph.size, -1)
        self.position[kept_cores] = np.arange(len(kept_cores))
        # player -> (grid.size, slots): at each point the mixes of every core where the
        # player has a choice, over his legal actions, from ``CoreGraph.slots``
        self.mixes = mixes
        self.evaluation = evaluation
        self.convergence = convergence
        #: (grid.size, choosing cores) the chance that play under the mixes reaches each
        #: core where someone chooses (``cores.chooses``), by point; (cores,) the
        #: expected visits of every core, all points together
        self.visits, self.core_visits = (None, None) if visits is None else visits

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
        return float(self._values_at(np.array([core]), point)[0])

    def _values_at(self, cores: np.ndarray, point: int) -> np.ndarray:
        """The values of ``cores`` at one flat point (past grid.size: depleted)."""
        column = self.grid.column[point]
        if point >= self.grid.size:
            return np.full(len(cores), self.held[0, column])
        position = self.position[cores]
        held = position >= 0
        found = np.empty(len(cores))
        found[held] = self.held[position[held], column]
        if not held.all():   # one joint action each (``_kept``)
            found[~held] = self._continuation(self.cores.pair_slices[cores[~held]], point)
        return found

    def _continuation(self, pairs: np.ndarray, point: int) -> np.ndarray:
        """The expected value after each joint action of ``pairs`` at one point."""
        graph = self.cores
        total = np.zeros(len(pairs))
        steps = [(graph.zero, point)] + [
            (move.full, int(self.grid.shifted(np.array([point]), move.decrement)[0]))
            for move in graph.moves]
        for matrix, after in steps:
            rows = matrix[pairs]
            if rows.nnz:
                reached = np.unique(rows.indices)
                values = np.zeros(graph.size)
                values[reached] = self._values_at(reached, after)
                total += rows @ values
        return total

    def policy(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """The equilibrium mixes of A and B at ``state``."""
        core, point = self._locate(state)
        return tuple(self.mix_at(player, core, point) for player in ("a", "b"))

    def mix_at(self, player: str, core: int, point: int) -> np.ndarray:
        """The mix of ``player`` over the action list at a core and flat point."""
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
        matrix[self.cores.pair_a[pairs], self.cores.pair_b[pairs]] = self._continuation(
            pairs, point)
        return matrix

    def policy_for(self, player: str, name: str = "equilibrium") -> CounterPolicy:
        """The mixes of ``player`` (the equilibrium, or the rule's play) as a policy on
        its observations."""
        return CounterPolicy(self, player, name)

    def table(self, player: str) -> dict:
        """The mixes of ``player`` by observation. A core may exist at some counter
        values only (a game's opening, say): where the state it attaches to reports
        other counters, that pair is no state of the game and is left out (its mix
        would overwrite a real state's)."""
        table = {}
        for core in np.flatnonzero(self.cores.chooses):
            for point in range(self.grid.size):
                counters = self.grid.points[point]
                state = self.game.attach(self.cores.cores[core], counters)
                if tuple(self.game.counters(state)) != tuple(counters.tolist()):
                    continue
                table[tuple(self.game.observe(state, player))] = self.mix_at(player, core, point)
        return table


class CounterPolicy(TabularPolicy):
    """A play solved over a game's counters, as a policy on observations (its table is
    built when first asked); it keeps its mixes in the solver's layout, so the same game
    reads them back without observing every state again
    (``solver.counter_play.counter_mixes``)."""

    def __init__(self, solution: CounterSolution, player: str, name: str):
        self.solution, self.game, self.player, self.name = solution, solution.game, player, name
        self.mixes = solution.mixes[player]

    @cached_property
    def table(self) -> dict:
        return self.solution.table(self.player)


#: the most memory the solution's tables may take (values by core and counter, mixes by
#: counter value): past it a duel is refused in words before anything is allocated
MAX_SOLUTION_BYTES = 4 * 2**30


def solution_bytes(graph: CoreGraph, grid, kept: int) -> int:
    """The bytes of a counter solution's tables (``solve_counters``): the kept cores'
    values at every counter value, and both players' mixes at every counter value."""
    slots = sum(int(graph.slots[p][-1]) for p in ("a", "b"))
    return 8 * (kept * grid.columns + grid.size * slots)


def require_room(graph: CoreGraph, grid, kept: int) -> None:
    """Refuse, before allocating, a duel whose solution would not fit in memory."""
    needed = solution_bytes(graph, grid, kept)
    if needed <= MAX_SOLUTION_BYTES:
        return
    held = " and ".join(str(int(value)) for value in grid.top)
    raise InputError(
        f"this duel is too large to solve here: with its counters at {held} it has "
        f"{len(graph.cores):,} situations at each of {grid.size:,} counter values, whose "
        f"tables need about {needed / 2**30:.1f} GiB, more than the "
        f"{MAX_SOLUTION_BYTES / 2**30:.0f} GiB allowed (and hours of solving); a "
        f"shorter duel fits (lower hit points, fewer beats)")


@keeping_freed_memory()
def solve_counters(game: Game, tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS,
                   stage_values: Callable[[np.ndarray], np.ndarray] | None = None,
                   start: State | None = None, rule: StageRule | None = None,
                   statistics: bool = True) -> CounterSolution:
    """Solve a game that declares the ``counters`` fast path (see the module), from its
    initial outcomes or from the live state ``start`` (every state reachable from it).
    ``rule`` settles each stage (``solver.stage_rules``: the maximum-entropy
    equilibrium by default, whose value iteration ``stage_values`` solves: benchmarks
    swap it for a reference solver; or a best reply, a fixed pair, a regularised
    player). Without ``statistics`` the play is not pushed forward (win, loss, length
    and ``visits`` are left at 0)."""
    graph, grid, roots = explore(game, None if start is None else [(1.0, start)])
    rule = Equilibrium(stage_values, grid) if rule is None else rule
    counters = len(grid.top)
    ends = [game.depleted(k) for k in range(counters)]
    payoffs = np.array([float(game.payoff(s)) for s in ends])
    scored = payoffs if rule.scores is None else rule.scores(payoffs)
    finals = graph.payoff[graph.terminal]
    finals = finals if rule.scores is None else rule.scores(finals)
    # the values kept by hit points first: the landing cores (those a decrement
    # reaches, what a layer reads) first, then those a state's value cannot be
    # rebuilt from in one step (see CounterSolution); the others are never stored
    kept = _kept(graph, [core for _, core, _ in roots])
    require_room(graph, grid, len(kept))
    held = np.zeros((len(kept), grid.columns))
    held[:, grid.column[grid.size:]] = scored
    landed = held[:len(graph.landing)]
    mixes = {p: np.zeros((grid.size, int(graph.slots[p][-1]))) for p in ("a", "b")}
    record = _Record(tolerance)
    for first, last in grid.reads:
        together, starts = grid.together(first, last)
        known = _lowered(graph, grid, together, landed)
        for points, at in zip(grid.layers[first:last], starts, strict=True):
            reading = (np.ascontiguousarray(known[:, at:at + len(points)]), landed, finals)
            layer = _solve_layer(graph, grid, points, reading, mixes, record, tolerance,
                                 max_sweeps, rule)
            held[:, grid.span(points)] = layer[kept]
    # the chance of play reaching each core where someone chooses, by point; the
    # expected visits of every core
    visits = (np.zeros((grid.size, int(graph.chooses.sum()))), np.zeros(graph.size))
    win, loss, steps = _play(graph, grid, roots, mixes, payoffs, tolerance,
                             max_sweeps, _unit_starts(game, graph, grid), visits
                             ) if statistics else (0.0, 0.0, 0.0)
    position = {core: at for at, core in enumerate(kept.tolist())}
    start = np.array([sum(p * held[position[core], grid.column[point]]
                          for p, core, point in roots),
                      win, loss, steps])
    draw = float(max(0.0, 1.0 - win - loss)) if statistics else 0.0
    evaluation = Evaluation(value=float(start[0]), win=win, draw=draw, loss=loss,
                            expected_length=steps,
                            endings=_endings(game, graph, grid, ends, start)
                            if statistics else {})
    return CounterSolution(game, graph, grid, (kept, held), mixes, evaluation,
                           record.convergence(), visits)


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


def _unit_starts(game: Game, graph: CoreGraph, grid: Grid) -> np.ndarray:
    """(cores,) bool: the live cores that open one of the game's length units (the
    game says so whatever the counters hold)."""
    return np.fromiter((not dead and game.starts_unit(game.attach(core, grid.top))
                        for core, dead in zip(graph.cores, graph.terminal.tolist(),
                                              strict=True)), dtype=bool, count=graph.size)


def _kept(graph: CoreGraph, roots: list[int]) -> np.ndarray:
    """The cores whose values a solution keeps: the landing cores first, then the
    roots, the cores with more than one joint action and those in cycles. Every other
    core has one joint action whose steps lead to kept cores or, without a cycle, to
    cores like it, so its value is rebuilt on demand."""
    single = np.diff(graph.pair_slices) == 1
    cyclic = [block.cores for block in graph.blocks if block.cyclic]
    others = np.union1d(np.flatnonzero(~single), np.concatenate([roots, *cyclic]))
    return np.concatenate([graph.landing, np.setdiff1d(others, graph.landing)]).astype(
        np.int64)


def _play(graph: CoreGraph, grid: Grid, roots: list, mixes: dict, payoffs: np.ndarray,
          tolerance: float, max_sweeps: int,
          units: np.ndarray, visits: tuple[np.ndarray, np.ndarray] | None = None
          ) -> tuple[float, float, float]:
    """Play under the solved mixes from the roots, pushed forward layer by
    layer from the top (a step lowers the counters or stays in its layer): A's chances
    to win and to lose (ending with a positive or a negative payoff: a depleted
    counter, ``payoffs``, or a terminal core), and the expected length (each visit
    of a core in ``units`` counts one). ``visits``, when given, receives the chance of
    reaching each core where someone chooses by point (points, choosing cores) and the
    expected visits of every core over all points (cores,)."""
    # the chance of arriving at each landing core by point (``Grid.column``); row 0's
    # column of counter k depleted: the chance of depleting it
    arriving = np.zeros((len(graph.landing), grid.columns))
    layer_of = np.empty(grid.size, dtype=np.int64)
    column_of = np.empty(grid.size, dtype=np.int64)
    for number, points in enumerate(grid.layers):
        layer_of[points], column_of[points] = number, np.arange(len(points))
    ending = np.sign(graph.payoff[graph.terminal])
    steps, win, loss = 0.0, 0.0, 0.0
    gather = graph.landings.gather
    for first, last in reversed(grid.reads):
        together, starts = grid.together(first, last)
        # each kernel's chance at the layers' points, pushed down once they are all known
        summed = np.empty((gather.shape[0], len(together)))
        for number in range(last - 1, first - 1, -1):
            points, at = grid.layers[number], starts[number - first]
            flow = _layer_flow(graph, grid, number, arriving, roots, layer_of, column_of,
                               mixes, tolerance, max_sweeps, units, visits)
            steps += flow.steps
            ended = flow.inflow[graph.terminal].sum(axis=1)
            win += float(ended[ending > 0].sum())
            loss += float(ended[ending < 0].sum())
            counter_sums.times(gather, flow.pairs, summed[:, at:at + len(points)], add=False)
        _feed(graph, grid, together, summed, arriving)
    depleted = arriving[:, grid.column[grid.size:]].sum(axis=0)
    return (win + float(depleted[payoffs > 0].sum()), loss + float(depleted[payoffs < 0].sum()),
            steps)


def _layer_flow(graph: CoreGraph, grid: Grid, number: int, arriving: np.ndarray,
                roots: list, layer_of: np.ndarray, column_of: np.ndarray, mixes: dict,
                tolerance: float, max_sweeps: int, units: np.ndarray,
                visits: tuple | None) -> _Flow:
    """The play at layer ``number``, from what arrives there and the roots in it."""
    points = grid.layers[number]
    inflow = np.zeros((graph.size, len(points)))
    inflow[graph.landing] = arriving[:, grid.span(points)]
    for p, core, point in roots:
        if layer_of[point] == number:
            inflow[core, column_of[point]] += p
    flow = _Flow(graph, points, mixes, inflow, tolerance, max_sweeps, units, visits)
    for block in reversed(graph.blocks):
        flow.block(block)
    return flow


def _feed(graph: CoreGraph, grid: Grid, points: np.ndarray, summed: np.ndarray,
          arriving: np.ndarray) -> None:
    """Add to ``arriving`` (landing cores, ``Grid.column``; the depleted columns in row
    0) the chance that the pairs lower a counter into each landing core, from each
    kernel's chance at ``points`` (``summed``: ``_Landings.gather`` times the chance of
    playing each pair)."""
    land = graph.landings
    windows = _Windows.of(grid, points, graph.moves)
    dead = counter_sums.push_forward(summed, arriving, *land.sums(), *windows.sums(),
                                     grid.size)
    if len(arriving):  # no landing core (no move lowers a counter): nothing depletes
        arriving[0, grid.column[grid.size:]] += dead.sum(axis=0)


class _Flow:
    """The chance of play at one layer's points, pushed block by block in the order
    play goes (predecessors first): ``pairs`` (pairs, points) of playing each joint
    action (every row is written: each part is pushed once); ``inflow`` collects what
    reaches the cores not yet done. As each part's chance of being at its cores is
    known, the expected number of ``units`` opened is added to ``steps``, and
    ``visits`` (see ``_play``) are filled."""

    def __init__(self, graph: CoreGraph, points: np.ndarray, mixes: dict,
                 inflow: np.ndarray, tolerance: float, max_sweeps: int,
                 units: np.ndarray, visits: tuple[np.ndarray, np.ndarray] | None):
        self.graph, self.points, self.inflow = graph, points, inflow
        self.tolerance, self.max_sweeps = tolerance, max_sweeps
        self.units, self.visits, self.steps = units, visits, 0.0
        self.pairs = np.empty((len(graph.pair_core), len(points)))
        #: player -> (slots + 1, points) the mixes at the layer's points, by slot (see
        #: ``_Part.slots``), then a row of ones
        self.mixes = {player: np.vstack([mix[points].T, np.ones(len(points))])
                      for player, mix in mixes.items()}

    def weights(self, part: _Part) -> np.ndarray:
        """The probability of each of the part's pairs under the mixes (pairs, points)."""
        return self.mixes["a"][part.slots["a"]] * self.mixes["b"][part.slots["b"]]

    def push(self, part: _Part, mass: np.ndarray) -> None:
        """The part's cores hold ``mass``: play their pairs (``weights``, in one pass)
        and pass it on."""
        self._count(part.cores, mass)
        counter_sums.play(np.ascontiguousarray(mass), part.owner, part.pairs,
                          part.slots["a"], part.slots["b"], self.mixes["a"], self.mixes["b"],
                          self.pairs)
        counter_sums.times(part.feeds, self.pairs[:part.feeds.shape[1]], self.inflow, part.targets)

    def _count(self, cores: np.ndarray, mass: np.ndarray) -> None:
        self.steps += float(mass[self.units[cores]].sum())
        if self.visits is None:
            return
        reach, seen = self.visits
        seen[cores] += mass.sum(axis=1)
        chosen = self.graph.chooses[cores]
        if chosen.any():
            reach[self.points[:, None], self.graph.chooser[cores[chosen]]] = mass[chosen].T

    def block(self, block: _Block) -> None:
        if not block.cyclic:
            part, = block.parts
            self.push(part, self.inflow[part.cores])
        elif block.reduced is None or not self.reduced(block.reduced):
            self.cyclic(block)

    def reduced(self, reduced: _Reduced) -> bool:
        """A cyclic block through its choice cores: what reaches them, directly or
        through the block's chance steps, solved at every point at once; then the
        chance steps in play order. False if play there may never end (singular)."""
        head = reduced.choice
        chance = np.concatenate([part.cores for part in reduced.chance])
        weight = self.weights(head)
        arrive = self.inflow[head.cores] + reduced.routes.T @ self.inflow[chance]
        step = _steps(reduced, weight)
        found = _solve_points(np.eye(len(head.cores)) - step.transpose(0, 2, 1), arrive.T)
        if found is None:
            return False
        self.push(head, found.T)
        for part in reversed(reduced.chance):
            self.push(part, self.inflow[part.cores])
        return True

    def cyclic(self, block: _Block) -> None:
        """A cyclic block by sweeps: each core holds what reaches it from outside plus
        what its predecessors in the block pass on, until nothing moves."""
        graph = self.graph
        local = np.full(graph.size, -1)
        local[block.cores] = np.arange(len(block.cores))
        outside = self.inflow[block.cores].copy()
        parts = [(part, self.weights(part)) for part in block.parts]
        mass = np.zeros_like(outside)

        def update(_) -> None:
            passed = np.zeros((graph.size, outside.shape[1]))
            for part, weight in parts:
                passed[part.targets] += part.inflow @ (mass[local[part.cores]][part.owner]
                                                       * weight)
            mass[:] = outside + passed[block.cores]

        sweep(_Schedule([(np.arange(len(block.cores)), True)]), mass, update,
              self.tolerance, self.max_sweeps, "the chances of each ending")
        for part, _ in parts:
            self.push(part, mass[local[part.cores]])


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


def _solve_layer(graph: CoreGraph, grid: Grid, points: np.ndarray, reading: tuple,
                 mixes: dict, record: _Record, tolerance: float, max_sweeps: int,
                 rule: StageRule) -> np.ndarray:
    """The value (cores, points) of every core at ``points``, one layer, each stage
    settled by ``rule``; the mixes are written into ``mixes``. ``reading`` is what the
    steps that lower a counter bring at ``points`` (``_lowered``), the landing cores'
    values by point (earlier layers filled) and the terminal cores' payoffs (as the
    rule scores them)."""
    known, landed, ends = reading
    layer = np.zeros((graph.size, len(points)))
    layer[graph.terminal] = ends[:, None]

    def stage_values(part: _Part) -> np.ndarray:
        return counter_sums.times(part.zero, layer, counter_sums.times(part.lowering, known))

    def values_in_place(part: _Part) -> np.ndarray:
        """The values of the part's cores of one joint action written into ``layer``;
        returns the other pairs' continuation (the rows of the single ones unset)."""
        if not part.apart:
            continuation = stage_values(part)
            for group in part.groups:
                if group.single:
                    layer[part.cores[group.members]] = continuation[group.pairs[:, 0, 0]]
            return continuation
        (zero, lowering), cores = part.forced, part.forced_cores
        counter_sums.times(lowering, known, layer, cores, add=False)
        counter_sums.times(zero, layer, layer, cores)
        continuation = np.empty((len(part.pairs), len(points)))
        if len(part.chosen):
            zero, lowering = part.chosen_steps
            counter_sums.times(lowering, known, continuation, part.chosen, add=False)
            counter_sums.times(zero, layer, continuation, part.chosen)
        return continuation

    def solve_part(part: _Part, continuation: np.ndarray) -> None:
        for group in part.groups:
            layer[part.cores[group.members]] = _stage(rule.values, group, continuation,
                                                      points)

    def solve(block: _Block) -> None:
        for part in block.parts:
            solve_part(part, stage_values(part))

    def chance_values(reduced: _Reduced) -> None:
        for part in reduced.chance:
            values_in_place(part)

    def solve_reduced(block: _Block) -> None:
        """Value iteration on the choice cores only, then their final mixes. A
        contracting block first takes policy-evaluation steps (Newton's method on the
        piecewise-linear fixed point): its sweeps then only confirm it, and each also
        settles the stage games (the last one's mixes are kept: those of the games
        whose values it wrote, within the tolerance of the fixed point), so one sweep
        usually does both."""
        reduced = block.reduced
        head = reduced.choice
        chance_values(reduced)          # with every choice core still at 0
        base = stage_values(head)

        def continuation() -> np.ndarray:
            return base + reduced.links @ layer[head.cores]

        if reduced.contracting:
            # any start reaches the one fixed point: the neighbour a few hit points down
            # is close, and its mixes usually already the right ones
            layer[head.cores] = _neighbour_values(graph, grid, points, landed, head.cores)
        for _ in range(NEWTON_STEPS if reduced.contracting else 0):
            weight, extra = _mix_weights(head, continuation(), points, rule)
            found = _policy_values(reduced, weight, base, extra)
            if found is None:
                break
            moved = np.max(np.abs(found - layer[head.cores]), initial=0.0)
            layer[head.cores] = found
            if moved <= tolerance:
                break
        schedule = _Schedule([(head.cores, True)])
        if reduced.contracting:
            record.add(sweep(schedule, layer, lambda _: _settle(
                head, continuation(), points, mixes, rule, layer), tolerance, max_sweeps,
                "the value"))
        else:   # many sweeps from 0: each only values the games, then one settles them
            record.add(sweep(schedule, layer, lambda _: solve_part(head, continuation()),
                             tolerance, max_sweeps, "the value"))
            _settle(head, continuation(), points, mixes, rule)
        chance_values(reduced)

    for block in graph.blocks:
        if not block.cyclic:
            # one stage solve per core gives value and mixes at once; the block's cores
            # depend on earlier blocks only
            part, = block.parts
            _settle(part, values_in_place(part), points, mixes, rule, layer, singles=False)
        elif block.reduced is not None:
            solve_reduced(block)
        else:
            schedule = _Schedule([(block.cores, block.cyclic)])
            record.add(sweep(schedule, layer, lambda _, b=block: solve(b), tolerance,
                             max_sweeps, "the value"))
            for part in block.parts:
                _settle(part, stage_values(part), points, mixes, rule)
    return layer


def _stage(method: Callable, group: _Group, continuation: np.ndarray,
           points: np.ndarray) -> np.ndarray:
    """(k, points) what a rule's ``method`` makes of the group's stage games; a stage
    with one joint action is worth its continuation whatever the rule."""
    games = continuation[group.pairs]                      # (k, r, c, L)
    if games.shape[1] * games.shape[2] == 1:
        return games[:, 0, 0]
    return method(games, group.places, points)


def _neighbour_values(graph: CoreGraph, grid: Grid, points: np.ndarray, landed: np.ndarray,
                      cores: np.ndarray) -> np.ndarray:
    """(cores, points) the values of ``cores`` at each point's neighbour below its layer
    (``Grid.lowered``, solved at the layer before), where both are known; 0 elsewhere."""
    guess = np.zeros((len(cores), len(points)))
    position = np.searchsorted(graph.landing, cores)
    known = (position < len(graph.landing)) & (
        graph.landing[np.minimum(position, len(graph.landing) - 1)] == cores)
    below = grid.lowered(points)
    live = below >= 0
    if not (known.any() and live.any()):
        return guess
    guess[np.ix_(known, live)] = landed[np.ix_(position[known], grid.column[below[live]])]
    return guess


def _steps(reduced: _Reduced, weight: np.ndarray) -> np.ndarray:
    """(points, cores, cores): at each point, the chance that a choice core's play (its
    pairs with probability ``weight`` (pairs, points)) next reaches each choice core of
    the reduced block, through its links: one product with ``_Reduced.steps``."""
    cores = len(reduced.choice.cores)
    return (reduced.steps @ weight).reshape(cores, cores, -1).transpose(2, 0, 1)


def _policy_values(reduced: _Reduced, weight: np.ndarray, constant: np.ndarray,
                   extra: np.ndarray | None = None) -> np.ndarray | None:
    """The values x (cores, points) of a reduced block's choice cores when each plays
    its pairs with probability ``weight`` (pairs, points) and gains ``extra`` (cores,
    points; none if None) besides: at every point x = M (constant + links x) + extra, M
    the weights summed per core; one linear solve per point. None where play under the
    weights may never end (singular)."""
    part = reduced.choice
    mixed = np.add.reduceat(weight * constant, part.offsets, axis=0)
    if extra is not None:
        mixed = mixed + extra
    found = _solve_points(np.eye(len(part.cores)) - _steps(reduced, weight), mixed.T)
    return None if found is None else found.T


def _solve_points(matrices: np.ndarray, right: np.ndarray) -> np.ndarray | None:
    """Solutions of matrices[i] x = right[i] (points, n); None if one is singular or
    the answer is not finite."""
    try:
        found = np.linalg.solve(matrices, right[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:
        return None
    return found if np.all(np.isfinite(found)) else None


def _mix_weights(part: _Part, continuation: np.ndarray, points: np.ndarray,
                 rule: StageRule) -> tuple[np.ndarray, np.ndarray | None]:
    """The probability of each of the part's pairs (pairs, points) under the rule's play
    of its stage games (for a policy-evaluation step), and what that play adds to each
    core's value besides (cores, points; None: nothing)."""
    width = continuation.shape[1]
    weight = np.ones((len(part.pairs), width))
    extra = None
    for group in part.groups:
        games = continuation[group.pairs]
        k, r, c, _ = games.shape
        if r * c > 1:
            row, col, added = rule.play(games, group.places, points)
            counter_sums.joint(weight, group.pairs, row, col)
            if added is not None:
                extra = np.zeros((len(part.cores), width)) if extra is None else extra
                extra[group.members] = added
    return weight, extra


def _lowered(graph: CoreGraph, grid: Grid, points: np.ndarray, landed: np.ndarray
             ) -> np.ndarray:
    """What the steps that lower a counter bring at ``points``, known from earlier
    layers (``landed``: the landing cores' rows of the solution's table,
    ``Grid.column``), per kernel (kernels, points; a pair's is the sum of its kernels',
    ``_Part.lowering``)."""
    windows = _Windows.of(grid, points, graph.moves)
    return counter_sums.read_back(landed, *graph.landings.sums(), *windows.sums(), grid.size)


def _targets(moves: list[_Move], grid: Grid, points: np.ndarray) -> np.ndarray:
    """(moves, points): the flat point each move leads to from ``points``."""
    if not moves:
        return np.zeros((0, len(points)), dtype=np.int64)
    return grid.shifted(points, np.stack([move.decrement for move in moves]))


def _settle(part: _Part, continuation: np.ndarray, points: np.ndarray, mixes: dict,
            rule: StageRule, values: np.ndarray | None = None, singles: bool = True) -> None:
    """The rule's final mixes of the part's cores at ``points``, written into ``mixes``;
    with ``values`` (cores, points) the stage games' values are written there too (not
    those of single joint actions unless ``singles``)."""
    for group in part.groups:
        if group.single and not (singles and values is not None):
            continue
        found = _stage(lambda *stage: rule.settle(*stage, mixes), group, continuation,
                       points)
        if values is not None:
            values[part.cores[group.members]] = found
