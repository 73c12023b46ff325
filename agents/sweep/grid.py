"""A sweep's grid: axes parsed from ``--grid`` and checked against the system's schema,
and their product, the cells, each one duel ready to solve.

Axes, as typed on the command line:
- ``a.FIELD=...`` / ``b.FIELD=...``: one sheet field or flag of one side;
- ``a=...`` / ``b=...``: whole sheets (reference sheet names or sheet texts; separated by
  ``;`` when a sheet holds commas, e.g. ``b=fighter,hp=6;rogue,hp=6``);
- ``o.KEY=...``: a system option;
- ``ruleset=...``: ruleset files (TOML overriding the [default] rules).

Values are ``LOW..HIGH`` or ``LOW..HIGH:STEP`` (integers, both ends included) or a list
separated by commas.
Every cell is normalised as ``envs.make`` normalises a duel, so a bad value is refused
here, in one line, before any duel is solved.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path

import envs
from envs.rulesets import load_ruleset, ruleset_hash
from envs.schema import Field, SystemSpec, token
from solver.errors import InputError

#: the most cells a sweep runs unless told otherwise (``--max-cells``)
MAX_CELLS = 10_000
SIDES = ("a", "b")


@dataclass(frozen=True)
class Axis:
    """One ``--grid``: where it writes (``a``/``b`` and a field or None for the whole
    sheet, ``o`` and an option, or ``ruleset``) and its values, still as text."""

    target: str
    name: str | None
    values: tuple[str, ...]

    @property
    def label(self) -> str:
        return self.target if self.name is None else f"{self.target}.{self.name}"

    @property
    def column(self) -> str:
        """The results file's column holding this axis's value at each cell."""
        return "grid_" + self.label.replace(".", "_")


def parse_axis(text: str) -> Axis:
    key, sep, values = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise InputError(f"bad --grid {text!r}; expected a.FIELD=LOW..HIGH, a.FIELD=V1,V2, "
                         "a=SHEET;SHEET, o.OPTION=V1,V2 or ruleset=FILE,FILE")
    target, dot, name = key.partition(".")
    target = target.strip().lower()
    if target not in ("a", "b", "o", "ruleset") or (target == "o" and not dot) or (
            target == "ruleset" and dot):
        raise InputError(f"bad --grid key {key!r}; allowed: a.FIELD, b.FIELD, a, b, "
                         "o.OPTION, ruleset")
    if dot and not name.strip():
        raise InputError(f"bad --grid key {key!r}: no field after the dot")
    return Axis(target, name.strip() if dot else None, _values(values, target, name, text))


def _values(text: str, target: str, name: str, whole: str) -> tuple[str, ...]:
    """The axis's values: ``;`` separates them when given (values holding commas), else
    ``,``, except that a whole sheet with fields (``fighter,hp=6``) is one value."""
    text = text.strip()
    whole_sheet = target in SIDES and not name
    if ";" in text or (whole_sheet and "=" in text):
        separator = ";"
    else:
        separator = ","
    low, dots, high = text.partition("..")
    if dots and not whole_sheet and separator == ",":
        return _span(low, high, whole)
    values = tuple(v.strip() for v in text.split(separator))
    if not text or any(not v and not whole_sheet for v in values):
        raise InputError(f"empty value in --grid {whole!r}")
    if len(set(values)) != len(values):
        raise InputError(f"a value is given twice in --grid {whole!r}")
    return values


def _span(low: str, high: str, whole: str) -> tuple[str, ...]:
    """``LOW..HIGH`` or ``LOW..HIGH:STEP``, both ends included."""
    high, _, step = high.partition(":")
    try:
        first, last, by = int(low), int(high), int(step or 1)
    except ValueError:
        raise InputError(f"bad range in --grid {whole!r}; expected LOW..HIGH or "
                         "LOW..HIGH:STEP with integers") from None
    if by < 1:
        raise InputError(f"the step of --grid {whole!r} must be >= 1, got {by}")
    if last < first:
        raise InputError(f"empty range {first}..{last} in --grid {whole!r}")
    return tuple(str(v) for v in range(first, last + 1, by))


@dataclass(frozen=True)
class Cell:
    """One duel of the sweep: its sheets as the command line writes them, its checked
    options (every option, defaults filled in), its ruleset file and hash, and the value
    of every axis there."""

    index: int
    system: str
    a: str
    b: str
    options: dict
    ruleset: str | None
    ruleset_hash: str
    point: dict = field(default_factory=dict)

    @property
    def options_json(self) -> str:
        return json.dumps(self.options, sort_keys=True)

    @property
    def key(self) -> str:
        """What makes two cells the same duel (the same answer, whatever the grid)."""
        return json.dumps([self.system, self.a, self.b, self.options_json,
                           self.ruleset_hash])

    def mirror_key(self) -> str:
        """The key of the same duel with the sides swapped (side options swapped too)."""
        return json.dumps([self.system, self.b, self.a,
                           json.dumps(swap_side_options(self.options), sort_keys=True),
                           self.ruleset_hash])

    def make_arguments(self) -> dict:
        """``envs.make``'s keyword arguments for this cell, as ``duel solve`` gives them."""
        arguments = {"a": self.a, "b": self.b, **self.options}
        if self.ruleset is not None:
            arguments["ruleset"] = self.ruleset
        return arguments


