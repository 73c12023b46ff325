"""A counter game solved at every counter value at once (``solve_counters``), and its
solution: values, mixes and visits by core and point (``CounterSolution``), the mixes
as a policy on observations (``CounterPolicy``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from .. import progress
from ..errors import InputError
from ..game import Game, State
from ..limits import MEMORY_CEILING, SHORTER_DUEL, ceiling, give_back_freed
from ..markov.evaluate import Evaluation, StateTable, state_table
from ..markov.graph import build_graph
from ..markov.stages import MAX_SWEEPS, TOLERANCE, Convergence
from ..policy import TabularPolicy
from ..results import outcome_numbers, summary
from .cores import CoreGraph, explore, require_states
from .gaps import ReplyGaps
from .grid import Grid

if TYPE_CHECKING:
    from ..sparse import sp
    from .stage_rules import StageRule

# the solving modules (``flow``, ``layers``, ``stage_rules``: numba) are imported by
# ``solve_counters``, so that a solution read back from the answer store loads without
# numba


#: the last change of value iteration below which cycles count as solved exactly (a few
#: roundings of values of order 1): a moment is then read from the whole solution
EXACT_RESIDUAL = 1e-14


def solved_exactly(convergence: Convergence) -> bool:
    """Whether values so solved are the game's to rounding: no cycles, or cycles whose
    value iteration reached its fixed point (``EXACT_RESIDUAL``); otherwise their last
    digits depend on the tolerance solved with."""
    return not convergence.cyclic or (convergence.converged
                                      and convergence.residual <= EXACT_RESIDUAL)


class CounterSolution:
    """The value and maximum-entropy equilibrium of a counter game at every state
    reachable from its start, with the interface of ``solver.markov.backward.Solution``."""

    #: the expected payoff of the ends the play's push forward reaches (None: not pushed
    #: here, or kept by an older version): its value as an evaluation, where the solve's
    #: values are not the game's to rounding (``exact``)
    worth: float | None = None
    #: the (tolerance, max_sweeps) its play is pushed forward with (None: not pushed)
    pushed_within: tuple[float, int] | None = None
    #: an equilibrium's: how far its mixes are from best replies to each other, stage by
    #: stage (None: another rule's play, or kept by an older version)
    reply_gaps: ReplyGaps | None = None

    def __init__(self, game: Game, graph: CoreGraph, grid: Grid, kept: tuple,
                 mixes: dict[str, np.ndarray], evaluation: Evaluation,
                 convergence: Convergence, visits: tuple | None = None,
                 start: State | None = None, later: tuple | None = None,
                 worth: float | None = None,
                 pushed_within: tuple[float, int] | None = None,
                 reply_gaps: ReplyGaps | None = None):
        self.game, self.cores, self.grid = game, graph, grid
        #: the moment solved from (None: the game's initial outcomes)
        self.start = start
        # (kept cores, grid.columns) the value of the kept cores (``_kept``) at each
        # point's ``Grid.column``; the depleted counters' columns hold their payoffs
        kept_cores, self.held = kept
        self._kept = kept_cores
        self.position = np.full(graph.size, -1)
        self.position[kept_cores] = np.arange(len(kept_cores))
        # player -> (grid.size, slots): at each point the mixes of every core where the
        # player has a choice, over his legal actions, from ``CoreGraph.slots``
        self.mixes = mixes
        self._evaluation = evaluation
        self.convergence = convergence
        self._visits = visits
        self.worth = worth
        self.pushed_within = tuple(later[1:]) if later is not None else pushed_within
        self.reply_gaps = reply_gaps
        #: (roots, tolerance, max_sweeps) of a play not pushed forward yet: it is, when
        #: its statistics are first asked (``solve_counters``' ``later``)
        self.later = later
        #: what gives the statistics instead of pushing the play here (None: pushed
        #: here): the facade's, which reads them from the answer store or keeps them
        #: there; never pickled
        self.statistics_source: Callable[[], tuple] | None = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "statistics_source": None}

    def __repr__(self) -> str:
        return summary("Solution", self.game, outcome_numbers(self))

    @property
    def evaluation(self) -> Evaluation:
        """The play under the mixes from the start: value, win, draw, loss, length and
        endings."""
        self._push_if_later()
        return self._evaluation

    @property
    def visits(self) -> np.ndarray | None:
        """(grid.size, choosing cores) the chance that play under the mixes reaches each
        core where someone chooses (``cores.chooses``), by point; None when solved
        without statistics."""
        self._push_if_later()
        return None if self._visits is None else self._visits[0]

    @property
    def core_visits(self) -> np.ndarray | None:
        """(cores,) the expected visits of every core, all points together."""
        self._push_if_later()
        return None if self._visits is None else self._visits[1]

    @property
    def plays_forward(self) -> bool:
        """Whether the play's statistics are known, or found when first asked."""
        return self.later is not None or self._visits is not None

    def _push_if_later(self) -> None:
        if self.later is None:
            return
        source = self.statistics_source or self.pushed_forward
        pushed, self._visits = source()
        self.worth, self._evaluation = pushed.value, replace(pushed,
                                                             value=self._evaluation.value)
        self.later = None

    def pushed_forward(self) -> tuple[Evaluation, tuple]:
        """The statistics ``later`` leaves to be found."""
        return self._pushed(*self.later)

    def _pushed(self, roots: list, tolerance: float, max_sweeps: int
                ) -> tuple[Evaluation, tuple]:
        """The play pushed forward from ``roots``: its evaluation, valued at the expected
        payoff of the ends it reaches (``worth``), and its visits."""
        with progress.task("the play pushed forward", self.grid.size, "counter values"):
            return forward_statistics(self.game, self.cores, self.grid, roots, None,
                                      self.mixes, tolerance, max_sweeps)

    value = property(lambda self: self._evaluation.value)
    win = property(lambda self: self.evaluation.win)
    draw = property(lambda self: self.evaluation.draw)
    loss = property(lambda self: self.evaluation.loss)
    expected_length = property(lambda self: self.evaluation.expected_length)
    endings = property(lambda self: self.evaluation.endings)

    def state_table(self) -> StateTable:
        """Every live state with its expected visits and both mixes, state by state:
        refused in words when the duel is too large to hold so (``require_states``)."""
        require_states(self.game)
        graph = build_graph(self.game, None if self.start is None else [(1.0, self.start)])
        n = len(self.game.info.action_names)
        mixes = {"a": np.zeros((graph.size, n)), "b": np.zeros((graph.size, n))}
        for s in np.flatnonzero(~graph.terminal).tolist():
            mixes["a"][s], mixes["b"][s] = self.policy(graph.states[s])
        return state_table(graph, mixes["a"], mixes["b"])

    @property
    def exact(self) -> bool:
        """Whether its values are those of the game to rounding (``solved_exactly``)."""
        return solved_exactly(self.convergence)

    def at_moment(self, state: State, tolerance: float = TOLERANCE,
                  max_sweeps: int = MAX_SWEEPS) -> CounterSolution | None:
        """The solution from the moment ``state`` read from this one (its values and
        mixes are those a solve from ``state`` finds: the same stage games; the play
        from ``state`` pushed forward again), or None where this one cannot give it as
        such a solve would: ``state`` beyond its counters or cores, or cycles solved
        only to a tolerance (whose last digits depend on what was solved with them;
        where the sweeps found the fixed point to rounding, as the policy-evaluation
        steps of a counter game's layers do, they do not)."""
        if self.game.is_terminal(state) or not self.exact:
            return None
        try:
            core, point = self._locate(state)
        except KeyError:
            return None
        if point >= self.grid.size:
            return None
        value = float(self._values_at(np.array([core]), point)[0])
        with progress.task("the play from that moment", self.grid.size, "counter values"):
            evaluation, visits = forward_statistics(
                self.game, self.cores, self.grid, [(1.0, core, point)], value, self.mixes,
                tolerance, max_sweeps)
        return CounterSolution(self.game, self.cores, self.grid, (self._kept, self.held),
                               self.mixes, evaluation, self.convergence, visits, state,
                               reply_gaps=self.reply_gaps)

    def with_statistics(self, tolerance: float = TOLERANCE,
                        max_sweeps: int = MAX_SWEEPS) -> CounterSolution:
        """This solution with its play pushed forward (win, draw, loss, length and
        visits), as solving it with statistics gives; itself if it has them."""
        if self.visits is not None:
            return self
        _, _, roots = explore(self.game, None if self.start is None else [(1.0, self.start)])
        pushed, visits = self._pushed(roots, tolerance, max_sweeps)
        return CounterSolution(self.game, self.cores, self.grid, (self._kept, self.held),
                               self.mixes, replace(pushed, value=self._evaluation.value),
                               self.convergence, visits, self.start, worth=pushed.value,
                               pushed_within=(tolerance, max_sweeps),
                               reply_gaps=self.reply_gaps)

    def release_mixes(self, player: str) -> None:
        """Free ``player``'s mixes, which nobody will read (a best response's, where its
        safest play's stand for them); reading them afterwards is an error."""
        self.mixes[player] = None

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

    def values_of(self, cores: np.ndarray, points: np.ndarray) -> np.ndarray:
        """The values of the states at ``cores`` and flat ``points`` (pairwise): a plan's
        tens of thousands of situations at once, not state by state."""
        cores, points = np.asarray(cores, np.int64), np.asarray(points, np.int64)
        found = np.empty(len(cores))
        for point, at in positions_by(points):
            found[at] = self._values_at(cores[at], point)
        return found

    def _values_at(self, cores: np.ndarray, point: int) -> np.ndarray:
        """The values of ``cores`` at one flat point (past grid.size: depleted)."""
        if self.held is None:
            raise RuntimeError("this play's values were not kept (solve_counters' values)")
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

    def _continuation(self, pairs: np.ndarray, point: int,
                      moved: tuple[list, np.ndarray] | None = None) -> np.ndarray:
        """The expected value after each joint action of ``pairs`` at one point;
        ``moved``: each move's rows (``CoreGraph.move_rows``) of more pairs, and where
        ``pairs`` are among them (a row's entries do not depend on the others')."""
        graph = self.cores
        by_move, at = moved if moved is not None else (graph.move_rows(pairs),
                                                       np.arange(len(pairs)))
        # the steps that change no counter, then each move's: as sparse products add them
        terms = [(*_rows(graph.zero, pairs), None)] + [
            (*_rows(steps, at), move.decrement)
            for steps, move in zip(by_move, graph.moves, strict=True)]
        total = np.zeros(len(pairs))
        for rows, reached, weights, decrement in terms:
            if not len(reached):
                continue
            after = point if decrement is None else int(
                self.grid.shifted(np.array([point]), decrement)[0])
            landed, back = np.unique(reached, return_inverse=True)
            # each pair's terms summed in the order of its row, as a sparse product would
            total += np.bincount(rows, weights * self._values_at(landed, after)[back],
                                 minlength=len(pairs))
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
        if self.mixes[player] is None:
            raise RuntimeError(f"the mixes of {player} were released (release_mixes)")
        first, last = self.cores.slots[player][core:core + 2]
        full = np.zeros(len(mask))
        full[mask] = self.mixes[player][point, first:last]
        return full

    def stage_matrix(self, state: State) -> np.ndarray:
        """Continuation values to A of every joint action at ``state`` (NaN where illegal)."""
        return self.stage_matrices([state])[0]

    def stage_matrices(self, states: list[State]) -> list[np.ndarray]:
        """``stage_matrix`` of each of ``states``, their steps by move rebuilt once for
        all of them (a plan's likeliest situations are checked together)."""
        return self.matrices_at([self._locate(state) for state in states])

    def matrices_at(self, located: list[tuple[int, int]]) -> list[np.ndarray]:
        """``stage_matrices`` of the states at (core, flat point) ``located``."""
        graph, n = self.cores, len(self.game.info.action_names)
        spans = [np.arange(graph.pair_slices[core], graph.pair_slices[core + 1])
                 for core, _ in located]
        by_move = graph.move_rows(np.concatenate(spans)) if spans else []
        ends = np.cumsum([len(span) for span in spans])
        matrices = []
        for (_, point), pairs, end in zip(located, spans, ends.tolist(), strict=True):
            matrix = np.full((n, n), np.nan)
            matrix[graph.pair_a[pairs], graph.pair_b[pairs]] = self._continuation(
                pairs, point, (by_move, np.arange(end - len(pairs), end)))
            matrices.append(matrix)
        return matrices

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
    (``solver.counters.play.counter_mixes``)."""

    def __init__(self, solution: CounterSolution, player: str, name: str):
        self.solution, self.game, self.player, self.name = solution, solution.game, player, name
        self.mixes = solution.mixes[player]

    @cached_property
    def table(self) -> dict:
        return self.solution.table(self.player)

    def mix_at_state(self, game: Game, state: State) -> np.ndarray | None:
        """The mix at a state of the game solved, read from the solver's layout (None
        for another game's state): a knockout's table takes seconds to build."""
        if game is not self.game:
            return None
        return self.solution.mix_at(self.player, *self.solution._locate(state))



def solution_bytes(graph: CoreGraph, grid: Grid, kept: int) -> int:
    """The bytes of a counter solution's tables (``solve_counters``): the kept cores'
    values at every counter value, and both players' mixes at every counter value."""
    slots = sum(int(graph.slots[p][-1]) for p in ("a", "b"))
    return 8 * (kept * grid.columns + grid.size * slots)


