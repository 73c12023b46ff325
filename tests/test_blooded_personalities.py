"""Houses of the Blooded's temperaments; the claims of their descriptions
(``agents/personalities/blooded.toml``) are checked for every system by
tests/test_personality_claims.py."""

from __future__ import annotations

from agents.temperaments import personality_names


def test_every_temperament_is_checked():
    assert set(personality_names("blooded")) == {"reckless", "patient", "showy", "grudging"}
