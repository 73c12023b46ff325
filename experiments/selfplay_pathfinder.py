"""Self-play on Pathfinder 2e: the existing trainer (``agents.selfplay.train``,
unchanged) on fighter against rogue, its exploitability measured exactly along the way.

    python experiments/selfplay_pathfinder.py [--minutes 10] [--victory first_blood]
                                              [--eval-every 400] [--json]

Prints the learning curve (training seconds, steps, exact exploitability of the average
tables, NashConv / 2 with payoffs in [-1, 1]) and when it first fell below 0.02. First
blood by default: the knockout duel at full hit points has millions of states, beyond
the trainer's tables and the exact best response (see the README). ``bench_selfplay.py``
runs the same duel beside OpenSpiel, but evaluates every 50 steps, which on this duel
costs more than the training itself.
"""

from __future__ import annotations

import argparse
import json

import envs
from agents.selfplay import TrainConfig, train
from solver.graph import build_graph

TARGET = 0.02


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--a", default="fighter")
    parser.add_argument("--b", default="rogue")
    parser.add_argument("--victory", default="first_blood")
    parser.add_argument("--eval-every", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    game = envs.make("pathfinder", a=args.a, b=args.b, victory=args.victory)
    states = build_graph(game).size
    config = TrainConfig(seed=args.seed, iterations=None, minutes=args.minutes,
                         eval_every=args.eval_every, distill_steps=0)
    result = train(game, config, progress=False)
    reached = next((row for row in result.curve if row["exploitability"] < TARGET), None)
    report = {"sheets": [args.a, args.b], "victory": args.victory, "states": states,
              "curve": result.curve, "target": TARGET,
              "seconds_to_target": None if reached is None else reached["seconds"],
              "final_exploitability": result.curve[-1]["exploitability"]}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"pathfinder {args.a} vs {args.b}, victory={args.victory}: {states} states")
    print(f"{'seconds':>9}{'steps':>8}{'exploitability':>16}")
    for row in result.curve:
        print(f"{row['seconds']:>9.1f}{row['step']:>8}{row['exploitability']:>16.5f}")
    when = "never" if reached is None else f"after {reached['seconds']:.1f} s"
    print(f"below {TARGET}: {when}")


if __name__ == "__main__":
    main()
