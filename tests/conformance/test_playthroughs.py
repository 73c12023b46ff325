"""A seeded playthrough of every registered system, stored as text (as OpenSpiel keeps
its playthroughs): each state described, both masks and observations, the actions
drawn, the exact chances of the step and its narration, on the system's quick example
duel. Any change to a rule shows up as a readable diff. After an intended change:
``UPDATE_PLAYTHROUGHS=1 python -m pytest tests/conformance/test_playthroughs.py``."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import envs
from solver.game import sample_outcome, sample_step

FOLDER = Path(__file__).parent.parent / "playthroughs"
SEED = 2026
SYSTEMS = [name for name, spec in envs.systems().items() if spec.implemented]


def playthrough(system: str, seed: int = SEED) -> str:
    examples = envs.spec(system).examples
    options = {"a": examples.sheet_a, "b": examples.sheet_b, **examples.quick}
    game = envs.make(system, **options)
    rng = np.random.default_rng(seed)
    names = game.info.action_names
    state = sample_outcome(game.initial_outcomes(), rng)
    lines = [f"{system}: {sorted(options.items())}, seed {seed}"]
    while not game.is_terminal(state):
        lines += [f"state: {game.state_fields(state)}", f"  {game.describe(state)}"]
        picks = []
        for side in "ab":
            mask = game.legal_mask(state, side)
            legal = [names[k] for k in np.flatnonzero(mask)]
            lines.append(f"  {side}: legal {legal}, observation "
                         f"{tuple(int(x) for x in game.observe(state, side))}")
            picks.append(int(rng.choice(np.flatnonzero(mask))))
        chances = sorted((p for p, _ in game.outcomes(state, *picks)), reverse=True)
        lines.append(f"  actions: {names[picks[0]]} / {names[picks[1]]}; chances "
                     + ", ".join(f"{p:.6f}" for p in chances))
        following = sample_step(game, state, *picks, rng)
        lines.append(f"  {game.narrate(state, *picks, following)}")
        state = following
    lines.append(f"end: {game.result(state)} (payoff to A {game.payoff(state):+g})")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("system", SYSTEMS)
def test_playthrough_unchanged(system):
    path = FOLDER / f"{system}.txt"
    text = playthrough(system)
    if os.environ.get("UPDATE_PLAYTHROUGHS"):
        path.write_text(text, encoding="utf-8")
    if not path.exists():
        pytest.fail(f"no stored playthrough {path}; write it with UPDATE_PLAYTHROUGHS=1 "
                    "and read it before committing it")
    assert text == path.read_text(encoding="utf-8")
