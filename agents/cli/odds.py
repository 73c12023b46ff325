"""``duel odds``: what should I play against this opponent, and what are my odds?

Every row of the answer is "you play X against this opponent". The best play is the
best response; where several plays are worth the same, the safest of them (the least
chance of losing, then the closest to the equilibrium) is recommended.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cached_property
from itertools import chain
from pathlib import Path

import numpy as np

import envs
from solver import (
    best_response,
    evaluate,
    progress,
    read_policy,
    replies_with_equilibrium,
    solve_game,
    together,
)
from solver.cache import ambient, last_large_answers, remembered
from solver.decision_table import DecisionTable
from solver.policy import MixPolicy

from ..opponents import opponent_policy
from ..profiles import is_profile_path
from . import checks
from .common import (
    SAME_WORTH,
    emit_json,
    equally_good,
    format_table,
    game_header,
    in_words,
    percent,
    play_text,
)
from .situations import MomentGame, moment_key

#: the situations a plan lists in words, unless --limit says
LISTED = 12


def run(args) -> int:
    if args.json:
        emit_json(document(args))
        return 0
    game = checks.odds(args)
    if not game.info.public_information:
        from .hidden import run_hidden_odds  # hidden.py imports this module's neighbours
        return run_hidden_odds(args, game)
    limit = LISTED if args.limit is None else args.limit
    print(_render(game, _report(args, game), limit, args.detail))
    return 0


def document(args) -> dict:
    """The one document ``duel odds --json`` prints, from the parsed arguments (the
    web's ``POST /api/odds`` answers with it too): the plan's ``--limit`` most frequent
    situations if given (the web screen shows 12 of level 1's 40,000), all of them
    otherwise; ``situations`` says how many there are in all."""
    game = checks.odds(args)
    if not game.info.public_information:
        from .hidden import hidden_odds_report
        return hidden_odds_report(args, game)
    report = _report(args, game)
    report["situations"] = len(report["plan"])
    if args.limit is not None:
        report["plan"] = report["plan"][:args.limit]
    return report


def _report(args, game) -> dict:
    moment = getattr(args, "moment", None)
    question = _question(args.vs, args.side)
    if question is not None and moment is not None:
        question += "|state=" + moment_key(game, moment)

    def answer_now() -> dict:
        return _answer(game, args.vs, args.side, moment)
    answer = (answer_now() if question is None else
              remembered(game, question, answer_now, ambient()))
    report = {"system": game.info.system, "options": game.info.options, "side": args.side,
              "vs": args.vs, **answer}
    # the two plays of the table worth the same: said in words, and here for --json
    report["equally_good"] = equally_good(answer["best_response"],
                                          answer["equilibrium_against_it"])
    if moment is not None:
        report["state"] = game.state_fields(moment)
        report["description"] = game.describe(moment)
    return report


def _answer(game, vs: str, me: str, moment=None) -> dict:
    """The best response to ``vs`` and the equilibrium's odds against it, with the plan
    situation by situation; from ``moment`` on if given (the opponent and the
    equilibrium are the whole duel's, played from there)."""
    them = "b" if me == "a" else "a"
    with progress.task("the odds", len(STEPS), "steps", parts=True,
                       weights=_step_weights(game, vs, moment is None)):
        with last_large_answers(lambda: _last_solve(game, vs, moment)):
            equilibrium = solve_game(game).policy_for(me)
        progress.advance(1, STEPS[1])
        opponent = opponent_policy(vs, game, them)   # the equilibrium's other side: read
        progress.advance(1, STEPS[2])
        played = game if moment is None else MomentGame(game, moment)
        against_it, response = _odds_and_best_response(played, equilibrium, opponent, me)
        progress.advance(1, STEPS[4])
        best = _mine(response.evaluation.as_dict(), me)   # its play pushed forward
        progress.advance(1, STEPS[5])
        plan = _plan(game, response, me)
        progress.advance(1)
    answer = {
        "best_response": best,
        "equilibrium_against_it": _mine(against_it, me),
        "plan": plan,
        "tie_break": "among equally good plays: least chance of losing, then closest to "
                     "the equilibrium",
    }
    if isinstance(opponent, MixPolicy):
        answer["mix_fallback"] = _fallback(response, opponent, them)
    return answer


def _last_solve(game, vs: str, moment) -> bool:
    """Whether the equilibrium is the last duel the odds solve: against the equilibrium
    itself, over the whole duel, where the best response is read off it."""
    return vs.strip() == "equilibrium" and moment is None and replies_with_equilibrium(game)


def _odds_and_best_response(played, equilibrium, opponent, me: str) -> tuple:
    """The equilibrium's odds against ``opponent`` and the best response to it, asked
    together (``solver.together``): the odds first, on this thread, so that one after
    the other its push forward is done before the best response's tables are built."""
    them = "b" if me == "a" else "a"
    fixed = read_policy(played, opponent, them)   # once for both questions
    pair = (equilibrium, fixed) if me == "a" else (fixed, equilibrium)

    def odds_against_it() -> dict:
        odds = evaluate(played, *pair).as_dict()
        progress.advance(1, STEPS[3])
        return odds
    return tuple(together(played, odds_against_it,
                          lambda: best_response(played, fixed, me, safest=equilibrium)))


#: the odds' steps, as the progress line names them
STEPS = ("the equilibrium", "the opponent", "the odds against it", "the best response",
         "the best response's odds", "the plan's chances")
#: what each step weighs in the odds' time, in solves of the duel, for the time left
#: said (level 5, measured where the best response was solved and pushed on its own: the
#: equilibrium 32 s, its odds' push forward 7.5 s, the best response's solve 16.5 s and
#: its push 12 s; the plan about a second, its chances read off the best response's
#: values where every duel ends in a win or a loss: a duel that may end drawn takes a
#: pass or two, in seconds, weighed as nothing here); the opponent's step weighs next
#: to nothing but for a personality (``checks.CALIBRATION_COST``)
STEP_WEIGHTS = (1.0, 0.05, 0.25, 0.5, 0.35, 0.03)


def _step_weights(game, vs: str, whole_duel: bool) -> tuple[float, ...]:
    weights = list(STEP_WEIGHTS)
    if checks.is_personality(vs, game.info.system):
        weights[1] = checks.CALIBRATION_COST.solves
    if vs.strip() == "equilibrium" and whole_duel:
        # the equilibrium's odds are its own play pushed forward, visits and all; in a
        # knockout (the longest duels) the best response to it is that play. A duel
        # that may end drawn still solves it (weighed as nothing here), in seconds
        weights[2:] = weights[4], 0.0, 0.0, weights[5]
    return tuple(weights)


def _question(vs: str, me: str) -> str | None:
    """The answer store's question of the odds against ``vs``: a profile by its
    contents (a file trained again is another opponent), any other opponent by its
    text; None for a profile that cannot be read (its error is said as usual)."""
    if is_profile_path(vs):
        try:
            vs = "profile sha256=" + hashlib.sha256(Path(vs).read_bytes()).hexdigest()
        except OSError:
            return None
    return f"odds|side={me}|vs={vs.strip()}"


def _mine(evaluation: dict, me: str) -> dict:
    """An evaluation from A's side, turned to ``me``'s."""
    if me == "a":
        return evaluation
    return dict(evaluation, value=-evaluation["value"], win=evaluation["loss"],
                loss=evaluation["win"])


#: the likeliest situations of a plan checked for choices all worth the same
CHECKED_ROWS = 50


def _plan(game, response, me: str) -> Plan:
    """What to play in every situation the best response reaches where there is a choice,
    most likely first; the ``CHECKED_ROWS`` likeliest say whether every choice there is
    worth the same against the opponent (``all_equal``)."""
    found = response.decisions(chances=True).most_reached_first()
    words = envs.spec(game.info.system).action_words
    checked = found.states[:CHECKED_ROWS]
    checks = {}
    for row, (state, values) in enumerate(zip(checked, response.action_values_of(checked),
                                              strict=True)):
        worths = _worths(game, values)
        checks[row] = {"all_equal": bool(np.ptp(list(worths.values())) <= SAME_WORTH)}
        if checks[row]["all_equal"]:
            checks[row]["choices"] = [_said(game, state, name, words) for name in worths]
    return Plan(game, me, found, checks)


class Plan(Sequence):
    """A plan's rows, each made as it is read (printed, or written as JSON): level 1's
    sheets at 50 HP a side have 679,000 of them, 1.85 KB each as dicts, more than the
    best response's tables; here a state, a mix and five numbers. Equal to any sequence
    of the same rows."""

    def __init__(self, game, me: str, found: DecisionTable, checks: dict[int, dict]):
        self.game, self.me, self.checks = game, me, checks
        self.states = _compact(found.states)
        self.reach = np.asarray(found.reach, dtype=float)
        self.mixes = np.asarray(found.mixes, dtype=float).reshape(
            len(found), len(game.info.action_names))
        self.values = np.asarray(found.values, dtype=float)
        # A's (win, draw, loss), turned to mine
        chances = np.asarray(found.chances, dtype=float).reshape(-1, 3)
        self.chances = chances if me == "a" else chances[:, ::-1].copy()

    def __len__(self) -> int:
        return len(self.states)

    @cached_property
    def _words(self):
        return envs.spec(self.game.info.system).action_words

    def __getstate__(self) -> dict:
        # the system's words are looked up again once read back (a lambda, at times)
        return {key: value for key, value in self.__dict__.items() if key != "_words"}

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._row(i) for i in range(*index.indices(len(self)))]
        at = range(len(self))[index]   # an IndexError past either end
        return self._row(at)

    def _row(self, i: int) -> dict:
        game, state, mix = self.game, self.states[i], self.mixes[i].tolist()
        words, names = self._words, game.info.action_names
        played = [k for k, p in enumerate(mix) if p]
        win, draw, loss = self.chances[i].tolist()
        return {
            "reach": float(self.reach[i]),
            "situation": game.situation(state, self.me),
            "state": game.state_fields(state),
            "play": {names[k]: mix[k] for k in played},
            "words": {names[k]: _said(game, state, names[k], words, "play ") for k in played},
            "win": win, "draw": draw, "loss": loss, "value": float(self.values[i]),
            **self.checks.get(i, {}),
        }

    def __eq__(self, other) -> bool:
        return (isinstance(other, Sequence) and not isinstance(other, str)
                and len(self) == len(other)
                and all(a == b for a, b in zip(self, other, strict=True)))

    __hash__ = None


class _States(Sequence):
    """States of one kind held as one array of their integer fields, each made again
    when read: a level-5 plan's 309,000 states are kept, and read back from the answer
    store, as one array rather than object by object (half a second of a warm answer)."""

    def __init__(self, kind: type, fields: np.ndarray):
        self.kind, self.fields = kind, fields

    def __len__(self) -> int:
        return len(self.fields)

    def __getitem__(self, index: int):
        return self.kind(*self.fields[index].tolist())


def _compact(states: Sequence) -> Sequence:
    """A list of ``states`` as ``_States`` where they are all of one named-tuple kind
    whose fields are integers within int64 (every system's states), else as they are
    (states already held as arrays among them: ``solver.decision_table.AttachedStates``)."""
    if not isinstance(states, list) or not states or not hasattr(type(states[0]), "_fields"):
        return states
    kind, width = type(states[0]), len(states[0])
    if any(type(state) is not kind for state in states) or set(
            map(type, chain.from_iterable(states))) != {int}:
        return states
    try:
        fields = np.fromiter(chain.from_iterable(states), np.int64, len(states) * width)
    except OverflowError:   # past int64
        return states
    return _States(kind, fields.reshape(len(states), width))


def _said(game, state, name: str, words, plain: str = "") -> str:
    """An action in the system's words, or its name after ``plain``."""
    return plain + name if words is None else words(game, state, name)


def _worths(game, values: np.ndarray) -> dict[str, float]:
    """Each legal choice of the responder (``values``: his worth of each action at a
    state against the opponent, the best response played after it; NaN where illegal)
    and its worth, by name."""
    names = game.info.action_names
    return {names[i]: float(values[i]) for i in np.flatnonzero(~np.isnan(values)).tolist()}


def _fallback(response, mix: MixPolicy, them: str) -> dict:
    """How often the mix had none of its actions legal (and played uniformly)."""
    masks, visits = response.live_visits(them)
    uncovered = [k for k, mask in enumerate(masks) if not mix.covers(mask)]
    total = float(visits.sum())
    expected = float(visits[uncovered].sum()) if uncovered else 0.0
    return {"steps_per_duel": expected, "share_of_steps": expected / total if total else 0}


def _times(reach: float, from_moment: bool = False) -> str:
    """How often a situation comes up: its expected visits, which can pass one where a
    round can come back to the same situation (nobody hurt), so not "in x% of duels"."""
    return (f"comes up {100 * reach:.3g} times in 100 duels"
            + (" played from this moment" if from_moment else ""))


def _render(game, report: dict, limit: int, detail: bool) -> str:
    best, eq = report["best_response"], report["equilibrium_against_it"]
    columns = ["if you play", "win", "draw", "lose"] + (
        ["value", game.info.length_unit + "s"] if detail else [])
    rows = []
    for label, r in (("your best play against it", best),
                     ("the least predictable safe play", eq)):
        extra = [f"{r['value']:+.4f}", f"{r['expected_length']:.2f}"] if detail else []
        rows.append([label, percent(r["win"]), percent(r["draw"]), percent(r["loss"]), *extra])
    lines = [game_header(game, report["side"]), f"Your opponent plays {report['vs']}.", ""]
    if "description" in report:
        lines += ["From this moment on:", report["description"], ""]
    lines += [format_table(columns, rows),
             "(the least predictable safe play is the equilibrium: no opponent can do better "
             "than its odds against it.)"]
    if report["equally_good"]:
        worth = f"{best['value']:+.3f}"
        lines.append(
            f"(both plays are equally good against it: each is worth {worth} to you, split "
            "differently between wins and draws. The best play shown is, of the equally "
            "good replies, the one least likely to lose, then the closest to the "
            "equilibrium.)" if abs(best["win"] - eq["win"]) > SAME_WORTH else
            f"(both plays are equally good against it: each is worth {worth} to you.)")
    if "mix_fallback" in report:
        fb = report["mix_fallback"]
        lines.append(f"\nThe mix had no legal action in {fb['steps_per_duel']:.3f} steps per "
                     f"duel ({percent(fb['share_of_steps'])} of them) and played uniformly "
                     "there.")
    plan = report["plan"]
    lines += ["", f"Your best play, situation by situation (the {min(limit, len(plan))} "
                  f"most likely of {len(plan)}; of equally good plays, the one least likely "
                  "to lose, then the closest to the equilibrium):"]
    for row in plan[:limit]:
        shown = play_text(in_words(row["play"], row["words"]))
        if row.get("all_equal"):
            listed = ", ".join(row["choices"])
            shown = (f"any choice ({listed}): all are equally good against it"
                     if len(listed) <= 80 else
                     f"any of the {len(row['choices'])} choices: all are equally good "
                     "against it")
        advice = (f"- {row['situation'][0].upper()}{row['situation'][1:]}: "
                  f"{shown}; you win {percent(row['win'])}, lose "
                  f"{percent(row['loss'])} ({_times(row['reach'], 'state' in report)}).")
        if detail:
            advice += f" [value {row['value']:+.4f}]"
        lines.append(advice)
    return "\n".join(lines)
