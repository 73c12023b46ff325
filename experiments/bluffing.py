"""Bluffing with hidden sheets, in every system, solved exactly.

    python experiments/bluffing.py [--out experiments/out] [--json]
    python experiments/bluffing.py --system SYSTEM [--a SHEET | --a-prior PRIOR]
        [--b SHEET | --b-prior PRIOR] [-o KEY=VALUE ...] [--ruleset FILE] [--out DIR] [--json]

Without ``--system``: Castle Falkenstein's hidden Fencing levels (one round, several
priors), then one section per system with a small hidden duel of its own; with
``--system`` and the sheets, priors and options as ``duel`` takes them, that duel's
section alone. Each hidden duel is solved by the sequence-form linear program
(``solver.hidden.sequence``); the measures that depend on the strategies are read from
the equilibrium found (they need not be unique; the value is).

The Falkenstein hidden-level section measures:

- **sandbagging**: the expected number of Rests a level plays beyond what it still owes
  (per duel), and the chance it plays any;
- **hiding the obligation**: for a level that owes two Rests or more, the chance that it
  plays no Rest in the first exchange (Attacks and Defenses first);
- **belief**: the expected entropy (bits) of B's posterior over A's level at each
  exchange that is played;
- **value of information**: for each pair of levels, A's value with public levels minus
  A's expected payoff with hidden ones under the equilibrium found.

Each system's section measures, for every side whose sheet is hidden:

- **value of information**: each sheet's expected payoff hidden against its value in
  the public duel (the prior's mean over the foe's sheets);
- **bluffing**: how often a sheet's first move is one another sheet's equilibrium plays,
  and how often it is a move its public equilibrium would never play;
- **belief**: the foe's posterior entropy over the sheet, by step;
- **what a GM gains by hiding** the sheet: the hidden side's value less the
  prior-weighted mean of its public values (never negative).

Writes ``bluffing.md`` (the tables and a generated reading of each) and ``bluffing.png``
(belief by exchange, Falkenstein) in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import envs  # noqa: E402
from agents.cli.arguments import add_game_args  # noqa: E402
from agents.cli.common import game_options  # noqa: E402
from agents.plots import integer_ticks, reached, save  # noqa: E402
from solver import solve_game  # noqa: E402
from solver.game import other  # noqa: E402
from solver.hidden.sequence import solve_hidden  # noqa: E402

PRIORS = [("GD:0.5,GR:0.5", "GD:1"), ("AV:0.5,GD:0.5", "GD:1"),
          ("PR:0.1,AV:0.3,GD:0.3,GR:0.2,EXC:0.1", "GD:1"),
          ("AV:1,GD:1,GR:1", "AV:1,GD:1,GR:1")]


def hidden_game(prior_a: str, prior_b: str):
    return envs.make("falkenstein", hidden_levels=True, prior_a=prior_a, prior_b=prior_b,
                     max_rounds=1)


def level_of(game, state, side: str) -> str:
    return game.rules.ladder[game.state_fields(state)[f"level_{side}"]]


def rest_measures(game, solution, side: str = "a") -> dict[str, dict]:
    """Sandbagging and hiding by level of ``side``, from the equilibrium found."""
    tree, reach = solution.tree, solution.node_reach()
    rests = np.array([name.count("R") for name in game.info.action_names])
    stats: dict[str, dict] = {}
    priors = {}
    for probability, state in tree.roots:
        level = level_of(game, state, side)
        priors[level] = priors.get(level, 0.0) + probability
        stats.setdefault(level, {"extra": 0.0, "any_extra": 0.0, "no_rest_first": 0.0,
                                 "owes_first": game.state_fields(state)[f"owed_{side}"]})
    for node, state in enumerate(tree.node_state):
        if reach[node] <= 0:
            continue
        fields = game.state_fields(state)
        level = level_of(game, state, side)
        mix = solution.mixes[side][tree.node_infoset[side][node]]
        beyond = np.maximum(rests - fields[f"owed_{side}"], 0)
        entry = stats[level]
        entry["extra"] += reach[node] * float(mix @ beyond)
        entry["any_extra"] += reach[node] * float(mix @ (beyond > 0))
        if fields["round"] == 1 and fields["exchange"] == 1:
            entry["no_rest_first"] += reach[node] * float(mix @ (rests == 0))
    for level, entry in stats.items():
        for key in ("extra", "any_extra", "no_rest_first"):
            entry[key] /= priors[level]
        entry["prior"] = priors[level]
    return stats


def value_of_information(game, solution) -> list[dict]:
    """Per pair of levels: public value, hidden payoff (equilibrium found), difference."""
    rows = []
    hidden = solution.root_values().values()   # in the order of tree.roots
    for (probability, state), value in zip(solution.tree.roots, hidden, strict=True):
        level_a, level_b = level_of(game, state, "a"), level_of(game, state, "b")
        public = solve_game(envs.make("falkenstein", a={"fencing": level_a},
                                      b={"fencing": level_b}, max_rounds=1)).value
        rows.append({"a": level_a, "b": level_b, "probability": probability,
                     "public": public, "hidden": float(value),
                     "information": public - float(value)})
    return rows


def measure(prior_a: str, prior_b: str) -> dict:
    game = hidden_game(prior_a, prior_b)
    solution = solve_hidden(game)
    return {"prior_a": prior_a, "prior_b": prior_b, "value": solution.value,
            "exploitability": solution.exploitability,
            "levels_a": rest_measures(game, solution, "a"),
            "belief_about_a": solution.belief_entropy("a"),
            "information": value_of_information(game, solution)}


def markdown(results: list[dict]) -> str:
    lines = ["# Bluffing under hidden Fencing levels (one round, exact)", "",
             "Generated by `experiments/bluffing.py`. The value is unique; every other "
             "number is read from the equilibrium the linear program found and need not "
             "be unique.", ""]
    for r in results:
        lines += [f"## prior_a = {r['prior_a']}, prior_b = {r['prior_b']}", "",
                  f"Value to A: {r['value']:+.4f} (exploitability {r['exploitability']:.1e}).",
                  "", "| A's level | prior | owes | extra Rests | any extra | no Rest first |",
                  "|---|---|---|---|---|---|"]
        for level, m in r["levels_a"].items():
            lines.append(f"| {level} | {m['prior']:.2f} | {m['owes_first']} | "
                         f"{m['extra']:.3f} | {m['any_extra']:.3f} | "
                         f"{m['no_rest_first']:.3f} |")
        belief = ", ".join(f"exchange {k + 1}: {h:.3f} bits (played {p:.0%})"
                           for k, (p, h) in enumerate(r["belief_about_a"]))
        lines += ["", f"B's uncertainty about A's level: {belief}.", "",
                  "| A | B | chance | public value | hidden payoff | value of information |",
                  "|---|---|---|---|---|---|"]
        for row in r["information"]:
            lines.append(f"| {row['a']} | {row['b']} | {row['probability']:.3f} | "
                         f"{row['public']:+.4f} | {row['hidden']:+.4f} | "
                         f"{row['information']:+.4f} |")
        lines.append("")
    lines += ["## What the equilibrium says about the seed's advice", "", advice(results)]
    return "\n".join(lines) + "\n"


def advice(results: list[dict]) -> str:
    """The seed's advice (extra Rests make the foe underestimate you) read against the
    numbers: how much levels sandbag, how much they hide, what hiding is worth."""
    levels = [(r["prior_a"], level, m) for r in results for level, m in r["levels_a"].items()]
    prior, level, most = max(levels, key=lambda item: item[2]["extra"])
    hiding = max((m["no_rest_first"], lv, p) for p, lv, m in levels if m["owes_first"] >= 2)
    pair = min((row for r in results for row in r["information"]),
               key=lambda row: row["information"])
    doubt = max(r["belief_about_a"][-1][1] for r in results)
    sandbag = (f"Sandbagging is rare: the most any level plays beyond its obligation is "
               f"{most['extra']:.3f} extra Rests per duel ({level} under prior_a={prior})")
    if most["extra"] >= 0.05:
        sandbag = (f"Sandbagging is played: {level} under prior_a={prior} plays "
                   f"{most['extra']:.3f} extra Rests per duel")
    letter = ("so the equilibrium follows the seed's advice in its spirit (keep the "
              "obligation hidden) more than in its letter (extra Rests)"
              if most["extra"] < 0.05 <= hiding[0] else
              "so the equilibrium uses both forms of the bluff")
    return (f"{sandbag}. Hiding the obligation is common: a level owing two Rests or more "
            f"opens without a Rest with probability up to {hiding[0]:.2f} ({hiding[1]} "
            f"under prior_a={hiding[2]}); {letter}. Hidden levels are worth most to A as "
            f"{pair['a']} against {pair['b']}: {pair['public']:+.3f} with public levels, "
            f"{pair['hidden']:+.3f} hidden. By the last exchange B's remaining uncertainty "
            f"about A's level is at most {doubt:.2f} bits: the cards of one round give most "
            "levels away.")


def plot(results: list[dict], path: Path) -> None:
    fig, ax = plt.subplots(figsize=(6, 4))
    for r in results:
        ax.plot(*belief_points(r), marker="o", label=f"A ~ {r['prior_a']}, B ~ {r['prior_b']}")
    ax.set_xlabel("exchange")
    integer_ticks(ax.xaxis)
    ax.set_ylabel("B's posterior entropy over A's level (bits)")
    ax.legend(fontsize=6)
    fig.tight_layout()
    save(fig, path, dpi=120)
    plt.close(fig)


def belief_points(result: dict) -> tuple[list, list]:
    """(exchange, entropy) of the exchanges some duel reaches (``reached``)."""
    return reached((k + 1, entropy, played)
                   for k, (played, entropy) in enumerate(result["belief_about_a"]))


# -- every system: a section per hidden duel ------------------------------------------

#: per system: a small hidden duel (A's sheet hidden, B's public) that solves in seconds
SECTIONS = {
    "pathfinder": {"a_prior": "fighter,hp=6@0.5;fighter,hp=6,ac=14@0.5", "b": "rogue,hp=6",
                   "victory": "first_blood", "max_rounds": 1},
    "uchronia": {"a_prior": "adresse,tireur@0.5;adresse@0.5", "b": "sang-froid",
                 "max_turns": 3},
    "blooded": {"a_prior": "prowess=2,sword=1@0.5;prowess=1,sword=1@0.5",
                "b": "prowess=1,sword=2", "max_beats": 1},
    "falkenstein": {"a_prior": "fencing=GD@0.5;fencing=EXC@0.5", "b": "fencing=GR",
                    "max_rounds": 1},
}


def _prior(options: dict, side: str) -> list[tuple[str, float]]:
    """A side's sheets and weights as the hidden game recorded them (one, weight 1, for a
    public sheet)."""
    return [tuple(entry) for entry in options.get(f"{side}_prior") or []]


def public_values(system: str, game, options: dict) -> dict[tuple[int, int], float]:
    """A's value in the public duel of every pair of sheets (the public solver)."""
    rest = {k: v for k, v in options.items() if k not in ("a", "b", "a_prior", "b_prior")}
    return {key: solve_game(envs.make(system, a=game.sheets["a"][key[0]][0],
                                      b=game.sheets["b"][key[1]][0], **rest)).value
            for key in game.games}


