"""NPC personalities: temperaments (priors over actions by situation) and the exact
play of a personality of a given strength.

A temperament is data, one TOML file per system (``agents/personalities/<system>.toml``,
its format is documented at the top of the Falkenstein file): base weights over the
action names, and adjustments that multiply some weights when conditions over the
game's ``observation_fields`` hold. Nothing here knows a duel's rules, so another
system only adds a data file.

A personality of strength s in [0, 1] is the most robust play that stays close to
its temperament: against a best responder, it maximises its value minus
``beta * KL(play || temperament)`` at every state it visits. s = 0 is the
maximum-entropy equilibrium, s = 1 the temperament itself. It is computed exactly by
backward induction (``solver.markov.regularized``), not learnt.

Strength is calibrated so that a game master can feel it: ``beta(s)`` is found, per
game, side and temperament, by bisection on the exact exploitability, so that the
personality gives away ``s`` times what the temperament itself gives away to a best
responder (within ``CALIBRATION_TOLERANCE`` of the temperament's exploitability). The
exploitability grows with beta, so the search is well posed; every solve it makes is
cached for the process (``calibration``). A fixed map such as s / (1 - s) is not
enough: on GD vs GD it gives away 75% of the temperament's exploitability at s = 0.25.

A temperament's description is a set of claims, as data (``[[temperament.NAME.claim]]``):
in a situation class, a weighted share of its actions (the Attacks it plays, say)
exceeds the equilibrium's there by the file's margin at every strength from the file's
``from_strength`` to 1 (``[claims]``), and does not fall as strength grows unless the
claim says ``grows = false``. The descriptions say no more than their claims, in
comparative words ("more than sound play"). The tests check every claim of every
system's temperaments.

A personality may also be asked by its exact chance to win (``personality(...,
win=RATE)``): the largest beta whose play wins RATE of its duels against the foe's
equilibrium or best reply, by bisection on exact evaluations (``WinCalibration``).
"""

from __future__ import annotations

import hashlib
import json
import operator
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

import envs
from solver.errors import InputError
from solver.gains import gain_over
from solver.game import Game, Observation, other
from solver.policy import TabularPolicy, uniform_over

if TYPE_CHECKING:
    from solver.markov.regularized import RegularizedSolution

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


def check_strength(strength: object) -> float:
    if isinstance(strength, bool) or not isinstance(strength, int | float) \
            or not 0.0 <= float(strength) <= 1.0:
        raise InputError(f"strength must be a number in [0, 1], got {strength!r}")
    return float(strength)


# -- strength calibration

#: the calibrated exploitability lies within this fraction of the temperament's own
#: exploitability of its target s * exploitability(temperament)
CALIBRATION_TOLERANCE = 0.02
#: below this exploitability the temperament is as safe as the equilibrium: any beta
#: gives the same play, so the fixed map s / (1 - s) is kept
_NOTHING_TO_CALIBRATE = 1e-6
_MAX_SOLVES = 40
#: the solves a calibration usually takes (8 to 14), for the estimate of the time left
TYPICAL_SOLVES = 12
#: the search stays within these betas: beyond them the play no longer moves (a prior
#: with zero weights makes the exploitability jump at beta = 0), and the stage solver
#: slows down
BETA_RANGE = (1e-6, 1e6)


@dataclass
class _Point:
    beta: float
    exploitability: float
    solution: RegularizedSolution | None


