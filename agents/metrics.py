"""What a profile records about its policy, computed exactly: how much a best
responder takes from it, how it fares against the equilibrium, how often it plays
each action by situation, and how to exploit it, in words.

Situations are weighted one way everywhere (the tendencies, the exploit section, the
claims of the temperaments' descriptions): by how often the profile reaches each state
when it plays against the maximum-entropy equilibrium (``WEIGHTING``). So "RR 56%" in
one table is "RR 56%" in the other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

import envs
from solver import best_response, solve_game
from solver.gains import gain_over
from solver.game import Game, Policy, other
from solver.markov.evaluate import Evaluation
from solver.solve import decisions as solver_decisions

from .temperaments import OVERALL as _OVERALL
from .temperaments import Situation, situations

if TYPE_CHECKING:  # the hidden-level learner needs torch: imported only when used
    from .hidden_learner import HiddenConfig

WEIGHTING = ("each situation weighted by how often it arises when the profile plays "
             "against the equilibrium")
#: shares of actions this close are tied for the most frequent
TIE = 1e-12


def profile_metrics(game: Game, policy: Policy, side: str,
                    opponent: Policy | None = None, config: HiddenConfig | None = None) -> dict:
    """The ``metrics`` object of a profile of ``policy`` playing ``side``.

    Exact where the game is of public information (whichever way the solver answers
    it). With hidden information (``agents.hidden_metrics``):
    exact where the exact solver can unroll the game, with the tendencies against its
    equilibrium; otherwise estimated by a trained best responder (``config`` says how),
    ``opponent`` being the profile's training partner.
    """
    if not game.info.public_information:
        return _hidden_metrics(game, policy, side, opponent, config)
    solution = solve_game(game)
    sign = 1.0 if side == "a" else -1.0
    response = best_response(game, policy, other(side))
    seen = decisions(game, policy, solution.policy_for(other(side)), side)
    game_value = sign * solution.value
    exploited = -response.value
    mine = seen.mixes(policy, side)
    return {
        "exact": True,
        "game_value": game_value,
        "value_against_best_response": exploited,
        "exploitability": gain_over(response.value, -game_value, game.info.payoff_bounds),
        "against_equilibrium": _outcome(seen.evaluation, side),
        "against_best_response": _outcome(response.evaluation, side),
        "tendencies_against": "the equilibrium",
        "weighting": WEIGHTING,
        "situations": tendencies(game, seen, mine),
        "exploit": exploit(game, seen, mine, seen.response_mixes(response)),
    }


def _hidden_metrics(game: Game, policy: Policy, side: str, opponent: Policy | None,
                    config: HiddenConfig | None) -> dict:
    from .hidden_metrics import hidden_metrics

    metrics, solution = hidden_metrics(game, policy, side, opponent, config)
    # where the game unrolls its graph can be listed too; the tendencies are weighted by
    # the equilibrium as a policy on observations, which needs them to recall everything
    if solution is not None and solution.perfect_recall[other(side)]:
        seen = decisions(game, policy, solution.policy_for(other(side)), side)
        metrics.update(tendencies_against="the equilibrium", weighting=WEIGHTING,
                       situations=tendencies(game, seen, seen.mixes(policy, side)))
    return metrics


def _outcome(evaluation: Evaluation, side: str) -> dict:
    """Value and win / draw / loss from ``side``'s point of view."""
    if side == "a":
        return {"value": evaluation.value, "win": evaluation.win, "draw": evaluation.draw,
                "loss": evaluation.loss}
    return {"value": -evaluation.value, "win": evaluation.loss, "draw": evaluation.draw,
            "loss": evaluation.win}


class _Seen:
    """Where ``side``'s play is reported (``solver.decisions``: the state graph's live
    states, or over the counters the states where someone chooses), how often the pair
    gets there, and the side's observation at each."""

    def __init__(self, game: Game, played, side: str):
        self.game, self.played = game, played
        self.evaluation, self.visits, self.live = played.evaluation, played.visits, played.live
        self.observations = np.asarray([game.observe(state, side) for state in played.states],
                                       dtype=np.int64)

    def mixes(self, policy: Policy, player: str) -> np.ndarray:
        return self.played.mixes(policy, player)

    def state(self, k: int):
        return self.played.states[k]

    def response_mixes(self, response) -> np.ndarray:
        return self.played.response_mixes(response)


def decisions(game: Game, policy: Policy, opponent: Policy, side: str) -> _Seen:
    """Where ``side``'s play is reported and how often ``policy`` gets there against
    ``opponent`` (``WEIGHTING``)."""
    pair = (policy, opponent) if side == "a" else (opponent, policy)
    return _Seen(game, solver_decisions(game, *pair), side)


