"""A personality's play over a counter game's counters (``solver.solve_regularized``):
the regularised stage problem (``solver.counters.stage_rules.Regularized``) as the rule
of one ``solver.counters`` solve, the prior read in the solver's layout
(``solver.counters.play.counter_mixes``); the state-graph twin is
``solver.markov.regularized``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..game import Game, Policy, State
from ..markov.regularized import ShownAsRegularized
from ..markov.stages import MAX_SWEEPS, TOLERANCE, Convergence
from ..policy import TabularPolicy
from .cores import explore
from .play import counter_mixes, same_layout
from .solution import CounterSolution, solve_counters
from .stage_rules import Regularized


@dataclass(repr=False)
class CounterRegularized(ShownAsRegularized):
    """``solver.markov.regularized.RegularizedSolution`` over counters."""

    game: Game
    player: str
    beta: float
    solution: CounterSolution
    gap: float
    convergence: Convergence

    @property
    def value(self) -> float:
        """The regularised value to ``player`` (payoff minus beta times the expected KL
        divergence, against a best responder)."""
        return (1.0 if self.player == "a" else -1.0) * self.solution.value

    def policy(self, name: str = "regularized") -> TabularPolicy:
        return self.solution.policy_for(self.player, name)

    def mix_at(self, state: State) -> np.ndarray:
        """The regularised player's mix over the action list at ``state``."""
        return self.solution.policy(state)[0 if self.player == "a" else 1]

    def value_at(self, state: State) -> float:
        """The regularised value of ``state`` to the player."""
        return (1.0 if self.player == "a" else -1.0) * self.solution.value_at(state)


def counter_regularized(game: Game, player: str, prior: Policy, beta: float,
                        tolerance: float = TOLERANCE, max_sweeps: int = MAX_SWEEPS,
                        near=None) -> CounterRegularized:
    """``solver.markov.regularized.solve_regularized`` over counters: the regularised stage
    problem as the rule, the prior read in the solver's layout; its stage problems start
    from the other side's mixes in ``near`` (``_near_mixes``)."""
    graph, grid, _ = explore(game)
    rule = Regularized(player, counter_mixes(game, prior, player), beta, grid,
                       _near_mixes(near, game, graph, player, beta))
    solution = solve_counters(game, tolerance, max_sweeps, rule=rule, statistics=False)
    return CounterRegularized(game, player, beta, solution, rule.gap, solution.convergence)


#: a regularised solution starts another's stage problems when their betas are within
#: this factor: on a level-1 Pathfinder personality, starting at beta 0.15, 0.2 or 0.05
#: from beta 0.1's play took 1.3 to 2 s off a 9 to 10 s solve, at 0.3 nothing, and at 1
#: (or from the equilibrium) it added 2 to 3 s: the Newton steps from a far answer at
#: a barrier weight for a near one are many and short
NEAR_FACTOR = 2.0


def _near_mixes(near, game: Game, graph, player: str, beta: float) -> np.ndarray | None:
    """The other side's mixes in the solver's layout from ``near``, a regularised solution
    of ``game`` for ``player`` at a beta within ``NEAR_FACTOR`` of ``beta``; None for any
    other (``solver.solve_regularized`` says why)."""
    if not isinstance(near, CounterRegularized) or near.player != player \
            or not same_layout(near.solution, game, graph, None):
        return None
    if not 0.0 < beta < np.inf or not 0.0 < near.beta < np.inf \
            or max(beta / near.beta, near.beta / beta) > NEAR_FACTOR:
        return None
    return near.solution.mixes["b" if player == "a" else "a"]
