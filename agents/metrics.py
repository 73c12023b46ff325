"""What a profile records about its policy, computed exactly: how much a best
responder takes from it, how it fares against the equilibrium, how often it plays
each action by situation, and how to exploit it, in words.

Situations are weighted one way everywhere (the tendencies, the exploit section, the
claims of the temperaments' descriptions): by how often the profile reaches each state
when it plays against the maximum-entropy equilibrium (``WEIGHTING``). So "RR 56%" in
one table is "RR 56%" in the other.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from solver.backward import solve_game
from solver.errors import InputError
from solver.evaluate import Evaluation, evaluate, mixes_of, visit_counts
from solver.game import Game, Policy, other
from solver.graph import build_graph
from solver.response import best_response

from .hidden_learner import HiddenConfig
from .hidden_metrics import hidden_metrics
from .personalities import OVERALL as _OVERALL
from .personalities import Situation, situations
from .personalities import personality as compute_personality
from .profiles import Profile, build_profile

WEIGHTING = ("each situation weighted by how often it arises when the profile plays "
             "against the equilibrium")
#: a situation class that holds in more of the decisions than this tells a GM nothing
#: beyond "overall", so reports leave it out
TELLS_NOTHING = 0.9


def profile_metrics(game: Game, policy: Policy, side: str,
                    opponent: Policy | None = None, config: HiddenConfig | None = None) -> dict:
    """The ``metrics`` object of a profile of ``policy`` playing ``side``.

    Exact where the game is of public information. With hidden information
    (``agents.hidden_metrics``): exact where the exact solver can unroll the game, with
    the tendencies against its equilibrium; otherwise estimated by a trained best
    responder (``config`` says how), ``opponent`` being the profile's training partner.
    """
    if not game.info.public_information:
        return _hidden_metrics(game, policy, side, opponent, config)
    solution = solve_game(game)
    sign = 1.0 if side == "a" else -1.0
    response = best_response(game, policy, other(side))
    equilibrium = solution.policy_for(other(side))
    against = _evaluate(game, policy, equilibrium, side)
    game_value = sign * solution.value
    exploited = -response.value
    visits_eq = _visits(game, policy, equilibrium, side)
    return {
        "exact": True,
        "game_value": game_value,
        "value_against_best_response": exploited,
        "exploitability": max(0.0, game_value - exploited),
        "against_equilibrium": _outcome(against, side),
        "against_best_response": _outcome(response.evaluation, side),
        "tendencies_against": "the equilibrium",
        "weighting": WEIGHTING,
        "situations": tendencies(game, policy, side, visits_eq),
        "exploit": exploit(game, policy, side, response.mixes, visits_eq),
    }


def _hidden_metrics(game: Game, policy: Policy, side: str, opponent: Policy | None,
                    config: HiddenConfig | None) -> dict:
    metrics, solution = hidden_metrics(game, policy, side, opponent, config)
    # where the game unrolls its graph can be listed too; the tendencies are weighted by
    # the equilibrium as a policy on observations, which needs them to recall everything
    if solution is not None and solution.perfect_recall[other(side)]:
        visits = _visits(game, policy, solution.policy_for(other(side)), side)
        metrics.update(tendencies_against="the equilibrium", weighting=WEIGHTING,
                       situations=tendencies(game, policy, side, visits))
    return metrics


def _outcome(evaluation: Evaluation, side: str) -> dict:
    """Value and win / draw / loss from ``side``'s point of view."""
    if side == "a":
        return {"value": evaluation.value, "win": evaluation.win, "draw": evaluation.draw,
                "loss": evaluation.loss}
    return {"value": -evaluation.value, "win": evaluation.loss, "draw": evaluation.draw,
            "loss": evaluation.win}


def _evaluate(game: Game, policy: Policy, opponent: Policy, side: str) -> Evaluation:
    return evaluate(game, policy, opponent) if side == "a" else evaluate(game, opponent, policy)


def _pair(game: Game, policy: Policy, opponent_mixes: np.ndarray, side: str):
    mine = mixes_of(game, build_graph(game), policy, side)
    return (mine, opponent_mixes) if side == "a" else (opponent_mixes, mine)


def _visits(game: Game, policy: Policy, opponent: Policy, side: str) -> np.ndarray:
    graph = build_graph(game)
    theirs = mixes_of(game, graph, opponent, other(side))
    return visit_counts(graph, *_pair(game, policy, theirs, side))


def _members(game: Game, side: str, situation: Situation) -> np.ndarray:
    """Non-terminal states whose observation by ``side`` is in the situation."""
    graph = build_graph(game)
    matches = situation.matcher(game)
    return np.asarray([s for s in np.flatnonzero(~graph.terminal)
                       if matches(tuple(game.observe(graph.states[s], side)))], dtype=int)


