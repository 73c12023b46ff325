"""The one place the solver decides how to answer a game: which backend answers it
(``backend``), and how a policy given by name becomes a policy (``resolve_policy``).

The rule: **a game that declares the ``counters`` fast path is answered over its
counters (``solver.counters``), every other game over its state graph
(``solver.markov``)**, whatever the question (the solution, the evaluation of a pair,
a best response, exploitability, regularised play, a table of decisions) and from
the game's start or from a given moment. One backend per game, so two answers about
one duel never come from two solvers.

Why this rule: the counters backend is the one that answers a counter game whole at
every size (its state graph is refused past ``MAX_COUNTED_STATES``), and
``solve_game`` has always taken it for these games, so the solutions that the tests
and the benchmarks pin do not move. Choosing by size instead would have moved them
(the backends agree to about 1e-9 on cyclic duels, not to the last bit) and made
``duel solve`` of a medium duel explore millions of states one by one. The answers
against a fixed policy on counter games small enough for the state graph move from
it to the counters: on acyclic duels by rounding only; on cyclic ones (Pathfinder
without a round limit) by up to about 1e-9, as the tests comparing the backends
measure.

Every result offers one interface whatever the backend: ``value``, ``win``, ``draw``,
``loss``, ``expected_length``, ``endings`` and ``evaluation``; a solution
``policy(state)``, ``value_at(state)``, ``stage_matrix(state)``, ``policy_for(player)``
and ``state_table()`` (every live state with its visits and mixes, refused in words
for a duel too large to hold state by state); a best response ``policy``,
``mix_at(state)``, ``value_at(state)``, ``decisions()``, ``chances()`` and
``live_visits(player)``; a regularised solution ``value``, ``policy()``,
``mix_at(state)`` and ``value_at(state)``. Nothing outside ``solver`` asks which backend ran.

The counters backend and the regularised solver are imported when first used: they
compile with numba, and ``import solver`` stays light.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from .cache import AnswerCache, ambient, recalled, remembered
from .errors import InputError
from .game import Game, Policy, State
from .markov import backward, response
from .markov import evaluate as markov_evaluate
from .markov.graph import StateGraph, build_graph
from .markov.stages import MAX_SWEEPS, TOLERANCE
from .policy import named_policy

BACKENDS = ("counters", "states")
#: a backend forced by the tests (``forcing``), to compare the two on one game
_FORCED: list[str] = []


def backend(game: Game) -> str:
    """``"counters"`` for a game that declares the ``counters`` fast path, else
    ``"states"`` (see the module: the one rule)."""
    if _FORCED:
        return _FORCED[-1]
    return "counters" if game.info.has("counters") else "states"


@contextmanager
def forcing(name: str) -> Iterator[None]:
    """Answer every question by backend ``name`` inside the block: for tests that
    compare the backends on one game, never for callers."""
    if name not in BACKENDS:
        raise InputError(f"unknown backend {name!r}; allowed: {', '.join(BACKENDS)}")
    _FORCED.append(name)
    try:
        yield
    finally:
        _FORCED.pop()


def _on_counters(game: Game) -> bool:
    """Whether the counters backend answers ``game`` (the first time in a process it
    does, the compile it may need is said: ``solver.counters.compiled``)."""
    if backend(game) != "counters":
        return False
    from .counters.compiled import announce
    announce()
    return True


def require_states(game: Game) -> None:
    """Refuse, in words and before any work, a counter game too large to hold state by
    state: its answers cover every counter value at once, but training and a table
    of every state go state by state."""
    if game.info.has("counters"):
        from .counters.cores import require_states as refuse
        refuse(game)


def state_graph(game: Game) -> StateGraph:
    """The state graph of ``game`` from its initial outcomes, for callers that need a
    table of every state (training); refused, in words, for a counter game too large
    to hold state by state (``require_states``)."""
    require_states(game)
    return build_graph(game)


def require_table(game: Game) -> None:
    """Refuse, in words and before the solving, a game with too many decisions for a
    profile's table (``policy_table``)."""
    if _on_counters(game):
        from .counters.play import require_table as refuse
        refuse(game)
    else:
        require_states(game)


def policy_table(game: Game, policy: Policy, player: str) -> dict:
    """``policy``'s mix (over the whole action list) at every observation ``player``
    makes where the game is decided (a profile's table): every live state of the state
    graph, or every state where someone chooses over the counters (elsewhere the
    player has one legal action, which a missing observation plays anyway)."""
    policy = resolve_policy(policy, game, player)
    if _on_counters(game):
        from .counters.play import counter_table
        return counter_table(game, policy, player)
    return markov_evaluate.graph_table(game, policy, player)


