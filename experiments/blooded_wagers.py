"""How the equilibrium strike bid and wagers of Houses of the Blooded depend on the two
pools, and the table a player wants at the table: the chance of making 10 with n dice
when w of them are set aside as wagers.

    python experiments/blooded_wagers.py [--max-beats 3] [--pools 4,6,8] [--json]

For every pair of base pools (Prowess + The Sword; no Style, no invoke, no maneuvers) the
duel is solved exactly; the table gives each side's expected strike bid at the start,
and the expected wagers of the opening risk (reached after the bid and the role choice,
weighted by how often each bid leads there), with the duel's value to A. A plot of both
goes to experiments/out/blooded_wagers.png.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

import envs
from agents.plots import integer_ticks, save
from envs.blooded import RISK, success_probability
from solver import solve_game

OUT = Path(__file__).resolve().parent / "out"


def making_ten(max_dice: int = 15) -> list[list[float]]:
    """P(making 10) with n dice and w wagers (rolling n - w): row n, column w."""
    return [[success_probability(n - w) for w in range(n + 1)] for n in range(1, max_dice + 1)]


def _sheet(base: int) -> str:
    prowess = min(5, base // 2 + base % 2)
    return f"prowess={prowess},sword={base - prowess},invokes=0"


def opening(base_a: int, base_b: int, max_beats: int) -> dict:
    game = envs.make("blooded", a=_sheet(base_a), b=_sheet(base_b), max_beats=max_beats)
    counts = np.array([float(n) if n.isdigit() else 0.0 for n in game.action_names])
    (_, root), = game.initial_outcomes()
    # solved from its one start: over the state graph, whose visits by state the wagers need
    # (the whole duel is solved over its counters, which keep no state graph)
    solution = solve_game(game, start=root)
    bid_a, bid_b = (mix @ counts for mix in solution.policy(root))
    table = solution.state_table()
    wagers, weight = np.zeros(2), 0.0
    for state, visits, mix_a, mix_b in zip(table.states, table.visits, table.mix_a,
                                           table.mix_b, strict=True):
        if state.phase == RISK and state.beat == 1 and visits > 0:
            wagers += visits * np.array([mix_a @ counts, mix_b @ counts])
            weight += visits
    wagers /= weight
    return {"pool_a": base_a, "pool_b": base_b, "bid_a": float(bid_a), "bid_b": float(bid_b),
            "wager_a": float(wagers[0]), "wager_b": float(wagers[1]), "value": solution.value}


def plot(rows: list[dict], pools: list[int], table: list[list[float]], out: Path = OUT) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for ax, key, title in ((axes[0], "bid_a", "A's expected strike bid"),
                           (axes[1], "wager_a", "A's expected opening wagers")):
        grid = np.array([[next(r[key] for r in rows if r["pool_a"] == a and r["pool_b"] == b)
                          for b in pools] for a in pools])
        image = ax.imshow(grid, origin="lower", cmap="viridis")
        ax.set_xticks(range(len(pools)), pools)
        ax.set_yticks(range(len(pools)), pools)
        ax.set_xlabel("B's pool (Prowess + The Sword)")
        ax.set_ylabel("A's pool")
        ax.set_title(title)
        fig.colorbar(image, ax=ax)
    for w in (0, 1, 2, 3, 4):
        ns = [n for n in range(1, 16) if n >= w]
        axes[2].plot(ns, [table[n - 1][w] for n in ns], marker="o", label=f"{w} wagers")
    axes[2].set_xlabel("dice in the pool")
    integer_ticks(axes[2].xaxis)
    axes[2].set_ylabel("P(total >= 10)")
    axes[2].set_title("Making 10 with wagers set aside")
    axes[2].legend()
    path = out / "blooded_wagers.png"
    fig.tight_layout()
    save(fig, path, dpi=120)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-beats", type=int, default=3)
    parser.add_argument("--pools", default="4,6,8",
                        help="base pools (Prowess + The Sword) to cross")
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the outputs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    pools = [int(p) for p in args.pools.split(",")]
    table = making_ten()
    rows = [opening(a, b, args.max_beats) for a in pools for b in pools]
    if args.json:
        print(json.dumps({"making_ten": table, "equilibrium": rows}, indent=2))
        return
    print("P(making 10) with n dice, w of them wagered (rows n, columns w):")
    print("  n " + "".join(f"{w:>7}" for w in range(16)))
    for n, row in enumerate(table, start=1):
        print(f"{n:>3} " + "".join(f"{p:>7.3f}" for p in row))
    print(f"\nEquilibrium of the opening beat ({args.max_beats}-beat mortal duel):")
    print(f"{'pool A':>7}{'pool B':>7}{'bid A':>8}{'bid B':>8}{'wager A':>9}{'wager B':>9}"
          f"{'value':>9}")
    for r in rows:
        print(f"{r['pool_a']:>7}{r['pool_b']:>7}{r['bid_a']:>8.2f}{r['bid_b']:>8.2f}"
              f"{r['wager_a']:>9.2f}{r['wager_b']:>9.2f}{r['value']:>+9.4f}")
    print(f"\nplot: {plot(rows, pools, table, args.out)}")


if __name__ == "__main__":
    main()
