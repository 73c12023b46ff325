"""CFR+ on the unrolled tree of ``solver.hidden.sequence``: a second, independent way to the
equilibrium of a game with hidden types, to cross-check the sequence-form program.

Vectorised over sequences: a player's counterfactual values are the payoff matrix times
the opponent's realisation plan, folded up information set by information set, level by
level (a level is the depth in the player's own sequence tree). Regret matching+ with
alternating updates and linearly weighted averages (Tammelin et al. 2015); the average
is kept as a realisation plan, which is linear in the strategy, so its exploitability
is computed exactly by ``solver.hidden.exploitability_of``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .sequence import Sequences, Tree, exploitability_of


@dataclass
class Level:
    """The information sets of one depth: their sequences, concatenated."""

    sets: np.ndarray      # information sets
    seqs: np.ndarray      # their sequences, set after set
    starts: np.ndarray    # where each set's sequences start in ``seqs``
    owner: np.ndarray     # for each entry of ``seqs``: its set's position in ``sets``
    parents: np.ndarray   # each set's parent sequence


def levels(sequences: Sequences) -> list[Level]:
    """The information sets grouped by depth, shallowest first."""
    owner_of_seq = np.full(sequences.count, -1)
    depth = np.zeros(len(sequences.parent), dtype=np.int64)
    for index, parent in enumerate(sequences.parent):
        width = int(sequences.mask[index].sum())
        owner_of_seq[sequences.first[index]: sequences.first[index] + width] = index
        depth[index] = 0 if parent == 0 else depth[owner_of_seq[parent]] + 1
    result = []
    for d in range(int(depth.max(initial=-1)) + 1):
        sets = np.flatnonzero(depth == d)
        widths = np.array([int(sequences.mask[i].sum()) for i in sets])
        seqs = np.concatenate([np.arange(sequences.first[i], sequences.first[i] + w)
                               for i, w in zip(sets, widths, strict=True)])
        starts = np.concatenate([[0], np.cumsum(widths)[:-1]])
        owner = np.repeat(np.arange(len(sets)), widths)
        parents = np.asarray([sequences.parent[i] for i in sets])
        result.append(Level(sets, seqs, starts, owner, parents))
    return result


class CFRPlus:
    """CFR+ for both players of ``tree``; ``run(iterations)`` then ``average_plans()``."""

    def __init__(self, tree: Tree):
        self.tree = tree
        self.payoff = tree.payoff_matrix()
        self.levels = {p: levels(tree.players[p]) for p in ("a", "b")}
        self.regrets = {p: np.zeros(tree.players[p].count) for p in ("a", "b")}
        self.average = {p: np.zeros(tree.players[p].count) for p in ("a", "b")}
        self.iterations = 0

    def plan(self, player: str) -> np.ndarray:
        """The realisation plan of regret matching+ on the current regrets."""
        positive = np.maximum(self.regrets[player], 0.0)
        plan = np.zeros_like(positive)
        plan[0] = 1.0
        for level in self.levels[player]:
            weights = positive[level.seqs]
            totals = np.add.reduceat(weights, level.starts)
            widths = np.diff(np.append(level.starts, len(level.seqs)))
            mix = np.where(totals[level.owner] > 0,
                           weights / np.where(totals > 0, totals, 1.0)[level.owner],
                           1.0 / widths[level.owner])
            plan[level.seqs] = plan[level.parents[level.owner]] * mix
        return plan

    def _update(self, player: str) -> None:
        theirs = self.plan("b" if player == "a" else "a")
        sign = 1.0 if player == "a" else -1.0
        values = sign * np.asarray(self.payoff @ theirs if player == "a"
                                   else self.payoff.T @ theirs, dtype=float)
        own = self.plan(player)
        regrets = self.regrets[player]
        for level in reversed(self.levels[player]):
            # the set's value under the current mix; its sequences' mix is plan / parent
            parent_reach = own[level.parents[level.owner]]
            mix = np.divide(own[level.seqs], parent_reach, out=np.zeros(len(level.seqs)),
                            where=parent_reach > 0)
            if np.any(parent_reach <= 0):  # unreached by the plan: the mix of its regrets
                mix = np.where(parent_reach > 0, mix, self._local_mix(player, level))
            set_values = np.add.reduceat(mix * values[level.seqs], level.starts)
            regrets[level.seqs] = np.maximum(
                regrets[level.seqs] + values[level.seqs] - set_values[level.owner], 0.0)
            np.add.at(values, level.parents, set_values)
        self.average[player] += (self.iterations + 1) * self.plan(player)

    def _local_mix(self, player: str, level: Level) -> np.ndarray:
        positive = np.maximum(self.regrets[player][level.seqs], 0.0)
        totals = np.add.reduceat(positive, level.starts)
        widths = np.diff(np.append(level.starts, len(level.seqs)))
        return np.where(totals[level.owner] > 0,
                        positive / np.where(totals > 0, totals, 1.0)[level.owner],
                        1.0 / widths[level.owner])

    def run(self, iterations: int) -> None:
        for _ in range(iterations):
            self._update("a")
            self._update("b")
            self.iterations += 1

    def average_plans(self) -> dict[str, np.ndarray]:
        return {p: self.average[p] / self.average[p][0] for p in ("a", "b")}

    def exploitability(self) -> float:
        return exploitability_of(self.tree, self.average_plans())

    def value(self) -> float:
        plans = self.average_plans()
        return float(plans["a"] @ (self.payoff @ plans["b"]))

