"""What choosing each turn's plan on one's own turn is worth (Pathfinder's option
``plans``; issue 28, docs/systems/pathfinder.md): fighter A against rogue B, to first
blood and to a knockout, under ``committed`` (today's default) and ``per_turn``, each with
the library as it is and with the trigger plan ``feint_strike_strike_reaction`` added.

    python experiments/pathfinder_plans.py [--quick] [--json]

Every duel is solved exactly: A's value, win, draw and loss. ``--quick`` gives both
sheets 2 hit points (seconds); the full knockout takes about a minute a row.
"""

from __future__ import annotations

from report import reading_row, readings_main

import envs
from solver import solve_game

LIBRARY = ["strike3", "strike2_shield", "demoralize_strike2", "feint_strike2",
           "shield_demoralize_strike"]
#: (the library's name, its ruleset override)
LIBRARIES = (("library", {}),
             ("+ trigger plan", {"plans": {"order": [*LIBRARY,
                                                     "feint_strike_strike_reaction"]}}))


def measure(quick: bool) -> list[dict]:
    sheets = {"a": "fighter,hp=2", "b": "rogue,hp=2"} if quick else {"a": "fighter",
                                                                     "b": "rogue"}
    rows = []
    for victory in ("first_blood", "knockout"):
        for library, ruleset in LIBRARIES:
            for plans in ("committed", "per_turn"):
                game = envs.make("pathfinder", **sheets, victory=victory, plans=plans,
                                 ruleset=ruleset or None)
                solution = solve_game(game)
                rows.append(reading_row(f"{victory}, {library}", plans,
                                        {**sheets, "victory": victory}, solution))
    return rows


def main(argv: list[str] | None = None) -> None:
    readings_main(__doc__, measure, argv)


if __name__ == "__main__":
    main()
