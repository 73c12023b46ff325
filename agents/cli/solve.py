"""``duel solve``: the exact value and equilibrium of a duel, at its start or any moment."""

from __future__ import annotations

import envs
from solver import solve_game
from solver.errors import InputError

from .common import add_game_args, add_json, emit_json, format_table, make_game, percent
from .situations import parse_state


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "solve", help="exact value, equilibrium mixes and odds of a duel",
        description="Solve the whole duel exactly (backward induction, maximum-entropy "
                    "equilibrium) and print the opening exchange, the mixes and the odds.")
    add_game_args(parser)
    parser.add_argument("--state", metavar="FIELD=VALUE,...",
                        help="ask about any moment, e.g. round=2,exchange=1,owed_a=1")
    parser.add_argument("--all-pairings", action="store_true",
                        help="win probability of A for every pair of levels")
    add_json(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    game = make_game(args)
    if args.all_pairings:
        return _run_pairings(args, game)
    start = parse_state(game, args.state) if args.state else None
    solution = solve_game(game, start=start)
    report = solution_report(game, solution, start)
    if args.json:
        emit_json(report)
    else:
        print(render_report(game, report))
    return 0


def solution_report(game, solution, start=None) -> dict:
    state = start if start is not None else _single_start(game)
    mix_a, mix_b = solution.policy(state)
    names = game.info.action_names
    return {
        "system": game.info.system,
        "options": game.info.options,
        "state": game.state_fields(state),
        "situation": game.describe(state),
        "actions": list(names),
        "stage_matrix": [[None if v != v else float(v) for v in row]
                         for row in solution.stage_matrix(state)],
        "mix_a": dict(zip(names, map(float, mix_a), strict=True)),
        "mix_b": dict(zip(names, map(float, mix_b), strict=True)),
        **solution.evaluation.as_dict(),
    }


def _single_start(game):
    starts = game.initial_outcomes()
    if len(starts) != 1:
        raise InputError("this duel starts from a random draw; give --state to pick a moment")
    return starts[0][1]


def render_report(game, report: dict) -> str:
    names = report["actions"]
    header = ["A \\ B"] + names
    rows = [[a] + ["-" if v is None else f"{v:+.4f}" for v in row]
            for a, row in zip(names, report["stage_matrix"], strict=True)]
    mixes = [[who] + [f"{report[key][n]:.4f}" for n in names]
             for who, key in (("A", "mix_a"), ("B", "mix_b"))]
    endings = [[label, percent(p)] for label, p in report["endings"].items()]
    return "\n".join([
        report["situation"], "",
        "Continuation value (to A) of every pair of cards this exchange:",
        format_table(header, rows), "",
        "Equilibrium mixes (maximum entropy):",
        format_table(["player"] + names, mixes), "",
        f"Value of the duel to A: {report['value']:+.6f}",
        f"A wins {percent(report['win'])}, draws {percent(report['draw'])}, "
        f"loses {percent(report['loss'])}",
        f"Expected exchanges: {report['expected_length']:.3f}", "",
        "How the duel ends:",
        format_table(["ending", "probability"], endings),
    ])


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
    rows = [[la] + [f"{table[(la, lb)].win:.3f}" for lb in levels] for la in levels]
    print(f"Probability that A wins, by {key} of A (rows) and of B (columns), "
          "under the maximum-entropy equilibrium:")
    print(format_table(["A \\ B"] + list(levels), rows))
    return 0
