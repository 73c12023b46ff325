"""Sheets, options and states generated from each system's schema itself (issue 29), so
a field is fuzzed from the day it is declared: whatever is generated, ``envs.make`` and
``reset`` either work or raise an InputError, and a value within a field's declared
bounds is accepted by the field."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import envs
from envs.schema import Field
from solver.errors import InputError

SYSTEMS = ("falkenstein", "blooded", "uchronia", "pathfinder")
FUZZ = settings(max_examples=25, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])
#: what people may type where a number goes: digits of other scripts, separators, signs
NUMBERISH = st.sampled_from(["²", "١", "1_0", "+1", " 1", "1e3", "inf", "nan", "-0",
                             "9" * 30, "", "0x10"])


def field_values(entry: Field, inside: bool) -> st.SearchStrategy:
    """Values for ``entry``: within its declared bounds (``inside``), else anything a
    person or a program might give it."""
    if entry.kind == "int" and inside:
        return st.integers(int(entry.low), int(entry.high))
    if entry.kind == "float" and inside:
        return st.floats(entry.low, entry.high)
    if entry.kind in ("bool", "flag") and inside:
        return st.booleans()
    if entry.kind == "choice" and inside:
        return st.sampled_from(entry.choices)
    return st.one_of(st.integers(-10**30, 10**30), st.floats(), st.booleans(),
                     st.text(max_size=6), NUMBERISH, st.none())


def _checked_make(system: str, **options):
    try:
        return envs.make(system, **options)
    except InputError:
        return None


@pytest.mark.parametrize("system", SYSTEMS)
@FUZZ
@given(data=st.data())
def test_a_field_within_its_bounds_is_accepted(system, data):
    spec = envs.spec(system)
    for entry in spec.sheet.fields + spec.options:
        if entry.kind in ("int", "float", "bool", "flag", "choice"):
            value = data.draw(field_values(entry, inside=True), label=entry.name)
            assert entry.convert(value) == value


@pytest.mark.parametrize("system", SYSTEMS)
@FUZZ
@given(data=st.data())
def test_any_sheet_value_is_built_or_refused(system, data):
    spec = envs.spec(system)
    entry = data.draw(st.sampled_from(spec.sheet.fields), label="field")
    value = data.draw(field_values(entry, inside=False), label="value")
    quick = dict(spec.examples.quick)
    _checked_make(system, a={entry.name: value}, **quick)


@pytest.mark.parametrize("system", SYSTEMS)
@FUZZ
@given(data=st.data())
def test_any_option_value_is_built_or_refused(system, data):
    spec = envs.spec(system)
    entry = data.draw(st.sampled_from(spec.options), label="option")
    value = data.draw(field_values(entry, inside=False), label="value")
    _checked_make(system, **{**spec.examples.quick, entry.name: value})


@pytest.mark.parametrize("system", SYSTEMS)
@FUZZ
@given(data=st.data())
def test_any_reset_state_is_taken_or_refused(system, data):
    spec = envs.spec(system)
    env = envs.parallel_env(system, **spec.examples.quick)
    fields = list(env.game.state_fields(env.game.initial_outcomes()[0][1]))
    state = data.draw(st.dictionaries(st.sampled_from(fields), st.one_of(
        st.integers(-10**20, 10**20), st.floats(), st.booleans(), NUMBERISH,
        st.text(max_size=4)), max_size=3), label="state")
    try:
        env.reset(seed=0, options={"state": state})
    except InputError:
        pass
