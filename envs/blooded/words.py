"""The words of a Blooded duel: the state as named fields and back (``--state``), a
state described, a step narrated, an action and a situation as a player says them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from envs.schema import state_values
from solver.errors import InputError

from ..rolls import faces, given, sum_text
from .dice import bash_case, risk_case
from .state import (
    BID,
    BLIND,
    CANCEL,
    CHOOSE,
    DBIND,
    DECLARE,
    DRAW,
    OVER,
    PHASES,
    PLANS,
    RCANCEL,
    RESPOND,
    RISK,
    SIDES,
    SPEND,
    VICTOR,
    State,
)

#: the fields the strike bid and what follows it set: a moment at the bid holds none
BID_SETS = ("bid_a", "bid_b", "aggressor", "victor", "wv", "wd")


class Rolls(NamedTuple):
    """The dice of a risk, a Bash or a Riposte (``rolls``): what each side rolled."""

    kind: str  # "risk", "bash" or "riposte"
    a: tuple[int, ...]
    b: tuple[int, ...]


class BloodedWords:
    """The presentation of ``BloodedGame`` (a mixin: it reads the game's rules, sheets
    and pools)."""

    def rolls(self, state: State, action_a: int, action_b: int, next_state: State,
              rng: np.random.Generator) -> Rolls | None:
        """The dice behind ``next_state``: a risk's two pools, a Bash's or a rolled
        Riposte's; None on a step without dice."""
        s, sides = state, self.rules.sides
        if s.phase == RISK:
            wagers = (action_a, action_b)
            tie = 1 - s.aggressor if self.rules.risk_tie == "defender" else s.aggressor
            base = self._risk_base(s)
            counts = [self.dice_left(s, side) - wagers[side] for side in (0, 1)]

            def risk(r):
                a, b = faces(r, counts[0], sides), faces(r, counts[1], sides)
                case = risk_case(a, b, wagers, tie, self.rules.target)
                return Rolls("risk", a, b), self._after_risk(s, base, case)
            return given(risk, next_state, rng)
        if s.phase != VICTOR:
            return None
        action = self.action_names[action_a if self._decider(s) == 0 else action_b]
        if action == "bash":
            bashed = s._replace(wv=s.wv - self.rules.costs["bash"])
            pools = [d.strength + d.athletics for d in self.sheets]

            def bash(r):
                a, b = faces(r, pools[0], sides), faces(r, pools[1], sides)
                case = bash_case(sum(a), sum(b), self.rules.target)
                return Rolls("bash", a, b), self.bash_result(bashed, *case)
            return given(bash, next_state, rng)
        if action == "riposte" and self.rules.riposte_rolls:
            d = self.sheets[s.victor]
            results = self._maneuver(s, "riposte")  # (lands, misses), as the rules list them
            lands, misses = results[0][1], results[-1][1]

            def riposte(r):
                rolled = faces(r, d.prowess + d.sword, sides)
                kept = (rolled, ()) if s.victor == 0 else ((), rolled)
                return Rolls("riposte", *kept), (
                    lands if sum(rolled) >= self.rules.target else misses)
            return given(riposte, next_state, rng)
        return None

    def state_fields(self, state: State) -> dict[str, int]:
        fields = dict(state._asdict())
        if not self.declare_first:  # no declarations in this duel
            del fields["plan_a"], fields["plan_b"]
        if self.rules.auto_spend:  # no Style spend to choose
            del fields["spend_a"], fields["spend_b"]
        if not self.rules.whole_duel:  # no duel's pool carried from beat to beat
            del fields["pool_a"], fields["pool_b"]
        return fields

    state_dict = state_fields

    def state_from(self, values: Mapping[str, object]) -> State:
        """A live state from named values (ints or words; missing ones are the start's)."""
        values = state_values(values)   # one reading of a number, whatever the caller
        fields = self.state_fields(self.start())
        for key, value in values.items():
            if key not in fields:
                raise InputError(f"unknown state field {key!r}; allowed: {', '.join(fields)}")
            if key == "phase" and isinstance(value, str) and not value.lstrip("-").isdigit():
                if value not in PHASES:
                    raise InputError(f"unknown phase {value!r}; allowed: {', '.join(PHASES)}")
                value = PHASES.index(value)
            try:
                fields[key] = int(value)
            except (TypeError, ValueError):
                raise InputError(f"state field {key} takes an integer, got {value!r}") from None
        state = State(**fields)
        self._check_state(state)
        return state

    def _check_state(self, s: State) -> None:
        bank, n = self.rules.bank_cap, self.max_dice
        # a wound of the rank that ends the duel leaves no live moment after it
        rank = (1 if self.convention == "first_blood" else self.rules.mortal_rank) - 1
        last = self.last_phase if self.last_phase != OVER else OVER - 1
        bounds = {"beat": (1, self.max_beats), "phase": (0, last), "aggressor": (0, 1),
                  "inj_a": (0, rank), "inj_b": (0, rank), "bank_a": (0, bank),
                  "bank_b": (0, bank), "feint_a": (0, 1), "feint_b": (0, 1),
                  "bid_a": (0, n), "bid_b": (0, n), "victor": (0, 1), "wv": (0, n),
                  "wd": (0, n), "ending": (0, 0), "plan_a": (0, len(PLANS) - 1),
                  "plan_b": (0, len(PLANS) - 1), "spend_a": (0, self.spendable(s, 0)),
                  "spend_b": (0, self.spendable(s, 1)), "pool_a": (0, n), "pool_b": (0, n)}
        if last > OVER and s.phase == OVER:  # beyond "over" lie the readings' phases
            raise InputError(f"state field phase must be 0..{OVER - 1} or {OVER + 1}.."
                             f"{last} for a live duel, got {OVER}")
        for key, (low, high) in bounds.items():
            value = getattr(s, key)
            if not low <= value <= high:
                raise InputError(f"state field {key} must be {low}..{high} for a live duel, "
                                 f"got {value}")
        if s.phase == BID:
            for key in BID_SETS:
                if getattr(s, key):
                    raise InputError(f"state field {key} comes from the strike bid: at "
                                     f"phase bid it is 0, got {getattr(s, key)}")
        if s.phase in (BID, RISK) and any(self.dice_left(s, x) < 0 for x in (0, 1)):
            raise InputError("a bid exceeds the dice gathered this beat")
        if s.phase in (BLIND, CANCEL, DBIND, VICTOR, RCANCEL) and s.wv == 0 and s.phase != VICTOR:
            raise InputError(f"phase {PHASES[s.phase]} needs the victor's wagers wv > 0")

    def _name(self, side: int) -> str:
        return SIDES[side].upper()

    def _wound(self, rank: int) -> str:
        if rank == 0:
            return "unhurt"
        kind = "a flesh wound" if rank <= 2 else "crippled" if rank < self.rules.mortal_rank \
            else "mortally wounded"
        return f"wounded at rank {rank} ({kind})"

    def describe(self, state: State, viewer: str | None = None) -> str:
        s = state
        if s.phase == OVER and s.ending == DRAW:
            return f"After beat {s.beat}: {self.result(s)}."
        if s.phase == OVER:
            return (f"After beat {s.beat}: {self.result(s)}. A is {self._wound(s.inj_a)}, "
                    f"B is {self._wound(s.inj_b)}.")
        lines = [f"Beat {s.beat} of {self.max_beats}, {PHASES[s.phase].replace('_', ' ')} "
                 f"({self.convention.replace('_', ' ')} duel)."]
        for side in (0, 1):
            lines.append(self._side_line(s, side))
        if s.phase in (BLIND, CANCEL, DBIND, VICTOR, RCANCEL):
            lines.append(f"{self._name(s.victor)} is the victor with {s.wv} usable wagers; "
                         f"{self._name(1 - s.victor)} keeps {s.wd}.")
        return "\n".join(lines)

    def _side_line(self, s: State, side: int) -> str:
        inj = (s.inj_a, s.inj_b)[side]
        bank = (s.bank_a, s.bank_b)[side]
        feint = (s.feint_a, s.feint_b)[side]
        parts = [f"{self._name(side)}: {self._wound(inj)}, {bank} Style banked"]
        plan = (s.plan_a, s.plan_b)[side]
        if s.phase in (BID, RISK, DECLARE, RESPOND):
            left = self.dice_left(s, side)
            parts.append(f"{left} {'die' if left == 1 else 'dice'} to play")
        if s.phase in (CHOOSE, RISK) and (s.bid_a or s.bid_b):
            parts.append(f"bid {(s.bid_a, s.bid_b)[side]}")
        if feint:
            when = "now" if s.phase <= RISK or s.phase > OVER else "next beat"
            parts.append(f"a Feint's bonus of {self.sheets[side].sword} dice {when}")
        if s.phase >= RISK and s.aggressor == side:
            parts.append("aggressor")
        elif s.phase >= RISK:
            parts.append("defender")
        if plan:
            parts.append(f"declared {PLANS[plan].capitalize()}")
        return ", ".join(parts) + "."

    def narrate(self, state: State, action_a: int, action_b: int, next_state: State,
                rolls: Rolls | None = None) -> str:
        s, n = state, next_state
        names = self.action_names
        if s.phase == BID:
            dice = "die" if names[action_a] == "1" else "dice"
            text = (f"A bids {names[action_a]} {dice}, B bids {names[action_b]}; "
                    f"{self._name(n.victor)} chooses the role"
                    f"{self._tie_text(action_a, action_b)}.")
        elif s.phase == SPEND:
            text = f"A spends {names[action_a]} Style, B spends {names[action_b]}."
        elif s.phase == RISK:
            text = (f"A wagers {names[action_a]}, B wagers {names[action_b]}. "
                    + self._pools_text(s, (action_a, action_b), rolls)
                    + self._risk_text(s, n)).rstrip()
        else:
            actor = self._decider(s)
            action = names[action_a if actor == 0 else action_b]
            text = f"{self._name(actor)} {self._act_text(s, action)}."
            if rolls is not None:
                text += " " + self._maneuver_dice_text(rolls)
        if n.phase == OVER:
            text += f" {self.result(n)}."
        elif n.beat != s.beat:
            text += (f" Beat {n.beat} begins (A {self._wound(n.inj_a)}, "
                     f"B {self._wound(n.inj_b)}).")
        return text

    def _tie_text(self, bid_a: int, bid_b: int) -> str:
        """Why the chooser of equal bids chooses (``bid_tie``)."""
        if bid_a != bid_b:
            return ""
        tie = self.rules.bid_tie
        if tie in ("a", "b"):
            return f" (equal bids go to {tie.upper()})"
        if tie == "prowess_then_coin" and self.sheets[0].prowess != self.sheets[1].prowess:
            return " (equal bids: the higher Prowess chooses)"
        return " (equal bids: a coin toss decided)"

    def _pools_text(self, s: State, wagers: tuple[int, int], rolls: Rolls | None) -> str:
        """Each side's roll against the target: the dice and their total when drawn,
        else how many dice each rolled."""
        target = self.rules.target
        parts = []
        for side in (0, 1):
            count = self.dice_left(s, side) - wagers[side]
            if rolls is None:
                parts.append(f"{self._name(side)} rolls {count} "
                             f"{'die' if count == 1 else 'dice'}")
                continue
            rolled = (rolls.a, rolls.b)[side]
            made = "a success" if rolled and sum(rolled) >= target else "a failure"
            parts.append(f"{self._name(side)} rolls {count} "
                         f"{'die' if count == 1 else 'dice'}: {sum_text(rolled)}, {made}")
        text = "; ".join(parts) + f" (against {target}). "
        if rolls is not None:
            tie = 1 - s.aggressor if self.rules.risk_tie == "defender" else s.aggressor
            case = risk_case(rolls.a, rolls.b, wagers, tie, target)
            text += "Both fail. " if case is None else f"{self._name(case[0])} wins the risk. "
        return text

    def _maneuver_dice_text(self, rolls: Rolls) -> str:
        target = self.rules.target
        if rolls.kind == "bash":
            return (f"Bash: A rolls Strength + Athletics, {sum_text(rolls.a)}; B "
                    f"{sum_text(rolls.b)} (the higher attacks if he stands at {target} and "
                    "the other falls below it).")
        rolled = rolls.a or rolls.b
        made = "it lands" if sum(rolled) >= target else "it misses"
        return f"Riposte: Prowess + The Sword, {sum_text(rolled)} against {target}: {made}."

    def _risk_text(self, s: State, n: State) -> str:
        if n.phase in (BLIND, CANCEL, DBIND, VICTOR, RCANCEL):
            return (f"{self._name(n.victor)} is the victor with {n.wv} usable wagers, "
                    f"{self._name(1 - n.victor)} keeps {n.wd}.")
        return self._beat_end_text(s, n)

    def _beat_end_text(self, s: State, n: State) -> str:
        """What a beat that ended at once (a double failure, a forced Parry or Injury)
        changed: Injuries and Style banked."""
        if n.phase == OVER and n.ending == DRAW:
            return ""  # the draw follows, in words, and keeps no Injury
        changes = []
        for side, before, after in ((0, s.inj_a, n.inj_a), (1, s.inj_b, n.inj_b)):
            if after > before:
                changes.append(f"{self._name(side)} is {self._wound(after)}")
        if n.phase != OVER:
            for side, after in ((0, n.bank_a), (1, n.bank_b)):
                if after:
                    changes.append(f"{self._name(side)} has {after} Style banked")
        text = "; ".join(changes) or "nobody is hurt and no Style is banked"
        return text[0].upper() + text[1:] + "."

    def action_words(self, s: State, action: str) -> str:
        """An action at ``s`` as a player says it: "bid 3", "wager 2", "cancel 1",
        "Injure with 2 wagers"."""
        if action.isdigit():
            verb = {BID: "bid", RISK: "wager", SPEND: "spend"}.get(s.phase, "cancel")
            return f"{verb} {action}"
        for maneuver, length in (("injure", 6), ("lunge", 5)):
            if action.startswith(maneuver):
                count = int(action[length:])
                return f"{maneuver.capitalize()} with {count} wager{'' if count == 1 else 's'}"
        if action.startswith("declare_"):
            return f"declare {action.removeprefix('declare_').capitalize()}"
        return {"aggressor": "be the aggressor", "defender": "defend", "pass": "pass",
                "wait": "wait"}.get(action, action.capitalize())

    def _act_text(self, s: State, action: str) -> str:
        texts = {"aggressor": "takes the aggressor's role", "defender": "chooses to defend",
                 "blind": "slashes at the eyes (Blind)", "pass": "lets it pass",
                 "feint": "feints", "bash": "bashes", "bind": "binds the blades",
                 "riposte": "ripostes", "parry": "parries"}
        if action in texts:
            return texts[action]
        if action.startswith("injure"):
            count = int(action[6:])
            return f"injures, putting {count} wager{'' if count == 1 else 's'} into the wound"
        if action.startswith("lunge"):
            return f"lunges, adding {action[5:]} wagers"
        if action.startswith("declare_"):
            return f"declares {action.removeprefix('declare_').capitalize()}"
        return f"cancels {action} wagers"

    def situation(self, state: State, player: str) -> str:
        """The decision ``player`` faces, then its beat."""
        if state.phase == OVER:
            return f"the duel is over: {self.result(state)}"
        return f"{self._decision(state, player)}; beat {state.beat} of {self.max_beats}"

    def _decision(self, state: State, player: str) -> str:
        s, me = state, 0 if player == "a" else 1
        other = self._name(1 - me)
        mine = (s.inj_a, s.inj_b)[me]
        theirs = (s.inj_b, s.inj_a)[me]
        own = f"you are {self._wound(mine)} with {(s.bank_a, s.bank_b)[me]} Style banked"
        tag = (f"{other} is wounded at rank {theirs}, which you may tag" if theirs
               else f"{other} is unhurt")
        if s.phase == OVER:
            return f"the duel is over: {self.result(s)}"
        if s.phase == BID:
            return (f"strike bid: you have {self.pool(s, me)} dice, {other} has "
                    f"{self.pool(s, 1 - me)}; the higher bid chooses the role; {tag}; {own}")
        if s.phase in (DECLARE, RESPOND):
            return self._declare_situation(s, me, other, own)
        if s.phase == SPEND:
            return (f"gather your dice: how much of your banked Style to spend this beat "
                    f"(at most {self.spendable(s, me)}); {tag}; {own}")
        if s.phase == RISK:
            role = "you attack" if s.aggressor == me else f"{other} attacks, you defend"
            bids = (s.bid_a, s.bid_b)
            spent = (f"you bid {bids[me]} of your {self.pool(s, me)} dice, {other} "
                     f"{bids[1 - me]}; " if any(bids) else "")
            return (f"{spent}{role} and risk {self.dice_left(s, me)} dice against "
                    f"{other}'s {self.dice_left(s, 1 - me)}: how many to wager; {tag}; {own}")
        return self._after_situation(s, me, other, own)

    def _declare_situation(self, s: State, me: int, other: str, own: str) -> str:
        role = "you attack" if s.aggressor == me else f"{other} attacks, you defend"
        theirs = PLANS[(s.plan_b, s.plan_a)[me]]
        known = f"{other} declared {theirs.capitalize()}; " if theirs else ""
        if self._decider(s) != me:
            return f"{role}; {known}{other} declares his maneuver; you wait; {own}"
        return (f"{role}; {known}declare the maneuver you will make if you are the victor, "
                f"with {self.dice_left(s, me)} dice to risk; {own}")

    def _after_situation(self, s: State, me: int, other: str, own: str) -> str:
        mine = s.wv if s.victor == me else s.wd
        theirs = s.wd if s.victor == me else s.wv
        if self._decider(s) != me:
            what = {CHOOSE: "chooses his role", BLIND: "may Blind you",
                    CANCEL: f"cancels some of your {mine} wagers",
                    DBIND: "may Bind to end the beat", VICTOR: "chooses his maneuver",
                    RCANCEL: "cancels some of your Riposte's wagers"}[s.phase]
            return f"{other} {what}; you wait, with {mine} usable wagers; {own}"
        ask = {CHOOSE: "you won the strike bid: be the aggressor or the defender",
               BLIND: f"you won as aggressor: Blind {other} or not",
               CANCEL: f"you were defeated: cancel some of {other}'s {theirs} wagers",
               DBIND: "you were defeated: Bind to end the beat or not",
               VICTOR: "you are the victor: choose your maneuver",
               RCANCEL: f"{other} ripostes with {theirs} wagers: cancel some"}[s.phase]
        return f"{ask}, with {mine} usable wagers against {theirs}; {own}"

