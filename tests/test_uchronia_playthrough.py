"""Seeded playthroughs of both Uchronia modes, stored as text (as OpenSpiel keeps its
playthroughs): every state described, both masks and observations, the actions drawn,
the exact chances of the step and its narration. Any change to a rule shows up as a
readable diff. Regenerate after an intended change with
``UPDATE_PLAYTHROUGHS=1 pytest tests/test_uchronia_playthrough.py``."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import envs

FOLDER = Path(__file__).parent / "playthroughs"
#: name -> (options, seed); the seeds give playthroughs of several steps
CASES = {
    "uchronia_pistol": (dict(mode="pistol", a="tireur,weapon=revolver", b="adresse",
                            start_band="grande", max_turns=8), 2),
    "uchronia_melee": (dict(mode="melee", a="pugiliste,athlete", b="weapon=couteau",
                            max_rounds=8), 8),
}


def playthrough(options: dict, seed: int) -> str:
    game = envs.make("uchronia", **options)
    rng = np.random.default_rng(seed)
    names = game.info.action_names
    ((_, state),) = game.initial_outcomes()
    lines = [f"options: {sorted((k, v) for k, v in options.items())}"]
    while not game.is_terminal(state):
        lines.append(f"state: {tuple(state)}")
        lines.append(f"  {game.describe(state)}")
        picks = []
        for side in "ab":
            mask = game.legal_mask(state, side)
            legal = [names[k] for k in np.flatnonzero(mask)]
            lines.append(f"  {side}: legal {legal} observation {game.observe(state, side)}")
            picks.append(int(rng.choice(np.flatnonzero(mask))))
        outcomes = game.outcomes(state, *picks)
        chances = ", ".join(f"{p:.6f}" for p, _ in sorted(outcomes, key=lambda o: -o[0]))
        lines.append(f"  actions: {names[picks[0]]} / {names[picks[1]]}; chances {chances}")
        nxt = game.sample(state, *picks, rng)
        lines.append(f"  {game.narrate(state, *picks, nxt)}")
        state = nxt
    lines.append(f"end: {game.result(state)} (payoff to A {game.payoff(state):+g})")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", list(CASES))
def test_playthrough_unchanged(name):
    path = FOLDER / f"{name}.txt"
    text = playthrough(*CASES[name])
    if os.environ.get("UPDATE_PLAYTHROUGHS") or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