def first_moves(game, solution, side: str) -> dict[int, np.ndarray]:
    """Each sheet of ``side``: its equilibrium mix at its first decision."""
    tree = solution.tree
    moves = {}
    for node, state in enumerate(tree.node_state):
        if tree.node_depth[node] != 0:
            continue
        kind = state.type_a if side == "a" else state.type_b
        moves.setdefault(kind, solution.mixes[side][tree.node_infoset[side][node]])
    return moves


def public_support(system: str, game, options: dict, side: str, kind: int) -> np.ndarray:
    """The moves the sheet's public equilibrium plays at the start, over every sheet of
    the foe (the public duels' maximum-entropy mixes, lifted to the hidden duel's actions)."""
    rest = {k: v for k, v in options.items() if k not in ("a", "b", "a_prior", "b_prior")}
    support = np.zeros(len(game.info.action_names), dtype=bool)
    for key in game.games:
        if key[side == "b"] != kind:
            continue
        public = envs.make(system, a=game.sheets["a"][key[0]][0],
                           b=game.sheets["b"][key[1]][0], **rest)
        solved = solve_game(public)
        for _, start in public.initial_outcomes():
            mix = solved.policy(start)[side == "b"]
            names = public.info.action_names
            for k, p in enumerate(mix):
                if p > 1e-9:
                    support[game.info.action_names.index(names[k])] = True
    return support


