"""Answers against fixed policies over a counter game's counters: best response,
evaluation of a pair, and win / draw / loss from every moment, each one
``solver.counters`` solve with its stage rule (``solver.counters.stage_rules``), every
counter value at once (a personality's regularised play is ``solver.counters.regularized``).

A fixed policy lives in the solver's own layout: ``mixes[player]`` of shape (grid
points, the player's slots), each choosing core's mix over its legal actions
(``CoreGraph.slots``), read from any policy by observing ``game.attach(core,
counters)`` at every choosing core and point. The facade (``solver.solve``) comes here
for every game that declares the ``counters`` fast path; each answer offers the
interface of its state-graph twin (``solver.markov``).
"""

from __future__ import annotations

import contextvars
import threading
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from .. import progress
from ..decision_table import AttachedStates, DecisionTable
from ..errors import InputError
from ..game import BatchPolicy, Game, Policy, State, renormalise
from ..limits import give_back_freed
from ..markov.evaluate import Evaluation
from ..markov.stages import MAX_SWEEPS, TOLERANCE, Convergence
from ..policy import TabularPolicy, named_policy
from ..results import summary
from .compiled import loops_run_side_by_side
from .cores import explore
from .solution import (
    CounterPolicy,
    CounterSolution,
    forward_statistics,
    kept_cores,
    positions_by,
    solution_bytes,
    solve_counters,
    solved_exactly,
    values_at,
)
from .stage_rules import BestReply, FixedPair

#: a decision reached less often than this is left out of a plan
MIN_REACH = 1e-12


@dataclass
class CounterDecisions:
    """The states of a counter game where someone chooses, every counter value at once:
    for each, its choosing core, that core's column among the choosing cores (the
    solver's ``visits`` are (points, choosing cores)), its grid point and the state. A
    core may exist at some counter values only (a game's opening, say): where the state
    it attaches to reports other counters, that pair is no state of the game and is
    left out."""

    core: np.ndarray
    column: np.ndarray
    point: np.ndarray
    states: Sequence[State]

    def rows(self, game: Game, mixes: np.ndarray, player: str) -> np.ndarray:
        """(decisions, actions) ``player``'s mix over the action list at each decision,
        from ``mixes`` in the solver's layout (grid points, the player's slots)."""
        graph, _, _ = explore(game)
        masks = graph.mask_a if player == "a" else graph.mask_b
        slots = graph.slots[player]
        found = masks[self.core].astype(float)   # a single legal action: played
        for core, at in positions_by(self.core):
            first, last = slots[core:core + 2]
            if last > first:
                found[np.ix_(at, np.flatnonzero(masks[core]))] = mixes[self.point[at], first:last]
        return found


_DECISIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def counter_decisions(game: Game) -> CounterDecisions:
    """Every state of ``game`` where someone chooses (see ``CounterDecisions``), found
    once per game."""
    found = _DECISIONS.get(game)
    if found is None:
        found = _DECISIONS[game] = _find_decisions(game)
    return found


def _find_decisions(game: Game) -> CounterDecisions:
    """The decisions of ``game``: of every choosing core at every grid point."""
    graph, grid, _ = explore(game)
    choosing = np.flatnonzero(graph.chooses)
    column, point = np.divmod(np.arange(len(choosing) * grid.size), grid.size)
    cores, points, states, kept = choosing[column], grid.points.tolist(), [], []
    for k, (core, at) in enumerate(zip(cores.tolist(), point.tolist(), strict=True)):
        state = game.attach(graph.cores[core], points[at])
        if list(game.counters(state)) == points[at]:
            kept.append(k)
            states.append(state)
    return CounterDecisions(cores[kept], column[kept], point[kept], states)


def _reached_decisions(game: Game, reached: np.ndarray) -> CounterDecisions:
    """The decisions of ``game`` at the pairs where ``reached`` (grid points, choosing
    cores) is true, their states attached when read (``AttachedStates``). A pair that
    play reaches is a state of the game: play only follows the core steps from its start
    (unlike ``_find_decisions``'s pairs, of which some are none)."""
    graph, grid, _ = explore(game)
    column, point = np.nonzero(reached.T)
    cores = np.flatnonzero(graph.chooses)[column]
    used, which = np.unique(cores, return_inverse=True)
    states = AttachedStates(game, [graph.cores[core] for core in used.tolist()],
                            which.astype(np.int64), grid.points[point])
    return CounterDecisions(cores, column, point, states)


