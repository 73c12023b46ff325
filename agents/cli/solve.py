"""``duel solve``: the exact odds and the least predictable safe play of a duel, at its
start or at any moment."""

from __future__ import annotations

import numpy as np

import envs
from solver import progress, solve_game, solve_moment, stage_equilibria, write_efg
from solver.cache import ambient, remembered

from . import checks
from .common import (
    SAME_WORTH,
    emit_json,
    format_table,
    game_header,
    in_words,
    percent,
    play_text,
)
from .hidden import hidden_report, run_hidden, solve_exactly
from .situations import check_state_field, moment_key, single_start


def run(args) -> int:
    if args.json:
        emit_json(document(args))
        return 0
    game, start = checks.solve(args)
    if args.export_efg:
        nodes = write_efg(game, args.export_efg, args.horizon)
        print(f"Wrote {args.export_efg} (a Gambit extensive form of {nodes} nodes, "
              f"{args.horizon} steps deep)")
        return 0
    if not game.info.public_information:
        return run_hidden(args, game)
    if args.all_pairings:
        return _run_pairings(args, game)
    if args.all_equilibria:
        return _run_equilibria(args, game, start)
    # the text shows a few next moments: only --json gives (and pays for) the rest in full
    report = _solved_report(args, game, start, NEXT_SHOWN)
    print(render_report(game, report, args.side, args.detail))
    return 0


def document(args) -> dict:
    """The one document ``duel solve --json`` prints, from the parsed arguments (the
    web's ``POST /api/solve`` answers with it too)."""
    game, start = checks.solve(args)
    if args.export_efg:
        return {"efg": str(args.export_efg), "horizon": args.horizon,
                "nodes": write_efg(game, args.export_efg, args.horizon)}
    if not game.info.public_information:
        return hidden_report(game, solve_exactly(args, game))
    if args.all_pairings:
        return _pairings_document(game, *_pairings(args, game))
    if args.all_equilibria:
        return _equilibria_report(game, start)
    return _solved_report(args, game, start, NEXT_IN_JSON)


#: the version of the solve report's contents: bump it when they change, so that
#: reports kept in the answer store by an older version are not read back
REPORT_FORMAT = 1


def _solved_report(args, game, start, full: int) -> dict:
    """The report of the duel solved from ``start``, remembered in the answer store:
    asked again, it is read back whole instead of reading the solution (hundreds of
    megabytes for a knockout) and walking its next moments again."""
    def compute() -> dict:
        solution = (solve_game(game, statistics=True) if start is None
                    else solve_moment(game, start))
        report = solution_report(game, solution, start, full)
        if args.by:
            report["by"] = play_by_field(game, solution, args.by)
        return report
    question = (f"solve report|format={REPORT_FORMAT}|state={moment_key(game, start)}"
                f"|next={full}|by={args.by or ''}")
    return remembered(game, question, compute, ambient())


def _run_equilibria(args, game, start) -> int:
    """``--all-equilibria``: the extreme equilibria of the exchange at the moment."""
    report = _equilibria_report(game, start)
    state = start if start is not None else single_start(game)
    lines = [game_header(game, args.side), "", game.describe(state), "",
             f"This exchange has {report['count']} extreme equilibri"
             f"{'um' if report['count'] == 1 else 'a'} (every equilibrium is a mix of "
             f"them; value to A {report['value']:+.4f}):"]
    used = []

    def said(play: dict) -> str:
        return play_text(in_words(play, report["words"]))
    for n, entry in enumerate(report["equilibria"], 1):
        lines.append(f"  {n}. A plays {said(entry['a'])}; B plays {said(entry['b'])}")
        if entry["weight_in_maximum_entropy"] > 0:
            used.append(f"{n} ({percent(entry['weight_in_maximum_entropy'])})")
    safe = report["maximum_entropy"]
    lines += ["", f"The least predictable safe play (A {said(safe['a'])}; B "
                  f"{said(safe['b'])}) mixes equilibria {', '.join(used)}."]
    print("\n".join(lines))
    return 0


def _equilibria_report(game, start) -> dict:
    state = start if start is not None else single_start(game)
    found = stage_equilibria(game, state)
    return {"system": game.info.system, "options": game.info.options,
            "state": game.state_fields(state), **found.as_dict(),
            "words": _words(game, state, (*found.rows, *found.columns))}


def _words(game, state, names) -> dict[str, str]:
    """Each action of ``names`` as the system says it at ``state`` (its name where the
    system has no words of its own)."""
    words = envs.spec(game.info.system).action_words
    return {name: name if words is None else words(game, state, name) for name in names}


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
    # a knockout's walk and its moments in full take seconds (level 10: tens): shown
    with progress.task("the next moments", NEXT_STEPS, "steps"):
        moments = next_moments(game, solution, state)
    others = moments[full:]
    shown = []
    with progress.task("the next moments in full", len(moments[:full]), "moments"):
        for later, chance in moments[:full]:
            shown.append({"chance": chance, **_moment(game, solution, later)})
            progress.advance(1)
    return {"next": shown,
            "next_others": {"moments": len(others),
                            "chance": float(sum(chance for _, chance in others))}}


def _moment(game, solution, state) -> dict:
    """One moment of the solved duel: its state, both situations, the stage game, both
    mixes and each action in words."""
    mix_a, mix_b = solution.policy(state)
    names = game.info.action_names
    matrix = solution.stage_matrix(state)
    return {
        "state": game.state_fields(state),
        "situation": {side: game.situation(state, side) for side in ("a", "b")},
        "value_here": solution.value_at(state),
        "stage_matrix": [[None if v != v else float(v) for v in row] for row in matrix],
        "mix_a": dict(zip(names, map(float, mix_a), strict=True)),
        "mix_b": dict(zip(names, map(float, mix_b), strict=True)),
        "words": _words(game, state, names),
        **_indifference(matrix, mix_a, mix_b),
    }


