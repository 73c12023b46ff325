"""The one place the solver decides how to answer a game: which backend (the state graph,
``solver.markov``, or the counters, ``solver.counters``) answers a question, and how a
policy given by name becomes a policy.

Every public question (``solve_game``, ``solve_moment``, ``evaluate``, ``best_response``,
``exploitability``, ``solve_regularized``) comes through here. Nothing outside
``solver`` asks which backend ran.

The counters backend is imported when first used: it compiles with numba, and
``import solver`` stays light.
"""

from __future__ import annotations

import weakref

import numpy as np

from .errors import InputError
from .game import Game, Policy, State
from .markov import backward, regularized, response
from .markov import evaluate as markov_evaluate
from .markov.graph import StateGraph, build_graph
from .markov.stages import MAX_SWEEPS, TOLERANCE
from .policy import POLICY_FORMS, named_policy

#: the most states a counter game may spell out one by one (its cores times its counter
#: values bound them; beyond, exploring takes many minutes and gigabytes)
MAX_COUNTED_STATES = 5_000_000


def _counted_bound(game: Game) -> tuple[int, tuple[int, ...]]:
    """A counter game's cores times its counter values (a bound on its states), and
    the counters' values at the start."""
    from .counters.cores import explore  # numba: only counter games load it

    cores, grid, _ = explore(game)
    return cores.size * grid.size, grid.top


def fits_state_graph(game: Game) -> bool:
    """Whether a game's states may be held one by one: any game without counters, a
    counter game whose bound is at most ``MAX_COUNTED_STATES``."""
    return not game.info.has("counters") or _counted_bound(game)[0] <= MAX_COUNTED_STATES


def answers_on_counters(game: Game, start: State | None = None) -> bool:
    """Whether a question about ``game`` from its start is answered over its counters
    (``solver.counters.play``): it declares them and its state graph would be refused as
    too large. Below that size the state graph's answers keep their per-state tables."""
    return start is None and game.info.has("counters") and not fits_state_graph(game)


def require_states(game: Game) -> None:
    """Refuse, in words and before any work, a counter game too large to hold state by
    state: its solution (``solve_game``) and the answers against a fixed policy cover
    every counter value at once, but training and a profile's tables go state by
    state."""
    if not game.info.has("counters"):
        return
    bound, top = _counted_bound(game)
    if bound <= MAX_COUNTED_STATES:
        return
    held = " and ".join(str(int(value)) for value in top)
    raise InputError(
        f"this duel is too large to take situation by situation (training, a profile's "
        f"table of every situation): with its counters at {held} it has up to {bound:,} "
        f"situations, more than the {MAX_COUNTED_STATES:,} that fit here. `duel solve` "
        "and `duel odds` still answer it whole; a shorter duel fits (lower hit points or "
        "fewer beats, or a duel that ends sooner)")


def state_graph(game: Game) -> StateGraph:
    """The state graph of ``game`` from its initial outcomes, for callers that need a
    table of every state (training, a profile's tables); refused, in words, for a
    counter game too large to hold state by state (``require_states``)."""
    require_states(game)
    return build_graph(game)


#: a counter game's solution, once per game and tolerance: the answers against a fixed
#: opponent (``duel odds``, a personality's calibration) ask for the equilibrium of
#: the same large duel several times
_COUNTER_SOLUTIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _counter_solution(game: Game, tolerance: float, max_sweeps: int):
    from .counters.solution import solve_counters

    known = _COUNTER_SOLUTIONS.setdefault(game, {})
    if (tolerance, max_sweeps) not in known:
        known[tolerance, max_sweeps] = solve_counters(game, tolerance, max_sweeps)
    return known[tolerance, max_sweeps]


def solve_game(game: Game, start: State | None = None, tolerance: float = TOLERANCE,
               max_sweeps: int = MAX_SWEEPS):
    """Solve ``game`` from its initial outcomes (or from ``start``): the value, win /
    draw / loss and the maximum-entropy equilibrium at every state
    (``solution.policy(state)``).

    ``tolerance`` and ``max_sweeps`` apply to the parts of the game with cycles, solved
    by value iteration (see ``solver.markov.stages.sweep``); ``solution.convergence``
    says how it went.
    """
    markov_evaluate.require_public(game, "the exact solution")
    if start is None and game.info.has("counters"):
        return _counter_solution(game, tolerance, max_sweeps)
    return backward.solve_graph(game, start, tolerance, max_sweeps)


def solve_moment(game: Game, state: State, tolerance: float = TOLERANCE,
                 max_sweeps: int = MAX_SWEEPS):
    """The duel from a given moment: a game declaring the ``counters`` fast path over
    every counter value up to the moment's (``solver.counters``), any other over the
    states reachable from it."""
    if game.info.has("counters"):
        markov_evaluate.require_public(game, "the exact solution")
        from .counters.solution import solve_counters
        return solve_counters(game, tolerance, max_sweeps, start=state)
    return solve_game(game, start=state, tolerance=tolerance, max_sweeps=max_sweeps)