class Calibration:
    """Exploitability as a function of beta for one temperament on one side of one game,
    from exact solves; ``beta(s)`` inverts it by a safeguarded bisection on log beta."""

    def __init__(self, game: Game, side: str, prior: TemperamentPolicy):
        # the solver is imported here, not with the module: reading the temperaments
        # (the CLI checking --vs or --personality) needs none of it
        from solver.markov.evaluate import require_public
        require_public(game, "the exact personality")
        self.game, self.side, self.prior = game, side, prior
        self.points: list[_Point] = []
        self.solutions: dict[float, RegularizedSolution] = {}
        self.solves = 0

    @cached_property
    def game_value(self) -> float:
        """The duel's value from this side (asked only when a play is solved: a
        personality read from the answer store needs no solution of the duel)."""
        from solver import solve_game
        return solve_game(self.game).value * (1.0 if self.side == "a" else -1.0)

    @cached_property
    def full(self) -> float:
        """What the temperament itself gives away (asked only when a beta is searched:
        a beta read from the answer store needs no search)."""
        return self.exploitability_of(self.prior)

    def exploitability_of(self, policy) -> float:
        """What ``policy`` gives away to a best responder, from its own side."""
        from solver import best_response
        response = best_response(self.game, policy, other(self.side)).value
        return gain_over(response, -self.game_value, self.game.info.payoff_bounds)

    def solution(self, beta: float) -> RegularizedSolution:
        """The regularised solution at ``beta`` (solved once, then cached; the searches on
        exploitability and on the chance to win share it)."""
        if beta not in self.solutions:
            from solver import solve_regularized
            self.solutions[beta] = solve_regularized(self.game, self.side, self.prior, beta)
            self.solves += 1
        return self.solutions[beta]

    def point(self, beta: float) -> _Point:
        """The exact personality at ``beta`` (solved once, then cached)."""
        for known in self.points:
            if known.beta == beta:
                return known
        solution = self.solution(beta)
        found = _Point(beta, self.exploitability_of(solution.policy()), solution)
        self.points.append(found)
        self.points.sort(key=lambda p: p.beta)
        return found

    def beta(self, strength: float) -> float:
        """The beta at which the personality gives away ``strength`` times what the
        temperament gives away (within ``CALIBRATION_TOLERANCE`` of the latter)."""
        from solver.markov.regularized import strength_to_beta
        from solver.progress import task
        if strength in (0.0, 1.0):
            return strength_to_beta(strength)
        with task(f"calibrating strength {strength:g}", TYPICAL_SOLVES, "solves"):
            return self._search(strength)

    def _search(self, strength: float) -> float:
        from solver.markov.regularized import strength_to_beta
        from solver.progress import advance
        if self.full <= _NOTHING_TO_CALIBRATE:
            return strength_to_beta(strength)
        advance(1)
        target, slack = strength * self.full, CALIBRATION_TOLERANCE * self.full
        for _ in range(_MAX_SOLVES):
            below, above = self._bracket(target)
            for candidate in (below, above):
                if candidate is not None and abs(candidate.exploitability - target) <= slack:
                    return candidate.beta
            beta = self._next_beta(below, above, target)
            if any(p.beta == beta for p in self.points):
                break  # at the end of BETA_RANGE, or the bracket cannot shrink further
            self.point(beta)
            advance(1)
        return self._closest(target)

    def _closest(self, target: float) -> float:
        inside = [p for p in self.points if 0.0 < p.beta < np.inf]
        return min(inside, key=lambda p: abs(p.exploitability - target)).beta

    def _bracket(self, target: float) -> tuple[_Point | None, _Point | None]:
        inside = [p for p in self.points if 0.0 < p.beta < np.inf]  # log beta is finite
        below = [p for p in inside if p.exploitability <= target]
        above = [p for p in inside if p.exploitability > target]
        return (max(below, key=lambda p: p.beta) if below else None,
                min(above, key=lambda p: p.beta) if above else None)

    def _next_beta(self, below: _Point | None, above: _Point | None, target: float) -> float:
        # log beta, since the exploitability climbs over decades of beta; interpolation
        # inside the bracket, kept away from its ends so the bracket always shrinks
        if below is None and above is None:
            return 0.1
        if below is None:
            return max(above.beta / 10.0, BETA_RANGE[0])
        if above is None:
            return min(below.beta * 10.0, BETA_RANGE[1])
        low, high = np.log(below.beta), np.log(above.beta)
        rise = above.exploitability - below.exploitability
        t = (target - below.exploitability) / rise if rise > 0 else 0.5
        return float(np.exp(low + min(max(t, 0.1), 0.9) * (high - low)))


# -- calibration on the chance to win

#: whom a personality's chance to win is measured against: the foe's maximum-entropy
#: equilibrium, or his best reply (the safest of his best replies, as ``duel odds`` says)
AGAINST = ("equilibrium", "best")
#: the search on the chance to win stops this close to the rate asked
WIN_TOLERANCE = 5e-4
#: the betas looked at first, from the most flavourful (the temperament itself) down to
#: the equilibrium: the rate asked is searched in the first gap between two of them that
#: holds it, so the personality found is the one closest to its temperament
WIN_GRID = (np.inf, BETA_RANGE[1], 1e3, 1e2, 1e1, 1.0, 1e-1, 1e-2, 1e-3, BETA_RANGE[0], 0.0)


