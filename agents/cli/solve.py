"""``duel solve``: the exact odds and the least predictable safe play of a duel, at its
start or at any moment."""

from __future__ import annotations

import numpy as np

import envs
from solver import solve_game, solve_moment
from solver.hidden.sequence import solve_hidden

from . import checks
from .common import (
    emit_json,
    format_table,
    game_header,
    percent,
)
from .hidden import hidden_report, run_hidden
from .odds import play_text
from .situations import check_state_field, single_start


def run(args) -> int:
    if args.json:
        emit_json(document(args))
        return 0
    game, start = checks.solve(args)
    if not game.info.public_information:
        return run_hidden(args, game)
    if args.all_pairings:
        return _run_pairings(args, game)
    # the text shows a few next moments: only --json gives (and pays for) the rest in full
    report = _solved_report(args, game, start, NEXT_SHOWN)
    print(render_report(game, report, args.side, args.detail))
    return 0


def document(args) -> dict:
    """The one document ``duel solve --json`` prints, from the parsed arguments (the
    web's ``POST /api/solve`` answers with it too)."""
    game, start = checks.solve(args)
    if not game.info.public_information:
        return hidden_report(game, solve_hidden(game))
    if args.all_pairings:
        return _pairings_document(game, *_pairings(args, game))
    return _solved_report(args, game, start, NEXT_IN_JSON)


def _solved_report(args, game, start, full: int) -> dict:
    solution = solve_game(game) if start is None else solve_moment(game, start)
    report = solution_report(game, solution, start, full)
    if args.by:
        report["by"] = play_by_field(game, solution, args.by)
    return report


#: the next moments where both choose at once shown by ``duel solve`` (all in --json)
NEXT_SHOWN = 3
#: the next moments given in full in --json (the others are counted)
NEXT_IN_JSON = 100
#: steps followed from a moment to find the next ones where both choose at once
NEXT_STEPS = 20


def solution_report(game, solution, start=None, full: int = NEXT_IN_JSON) -> dict:
    """The solved duel from its start (or ``start``) as one document: the moment, its
    statistics and the next moments where both choose, the ``full`` likeliest in full."""
    state = start if start is not None else single_start(game)
    mix_a, mix_b = solution.policy(state)
    return {
        "system": game.info.system,
        "options": game.info.options,
        **_moment(game, solution, state),
        "description": game.describe(state),
        "actions": list(game.info.action_names),
        **solution.evaluation.as_dict(),
        "length_unit": game.info.length_unit,
        "convergence": solution.convergence.as_dict(),
        **_action_parts(game, mix_a, mix_b),
        **_next_report(game, solution, state, full),
    }


def _next_report(game, solution, state, full: int) -> dict:
    """The next moments in full, the ``full`` most likely; the others counted (a
    knockout duel has thousands: each in full would cost more than the solution)."""
    moments = next_moments(game, solution, state)
    others = moments[full:]
    return {"next": [{"chance": chance, **_moment(game, solution, later)}
                     for later, chance in moments[:full]],
            "next_others": {"moments": len(others),
                            "chance": float(sum(chance for _, chance in others))}}


def _moment(game, solution, state) -> dict:
    """One moment of the solved duel: its state, both situations, the stage game, both
    mixes and each action in words."""
    mix_a, mix_b = solution.policy(state)
    names = game.info.action_names
    words = envs.spec(game.info.system).action_words
    return {
        "state": game.state_fields(state),
        "situation": {side: game.situation(state, side) for side in ("a", "b")},
        "value_here": solution.value_at(state),
        "stage_matrix": [[None if v != v else float(v) for v in row]
                         for row in solution.stage_matrix(state)],
        "mix_a": dict(zip(names, map(float, mix_a), strict=True)),
        "mix_b": dict(zip(names, map(float, mix_b), strict=True)),
        "words": {name: name if words is None else words(game, state, name)
                  for name in names},
    }


def next_moments(game, solution, state) -> list[tuple[object, float]]:
    """The next states where both sides choose at once, with the chance of reaching
    each when both play the solution's mixes from ``state`` (sequential steps and
    chance followed through, up to NEXT_STEPS steps), most likely first.

    It walks the game through its protocol and asks the solution only for mixes, so it
    serves every kind of solution (a state graph's, or one over every counter value)."""
    weights, found = {state: 1.0}, {}
    for _ in range(NEXT_STEPS):
        following: dict = {}
        for here, weight in weights.items():
            mix_a, mix_b = solution.policy(here)
            for i, j in zip(*np.nonzero(np.outer(mix_a, mix_b) > 0), strict=True):
                p = weight * mix_a[i] * mix_b[j]
                for q, after in game.outcomes(here, int(i), int(j)):
                    following[after] = following.get(after, 0.0) + p * q
        weights = {}
        for after, weight in following.items():
            if game.is_terminal(after):
                continue
            if all(np.count_nonzero(game.legal_mask(after, side)) > 1 for side in ("a", "b")):
                found[after] = found.get(after, 0.0) + weight
            else:
                weights[after] = weight
        if not weights:
            break
    ranked = sorted(found.items(), key=lambda item: -item[1])
    return [(after, float(p)) for after, p in ranked]


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


