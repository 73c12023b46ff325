"""``duel solve`` for games with hidden types (hidden levels): the exact equilibrium of
``solver.hidden.sequence``, each type's play by situation and its expected payoff, in words.

Kept apart from ``solve.py``'s public path; everything is said through the contract's
presentation (``describe``, ``situation``), so no system's words are spoken here."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

import envs
from solver.errors import InputError
from solver.game import other
from solver.hidden.sequence import (
    MAX_NODES,
    HiddenSolution,
    behaviour,
    best_response_mixes,
    estimate_size,
    policy_plan,
    realisation,
    solve_hidden,
)

from ..opponents import opponent_policy
from .common import (
    emit_json,
    equally_good,
    format_table,
    game_header,
    game_options,
    in_words,
    percent,
    play_text,
)

#: a situation is listed when the type reaches it at least this often (all with --detail)
SHOWN_REACH = 0.01
SHOWN_SITUATIONS = 12
#: mixes below this are rounding noise of the linear program
SHOWN_PLAY = 0.005


def run_hidden(args, game) -> int:
    """Solve ``game`` (hidden information) exactly and print or emit the report
    (``checks.solve`` has refused the flags that need public information)."""
    return _show(args, game, hidden_report(game, solve_exactly(args, game)), render_hidden)


def run_hidden_odds(args, game) -> int:
    """``duel odds`` with hidden information: the exact best response of ``--side``, by
    information set, to the fixed opponent, and each of its types' play."""
    return _show(args, game, hidden_odds_report(args, game), render_hidden_odds)


def _show(args, game, report: dict, render) -> int:
    if args.json:
        emit_json(report)
    else:
        print(render(game, report, args.detail))
    return 0


def hidden_odds_report(args, game) -> dict:
    """The document of ``run_hidden_odds``."""
    me, them = args.side, other(args.side)
    solution = solve_exactly(args, game)
    opponent = (solution.policy_for(them) if args.vs == "equilibrium"
                else opponent_policy(args.vs, game, them))
    tree = solution.tree
    fixed = policy_plan(game, tree, opponent, them)
    _, mixes = best_response_mixes(tree, me, fixed)
    response = _pair(game, solution, {me: realisation(tree.players[me], mixes), them: fixed},
                     {me: mixes, them: behaviour(tree.players[them], fixed)})
    steady = _pair(game, solution, {me: solution.plans[me], them: fixed},
                   {me: solution.mixes[me], them: behaviour(tree.players[them], fixed)})
    best, safe = _odds(response, me), _odds(steady, me)
    report = {"system": game.info.system, "options": game.info.options, "side": me,
              "vs": args.vs, "hidden": True,
              "best_response": best, "equilibrium_against_it": safe,
              "equally_good": equally_good(best, safe),
              "types": [_type_entry(game, response, me, kind)
                        for kind in response.type_values(me)]}
    return report


def solve_exactly(args, game) -> HiddenSolution:
    """``solve_hidden``; a duel too large is refused with the horizons that fit."""
    try:
        return solve_hidden(game)
    except InputError as error:
        raise InputError(f"{error}. {fitting_horizons(args, game)}") from None


def fitting_horizons(args, game) -> str:
    """In words, how long this duel may be for the exact solver: for each horizon option
    of the system (an integer option ``max_...``), the longest that fits, by the same
    estimate of the tree's size that refused it."""
    spec = envs.spec(game.info.system)
    base = game_options(args)
    said = []
    for option in spec.options:
        given = game.info.options.get(option.name)
        if option.kind != "int" or not option.name.startswith("max_") or not isinstance(
                given, int):
            continue
        fits = None
        for horizon in range(int(option.low or 1), given):
            size = estimate_size(envs.make(game.info.system, **{**base, option.name: horizon}))
            if size > MAX_NODES:
                break
            fits = (horizon, size)
        if fits is None:
            said.append(f"even -o {option.name}={int(option.low or 1)} is beyond it")
        else:
            said.append(f"with these sheets it fits up to -o {option.name}={fits[0]} (about "
                        f"{fits[1]:.2g} points)")
    return "; ".join(said).capitalize() if said else ""


def _pair(game, solution: HiddenSolution, plans: dict, mixes: dict) -> HiddenSolution:
    """A pair of strategies on the solved tree (its exploitability is not computed)."""
    value = float(plans["a"] @ (solution.tree.payoff_matrix() @ plans["b"]))
    return HiddenSolution(game, solution.tree, value, plans, mixes, float("nan"),
                          solution.perfect_recall)


def _odds(pair: HiddenSolution, me: str) -> dict:
    win, draw, loss = outcome_chances(pair)
    if me == "b":
        win, loss = loss, win
    return {"value": pair.value if me == "a" else -pair.value, "win": win, "draw": draw,
            "loss": loss}


def render_hidden_odds(game, report: dict, detail: bool = False) -> str:
    best, steady = report["best_response"], report["equilibrium_against_it"]
    rows = [[label, percent(r["win"]), percent(r["draw"]), percent(r["loss"]),
             f"{r['value']:+.4f}"]
            for label, r in (("your best response (by what you can see)", best),
                              ("your equilibrium play", steady))]
    lines = [game_header(game, report["side"]), "",
             f"Against {report['vs']}, with hidden information (you know your own type "
             "only):", format_table(["if you play", "win", "draw", "lose", "value"], rows)]
    for entry in report["types"]:
        lines += ["", f"{entry['type']} Prior {percent(entry['prior'])}, payoff "
                  f"{entry['payoff']:+.4f}; the best response by situation (how often you "
                  "meet it, then the play):"]
        lines += _play_lines(entry["plays"], detail)
    return "\n".join(lines)


