"""One declarative schema per system: its options, its sheets, its presentation hints.

From a system's ``SystemSpec`` come ``envs.systems()``, ``duel systems``, the checks of
``envs.make``, the CLI's ``-o KEY=VALUE`` conversion, the sheets' syntax and the options
recorded in profiles. A value is checked the same way whether it comes as text (the
command line), as a Python value (``envs.make``) or from a ruleset file (a default).

Syntax, the same everywhere:
- a sheet is ``key=value`` fields, bare words for flags (things a character has:
  ``adresse,tireur``) and at most one named reference sheet whose fields the others
  override (``fighter,hp=20``);
- weights are ``NAME:WEIGHT,...`` (mixes, priors).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from solver.errors import InputError

# a number as people type it lives in ``envs.numbers`` (light, for the command's parser
# too); its names are read from here as well
from .numbers import MAX_DIGITS as MAX_DIGITS
from .numbers import MAX_SEED as MAX_SEED
from .numbers import STATE_DIGITS, integer_text, number_text

KINDS = ("int", "float", "bool", "choice", "weights", "text", "flag")
TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")
#: the sheet key that names a reference sheet in the Python form of a sheet
REFERENCE = "sheet"

def looks_numeric(text: str) -> bool:
    """Whether ``text`` holds a digit of any script: such text must be a number as
    ``integer_text`` reads it, never a word (``²`` is neither a band nor a 2)."""
    return any(unicodedata.decimal(c, None) is not None or unicodedata.digit(c, None)
               is not None for c in text)


def state_values(values: Mapping, where: str = "state field") -> dict:
    """Named state fields as given (``--state`` text or a reset's dict), each an integer
    or a word: integer text becomes an int; floats, bools, ``1_0`` and other digits are
    refused, whatever the system, before the system reads the words it knows."""
    if not isinstance(values, Mapping):
        raise InputError(f"{where}s must be a mapping FIELD -> integer, got {values!r:.80}")
    out = {}
    for key, value in values.items():
        if isinstance(value, str) and looks_numeric(value):
            # long digit strings pass: the system says its field's range
            number = integer_text(value, STATE_DIGITS)
            if number is None:
                raise InputError(f"{where} {key} takes an integer (ASCII digits, at most "
                                 f"{STATE_DIGITS}), got {value!r:.40}")
            value = number
        elif isinstance(value, np.integer) and not isinstance(value, np.bool_):
            value = int(value)
        elif not isinstance(value, str) and (isinstance(value, bool) or not isinstance(
                value, int)):
            raise InputError(f"{where} {key} takes an integer, got {value!r:.40}")
        out[key] = value
    return out


def token(text: object) -> str:
    """A name as typed by a person, normalised: case, accents, spaces, hyphens and
    underscores do not matter (``Sang-Froid`` == ``sang_froid`` == ``sang froid``)."""
    text = unicodedata.normalize("NFKD", str(text).strip().lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return "_".join(part for part in text.replace("-", " ").replace("_", " ").split())


@dataclass(frozen=True)
class Field:
    """One option or sheet field.

    ``kind`` is one of ``KINDS``: ``int`` and ``float`` within ``low..high``; ``bool``;
    ``choice`` among ``choices`` (``aliases`` maps other spellings to a choice);
    ``weights`` is ``NAME:WEIGHT,...`` with finite weights >= 0, one positive (names among
    ``choices`` or their aliases when given); ``text`` is free (``parse`` may check and
    convert it); ``flag`` is a bool that a bare word on a sheet sets (``aliases`` are
    other words for it). The default is ``default``, or the ruleset's value at
    ``default_key`` (a dotted path) when that is given.
    """

    name: str
    kind: str
    help: str
    default: object = None
    default_key: str | None = None
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    aliases: Mapping[str, str] = field(default_factory=dict)
    parse: Callable[[str], object] | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"field {self.name}: kind must be one of {KINDS}")

    # -- what people read
    def type_text(self) -> str:
        if self.kind in ("int", "float"):
            span = f"{_num(self.low)}..{_num(self.high)}" if self.low is not None else ""
            return f"{'integer' if self.kind == 'int' else 'number'} {span}".strip()
        if self.kind == "choice":
            return "one of " + "|".join(self.choices)
        if self.kind == "weights":
            names = "|".join(self.choices) if self.choices else "NAME"
            return f"weights {names}:WEIGHT,..."
        return {"bool": "true|false", "flag": "flag (bare word)", "text": "text"}[self.kind]

    def default_value(self, ruleset: Mapping) -> object:
        if self.default_key is None:
            return self.default
        value: object = ruleset
        for part in self.default_key.split("."):
            value = value[part]  # the key exists: the ruleset's shape is checked on load
        return self.convert(value, f"ruleset {self.default_key}")

    # -- checking and converting
    def convert(self, value: object, where: str = "") -> object:
        """``value`` (text or a Python value) as this field's type; None stays None."""
        if value is None:
            return None
        what = where or f"{self.name}"
        converter = getattr(self, f"_{self.kind}")
        return converter(value, what)

    def _fail(self, value: object, what: str) -> InputError:
        return InputError(f"{what} takes {self.type_text()}, got {value!r}")

    def _int(self, value: object, what: str) -> int:
        if isinstance(value, str):
            number = integer_text(value)
            if number is None:
                raise self._fail(value, what)
            value = number
        if isinstance(value, float | np.floating) and value.is_integer():
            value = int(value)
        if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
            raise self._fail(value, what)
        return int(self._in_range(value, what))

    def _float(self, value: object, what: str) -> float:
        if isinstance(value, bool):
            raise self._fail(value, what)
        try:
            number = (number_text(value) if isinstance(value, str) else float(value)
                      if isinstance(value, int | float) else None)
        except OverflowError:
            number = None
        if number is None or not math.isfinite(number):
            raise self._fail(value, what)
        return self._in_range(number, what)

    def _in_range(self, value, what: str):
        if (self.low is not None and value < self.low) or (
                self.high is not None and value > self.high):
            raise self._fail(value, what)
        return value

    def _bool(self, value: object, what: str) -> bool:
        if isinstance(value, bool | np.bool_):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in TRUE_WORDS + FALSE_WORDS:
            return value.strip().lower() in TRUE_WORDS
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        raise self._fail(value, what)

    _flag = _bool

    def _choice(self, value: object, what: str) -> str:
        found = self.match(value)
        if found is None:
            raise InputError(f"unknown {what} {value!r}; allowed: {', '.join(self.choices)}")
        return found

    def match(self, value: object) -> str | None:
        """The choice ``value`` names (any spelling ``token`` equates), or None."""
        if not isinstance(value, str | int) or isinstance(value, bool):
            return None
        key = token(value)
        for choice in self.choices:
            if token(choice) == key:
                return choice
        for alias, choice in self.aliases.items():
            if token(alias) == key:
                return choice
        return None

    def _weights(self, value: object, what: str) -> dict[str, float]:
        if isinstance(value, str):
            value = parse_weights(value, what)
        if not isinstance(value, Mapping):
            raise self._fail(value, what)
        weights: dict[str, float] = {}
        for name, weight in value.items():
            key = self._choice(name, f"name in {what}") if self.choices else str(name).strip()
            if isinstance(weight, bool) or not isinstance(weight, int | float) or not (
                    _finite(weight) and weight >= 0):
                raise InputError(f"{what}: weight of {name!r} must be a finite number >= 0, "
                                 f"got {weight!r}")
            weights[key] = weights.get(key, 0.0) + float(weight)
        if not weights or sum(weights.values()) <= 0:
            raise InputError(f"{what}: at least one name needs a positive weight")
        return _summable(weights, what)

    def _text(self, value: object, what: str) -> object:
        if not isinstance(value, str):
            raise self._fail(value, what)
        return self.parse(value) if self.parse is not None else value


def _summable(weights: dict[str, float], what: str) -> dict[str, float]:
    """``weights`` whose sum is finite: weights near 1e308 (or a name given twice) are
    scaled by the largest, which keeps their proportions, as a mix's are."""
    if all(math.isfinite(w) for w in weights.values()) and math.isfinite(
            sum(weights.values())):
        return weights
    top = max(weights.values())
    if not math.isfinite(top):  # a name given twice with weights near 1e308
        raise InputError(f"{what}: the weights add up beyond float range; allowed: "
                         f"weights whose sum is finite")
    return {name: weight / top for name, weight in weights.items()}


def _finite(number: int | float) -> bool:
    """Finite, and within float range (``math.isfinite(10**400)`` overflows)."""
    try:
        return math.isfinite(number)
    except OverflowError:
        return False


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def parse_weights(text: str, what: str = "weights") -> dict[str, float]:
    """``NAME:WEIGHT,...`` -> {name: weight}; a bare NAME weighs 1."""
    weights: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.removeprefix("mix=").split(","))):
        name, sep, weight = part.partition(":")
        number = number_text(weight) if sep else 1.0
        if number is None and name.strip() and weight.strip().lower().lstrip("+-") in (
                "inf", "infinity", "nan") or number is None and looks_numeric(weight):
            raise InputError(f"{what}: weight of {name.strip()!r} must be a finite number "
                             f">= 0 (ASCII digits), got {weight.strip()!r:.40}")
        if not name.strip() or number is None or "=" in part:
            raise InputError(f"bad entry {part!r} in {what}; expected NAME:WEIGHT,...")
        weights[name.strip()] = weights.get(name.strip(), 0.0) + number
    return weights


