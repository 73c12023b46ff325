"""Self-play benchmark: our trainer against OpenSpiel's MCCFR on Castle Falkenstein, Uchronia,
Houses of the Blooded and Pathfinder 2e.

For each duel (default options; Falkenstein GD vs GD and AV vs GD; Uchronia's pistol
duel and melee with the default sheets; Blooded's example sheets at 6 beats;
Pathfinder's fighter against rogue to first blood) both learners get the same
training-time budget (``--minutes``, evaluation excluded) and are measured with OUR
exact exploitability (NashConv / 2, payoff in [-1, 1]) along the way:

- ours: ``agents.selfplay.train`` (external-sampling MCCFR on the states with
  baselines; see its docstring); the curve evaluates the average tables, and the
  distilled network is measured once at the end;
- OpenSpiel: its C++ outcome-sampling MCCFR (``pyspiel.OutcomeSamplingMCCFRSolver``)
  on the duel as ``envs.openspiel`` registers it (the turn-based transform: A chooses,
  then B without seeing A's card, then chance) with ``information=observation``: an
  information state is the player's current observation, the key our tables use,
  exact for these public duels. Its average policy is read state by state
  (``envs.openspiel.observation_tables``) into a table for our solver.

OpenSpiel's external-sampling MCCFR and CFR walk the history tree, where the
traverser's branching over thirty exchanges is astronomic; ``--es-probe`` times one
iteration of its external sampling in a subprocess to show it (0 skips the probe).

Run: ``python experiments/bench_selfplay.py [--minutes 10] [--json]``.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import report

import envs
from agents.curves import plot_curves
from agents.selfplay import TrainConfig, train
from solver import exploitability

TARGET = 0.02
#: name -> (title, system, options)
DUELS = {
    "GD-GD": ("Castle Falkenstein, GD vs GD", "falkenstein",
              {"a": {"fencing": "GD"}, "b": {"fencing": "GD"}}),
    "AV-GD": ("Castle Falkenstein, AV vs GD", "falkenstein",
              {"a": {"fencing": "AV"}, "b": {"fencing": "GD"}}),
    "uchronia-pistol": ("Uchronia, pistol duel", "uchronia", {"mode": "pistol"}),
    "uchronia-melee": ("Uchronia, melee", "uchronia", {"mode": "melee"}),
    # 6 beats, not the default 30: a step of the trainer expands every reachable state,
    # about a minute a step on the 109,912 states of 30 beats
    "blooded": ("Houses of the Blooded, prowess=3,sword=3 vs prowess=2,sword=4, 6 beats",
                "blooded", {"a": "prowess=3,sword=3", "b": "prowess=2,sword=4",
                            "max_beats": 6}),
    # first blood: at full hit points the knockout duel's exact exploitability (a best
    # response over millions of states) does not fit the budget
    "pathfinder-first-blood": ("Pathfinder 2e, fighter vs rogue, first blood", "pathfinder",
                               {"a": "fighter", "b": "rogue", "victory": "first_blood"}),
}
#: steps between our exact evaluations, where 50 would cost more than the training:
#: fighter against rogue to first blood trains about 30 steps a second
EVAL_EVERY = {"pathfinder-first-blood": 400}
REPORT_TIMES = (1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600)
OUT = Path(__file__).resolve().parent / "out"


def make_duel(name: str):
    _, system, options = DUELS[name]
    return envs.make(system, **options)


# -- OpenSpiel ------------------------------------------------------------------------

def load_spiel_game(name: str):
    """The duel as OpenSpiel's game (``envs.openspiel``, imported here so that
    ``--help`` needs no pyspiel), keyed on observations as our tables are."""
    import pyspiel

    import envs.openspiel as duel_openspiel
    _, system, options = DUELS[name]
    parameters = {**duel_openspiel.game_parameters(system, options),
                  "information": "observation"}
    return pyspiel.load_game(f"{duel_openspiel.PREFIX}{system}", parameters)


def run_openspiel(name: str, minutes: float, seed: int) -> list[dict]:
    """OpenSpiel's outcome-sampling MCCFR, evaluated exactly on a time schedule."""
    import pyspiel

    import envs.openspiel as duel_openspiel
    spiel_game = load_spiel_game(name)
    solver = pyspiel.OutcomeSamplingMCCFRSolver(spiel_game, 0.6, seed)
    budget, seconds, iterations, curve = 60.0 * minutes, 0.0, 0, []
    checkpoints = iter(sorted({*np.geomspace(0.5, budget, 40).tolist(), budget}))
    due = next(checkpoints)
    while seconds < budget:
        started = time.perf_counter()
        for _ in range(100):
            solver.run_iteration()
        iterations += 100
        seconds += time.perf_counter() - started
        if seconds >= due or seconds >= budget:
            tables = duel_openspiel.observation_tables(spiel_game, solver.average_policy())
            score = exploitability(spiel_game.duel, *tables)
            curve.append(curve_row(iterations, seconds, score))
            due = next((t for t in checkpoints if t > seconds), budget)
    return curve


