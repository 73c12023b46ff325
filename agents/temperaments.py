"""NPC temperaments: priors over actions by situation, as data, and what they claim.

A temperament is data, one TOML file per system (``agents/personalities/<system>.toml``,
its format is documented at the top of the Falkenstein file): base weights over the
action names, and adjustments that multiply some weights when conditions over the
game's ``observation_fields`` hold. Nothing here knows a duel's rules, so another
system only adds a data file.

A temperament's description is a set of claims, as data (``[[temperament.NAME.claim]]``):
in a situation class, a weighted share of its actions (the Attacks it plays, say)
exceeds the equilibrium's there by the file's margin at every strength from the file's
``from_strength`` to 1 (``[claims]``), and does not fall as strength grows unless the
claim says ``grows = false``. The descriptions say no more than their claims, in
comparative words ("more than sound play"). The tests check every claim of every
system's temperaments.

The play of a temperament at a given strength is ``agents.personalities``'.
"""

from __future__ import annotations

import operator
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

import envs
from solver.errors import InputError
from solver.game import Game, Observation
from solver.policy import uniform_over

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

    def columns(self, fields: Sequence[str]) -> Callable[[np.ndarray], np.ndarray]:
        """The same test on many observations at once (rows of an array)."""
        compare = _OPERATORS[self.op]
        left = fields.index(self.field)
        if isinstance(self.value, str):
            right = fields.index(self.value)
            return lambda rows: compare(rows[:, left], rows[:, right])
        constant = self.value
        return lambda rows: compare(rows[:, left], constant)

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

#: what a claim's share is taken among: the situation's decisions, or all decisions
CLAIM_OF = ("situation", "all")

@dataclass(frozen=True)
class Adjustment:
    conditions: tuple[Condition, ...]
    scale: dict[str, float]


#: a claim's share must beat the equilibrium's by this much (half a percentage point),
#: unless the personality file's ``[claims]`` table or the claim itself says otherwise
CLAIM_MARGIN = 0.005
#: the weakest strength at which the descriptions hold, unless the file says otherwise:
#: below it a personality plays so close to sound play that no tendency shows by the
#: margin (at strength 0 it is the equilibrium itself)
CLAIMS_FROM = 0.25


@dataclass(frozen=True)
class Claim:
    """What a description promises: in situation class ``situation``, the share
    ``sum_a frequency(a) * (more[a] - less[a])`` exceeds the equilibrium's by
    ``CLAIM_MARGIN`` at every strength and does not fall as strength grows (``more`` =
    {AA: 1, AD: 0.5, AR: 0.5} is the share of Attack cards; ``less`` = {fire: 1} says he
    fires less than the equilibrium).

    ``margin`` and ``grows`` (default true) are declared with the claim: a claim with
    ``grows = false`` promises the margin at every strength, not a rise.

    ``of`` is ``"situation"`` (frequencies among the decisions in the situation) or
    ``"all"`` (among all its decisions: the situation's reach times its frequencies, for
    a claim about getting there, such as "is free to attack when the foe must rest")."""

    situation: str
    more: dict[str, float]
    text: str
    of: str = "situation"
    less: dict[str, float] = field(default_factory=dict)
    #: how much the share beats the equilibrium's by (the file's margin if not given)
    margin: float | None = None
    #: whether the share also does not fall as strength grows; false where the
    #: temperament itself shows the tendency less than a strong personality does
    grows: bool = True

    def share(self, frequencies: Mapping[str, float]) -> float:
        return float(sum(frequencies.get(a, 0.0) * w for a, w in self.weights().items()))

    def weights(self) -> dict[str, float]:
        """The weight of every action the claim is about (``less`` ones negative)."""
        weights = dict(self.more)
        for action, weight in self.less.items():
            weights[action] = weights.get(action, 0.0) - weight
        return weights


