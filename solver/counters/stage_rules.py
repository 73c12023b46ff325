"""How one stage of a counter game is settled: the rule ``solver.counters`` applies to
every group of stage games it meets, so that the same layer-by-layer solver answers
four questions.

A rule sees a group's stage games ``games`` (k cores, rows = A's legal actions,
cols = B's, points), continuation values **to A**, with ``places`` (player -> (k,
actions) or None for a single action: where each core's mix over its legal actions
lives in the solver's mixes, ``mixes[player]`` of shape (grid points, slots)) and the
flat ``points``. It gives

- ``values``: the value of each stage game (value iteration);
- ``play``: both sides' mixes under the rule's play ((k, points, actions) each), and
  what the play adds to a core's value beside its payoff (None, or (k, points): the
  KL penalty of a regularised player), for policy-evaluation (Newton) steps;
- ``settle``: the final values, writing into ``mixes`` the mixes of the players it
  chooses for.

``fixed`` (player -> mixes in the solver's layout) holds the sides a rule does not
choose for: the solution takes those arrays as its mixes as they are, so that an
evaluation or a best response never holds a second copy of a policy it was given.

``scores`` maps the payoffs of the game's ends before solving (the safest best
response minimises the chance of losing: the payoff becomes a loss indicator).

The rules: ``Equilibrium`` (the maximum-entropy equilibrium), ``BestReply`` (one side
against the other's fixed mixes), ``FixedPair`` (both mixes fixed: an evaluation) and
``Regularized`` (``solver.markov.regularized``'s stage problem against a best responder).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from ..markov.regularized import regularized_maxmin
from ..matrix import solve_matrices
from . import sums as counter_sums
from .gaps import WHOLE, ReplyGaps, largest_gap, reply_gaps

#: best-response actions whose values are this close count as tied (as on the state graph)
TIE_TOLERANCE = 1e-9


class StageRule(Protocol):
    """What ``solver.counters`` asks of a rule (see the module)."""

    scores: Callable[[np.ndarray], np.ndarray] | None
    fixed: dict[str, np.ndarray]
    #: whether ``play`` gives the same mixes whatever the values (both sides fixed): one
    #: policy-evaluation step then finds a block's values, a second would repeat it
    played_as_given: bool

    def values(self, games: np.ndarray, places: dict, points: np.ndarray) -> np.ndarray: ...

    def play(self, games: np.ndarray, places: dict, points: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]: ...

    def settle(self, games: np.ndarray, places: dict, points: np.ndarray,
               mixes: dict) -> np.ndarray: ...


def gather(mixes: np.ndarray, place: np.ndarray | None, points: np.ndarray,
           k: int) -> np.ndarray:
    """(k, points, actions) the mixes of a group's cores at ``points``; a single legal
    action (``place`` None) plays it for sure."""
    if place is None:
        return np.ones((k, len(points), 1))
    return mixes[points[None, :, None], place[:, None, :]]


def scatter(mixes: np.ndarray, place: np.ndarray | None, points: np.ndarray,
            mix: np.ndarray) -> None:
    """Write (k, points, actions) mixes of a group's cores (nothing for a single action)."""
    if place is not None:
        counter_sums.write_mixes(mixes, place, points, mix)


def _stacked(games: np.ndarray) -> np.ndarray:
    k, r, c, width = games.shape
    return games.transpose(0, 3, 1, 2).reshape(k * width, r, c)