def require_room(graph: CoreGraph, grid: Grid, kept: int) -> None:
    """Refuse, before allocating, a duel whose solution's tables (values by core and
    counter, mixes by counter value) would pass the memory ceiling (``solver.limits``)."""
    needed = solution_bytes(graph, grid, kept)
    if needed <= ceiling():
        return
    held = " and ".join(str(int(value)) for value in grid.top)
    raise InputError(
        f"this duel is too large to solve here: with its counters at {held} it has "
        f"{len(graph.cores):,} situations at each of {grid.size:,} counter values, whose "
        f"tables need about {needed / 2**30:.1f} GiB, more than the "
        f"{MEMORY_CEILING / 2**30:.0f} GiB allowed (and hours of solving); {SHORTER_DUEL}")


def solve_counters(game: Game, tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS,
                   stage_values: Callable[[np.ndarray], np.ndarray] | None = None,
                   start: State | None = None, rule: StageRule | None = None,
                   statistics: bool = True, later: bool = False,
                   values: bool = True) -> CounterSolution:
    """Solve a game that declares the ``counters`` fast path (see the module), from its
    initial outcomes or from the live state ``start`` (every state reachable from it).
    ``rule`` settles each stage (``solver.counters.stage_rules``: the maximum-entropy
    equilibrium by default, whose value iteration ``stage_values`` solves: benchmarks
    swap it for a reference solver; or a best reply, a fixed pair, a regularised
    player). Without ``statistics`` the play is not pushed forward (win, loss, length
    and ``visits`` are left at 0); with ``later`` it is, when they are first asked (an
    equilibrium asked only for its mixes and values, an opponent's, never pays for the
    push). Without ``values`` the values are freed once the start's is known, before
    the push: a play wanted for its mixes and statistics only (a best response's safest
    play, whose values are the responder's chances of losing); reading them is then an
    error."""
    from .layers import Record
    from .stage_rules import Equilibrium
    graph, grid, roots = explore(game, None if start is None else [(1.0, start)])
    rule = Equilibrium(stage_values, grid) if rule is None else rule
    # the values kept by hit points first: the landing cores (those a decrement
    # reaches, what a layer reads) first, then those a state's value cannot be
    # rebuilt from in one step (see CounterSolution); the others are never stored
    kept = kept_cores(graph, [core for _, core, _ in roots])
    require_room(graph, grid, len(kept))
    held, finals, mixes = _stage_tables(game, graph, grid, kept, rule)
    record = Record(tolerance)
    # each counter value counted twice when the play is pushed now: its stage games, then
    # the play pushed through it
    now = statistics and not later
    with progress.task("solving", grid.size * (2 if now else 1), "counter values"):
        _solve_stages(graph, grid, (kept, held), finals, mixes, record, tolerance,
                      max_sweeps, rule)
        position = {core: at for at, core in enumerate(kept.tolist())}
        value = float(sum(p * held[position[core], grid.column[point]]
                          for p, core, point in roots))
        if not values:
            held = None   # freed before the push, which needs the start's value only
            give_back_freed()
        pushed, visits = forward_statistics(game, graph, grid, roots, None if now else value,
                                            mixes, tolerance, max_sweeps, now)
    give_back_freed()   # the layers' working arrays, before the caller's next tables
    return CounterSolution(game, graph, grid, (kept, held), mixes,
                           replace(pushed, value=value), record.convergence(), visits, start,
                           (roots, tolerance, max_sweeps) if statistics and later else None,
                           pushed.value if now else None,
                           (tolerance, max_sweeps) if now else None,
                           getattr(rule, "gaps", None))


