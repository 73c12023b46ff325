"""Every claim of every system's temperament descriptions (``[[temperament.NAME.claim]]``
in ``agents/personalities/<system>.toml``) holds on small duels of that system: at
every strength from the file's ``[claims] from_strength`` to 1 (``strengths``: that
one, 0.5, 0.75, 0.9 and 1), the claim's share of the exact personality beats the
maximum-entropy equilibrium's by the margin the file (or the claim) declares, in the
situation the claim names, and, unless the claim says ``grows = false``, does not fall
as strength grows.

One code path for every system: the shares are expected counts over the personality's
own visits against the equilibrium (as everywhere), by plain recursion over
``game.outcomes`` (independent of solver.evaluate's sparse forward pass)."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

import envs
from agents.personalities import personality
from agents.temperaments import load_personality_data
from solver import solve_game
from solver.game import other, policy_mix

#: the strengths checked above the file's from_strength (the strongest NPCs are where
#: a tendency may fade as the temperament itself is approached)
ABOVE = (0.5, 0.75, 0.9, 1.0)


def strengths(data) -> tuple[float, ...]:
    """Every strength checked: the file's weakest, and those of ``ABOVE`` above it."""
    return (data.claims_from, *(s for s in ABOVE if s > data.claims_from))

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
    assert min(shares) > (sound or 0.0) + data.margin_of(claim), (claim.text, sound, shares)
    if claim.grows:
        assert all(b >= a - NOT_FALLING for a, b in zip(shares, shares[1:], strict=False)), \
            (claim.text, shares)
    return True


def _claims():
    for system in DUELS:
        for name, found in sorted(load_personality_data(system).temperaments.items()):
            assert found.claims, f"{name} of {system} has a description but no claim"
            for claim in found.claims:
                yield pytest.param(system, name, claim, id=f"{system}-{name}-{claim.text}")


@pytest.mark.parametrize("system,name,claim", list(_claims()))
def test_description_claim_holds_at_every_strength(system, name, claim):
    data = load_personality_data(system)
    checked = 0
    for duel, _, sides in DUELS[system]:
        game, solution = _duel(system, duel)
        for side in sides:
            plays = [personality(game, name, s, side).policy for s in strengths(data)]
            checked += _check(game, solution, data, claim, plays, side)
    assert checked, f"the claim is about nothing on {system}'s duels: {claim.text!r}"


def test_a_claim_that_does_not_grow_says_so_and_still_beats_the_margin():
    """Only the four claims found to peak below strength 1 (a strong NPC shows the
    tendency more than the temperament itself) are spared the rise, each with a TOML
    comment saying where it peaks; every other claim still must not fall."""
    declared = {(system, name, claim.text) for system in DUELS
                for name, t in load_personality_data(system).temperaments.items()
                for claim in t.claims if not claim.grows}
    assert declared == {
        ("pathfinder", "bully", "rolls Intimidation for initiative"),
        ("pathfinder", "watcher", "lets the foe act first with Perception"),
        ("uchronia", "hothead", "in melee fights more than the equilibrium"),
        ("uchronia", "wrestler", "grapples rather than trades blows")}


def test_every_system_with_claims_is_checked():
    def claims(system):
        return any(t.claims for t in load_personality_data(system).temperaments.values())
    assert {s for s in envs.systems() if claims(s)} <= set(DUELS)
