"""``--vs`` on the command line: a name, a mix or a profile file, as a policy."""

from __future__ import annotations

from pathlib import Path

from envs.opponents import resolve_opponent


def opponent_policy(spec: str, game, player: str):
    """The policy that ``spec`` names, playing ``player`` in ``game``."""
    if spec.endswith(".json") or Path(spec).is_file():
        from agents.profiles import check_game, load_profile
        profile = load_profile(spec)
        check_game(profile, game, player)
        return profile
    return resolve_opponent(spec, game, player)


def opponent_label(spec: str) -> str:
    return Path(spec).name if spec.endswith(".json") else spec