def type_label(game, state, player: str) -> str:
    """What ``player`` alone knows of himself at ``state``: the lines of the table he sees
    that everyone sees the same way except his opponent."""
    own = game.describe(state, player).splitlines()
    full = set(game.describe(state).splitlines())
    foe = set(game.describe(state, other(player)).splitlines())
    lines = [line for line in own if line in full and line not in foe]
    return " ".join(lines) or f"{player.upper()}"


def hidden_report(game, solution: HiddenSolution) -> dict:
    win, draw, loss = outcome_chances(solution)
    types = [_type_entry(game, solution, player, kind)
             for player in ("a", "b") for kind in solution.type_values(player)]
    return {
        "system": game.info.system, "options": game.info.options, "hidden": True,
        "value": solution.value, "exploitability": solution.exploitability,
        "method": "sequence-form linear program (HiGHS), exact best response",
        "information_sets": {p: len(solution.tree.players[p].parent) for p in ("a", "b")},
        "points": len(solution.tree.node_state) + len(solution.tree.leaf_root),
        "points_limit": MAX_NODES,
        "win": win, "draw": draw, "loss": loss, "types": types,
    }


def outcome_chances(solution: HiddenSolution) -> tuple[float, float, float]:
    """A's chances of winning, drawing and losing under the equilibrium found."""
    tree = solution.tree
    reach = (np.asarray(tree.leaf_chance)
             * solution.plans["a"][np.asarray(tree.leaf_seq["a"], dtype=np.int64)]
             * solution.plans["b"][np.asarray(tree.leaf_seq["b"], dtype=np.int64)])
    payoff = np.asarray(tree.leaf_payoff)
    return (float(reach[payoff > 0].sum()), float(reach[payoff == 0].sum()),
            float(reach[payoff < 0].sum()))


def _type_entry(game, solution: HiddenSolution, player: str, kind) -> dict:
    return {"player": player, "type": type_label(game, kind.state, player),
            "observation": list(kind.observation), "prior": kind.prior,
            "payoff": kind.value, "plays": _plays(game, solution, player, kind)}


def _plays(game, solution: HiddenSolution, player: str, kind) -> list[dict]:
    """The type's equilibrium mix by situation in words, weighted by how often each
    history behind the same words is reached, most frequent first within each step."""
    tree = solution.tree
    roots = [tuple(int(x) for x in game.observe(state, player)) == kind.observation
             for _, state in tree.roots]
    reach = solution.node_reach()
    weights: dict = defaultdict(float)
    mixes: dict = defaultdict(lambda: np.zeros(len(game.info.action_names)))
    met: dict = {}      # a state of each situation, to say its actions in words
    for node, state in enumerate(tree.node_state):
        if not roots[tree.node_root[node]] or reach[node] <= 0:
            continue
        key = (tree.node_depth[node], game.situation(state, player))
        weights[key] += reach[node]
        mixes[key] += reach[node] * solution.mixes[player][tree.node_infoset[player][node]]
        met.setdefault(key, state)
    names = game.info.action_names
    words = envs.spec(game.info.system).action_words
    plays = []
    for key in sorted(weights, key=lambda k: (k[0], -weights[k])):
        mix = mixes[key] / weights[key]
        played = {names[k]: float(p) for k, p in enumerate(mix) if p > SHOWN_PLAY}
        plays.append({"situation": key[1], "reach": weights[key] / kind.prior,
                      "mix": played,
                      "words": {name: name if words is None else words(game, met[key], name)
                                for name in played}})
    return plays


def render_hidden(game, report: dict, detail: bool = False) -> str:
    lines = [game_header(game), "",
             "Hidden information: each side knows his own type only; the priors are public.",
             f"Solved exactly: the duel unrolls into {report['points']:,} decisions and "
             f"ends, within the {report['points_limit']:,} the exact solver takes.",
             f"Value of the duel to A: {report['value']:+.4f} (unique).",
             f"Played as the equilibrium found, A wins {percent(report['win'])}, draws "
             f"{percent(report['draw'])} and loses {percent(report['loss'])}.", ""]
    rows = [[entry["player"].upper(), entry["type"], percent(entry["prior"]),
             f"{entry['payoff']:+.4f}"] for entry in report["types"]]
    lines += ["Expected payoff of each type to its own side under the equilibrium found "
              "(these need not be unique: another equilibrium may share the value "
              "differently among the types; their prior-weighted sum is the value):",
              format_table(["side", "type", "prior", "payoff"], rows)]
    for entry in report["types"]:
        lines += ["", f"{entry['type']} Prior {percent(entry['prior'])}; the equilibrium "
                  "play by situation (how often this type meets it, then the mix):"]
        lines += _play_lines(entry["plays"], detail)
    if detail:
        sets = report["information_sets"]
        lines += ["", f"Solved by {report['method']}: {sets['a']} information sets of A, "
                  f"{sets['b']} of B; exploitability {report['exploitability']:.2g}."]
    return "\n".join(lines)


def _play_lines(plays: list[dict], detail: bool) -> list[str]:
    shown = [p for p in plays if detail or p["reach"] >= SHOWN_REACH]
    hidden = len(plays) - (len(shown) if detail else min(len(shown), SHOWN_SITUATIONS))
    if not detail:
        shown = shown[:SHOWN_SITUATIONS]
    lines = [f"  {percent(p['reach']):>7}  {p['situation']}: "
             f"{play_text(in_words(p['mix'], p['words']))}" for p in shown]
    if hidden:
        lines.append(f"  ... and {hidden} rarer situations (all with --detail)")
    return lines