def values_at(game: Game, rule: StageRule, cores: np.ndarray, points: np.ndarray,
              tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS
              ) -> tuple[np.ndarray, Convergence]:
    """The values under ``rule`` of the states at ``cores`` and flat ``points``
    (pairwise), from the game's start, as ``solve_counters(...).values_of`` gives them,
    and how their cycles converged: each read from its layer as it is solved, and only
    the landing cores' values kept for the layers above (a solution keeps twice as many
    rows: a level-5 plan's chances read 309,000 values of a 760 MB table)."""
    from .layers import Record
    graph, grid, _ = explore(game)
    landing = np.asarray(graph.landing, np.int64)
    held, finals, mixes = _stage_tables(game, graph, grid, landing, rule)
    cores, points = np.asarray(cores, np.int64), np.asarray(points, np.int64)
    found = np.empty(len(cores))
    depleted = points >= grid.size
    found[depleted] = held[0, grid.column[points[depleted]]] if len(held) else 0.0
    where = np.full(grid.size, -1)

    def read(solved: np.ndarray, layer: np.ndarray) -> None:
        where[solved] = np.arange(len(solved))
        at = np.flatnonzero(~depleted)
        at = at[where[points[at]] >= 0]
        found[at] = layer[cores[at], where[points[at]]]
        where[solved] = -1

    record = Record(tolerance)
    with progress.task("solving", grid.size, "counter values"):
        _solve_stages(graph, grid, (landing, held), finals, mixes, record,
                      tolerance, max_sweeps, rule, read)
    give_back_freed()
    return found, record.convergence()


