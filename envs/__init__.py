"""The duel systems, their rules data, and the PettingZoo / Gymnasium adapters.

``make(system, **options)`` builds a game implementing ``solver.game.Game``;
``systems()`` lists the systems, their status and their options.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from solver.errors import InputError, check_choice


@dataclass(frozen=True)
class Option:
    name: str
    kind: type
    default: object
    help: str
    choices: tuple = ()


@dataclass(frozen=True)
class System:
    name: str
    title: str
    status: str  # "implemented" or "planned"
    module: str = ""
    options: tuple[Option, ...] = field(default_factory=tuple)


def _registry() -> dict[str, System]:
    from .catalog import SYSTEMS
    return {system.name: system for system in SYSTEMS}


def systems() -> dict[str, System]:
    """Every duel system with its status and options."""
    return _registry()


def make(system: str, **options):
    """Build the game of ``system`` with the given options (sheets as ``a=`` / ``b=``)."""
    registry = _registry()
    check_choice("system", system, registry)
    entry = registry[system]
    if entry.status != "implemented":
        raise InputError(f"system {system!r} is not implemented yet (status: {entry.status}); "
                         f"implemented: {', '.join(n for n, s in registry.items() if s.module)}")
    allowed = {option.name for option in entry.options}
    for name in options:
        check_choice(f"option for {system}", name, sorted(allowed))
    module = importlib.import_module(entry.module)
    return module.make(**options)


def _register_with_gymnasium() -> None:
    import gymnasium
    for entry in _registry().values():
        env_id = f"duel/{entry.name}-v0"
        if entry.status == "implemented" and env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="envs.single:SingleDuelEnv",
                               kwargs={"system": entry.name})


_register_with_gymnasium()


def __getattr__(name):
    # the adapters import pettingzoo / gymnasium, which the solver alone never needs
    if name in ("parallel_env", "ParallelDuelEnv"):
        return getattr(importlib.import_module(".parallel", __name__), name)
    if name in ("single_env", "SingleDuelEnv"):
        return getattr(importlib.import_module(".single", __name__), name)
    raise AttributeError(name)
