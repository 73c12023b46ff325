"""Castle Falkenstein in words: the state as named fields and back, the table as a
viewer sees it, an exchange narrated, and a decision point for a game master."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from envs.schema import state_values
from solver.errors import InputError, check_choice

from .ruleset import EXCHANGES_PER_ROUND
from .state import (
    ACTIONS,
    DD,
    END,
    ENDINGS,
    STATE_FIELDS,
    WOUND_INDEX,
    Exchange,
    State,
    checked_player,
    pair_words,
)
from .steps import MOVE, PARTIAL, choosers, circle_chance, pending_cards


class FalkensteinWords:
    """The presentation half of ``FalkensteinGame`` (``solver.game.Game``'s presentation
    methods); it reads the rules' tables and never changes a state."""

    def state_fields(self, state: State) -> dict:
        """The state's fields, plus ``back_b``."""
        view = state._asdict()
        if self.actions == ACTIONS:  # no steps: every moment is the cards'
            del view["step"]
        view["back_b"] = self._room - state.back_a
        return view

    def state_from(self, values: Mapping) -> State:
        """A state from field values (ints or digit strings; levels may be codes);
        missing fields are the start state's. ``back_b`` may stand for ``back_a``."""
        values = state_values(values)   # one reading of a number, whatever the caller
        start = self.initial_outcomes()[0][1]
        fields = dict(start._asdict())
        known = STATE_FIELDS + ("back_b",) if self.actions != ACTIONS else tuple(
            key for key in STATE_FIELDS + ("back_b",) if key != "step")
        for key, value in values.items():
            if key not in known:
                check_choice("state field", key, known)
            fields[key] = self._field_value(key, value)
        if "back_b" in fields:
            back_a = self._room - fields.pop("back_b")
            if "back_a" in values and fields["back_a"] != back_a:
                raise InputError(f"back_a + back_b must be field_m - 2 = {self._room}")
            fields["back_a"] = back_a
        self._check_live(fields)
        if "owed_a" not in values or "owed_b" not in values:
            self._default_owed(fields, values)
        state = State(**fields)
        self._check_state(state)
        return state

    def _field_value(self, key: str, value: object) -> int:
        if key.startswith("level_") and isinstance(value, str) and not value.strip().lstrip(
                "-").isdigit():
            return self.rules.level(value, key)
        if key == "ending" and isinstance(value, str) and value in END:
            return END[value]
        if isinstance(value, str) and value.strip().lstrip("-").isdigit() and value.isascii():
            return int(value)
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise InputError(f"state field {key} takes an integer, got {value!r}")
        return int(value)

    def _check_live(self, fields: dict) -> None:
        """A moment to ask about is one at which the duel still goes on."""
        if fields["ending"]:
            raise InputError("ending must be 0: the duel is over at that state")
        if not 1 <= fields["exchange"] <= EXCHANGES_PER_ROUND:  # before it counts Rests
            raise InputError(f"state field exchange={fields['exchange']} is out of range "
                             f"1..{EXCHANGES_PER_ROUND}")
        for side in ("a", "b"):
            if fields[f"health_{side}"] < 0:
                raise InputError(f"health_{side} below 0 is unconscious: the duel is over")

    def _default_owed(self, fields: dict, given: Mapping) -> None:
        """Unless given, a side owes what its level requires."""
        for side in ("a", "b"):
            if f"owed_{side}" not in given:
                level = fields[f"level_{side}"]
                if not 0 <= level < len(self.rules.ladder):
                    continue  # _check_state reports it
                fields[f"owed_{side}"] = self.rules.rests_required[level]

    def _check_state(self, state: State) -> None:
        top = len(self.rules.ladder) - 1
        bounds = {"round": (1, self.max_rounds), "exchange": (1, EXCHANGES_PER_ROUND),
                  "back_a": (0, self._room), "level_a": (0, top), "level_b": (0, top),
                  "health_a": (-self._worst_wound("b"), self._health_high),
                  "health_b": (-self._worst_wound("a"), self._health_high),
                  "ending": (0, len(ENDINGS) - 1)}
        for side in ("a", "b"):
            level = getattr(state, f"level_{side}")
            bounds[f"owed_{side}"] = (0, min(self.rules.rests_required[min(max(level, 0), top)],
                                             2 * (EXCHANGES_PER_ROUND + 1 - state.exchange)))
        for key, (low, high) in bounds.items():
            value = getattr(state, key)
            if not low <= value <= high:
                raise InputError(f"state field {key}={value} is out of range {low}..{high}")
        self._check_step(state)
        for side in ("a", "b"):
            if getattr(state, f"level_{side}") != self._sheet_level[side]:
                raise InputError(f"level_{side} is fixed by the sheet "
                                 f"({self.sheets[side][self.discipline.ability]})")

    def _check_step(self, state: State) -> None:
        """A step exists only with its option, and a pending choice only where the cards
        dealt a partial wound."""
        if not state.step:
            return
        if state.step == MOVE and self.movement == "circle":
            return
        if 0 < state.step < MOVE and self.disarm == "attacker_chooses":
            if any(choosers(*self._effects_on(state._replace(step=0), state.step))):
                return
        raise InputError(f"state field step={state.step} is not a decision of this duel "
                         f"(0: the cards; 1..{MOVE - 1}: a pending disarm after a partial "
                         f"wound, with disarm=attacker_chooses; {MOVE}: the movement, with "
                         "movement=circle)")

    def _effects_on(self, state: State, step: int) -> tuple[str, str]:
        ex = self.resolve(state, *pending_cards(step))
        return ex.effect_a, ex.effect_b

    def _name(self, side: str) -> str:
        name = self.sheets[side].get("name")
        return f"{side.upper()} ({name})" if name else side.upper()

    def describe(self, state: State, viewer: str | None = None,
                 foe_hidden: bool = False) -> str:
        """The situation at the table: round, ground, Health, Rests owed. A ``viewer``
        whose foe's level is hidden (``foe_hidden``: ``envs.hidden``) sees neither that
        level nor the Rests it owes."""
        view = self.state_fields(state)
        if state.ending:
            return self._described_end(view)
        lines = [f"Round {state.round} of {self.max_rounds}, exchange {state.exchange} of "
                 f"{EXCHANGES_PER_ROUND} ({self.discipline_name}, "
                 f"{self.convention.replace('_', ' ')})."]
        if self.discipline.field and self.edge == "open":
            lines.append("Open ground: no wall behind either, a retreat is always possible.")
        elif self.discipline.field:
            where = "; ".join(self._where(side, view[f"back_{side}"]) for side in "ab")
            lines.append(f"Ground {self.field_m} m, a {self.edge} at each end: {where}.")
        if state.step == MOVE:
            lines.append("Between exchanges: each may stand, circle or press.")
        elif state.step:
            lines.append("A partial wound was dealt: the attacker chooses to wound or to "
                         "disarm.")
        hide = checked_player(viewer) if viewer is not None and foe_hidden else None
        for side in "ab":
            ability = self.discipline.ability.capitalize()
            if hide is not None and side != hide:  # his Health too: it may come with the sheet
                lines.append(f"{self._name(side)}: {ability} unknown, has lost "
                             f"{self._lost(state, side)} Health.")
                continue
            level = self.rules.ladder[view[f"level_{side}"]]
            owed = view[f"owed_{side}"]
            lines.append(f"{self._name(side)}: {ability} {level}, "
                         f"Health {view[f'health_{side}']}, owes {owed} "
                         f"Rest{'s' if owed != 1 else ''} this round.")
        return "\n".join(lines)

    def _described_end(self, view: dict) -> str:
        """A finished duel: both sheets' levels (its board is not kept: an ended duel's
        state holds the moment before the last touch; ``result`` says how it ended)."""
        ability = self.discipline.ability.capitalize()
        return "\n".join(["The duel is over."] + [
            f"{self._name(side)}: {ability} {self.rules.ladder[view[f'level_{side}']]}."
            for side in "ab"])

    def _lost(self, state: State, side: str) -> int:
        return self.sheets[side]["health"] - getattr(state, f"health_{side}")

    def _where(self, side: str, back: int) -> str:
        at_edge = f", at the {self.edge}" if back == 0 else ""
        return f"{self._name(side)} has {back} m behind him{at_edge}"

    def narrate(self, state: State, action_a: int, action_b: int, next_state: State) -> str:
        """What happened in one exchange (or step), in words."""
        if state.step == MOVE:
            return self._move_text(state, action_a, action_b, next_state)
        ex = self.resolved_as(state, action_a, action_b, next_state)
        if state.step:
            cards = pending_cards(state.step)
            head = (f"A {self._choice_text(action_a)}, B {self._choice_text(action_b)} "
                    f"(after {pair_words(ACTIONS[cards[0]])} against "
                    f"{pair_words(ACTIONS[cards[1]])}): ")
            state = state._replace(step=0)
            action_a, action_b = cards
        else:
            head = (f"A plays {pair_words(ACTIONS[action_a])}, B plays "
                    f"{pair_words(ACTIONS[action_b])}: ")
        if ex.hits_a or ex.hits_b:
            parts = [self._touch_text(attacker, defender, ex, state, next_state)
                     for attacker, defender in (("a", "b"), ("b", "a"))
                     if getattr(ex, f"hits_{defender}")]
        elif action_a == action_b == DD:
            parts = [self._corps_text(ex)]
        else:
            parts = ["no touch."]
        text = head + " ".join(parts)
        if next_state.step and next_state.step != MOVE:
            text += " The attacker chooses: wound or disarm."
        if next_state.ending:
            text += f" {ENDINGS[next_state.ending]}."
        return text

    def _touch_text(self, attacker: str, defender: str, ex: Exchange, state: State,
                    next_state: State) -> str:
        hits = getattr(ex, f"hits_{defender}")
        letter = getattr(ex, f"letter_{defender}")
        effect = getattr(ex, f"effect_{defender}")
        touch = "single" if hits == 1 else "double"
        who = self._name(defender)
        before = getattr(state, f"health_{defender}")
        after = getattr(next_state, f"health_{defender}")
        outcome = {
            "retreat": f"{who} retreats 2 m" + ("" if self.edge == "open"
                                                 else f" toward the {self.edge}"),
            "still": f"{who} gives ground, which changes nothing here",
            "wall": f"{who} cannot retreat: the R becomes BP at the wall",
            "fall": f"{who} has no room and {self._fall_text(defender)}",
            "jump": f"{who} has no room and {self._jump_text(defender)}",
            "HC": f"{who} is out of combat",
        }.get(effect, f"{who} is wounded ({effect})")
        if effect == "disarm":
            outcome = f"{who} is disarmed at the attacker's choice"
        elif next_state.step and next_state.step != MOVE and effect in PARTIAL:
            where = "BP, at the wall" if effect == "wall" else effect
            outcome = f"{who} is open to a partial wound ({where})"
        elif (effect in WOUND_INDEX and self.convention == "surrender"
                and self.disarm == "by_convention" and WOUND_INDEX[effect] == 0):
            outcome += ": he is disarmed" if effect == "wall" else " and disarmed"
        elif before != after:
            outcome += f", Health {before} -> {after}"
        return f"{self._name(attacker)}'s {touch} touch ({letter}): {outcome}."

    def _choice_text(self, action: int) -> str:
        return {"wound": "wounds", "disarm": "disarms", "wait": "waits", "stand": "stands",
                "circle": "circles", "press": "presses"}[self.actions[action]]

    def _move_text(self, state: State, action_a: int, action_b: int,
                   next_state: State) -> str:
        head = f"A {self._choice_text(action_a)}, B {self._choice_text(action_b)}"
        moves = (self.actions[action_a], self.actions[action_b])
        chance = circle_chance(*moves, self._footwork_chance,
                               {"a": self.rules.feat_chance[state.level_a],
                                "b": self.rules.feat_chance[state.level_b]})
        odds = f" (the circle had {chance:.0%} to succeed)" if "circle" in moves else ""
        if next_state.back_a != state.back_a:
            return (f"{head}: they circle back toward the middle{odds}; A has "
                    f"{next_state.back_a} m behind him, B {self._room - next_state.back_a} m.")
        return f"{head}: they keep their ground{odds}."

    def _corps_text(self, ex: Exchange) -> str:
        if not self.discipline.corps_a_corps:
            return "corps-à-corps, which has no effect here."
        if ex.effect_a and ex.effect_b:
            return self._corps_tie_text(ex)
        for loser, winner in (("a", "b"), ("b", "a")):
            effect = getattr(ex, f"effect_{loser}")
            if effect in ("fall", "jump"):
                what = self._fall_text(loser) if effect == "fall" else self._jump_text(loser)
                return (f"corps-à-corps: {self._name(winner)} pushes {self._name(loser)} "
                        f"to the ledge, and he {what}.")
            if effect == "push" and not getattr(ex, f"move_{loser}"):
                return (f"corps-à-corps: {self._name(winner)} pushes {self._name(loser)} "
                        f"against the wall, which stops him.")
            if effect == "push":
                metres = getattr(ex, f"move_{loser}")
                return (f"corps-à-corps: {self._name(winner)} pushes {self._name(loser)} "
                        f"back {metres} m.")
        return "corps-à-corps: equal strength, they push each other apart and close again."

    def _fall_text(self, side: str) -> str:
        if self.ledge == "jump":
            return f"leaps for the other wall, misses his feat{self._feat(side)} and falls"
        return "falls from the ledge"

    def _jump_text(self, side: str) -> str:
        return (f"leaps for the other wall and makes his feat{self._feat(side)}: he lands "
                "there with 0 m behind him")

    def _feat(self, side: str) -> str:
        """A feat of footwork and its chance, as the ruleset's table gives it."""
        ability = self.rules.footwork_ability
        level = self.rules.ladder[self._level_of(side, ability)]
        return (f" ({ability.capitalize()} {level}: {self._footwork_chance[side]:.0%} "
                "to succeed)")

    def _corps_tie_text(self, ex: Exchange) -> str:
        """Equal strengths that push each other back (``corps_a_corps_tie=push_apart``)."""
        metres = self.rules.corps_a_corps_tie_m
        parts = []
        for side in ("a", "b"):
            effect = getattr(ex, f"effect_{side}")
            if effect in ("fall", "jump"):
                what = self._fall_text(side) if effect == "fall" else self._jump_text(side)
                parts.append(f"{self._name(side)} has no room and {what}")
            elif getattr(ex, f"move_{side}") < metres:
                parts.append(f"{self._name(side)} is stopped by the wall")
        return (f"corps-à-corps: equal strength, they push each other back {metres} m"
                + (f" ({'; '.join(parts)})." if parts else "."))

    def situation(self, state: State, player: str, foe_hidden: bool = False) -> str:
        """The decision ``player`` faces, from his side: the moment, his Rests owed, his
        ground and Health, then his foe's (the Rests he owes unless his level is hidden,
        ``foe_hidden``: ``envs.hidden``)."""
        own = checked_player(player)
        foe = "b" if own == "a" else "a"
        view = self.state_fields(state)
        left = EXCHANGES_PER_ROUND - state.exchange + 1
        parts = [f"round {state.round}, exchange {state.exchange} of {EXCHANGES_PER_ROUND}",
                 f"you owe {_rests(view[f'owed_{own}'])} with {left} exchange"
                 f"{'s' if left != 1 else ''} left"]
        if self.discipline.field and self.edge != "open":
            parts.append(_ground("your", view[f"back_{own}"], self.edge))
            parts.append(_ground("his", view[f"back_{foe}"], self.edge))
        if not foe_hidden:
            parts.append(f"he owes {_rests(view[f'owed_{foe}'])}")
        if self.convention != "first_blood":
            his = f", he has lost {self._lost(state, foe)}" if foe_hidden else \
                f" against his {view[f'health_{foe}']}"
            parts.append(f"Health {view[f'health_{own}']}{his}")
        if state.step == MOVE:
            parts.insert(0, "between exchanges: stand, circle or press")
        elif state.step:
            parts.insert(0, "after the cards: choose to wound or to disarm"
                         if self.legal_mask(state, own)[self.actions.index("disarm")]
                         else "after the cards: he chooses to wound you or disarm you")
        return ", ".join(parts)


def _rests(count: int) -> str:
    return "no Rest" if count == 0 else f"{count} Rest{'s' if count != 1 else ''}"


def _ground(whose: str, back: int, edge: str) -> str:
    if back == 0:
        return f"{whose} back to the {edge}"
    return f"{back} m behind {'you' if whose == 'your' else 'him'}"