def section(system: str, options: dict) -> dict:
    """One hidden duel's measures (module docstring)."""
    game = envs.make(system, **options)
    solution = solve_hidden(game)
    public = public_values(system, game, options)
    sides = [side for side in ("a", "b") if game.hidden[side]]
    report = {"system": system, "options": dict(options),
              "value": solution.value, "exploitability": solution.exploitability,
              "sides": {}}
    for side in sides:
        sign = 1.0 if side == "a" else -1.0
        foe = other(side)
        weights_foe = [w for _, w in game.sheets[foe]]
        kinds = []
        moves = first_moves(game, solution, side)
        for kind_value in solution.type_values(side):
            kind = kind_value.observation[0]
            mean_public = math.fsum(
                w * sign * public[(kind, j) if side == "a" else (j, kind)]
                for j, w in enumerate(weights_foe))
            kinds.append({"sheet": game.sheets[side][kind][0], "prior": kind_value.prior,
                          "hidden": kind_value.value, "public": mean_public,
                          "information": kind_value.value - mean_public,
                          "kind": kind})
        for entry in kinds:
            mine = moves[entry["kind"]]
            entry["plays_like"] = {other_entry["sheet"]: float(np.minimum(
                mine, moves[other_entry["kind"]]).sum()) for other_entry in kinds
                if other_entry is not entry}
            support = public_support(system, game, options, side, entry["kind"])
            entry["off_public"] = float(mine[~support].sum())
        held = math.fsum(e["prior"] * e["hidden"] for e in kinds)
        unheld = math.fsum(e["prior"] * e["public"] for e in kinds)
        report["sides"][side] = {"sheets": kinds, "belief": solution.belief_entropy(side),
                                 "hiding_gain": held - unheld}
    return report