class WarmStarts:
    """Where a group's next stage solve starts (``start``, by group ``key``): a layer
    solves nearly the same games several times (policy-evaluation steps, sweeps, the
    final mixes), so from the group's last answers at these points; its first solve of
    a layer from, at each point, the answer at its neighbour just below the layer
    (``solver.counters.Grid.lowered``), solved at the layer before (NaN where there is
    none; nothing without a ``grid``). A large layer is solved a slice of its points at
    a time (``solver.counters.solution.points_at_once``): the layer before is read
    whole, all its slices. ``keep`` records a solve's answers (k cores * points,
    ...)."""

    def __init__(self, grid=None):
        self.grid, self.last = grid, {}
        #: key -> (layer, {first point: (points, answers (k, points, ...))}): the group's
        #: last answers at each slice of the layer it was last solved at (``solved``),
        #: and of the one before it (``below``)
        self.solved, self.below = {}, {}
        #: key -> the slices of the layer below it read last, joined once
        #: (``_joined_layer``): each slice of the next layer reads the whole layer
        self._joined = {}

    def start(self, key, points: np.ndarray, k: int,
              earlier: Callable[[], np.ndarray | None] | None = None) -> np.ndarray | None:
        """The group's last answers at ``points``; at its first solve there, the
        ``earlier`` answers (another solve of the same games: NaN rows where it has
        none), the neighbours' below filling their gaps."""
        at = (int(points[0]), len(points))
        if self.last.get("points") != at:
            self.last = {"points": at}   # only these points' answers come back
        known = self.last.get(key)
        if known is not None:
            return known
        below = self._from_below(key, points, k)
        found = None if earlier is None else earlier()
        if found is None or below is None:
            return below if found is None else found
        return np.where(np.isnan(found).any(axis=1, keepdims=True), below, found)

    def keep(self, key, points: np.ndarray, answers: np.ndarray, k: int) -> None:
        self.last[key] = answers
        if self.grid is None:
            return
        layer = int(self.grid.floor[points[0]])
        known = self.solved.get(key)
        if known is None or known[0] != layer:
            if known is not None:
                self.below[key] = known   # the layer before, every slice of it solved
            known = self.solved[key] = (layer, {})
        known[1][int(points[0])] = (points, answers.reshape(k, len(points), -1))

    def _from_below(self, key, points: np.ndarray, k: int) -> np.ndarray | None:
        if self.grid is None:
            return None
        known = self.solved.get(key)
        layer = int(self.grid.floor[points[0]])
        below = known if known is not None and known[0] != layer else self.below.get(key)
        if below is None:
            return None
        lower, order, answers = self._joined_layer(key, below)
        flat = self.grid.lowered(points)
        place = np.minimum(np.searchsorted(lower, flat), len(lower) - 1)
        at = np.where((flat >= 0) & (lower[place] == flat), order[place], -1)
        start = np.where((at >= 0)[None, :, None], answers[:, np.maximum(at, 0)], np.nan)
        return start.reshape(k * len(points), -1)

    def _joined_layer(self, key, below: tuple) -> tuple:
        """A layer's answers (``below``) in one array (k, points, ...), its points
        sorted, and the place of each of those in the array; joined again when a slice
        was kept since."""
        slices = list(below[1].values())
        joined = self._joined.get(key)
        if joined is None or len(joined[0]) != len(slices) or any(
                mine is not theirs for mine, theirs in zip(joined[0], slices, strict=True)):
            points = np.concatenate([at for at, _ in slices])
            order = np.argsort(points)
            answers = np.concatenate([found for _, found in slices], axis=1)
            joined = self._joined[key] = (slices, points[order], order, answers)
        return joined[1:]


class Equilibrium:
    """Today's rule: the maximum-entropy equilibrium of every stage game, any optimal
    pair for Newton steps, by the batched matrix solver started from each group's
    ``WarmStarts`` (given the ``grid``). ``stage_values``, when given, computes the
    stage games' values instead, those of the sweeps and of the final settling alike (a
    benchmark's reference solver; the mixes are still the batched solver's)."""

    scores = None
    played_as_given = False

    def __init__(self, stage_values: Callable[[np.ndarray], np.ndarray] | None = None,
                 grid=None):
        self.stage_values = stage_values
        self.starts = WarmStarts(grid)
        self.fixed = {}
        #: how far the settled mixes are from best replies to each other, over every stage
        self.gaps = ReplyGaps(0.0, 0.0)

    def _solve(self, games, places, points, max_entropy: bool = False):
        """Solutions (k, points, ...) of the group's games, read where they are."""
        k, r, _, width = games.shape
        key = id(places)
        start = self.starts.start(key, points, k)
        if start is not None:
            start = start.reshape(k, width, -1)
            start = start[:, :, :r], start[:, :, r:]
        solved = solve_matrices(games.transpose(0, 3, 1, 2), max_entropy=max_entropy,
                                start=start)
        self.starts.keep(key, points, np.concatenate([solved.row, solved.col], axis=2).reshape(
            k * width, -1), k)
        return solved

    def values(self, games, places, points) -> np.ndarray:
        k, _, _, width = games.shape
        if self.stage_values is not None:
            return self.stage_values(_stacked(games)).reshape(k, width)
        return self._solve(games, places, points).value

    def play(self, games, places, points):
        solved = self._solve(games, places, points)
        return solved.row, solved.col, None

    def settle(self, games, places, points, mixes) -> np.ndarray:
        solved = self._solve(games, places, points, max_entropy=True)
        scatter(mixes["a"], places["a"], points, solved.row)
        scatter(mixes["b"], places["b"], points, solved.col)
        value = (solved.value if self.stage_values is None
                 else self.values(games, places, points))
        self.gaps = self.gaps.widest(reply_gaps(games, solved.row, solved.col, value))
        return value


