"""What each of Houses of the Blooded's seed readings is worth (issue 28;
docs/systems/blooded.md).

    python experiments/readings_blooded.py [--quick] [--json]

For every reading, a reference duel solved exactly under the default and under the
seed's choice: A's value, win, draw and loss. ``--quick`` plays two beats at first blood,
for a check in seconds; the full run plays 30 beats (minutes).
"""

from __future__ import annotations

from report import reading_row, readings_main

import envs
from solver import solve_game

EXAMPLE = {"a": "prowess=3,sword=3", "b": "prowess=2,sword=4"}
MANEUVERS = {"a": "duellist", "b": "prowess=3,sword=3,strength=2,athletics=2,lunge,bash"}
SHORT = {"a": "prowess=2,sword=1,feint,riposte,bash,lunge",
         "b": "prowess=1,sword=2,style=2,bash,riposte,bind"}

# (reading, the ruleset tables of its choices, the reference duel)
READINGS = [
    ("wagers_per_style", [{"wagers_per_style": 2}, {"wagers_per_style": 1}], EXAMPLE),
    ("declaration", [{"declaration": "after"}, {"declaration": "before"}], MANEUVERS),
    ("bid_tie", [{"bid_tie": t} for t in ("prowess_then_coin", "coin", "a", "b")], SHORT),
    ("riposte_rolls", [{"riposte_rolls": False}, {"riposte_rolls": True}], MANEUVERS),
    ("bash_cancellable", [{"bash_cancellable": False}, {"bash_cancellable": True}],
     MANEUVERS),
]


def measure(quick: bool) -> list[dict]:
    rows = []
    for reading, choices, duel in READINGS:
        if quick:
            duel = {**SHORT, "max_beats": 2, "convention": "first_blood"}
        for choice in choices:
            solution = solve_game(envs.make("blooded", ruleset=choice, **duel))
            rows.append(reading_row(reading, choice, duel, solution))
    return rows


def main(argv: list[str] | None = None) -> None:
    readings_main(__doc__, measure, argv)


if __name__ == "__main__":
    main()
