"""How the equilibrium mix over the initiative skills (Deception, Intimidation,
Perception) moves as the modifiers and training of the two sheets change.

    python experiments/pathfinder_initiative.py [--victory first_blood] [--max-rounds 0]
                                                [--json]

Each row changes the fighter (A) or the rogue (B) of the reference duel and solves the
whole duel exactly; the mix is the maximum-entropy equilibrium at the opening,
summed over order preferences and plans. Prints a table and writes
``experiments/out/pathfinder_initiative.png`` (stacked bars, one pair per row).
The default is the duel to first blood (a few seconds a row); knockout duels of the
reference sheets are beyond the generic solver (see the README).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

import envs
from agents.plots import save
from envs.pathfinder.game import split_action
from envs.pathfinder.rules import SKILLS
from solver import solve_game

VARIANTS = (
    ("reference sheets", "fighter", "rogue"),
    ("A Deception +9", "fighter,deception=9:trained", "rogue"),
    ("A Intimidation +9", "fighter,intimidation=9:trained", "rogue"),
    ("A Perception +12", "fighter,perception=12:expert", "rogue"),
    ("A untrained Deception", "fighter,deception=3:untrained", "rogue"),
    ("A untrained Intimidation", "fighter,intimidation=3:untrained", "rogue"),
    ("A untrained Perception", "fighter,perception=6:untrained", "rogue"),
    ("B untrained Deception", "fighter", "rogue,deception=7:untrained"),
    ("B Perception +10", "fighter", "rogue,perception=10:expert"),
    ("no reactions at all", "fighter,deception=3:untrained,intimidation=3:untrained,"
     "perception=6:untrained", "rogue,deception=7:untrained,intimidation=3:untrained,"
     "perception=6:untrained"),
)


def skill_mix(game, mix: np.ndarray) -> np.ndarray:
    """The probability of each initiative skill in a mix over the round's actions."""
    out = np.zeros(len(SKILLS))
    for index, p in enumerate(mix[:game.wait]):
        out[split_action(index, game.n_plans)[0]] += p
    return out


def run(victory: str, max_rounds: int) -> list[dict]:
    rows = []
    for label, a, b in VARIANTS:
        game = envs.make("pathfinder", a=a, b=b, victory=victory, max_rounds=max_rounds)
        solved = solve_game(game)
        mix_a, mix_b = solved.policy(game.start())
        rows.append({"variant": label, "value": solved.value,
                     "a": dict(zip(SKILLS, skill_mix(game, mix_a).round(4).tolist(),
                                   strict=True)),
                     "b": dict(zip(SKILLS, skill_mix(game, mix_b).round(4).tolist(),
                                   strict=True))})
    return rows


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(10, 5))
    colours = ("tab:purple", "tab:red", "tab:green")
    y = np.arange(len(rows))
    for side, shift in (("a", -0.2), ("b", 0.2)):
        left = np.zeros(len(rows))
        for skill, colour in zip(SKILLS, colours, strict=True):
            share = np.array([r[side][skill] for r in rows])
            ax.barh(y + shift, share, 0.38, left=left, color=colour,
                    label=skill if side == "a" else None, alpha=1.0 if side == "a" else 0.6)
            left += share
    ax.set_yticks(y, [f"{r['variant']} (A top, B below)" for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel("equilibrium probability of the initiative skill at the opening")
    ax.legend(loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    save(fig, path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--victory", default="first_blood", choices=("knockout", "first_blood"))
    parser.add_argument("--max-rounds", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out",
                        help="folder for the plot")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = run(args.victory, args.max_rounds)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'variant':<28}{'value':>8}   A: {'dec':>5}{'int':>6}{'per':>6}"
          f"   B: {'dec':>5}{'int':>6}{'per':>6}")
    for r in rows:
        a, b = r["a"], r["b"]
        print(f"{r['variant']:<28}{r['value']:>8.4f}      {a['deception']:>5.2f}"
              f"{a['intimidation']:>6.2f}{a['perception']:>6.2f}      {b['deception']:>5.2f}"
              f"{b['intimidation']:>6.2f}{b['perception']:>6.2f}")
    out = args.out / "pathfinder_initiative.png"
    plot(rows, out)
    print(f"plot: {out}")


if __name__ == "__main__":
    main()
