"""Learning curves on the hidden-level duel: our learner beside OpenSpiel's Deep CFR.

    python experiments/selfplay_hidden.py [--minutes 10] [--prior-a GD:0.5,GR:0.5]
                                          [--prior-b GD:1] [--seed 0] [--json]

One run, one machine, the same game (Castle Falkenstein, hidden levels, one round), the
same training-time budget for each learner (measurement excluded), and the same exact
measure for both: ``solver.hidden.sequence``'s exploitability (NashConv / 2, best response over
information sets) of the policies read back on the players' observations.

- ours: ``agents.hidden_learner.train_hidden`` (MCCFR over information sets keyed on the
  perfect-recall observation; the average tables are measured along the way, the
  distilled network once at the end);
- OpenSpiel: its PyTorch Deep CFR (``open_spiel.python.pytorch.deep_cfr``) on the duel
  through a small adapter below: a duck-typed OpenSpiel game that is the turn-based form
  of the duel (A chooses, then B without seeing A's card, then chance), whose information
  state tensor is the player's observation encoded as our network encodes it (scaled
  fields and one-hot blocks). At each measurement its strategy network is trained on its
  strategy memory (as ``DeepCFRSolver.solve`` does at the end; this time is excluded, as
  our measurement is) and read back as a policy on observations.

Prints both curves at common times and writes ``experiments/out/selfplay_hidden.csv`` and
``.png``. Needs ``pip install -e '.[bench]'`` (open-spiel and dm-tree).
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from pathlib import Path

import numpy as np
import torch

import envs
from agents.curves import plot_curves
from agents.hidden_learner import HiddenConfig, exact_measure, train_hidden
from agents.policies import NetworkPolicy
from solver.game import renormalise
from solver.hidden.sequence import build_tree

TARGET = 0.01
REPORT_TIMES = (1, 2, 5, 10, 20, 30, 60, 120, 300, 600)
OUT = Path(__file__).resolve().parent / "out"


# -- the adapter: our duel as a turn-based OpenSpiel game ---------------------------------

class SpielGame:
    """What ``DeepCFRSolver`` reads of a game (it is duck-typed)."""

    def __init__(self, game):
        import pyspiel

        self.game = game
        self.pyspiel = pyspiel
        self.encoder = NetworkPolicy.for_game(game)
        self.tensors: dict[tuple, np.ndarray] = {}

    def get_type(self):
        return type("GameType", (), {"dynamics": self.pyspiel.GameType.Dynamics.SEQUENTIAL})

    def num_players(self) -> int:
        return 2

    def num_distinct_actions(self) -> int:
        return len(self.game.info.action_names)

    def new_initial_state(self):
        return SpielState(self, None, None, self.game.initial_outcomes())

    def tensor(self, observation: tuple) -> np.ndarray:
        found = self.tensors.get(observation)
        if found is None:
            found = self.tensors[observation] = self.encoder.encode(
                np.asarray([observation])).numpy()[0]
        return found


class SpielState:
    """A node of the turn-based form: our state, A's pending card, or a chance list."""

    def __init__(self, spiel: SpielGame, state, pending, chance=None):
        self.spiel, self.state, self.pending, self.chance = spiel, state, pending, chance

    def is_terminal(self) -> bool:
        return self.chance is None and self.spiel.game.is_terminal(self.state)

    def is_chance_node(self) -> bool:
        return self.chance is not None

    def chance_outcomes(self):
        return [(k, p) for k, (p, _) in enumerate(self.chance)]

    def current_player(self) -> int:
        if self.chance is not None:
            return -1
        return 0 if self.pending is None else 1

    def returns(self):
        payoff = float(self.spiel.game.payoff(self.state))
        return [payoff, -payoff]

    def legal_actions(self, player=None):
        player = self.current_player() if player is None else player
        mask = self.spiel.game.legal_mask(self.state, "ab"[player])
        return [int(a) for a in np.flatnonzero(mask)]

    def information_state_tensor(self, player=None):
        player = self.current_player() if player is None else player
        # the chance root has no state yet; Deep CFR asks it only for the tensor's size
        state = self.state if self.state is not None else self.chance[0][1]
        return self.spiel.tensor(tuple(int(x) for x in
                                       self.spiel.game.observe(state, "ab"[player])))

    def child(self, action: int):
        game = self.spiel.game
        if self.chance is not None:
            return self._settled(self.chance[action][1])
        if self.pending is None:
            return SpielState(self.spiel, self.state, int(action))
        outcomes = game.outcomes(self.state, self.pending, int(action))
        if len(outcomes) == 1:
            return self._settled(outcomes[0][1])
        return SpielState(self.spiel, self.state, None, outcomes)

    def _settled(self, state):
        return SpielState(self.spiel, state, None)


class DeepCFRPolicy:
    """Deep CFR's strategy network as a policy on our observations."""

    def __init__(self, spiel: SpielGame, network):
        self.spiel, self.network = spiel, network

    def probabilities(self, observation, mask):
        with torch.inference_mode():
            inputs = torch.from_numpy(self.spiel.tensor(tuple(observation))[None, :])
            probs = self.network(inputs)[0].numpy().astype(float)
        return renormalise(probs, mask)


def load_deep_cfr():
    """OpenSpiel's Deep CFR module, or a one-line exit before any training: a bare
    ``open-spiel`` install lacks the dm-tree it imports."""
    try:
        from open_spiel.python.pytorch import deep_cfr
    except ImportError as missing:
        raise SystemExit(f"selfplay_hidden: OpenSpiel's Deep CFR does not load ({missing}); "
                         "install the extra: pip install -e '.[bench]'") from None
    return deep_cfr