@dataclass(frozen=True)
class Temperament:
    """A prior over action names by situation, before it is bound to a game."""

    name: str
    system: str
    description: str
    base: dict[str, float]
    default: float
    adjustments: tuple[Adjustment, ...]
    claims: tuple[Claim, ...] = ()

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
        #: the same adjustments as tests on arrays of observations
        self.batched = []
        for adjustment in temperament.adjustments:
            _check_fields(adjustment.conditions, observation_fields, where)
            scale = _weights(adjustment.scale, action_names, 1.0, where)
            self.adjustments.append((_matcher(adjustment.conditions, observation_fields),
                                     scale))
            self.batched.append(([condition.columns(observation_fields)
                                  for condition in adjustment.conditions], scale))

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

    def batch_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``probabilities`` for many observations at once (the adjustments applied in
        the same order, so the same numbers): a large duel has hundreds of thousands."""
        rows = np.asarray(observations)
        masks = np.asarray(masks, dtype=bool)
        weights = np.tile(self.base, (len(rows), 1))
        for tests, scale in self.batched:
            hold = np.ones(len(rows), dtype=bool)
            for test in tests:
                hold &= test(rows)
            weights[hold] *= scale
        weights = weights * masks
        total = weights.sum(axis=1, keepdims=True)
        uniform = masks / np.maximum(masks.sum(axis=1, keepdims=True), 1)
        return np.where(total > 0, weights / np.where(total > 0, total, 1.0), uniform)


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
    unknown = set(raw) - {"description", "base", "default", "when", "claim"}
    if unknown:
        raise InputError(f"unknown key {sorted(unknown)[0]!r} in {where}; "
                         "allowed: description, base, default, when, claim")
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
                       tuple(adjustments), _claims(raw.get("claim", []), where))


def _claims(raw: object, where: str) -> tuple[Claim, ...]:
    if not isinstance(raw, list):
        raise InputError(f"'claim' in {where} must be a list of tables")
    claims = []
    for n, body in enumerate(raw):
        place = f"{where}, claim {n + 1}"
        if not isinstance(body, dict) or set(body) - {"situation", "more", "less", "text", "of",
                                                      "margin", "grows"} \
                or "situation" not in body or not {"more", "less"} & set(body):
            raise InputError(f"{place} must have 'situation' and 'more' or 'less' (optional: "
                             "'text', 'of', 'margin', 'grows')")
        of = body.get("of", "situation")
        if of not in CLAIM_OF:
            raise InputError(f"{place}: unknown 'of' {of!r}; allowed: {', '.join(CLAIM_OF)}")
        grows = body.get("grows", True)
        if not isinstance(grows, bool):
            raise InputError(f"{place}: 'grows' must be true or false, got {grows!r}")
        margin = body.get("margin")
        claims.append(Claim(str(body["situation"]),
                            _number_table(body.get("more", {}), f"{place} more"),
                            str(body.get("text", "")), of,
                            _number_table(body.get("less", {}), f"{place} less"),
                            None if margin is None else _number(margin, f"{place} margin"),
                            grows))
    return tuple(claims)


def _claims_settings(raw: object, system: str) -> tuple[float, float]:
    """The file's ``[claims]`` table: the margin every claim beats the equilibrium by,
    and the weakest strength from which the descriptions hold."""
    where = f"[claims] of the personality file of {system}"
    if not isinstance(raw, dict) or set(raw) - {"margin", "from_strength"}:
        raise InputError(f"{where} may hold only 'margin' and 'from_strength'")
    margin = _number(raw.get("margin", CLAIM_MARGIN), f"{where} margin")
    start = raw.get("from_strength", CLAIMS_FROM)
    if isinstance(start, bool) or not isinstance(start, int | float) or not 0 < start <= 1:
        raise InputError(f"{where} from_strength must be a number in (0, 1], got {start!r}")
    return margin, float(start)


# -- situations (classes of observations, for describing a profile)

@dataclass(frozen=True)
class Situation:
    name: str
    text: str
    conditions: tuple[Condition, ...]

    def matcher(self, game: Game) -> Callable[[Observation], bool]:
        _check_fields(self.conditions, game.info.observation_fields, f"situation {self.name!r}")
        return _matcher(self.conditions, game.info.observation_fields)

    def rows(self, game: Game) -> Callable[[np.ndarray], np.ndarray]:
        """Which observations (rows of an array laid out as the game's
        ``observation_fields``) are in the situation."""
        _check_fields(self.conditions, game.info.observation_fields, f"situation {self.name!r}")
        tests = [condition.columns(game.info.observation_fields)
                 for condition in self.conditions]

        def members(rows: np.ndarray) -> np.ndarray:
            found = np.ones(len(rows), bool)
            for test in tests:
                found &= test(rows)
            return found

        return members


OVERALL = Situation("overall", "anywhere in the duel", ())


# -- the data files

@dataclass(frozen=True)
class PersonalityData:
    system: str
    temperaments: dict[str, Temperament]
    situations: tuple[Situation, ...]
    #: what the claims promise: their share beats the equilibrium's by ``claim_margin``
    #: (a claim may declare its own) at every strength from ``claims_from`` to 1
    claim_margin: float = CLAIM_MARGIN
    claims_from: float = CLAIMS_FROM

    def margin_of(self, claim: Claim) -> float:
        return self.claim_margin if claim.margin is None else claim.margin


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
    unknown = set(raw) - {"temperament", "situation", "claims"}
    if unknown:
        raise InputError(f"unknown table {sorted(unknown)[0]!r} in the personality file of "
                         f"{system}; allowed: temperament, situation, claims")
    temperaments = {name: _temperament(system, name, body)
                    for name, body in raw.get("temperament", {}).items()}
    situations = tuple(
        Situation(name, str(body.get("text", name)),
                  _conditions(body.get("if", []), f"situation {name!r} of {system}"))
        for name, body in raw.get("situation", {}).items())
    situations = situations or (OVERALL,)
    _check_claims(temperaments.values(), situations, system)
    return PersonalityData(system, temperaments, situations,
                           *_claims_settings(raw.get("claims", {}), system))


def _check_claims(temperaments, situations: Sequence[Situation], system: str) -> None:
    known = [situation.name for situation in situations]
    for entry in temperaments:
        for claim in entry.claims:
            if claim.situation not in known:
                raise InputError(f"unknown situation {claim.situation!r} in a claim of "
                                 f"temperament {entry.name!r} of {system}; allowed: "
                                 f"{', '.join(known)}")


def _registered_file(system: str) -> Path | None:
    """The personalities file a system registered from outside the package declares."""
    try:
        spec = envs.spec(system)   # that system's module alone, not every system's
    except InputError:
        return None
    return spec.personalities_file


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
