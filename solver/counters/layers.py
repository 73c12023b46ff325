"""The values and mixes of every core at one layer of counter values: blocks in
dependency order, each stage settled by the rule (``solver.counters.stage_rules``);
cyclic blocks by policy-evaluation steps and value iteration."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..markov.stages import Convergence, sweep
from . import sums as counter_sums
from .cores import Block, CoreGraph, Group, Part, Reduced, choice_steps
from .grid import Grid, Windows
from .stage_rules import StageRule

#: at most this many policy-evaluation steps before the value iteration of a contracting
#: block: each solves the stage games once, then the block's values under those mixes
#: exactly (they stop when the values no longer move; two or three usually do)
NEWTON_STEPS = 6


class Record:
    """The layers' value iterations summed into one ``Convergence``. Errors add along a
    chain: the blocks of a slice of points, in order, then the layers, each resting on
    those below. The slices of one layer are apart (a point's values rest on its own
    and the layers below), so a layer adds the largest of its slices' errors."""

    def __init__(self, tolerance: float):
        self.tolerance, self.sweeps, self.residual, self.converged = tolerance, 0, 0.0, True
        self.cyclic, self.error = False, 0.0
        #: the layer of the slice being solved, the largest error of its slices before,
        #: and this slice's so far
        self._layer, self._widest, self._slice = None, 0.0, 0.0

    def add(self, convergence: Convergence) -> None:
        self.sweeps += convergence.sweeps
        self.residual = max(self.residual, convergence.residual)
        self.converged = self.converged and convergence.converged
        self.cyclic = self.cyclic or convergence.cyclic
        self._slice += convergence.error

    def slice_of(self, layer: int) -> None:
        """What is added next is a slice of points of ``layer`` (layers in order)."""
        self._widest = max(self._widest, self._slice)
        if layer != self._layer:
            self.error += self._widest
            self._layer, self._widest = layer, 0.0
        self._slice = 0.0

    def convergence(self) -> Convergence:
        return Convergence(self.cyclic, self.sweeps, self.residual, self.tolerance,
                           self.converged, self.error + max(self._widest, self._slice))


def solve_layer(graph: CoreGraph, grid: Grid, points: np.ndarray, reading: tuple,
                 mixes: dict, record: Record, tolerance: float, max_sweeps: int,
                 rule: StageRule) -> np.ndarray:
    """The value (cores, points) of every core at ``points``, one layer, each stage
    settled by ``rule``; the mixes are written into ``mixes``. ``reading`` is what the
    steps that lower a counter bring at ``points`` (``read_lowered``), the landing cores'
    values by point (earlier layers filled) and the terminal cores' payoffs (as the
    rule scores them)."""
    known, landed, ends = reading
    layer = np.zeros((graph.size, len(points)))
    layer[graph.terminal] = ends[:, None]

    def stage_values(part: Part) -> np.ndarray:
        return counter_sums.times(part.zero, layer, counter_sums.times(part.lowering, known))

    def values_in_place(part: Part) -> np.ndarray:
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

    def solve_part(part: Part, continuation: np.ndarray) -> None:
        for group in part.groups:
            layer[part.cores[group.members]] = _stage(rule.values, group, continuation,
                                                      points)

    def solve(block: Block) -> None:
        for part in block.parts:
            solve_part(part, stage_values(part))

    def chance_values(reduced: Reduced) -> None:
        for part in reduced.chance:
            values_in_place(part)

    def solve_reduced(block: Block) -> None:
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
            return base + counter_sums.times(reduced.links, layer[head.cores])

        if reduced.contracting:
            # any start reaches the one fixed point: the values a few hit points down
            # lead to it, and their mixes are usually already the right ones
            layer[head.cores] = _neighbour_values(graph, grid, points, landed, head.cores)
        for _ in range(NEWTON_STEPS if reduced.contracting else 0):
            weight, extra = _mix_weights(head, continuation(), points, rule)
            found = _policy_values(reduced, weight, base, extra)
            if found is None:
                break
            moved = np.max(np.abs(found - layer[head.cores]), initial=0.0)
            layer[head.cores] = found
            if moved <= tolerance or rule.played_as_given:
                break
        schedule = [(head.cores, True)]
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
            schedule = [(block.cores, block.cyclic)]
            record.add(sweep(schedule, layer, lambda _, b=block: solve(b), tolerance,
                             max_sweeps, "the value"))
            for part in block.parts:
                _settle(part, stage_values(part), points, mixes, rule)
    return layer


