"""``--vs`` on the command line: a name, a mix or a profile file, as a policy."""

from __future__ import annotations

from pathlib import Path

from agents.profiles import is_profile_path, load_profile
from envs.opponents import resolve_opponent


def opponent_policy(spec: str, game, player: str):
    """The policy that ``spec`` names, playing ``player`` in ``game``."""
    if is_profile_path(spec):
        return resolve_opponent(load_profile(spec), game, player)
    return resolve_opponent(spec, game, player)


def opponent_label(spec: str) -> str:
    return Path(spec).name if spec.endswith(".json") else spec