def section_markdown(report: dict) -> list[str]:
    system = report["system"]
    shown = ", ".join(f"{k}={v}" for k, v in report["options"].items())
    lines = [f"## {system}: {shown}", "",
             f"Value to A: {report['value']:+.4f} (exploitability "
             f"{report['exploitability']:.1e}).", ""]
    for side, data in report["sides"].items():
        who = side.upper()
        lines += [f"### {who}'s hidden sheet", "",
                  "| sheet | prior | public value | hidden payoff | value of information | "
                  "first move off his public play |", "|---|---|---|---|---|---|"]
        for e in data["sheets"]:
            lines.append(f"| {e['sheet']} | {e['prior']:.2f} | {e['public']:+.4f} | "
                         f"{e['hidden']:+.4f} | {e['information']:+.4f} | "
                         f"{e['off_public']:.3f} |")
        lines += ["", reading_information(who, data), "",
                  "| sheet | plays another sheet's first move (overlap of the mixes) |",
                  "|---|---|"]
        for e in data["sheets"]:
            like = ", ".join(f"{name}: {p:.3f}" for name, p in e["plays_like"].items())
            lines.append(f"| {e['sheet']} | {like} |")
        lines += ["", reading_bluff(who, data), "",
                  "| step | played | foe's entropy over the sheet (bits) |", "|---|---|---|"]
        for step, (played, entropy) in enumerate(data["belief"]):
            lines.append(f"| {step + 1} | {played:.3f} | {entropy:.3f} |")
        lines += ["", reading_belief(who, data), "",
                  f"What a GM gains by hiding {who}'s sheet: {data['hiding_gain']:+.4f} "
                  f"to {who} (his hidden value less the prior's mean of his public values; "
                  "information never hurts the side that holds it).", ""]
    return lines


