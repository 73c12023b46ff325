"""``duel odds``: what should I play against this opponent, and what are my odds?"""

from __future__ import annotations

import numpy as np

from solver import best_response, solve_game
from solver.errors import InputError
from solver.policy import MixPolicy

from .common import add_game_args, add_json, emit_json, format_table, make_game, percent
from .opponents import opponent_policy


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "odds", help="best response and exact odds against an opponent",
        description="You are --me (side A unless --side b), the opponent --them plays --vs.")
    add_game_args(parser)
    parser.add_argument("--vs", required=True, metavar="OPPONENT",
                        help="uniform | equilibrium | mix=AA:0.5,DR:0.5 | profile.json")
    parser.add_argument("--side", choices=("a", "b"), default="a",
                        help="the side you play (default a, i.e. --me / --a)")
    parser.add_argument("--limit", type=int, default=15,
                        help="situations to list in the table (all of them in --json)")
    add_json(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    if args.limit < 0:
        raise InputError(f"--limit must be 0 or more, got {args.limit}")
    game = make_game(args)
    me, them = args.side, ("b" if args.side == "a" else "a")
    opponent = opponent_policy(args.vs, game, them)
    response = best_response(game, opponent, me)
    equilibrium = solve_game(game)
    report = {
        "system": game.info.system, "options": game.info.options, "side": me, "vs": args.vs,
        "best_response": _from_my_side(response.evaluation.as_dict(), me),
        "equilibrium": _from_my_side(equilibrium.evaluation.as_dict(), me),
        "plan": _plan(game, response),
    }
    if isinstance(opponent, MixPolicy):
        report["mix_fallback"] = _fallback(response, opponent, them)
    if args.json:
        emit_json(report)
    else:
        print(_render(report, args.limit))
    return 0


def _from_my_side(evaluation: dict, me: str) -> dict:
    if me == "a":
        return evaluation
    return dict(evaluation, value=-evaluation["value"], win=evaluation["loss"],
                loss=evaluation["win"])


def _plan(game, response) -> list[dict]:
    """What to play in every situation the best response reaches, most likely first."""
    graph, visits = response.graph, response.visits
    plan = []
    for s in np.flatnonzero((~graph.terminal) & (visits > 1e-12)):
        mix = response.mixes[s]
        plan.append({
            "reach": float(visits[s]),
            "state": game.state_fields(graph.states[s]),
            "play": {game.info.action_names[i]: float(mix[i]) for i in np.flatnonzero(mix)},
            "value": float(np.nanmax(response.action_values[s])),
        })
    plan.sort(key=lambda row: -row["reach"])
    return plan


def _fallback(response, mix: MixPolicy, them: str) -> dict:
    """How often the mix had none of its actions legal (and played uniformly)."""
    graph, visits = response.graph, response.visits
    masks = graph.mask_b if them == "b" else graph.mask_a
    live = np.flatnonzero(~graph.terminal)
    uncovered = [s for s in live if not mix.covers(masks[s])]
    total = float(visits[live].sum())
    expected = float(visits[uncovered].sum()) if uncovered else 0.0
    return {"exchanges_per_duel": expected, "share_of_exchanges": expected / total if total else 0}


def _render(report: dict, limit: int) -> str:
    best, eq = report["best_response"], report["equilibrium"]
    rows = [[label, f"{r['value']:+.4f}", percent(r["win"]), percent(r["draw"]),
             percent(r["loss"]), f"{r['expected_length']:.2f}"]
            for label, r in (("best response", best), ("equilibrium", eq))]
    lines = [f"You play side {report['side'].upper()} against {report['vs']}.", "",
             format_table(["your play", "value", "win", "draw", "loss", "exchanges"], rows)]
    if "mix_fallback" in report:
        fb = report["mix_fallback"]
        lines.append(f"\nThe mix had no legal card in {fb['exchanges_per_duel']:.3f} exchanges "
                     f"per duel ({percent(fb['share_of_exchanges'])} of them) and played "
                     "uniformly there.")
    shown = _varying_fields([row["state"] for row in report["plan"]])
    plan_rows = [[_situation(row["state"], shown), percent(row["reach"]),
                  " or ".join(f"{a}" if p > 0.999 else f"{a} {p:.2f}"
                              for a, p in row["play"].items()),
                  f"{row['value']:+.3f}"] for row in report["plan"][:limit]]
    lines += ["", f"What to play, by situation (the {min(limit, len(report['plan']))} most "
              f"likely of {len(report['plan'])}):",
              format_table(["situation", "reached", "play", "your value"], plan_rows)]
    return "\n".join(lines)


def _varying_fields(states: list[dict]) -> list[str]:
    """The fields that tell the listed situations apart (the rest never change)."""
    if not states:
        return []
    return [key for key in states[0] if len({state[key] for state in states}) > 1]


def _situation(state: dict, fields: list[str]) -> str:
    return " ".join(f"{k}={state[k]}" for k in fields)
