"""Policies, self-play training, NPC personalities, opponent profiles and the CLI.

A profile file becomes a policy with ``load_profile(path)``; the environments, the
solver and the CLI accept it wherever they accept a policy.
"""

from .personalities import (
    Personality,
    Temperament,
    personality,
    personality_names,
    situations,
    temperament,
)
from .profiles import (
    SCHEMA,
    Profile,
    ProfileWarning,
    build_profile,
    check_game,
    is_profile_path,
    load_profile,
    make_profile,
    save_profile,
    validate_profile,
)

__all__ = [
    "SCHEMA", "Personality", "Profile", "ProfileWarning", "Temperament", "build_profile",
    "check_game", "is_profile_path", "load_profile", "make_profile", "personality",
    "personality_names",
    "save_profile", "situations", "temperament", "validate_profile",
]
