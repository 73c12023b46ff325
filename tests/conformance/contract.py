"""Checks of what a game declares, each an assertion on one game: the conformance suite
runs them on every example duel, and ``test_contract_checks`` shows that each fails on
a toy game that breaks its promise."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sampling import legal_pairs
from scipy.sparse.csgraph import connected_components

from solver.game import Game
from solver.markov.graph import StateGraph

#: draws of the sampler at each deterministic step
DETERMINISTIC_DRAWS = 5


def state_links(graph: StateGraph) -> sp.csr_matrix:
    """State to state: 1 where some joint action leads from one to the other."""
    links = graph.transitions.tocoo()
    return sp.csr_matrix((np.ones(links.nnz), (graph.pair_state[links.row], links.col)),
                         shape=(graph.size, graph.size))


def has_cycle(links: sp.csr_matrix) -> bool:
    """Whether the directed graph ``links`` returns to a state: a strongly connected
    component of more than one state, or a step from a state to itself."""
    count, _ = connected_components(links, directed=True, connection="strong")
    return count < links.shape[0] or bool(links.diagonal().any())


def assert_cycles_declared(game: Game, graph: StateGraph) -> None:
    """A game declaring ``may_cycle=False`` has an acyclic state graph (one declaring
    True may have either: it only says the solver must be ready to iterate)."""
    if not game.info.may_cycle:
        assert not has_cycle(state_links(graph)), \
            f"{game.info.system} declares may_cycle=False but its state graph has a cycle"


def assert_public_observations_determine_state(game: Game, states: list) -> None:
    """With public information each player's observation of a live state tells which
    state it is: no two live states look alike to either player. (Terminal states are
    never acted on, so they may look alike: a duel stopped at the limit and one a round
    later, say.)"""
    if not game.info.public_information:
        return
    for player in ("a", "b"):
        seen: dict = {}
        for state in states:
            if game.is_terminal(state):
                continue
            observation = tuple(int(x) for x in game.observe(state, player))
            first = seen.setdefault(observation, state)
            assert first == state, (f"{game.info.system} declares public information, but "
                                    f"{player} sees {observation} at two states: {first!r} "
                                    f"and {state!r}")


def deterministic_steps(game: Game, states: list) -> list[tuple]:
    """Every ``(state, a, b, next_state)`` among the live ``states`` whose joint action
    has one outcome."""
    steps = []
    for state in states:
        if game.is_terminal(state):
            continue
        for a, b in legal_pairs(game, state):
            outcomes = game.outcomes(state, a, b)
            if len(outcomes) == 1:
                steps.append((state, a, b, outcomes[0][1]))
    return steps


def assert_sampler_exact_on_deterministic_steps(game: Game, states: list,
                                                rng: np.random.Generator) -> int:
    """A declared sampler, on a step with one outcome, draws exactly that outcome;
    returns the number of such steps checked."""
    steps = deterministic_steps(game, states)
    for state, a, b, only in steps:
        for _ in range(DETERMINISTIC_DRAWS):
            drawn = game.sample(state, a, b, rng)
            assert drawn == only, (f"{game.info.system}: at {state!r} with ({a}, {b}) the "
                                   f"one outcome is {only!r}, the sampler drew {drawn!r}")
    return len(steps)
