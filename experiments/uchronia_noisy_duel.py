"""Uchronia's pistol duel against the classic noisy duel of game theory.

    python experiments/uchronia_noisy_duel.py [--max-turns 20] [--json]

For every pair of shooters (0 to 3 of the shooting Atouts: Excellent Tireur, Adresse
Exceptionnelle, Sang-froid Exceptionnel), duel pistols (one shot each, as in the
classic duel), starting at grande (long range): the exact equilibrium of the whole
duel is solved, then played forward exactly to get the distribution of the band at
which each duellist fires his first shot. The classic noisy duel (one bullet each,
accuracy rising as the duellists close, each hears the other fire) says: both fire when
the sum of the two hit probabilities first reaches one. Here the hit probability of a
band is that of an unaimed, unhurt shot (an Épreuve of the shooter's pool at that band).
Two settings: the rules as they stand (a duel pistol reloads in one turn) and one
bullet each (ruleset ``pistol.reload_per_turn = 0``), the classic duel's setting.
Prints the tables and an explanation, and writes one plot per setting under
experiments/out/.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

import envs
from agents.plots import save
from envs.uchronia import FIRE, FIRE_MOVING, at_least
from solver import solve_game

SHOOTERS = {"0": "", "1": "tireur", "2": "tireur,adresse", "3": "tireur,adresse,sang_froid"}
OUT = Path(__file__).parent / "out"


def hit_chance(game, side: str, band: int, aimed: bool = False) -> float:
    """P(an unhurt shot at ``band`` hits): 0 when out of range."""
    if game.range_dice(side, band) is None:
        return 0.0
    return float(at_least(game.shot_dice(side, band, 0, aimed, False), game.threshold))


def classic_band(game, aimed: bool = False) -> int:
    """The first band, closing from the start, where p_A + p_B reaches 1 (the classic
    noisy duel's firing moment); -1 if it never does."""
    for band in range(game.start_band, -1, -1):
        if hit_chance(game, "a", band, aimed) + hit_chance(game, "b", band, aimed) >= 1:
            return band
    return -1


def first_shots(game, solution) -> dict[str, np.ndarray]:
    """P(each side's first shot is at band b), playing the equilibrium forward exactly
    (states carry whether each side has already fired)."""
    bands = len(game.bands)
    shots = {"a": np.zeros(bands), "b": np.zeros(bands)}
    layer = {(s, False, False): p for p, s in game.initial_outcomes()}
    while layer:
        nxt: dict = {}
        for (state, fired_a, fired_b), p in layer.items():
            if game.is_terminal(state):
                continue
            mix_a, mix_b = solution.policy(state)
            for i in np.flatnonzero(mix_a > 1e-12):
                for j in np.flatnonzero(mix_b > 1e-12):
                    q = p * mix_a[i] * mix_b[j]
                    shoots_a, shoots_b = i in (FIRE, FIRE_MOVING), j in (FIRE, FIRE_MOVING)
                    if shoots_a and not fired_a:
                        shots["a"][state.band] += q
                    if shoots_b and not fired_b:
                        shots["b"][state.band] += q
                    for r, after in game.outcomes(state, int(i), int(j)):
                        key = (after, fired_a or shoots_a, fired_b or shoots_b)
                        nxt[key] = nxt.get(key, 0.0) + q * r
        layer = nxt
    return shots


#: the two settings compared: the rules as they stand, and one bullet each
RULES = {"reload": None, "one bullet": {"pistol": {"reload_per_turn": 0}}}


def study(max_turns: int, ruleset: dict | None) -> list[dict]:
    rows = []
    for name_a, sheet_a in SHOOTERS.items():
        for name_b, sheet_b in SHOOTERS.items():
            game = envs.make("uchronia", mode="pistol", a=sheet_a, b=sheet_b,
                             start_band="grande", max_turns=max_turns, ruleset=ruleset)
            solution = solve_game(game)
            shots = first_shots(game, solution)
            row = {"a": name_a, "b": name_b, "value": solution.value,
                   "classic_band": classic_band(game),
                   "classic_aimed_band": classic_band(game, aimed=True),
                   "hit_a": [hit_chance(game, "a", b) for b in range(4)],
                   "hit_b": [hit_chance(game, "b", b) for b in range(4)]}
            for side in "ab":
                fired = shots[side].sum()
                row[f"fires_{side}"] = float(fired)
                row[f"by_band_{side}"] = shots[side].tolist()
                row[f"mean_band_{side}"] = float(shots[side] @ np.arange(4) / fired) \
                    if fired > 0 else float("nan")
                row[f"likeliest_band_{side}"] = int(np.argmax(shots[side]))
            rows.append(row)
    return rows


BAND_SHORT = ("TF", "F", "M", "G")


def table(rows: list[dict]) -> str:
    lines = [f"{'A':>2} {'B':>2} {'classic':>8} {'aimed':>6} "
             f"{'A: first shot by band G/M/F/TF':>32} "
             f"{'mean':>5} {'B: first shot by band G/M/F/TF':>32} {'mean':>5} {'value':>7}"]
    for r in rows:
        def dist(side, r=r):
            return " ".join(f"{r[f'by_band_{side}'][b]:.2f}" for b in (3, 2, 1, 0))
        classic = BAND_SHORT[r["classic_band"]] if r["classic_band"] >= 0 else "never"
        aimed = BAND_SHORT[r["classic_aimed_band"]] if r["classic_aimed_band"] >= 0 \
            else "never"
        lines.append(f"{r['a']:>2} {r['b']:>2} {classic:>8} {aimed:>6} {dist('a'):>32} "
                     f"{r['mean_band_a']:>5.2f} {dist('b'):>32} {r['mean_band_b']:>5.2f} "
                     f"{r['value']:>+7.3f}")
    return "\n".join(lines) + "\n" + agreement(rows)


def agreement(rows: list[dict]) -> str:
    """How often each duellist's likeliest first-shot band is the classic prediction,
    with unaimed and with aimed hit chances."""
    total = 2 * len(rows)
    counts = {key: sum(r[f"likeliest_band_{side}"] == r[key] for r in rows for side in "ab")
              for key in ("classic_band", "classic_aimed_band")}
    return (f"likeliest first-shot band = classic band: {counts['classic_band']} of {total} "
            f"duellists with unaimed chances, {counts['classic_aimed_band']} of {total} "
            "with aimed chances")


EXPLANATION = """\
Where and why the discrete duel differs from the classic noisy duel
-------------------------------------------------------------------
Bands: G grande, M moyenne, F faible, TF très faible. "classic" is the band at which
p_A + p_B first reaches one while closing from grande, with unaimed hit chances;
"aimed" the same with aimed ones. The equilibrium columns give the probability that
each duellist's first shot is fired at each band (they need not sum to one: a duel can
end before he fires), and "mean" its mean band.

1. Aiming replaces closing. Standing still a turn buys the die the range costs: an
   aimed shot at grande rolls as many dice as an unaimed one at moyenne, and advancing
   throws the aim away and gives the other a turn to shoot. So the equilibrium mostly
   stands at grande, aims, and fires from there: the classic rule predicts it once
   it is fed the aimed chances (at grande they already sum past one for every pair),
   not the unaimed ones (which wait for moyenne in the weakest pairs). The classic
   duel has no way to improve accuracy but to close.
2. Reloading (the rules as they stand) makes a miss cheap: the duel pistol is ready
   again after one turn, so the classic duel's threat -- the survivor of a miss walks
   up and shoots the empty-handed foe at leisure -- is mostly gone, and both fire as
   soon as they are aimed.
3. With one bullet each (the classic setting) that threat returns, and firing stops
   being symmetric: in several pairs one duellist fires at grande while the other
   holds his shot, and fires only at très faible once the foe is empty. In the
   classic duel both fire at the same moment; here a missed shot is public, as in the
   noisy duel, but moves are simultaneous and secret each turn, the distance closes
   in four steps only when someone chooses to advance, and the equilibrium mixes.
4. A hit is not a kill: a Blessé target who passes his resistance test fires back
   with one die less, and the better shooter fires first when both fire; two equal
   shooters firing together often both fall, a draw (payoff 0) that the classic duel,
   where the first hit decides, does not have.
5. The duel lasts at most max_turns turns (then a draw), which bounds waiting.
"""


HEADINGS = {"reload": "the rules as they stand: a duel pistol reloads in one turn",
            "one bullet": "one bullet each, no reloading (the classic duel's setting)"}


def plot(rows: list[dict], path: Path, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = [f"{r['a']}v{r['b']}" for r in rows]
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(10, 4))
    ax.plot(x, [r["classic_band"] for r in rows], "k_", markersize=18, mew=2,
            label="classic: p_A + p_B = 1 (unaimed)")
    ax.plot(x, [r["classic_aimed_band"] for r in rows], "x", color="grey", markersize=9,
            label="classic with aimed chances")
    ax.plot(x - 0.12, [r["mean_band_a"] for r in rows], "o", label="A's first shot (mean band)")
    ax.plot(x + 0.12, [r["mean_band_b"] for r in rows], "s", label="B's first shot (mean band)")
    ax.set_xticks(x, labels)
    ax.set_yticks(range(4), ["très faible", "faible", "moyenne", "grande"])
    ax.set_xlabel("shooting Atouts of A v B")
    ax.set_title(f"Equilibrium firing band vs the classic noisy duel\n{title}", fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    save(fig, path, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-turns", type=int, default=20)
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the outputs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {name: study(args.max_turns, ruleset) for name, ruleset in RULES.items()}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for name, rows in results.items():
        print(f"== {HEADINGS[name]}")
        print(table(rows))
        print()
        path = args.out / f"uchronia_noisy_duel_{name.replace(' ', '_')}.png"
        plot(rows, path, HEADINGS[name])
        print(f"plot: {path}\n")
    print(EXPLANATION)


if __name__ == "__main__":
    main()
