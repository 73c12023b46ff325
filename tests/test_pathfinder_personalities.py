"""Each Pathfinder temperament's description is a claim about its play, checked on the
exact personality policy (``agents.personality``) against the equilibrium at the start
of a one-round fighter-against-rogue duel (where the equilibrium is pure: Perception,
act first, three Strikes), at strengths 0.25, 0.5, 0.75 and 1."""

from __future__ import annotations

import pytest

import envs
from agents.personalities import personality, personality_names
from solver import solve_game

STRENGTHS = (0.25, 0.5, 0.75, 1.0)
#: description claim -> which actions it is about
CLAIMS = {
    "bully": {"rolls Intimidation": lambda n: n.startswith("intimidation-"),
              "demoralizes": lambda n: "demoralize" in n},
    "trickster": {"rolls Deception": lambda n: n.startswith("deception-"),
                  "feints": lambda n: "feint" in n},
    "watcher": {"lets the foe act first": lambda n: "-second-" in n,
                "with Perception": lambda n: n.startswith("perception-second")},
}


@pytest.fixture(scope="module")
def duel():
    game = envs.make("pathfinder", a="fighter", b="rogue", max_rounds=1)
    return game, solve_game(game)


def share(game, mix, claim) -> float:
    return sum(p for name, p in zip(game.action_names, mix, strict=True) if claim(name))


def test_every_temperament_is_listed_with_its_claims():
    names = personality_names("pathfinder")
    assert set(names) == set(CLAIMS)
    for name, claims in CLAIMS.items():
        for words in claims:
            assert words.lower() in names[name].lower()


@pytest.mark.parametrize("name", sorted(CLAIMS))
def test_description_holds_at_every_strength(duel, name):
    game, solved = duel
    start = game.start()
    equilibrium = solved.policy(start)[0]
    observation, mask = game.observe(start, "a"), game.legal_mask(start, "a")
    for strength in STRENGTHS:
        mix = personality(game, name, strength, "a").policy.probabilities(observation, mask)
        for words, claim in CLAIMS[name].items():
            assert share(game, mix, claim) > share(game, equilibrium, claim) + 1e-6, (
                f"{name} at strength {strength}: {words}")
