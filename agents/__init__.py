"""Policies, self-play training, NPC personalities, opponent profiles and the CLI.

A profile file becomes a policy with ``load_profile(path)``; the environments, the
solver and the CLI accept it wherever they accept a policy.

The public names are imported on first use: the ``duel`` command (``agents.cli``) starts
without the solver's compiled backends or torch, and loads only what a command needs.
"""

from __future__ import annotations

import importlib

#: each public name and the module that defines it
_PUBLIC = {
    **dict.fromkeys(("Personality", "personality"), "personalities"),
    **dict.fromkeys(("Temperament", "personality_names", "situations", "temperament"),
                    "temperaments"),
    **dict.fromkeys(("SCHEMA", "Profile", "ProfileWarning", "build_profile", "check_game",
                     "is_profile_path", "load_profile", "make_profile", "save_profile",
                     "validate_profile"),
                    "profiles"),
}


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_PUBLIC[name]}", __name__), name)
    globals()[name] = value   # looked up once
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC])


__all__ = sorted(_PUBLIC)


def _register_gymnasium() -> None:
    """``duel/<system>-npc-v0`` (``agents.gym``), registered once Gymnasium is imported."""
    import envs
    from envs.gym_registration import register_ids
    register_ids("agents.gym:single_env", envs.systems, "npc")


_register_gymnasium()