def _stage_tables(game: Game, graph: CoreGraph, grid: Grid, kept: np.ndarray,
                  rule: StageRule) -> tuple[np.ndarray, np.ndarray, dict]:
    """What a solve over the counters fills: the values of the ``kept`` cores by column
    (the depleted counters' columns already hold their payoffs, as the rule scores
    them), the terminal cores' payoffs so scored, and the mixes (the rule's fixed
    ones, zeros to be solved for the others)."""
    ends = [game.depleted(k) for k in range(len(grid.top))]
    payoffs = np.array([float(game.payoff(s)) for s in ends])
    finals = graph.payoff[graph.terminal]
    if rule.scores is not None:
        payoffs, finals = rule.scores(payoffs), rule.scores(finals)
    held = np.zeros((len(kept), grid.columns))
    held[:, grid.column[grid.size:]] = payoffs
    mixes = {p: rule.fixed[p] if p in rule.fixed else np.zeros((grid.size, int(
        graph.slots[p][-1]))) for p in ("a", "b")}
    return held, finals, mixes


def _solve_stages(graph: CoreGraph, grid: Grid, table: tuple, finals: np.ndarray,
                  mixes: dict, record, tolerance: float, max_sweeps: int,
                  rule: StageRule,
                  read: Callable[[np.ndarray, np.ndarray], None] | None = None) -> None:
    """Every layer's stage games settled by ``rule``, in order: the kept cores' values
    written into ``table`` (kept cores, their values by column; the landing cores
    first, which the layers above read), the mixes into ``mixes``; ``read(points,
    values)`` sees every core's values at each slice of points solved."""
    from .layers import read_lowered, solve_layer
    kept, held = table
    landed = held[:len(graph.landing)]
    at_once = points_at_once(graph)
    for first, last in grid.reads:
        together, starts = grid.together(first, last)
        known = read_lowered(graph, grid, together, landed)
        for points, at in _slices(grid.layers[first:last], starts, at_once):
            record.slice_of(int(grid.floor[points[0]]))
            reading = (np.ascontiguousarray(known[:, at:at + len(points)]), landed, finals)
            layer = solve_layer(graph, grid, points, reading, mixes, record, tolerance,
                                max_sweeps, rule)
            # straight into the table (``layer[kept]`` would copy it first: about a
            # second of level 5's solve)
            np.take(layer, kept, axis=0, out=held[:, grid.span(points)], mode="clip")
            if read is not None:
                read(points, layer)
            progress.advance(len(points), "stage games")


