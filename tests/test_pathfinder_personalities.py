"""Pathfinder's temperaments are listed with the words of their descriptions; the claims
of those descriptions are data (``agents/personalities/pathfinder.toml``), checked for
every system by tests/test_personality_claims.py."""

from __future__ import annotations

from agents.temperaments import personality_names

#: temperament -> words its description must say
WORDS = {
    "bully": ("rolls Intimidation", "demoralizes"),
    "trickster": ("rolls Deception", "feints"),
    "watcher": ("lets the foe act first", "with Perception"),
}


def test_every_temperament_is_listed_with_its_claims():
    names = personality_names("pathfinder")
    assert set(names) == set(WORDS)
    for name, words in WORDS.items():
        for word in words:
            assert word.lower() in names[name].lower()
