"""The decisions a best response reports (``decisions()`` of either backend), held as
columns: a plan over a level-5 duel has 309,000 of them, and a row of Python objects
each took longer to build than to find them. Over a counter game their states are
attached only when read (``AttachedStates``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class DecisionTable(Sequence):
    """Every state where the responder chooses that the play reaches: the state, its
    expected visits (``reach``), the responder's mix over the action list, his value
    there and, where asked, A's (win, draw, loss) from there (``chances``). Read row by
    row it is the sequence of ``(state, reach, mix, value[, chances])``."""

    states: Sequence
    reach: np.ndarray
    mixes: np.ndarray
    values: np.ndarray
    chances: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.reach)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        at = range(len(self))[index]   # an IndexError past either end
        row = (self.states[at], float(self.reach[at]), self.mixes[at], float(self.values[at]))
        return row if self.chances is None else (*row, tuple(self.chances[at].tolist()))

    def most_reached_first(self) -> DecisionTable:
        """The same rows, the most often reached first (ties in their order)."""
        order = np.argsort(-self.reach, kind="stable")
        states = (self.states.take(order) if hasattr(self.states, "take")
                  else [self.states[i] for i in order.tolist()])
        return DecisionTable(states, self.reach[order], self.mixes[order],
                             self.values[order],
                             None if self.chances is None else self.chances[order])


class AttachedStates(Sequence):
    """The states ``game.attach(cores[which[k]], counters[k])`` of a counter game, each
    attached when read: a level-5 plan's 309,000 took 2 s to attach up front, where a
    few are read and the rest kept (and stored as these arrays; here, not with the
    counter solver, so that reading them back imports nothing compiled)."""

    def __init__(self, game, cores: list, which: np.ndarray, counters: np.ndarray):
        self.game, self.cores, self.which, self.counters = game, cores, which, counters

    def __len__(self) -> int:
        return len(self.which)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[k] for k in range(*index.indices(len(self)))]
        at = range(len(self))[index]   # an IndexError past either end
        return self.game.attach(self.cores[self.which[at]], self.counters[at].tolist())

    def take(self, order: np.ndarray) -> AttachedStates:
        """The states in ``order`` (positions)."""
        return AttachedStates(self.game, self.cores, self.which[order], self.counters[order])