#: the entries of the largest working array of a layer's stage solve (a value for each
#: core, or each joint action of a block's part, at each point solved together): 64 MB.
#: A layer of more points is solved a slice at a time: a level-5 Pathfinder duel's
#: layers of 250 points took a gigabyte of working arrays on top of the tables
STAGE_ENTRIES = 2**23


def points_at_once(graph: CoreGraph) -> int:
    """How many points of a layer are solved together (``STAGE_ENTRIES``)."""
    widest = max([graph.size, *(len(part.pairs) for block in graph.blocks
                                for part in block.parts)])
    return max(1, STAGE_ENTRIES // widest)


def _slices(layers: list[np.ndarray], starts: np.ndarray, at_once: int):
    """Each layer's points ``at_once`` at a time, with where each slice starts among the
    layers' points read together. A layer's points depend on earlier layers and each
    on itself only: a slice's values are the whole layer's (a cyclic block's sweeps
    stop when the slice's points, not the layer's, are within the tolerance)."""
    for points, at in zip(layers, starts.tolist(), strict=True):
        for begin in range(0, len(points), at_once):
            yield points[begin:begin + at_once], at + begin


def forward_statistics(game: Game, graph: CoreGraph, grid: Grid, roots: list,
                       value: float | None, mixes: dict, tolerance: float, max_sweeps: int,
                       statistics: bool = True, visits: bool = True
                       ) -> tuple[Evaluation, tuple | None]:
    """The evaluation of play under ``mixes`` from ``roots`` (A's chances, the expected
    length and the endings, pushed forward; ``value`` is the roots' value, None for the
    expected payoff the push finds) and, with ``visits``, the visits it makes: the
    chance of play reaching each core where someone chooses, by point, and the expected
    visits of every core. Without ``statistics`` only the value (the rest left at 0, no
    visits)."""
    from .flow import endings, play_forward
    ends = [game.depleted(k) for k in range(len(grid.top))]
    payoffs = np.array([float(game.payoff(s)) for s in ends])
    seen = (np.zeros((grid.size, int(graph.chooses.sum()))), np.zeros(graph.size)
            ) if visits and statistics else None
    win, loss, steps, worth = play_forward(
        graph, grid, roots, mixes, payoffs, tolerance, max_sweeps,
        graph.unit_starts(game, grid.top), seen) if statistics else (0.0, 0.0, 0.0, value)
    totals = np.array([worth if value is None else value, win, loss, steps])
    draw = float(max(0.0, 1.0 - win - loss)) if statistics else 0.0
    evaluation = Evaluation(value=float(totals[0]), win=win, draw=draw, loss=loss,
                            expected_length=steps,
                            endings=endings(game, graph, grid, ends, totals)
                            if statistics else {})
    return evaluation, seen


def positions_by(keys: np.ndarray):
    """Each distinct key, ascending, with the positions (ascending) where ``keys`` holds
    it: sorted once (comparing every key with each distinct one took 1.8 s of a level-5
    plan's values, 309,000 pairs at 5,550 points)."""
    order = np.argsort(keys, kind="stable")
    distinct, starts = np.unique(keys[order], return_index=True)
    return zip(distinct.tolist(), np.split(order, starts[1:]), strict=True)


def _rows(matrix: sp.csr_matrix, rows: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The entries of ``matrix``'s ``rows``, row by row in their order: for each, the
    position of its row in ``rows``, its column and its value (what ``matrix[rows]``
    holds, without building a matrix: a moment's values ask a few rows at a time, tens
    of thousands of times)."""
    start = matrix.indptr[rows]
    counts = matrix.indptr[np.asarray(rows) + 1] - start
    owner = np.repeat(np.arange(len(counts)), counts)
    at = np.arange(int(counts.sum())) + np.repeat(start - (np.cumsum(counts) - counts), counts)
    return owner, matrix.indices[at], matrix.data[at]


def kept_cores(graph: CoreGraph, roots: list[int]) -> np.ndarray:
    """The cores whose values a solution keeps: the landing cores first, then the
    roots, the cores with more than one joint action and those in cycles. Every other
    core has one joint action whose steps lead to kept cores or, without a cycle, to
    cores like it, so its value is rebuilt on demand."""
    single = np.diff(graph.pair_slices) == 1
    cyclic = [block.cores for block in graph.blocks if block.cyclic]
    others = np.union1d(np.flatnonzero(~single), np.concatenate([roots, *cyclic]))
    return np.concatenate([graph.landing, np.setdiff1d(others, graph.landing)]).astype(
        np.int64)
