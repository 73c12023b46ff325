"""What each of Uchronia's seed readings is worth (issue 28; docs/systems/uchronia.md).

    python experiments/readings_uchronia.py [--quick] [--json]

For every reading, a reference duel solved exactly under the default and under each
other choice: A's value, win, draw and loss. ``--quick`` plays short duels (a few turns
or rounds), for a check in seconds.
"""

from __future__ import annotations

import argparse
import json

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
            rows.append({"reading": reading, "choice": json.dumps(choice) if choice
                         else "default", "duel": duel, "value": solution.value,
                         "win": solution.win, "draw": solution.draw, "loss": solution.loss})
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short duels, in seconds")
    parser.add_argument("--json", action="store_true", help="one JSON document")
    args = parser.parse_args(argv)
    rows = measure(args.quick)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'reading':26} {'choice':58} {'value':>7} {'win':>6} {'draw':>6} {'loss':>6}")
    for r in rows:
        print(f"{r['reading']:26} {r['choice'][:58]:58} {r['value']:+7.3f} {r['win']:6.1%} "
              f"{r['draw']:6.1%} {r['loss']:6.1%}")


if __name__ == "__main__":
    main()
