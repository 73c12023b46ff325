"""What a profile records about a policy for a game with hidden types: exact where
``solver.hidden.sequence`` can unroll the game (one round of hidden levels), estimated by a trained
best responder beyond (``agents.hidden_learner``), and always saying which.

Exact: the game's value (the sequence-form equilibrium), the profile's value against the
exact best response over information sets and against the equilibrium, with the chances
of winning, drawing and losing. Estimated: the profile's mean payoff against a trained
best responder over sampled duels and, given the profile's training partner, its mean
payoff in self-play; the exploitability is their difference, with a 95% interval.
"""

from __future__ import annotations

import math

import numpy as np

from solver.gains import gain_over
from solver.game import Game, Policy, other
from solver.hidden.sequence import (
    HiddenSolution,
    Tree,
    best_response_mixes,
    policy_plan,
    realisation,
    solve_hidden,
)
from solver.progress import advance, task

from .hidden_learner import (
    ESTIMATED_METHOD,
    EXACT_METHOD,
    Z_95,
    HiddenConfig,
    exact_tree,
    play,
    train_responder,
)


def hidden_metrics(game: Game, policy: Policy, side: str, opponent: Policy | None = None,
                   config: HiddenConfig | None = None) -> tuple[dict, HiddenSolution | None]:
    """The ``metrics`` object of a profile of ``policy`` playing ``side`` of ``game``
    (hidden information), and the exact equilibrium where there is one.
    ``config.measure="exact"`` on a game the exact measure cannot take is an InputError
    saying so."""
    config = config or HiddenConfig()
    with task("measuring it exactly", 3, "steps"):
        tree = exact_tree(game, config)
        if tree is None:
            return estimated_metrics(game, policy, side, opponent, config), None
        advance(1, "the duel unrolled")
        solution = solve_hidden(game, config.max_nodes)
        advance(1, "its equilibrium")
        metrics = exact_metrics(game, solution, policy, side)
        advance(1, "the best reply to the NPC")
    return metrics, solution


def exact_metrics(game: Game, solution: HiddenSolution, policy: Policy, side: str) -> dict:
    foe, tree = other(side), solution.tree
    mine = policy_plan(game, tree, policy, side)
    _, mixes = best_response_mixes(tree, foe, mine)
    response = realisation(tree.players[foe], mixes)
    sign = 1.0 if side == "a" else -1.0
    against_response = _outcome(tree, {side: mine, foe: response}, side)
    against_equilibrium = _outcome(tree, {side: mine, foe: solution.plans[foe]}, side)
    game_value = sign * solution.value
    return {
        "exact": True,
        "exploitability_method": EXACT_METHOD,
        "game_value": game_value,
        "value_against_best_response": against_response["value"],
        "exploitability": gain_over(-against_response["value"], -game_value,
                                    game.info.payoff_bounds),
        "against_equilibrium": against_equilibrium,
        "against_best_response": against_response,
    }


def _outcome(tree: Tree, plans: dict[str, np.ndarray], side: str) -> dict:
    """Value and win / draw / loss of a pair of plans, from ``side``'s point of view."""
    reach = (np.asarray(tree.leaf_chance)
             * plans["a"][np.asarray(tree.leaf_seq["a"], dtype=np.int64)]
             * plans["b"][np.asarray(tree.leaf_seq["b"], dtype=np.int64)])
    payoff = np.asarray(tree.leaf_payoff)
    sign = 1.0 if side == "a" else -1.0
    win = float(reach[sign * payoff > 0].sum())
    loss = float(reach[sign * payoff < 0].sum())
    return {"value": float(sign * reach @ payoff), "win": win,
            "draw": float(reach[payoff == 0].sum()), "loss": loss}


def estimated_metrics(game: Game, policy: Policy, side: str, opponent: Policy | None,
                      config: HiddenConfig) -> dict:
    sign = 1.0 if side == "a" else -1.0
    rng = np.random.default_rng(config.seed + 2)
    games = config.responder_games
    responder = train_responder(game, policy, other(side), config)
    pair = (policy, responder) if side == "a" else (responder, policy)
    exploited = sign * play(game, *pair, games, rng)
    metrics = {"exact": False,
               "value_against_best_response": float(exploited.mean())}
    variance = exploited.var(ddof=1) / games
    if opponent is not None:
        pair = (policy, opponent) if side == "a" else (opponent, policy)
        selfplay = sign * play(game, *pair, games, rng)
        variance += selfplay.var(ddof=1) / games
        metrics["self_play_value"] = float(selfplay.mean())
        metrics["exploitability"] = float(selfplay.mean() - exploited.mean())
    interval = Z_95 * math.sqrt(variance)
    metrics["exploitability_interval"] = interval
    metrics["exploitability_method"] = ESTIMATED_METHOD.format(games=games, interval=interval)
    return metrics
