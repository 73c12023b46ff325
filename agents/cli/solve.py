"""``duel solve``: the exact odds and the least predictable safe play of a duel, at its
start or at any moment."""

from __future__ import annotations

import numpy as np

import envs
from solver import solve_game
from solver.errors import InputError
from solver.evaluate import visit_counts

from .common import (
    add_game_args,
    add_json,
    add_side,
    emit_json,
    format_table,
    game_header,
    make_game,
    percent,
)
from .hidden import run_hidden
from .odds import play_text
from .situations import parse_state


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "solve", help="exact odds and the least predictable safe play of a duel",
        description="Solve the whole duel exactly and print both sides' least predictable "
                    "safe play (the maximum-entropy equilibrium), the odds and how duels end.")
    add_game_args(parser)
    add_side(parser)
    parser.add_argument("--state", metavar="FIELD=VALUE,...",
                        help="ask about any moment (fields: `duel solve SYSTEM --json`'s "
                             "\"state\")")
    parser.add_argument("--by", metavar="FIELD",
                        help="also the least predictable safe play grouped by a state field "
                             "(e.g. band), weighted by how often each state is reached")
    parser.add_argument("--all-pairings", action="store_true",
                        help="win probability of A for every pair of levels")
    parser.add_argument("--detail", action="store_true",
                        help="also print the stage game, the value and technical terms")
    add_json(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    game = make_game(args)
    if not game.info.public_information:
        return run_hidden(args, game)
    if args.all_pairings:
        return _run_pairings(args, game)
    start = parse_state(game, args.state) if args.state else None
    solution = solve_game(game, start=start)
    report = solution_report(game, solution, start)
    if args.by:
        report["by"] = play_by_field(game, solution, args.by)
    if args.json:
        emit_json(report)
    else:
        print(render_report(game, report, args.side, args.detail))
    return 0


def solution_report(game, solution, start=None) -> dict:
    state = start if start is not None else _single_start(game)
    mix_a, mix_b = solution.policy(state)
    names = game.info.action_names
    return {
        "system": game.info.system,
        "options": game.info.options,
        "state": game.state_fields(state),
        "description": game.describe(state),
        "situation": {side: game.situation(state, side) for side in ("a", "b")},
        "actions": list(names),
        "stage_matrix": [[None if v != v else float(v) for v in row]
                         for row in solution.stage_matrix(state)],
        "mix_a": dict(zip(names, map(float, mix_a), strict=True)),
        "mix_b": dict(zip(names, map(float, mix_b), strict=True)),
        **solution.evaluation.as_dict(),
        "convergence": solution.convergence.as_dict(),
        **_action_parts(game, mix_a, mix_b),
    }


def _action_parts(game, mix_a, mix_b) -> dict:
    """Each part's chance under the equilibrium now, for systems whose actions have
    parts (Pathfinder's initiative skill, order and plan)."""
    split = envs.spec(game.info.system).action_parts
    if split is None:
        return {}
    parts: dict[str, dict[str, dict[str, float]]] = {}
    for side, mix in (("a", mix_a), ("b", mix_b)):
        for name, p in zip(game.info.action_names, mix, strict=True):
            for part, value in split(name).items():
                chances = parts.setdefault(part, {}).setdefault(side, {})
                chances[value] = chances.get(value, 0.0) + float(p)
    return {"action_parts": parts}


def _parts_text(parts: dict | None, me: str, them: str) -> list[str]:
    lines = []
    for part, sides in (parts or {}).items():
        shown = {who: play_text({v: p for v, p in sides.get(side, {}).items() if p > 1e-9})
                 for who, side in (("you", me), ("them", them)) if sides.get(side)}
        lines.append(f"  {part}: " + "; ".join(f"{who} {text}" for who, text in shown.items()))
    return lines


def _single_start(game):
    starts = game.initial_outcomes()
    if len(starts) != 1:
        raise InputError("this duel starts from a random draw; give --state to pick a moment")
    return starts[0][1]


def render_report(game, report: dict, me: str = "a", detail: bool = False) -> str:
    them = "b" if me == "a" else "a"
    win, loss = (report["win"], report["loss"]) if me == "a" else (report["loss"],
                                                                   report["win"])
    plays = {side: {a: p for a, p in report[f"mix_{side}"].items() if p > 1e-9}
             for side in ("a", "b")}
    endings = [[label, percent(p)] for label, p in report["endings"].items()]
    lines = [game_header(game, me), "", report["description"], "",
             f"Now ({report['situation'][me]}), the least predictable safe play:",
             f"  you:  {play_text(plays[me])}",
             f"  them: {play_text(plays[them])}",
             *_parts_text(report.get("action_parts"), me, them), "",
             f"Played that way by both, you win {percent(win)}, draw "
             f"{percent(report['draw'])} and lose {percent(loss)}; a duel lasts "
             f"{report['expected_length']:.1f} steps on average.", "",
             "How duels end:", format_table(["ending", "chance"], endings)]
    if "by" in report:
        lines += _render_by(report["by"])
    if detail:
        lines += ["", _detail(report)]
    return "\n".join(lines)


def play_by_field(game, solution, field: str) -> dict:
    """The equilibrium mixes averaged over the live states sharing each value of state
    field ``field``, weighted by their expected visits from the start solved."""
    graph = solution.graph
    fields = [game.state_fields(state) for state in graph.states]
    if field not in fields[0]:
        raise InputError(f"unknown state field {field!r} for --by; allowed: "
                         f"{', '.join(fields[0])}")
    visits = visit_counts(graph, solution.mix_a, solution.mix_b)
    values = np.array([f[field] for f in fields])
    names = game.info.action_names
    out = {"field": field, "rows": []}
    for value in sorted(set(values[~graph.terminal].tolist())):
        chosen = ~graph.terminal & (values == value)
        weight = visits[chosen].sum()
        if weight <= 1e-12:
            continue
        mixes = {key: dict(zip(names, map(float, visits[chosen] @ mix[chosen] / weight),
                               strict=True))
                 for key, mix in (("mix_a", solution.mix_a), ("mix_b", solution.mix_b))}
        out["rows"].append({"value": int(value), "visits": float(weight), **mixes})
    return out


def _render_by(by: dict) -> list[str]:
    rows = []
    for row in by["rows"]:
        for who, key in (("A", "mix_a"), ("B", "mix_b")):
            played = {n: p for n, p in row[key].items() if p > 1e-9}
            rows.append([str(row["value"]), f"{row['visits']:.3f}", who, play_text(played)])
    return ["", f"The least predictable safe play by {by['field']} (weighted by how often "
                "each state is reached):",
            format_table([by["field"], "visits", "player", "play"], rows)]


def _detail(report: dict) -> str:
    every = report["actions"]
    # actions never legal here (another mode's, a sequential step's) are left out
    legal = [k for k, name in enumerate(every)
             if any(v is not None for v in report["stage_matrix"][k])
             or any(row[k] is not None for row in report["stage_matrix"])]
    names = [every[k] for k in legal]
    rows = [[every[i]] + ["-" if (v := report["stage_matrix"][i][j]) is None
                          else f"{v:+.4f}" for j in legal] for i in legal]
    mixes = [[who] + [f"{report[key][n]:.4f}" for n in names]
             for who, key in (("A", "mix_a"), ("B", "mix_b"))]
    convergence = report["convergence"]
    solved = (f"value iteration, {convergence['sweeps']} sweeps, residual "
              f"{convergence['residual']:.2g}" if convergence["cyclic"]
              else "backward induction")
    return "\n".join([
        "Stage game: continuation value to A of every joint action now (rows A, columns B):",
        format_table(["A \\ B"] + names, rows), "",
        "Maximum-entropy equilibrium mixes:", format_table(["player"] + names, mixes), "",
        f"Value of the duel to A: {report['value']:+.6f} ({solved})"])


def _run_pairings(args, game) -> int:
    spec = envs.spec(game.info.system)
    if spec.pairing is None:
        raise InputError(f"{spec.name} has no ability to cross for --all-pairings")
    key = spec.pairing(game)
    levels = next(f for f in spec.sheet.fields if f.name == key).choices
    table = {}
    options = dict(game.info.options)
    for level_a in levels:
        for level_b in levels:
            sheets = {side: dict(options[side], **{key: level}) for side, level in
                      (("a", level_a), ("b", level_b))}
            table[(level_a, level_b)] = solve_game(
                envs.make(args.system, **{**options, **sheets})).evaluation
    if args.json:
        emit_json({"system": game.info.system, "ability": key, "levels": list(levels),
                   "options": game.info.options,
                   "pairings": [{"a": la, "b": lb, **ev.as_dict()}
                                for (la, lb), ev in table.items()]})
        return 0
    rows = [[la] + [percent(table[(la, lb)].win) for lb in levels] for la in levels]
    print(game_header(game))
    print(f"\nChance that A wins, by {key} of A (rows) and of B (columns), both playing the "
          "least predictable safe play:")
    print(format_table(["A \\ B"] + list(levels), rows))
    return 0
