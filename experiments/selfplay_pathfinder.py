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

from selfplay_target import add_training_arguments, run_to_target

import envs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="fighter")
    parser.add_argument("--b", default="rogue")
    parser.add_argument("--victory", default="first_blood")
    add_training_arguments(parser, eval_every=400)
    args = parser.parse_args()
    game = envs.make("pathfinder", a=args.a, b=args.b, victory=args.victory)
    run_to_target(game, f"pathfinder {args.a} vs {args.b}, victory={args.victory}",
                  {"sheets": [args.a, args.b], "victory": args.victory}, args)


if __name__ == "__main__":
    main()
