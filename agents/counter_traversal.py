"""The self-play traversal of ``agents.selfplay``, compiled, for games that declare the
``counters`` fast path (``solver.counters``).

Such a game's states are a core (the state without its hit points) and a point of the
grid of counter values; its transitions are the core graph's, the same at every point.
Pathfinder's knockout duel has 15.5 million states that way, of which 45,290 cores are
the rolls within a turn: one joint action each. The Python traversal spends about
0.1 ms on a state; this one about 2 us (a traversal there expands about 3,700 states
and reads the last values of some 135,000 outcomes in about 7 ms), so the same
algorithm makes about 60 steps a second where it made one every 5 s.

The algorithm is exactly ``SelfPlay._traverse``'s (see its module): a depth-first
traversal that expands each state once per step, tries every legal action of the
traverser, draws the opponent's once per state (with the same exploration and
importance weight) and chance once per joint action, corrects both draws by the
baselines, cuts cycles at a state still being expanded by its last value, and returns
the visits that ``SelfPlay._learn`` turns into regrets. Only the data layout differs:

- a state is the integer ``core * points + point``; its memo and its "being expanded"
  mark live in arrays stamped by traversal, so nothing is cleared between steps;
- the rows of a state where someone chooses are given when the state is first
  expanded, for both players at once as the Python trainer does, and named by their
  observations after the traversal (``CounterTraversal.name_rows``);
- the last value of every state, the baseline the states before it read, is kept in
  one array per player: a state with one joint action (a chance state) learns nothing,
  so its value lives there and not in a table row; a choosing state's is its table
  row's, copied there after each learning step (``remember``); an ended one's is its
  payoff. One array makes that read branch-free: the traversal reads about 270,000 of
  them a step, at random, and a branch per read kept the processor from overlapping
  them (77 ms a step against 17 ms);
- the random numbers come from a SplitMix64 stream seeded from the trainer's generator
  once per traversal, so a run is reproducible and resumable from its seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import scipy.sparse as sp

from solver.counters import explore
from solver.errors import InputError
from solver.game import PLAYERS, Game

from .regrets import RegretTable

#: a traversal deeper than this many states (the cycles are cut, so the depth is at most
#: a duel's longest path) is refused rather than grown
MAX_DEPTH = 1 << 16
#: states the arrays of a traversal may cover: about 50 bytes each
MAX_STATES = 200_000_000

_U = np.uint64


@dataclass
class Visits:
    """The states where the traverser chose, as ``SelfPlay._learn`` takes them: each
    one's table row, action values, own mix and value."""

    rows: np.ndarray
    q: np.ndarray
    mix: np.ndarray
    total: np.ndarray