def _average(mixes: np.ndarray, states: np.ndarray, visits: np.ndarray) -> np.ndarray:
    """Visit-weighted mean mix; the plain mean where the play never gets there."""
    weights = visits[states]
    if weights.sum() <= 0:
        weights = np.ones(len(states))
    return weights @ mixes[states] / weights.sum()


def _named(game: Game, mix: np.ndarray) -> dict[str, float]:
    return {a: float(p) for a, p in zip(game.info.action_names, mix, strict=True)}


def tendencies(game: Game, policy: Policy, side: str, visits: np.ndarray,
               classes: Sequence[Situation] | None = None) -> list[dict]:
    """For each situation class: its share of the profile's decisions (``reach``) and
    how often the profile plays each action there, weighted by ``visits``."""
    graph = build_graph(game)
    mixes = mixes_of(game, graph, policy, side)
    live = visits[~graph.terminal].sum()
    rows = []
    for situation in classes or situations(game.info.system):
        states = _members(game, side, situation)
        if not len(states):
            continue
        mix = _average(mixes, states, visits)
        rows.append({"name": situation.name, "text": situation.text,
                     "reach": float(visits[states].sum() / live) if live > 0 else 0.0,
                     "frequencies": _named(game, mix),
                     "most_frequent": game.info.action_names[int(np.argmax(mix))]})
    return rows


def exploit(game: Game, policy: Policy, side: str, response_mixes: np.ndarray,
            visits: np.ndarray) -> list[dict]:
    """How to exploit the profile: by situation, its most frequent action and the best
    responder's answer there, with a sentence; weighted by ``visits`` (the tendencies'
    weights, so the two agree)."""
    graph = build_graph(game)
    mixes = mixes_of(game, graph, policy, side)
    live = visits[~graph.terminal].sum()
    rows = []
    for situation in situations(game.info.system):
        states = _members(game, side, situation)
        if not len(states) or visits[states].sum() <= 0:
            continue
        mine = _average(mixes, states, visits)
        answer = _average(response_mixes, states, visits)
        top, reply = int(np.argmax(mine)), int(np.argmax(answer))
        names = game.info.action_names
        rows.append({"name": situation.name, "reach": float(visits[states].sum() / live),
                     "most_frequent": names[top],
                     "its_frequency": float(mine[top]), "answer": names[reply],
                     "answer_frequency": float(answer[reply]),
                     "best_response": _named(game, answer),
                     "text": f"{_sentence(situation.text)}, it plays {names[top]} "
                             f"{mine[top]:.0%} of the time: answer {names[reply]} "
                             f"({answer[reply]:.0%} of the best response there)."})
    return rows


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def frequencies(game: Game, policy: Policy, side: str) -> dict[str, float]:
    """How often ``policy`` plays each action over the whole duel (``WEIGHTING``)."""
    equilibrium = solve_game(game).policy_for(other(side))
    visits = _visits(game, policy, equilibrium, side)
    return tendencies(game, policy, side, visits, classes=(_OVERALL,))[0]["frequencies"]


def characteristic_action(game: Game, policy: Policy, side: str) -> dict:
    """The action ``policy`` plays most above the equilibrium's own frequency (both over
    the whole duel, ``WEIGHTING``): what a GM notices about it first."""
    mine = frequencies(game, policy, side)
    sound = frequencies(game, solve_game(game).policy_for(side), side)
    action = max(mine, key=lambda a: mine[a] - sound[a])
    return {"action": action, "frequency": mine[action], "equilibrium": sound[action]}


def make_profile(game: Game, side: str, *, personality: str | None = None,
                 strength: float = 0.5, policy: Policy | None = None, result=None,
                 name: str | None = None) -> Profile:
    """One call from a game to a profile with its exact metrics (where the game has
    public information), for exactly one of: a built-in ``personality`` of ``strength``
    (computed exactly), a ``policy``, or a training ``result`` (``agents.selfplay``'s
    ``TrainResult``, whose ``side`` policy is stored). ``save_profile(path,
    profile.document)`` writes it."""
    given = [what for what in (personality, policy, result) if what is not None]
    if len(given) != 1:
        raise InputError("make_profile takes exactly one of personality=, policy=, result=; "
                         f"got {len(given)}")
    record, training, source = None, None, "exact"
    if personality is not None:
        found = compute_personality(game, personality, strength, side)
        policy, record = found.policy, {"name": personality, "strength": found.strength}
    elif result is not None:
        policy, source = getattr(result, f"policy_{side}"), "trained"
        training = {"steps": result.step, "seconds": result.seconds}
    document = build_profile(game, policy, side, personality=record,
                             metrics=profile_metrics(game, policy, side), training=training,
                             source=source, name=name)
    return Profile(document)