@dataclass(frozen=True)
class SheetSpec:
    """A character sheet: ``fields`` (flags among them) and the ruleset table holding
    named reference sheets (``reference_key``, e.g. ``sheets``), if the system has any."""

    fields: tuple[Field, ...]
    reference_key: str | None = None
    example: str = ""

    def field_named(self, name: object) -> Field | None:
        key = token(name)
        for entry in self.fields:
            if token(entry.name) == key:
                return entry
        return None

    def flag_named(self, word: object) -> Field | None:
        for entry in self.fields:
            if entry.kind == "flag" and (token(entry.name) == token(word) or any(
                    token(alias) == token(word) for alias in entry.aliases)):
                return entry
        return None

    def references(self, ruleset: Mapping) -> dict[str, Mapping]:
        if self.reference_key is None:
            return {}
        return dict(ruleset.get(self.reference_key, {}))

    def parse(self, text: str) -> dict:
        """``fighter,hp=20,shield`` -> ``{"sheet": "fighter", "hp": "20", "shield": True}``:
        the Python form, still text; ``normalise`` checks it."""
        sheet: dict = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, value = part.partition("=")
            if sep and (not key.strip() or not value.strip()):
                raise InputError(f"bad sheet entry {part!r}; expected FIELD=VALUE or a word")
            if sep:
                if token(key) in {token(k) for k in sheet}:  # the last would silently win
                    raise InputError(f"field {key.strip()!r} is given twice on one sheet: "
                                     f"{text!r}")
                sheet[key.strip()] = value.strip()
                continue
            flag = self.flag_named(part)
            if flag is not None:
                sheet[flag.name] = True
            elif REFERENCE in sheet:
                raise InputError(f"two reference sheets on one sheet: {sheet[REFERENCE]!r} "
                                 f"and {part!r}")
            else:
                sheet[REFERENCE] = part
        return sheet

    def normalise(self, sheet: Mapping | str | None, side: str, ruleset: Mapping) -> dict:
        """Every field typed and filled (reference sheet first, then the given fields,
        then defaults); unknown fields, flags and reference sheets are errors."""
        if sheet is None:
            sheet = {}
        if isinstance(sheet, str):
            sheet = self.parse(sheet)
        if not isinstance(sheet, Mapping):
            raise InputError(f"sheet {side} must be a mapping FIELD -> value or text "
                             f"like {self.example!r}, got {sheet!r}")
        given = dict(sheet)
        out: dict = {}
        reference = given.pop(REFERENCE, None)
        if reference is not None:
            out[REFERENCE] = self._reference(reference, side, ruleset, out)
        for key, value in given.items():
            entry = self.field_named(key) or (self.flag_named(key) if value is True else None)
            if entry is None:
                raise InputError(self.unknown(key, side, ruleset))
            out[entry.name] = entry.convert(value, f"{side}'s {entry.name}")
        for entry in self.fields:
            if entry.name not in out:
                out[entry.name] = entry.default_value(ruleset)
        return out

    def _reference(self, name: object, side: str, ruleset: Mapping, out: dict) -> str:
        references = self.references(ruleset)
        found = next((r for r in references if token(r) == token(name)), None)
        if found is None:
            raise InputError(self.unknown(name, side, ruleset))
        for key, value in references[found].items():
            entry = self.field_named(key)
            if entry is None:
                raise InputError(f"ruleset {self.reference_key}.{found}: unknown field {key!r}")
            out[entry.name] = entry.convert(value, f"reference sheet {found}'s {entry.name}")
        return found

    def text(self, sheet: Mapping, ruleset: Mapping) -> str:
        """A normalised sheet as the command line takes it back (``parse`` then
        ``normalise`` give ``sheet`` again): its reference sheet first, then every field
        that differs from what the reference (or the defaults) gives, flags set as bare
        words; ``""`` for the default sheet."""
        reference = sheet.get(REFERENCE)
        base = self.normalise({REFERENCE: reference} if reference else {}, "a", ruleset)
        parts = [reference] if reference else []
        for entry in self.fields:
            value = sheet.get(entry.name)
            if value == base.get(entry.name):
                continue
            if entry.kind == "flag" and value is True:
                parts.append(entry.name)
                continue
            written = str(value).lower() if isinstance(value, bool) else str(value)
            if value is None or any(mark in written for mark in ",=") or not written.strip():
                raise InputError(f"sheet field {entry.name}={value!r} cannot be written on "
                                 "a command line (it holds a comma, an equals sign or "
                                 "nothing)")
            parts.append(f"{entry.name}={written}")
        return ",".join(parts)

    def unknown(self, key: object, side: str, ruleset: Mapping) -> str:
        fields = [f.name for f in self.fields if f.kind != "flag"]
        flags = [f.name for f in self.fields if f.kind == "flag"]
        parts = [f"fields {', '.join(fields)}"]
        if flags:
            parts.append(f"flags {', '.join(flags)}")
        references = self.references(ruleset)
        if references:
            parts.append(f"reference sheets {', '.join(references)}")
        return f"unknown entry {key!r} on sheet {side}; allowed: {'; '.join(parts)}"