def deep_cfr_curve(deep_cfr, game, tree, minutes: float, measure_every: float,
                   seed: int) -> list[dict]:
    """Deep CFR for ``minutes`` of training time, measured exactly about every
    ``measure_every`` seconds of it."""
    np.random.seed(seed)
    spiel = SpielGame(game)
    solver = deep_cfr.DeepCFRSolver(
        spiel, policy_network_layers=(128, 128), advantage_network_layers=(128, 128),
        num_iterations=1, num_traversals=40, learning_rate=1e-3,
        batch_size_advantage=2048, batch_size_strategy=2048, memory_capacity=int(2e5),
        policy_network_train_steps=400, advantage_network_train_steps=100,
        reinitialize_advantage_networks=True, seed=seed)
    curve, seconds, next_measure = [], 0.0, measure_every
    while seconds < 60 * minutes:
        began = time.perf_counter()
        for player in (0, 1):
            for _ in range(solver._num_traversals):
                solver._traverse_game_tree(solver._root_node, player)
            solver._reinitialize_advantage_network(player)
            solver._learn_advantage_network(player)
        solver._iteration += 1
        seconds += time.perf_counter() - began
        if seconds >= next_measure or seconds >= 60 * minutes:
            next_measure += measure_every
            solver._reinitialize_policy_network()
            solver._learn_strategy_network()
            policy = DeepCFRPolicy(spiel, solver._policy_network)
            measured = exact_measure(game, tree, policy, policy)
            curve.append({"step": solver._iteration - 1, "seconds": seconds,
                          "exploitability": measured.exploitability})
            print(f"  Deep CFR: iteration {solver._iteration - 1}, {seconds:.0f} s, "
                  f"exploitability {measured.exploitability:.4f}", flush=True)
    return curve


def ours_curve(game, minutes: float, seed: int) -> tuple[list[dict], dict]:
    config = HiddenConfig(seed=seed, iterations=None, minutes=minutes, eval_every=500,
                          measure="exact")
    result = train_hidden(game, config)
    final = {"iterations": result.iterations, "seconds": result.seconds,
             "network_exploitability": result.measurement.exploitability}
    return [{k: row[k] for k in ("step", "seconds", "exploitability")}
            for row in result.curve], final


def at(curve: list[dict], seconds: float) -> float | None:
    """The last measurement taken by ``seconds`` of training (None before the first)."""
    seen = [row["exploitability"] for row in curve if row["seconds"] <= seconds]
    return seen[-1] if seen else None


def first_below(curve: list[dict], target: float) -> float | None:
    return next((row["seconds"] for row in curve if row["exploitability"] < target), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--prior-a", default="GD:0.5,GR:0.5")
    parser.add_argument("--prior-b", default="GD:1")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the outputs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    deep_cfr = load_deep_cfr()
    # networks this small lose more to thread contention on a shared 2-core machine than
    # they gain (13x slower traversals measured with the default threads); both learners
    torch.set_num_threads(1)
    game = envs.make("falkenstein", hidden_levels=True, max_rounds=1, prior_a=args.prior_a,
                     prior_b=args.prior_b)
    tree = build_tree(game)
    ours, final = ours_curve(game, args.minutes, args.seed)
    theirs = deep_cfr_curve(deep_cfr, game, tree, args.minutes, max(5.0, 3 * args.minutes),
                            args.seed)
    report = {"game": {"prior_a": args.prior_a, "prior_b": args.prior_b, "max_rounds": 1},
              "minutes": args.minutes, "target": TARGET, "ours": ours, "ours_final": final,
              "openspiel_deep_cfr": theirs,
              "seconds_to_target": {"ours": first_below(ours, TARGET),
                                    "openspiel_deep_cfr": first_below(theirs, TARGET)}}
    _write(report, args.out)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    _print(report)


def _write(report: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "selfplay_hidden.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["learner", "step", "seconds", "exploitability"])
        for name in ("ours", "openspiel_deep_cfr"):
            for row in report[name]:
                writer.writerow([name, row["step"], f"{row['seconds']:.2f}",
                                 f"{row['exploitability']:.6g}"])
    plot_curves({"ours (MCCFR on information sets)": report["ours"],
                 "OpenSpiel Deep CFR": report["openspiel_deep_cfr"]},
                out / "selfplay_hidden.png", title="hidden levels, one round", target=TARGET)


def _print(report: dict) -> None:
    game = report["game"]
    print(f"hidden duel, prior_a={game['prior_a']}, prior_b={game['prior_b']}, one round; "
          f"{report['minutes']:g} minutes of training each; exact exploitability")
    print(f"{'seconds':>8}  {'ours':>10}  {'Deep CFR':>10}  ratio")
    for seconds in REPORT_TIMES:
        if seconds > 60 * report["minutes"]:
            break
        mine, theirs = at(report["ours"], seconds), at(report["openspiel_deep_cfr"], seconds)
        ratio = f"{theirs / mine:.0f}x" if mine and theirs else "-"
        print(f"{seconds:>8}  {_num(mine):>10}  {_num(theirs):>10}  {ratio}")
    reach = report["seconds_to_target"]
    print(f"time to exploitability < {TARGET:g}: ours {_secs(reach['ours'])}, "
          f"OpenSpiel Deep CFR {_secs(reach['openspiel_deep_cfr'])}")
    final = report["ours_final"]
    print(f"ours: {final['iterations']} iterations; the stored policy (tables, network for "
          f"unvisited observations) {final['network_exploitability']:.2g}")


def _num(value) -> str:
    return "-" if value is None else f"{value:.2e}"


def _secs(value) -> str:
    return "not reached" if value is None else f"{value:.1f} s"


if __name__ == "__main__":
    main()
