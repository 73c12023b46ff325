"""Pure game theory: matrix games, backward induction, best responses, exact dice.

Knows nothing about duels; every system implements ``solver.game.Game``.

The public names are imported on first use, so ``solver.dice`` or ``solver.errors``
alone never pay for the compiled backends (numba) behind ``solve_game``.
"""

from __future__ import annotations

import importlib
import sys
import types

#: each public name and the module that defines it
_PUBLIC = {
    "Solution": "backward", "solve_game": "backward",
    "InputError": "errors",
    "Evaluation": "evaluate", "evaluate": "evaluate",
    "PLAYERS": "game", "Game": "game", "Policy": "game",
    "MatrixSolutions": "matrix", "solve_matrices": "matrix", "solve_matrix": "matrix",
    "MixPolicy": "policy", "TabularPolicy": "policy", "UniformPolicy": "policy",
    "BestResponse": "response", "Exploitability": "response", "best_response": "response",
    "exploitability": "response",
}


def __getattr__(name: str):
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_PUBLIC[name]}", __name__), name)
    globals()[name] = value   # looked up once
    return value


class _Package(types.ModuleType):
    """Keeps ``solver.evaluate`` the function: loading the submodule of the same name
    would otherwise bind the module over it (as the import system does for every
    submodule), and which one a caller got would depend on what was imported before."""

    def __setattr__(self, name: str, value) -> None:
        if isinstance(value, types.ModuleType) and _PUBLIC.get(name) == name:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC])


__all__ = sorted(_PUBLIC)
