"""Self-play learning curves for every implemented system, and the built-in NPC
personalities measured against each other.

1. Curves: ``agents.selfplay.train`` on each implemented system (its default options
   and sheets, or ``--a`` / ``--b``), exploitability measured exactly along the way;
   CSV and PNG per system in ``--out``.
2. Personalities (systems with a personality file): each built-in temperament at
   ``--strength`` s, computed exactly (``agents.personalities``), on side A and on
   side B. Its exploitability is what it gives away to a best responder: the value
   of the duel minus its value against that best responder (payoff units, for the
   side it plays). Then the win / draw / loss of A for every pairing, A's
   personality against B's, with the equilibrium as a reference.
   The strength curve: for each temperament on side A, its exploitability, the
   calibrated beta and its most characteristic action (the one it plays most above the
   equilibrium's frequency) at s = 0, 0.25, 0.5, 0.75, 1; strength is calibrated so
   the exploitability grows linearly from 0 to the temperament's own.
3. With ``--learn-minutes`` > 0, each personality is also learnt by the trainer (its
   magnet, weight s / (1 - s)) and compared with the exact one on the objective both
   aim at, the regularised value.

Run: ``python experiments/selfplay_curves.py [--minutes 2] [--strength 0.5] [--json]``;
``--strength-curve-only`` prints the strength curve alone (a minute or two per system).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

import envs
from agents.metrics import characteristic_action
from agents.personalities import personality
from agents.selfplay import TrainConfig, train
from agents.temperaments import personality_names, systems_with_personalities
from solver import best_response, evaluate, solve_game
from solver.gains import gain_over
from solver.markov.regularized import regularized_value, strength_to_beta

OUT = Path(__file__).resolve().parent / "out" / "selfplay_curves"
EQUILIBRIUM = "equilibrium"


def parse_sheet(text: str) -> dict[str, str]:
    pairs = [part.split("=", 1) for part in text.split(",") if part.strip()]
    if any(len(pair) != 2 for pair in pairs):
        raise SystemExit(f"bad sheet {text!r}; expected ABILITY=LEVEL,...")
    return {key.strip(): value.strip() for key, value in pairs}


def make(system: str, args):
    sheets = {side: parse_sheet(text) for side, text in (("a", args.a), ("b", args.b)) if text}
    return envs.make(system, **sheets, **dict(args.option))


def chosen(systems, args) -> list[str]:
    """The implemented ones among ``systems`` that ``--systems`` names (all by default)."""
    wanted = args.systems.split(",") if args.systems else None
    return [s for s in systems if envs.systems()[s].status == "implemented"
            and (wanted is None or s in wanted)]


def option(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


# -- 1. learning curves ----------------------------------------------------------------

def curves(args) -> list[dict]:
    rows = []
    for system in chosen(envs.systems(), args):
        game = make(system, args)
        config = TrainConfig(seed=args.seed, iterations=None, minutes=args.minutes,
                             eval_every=25, distill_steps=0,
                             curve_path=args.out / f"curve_{system}.csv")
        result = train(game, config, progress=sys.stderr.isatty())
        reached = next((r["seconds"] for r in result.curve if r["exploitability"] < 0.02), None)
        rows.append({"system": system, "steps": result.step, "seconds": result.seconds,
                     "exploitability": result.table_exploitability.value,
                     "seconds_to_0.02": reached, "csv": str(result.curve_csv),
                     "png": str(result.curve_png)})
    return rows


# -- 2. personalities -------------------------------------------------------------------

def personality_policies(game, strength: float) -> dict[str, dict]:
    solution = solve_game(game)
    found = {EQUILIBRIUM: {side: solution.policy_for(side) for side in ("a", "b")}}
    for name in personality_names(game.info.system):
        found[name] = {side: personality(game, name, strength, side).policy
                       for side in ("a", "b")}
    return found


def gives_away(game, policy, side: str, value: float) -> float:
    """What ``policy`` on ``side`` loses to a best responder, against the duel's value."""
    own_value = value if side == "a" else -value
    response = best_response(game, policy, "b" if side == "a" else "a").value
    return gain_over(response, -own_value, game.info.payoff_bounds)