def swap_side_options(options: dict) -> dict:
    """Options named for one side (``prior_a``) traded with the other's (``prior_b``)."""
    swapped = {}
    for name, value in options.items():
        stem, _, side = name.rpartition("_")
        other = f"{stem}_{'b' if side == 'a' else 'a'}"
        swapped[other if side in SIDES and stem and other in options else name] = value
    return swapped


@dataclass
class Grid:
    """The axes over a base duel (``--a``, ``--b``, ``-o``, ``--ruleset``)."""

    system: str
    axes: list[Axis]
    base_sheets: dict = field(default_factory=lambda: {"a": "", "b": ""})
    base_options: dict = field(default_factory=dict)
    base_ruleset: str | None = None

    @property
    def size(self) -> int:
        size = 1
        for axis in self.axes:
            size *= len(axis.values)
        return size

    def cells(self, max_cells: int = MAX_CELLS) -> list[Cell]:
        """Every cell, checked; any bad value or too many cells is an InputError."""
        spec = envs.spec(self.system)
        self.axes = self._checked_axes(spec)
        if self.size > max_cells:
            raise InputError(f"the grid has {self.size} cells, more than --max-cells "
                             f"{max_cells}; narrow it or raise --max-cells")
        rulesets: dict = {}
        cells = []
        for index, values in enumerate(itertools.product(*(a.values for a in self.axes))):
            point = dict(zip(self.axes, values, strict=True))
            cells.append(self._cell(spec, index, point, rulesets))
        _check_public(cells)
        return cells

    def _checked_axes(self, spec: SystemSpec) -> list[Axis]:
        """The axes with their fields and options named as the schema names them; an
        unknown one, or one given twice, is an InputError."""
        checked, seen = [], set()
        for axis in self.axes:
            if axis.target == "o":
                if axis.name in ("a", "b", "ruleset"):
                    raise InputError(f"--grid o.{axis.name} is not an option; use "
                                     f"--grid {axis.name}=...")
                axis = Axis("o", spec.option(axis.name).name, axis.values)
            elif axis.target in SIDES and axis.name is not None:
                entry = spec.sheet.field_named(axis.name)
                if entry is None:
                    raise InputError(f"unknown sheet field {axis.name!r} in --grid "
                                     f"{axis.label}; allowed: "
                                     f"{', '.join(f.name for f in spec.sheet.fields)}")
                axis = Axis(axis.target, entry.name, axis.values)
            if axis.label in seen:
                raise InputError(f"--grid {axis.label} is given twice")
            seen.add(axis.label)
            checked.append(axis)
        return checked

    def _cell(self, spec: SystemSpec, index: int, point: dict, rulesets: dict) -> Cell:
        source = next((v for a, v in point.items() if a.target == "ruleset"),
                      self.base_ruleset)
        if source not in rulesets:
            if source is not None and not Path(source).is_file():
                raise InputError(f"ruleset file {source!r} (in the grid) does not exist")
            rulesets[source] = load_ruleset(spec.name, source, spec.ruleset_file)
        ruleset = rulesets[source]
        given = dict(self.base_options)
        given.update({a.name: v for a, v in point.items() if a.target == "o"})
        options = spec.check_options(given, ruleset)
        sheets = {side: self._sheet_text(spec, side, point, ruleset) for side in SIDES}
        return Cell(index, spec.name, sheets["a"], sheets["b"], _jsonable(options), source,
                    ruleset_hash(ruleset),
                    {a.column: _point_value(spec, a, v, ruleset) for a, v in point.items()})

    def _sheet_text(self, spec: SystemSpec, side: str, point: dict, ruleset: dict) -> str:
        whole = next((v for a, v in point.items() if a.target == side and a.name is None),
                     self.base_sheets.get(side) or "")
        sheet = spec.sheet.parse(whole)
        for axis, value in point.items():
            if axis.target == side and axis.name is not None:
                entry = spec.sheet.field_named(axis.name)
                sheet = {k: v for k, v in sheet.items() if token(k) != token(entry.name)}
                sheet[entry.name] = value
        normal = spec.sheet.normalise(sheet, side, ruleset)
        text = spec.sheet.text(normal, ruleset)
        if spec.sheet.normalise(text, side, ruleset) != normal:
            raise InputError(f"sheet {side} {whole!r} cannot be written back as a command "
                             f"line ({text!r} reads differently)")
        return text


def _check_public(cells: list[Cell]) -> None:
    """The exact solver takes games of public information only: one game of each set of
    options and rules is made (a millisecond) to refuse the others before any work."""
    seen = set()
    for cell in cells:
        rules = (cell.options_json, cell.ruleset)
        if rules in seen:
            continue
        seen.add(rules)
        if not envs.make(cell.system, **cell.make_arguments()).info.public_information:
            raise InputError(f"cell {cell.index} ({cell.system}, options {cell.options_json}) "
                             "has hidden information, which duel sweep cannot solve exactly "
                             "yet; sweep the public variant")


def _point_value(spec: SystemSpec, axis: Axis, value: str, ruleset: dict):
    """An axis's value at a cell, typed as its field (an int stays an int), for the
    results file's grid columns."""
    entry: Field | None = None
    if axis.target == "o":
        entry = spec.option(axis.name)
    elif axis.target in SIDES and axis.name is not None:
        entry = spec.sheet.field_named(axis.name)
    if entry is None or entry.kind in ("weights",):
        return value
    return entry.convert(value, axis.label)


def _jsonable(options: dict) -> dict:
    """Checked options as JSON would read them back (tuples as lists)."""
    return json.loads(json.dumps(options))
