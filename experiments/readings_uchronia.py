"""What each of Uchronia's seed readings is worth (issue 28; docs/systems/uchronia.md).

    python experiments/readings_uchronia.py [--quick] [--json]

For every reading, a reference duel solved exactly under the default and under each
other choice: A's value, win, draw and loss. ``--quick`` plays short duels (a few turns
or rounds), for a check in seconds.
"""

from __future__ import annotations

import json

from report import reading_row, readings_main

import envs
from solver import solve_game

# (reading, the option or ruleset table of each choice, the reference duel)
READINGS = [
    ("melee.weapon_dice",
     [{"weapon_dice": w} for w in ("always", "against_unarmed", "difference")],
     {"mode": "melee", "a": "weapon=hache", "b": "weapon=couteau"}),
    ("melee.failed_break_off",
     [{"failed_break_off": f} for f in ("helpless", "round_lost")],
     {"mode": "melee", "a": "athlete", "b": "pugiliste,colosse"}),
    ("pistol.wound_breaks_aim",
     [{"wound_breaks_aim": w} for w in (True, False)],
     {"a": "adresse,tireur", "b": "sang-froid"}),
    ("pistol.aim_weapons",
     [{}, {"ruleset": {"pistol": {"aim_weapons": ["pocket_revolver", "revolver"]}}}],
     {"a": "tireur", "b": "", "start_band": "grande"}),
]


def measure(quick: bool) -> list[dict]:
    rows = []
    for reading, choices, duel in READINGS:
        if quick:
            duel = {**duel, "max_turns": 4, "max_rounds": 3}
        for choice in choices:
            solution = solve_game(envs.make("uchronia", **duel, **choice))
            shown = json.dumps(choice) if choice else "default"
            rows.append(reading_row(reading, shown, duel, solution))
    return rows


def main(argv: list[str] | None = None) -> None:
    readings_main(__doc__, measure, argv)


if __name__ == "__main__":
    main()