class WinCalibration:
    """The chance to win of the personality at beta (an exact evaluation against the
    foe's equilibrium, or his best reply); ``beta(rate)`` is the largest beta at which it
    is ``rate``, found by a safeguarded bisection on log beta. The regularised solves
    are the strength calibration's (``Calibration.solution``), shared with it."""

    def __init__(self, base: Calibration, against: str):
        self.base, self.against = base, against
        self.wins: dict[float, float] = {}

    def win(self, beta: float) -> float:
        if beta not in self.wins:
            self.wins[beta] = self.win_of(self.base.solution(beta).policy())
        return self.wins[beta]

    def win_of(self, policy) -> float:
        """The exact chance that ``policy``, on the calibrated side, wins the duel."""
        from solver import best_response, evaluate, solve_game
        game, side = self.base.game, self.base.side
        foe = other(side)
        equilibrium = solve_game(game).policy_for(foe)
        if self.against == "best":
            found = best_response(game, policy, foe, safest=equilibrium).evaluation
        else:
            found = evaluate(game, *((policy, equilibrium) if side == "a"
                                     else (equilibrium, policy)))
        return found.win if side == "a" else found.loss

    def beta(self, rate: float, name: str) -> float:
        """The most flavourful beta whose chance to win is ``rate`` (within
        ``WIN_TOLERANCE``); a rate no beta reaches is refused with the reachable range."""
        for high, low in zip(WIN_GRID, WIN_GRID[1:], strict=False):
            for end in (high, low):
                if abs(self.win(end) - rate) <= WIN_TOLERANCE:
                    return end
            if (self.win(high) - rate) * (self.win(low) - rate) < 0:
                return self._bisect(high, low, rate)
        wins = [self.win(beta) for beta in WIN_GRID]
        whom = "the equilibrium" if self.against == "equilibrium" else "the best reply"
        raise InputError(
            f"no {name} NPC of {self.base.game.info.system} wins {100 * rate:.1f}% against "
            f"{whom} in this duel: from the equilibrium (strength 0) to the temperament "
            f"itself (strength 1) it wins {100 * min(wins):.1f}% to {100 * max(wins):.1f}%; "
            "ask a rate in that range")

    def _bisect(self, high: float, low: float, rate: float) -> float:
        # the ends 0 and inf have no log: the gaps next to them are searched from the
        # ends of BETA_RANGE, where the play no longer moves (see BETA_RANGE)
        if np.isinf(high) or low == 0.0:
            return min((high, low), key=lambda beta: abs(self.win(beta) - rate))
        for _ in range(_MAX_SOLVES):
            top, bottom = np.log(high), np.log(low)
            rise = self.win(high) - self.win(low)
            t = (rate - self.win(low)) / rise
            beta = float(np.exp(bottom + min(max(t, 0.1), 0.9) * (top - bottom)))
            if abs(self.win(beta) - rate) <= WIN_TOLERANCE or beta in (high, low):
                return beta
            if (self.win(beta) - rate) * (self.win(high) - rate) < 0:
                low = beta
            else:
                high = beta
        return min(self.wins, key=lambda beta: abs(self.wins[beta] - rate))


_WIN_CALIBRATIONS: dict[tuple, WinCalibration] = {}


def win_calibration(game: Game, name: str, side: str, against: str) -> WinCalibration:
    """The (cached) calibration of temperament ``name`` as ``side`` of ``game`` on its
    chance to win against ``against``."""
    base = calibration(game, name, side)
    key = (id(base), against)
    if key not in _WIN_CALIBRATIONS or _WIN_CALIBRATIONS[key].base is not base:
        _WIN_CALIBRATIONS[key] = WinCalibration(base, against)
    return _WIN_CALIBRATIONS[key]


def check_win(rate: object, against: object = "equilibrium") -> tuple[float, str]:
    """A chance to win asked (a number in [0, 1]) and whom it is against, checked."""
    if isinstance(rate, bool) or not isinstance(rate, int | float) \
            or not 0.0 <= float(rate) <= 1.0:
        raise InputError(f"win must be a chance in [0, 1] (0.45 for 45%), got {rate!r}")
    if against not in AGAINST:
        raise InputError(f"unknown against={against!r}; allowed: {', '.join(AGAINST)}")
    return float(rate), str(against)


_CALIBRATIONS: dict[tuple, Calibration] = {}


