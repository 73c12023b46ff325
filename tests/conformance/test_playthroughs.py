"""A seeded playthrough of every example duel (``example_duels``: each system's quick
duel and its variants), stored as text (as OpenSpiel keeps its playthroughs): each state
described, both masks and observations, the actions drawn, the exact chances of the
step and its narration. Any change to a rule shows up as a readable diff.

The tests only read the stored files; after an intended change (or for a new system or
variant), write them with this module as a script and read the diff before committing:
``PYTHONPATH=. python tests/conformance/test_playthroughs.py [NAME ...]``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

if __name__ == "__main__":  # run as a script: the tests' helpers, as pytest finds them
    sys.path[:0] = [str(Path(__file__).parents[1]), str(Path(__file__).parents[1]
                                                        / "toy_system")]
    import conftest  # noqa: F401  (registers the toy system, as for every test)

from example_duels import EXAMPLE_NAMES, EXAMPLES, example_game, example_name, example_options

from solver.game import Game, sample_outcome, sample_step

FOLDER = Path(__file__).parent.parent / "playthroughs"
SEED = 2026
#: seeds tried, from SEED, for a duel of at least STEPS steps
SEEDS = 20
STEPS = 2
REGENERATE = "PYTHONPATH=. python tests/conformance/test_playthroughs.py"


def playthrough(system: str, variant: str | None = None) -> str:
    """The playthrough of the first seed from ``SEED`` whose duel lasts ``STEPS`` steps
    or more (a duel over at the first step shows little), else of the longest one."""
    game = example_game(system, variant)
    header = f"{system}: {sorted(example_options(system, variant).items())}"
    plays = []
    for seed in range(SEED, SEED + SEEDS):
        steps, lines = play(game, np.random.default_rng(seed))
        if steps >= STEPS:
            return render(header, seed, lines)
        plays.append((steps, -seed, lines))
    _, seed, lines = max(plays)
    return render(header, -seed, lines)


def render(header: str, seed: int, lines: list[str]) -> str:
    return "\n".join([f"{header}, seed {seed}", *lines]) + "\n"


def play(game: Game, rng: np.random.Generator) -> tuple[int, list[str]]:
    """One duel of uniformly random legal actions: its number of steps, and the duel
    in words."""
    names = game.info.action_names
    state = sample_outcome(game.initial_outcomes(), rng)
    lines, steps = [], 0
    while not game.is_terminal(state):
        steps += 1
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
    return steps, lines


def stored(name: str) -> Path:
    return FOLDER / f"{name}.txt"


@pytest.mark.parametrize("example", EXAMPLES, ids=EXAMPLE_NAMES)
def test_playthrough_unchanged(example):
    name = example_name(*example)
    path = stored(name)
    if not path.exists():
        pytest.fail(f"no stored playthrough {path}: write it with `{REGENERATE} {name}` "
                    "and read it before committing it")
    assert playthrough(*example) == path.read_text(encoding="utf-8"), \
        f"the playthrough {name} changed; if intended, `{REGENERATE} {name}` and read the diff"


def test_every_stored_playthrough_is_of_an_example():
    """A stored file no example duel writes any more is a stale test: delete it."""
    assert sorted(p.stem for p in FOLDER.glob("*.txt")) == sorted(EXAMPLE_NAMES)


def write(names: list[str]) -> None:
    """Write the stored playthroughs of ``names`` (every example duel if empty)."""
    by_name = dict(zip(EXAMPLE_NAMES, EXAMPLES, strict=True))
    unknown = sorted(set(names) - set(by_name))
    if unknown:
        raise SystemExit(f"unknown example duels {unknown}; known: {', '.join(by_name)}")
    for name in names or by_name:
        text = playthrough(*by_name[name])
        path = stored(name)
        old = path.read_text(encoding="utf-8") if path.exists() else None
        path.write_text(text, encoding="utf-8")
        print(f"{path}: {'new' if old is None else 'unchanged' if old == text else 'changed'}")


if __name__ == "__main__":
    write(sys.argv[1:])
