"""Play under a counter game's solved mixes pushed forward from the start, layer by
layer: A's chances to win and lose, the expected length, the visits of every core and
the ways the game ends."""

from __future__ import annotations

import numpy as np

from .. import progress
from ..game import Game, State
from ..markov.stages import sweep
from . import sums as counter_sums
from .cores import Block, CoreGraph, Part, Reduced, choice_steps
from .grid import Grid, Windows
from .layers import solve_points

#: the entries of the largest working array of one push (a chance for each joint action,
#: or each core, at each of the points pushed together): 128 MB
FLOW_ENTRIES = 2**24


def endings(game: Game, graph: CoreGraph, grid: Grid, ends: list[State],
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


def play_forward(graph: CoreGraph, grid: Grid, roots: list, mixes: dict, payoffs: np.ndarray,
          tolerance: float, max_sweeps: int,
          units: np.ndarray, visits: tuple[np.ndarray, np.ndarray] | None = None
          ) -> tuple[float, float, float, float]:
    """Play under the solved mixes from the roots, pushed forward layer by layer from
    the top (a step lowers the counters or stays in its layer): A's chances to win and
    to lose (ending with a positive or a negative payoff: a depleted counter,
    ``payoffs``, or a terminal core), the expected length (each visit of a core in
    ``units`` counts one) and the expected payoff. ``visits``, when given, receives the
    chance of reaching each core where someone chooses by point (points, choosing cores)
    and the expected visits of every core over all points (cores,)."""
    # the chance of arriving at each landing core by point (``Grid.column``); row 0's
    # column of counter k depleted: the chance of depleting it
    arriving = np.zeros((len(graph.landing), grid.columns))
    layer_of = np.empty(grid.size, dtype=np.int64)
    for number, points in enumerate(grid.layers):
        layer_of[points] = number
    final = graph.payoff[graph.terminal]
    ending = np.sign(final)
    steps, win, loss, worth = 0.0, 0.0, 0.0, 0.0
    gather = graph.landings.gather
    at_once = max(1, FLOW_ENTRIES // max(len(graph.pair_core), graph.size))
    room = _Room(graph, min(at_once, max(map(len, grid.layers), default=1)))
    # play only lowers the counters: the layers above the highest root's hold no chance
    # (a moment's push skips them, and changes nothing by it)
    highest = max(int(layer_of[point]) for _, _, point in roots)
    for first, last in reversed(grid.reads):
        if first > highest:
            progress.advance(sum(len(p) for p in grid.layers[first:last]),
                             "play pushed forward")
            continue
        together, starts = grid.together(first, last)
        # each kernel's chance at the layers' points, pushed down once they are all known
        summed = np.zeros((gather.shape[0], len(together)))
        if last > highest + 1:
            progress.advance(sum(len(p) for p in grid.layers[highest + 1:last]),
                             "play pushed forward")
        for number in range(min(last, highest + 1) - 1, first - 1, -1):
            layer, at = grid.layers[number], starts[number - first]
            # a layer's points play apart (a step stays at its point or lowers it):
            # pushed a few at a time, the working arrays stay small on large grids
            for begin in range(0, len(layer), at_once):
                points = layer[begin:begin + at_once]
                flow = _layer_flow(graph, grid, points, arriving, roots, mixes, tolerance,
                                   max_sweeps, units, visits, room)
                progress.advance(len(points), "play pushed forward")
                steps += flow.steps
                ended = flow.inflow[graph.terminal].sum(axis=1)
                win += float(ended[ending > 0].sum())
                loss += float(ended[ending < 0].sum())
                worth += float(ended @ final)
                written = summed[:, at + begin:at + begin + len(points)]
                counter_sums.times(gather, flow.pairs, written, add=False)
        feed(graph, grid, together, summed, arriving)
    depleted = arriving[:, grid.column[grid.size:]].sum(axis=0)
    return (win + float(depleted[payoffs > 0].sum()), loss + float(depleted[payoffs < 0].sum()),
            steps, worth + float(depleted @ payoffs))


def _layer_flow(graph: CoreGraph, grid: Grid, points: np.ndarray, arriving: np.ndarray,
                roots: list, mixes: dict, tolerance: float, max_sweeps: int,
                units: np.ndarray, visits: tuple | None, room: _Room) -> _Flow:
    """The play at ``points`` (of one layer), from what arrives there and the roots
    among them."""
    inflow = room.inflow(len(points))
    inflow[graph.landing] = arriving[:, grid.span(points)]
    column = {int(point): i for i, point in enumerate(points)}
    for p, core, point in roots:
        if point in column:
            inflow[core, column[point]] += p
    flow = _Flow(graph, points, mixes, inflow, tolerance, max_sweeps, units, visits,
                 room.pairs(len(points)))
    for block in reversed(graph.blocks):
        flow.block(block)
    return flow


def feed(graph: CoreGraph, grid: Grid, points: np.ndarray, summed: np.ndarray,
          arriving: np.ndarray) -> None:
    """Add to ``arriving`` (landing cores, ``Grid.column``; the depleted columns in row
    0) the chance that the pairs lower a counter into each landing core, from each
    kernel's chance at ``points`` (``summed``: ``Landings.gather`` times the chance of
    playing each pair)."""
    land = graph.landings
    windows = Windows.of(grid, points, graph.moves)
    dead = counter_sums.push_forward(summed, arriving, *land.sums(), *windows.sums(),
                                     grid.size)
    if len(arriving):  # no landing core (no move lowers a counter): nothing depletes
        arriving[0, grid.column[grid.size:]] += dead.sum(axis=0)


class _Room:
    """The working arrays of a push, allocated once, as wide as its widest chunk of
    points, and handed to each chunk. Fresh arrays for each chunk had the system map
    and clear new pages every time (a level-5 duel's chance of each joint action:
    133 MB, 72 times over): its push took 8.6 to 9.8 s, against 6.4 to 6.9 s so."""

    def __init__(self, graph: CoreGraph, width: int):
        self._pairs = np.empty((len(graph.pair_core), width))
        self._inflow = np.empty((graph.size, width))

    def pairs(self, width: int) -> np.ndarray:
        """(pairs, width), contiguous, to be written whole."""
        return _first_columns(self._pairs, width)

    def inflow(self, width: int) -> np.ndarray:
        """(cores, width) of zeros, contiguous."""
        found = _first_columns(self._inflow, width)
        found.fill(0.0)
        return found


def _first_columns(held: np.ndarray, width: int) -> np.ndarray:
    """A contiguous (rows, width) array in the memory of ``held`` (rows, at least width)."""
    return held.reshape(-1)[:len(held) * width].reshape(len(held), width)


class _Flow:
    """The chance of play at one layer's points, pushed block by block in the order
    play goes (predecessors first): ``pairs`` (pairs, points) of playing each joint
    action (every row is written: each part is pushed once); ``inflow`` collects what
    reaches the cores not yet done. As each part's chance of being at its cores is
    known, the expected number of ``units`` opened is added to ``steps``, and
    ``visits`` (see ``play_forward``) are filled."""

    def __init__(self, graph: CoreGraph, points: np.ndarray, mixes: dict,
                 inflow: np.ndarray, tolerance: float, max_sweeps: int,
                 units: np.ndarray, visits: tuple[np.ndarray, np.ndarray] | None,
                 pairs: np.ndarray):
        self.graph, self.points, self.inflow = graph, points, inflow
        self.tolerance, self.max_sweeps = tolerance, max_sweeps
        self.units, self.visits, self.steps = units, visits, 0.0
        self.pairs = pairs
        #: player -> (slots + 1, points) the mixes at the layer's points, by slot (see
        #: ``Part.slots``), then a row of ones
        self.mixes = {player: np.vstack([mix[points].T, np.ones(len(points))])
                      for player, mix in mixes.items()}

    def weights(self, part: Part) -> np.ndarray:
        """The probability of each of the part's pairs under the mixes (pairs, points)."""
        return self.mixes["a"][part.slots["a"]] * self.mixes["b"][part.slots["b"]]

    def push(self, part: Part, mass: np.ndarray) -> None:
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

    def block(self, block: Block) -> None:
        if not block.cyclic:
            part, = block.parts
            self.push(part, self.inflow[part.cores])
        elif block.reduced is None or not self.reduced(block.reduced):
            self.cyclic(block)

    def reduced(self, reduced: Reduced) -> bool:
        """A cyclic block through its choice cores: what reaches them, directly or
        through the block's chance steps, solved at every point at once; then the
        chance steps in play order. False if play there may never end (singular)."""
        head = reduced.choice
        chance = np.concatenate([part.cores for part in reduced.chance])
        weight = self.weights(head)
        arrive = self.inflow[head.cores] + reduced.routes.T @ self.inflow[chance]
        step = choice_steps(reduced, weight)
        found = solve_points(np.eye(len(head.cores)) - step.transpose(0, 2, 1), arrive.T)
        if found is None:
            return False
        self.push(head, found.T)
        for part in reversed(reduced.chance):
            self.push(part, self.inflow[part.cores])
        return True

    def cyclic(self, block: Block) -> None:
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

        sweep([(np.arange(len(block.cores)), True)], mass, update,
              self.tolerance, self.max_sweeps, "the chances of each ending")
        for part, _ in parts:
            self.push(part, mass[local[part.cores]])
