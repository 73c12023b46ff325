"""Uchronia's temperament descriptions are the data; their claims
(``agents/personalities/uchronia.toml``) are checked for every system by
tests/test_personality_claims.py."""

from __future__ import annotations

from agents import personality_names


def test_every_temperament_has_claims():
    assert set(personality_names("uchronia")) == {"hothead", "cold_shot", "wrestler", "prudent"}


def test_personality_descriptions_are_the_data():
    names = personality_names("uchronia")
    assert "long range" in names["hothead"] and "aims" in names["cold_shot"]