def render_report(game, report: dict, me: str = "a", detail: bool = False) -> str:
    them = "b" if me == "a" else "a"
    win, loss = (report["win"], report["loss"]) if me == "a" else (report["loss"],
                                                                   report["win"])
    worth = report["value"] if me == "a" else -report["value"]
    endings = [[label, percent(p)] for label, p in report["endings"].items()]
    lines = [game_header(game, me), "", report["description"], "",
             f"Now ({report['situation'][me]}), the least predictable safe play:",
             *_plays_text(report, me, them),
             *_parts_text(report.get("action_parts"), me, them), "",
             f"Played that way by both, you win {percent(win)}, draw "
             f"{percent(report['draw'])} and lose {percent(loss)}; a duel lasts "
             f"{report['expected_length']:.1f} {report['length_unit']}s on average. The "
             f"duel is worth "
             f"{worth:+.3f} to you (+1 is a sure win, -1 a sure loss).",
             *_next_text(report, me, them), "",
             "How duels end:", format_table(["ending", "chance"], endings)]
    if "by" in report:
        lines += _render_by(report["by"])
    if detail:
        lines += ["", _detail(report, "now")]
        lines += ["\n" + _detail(moment, f"then, in {percent(moment['chance'])} of duels")
                  for moment in report["next"][:NEXT_SHOWN]]
        lines += ["", f"Value of the duel to A: {report['value']:+.6f} "
                      f"({_solved_by(report['convergence'])})"]
    return "\n".join(lines)


def _plays_text(moment: dict, me: str, them: str) -> list[str]:
    """Both mixes at a moment, each action in words."""
    words = moment["words"]
    plays = {side: {words[a]: p for a, p in moment[f"mix_{side}"].items() if p > 1e-9}
             for side in ("a", "b")}
    return [f"  you:  {play_text(plays[me])}", f"  them: {play_text(plays[them])}"]


def _next_text(report: dict, me: str, them: str) -> list[str]:
    """The next moments where both choose at once, the most likely first."""
    moments = report["next"]
    if not moments:
        return []
    lines = ["", "Then, where both choose at once again (the most likely moments under that "
                 "play):"]
    for moment in moments[:NEXT_SHOWN]:
        lines += [f"- in {percent(moment['chance'])} of duels, {moment['situation'][me]}:",
                  *_plays_text(moment, me, them)]
    rest, others = moments[NEXT_SHOWN:], report["next_others"]
    count = len(rest) + others["moments"]
    if count:
        chance = sum(m["chance"] for m in rest) + others["chance"]
        in_json = min(count, NEXT_IN_JSON - NEXT_SHOWN)
        listed = "in --json" if in_json == count else f"the {in_json} likeliest in --json"
        lines.append(f"  ({count} other moment{'s' if count > 1 else ''}, "
                     f"{percent(chance)} of duels, {listed})")
    return lines


def play_by_field(game, solution, field: str) -> dict:
    """The equilibrium mixes averaged over the live states sharing each value of state
    field ``field``, weighted by their expected visits from the start solved."""
    check_state_field(game, field, "--by")
    table = solution.state_table()
    values = np.array([game.state_fields(state)[field] for state in table.states])
    visits = table.visits
    names = game.info.action_names
    out = {"field": field, "rows": []}
    for value in sorted(set(values.tolist())):
        chosen = values == value
        weight = visits[chosen].sum()
        if weight <= 1e-12:
            continue
        mixes = {key: dict(zip(names, map(float, visits[chosen] @ mix[chosen] / weight),
                               strict=True))
                 for key, mix in (("mix_a", table.mix_a), ("mix_b", table.mix_b))}
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


def _detail(moment: dict, when: str) -> str:
    every = list(moment["mix_a"])
    words = moment["words"]
    matrix = moment["stage_matrix"]
    # actions never legal here (another mode's, a sequential step's) are left out
    legal = [k for k, name in enumerate(every)
             if any(v is not None for v in matrix[k]) or any(row[k] is not None
                                                            for row in matrix)]
    names = [every[k] for k in legal]
    rows = [[words[every[i]]] + ["-" if (v := matrix[i][j]) is None else f"{v:+.4f}"
                                 for j in legal] for i in legal]
    mixes = [[who] + [f"{moment[key][n]:.4f}" for n in names]
             for who, key in (("A", "mix_a"), ("B", "mix_b"))]
    return "\n".join([
        f"Stage game {when}: continuation value to A of every joint action (rows A, "
        f"columns B; value here {moment['value_here']:+.4f}):",
        format_table(["A \\ B"] + [words[n] for n in names], rows), "",
        "Maximum-entropy equilibrium mixes:",
        format_table(["player"] + [words[n] for n in names], mixes)])


def _solved_by(convergence: dict) -> str:
    return (f"value iteration, {convergence['sweeps']} sweeps, residual "
            f"{convergence['residual']:.2g}" if convergence["cyclic"] else "backward induction")


def _pairings(args, game) -> tuple[str, tuple, dict]:
    """A's odds for every pair of levels of the system's pairing ability."""
    spec = envs.spec(game.info.system)
    key = spec.pairing(game)  # checks.solve has made sure there is one
    levels = next(f for f in spec.sheet.fields if f.name == key).choices
    table = {}
    options = dict(game.info.options)
    for level_a in levels:
        for level_b in levels:
            sheets = {side: dict(options[side], **{key: level}) for side, level in
                      (("a", level_a), ("b", level_b))}
            table[(level_a, level_b)] = solve_game(
                envs.make(args.system, **{**options, **sheets})).evaluation
    return key, levels, table


def _pairings_document(game, key: str, levels, table: dict) -> dict:
    return {"system": game.info.system, "ability": key, "levels": list(levels),
            "options": game.info.options,
            "pairings": [{"a": la, "b": lb, **ev.as_dict()} for (la, lb), ev in table.items()]}


def _run_pairings(args, game) -> int:
    key, levels, table = _pairings(args, game)
    rows = [[la] + [percent(table[(la, lb)].win) for lb in levels] for la in levels]
    print(game_header(game))
    print(f"\nChance that A wins, by {key} of A (rows) and of B (columns), both playing the "
          "least predictable safe play:")
    print(format_table(["A \\ B"] + list(levels), rows))
    return 0
