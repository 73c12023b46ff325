"""Self-play on Pathfinder 2e: the existing trainer (``agents.selfplay.train``,
unchanged in its algorithm) on fighter against rogue, its exploitability measured
exactly along the way.

    python experiments/selfplay_pathfinder.py [--minutes 10] [--victory knockout]
                                              [--eval-every 4000] [--json]

Prints the learning curve (training seconds, steps, exact exploitability of the average
tables, NashConv / 2 with payoffs in [-1, 1]) and when it first fell below 0.02. The
knockout by default (15.5 million states: the trainer runs its compiled traversal,
``agents.counter_traversal``; an exact evaluation takes about 8 s, excluded from the
training time). ``bench_selfplay.py`` runs first blood beside OpenSpiel, whose average
policy cannot be read back state by state over the knockout's states.
"""

from __future__ import annotations

import argparse

from selfplay_target import add_training_arguments, run_to_target

import envs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="fighter")
    parser.add_argument("--b", default="rogue")
    parser.add_argument("--victory", default="knockout")
    add_training_arguments(parser, eval_every=4000)
    args = parser.parse_args()
    game = envs.make("pathfinder", a=args.a, b=args.b, victory=args.victory)
    run_to_target(game, f"pathfinder {args.a} vs {args.b}, victory={args.victory}",
                  {"sheets": [args.a, args.b], "victory": args.victory}, args)


if __name__ == "__main__":
    main()