#: the most decisions (choosing cores times counter values) a table over the counters
#: may list: a profile holds a mix for each (fighter against rogue: 112,880)
MAX_TABLE_DECISIONS = 1_000_000


def require_table(game: Game) -> None:
    """Refuse, in words and before the solving, a counter game with too many decisions
    to list one mix each (a profile's table)."""
    graph, grid, _ = explore(game)
    bound = int(graph.chooses.sum()) * grid.size
    if bound > MAX_TABLE_DECISIONS:
        held = " and ".join(str(int(value)) for value in grid.top)
        raise InputError(
            f"this duel has too many decisions for a profile's table: with its counters at "
            f"{held} up to {bound:,}, more than the {MAX_TABLE_DECISIONS:,} a profile may "
            "hold. `duel solve` and `duel odds` still answer it whole; a shorter duel fits "
            "(lower hit points or fewer beats, or a duel that ends sooner)")


def counter_table(game: Game, policy: Policy | str, player: str) -> dict:
    """``policy``'s mix (over the action list) at every observation ``player`` makes
    where someone chooses, over the counters (a profile's table; elsewhere the player
    has one legal action, which a missing observation plays anyway)."""
    require_table(game)
    decisions = counter_decisions(game)
    rows = decisions.rows(game, counter_mixes(game, policy, player), player)
    return {tuple(int(x) for x in game.observe(state, player)): mix
            for state, mix in zip(decisions.states, rows, strict=True)}


def pushed_forward(game: Game, policy_a: Policy | str, policy_b: Policy | str,
                   tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS,
                   start: State | None = None, visits: bool = True
                   ) -> tuple[Evaluation, tuple | None]:
    """The fixed pair's play pushed forward from the game's start (or the moment
    ``start``): its evaluation, the value the expected payoff of the ends it reaches,
    and with ``visits`` the chance of reaching each choosing core by point (points,
    choosing cores) and every core's expected visits. No value is solved core by core:
    the pair's value at the start is all an evaluation needs."""
    mixes = pair_mixes(game, policy_a, policy_b, start)
    graph, grid, roots = explore(game, None if start is None else [(1.0, start)])
    with progress.task("the play pushed forward", grid.size, "counter values"):
        pushed = forward_statistics(game, graph, grid, roots, None, mixes, tolerance,
                                    max_sweeps, visits=visits)
    give_back_freed()
    return pushed


def counter_mixes(game: Game, policy: Policy | str, player: str,
                  start: State | None = None) -> np.ndarray:
    """(grid points, slots) what ``policy`` plays as ``player`` at every choosing core
    and point of ``game``'s counters (from its start, or from the moment ``start``),
    from the player's observations only."""
    policy = named_policy(policy, game, player)
    if isinstance(policy, ReadPolicy):
        if policy.game is game and policy.player == player and start is None:
            return policy.mixes
        policy = policy.policy   # read for another game or side: asked as it is
    graph, grid, _ = explore(game, None if start is None else [(1.0, start)])
    if isinstance(policy, CounterPolicy) and policy.player == player and same_layout(
            policy.solution, game, graph, start):
        return policy.mixes
    slots = graph.slots[player]
    masks = graph.mask_a if player == "a" else graph.mask_b
    cores = np.flatnonzero(np.diff(slots) > 0)
    mixes = np.zeros((grid.size, int(slots[-1])))
    if not len(cores):
        return mixes
    observations = observed(game, graph, grid, player)
    for core, seen in zip(cores, observations, strict=True):
        legal = masks[core]
        mixes[:, slots[core]:slots[core + 1]] = _mixes(policy, seen, legal)[:, legal]
    return mixes


#: held while a ``ReadPolicy`` reads its mixes (a lock of its own would not pickle)
_READING = threading.Lock()