def decisions(game: Game, policy_a: Policy, policy_b: Policy):
    """Where a pair's play is reported decision by decision, and how often it gets
    there: ``states``, ``visits``, ``live`` (the visits of every live state),
    ``evaluation``, ``mixes(policy, player)`` and ``response_mixes(best_response)`` at
    each decision (``GraphPlay`` over the state graph, ``CounterPlay`` over the
    counters, where the forced states report no choice)."""
    policy_a = resolve_policy(policy_a, game, "a")
    policy_b = resolve_policy(policy_b, game, "b")
    if _on_counters(game):
        from .counters.play import CounterPlay
        return CounterPlay(game, policy_a, policy_b)
    return markov_evaluate.GraphPlay(game, policy_a, policy_b)


def read_policy(game: Game, policy: Policy, player: str) -> Policy:
    """``policy`` as ``player`` of ``game``, read once: ``evaluate``, ``best_response``
    and ``solve_regularized`` on ``game`` then take what was read instead of asking
    the policy at every state again (a profile or a temperament read over a level-1
    Pathfinder duel takes a quarter to half a second each time). Read when first
    needed; the policy must not change afterwards. Where nothing is read ahead (a game
    without counters), the policy comes back as resolved."""
    policy = resolve_policy(policy, game, player)
    if not _on_counters(game):
        return policy
    from .counters.play import read_counter_policy
    return read_counter_policy(game, policy, player)


def solve_game(game: Game, start: State | None = None, tolerance: float = TOLERANCE,
               max_sweeps: int = MAX_SWEEPS, cache: AnswerCache | None = None,
               statistics: bool = False):
    """Solve ``game`` from its initial outcomes (or from the moment ``start``): the
    value, win / draw / loss and the maximum-entropy equilibrium at every state
    (``solution.policy(state)``).

    ``tolerance`` and ``max_sweeps`` apply to the parts of the game with cycles, solved
    by value iteration (see ``solver.markov.stages.sweep``); ``solution.convergence``
    says how it went.

    The solution from the game's start is computed once per game in a process (the
    answers against a fixed opponent ask for the equilibrium of the same duel several
    times), and read from / written to ``cache`` (an ``AnswerCache``; by default the
    store of the enclosing ``solver.cache.caching`` block, if any) when the game has
    an identity: read back, it answers exactly as the computed one. A moment of a duel
    whose whole solution this process or the store already has is read from it where
    it answers as a solve from the moment would (``CounterSolution.at_moment``: a
    counter game whose cycles, if any, reached their fixed point to rounding), its
    statistics pushed forward from the moment; any other moment is solved from it.

    The play under the equilibrium is pushed forward (win, draw, loss, length, endings,
    visits) when first asked, so that an equilibrium wanted for its mixes alone (an
    opponent's) never pays for it; with ``statistics`` it is pushed at once, before the
    solution is kept (a caller that reports them: the push reads the solution as
    computed, not the store's copy it would touch page by page). The numbers are the
    same either way.
    """
    markov_evaluate.require_public(game, "solve_game, the state-by-state solution,")
    store = None if _FORCED else (cache if cache is not None else ambient())
    question = f"solution|{backend(game)}|tolerance={tolerance!r}|max_sweeps={max_sweeps}"
    if start is not None:
        return _solve_from(game, start, tolerance, max_sweeps, store, question)
    solution = remembered(game, question,
                          lambda: _solve_whole(game, tolerance, max_sweeps, statistics),
                          store, lambda: _explored(game), lambda found: _adopt(game, found))
    _statistics_through(game, solution, question.replace("solution", "statistics", 1), store)
    if statistics:
        solution.evaluation   # noqa: B018 - read back without them: pushed now
    return solution


def _statistics_through(game: Game, solution, question: str,
                        store: AnswerCache | None) -> None:
    """A solution whose play is pushed forward only when its statistics are first asked
    (``CounterSolution.later``) finds them through ``store``: read back if kept, else
    pushed forward and kept beside the solution for the next question."""
    if getattr(solution, "later", None) is None or solution.statistics_source is not None:
        return
    solution.statistics_source = lambda: remembered(game, question, solution.pushed_forward,
                                                    store)


