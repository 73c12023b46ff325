"""The Pathfinder duel in words: states as named fields and back, the table as a
viewer sees it, one step narrated, and a decision in plain words for a game master."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from operator import attrgetter

import numpy as np

from envs.schema import state_values
from solver.errors import InputError

from ..rolls import given
from .game import SPEND, PathfinderGame, split_action
from .rolls import Check, Initiative, TurnRolls, initiative_drawn, turn_drawn
from .rules import SKILLS, STRIKES
from .state import (
    DECIDE,
    ENDINGS,
    FIRST,
    MIDTURN_AT,
    MIDTURN_FIELDS,
    OVER,
    PHASES,
    PLAN_AT,
    SECOND,
    STATE_FIELDS,
    State,
)
from .strikes import ACTOR_BEFORE_STRIKE, PENDINGS, TARGET_AFTER_REACTED_HIT

#: the plan steps as the Player Core names them
_STEP_NAMES = {"strike": "Strike", "strike_reaction": "Strike with the reaction",
               "shield": "Raise a Shield", "demoralize": "Demoralize",
               "feint": "Feint", "block": "keep the reaction for Shield Block"}
_DEGREES = ("a critical failure", "a failure", "a success", "a critical success")
_CHECKED = {"demoralize": "Demoralize", "feint": "Feint", "strike": "Strike",
            "strike_reaction": "Strike"}
_AGAINST = {"demoralize": "Will DC", "feint": "Perception DC"}
_OFF_GUARD = ("", "off-guard until his own next turn", "off-guard in the foe's next turn",
              "off-guard until his own next turn and in the foe's next turn")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _other(side: str) -> str:
    return "b" if side == "a" else "a"


#: what ``side_words`` says of a side, read from a state at once
_SIDE_FIELDS = {side: attrgetter(*(f"{field}_{side}" for field in ("hp", "fr", "sh", "og",
                                                                  "spent")),
                                 f"dem_{_other(side)}") for side in ("a", "b")}


class PathfinderWords(PathfinderGame):
    """``PathfinderGame`` with the presentation methods of the contract."""

    # -- the state as named integers

    def state_fields(self, state: State) -> dict[str, int]:
        """The state's fields; a turn under way only where turns are played Strike by
        Strike (elsewhere its fields are always 0)."""
        fields = dict(state._asdict())
        if not self.each_strike:
            for name in MIDTURN_FIELDS:
                del fields[name]
        return fields

    state_dict = state_fields

    def _bounds(self) -> dict[str, tuple[int, int]]:
        top = {"a": self.start_hp["a"], "b": self.start_hp["b"]}
        bounds = {"phase": (0, 2), "round": (1, max(self.max_rounds, 1)), "first": (0, 1),
                  "ending": (0, 0)}
        for side in ("a", "b"):
            bounds.update({f"hp_{side}": (1, top[side]), f"fr_{side}": (0, self.max_frightened),
                           f"dem_{side}": (0, 1), f"og_{side}": (0, 3), f"sh_{side}": (0, 2),
                           f"skill_{side}": (0, 2), f"plan_{side}": (0, self.n_plans - 1),
                           f"spent_{side}": (0, int(self.rules.refresh_each_turn))})
        longest = max(len(steps) for steps in self.rules.plans)
        bounds.update({"step": (0, longest), "pending": (0, max(PENDINGS)),
                       **{name: (0, 1) for name in MIDTURN_FIELDS[2:]}})
        return bounds

    def state_from(self, values: Mapping[str, object]) -> State:
        """A live state from named values (missing ones are the start's)."""
        values = state_values(values)   # one reading of a number, whatever the caller
        fields = self.state_fields(self.start())
        bounds = self._bounds()
        for key, value in values.items():
            if key not in fields:
                raise InputError(f"unknown state field {key!r}; allowed: "
                                 f"{', '.join(STATE_FIELDS)}")
            low, high = bounds[key]
            try:
                number = int(str(value).strip())
            except ValueError:
                raise InputError(f"state field {key} takes an integer {low}..{high}, "
                                 f"got {value!r}") from None
            if not low <= number <= high:
                raise InputError(f"state field {key} takes an integer {low}..{high}, "
                                 f"got {number}")
            fields[key] = number
        state = State(**fields)
        self._check_midturn(state)
        for side in ("a", "b"):
            playing = state.step and self.acting(state) == side  # a turn under way
            if self.per_turn and fields[f"plan_{side}"] and not playing:
                raise InputError("plans are chosen as each turn starts (plans=per_turn): "
                                 f"plan_{side} takes 0, got {fields[f'plan_{side}']}")
            if state.phase == DECIDE and fields[f"plan_{side}"] + fields[f"skill_{side}"]:
                raise InputError("skills and plans are chosen in phase 0; give them only "
                                 "with phase=1 or phase=2")
            for plan in (fields[f"plan_{side}"],) if state.phase != DECIDE else ():
                if plan not in self.legal_plans(state._replace(
                        dem_a=0, dem_b=0), side):
                    raise InputError(f"plan {self.rules.plan_names[plan]} is not open to "
                                     f"{side.upper()}; allowed: " + ", ".join(
                                         self.rules.plan_names[i]
                                         for i in self.legal_plans(state, side)))
        return state

    def _check_midturn(self, state: State) -> None:
        """A turn under way pauses at a Strike of its actor's plan, with a choice."""
        if not any(state[MIDTURN_AT:]):
            return
        steps = self.rules.plans[state[PLAN_AT + "ab".index(self.acting(state))]] if (
            state.phase in (FIRST, SECOND)) else ()
        if not (state.step and state.pending and state.step <= len(steps)
                and steps[state.step - 1] in STRIKES):
            raise InputError("a turn under way (step, pending and the fields after them) "
                             "needs phase 1 or 2, step at a Strike of the actor's plan "
                             "(1 + its position) and pending 1..3")

    # -- words

    def _name(self, side: str, viewer: str | None = None) -> str:
        return "you" if viewer == side else "he" if viewer else side.upper()

    def _whose(self, side: str, viewer: str | None = None) -> str:
        name = self._name(side, viewer)
        return {"you": "your", "he": "his"}.get(name, f"{name}'s")

    def side_words(self, state: State, side: str, viewer: str | None = None) -> str:
        """One duellist's position: HP, frightened, shield, off-guard, immunity (a plan
        words 80,000 sides, most of them alike: each is worded once)."""
        key = (side, viewer, _SIDE_FIELDS[side](state))
        said = self._sides_said.get(key)
        if said is None:
            said = self._sides_said[key] = self._side_words(state, side, viewer)
        return said

    @cached_property
    def _sides_said(self) -> dict:
        return {}

    def _side_words(self, state: State, side: str, viewer: str | None) -> str:
        def get(field: str) -> int:
            return getattr(state, f"{field}_{side}")
        who = self._name(side, viewer)
        be = "are" if who == "you" else "is"
        parts = [f"{who} {be} unblooded" if self.first_blood
                 else f"{who} {be} at {get('hp')} HP"]
        if get("fr"):
            parts.append(f"frightened {get('fr')}")
        if get("sh"):
            parts.append("shield raised" + (", reaction kept for Shield Block"
                                            if get("sh") == 2 else ""))
        if get("og"):
            parts.append(_OFF_GUARD[get("og")])
        if get("spent"):
            parts.append("reaction spent until " + ("your" if who == "you" else "his")
                         + " next turn")
        if getattr(state, f"dem_{_other(side)}"):
            parts.append("cannot be demoralized again")  # one wording, whoever reads it
        return ", ".join(parts)

    def round_words(self, state: State) -> str:
        """Without a round limit the state keeps no count of rounds (it would only
        multiply the states): every round is then "a new round"."""
        if self.max_rounds:
            return f"round {state.round} of {self.max_rounds}"
        return "a new round"

    def describe(self, state: State, viewer: str | None = None) -> str:
        if state.phase == OVER:
            return f"The duel is over: {ENDINGS[state.ending]}."
        lines = [_capital(f"{self.round_words(state)}, {PHASES[state.phase]}.")]
        lines += [_capital(self.side_words(state, side, viewer)) + "." for side in ("a", "b")]
        if state.phase == DECIDE:
            lines += [f"{_capital(self._whose(side, viewer))} initiative skills: "
                      f"{self.skills_words(side)}." for side in ("a", "b")]
        else:
            for side in ("a", "b"):
                get = state._asdict()
                plan = self.rules.plan_names[get[f"plan_{side}"]]
                done = state.phase == SECOND and self.acting(state) != side
                name = _capital(self._name(side, viewer))
                told = "" if done or self.per_turn else f", plan {plan}"
                lines.append(f"{name}: {SKILLS[get[f'skill_{side}']]} initiative{told}.")
            first = "A" if state.first == 0 else "B"
            lines.append(f"{first} acts first this round.")
            if state.step:
                lines.append(_capital(self._pause_words(state, viewer)) + ".")
        return "\n".join(lines)

    def _pause_words(self, state: State, viewer: str | None = None) -> str:
        """The choice a turn under way waits for, and what the turn has done so far."""
        actor = self.acting(state)
        plan = self.rules.plans[state[PLAN_AT + "ab".index(actor)]]
        done = ", ".join(_STEP_NAMES.get(step, step) for step in plan[:state.step - 1])
        side = self.choosing(state)
        chooser, whose = self._name(side, viewer), self._whose(side, viewer)
        reaction = f"{self._whose(actor, viewer)} {self._reaction_words(state, actor)}"
        if state.pending == ACTOR_BEFORE_STRIKE:
            text = f"{chooser} may spend {reaction} on this Strike"
        else:
            text = (f"the Strike hit (a success, not a critical): {chooser} may spend "
                    f"{whose} Deceptive Sidestep on it")
            if state.pending == TARGET_AFTER_REACTED_HIT:
                text += f", which took {reaction}"
        marks = [word for flag, word in ((state.feint_next, "the Feint worked"),
                                         (state.feint_crit, "the Feint was a critical "
                                          "success"), (state.fumble, "the Feint fumbled"),
                                         (state.reacted, "his Strike reaction is spent")) if flag]
        return (f"turn under way ({done or 'nothing'} done"
                f"{''.join('; ' + m for m in marks)}): {text}")

    def _reaction_words(self, state: State, side: str) -> str:
        """The Strike reaction of ``side``'s initiative skill this round."""
        skill = state._asdict()[f"skill_{side}"]
        return "Bullying Press" if skill == self.rules.press_skill else "Sense Weakness"

    def action_words(self, action: int) -> str:
        if action == self.wait:
            return "waits"
        if action in self.reaction_actions:
            return ("spends" if self.action_names[action] == SPEND else "keeps") + \
                " his reaction"
        if action >= self.n_decisions:  # per turn: a plan as his turn starts
            return "plans " + " + ".join(self.rules.plans[action - self.n_decisions])
        skill, order, plan = split_action(action, self._decision_plans)
        told = "" if self.per_turn else ", plans " + " + ".join(self.rules.plans[plan])
        return (f"rolls {SKILLS[skill]} for initiative, wants to act "
                f"{('first', 'second')[order]}{told}")

    def advice(self, name: str) -> str:
        """An action as a game master says it to his player: "Intimidation for
        initiative, first on winning it; Demoralize, Strike, Strike"; the same words
        for either side (the table says "you" and "them")."""
        said = self._advice_by_name.get(name)
        if said is None:
            raise InputError(f"unknown action {name!r}; allowed: "
                             f"{', '.join(self.info.action_names)}")
        return said

    @cached_property
    def _advice_by_name(self) -> dict[str, str]:
        """Every action's advice, worded once (a plan says 40,000 of them)."""
        return {name: self._advice(action)
                for action, name in enumerate(self.info.action_names)}

    def _advice(self, action: int) -> str:
        name = self.info.action_names[action]
        if action == self.wait:
            return "wait"
        if action in self.reaction_actions:
            return ("Spend" if name == SPEND else "Keep") + " your reaction on this Strike"
        if action >= self.n_decisions:  # per turn: a plan as his turn starts
            return self._steps_words(action - self.n_decisions)
        skill, order, plan = split_action(action, self._decision_plans)
        told = "" if self.per_turn else "; " + self._steps_words(plan)
        return (f"{_capital(SKILLS[skill])} for initiative, "
                f"{('first', 'second')[order]} on winning it{told}")

    def _steps_words(self, plan: int) -> str:
        return ", ".join(_STEP_NAMES.get(step, step) for step in self.rules.plans[plan])

    def rolls(self, state: State, action_a: int, action_b: int, next_state: State,
              rng: np.random.Generator) -> Initiative | TurnRolls | None:
        """The initiative rolls, or a turn's checks and damage dice, behind
        ``next_state`` (None: not found among ``MAX_TRIES`` draws)."""
        if state.phase == DECIDE:
            return given(lambda r: initiative_drawn(self, state, action_a, action_b, r),
                         next_state.first, rng)
        return given(lambda r: turn_drawn(self, state, r), next_state, rng)

    def narrate(self, state: State, action_a: int, action_b: int, next_state: State,
                rolls: Initiative | TurnRolls | None = None) -> str:
        if state.phase == DECIDE:
            first = "A" if next_state.first == 0 else "B"
            told = f" {self._initiative_text(rolls)}" if rolls is not None else ""
            if rolls is not None and told.endswith(f"{_other(first.lower()).upper()} wins it."):
                told = told[:-1] + " and chooses to act second."
            return (f"A {self.action_words(action_a)}; B {self.action_words(action_b)}."
                    f"{told} {first} acts first.")
        actor = self.acting(state)
        target = _other(actor)
        told = f" {self._turn_text(rolls, target)}" if rolls is not None else ""
        if state.step:
            chooser = self.choosing(state)
            spent = self.action_names[(action_a, action_b)["ab".index(chooser)]] == SPEND
            plays = (f"{chooser.upper()} {'spends' if spent else 'keeps'} his reaction "
                     "and the turn goes on")
        elif self.per_turn:
            chosen = self._planned(state, action_a, action_b)[PLAN_AT + "ab".index(actor)]
            plays = f"{actor.upper()} chooses {self._steps_words(chosen)} and plays it"
        else:
            plays = f"{actor.upper()} plays his turn"
        if next_state.phase == OVER:
            return f"{plays}.{told} {_capital(ENDINGS[next_state.ending])}."
        before, after = state._asdict(), next_state._asdict()
        dealt = before[f"hp_{target}"] - after[f"hp_{target}"]
        hurt = (f"deals {dealt} damage ({target.upper()} at {after[f'hp_{target}']} HP)"
                if dealt else f"does not hurt {target.upper()}")
        text = [f"{plays}:{told} He {hurt}" if told else f"{plays} and {hurt}"]
        if next_state.step:
            text.append(self._pause_words(next_state))
        if after[f"fr_{target}"] > max(0, before[f"fr_{target}"]):
            text.append(f"{target.upper()} is frightened {after[f'fr_{target}']}")
        if after[f"og_{target}"]:
            text.append(f"{target.upper()} is left {_OFF_GUARD[after[f'og_{target}']]}")
        if after[f"og_{actor}"] & 1:
            text.append(f"{actor.upper()} fumbled his Feint and is off-guard")
        return "; ".join(text) + "."

    def _initiative_text(self, rolls: Initiative) -> str:
        a = rolls.natural_a + rolls.modifier_a
        b = rolls.natural_b + rolls.modifier_b
        text = (f"Initiative: A rolls {rolls.natural_a}{rolls.modifier_a:+d} = {a}, "
                f"B {rolls.natural_b}{rolls.modifier_b:+d} = {b}")
        if a != b:
            return text + f": {'A' if a > b else 'B'} wins it."
        if rolls.coin is not None:
            return text + f": equal, a coin gives it to {'AB'[rolls.coin]}."
        if self.initiative_tie == "b_first":
            return text + ": equal, which goes to B."
        winner = "A" if rolls.modifier_a > rolls.modifier_b else "B"
        return text + f": equal, which goes to the higher modifier, {winner}."

    def _turn_text(self, rolls: TurnRolls, target: str) -> str:
        """Each check of the turn (die, modifier, total against the DC or AC, degree),
        then each hit's damage dice and the damage dealt."""
        return "; ".join(self._check_text(check, target) for check in rolls.checks) + "."

    def _hit_text(self, hit) -> str:
        dice = "+".join(map(str, hit.dice)) or "no dice"
        told = f"damage dice {dice}, bonus {hit.bonus:+d}"
        if hit.critical:
            told += ", doubled on the critical hit"
        if hit.blocked:
            told += f", less {self.rules.shield_hardness} for the Shield Block"
        return f"{told}: {hit.damage}"

    def _check_text(self, check: Check, target: str) -> str:
        against = _AGAINST.get(check.step, "AC")
        total = check.natural + check.modifier
        text = (f"{_CHECKED[check.step]} {check.natural}{check.modifier:+d} = {total} against "
                f"{target.upper()}'s {against} {check.dc}: {_DEGREES[check.degree]}")
        if check.reroll is not None:
            natural, modifier, found = check.reroll
            text += (f", which {target.upper()}'s Deceptive Sidestep makes him reroll: "
                     f"{natural}{modifier:+d} = {natural + modifier}, {_DEGREES[found]}")
        if check.hit is not None:
            text += f", {self._hit_text(check.hit)}"
        return text

    def situation(self, state: State, player: str) -> str:
        """The decision from ``player``'s side, in plain words."""
        mine = self.side_words(state, player, player)
        his = self.side_words(state, _other(player), player)
        if state.phase == OVER:
            return f"the duel is over ({ENDINGS[state.ending]})"
        if state.phase != DECIDE:
            who = "you act" if self.acting(state) == player else "he acts"
            if state.step:
                who += "; " + self._pause_words(state, player)
            elif self.per_turn:
                who += ", choosing " + ("your" if self.acting(state) == player else "his") \
                    + " plan"
            return f"{'first' if state.phase == FIRST else 'second'} turn, {who}: {mine}; {his}"
        chosen = "skill and order" if self.per_turn else "skill, order and plan"
        return f"{self.round_words(state)}, choosing {chosen}: {mine}; {his}"

    def skills_words(self, side: str) -> str:
        """A duellist's initiative skills, and those that unlock no reaction (untrained):
        the same all duel long, so told with the table, not in every situation."""
        fighter = self.fighters[side]
        return "; ".join(f"{skill} {fighter.skill_text[i]}" + (
            "" if fighter.trained[i] else ", no reaction") for i, skill in enumerate(SKILLS))
