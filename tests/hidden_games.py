"""A tiny game with hidden types whose equilibrium is derived by hand, shared by the tests
of the exact solver (``test_hidden.py``) and of the hidden-level learner."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from bare import BareGame

STRONG, WEAK = 0, 1
X, Y = 0, 1          # A's moves
LEFT, RIGHT = 0, 1   # B's moves
#: payoff to A by A's type, A's move, B's move
PAYOFF = {STRONG: ((2.0, 1.0), (0.0, 0.0)), WEAK: ((-1.0, 1.0), (1.0, -1.0))}


class Bluff(NamedTuple):
    kind: int        # A's type
    moves: tuple = ()  # (A's, B's) once the exchange is played


class TinyBluff(BareGame):
    """A is Strong or Weak (1/2 each, seen by A only); one simultaneous exchange.

    Equilibrium by hand. For Strong, X beats Y whatever B does (2 > 0, 1 > 0): Strong
    plays X. Let q be Weak's chance of X and r B's chance of LEFT.
    B must be indifferent (else Weak plays a pure move that B then exploits):
      LEFT  pays A  1/2 * 2 + 1/2 * (-q + (1 - q)) = 3/2 - q,
      RIGHT pays A  1/2 * 1 + 1/2 * (q - (1 - q)) = q,       so q = 3/4.
    Weak must be indifferent: X pays -r + (1 - r), Y pays r - (1 - r), so r = 1/2.
    Value to A: q = 3/4. Strong's payoff: 2r + (1 - r) = 3/2; Weak's: 1 - 2r = 0.
    The equilibrium is unique (r = 1/2 and q = 3/4 are forced), so are the type payoffs.
    """

    system = "tiny_bluff"
    action_names = ("x_or_left", "y_or_right")
    observation_fields = ("own_kind", "over")
    observation_low = (-1, 0)
    observation_high = (1, 1)
    public_information = False
    payoff_bounds = (-2.0, 2.0)

    def initial_outcomes(self):
        return [(0.5, Bluff(STRONG)), (0.5, Bluff(WEAK))]

    def legal_mask(self, state, player):
        return np.ones(2, dtype=bool)

    def outcomes(self, state, action_a, action_b):
        return [(1.0, Bluff(state.kind, (action_a, action_b)))]

    def is_terminal(self, state):
        return bool(state.moves)

    def payoff(self, state):
        return PAYOFF[state.kind][state.moves[0]][state.moves[1]]

    def result(self, state):
        return "over"

    def observe(self, state, player):
        return (state.kind if player == "a" else -1, int(bool(state.moves)))
