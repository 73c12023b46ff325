"""NPC personalities: temperaments (priors over actions by situation) and the exact
play of a personality of a given strength.

A temperament is data, one TOML file per system (``agents/personalities/<system>.toml``,
its format is documented at the top of the Falkenstein file): base weights over the
action names, and adjustments that multiply some weights when conditions over the
game's ``observation_fields`` hold. Nothing here knows a duel's rules, so another
system only adds a data file.

A personality of strength s in [0, 1] is the most robust play that stays close to
its temperament: against a best responder, it maximises its value minus
``beta * KL(play || temperament)`` at every state it visits, with beta = s / (1 - s).
s = 0 is the maximum-entropy equilibrium, s = 1 the temperament itself. It is
computed exactly by backward induction (``solver.regularized``), not learnt.
"""

from __future__ import annotations

import operator
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

import envs
from solver.errors import InputError
from solver.game import Game, Observation
from solver.policy import TabularPolicy, uniform_over
from solver.regularized import RegularizedSolution, solve_regularized, strength_to_beta

_OPERATORS: dict[str, Callable[[int, int], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<=": operator.le, ">=": operator.ge,
    "<": operator.lt, ">": operator.gt}
_CONDITION = re.compile(r"^\s*([A-Za-z_]\w*)\s*(==|!=|<=|>=|<|>)\s*(-?\d+|[A-Za-z_]\w*)\s*$")


# -- conditions over observation fields

@dataclass(frozen=True)
class Condition:
    """``FIELD OP VALUE``: VALUE is an integer or another field."""

    field: str
    op: str
    value: int | str
    text: str

    @classmethod
    def parse(cls, text: object, where: str) -> Condition:
        match = _CONDITION.match(text) if isinstance(text, str) else None
        if match is None:
            raise InputError(f"bad condition {text!r} in {where}; expected 'FIELD OP VALUE' "
                             f"with OP one of {' '.join(_OPERATORS)}")
        field, op, value = match.groups()
        is_number = value.lstrip("-").isdigit()
        return cls(field, op, int(value) if is_number else value, text.strip())

    def fields(self) -> list[str]:
        return [self.field] + ([self.value] if isinstance(self.value, str) else [])

    def bind(self, fields: Sequence[str]) -> Callable[[Observation], bool]:
        """A test on observation tuples laid out as ``fields``."""
        compare = _OPERATORS[self.op]
        left = fields.index(self.field)
        if isinstance(self.value, str):
            right = fields.index(self.value)
            return lambda obs: compare(obs[left], obs[right])
        constant = self.value
        return lambda obs: compare(obs[left], constant)


def _conditions(raw: object, where: str) -> tuple[Condition, ...]:
    if not isinstance(raw, list):
        raise InputError(f"'if' in {where} must be a list of conditions, got {raw!r}")
    return tuple(Condition.parse(text, where) for text in raw)


def _check_fields(conditions: Sequence[Condition], fields: Sequence[str], where: str) -> None:
    for condition in conditions:
        for name in condition.fields():
            if name not in fields:
                raise InputError(f"unknown observation field {name!r} in {where}; "
                                 f"allowed: {', '.join(fields)}")


def _matcher(conditions: Sequence[Condition], fields: Sequence[str]):
    tests = [condition.bind(fields) for condition in conditions]
    return lambda obs: all(test(obs) for test in tests)


# -- temperaments

@dataclass(frozen=True)
class Adjustment:
    conditions: tuple[Condition, ...]
    scale: dict[str, float]


@dataclass(frozen=True)
class Temperament:
    """A prior over action names by situation, before it is bound to a game."""

    name: str
    system: str
    description: str
    base: dict[str, float]
    default: float
    adjustments: tuple[Adjustment, ...]

    def policy(self, game: Game) -> TemperamentPolicy:
        """This temperament as a policy on ``game``'s observations."""
        return TemperamentPolicy(self, game.info.action_names, game.info.observation_fields)


class TemperamentPolicy:
    """A temperament evaluated on observations: base weights times the scales of every
    adjustment whose conditions hold, restricted to the legal actions."""

    def __init__(self, temperament: Temperament, action_names: Sequence[str],
                 observation_fields: Sequence[str]):
        where = f"temperament {temperament.name!r} of {temperament.system}"
        self.temperament = temperament
        self.name = f"temperament {temperament.name}"
        self.base = _weights(temperament.base, action_names, temperament.default, where)
        self.adjustments = []
        for adjustment in temperament.adjustments:
            _check_fields(adjustment.conditions, observation_fields, where)
            scale = _weights(adjustment.scale, action_names, 1.0, where)
            self.adjustments.append((_matcher(adjustment.conditions, observation_fields),
                                     scale))

    def weights(self, observation: Observation) -> np.ndarray:
        weights = self.base.copy()
        for matches, scale in self.adjustments:
            if matches(tuple(observation)):
                weights *= scale
        return weights

    def probabilities(self, observation: Observation, mask: np.ndarray) -> np.ndarray:
        weights = self.weights(observation) * np.asarray(mask, dtype=bool)
        total = weights.sum()
        return weights / total if total > 0 else uniform_over(mask)


def _weights(raw: Mapping[str, float], action_names: Sequence[str], default: float,
             where: str) -> np.ndarray:
    vector = np.full(len(action_names), float(default))
    for name, weight in raw.items():
        if name not in action_names:
            raise InputError(f"unknown action {name!r} in {where}; "
                             f"allowed: {', '.join(action_names)}")
        vector[list(action_names).index(name)] = weight
    return vector


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not np.isfinite(value) \
            or value < 0:
        raise InputError(f"{what} must be a finite number >= 0, got {value!r}")
    return float(value)


def _number_table(raw: object, what: str) -> dict[str, float]:
    if not isinstance(raw, dict):
        raise InputError(f"{what} must be a table of ACTION = number, got {raw!r}")
    return {str(k): _number(v, f"{what}.{k}") for k, v in raw.items()}


def _temperament(system: str, name: str, raw: object) -> Temperament:
    where = f"temperament {name!r} of {system}"
    if not isinstance(raw, dict):
        raise InputError(f"{where} must be a table")
    unknown = set(raw) - {"description", "base", "default", "when"}
    if unknown:
        raise InputError(f"unknown key {sorted(unknown)[0]!r} in {where}; "
                         "allowed: description, base, default, when")
    adjustments = []
    for n, rule in enumerate(raw.get("when", [])):
        place = f"{where}, rule {n + 1}"
        if not isinstance(rule, dict) or set(rule) - {"if", "scale"}:
            raise InputError(f"{place} must have only 'if' and 'scale'")
        adjustments.append(Adjustment(_conditions(rule.get("if", []), place),
                                      _number_table(rule.get("scale", {}), f"{place} scale")))
    return Temperament(name, system, str(raw.get("description", "")),
                       _number_table(raw.get("base", {}), f"{where} base"),
                       _number(raw.get("default", 1.0), f"{where} default"),
                       tuple(adjustments))


# -- situations (classes of observations, for describing a profile)

@dataclass(frozen=True)
class Situation:
    name: str
    text: str
    conditions: tuple[Condition, ...]

    def matcher(self, game: Game) -> Callable[[Observation], bool]:
        _check_fields(self.conditions, game.info.observation_fields, f"situation {self.name!r}")
        return _matcher(self.conditions, game.info.observation_fields)


OVERALL = Situation("overall", "anywhere in the duel", ())


# -- the data files

@dataclass(frozen=True)
class PersonalityData:
    system: str
    temperaments: dict[str, Temperament]
    situations: tuple[Situation, ...]


def load_personality_data(system: str, path: str | Path | None = None) -> PersonalityData:
    """The temperaments and situations of ``system`` (the built-in file, or ``path``)."""
    path = path or _registered_file(system)
    try:
        if path is None:
            text = resources.files("agents").joinpath("personalities", f"{system}.toml") \
                .read_text("utf-8")
        else:
            text = Path(path).read_text("utf-8")
    except FileNotFoundError:
        where = path or f"agents/personalities/{system}.toml"
        raise InputError(f"no personalities for system {system!r} ({where} not found); "
                         f"systems with personalities: {', '.join(systems_with_personalities())}"
                         ) from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"personality file of {system} is not valid TOML: {error}") from None
    unknown = set(raw) - {"temperament", "situation"}
    if unknown:
        raise InputError(f"unknown table {sorted(unknown)[0]!r} in the personality file of "
                         f"{system}; allowed: temperament, situation")
    temperaments = {name: _temperament(system, name, body)
                    for name, body in raw.get("temperament", {}).items()}
    situations = tuple(
        Situation(name, str(body.get("text", name)),
                  _conditions(body.get("if", []), f"situation {name!r} of {system}"))
        for name, body in raw.get("situation", {}).items())
    return PersonalityData(system, temperaments, situations or (OVERALL,))