def _solve_from(game: Game, start: State, tolerance: float, max_sweeps: int,
                store: AnswerCache | None, whole: str):
    """The duel from the moment ``start``: read from the whole duel's solution when this
    process or ``store`` has it and it can say the same (``CounterSolution.at_moment``),
    else solved from ``start``."""
    known = None if _FORCED else recalled(game, whole, store, lambda found: _adopt(game, found))
    moment = getattr(known, "at_moment", None)
    derived = None if moment is None else moment(start, tolerance, max_sweeps)
    if derived is not None:
        return derived
    if not _on_counters(game):
        return backward.solve_graph(game, start, tolerance, max_sweeps)
    from .counters.solution import solve_counters
    return solve_counters(game, tolerance, max_sweeps, start=start)


def _solve_whole(game: Game, tolerance: float, max_sweeps: int, statistics: bool):
    if not _on_counters(game):
        return backward.solve_graph(game, None, tolerance, max_sweeps)
    from .counters.solution import solve_counters
    return solve_counters(game, tolerance, max_sweeps, later=not statistics)


def _explored(game: Game) -> dict:
    """What was explored to solve ``game``, kept with its solution so that the next
    questions about the same duel (a best response, an evaluation) need not explore it
    again."""
    if _on_counters(game):
        from .counters.cores import _CORES
        return {"cores": _CORES.get(game)}
    from .markov.graph import _GRAPHS
    return {"graph": _GRAPHS.get(game)}


def _adopt(game: Game, found: dict) -> None:
    """The explored graph read back becomes the game's: after an answer is kept, the
    store's copy replaces the one computed, which is then freed."""
    if found.get("cores") is not None:
        from .counters.cores import _CORES
        _CORES[game] = found["cores"]
    if found.get("graph") is not None:
        from .markov.graph import _GRAPHS
        _GRAPHS[game] = found["graph"]


def solve_moment(game: Game, state: State, tolerance: float = TOLERANCE,
                 max_sweeps: int = MAX_SWEEPS):
    """The duel from a given moment (``solve_game`` from ``state``): over every counter
    value up to the moment's for a counter game, over the states reachable from it for
    any other."""
    return solve_game(game, start=state, tolerance=tolerance, max_sweeps=max_sweeps)


def evaluate(game: Game, policy_a: Policy, policy_b: Policy,
             start: State | None = None):
    """Exact value and outcome probabilities of ``policy_a`` against ``policy_b``, from
    the game's start (or from the moment ``start``)."""
    policy_a = resolve_policy(policy_a, game, "a")
    policy_b = resolve_policy(policy_b, game, "b")
    if _on_counters(game):
        from .counters.play import counter_evaluate
        return counter_evaluate(game, policy_a, policy_b, start=start)
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
    if _on_counters(game):
        from .counters.play import counter_best_response
        return counter_best_response(game, policy, responder, tolerance, max_sweeps, safest)
    return response.best_response_graph(game, policy, responder, tolerance, max_sweeps,
                                        safest)


def replies_with_equilibrium(game: Game) -> bool:
    """Whether the best response to the equilibrium of ``game`` (``best_response``
    with the equilibrium as ``safest``) is the equilibrium's own play, read off its
    solve with no other: on counters, where every end of the duel is a win or a loss of
    one amount each (``solver.counters.play.losses_follow_value``) and the solve's mixes
    are best replies to each other (as an exact solve's are; not checked here). Asked
    after the solve, it explores nothing more."""
    if not _on_counters(game):
        return False
    from .counters.play import losses_follow_value
    return losses_follow_value(game)


def together(game: Game, *questions: Callable[[], object]) -> list:
    """The answers of ``questions`` (calls of this facade about ``game``), asked at once
    where the backend gains by it and has the room: a counter game whose tables are
    small, on a machine whose compiled loops may run on two threads at once
    (``solver.counters.play.fits_side_by_side``); one after the other otherwise, each
    one's tables freed before the next builds its own. The first is asked on this
    thread (its progress is heard here), the others on threads of their own; the
    answers are the same either way."""
    if len(questions) > 1 and _on_counters(game):
        from .counters.play import answered_side_by_side, fits_side_by_side
        if fits_side_by_side(game):
            return answered_side_by_side(*questions)
    return [question() for question in questions]


