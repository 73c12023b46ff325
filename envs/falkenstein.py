"""Castle Falkenstein card duel: the rules of ``shared/rules/falkenstein.md``, nothing else.

Every [default] of the rules is data in ``rulesets/falkenstein.toml``; ``make`` merges a
user's ruleset over it and compiles it once into lookup tables, so ``outcomes`` is a
handful of tuple look-ups.

Readings taken where the rules leave a combination open (each one is tested):

- A fall from the ledge puts the faller out of the duel, as HC does (the seed: "précipité
  dans l'abîme vers une mort inévitable"). Under first blood it ranks with HC, above every
  other wound; a fall against HC or against another fall is "draw: both out", a fall
  against a lesser wound loses.
- A corps-à-corps push at the ledge with less than 2 m behind the loser is a fall, as a
  retreat with less than 2 m would be; at a wall the push moves him as far as it allows.
- A duel that ends keeps the positions and Health the exchange produced; round and
  exchange stay those of the last exchange, and the Rests it played count.
- Weapon size classes are checked only in disciplines that wound with weapons; wrestling,
  boxing, sorcery and chess ignore the weapons on the sheets.
- Without a field (sorcery, chess) R does nothing at all, so nothing turns into BP.
- Under surrender a BT or BM wound costs Health and ends the duel only below 0 Health; a
  disarm ends it even if the disarmer took such a wound in the same exchange.
- Under first blood an R turned into BP at the wall is a BP like any other (equal BPs
  draw); the label only records where it happened.
- ``prior_a`` / ``prior_b`` without ``hidden_levels`` is an error (it would do nothing).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from solver.errors import InputError, check_choice

from .rulesets import load_ruleset, ruleset_hash

ACTIONS = ("AA", "AD", "AR", "DD", "DR", "RR")
DD = ACTIONS.index("DD")
# attacks, defenses and rests of each action, in ACTIONS order
ATTACKS = tuple(name.count("A") for name in ACTIONS)
DEFENSES = tuple(name.count("D") for name in ACTIONS)
RESTS = tuple(name.count("R") for name in ACTIONS)
_INDEX = (int, np.integer)
# Rests still owed after an action, by Rests owed before it (at most 2 a card pair for
# 3 exchanges a round)
_OWED_AFTER = tuple(tuple(max(0, owed - rests) for rests in RESTS) for owed in range(7))
EXCHANGES_PER_ROUND = 3
# the exact solution grows with the rounds (about 37 states a round); beyond this the
# seconds would have stopped any duel long ago
MAX_ROUNDS = 1000
LETTERS = ("R", "BP", "BT", "BM", "HC")
CONVENTIONS = ("first_blood", "surrender", "to_the_death")
EDGES = ("wall", "ledge")
SHEET_EXTRAS = ("health", "weapon", "name")

# What one exchange does to one duellist (beyond the grid letter it receives):
# "retreat" 2 m, "wall" (an R turned into BP), "fall", a wound letter, "push" (lost a
# corps-à-corps), "still" (an R without a field) or "" (nothing).
SEVERITY = {"wall": 1, "BP": 1, "BT": 2, "BM": 3, "HC": 4, "fall": 4}
OUT = 4
WOUND_INDEX = {"wall": 0, "BP": 0, "BT": 1, "BM": 2}

_CAUSES = ("first blood", "first blood at the wall", "out of combat", "unconscious",
           "disarm", "{loser} falls from the ledge")
_DRAWS = ("both wounded alike", "both out", "both disarmed", "disarmed and out",
          "out of time")
#: every way a duel can end; a state stores the index (0: not over)
ENDINGS = ("",) + tuple(
    f"{winner} wins: {cause.format(loser=loser)}"
    for winner, loser in (("A", "B"), ("B", "A")) for cause in _CAUSES
) + tuple(f"draw: {draw}" for draw in _DRAWS)
_END = {label: index for index, label in enumerate(ENDINGS)}
_PAYOFF = tuple(1.0 if label.startswith("A wins") else -1.0 if label.startswith("B wins")
                else 0.0 for label in ENDINGS)


class State(NamedTuple):
    """A moment of the duel between two exchanges (or the end).

    ``back_a`` is the room behind A in metres (B has ``field_m - 2 - back_a``). Rests are
    stored as owed, so equivalent situations are one state; ``rested_*`` (Rests played this
    round) is public information kept only with hidden levels. Levels are ladder indices
    of the Fencing role. ``ending`` indexes ``ENDINGS`` (0 while the duel goes on).
    """

    round: int
    exchange: int
    owed_a: int
    owed_b: int
    back_a: int
    health_a: int
    health_b: int
    level_a: int
    level_b: int
    rested_a: int = 0
    rested_b: int = 0
    ending: int = 0


STATE_FIELDS = State._fields


# ---------------------------------------------------------------- the ruleset, compiled

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
    grid: tuple[tuple[tuple[str, str], ...], ...]  # [row][column] -> (single, double)
    prior: tuple[float, ...]
    disciplines: dict[str, Discipline]
    default_weapon: str
    convention: str
    max_rounds: int
    field_m: int
    edge: str

    def level(self, value: object, what: str) -> int:
        """The ladder index of a level code or name, case-insensitive."""
        if isinstance(value, str) and value.strip().lower() in self.aliases:
            return self.aliases[value.strip().lower()]
        allowed = ", ".join(f"{code} ({name})" for code, name in
                            zip(self.ladder, self.names, strict=True))
        raise InputError(f"unknown level {value!r} for {what}; allowed: {allowed}")


def _fail(key: str, message: str) -> InputError:
    return InputError(f"ruleset {key}: {message}")


def _int(value: object, key: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _fail(key, f"expected an integer {low}..{high}, got {value!r}")
    return value


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


def _typed(value: object, kind: type, key: str):
    """``value`` if it is a ``kind`` (TOML has real booleans: "false" is not one)."""
    if not isinstance(value, kind):
        raise _fail(key, f"expected a {kind.__name__}, got {value!r}")
    return value


def _discipline(entry: object, key: str) -> Discipline:
    if not isinstance(entry, dict):
        raise _fail(key, "expected a table with ability, corps_a_corps, field, wounds, "
                         "conventions")
    check_choice(f"value in ruleset {key}.wounds", entry["wounds"], ("weapon", "blow", "none"))
    conventions = tuple(_typed(entry["conventions"], list, f"{key}.conventions"))
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


def _check_abilities(abilities: tuple[str, ...], disciplines: dict[str, Discipline]) -> None:
    # Health reads Physique and Courage; blows, the sabre and corps-à-corps read Physique
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
    _check_abilities(abilities, disciplines)
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
        grid=_grid(ruleset["damage"], ladder),
        prior=(), disciplines=disciplines, default_weapon=default_weapon,
        convention=_choice(ruleset["convention"], CONVENTIONS, "ruleset convention"),
        max_rounds=_int(ruleset["max_rounds"], "max_rounds", 1, MAX_ROUNDS),
        field_m=_field(ruleset["field_m"], "ruleset field_m"),
        edge=_choice(ruleset["edge"], EDGES, "ruleset edge"),
    )
    return replace(partial, prior=_prior(ruleset["prior"], "ruleset prior", ladder, partial.level))


# ---------------------------------------------------------------- options and sheets

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


def _flag(value: object, name: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise InputError(f"option {name} takes true or false, got {value!r}")
    return value


def _weapon_name(value: object, weapons: Mapping[str, Weapon], what: str) -> str:
    token = _token(value)
    check_choice(what, token if token in weapons else value, weapons)
    return token


def normalise_sheet(sheet: Mapping | None, side: str, rules: Rules) -> dict:
    """The sheet with every ability as a ladder code, Health and weapon filled in."""
    if sheet is None:
        sheet = {}
    if not isinstance(sheet, Mapping):
        raise InputError(f"sheet {side} must be a mapping ability -> level, got {sheet!r}")
    out: dict = {ability: rules.ladder[1] for ability in rules.abilities}
    extras: dict = {}
    for key, value in sheet.items():
        name = _token(key)
        if name in rules.abilities:
            out[name] = rules.ladder[rules.level(value, f"{side}'s {name}")]
        elif name in SHEET_EXTRAS:
            extras[name] = value
        else:
            check_choice(f"sheet key of {side}", key, rules.abilities + SHEET_EXTRAS)
    default_health = rules.health[rules.aliases[out["physique"].lower()]][
        rules.aliases[out["courage"].lower()]]
    out["health"] = _health(extras.get("health", default_health), side)
    out["weapon"] = _weapon_name(extras.get("weapon", rules.default_weapon), rules.weapons,
                                 f"weapon of {side}")
    if "name" in extras:
        out["name"] = str(extras["name"])
    return out


def _health(value: object, side: str) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"health of {side} must be an integer >= 0, got {value!r}")
    return value


def make(a: Mapping | None = None, b: Mapping | None = None,
         ruleset: str | Path | dict | None = None, convention: str | None = None,
         max_rounds: int | None = None, field_m: int | None = None, edge: str | None = None,
         sabre_uses_physique: bool | None = None, discipline: str | None = None,
         hidden_levels: bool | None = None, prior_a: Mapping | None = None,
         prior_b: Mapping | None = None) -> FalkensteinGame:
    """Build the duel; an option given as None takes the ruleset's (or catalog's) default."""
    merged = load_ruleset("falkenstein", ruleset)
    try:
        rules = compile_rules(merged)
    except (TypeError, ValueError, KeyError, IndexError) as error:
        if isinstance(error, InputError):
            raise
        raise InputError(f"malformed ruleset data ({type(error).__name__}: {error})") from None
    options = _resolve_options(rules, dict(
        convention=convention, max_rounds=max_rounds, field_m=field_m, edge=edge,
        sabre_uses_physique=sabre_uses_physique, discipline=discipline,
        hidden_levels=hidden_levels, prior_a=prior_a, prior_b=prior_b))
    sheets = {"a": normalise_sheet(a, "a", rules), "b": normalise_sheet(b, "b", rules)}
    options = {"a": sheets["a"], "b": sheets["b"],
               "ruleset": str(ruleset) if isinstance(ruleset, str | Path) else ruleset,
               **options}
    return FalkensteinGame(rules, options, ruleset_hash(merged))


def _resolve_options(rules: Rules, given: dict) -> dict:
    discipline = _choice(given["discipline"] or "fencing", tuple(rules.disciplines),
                         "discipline")
    allowed = rules.disciplines[discipline].conventions
    default = rules.convention if rules.convention in allowed else allowed[0]
    convention = _choice(given["convention"] or default, CONVENTIONS, "convention")
    if convention not in allowed:
        raise InputError(f"convention {convention!r} is not allowed in {discipline}; "
                         f"allowed: {', '.join(allowed)}")
    max_rounds = rules.max_rounds if given["max_rounds"] is None else given["max_rounds"]
    if (isinstance(max_rounds, bool) or not isinstance(max_rounds, int)
            or not 1 <= max_rounds <= MAX_ROUNDS):
        raise InputError(f"max_rounds must be an integer from 1 to {MAX_ROUNDS}, "
                         f"got {max_rounds!r}")
    hidden = _flag(given["hidden_levels"], "hidden_levels")
    priors = {}
    for side in ("a", "b"):
        prior = given[f"prior_{side}"]
        if prior is not None and not hidden:
            raise InputError(f"prior_{side} applies only with hidden_levels=true")
        if hidden:
            weights = rules.prior if prior is None else _prior(
                _mapping(prior, f"prior_{side}"), f"prior_{side}", rules.ladder, rules.level)
            priors[side] = dict(zip(rules.ladder, weights, strict=True))
    return {
        "convention": convention, "max_rounds": max_rounds,
        "field_m": _field(rules.field_m if given["field_m"] is None else given["field_m"],
                          "field_m"),
        "edge": _choice(given["edge"] or rules.edge, EDGES, "edge"),
        "sabre_uses_physique": _flag(given["sabre_uses_physique"], "sabre_uses_physique"),
        "discipline": discipline, "hidden_levels": hidden,
        "prior_a": priors.get("a"), "prior_b": priors.get("b"),
    }


def _mapping(value: object, what: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise InputError(f"{what} must be a mapping level -> weight, got {value!r}")
    return value


# ---------------------------------------------------------------- the game

class _Exchange(NamedTuple):
    """One exchange resolved from the positions before it."""

    hits_a: int  # touches A receives
    hits_b: int
    letter_a: str  # grid letter A receives ("" for none)
    letter_b: str
    effect_a: str  # what it does on this ground (see SEVERITY's comment)
    effect_b: str
    move_a: int  # metres A is driven back
    move_b: int


class FalkensteinGame:
    """The card duel as a simultaneous-move game (``solver.game.Game``)."""

    system = "falkenstein"
    action_names = ACTIONS
    state_fields = STATE_FIELDS
    endings = ENDINGS

    def __init__(self, rules: Rules, options: dict, ruleset_digest: str):
        self.rules = rules
        self.options = options
        self.ruleset_hash = ruleset_digest
        self.sheets = {"a": options["a"], "b": options["b"]}
        self.public_information = not options["hidden_levels"]
        self._setup_rules()
        self._setup_observation()

    @property
    def pairing_ability(self) -> str:
        """The sheet key whose levels ``duel solve --all-pairings`` crosses."""
        return self.discipline.ability

    @property
    def level_names(self) -> tuple[str, ...]:
        return self.rules.ladder

    def options_for_pairing(self, level_a: str, level_b: str) -> dict:
        """These options with the pairing ability of A and B set to the given levels."""
        key = self.pairing_ability
        return dict(self.options, a=dict(self.options["a"], **{key: level_a}),
                    b=dict(self.options["b"], **{key: level_b}))

    # -- precomputed tables (``outcomes`` only looks things up)

    def _setup_rules(self) -> None:
        rules, opts = self.rules, self.options
        self.discipline = rules.disciplines[opts["discipline"]]
        self._check_weapons()
        self.convention = opts["convention"]
        self.max_rounds = opts["max_rounds"]
        self.field_m = opts["field_m"]
        self.edge = opts["edge"]
        self._room = self.field_m - 2
        self._hits = tuple(tuple(max(0, ATTACKS[x] - DEFENSES[y]) for y in range(6))
                           for x in range(6))
        self._sheet_level = {side: self._level_of(side, self.discipline.ability)
                             for side in ("a", "b")}
        self._physique = {side: self._level_of(side, "physique") for side in ("a", "b")}
        strength = self.discipline.corps_a_corps
        self._strength = {side: self._level_of(side, strength) for side in ("a", "b")} \
            if strength else None
        self._row = {side: self._damage_row(side) for side in ("a", "b")}
        self._wounds = {side: self._wound_values(side) for side in ("a", "b")}
        self._legal = self._legal_table()
        self._effects: dict[tuple, tuple[int, int, int, int]] = {}
        self._legal_indices = {key: np.flatnonzero(mask).tolist()
                               for key, mask in self._legal.items()}

    def _level_of(self, side: str, ability: str) -> int:
        return self.rules.aliases[self.sheets[side][ability].lower()]

    def _check_weapons(self) -> None:
        if self.discipline.wounds != "weapon":
            return
        weapons = {side: self.sheets[side]["weapon"] for side in ("a", "b")}
        sizes = {side: self.rules.weapons[w].size for side, w in weapons.items()}
        if sizes["a"] != sizes["b"]:
            raise InputError(
                f"not a duel: A's {weapons['a']} ({sizes['a']}) against B's {weapons['b']} "
                f"({sizes['b']}); a duel is fought with weapons of one size class")

    def _damage_row(self, side: str) -> int | None:
        """The attacker's fixed grid row, or None when it is his (maybe hidden) level."""
        weapon = self.rules.weapons[self.sheets[side]["weapon"]]
        if (self.options["sabre_uses_physique"] and weapon.uses_physique
                and self.discipline.wounds == "weapon"):
            return self._physique[side]
        return None

    def _wound_values(self, side: str) -> tuple[int, int, int]:
        if self.discipline.wounds == "weapon":
            return self.rules.weapons[self.sheets[side]["weapon"]].wounds
        if self.discipline.wounds == "blow":
            return self.rules.blow_wounds[self._physique[side]]
        return (0, 0, 0)

    def _legal_table(self) -> dict[tuple[int, int], np.ndarray]:
        table = {}
        for exchange in range(1, EXCHANGES_PER_ROUND + 1):
            left = EXCHANGES_PER_ROUND - exchange
            for owed in range(2 * EXCHANGES_PER_ROUND + 1):
                mask = np.array([max(0, owed - RESTS[x]) <= 2 * left for x in range(6)])
                table[owed, exchange] = mask
        return table

    def _setup_observation(self) -> None:
        most_owed = max(self.rules.rests_required)
        top_health = max(max(max(row) for row in self.rules.health),
                         self.sheets["a"]["health"], self.sheets["b"]["health"])
        worst_wound = max(max(self._wounds["a"]), max(self._wounds["b"]))
        top_level = len(self.rules.ladder) - 1
        fields = [("round", 1, self.max_rounds), ("exchange", 1, EXCHANGES_PER_ROUND)]
        hidden = -1 if not self.public_information else 0
        fields += [("own_owed", 0, most_owed), ("opp_owed", hidden, most_owed),
                   ("own_back", 0, self._room), ("opp_back", 0, self._room),
                   ("own_health", -worst_wound, top_health),
                   ("opp_health", -worst_wound, top_health),
                   ("own_level", 0, top_level), ("opp_level", hidden, top_level)]
        if not self.public_information:
            fields += [("own_rested", 0, 2 * EXCHANGES_PER_ROUND),
                       ("opp_rested", 0, 2 * EXCHANGES_PER_ROUND)]
        fields.append(("ending", 0, len(ENDINGS) - 1))
        self.observation_fields = tuple(f[0] for f in fields)
        self.observation_low = tuple(f[1] for f in fields)
        self.observation_high = tuple(f[2] for f in fields)
        self._health_high = top_health

    # -- the protocol

    def initial_outcomes(self) -> list[tuple[float, State]]:
        """The start, or one start per pair of drawn levels with hidden levels."""
        if self.public_information:
            return [(1.0, self._start(self._sheet_level["a"], self._sheet_level["b"]))]
        prior_a = list(self.options["prior_a"].values())
        prior_b = list(self.options["prior_b"].values())
        return [(pa * pb, self._start(la, lb))
                for la, pa in enumerate(prior_a) if pa > 0
                for lb, pb in enumerate(prior_b) if pb > 0]

    def _start(self, level_a: int, level_b: int) -> State:
        required = self.rules.rests_required
        return State(1, 1, required[level_a], required[level_b], self._room // 2,
                     self.sheets["a"]["health"], self.sheets["b"]["health"], level_a, level_b)

    def legal_mask(self, state: State, player: str) -> np.ndarray:
        """Legal iff the Rests still owed after the action fit in the exchanges left."""
        owed = state.owed_a if _side(player) == "a" else state.owed_b
        return self._legal[owed, state.exchange].copy()

    def outcomes(self, state: State, action_a: int, action_b: int) -> list[tuple[float, State]]:
        """The exchange is deterministic: one next state with probability 1."""
        self._check_actions(state, action_a, action_b)
        return [(1.0, self._next(state, action_a, action_b))]

    def transitions(self, state: State) -> list[tuple[int, int, list[tuple[float, State]]]]:
        """Every legal joint action with its outcomes, in one call (the solver's fast
        path: the same as ``outcomes`` on each legal pair, without re-checking them)."""
        legal_a = self._legal_indices[state.owed_a, state.exchange]
        legal_b = self._legal_indices[state.owed_b, state.exchange]
        after = self._next
        return [(i, j, [(1.0, after(state, i, j))]) for i in legal_a for j in legal_b]

    def sample(self, state: State, action_a: int, action_b: int,
               rng: np.random.Generator | None = None) -> State:
        self._check_actions(state, action_a, action_b)
        return self._next(state, action_a, action_b)

    def is_terminal(self, state: State) -> bool:
        return state.ending != 0

    def payoff(self, state: State) -> float:
        return _PAYOFF[state.ending]

    def result(self, state: State) -> str:
        return ENDINGS[state.ending]

    def observe(self, state: State, player: str) -> tuple[int, ...]:
        """The state from ``player``'s side; with hidden levels the opponent's level and
        the Rests he owes read -1, and the Rests both played this round are shown."""
        own, opp = ("a", "b") if _side(player) == "a" else ("b", "a")
        view = self.state_dict(state)
        public = self.public_information
        observation = [state.round, state.exchange, view[f"owed_{own}"],
                       view[f"owed_{opp}"] if public else -1, view[f"back_{own}"],
                       view[f"back_{opp}"], view[f"health_{own}"], view[f"health_{opp}"],
                       view[f"level_{own}"], view[f"level_{opp}"] if public else -1]
        if not public:
            observation += [view[f"rested_{own}"], view[f"rested_{opp}"]]
        observation.append(state.ending)
        return tuple(observation)

    # -- resolving an exchange

    def _check_actions(self, state: State, action_a: int, action_b: int) -> None:
        legal = self._legal
        if (not state.ending and isinstance(action_a, _INDEX) and isinstance(action_b, _INDEX)
                and 0 <= action_a < 6 and 0 <= action_b < 6
                and legal[state.owed_a, state.exchange][action_a]
                and legal[state.owed_b, state.exchange][action_b]):
            return
        if state.ending:
            raise InputError(f"the duel is over ({ENDINGS[state.ending]}); no more exchanges")
        for side, action, owed in (("A", action_a, state.owed_a), ("B", action_b, state.owed_b)):
            mask = self._legal[owed, state.exchange]
            if not (isinstance(action, int | np.integer) and 0 <= action < len(ACTIONS)
                    and mask[action]):
                name = ACTIONS[action] if isinstance(action, int | np.integer) and 0 <= action < 6 \
                    else repr(action)
                legal = ", ".join(a for a, ok in zip(ACTIONS, mask, strict=True) if ok)
                raise InputError(f"illegal action {name} for {side} (owes {owed} Rests at "
                                 f"exchange {state.exchange}); legal: {legal}")

    def _next(self, state: State, action_a: int, action_b: int) -> State:
        # an exchange's effect depends on neither the round nor the Rests owed, so the
        # solver's thousands of calls share a few hundred resolutions
        key = (state.back_a, state.health_a, state.health_b, state.level_a, state.level_b,
               action_a, action_b)
        effect = self._effects.get(key)
        if effect is None:
            effect = self._effects[key] = self._effect(state, action_a, action_b)
        return self._advance(state, action_a, action_b, *effect)

    def _effect(self, state: State, action_a: int, action_b: int) -> tuple[int, int, int, int]:
        """Back of A, Health of A and B, and the ending after the exchange."""
        ex = self.resolve(state, action_a, action_b)
        back_a = state.back_a - ex.move_a + ex.move_b
        if self.convention == "first_blood":
            health_a, health_b = state.health_a, state.health_b
            ending = self._first_blood(ex.effect_a, ex.effect_b)
        else:
            health_a, status_a = self._take(state.health_a, ex.effect_a, self._wounds["b"])
            health_b, status_b = self._take(state.health_b, ex.effect_b, self._wounds["a"])
            ending = self._ended(status_a, status_b)
        return back_a, health_a, health_b, ending

    def resolve(self, state: State, action_a: int, action_b: int) -> _Exchange:
        """Hits, grid letters and their effects, all from the positions before it."""
        hits_a = self._hits[action_b][action_a]
        hits_b = self._hits[action_a][action_b]
        back_a, back_b = state.back_a, self._room - state.back_a
        if hits_a or hits_b:
            letter_a = self._letter("b", state.level_b, state.level_a, hits_a)
            letter_b = self._letter("a", state.level_a, state.level_b, hits_b)
            effect_a, move_a = self._on_ground(letter_a, back_a)
            effect_b, move_b = self._on_ground(letter_b, back_b)
            return _Exchange(hits_a, hits_b, letter_a, letter_b, effect_a, effect_b,
                             move_a, move_b)
        if action_a == action_b == DD and self.discipline.corps_a_corps:
            return self._corps_a_corps(back_a, back_b)
        return _Exchange(0, 0, "", "", "", "", 0, 0)

    def _letter(self, attacker: str, attacker_level: int, defender_level: int,
                hits: int) -> str:
        if not hits:
            return ""
        row = self._row[attacker]
        return self.rules.grid[attacker_level if row is None else row][defender_level][hits - 1]

    def _on_ground(self, letter: str, back: int) -> tuple[str, int]:
        """A grid letter as it plays out with ``back`` metres behind its receiver."""
        if letter != "R":
            return letter, 0
        if not self.discipline.field:
            return "still", 0
        if back >= 2:
            return "retreat", 2
        return ("wall", 0) if self.edge == "wall" else ("fall", 0)

    def _corps_a_corps(self, back_a: int, back_b: int) -> _Exchange:
        strength_a, strength_b = self._strength["a"], self._strength["b"]
        # equal strength: they push each other 1 m and close again, so nobody moves
        effect_a = effect_b = ""
        move_a = move_b = 0
        if strength_a < strength_b:
            effect_a, move_a = self._pushed(back_a)
        elif strength_b < strength_a:
            effect_b, move_b = self._pushed(back_b)
        return _Exchange(0, 0, "", "", effect_a, effect_b, move_a, move_b)

    def _pushed(self, back: int) -> tuple[str, int]:
        if self.edge == "ledge" and back < 2:
            return "fall", 0
        return "push", min(2, back)

    # -- how the duel ends

    def _first_blood(self, effect_a: str, effect_b: str) -> int:
        worst_a, worst_b = SEVERITY.get(effect_a, 0), SEVERITY.get(effect_b, 0)
        if not worst_a and not worst_b:
            return 0
        if worst_a == worst_b:
            return _END["draw: both out" if worst_a >= OUT else "draw: both wounded alike"]
        loser, effect = ("A", effect_a) if worst_a > worst_b else ("B", effect_b)
        cause = {"wall": "first blood at the wall", "HC": "out of combat",
                 "fall": "fall"}.get(effect, "first blood")
        return _win(loser, cause)

    def _take(self, health: int, effect: str, wounds: tuple[int, int, int]) -> tuple[int, str]:
        """Health after the effect and the status it leaves: "", "disarm" or a way out."""
        if effect in ("fall", "HC"):
            return health, effect
        if effect not in WOUND_INDEX:
            return health, ""
        if self.convention == "surrender" and WOUND_INDEX[effect] == 0:
            return health, "disarm"
        health -= wounds[WOUND_INDEX[effect]]
        return health, "unconscious" if health < 0 else ""

    def _ended(self, status_a: str, status_b: str) -> int:
        if status_a and status_b:
            if "disarm" not in (status_a, status_b):
                return _END["draw: both out"]
            both = status_a == status_b
            return _END["draw: both disarmed" if both else "draw: disarmed and out"]
        if not status_a and not status_b:
            return 0
        loser, status = ("A", status_a) if status_a else ("B", status_b)
        cause = {"HC": "out of combat", "fall": "fall"}.get(status, status)
        return _win(loser, cause)

    def _advance(self, state: State, action_a: int, action_b: int, back_a: int,
                 health_a: int, health_b: int, ending: int) -> State:
        owed_a = _OWED_AFTER[state.owed_a][action_a]
        owed_b = _OWED_AFTER[state.owed_b][action_b]
        rested_a = rested_b = 0
        if not self.public_information:
            rested_a = state.rested_a + RESTS[action_a]
            rested_b = state.rested_b + RESTS[action_b]
        if not ending and state.exchange < EXCHANGES_PER_ROUND:
            return State(state.round, state.exchange + 1, owed_a, owed_b, back_a,
                         health_a, health_b, state.level_a, state.level_b, rested_a, rested_b)
        if not ending and state.round < self.max_rounds:
            required = self.rules.rests_required
            return State(state.round + 1, 1, required[state.level_a], required[state.level_b],
                         back_a, health_a, health_b, state.level_a, state.level_b)
        ending = ending or _END["draw: out of time"]
        return State(state.round, state.exchange, owed_a, owed_b, back_a, health_a, health_b,
                     state.level_a, state.level_b, rested_a, rested_b, ending)

    # -- states for people and for the CLI

    def state_dict(self, state: State) -> dict:
        """The state's fields, plus ``back_b``."""
        view = state._asdict()
        view["back_b"] = self._room - state.back_a
        return view

    def state_from(self, values: Mapping) -> State:
        """A state from field values (ints or digit strings; levels may be codes);
        missing fields are the start state's. ``back_b`` may stand for ``back_a``."""
        start = self.initial_outcomes()[0][1]
        fields = dict(start._asdict())
        for key, value in values.items():
            if key not in STATE_FIELDS + ("back_b",):
                check_choice("state field", key, STATE_FIELDS + ("back_b",))
            fields[key] = self._field_value(key, value)
        if "back_b" in fields:
            back_a = self._room - fields.pop("back_b")
            if "back_a" in values and fields["back_a"] != back_a:
                raise InputError(f"back_a + back_b must be field_m - 2 = {self._room}")
            fields["back_a"] = back_a
        self._check_live(fields)
        if "owed_a" not in values or "owed_b" not in values:
            self._default_owed(fields, values)
        if self.public_information:  # Rests played only count through the Rests owed
            fields["rested_a"] = fields["rested_b"] = 0
        state = State(**fields)
        self._check_state(state)
        return state

    def _field_value(self, key: str, value: object) -> int:
        if key.startswith("level_") and isinstance(value, str) and not value.strip().lstrip(
                "-").isdigit():
            return self.rules.level(value, key)
        if key == "ending" and isinstance(value, str) and value in _END:
            return _END[value]
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value)
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise InputError(f"state field {key} takes an integer, got {value!r}")
        return int(value)

    def _check_live(self, fields: dict) -> None:
        """A moment to ask about is one at which the duel still goes on."""
        if fields["ending"]:
            raise InputError("ending must be 0: the duel is over at that state")
        played = 2 * (fields["exchange"] - 1)
        for side in ("a", "b"):
            if fields[f"health_{side}"] < 0:
                raise InputError(f"health_{side} below 0 is unconscious: the duel is over")
            if not 0 <= fields[f"rested_{side}"] <= played:
                raise InputError(f"rested_{side} (Rests played this round) must be "
                                 f"0..{played} at exchange {fields['exchange']}")

    def _default_owed(self, fields: dict, given: Mapping) -> None:
        """Unless given, a side owes what its level requires less the Rests it played."""
        for side in ("a", "b"):
            if f"owed_{side}" not in given:
                level = fields[f"level_{side}"]
                if not 0 <= level < len(self.rules.ladder):
                    continue  # _check_state reports it
                required = self.rules.rests_required[level]
                fields[f"owed_{side}"] = max(0, required - fields[f"rested_{side}"])

    def _check_state(self, state: State) -> None:
        top = len(self.rules.ladder) - 1
        rested_top = 2 * (state.exchange - 1) if not self.public_information else 0
        bounds = {"round": (1, self.max_rounds), "exchange": (1, EXCHANGES_PER_ROUND),
                  "back_a": (0, self._room), "level_a": (0, top), "level_b": (0, top),
                  "health_a": (-max(self._wounds["b"]), self._health_high),
                  "health_b": (-max(self._wounds["a"]), self._health_high),
                  "rested_a": (0, rested_top), "rested_b": (0, rested_top),
                  "ending": (0, len(ENDINGS) - 1)}
        for side in ("a", "b"):
            level = getattr(state, f"level_{side}")
            bounds[f"owed_{side}"] = (0, min(self.rules.rests_required[min(level, top)],
                                             2 * (EXCHANGES_PER_ROUND + 1 - state.exchange)))
        for key, (low, high) in bounds.items():
            value = getattr(state, key)
            if not low <= value <= high:
                raise InputError(f"state field {key}={value} is out of range {low}..{high}")
        if not self.public_information:
            self._check_rested(state)
            return
        for side in ("a", "b"):
            if getattr(state, f"level_{side}") != self._sheet_level[side]:
                raise InputError(f"level_{side} is fixed by the sheet when levels are "
                                 f"public ({self.sheets[side][self.discipline.ability]})")

    def _check_rested(self, state: State) -> None:
        """With hidden levels the Rests owed follow from the level and the Rests played."""
        for side in ("a", "b"):
            required = self.rules.rests_required[getattr(state, f"level_{side}")]
            owed = max(0, required - getattr(state, f"rested_{side}"))
            if not state.ending and getattr(state, f"owed_{side}") != owed:
                raise InputError(f"owed_{side} must be {owed}: level_{side} requires "
                                 f"{required} Rests and rested_{side} were played")

    def _name(self, side: str) -> str:
        name = self.sheets[side].get("name")
        return f"{side.upper()} ({name})" if name else side.upper()

    def describe(self, state: State, viewer: str | None = None) -> str:
        """The situation at the table: round, ground, Health, Rests owed. With hidden
        levels, a ``viewer`` sees neither his foe's level nor the Rests he owes."""
        view = self.state_dict(state)
        lines = [f"Round {state.round} of {self.max_rounds}, exchange {state.exchange} of "
                 f"{EXCHANGES_PER_ROUND} ({self.options['discipline']}, "
                 f"{self.convention.replace('_', ' ')})."]
        if self.discipline.field:
            where = "; ".join(self._where(side, view[f"back_{side}"]) for side in "ab")
            lines.append(f"Ground {self.field_m} m, a {self.edge} at each end: {where}.")
        for side in "ab":
            ability = self.discipline.ability.capitalize()
            if viewer is not None and not self.public_information and side != _side(viewer):
                rested = view[f"rested_{side}"]
                lines.append(f"{self._name(side)}: {ability} unknown, Health "
                             f"{view[f'health_{side}']}, has played {rested} "
                             f"Rest{'s' if rested != 1 else ''} this round.")
                continue
            level = self.rules.ladder[view[f"level_{side}"]]
            owed = view[f"owed_{side}"]
            lines.append(f"{self._name(side)}: {ability} {level}, "
                         f"Health {view[f'health_{side}']}, owes {owed} "
                         f"Rest{'s' if owed != 1 else ''} this round.")
        return "\n".join(lines)

    def _where(self, side: str, back: int) -> str:
        at_edge = f", at the {self.edge}" if back == 0 else ""
        return f"{self._name(side)} has {back} m behind him{at_edge}"

    def narrate(self, state: State, action_a: int, action_b: int, next_state: State) -> str:
        """What happened in one exchange, in words."""
        ex = self.resolve(state, action_a, action_b)
        head = f"A plays {ACTIONS[action_a]}, B plays {ACTIONS[action_b]}: "
        if ex.hits_a or ex.hits_b:
            parts = [self._touch_text(attacker, defender, ex, state, next_state)
                     for attacker, defender in (("a", "b"), ("b", "a"))
                     if getattr(ex, f"hits_{defender}")]
        elif action_a == action_b == DD:
            parts = [self._corps_text(ex)]
        else:
            parts = ["no touch."]
        text = head + " ".join(parts)
        if next_state.ending:
            text += f" {ENDINGS[next_state.ending]}."
        return text

    def _touch_text(self, attacker: str, defender: str, ex: _Exchange, state: State,
                    next_state: State) -> str:
        hits = getattr(ex, f"hits_{defender}")
        letter = getattr(ex, f"letter_{defender}")
        effect = getattr(ex, f"effect_{defender}")
        touch = "single" if hits == 1 else "double"
        who = self._name(defender)
        before = getattr(state, f"health_{defender}")
        after = getattr(next_state, f"health_{defender}")
        outcome = {
            "retreat": f"{who} retreats 2 m toward the {self.edge}",
            "still": f"{who} gives ground, which changes nothing here",
            "wall": f"{who} cannot retreat: the R becomes BP at the wall",
            "fall": f"{who} has no room and falls from the ledge",
            "HC": f"{who} is out of combat",
        }.get(effect, f"{who} is wounded ({effect})")
        if effect in WOUND_INDEX and self.convention == "surrender" and WOUND_INDEX[effect] == 0:
            outcome += ": he is disarmed" if effect == "wall" else " and disarmed"
        elif before != after:
            outcome += f", Health {before} -> {after}"
        return f"{self._name(attacker)}'s {touch} touch ({letter}): {outcome}."

    def _corps_text(self, ex: _Exchange) -> str:
        if not self.discipline.corps_a_corps:
            return "corps-à-corps, which has no effect here."
        for loser, winner in (("a", "b"), ("b", "a")):
            effect = getattr(ex, f"effect_{loser}")
            if effect == "fall":
                return (f"corps-à-corps: {self._name(winner)} pushes {self._name(loser)} "
                        f"off the ledge.")
            if effect == "push" and not getattr(ex, f"move_{loser}"):
                return (f"corps-à-corps: {self._name(winner)} pushes {self._name(loser)} "
                        f"against the wall, which stops him.")
            if effect == "push":
                metres = getattr(ex, f"move_{loser}")
                return (f"corps-à-corps: {self._name(winner)} pushes {self._name(loser)} "
                        f"back {metres} m.")
        return "corps-à-corps: equal strength, they push each other apart and close again."


def _win(loser: str, cause: str) -> int:
    winner = "B" if loser == "A" else "A"
    if cause == "fall":
        return _END[f"{winner} wins: {loser} falls from the ledge"]
    return _END[f"{winner} wins: {cause}"]


def _side(player: str) -> str:
    if player not in ("a", "b"):
        check_choice("player", player, ("a", "b"))
    return player
