"""Benchmark: the exact hidden-level solver against OpenSpiel's CFR+ on the same game.

    python experiments/bench_hidden.py [--prior-a GD:0.5,GR:0.5] [--prior-b GD:1]
                                       [--target 1e-4] [--json]

One run, one machine, the same game (Castle Falkenstein, hidden levels, one round):
- ours: the sequence-form linear program (``solver.hidden.sequence``, HiGHS), and CFR+ on the
  unrolled tree (``solver.hidden.cfr``, numpy), each timed to an exploitability below
  ``--target`` (exploitability computed exactly by ``solver.hidden.sequence``);
- OpenSpiel: its C++ ``CFRPlusSolver`` on the same tree, given to OpenSpiel as a Gambit
  EFG file by a small adapter below (the simultaneous exchange in turn-based form: A
  chooses, then B in an information set that does not see A's cards), timed to the
  same target with ``pyspiel.exploitability`` (NashConv / 2, our definition too).
Reports the times, their ratios, the values and the exploitabilities reached.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time

import numpy as np
import report

import envs
from solver.hidden.cfr import CFRPlus
from solver.hidden.sequence import Sequences, build_tree, solve_hidden


def efg_text(game) -> str:
    """The unrolled game as a Gambit EFG: information sets numbered as ``solver.hidden.sequence``
    numbers them (observation histories), one outcome number per end."""
    sets = {"a": Sequences(), "b": Sequences()}
    names = game.info.action_names
    ends, chances = itertools.count(1), itertools.count(1)
    lines = ['EFG 2 R "hidden duel" { "A" "B" }', ""]

    def chance(outcomes, seq_a, seq_b):
        if len(outcomes) == 1:
            return walk(outcomes[0][1], seq_a, seq_b)
        total = sum(p for p, _ in outcomes)
        labels = " ".join(f'"o{k}" {p / total!r}' for k, (p, _) in enumerate(outcomes))
        lines.append(f'c "" {next(chances)} "" {{ {labels} }} 0')
        for _, after in outcomes:
            walk(after, seq_a, seq_b)

    def walk(state, seq_a, seq_b):
        if game.is_terminal(state):
            u = float(game.payoff(state))
            lines.append(f't "" {next(ends)} "" {{ {u!r} {-u!r} }}')
            return
        own = {}
        for player, parent in (("a", seq_a), ("b", seq_b)):
            mask = np.asarray(game.legal_mask(state, player), dtype=bool)
            observation = tuple(int(x) for x in game.observe(state, player))
            own[player] = (sets[player].infoset(parent, observation, mask), mask)
        (set_a, mask_a), (set_b, mask_b) = own["a"], own["b"]
        acts_a, acts_b = np.flatnonzero(mask_a), np.flatnonzero(mask_b)
        lines.append(f'p "" 1 {set_a + 1} "" {{ {" ".join(repr(names[i]) for i in acts_a)} }} 0'
                     .replace("'", '"'))
        for i in acts_a:
            lines.append(f'p "" 2 {set_b + 1} "" '
                         f'{{ {" ".join(repr(names[j]) for j in acts_b)} }} 0'.replace("'", '"'))
            for j in acts_b:
                chance(game.outcomes(state, int(i), int(j)), sets["a"].sequence(set_a, i),
                       sets["b"].sequence(set_b, j))

    chance(game.initial_outcomes(), 0, 0)
    return "\n".join(lines) + "\n"


def timed_ours(game, target: float, step: int) -> dict:
    start = time.perf_counter()
    solution = solve_hidden(game)
    lp_seconds = time.perf_counter() - start
    start = time.perf_counter()
    tree = build_tree(game)
    cfr = CFRPlus(tree)
    while True:
        cfr.run(step)
        gap = cfr.exploitability()
        if gap < target:
            break
    return {"lp_seconds": lp_seconds, "lp_value": solution.value,
            "lp_exploitability": solution.exploitability,
            "cfr_seconds": time.perf_counter() - start, "cfr_iterations": cfr.iterations,
            "cfr_exploitability": gap, "cfr_value": cfr.value()}


def timed_openspiel(text: str, target: float, step: int) -> dict:
    import pyspiel
    start = time.perf_counter()
    game = pyspiel.load_efg_game(text)
    load_seconds = time.perf_counter() - start
    solver = pyspiel.CFRPlusSolver(game)
    iterations = 0
    while True:
        for _ in range(step):
            solver.evaluate_and_update_policy()
        iterations += step
        gap = pyspiel.exploitability(game, solver.average_policy())
        if gap < target:
            break
    seconds = time.perf_counter() - start
    from open_spiel.python.algorithms.expected_game_score import policy_value
    average = solver.average_policy()
    value = policy_value(game.new_initial_state(), [_Wrapped(average)] * 2)[0]
    return {"seconds": seconds, "load_seconds": load_seconds, "iterations": iterations,
            "exploitability": gap,
            "value": float(value)}


class _Wrapped:
    """A C++ tabular policy as the Python ``policy_value`` reads it."""

    def __init__(self, policy):
        self.policy = policy

    def action_probabilities(self, state):
        return dict(self.policy.get_state_policy(state))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prior-a", default="GD:0.5,GR:0.5")
    parser.add_argument("--prior-b", default="GD:1")
    parser.add_argument("--target", type=float, default=1e-4)
    parser.add_argument("--step", type=int, default=50, help="iterations between checks")
    parser.add_argument("--json", action="store_true")
    report.add_flag(parser)
    args = parser.parse_args()
    game = envs.make("falkenstein", hidden_levels=True, prior_a=args.prior_a,
                     prior_b=args.prior_b, max_rounds=1)
    ours = timed_ours(game, args.target, args.step)
    text = efg_text(game)
    theirs = timed_openspiel(text, args.target, args.step)
    results = {"game": {"prior_a": args.prior_a, "prior_b": args.prior_b, "max_rounds": 1},
               "target": args.target, "ours": ours, "openspiel_cfr_plus": theirs,
               "ratio_openspiel_cfr_plus_to_our_lp": theirs["seconds"] / ours["lp_seconds"],
               "ratio_openspiel_cfr_plus_to_our_cfr_plus":
                   theirs["seconds"] / ours["cfr_seconds"]}
    if args.write_docs:
        write_docs(results)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"hidden duel, prior_a={args.prior_a}, prior_b={args.prior_b}, one round; target "
          f"exploitability {args.target:g}")
    print(f"  ours, sequence-form LP: {ours['lp_seconds']:.2f} s, value "
          f"{ours['lp_value']:+.6f}, exploitability {ours['lp_exploitability']:.1e}")
    print(f"  ours, CFR+:            {ours['cfr_seconds']:.2f} s, {ours['cfr_iterations']} "
          f"iterations, exploitability {ours['cfr_exploitability']:.1e}")
    print(f"  OpenSpiel CFR+ (C++):  {theirs['seconds']:.2f} s, {theirs['iterations']} "
          f"iterations (loading the EFG {theirs['load_seconds']:.2f} s of it), exploitability "
          f"{theirs['exploitability']:.1e}, value of its average {theirs['value']:+.6f}")
    print(f"  ratios: OpenSpiel CFR+ / our LP {results['ratio_openspiel_cfr_plus_to_our_lp']:.2f}"
          f", OpenSpiel CFR+ / our CFR+ "
          f"{results['ratio_openspiel_cfr_plus_to_our_cfr_plus']:.2f}")


def write_docs(results: dict) -> None:
    ours, theirs = results["ours"], results["openspiel_cfr_plus"]
    rows = [{"solver": "ours, sequence-form LP", "seconds": ours["lp_seconds"],
             "iterations": None, "exploitability": ours["lp_exploitability"],
             "OpenSpiel / this": results["ratio_openspiel_cfr_plus_to_our_lp"]},
            {"solver": "ours, CFR+", "seconds": ours["cfr_seconds"],
             "iterations": ours["cfr_iterations"], "exploitability": ours["cfr_exploitability"],
             "OpenSpiel / this": results["ratio_openspiel_cfr_plus_to_our_cfr_plus"]},
            {"solver": "OpenSpiel CFR+ (C++)", "seconds": theirs["seconds"],
             "iterations": theirs["iterations"], "exploitability": theirs["exploitability"],
             "OpenSpiel / this": 1.0}]
    game = results["game"]
    report.write_section("bench_hidden", "Hidden levels: one round, exact", [
        ("solver", "solver"), ("seconds", "seconds"), ("iterations", "iterations"),
        ("exploitability", "exploitability"), ("OpenSpiel / this", "OpenSpiel / this")], rows,
        notes=f"Falkenstein, prior_a={game['prior_a']}, prior_b={game['prior_b']}, one round; "
              f"each timed to exploitability {results['target']:g}, measured exactly.")


if __name__ == "__main__":
    main()