def _stage(method: Callable, group: Group, continuation: np.ndarray,
           points: np.ndarray) -> np.ndarray:
    """(k, points) what a rule's ``method`` makes of the group's stage games; a stage
    with one joint action is worth its continuation whatever the rule."""
    games = continuation[group.pairs]                      # (k, r, c, L)
    if games.shape[1] * games.shape[2] == 1:
        return games[:, 0, 0]
    return method(games, group.places, points)


def _neighbour_values(graph: CoreGraph, grid: Grid, points: np.ndarray, landed: np.ndarray,
                      cores: np.ndarray) -> np.ndarray:
    """(cores, points) a first guess of the values of ``cores`` at each point, from its
    neighbours one and two drops below its layer (``Grid.lowered``, solved at layers
    before): on the line through both where both are known, the nearer one's value
    where only it is, 0 elsewhere. Along the line, the guess moves as the values
    below did: the policy-evaluation steps it starts took 522 at level 5 instead of
    600 from the nearer value alone."""
    guess = np.zeros((len(cores), len(points)))
    position = np.searchsorted(graph.landing, cores)
    known = (position < len(graph.landing)) & (
        graph.landing[np.minimum(position, len(graph.landing) - 1)] == cores)
    near, far = grid.lowered(points), grid.lowered(points, drops=2)
    live = near >= 0
    if not (known.any() and live.any()):
        return guess
    rows = position[known]
    found = landed[np.ix_(rows, grid.column[near[live]])]
    both = far[live] >= 0
    found[:, both] = 2 * found[:, both] - landed[np.ix_(rows, grid.column[far[live][both]])]
    guess[np.ix_(known, live)] = found
    return guess


def _policy_values(reduced: Reduced, weight: np.ndarray, constant: np.ndarray,
                   extra: np.ndarray | None = None) -> np.ndarray | None:
    """The values x (cores, points) of a reduced block's choice cores when each plays
    its pairs with probability ``weight`` (pairs, points) and gains ``extra`` (cores,
    points; none if None) besides: at every point x = M (constant + links x) + extra, M
    the weights summed per core; one linear solve per point. None where play under the
    weights may never end (singular)."""
    part = reduced.choice
    mixed = counter_sums.weighted_sums(weight, constant, part.offsets)
    if extra is not None:
        mixed = mixed + extra
    found = solve_points(np.eye(len(part.cores)) - choice_steps(reduced, weight), mixed.T)
    return None if found is None else found.T


def solve_points(matrices: np.ndarray, right: np.ndarray) -> np.ndarray | None:
    """Solutions of matrices[i] x = right[i] (points, n); None if one is singular or
    the answer is not finite."""
    try:
        found = np.linalg.solve(matrices, right[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:
        return None
    return found if np.all(np.isfinite(found)) else None


def _mix_weights(part: Part, continuation: np.ndarray, points: np.ndarray,
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


def read_lowered(graph: CoreGraph, grid: Grid, points: np.ndarray, landed: np.ndarray
             ) -> np.ndarray:
    """What the steps that lower a counter bring at ``points``, known from earlier
    layers (``landed``: the landing cores' rows of the solution's table,
    ``Grid.column``), per kernel (kernels, points; a pair's is the sum of its kernels',
    ``Part.lowering``)."""
    windows = Windows.of(grid, points, graph.moves)
    return counter_sums.read_back(landed, *graph.landings.sums(), *windows.sums(), grid.size)


def _settle(part: Part, continuation: np.ndarray, points: np.ndarray, mixes: dict,
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
