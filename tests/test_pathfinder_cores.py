"""The cores of a Pathfinder duel (its states without hit points) built at once with
arrays (the declared ``cores`` fast path), against the walk through
``core_transitions``, the reference; and the comparison itself shown to see a dropped
or changed outcome."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from graphs import assert_same_cores

import envs
from solver.counters import walk

# first blood (every damage capped at 1); a shield, an agile weapon with more Sneak
# Attack and untrained skills (other masks, reactions and contexts); a plan library of
# the ruleset's own (a plan of one Strike, a four-step one)
CASES = [
    {"a": "fighter", "b": "rogue", "victory": "first_blood"},
    {"a": "rogue,shield,hp=9", "b": "fighter,agile,sneak=2d6,deception=2:untrained,hp=11"},
    {"a": "fighter,hp=5", "b": "rogue,hp=4", "ruleset": {"plans": {
        "order": ["strike3", "feint_strike2"], "strike3": ["strike"],
        "feint_strike2": ["feint", "demoralize", "strike", "strike"]}}},
    # the readings: reactions back each round; Shield Block plans for two shields, and
    # Feint's critical results for one turn only
    {"a": "fighter,hp=5", "b": "rogue,hp=4", "reaction_refresh": "round"},
    {"a": "fighter,shield,hp=6", "b": "fighter,shield,hp=5", "ruleset": {
        "plans": {"order": ["strike3", "strike2_shield", "strike2_shield_block",
                            "shield_demoralize_strike_block", "feint_strike_strike_reaction"]},
        "conditions": {"feint_lasting_turns": 1}}},
]


def both(options: dict):
    return envs.make("pathfinder", **options).cores(), walk(envs.make("pathfinder", **options))


@pytest.mark.parametrize("options", CASES)
def test_the_cores_at_once_equal_the_walk(options):
    fast, reference = both(options)
    assert_same_cores(fast, reference)


@pytest.fixture(scope="module")
def example():
    return both(envs.spec("pathfinder").examples.counters)


def _turn_entry(found) -> tuple[int, int]:
    """A first turn's outcome that deals damage, and its joint action."""
    starts = np.concatenate([[0], np.cumsum(found.counts)])
    entry = int(np.flatnonzero(found.decrements.any(axis=1))[0])
    return entry, int(np.searchsorted(starts, entry, side="right") - 1)


def _without(found, entry: int, pair: int):
    keep = np.arange(len(found.probs)) != entry
    counts = found.counts.copy()
    counts[pair] -= 1
    return dataclasses.replace(found, counts=counts, targets=found.targets[keep],
                               probs=found.probs[keep], decrements=found.decrements[keep])


def test_the_comparison_sees_a_dropped_or_changed_outcome(example):
    fast, reference = example
    assert_same_cores(fast, reference)
    entry, pair = _turn_entry(fast)
    more = fast.decrements.copy()
    more[entry] += more[entry] > 0
    elsewhere = fast.targets.copy()
    elsewhere[entry] = (elsewhere[entry] + 1) % len(fast.cores)
    likelier = fast.probs.copy()
    likelier[entry] += 1e-9
    swapped = fast.pair_b.copy()
    first = np.flatnonzero(fast.pair_core == fast.pair_core[0])
    swapped[first[:2]] = swapped[first[1::-1]]
    for wrong in (_without(fast, entry, pair), dataclasses.replace(fast, decrements=more),
                  dataclasses.replace(fast, targets=elsewhere),
                  dataclasses.replace(fast, probs=likelier),
                  dataclasses.replace(fast, pair_b=swapped)):
        with pytest.raises(AssertionError):
            assert_same_cores(wrong, reference)
