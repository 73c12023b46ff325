"""Small games implementing the protocol of ``solver.game``, for tests.

``PenniesDuel``: three exchanges of matching pennies (A scores on a match, B on a
mismatch, and the winner's point lands on a 3-in-4 chance roll), with a sequential
step after the second exchange in which B alone calls a biased coin while A waits.
With ``hidden=True`` A may start with a lucky coin (drawn at the start, seen by A
only) that makes his points always land. ``OneShotPennies`` has nothing optional
(no ``sample`` and plain words), to test the fallbacks.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from bare import BareGame

HEADS, TAILS, WAIT = 0, 1, 2
ACTIONS = ("heads", "tails", "wait")
HIT = 0.75          # chance that the winner of an exchange scores
LUCKY_HIT = 1.0     # the same for A with the lucky coin
COIN_HEADS = 0.6    # the biased coin of B's call
GAMBIT_TURN = 2
LAST_TURN = 4       # turns 0, 1, 3 are pennies, 2 the call; 4 is the end


class Pennies(NamedTuple):
    turn: int
    score: int   # A's points minus B's
    lucky: int   # 1 when A holds the lucky coin


class PenniesDuel(BareGame):
    system = "toy_pennies"
    action_names = ACTIONS
    observation_fields = ("turn", "score", "lucky")
    observation_low = (0, -4, -1)
    observation_high = (LAST_TURN, 4, 1)
    ruleset_hash = "toy"
    fast_paths = frozenset({"sample"})

    def __init__(self, hidden: bool = False):
        self.hidden = hidden
        self.public_information = not hidden
        self.options = {"hidden": hidden}

    def initial_outcomes(self) -> list[tuple[float, Pennies]]:
        if self.hidden:
            return [(0.5, Pennies(0, 0, 0)), (0.5, Pennies(0, 0, 1))]
        return [(1.0, Pennies(0, 0, 0))]

    def legal_mask(self, state: Pennies, player: str) -> np.ndarray:
        if state.turn == GAMBIT_TURN:
            return np.array([player == "b", player == "b", player == "a"])
        return np.array([True, True, False])

    def is_terminal(self, state: Pennies) -> bool:
        return state.turn >= LAST_TURN

    def _hit(self, state: Pennies, scorer: int) -> float:
        return LUCKY_HIT if scorer > 0 and state.lucky else HIT

    def _after(self, state: Pennies, points: int) -> Pennies:
        return Pennies(state.turn + 1, state.score + points, state.lucky)

    def outcomes(self, state: Pennies, action_a: int, action_b: int):
        if state.turn == GAMBIT_TURN:
            right = COIN_HEADS if action_b == HEADS else 1 - COIN_HEADS
            return [(right, self._after(state, -1)), (1 - right, self._after(state, +1))]
        scorer = +1 if action_a == action_b else -1
        hit = self._hit(state, scorer)
        chances = [(hit, self._after(state, scorer)), (1 - hit, self._after(state, 0))]
        return [(p, s) for p, s in chances if p > 0]

    def sample(self, state: Pennies, action_a: int, action_b: int,
               rng: np.random.Generator) -> Pennies:
        # drawn from the rules directly, not from outcomes, so the test compares two paths
        if state.turn == GAMBIT_TURN:
            coin = HEADS if rng.random() < COIN_HEADS else TAILS
            return self._after(state, -1 if coin == action_b else +1)
        scorer = +1 if action_a == action_b else -1
        return self._after(state, scorer if rng.random() < self._hit(state, scorer) else 0)

    def payoff(self, state: Pennies) -> float:
        return float(np.sign(state.score))

    def result(self, state: Pennies) -> str:
        if state.score == 0:
            return "level: a draw"
        winner = "A" if state.score > 0 else "B"
        return f"{winner} wins by {abs(state.score)}"

    def observe(self, state: Pennies, player: str) -> tuple[int, int, int]:
        lucky = state.lucky if player == "a" or not self.hidden else -1
        return (state.turn, state.score, lucky)

    def narrate(self, state: Pennies, action_a: int, action_b: int, after: Pennies) -> str:
        if state.turn == GAMBIT_TURN:
            return (f"A plays wait, B plays {ACTIONS[action_b]}. B calls {ACTIONS[action_b]} "
                    "and the coin is tossed.")
        change = after.score - state.score
        scored = {1: "A scores", -1: "B scores", 0: "nobody scores"}[change]
        return (f"A plays {ACTIONS[action_a]}, B plays {ACTIONS[action_b]}. Coins show "
                f"{ACTIONS[action_a]} and {ACTIONS[action_b]}: {scored}.")

    def describe(self, state: Pennies, viewer: str | None = None) -> str:
        return f"Turn {state.turn} of {LAST_TURN}, score {state.score:+d} for A."


class OneShotPennies(BareGame):
    """One exchange of matching pennies, a match wins for A; only the bare protocol."""

    system = "toy_oneshot"
    action_names = ("heads", "tails")
    observation_fields = ("over",)
    observation_low = (0,)
    observation_high = (1,)
    public_information = True
    options: dict = {}
    ruleset_hash = "toy"

    def initial_outcomes(self):
        return [(1.0, ("start",))]

    def legal_mask(self, state, player: str) -> np.ndarray:
        return np.ones(2, dtype=bool)

    def outcomes(self, state, action_a: int, action_b: int):
        return [(1.0, ("match",) if action_a == action_b else ("miss",))]

    def is_terminal(self, state) -> bool:
        return state[0] != "start"

    def payoff(self, state) -> float:
        return 1.0 if state[0] == "match" else -1.0

    def result(self, state) -> str:
        return "A matches" if state[0] == "match" else "B escapes"

    def observe(self, state, player: str) -> tuple[int]:
        return (int(self.is_terminal(state)),)
