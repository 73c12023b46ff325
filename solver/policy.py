"""Policies that need nothing but the protocol: uniform, a fixed mix, a table."""

from __future__ import annotations

from collections.abc import Mapping
from difflib import get_close_matches

import numpy as np

from .errors import InputError
from .game import Game, Observation, Policy, renormalise


def uniform_over(mask: np.ndarray) -> np.ndarray:
    mask = np.asarray(mask, dtype=float)
    return mask / mask.sum()


class UniformPolicy:
    """Every legal action equally often."""

    name = "uniform"

    def probabilities(self, observation: Observation, mask: np.ndarray) -> np.ndarray:
        return uniform_over(mask)

    def batch_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Uniform over many observations at once (a ``BatchPolicy``): a knockout has
        hundreds of thousands."""
        masks = np.asarray(masks, dtype=float)
        return masks / masks.sum(axis=-1, keepdims=True)


class MixPolicy:
    """A fixed mix over named actions, renormalised over what is legal; where none of
    its actions is legal it plays uniformly (``covers`` tells when)."""

    def __init__(self, weights: Mapping[str, float], action_names: tuple[str, ...]):
        vector = np.zeros(len(action_names))
        for name, weight in weights.items():
            if name not in action_names:
                raise InputError(
                    f"unknown action {name!r} in mix; allowed: {', '.join(action_names)}")
            vector[action_names.index(name)] += _weight(name, weight)
        # scaled by the largest first, so weights near 1e308 cannot overflow the sum
        top = vector.max()
        if not np.isfinite(top) or top <= 0:
            raise InputError("a mix needs at least one action with a positive, finite "
                             f"weight, got {dict(weights)!r:.80}")
        vector = vector / top
        self.weights = vector / vector.sum()
        self.name = "mix=" + ",".join(
            f"{a}:{w:g}" for a, w in zip(action_names, self.weights, strict=True) if w > 0)

    def covers(self, mask: np.ndarray) -> bool:
        return bool((self.weights * mask).sum() > 0)

    def probabilities(self, observation: Observation, mask: np.ndarray) -> np.ndarray:
        return renormalise(self.weights, mask)

    def batch_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The mix over many observations at once (a ``BatchPolicy``): the solver asks a
        knockout's hundreds of thousands of situations in one call."""
        return renormalise(np.broadcast_to(self.weights, np.shape(masks)), masks)

    @classmethod
    def parse(cls, text: str, action_names: tuple[str, ...]) -> MixPolicy:
        """``AA:0.5,DR:0.5`` (a leading ``mix=`` is allowed; a bare name weighs 1)."""
        text = text.removeprefix("mix=")
        weights: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, sep, weight = part.partition(":")
            try:
                # ASCII digits only, as everywhere a number is typed (float reads
                # "1_0" as 10 and "٣" as 3)
                if sep and (not weight.isascii() or "_" in weight):
                    raise ValueError(weight)
                number = float(weight) if sep else 1.0
            except ValueError:
                raise InputError(f"bad mix weight {weight!r} in {text!r}; "
                                 "expected ACTION:WEIGHT,...") from None
            if name.strip() in weights:   # "AA:1,AA:2" added up to 3 without a word
                raise InputError(f"{name.strip()} is named twice in the mix {text!r}; "
                                 "give each action once, with its whole weight")
            weights[name.strip()] = _weight(name, number)
        return cls(weights, action_names)


def _weight(name: str, weight: object) -> float:
    """A mix weight: a finite real number >= 0 (bools and huge integers refused)."""
    try:
        number = float(weight) if not isinstance(weight, bool | np.bool_ | str) else None
    except (TypeError, ValueError, OverflowError):
        number = None
    if number is None or not np.isfinite(number) or number < 0:
        raise InputError(f"mix weight of {name} must be a finite number >= 0, "
                         f"got {weight!r:.40}")
    return number


class TabularPolicy:
    """A mix per observation; an observation never seen plays uniformly."""

    def __init__(self, table: Mapping[Observation, np.ndarray], name: str = "tabular"):
        self.table = {tuple(k): np.asarray(v, dtype=float) for k, v in table.items()}
        self.name = name

    def __repr__(self) -> str:
        return f"<TabularPolicy {self.name!r}: {len(self.table)} observations>"

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


#: the names a policy may be given by, wherever a policy is accepted
POLICY_FORMS = ("a policy object (with probabilities(observation, mask)), 'uniform', "
                "'equilibrium', or 'mix=ACTION:WEIGHT,...'; a profile file becomes a "
                "policy with agents.load_profile(path)")


def named_policy(spec: object, game: Game, player: str) -> Policy:
    """The policy ``spec`` names for ``player`` of ``game`` when it needs no solving: a
    policy object as is, ``uniform`` or ``mix=ACTION:WEIGHT,...``. ``solver.resolve_policy``
    (the one place names become policies) adds ``equilibrium`` on top, which needs the
    solver; the backends take what it resolved."""
    if player not in ("a", "b"):
        raise InputError(f"unknown player {player!r}; allowed: a, b")
    if callable(getattr(spec, "probabilities", None)):
        return spec
    if isinstance(spec, str):
        name = spec.strip()
        if name == "uniform":
            return UniformPolicy()
        if name.startswith("mix="):
            return MixPolicy.parse(name, tuple(game.info.action_names))
    raise InputError(f"unknown policy {spec!r:.80}{did_you_mean(spec)}; expected "
                     f"{POLICY_FORMS}")


def did_you_mean(spec: object) -> str:
    if not isinstance(spec, str):
        return ""
    close = get_close_matches(spec.strip().lower(), ("uniform", "equilibrium"), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