def curve_row(step: int, seconds: float, score) -> dict:
    return {"step": step, "seconds": seconds, "exploitability": score.value,
            "gain_a": score.gain_a, "gain_b": score.gain_b, "value": score.pair_value}


def probe_external_sampling(name: str, timeout: float) -> dict:
    """Time OpenSpiel's external-sampling MCCFR's first iteration in a subprocess."""
    command = [sys.executable, __file__, "--probe-es", name]
    started = time.perf_counter()
    try:
        subprocess.run(command, timeout=timeout, check=True, capture_output=True)
    except subprocess.TimeoutExpired:
        return {"finished": False, "seconds": timeout}
    return {"finished": True, "seconds": time.perf_counter() - started}


def _probe(name: str) -> None:
    import pyspiel
    pyspiel.ExternalSamplingMCCFRSolver(load_spiel_game(name), 0).run_iteration()


# -- ours ---------------------------------------------------------------------------------

def run_ours(duel, name: str, minutes: float, seed: int, out: Path) -> dict:
    config = TrainConfig(seed=seed, iterations=None, minutes=minutes,
                         eval_every=EVAL_EVERY.get(name, 50),
                         curve_path=out / f"ours_{name}.csv")
    result = train(duel, config, progress=sys.stderr.isatty())
    return {"curve": result.curve, "steps": result.step,
            "table_exploitability": result.table_exploitability.value,
            "network_exploitability": result.exploitability.value,
            "distill_loss": list(result.distill_loss)}


# -- reporting ------------------------------------------------------------------------------

def time_to(curve: list[dict], target: float = TARGET) -> float | None:
    return next((row["seconds"] for row in curve if row["exploitability"] < target), None)


def at_time(curve: list[dict], seconds: float) -> float | None:
    """The last exploitability measured by ``seconds`` of training."""
    seen = [row["exploitability"] for row in curve if row["seconds"] <= seconds]
    return seen[-1] if seen else None


def ratio(ours: float | None, theirs: float | None, budget: float) -> str:
    if ours is None:
        return "n/a (ours did not reach the target)"
    if theirs is None:
        return f"> {budget / ours:.0f} (OpenSpiel did not reach it in {budget:.0f} s)"
    return f"{theirs / ours:.1f}"


def summarise(name: str, ours: dict, theirs: list[dict], budget: float) -> dict:
    ours_time, theirs_time = time_to(ours["curve"]), time_to(theirs)
    return {"duel": DUELS[name][0], "target": TARGET, "budget_seconds": budget,
            "ours": {**ours, "time_to_target": ours_time},
            "openspiel_os_mccfr": {"curve": theirs, "time_to_target": theirs_time,
                                   "iterations": theirs[-1]["step"] if theirs else 0},
            "time_ratio": ratio(ours_time, theirs_time, budget)}


def print_summary(summary: dict) -> None:
    budget = summary["budget_seconds"]
    ours, theirs = summary["ours"], summary["openspiel_os_mccfr"]
    print(f"\n== {summary['duel']} (default options) ==")
    print(f"{'training s':>10}  {'ours':>10}  {'OpenSpiel OS-MCCFR':>18}")
    for t in [t for t in REPORT_TIMES if t <= budget] + ([budget] if budget not in
                                                         REPORT_TIMES else []):
        mine, other = at_time(ours["curve"], t), at_time(theirs["curve"], t)
        print(f"{t:>10g}  {_fmt(mine):>10}  {_fmt(other):>18}")
    print(f"time to exploitability < {TARGET}: ours {_fmt_s(ours['time_to_target'])}, "
          f"OpenSpiel {_fmt_s(theirs['time_to_target'])}; ratio {summary['time_ratio']}")
    print(f"ours: {ours['steps']} steps, final table {_fmt(ours['table_exploitability'])}, "
          f"distilled network {_fmt(ours['network_exploitability'])}; "
          f"OpenSpiel: {theirs['iterations']} iterations")


