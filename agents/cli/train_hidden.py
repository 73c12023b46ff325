"""``duel train`` for games with hidden types (hidden Fencing levels): both sides learn by
self-play with ``agents.hidden_learner``, and the NPC's side is saved as a profile whose
metrics are exact where the exact solver can unroll the game (one round) and estimated
by a trained exploiter beyond, saying which.

The profile's table holds every observation of the exact tree when there is one (so it
plays exactly what was measured); beyond, the observations training visited, with the
distilled network for the others (``--network``: the network alone).
"""

from __future__ import annotations

import sys
from pathlib import Path

from solver.game import other, renormalise

from ..curves import write_curve
from ..hidden_learner import HiddenConfig, HiddenResult, LearnedPolicy, exact_tree, train_hidden
from ..metrics import profile_metrics
from ..profiles import build_profile, file_stem, save_profile
from .common import emit_json, format_table

METHOD = ("self-play by Monte-Carlo CFR over information sets keyed on the perfect-recall "
          "observation (agents.hidden_learner)")


def run_hidden_training(game, args, settings: dict) -> int:
    side, out = args.npc, Path(args.out)
    config = _config(args, settings, out.with_name(out.name + ".ckpt"))
    tree = exact_tree(game, config)  # refuses --exact before any training
    print(f"duel train: training {game.info.system} side {side} with hidden information "
          f"({METHOD}); checkpoint {config.checkpoint}", file=sys.stderr)
    result = train_hidden(game, config, progress=sys.stderr.isatty(), resume=args.resume)
    policy = _policy(result, side)
    stored = policy.network if args.network and policy.network is not None else policy
    metrics = profile_metrics(game, stored, side, opponent=_policy(result, other(side)),
                              config=config)
    document = build_profile(game, stored, side, metrics=metrics, source="trained",
                             training=_training(result, settings, out, args.network),
                             name=args.name or file_stem(out), tabular=not args.network,
                             **_table(game, policy, side, tree, args.network))
    save_profile(out, document)
    _report(args, out, document)
    return 0


def _config(args, settings: dict, checkpoint: Path) -> HiddenConfig:
    budget = {key: settings[key] for key in ("iterations", "minutes")
              if settings[key] is not None}
    if "minutes" in budget and "iterations" not in budget:
        budget["iterations"] = None  # the time budget alone decides
    return HiddenConfig(seed=settings["seed"], measure="exact" if args.exact else "auto",
                        checkpoint=checkpoint, **budget)


def _policy(result: HiddenResult, side: str) -> LearnedPolicy:
    return result.policy_a if side == "a" else result.policy_b


def _table(game, policy: LearnedPolicy, side: str, tree, network: bool) -> dict:
    """How the policy is stored: ``build_profile``'s ``table`` and ``fallback``."""
    if network:
        return {}
    if tree is None:
        return {"table": policy.table, "fallback": policy.network}
    sequences = tree.players[side]
    return {"table": {obs: renormalise(policy.probabilities(obs, mask), mask)
                      for obs, mask in zip(sequences.observation, sequences.mask,
                                           strict=True)}}


def _training(result: HiddenResult, settings: dict, out: Path, network: bool) -> dict:
    measured = result.measurement
    curve_csv = out.with_suffix(".curve.csv")
    write_curve(result.curve, curve_csv, title="hidden levels: self-play")
    return {"seed": settings["seed"], "steps": result.iterations, "seconds": result.seconds,
            "method": METHOD, "stored": "trained",
            "reason": ("--network: the distilled network alone" if network else
                       "the game has hidden information: the trained policy is stored"),
            "pair_exploitability": measured.exploitability,
            "pair_exploitability_exact": measured.exact,
            "pair_exploitability_method": measured.method,
            "visited_observations": result.visited, "checkpoint": out.name + ".ckpt",
            "curve_csv": curve_csv.name, "curve_png": curve_csv.with_suffix(".png").name}


def _report(args, out: Path, document: dict) -> None:
    training, metrics = document["training"], document["metrics"]
    if args.json:
        emit_json({"profile": str(out), "stored": "trained", "training": training,
                   "metrics": {k: v for k, v in metrics.items() if k != "situations"}})
        return
    how = "exact" if metrics.get("exact") else "estimated"
    rows = [["both sides' self-play pair", f"{training['pair_exploitability']:.4f}",
             "exact" if training["pair_exploitability_exact"] else "estimated"]]
    if "exploitability" in metrics:
        rows.append([f"the NPC (side {document['side'].upper()})",
                     f"{metrics['exploitability']:.4f}", how])
    lines = [f"Trained {training['steps']} iterations in {training['seconds']:.1f} s.", "",
             "What a best responder gains against it (payoff units, 0 is unexploitable):",
             format_table(["policy", "exploitability", "measured"], rows), "",
             f"Measured {metrics['exploitability_method']}.",
             f"Wrote {out}, {out.with_name(training['curve_csv'])}, "
             f"{out.with_name(training['curve_png'])}"]
    print("\n".join(lines))
