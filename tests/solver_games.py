"""Tiny games with values derived by hand, for the solver tests."""

from __future__ import annotations

import numpy as np
from bare import BareGame


class MatrixThenChance(BareGame):
    """Stage 1: matching pennies; a match wins for A at once. A mismatch flips a fair
    coin: heads a draw, tails the stage game [[1, -1], [-1, 0.5]] (terminal payoffs)."""

    system = "toy"
    action_names = ("H", "T")
    observation_fields = ("stage",)
    observation_low = (0,)
    observation_high = (3,)
    public_information = True
    options: dict = {}
    ruleset_hash = "toy"
    SECOND = ((1.0, -1.0), (-1.0, 0.5))

    def initial_outcomes(self):
        return [(1.0, ("first",))]

    def legal_mask(self, state, player):
        return np.ones(2, bool)

    def outcomes(self, state, a, b):
        if state == ("first",):
            if a == b:
                return [(1.0, ("end", 1.0))]
            return [(0.5, ("end", 0.0)), (0.5, ("second",))]
        return [(1.0, ("end", self.SECOND[a][b]))]

    def is_terminal(self, state):
        return state[0] == "end"

    def payoff(self, state):
        return state[1]

    def result(self, state):
        return {1.0: "A wins", 0.0: "draw", 0.5: "A wins", -1.0: "B wins"}[state[1]]

    def observe(self, state, player):
        return ({"first": 0, "second": 1, "end": 2}[state[0]],)



class LoopingPennies(MatrixThenChance):
    """Matching pennies; a match wins for A, a mismatch is a coin flip between a loss
    for A and playing again: a game with a cycle."""

    may_cycle = True

    def initial_outcomes(self):
        return [(1.0, ("loop",))]

    def outcomes(self, state, a, b):
        if a == b:
            return [(1.0, ("end", 1.0))]
        return [(0.5, ("end", -1.0)), (0.5, ("loop",))]

    def observe(self, state, player):
        return (0,)


class ConstantStage(MatrixThenChance):
    """Three actions, every joint action a draw but one: the optimal mixes are not
    unique, and the maximum-entropy ones are uniform over all optimal actions."""

    action_names = ("X", "Y", "Z")

    def legal_mask(self, state, player):
        return np.ones(3, bool)

    def outcomes(self, state, a, b):
        # Z for A against X is a loss, everything else a draw. The value is 0; A's
        # optimal mixes put nothing on Z (max entropy: X, Y half each); every mix of
        # B is optimal (max entropy: a third each).
        payoff = -1.0 if (a == 2 and b == 0) else 0.0
        return [(1.0, ("end", payoff))]


class Stalling(MatrixThenChance):
    """B may stall forever (action T against anything keeps the state); H ends it."""

    may_cycle = True

    def initial_outcomes(self):
        return [(1.0, ("loop",))]

    def outcomes(self, state, a, b):
        if b == 1:
            return [(1.0, ("loop",))]
        return [(1.0, ("end", 1.0 if a == 0 else -1.0))]

    def observe(self, state, player):
        return (0,)
