"""Gymnasium ids for the duel systems, registered without importing Gymnasium.

Importing ``envs`` registers ``duel/<system>-v0``, served by ``envs.single``: the
opponent is a policy object or a name the solver knows (``uniform``, ``equilibrium``,
``mix=...``). Importing ``agents`` adds ``duel/<system>-npc-v0``, whose opponent may
also be a profile file or a personality (``agents.gym``). Neither package needs
Gymnasium for anything else, so each registers when Gymnasium is imported, at once if
it already was: ``import envs`` then ``import gymnasium`` works as well as the reverse,
and Gymnasium's ``module:`` prefix (``gymnasium.make("envs:duel/falkenstein-v0")``) too.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable, Mapping

GYMNASIUM = "gymnasium"

#: the entry point of ``duel/<system>-v0``
ENVS_ENTRY_POINT = "envs.single:single_env"


def env_id(system: str, variant: str = "") -> str:
    """``duel/<system>-v0``, or ``duel/<system>-<variant>-v0``."""
    return f"duel/{system}-{variant}-v0" if variant else f"duel/{system}-v0"


def register_ids(entry_point: str, systems: Callable[[], Mapping], variant: str = "") -> None:
    """Register ``env_id(system, variant)`` for every implemented system that
    ``systems()`` lists (``envs.systems``), with ``entry_point`` (which takes ``system=``
    and the environment's keywords): now if Gymnasium is loaded, else as soon as it is."""
    _when_loaded(GYMNASIUM, lambda: _register_now(entry_point, systems, variant))


def _register_now(entry_point: str, systems: Callable[[], Mapping], variant: str) -> None:
    from gymnasium.envs.registration import register, registry
    for entry in systems().values():
        name = env_id(entry.name, variant)
        if entry.implemented and name not in registry:
            register(id=name, entry_point=entry_point, kwargs={"system": entry.name})


def _when_loaded(module: str, action: Callable[[], None]) -> None:
    if module in sys.modules:
        action()
        return
    for finder in sys.meta_path:
        if isinstance(finder, _AfterImport) and finder.module == module:
            finder.actions.append(action)
            return
    sys.meta_path.insert(0, _AfterImport(module, action))


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds ``module`` as the other finders would, and has its loader run ``actions``
    once the module has run; then steps out of the import system."""

    def __init__(self, module: str, action: Callable[[], None]):
        self.module, self.actions = module, [action]

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.module:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenLoader(spec.loader, self.actions)
        return spec


class _ThenLoader(importlib.abc.Loader):
    def __init__(self, loader, actions: list[Callable[[], None]]):
        self.loader, self.actions = loader, actions

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        module.__loader__ = module.__spec__.loader = self.loader   # as if never wrapped
        for action in self.actions:
            action()
