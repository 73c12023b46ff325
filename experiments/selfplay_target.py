"""The run shared by the per-system self-play scripts: the existing trainer
(``agents.selfplay.train``, unchanged) on one duel, its exploitability measured exactly
along the way, printed as a curve with the time it first fell below TARGET."""

from __future__ import annotations

import argparse
import json

from agents.selfplay import TrainConfig, train
from solver.counters import explore
from solver.markov.graph import build_graph

TARGET = 0.02


def add_training_arguments(parser: argparse.ArgumentParser, eval_every: int) -> None:
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--eval-every", type=int, default=eval_every)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")


def state_count(game) -> int:
    """Reachable states: cores times counter values where the game declares counters
    (the state graph of Pathfinder's knockout would not fit)."""
    if game.info.has("counters"):
        graph, grid, _ = explore(game)
        return graph.size * grid.size
    return build_graph(game).size


def run_to_target(game, title: str, described: dict, args: argparse.Namespace) -> None:
    """Train on ``game`` for ``args.minutes`` and report the exact learning curve."""
    states = state_count(game)
    config = TrainConfig(seed=args.seed, iterations=None, minutes=args.minutes,
                         eval_every=args.eval_every, distill_steps=0)
    result = train(game, config, progress=False)
    reached = next((row for row in result.curve if row["exploitability"] < TARGET), None)
    report = {**described, "states": states, "curve": result.curve, "target": TARGET,
              "seconds_to_target": None if reached is None else reached["seconds"],
              "final_exploitability": result.curve[-1]["exploitability"]}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{title}: {states} states")
    print(f"{'seconds':>9}{'steps':>8}{'exploitability':>16}")
    for row in result.curve:
        print(f"{row['seconds']:>9.1f}{row['step']:>8}{row['exploitability']:>16.5f}")
    when = "never" if reached is None else f"after {reached['seconds']:.1f} s"
    print(f"below {TARGET}: {when}")
