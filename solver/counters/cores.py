"""A counter game's cores (its states without their counters), explored once: the walk
through ``core_transitions`` (or the game's own ``cores()``), the steps that change no
counter and those that lower one (factored into kernels, ``Landings``), and the blocks
of cores in dependency order with their stage shapes (``Block``, ``Part``, ``Group``,
``Reduced``)."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain

import numpy as np

from .. import state_table
from ..errors import InputError
from ..game import Game, State
from ..markov.graph import dependency_order, heights, ranges
from ..sparse import sp
from .grid import Grid, Move

# the compiled passes (``outcomes``, ``sums``: numba) are imported where they run, so
# that a solution read back from the answer store loads without numba

#: a cyclic block contracts when no joint action stays in it with more than this
#: close to certainty (a chance of leaving under 1e-9 would need too many sweeps anyway)
CONTRACTION_MARGIN = 1e-9


@dataclass
class Group:
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
class Part:
    """Cores updated together: their pairs, core by core, with the zero-decrement
    transitions of those pairs (pairs, N), the kernels their lowering steps add up to
    (pairs, kernels: ``Landings.spread``'s rows) and the stage shapes."""

    cores: np.ndarray
    pairs: np.ndarray
    zero: sp.csr_matrix
    lowering: sp.csr_matrix
    groups: list[Group]
    offsets: np.ndarray    # where each core's pairs start in ``pairs``

    def __post_init__(self):
        #: the cores the pairs' steps that change no counter lead to, and those steps
        #: (targets, pairs), for pushing the chance of play forward
        self.targets = _sorted_set(self.zero.indices)
        self.inflow = self.zero[:, self.targets].T.tocsr()
        #: the same steps read from the flow's pairs (``solver.counters.flow``; its
        #: columns: the pairs themselves, up to the part's last)
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
class Block:
    """A strongly connected component of the zero-decrement graph (or a set of acyclic
    cores at one height); a cyclic block is swept part by part, successors first."""

    cores: np.ndarray
    cyclic: bool
    parts: list[Part]
    reduced: Reduced | None = None


@dataclass
class Reduced:
    """A cyclic block seen from its choice cores: when the chance cores between them
    are acyclic and have one joint action each, their values are affine in the choice
    cores' values ``x``, and the choice cores' stage games are ``base + links @ x``
    with ``links`` the same at every counter value. Value iteration then sweeps the
    choice cores only, and the statistics under fixed mixes are one linear solve."""

    choice: Part
    chance: list[Part]      # successors first
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
class Landings:
    """The steps that lower a counter, factored for a layer: a pair's outcomes that
    reach one core form a little distribution over decrements, and many pairs share
    the same one (the same dice into the same next core). Each distinct one is kept
    once, as a kernel: its landing core (a position in ``CoreGraph.landing``) and its
    entries (a move, a probability; ``bounds``: where each kernel's entries start);
    ``spread`` (pairs, kernels) adds them up per pair. So a layer sums each distinct
    distribution once, instead of once per outcome (``solver.counters.sums``)."""

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
        from . import sums as counter_sums
        self.gather = self.spread.T.tocsr()   # (kernels, P)
        #: batches of whole landing cores, summed in parallel
        self.cuts = counter_sums.batches(self.landing, self.bounds)

    def sums(self) -> tuple:
        """The kernels' arrays as ``solver.counters.sums`` takes them."""
        return (self.landing, self.bounds, self.move, self.prob, self.tails, self.reach,
                self.at, self.cuts)


@dataclass
class CoreGraph(state_table.PicklesStatesAsTable):
    """The states of a counter game without their counters, and their transitions
    split into those that change no counter (``zero``) and the rest (``moves``: the
    decrement vectors; ``landings``: the outcomes factored into kernels, from which
    ``move_matrices`` rebuilds one sparse matrix per decrement vector when asked)."""

    cores: list[State]
    index: dict[State, int]
    mask_a: np.ndarray
    mask_b: np.ndarray
    pair_core: np.ndarray
    pair_a: np.ndarray
    pair_b: np.ndarray
    pair_slices: np.ndarray
    zero: sp.csr_matrix                                  # (P, N)
    moves: list[Move]
    landing: np.ndarray    # the cores some decrement leads to
    landings: Landings
    blocks: list[Block]
    terminal: np.ndarray   # (N,) cores that end the game whatever the counters
    payoff: np.ndarray     # (N,) their payoff to A (0 elsewhere)
    _unit_starts: np.ndarray | None = field(default=None, repr=False, compare=False)
    _by_move: list[sp.csr_matrix] | None = field(default=None, repr=False, compare=False)
    STATES = "cores"

    def __getstate__(self) -> dict:
        kept = super().__getstate__()
        kept.pop("_by_move", None)   # rebuilt from the kernels when asked again
        return kept

    def move_rows(self, pairs: np.ndarray) -> list[sp.csr_matrix]:
        """The rows ``pairs`` of each move's transitions (``move_matrices``), rebuilt from
        the kernels (``landings``): a pair's kernels, by landing core, give its entries
        as its outcomes come, and duplicates are added up in that order."""
        kernels = self.landings
        spread = kernels.spread
        used = spread.indices[ranges(spread.indptr, pairs)]
        sizes = kernels.bounds[used + 1] - kernels.bounds[used]
        entries = ranges(kernels.bounds, used)
        owner = np.repeat(np.repeat(np.arange(len(pairs)), np.diff(spread.indptr)[pairs]),
                          sizes)
        core = np.repeat(self.landing[kernels.landing[used]], sizes)
        chance, move = kernels.prob[entries], kernels.move[entries]
        order = np.argsort(move, kind="stable")
        cuts = np.searchsorted(move[order], np.arange(len(self.moves) + 1))
        shape = (len(pairs), self.size)
        rows = []
        for at in (order[lo:hi] for lo, hi in zip(cuts[:-1], cuts[1:], strict=True)):
            indptr = np.concatenate([[0], np.cumsum(np.bincount(owner[at],
                                                                minlength=shape[0]))])
            rows.append(_matrix(chance[at], core[at], indptr, shape))
        return rows

    def move_matrices(self) -> list[sp.csr_matrix]:
        """The transitions of each move of ``moves`` as a sparse matrix (pairs, cores):
        each pair's chance of landing on each core by that decrement. Rebuilt from the
        kernels (``landings``) when first asked, since few answers need them (a value
        rebuilt state by state, training), and never kept with the graph: a level-5
        duel's took 300 MB to build and to write."""
        if self._by_move is None:
            self._by_move = self.move_rows(np.arange(len(self.pair_core)))
        return self._by_move

    @property
    def size(self) -> int:
        return len(self.cores)

    def unit_starts(self, game: Game, top: tuple) -> np.ndarray:
        """(cores,) bool: the live cores that open one of the game's length units (the
        game says so whatever the counters hold: asked at ``top``, the grid's start);
        asked once per graph: every play pushed forward on it counts the length."""
        if self._unit_starts is None:
            self._unit_starts = np.fromiter(
                (not dead and game.starts_unit(game.attach(core, top))
                 for core, dead in zip(self.cores, self.terminal.tolist(), strict=True)),
                dtype=bool, count=self.size)
        return self._unit_starts

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


_CORES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def explore(game: Game, starts: list[tuple[float, State]] | None = None
            ) -> tuple[CoreGraph, Grid, list[tuple[float, int, int]]]:
    """The core graph from ``starts`` (the game's initial outcomes unless given), the
    grid up to their counters, and the roots as ``(probability, core, flat point)``;
    from the initial outcomes explored once per game (the size check of
    ``solver.markov.graph`` and the solution both need it)."""
    if starts is not None:
        return _explore(game, starts)
    found = _CORES.get(game)
    if found is None:
        found = _CORES[game] = _explore(game)
    return found



#: the most states a counter game may spell out one by one (its cores times its counter
#: values bound them; beyond, exploring takes many minutes and gigabytes)
MAX_COUNTED_STATES = 5_000_000


def counted_bound(game: Game) -> tuple[int, tuple[int, ...]]:
    """A counter game's cores times its counter values (a bound on its states), and
    the counters' values at the start."""
    cores, grid, _ = explore(game)
    return cores.size * grid.size, grid.top


def fits_state_graph(game: Game) -> bool:
    """Whether a counter game's states may be held one by one: its bound is at most
    ``MAX_COUNTED_STATES``."""
    return counted_bound(game)[0] <= MAX_COUNTED_STATES


def require_states(game: Game) -> None:
    """Refuse, in words and before any work, a counter game too large to hold state by
    state: its answers (``solver.solve_game``, against a fixed policy) cover every
    counter value at once, but training and a table of every state go state by
    state."""
    bound, top = counted_bound(game)
    if bound <= MAX_COUNTED_STATES:
        return
    held = " and ".join(str(int(value)) for value in top)
    raise InputError(
        f"this duel is too large to take situation by situation (training, a profile's "
        f"table of every situation): with its counters at {held} it has up to {bound:,} "
        f"situations, more than the {MAX_COUNTED_STATES:,} that fit here. `duel solve` "
        "and `duel odds` still answer it whole; a shorter duel fits (lower hit points or "
        "fewer beats, or a duel that ends sooner)")

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
    #: (N, fields) int64 the cores as one table, where the walk made them from one: a
    #: graph kept in the answer store pickles it as it is (``solver.state_table``)
    table: np.ndarray | None = None


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


def _declared(game: Game, starts: list[tuple[float, State]]) -> CoreWalk | None:
    """The cores the declared fast path gives (those reachable from the game's start),
    when they hold every core of ``starts``: the same cores and outcomes the walk would
    find, and a few it would not (unreachable from ``starts``: their values, solved for
    nothing, change none of the others), in seconds where the walk takes minutes."""
    found = game.cores()
    known = set(found.cores)
    return found if all(game.core(state) in known for _, state in starts) else None


def _explore(game: Game, given: list[tuple[float, State]] | None = None
             ) -> tuple[CoreGraph, Grid, list[tuple[float, int, int]]]:
    starts = game.initial_outcomes() if given is None else given
    found = _declared(game, starts) if game.info.has("cores") else None
    if found is None:
        found = walk(game, given)
    cores = found.cores
    index = state_table.index_of(cores)
    shape = (len(found.pair_core), len(cores))
    zero, lowering = _split(game, found, shape)
    # every step that lowers a counter lowers their sum by this much or more
    band = int(lowering.decrements.sum(axis=1).min()) if len(lowering.decrements) else 1
    grid = Grid(_top(game, starts), band)
    roots = [(p, index[game.core(s)], grid.flat(game.counters(s))) for p, s in starts]
    slices = np.searchsorted(found.pair_core, np.arange(shape[1] + 1)).astype(np.int64)
    graph = CoreGraph(cores, index, found.mask_a, found.mask_b, found.pair_core,
                      found.pair_a, found.pair_b, slices, zero,
                      [Move(decrement) for decrement in lowering.decrements],
                      lowering.landing, _factor(lowering, shape[0], grid), [],
                      found.terminal, found.payoff)
    graph.blocks = _blocks(graph)
    if found.table is not None:
        graph.packed_as(found.table)
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
        from . import outcomes as counter_outcomes
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
    from . import outcomes as counter_outcomes
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
            shape: tuple[int, int]) -> sp.csr_matrix:
    """A CSR matrix from rows in order, duplicates summed and columns sorted within each
    row as ``csr_matrix((data, (rows, columns)))`` does (both keep each row's entries
    in order, then sort and add up the same way)."""
    matrix = sp.csr_matrix((data, indices, indptr), shape=shape)
    matrix.sum_duplicates()
    return matrix


