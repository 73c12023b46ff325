"""Every claim of every system's temperament descriptions (``[[temperament.NAME.claim]]``
in ``agents/personalities/<system>.toml``) holds on small duels of that system: at
strengths 0.25, 0.5, 0.75 and 1 the claim's share of the exact personality beats the
maximum-entropy equilibrium's by ``CLAIM_MARGIN`` and does not fall as strength grows.

One code path for every system: the shares are expected counts over the personality's
own visits against the equilibrium (as everywhere), by plain recursion over
``game.outcomes`` (independent of solver.evaluate's sparse forward pass)."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

import envs
from agents.personalities import (
    CLAIM_MARGIN,
    load_personality_data,
    personality,
)
from solver import solve_game
from solver.game import other, policy_mix

STRENGTHS = (0.25, 0.5, 0.75, 1.0)
#: a share may not fall as strength grows by more than a thousandth of a percentage point:
#: Falkenstein's aggressive Attack share saturates near its maximum and moves by a few
#: millionths
NOT_FALLING = 1e-5
BLOODED_MANEUVERS = "feint,lunge,bash,riposte,blind"

#: system -> (name, options, sides checked) of the duels its claims are checked on; small,
#: since the claims are about tendencies, not length
DUELS = {
    "falkenstein": [
        # two rounds, so the calibrations fit in a test run (the full duel is in
        # experiments/selfplay_curves.py)
        ("GDvGD", {"a": {"fencing": "GD"}, "b": {"fencing": "GD"}, "max_rounds": 2}, "ab"),
        ("GRvGD", {"a": {"fencing": "GR"}, "b": {"fencing": "GD"}, "max_rounds": 2}, "ab"),
    ],
    # one round: the only choice is at the start, where the equilibrium is pure
    # (Perception, act first, three Strikes)
    "pathfinder": [("fighter-v-rogue", {"a": "fighter", "b": "rogue", "max_rounds": 1}, "a")],
    "uchronia": [
        # from long range between a better and a plain shot: there the equilibrium does
        # not always fire at once
        ("pistol", {"mode": "pistol", "a": "tireur", "b": "", "start_band": "grande",
                    "max_turns": 5}, "a"),
        ("melee", {"mode": "melee", "a": "athlete", "b": "colosse", "max_rounds": 4}, "a"),
    ],
    "blooded": [
        ("plain", {"a": "prowess=1,sword=2,invokes=0", "b": "prowess=2,sword=1,invokes=0",
                   "max_beats": 2}, "a"),
        ("maneuvers", {"a": f"prowess=1,sword=2,strength=1,athletics=1,invokes=0,"
                            f"{BLOODED_MANEUVERS}",
                       "b": "prowess=2,sword=1,invokes=0", "max_beats": 2}, "a"),
    ],
}

@cache
def _duel(system: str, duel: str):
    options = next(o for name, o, _ in DUELS[system] if name == duel)
    game = envs.make(system, **options)
    return game, solve_game(game)


def _claim_counts(game, policy, side, opponent, weights, claimed, matches) -> np.ndarray:
    """Expected numbers of (claim-weighted decisions in the situation, decisions in the
    situation, all decisions, decisions in the situation where a claimed action is
    legal) of ``side`` with ``policy`` against ``opponent``."""
    memo = {}

    def walk(state):
        if state in memo:
            return memo[state]
        if game.is_terminal(state):
            return np.zeros(4)
        mine = policy_mix(policy, game, state, side)
        theirs = policy_mix(opponent, game, state, other(side))
        inside = matches(tuple(game.observe(state, side)))
        legal = inside and bool(game.legal_mask(state, side)[claimed].any())
        total = np.array([mine @ weights if inside else 0.0, float(inside), 1.0, float(legal)])
        mix_a, mix_b = (mine, theirs) if side == "a" else (theirs, mine)
        for i in np.flatnonzero(mix_a > 0):
            for j in np.flatnonzero(mix_b > 0):
                for q, nxt in game.outcomes(state, int(i), int(j)):
                    total = total + mix_a[i] * mix_b[j] * q * walk(nxt)
        memo[state] = total
        return total

    return sum(p * walk(s) for p, s in game.initial_outcomes())


def _share(counts, claim) -> float | None:
    """The claim's share, or None where the situation (with a claimed action legal in it)
    never arises."""
    weighted, inside, everything, legal = counts
    if inside <= 0 or legal <= 0:
        return None
    return weighted / (everything if claim.of == "all" else inside)


def _check(game, solution, data, claim, plays, side) -> bool:
    """Assert ``claim`` on ``game`` for ``side``; False where it is about nothing there
    (its situation never arises, or none of its actions is ever legal in it)."""
    weights = claim.weights()
    vector = np.array([weights.get(a, 0.0) for a in game.action_names])
    claimed = vector != 0
    matches = {s.name: s for s in data.situations}[claim.situation].matcher(game)
    foe = solution.policy_for(other(side))

    def share(policy):
        return _share(_claim_counts(game, policy, side, foe, vector, claimed, matches), claim)

    shares = [share(play) for play in plays]
    if all(s is None for s in shares):
        return False
    sound = share(solution.policy_for(side))
    assert None not in shares, (claim.text, shares)
    assert min(shares) > (sound or 0.0) + CLAIM_MARGIN, (claim.text, sound, shares)
    assert all(b >= a - NOT_FALLING for a, b in zip(shares, shares[1:], strict=False)), \
        (claim.text, shares)
    return True


#: (system, temperament, claim text) -> what fails: claims that do not hold by the one
#: rule (margin and not falling), kept visible rather than loosened
KNOWN_FAILURES: dict[tuple[str, str, str], str] = {
    ("pathfinder", "bully", "rolls Intimidation for initiative"):
        "falls at strength 1 (0.845 at 0.75, 0.800 at 1: the temperament itself)",
    ("pathfinder", "watcher", "lets the foe act first with Perception"):
        "falls at strength 1 (0.460 at 0.75, 0.429 at 1: the temperament itself)",
    ("uchronia", "hothead", "in melee fights more than the equilibrium"):
        "falls as strength grows (0.893 at 0.25 to 0.870 at 1)",
    ("uchronia", "wrestler", "grapples rather than trades blows"):
        "falls as strength grows (0.855 at 0.25 to 0.822 at 1)",
}


def _claims():
    for system in DUELS:
        for name, found in sorted(load_personality_data(system).temperaments.items()):
            assert found.claims, f"{name} of {system} has a description but no claim"
            for claim in found.claims:
                key = (system, name, claim.text)
                marks = ([pytest.mark.xfail(reason=KNOWN_FAILURES[key], strict=True)]
                         if key in KNOWN_FAILURES else [])
                yield pytest.param(system, name, claim, marks=marks,
                                   id=f"{system}-{name}-{claim.text}")


@pytest.mark.parametrize("system,name,claim", list(_claims()))
def test_description_claim_holds_at_every_strength(system, name, claim):
    data = load_personality_data(system)
    checked = 0
    for duel, _, sides in DUELS[system]:
        game, solution = _duel(system, duel)
        for side in sides:
            plays = [personality(game, name, s, side).policy for s in STRENGTHS]
            checked += _check(game, solution, data, claim, plays, side)
    assert checked, f"the claim is about nothing on {system}'s duels: {claim.text!r}"


def test_every_system_with_claims_is_checked():
    def claims(system):
        return any(t.claims for t in load_personality_data(system).temperaments.values())
    assert {s for s in envs.systems() if claims(s)} <= set(DUELS)