class ReadPolicy:
    """A policy read once as ``player`` of ``game`` (``solver.read_policy``): the
    solver's questions on that game take the mixes read (``counter_mixes``, read when
    first asked) instead of asking the policy at every core and point again; anything
    else is asked of the policy read (its ``probabilities``, its name)."""

    def __init__(self, policy: Policy, game: Game, player: str):
        self.policy, self.game, self.player = policy, game, player
        self._mixes = None

    @property
    def mixes(self) -> np.ndarray:
        with _READING:   # questions asked together (``solver.together``) read it once
            if self._mixes is None:
                self._mixes = counter_mixes(self.game, self.policy, self.player)
        return self._mixes

    def probabilities(self, observation, mask: np.ndarray) -> np.ndarray:
        return self.policy.probabilities(observation, mask)

    def __getattr__(self, name: str):
        if name in ("policy", "_mixes"):   # not set yet (a copy being built): no recursion
            raise AttributeError(name)
        return getattr(self.policy, name)

    def __repr__(self) -> str:
        return f"<ReadPolicy of {self.policy!r} as {self.player}>"


def read_counter_policy(game: Game, policy: Policy, player: str) -> Policy:
    """``policy`` read once (``ReadPolicy``); a play solved over the counters is already
    in the solver's layout, and stays itself (an evaluation of a solution's own pair is
    the solution's, with nothing pushed forward again)."""
    if isinstance(policy, CounterPolicy | ReadPolicy):
        return policy
    return ReadPolicy(policy, game, player)


#: the observations of the choosing cores at every point, by explored graph and player
#: (``observed``), with a reference to the graph they were read on
_OBSERVED: dict[tuple[int, str], tuple[weakref.ref, np.ndarray]] = {}


def observed(game: Game, graph, grid, player: str) -> np.ndarray:
    """(the player's choosing cores, grid points, observation fields) what ``player``
    observes at each of his choosing cores and every point, read once per explored
    graph: a question asks several policies (the opponent, the equilibrium, a
    personality's prior at each beta) and the game's ``observe`` at every core and
    point took seconds each time. Kept in the narrowest integer type that holds them."""
    key = (id(graph), player)
    known = _OBSERVED.get(key)
    if known is not None and known[0]() is graph:
        return known[1]
    cores = np.flatnonzero(np.diff(graph.slots[player]) > 0)
    points = np.asarray(grid.points)
    info = game.info
    # the narrowest type of the declared bounds, a core at a time (the whole duel's as
    # int64 at once would be a gigabyte at level 5), widened if a core passes them
    table = np.empty((len(cores), grid.size, len(info.observation_fields)), np.result_type(
        *(np.min_scalar_type(int(bound)) for bound in (*info.observation_low,
                                                        *info.observation_high, 0))))
    read = _reader(game, points, player)
    for n, core in enumerate(cores.tolist()):
        seen = read(graph.cores[core])
        limits = np.iinfo(table.dtype)
        if len(seen) and (seen.min() < limits.min or seen.max() > limits.max):
            table = table.astype(np.int64)
        table[n] = seen
    # a copy of the entries (another thread, a web screen's, may add one meanwhile)
    for stale in [k for k, (ref, _) in list(_OBSERVED.items()) if ref() is None]:
        _OBSERVED.pop(stale, None)
    _OBSERVED[key] = (weakref.ref(graph), table)
    return table


def _reader(game: Game, points: np.ndarray, player: str):
    """What ``player`` observes at a core at each of ``points`` (points, fields): the
    game's ``observe_counters`` where it declares it, else ``observe`` point by point."""
    if game.info.has("counter_observations"):
        return lambda core: game.observe_counters(core, points, player)
    return lambda core: np.array([game.observe(game.attach(core, counters), player)
                                  for counters in points], dtype=np.int64)


def same_layout(solution: CounterSolution, game: Game, graph, start: State | None) -> bool:
    """Whether ``solution``'s mixes are laid out on ``graph``: it was explored with it,
    or both are the game's own from its start (exploring is deterministic, so a
    solution read back from the answer store, whose cores are a copy of this process's,
    lays its mixes out the same way). A solution from another moment has its own cores
    and points."""
    if solution.cores is graph:
        return True
    return start is None and solution.start is None and solution.game is game


