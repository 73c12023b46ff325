"""``duel train``: make an NPC duellist and save it as an opponent profile.

Where the game has public information the exact solver takes it: the personality (or,
without ``--personality``, the equilibrium) is computed exactly in seconds and stored,
and nothing is trained. With hidden information and no personality, the hidden-level
learner trains both sides (``train_hidden.py``). Otherwise training by self-play is for
games the solver cannot take (hidden information, with a personality) and for
``--network``, which stores a trained network; there the trained side is pulled toward
its temperament (the trainer's magnet, with the calibrated weight where the game is
public, s / (1 - s) otherwise), and where an exact personality exists too the report
compares both on the objective they share.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

from solver import require_states, require_table, solve_game, solve_regularized
from solver.game import other
from solver.markov.regularized import regularized_value, strength_to_beta

from ..metrics import profile_metrics
from ..personalities import calibrated_beta, personality
from ..profiles import build_profile, file_stem, save_profile
from ..temperaments import temperament
from . import checks
from .common import emit_json, format_table

#: the exact policy is kept unless the trained one beats its regularised value by more
#: than this (it cannot, up to rounding: the exact one is optimal by construction)
CHOICE_TOLERANCE = 1e-9
#: a profile this many megabytes or more is reported with its size
LARGE_MB = 10.0


def run(args) -> int:
    game, settings = checks.train(args)
    args.npc = other(args.side)  # the side the profile plays
    if game.info.public_information and not args.network:
        require_table(game)   # before the solves, not after them
        return _exact(game, args, settings)
    # the trainer goes state by state: a duel too large for that says so before any work
    require_states(game)
    if not game.info.public_information and not args.personality:
        from .train_hidden import run_hidden_training

        return run_hidden_training(game, args, settings)
    return _trained(game, args, settings)


def _exact(game, args, settings: dict) -> int:
    """The exact personality (or equilibrium): the solver takes public games whole."""
    side, out = args.npc, Path(args.out)
    began = time.perf_counter()
    if args.personality:
        found = _personality(game, args, settings)
        policy, what = found.policy, f"the exact {args.personality} personality {_level(found)}"
    else:
        policy, what = solve_game(game).policy_for(side), "the exact equilibrium"
    seconds = time.perf_counter() - began
    ignored = [flag for flag, given in (("--minutes", args.minutes),
                                        ("--iterations", args.iterations),
                                        ("--resume", args.resume)) if given]
    reason = (f"the game has public information: {what} was computed in {seconds:.1f} s, "
              "nothing was trained (training is for games with hidden information, or "
              "--network)")
    training = {"seed": settings["seed"], "stored": "exact", "seconds": seconds,
                "regularization": _beta(game, args, settings), "reason": reason}
    if ignored:
        training["note"] = f"{', '.join(ignored)} ignored: nothing to train"
    metrics = profile_metrics(game, policy, side)
    document = build_profile(game, policy, side, personality=_record(game, args, settings),
                             metrics=metrics, training=training, source="exact",
                             name=args.name or file_stem(out))
    save_profile(out, document)
    _report(args, out, document, {}, "exact")
    return 0


def _beta(game, args, settings: dict) -> float | None:
    """The personality's regularisation weight: calibrated on a public game, the fixed
    map s / (1 - s) where no exact calibration exists; None for the temperament itself."""
    if not args.personality:
        return 0.0
    strength = settings["strength"]
    if settings["win"] is not None:
        beta = _personality(game, args, settings).beta
    else:
        beta = (calibrated_beta(game, args.personality, args.npc, strength)
                if game.info.public_information else strength_to_beta(strength))
    return None if math.isinf(beta) else beta


def _personality(game, args, settings: dict):
    """The exact personality asked: by its strength, or by its chance to win."""
    if settings["win"] is None:
        return personality(game, args.personality, settings["strength"], args.npc)
    return personality(game, args.personality, side=args.npc, win=settings["win"],
                       against=settings["against"])


def _level(found) -> str:
    if found.win is None:
        return f"of strength {found.strength:g}"
    return (f"winning {100 * found.win:.1f}% against {_whom(found.against)} (as exploitable "
            f"as strength {found.strength:.2f})")


def _whom(against: str) -> str:
    return "the equilibrium" if against == "equilibrium" else "the best reply"


def _record(game, args, settings: dict) -> dict | None:
    if not args.personality:
        return None
    if settings["win"] is None:
        return {"name": args.personality, "strength": settings["strength"]}
    found = _personality(game, args, settings)
    return {"name": args.personality, "strength": found.strength, "win": found.win,
            "against": found.against}


def _trained(game, args, settings: dict) -> int:
    side, out = args.npc, Path(args.out)
    prior = None
    if args.personality:
        prior = temperament(game.info.system, args.personality).policy(game)
    beta = _beta(game, args, settings)
    beta = math.inf if beta is None else beta
    trained = None if math.isinf(beta) else _train(game, args, settings, prior, beta, out)
    candidates = _candidates(game, side, prior, beta, trained)
    network = args.network and "trained" in candidates
    stored = "trained" if network else _choose(candidates)
    chosen = candidates[stored]
    opponent = None if trained is None else getattr(trained, f"policy_{other(side)}")
    metrics = profile_metrics(game, chosen["policy"], side, opponent=opponent)
    training = _training_record(args, settings, beta, trained, candidates, stored, out)
    record = _record(game, args, settings)
    document = build_profile(game, chosen["policy"], side, personality=record,
                             metrics=metrics, training=training, source=stored,
                             tabular=not network,
                             name=args.name or file_stem(out))
    save_profile(out, document)
    _report(args, out, document, candidates, stored)
    return 0


def _train(game, args, settings: dict, prior, beta: float, out: Path):
    from ..selfplay import TrainConfig, train  # torch is imported only when training

    budget = {key: settings[key] for key in ("iterations", "minutes") if settings[key] is not None}
    if "minutes" in budget and "iterations" not in budget:
        budget["iterations"] = None  # the time budget alone decides
    config = TrainConfig(
        seed=settings["seed"], checkpoint=out.with_name(out.name + ".ckpt"),
        curve_path=out.with_suffix(".curve.csv"), **budget,
        regularization=beta if prior is not None else 0.0,
        # a table is stored unless --network: distilling would be wasted work
        distill_steps=TrainConfig.distill_steps if args.network else 0)
    if prior is not None:
        setattr(config, f"magnet_{args.npc}", prior)
    level = (f"strength {settings['strength']:g}" if settings["win"] is None else
             f"winning {100 * settings['win']:.1f}% against {_whom(settings['against'])}")
    who = f" ({args.personality}, {level})" if prior else ""
    print(f"duel train: training {game.info.system} side {args.npc}{who}; "
          f"checkpoint {config.checkpoint}", file=sys.stderr)
    return train(game, config, progress=True, resume=args.resume)


def _candidates(game, side: str, prior, beta: float, trained) -> dict[str, dict]:
    """The policies that could be stored, with their regularised values where exact."""
    found: dict[str, dict] = {}
    if trained is not None:
        found["trained"] = {"policy": getattr(trained, f"policy_{side}")}
    if game.info.public_information:
        if math.isinf(beta):
            found["exact"] = {"policy": prior}
        elif prior is None:
            found["exact"] = {"policy": solve_game(game).policy_for(side)}
        else:
            found["exact"] = {"policy": solve_regularized(game, side, prior, beta).policy()}
        for entry in found.values():
            entry["value_against_best_response"] = regularized_value(
                game, side, entry["policy"], None, 0.0)
            entry["regularized_value"] = (entry["value_against_best_response"]
                                          if math.isinf(beta) or prior is None else
                                          regularized_value(game, side, entry["policy"],
                                                            prior, beta))
    return found


def _choose(candidates: dict[str, dict]) -> str:
    if "exact" not in candidates:
        return "trained"
    if "trained" in candidates and (candidates["trained"]["regularized_value"]
                                    > candidates["exact"]["regularized_value"]
                                    + CHOICE_TOLERANCE):
        return "trained"
    return "exact"


def _training_record(args, settings: dict, beta: float, trained, candidates: dict,
                     stored: str, out: Path) -> dict:
    reason = ("--network: the trained policy distilled into a network"
              if args.network and trained is not None else _reason(candidates, stored))
    record = {"seed": settings["seed"], "regularization": None if math.isinf(beta) else beta,
              "stored": stored, "reason": reason,
              "candidates": {name: {k: v for k, v in entry.items() if k != "policy"}
                             for name, entry in candidates.items()}}
    if trained is None:
        record["note"] = "strength 1 is the temperament itself: nothing to train"
        return record
    score = trained.exploitability
    record.update({
        "steps": trained.step, "seconds": trained.seconds,
        "pair_exploitability": None if score is None else score.value,
        "checkpoint": out.name + ".ckpt",
        "curve_csv": trained.curve_csv.name if trained.curve_csv else None,
        "curve_png": trained.curve_png.name if trained.curve_png else None})
    return record


def _reason(candidates: dict, stored: str) -> str:
    if "exact" not in candidates:
        return "the game has hidden information: no exact solution, the trained policy is stored"
    if "trained" not in candidates:
        return "the exact policy (no training was needed)"
    values = {k: f"{v['regularized_value']:+.6f}" for k, v in candidates.items()}
    return (f"{stored} has the higher regularised value (exact {values['exact']}, "
            f"trained {values['trained']}); the exact one is optimal by construction")


def _report(args, out: Path, document: dict, candidates: dict, stored: str) -> None:
    training = document["training"]
    summary = {"profile": str(out), "stored": stored, "training": training,
               "metrics": {k: v for k, v in document["metrics"].items()
                           if k not in ("situations", "exploit")}}
    if args.json:
        emit_json(summary)
        return
    rows = [[name, _fmt(entry.get("value_against_best_response")),
             _fmt(entry.get("regularized_value")), "yes" if name == stored else "no"]
            for name, entry in training.get("candidates", {}).items()]
    lines = []
    if "steps" in training:
        pair = training["pair_exploitability"]
        lines.append(f"Trained {training['steps']} steps in {training['seconds']:.1f} s; "
                     f"self-play pair exploitability "
                     f"{'n/a' if pair is None else f'{pair:.4f}'}")
    header = ["policy", "vs best responder", "regularised value", "stored"]
    if rows:
        lines += ["", format_table(header, rows), ""]
    lines.append(training["reason"][:1].upper() + training["reason"][1:] + ".")
    if training.get("note"):
        lines.append(training["note"][:1].upper() + training["note"][1:] + ".")
    metrics = document["metrics"]
    if metrics.get("exact"):
        lines.append(f"Exploitability (value lost to a best responder): "
                     f"{metrics['exploitability']:.4f}")
    files = [_written(out)] + [str(out.with_name(training[k])) for k in ("curve_csv", "curve_png")
                               if training.get(k)]
    lines.append(f"Wrote {', '.join(files)}")
    print("\n".join(lines))


def _written(out: Path) -> str:
    """The profile's name, with its size where it is large (a duel over every pair of hit
    points holds a mix for each), and how to have it compressed."""
    size = out.stat().st_size / 1e6
    if size < LARGE_MB:
        return str(out)
    hint = "" if out.name.endswith(".gz") else f"; name it {out.name}.gz to have it compressed"
    return f"{out} ({size:.1f} MB{hint})"


def _fmt(value) -> str:
    return "-" if value is None else f"{value:+.4f}"