def exploitability(game: Game, policy_a: Policy, policy_b: Policy) -> response.Exploitability:
    """NashConv / 2 as in OpenSpiel: the mean of what each best responder gains over the
    pair's own value, plus the two gains separately; 0 at an equilibrium. With hidden
    information the best responders choose by information set, over the game's
    unrolled tree (``solver.hidden``); ``"equilibrium"`` is then its sequence-form one."""
    if not game.info.public_information:
        return _hidden_exploitability(game, policy_a, policy_b)
    policy_a = resolve_policy(policy_a, game, "a")
    policy_b = resolve_policy(policy_b, game, "b")
    pair = evaluate(game, policy_a, policy_b).value
    against_b = best_response(game, policy_b, "a").value
    against_a = best_response(game, policy_a, "b").value
    return response.exploitability_of(game, pair, against_b, against_a)


def _hidden_exploitability(game: Game, policy_a: Policy, policy_b: Policy):
    """``exploitability`` of a game with hidden information, over its unrolled tree: each
    best responder chooses by information set (``solver.hidden.sequence``)."""
    from .hidden.sequence import best_response_value, build_tree, policy_plan, solve_hidden

    def resolved(spec, side: str) -> Policy:
        if isinstance(spec, str) and spec.strip() == "equilibrium":
            return solve_hidden(game).policy_for(side)
        return named_policy(spec, game, side)

    tree = build_tree(game)
    plans = {side: policy_plan(game, tree, resolved(policy, side), side)
             for side, policy in (("a", policy_a), ("b", policy_b))}
    payoff = tree.payoff_matrix()
    pair = float(plans["a"] @ (payoff @ plans["b"]))
    against_b = best_response_value(tree, "a", plans["b"], payoff)
    against_a = best_response_value(tree, "b", plans["a"], payoff)
    return response.exploitability_of(game, pair, against_b, against_a)


def solve_regularized(game: Game, player: str, prior: Policy, beta: float,
                      tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS,
                      near=None):
    """Backward induction of the regularised game: ``player`` stays within ``beta`` KL of
    ``prior`` (a policy on its observations), the other side best-responds
    (``solver.markov.regularized``).

    ``near``, another regularised solution of the same game and player (a search over
    beta's earlier try), starts the stage problems from its play when its beta is close
    enough to help (``solver.counters.regularized.NEAR_FACTOR``); it is ignored otherwise,
    and by the state-graph backend, whose stage problems start cold. The answer is the same
    within each stage problem's certified gap; only the time differs."""
    markov_evaluate.require_public(game, "the regularised solution")
    if player not in ("a", "b"):
        raise ValueError(f"player must be 'a' or 'b', got {player!r}")
    if beta < 0 or np.isnan(beta):
        raise ValueError(f"beta must be >= 0, got {beta}")
    prior = resolve_policy(prior, game, player)
    if _on_counters(game):
        from .counters.regularized import counter_regularized
        return counter_regularized(game, player, prior, beta, tolerance, max_sweeps, near)
    from .markov import regularized  # numba (its barrier method): only regularised solves
    return regularized.solve_regularized_graph(game, player, prior, beta, tolerance,
                                               max_sweeps)


def stage_equilibria(game: Game, state: State):
    """Every extreme equilibrium of the exchange at ``state`` (its stage game: the
    continuation values of the duel from that moment, over the legal actions), listed
    by nashpy's vertex enumeration, with the weights that make the maximum-entropy pair
    (the one ``solve_game`` plays) a convex combination of them
    (``solver.matrix.extreme``)."""
    solution = solve_moment(game, state)
    matrix = solution.stage_matrix(state)
    legal_a = np.flatnonzero(~np.isnan(matrix).all(axis=1))
    legal_b = np.flatnonzero(~np.isnan(matrix).all(axis=0))
    names = game.info.action_names
    mix_a, mix_b = solution.policy(state)
    from .matrix.extreme import extreme_equilibria
    return extreme_equilibria(matrix[np.ix_(legal_a, legal_b)],
                              [names[i] for i in legal_a], [names[j] for j in legal_b],
                              (mix_a[legal_a], mix_b[legal_b]))


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
                         f"is not available yet as an opponent here; it is "
                         f"{markov_evaluate.HIDDEN_SOLVER}.policy_for(player) (duel odds and "
                         "duel play --vs equilibrium take it)")
    return solve_game(game).policy_for(player)


__all__ = ["BACKENDS", "backend", "best_response", "decisions", "equilibrium_policy",
           "evaluate", "exploitability", "forcing", "policy_table", "read_policy",
           "require_states", "require_table", "resolve_policy", "solve_game",
           "solve_moment", "solve_regularized", "stage_equilibria", "state_graph"]
