"""A toy duel outside the package, for the tests: two actions, a die roll and a choice
made after the dice, declared and registered like a real system (one module, its
ruleset TOML and its personalities TOML), so the conformance suite and every CLI
command must work for it without another file touched.

Each round both duellists secretly ``strike`` or ``guard``. A lone striker rolls a d6
and hits on ``hit_on`` or more (a ``lucky`` duellist on one less); then he alone
chooses (the other waits): ``hold`` deals 1 wound, ``press`` rolls again and deals 2 on
a hit, but takes 1 wound himself on a miss. Two strikers each roll and deal 1 wound on
a hit. Two guards: nothing. At 0 wounds left a duellist is out; both out is a draw, and
so is the end of ``max_rounds``.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import numpy as np

from envs.rulesets import ruleset_hash
from envs.schema import Examples, Field, SheetSpec, SystemSpec
from solver.errors import InputError, check_choice
from solver.game import DeclaredGame, GameInfo

ACTIONS = ("strike", "guard", "press", "hold", "wait")
STRIKE, GUARD, PRESS, HOLD, WAIT = range(5)
HERE = Path(__file__).parent


class Duel(NamedTuple):
    round: int
    hp_a: int
    hp_b: int
    chooser: int  # 0: both choose; 1: A decides after a hit; 2: B does


class ToyDiceGame(DeclaredGame):
    def __init__(self, ruleset: dict, options: dict):
        self.hit_on = ruleset["hit_on"]
        self.max_rounds = options["max_rounds"]
        self.sheets = {side: options[side] for side in "ab"}
        top = max(self.sheets["a"]["hp"], self.sheets["b"]["hp"])
        self.info = GameInfo(
            system="toy_dice", action_names=ACTIONS,
            observation_fields=("round", "own_hp", "opp_hp", "my_choice"),
            observation_low=(1, 0, 0, 0), observation_high=(self.max_rounds, top, top, 2),
            public_information=True, payoff_bounds=(-1.0, 1.0), may_cycle=False,
            options=options, ruleset_hash=ruleset_hash(ruleset), fast_paths=frozenset(),
            length_unit="round")

    def _hit(self, side: str) -> Fraction:
        needed = self.hit_on - (1 if self.sheets[side]["lucky"] else 0)
        return Fraction(max(0, 7 - needed), 6)

    # -- rules
    def initial_outcomes(self):
        return [(1.0, Duel(1, self.sheets["a"]["hp"], self.sheets["b"]["hp"], 0))]

    def legal_mask(self, state: Duel, player: str) -> np.ndarray:
        check_choice("player", player, ("a", "b"))
        mask = np.zeros(len(ACTIONS), dtype=bool)
        if state.chooser == 0:
            mask[[STRIKE, GUARD]] = True
        elif state.chooser == (1 if player == "a" else 2):
            mask[[PRESS, HOLD]] = True
        else:
            mask[WAIT] = True
        return mask

    def outcomes(self, state: Duel, action_a: int, action_b: int):
        for player, action in (("a", action_a), ("b", action_b)):
            if not self.legal_mask(state, player)[action]:
                raise InputError(f"illegal action {ACTIONS[action]} for {player.upper()}")
        if state.chooser:
            return self._merge(self._after_choice(state, action_a, action_b))
        return self._merge(self._after_strikes(state, action_a, action_b))

    def _after_strikes(self, state: Duel, action_a: int, action_b: int):
        if action_a == action_b == GUARD:
            return [(Fraction(1), self._next_round(state.hp_a, state.hp_b, state))]
        if action_a == action_b == STRIKE:
            ha, hb = self._hit("a"), self._hit("b")
            return [(pa * pb, self._next_round(state.hp_a - db, state.hp_b - da, state))
                    for da, pa in ((1, ha), (0, 1 - ha)) for db, pb in ((1, hb), (0, 1 - hb))]
        striker = "a" if action_a == STRIKE else "b"
        hit = self._hit(striker)
        chooser = Duel(state.round, state.hp_a, state.hp_b, 1 if striker == "a" else 2)
        return [(hit, chooser), (1 - hit, self._next_round(state.hp_a, state.hp_b, state))]

    def _after_choice(self, state: Duel, action_a: int, action_b: int):
        striker = "a" if state.chooser == 1 else "b"
        choice = action_a if striker == "a" else action_b
        if choice == HOLD:
            return [(Fraction(1), self._wound(state, striker, 1, 0))]
        hit = self._hit(striker)
        return [(hit, self._wound(state, striker, 2, 0)),
                (1 - hit, self._wound(state, striker, 0, 1))]

    def _wound(self, state: Duel, striker: str, dealt: int, taken: int) -> Duel:
        hp_a, hp_b = ((state.hp_a - taken, state.hp_b - dealt) if striker == "a"
                      else (state.hp_a - dealt, state.hp_b - taken))
        return self._next_round(hp_a, hp_b, state)

    def _next_round(self, hp_a: int, hp_b: int, state: Duel) -> Duel:
        return Duel(state.round + 1, max(hp_a, 0), max(hp_b, 0), 0)

    @staticmethod
    def _merge(outcomes) -> list[tuple[float, Duel]]:
        merged: dict[Duel, Fraction] = {}
        for p, s in outcomes:
            if p > 0:
                merged[s] = merged.get(s, Fraction(0)) + p
        return [(float(p), s) for s, p in merged.items()]

    def starts_unit(self, state: Duel) -> bool:
        return state.chooser == 0 and not self.is_terminal(state)

    def is_terminal(self, state: Duel) -> bool:
        return state.hp_a == 0 or state.hp_b == 0 or state.round > self.max_rounds

    def payoff(self, state: Duel) -> float:
        return float((state.hp_a > 0) - (state.hp_b > 0)) if self.is_terminal(state) else 0.0

    def result(self, state: Duel) -> str:
        if state.hp_a == 0 and state.hp_b == 0:
            return "draw: both out"
        if state.hp_a == 0 or state.hp_b == 0:
            return f"{'B' if state.hp_a == 0 else 'A'} wins"
        return "draw: out of time"

    def observe(self, state: Duel, player: str) -> tuple[int, ...]:
        own, opp = (state.hp_a, state.hp_b) if player == "a" else (state.hp_b, state.hp_a)
        mine = 0 if not state.chooser else 1 if state.chooser == (1 if player == "a" else 2) \
            else 2
        return (min(state.round, self.max_rounds), own, opp, mine)

    # -- presentation
    def state_fields(self, state: Duel) -> dict[str, int]:
        return state._asdict()

    def state_from(self, values: Mapping[str, object]) -> Duel:
        fields = self.initial_outcomes()[0][1]._asdict()
        for key, value in values.items():
            check_choice("state field", key, tuple(fields))
            try:
                fields[key] = int(value)
            except (TypeError, ValueError):
                raise InputError(f"state field {key} takes an integer, got {value!r}") from None
        state = Duel(**fields)
        if not (1 <= state.round <= self.max_rounds and 0 < state.hp_a <= self.sheets["a"]["hp"]
                and 0 < state.hp_b <= self.sheets["b"]["hp"] and 0 <= state.chooser <= 2):
            raise InputError(f"not a moment of this duel: {fields}")
        return state

    def describe(self, state: Duel, viewer: str | None = None) -> str:
        return (f"Round {state.round} of {self.max_rounds}: A has {state.hp_a} wounds left, "
                f"B {state.hp_b}.")

    def narrate(self, state: Duel, action_a: int, action_b: int, next_state: Duel) -> str:
        return (f"A {ACTIONS[action_a]}s, B {ACTIONS[action_b]}s: A has {next_state.hp_a} "
                f"wounds left, B {next_state.hp_b}.")

    def situation(self, state: Duel, player: str) -> str:
        own, opp, mine = self.observe(state, player)[1:]
        moment = ("you hit and choose how hard to follow up" if mine == 1 else
                  "he hit and chooses how hard to follow up" if mine == 2 else
                  f"round {state.round}")
        return f"{moment}, {own} wounds left against his {opp}"


def _build(ruleset: dict, options: dict) -> ToyDiceGame:
    return ToyDiceGame(ruleset, options)


SYSTEM = SystemSpec(
    name="toy_dice",
    title="toy dice duel (tests)",
    options=(Field("max_rounds", "int", "rounds before a draw", default_key="max_rounds",
                   low=1, high=20),),
    sheet=SheetSpec(
        fields=(Field("hp", "int", "wounds the duellist can take", default_key="hp",
                      low=1, high=9),
                Field("lucky", "flag", "hits on one less", default=False,
                      aliases={"fortunate": "lucky"})),
        reference_key="sheets", example="hp=2,lucky"),
    build=_build,
    examples=Examples(sheet_a="hp=2", sheet_b="veteran", state="round=2,hp_a=1",
                      mix="strike:0.5,guard:0.5", quick={"max_rounds": 2}),
    pairing=lambda game: "hp",
    ruleset_file=HERE / "toy_dice.toml",
    personalities_file=HERE / "toy_dice_personalities.toml",
)
