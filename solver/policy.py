"""Policies that need nothing but the protocol: uniform, a fixed mix, a table."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .errors import InputError
from .game import Game, Observation, renormalise


def uniform_over(mask: np.ndarray) -> np.ndarray:
    mask = np.asarray(mask, dtype=float)
    return mask / mask.sum()


class UniformPolicy:
    """Every legal action equally often."""

    name = "uniform"

    def probabilities(self, observation: Observation, mask: np.ndarray) -> np.ndarray:
        return uniform_over(mask)


class MixPolicy:
    """A fixed mix over named actions, renormalised over what is legal; where none of
    its actions is legal it plays uniformly (``covers`` tells when)."""

    def __init__(self, weights: Mapping[str, float], action_names: tuple[str, ...]):
        vector = np.zeros(len(action_names))
        for name, weight in weights.items():
            if name not in action_names:
                raise InputError(
                    f"unknown action {name!r} in mix; allowed: {', '.join(action_names)}")
            if not np.isfinite(weight) or weight < 0:
                raise InputError(f"mix weight of {name} must be a finite number >= 0, got {weight}")
            vector[action_names.index(name)] += weight
        if vector.sum() <= 0:
            raise InputError("a mix needs at least one action with positive weight")
        self.weights = vector / vector.sum()
        self.name = "mix=" + ",".join(
            f"{a}:{w:g}" for a, w in zip(action_names, self.weights, strict=True) if w > 0)

    def covers(self, mask: np.ndarray) -> bool:
        return bool((self.weights * mask).sum() > 0)

    def probabilities(self, observation: Observation, mask: np.ndarray) -> np.ndarray:
        return renormalise(self.weights, mask)

    @classmethod
    def parse(cls, text: str, action_names: tuple[str, ...]) -> MixPolicy:
        """``AA:0.5,DR:0.5`` (a leading ``mix=`` is allowed)."""
        text = text.removeprefix("mix=")
        weights: dict[str, float] = {}
        for part in filter(None, text.split(",")):
            name, sep, weight = part.partition(":")
            try:
                weights[name.strip()] = weights.get(name.strip(), 0.0) + float(weight if sep else 1)
            except ValueError:
                raise InputError(f"bad mix weight {weight!r} in {text!r}; "
                                 "expected ACTION:WEIGHT,...") from None
        return cls(weights, action_names)


class TabularPolicy:
    """A mix per observation; an observation never seen plays uniformly."""

    def __init__(self, table: Mapping[Observation, np.ndarray], name: str = "tabular"):
        self.table = {tuple(k): np.asarray(v, dtype=float) for k, v in table.items()}
        self.name = name

    def probabilities(self, observation: Observation, mask: np.ndarray) -> np.ndarray:
        probs = self.table.get(tuple(observation))
        return uniform_over(mask) if probs is None else renormalise(probs, mask)


def observation_table(game: Game, graph, mixes: np.ndarray, player: str,
                      name: str) -> TabularPolicy:
    """``mixes`` (by state index of ``graph``) as a policy on ``player``'s observations;
    an error if two states the player cannot tell apart were given different mixes."""
    table: dict = {}
    for s in np.flatnonzero(~graph.terminal):
        observation = tuple(game.observe(graph.states[s], player))
        known = table.get(observation)
        if known is not None and not np.allclose(known, mixes[s]):
            raise ValueError(f"observations do not determine the state; the {name} "
                             "cannot be played from observations")
        table[observation] = mixes[s]
    return TabularPolicy(table, name=name)
