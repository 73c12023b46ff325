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

from selfplay_target import add_training_arguments, run_to_target

import envs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-beats", type=int, default=3)
    parser.add_argument("--a", default="prowess=2,sword=1")
    parser.add_argument("--b", default="prowess=1,sword=2")
    add_training_arguments(parser, eval_every=200)
    args = parser.parse_args()
    game = envs.make("blooded", a=args.a, b=args.b, max_beats=args.max_beats)
    run_to_target(game, f"blooded {args.a} vs {args.b}, max_beats={args.max_beats}",
                  {"sheets": [args.a, args.b], "max_beats": args.max_beats}, args)


if __name__ == "__main__":
    main()