def write_docs(summaries: list[dict]) -> None:
    rows = []
    for summary in summaries:
        ours, theirs = summary["ours"], summary["openspiel_os_mccfr"]
        budget = summary["budget_seconds"]
        rows.append({"duel": summary["duel"], "seconds": budget,
                     "ours": at_time(ours["curve"], budget),
                     "ours steps": ours["steps"],
                     "OpenSpiel OS-MCCFR": at_time(theirs["curve"], budget),
                     "OpenSpiel iterations": theirs["iterations"],
                     "ours to target s": ours["time_to_target"],
                     "OpenSpiel to target s": theirs["time_to_target"],
                     "ratio": summary["time_ratio"]})
    report.write_section("bench_selfplay", "Self-play against OpenSpiel's MCCFR", [
        (name, name) for name in rows[0]] if rows else [("duel", "duel")], rows,
        notes=f"Exploitability after the training budget, both measured by our exact "
              f"solver; to target: training seconds to exploitability below {TARGET}; "
              f"ratio: OpenSpiel's time to the target over ours.")


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if value >= 1e-3 else f"{value:.1e}"


def _fmt_s(value: float | None) -> str:
    return "not reached" if value is None else f"{value:.1f} s"


def write_outputs(name: str, summary: dict, out: Path) -> None:
    theirs = summary["openspiel_os_mccfr"]["curve"]
    with open(out / f"openspiel_{name}.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(theirs[0]) if theirs else ["step"])
        writer.writeheader()
        writer.writerows(theirs)
    plot_curves({"ours (ES-MCCFR on states)": summary["ours"]["curve"],
                 "OpenSpiel OS-MCCFR": theirs}, out / f"bench_{name}.png",
                title=summary["duel"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0,
                        help="training budget per learner and duel (default 10)")
    parser.add_argument("--duels", default=",".join(DUELS),
                        help=f"comma-separated, from {', '.join(DUELS)}")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--es-probe", type=float, default=60.0,
                        help="seconds to let one OpenSpiel ES-MCCFR iteration run (0: skip)")
    parser.add_argument("--out", type=Path, default=OUT,
                        help="directory for the CSV, PNG and JSON files")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--probe-es", help=argparse.SUPPRESS)
    report.add_flag(parser)
    args = parser.parse_args(argv)
    if args.probe_es:
        _probe(args.probe_es)
        return 0
    if args.minutes <= 0:
        parser.error(f"--minutes must be > 0, got {args.minutes}")
    names = [n.strip() for n in args.duels.split(",") if n.strip()]
    for name in names:
        if name not in DUELS:
            parser.error(f"unknown duel {name!r}; allowed: {', '.join(DUELS)}")
    args.out.mkdir(parents=True, exist_ok=True)
    results = {"target": TARGET, "minutes": args.minutes, "seed": args.seed, "duels": []}
    for name in names:
        duel = make_duel(name)
        ours = run_ours(duel, name, args.minutes, args.seed, args.out)
        theirs = run_openspiel(name, args.minutes, args.seed)
        summary = summarise(name, ours, theirs, 60.0 * args.minutes)
        write_outputs(name, summary, args.out)
        results["duels"].append(summary)
        if not args.json:
            print_summary(summary)
    if args.es_probe > 0:
        results["openspiel_es_mccfr_first_iteration"] = probe_external_sampling(
            names[0], args.es_probe)
        if not args.json:
            probe = results["openspiel_es_mccfr_first_iteration"]
            state = "finished" if probe["finished"] else "did not finish"
            print(f"\nOpenSpiel external-sampling MCCFR, {names[0]}: the first iteration "
                  f"{state} in {probe['seconds']:.0f} s")
    (args.out / "bench_selfplay.json").write_text(json.dumps(results, indent=1))
    if args.write_docs:
        write_docs(results["duels"])
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