def personality_table(game, strength: float) -> dict:
    policies = personality_policies(game, strength)
    value = solve_game(game).value
    exploitable = {name: {side: gives_away(game, pair[side], side, value)
                          for side in ("a", "b")} for name, pair in policies.items()}
    pairings = {}
    for name_a, pair_a in policies.items():
        for name_b, pair_b in policies.items():
            result = evaluate(game, pair_a["a"], pair_b["b"])
            pairings[f"{name_a} vs {name_b}"] = {
                "a": name_a, "b": name_b, "value": result.value, "win": result.win,
                "draw": result.draw, "loss": result.loss}
    return {"system": game.info.system, "strength": strength, "value": value,
            "exploitability": exploitable, "pairings": pairings}


CURVE_STRENGTHS = (0.0, 0.25, 0.5, 0.75, 1.0)


def strength_curve(game, side: str = "a") -> list[dict]:
    """Temperament x strength -> exploitability, calibrated beta, characteristic action."""
    rows = []
    for name in personality_names(game.info.system):
        for strength in CURVE_STRENGTHS:
            found = personality(game, name, strength, side)
            rows.append({"personality": name, "strength": strength, "beta": found.beta,
                         "exploitability": found.exploitability,
                         "characteristic": characteristic_action(game, found.policy, side)})
    return rows


def print_strength_curve(system: str, rows: list[dict]) -> None:
    print(f"\n== {system}: exploitability by strength (side A; calibrated: linear in s) ==")
    print(f"{'personality':>12}  " + "  ".join(f"{'s=' + format(s, 'g'):>22}"
                                               for s in CURVE_STRENGTHS))
    for name in dict.fromkeys(r["personality"] for r in rows):
        cells = []
        for r in (r for r in rows if r["personality"] == name):
            top = r["characteristic"]
            cells.append(f"{r['exploitability']:.3f} {top['action']} "
                         f"{top['frequency']:4.0%}/{top['equilibrium']:3.0%}")
        print(f"{name:>12}  " + "  ".join(f"{c:>22}" for c in cells))
    print("cell: exploitability, most characteristic action, its frequency / the "
          "equilibrium's")


# -- 3. personalities learnt by the trainer ---------------------------------------------

def learnt_personalities(game, strength: float, args) -> list[dict]:
    beta = strength_to_beta(strength)
    rows = []
    for name in personality_names(game.info.system):
        exact = personality(game, name, strength, "a")
        config = TrainConfig(seed=args.seed, iterations=None, minutes=args.learn_minutes,
                             eval_every=0, distill_steps=0, magnet_a=exact.prior,
                             regularization=beta)
        learnt = train(game, config, progress=sys.stderr.isatty()).policy_a
        rows.append({
            "personality": name, "beta": beta,
            "exact_regularized": regularized_value(game, "a", exact.policy, exact.prior, beta),
            "learnt_regularized": regularized_value(game, "a", learnt, exact.prior, beta),
            "exact_vs_best_response": regularized_value(game, "a", exact.policy, None, 0.0),
            "learnt_vs_best_response": regularized_value(game, "a", learnt, None, 0.0)})
    return rows


# -- output ------------------------------------------------------------------------------

def print_curves(rows: list[dict]) -> None:
    print("== Self-play learning curves (exploitability of the average tables) ==")
    for row in rows:
        reached = row["seconds_to_0.02"]
        reached = "not reached" if reached is None else f"{reached:.1f} s"
        print(f"{row['system']}: {row['steps']} steps in {row['seconds']:.0f} s, "
              f"exploitability {row['exploitability']:.5f}, below 0.02 after {reached}; "
              f"{row['png']}")