def _factor(low: _Lowering, pairs: int, grid: Grid) -> Landings:
    """The lowering outcomes factored into distinct kernels (see ``Landings``); the
    sums are the same terms regrouped."""
    from . import outcomes as counter_outcomes
    from . import sums as counter_sums
    starts, bits = low.runs, low.probs.view(np.uint64)
    kernel, first = counter_outcomes.distinct(starts, low.targets, low.moves, bits)
    # the kernels by landing core (``solver.counters.sums`` sums them core by core)
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
    return Landings(spread, landing, bounds, move, prob, tails, reach, at)


def _blocks(graph: CoreGraph) -> list[Block]:
    """The zero-decrement graph's strongly connected components in dependency order
    (``solver.markov.graph``'s schedule, with no terminal core), each with its stage shapes."""
    schedule = dependency_order(graph.terminal, graph.pair_core, graph.zero,
                         graph.pair_slices, graph.size)
    blocks = []
    for cores, cyclic in schedule:
        parts = [_part(graph, members) for members in _sweep_order(graph, cores, cyclic)]
        blocks.append(Block(cores, cyclic, parts, _reduce(graph, cores, parts)))
    return blocks


def _part(graph: CoreGraph, members: np.ndarray) -> Part:
    pairs = ranges(graph.pair_slices, members)
    counts = np.diff(graph.pair_slices)[members]
    return Part(members, pairs, graph.zero[pairs], graph.landings.spread[pairs],
                 _groups(graph, members), np.cumsum(counts) - counts)