class FixedPair:
    """Both sides play fixed mixes (``fixed[player]`` in the solver's layout): the
    value of each stage is the mixes' expectation, a policy evaluation."""

    played_as_given = True

    def __init__(self, fixed: dict[str, np.ndarray],
                 scores: Callable[[np.ndarray], np.ndarray] | None = None):
        self.fixed, self.scores = fixed, scores

    def _mixes(self, games, places, points):
        k = games.shape[0]
        return (gather(self.fixed["a"], places["a"], points, k),
                gather(self.fixed["b"], places["b"], points, k))

    def values(self, games, places, points) -> np.ndarray:
        row, col = self._mixes(games, places, points)
        return np.einsum("kijl,kli,klj->kl", games, row, col)

    def play(self, games, places, points):
        return *self._mixes(games, places, points), None

    def settle(self, games, places, points, mixes) -> np.ndarray:
        return self.values(games, places, points)


class BestReply:
    """``responder`` maximises his own payoff against the other side's fixed mixes
    (``fixed``, the solver's layout). ``allowed`` (points, responder's slots; None: all)
    restricts his actions. ``settle`` records in ``tied`` (points, slots) the actions
    within ``TIE_TOLERANCE`` of his best and plays them as ``reference`` (points,
    slots) weighs them, evenly where it gives them nothing."""

    played_as_given = False

    def __init__(self, responder: str, fixed: np.ndarray, slots: int,
                 allowed: np.ndarray | None = None, reference: np.ndarray | None = None,
                 scores: Callable[[np.ndarray], np.ndarray] | None = None):
        self.responder, self.scores = responder, scores
        self.other = "b" if responder == "a" else "a"
        self.fixed = {self.other: fixed}
        self.sign = 1.0 if responder == "a" else -1.0
        self.allowed, self.reference = allowed, reference
        self.tied = np.zeros((fixed.shape[0], slots), bool)
        #: how far the stage values (the best reply's) are from what the mixes settled
        #: pay, spread over actions tied within ``TIE_TOLERANCE``; the fixed side is no
        #: best reply (its spread is infinite); None where the values are ``scores``'
        self.gaps = None if scores is not None else ReplyGaps(np.inf, 0.0)

    def _own(self, games, places, points):
        """(k, points, actions) the responder's value of each own action (allowed ones;
        -inf elsewhere) and the fixed side's mixes (k, points, actions)."""
        k = games.shape[0]
        fixed = gather(self.fixed[self.other], places[self.other], points, k)
        if self.responder == "a":
            own = np.einsum("kijl,klj->kli", games, fixed)
        else:
            own = -np.einsum("kijl,kli->klj", games, fixed)
        place = places[self.responder]
        if self.allowed is not None and place is not None:
            own = np.where(gather(self.allowed, place, points, k), own, -np.inf)
        return own, fixed

    def values(self, games, places, points) -> np.ndarray:
        own, _ = self._own(games, places, points)
        return self.sign * own.max(axis=2)

    def _pair(self, reply: np.ndarray, fixed: np.ndarray):
        return (reply, fixed) if self.responder == "a" else (fixed, reply)

    def play(self, games, places, points):
        own, fixed = self._own(games, places, points)
        reply = (own == own.max(axis=2, keepdims=True)).astype(float)
        reply /= reply.sum(axis=2, keepdims=True)
        return *self._pair(reply, fixed), None

    def settle(self, games, places, points, mixes) -> np.ndarray:
        own, fixed = self._own(games, places, points)
        best = own.max(axis=2, keepdims=True)
        tied = np.isfinite(own) & (own >= best - TIE_TOLERANCE)
        place = places[self.responder]
        weights = tied.astype(float)
        kept = None
        if place is not None:
            scatter(self.tied, place, points, tied)
            if self.reference is not None:
                reference = gather(self.reference, place, points, len(own))
                preferred = np.where(tied, reference, 0.0)
                weights = np.where(preferred.sum(axis=2, keepdims=True) > 0, preferred, tied)
                kept = _kept_whole(reference, tied)
        reply = weights / weights.sum(axis=2, keepdims=True)
        if kept is not None:
            reply = np.where(kept, reference, reply)
        scatter(mixes[self.responder], place, points, reply)
        if self.gaps is not None:
            paid = np.where(reply > 0, own, 0.0)
            self.gaps = self.gaps.widest(
                ReplyGaps(np.inf, largest_gap((reply * paid).sum(axis=2) - best[:, :, 0])))
        return self.sign * best[:, :, 0]


