"""Castle Falkenstein: what movement between exchanges (``movement=circle``) is worth.

    python experiments/falkenstein_movement.py [--max-rounds N] [--out experiments/out] [--json]

Solves a few reference duels with ``movement=none`` and ``movement=circle`` and writes a
small table (Markdown, and JSON with ``--json``): A's value, his win and draw chances, the
mean length in exchanges, the number of states and the time to solve. The duels that
start with A at the wall measure how much of the wall's grip circling takes away.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import envs
from solver import solve_game

#: (label, sheet A, sheet B, options, the starting moment or None for the start)
DUELS = (
    ("GD vs AV, wall", {"fencing": "GD"}, {"fencing": "AV"}, {}, None),
    ("GD vs AV, ledge", {"fencing": "GD"}, {"fencing": "AV"}, {"edge": "ledge"}, None),
    ("GR vs GD, surrender", {"fencing": "GR"}, {"fencing": "GD"},
     {"convention": "surrender"}, None),
    ("GD vs GD, A at the wall", {"fencing": "GD"}, {"fencing": "GD"}, {}, {"back_a": 0}),
    ("GD (Athletics GR) vs GD, A at the wall", {"fencing": "GD", "athletics": "GR"},
     {"fencing": "GD"}, {}, {"back_a": 0}),
    ("GD vs GD, A at the ledge", {"fencing": "GD"}, {"fencing": "GD"}, {"edge": "ledge"},
     {"back_a": 0}),
)
MOVEMENTS = ("none", "circle")


def measure(max_rounds: int) -> list[dict]:
    rows = []
    for label, sheet_a, sheet_b, options, moment in DUELS:
        for movement in MOVEMENTS:
            game = envs.make("falkenstein", a=sheet_a, b=sheet_b, movement=movement,
                             max_rounds=max_rounds, **options)
            start = None
            if moment is not None:
                # with movement the duel opens on its cards: the moment is a card step
                start = game.state_from(moment)
            began = time.perf_counter()
            solution = solve_game(game, start=start)
            seconds = time.perf_counter() - began
            rows.append({"duel": label, "movement": movement, "value": solution.value,
                         "win": solution.win, "draw": solution.draw,
                         "length": solution.expected_length,
                         "states": len(solution.graph.states), "seconds": seconds})
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| duel | movement | value | win | draw | exchanges | states | seconds |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['duel']} | {row['movement']} | {row['value']:+.3f} | "
                     f"{row['win']:.1%} | {row['draw']:.1%} | {row['length']:.1f} | "
                     f"{row['states']} | {row['seconds']:.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-rounds", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = measure(args.max_rounds)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "falkenstein_movement.md").write_text(table(rows) + "\n", encoding="utf-8")
    print(json.dumps(rows, indent=2) if args.json else table(rows))


if __name__ == "__main__":
    main()
