"""What one pool for the whole duel is worth in Houses of the Blooded (issue 28;
docs/systems/blooded.md): ruleset ``pool = "every_beat"`` against ``"whole_duel"``.

    python experiments/readings_blooded_pool.py [--quick] [--json]

The example duel (``--a prowess=3,sword=3 --b prowess=2,sword=4``, mortal, 30 beats)
solved exactly under both readings: A's value, win, draw and loss. With one pool the
situations are walked one by one (tens of minutes on a loaded machine); ``--quick``
plays three beats at first blood, for a check in seconds.
"""

from __future__ import annotations

from report import reading_row, readings_main

import envs
from solver import solve_game

EXAMPLE = {"a": "prowess=3,sword=3", "b": "prowess=2,sword=4"}
QUICK = {"a": "prowess=2,sword=1", "b": "prowess=1,sword=2", "max_beats": 3,
         "convention": "first_blood"}
CHOICES = [{"pool": "every_beat"}, {"pool": "whole_duel"}]


def measure(quick: bool) -> list[dict]:
    duel = QUICK if quick else EXAMPLE
    rows = []
    for choice in CHOICES:
        solution = solve_game(envs.make("blooded", ruleset=choice, **duel))
        rows.append(reading_row("pool", choice, duel, solution))
    return rows


def main(argv: list[str] | None = None) -> None:
    readings_main(__doc__, measure, argv)


if __name__ == "__main__":
    main()
