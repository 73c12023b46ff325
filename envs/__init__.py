"""The duel systems, their rules data, and the PettingZoo / Gymnasium adapters.

``make(system, **options)`` builds a game implementing ``solver.game.Game``;
``systems()`` lists the systems, their status and their schema.

A system is one rules module ``envs/<name>.py`` defining ``SYSTEM`` (an
``envs.schema.SystemSpec``), its [default] rules ``envs/rulesets/<name>.toml`` and its
temperaments ``agents/personalities/<name>.toml``: the package finds it by its ruleset
file, so adding one touches no other file. A system kept elsewhere (a plug-in, a test's
toy) is added with ``register(spec)``, or by naming its module in the environment
variable ``DUEL_SYSTEMS`` (comma-separated modules that define ``SYSTEM``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import os
import sys
from importlib import resources
from typing import TYPE_CHECKING

from solver.errors import InputError, check_choice

from .rulesets import load_ruleset, ruleset_hash

if TYPE_CHECKING:
    from .schema import Footprint, SystemSpec

_REGISTERED: dict[str, SystemSpec] = {}
_LOADED = False


def register(spec: SystemSpec) -> SystemSpec:
    """Add (or replace) a system; returns it, so a module may ``register(SYSTEM)``."""
    from .schema import SystemSpec
    if not isinstance(spec, SystemSpec):
        raise InputError(f"register() takes an envs.schema.SystemSpec, got {spec!r}")
    _REGISTERED[spec.name] = spec
    return spec


def _builtin_names() -> list[str]:
    folder = resources.files("envs").joinpath("rulesets")
    return sorted(entry.name[:-5] for entry in folder.iterdir() if entry.name.endswith(".toml"))


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    modules = [f"envs.{name}" for name in _builtin_names()]
    modules += [m.strip() for m in os.environ.get("DUEL_SYSTEMS", "").split(",") if m.strip()]
    for module_name in modules:
        _import_system(module_name)


def _import_system(module_name: str) -> None:
    """Register the ``SYSTEM`` that ``module_name`` defines, once its module is written."""
    from .schema import SystemSpec
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name == module_name:
            return  # a ruleset whose rules module is not written yet
        raise
    spec = getattr(module, "SYSTEM", None)  # the one place a module is probed
    if isinstance(spec, SystemSpec):
        _REGISTERED.setdefault(spec.name, spec)


def systems() -> dict[str, SystemSpec]:
    """Every registered duel system, implemented ones first, with its status and schema."""
    _load()
    return dict(sorted(_REGISTERED.items(),
                       key=lambda item: (not item[1].implemented, item[0])))


def spec(system: str) -> SystemSpec:
    """The registered, implemented system ``system``. A built-in one is imported alone,
    not with every other system (``duel`` checks a command's input at once)."""
    if isinstance(system, str) and system not in _REGISTERED and system in _builtin_names():
        _import_system(f"envs.{system}")
    entry = _REGISTERED.get(system) if isinstance(system, str) else None
    if entry is not None and entry.implemented:
        return entry
    registry = systems()
    check_choice("system", system, registry)
    entry = registry[system]
    if not entry.implemented:
        implemented = ", ".join(n for n, s in registry.items() if s.implemented)
        raise InputError(f"system {system!r} is not implemented yet; implemented: {implemented}")
    return entry


def make(system: str, **options):
    """Build the game of ``system``: sheets as ``a=`` / ``b=`` (mappings or text like
    ``"fighter,hp=20"``), ``ruleset=`` a TOML file or table overriding the [default]
    rules, and the system's options (``systems()[system].options``). ``a_prior=`` /
    ``b_prior=`` hide a side's sheet, drawn from ``[(SHEET, WEIGHT), ...]`` or
    ``"SHEET@WEIGHT;SHEET@WEIGHT"`` (``envs.hidden``); a side with a prior has no plain
    sheet."""
    from solver.game import check_game
    entry = spec(system)
    priors = {side: options.pop(f"{side}_prior", None) for side in ("a", "b")}
    own = _own_priors(entry, options, priors)
    if own is not None:
        return _make_hidden(entry, options, own.priors, own.recorded)
    if priors["a"] is not None or priors["b"] is not None:
        return _make_hidden(entry, options, priors)
    sheets = {side: options.pop(side, None) for side in ("a", "b")}
    source = options.pop("ruleset", None)
    ruleset = load_ruleset(entry.name, source, entry.ruleset_file)
    checked = entry.check_options(options, ruleset)
    checked["a"] = entry.sheet.normalise(sheets["a"], "a", ruleset)
    checked["b"] = entry.sheet.normalise(sheets["b"], "b", ruleset)
    checked["ruleset"] = str(source) if source is not None and not isinstance(
        source, dict) else source
    try:
        game = entry.build(ruleset, checked)
    except (TypeError, ValueError, KeyError, IndexError) as error:
        if isinstance(error, InputError):
            raise
        raise InputError(f"{system}: malformed ruleset data "
                         f"({type(error).__name__}: {error})") from None
    game = check_game(game)
    game.info = dataclasses.replace(game.info, identity=identity(entry, checked, ruleset))
    return game


def footprint(game) -> Footprint | None:
    """What the exact solution of ``game`` (built by ``make``) will take, estimated by its
    system from its sheets and options before any state is explored
    (``SystemSpec.footprint``); None where the system cannot say, and for hidden sheets
    (the estimate is of the public duel's tables; the hidden solver counts its own)."""
    estimate = spec(game.info.system).footprint
    if estimate is None or not game.info.public_information:
        return None
    return estimate(game)


def _own_priors(entry: SystemSpec, options: dict, priors: dict):
    """The priors over sheets that the system's own hiding options stand for
    (``SystemSpec.hidden_priors``), taken out of ``options``; None when they hide
    nothing."""
    if entry.hidden_priors is None:
        return None
    ruleset = load_ruleset(entry.name, options.get("ruleset"), entry.ruleset_file)
    own = entry.hidden_priors(entry, options, ruleset)
    if own is not None and (priors["a"] is not None or priors["b"] is not None):
        hiding = ", ".join(own.recorded)
        raise InputError(f"{entry.name}: a_prior / b_prior hide whole sheets, and the "
                         f"options {hiding} already hide part of them; use one or the other")
    return own


def _make_hidden(entry: SystemSpec, options: dict, priors: dict,
                 recorded: dict | None = None):
    """A duel with hidden sheets (``envs.hidden``): one public duel per pair of sheets;
    ``recorded`` (the system's own hiding options) stands for the priors in its options."""
    from solver.game import check_game

    from .hidden import make_hidden
    ruleset = load_ruleset(entry.name, options.get("ruleset"), entry.ruleset_file)
    rest = {key: value for key, value in options.items() if key not in ("a", "b")}
    game = make_hidden(entry, lambda a, b: make(entry.name, a=a, b=b, **rest),
                       dict(options), priors, ruleset)
    game = check_game(game)
    document = json.dumps({"hidden": [g.info.identity for g in game.games.values()],
                           "priors": [game.sheets[p] for p in ("a", "b")]},
                          sort_keys=True, separators=(",", ":"))
    game.info = dataclasses.replace(game.info, identity=document)
    if recorded is not None:
        kept = {key: value for key, value in game.info.options.items()
                if key not in ("a_prior", "b_prior")}
        game.info = dataclasses.replace(game.info, options={**kept, **recorded})
    return game


def identity(entry: SystemSpec, checked: dict, ruleset: dict) -> str:
    """What makes two games built by ``make`` the same game: the system, the checked
    options and sheets, and the hash of the merged ruleset (not the file it came from);
    for a system kept outside the package (whose code the answer store's version does
    not cover), also a hash of the module that builds it."""
    options = {key: value for key, value in checked.items() if key != "ruleset"}
    document = {"system": entry.name, "options": options, "ruleset": ruleset_hash(ruleset)}
    module = sys.modules.get(getattr(entry.build, "__module__", ""))
    source = getattr(module, "__file__", None)
    if source and not module.__name__.startswith(f"{__name__}."):
        with open(source, "rb") as file:
            document["code"] = hashlib.sha256(file.read()).hexdigest()[:16]
    return json.dumps(document, sort_keys=True, separators=(",", ":"), default=repr)


def register_gymnasium() -> None:
    """Register ``duel/<system>-v0`` for every implemented system (``envs.single``'s
    environment; ``agents`` adds ``duel/<system>-npc-v0``, whose opponents may be profiles
    and personalities). Importing ``envs`` does it as soon as Gymnasium is imported,
    without importing it (``envs.gym_registration``)."""
    from .gym_registration import ENVS_ENTRY_POINT, register_ids
    register_ids(ENVS_ENTRY_POINT, systems)


register_gymnasium()


def __getattr__(name):
    # the adapters import pettingzoo / gymnasium, which the solver alone never needs;
    # the schema (numpy) is imported with the first system, not by ``duel --help``
    if name in ("Examples", "Field", "SheetSpec", "SystemSpec"):
        return getattr(importlib.import_module(".schema", __name__), name)
    if name in ("parallel_env", "ParallelDuelEnv"):
        return getattr(importlib.import_module(".parallel", __name__), name)
    if name in ("single_env", "SingleDuelEnv"):
        return getattr(importlib.import_module(".single", __name__), name)
    raise AttributeError(name)


__all__ = ["Examples", "Field", "footprint", "SheetSpec", "SystemSpec", "make", "register",
           "register_gymnasium", "ruleset_hash", "spec", "systems"]