@dataclass(frozen=True)
class Examples:
    """Examples in the system's own words: sheets, a ``--state``, a mix, and ``quick``,
    options of a small duel that solves in about a second (help texts, the README and
    the conformance suite use them); ``counters``, for a system that may declare the
    ``counters`` fast path, the options (sheets included) of a small duel that does,
    which the conformance suite solves both ways. ``variants`` names the other kinds
    of duel the system plays (modes, conventions, hidden levels, the seeds' readings):
    each is options over the quick duel's (sheets as ``a`` / ``b`` and a ruleset table
    as ``ruleset`` included), as small; the
    conformance suite and the stored playthroughs cover the quick duel and every
    variant (``duel``)."""

    sheet_a: str
    sheet_b: str
    state: str
    mix: str
    quick: Mapping = field(default_factory=dict)
    counters: Mapping = field(default_factory=dict)
    variants: Mapping[str, Mapping] = field(default_factory=dict)

    def duel(self, variant: str | None = None) -> dict:
        """The options of the quick duel (``variant`` None) or of one of its variants,
        the example sheets included as ``a`` / ``b``."""
        if variant is not None and variant not in self.variants:
            raise InputError(f"unknown example variant {variant!r}; allowed: "
                             f"{', '.join(self.variants) or 'none'}")
        return {"a": self.sheet_a, "b": self.sheet_b, **self.quick,
                **(self.variants[variant] if variant is not None else {})}


