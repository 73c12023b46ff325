"""What each of Houses of the Blooded's seed readings is worth (issue 28;
docs/systems/blooded.md).

    python experiments/readings_blooded.py [--quick] [--json]

For every reading, a reference duel solved exactly under the default and under the
seed's choice: A's value, win, draw and loss. ``--quick`` plays two beats at first blood,
for a check in seconds; the full run plays 30 beats (minutes).
"""

from __future__ import annotations

import argparse
import json

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
            rows.append({"reading": reading, "choice": choice, "duel": duel,
                         "value": solution.value, "win": solution.win,
                         "draw": solution.draw, "loss": solution.loss})
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
    print(f"{'reading':18} {'choice':36} {'value':>7} {'win':>6} {'draw':>6} {'loss':>6}")
    for r in rows:
        print(f"{r['reading']:18} {json.dumps(r['choice']):36} {r['value']:+7.3f} "
              f"{r['win']:6.1%} {r['draw']:6.1%} {r['loss']:6.1%}")


if __name__ == "__main__":
    main()