def _indifference(matrix, mix_a, mix_b) -> dict:
    """``indifferent``: a side none of whose choices changes the worth of the duel here,
    whatever the other plays; ``indifferent_to_play``: one whose choices are all worth
    the same against the other's safe play, which is not so for the other (where both
    are, as in matching pennies, each one's mix is what keeps the other so)."""
    values = np.array(matrix, dtype=float)
    strong = indifferent(values)
    against = {"a": _flat(np.nan_to_num(values) @ np.asarray(mix_b), _legal_rows(values)),
               "b": _flat(np.asarray(mix_a) @ np.nan_to_num(values), _legal_rows(values.T))}
    weak = {side: against[side] and not against["b" if side == "a" else "a"]
            for side in ("a", "b")}
    return {"indifferent": strong, "indifferent_to_play": weak}


def _legal_rows(values: np.ndarray) -> np.ndarray:
    return ~np.all(np.isnan(values), axis=1)


def _flat(worth: np.ndarray, legal: np.ndarray) -> bool:
    kept = worth[legal]
    return bool(kept.size and np.all(np.abs(kept - kept[0]) <= SAME_WORTH))


def indifferent(matrix) -> dict[str, bool]:
    """For each side, whether nothing it may choose at this moment changes the worth of
    the duel, whatever the other chooses (every row, or every column, of the stage game
    the same; illegal actions, NaN, left out)."""
    values = np.array(matrix, dtype=float)
    rows = values[~np.all(np.isnan(values), axis=1)]
    columns = values[:, ~np.all(np.isnan(values), axis=0)]

    def flat(lines: np.ndarray) -> bool:
        return bool(np.all(np.nan_to_num(np.abs(lines - lines[:1]), nan=0.0) <= SAME_WORTH))
    return {"a": flat(rows), "b": flat(columns.T)}


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
        progress.advance(1)
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
        played = {who: {v: p for v, p in sides.get(side, {}).items() if p > 1e-9}
                  for who, side in (("you", me), ("them", them))}
        # a part no one plays now (Pathfinder's plan at a decision, plans=per_turn)
        shown = {who: play_text(play) for who, play in played.items() if play}
        if not shown:
            continue
        lines.append(f"  {part}: " + "; ".join(f"{who} {text}" for who, text in shown.items()))
    return lines


def render_report(game, report: dict, me: str = "a", detail: bool = False) -> str:
    them = "b" if me == "a" else "a"
    win, loss = (report["win"], report["loss"]) if me == "a" else (report["loss"],
                                                                   report["win"])
    worth = report["value"] if me == "a" else -report["value"]
    endings = [[label, percent(p)] for label, p in report["endings"].items()]
    lines = [game_header(game, me), "", report["description"], "",
             *_now_text(report, me, them),
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


def _now_text(report: dict, me: str, them: str) -> list[str]:
    """The moment asked about and the play there; where nothing either side chooses
    changes the odds, that, not a mix that means nothing."""
    situation = report["situation"][me]
    if all(report.get("indifferent", {}).values()):
        worth = report["value_here"] if me == "a" else -report["value_here"]
        return [f"Now ({situation}): nothing either of you chooses here changes the odds; "
                f"{_any(report, me, 'every choice')} is worth {worth:+.3f} to you."]
    return [f"Now ({situation}), the least predictable safe play:",
            *_plays_text(report, me, them)]


#: a list of choices longer than this is counted, not listed
LISTED_CHOICES = 80


def _any(moment: dict, side: str, head: str = "any choice") -> str:
    """"any choice (AA, AD, RR)": ``side``'s legal choices here, in words, or their
    count when the list would be long."""
    shown = [moment["words"][name] for name, legal in _legal_names(moment, side).items()
             if legal]
    listed = ", ".join(shown)
    many = "any" if head == "any choice" else "each"
    return f"{head} ({listed})" if len(listed) <= LISTED_CHOICES else \
        f"{many} of the {len(shown)} choices"


def _legal_names(moment: dict, side: str) -> dict[str, bool]:
    """Each action of the list and whether ``side`` may play it here (its row, or
    column, of the stage game has a value)."""
    matrix = moment["stage_matrix"]
    lines = matrix if side == "a" else [list(column) for column in zip(*matrix, strict=True)]
    return {name: any(v is not None for v in line)
            for name, line in zip(moment["mix_a"], lines, strict=True)}


def _plays_text(moment: dict, me: str, them: str) -> list[str]:
    """Both mixes at a moment, each action in words; a side none of whose choices
    changes the worth of the duel there is told so, not given a uniform mix."""
    words = moment["words"]
    plays = {side: {words[a]: p for a, p in moment[f"mix_{side}"].items() if p > 1e-9}
             for side in ("a", "b")}
    same, weak = moment.get("indifferent", {}), moment.get("indifferent_to_play", {})
    if same.get(me) and same.get(them):
        return ["  nothing either of you chooses here changes the odds"]
    told = {side: f"{_any(moment, side)}: all are worth the same here" if same.get(side)
            else f"{_any(moment, side)}: none changes the odds against {whose} safe play"
            if weak.get(side) else play_text(plays[side])
            for side, whose in ((me, "his"), (them, "your"))}
    return [f"  you:  {told[me]}", f"  them: {told[them]}"]


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
