"""One player's regret tables for self-play: one row per observation, holding its
regrets, average-strategy sums, magnet, last value, visit count and pair baselines.

Regret matching turns the regrets into the current strategy; the normalised sums are
the average strategy, which is what training returns.
"""

from __future__ import annotations

import numpy as np

from solver.policy import TabularPolicy

#: probabilities below this count as this in the magnet's log, so its gradient stays finite
LOG_FLOOR = 1e-6


class RegretTable:
    """One player's regrets, average-strategy sums and magnet, one row per observation."""

    def __init__(self, n_actions: int):
        self.n = n_actions
        self.index: dict[tuple, int] = {}
        self.observations: list[tuple] = []
        self.size = 0
        self._allocate(64)

    def layout(self, capacity: int) -> dict[str, tuple[tuple, type]]:
        """Every per-row array: its shape and type. ``baselines[row, own, theirs]`` is
        the last value seen after that joint action."""
        n = self.n
        return {"masks": ((capacity, n), bool), "regrets": ((capacity, n), float),
                "totals": ((capacity, n), float), "log_magnet": ((capacity, n), float),
                "values": ((capacity,), float), "visits": ((capacity,), np.int64),
                "baselines": ((capacity, n, n), float)}

    def reserve(self, capacity: int) -> None:
        """Room for ``capacity`` rows at least, so that the arrays stay where they are
        while rows are added (a compiled traversal writes into them)."""
        if capacity > len(self.regrets):
            self._allocate(capacity)

    def _allocate(self, capacity: int) -> None:
        for name, (shape, dtype) in self.layout(capacity).items():
            fresh = np.zeros(shape, dtype=dtype)
            old = getattr(self, name, None)
            if old is not None:
                fresh[:len(old)] = old
            setattr(self, name, fresh)

    def row(self, observation: tuple, mask: np.ndarray, magnet: np.ndarray | None) -> int:
        found = self.index.get(observation)
        if found is not None:
            return found
        if self.size == len(self.regrets):
            self._allocate(2 * self.size)
        found = self.index[observation] = self.size
        self.observations.append(observation)
        self.masks[found] = mask
        if magnet is not None:
            self.log_magnet[found] = np.log(np.maximum(magnet, LOG_FLOOR))
        self.size += 1
        return found

    def current(self) -> np.ndarray:
        """Regret matching: the positive regrets normalised, uniform where none is."""
        positive = np.where(self.masks[:self.size], np.maximum(self.regrets[:self.size], 0), 0)
        return normalise(positive, self.masks[:self.size])

    def strategy(self, snapshot: np.ndarray, row: int) -> np.ndarray:
        if row < len(snapshot):
            return snapshot[row]
        return self.masks[row] / self.masks[row].sum()

    def average(self) -> np.ndarray:
        return normalise(np.where(self.masks[:self.size], self.totals[:self.size], 0),
                         self.masks[:self.size])

    def policy(self, name: str) -> TabularPolicy:
        return TabularPolicy(dict(zip(self.observations, self.average(), strict=True)), name)

    def to_json(self) -> dict:
        arrays = {name: getattr(self, name)[:self.size].tolist() for name in self.layout(0)}
        return {"observations": [list(o) for o in self.observations], **arrays}

    @classmethod
    def from_arrays(cls, n_actions: int, observations: list[tuple],
                    arrays: dict[str, np.ndarray]) -> RegretTable:
        """A table holding ``observations`` and, for each of them, a row of every array
        of ``layout`` (already checked: ``agents.checkpoints`` does that)."""
        table = cls(n_actions)
        n = len(observations)
        table._allocate(max(64, 2 * n))
        table.observations = list(observations)
        table.index = {o: i for i, o in enumerate(table.observations)}
        table.size = n
        for name, (shape, dtype) in table.layout(n).items():
            getattr(table, name)[:n] = np.asarray(arrays[name], dtype=dtype).reshape(shape)
        return table


def normalise(weights: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Each row of ``weights`` as a distribution; uniform over the mask where it sums to 0."""
    sums = weights.sum(axis=1, keepdims=True)
    uniform = masks / masks.sum(axis=1, keepdims=True).clip(min=1)
    return np.where(sums > 0, weights / np.where(sums > 0, sums, 1), uniform)