def _registered_file(system: str) -> Path | None:
    """The personalities file a system registered from outside the package declares."""
    spec = envs.systems().get(system)
    return None if spec is None else spec.personalities_file


def systems_with_personalities() -> list[str]:
    folder = resources.files("agents").joinpath("personalities")
    built_in = {entry.name.removesuffix(".toml") for entry in folder.iterdir()
                if entry.name.endswith(".toml")}
    registered = {name for name, spec in envs.systems().items() if spec.personalities_file}
    return sorted(built_in | registered)


def personality_names(system: str) -> dict[str, str]:
    """The built-in temperaments of ``system``: name -> description."""
    return {name: t.description for name, t in load_personality_data(system).temperaments.items()}


def temperament(system: str, name: str) -> Temperament:
    """The temperament ``name`` of ``system``; an unknown name raises InputError."""
    known = load_personality_data(system).temperaments
    if name not in known:
        raise InputError(f"unknown personality {name!r} for {system}; "
                         f"allowed: {', '.join(known)}")
    return known[name]


def situations(system: str) -> tuple[Situation, ...]:
    """The situation classes used to describe a profile of ``system`` (``overall``
    alone when the system has no personality file)."""
    try:
        return load_personality_data(system).situations
    except InputError:
        return (OVERALL,)


def check_strength(strength: object) -> float:
    if isinstance(strength, bool) or not isinstance(strength, int | float) \
            or not 0.0 <= float(strength) <= 1.0:
        raise InputError(f"strength must be a number in [0, 1], got {strength!r}")
    return float(strength)


# -- the exact personality

@dataclass
class Personality:
    """A personality's exact play on one side of a game."""

    name: str
    strength: float
    side: str
    prior: TemperamentPolicy
    solution: RegularizedSolution

    @property
    def beta(self) -> float:
        return self.solution.beta

    @property
    def policy(self) -> TabularPolicy:
        return self.solution.policy(name=f"{self.name} {self.strength:g}")


def personality(game: Game, name: str, strength: float, side: str = "a") -> Personality:
    """The exact play of personality ``name`` of strength ``strength`` as ``side``.

    Needs a game of public information (the exact solver's requirement).
    """
    strength = check_strength(strength)
    if side not in ("a", "b"):
        raise InputError(f"unknown side {side!r}; allowed: a, b")
    prior = temperament(game.info.system, name).policy(game)
    solution = solve_regularized(game, side, prior, strength_to_beta(strength))
    return Personality(name, strength, side, prior, solution)
