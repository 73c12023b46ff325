"""The words of an Uchronia duel: the state as named fields and back (``--state``), a
state described, a step narrated and a situation as a player sees it, for each mode."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from solver.errors import InputError

from ..rolls import faces, given, sum_text
from ..schema import state_values, token
from .dice import at_least, margin_class
from .state import (
    ACTIONS,
    ADVANCE,
    AIM,
    ATOUTS,
    BREAK_OFF,
    DISARM,
    EXCEPTIONAL,
    FIGHT,
    FIRE,
    FIRE_MOVING,
    FREE,
    GRAPPLE,
    INTENTS,
    KILLED,
    M_FLEES,
    M_OUT,
    M_WALK,
    MARGINS,
    MINOR,
    OUT,
    P_TIME,
    RELOAD,
    WAIT,
    Bout,
    Shot,
    other,
)

HEALTH_WORDS = ("unhurt", "wounded", "gravely wounded")


class Roll(NamedTuple):
    """One roll told: who rolled, what for, the dice, and the number to reach."""

    who: str
    what: str       # "shot", "resistance", "confrontation", "break_off"
    dice: tuple[int, ...]
    against: int | None = None
    after: int = 0  # a resistance test: the status it leaves (a health level, or OUT)


def _roll_text(roll: Roll, result: str) -> str:
    against = f" against {roll.against}" if roll.against is not None else ""
    count = len(roll.dice)
    told = f", {result}" if result else ""
    return (f"{roll.who.upper()} rolls {count} {'die' if count == 1 else 'dice'} for his "
            f"{roll.what.replace('_', '-')}: {sum_text(roll.dice)}{against}{told}")


#: the fields counted from 1 in words, as the duel tells them ("Turn 1 of 12") and as the
#: other systems count their rounds and beats; the state counts from 0
COUNTED_FROM_ONE = ("turn", "round")


class UchroniaWords:
    """What both modes say alike (a mixin of the games in ``rules.py``)."""

    def state_fields(self, state) -> dict[str, int]:
        fields = dict(state._asdict())
        for name in COUNTED_FROM_ONE:
            if name in fields:
                fields[name] += 1
        return fields

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
            shift = 1 if name in COUNTED_FROM_ONE else 0
            fields[name] = self._field_value(name, value) - shift
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

    def _resisted(self, rng, target: str, health: int, severity: int, threshold: int):
        """A resistance test drawn: (its roll, the target's status after it), as
        ``wound`` lists them: below the threshold he is out, at ``cancel`` above it the
        wound is shrugged off, else it applies."""
        rolled = faces(rng, self.resist_dice[target])
        total = sum(rolled)
        if total < threshold:
            status = OUT
        elif total >= threshold + self.cancel:
            status = health
        else:
            status = OUT if health + severity >= self.out_level else health + severity
        return Roll(target, "resistance", rolled, threshold, status), status

    def _resistance_text(self, roll: Roll) -> str:
        total, after = sum(roll.dice), roll.after
        if total < roll.against:
            result = "he fails and is out of the fight"
        elif total >= roll.against + self.cancel:
            result = f"{self.cancel} or more above: the wound is shrugged off"
        else:
            result = ("the wound applies: " + (HEALTH_WORDS[after] if after < OUT
                                                else "out of the fight"))
        return _roll_text(roll, result)

    def _atout_text(self, side: str) -> str:
        names = [self.ruleset["atouts"][a] for a in ATOUTS if self.sheets[side].get(a)]
        return ", ".join(names) if names else "no Atout"


class PistolWords(UchroniaWords):
    """The pistol duel in words."""

    def state_ranges(self) -> dict[str, tuple[int, int]]:
        return {"turn": (1, self.max_turns), "band": (0, len(self.bands) - 1),
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
        if state.ending:  # an ended duel keeps no count of turns
            return f"The duel is over: {self.result(state)}."
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
        if not getattr(state, f"ammo_{opp}"):
            shot = "his only shot" if self.weapon[opp].shots == 1 else "every round"
            text += (f" (he has fired {shot}, and there is no reloading)" if not self.reload
                     else f" (he has fired {shot}: he must reload before he fires again)")
        legal = np.flatnonzero(self.legal_mask(state, player))
        if FIRE in legal:
            dice = self.shot_dice(player, state.band, getattr(state, f"health_{player}"),
                                  getattr(state, f"aim_{player}") == 1, False)
            chance = float(at_least(dice, self.threshold))
            text += f"; a shot now rolls {dice} dice and hits {chance:.0%} of the time"
        elif self.range_dice(player, state.band) is None:
            text += "; he is out of your range"
        return text + f"; turn {state.turn + 1} of {self.max_turns}"

    def rolls(self, state: Shot, action_a: int, action_b: int, next_state: Shot,
              rng: np.random.Generator) -> tuple[Roll, ...] | None:
        """The shots and resistance tests behind ``next_state`` (None: nobody fired)."""
        if FIRE not in (action_a, action_b) and FIRE_MOVING not in (action_a, action_b):
            return None
        found = given(lambda r: self._shots_drawn(state, (action_a, action_b), r),
                      self._shot_result(next_state), rng)
        return tuple(found) if found is not None else None

    def _shots_drawn(self, state: Shot, actions, rng):
        """The turn's shots at the dice: (the rolls, what they leave), the better shooter
        first when both fire and one has the initiative (``_in_order``)."""
        fires = {side: actions[i] in (FIRE, FIRE_MOVING) for i, side in enumerate("ab")}
        health = {"a": state.health_a, "b": state.health_b}
        status = dict(health)
        ordered = all(fires.values()) and self.first is not None
        order = (self.first, other(self.first)) if ordered else [s for s in "ab" if fires[s]]
        rolls = []
        for shooter in order:
            if ordered and status[shooter] >= OUT:
                break  # the second shooter fell to the first shot
            target = other(shooter)
            dice = self._dice(state, shooter, actions["ab".index(shooter)],
                              status[shooter] if ordered else health[shooter])
            rolled = faces(rng, dice)
            rolls.append(Roll(shooter, "shot", rolled, self.threshold))
            total = sum(rolled)
            if total < self.threshold or total == dice:
                continue
            grade = margin_class(total - self.threshold, self.significant, self.exceptional)
            if grade == EXCEPTIONAL:
                status[target] = KILLED
                continue
            test, status[target] = self._resisted(rng, target, health[target],
                                                  self.severity[grade], self.resist[grade])
            rolls.append(test)
        return rolls, self._shot_result(state, status, state.turn + 1 >= self.max_turns)

    def _shot_result(self, state: Shot, status: dict | None = None, last: bool = False):
        """What a turn's shots decided, as a next state shows it: the ending, or both
        healths (the turn limit hides them)."""
        if status is None:
            return ("end", state.ending) if state.ending else (
                "live", state.health_a, state.health_b)
        if status["a"] >= OUT or status["b"] >= OUT:
            return "end", self._ending(status["a"], status["b"]).ending
        return ("end", P_TIME) if last else ("live", status["a"], status["b"])

    def narrate(self, state: Shot, action_a: int, action_b: int, next_state: Shot,
                rolls: tuple[Roll, ...] | None = None) -> str:
        words = {FIRE: "fires", AIM: "takes aim", ADVANCE: "advances", RELOAD: "reloads",
                 FIRE_MOVING: "fires while advancing", WAIT: "waits"}
        text = f"A {words[action_a]}, B {words[action_b]}."
        if rolls is not None:
            text += " " + " ".join(self._told(state, rolls)) if rolls else ""
        for side in "ab":
            before = getattr(state, f"health_{side}")
            after = getattr(next_state, f"health_{side}")
            if after > before and not next_state.ending and rolls is None:
                text += f" {side.upper()} is hit: {HEALTH_WORDS[after]}."
        if next_state.ending:
            return text + f" {self.result(next_state)}."
        fired = [s.upper() for s, a in zip("ab", (action_a, action_b), strict=True)
                 if a in (FIRE, FIRE_MOVING)
                 and getattr(next_state, f"health_{other(s)}") == getattr(
                     state, f"health_{other(s)}")]
        if fired and rolls is None:
            text += (f" {' and '.join(fired)} {'miss' if len(fired) > 1 else 'misses'}, or "
                     f"{'their wounds are' if len(fired) > 1 else 'the wound is'} shrugged "
                     "off.")
        if next_state.band != state.band:
            text += f" The distance closes to {self.band_text(next_state.band)}."
        return text

    def _told(self, state: Shot, rolls: tuple[Roll, ...]) -> list[str]:
        """Each shot and resistance test in words, with its grade."""
        told = []
        for roll in rolls:
            total = sum(roll.dice)
            if roll.what == "resistance":
                told.append(self._resistance_text(roll) + ".")
                continue
            if total == len(roll.dice):
                result = "every die a 1: a fumble, he misses"
            elif total < roll.against:
                result = "a miss"
            else:
                grade = margin_class(total - roll.against, self.significant, self.exceptional)
                result = f"a hit by {total - roll.against}, " + (
                    "exceptional: a killing shot" if grade == EXCEPTIONAL else
                    f"{MARGINS[grade]}: a {'grave ' if grade else ''}wound")
            told.append(_roll_text(roll, result) + ".")
        return told


class MeleeWords(UchroniaWords):
    """The melee in words."""

    def state_ranges(self) -> dict[str, tuple[int, int]]:
        return {"round": (1, self.max_rounds), "health_a": (0, 2), "health_b": (0, 2),
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
        if state.ending:  # an ended fight keeps no count of rounds
            return f"The fight is over: {self.result(state)}."
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
                f"{self.confrontation_dice(state, opp, FIGHT)}; if you break off, you get away "
                f"{flee:.0%} of the time")

    def rolls(self, state: Bout, action_a: int, action_b: int, next_state: Bout,
              rng: np.random.Generator) -> tuple[Roll, ...] | None:
        """The Confrontation, break-off and resistance rolls behind ``next_state``."""
        found = given(lambda r: self._bout_drawn(state, action_a, action_b, r), next_state,
                      rng)
        return tuple(found) if found else None

    def _bout_drawn(self, state: Bout, action_a: int, action_b: int, rng):
        """One step at the dice, as ``_resolve`` lists its outcomes: (the rolls, the next
        state)."""
        rolls: list[Roll] = []
        if state.chooser:
            winner = "ab"[state.chooser - 1]
            choice = action_a if winner == "a" else action_b
            if choice in (DISARM, FREE):
                return rolls, self._clocked(self._choose(state, winner, choice)[0][1])
            settled = state._replace(chooser=0, intent=0, margin=0)
            intent = FIGHT if state.intent == 0 else GRAPPLE
            return rolls, self._applied(settled, winner, intent, state.margin, rolls, rng)
        breaks = [side for side, a in zip("ab", (action_a, action_b), strict=True)
                  if a == BREAK_OFF]
        fled = []
        for side in breaks:
            rolled = faces(rng, self.break_dice(state, side))
            rolls.append(Roll(side, "break_off", rolled, self.break_threshold))
            if sum(rolled) >= self.break_threshold:
                fled.append(side)
        if len(breaks) == 2:
            ends = {2: self._end(M_WALK, None), 0: self._next_round(
                state._replace(fumble_a=0, fumble_b=0))}
            nxt = ends.get(len(fled)) or self._end(M_FLEES, other(fled[0]))
            return rolls, self._clocked(nxt)
        if fled:
            return rolls, self._end(M_FLEES, other(fled[0]))
        if breaks and self._options["failed_break_off"] == "round_lost":
            return rolls, self._clocked(self._next_round(state._replace(fumble_a=0, fumble_b=0)))
        intents = {"a": action_a, "b": action_b}
        totals, fumbles = {}, {"a": 0, "b": 0}
        for side in "ab":
            if side in breaks:
                totals[side] = 0  # helpless: the other's margin is his whole total
                continue
            rolled = faces(rng, self.confrontation_dice(state, side, intents[side]))
            rolls.append(Roll(side, "confrontation", rolled))
            totals[side] = sum(rolled)
            fumbles[side] = int(totals[side] == len(rolled))  # every die a 1
        rolled_state = state._replace(fumble_a=fumbles["a"], fumble_b=fumbles["b"])
        if totals["a"] == totals["b"]:
            return rolls, self._clocked(self._next_round(rolled_state))
        winner = "a" if totals["a"] > totals["b"] else "b"
        margin = margin_class(abs(totals["a"] - totals["b"]), self.significant,
                              self.exceptional)
        if margin == MINOR:
            return rolls, self._clocked(self._next_round(rolled_state))
        won = self._won(rolled_state, winner, intents[winner], margin)
        if len(won) == 1 and won[0][1].chooser:
            return rolls, won[0][1]
        return rolls, self._applied(rolled_state, winner, intents[winner], margin, rolls, rng)

    def _applied(self, state: Bout, winner: str, intent: int, margin: int, rolls: list,
                 rng) -> Bout:
        """``_apply`` at the dice: a grapple holds, a blow is resisted."""
        if intent == GRAPPLE:
            return self._clocked(self._apply(state, winner, intent, margin)[0][1])
        loser = other(winner)
        blade = self.weapon[winner].kind == "blade"
        severity = self.wound_levels[1 if blade and margin == EXCEPTIONAL else 0]
        test, status = self._resisted(rng, loser, getattr(state, f"health_{loser}"),
                                      severity, self.resist[margin - 1])
        rolls.append(test)
        if status >= OUT:
            return self._end(M_OUT, winner)
        return self._clocked(self._next_round(state._replace(**{f"health_{loser}": status})))

    def _clocked(self, state: Bout) -> Bout:
        """The round limit applied, as ``outcomes`` applies it."""
        if not state.ending and state.round >= self.limit:
            return self._time_up()
        return state

    def narrate(self, state: Bout, action_a: int, action_b: int, next_state: Bout,
                rolls: tuple[Roll, ...] | None = None) -> str:
        told = " ".join(self._told_bout(rolls)) if rolls else ""
        return self._narrate(state, action_a, action_b, next_state, told)

    def _told_bout(self, rolls: tuple[Roll, ...]) -> list[str]:
        told = []
        totals = {r.who: sum(r.dice) for r in rolls if r.what == "confrontation"}
        for roll in rolls:
            total = sum(roll.dice)
            if roll.what == "resistance":
                told.append(self._upper_hand(totals))
                told.append(self._resistance_text(roll) + ".")
            elif roll.what == "break_off":
                made = "he gets away" if total >= roll.against else "he fails to get away"
                told.append(_roll_text(roll, made) + ".")
            else:
                fumble = "every die a 1: a fumble" if total == len(roll.dice) else ""
                told.append(_roll_text(roll, fumble) + ".")
        if not any(r.what == "resistance" for r in rolls):
            told.append(self._upper_hand(totals))
        return [line for line in told if line]

    def _upper_hand(self, totals: dict[str, int]) -> str:
        """Who won the Confrontation's roll, by how much (a helpless side totals 0)."""
        if not totals:
            return ""
        a, b = totals.get("a", 0), totals.get("b", 0)
        if a == b:
            return "Equal totals: neither gains the upper hand."
        grade = MARGINS[margin_class(abs(a - b), self.significant, self.exceptional)]
        return (f"{'A' if a > b else 'B'} wins the roll by {abs(a - b)}, "
                f"{'an' if grade[0] in 'aeiou' else 'a'} {grade} margin.")

    def _narrate(self, state: Bout, action_a: int, action_b: int, next_state: Bout,
                 told: str = "") -> str:
        if state.chooser:
            winner = "ab"[state.chooser - 1].upper()
            choice = ACTIONS[action_a if winner == "A" else action_b]
            text = f"{winner} chooses to {choice.replace('_', ' ')}."
        else:
            text = f"A chooses to {ACTIONS[action_a].replace('_', ' ')}, B to " \
                   f"{ACTIONS[action_b].replace('_', ' ')}."
        text += f" {told}" if told else ""
        if next_state.ending:
            return text + f" {self.result(next_state)}."
        if next_state.chooser:
            return text + " " + self._pending_text(next_state, "ab"[next_state.chooser - 1],
                                                   False)
        events = [event for side in "ab" for event in self._events(state, next_state, side)]
        if not events and not state.chooser and not told:
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