def calibration(game: Game, name: str, side: str) -> Calibration:
    """The (cached) strength calibration of temperament ``name`` as ``side`` of ``game``;
    games are told apart by system, ruleset hash and options."""
    key = (game.info.system, game.info.ruleset_hash, _options_key(game.info.options), name,
           side)
    if key not in _CALIBRATIONS:
        prior = temperament(game.info.system, name).policy(game)
        _CALIBRATIONS[key] = Calibration(game, side, prior)
    return _CALIBRATIONS[key]


def _calibration_question(game: Game, name: str, side: str, strength: float) -> str:
    """The answer store's question of a calibrated beta: the personality, its side and
    strength, and its temperament's data (a changed TOML is another question)."""
    data = hashlib.sha256(repr(temperament(game.info.system, name)).encode()).hexdigest()
    return f"personality beta|{name}|{side}|strength={strength!r}|temperament={data[:16]}"


def _win_question(game: Game, name: str, side: str, rate: float, against: str) -> str:
    """The answer store's question of a beta calibrated on the chance to win."""
    data = hashlib.sha256(repr(temperament(game.info.system, name)).encode()).hexdigest()
    return (f"personality beta|{name}|{side}|win={rate!r}|against={against}|"
            f"temperament={data[:16]}")


def _options_key(options: Mapping) -> str:
    return json.dumps(options, sort_keys=True, default=str)


# -- the exact personality

@dataclass
class Personality:
    """A personality's exact play on one side of a game, and what it gives away to a
    best responder (``exploitability``, from its own side). A personality asked by its
    chance to win also records that chance (``win``, exact) and whom it is against;
    its ``strength`` is then the one that gives away as much."""

    name: str
    strength: float
    side: str
    prior: TemperamentPolicy
    solution: RegularizedSolution
    exploitability: float
    win: float | None = None
    against: str | None = None

    @property
    def beta(self) -> float:
        return self.solution.beta

    @property
    def policy(self) -> TabularPolicy:
        label = (f"{self.strength:g}" if self.win is None else
                 f"win {100 * self.win:.1f}% vs {self.against}")
        return self.solution.policy(name=f"{self.name} {label}")


def _play_at(found: Calibration, beta: float) -> tuple[RegularizedSolution, float]:
    point = found.point(beta)
    return point.solution, point.exploitability


def personality(game: Game, name: str, strength: float | None = None, side: str = "a", *,
                win: float | None = None, against: str = "equilibrium") -> Personality:
    """The exact play of personality ``name`` as ``side``, at a strength or a chance to win.

    With ``strength``, its beta is calibrated so that its exploitability is ``strength``
    times the temperament's. With ``win`` instead, it is the most flavourful play of the
    temperament (the largest beta) whose exact chance to win against the foe's
    equilibrium (``against="equilibrium"``) or his best reply (``"best"``) is ``win``,
    within ``WIN_TOLERANCE``; a chance no strength reaches is refused with the range
    that is reachable. Either beta is kept in the answer store.

    Needs a game of public information (the exact solver's requirement).
    """
    if (strength is None) == (win is None):
        raise InputError("give a personality a strength or a chance to win (win=), not "
                         f"{'both' if win is not None else 'neither'}")
    if side not in ("a", "b"):
        raise InputError(f"unknown side {side!r}; allowed: a, b")
    if win is not None:
        return _personality_at_win(game, name, side, *check_win(win, against))
    strength = check_strength(strength)
    from solver.cache import ambient, remembered
    found = calibration(game, name, side)
    question = _calibration_question(game, name, side, strength)
    beta = remembered(game, question, lambda: found.beta(strength), ambient())
    # the play at that beta and what it gives away, kept too: a personality asked again
    # (odds, then play, against it) is read back without a solve
    solution, exploitability = remembered(game, f"{question}|play beta={beta!r}",
                                          lambda: _play_at(found, beta), ambient())
    return Personality(name, strength, side, found.prior, solution, exploitability)


def _personality_at_win(game: Game, name: str, side: str, rate: float,
                        against: str) -> Personality:
    from solver.cache import ambient, remembered
    search = win_calibration(game, name, side, against)
    beta = remembered(game, _win_question(game, name, side, rate, against),
                      lambda: search.beta(rate, name), ambient())
    base = search.base
    solution = base.solution(beta)
    lost = base.exploitability_of(solution.policy())
    strength = (min(lost / base.full, 1.0) if base.full > _NOTHING_TO_CALIBRATE
                else beta / (1.0 + beta))
    return Personality(name, 1.0 if np.isinf(beta) else strength, side, base.prior, solution,
                       lost, search.win(beta), against)