@dataclass(frozen=True)
class Footprint:
    """What the exact solution of a game will take, estimated from its sheets and options
    alone, before any state is explored: ``states`` (situations times counter values for
    a counter game), the peak ``memory`` in bytes and ``seconds`` on the 2-core machine
    of docs/performance.md (a guide, not a promise); ``states_in_words`` says what the
    states are, for people ("108,659 situations at each of 40,000 counter values");
    ``tables`` lets a question of several solves (``duel odds``) say its own."""

    states: int
    memory: int
    seconds: float
    states_in_words: str = ""
    #: the bytes of one solution's tables (the kept values and both sides' mixes): what
    #: each further solve of the same duel holds beside it (a best response's two)
    tables: int = 0


class HiddenPriors(NamedTuple):
    """A system's own hiding options as hidden sheets: by side, the prior over sheets
    (``[(sheet, weight), ...]``, None for a public sheet) and the options the hidden duel
    records in their place (so ``make(**game.info.options)`` builds it again)."""

    priors: dict[str, list[tuple[object, float]] | None]
    recorded: dict


@dataclass(frozen=True)
class SystemSpec:
    """What registering a system declares.

    ``build(ruleset, options)`` makes the game from the merged ruleset and the checked
    options (every option typed or None, sheets ``a`` / ``b`` normalised, ``ruleset``
    the source given, if any). ``pairing(game)`` names the sheet field ``duel
    solve --all-pairings`` crosses (a ``choice`` field), if the system has one;
    ``action_parts(name)`` splits an action into named parts for reports;
    ``action_words(game, state, name)`` reads an action at a state in words for people
    (Blooded's action "3" is "bid 3" at the strike bid and "wager 3" at the risk). A system
    built into the package has its data at ``envs/rulesets/<name>.toml`` and
    ``agents/personalities/<name>.toml``; a system registered from elsewhere gives
    ``ruleset_file`` and ``personalities_file``. ``footprint(game)`` estimates what the
    game's exact solution takes (``Footprint``) from its sheets and options, in
    microseconds, so a duel too large for the machine is refused before any work; None
    where the system cannot say (the solver's own checks then apply).
    ``hidden_priors(spec, options, ruleset)`` reads a system's own options that hide part of
    the sheets (Falkenstein's ``hidden_levels``) as priors over whole sheets, the generic
    hidden sheets (``envs.hidden``): it takes those options out of ``options`` and returns
    ``HiddenPriors``, or None when they hide nothing.
    """

    name: str
    title: str
    options: tuple[Field, ...]
    sheet: SheetSpec
    build: Callable[[dict, dict], object] | None
    examples: Examples | None = None
    pairing: Callable[[object], str] | None = None
    #: an action's name as named parts (e.g. initiative skill, order, plan), so reports
    #: can give each part's chance; None when actions are indivisible
    action_parts: Callable[[str], dict[str, str]] | None = None
    #: an action in words at a state, for reports; None when the action names read well
    action_words: Callable[[object, object, str], str] | None = None
    ruleset_file: Path | None = None
    personalities_file: Path | None = None
    footprint: Callable[[object], Footprint | None] | None = None
    hidden_priors: Callable[[SystemSpec, dict, dict], HiddenPriors | None] | None = None

    @property
    def implemented(self) -> bool:
        return self.build is not None

    @property
    def status(self) -> str:
        return "implemented" if self.implemented else "planned"

    def option(self, name: str) -> Field:
        for entry in self.options:
            if entry.name == name:
                return entry
        allowed = ", ".join(o.name for o in self.options)
        raise InputError(f"unknown option {name!r} for {self.name}; allowed: {allowed}")

    def check_options(self, given: Mapping, ruleset: Mapping) -> dict:
        """Every option typed; a missing one takes its default (None if it has none)."""
        for name in given:
            self.option(name)
        return {entry.name: (entry.convert(given[name], f"option {name}")
                             if (name := entry.name) in given and given[name] is not None
                             else entry.default_value(ruleset))
                for entry in self.options}
