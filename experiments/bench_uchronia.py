"""Speed of the exact solver on Uchronia (both modes) against the same backward
induction calling scipy's HiGHS (linprog) once per state, measured in one run.

    python experiments/bench_uchronia.py [--repeats 3] [--cases all|default|largest] [--json]

Cases: the default duel of each mode (no Atouts: duel pistols at twenty paces; bare
hands), and the largest pools the sheets allow (every shooting Atout with six-shot
revolvers; every melee Atout, bare-handed so grapples and the grappled winner's choice
occur). Both sides explore the state graph with the same code (``baseline.py``);
the table shows reachable states, stage games, seconds and states per second.
"""

from __future__ import annotations

import argparse
import json

import report
from bench_falkenstein import measure

import envs
from solver.markov.graph import build_graph

SHOOTER = "adresse,tireur,sang_froid,weapon=revolver"
BRAWLER = "athlete,adresse,colosse,pugiliste"


def cases(which: str, length: dict | None = None) -> list[tuple[str, object, bool]]:
    """(name, game factory, largest?); ``length`` (max_turns, max_rounds) overrides the
    ruleset's where given."""
    length = {key: value for key, value in (length or {}).items() if value is not None}
    out = [
        ("pistol, default sheets", lambda: [envs.make("uchronia", mode="pistol", **length)],
         False),
        ("melee, default sheets", lambda: [envs.make("uchronia", mode="melee", **length)],
         False),
        ("pistol, largest pools", lambda: [envs.make("uchronia", mode="pistol", a=SHOOTER,
                                                     b=SHOOTER, **length)], True),
        ("melee, largest pools", lambda: [envs.make("uchronia", mode="melee", a=BRAWLER,
                                                    b=BRAWLER, **length)], True),
    ]
    return [c for c in out if which == "all" or (which == "largest") == c[2]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3,
                        help="best of this many runs (the largest cases run once)")
    parser.add_argument("--cases", choices=("all", "default", "largest"), default="all",
                        help="the default sheets, the largest pools (minutes of linprog), "
                             "or both")
    parser.add_argument("--max-turns", type=int, default=None,
                        help="turns of a pistol duel (default: the ruleset's)")
    parser.add_argument("--max-rounds", type=int, default=None,
                        help="rounds of a melee (default: the ruleset's)")
    parser.add_argument("--json", action="store_true")
    report.add_flag(parser)
    args = parser.parse_args()
    rows = []
    length = {"max_turns": args.max_turns, "max_rounds": args.max_rounds}
    for name, make_games, largest in cases(args.cases, length):
        row = measure(name, make_games, 1 if largest else args.repeats)
        row["reachable_states"] = sum(build_graph(g).size for g in make_games())
        rows.append(row)
    if args.write_docs:
        write_docs(rows)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'case':<26}{'states':>8}{'stage games':>12}{'ours s':>9}{'linprog s':>11}"
          f"{'ours st/s':>11}{'linprog st/s':>14}{'speedup':>9}{'max |dv|':>10}")
    for r in rows:
        print(f"{r['case']:<26}{r['reachable_states']:>8}{r['stage_games']:>12}"
              f"{r['seconds_ours']:>9.2f}{r['seconds_linprog']:>11.2f}"
              f"{r['states_per_second_ours']:>11.0f}{r['states_per_second_linprog']:>14.0f}"
              f"{r['speedup']:>8.1f}x{r['max_value_gap']:>10.1e}")


def write_docs(rows: list[dict]) -> None:
    report.write_section("bench_uchronia", "Uchronia: both modes", [
        ("case", "case"), ("states", "reachable_states"), ("stage games", "stage_games"),
        ("ours s", "seconds_ours"), ("linprog s", "seconds_linprog"),
        ("ratio", lambda r: f"{r['speedup']:.1f}x"), ("max value gap", "max_value_gap")],
        rows, notes="ratio: the per-state linprog backward induction's time over ours.")


if __name__ == "__main__":
    main()