def evaluate(game: Game, policy_a: Policy, policy_b: Policy,
             start: State | None = None):
    """Exact value and outcome probabilities of ``policy_a`` against ``policy_b``."""
    policy_a = resolve_policy(policy_a, game, "a")
    policy_b = resolve_policy(policy_b, game, "b")
    if answers_on_counters(game, start):
        from .counters.play import counter_evaluate
        return counter_evaluate(game, policy_a, policy_b)
    return markov_evaluate.evaluate_graph(game, policy_a, policy_b, start)


def best_response(game: Game, policy: Policy, responder: str,
                  tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS,
                  safest: Policy | None = None):
    """What ``responder`` ("a" or "b") should play against ``policy`` on the other side.

    The responder sees the whole state (the game is of public information), the fixed
    side is evaluated on its own observations. Cyclic games use value iteration to
    ``tolerance``. Where several actions reach the best value they share the play
    evenly; with ``safest`` (a reference policy of the responder, e.g. his
    equilibrium) the play is instead the safest of them: the lowest probability of
    losing, then as close to ``safest`` as possible (its mix restricted to the actions
    still tied, or an even split where it plays none of them).
    """
    markov_evaluate.require_public(game, "the exact best response")
    if not isinstance(responder, str) or responder not in ("a", "b"):
        raise InputError(f"unknown responder {responder!r}; allowed: a, b")
    policy = resolve_policy(policy, game, "b" if responder == "a" else "a")
    if safest is not None:
        safest = resolve_policy(safest, game, responder)
    if answers_on_counters(game):
        from .counters.play import counter_best_response
        return counter_best_response(game, policy, responder, tolerance, max_sweeps, safest)
    return response.best_response_graph(game, policy, responder, tolerance, max_sweeps, safest)


def exploitability(game: Game, policy_a: Policy, policy_b: Policy) -> response.Exploitability:
    """NashConv / 2 as in OpenSpiel: the mean of what each best responder gains over the
    pair's own value, plus the two gains separately; 0 at an equilibrium."""
    policy_a = resolve_policy(policy_a, game, "a")
    policy_b = resolve_policy(policy_b, game, "b")
    pair = evaluate(game, policy_a, policy_b).value
    against_b = best_response(game, policy_b, "a").value
    against_a = best_response(game, policy_a, "b").value
    return response.exploitability_of(game, pair, against_b, against_a)


def solve_regularized(game: Game, player: str, prior: Policy, beta: float,
                      tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS):
    """Backward induction of the regularised game: ``player`` stays within ``beta`` KL of
    ``prior`` (a policy on its observations), the other side best-responds
    (``solver.markov.regularized``)."""
    markov_evaluate.require_public(game, "the regularised solution")
    if player not in ("a", "b"):
        raise ValueError(f"player must be 'a' or 'b', got {player!r}")
    if beta < 0 or np.isnan(beta):
        raise ValueError(f"beta must be >= 0, got {beta}")
    prior = resolve_policy(prior, game, player)
    if answers_on_counters(game):
        from .counters.play import counter_regularized
        return counter_regularized(game, player, prior, beta, tolerance, max_sweeps)
    return regularized.solve_regularized_graph(game, player, prior, beta, tolerance, max_sweeps)


def resolve_policy(spec: object, game: Game, player: str) -> Policy:
    """The policy ``spec`` names for ``player`` of ``game``: a policy object as is, or
    one of the names ``uniform``, ``equilibrium`` (the maximum-entropy equilibrium of
    the whole duel) and ``mix=ACTION:WEIGHT,...``. The one place names become policies
    (``envs.opponents`` adds profile checks on top); the solver needs nothing else."""
    if isinstance(spec, str) and spec.strip() == "equilibrium":
        if player not in ("a", "b"):
            raise InputError(f"unknown player {player!r}; allowed: a, b")
        return equilibrium_policy(game, player)
    return named_policy(spec, game, player)


def equilibrium_policy(game: Game, player: str) -> Policy:
    """``player``'s maximum-entropy equilibrium of the whole duel."""
    if not game.info.public_information:
        raise InputError(f"the exact equilibrium of {game.info.system} with hidden information "
                         "is not available yet; use the public variant, a mix or a "
                         "trained profile as the opponent")
    return solve_game(game).policy_for(player)


__all__ = ["MAX_COUNTED_STATES", "POLICY_FORMS", "answers_on_counters", "best_response",
           "equilibrium_policy", "evaluate", "exploitability",
           "fits_state_graph", "require_states", "resolve_policy", "solve_game",
           "solve_moment", "solve_regularized", "state_graph"]
