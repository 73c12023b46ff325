"""What choosing each turn's plan on one's own turn is worth (Pathfinder's option
``plans``; issue 28, docs/systems/pathfinder.md): fighter A against rogue B, to first
blood and to a knockout, under ``committed`` (today's default), ``per_turn``, and
``per_turn`` with each Strike-triggered reaction chosen at each Strike
(``reaction_choice = "each_strike"``), each with the library as it is and with the
trigger plan ``feint_strike_strike_reaction`` added.

    python experiments/pathfinder_plans.py [--quick] [--json] [--victory V] [--only T]
        [--hp N]

``--victory`` and ``--only`` (a timing: committed, per_turn, each_strike) are repeatable
and pick rows; ``--hp`` gives both sheets N hit points.

Every duel is solved exactly: A's value, win, draw and loss. ``--quick`` gives both
sheets 2 hit points and one round (seconds); the full knockout takes about a minute a row
(``each_strike``: more than 3 GB, so measured with ``--hp 8``).
"""

from __future__ import annotations

from report import reading_row, readings_main

import envs
from solver import solve_game

LIBRARY = ["strike3", "strike2_shield", "demoralize_strike2", "feint_strike2",
           "shield_demoralize_strike"]
#: (the timing's name, its options)
TIMINGS = (("committed", {}), ("per_turn", {"plans": "per_turn"}),
           ("each_strike", {"plans": "per_turn", "reaction_choice": "each_strike"}))
#: (the library's name, its ruleset override)
LIBRARIES = (("library", {}),
             ("+ trigger plan", {"plans": {"order": [*LIBRARY,
                                                     "feint_strike_strike_reaction"]}}))


def measure(quick: bool, victories=("first_blood", "knockout"),
            timings: tuple[str, ...] = (), hp: int = 0) -> list[dict]:
    """One row per (victory, library, timing); ``timings`` picks some (all if empty);
    ``hp`` (or 2 when ``quick``) replaces the sheets' hit points."""
    hp, rounds = (2, 1) if quick else (hp, 0)
    sheets = {side: f"{name},hp={hp}" if hp else name
              for side, name in (("a", "fighter"), ("b", "rogue"))}
    rows = []
    for victory in victories:
        for library, ruleset in LIBRARIES:
            for timing, options in TIMINGS:
                if timings and timing not in timings:
                    continue
                game = envs.make("pathfinder", **sheets, victory=victory, max_rounds=rounds,
                                 ruleset=ruleset or None, **options)
                solution = solve_game(game)
                rows.append(reading_row(f"{victory}, {library}", timing,
                                        {**sheets, "victory": victory}, solution))
    return rows


def main(argv: list[str] | None = None) -> None:
    import sys
    argv = list(sys.argv[1:] if argv is None else argv)
    victories, timings = _picked(argv, "--victory"), _picked(argv, "--only")
    hp = int((_picked(argv, "--hp") or ["0"])[-1])
    readings_main(__doc__, lambda quick: measure(
        quick, tuple(victories) or ("first_blood", "knockout"), tuple(timings), hp), argv)


def _picked(argv: list[str], flag: str) -> list[str]:
    """The values of a repeatable ``flag VALUE``, taken out of ``argv``."""
    values = []
    while flag in argv:
        at = argv.index(flag)
        values.append(argv[at + 1])
        del argv[at:at + 2]
    return values


if __name__ == "__main__":
    main()
