"""A tiny duel for the self-play tests: at most three exchanges of attack, feint or
guard, with a chance roll on every touch and a tiredness rule that changes masks.

Attack beats feint, guard beats attack (a counter), feint beats guard; the winner of
an exchange touches on a roll (A is the better fencer), and a touch ends the duel.
Whoever attacked may not attack in the next exchange. Three exchanges without a
touch are a draw. The equilibrium is mixed and favours A.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from bare import BareGame

ATTACK, FEINT, GUARD = 0, 1, 2
ACTIONS = ("attack", "feint", "guard")
TOUCH = {"a": 0.8, "b": 0.6}
COUNTER = 0.5        # a guard that meets an attack touches this often
LAST_TURN = 3
BEATS = {(ATTACK, FEINT), (GUARD, ATTACK), (FEINT, GUARD)}


class Duel(NamedTuple):
    turn: int
    tired_a: int
    tired_b: int
    winner: int      # +1 A touched, -1 B touched, 0 not yet


class ToyDuel(BareGame):
    system = "toy_duel"
    action_names = ACTIONS
    observation_fields = ("turn", "tired", "other_tired")
    observation_low = (0, 0, 0)
    observation_high = (LAST_TURN, 1, 1)
    public_information = True
    options: dict = {}
    ruleset_hash = "toy"

    def initial_outcomes(self) -> list[tuple[float, Duel]]:
        return [(1.0, Duel(0, 0, 0, 0))]

    def legal_mask(self, state: Duel, player: str) -> np.ndarray:
        tired = state.tired_a if player == "a" else state.tired_b
        return np.array([not tired, True, True])

    def is_terminal(self, state: Duel) -> bool:
        return state.winner != 0 or state.turn >= LAST_TURN

    def outcomes(self, state: Duel, action_a: int, action_b: int) -> list[tuple[float, Duel]]:
        after = Duel(state.turn + 1, int(action_a == ATTACK), int(action_b == ATTACK), 0)
        if (action_a, action_b) in BEATS:
            scorer, chance = +1, TOUCH["a"] * (COUNTER if action_a == GUARD else 1)
        elif (action_b, action_a) in BEATS:
            scorer, chance = -1, TOUCH["b"] * (COUNTER if action_b == GUARD else 1)
        else:
            return [(1.0, after)]
        return [(chance, after._replace(winner=scorer)), (1 - chance, after)]

    def payoff(self, state: Duel) -> float:
        return float(state.winner)

    def result(self, state: Duel) -> str:
        return {1: "A touches", -1: "B touches", 0: "a draw"}[state.winner]

    def observe(self, state: Duel, player: str) -> tuple[int, int, int]:
        own, theirs = (state.tired_a, state.tired_b) if player == "a" else (
            state.tired_b, state.tired_a)
        return (state.turn, own, theirs)

    def describe(self, state: Duel) -> str:
        return f"exchange {state.turn + 1}, tired A={state.tired_a} B={state.tired_b}"
