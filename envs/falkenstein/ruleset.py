"""Castle Falkenstein's ruleset data compiled into lookup tables, checked once."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from solver.errors import InputError, check_choice

from ..rulesets import ruleset_error as _fail
from ..rulesets import ruleset_int as _int

EXCHANGES_PER_ROUND = 3
# the exact solution grows with the rounds (about 37 states a round); beyond this the
# seconds would have stopped any duel long ago
MAX_ROUNDS = 1000
LETTERS = ("R", "BP", "BT", "BM", "HC")
CONVENTIONS = ("first_blood", "surrender", "to_the_death")
EDGES = ("wall", "ledge", "open")
CORPS_A_CORPS_TIES = ("push_apart", "close_again")
LEDGES = ("jump", "fall")
DISARMS = ("by_convention", "attacker_chooses")
MOVEMENTS = ("none", "circle")


@dataclass(frozen=True)
class Weapon:
    wounds: tuple[int, int, int]
    size: str
    uses_physique: bool


@dataclass(frozen=True)
class Discipline:
    ability: str
    corps_a_corps: str
    field: bool
    wounds: str
    conventions: tuple[str, ...]


@dataclass(frozen=True)
class Rules:
    """The ruleset as lookup tables, levels as ladder indices."""

    ladder: tuple[str, ...]
    names: tuple[str, ...]
    aliases: dict[str, int]  # lower-case code or name -> index
    abilities: tuple[str, ...]
    rests_required: tuple[int, ...]
    health: tuple[tuple[int, ...], ...]
    weapons: dict[str, Weapon]
    blow_wounds: tuple[tuple[int, int, int], ...]
    talent_wounds: tuple[tuple[int, int, int], ...]  # by the level in the discipline's ability
    grid: tuple[tuple[tuple[str, str], ...], ...]  # [row][column] -> (single, double)
    prior: tuple[float, ...]
    disciplines: dict[str, Discipline]
    default_weapon: str
    convention: str
    max_rounds: int
    field_m: int
    edge: str
    corps_a_corps_tie_m: int  # how far equal strengths push each other with push_apart
    footwork_ability: str  # the feat of a jump at a ledge and of a circle
    feat_chance: tuple[float, ...]  # a feat's chance of success by level

    def level(self, value: object, what: str) -> int:
        """The ladder index of a level code or name, case-insensitive."""
        if isinstance(value, str) and value.strip().lower() in self.aliases:
            return self.aliases[value.strip().lower()]
        allowed = ", ".join(f"{code} ({name})" for code, name in
                            zip(self.ladder, self.names, strict=True))
        raise InputError(f"unknown level {value!r} for {what}; allowed: {allowed}")


def _ints(value: object, key: str, count: int, low: int = 0, high: int = 99) -> tuple:
    if not isinstance(value, list) or len(value) != count:
        raise _fail(key, f"expected a list of {count} integers, got {value!r}")
    return tuple(_int(v, f"{key}[{i}]", low, high) for i, v in enumerate(value))


def _per_level(table: object, key: str, ladder: tuple[str, ...], convert) -> tuple:
    if not isinstance(table, dict) or set(table) != set(ladder):
        raise _fail(key, f"expected one entry per level {', '.join(ladder)}")
    return tuple(convert(table[code], f"{key}.{code}") for code in ladder)


def _pair(text: object, key: str) -> tuple[str, str]:
    parts = tuple(p.strip().upper() for p in str(text).split("/"))
    if len(parts) != 2 or any(p not in LETTERS for p in parts):
        raise _fail(key, f"expected 'single/double' with letters {', '.join(LETTERS)}, "
                         f"got {text!r}")
    return parts


def _grid(damage: dict, ladder: tuple[str, ...]) -> tuple:
    size = len(ladder)
    full = damage["grid"]
    if full:
        if not isinstance(full, list) or len(full) != size or any(
                not isinstance(row, list) or len(row) != size for row in full):
            raise _fail("damage.grid", f"expected {size} rows of {size} 'single/double' pairs")
        return tuple(tuple(_pair(cell, f"damage.grid[{r}][{c}]") for c, cell in enumerate(row))
                     for r, row in enumerate(full))
    by_difference = damage["by_difference"]
    needed = {str(d) for d in range(1 - size, size)}
    if not isinstance(by_difference, dict) or not needed <= set(by_difference):
        raise _fail("damage.by_difference", f"expected keys {', '.join(sorted(needed))}")
    pairs = {int(k): _pair(v, f"damage.by_difference.{k}") for k, v in by_difference.items()}
    return tuple(tuple(pairs[r - c] for c in range(size)) for r in range(size))


def _weapon(entry: object, key: str) -> Weapon:
    if not isinstance(entry, dict):
        raise _fail(key, "expected a table with wounds, size and uses_physique")
    return Weapon(_ints(entry["wounds"], f"{key}.wounds", 3),
                  _typed(entry["size"], str, f"{key}.size"),
                  _typed(entry["uses_physique"], bool, f"{key}.uses_physique"))


def _chance(value: object, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise _fail(key, f"expected a probability from 0 to 1, got {value!r}")
    return float(value)


def _typed(value: object, kind: type, key: str):
    """``value`` if it is a ``kind`` (TOML has real booleans: "false" is not one)."""
    if not isinstance(value, kind):
        raise _fail(key, f"expected a {kind.__name__}, got {value!r}")
    return value


def _discipline(entry: object, key: str) -> Discipline:
    if not isinstance(entry, dict):
        raise _fail(key, "expected a table with ability, corps_a_corps, field, wounds, "
                         "conventions")
    check_choice(f"value in ruleset {key}.wounds", entry["wounds"],
                 ("weapon", "blow", "none", "talent"))
    conventions = tuple(_typed(entry["conventions"], list, f"{key}.conventions"))
    if not conventions:  # the first one is the discipline's default
        raise _fail(key, f"conventions must name at least one of {', '.join(CONVENTIONS)}")
    for convention in conventions:
        check_choice(f"convention in ruleset {key}.conventions", convention, CONVENTIONS)
    return Discipline(_typed(entry["ability"], str, f"{key}.ability"),
                      _typed(entry["corps_a_corps"], str, f"{key}.corps_a_corps"),
                      _typed(entry["field"], bool, f"{key}.field"), entry["wounds"],
                      conventions)


def _prior(table: Mapping, what: str, rules_ladder: tuple[str, ...], level) -> tuple:
    weights = [0.0] * len(rules_ladder)
    for key, weight in table.items():
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not (
                math.isfinite(weight) and weight >= 0):
            raise InputError(f"{what}: weight of {key!r} must be a finite number >= 0, "
                             f"got {weight!r}")
        weights[level(key, what)] += float(weight)
    total = sum(weights)
    if total <= 0:
        raise InputError(f"{what}: at least one level needs a positive weight")
    return tuple(w / total for w in weights)


def _check_abilities(abilities: tuple[str, ...], disciplines: dict[str, Discipline],
                     footwork_ability: str) -> None:
    # Health reads Physique and Courage; blows, the sabre and corps-à-corps read Physique
    if footwork_ability not in abilities:
        raise _fail("footwork_ability", f"ability {footwork_ability!r} is not in abilities")
    for ability in ("physique", "courage"):
        if ability not in abilities:
            raise _fail("abilities", f"ability {ability!r} is missing")
    for name, discipline in disciplines.items():
        for ability in (discipline.ability, discipline.corps_a_corps):
            if ability and ability not in abilities:
                raise _fail(f"disciplines.{name}", f"ability {ability!r} is not in abilities")


def compile_rules(ruleset: dict) -> Rules:
    """Check the merged ruleset and turn it into lookup tables."""
    ladder = tuple(str(code) for code in ruleset["ladder"])
    names = tuple(str(name) for name in ruleset["level_names"])
    if len(names) != len(ladder) or len(set(ladder)) != len(ladder) or not ladder:
        raise _fail("ladder", "expected distinct level codes and one name per level")
    aliases = {code.lower(): i for i, code in enumerate(ladder)}
    aliases.update({name.lower(): i for i, name in enumerate(names)})
    abilities = tuple(str(a).lower() for a in ruleset["abilities"])
    disciplines = {name: _discipline(entry, f"disciplines.{name}")
                   for name, entry in ruleset["disciplines"].items()}
    _check_abilities(abilities, disciplines, str(ruleset["footwork_ability"]).lower())
    weapons = {name: _weapon(entry, f"weapons.{name}")
               for name, entry in ruleset["weapons"].items()}
    default_weapon = _weapon_name(ruleset["default_weapon"], weapons, "ruleset default_weapon")
    partial = Rules(
        ladder=ladder, names=names, aliases=aliases, abilities=abilities,
        rests_required=_per_level(ruleset["rests_required"], "rests_required", ladder,
                                  lambda v, k: _int(v, k, 0, 2 * EXCHANGES_PER_ROUND)),
        health=_per_level(ruleset["health"], "health", ladder,
                          lambda v, k: _ints(v, k, len(ladder))),
        weapons=weapons,
        blow_wounds=_per_level(ruleset["blow_wounds"], "blow_wounds", ladder,
                               lambda v, k: _ints(v, k, 3)),
        talent_wounds=_per_level(ruleset["talent_wounds"], "talent_wounds", ladder,
                                 lambda v, k: _ints(v, k, 3)),
        grid=_grid(ruleset["damage"], ladder),
        prior=(), disciplines=disciplines, default_weapon=default_weapon,
        convention=_choice(ruleset["convention"], CONVENTIONS, "ruleset convention"),
        max_rounds=_int(ruleset["max_rounds"], "max_rounds", 1, MAX_ROUNDS),
        field_m=_field(ruleset["field_m"], "ruleset field_m"),
        edge=_choice(ruleset["edge"], EDGES, "ruleset edge"),
        corps_a_corps_tie_m=_int(ruleset["corps_a_corps_tie_m"], "corps_a_corps_tie_m", 0, 2),
        footwork_ability=_typed(ruleset["footwork_ability"], str, "footwork_ability").lower(),
        feat_chance=_per_level(ruleset["feat_chance"], "feat_chance", ladder, _chance),
    )
    return replace(partial, prior=_prior(ruleset["prior"], "ruleset prior", ladder, partial.level))


def _token(value: object) -> str:
    return str(value).strip().lower().replace("-", "_").replace(" ", "_")


def _choice(value: object, allowed: tuple[str, ...], what: str) -> str:
    token = _token(value)
    check_choice(what, token if token in allowed else value, allowed)
    return token


def _field(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value % 2 or not 2 <= value <= 12:
        raise InputError(f"{what} must be an even number of metres from 2 to 12, got {value!r}")
    return value


def _weapon_name(value: object, weapons: Mapping[str, Weapon], what: str) -> str:
    token = _token(value)
    check_choice(what, token if token in weapons else value, weapons)
    return token
