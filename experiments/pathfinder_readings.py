"""What each reading of the source text is worth on the reference duel (fighter A
against rogue B): the equilibrium value to A under today's default and under the other
reading, one key apart.

    python experiments/pathfinder_readings.py [--victory first_blood] [--hp 0] [--json]

``--hp`` gives both sheets that many hit points (0: the reference sheets' 20 and 17);
the default duel is to first blood (seconds a reading). The table goes in
``docs/systems/pathfinder.md``.
"""

from __future__ import annotations

import argparse
import json

import envs
from solver import solve_game

#: (the reading, its options, its ruleset overrides), the default first
READINGS = (
    ("the defaults", {}, {}),
    ("initiative_tie = b_first", {"initiative_tie": "b_first"}, {}),
    ("reaction_refresh = round", {"reaction_refresh": "round"}, {}),
    ("feint_lasting_turns = 1", {}, {"conditions": {"feint_lasting_turns": 1}}),
    ("+ feint_strike_strike_reaction", {}, {"plans": {"order": [
        "strike3", "strike2_shield", "demoralize_strike2", "feint_strike2",
        "shield_demoralize_strike", "feint_strike_strike_reaction"]}}),
)
#: Shield Block on the same duel with a shield on A's sheet: the library without and with
#: the block plans
SHIELD_ORDER = ["strike3", "strike2_shield", "demoralize_strike2", "feint_strike2",
                "shield_demoralize_strike"]
SHIELDED = (
    ("A with a shield", {}, {}),
    ("A with a shield, block plans", {}, {"plans": {"order": [
        *SHIELD_ORDER, "strike2_shield_block", "shield_demoralize_strike_block"]}}),
)


def run(victory: str, hp: int) -> list[dict]:
    sheets = {"a": "fighter", "b": "rogue"}
    if hp:
        sheets = {side: f"{name},hp={hp}" for side, name in sheets.items()}
    shielded = {**sheets, "a": sheets["a"].replace("fighter", "fighter,shield")}
    rows = []
    for duel, readings in ((sheets, READINGS), (shielded, SHIELDED)):
        for label, options, ruleset in readings:
            game = envs.make("pathfinder", **duel, victory=victory,
                             ruleset=ruleset or None, **options)
            rows.append({"reading": label, "value": solve_game(game).value})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--victory", default="first_blood", choices=("first_blood", "knockout"))
    parser.add_argument("--hp", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = run(args.victory, args.hp)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    base = rows[0]["value"]
    print(f"fighter (A) against rogue (B), {args.victory}"
          + (f", {args.hp} HP each" if args.hp else ""))
    for row in rows:
        print(f"  {row['reading']:<28} value to A {row['value']:+.4f}"
              f"  ({row['value'] - base:+.4f})")


if __name__ == "__main__":
    main()