def _kept_whole(reference: np.ndarray, tied: np.ndarray) -> np.ndarray:
    """(k, points, 1) where a best reply plays ``reference``'s mix as it is: all its
    weight on tied actions, summing to 1 within ``WHOLE``. Dividing it by its sum again
    would move its last bits, and a best response to the equilibrium would no longer be the
    equilibrium's very play, whose push forward is then done once
    (``solver.counters.play.counter_best_response``)."""
    total = reference.sum(axis=2, keepdims=True)
    return (np.all(tied | (reference == 0), axis=2, keepdims=True)
            & (np.abs(total - 1.0) <= WHOLE))


class Regularized:
    """``player`` plays ``max_x min_y x^T Q y - beta KL(x || prior)`` at every stage
    (``solver.markov.regularized.regularized_maxmin``, ``priors`` in the solver's layout), the
    other side a minimising reply."""

    scores = None
    played_as_given = False

    def __init__(self, player: str, priors: np.ndarray, beta: float, grid=None,
                 near: np.ndarray | None = None):
        self.player, self.priors, self.beta = player, priors, beta
        self.sign = 1.0 if player == "a" else -1.0
        self.other = "b" if player == "a" else "a"
        self.fixed = {}
        #: the largest duality gap of a stage problem settled
        self.gap = 0.0
        #: each group's problems start from its last answers (``WarmStarts``), at first
        #: from ``near``: the other side's mixes, in the solver's layout, of this game's
        #: solve at a nearby beta
        self.starts, self.near = WarmStarts(grid), near

    def _solve(self, games, places, points):
        """The stage problems from the player's side: rows are his actions."""
        k, _, _, width = games.shape
        own = _stacked(games if self.player == "a" else -games.transpose(0, 2, 1, 3))
        prior = gather(self.priors, places[self.player], points, k).reshape(k * width, -1)
        key = id(places)
        start = self.starts.start(key, points, k, lambda: self._near(places, points, k))
        solved = regularized_maxmin(own, self.beta, prior, start=start)
        self.starts.keep(key, points, solved.col, k)
        return solved, k, width

    def _near(self, places, points, k) -> np.ndarray | None:
        """(k * points, actions) the other side's mixes of the nearby solve at these
        stage games; NaN rows where it has none (a point it never settled)."""
        if self.near is None:
            return None
        found = gather(self.near, places[self.other], points, k).reshape(k * len(points), -1)
        return np.where(found.sum(axis=1, keepdims=True) > 0, found, np.nan)

    def values(self, games, places, points) -> np.ndarray:
        solved, k, width = self._solve(games, places, points)
        return self.sign * solved.value.reshape(k, width)

    def _mixes(self, solved, k, width):
        mine, reply = solved.row.reshape(k, width, -1), solved.col.reshape(k, width, -1)
        return (mine, reply) if self.player == "a" else (reply, mine)

    def play(self, games, places, points):
        solved, k, width = self._solve(games, places, points)
        # the value under these mixes is their payoff minus the KL penalty: x^T Q y is
        # what the weights give, the rest is (value - x^T Q y)
        own = games if self.player == "a" else -games.transpose(0, 2, 1, 3)
        payoff = np.einsum("bij,bi,bj->b", _stacked(own), solved.row, solved.col)
        extra = self.sign * (solved.value - payoff).reshape(k, width)
        return *self._mixes(solved, k, width), extra

    def settle(self, games, places, points, mixes) -> np.ndarray:
        solved, k, width = self._solve(games, places, points)
        self.gap = max(self.gap, float(solved.gap.max(initial=0.0)))
        row, col = self._mixes(solved, k, width)
        scatter(mixes["a"], places["a"], points, row)
        scatter(mixes["b"], places["b"], points, col)
        return self.sign * solved.value.reshape(k, width)
