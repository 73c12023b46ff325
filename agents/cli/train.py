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

from envs.schema import MAX_SEED, integer_text, number_text
from solver.backward import solve_game
from solver.counter_play import require_table
from solver.errors import InputError
from solver.game import other
from solver.graph import answers_on_counters, require_states
from solver.regularized import regularized_value, solve_regularized, strength_to_beta

from ..files import check_writable_target
from ..metrics import profile_metrics
from ..personalities import calibration, check_strength, personality, temperament
from ..profiles import build_profile, file_stem, save_profile
from .common import add_game_args, add_json, emit_json, format_table, make_game

#: the exact policy is kept unless the trained one beats its regularised value by more
#: than this (it cannot, up to rounding: the exact one is optimal by construction)
CHOICE_TOLERANCE = 1e-9
#: a profile this many megabytes or more is reported with its size
LARGE_MB = 10.0


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "train", help="train an NPC duellist and save it as a profile",
        description="Self-play training of one side of a duel (optionally with a "
                    "personality), saved as an opponent profile with its metrics and "
                    "learning curve.")
    add_game_args(parser)
    parser.add_argument("--side", choices=("a", "b"), default="a",
                        help="the side you will play against the NPC (default a), as in "
                             "every command: the NPC plays the other side, --them's sheet")
    parser.add_argument("--personality", metavar="NAME",
                        help="a built-in temperament, e.g. cautious (see the README)")
    parser.add_argument("--strength", metavar="S",
                        help="closeness to the temperament in [0, 1] (default 0.5): "
                             "0 is the equilibrium, 1 the temperament itself")
    parser.add_argument("--out", required=True, metavar="FILE", help="the profile to write")
    parser.add_argument("--minutes", metavar="N", help="training time budget in minutes (> 0)")
    parser.add_argument("--iterations", metavar="N",
                        help="training steps (default 1000 when --minutes is not given)")
    parser.add_argument("--seed", metavar="S", default="0", help="random seed (default 0)")
    parser.add_argument("--resume", action="store_true",
                        help="continue from the checkpoint next to --out (FILE.ckpt)")
    parser.add_argument("--name", help="the profile's name (default: the file's stem)")
    parser.add_argument("--network", action="store_true",
                        help="store the trained policy distilled into a network instead of a "
                             "table (for games too large to enumerate)")
    parser.add_argument("--exact", action="store_true",
                        help="hidden information: measure exploitability exactly, an error "
                             "where the exact solver cannot unroll the game (beyond one "
                             "round); without it, it is estimated there by a trained exploiter")
    add_json(parser)
    parser.set_defaults(func=run)


def _number(text: str | None, what: str, kind=float, low: float = 0, above: bool = False,
            high: int | None = None):
    """``text`` as a finite number >= ``low`` (> ``low`` with ``above``), else None."""
    if text is None:
        return None
    wanted = "an integer" if kind is int else "a finite number"
    bound = f"{'>' if above else '>='} {low:g}" + (f" and <= {high}" if high is not None else "")
    value = integer_text(text) if kind is int else number_text(text)
    if value is None or value < low or (above and value == low) or (
            high is not None and value > high):
        raise InputError(f"{what} must be {wanted} {bound}, got {text!r:.40}")
    return value


def _settings(args) -> dict:
    if args.strength is not None and not args.personality:
        raise InputError("--strength needs --personality")
    strength = None
    if args.personality:
        text = args.strength or "0.5"
        try:
            strength = check_strength(float(text))
        except ValueError:
            raise InputError(f"strength must be a number in [0, 1], got {text!r}") from None
    return {"strength": strength,
            # a budget of 0 trains nothing: a typo, not a request
            "minutes": _number(args.minutes, "minutes", above=True),
            "iterations": _number(args.iterations, "iterations", int, 1),
            "seed": _number(args.seed, "seed", int, 0, high=MAX_SEED)}


def _check_out(out: Path) -> None:
    """Fail before training, not after it, when the profile cannot be written."""
    if out.is_dir():
        raise InputError(f"--out {out} is a directory; give a file name such as baron.json")
    if not out.parent.is_dir():
        raise InputError(f"--out {out}: folder {out.parent} does not exist")
    check_writable_target(out)  # a FIFO, a device or a link is refused now, not after


def run(args) -> int:
    settings = _settings(args)
    game = make_game(args)
    args.npc = other(args.side)  # the side the profile plays
    _check_out(Path(args.out))
    if game.info.public_information and not args.network:
        if answers_on_counters(game):
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
        found = personality(game, args.personality, settings["strength"], side)
        policy, what = found.policy, (f"the exact {args.personality} personality of strength "
                                      f"{settings['strength']:g}")
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
    document = build_profile(game, policy, side, personality=_record(args, settings),
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
    beta = (calibration(game, args.personality, args.npc).beta(strength)
            if game.info.public_information else strength_to_beta(strength))
    return None if math.isinf(beta) else beta


def _record(args, settings: dict) -> dict | None:
    return ({"name": args.personality, "strength": settings["strength"]}
            if args.personality else None)


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
    document = build_profile(game, chosen["policy"], side, personality=_record(args, settings),
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
    who = f" ({args.personality}, strength {settings['strength']:g})" if prior else ""
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