def _mixes(policy: Policy, observations: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(observations, actions) the policy's mixes, renormalised over ``mask``, from an
    (observations, fields) array; each distinct observation asked once (a table looked
    up directly, as its ``probabilities`` would)."""
    distinct, back = _distinct(observations)
    if isinstance(policy, BatchPolicy):
        masks = np.broadcast_to(mask, (len(distinct), len(mask)))
        raw = policy.batch_probabilities(distinct.astype(np.int64), masks)
    else:
        keys = [tuple(row) for row in distinct.tolist()]
        if isinstance(policy, TabularPolicy):
            uniform = mask / mask.sum()
            raw = np.array([policy.table.get(seen, uniform) for seen in keys])
        else:
            raw = np.array([policy.probabilities(seen, mask) for seen in keys])
    return renormalise(raw, mask)[back.reshape(-1)]


def _distinct(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(rows, axis=0, return_inverse=True)``, in the same order, found by one
    integer per row where the rows' ranges allow it: sorting rows as records took most
    of the time of reading a profile's table (0.4 s a level-1 duel)."""
    low, high = rows.min(axis=0).astype(np.int64), rows.max(axis=0).astype(np.int64)
    span = high - low + 1
    if np.prod(span.astype(float)) >= 2.0**62:
        return np.unique(rows, axis=0, return_inverse=True)
    # the first field the most significant: the keys sort as the rows do
    strides = np.concatenate([np.cumprod(span[:0:-1])[::-1], [1]])
    keys = (rows.astype(np.int64) - low) @ strides
    _, first, back = np.unique(keys, return_index=True, return_inverse=True)
    return rows[first], back


def _signed_loss(responder: str):
    """The payoffs scored as the responder's loss, in A's terms (A maximises, B
    minimises): A's loss counts -1 for A, A's win counts +1 against B."""
    if responder == "a":
        return lambda payoff: -(np.asarray(payoff) < 0).astype(float)
    return lambda payoff: (np.asarray(payoff) > 0).astype(float)


@dataclass
class CounterResponse:
    """``solver.markov.response.BestResponse`` over counters: ``value`` is the responder's,
    ``evaluation`` the resulting play from A's side; ``values`` holds the best
    response's values (to A) at every state (a knockout's reply to the equilibrium:
    that play's, the equilibrium's own), ``play`` the play's mixes of both sides
    (the safest tie-break's when asked) and its visits. Without the tie-break the play
    is pushed forward only when first asked: an exploitability needs the value alone."""

    responder: str
    value: float
    values: CounterSolution
    convergence: Convergence
    tolerance: float
    max_sweeps: int
    #: the safest tie-break's play, its statistics pushed now or when first asked (None:
    #: not asked)
    safest_play: CounterSolution | None = None

    @cached_property
    def play(self) -> CounterSolution:
        if self.safest_play is not None:
            return self.safest_play
        return self.values.with_statistics(self.tolerance, self.max_sweeps)

    @cached_property
    def evaluation(self) -> Evaluation:
        # the safest play keeps the best value (its actions are all tied for it)
        return replace(self.play.evaluation, value=self.values.value)

    def __repr__(self) -> str:
        from ..markov.response import _response_numbers
        return summary(f"BestResponse[{self.responder.upper()}]", self.values.game,
                       _response_numbers(self))

    @cached_property
    def policy(self) -> TabularPolicy:
        return self.play.policy_for(self.responder, f"best response of {self.responder}")

    def mix_at(self, state: State) -> np.ndarray:
        """The responder's mix over the action list at ``state``."""
        return self.play.policy(state)[0 if self.responder == "a" else 1]

    def value_at(self, state: State) -> float:
        """The responder's value of ``state`` under the best response."""
        return (1.0 if self.responder == "a" else -1.0) * self.values.value_at(state)

    def chances(self) -> CounterChances:
        """A's chances of winning, drawing and losing from every state in this play."""
        return counter_chances(self.play)

    def live_visits(self, player: str) -> tuple[np.ndarray, np.ndarray]:
        """``player``'s legal actions at every live core and its expected visits, all
        counter values together (a core's legal actions are the same at every one)."""
        cores = self.play.cores
        live = np.flatnonzero(~cores.terminal)
        masks = cores.mask_a if player == "a" else cores.mask_b
        return masks[live], self.play.core_visits[live]

    def action_values_at(self, state: State) -> np.ndarray:
        """The responder's value of each of his actions at ``state`` against the fixed
        side's mix, the best response played after it (NaN where illegal)."""
        return self.action_values_of([state])[0]

    def action_values_of(self, states: list[State]) -> list[np.ndarray]:
        """``action_values_at`` of each of ``states``, asked together."""
        values, other = self.values, "b" if self.responder == "a" else "a"
        mine = values.cores.mask_a if self.responder == "a" else values.cores.mask_b
        located = [values._locate(state) for state in states]
        found = []
        for (core, point), matrix in zip(located, values.matrices_at(located), strict=True):
            theirs = values.mix_at(other, core, point)   # the fixed side's
            matrix = np.nan_to_num(matrix)
            worth = matrix @ theirs if self.responder == "a" else -(theirs @ matrix)
            found.append(np.where(mine[core], worth, np.nan))
        return found

    def decisions(self, chances: bool = False) -> DecisionTable:
        """Every state where the responder chooses that the play reaches (at least
        ``MIN_REACH``): the state, its chance of being reached, the responder's mix over
        the action list and his value there; with ``chances``, A's (win, draw, loss)
        from there too (all looked up at once: a knockout's plan has 40,000 rows)."""
        solution, game = self.play, self.play.game
        graph = solution.cores
        masks = graph.mask_a if self.responder == "a" else graph.mask_b
        sign = 1.0 if self.responder == "a" else -1.0
        choosing = masks[graph.chooses].sum(axis=1) > 1
        found = _reached_decisions(game, (solution.visits > MIN_REACH) & choosing)
        return DecisionTable(
            found.states, solution.visits[found.point, found.column],
            found.rows(game, solution.mixes[self.responder], self.responder),
            sign * self.values.values_of(found.core, found.point),
            chances_of(self.play, found.core, found.point) if chances else None)


def counter_best_response(game: Game, policy: Policy | str, responder: str,
                          tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS,
                          safest: Policy | None = None) -> CounterResponse:
    """``solver.markov.response.best_response`` over counters: one solve with the best reply
    as the stage rule; with ``safest`` a second one among the tied actions only, with
    the responder's chance of losing as the payoff, whose ties are then played as
    ``safest`` plays them (evenly where it plays none). Where the chance of losing
    follows the value (``losses_follow_value``) the second would keep every tied action:
    the first solve then plays them as ``safest`` does (a level-5 duel's 10 s). Against
    the equilibrium ``safest`` comes from, it is that equilibrium (``_replayed``): no
    solve at all."""
    graph, _, _ = explore(game)
    other = "b" if responder == "a" else "a"
    fixed = counter_mixes(game, policy, other)
    slots = int(graph.slots[responder][-1])
    sign = 1.0 if responder == "a" else -1.0
    if safest is not None and losses_follow_value(game):
        equilibrium = _replayed(game, safest, responder, fixed, (tolerance, max_sweeps))
        if equilibrium is not None:
            return CounterResponse(responder, sign * equilibrium.value, equilibrium,
                                   equilibrium.convergence, tolerance, max_sweeps,
                                   equilibrium)
        reference = counter_mixes(game, safest, responder)
        # its play pushed when first asked: beside an evaluation (``together``), after it
        values = solve_counters(game, tolerance, max_sweeps, rule=BestReply(
            responder, fixed, slots, reference=reference), later=True)
        play = _play_of(safest, values, responder) or values
        return CounterResponse(responder, sign * values.value, values, values.convergence,
                               tolerance, max_sweeps, play)
    best = BestReply(responder, fixed, slots)
    if safest is None:
        values = solve_counters(game, tolerance, max_sweeps, rule=best, statistics=False)
        return CounterResponse(responder, sign * values.value, values, values.convergence,
                               tolerance, max_sweeps, None)
    # two solves in turn, each a part of the task (the time left said counts both)
    with progress.task("the safest best response", 2, "solves", parts=True):
        values = solve_counters(game, tolerance, max_sweeps, rule=best, statistics=False)
        progress.advance(1)
        values.release_mixes(responder)   # the safest play's mixes stand for them
        reference = counter_mixes(game, safest, responder)
        # its values are the responder's chances of losing: nobody reads them
        play = solve_counters(game, tolerance, max_sweeps, rule=BestReply(
            responder, fixed, slots, allowed=best.tied, reference=reference,
            scores=_signed_loss(responder)), values=False)
        progress.advance(1)
    return CounterResponse(responder, sign * values.value, values, values.convergence,
                           tolerance, max_sweeps, play)


#: how close an equilibrium's mixes must be to best replies to each other
#: (``ReplyGaps.spread``), and its cycles to their fixed point (``Convergence.error``),
#: for a best reply to it to be read off it: a reply's own solve, whose values differ from
#: the play's by the spreads summed along it (8.8e-13 at most at level 5), would then tie
#: the same actions (``TIE_TOLERANCE`` apart at most) and play them as the equilibrium does
REPLAYED_GAP = 1e-11


def _replayed(game: Game, safest: Policy, responder: str, fixed: np.ndarray,
              within: tuple[float, int]) -> CounterSolution | None:
    """The equilibrium whose ``responder`` side is ``safest``, where ``fixed`` is its other
    side and its mixes are best replies to each other within ``REPLAYED_GAP``: a best
    reply ties every action it plays, and the safest tie-break plays them as it does (a
    knockout's losses follow the value). Its values are that play's; its push forward
    serves the reply too. None otherwise."""
    if not (isinstance(safest, CounterPolicy) and safest.player == responder
            and safest.solution.reply_gaps is not None):
        return None
    solution, other = safest.solution, "b" if responder == "a" else "a"
    if (same_layout(solution, game, explore(game)[0], None) and solution.start is None
            and solution.mixes[other] is fixed and solution.held is not None
            and solution.plays_forward and solution.pushed_within == within
            and solution.reply_gaps.spread <= REPLAYED_GAP
            and solution.convergence.error <= REPLAYED_GAP):
        return solution
    return None


def _play_of(safest: Policy, response: CounterSolution, responder: str
             ) -> CounterSolution | None:
    """The solution of ``safest`` where ``response`` plays its very mixes, to the last
    bit, against its own other side (a best response to the equilibrium, whose actions
    are all tied for the best and played as it plays them): its push forward, done once
    (the odds against the equilibrium), serves both, and the response's copy of the
    mixes is let go. None where the two plays differ anywhere."""
    solution = getattr(safest, "solution", None)
    other = "b" if responder == "a" else "a"
    if not (isinstance(safest, CounterPolicy) and safest.player == responder
            and same_layout(solution, response.game, response.cores, None)
            and response.start is None and solution.plays_forward
            and response.mixes[other] is solution.mixes[other]
            and np.array_equal(response.mixes[responder], solution.mixes[responder])):
        return None
    response.mixes[responder] = solution.mixes[responder]
    return solution


def pair_mixes(game: Game, policy_a: Policy | str, policy_b: Policy | str,
               start: State | None = None) -> dict:
    return {"a": counter_mixes(game, policy_a, "a", start),
            "b": counter_mixes(game, policy_b, "b", start)}


def counter_evaluate(game: Game, policy_a: Policy | str, policy_b: Policy | str,
                     tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS,
                     start: State | None = None) -> Evaluation:
    """``solver.evaluate`` over counters: the fixed pair's play pushed forward from the
    start, the value its expected payoff. No values are solved state by state: an
    evaluation needs only the start's. The two sides of one solution from the game's
    start are its own play: its push forward, done once and kept with it (with the
    answer store's copy of its statistics), serves this evaluation and whatever else
    asks it (a best response that plays it, a plan's visits). Its value is then the
    solve's where the values are the game's to rounding, else the push's (``worth``),
    if it pushes within this ``tolerance`` and ``max_sweeps``."""
    solution = getattr(policy_a, "solution", None)
    if (start is None and isinstance(policy_a, CounterPolicy) and policy_a.player == "a"
            and isinstance(policy_b, CounterPolicy) and policy_b.player == "b"
            and policy_b.solution is solution and solution.game is game
            and solution.start is None and solution.plays_forward):
        if solution.exact:
            return solution.evaluation
        if solution.pushed_within == (tolerance, max_sweeps):
            evaluation = solution.evaluation
            if solution.worth is not None:   # None: kept by an older version
                return replace(evaluation, value=solution.worth)
    return pushed_forward(game, policy_a, policy_b, tolerance, max_sweeps, start,
                          visits=False)[0]


@dataclass
class CounterChances:
    """A's chances of winning and losing from every state under fixed mixes."""

    win: CounterSolution
    loss: CounterSolution

    def at(self, state: State) -> tuple[float, float, float]:
        """A's (win, draw, loss) from ``state``."""
        win, loss = self.win.value_at(state), self.loss.value_at(state)
        return win, max(0.0, 1.0 - win - loss), loss


def counter_chances(solution: CounterSolution, tolerance: float = TOLERANCE,
                    max_sweeps: int = MAX_SWEEPS) -> CounterChances:
    """Under the mixes of ``solution``, A's chances of winning and losing from every
    state: two evaluations whose payoffs are the indicators of A's win and loss."""
    return CounterChances(*(_chance(solution, sign, tolerance, max_sweeps)
                            for sign in (1.0, -1.0)))


def _chance(solution: CounterSolution, sign: float, tolerance: float,
            max_sweeps: int) -> CounterSolution:
    """Under the mixes of ``solution``, the chance of A's win (``sign`` 1) or loss (-1)
    from every state: an evaluation whose payoff is its indicator."""
    return solve_counters(solution.game, tolerance, max_sweeps, statistics=False,
                          rule=_indicator(solution, sign))


def _indicator(solution: CounterSolution, sign: float) -> FixedPair:
    """Play under the mixes of ``solution``, scored 1 where A wins (``sign`` 1) or loses
    (-1), else 0."""
    return FixedPair(solution.mixes, scores=lambda payoff: (
        sign * np.asarray(payoff) > 0).astype(float))


#: the largest tables (bytes, ``solution_bytes``) of two solves run at once, on two
#: threads; larger ones are solved one after the other, each one's freed first
SIDE_BY_SIDE_BYTES = 256 * 2**20


def fits_side_by_side(game: Game) -> bool:
    """Whether two solves over ``game``'s counters from its start may run at once, on
    two threads (``_tables_fit``)."""
    graph, grid, roots = explore(game)
    return _tables_fit(graph, grid, len(kept_cores(graph, [core for _, core, _ in roots])))


def _tables_fit(graph, grid, kept: int) -> bool:
    """Whether two solves may run at once: the tables of each (a solution's, ``kept``
    cores kept) are small, and the compiled loops may run on two threads at once
    (``compiled.loops_run_side_by_side``)."""
    return solution_bytes(graph, grid, kept) <= SIDE_BY_SIDE_BYTES and loops_run_side_by_side()


def answered_side_by_side(*questions: Callable[[], object]) -> list:
    """The answers of ``questions``: the first asked on this thread (its progress is
    heard here), the others on threads of their own meanwhile."""
    with ThreadPoolExecutor(len(questions) - 1, thread_name_prefix="side by side") as pool:
        # each in a copy of this context: what it says is heard as this thread's
        later = [pool.submit(contextvars.copy_context().run, question)
                 for question in questions[1:]]
        first = questions[0]()
        return [first, *(answer.result() for answer in later)]


def chances_of(solution: CounterSolution, cores: np.ndarray, points: np.ndarray,
               tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS
               ) -> np.ndarray:
    """A's (win, draw, loss), a row each, from the states at ``cores`` and flat ``points``
    under the mixes of ``solution``. Where every play ends in a win or a loss (``decided``) and the
    win's pass solves its cycles exactly, the loss is 1 - the win, to rounding: one pass
    (a level-5 plan's 8 s). Otherwise a pass each: the loss's on a second thread while
    this one solves the win's where they fit (``_tables_fit``), else the win's table is
    freed before the loss's is solved (a large duel's plan holds one at a time). Each
    pass gives the same values either way, read as its layers are solved
    (``values_at``). Where the values of ``solution`` are its play's, close enough, the
    win is read off them (``_wins_in_values``): no pass."""
    wins = _wins_in_values(solution, cores, points)
    if wins is not None:
        return np.column_stack([wins, np.zeros_like(wins), 1.0 - wins])

    def chances(sign: float) -> tuple[np.ndarray, Convergence]:
        return values_at(solution.game, _indicator(solution, sign), cores, points,
                         tolerance, max_sweeps)

    if decided(solution.game):
        wins, convergence = chances(1.0)
        losses = 1.0 - wins if solved_exactly(convergence) else chances(-1.0)[0]
    elif _tables_fit(solution.cores, solution.grid, len(solution._kept)):
        (wins, _), (losses, _) = answered_side_by_side(lambda: chances(1.0),
                                                       lambda: chances(-1.0))
    else:
        (wins, _), (losses, _) = chances(1.0), chances(-1.0)
    return np.column_stack([wins, np.maximum(0.0, 1.0 - wins - losses), losses])


#: how far from its play's an equilibrium's (or a best response's) values may be for the
#: chance of winning to be read off them: their error bound and its largest stage's
#: payoff gap, in chances (a gate, not a bound: a stage's gap adds up along the play;
#: read off at level 5, the chances are those of their own pass within 3e-14; a level-1
#: best response to a trained profile's, within 4.4e-16)
CHANCES_IN_VALUES = 1e-12


def _wins_in_values(solution: CounterSolution, cores: np.ndarray, points: np.ndarray
                    ) -> np.ndarray | None:
    """A's chance of winning from the states at ``cores`` and ``points`` where every play
    ends in a win paying w or a loss paying l: (value - l) / (w - l), read off the
    values of an equilibrium or a best response (their stage values are their mixes'
    expected payoffs, within ``ReplyGaps.payoff``) whose cycles are solved within
    ``CHANCES_IN_VALUES`` of that; None elsewhere."""
    gaps = solution.reply_gaps
    if gaps is None or solution.held is None or not decided(solution.game):
        return None
    pays = np.unique(_end_pays(solution.game))
    if len(pays) != 2 or pays[0] >= 0 or pays[1] <= 0:
        return None
    loss, win = pays.tolist()
    if solution.convergence.error + gaps.payoff > CHANCES_IN_VALUES * (win - loss):
        return None
    return (solution.values_of(cores, points) - loss) / (win - loss)


def decided(game: Game) -> bool:
    """Whether every play of ``game`` ends, in a win or a loss, whatever the players
    choose: no end pays 0 (no terminal situation, no counter run out), and every cycle
    of situations is left with a positive chance at each step (each cyclic block of its
    counters contracts, ``Reduced.contracting``; the layers of counter values are
    finite)."""
    graph, _, _ = explore(game)
    if np.any(_end_pays(game) == 0):
        return False
    return all(not block.cyclic or (block.reduced is not None and block.reduced.contracting)
               for block in graph.blocks)


def losses_follow_value(game: Game) -> bool:
    """Whether a play's chance of losing is given by its expected payoff, the same way
    from every situation: every duel ends (``decided``) and all its wins pay one amount,
    all its losses another, more than 1 apart. Then the chance of losing is
    (win's pay - value) / (win's pay - loss's pay): actions tied for the best value are
    tied for the least chance of losing, by a smaller gap (a knockout's: half)."""
    if not decided(game):
        return False
    pays = np.unique(_end_pays(game))
    wins, losses = pays[pays > 0], pays[pays < 0]
    return len(wins) <= 1 and len(losses) <= 1 and (
        len(wins) == 0 or len(losses) == 0 or bool(wins[0] - losses[0] > 1.0))


def _end_pays(game: Game) -> np.ndarray:
    """What each way a duel ends pays A: its terminal situations, its counters run out."""
    graph, grid, _ = explore(game)
    ran_out = [float(game.payoff(game.depleted(k))) for k in range(len(grid.top))]
    return np.concatenate([graph.payoff[graph.terminal], ran_out])


class CounterPlay:
    """A fixed pair played over the counters, reported where someone chooses
    (``counter_decisions``; the forced states report no choice): the decision states
    and their chance of being reached (``states``, ``visits``), ``live`` the expected
    visits of every live state (a decision's reach is its share of it), and the play's
    ``evaluation``. ``solver.markov.evaluate.GraphPlay`` is the same over the state
    graph."""

    def __init__(self, game: Game, policy_a: Policy, policy_b: Policy):
        self.game = game
        self.every = counter_decisions(game)
        self.evaluation, (reach, visits) = pushed_forward(game, policy_a, policy_b)
        self.visits = reach[self.every.point, self.every.column]
        self.live = float(visits[~explore(game)[0].terminal].sum())
        self.states = self.every.states

    def mixes(self, policy: Policy, player: str) -> np.ndarray:
        """(decisions, actions) ``policy``'s mix as ``player`` at every decision."""
        return self.every.rows(self.game, counter_mixes(self.game, policy, player), player)

    def response_mixes(self, response: CounterResponse) -> np.ndarray:
        """The mixes of a best response (``counter_best_response``) at every decision."""
        return self.every.rows(self.game, response.play.mixes[response.responder],
                               response.responder)
