"""Solving one cell, and reading a cell from its mirror (the same duel, sides swapped).

``solve_cell`` is what every backend runs (a process of the pool, a Ray task): it takes
and returns plain data, so it crosses process and machine boundaries as it is.
"""

from __future__ import annotations

import json
import re
import time
import warnings

import numpy as np

#: what a solved cell holds, beside the cell itself (every one a plain value)
RESULT_COLUMNS = ("value", "win", "draw", "loss", "expected_length", "length_unit",
                  "endings", "opening_a", "opening_b", "unrefined", "ruleset_hash", "version",
                  "seconds")
#: columns that measure the run, not the duel: they may differ between two runs
TIMING_COLUMNS = ("seconds",)

#: systems whose duel with the sides swapped is exactly the mirrored duel (value negated,
#: win and loss traded, endings with A and B traded, openings swapped): tests/test_sweep.py
#: checks it for each; a cell of another system and its mirror are both solved. The
#: value is unique, but the odds depend on the mixes: a cell read from its mirror needs
#: the mirror's least predictable mixes all found (``unrefined`` 0), else both are solved
MIRROR_EXACT = frozenset({"blooded", "falkenstein", "pathfinder", "uchronia"})


def solve_cell(system: str, arguments: dict) -> dict:
    """The solved duel ``envs.make(system, **arguments)``: its value, odds, length, how
    it ends and both sides' opening mixes (JSON text), how many of its mixes are optimal
    but not confirmed the least predictable (``unrefined``), the ruleset hash, the
    package version and the seconds it took."""
    import envs
    from agents.profiles import package_version
    from solver import solve_game
    from solver.errors import RefinementWarning

    started = time.perf_counter()
    game = envs.make(system, **arguments)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", RefinementWarning)
        solution = solve_game(game, statistics=True)
    for warning in said:  # the others are the caller's to hear
        if not isinstance(warning.message, RefinementWarning):
            warnings.warn_explicit(warning.message, warning.category, warning.filename,
                                   warning.lineno)
    unrefined = sum(w.message.count for w in said if isinstance(w.message, RefinementWarning))
    evaluation = solution.evaluation
    opening_a, opening_b = _opening(game, solution)
    return {"value": float(evaluation.value), "win": float(evaluation.win),
            "draw": float(evaluation.draw), "loss": float(evaluation.loss),
            "expected_length": float(evaluation.expected_length),
            "length_unit": game.info.length_unit,
            "endings": _json({k: float(p) for k, p in evaluation.endings.items()}),
            "opening_a": _json(opening_a), "opening_b": _json(opening_b),
            "unrefined": int(unrefined), "ruleset_hash": str(game.info.ruleset_hash),
            "version": package_version(),
            "seconds": time.perf_counter() - started}


def _opening(game, solution) -> tuple[dict, dict]:
    """Both sides' mixes at the start (weighted by chance when the duel starts from a
    draw), the actions played with a positive chance only."""
    names = game.info.action_names
    mixes = [np.zeros(len(names)), np.zeros(len(names))]
    for chance, state in game.initial_outcomes():
        for side, mix in enumerate(solution.policy(state)):
            mixes[side] += chance * np.asarray(mix, dtype=float)
    return tuple({name: float(p) for name, p in zip(names, mix, strict=True) if p > 0}
                 for mix in mixes)


def mirrored(result: dict) -> dict:
    """The result of the same duel with the sides swapped, read from ``result``."""
    return {**result, "value": -result["value"], "win": result["loss"],
            "loss": result["win"], "endings": _json({swap_sides_in_words(k): p for k, p in
                                                     json.loads(result["endings"]).items()}),
            "opening_a": result["opening_b"], "opening_b": result["opening_a"],
            "seconds": 0.0}


_SIDE_WORD = re.compile(r"\b[AB]\b")


def swap_sides_in_words(text: str) -> str:
    """``"A knocks B out"`` -> ``"B knocks A out"``: the endings name the sides A and B."""
    return _SIDE_WORD.sub(lambda m: "B" if m.group() == "A" else "A", text)


def _json(mapping: dict) -> str:
    return json.dumps(mapping, sort_keys=True)
