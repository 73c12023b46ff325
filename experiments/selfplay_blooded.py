"""Self-play on Houses of the Blooded: the existing trainer (``agents.selfplay.train``,
unchanged) on a Blooded duel, its exploitability measured exactly along the way.

    python experiments/selfplay_blooded.py [--minutes 10] [--max-beats 3]
                                           [--a prowess=2,sword=1] [--b prowess=1,sword=2]
                                           [--json]

Prints the learning curve (training seconds, steps, exact exploitability of the average
tables, NashConv / 2 with payoffs in [-1, 1]) and when it first fell below 0.02.
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
    parser.add_argument("--max-beats", type=int, default=3)
    parser.add_argument("--a", default="prowess=2,sword=1")
    parser.add_argument("--b", default="prowess=1,sword=2")
    parser.add_argument("--eval-every", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    game = envs.make("blooded", a=args.a, b=args.b, max_beats=args.max_beats)
    states = build_graph(game).size
    config = TrainConfig(seed=args.seed, iterations=None, minutes=args.minutes,
                         eval_every=args.eval_every, distill_steps=0)
    result = train(game, config, progress=False)
    reached = next((row for row in result.curve if row["exploitability"] < TARGET), None)
    report = {"sheets": [args.a, args.b], "max_beats": args.max_beats, "states": states,
              "curve": result.curve, "target": TARGET,
              "seconds_to_target": None if reached is None else reached["seconds"],
              "final_exploitability": result.curve[-1]["exploitability"]}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"blooded {args.a} vs {args.b}, max_beats={args.max_beats}: {states} states")
    print(f"{'seconds':>9}{'steps':>8}{'exploitability':>16}")
    for row in result.curve:
        print(f"{row['seconds']:>9.1f}{row['step']:>8}{row['exploitability']:>16.5f}")
    when = "never" if reached is None else f"after {reached['seconds']:.1f} s"
    print(f"below {TARGET}: {when}")


if __name__ == "__main__":
    main()