def print_personalities(table: dict) -> None:
    names = list(table["exploitability"])
    print(f"\n== {table['system']} personalities at strength {table['strength']:g} "
          f"(duel value {table['value']:+.4f} for A) ==")
    print("given away to a best responder (payoff units):")
    print(f"{'':>12}  {'as A':>8}  {'as B':>8}")
    for name in names:
        lost = table["exploitability"][name]
        print(f"{name:>12}  {lost['a']:8.4f}  {lost['b']:8.4f}")
    print("\nA wins / draws / loses, A's personality (rows) against B's (columns):")
    print(f"{'A / B':>12}  " + "  ".join(f"{n:>17}" for n in names))
    for name_a in names:
        cells = []
        for name_b in names:
            r = table["pairings"][f"{name_a} vs {name_b}"]
            cells.append(f"{r['win']:5.2f}/{r['draw']:4.2f}/{r['loss']:4.2f}")
        print(f"{name_a:>12}  " + "  ".join(f"{c:>17}" for c in cells))


def print_learnt(rows: list[dict]) -> None:
    print("\nlearnt by the trainer (side A) against exact: regularised value "
          "(higher is better), and value against a best responder")
    for r in rows:
        print(f"{r['personality']:>12}  regularised exact {r['exact_regularized']:+.4f} "
              f"learnt {r['learnt_regularized']:+.4f}   vs best responder exact "
              f"{r['exact_vs_best_response']:+.4f} learnt {r['learnt_vs_best_response']:+.4f}")


def write_tables(report: dict, out: Path) -> None:
    (out / "selfplay_curves.json").write_text(json.dumps(report, indent=1))
    for table in report["personalities"]:
        path = out / f"personalities_{table['system']}.csv"
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=["a", "b", "value", "win", "draw",
                                                        "loss"])
            writer.writeheader()
            writer.writerows(table["pairings"].values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=2.0,
                        help="training minutes per system for the curves (default 2)")
    parser.add_argument("--strength", type=float, default=0.5,
                        help="personality strength in [0, 1] (default 0.5)")
    parser.add_argument("--learn-minutes", type=float, default=0.0,
                        help="also learn each personality with the trainer for this long")
    parser.add_argument("--a", default="", help="sheet of A, e.g. fencing=GD")
    parser.add_argument("--b", default="", help="sheet of B")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--strength-curve-only", action="store_true",
                        help="print only the strength calibration curve of each system")
    parser.add_argument("--systems", default="",
                        help="comma-separated systems to run (default: every implemented one)")
    parser.add_argument("-o", "--option", type=option, action="append", default=[],
                        metavar="KEY=VALUE", help="an option of every duel, e.g. max_rounds=1")
    args = parser.parse_args(argv)
    if args.strength_curve_only:
        for system in chosen(systems_with_personalities(), args):
            print_strength_curve(system, strength_curve(make(system, args)))
        return 0
    if args.minutes <= 0 or args.learn_minutes < 0 or not 0 <= args.strength <= 1:
        parser.error("--minutes must be > 0, --learn-minutes >= 0, --strength in [0, 1]")
    args.out.mkdir(parents=True, exist_ok=True)
    report = {"curves": curves(args), "personalities": [], "learnt": {}}
    for system in chosen(systems_with_personalities(), args):
        game = make(system, args)
        report["personalities"].append(personality_table(game, args.strength))
        report.setdefault("strength_curves", {})[system] = strength_curve(game)
        if args.learn_minutes > 0:
            report["learnt"][system] = learnt_personalities(game, args.strength, args)
    write_tables(report, args.out)
    if args.json:
        print(json.dumps(report))
        return 0
    print_curves(report["curves"])
    for table in report["personalities"]:
        print_personalities(table)
    for system, rows in report.get("strength_curves", {}).items():
        print_strength_curve(system, rows)
    for rows in report["learnt"].values():
        print_learnt(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
