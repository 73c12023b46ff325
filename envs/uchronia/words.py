"""The words of an Uchronia duel: the state as named fields and back (``--state``), a
state described, a step narrated and a situation as a player sees it, for each mode."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from solver.errors import InputError

from ..schema import state_values, token
from .dice import at_least
from .state import (
    ACTIONS,
    ADVANCE,
    AIM,
    ATOUTS,
    FIGHT,
    FIRE,
    FIRE_MOVING,
    INTENTS,
    MARGINS,
    MINOR,
    RELOAD,
    WAIT,
    Bout,
    Shot,
    other,
)

HEALTH_WORDS = ("unhurt", "wounded", "gravely wounded")


class UchroniaWords:
    """What both modes say alike (a mixin of the games in ``rules.py``)."""

    def state_fields(self, state) -> dict[str, int]:
        return dict(state._asdict())

    state_dict = state_fields

    def state_from(self, values: Mapping[str, object]):
        """A live state: the start's fields overridden by ``values`` (integers, or band
        names for ``band``); each checked against its range."""
        values = state_values(values)   # one reading of a number, whatever the caller
        start = self.initial_outcomes()[0][1]
        fields = start._asdict()
        for key, value in values.items():
            name = token(key)
            if name not in fields:
                allowed = ", ".join(f for f in fields if f != "ending")
                raise InputError(f"unknown state field {key!r}; allowed: {allowed}")
            fields[name] = self._field_value(name, value)
        state = self.state_type(**fields)
        self._check_state(state)
        return state

    def _field_value(self, name: str, value: object) -> int:
        low, high = self.state_ranges()[name]
        if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            value = int(value)
        if isinstance(value, str) and name == "band":
            found = [i for i, band in enumerate(self.bands) if token(band) == token(value)]
            value = found[0] if found else value
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InputError(f"state field {name} takes an integer {low}..{high}"
                             + (f" or a band ({', '.join(self.bands)})" if name == "band"
                                else "") + f", got {value!r}")
        return value

    def _name(self, side: str) -> str:
        return side.upper()

    def _atout_text(self, side: str) -> str:
        names = [self.ruleset["atouts"][a] for a in ATOUTS if self.sheets[side].get(a)]
        return ", ".join(names) if names else "no Atout"


class PistolWords(UchroniaWords):
    """The pistol duel in words."""

    def state_ranges(self) -> dict[str, tuple[int, int]]:
        return {"turn": (0, self.max_turns - 1), "band": (0, len(self.bands) - 1),
                "health_a": (0, 2), "health_b": (0, 2),
                "ammo_a": (0, self.weapon["a"].shots), "ammo_b": (0, self.weapon["b"].shots),
                "aim_a": (0, 1), "aim_b": (0, 1), "ending": (0, 0)}

    def _check_state(self, state: Shot) -> None:
        for side in "ab":
            if getattr(state, f"aim_{side}") and not getattr(state, f"ammo_{side}"):
                raise InputError(f"aim_{side}=1 needs a loaded weapon (ammo_{side} >= 1)")

    def band_text(self, band: int) -> str:
        words = {0: "point-blank", 1: "a few paces", 2: "twenty paces", 3: "long range"}
        name = self.band_names[band]
        return f"{name} ({words[band]})" if band in words and len(self.bands) == 4 else name

    def _gun_text(self, state: Shot, side: str, own: bool) -> str:
        ammo = getattr(state, f"ammo_{side}")
        weapon = self.weapon[side]
        whose = "your" if own else "his"
        if weapon.shots == 1:
            load = "loaded" if ammo else "empty"
        else:
            load = f"{ammo} of {weapon.shots} rounds loaded" if ammo else "empty"
        aim = ", aimed" if getattr(state, f"aim_{side}") else ""
        return f"{whose} {weapon.name} {load}{aim}"

    def describe(self, state: Shot, viewer: str | None = None) -> str:
        if state.ending:
            return f"Turn {state.turn}: {self.result(state)}."
        parts = [f"Turn {state.turn + 1} of {self.max_turns}, distance "
                 f"{self.band_text(state.band)}."]
        for side in "ab":
            health = HEALTH_WORDS[getattr(state, f"health_{side}")]
            parts.append(f"{side.upper()} ({self._atout_text(side)}): {health}, "
                         f"{self._gun_text(state, side, False).removeprefix('his ')}.")
        return " ".join(parts)

    def situation(self, state: Shot, player: str) -> str:
        opp = other(player)
        if state.ending:
            return f"the duel is over: {self.result(state)}"
        mine = self._gun_text(state, player, True)
        his = self._gun_text(state, opp, False)
        text = (f"{self.band_text(state.band)}, {mine}; you are "
                f"{HEALTH_WORDS[getattr(state, f'health_{player}')]}, he is "
                f"{HEALTH_WORDS[getattr(state, f'health_{opp}')]}; {his}")
        if not getattr(state, f"ammo_{opp}") and self.weapon[opp].shots == 1:
            text += " (he has fired his only shot)"
        legal = np.flatnonzero(self.legal_mask(state, player))
        if FIRE in legal:
            dice = self.shot_dice(player, state.band, getattr(state, f"health_{player}"),
                                  getattr(state, f"aim_{player}") == 1, False)
            chance = float(at_least(dice, self.threshold))
            text += f"; a shot now rolls {dice} dice and hits {chance:.0%} of the time"
        elif self.range_dice(player, state.band) is None:
            text += "; he is out of your range"
        return text + f"; turn {state.turn + 1} of {self.max_turns}"

    def narrate(self, state: Shot, action_a: int, action_b: int, next_state: Shot) -> str:
        words = {FIRE: "fires", AIM: "takes aim", ADVANCE: "advances", RELOAD: "reloads",
                 FIRE_MOVING: "fires while advancing", WAIT: "waits"}
        text = f"A {words[action_a]}, B {words[action_b]}."
        for side in "ab":
            before = getattr(state, f"health_{side}")
            after = getattr(next_state, f"health_{side}")
            if after > before and not next_state.ending:
                text += f" {side.upper()} is hit: {HEALTH_WORDS[after]}."
        if next_state.ending:
            return text + f" {self.result(next_state)}."
        fired = [s.upper() for s, a in zip("ab", (action_a, action_b), strict=True)
                 if a in (FIRE, FIRE_MOVING)
                 and getattr(next_state, f"health_{other(s)}") == getattr(
                     state, f"health_{other(s)}")]
        if fired:
            text += f" {' and '.join(fired)} {'miss' if len(fired) > 1 else 'misses'}" \
                    " (or the wound is shrugged off)."
        if next_state.band != state.band:
            text += f" The distance closes to {self.band_text(next_state.band)}."
        return text


class MeleeWords(UchroniaWords):
    """The melee in words."""

    def state_ranges(self) -> dict[str, tuple[int, int]]:
        return {"round": (0, self.max_rounds - 1), "health_a": (0, 2), "health_b": (0, 2),
                "grip_a": (0, self.full_pool["a"] - 1), "grip_b": (0, self.full_pool["b"] - 1),
                "fumble_a": (0, 1), "fumble_b": (0, 1), "chooser": (0, 2), "intent": (0, 1),
                "margin": (0, 2), "ending": (0, 0)}

    def _check_state(self, state: Bout) -> None:
        for side in "ab":
            if getattr(state, f"grip_{side}") and self.armed(other(side)):
                raise InputError(f"grip_{side} > 0 needs an unarmed opponent (only bare hands "
                                 f"grapple)")
        if state.chooser and state.margin == MINOR:
            raise InputError("a pending choice (chooser) needs margin 1 (significant) or 2 "
                             "(exceptional)")
        if state.chooser and state.intent == 1 and self.armed("ab"[state.chooser - 1]):
            raise InputError("intent 1 (grapple) needs an unarmed chooser")

    def _side_text(self, state: Bout, side: str, you: bool) -> str:
        health = getattr(state, f"health_{side}")
        hurt = ("unhurt", "stunned or wounded", "gravely wounded")[health]
        grip = getattr(state, f"grip_{side}")
        text = f"{hurt}, {self.weapon[side].name}"
        if grip:
            text += f", held in a grapple (-{grip} {'die' if grip == 1 else 'dice'})"
        if getattr(state, f"fumble_{side}"):
            text += f", off balance after {'your' if you else 'his'} fumble"
        return text

    def describe(self, state: Bout, viewer: str | None = None) -> str:
        if state.ending:
            return f"Round {state.round}: {self.result(state)}."
        parts = [f"Round {state.round + 1} of {self.max_rounds}."]
        for side in "ab":
            parts.append(f"{side.upper()} ({self._atout_text(side)}): "
                         f"{self._side_text(state, side, False)}.")
        if state.chooser:
            parts.append(self._pending_text(state, "ab"[state.chooser - 1], False))
        return " ".join(parts)

    def _pending_text(self, state: Bout, winner: str, you: bool) -> str:
        who = "you" if you else winner.upper()
        margin = MARGINS[state.margin]
        intent = INTENTS[state.intent]
        choices = [ACTIONS[k] for k in self.options_after_roll(state, winner)]
        return (f"{who} won the roll by a {margin} margin ({intent}) and "
                f"{'choose' if you else 'chooses'} between {', '.join(choices)}.")

    def situation(self, state: Bout, player: str) -> str:
        if state.ending:
            return f"the fight is over: {self.result(state)}"
        opp = other(player)
        text = (f"round {state.round + 1} of {self.max_rounds}; you are "
                f"{self._side_text(state, player, True)}; he is "
                f"{self._side_text(state, opp, False)}")
        if state.chooser:
            winner = "ab"[state.chooser - 1]
            if winner == player:
                return text + "; " + self._pending_text(state, player, True)
            return text + "; he won the roll and chooses; you wait"
        fight = self.confrontation_dice(state, player, FIGHT)
        flee = float(at_least(self.break_dice(state, player), self.break_threshold))
        return (text + f"; you fight with {fight} dice against his "
                f"{self.confrontation_dice(state, opp, FIGHT)}, and would break off "
                f"{flee:.0%} of the time")

    def narrate(self, state: Bout, action_a: int, action_b: int, next_state: Bout) -> str:
        if state.chooser:
            winner = "ab"[state.chooser - 1].upper()
            choice = ACTIONS[action_a if winner == "A" else action_b]
            text = f"{winner} chooses to {choice.replace('_', ' ')}."
        else:
            text = f"A chooses to {ACTIONS[action_a].replace('_', ' ')}, B to " \
                   f"{ACTIONS[action_b].replace('_', ' ')}."
        if next_state.ending:
            return text + f" {self.result(next_state)}."
        if next_state.chooser:
            return text + " " + self._pending_text(next_state, "ab"[next_state.chooser - 1],
                                                   False)
        events = [event for side in "ab" for event in self._events(state, next_state, side)]
        if not events and not state.chooser:
            events = ["Neither gains the upper hand."]
        return " ".join([text, *events])

    def _events(self, state: Bout, next_state: Bout, side: str) -> list[str]:
        """What changed for ``side`` in one step, in words."""
        who = side.upper()
        events = []
        if getattr(next_state, f"health_{side}") > getattr(state, f"health_{side}"):
            events.append(f"{who} is hurt.")
        grip_now, grip_then = getattr(next_state, f"grip_{side}"), getattr(state, f"grip_{side}")
        if grip_now > grip_then:
            events.append(f"{who} is caught in a grapple.")
        elif grip_now < grip_then:
            events.append(f"{who} works free of the grapple.")
        if getattr(next_state, f"fumble_{side}") and not state.chooser:
            events.append(f"{who} fumbles.")
        return events
