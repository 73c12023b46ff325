"""How far each system's hidden duel goes exactly: the estimated size of its unrolled tree
(``solver.hidden.sequence.estimate_size``) by horizon, two sheets for A and B's public,
against the 2,000,000 points the exact solver takes (the table in docs/algorithms.md).

    PYTHONPATH=. python experiments/hidden_sizes.py [SYSTEM ...]
"""

from __future__ import annotations

import sys

import envs
from solver.hidden.sequence import MAX_NODES, estimate_size

#: per system: (the duel in words, horizon option, horizons, options with the sheets)
CASES = {
    "pathfinder": [
        ("first blood, fighter (AC 18 or 16) against rogue", "max_rounds", (1, 2),
         {"victory": "first_blood", "b": "rogue", "a_prior": "fighter@1;fighter,ac=16@1"}),
        ("knockout, fighter (6 or 4 HP) against rogue (6 HP)", "max_rounds", (1, 2),
         {"b": "rogue,hp=6", "a_prior": "fighter,hp=6@1;fighter,hp=4@1"})],
    "uchronia": [("pistol, adresse with or without tireur against sang-froid", "max_turns",
                  (4, 6, 8), {"b": "sang-froid", "a_prior": "adresse,tireur@1;adresse@1"})],
    "blooded": [("Prowess 2 or 1 against Prowess 1, sword 2", "max_beats", (1, 2, 3),
                 {"b": "prowess=1,sword=2", "a_prior": "prowess=2,sword=1@1;prowess=1,sword=1@1"})],
    "falkenstein": [("Fencing GD or GR against GD", "max_rounds", (1, 2),
                     {"b": "fencing=GD", "a_prior": "fencing=GD@1;fencing=GR@1"})],
}


def main(systems: list[str]) -> None:
    print("| system | duel | horizon | points | exact? |\n|---|---|---|---|---|")
    for system in systems or CASES:
        for words, option, horizons, options in CASES[system]:
            for horizon in horizons:
                size = estimate_size(envs.make(system, **{option: horizon}, **options))
                print(f"| {system} | {words} | {option}={horizon} | {size:.2g} | "
                      f"{'yes' if size <= MAX_NODES else 'no'} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
