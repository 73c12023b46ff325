"""Properties of the ruleset merge (``envs.rulesets``) and of the sheet and option
parsing (``envs.schema``) over generated input, on every registered system's own
defaults and fields: an override changes exactly what it names, a sheet written back
reads the same, and bad input is an InputError, never another exception."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from agents.cli.common import sheet_text
from envs.rulesets import default_ruleset, merge
from solver.errors import InputError

PROPERTIES = settings(max_examples=60, deadline=None)
SYSTEMS = sorted(envs.systems())


def _ruleset(system: str) -> dict:
    spec = envs.spec(system)
    return default_ruleset(system, spec.ruleset_file)


def _leaves(table: dict, path=()):
    """Every (path, value) of a ruleset that is not itself a table."""
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _leaves(value, (*path, key))
        else:
            yield (*path, key), value


def _nested(path, value) -> dict:
    for key in reversed(path):
        value = {key: value}
    return value


def _at(table, path):
    for key in path:
        table = table[key]
    return table


def _same_kind(default):
    """Values an override may give where the default is ``default``."""
    if isinstance(default, bool):
        return st.booleans()
    if isinstance(default, int):
        return st.integers(-1000, 1000)
    if isinstance(default, float):
        return st.floats(-1e6, 1e6, allow_nan=False)
    if isinstance(default, str):
        return st.text(max_size=8)
    if isinstance(default, list) and default and not isinstance(default[0], dict | list):
        return st.lists(_same_kind(default[0]), max_size=4)
    return st.just(copy.deepcopy(default))


@pytest.mark.parametrize("system", SYSTEMS)
@PROPERTIES
@given(data=st.data())
def test_an_override_of_a_key_changes_only_that_key(system, data):
    defaults = _ruleset(system)
    path, default = data.draw(st.sampled_from(list(_leaves(defaults))))
    value = data.draw(_same_kind(default))
    merged = merge(defaults, _nested(path, value))
    assert _at(merged, path) == value
    _at(merged, path[:-1])[path[-1]] = default  # put it back: the rest is untouched
    assert merged == defaults
    assert _ruleset(system) == defaults  # and the defaults were not changed in place


@pytest.mark.parametrize("system", SYSTEMS)
@PROPERTIES
@given(data=st.data())
def test_an_unknown_key_or_a_value_of_another_kind_is_an_input_error(system, data):
    defaults = _ruleset(system)
    path, default = data.draw(st.sampled_from(list(_leaves(defaults))))
    name = data.draw(st.text(min_size=1, max_size=8))
    parent = _at(defaults, path[:-1])
    if name not in parent:
        with pytest.raises(InputError, match="unknown ruleset key"):
            merge(defaults, _nested((*path[:-1], name), 1))
    wrong = {"a number": "seven", "a word": 7, "true or false": "yes", "a list": 7}
    kind = ("true or false" if isinstance(default, bool) else "a number"
            if isinstance(default, int | float) else "a word" if isinstance(default, str)
            else "a list")
    with pytest.raises(InputError, match="ruleset"):
        merge(defaults, _nested(path, wrong[kind]))


def _field_value(entry):
    """Text a person may type for a sheet field."""
    if entry.kind == "int":
        return st.integers(int(entry.low), int(entry.high)).map(str)
    if entry.kind == "choice":
        return st.sampled_from(entry.choices)
    if entry.kind in ("bool", "flag"):
        return st.sampled_from(["true", "false"])
    return None  # text fields: a system's own syntax, from its examples below


@pytest.mark.parametrize("system", SYSTEMS)
@PROPERTIES
@given(data=st.data())
def test_a_sheet_written_back_and_read_again_is_the_same(system, data):
    spec, ruleset = envs.spec(system), _ruleset(system)
    typed = [f for f in spec.sheet.fields if _field_value(f) is not None]
    fields = st.lists(st.sampled_from(typed), unique_by=lambda f: f.name, max_size=len(typed))
    chosen = data.draw(fields) if typed else []
    parts = [f"{f.name}={data.draw(_field_value(f))}" for f in chosen]
    references = list(spec.sheet.references(ruleset))
    if references and data.draw(st.booleans()):
        parts.insert(0, data.draw(st.sampled_from(references)))
    sheet = spec.sheet.normalise(",".join(parts), "a", ruleset)
    written = sheet_text(spec, sheet, ruleset)
    again = spec.sheet.normalise({} if written == "the default sheet" else written, "a", ruleset)
    assert again == sheet, written


ANYTHING = st.one_of(st.text(max_size=12), st.integers(), st.floats(), st.booleans(),
                     st.none(), st.lists(st.integers(), max_size=2),
                     st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


@pytest.mark.parametrize("system", SYSTEMS)
@PROPERTIES
@given(data=st.data())
def test_a_bad_option_or_sheet_value_is_an_input_error(system, data):
    spec, ruleset = envs.spec(system), _ruleset(system)
    entry = data.draw(st.sampled_from(spec.options + spec.sheet.fields))
    value = data.draw(ANYTHING)
    try:
        entry.convert(value, entry.name)
    except InputError:
        pass
    text = data.draw(st.text(alphabet=st.sampled_from("abcdefghipr=,:0123456789_ -+.d"),
                             max_size=20))
    try:
        spec.sheet.normalise(text, "a", ruleset)
    except InputError:
        pass
    try:
        spec.check_options({entry.name: value}, ruleset)
    except InputError:
        pass
