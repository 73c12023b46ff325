"""Castle Falkenstein: who wins every pairing of Fencing levels, and how to play.

    python experiments/falkenstein_pairings.py [--a GD --b GD] [--out experiments/out] [--json]

Prints the table of A's win probability (maximum-entropy equilibrium) for every pair
of levels, and plots the equilibrium mix of both duellists in every situation the
chosen duel reaches (PNG).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import envs  # noqa: E402
from agents.plots import save  # noqa: E402
from solver import solve_game  # noqa: E402
from solver.markov.evaluate import visit_counts  # noqa: E402


def pairings(options: dict) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    spec = envs.spec("falkenstein")
    ability = spec.pairing(envs.make("falkenstein", **options))  # the one the duel is fought with
    levels = spec.sheet.field_named(ability).choices
    win = np.zeros((len(levels), len(levels)))
    value = np.zeros_like(win)
    for i, a in enumerate(levels):
        for j, b in enumerate(levels):
            game = envs.make("falkenstein", **options, a={ability: a}, b={ability: b})
            solution = solve_game(game)
            win[i, j], value[i, j] = solution.win, solution.value
    return levels, win, value


def situations(game, solution, limit: int = 24):
    """The most likely situations of the duel with both mixes."""
    graph = solution.graph
    visits = visit_counts(graph, solution.mix_a, solution.mix_b)
    live = np.flatnonzero(~graph.terminal & (visits > 1e-9))
    live = live[np.argsort(-visits[live], kind="stable")][:limit]
    live = sorted(live, key=lambda s: tuple(game.state_fields(graph.states[s]).values()))
    labels = []
    for s in live:
        st = game.state_fields(graph.states[s])
        labels.append(f"r{st['round']}e{st['exchange']} owes {st['owed_a']}/{st['owed_b']} "
                      f"back {st['back_a']}/{st['back_b']}")
    return live, labels, visits


def plot_mixes(game, solution, path: Path) -> None:
    live, labels, visits = situations(game, solution)
    names = game.info.action_names
    colours = plt.get_cmap("tab10")(np.arange(len(names)))
    fig, axes = plt.subplots(2, 1, figsize=(max(8, 0.5 * len(live) + 3), 8), sharex=True)
    for ax, mixes, who in ((axes[0], solution.mix_a, "A"), (axes[1], solution.mix_b, "B")):
        bottom = np.zeros(len(live))
        for k, name in enumerate(names):
            share = mixes[live, k]
            ax.bar(range(len(live)), share, bottom=bottom, color=colours[k], label=name)
            bottom += share
        sheet = game.info.options[who.lower()]
        ax.set_ylabel(f"{who} ({sheet['fencing']}) mix")
        ax.set_ylim(0, 1)
    axes[0].legend(ncol=len(names), loc="upper center", bbox_to_anchor=(0.5, 1.25))
    axes[1].set_xticks(range(len(live)), labels, rotation=70, ha="right", fontsize=7)
    fig.suptitle(f"Equilibrium mixes by situation, value to A {solution.value:+.3f}", y=0.99)
    fig.tight_layout()
    save(fig, path, dpi=120)   # the legend above the axes and the suptitle kept whole
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="GD", help="Fencing of A in the plotted duel")
    parser.add_argument("--b", default="GD", help="Fencing of B in the plotted duel")
    parser.add_argument("--max-rounds", type=int, default=None)
    parser.add_argument("--out", default="experiments/out", help="folder for the PNG")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    options = {"max_rounds": args.max_rounds}
    levels, win, value = pairings(options)
    game = envs.make("falkenstein", a={"fencing": args.a}, b={"fencing": args.b}, **options)
    solution = solve_game(game)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    png = out / f"falkenstein_mixes_{args.a}_{args.b}.png"
    plot_mixes(game, solution, png)
    if args.json:
        print(json.dumps({"levels": levels, "win": win.tolist(), "value": value.tolist(),
                          "plot": str(png)}, indent=2))
        return
    print("P(A wins) by Fencing of A (rows) and B (columns):")
    print("      " + "".join(f"{b:>7}" for b in levels))
    for a, row in zip(levels, win, strict=True):
        print(f"{a:<6}" + "".join(f"{p:7.3f}" for p in row))
    print(f"\nEquilibrium mixes of {args.a} against {args.b}: {png}")


if __name__ == "__main__":
    main()