def _reduce(graph: CoreGraph, cores: np.ndarray, parts: list[Part]) -> Reduced | None:
    """The block from its choice cores (see ``Reduced``), or None where it does not
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
    return Reduced(head, chance_parts, links, routes, staying < 1.0 - CONTRACTION_MARGIN)


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
    from scipy.sparse.csgraph import connected_components  # 0.25 s to load: when used
    count, _ = connected_components(successor, directed=True, connection="strong")
    if count < len(cores) or np.any(source[kept] == target[kept]):
        return [cores]
    height = heights(successor)
    return [cores[height == level] for level in range(int(height.max()) + 1)]


def _groups(graph: CoreGraph, cores: np.ndarray) -> list[Group]:
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
        groups.append(Group(members, pairs, row_actions, col_actions, places))
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


def choice_steps(reduced: Reduced, weight: np.ndarray) -> np.ndarray:
    """(points, cores, cores): at each point, the chance that a choice core's play (its
    pairs with probability ``weight`` (pairs, points)) next reaches each choice core of
    the reduced block, through its links: one product with ``Reduced.steps``."""
    from .sums import times  # numba: compiled only where a counter game is solved
    cores = len(reduced.choice.cores)
    return times(reduced.steps, weight).reshape(cores, cores, -1).transpose(2, 0, 1)
