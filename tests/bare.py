"""Defaults that let the tiny games of the solver and environment tests satisfy the
contract of ``solver.game`` in a few lines: metadata declared from class attributes,
presentation from the state's own fields."""

from __future__ import annotations

from solver.game import GameInfo


class BareGame:
    payoff_bounds = (-1.0, 1.0)
    may_cycle = False
    fast_paths: frozenset = frozenset()
    public_information = True
    options: dict = {}
    ruleset_hash = "toy"

    @property
    def info(self) -> GameInfo:
        return GameInfo(
            system=self.system, action_names=tuple(self.action_names),
            observation_fields=tuple(self.observation_fields),
            observation_low=tuple(self.observation_low),
            observation_high=tuple(self.observation_high),
            public_information=self.public_information, payoff_bounds=self.payoff_bounds,
            may_cycle=self.may_cycle, options=self.options, ruleset_hash=self.ruleset_hash,
            fast_paths=frozenset(self.fast_paths), length_unit="step")

    def starts_unit(self, state) -> bool:
        return not self.is_terminal(state)

    def state_fields(self, state) -> dict:
        return state._asdict() if hasattr(state, "_asdict") else {"state": repr(state)}

    def state_from(self, values):
        raise NotImplementedError("toy games are not asked about a given moment")

    def describe(self, state, viewer=None) -> str:
        return repr(state)

    def narrate(self, state, action_a, action_b, next_state) -> str:
        names = self.action_names
        return f"A plays {names[action_a]}, B plays {names[action_b]}."

    def situation(self, state, player) -> str:
        return repr(state)