class CounterTraversal:
    """A counter game's core graph laid out for the compiled traversal, and the arrays
    the traversal keeps between steps (memo, marks, rows, every state's last value)."""

    def __init__(self, game: Game):
        graph, grid, roots = explore(game)
        self.game, self.graph, self.grid = game, graph, grid
        points, cores = grid.size, graph.size
        if points * cores > MAX_STATES:
            raise InputError(f"{game.info.system}: {points * cores:,} states are too many "
                             f"to train on (at most {MAX_STATES:,}); lower the hit points")
        self.points = points
        self.roots = roots
        self.depleted = np.array([float(game.payoff(game.depleted(k)))
                                  for k in range(len(grid.top))])
        moves = [np.zeros(len(grid.top), np.int64)] + [m.decrement for m in graph.moves]
        every = np.arange(points)
        self.shift = np.stack([grid.shifted(every, d) for d in moves]).astype(np.int32)
        steps = sp.hstack([graph.zero, *graph.move_matrices()], format="csr")
        steps.sort_indices()
        self.out_start = steps.indptr.astype(np.int64)
        # an outcome's landing core and move in one int32 (the outcome arrays are read
        # at random, pair by pair: their size is what a traversal waits for)
        self.bits = max(1, (len(moves) - 1).bit_length())
        core, move = steps.indices % cores, steps.indices // cores
        self.out_code = ((core << self.bits) | move).astype(np.int32)
        self.out_prob = _normalised(steps.data, self.out_start)
        self.kinds = np.where(graph.terminal, _ENDS,
                              np.where(graph.chooses, _CHOICE, _CHANCE)).astype(np.int8)
        if cores << self.bits >= 1 << 31:
            raise InputError(f"{game.info.system}: too many cores to train on ({cores:,})")
        self.pair_start = graph.pair_slices.astype(np.int64)
        self.choosing = np.flatnonzero(graph.chooses)
        n = len(game.info.action_names)
        self.pair_of = np.full((len(self.choosing), n, n), -1, np.int64)
        for place, core in enumerate(self.choosing):
            pairs = np.arange(graph.pair_slices[core], graph.pair_slices[core + 1])
            self.pair_of[place, graph.pair_a[pairs], graph.pair_b[pairs]] = pairs
        states = points * cores
        self.rowmap = np.full(len(self.choosing) * points, -1, np.int64)
        self.rows = 0
        self.fresh = np.empty(len(self.choosing) * points, np.int64)
        self.mark = np.zeros(states, np.int64)
        self.memo = np.zeros(states)
        self.row_state = np.empty(len(self.rowmap), np.int64)
        self.last_values = np.zeros((2, states))
        self.clear_values()
        self.closed = np.empty(states, np.int64)
        self.stamp = 0
        self.stack = _Stack(n)
        self._warm_up()

    def _warm_up(self) -> None:
        """Compile the traversal (some 10 s, once: numba caches it) with one traversal
        over throwaway tables, then forget it, so that no training time is spent
        compiling. The marks need no reset: they are stamped by traversal."""
        tables = tuple(RegretTable(len(self.game.info.action_names)) for _ in PLAYERS)
        for table in tables:
            table.reserve(self.capacity)
        self.traverse(0, tables, seed=0, root=0, exploration=0.0, baseline_rate=1.0)
        self.rowmap[:] = -1
        self.rows = 0
        self.clear_values()

    @property
    def capacity(self) -> int:
        """Rows the tables must hold: one per choosing core and point."""
        return len(self.rowmap)

    def traverse(self, me: int, tables: tuple[RegretTable, RegretTable], seed: int,
                 root: int, exploration: float, baseline_rate: float) -> Visits:
        """One traversal for ``me`` from root ``root`` (an index of ``roots``)."""
        graph, them = self.graph, 1 - me
        self.stamp += 1
        rng = np.array([seed], dtype=_U)
        counts = np.zeros(3, np.int64)   # visits, new rows, rows in use
        counts[2] = self.rows
        out = _Out(self.capacity, tables[me].n)
        _, core, point = self.roots[root]
        _traverse(me, core, point, self.stamp, rng,
                  (self.points, self.shift, self.depleted, self.pair_start,
                   self.pair_of, self.out_start, self.out_code, self.out_prob,
                   self.kinds, graph.payoff, graph.chooser, self.bits, graph.mask_a,
                   graph.mask_b),
                  self.rowmap, self.fresh,
                  (tables[0].masks, tables[1].masks),
                  (tables[me].regrets, tables[me].baselines),
                  tables[them].regrets, exploration, baseline_rate, self.mark, self.memo,
                  self.last_values[me], self.closed, self.stack.arrays(),
                  (out.rows, out.q, out.mix, out.total), counts)
        fresh = self.fresh[:counts[1]]
        self.name_rows(tables, fresh)
        self.row_state[self.rows:counts[2]] = fresh
        self.rows = int(counts[2])
        visited = counts[0]
        return Visits(out.rows[:visited], out.q[:visited], out.mix[:visited],
                      out.total[:visited])

    def remember(self, side: int, table: RegretTable, rows: np.ndarray) -> None:
        """Copy the values ``_learn`` just gave ``rows`` of ``side``'s table to their
        states' last values."""
        self.last_values[side, self.row_state[rows]] = table.values[rows]

    def clear_values(self) -> None:
        """Every state's last value back to 0, but an ended core's: its payoff."""
        self.last_values[:] = 0.0
        ended = np.flatnonzero(self.kinds == _ENDS)
        states = (ended[:, None] * self.points + np.arange(self.points)).ravel()
        payoffs = np.repeat(self.graph.payoff[ended], self.points)
        self.last_values[0, states], self.last_values[1, states] = payoffs, -payoffs

    def name_rows(self, tables: tuple[RegretTable, RegretTable], states: np.ndarray) -> None:
        """Give the tables' rows taken by ``states`` (in order) their observations."""
        for state in states.tolist():
            full = self._state(*divmod(state, self.points))
            for side, player in enumerate(PLAYERS):
                table = tables[side]
                expected = table.size
                mask = table.masks[expected].copy()
                row = table.row(self._observation(full, player), mask, None)
                if row != expected:
                    raise InputError(f"{self.game.info.system}: two states share the "
                                     f"observation {table.observations[row]} of {player}; "
                                     "the compiled traversal needs one state per observation")

    def restore(self, tables: tuple[RegretTable, RegretTable],
                chance: tuple[np.ndarray, np.ndarray] | None) -> None:
        """Take ``tables`` (new, or read back from a checkpoint): room for every row, their
        rows found, and the chance states' values put back (``chance``: states and both
        players' values; 0 elsewhere)."""
        for table in tables:
            table.reserve(self.capacity)
        self.rowmap[:] = -1
        self.clear_values()
        if chance is not None:
            kept = self.kinds[chance[0] // self.points] == _CHANCE
            self.last_values[:, chance[0][kept]] = chance[1][:, kept]
        index, theirs = tables[0].index, tables[1].index
        for place, core in enumerate(self.choosing if index else []):
            for point in range(self.points):
                full = self._state(core, point)
                if self._point(full) != point:
                    continue   # never reached: attach gave another point's state
                row = index.get(self._observation(full, "a"))
                if row is None:
                    continue
                if theirs.get(self._observation(full, "b")) != row:
                    raise InputError("a checkpoint's tables must hold each state in the same "
                                     "row for both players, as training writes them")
                self.rowmap[place * self.points + point] = row
                self.row_state[row] = core * self.points + point
        if tables[0].size != tables[1].size:
            raise InputError("a checkpoint's two tables must have as many rows each")
        self.rows = tables[0].size
        for side, table in enumerate(tables):
            self.remember(side, table, np.arange(self.rows))

    def _point(self, state) -> int | None:
        """The grid point of ``state``'s counters; None when they lie outside the grid
        (attach may give a state whose counter is already spent, as at one beat)."""
        try:
            return self.grid.flat(self.game.counters(state))
        except KeyError:
            return None

    def _state(self, core: int, point: int):
        return self.game.attach(self.graph.cores[core],
                                tuple(self.grid.points[point].tolist()))

    def _observation(self, state, player: str) -> tuple:
        return tuple(int(x) for x in self.game.observe(state, player))

    def chance_document(self) -> dict:
        """The chance states' values that are not 0, as a checkpoint keeps them (the
        others are the tables' or the payoffs)."""
        chance = np.repeat(self.kinds == _CHANCE, self.points)
        states = np.flatnonzero(chance & (self.last_values != 0).any(axis=0))
        return {"states": states.tolist(), "values": self.last_values[:, states].tolist()}


def _normalised(probs: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Each pair's outcome probabilities divided by their sum, as the Python trainer
    does with an outcome list."""
    sums = np.add.reduceat(probs, starts[:-1]) if len(probs) else np.zeros(0)
    return probs / np.repeat(sums, np.diff(starts))


class _Out:
    def __init__(self, capacity: int, n: int):
        self.rows = np.empty(capacity, np.int64)
        self.q = np.empty((capacity, n))
        self.mix = np.empty((capacity, n))
        self.total = np.empty(capacity)


class _Stack:
    """The frames of the depth-first traversal, MAX_DEPTH of them (the pages of those
    never reached are never touched)."""

    def __init__(self, n: int, depth: int = MAX_DEPTH):
        self.ints = np.zeros((depth, 9), np.int64)
        self.floats = np.zeros((depth, 1 + n))
        self.legal = np.zeros((depth, n), np.int64)

    def arrays(self) -> tuple:
        return self.ints, self.floats, self.legal


# -- the compiled traversal ------------------------------------------------------------
# frame fields (ints): state, core, point, next own action, opponent's action, the row
# (both players'), number of own legal actions, and the joint action and outcome drawn
# for the next own action (-1: not yet); floats: importance weight, then the observed
# value of each own legal action. Fields are read as ``ints[depth, field]``, masks as
# ``masks[core, action]``: a row view bound per state costs two atomic reference counts
# of numba's runtime, which took a fifth of a step
_STATE, _CORE, _POINT, _NEXT, _OTHER, _ROW, _LEGAL, _PAIR, _DRAWN = range(9)
# what an outcome leads to (before the counters are lowered): a state with one joint
# action, one where someone chooses, or the end of the duel
_CHANCE, _CHOICE, _ENDS = 0, 1, 2


@numba.njit(cache=True, inline="always")
def _uniform(rng):
    """SplitMix64: the next number of the stream in [0, 1)."""
    rng[0] += _U(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> _U(30))) * _U(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U(27))) * _U(0x94D049BB133111EB)
    z = z ^ (z >> _U(31))
    return float(z >> _U(11)) * (1.0 / 9007199254740992.0)


@numba.njit(cache=True, inline="always")
def _matching(regrets, mask, out):
    """Regret matching of one row into ``out`` (uniform over the mask without positive
    regret), as ``RegretTable.current``."""
    total, legal = 0.0, 0
    for i in range(len(out)):
        out[i] = max(regrets[i], 0.0) if mask[i] else 0.0
        total += out[i]
        legal += mask[i]
    for i in range(len(out)):
        out[i] = out[i] / total if total > 0 else (1.0 / legal if mask[i] else 0.0)


@numba.njit(cache=True, inline="always")
def _draw(rng, strategy, legal, count):
    """An action among ``legal[:count]`` drawn in proportion to ``strategy``."""
    if count == 1:
        return legal[0]
    left = 0.0
    for k in range(count):
        left += strategy[legal[k]]
    left *= _uniform(rng)
    for k in range(count - 1):
        left -= strategy[legal[k]]
        if left < 0:
            return legal[k]
    return legal[count - 1]


@numba.njit(cache=True, inline="always")
def _landing(form, entry, point):
    """Where an outcome leads from ``point``: its core and point (past the grid: a
    counter depleted)."""
    code, bits = form[6][entry], form[11]
    return code >> bits, form[1][code & ((1 << bits) - 1), point]


@numba.njit(cache=True, inline="always")
def _next_state(form, entry, point):
    """The state an outcome leads to from ``point``: (state, payoff to A); state -1
    when it ends the duel."""
    points = form[0]
    core, after = _landing(form, entry, point)
    if after >= points:
        return -1, form[2][after - points]
    if form[8][core] == _ENDS:
        return -1, form[9][core]
    return core * points + after, 0.0


@numba.njit(cache=True, inline="always")
def _baseline(form, entry, point, sign, last_values):
    """The traverser's last value of the state an outcome leads to from ``point`` (its
    payoff when a counter is depleted). Both reads are made and one kept, without a
    branch (see the module docstring)."""
    points = form[0]
    core, after = _landing(form, entry, point)
    inside = after < points
    within = last_values[core * points + (after if inside else 0)]
    depleted = sign * form[2][0 if inside else after - points]
    return within if inside else depleted


@numba.njit(cache=True, inline="always")
def _pair(form, core, own, other, me):
    if form[8][core] != _CHOICE:
        return form[3][core]
    a, b = (own, other) if me == 0 else (other, own)
    return form[4][form[10][core], a, b]


@numba.njit(cache=True, inline="always")
def _observed(form, pair, drawn, point, sampled, sign, last_values):
    """A joint action's value from its one drawn outcome, corrected by the baselines of
    all its outcomes (``SelfPlay._outcome_value``)."""
    first, last = form[5][pair], form[5][pair + 1]
    if last - first == 1:
        return sampled
    expected, drawn_baseline = 0.0, 0.0
    for entry in range(first, last):
        base = _baseline(form, entry, point, sign, last_values)
        expected += form[7][entry] * base
        if entry == drawn:
            drawn_baseline = base
    return expected + sampled - drawn_baseline


@numba.njit(cache=True, inline="always")
def _draw_outcome(form, rng, pair):
    first, last = form[5][pair], form[5][pair + 1]
    if last - first == 1:
        return first
    left = _uniform(rng)
    for entry in range(first, last - 1):
        left -= form[7][entry]
        if left < 0:
            return entry
    return last - 1


@numba.njit(cache=True, inline="always")
def _open(form, me, state, depth, rng, rowmap, fresh, masks, theirs, exploration, ints,
          floats, legal, counts, scratch):
    """Push the frame of ``state``: its rows (given now if new), own legal actions and
    the opponent's drawn action with its importance weight."""
    points, kinds, chooser = form[0], form[8], form[10]
    own_masks, their_masks = (form[12], form[13]) if me == 0 else (form[13], form[12])
    core, point = state // points, state % points
    ints[depth, _STATE], ints[depth, _CORE], ints[depth, _POINT] = state, core, point
    ints[depth, _NEXT], ints[depth, _DRAWN] = 0, -1
    count = 0
    for i in range(own_masks.shape[1]):
        if own_masks[core, i]:
            legal[depth, count] = i
            count += 1
    ints[depth, _LEGAL] = count
    floats[depth, 0] = 1.0
    if kinds[core] != _CHOICE:
        other = 0   # the opponent's one action: the first legal (as np.argmax did)
        while other < their_masks.shape[1] - 1 and not their_masks[core, other]:
            other += 1
        ints[depth, _OTHER], ints[depth, _ROW] = other, -1
        return
    their_mask = their_masks[core]
    place = chooser[core] * points + point
    if rowmap[place] < 0:
        row = counts[2]
        rowmap[place] = row
        fresh[counts[1]] = state
        counts[1] += 1
        counts[2] += 1
        masks[0][row, :] = form[12][core]
        masks[1][row, :] = form[13][core]
    row = rowmap[place]
    ints[depth, _ROW] = row
    theirs_now = scratch[0]
    _matching(theirs[row], their_mask, theirs_now)
    options = legal[depth + 1]   # free until a child is pushed
    their_count = 0
    for i in range(len(their_mask)):
        if their_mask[i]:
            options[their_count] = i
            their_count += 1
    if exploration == 0.0 or their_count == 1:
        ints[depth, _OTHER] = _draw(rng, theirs_now, options, their_count)
        return
    sampling = scratch[1]
    for i in range(len(sampling)):
        sampling[i] = (1.0 - exploration) * theirs_now[i]
        if their_mask[i]:
            sampling[i] += exploration / their_count
    other = _draw(rng, sampling, options, their_count)
    ints[depth, _OTHER] = other
    floats[depth, 0] = theirs_now[other] / sampling[other]


@numba.njit(cache=True, inline="always")
def _close(form, me, depth, masks, mine, theirs, rate, ints, floats, legal, out, counts,
           scratch):
    """The value of the frame at ``depth`` from its observed action values; where it
    chooses, the baseline-corrected action values and the visit (``SelfPlay._estimate``)."""
    if ints[depth, _ROW] < 0:
        return floats[depth, 1]
    row, other, weight = ints[depth, _ROW], ints[depth, _OTHER], floats[depth, 0]
    regrets, baselines = mine
    own_mask, their_mask = masks[me][row], masks[1 - me][row]
    own, theirs_now, q = scratch[0], scratch[1], scratch[3]
    _matching(regrets[row], own_mask, own)
    _matching(theirs[row], their_mask, theirs_now)
    observed = scratch[2]
    observed[:] = 0.0
    for k in range(ints[depth, _LEGAL]):
        observed[legal[depth, k]] = floats[depth, 1 + k]
    board = baselines[row]
    total = 0.0
    for i in range(len(q)):
        expected = 0.0
        for j in range(len(q)):
            expected += board[i, j] * theirs_now[j]
        column = board[i, other]
        q[i] = (expected + weight * (observed[i] - column)) * own_mask[i]
        board[i, other] = column + rate * (observed[i] - column)
        total += own[i] * q[i]
    visit = counts[0]
    out[0][visit] = row
    out[1][visit, :] = q
    out[2][visit, :] = own
    out[3][visit] = total
    counts[0] += 1
    return total


@numba.njit(cache=True)
def _traverse(me, core, point, stamp, rng, form, rowmap, fresh, masks, mine, theirs,
              exploration, rate, mark, memo, last_values, closed, stack, out, counts):
    """``SelfPlay._traverse`` from the state (core, point), iteratively."""
    ints, floats, legal = stack
    points, kinds = form[0], form[8]
    sign = 1.0 if me == 0 else -1.0
    scratch = np.zeros((4, legal.shape[1]))
    expanding, done = 2 * stamp, 2 * stamp + 1
    root = core * points + point
    mark[root] = expanding
    _open(form, me, root, 0, rng, rowmap, fresh, masks, theirs, exploration, ints, floats,
          legal, counts, scratch)
    depth, chances = 0, 0
    while depth >= 0:
        pushed = False
        while ints[depth, _NEXT] < ints[depth, _LEGAL]:
            k = ints[depth, _NEXT]
            if ints[depth, _DRAWN] < 0:
                pair = _pair(form, ints[depth, _CORE], legal[depth, k], ints[depth, _OTHER], me)
                ints[depth, _PAIR], ints[depth, _DRAWN] = pair, _draw_outcome(form, rng, pair)
                state, ending = _next_state(form, ints[depth, _DRAWN], ints[depth, _POINT])
                if state >= 0 and mark[state] < expanding:
                    if depth + 2 >= len(ints):
                        raise ValueError("traversal deeper than MAX_DEPTH")
                    mark[state] = expanding
                    _open(form, me, state, depth + 1, rng, rowmap, fresh, masks, theirs,
                          exploration, ints, floats, legal, counts, scratch)
                    depth += 1
                    pushed = True
                    break
            drawn, here = ints[depth, _DRAWN], ints[depth, _POINT]
            state, ending = _next_state(form, drawn, here)
            if state < 0:
                sampled = sign * ending
            elif mark[state] == done:
                sampled = memo[state]
            else:   # still being expanded: a cycle, cut at its last value
                sampled = _baseline(form, drawn, here, sign, last_values)
            floats[depth, 1 + k] = _observed(form, ints[depth, _PAIR], drawn, here, sampled,
                                             sign, last_values)
            ints[depth, _NEXT], ints[depth, _DRAWN] = k + 1, -1
        if pushed:
            continue
        state = ints[depth, _STATE]
        memo[state] = _close(form, me, depth, masks, mine, theirs, rate, ints, floats, legal,
                             out, counts, scratch)
        mark[state] = done
        if kinds[ints[depth, _CORE]] != _CHOICE:
            closed[chances] = state
            chances += 1
        depth -= 1
    # a chance state's last value changes only now, as a table row's does in _learn
    for k in range(chances):
        last_values[closed[k]] = memo[closed[k]]
