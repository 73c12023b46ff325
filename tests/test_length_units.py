"""A duel's length is counted in its own unit (rounds, beats, turns), not in steps.

Derived by hand: a duel stopped after one unit lasts exactly one unit, whatever is
played; stopped after two, it lasts 1 + the chance that the first unit ends with
nobody beaten, which is the chance that the one-unit duel is stopped by its limit
(the first unit is played alike in both: the same states, the same uniform play).
Counting chance steps or sequential choices instead would give more.
"""

from __future__ import annotations

import pytest

import envs
from solver import evaluate

#: system, its mode options, the option that stops the duel, how the stop's ending reads
CAPPED = [
    ("pathfinder", {}, "max_rounds", "draw: round limit reached"),
    ("blooded", {}, "max_beats", "draw: the seconds stop the duel"),
    ("uchronia", {"mode": "melee"}, "max_rounds", "draw: the seconds stop the fight"),
    ("uchronia", {"mode": "pistol"}, "max_turns", "draw: the seconds stop the duel"),
]


def capped(system: str, mode: dict, option: str, units: int):
    examples = envs.spec(system).examples
    options = {"a": examples.sheet_a, "b": examples.sheet_b, **examples.quick, **mode}
    return envs.make(system, **{**options, option: units})


@pytest.mark.parametrize(("system", "mode", "option", "stop"), CAPPED,
                         ids=[f"{s}-{o}" for s, _, o, _ in CAPPED])
def test_the_length_counts_units(system, mode, option, stop):
    one = evaluate(capped(system, mode, option, 1), "uniform", "uniform")
    two = evaluate(capped(system, mode, option, 2), "uniform", "uniform")
    assert one.expected_length == pytest.approx(1.0, abs=1e-12)
    stopped = sum(p for label, p in one.endings.items() if label.startswith(stop))
    assert 0.0 < stopped < 1.0       # both branches are exercised
    assert two.expected_length == pytest.approx(1.0 + stopped, abs=1e-12)