def _average(mixes: np.ndarray, members: np.ndarray, visits: np.ndarray) -> np.ndarray:
    """Visit-weighted mean mix (of decisions the play reaches)."""
    weights = visits[members]
    return weights @ mixes[members] / weights.sum()


def _share(part: float, whole: float) -> float:
    """``part`` over ``whole`` where the part is a subset of the whole: summed in another
    order it can pass the whole by a rounding (1.0000000000000002), which is no share."""
    return float(min(part / whole, 1.0))


def _most(mix: np.ndarray) -> int:
    """The most frequent action, the first of those tied to rounding (uniform play sums
    its shares in different orders on the state graph and over the counters)."""
    return int(np.flatnonzero(mix >= mix.max() - TIE)[0])


def _named(game: Game, mix: np.ndarray) -> dict[str, float]:
    return {a: float(p) for a, p in zip(game.info.action_names, mix, strict=True)}


def _members(game: Game, seen, situation: Situation) -> np.ndarray:
    """The decisions whose observation is in the situation."""
    return np.flatnonzero(situation.rows(game)(seen.observations)) if len(
        seen.observations) else np.zeros(0, dtype=np.int64)


def tendencies(game: Game, seen, mixes: np.ndarray,
               classes: Sequence[Situation] | None = None) -> list[dict]:
    """For each situation class the play reaches: its share of the profile's decisions
    (``reach``) and how often the profile plays each action there (``mixes``, by
    decision), weighted by the decisions' visits (``seen``, from ``decisions``)."""
    rows = []
    for situation in classes or situations(game.info.system):
        members = _members(game, seen, situation)
        if not len(members) or seen.visits[members].sum() <= 0:
            continue
        mix = _average(mixes, members, seen.visits)
        rows.append({"name": situation.name, "text": situation.text,
                     "reach": _share(seen.visits[members].sum(), seen.live),
                     "frequencies": _named(game, mix),
                     "most_frequent": game.info.action_names[_most(mix)]})
    return rows


def exploit(game: Game, seen, mixes: np.ndarray, response_mixes: np.ndarray) -> list[dict]:
    """How to exploit the profile: by situation, its most frequent action and the best
    responder's answer there, with a sentence; weighted as the tendencies are."""
    rows = []
    names = game.info.action_names
    for situation in situations(game.info.system):
        members = _members(game, seen, situation)
        if not len(members) or seen.visits[members].sum() <= 0:
            continue
        mine = _average(mixes, members, seen.visits)
        answer = _average(response_mixes, members, seen.visits)
        top, reply = _most(mine), _most(answer)
        # in words at the situation's likeliest moment (Blooded's "3" is a bid or a wager)
        words = _words(game, seen.state(int(members[np.argmax(seen.visits[members])])))
        rows.append({"name": situation.name,
                     "reach": _share(seen.visits[members].sum(), seen.live),
                     "most_frequent": names[top],
                     "its_frequency": float(mine[top]), "answer": names[reply],
                     "answer_frequency": float(answer[reply]),
                     "best_response": _named(game, answer),
                     "text": f"{_sentence(situation.text)}, it plays {words(names[top])} "
                             f"{mine[top]:.0%} of the time: answer {words(names[reply])} "
                             f"({answer[reply]:.0%} of the best response there)."})
    return rows


def _words(game: Game, state) -> Callable[[str], str]:
    """An action in the system's words at ``state`` (``SystemSpec.action_words``), or
    its name where the system reads its names as they are."""
    known = envs.systems().get(game.info.system)
    spoken = known.action_words if known is not None and known.implemented else None
    return (lambda name: name) if spoken is None else (
        lambda name: spoken(game, state, name))


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def frequencies(game: Game, policy: Policy, side: str) -> dict[str, float]:
    """How often ``policy`` plays each action over the whole duel (``WEIGHTING``)."""
    seen = decisions(game, policy, solve_game(game).policy_for(other(side)), side)
    return tendencies(game, seen, seen.mixes(policy, side),
                      classes=(_OVERALL,))[0]["frequencies"]


def characteristic_action(game: Game, policy: Policy, side: str) -> dict:
    """The action ``policy`` plays most above the equilibrium's own frequency (both over
    the whole duel, ``WEIGHTING``): what a GM notices about it first."""
    mine = frequencies(game, policy, side)
    sound = frequencies(game, solve_game(game).policy_for(side), side)
    action = max(mine, key=lambda a: mine[a] - sound[a])
    return {"action": action, "frequency": mine[action], "equilibrium": sound[action]}