def reading_information(who: str, data: dict) -> str:
    best = max(data["sheets"], key=lambda e: e["information"])
    worst = min(data["sheets"], key=lambda e: e["information"])
    if abs(best["information"]) < 1e-6 and abs(worst["information"]) < 1e-6:
        return (f"Hiding changes no sheet's payoff here: the foe's best play is the same "
                f"whatever {who}'s sheet, so nothing is gained by keeping it secret.")
    spread = ("between the sheets" if worst["information"] < -1e-9
              else "without costing any sheet")
    return (f"The sheet that gains most by hiding is {best['sheet']} "
            f"({best['information']:+.4f}); {worst['sheet']} gets "
            f"{worst['information']:+.4f}, so hiding moves value {spread}.")


def reading_bluff(who: str, data: dict) -> str:
    pairs = [(p, e["sheet"], name) for e in data["sheets"] for name, p in
             e["plays_like"].items()]
    if not pairs:
        return "One sheet only: nothing to bluff about."
    p, sheet, name = max(pairs)
    off = max(data["sheets"], key=lambda e: e["off_public"])
    pooled = "they pool (play alike)" if p > 0.99 else (
        "they separate" if p < 0.01 else "they partly pool")
    return (f"{sheet} opens as {name} would with probability {p:.3f}: {pooled}. "
            f"{off['sheet']} plays a first move its public equilibrium never plays with "
            f"probability {off['off_public']:.3f}"
            + (" (a bluff)." if off["off_public"] > 1e-6 else "."))


def reading_belief(who: str, data: dict) -> str:
    steps = [(k + 1, h) for k, (played, h) in enumerate(data["belief"]) if played > 0]
    if not steps:
        return "No step is played."
    first, last = steps[0], steps[-1]
    return (f"The foe's uncertainty about {who}'s sheet goes from {first[1]:.3f} bits at "
            f"step {first[0]} to {last[1]:.3f} bits at step {last[0]}"
            + (": play gives the sheet away." if last[1] < 0.5 * first[1] else
               ": the sheet stays mostly hidden."))


def systems_markdown(sections: list[dict]) -> str:
    lines = ["# Bluffing with hidden sheets, by system (exact)", "",
             "Generated by `experiments/bluffing.py`. The value is unique; the other numbers "
             "are read from the equilibrium the linear program found.", ""]
    for report in sections:
        lines += section_markdown(report)
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_game_args(parser)
    parser.set_defaults(side="a")
    parser.add_argument("--out", default="experiments/out")
    parser.add_argument("--json", action="store_true")
    if "--system" in sys.argv:  # the duel's own arguments: SYSTEM is positional there
        argv = [a for a in sys.argv[1:] if a != "--system"]
    else:
        argv = ["none", *sys.argv[1:]]
    args = parser.parse_args(argv)
    if args.system == "none":
        results = [measure(a, b) for a, b in PRIORS]
        sections = [section(system, options) for system, options in SECTIONS.items()]
    else:
        results, sections = [], [section(args.system, game_options(args, "a"))]
    text = (markdown(results) if results else "") + systems_markdown(sections)
    if args.json:
        print(json.dumps({"hidden_levels": results, "systems": sections}, indent=2,
                         default=float))
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bluffing.md").write_text(text, encoding="utf-8")
    if results:
        plot(results, out / "bluffing.png")
    print(text)


if __name__ == "__main__":
    main()
