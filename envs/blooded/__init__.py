"""Houses of the Blooded: the dice-and-wagers duel (shared/rules/blooded.md).

A beat: gather dice (Prowess + The Sword + Style spent + an aspect invoke + the rank of
the opponent's highest Injury, tagged), on the first beat a sealed strike bid that
burns the dice, then both set wagers aside in secret and roll the rest against 10.
The victor and the defeated then act in turn: Blind, cancellation one for one, the
defeated's Bind, and the victor's maneuvers (Feint, then Injure, Lunge, Bash, Bind,
Riposte or Parry). Unused wagers become Style.

Every chance event (the risk, a Bash) is an exact distribution of sums of d6. Each
choice made after the dice is a step of the player who makes it (the other waits).
Choices that can never help (Blind against a foe without wagers or with The Sword 0,
wagers into an Injury beyond its cap) are not offered: they leave every value as is.

The beats left are a counter (``solver.counters``): once the invokes are spent every
beat plays by the same rules, the last included, so a state without its beats left (a
*core*) has the same steps whatever they are; ``cores.py`` builds the cores at once.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import NamedTuple

import numpy as np

from envs.rulesets import ruleset_hash
from envs.schema import Examples, Field, SheetSpec, SystemSpec
from solver.dice import sum_of_dice
from solver.errors import InputError
from solver.game import GameInfo, sample_outcome

MANEUVERS = ("bash", "bind", "blind", "feint", "lunge", "riposte")
CONVENTIONS = ("mortal", "first_blood")
SIDES = ("a", "b")

# phases of a beat
BID, CHOOSE, RISK, BLIND, CANCEL, DBIND, VICTOR, RCANCEL, OVER = range(9)
PHASES = ("bid", "choose", "risk", "blind", "cancel", "defeated_bind", "victor",
          "riposte_cancel", "over")

ENDINGS = ("", "A wins: B takes a mortal Injury", "B wins: A takes a mortal Injury",
           "A wins: first blood", "B wins: first blood",
           "draw: the seconds stop the duel")
_PAYOFF = (0.0, 1.0, -1.0, 1.0, -1.0, 0.0)
DRAW = 5


class State(NamedTuple):
    """Only what matters: each side's highest Injury, Style bank and Feint bonus.

    ``aggressor`` (0 = A, 1 = B) is this beat's aggressor once roles are set; ``victor``
    is the bid's winner while he chooses his role, then the risk's victor; ``wv`` /
    ``wd`` are the victor's / defeated's usable wagers left. During the consequences
    ``bank_*`` is the bank left after this beat's spend and ``feint_*`` the bonus won
    for the next beat. Unused fields are 0.
    """

    beat: int
    phase: int
    aggressor: int
    inj_a: int
    inj_b: int
    bank_a: int
    bank_b: int
    feint_a: int
    feint_b: int
    bid_a: int
    bid_b: int
    victor: int
    wv: int
    wd: int
    ending: int


STATE_FIELDS = State._fields


@dataclass(frozen=True)
class Duellist:
    prowess: int
    sword: int
    strength: int
    athletics: int
    style: int
    invokes: int
    maneuvers: frozenset[str]

    def knows(self, maneuver: str) -> bool:
        return maneuver in self.maneuvers


@dataclass(frozen=True)
class Rules:
    """The ruleset's numbers, checked."""

    target: int
    sides: int
    spend_cap: int
    bank_cap: int
    invoke_dice: int
    bids_spent: str
    risk_tie: str
    per_style: int
    costs: Mapping[str, int]
    max_rank: int
    mortal_rank: int


def _int(ruleset: Mapping, key: str, low: int, high: int) -> int:
    value = ruleset[key]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(f"ruleset {key} must be an integer {low}..{high}, got {value!r}")
    return value


def _word(ruleset: Mapping, key: str, allowed: tuple[str, ...]) -> str:
    value = ruleset[key]
    if value not in allowed:
        raise InputError(f"ruleset {key}: unknown value {value!r}; allowed: {', '.join(allowed)}")
    return value


def compile_rules(ruleset: Mapping) -> Rules:
    """The ruleset as checked numbers; readings not modelled are errors."""
    if ruleset["auto_spend_style"] is not True:
        raise InputError("ruleset auto_spend_style: only true is supported (Style is spent "
                         "automatically, at most style_spend_cap a beat)")
    _word(ruleset, "pool", ("every_beat",))
    _word(ruleset, "bid_tie", ("prowess_then_coin",))
    costs = {name: _int(ruleset["costs"], name, 0, 20) for name in MANEUVERS}
    max_rank = _int(ruleset, "max_rank", 1, 20)
    return Rules(
        target=_int(ruleset, "risk_target", 1, 200), sides=_int(ruleset, "die_sides", 2, 100),
        spend_cap=_int(ruleset, "style_spend_cap", 0, 50),
        bank_cap=_int(ruleset, "style_bank_cap", 0, 50),
        invoke_dice=_int(ruleset, "invoke_dice", 0, 20),
        bids_spent=_word(ruleset, "bids_spent", ("both", "loser")),
        risk_tie=_word(ruleset, "risk_tie", ("defender", "aggressor")),
        per_style=_int(ruleset, "wagers_per_style", 1, 20), costs=costs,
        max_rank=max_rank, mortal_rank=_int(ruleset, "mortal_rank", 1, max_rank))


def _duellist(sheet: Mapping, side: str, rules: Rules) -> Duellist:
    known = frozenset(m for m in MANEUVERS if sheet[m])
    if "lunge" in known and sheet["strength"] < 1:
        raise InputError(f"sheet {side}: lunge needs strength 1 or more, got strength "
                         f"{sheet['strength']}; allowed: strength 1..5 with lunge")
    if sheet["style"] > rules.bank_cap:
        raise InputError(f"sheet {side}: style {sheet['style']} exceeds the Style bank cap; "
                         f"allowed: 0..{rules.bank_cap}")
    return Duellist(sheet["prowess"], sheet["sword"], sheet["strength"], sheet["athletics"],
                    sheet["style"], sheet["invokes"], known)


# -- exact dice

@cache
def _totals(n: int, sides: int) -> tuple[int, tuple[int, ...]]:
    """(low, counts) of the total of n dice; zero dice total 0."""
    if n <= 0:
        return 0, (1,)
    dist = sum_of_dice(n, sides)
    return dist.low, tuple(dist.count(t) for t in range(dist.low, dist.high + 1))


@cache
def success_probability(n: int, target: int = 10, sides: int = 6) -> float:
    """P(n dice total at least ``target``); zero dice fail."""
    if n <= 0:
        return 0.0
    low, counts = _totals(n, sides)
    return sum(c for i, c in enumerate(counts) if low + i >= target) / sides ** n


@cache
def risk_split(na: int, nb: int, target: int = 10, sides: int = 6) -> tuple[float, ...]:
    """Exact (neither, A only, B only, both & A higher, both & equal, both & B higher)
    for A rolling ``na`` dice and B ``nb`` (zero dice fail)."""
    la, ca = _totals(na, sides)
    lb, cb = _totals(nb, sides)
    ok_a = [(la + i, c) for i, c in enumerate(ca) if la + i >= target and na > 0]
    ok_b = [(lb + i, c) for i, c in enumerate(cb) if lb + i >= target and nb > 0]
    sa, sb = sum(c for _, c in ok_a), sum(c for _, c in ok_b)
    ta, tb = sum(ca), sum(cb)
    higher = equal = lower = 0
    cum_b = _cumulative(ok_b)
    for total, count in ok_a:
        below, at = cum_b(total)
        higher += count * below
        equal += count * at
        lower += count * (sb - below - at)
    whole = ta * tb
    return ((ta - sa) * (tb - sb) / whole, sa * (tb - sb) / whole, (ta - sa) * sb / whole,
            higher / whole, equal / whole, lower / whole)


def _cumulative(points: list[tuple[int, int]]):
    """For sorted (total, count) points: total -> (count strictly below, count at)."""
    table = dict(points)
    running, below = 0, {}
    for total, count in points:
        below[total] = running
        running += count

    def lookup(total: int) -> tuple[int, int]:
        if total in table:
            return below[total], table[total]
        return sum(c for t, c in points if t < total), 0
    return lookup


@cache
def bash_split(na: int, nb: int, target: int = 10, sides: int = 6) -> tuple[float, ...]:
    """Exact (A attacks, A higher without attack, B attacks, B higher without attack,
    equal) for a Bash: A rolls ``na`` dice, B ``nb``; below ``target`` falls; the
    higher roller attacks when he stands and the other fell."""
    la, ca = _totals(na, sides)
    lb, cb = _totals(nb, sides)
    out = [0, 0, 0, 0, 0]
    for i, x in enumerate(ca):
        ta = la + i
        for j, y in enumerate(cb):
            tb = lb + j
            if ta == tb:
                out[4] += x * y
            elif ta > tb:
                out[0 if ta >= target and tb < target else 1] += x * y
            else:
                out[2 if tb >= target and ta < target else 3] += x * y
    whole = sum(ca) * sum(cb)
    return tuple(v / whole for v in out)


@cache
def _risk_table(la: int, lb: int, tie: int, target: int, sides: int):
    """For dice left ``la`` / ``lb``: every pair of wagers with its results as
    ``(probability, case)``, a case being None (both failed) or (victor, his usable
    wagers, the defeated's); and the set of cases. ``tie`` wins equal totals."""
    table, cases = [], set()
    for wa in range(la + 1):
        half_a = (wa + 1) // 2
        for wb in range(lb + 1):
            half_b = (wb + 1) // 2
            split = risk_split(la - wa, lb - wb, target, sides)
            tie_case = (0, wa, half_b) if tie == 0 else (1, wb, half_a)
            items: dict = {}
            for p, case in zip(split, (None, (0, wa, 0), (1, wb, 0), (0, wa, half_b),
                                       tie_case, (1, wb, half_a)), strict=True):
                if p > 0:
                    items[case] = items.get(case, 0.0) + p
            cases.update(items)
            table.append((wa, wb, tuple((p, case) for case, p in items.items())))
    return tuple(table), tuple(cases)


@cache
def _risk_layout(la: int, lb: int, tie: int, target: int, sides: int):
    """``_risk_table`` as flat lists: each pair's wagers and number of results, then
    each result's case (a position in the cases tuple) and probability."""
    table, cases = _risk_table(la, lb, tie, target, sides)
    position = {case: k for k, case in enumerate(cases)}
    wagers_a = [wa for wa, _, _ in table]
    wagers_b = [wb for _, wb, _ in table]
    counts = [len(items) for _, _, items in table]
    which = np.array([position[case] for _, _, items in table for _, case in items])
    probs = [p for _, _, items in table for p, _ in items]
    return wagers_a, wagers_b, counts, which, probs, cases


# -- the game

class BloodedGame:
    """The duel between sheets ``a`` and ``b`` under ``rules`` and the options."""

    system = "blooded"

    def __init__(self, rules: Rules, a: Duellist, b: Duellist, options: dict,
                 digest: str):
        self.rules = rules
        self.sheets = (a, b)
        self.convention = options["convention"]
        self.max_beats = options["max_beats"]
        self.bid_every_beat = bool(options["bid_every_beat"])
        self.options = options
        self.ruleset_hash = digest
        self.max_dice = max(self._pool_bound(d) for d in self.sheets)
        self._set_actions()
        self._set_observation()
        self.info = GameInfo(
            system="blooded", action_names=self.action_names,
            observation_fields=self.observation_fields,
            observation_low=self.observation_low, observation_high=self.observation_high,
            public_information=True, payoff_bounds=(-1.0, 1.0), may_cycle=False,
            options=options, ruleset_hash=digest,
            fast_paths=frozenset({"sample", "transitions", "graph", "counters", "cores"}),
            length_unit="beat")
        self._masks: dict = {}
        self._endless_game: BloodedGame | None = None
        costs = rules.costs
        # the most a victor can pay in one beat after the roll: a Feint, the dearest
        # ending maneuver and an Injury's wagers up to the rank cap
        self._spend_bound = costs["feint"] + max(costs.values()) + rules.max_rank - 1
        self._after_cache: dict = {}  # (state after the roll, case) -> next state
        self._cancel_cache: dict = {}  # (state, count cancelled) -> next state

    def graph(self):
        """Every reachable state at once, the middle beats copied from one (``beats``)."""
        from .beats import beat_graph
        return beat_graph(self)

    # -- the beats left as a counter (GameInfo.fast_paths "counters", solver.counters)
    def counters(self, state: State) -> tuple[int]:
        """The beats left, this one included: it falls by one when a beat ends, and
        the duel is stopped (a draw) when it reaches 0."""
        return (self.max_beats - state.beat + 1,)

    def core(self, state: State) -> State:
        """``state`` without the beats left: the beats with an invoke keep their number,
        the others are all the first beat without one (``_plain``)."""
        return state._replace(beat=min(state.beat, self._plain))

    def attach(self, core: State, counters) -> State:
        """The state of ``core`` with ``counters[0]`` beats left; a beat with an invoke
        keeps its number (it only exists with its own beats left)."""
        if core.beat < self._plain:
            return core
        return core._replace(beat=max(self._plain, self.max_beats - int(counters[0]) + 1))

    def depleted(self, counter: int) -> State:
        return self.stopped()

    def core_transitions(self, core: State):
        """Every legal joint action at ``core`` with ``(p, next core, (beats ended,))``:
        the rules of a duel without a beat limit (``_endless``), a new beat lowering the
        counter by one."""
        plain, beat, out = self._plain, core.beat, []
        # within a beat the next core is the next state; a new beat past the invokes
        # is the plain beat again
        ended, within = (1,), (0,)
        for i, j, outcomes in self._endless.transitions(core):
            out.append((i, j, [(p, nxt if nxt.beat <= plain else nxt._replace(beat=plain),
                                ended if nxt.beat > beat and nxt.phase != OVER else within)
                               for p, nxt in outcomes]))
        return out

    def cores(self):
        """Every core at once, the steps after the dice copied over the Injuries
        (``cores``)."""
        from .cores import core_walk
        return core_walk(self)

    @property
    def _plain(self) -> int:
        """The first beat without an aspect invoke: from it on, every beat plays by the
        same rules."""
        return max(d.invokes for d in self.sheets) + 1

    @property
    def _endless(self) -> BloodedGame:
        """This duel without its beat limit, as far as the cores go: the same rules, the
        draw never reached before beat ``_plain + 1``."""
        if self._endless_game is None:
            options = {**self.options, "max_beats": self._plain + 1}
            self._endless_game = BloodedGame(self.rules, *self.sheets, options,
                                             self.ruleset_hash)
        return self._endless_game

    # -- setup
    def _pool_bound(self, d: Duellist) -> int:
        r = self.rules
        # Prowess, The Sword, Style spent, an invoke, a tagged Injury, a Feint's bonus
        return d.prowess + d.sword + r.spend_cap + r.invoke_dice + r.max_rank + d.sword

    def _set_actions(self) -> None:
        counts = tuple(str(n) for n in range(self.max_dice + 1))
        injure = tuple(f"injure{k}" for k in range(self.rules.max_rank))
        lunge = tuple(f"lunge{k}" for k in range(self.rules.max_rank))
        names = counts + ("aggressor", "defender", "blind", "pass", "feint") + injure + lunge \
            + ("bash", "bind", "riposte", "parry", "wait")
        self.action_names = names
        self.index = {name: i for i, name in enumerate(names)}
        self.WAIT = self.index["wait"]

    def _set_observation(self) -> None:
        n, bank, rank = self.max_dice, self.rules.bank_cap, self.rules.max_rank
        spec = (("beat", 1, self.max_beats), ("phase", 0, OVER), ("role", -1, 1),
                ("own_injury", 0, rank), ("opp_injury", 0, rank),
                ("own_bank", 0, bank), ("opp_bank", 0, bank),
                ("own_feint", 0, 1), ("opp_feint", 0, 1),
                ("own_dice", 0, n), ("opp_dice", 0, n), ("own_bid", 0, n), ("opp_bid", 0, n),
                ("victor", -1, 1), ("own_wagers", 0, n), ("opp_wagers", 0, n))
        self.observation_fields = tuple(s[0] for s in spec)
        self.observation_low = tuple(s[1] for s in spec)
        self.observation_high = tuple(s[2] for s in spec)

    # -- pools
    def pool(self, state: State, side: int) -> int:
        """Dice gathered at the start of ``state.beat`` by ``side`` (0 = A)."""
        d, r = self.sheets[side], self.rules
        bank = state.bank_a if side == 0 else state.bank_b
        feint = state.feint_a if side == 0 else state.feint_b
        tag = state.inj_b if side == 0 else state.inj_a
        invoke = r.invoke_dice if d.invokes >= state.beat else 0
        return d.prowess + d.sword + min(bank, r.spend_cap) + invoke + tag + feint * d.sword

    def dice_left(self, state: State, side: int) -> int:
        return self.pool(state, side) - (state.bid_a if side == 0 else state.bid_b)

    # -- the protocol: start, masks
    def initial_outcomes(self) -> list[tuple[float, State]]:
        return [(1.0, self.start())]

    def start(self) -> State:
        a, b = self.sheets
        return State(1, BID, 0, 0, 0, a.style, b.style, 0, 0, 0, 0, 0, 0, 0, 0)

    def stopped(self) -> State:
        """The draw when the seconds stop the duel after the last beat: one state,
        whatever the Injuries (the beats left are a counter whose depletion it is)."""
        return State(self.max_beats, OVER, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, DRAW)

    def is_terminal(self, state: State) -> bool:
        return state.phase == OVER

    def starts_unit(self, state: State) -> bool:
        """Each beat has one risk, whether a bid came before it or not; the beat
        counter cannot tell (the beats left are a counter)."""
        return state.phase == RISK

    def payoff(self, state: State) -> float:
        return _PAYOFF[state.ending]

    def result(self, state: State) -> str:
        if state.ending == DRAW:
            return f"draw: the seconds stop the duel after {self.max_beats} beats"
        return ENDINGS[state.ending]

    def legal_mask(self, state: State, player: str) -> np.ndarray:
        key = (state, player)
        mask = self._masks.get(key)
        if mask is None:
            mask = np.zeros(len(self.action_names), bool)
            mask[self._legal(state, 0 if player == "a" else 1)] = True
            if len(self._masks) < 2_000_000:
                self._masks[key] = mask
        return mask.copy()

    def _legal(self, s: State, side: int) -> list[int]:
        if s.phase == OVER:
            return []
        if s.phase == BID:
            return list(range(self.pool(s, side) + 1))
        if s.phase == RISK:
            return list(range(self.dice_left(s, side) + 1))
        deciding = self._decider(s)
        if side != deciding:
            return [self.WAIT]
        return self._choices(s)

    def _decider(self, s: State) -> int:
        if s.phase in (CHOOSE, BLIND, VICTOR):
            return s.victor
        return 1 - s.victor  # CANCEL, DBIND, RCANCEL: the defeated

    def _choices(self, s: State) -> list[int]:
        ix = self.index
        if s.phase == CHOOSE:
            return [ix["aggressor"], ix["defender"]]
        if s.phase == BLIND:
            return [ix["blind"], ix["pass"]]
        if s.phase in (CANCEL, RCANCEL):
            return self.sensible_cancels(s)
        if s.phase == DBIND:
            return [ix["bind"], ix["pass"]]
        return [ix[name] for name in self.victor_options(s)]

    def victor_options(self, s: State) -> list[str]:
        """The victor's maneuvers at ``s``: a Feint first if he may, then one that ends
        his sequence (Injure or Lunge with their wagers, Bash, Bind, Riposte, Parry)."""
        d, costs, w = self.sheets[s.victor], self.rules.costs, s.wv
        aggressor = s.aggressor == s.victor
        feinted = s.feint_a if s.victor == 0 else s.feint_b
        names = []
        if d.knows("feint") and not feinted and w >= costs["feint"]:
            names.append("feint")
        if aggressor:
            names += [f"injure{k}" for k in range(min(w, self.rules.max_rank - 1) + 1)]
            if d.knows("lunge") and w >= costs["lunge"]:
                top = min(w - costs["lunge"], max(0, self.rules.max_rank - 1 - d.strength))
                names += [f"lunge{k}" for k in range(top + 1)]
        else:
            names.append("parry")
            if d.knows("riposte") and w >= costs["riposte"]:
                names.append("riposte")
        for name in ("bash", "bind"):
            if d.knows(name) and w >= costs[name]:
                names.append(name)
        return names

    # -- the protocol: outcomes
    def outcomes(self, state: State, action_a: int, action_b: int) -> list[tuple[float, State]]:
        self._check(state, action_a, action_b)
        if state.phase == BID:
            return self._bid(state, action_a, action_b)
        if state.phase == RISK:
            return self._risk(state, action_a, action_b)
        action = action_a if self._decider(state) == 0 else action_b
        return self._decide(state, action)

    def sample(self, state: State, action_a: int, action_b: int,
               rng: np.random.Generator) -> State:
        return sample_outcome(self.outcomes(state, action_a, action_b), rng)

    def _check(self, state: State, action_a: int, action_b: int) -> None:
        if state.phase == OVER:
            raise InputError("the duel is over; no action is legal")
        for side, action in ((0, action_a), (1, action_b)):
            if action not in self._legal(state, side):
                name = self.action_names[action] if 0 <= action < len(self.action_names) \
                    else action
                allowed = ", ".join(self.action_names[i] for i in self._legal(state, side))
                raise InputError(f"illegal action {name!r} for {SIDES[side]}; allowed: {allowed}")

    def _bid(self, s: State, ba: int, bb: int) -> list[tuple[float, State]]:
        if ba != bb:
            winner = 0 if ba > bb else 1
            chooser = [(1.0, winner)]
        else:
            pa, pb = self.sheets[0].prowess, self.sheets[1].prowess
            chooser = [(1.0, 0 if pa > pb else 1)] if pa != pb else [(0.5, 0), (0.5, 1)]
        if self.rules.bids_spent == "loser" and ba != bb:
            ba, bb = (0, bb) if ba > bb else (ba, 0)
        return [(p, s._replace(phase=CHOOSE, bid_a=ba, bid_b=bb, victor=w, aggressor=0))
                for p, w in chooser]

    def transitions(self, state: State) -> list[tuple[int, int, list[tuple[float, State]]]]:
        """Every legal joint action with its outcomes, as ``outcomes`` gives them (the
        solver's fast path: no re-checks, the risk's next states shared across pairs)."""
        if state.phase == RISK:
            return self._risk_all(state)
        if state.phase == BID:
            return [(ba, bb, self._bid(state, ba, bb))
                    for ba in range(self.pool(state, 0) + 1)
                    for bb in range(self.pool(state, 1) + 1)]
        decider, choices = self._decider(state), self._choices(state)
        if decider == 0:
            return [(i, self.WAIT, self._decide(state, i)) for i in choices]
        return [(self.WAIT, j, self._decide(state, j)) for j in choices]

    def _risk_all(self, s: State) -> list[tuple[int, int, list[tuple[float, State]]]]:
        """``_risk`` for every pair of wagers at once: the pairs' results come from a
        table shared by every risk with the same dice (``_risk_table``), each distinct
        result is turned into a next state once."""
        tie = 1 - s.aggressor if self.rules.risk_tie == "defender" else s.aggressor
        table, cases = _risk_table(self.dice_left(s, 0), self.dice_left(s, 1), tie,
                                   self.rules.target, self.rules.sides)
        states = dict(zip(cases, self._after_cases(s, cases), strict=True))
        out = []
        for wa, wb, items in table:
            outcomes = [(p, states[case]) for p, case in items]
            if len(outcomes) > 1 and len({nxt for _, nxt in outcomes}) < len(outcomes):
                merged: dict[State, float] = {}
                for p, nxt in outcomes:
                    merged[nxt] = merged.get(nxt, 0.0) + p
                outcomes = [(p, nxt) for nxt, p in merged.items()]
            out.append((wa, wb, outcomes))
        return out

    def risk_layout(self, s: State):
        """The risk at ``s`` as ``transitions`` gives it, in flat lists: A's and B's
        wagers of each pair, its number of results, each result's position in the
        list of next states and its probability, and that list (a next state may
        repeat within a pair: its probabilities then add up)."""
        tie = 1 - s.aggressor if self.rules.risk_tie == "defender" else s.aggressor
        wagers_a, wagers_b, counts, which, probs, cases = _risk_layout(
            self.dice_left(s, 0), self.dice_left(s, 1), tie, self.rules.target,
            self.rules.sides)
        return wagers_a, wagers_b, counts, which, probs, self._after_cases(s, cases)

    def _after_cases(self, s: State, cases: tuple) -> list[State]:
        """The state after the roll at ``s`` for each case, shared between risks that
        leave the same state behind them (``_risk_base``)."""
        base, shared, found = self._risk_base(s), self._after_cache, []
        for case in cases:
            key = (base, case)
            nxt = shared.get(key)
            if nxt is None:
                nxt = self._after_risk(s, base, case)
                if len(shared) < 4_000_000:
                    shared[key] = nxt
            found.append(nxt)
        return found

    def _after_risk(self, s: State, base: State, case: tuple | None) -> State:
        if case is None:  # both failed: the beat counts, roles alternate
            return self._end_beat(base, None, 0, (0, 0), 1 - s.aggressor)
        return self._settle(base._replace(victor=case[0], wv=case[1], wd=case[2]))

    def _risk_base(self, s: State) -> State:
        """The beat after the roll: Style spent, Feint bonuses and bids used up (the same
        on every beat, the last included: a beat's states never depend on the beats
        left, which is what ``core_transitions`` relies on)."""
        cap = self.rules.spend_cap
        return s._replace(phase=BLIND, bank_a=s.bank_a - min(s.bank_a, cap),
                          bank_b=s.bank_b - min(s.bank_b, cap), feint_a=0, feint_b=0,
                          bid_a=0, bid_b=0)

    def _risk(self, s: State, wa: int, wb: int) -> list[tuple[float, State]]:
        """The roll of one pair of wagers (the same table as ``transitions``)."""
        base = self._risk_base(s)
        tie = 1 - s.aggressor if self.rules.risk_tie == "defender" else s.aggressor
        lb = self.dice_left(s, 1)
        table, _ = _risk_table(self.dice_left(s, 0), lb, tie, self.rules.target,
                               self.rules.sides)
        merged: dict[State, float] = {}
        for p, case in table[wa * (lb + 1) + wb][2]:
            nxt = self._after_risk(s, base, case)
            merged[nxt] = merged.get(nxt, 0.0) + p
        return [(p, nxt) for nxt, p in merged.items()]

    def _decide(self, s: State, action: int) -> list[tuple[float, State]]:
        name = self.action_names[action]
        if s.phase == CHOOSE:
            aggressor = s.victor if name == "aggressor" else 1 - s.victor
            return [(1.0, s._replace(phase=RISK, aggressor=aggressor, victor=0))]
        if s.phase == BLIND:
            return [(1.0, self._settle(self._blind(s) if name == "blind"
                                       else s._replace(phase=CANCEL)))]
        if s.phase in (CANCEL, RCANCEL):
            return [(1.0, self._cancel_result(s, action))]
        if s.phase == DBIND:
            if name == "pass":
                return [(1.0, self._settle(s._replace(phase=VICTOR)))]
            wd = s.wd - self.rules.costs["bind"]
            return [(1.0, self._end_beat(s, None, 0, self._gains(s, s.wv, wd),
                                         1 - s.aggressor))]
        return self._maneuver(s, name)

    def _blind(self, s: State) -> State:
        sword = self.sheets[s.victor].sword
        return s._replace(phase=CANCEL, wv=s.wv - self.rules.costs["blind"],
                          wd=max(0, s.wd - sword))

    def _settle(self, s: State) -> State:
        """Skip the steps in which the one who decides has a single sensible choice: a
        single legal one, a finishing blow (nothing beats winning the duel at once) or
        a cancellation when every choice leads to the same state."""
        if s.phase == BLIND:
            v = self.sheets[s.victor]
            if not (s.aggressor == s.victor and v.knows("blind") and v.sword > 0
                    and s.wd > 0 and s.wv >= self.rules.costs["blind"]):
                s = s._replace(phase=CANCEL)
        if s.phase == CANCEL:
            if min(s.wv, s.wd) == 0:
                s = s._replace(phase=DBIND)
            else:
                return self._skip_cancel(s) or s
        if s.phase == DBIND:
            if not (self.sheets[1 - s.victor].knows("bind")
                    and s.wd >= self.rules.costs["bind"]):
                s = s._replace(phase=VICTOR)
            elif self._lost(self._settle(s._replace(phase=VICTOR)), 1 - s.victor):
                (_, bound), = self._decide(s, self.index["bind"])
                return bound  # passing would lose the duel at once
        if s.phase == VICTOR:
            s = self._canonical_victor(s)
            options = self.victor_options(s)
            played = self._finishing_blow(s, options) or (options[0] if len(options) == 1
                                                          else None)
            if played is not None:  # deterministic: Parry, Injure or the finishing blow
                (_, only), = self._maneuver(s, played)
                return only
        return s

    def _cancel_result(self, s: State, count: int) -> State:
        """The next state when the defeated cancels ``count`` at ``s`` (CANCEL or
        RCANCEL)."""
        key = (s, count)
        found = self._cancel_cache.get(key)
        if found is None:
            cut = s._replace(wv=s.wv - count, wd=s.wd - count)
            found = (self._riposte_hits(cut) if s.phase == RCANCEL
                     else self._settle(cut._replace(phase=DBIND)))
            if len(self._cancel_cache) < 2_000_000:
                self._cancel_cache[key] = found
        return found

    def _lost(self, s: State, side: int) -> bool:
        """Whether the duel is over at ``s`` with ``side`` (0 = A) beaten."""
        return s.phase == OVER and s.ending in ((2, 4) if side == 0 else (1, 3))

    def sensible_cancels(self, s: State) -> list[int]:
        """The counts the defeated may cancel at ``s``, without those that lose the duel
        at once while another does not (they can never help)."""
        counts = range(min(s.wv, s.wd) + 1)
        keep = [c for c in counts if not self._lost(self._cancel_result(s, c), 1 - s.victor)]
        return keep or list(counts)

    def _skip_cancel(self, s: State) -> State | None:
        """The next state when every sensible cancellation at ``s`` leads to it (as when
        the victor finishes the duel whatever is cancelled), else None.

        The choices are compared by what they do to the beat, not by the states they
        lead to: as if both were unhurt (an Injury below one already taken leaves the
        same state, yet it is another Injury), and on the last beat as on any other
        (``_endless``: the draw would hide everything). So a beat's steps depend neither
        on the Injuries nor on the beats left; at worst equivalent choices are offered."""
        judge = self if s.beat < self.max_beats else self._endless
        seen = (s if judge is self else self.core(s))._replace(inj_a=0, inj_b=0)
        counts = judge.sensible_cancels(seen)
        if len({judge._cancel_result(seen, c) for c in counts}) > 1:
            return None
        return self._cancel_result(s, counts[0])

    def _finishing_blow(self, s: State, options: list[str]) -> str | None:
        """The first Injure, Lunge or Riposte among ``options`` that surely ends the
        duel in the victor's favour (any Injury at first blood, a mortal one otherwise;
        a Riposte after the most the aggressor can cancel)."""
        needed = 1 if self.convention == "first_blood" else self.rules.mortal_rank
        strength = self.sheets[s.victor].strength
        for name in options:
            if name.startswith("injure"):
                rank = 1 + int(name[6:])
            elif name.startswith("lunge"):
                rank = 1 + strength + int(name[5:])
            elif name == "riposte":
                left = s.wv - self.rules.costs["riposte"]
                rank = 1 + left - min(left, s.wd)
            else:
                continue
            if min(rank, self.rules.max_rank) >= needed:
                return name
        return None

    def _canonical_victor(self, s: State) -> State:
        """Wagers that can no longer change anything, dropped (the same values, fewer
        states). The defeated's wagers only bank Style unless the victor may Bash (the
        defeated may then attack with them) or Riposte (he cancels with them): then
        only whole Style points count, up to the bank's room. The victor spends at most
        ``_spend_bound`` on maneuvers and his Injury; beyond that, and beyond the Style
        his bank can take, more wagers change nothing (plus the defeated's wagers, which a
        Riposte's cancellation may take)."""
        v, r = self.sheets[s.victor], self.rules
        uses_wd = v.knows("bash") or (v.knows("riposte") and s.aggressor != s.victor)
        banks = (s.bank_a, s.bank_b)
        wd = s.wd
        if not uses_wd:
            room = r.per_style * max(0, r.bank_cap - banks[1 - s.victor])
            wd = min(r.per_style * (wd // r.per_style), room)
        room = r.per_style * max(0, r.bank_cap - banks[s.victor])
        wv = min(s.wv, self._spend_bound + room + (s.wd if uses_wd else 0))
        return s._replace(wv=wv, wd=wd) if (wv, wd) != (s.wv, s.wd) else s

    def _gains(self, s: State, victor_left: int, defeated_left: int) -> tuple[int, int]:
        """Style each side banks from its unused wagers, as (A, B)."""
        per = self.rules.per_style
        gv, gd = max(victor_left, 0) // per, max(defeated_left, 0) // per
        return (gv, gd) if s.victor == 0 else (gd, gv)

    def _maneuver(self, s: State, name: str) -> list[tuple[float, State]]:
        costs, loser, nxt = self.rules.costs, 1 - s.victor, 1 - s.aggressor
        if name == "feint":
            feint = {"feint_a": 1} if s.victor == 0 else {"feint_b": 1}
            return [(1.0, self._settle(s._replace(wv=s.wv - costs["feint"], **feint)))]
        if name.startswith("injure"):
            k = int(name[6:])
            return [(1.0, self._end_beat(s, loser, 1 + k, self._gains(s, s.wv - k, s.wd), nxt))]
        if name.startswith("lunge"):
            k = int(name[5:])
            rank = 1 + self.sheets[s.victor].strength + k
            left = s.wv - costs["lunge"] - k
            return [(1.0, self._end_beat(s, loser, rank, self._gains(s, left, s.wd), nxt))]
        if name == "parry":
            return [(1.0, self._end_beat(s, None, 0, self._gains(s, s.wv, s.wd), nxt))]
        if name == "bind":
            left = s.wv - costs["bind"]
            return [(1.0, self._end_beat(s, None, 0, self._gains(s, left, s.wd), nxt))]
        if name == "riposte":
            s = s._replace(wv=s.wv - costs["riposte"], phase=RCANCEL)
            if min(s.wv, s.wd) == 0:
                return [(1.0, self._riposte_hits(s))]
            return [(1.0, self._skip_cancel(s) or s)]
        if name == "bash":
            return self._bash(s._replace(wv=s.wv - costs["bash"]))
        raise InputError(f"unknown maneuver {name!r}")

    def _riposte_hits(self, s: State) -> State:
        """The riposter (the victor, defender) injures the aggressor for 1 + his wagers
        left after cancellation; the aggressor banks what he has left."""
        return self._end_beat(s, 1 - s.victor, 1 + s.wv, self._gains(s, 0, s.wd), s.victor)

    def _bash(self, s: State) -> list[tuple[float, State]]:
        a, b = self.sheets
        split = bash_split(a.strength + a.athletics, b.strength + b.athletics,
                           self.rules.target, self.rules.sides)
        wagers = {s.victor: s.wv, 1 - s.victor: s.wd}
        merged: dict[State, float] = {}
        for p, (roller, attacks) in zip(split, ((0, True), (0, False), (1, True),
                                                (1, False), (None, False)), strict=True):
            if p <= 0:
                continue
            if attacks:
                left = {roller: 0, 1 - roller: wagers[1 - roller]}
                gains = (left[0] // self.rules.per_style, left[1] // self.rules.per_style)
                nxt = self._end_beat(s, 1 - roller, 1 + wagers[roller], gains, roller)
            else:
                following = 1 - s.aggressor if roller is None else roller
                nxt = self._end_beat(s, None, 0, self._gains(s, s.wv, s.wd), following)
            merged[nxt] = merged.get(nxt, 0.0) + p
        return [(p, nxt) for nxt, p in merged.items()]

    def _end_beat(self, s: State, injured: int | None, rank: int, gains: tuple[int, int],
                  next_aggressor: int) -> State:
        """Apply the Injury and the Style gains, then start the next beat (or end)."""
        inj = [s.inj_a, s.inj_b]
        ending = 0
        if injured is not None:
            inj[injured] = max(inj[injured], min(rank, self.rules.max_rank))
            if self.convention == "first_blood":
                ending = 4 if injured == 0 else 3
            elif inj[injured] >= self.rules.mortal_rank:
                ending = 2 if injured == 0 else 1
        if not ending and s.beat >= self.max_beats:
            return self.stopped()
        if ending:
            return State(s.beat, OVER, 0, inj[0], inj[1], 0, 0, 0, 0, 0, 0, 0, 0, 0, ending)
        cap = self.rules.bank_cap
        bank_a, bank_b = min(cap, s.bank_a + gains[0]), min(cap, s.bank_b + gains[1])
        phase = BID if self.bid_every_beat else RISK
        return State(s.beat + 1, phase, 0 if phase == BID else next_aggressor, inj[0], inj[1],
                     bank_a, bank_b, s.feint_a, s.feint_b, 0, 0, 0, 0, 0, 0)

    # -- observation
    def observe(self, state: State, player: str) -> tuple[int, ...]:
        me = 0 if player == "a" else 1
        s = state

        def own(a: int, b: int) -> int:
            return a if me == 0 else b

        def opp(a: int, b: int) -> int:
            return b if me == 0 else a
        live = s.phase != OVER
        if s.phase in (BID, CHOOSE) or not live:
            role = 0
        else:
            role = 1 if s.aggressor == me else -1
        dice_phase = s.phase in (BID, RISK)
        own_dice = self.dice_left(s, me) if dice_phase else 0
        opp_dice = self.dice_left(s, 1 - me) if dice_phase else 0
        decided = s.phase in (CHOOSE, BLIND, CANCEL, DBIND, VICTOR, RCANCEL)
        victor = (1 if s.victor == me else -1) if decided else 0
        after = s.phase in (BLIND, CANCEL, DBIND, VICTOR, RCANCEL)
        own_w = (s.wv if s.victor == me else s.wd) if after else 0
        opp_w = (s.wd if s.victor == me else s.wv) if after else 0
        return (min(s.beat, self.max_beats), s.phase, role, own(s.inj_a, s.inj_b),
                opp(s.inj_a, s.inj_b), own(s.bank_a, s.bank_b), opp(s.bank_a, s.bank_b),
                own(s.feint_a, s.feint_b), opp(s.feint_a, s.feint_b), own_dice, opp_dice,
                own(s.bid_a, s.bid_b), opp(s.bid_a, s.bid_b), victor, own_w, opp_w)

    # -- presentation
    def state_fields(self, state: State) -> dict[str, int]:
        return dict(state._asdict())

    state_dict = state_fields

    def state_from(self, values: Mapping[str, object]) -> State:
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
        rank, bank, n = self.rules.max_rank, self.rules.bank_cap, self.max_dice
        bounds = {"beat": (1, self.max_beats), "phase": (0, OVER - 1), "aggressor": (0, 1),
                  "inj_a": (0, rank), "inj_b": (0, rank), "bank_a": (0, bank),
                  "bank_b": (0, bank), "feint_a": (0, 1), "feint_b": (0, 1),
                  "bid_a": (0, n), "bid_b": (0, n), "victor": (0, 1), "wv": (0, n),
                  "wd": (0, n), "ending": (0, 0)}
        for key, (low, high) in bounds.items():
            value = getattr(s, key)
            if not low <= value <= high:
                raise InputError(f"state field {key} must be {low}..{high} for a live duel, "
                                 f"got {value}")
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
        if s.phase in (BID, RISK):
            left = self.dice_left(s, side)
            parts.append(f"{left} {'die' if left == 1 else 'dice'} to play")
        if s.phase in (CHOOSE, RISK) and (s.bid_a or s.bid_b):
            parts.append(f"bid {(s.bid_a, s.bid_b)[side]}")
        if feint:
            when = "now" if s.phase <= RISK else "next beat"
            parts.append(f"a Feint's bonus of {self.sheets[side].sword} dice {when}")
        if s.phase >= RISK and s.aggressor == side:
            parts.append("aggressor")
        elif s.phase >= RISK:
            parts.append("defender")
        return ", ".join(parts) + "."

    def narrate(self, state: State, action_a: int, action_b: int, next_state: State) -> str:
        s, n = state, next_state
        names = self.action_names
        if s.phase == BID:
            text = (f"A bids {names[action_a]} dice, B bids {names[action_b]}; "
                    f"{self._name(n.victor)} chooses the role.")
        elif s.phase == RISK:
            text = (f"A wagers {names[action_a]}, B wagers {names[action_b]}. "
                    + self._risk_text(s, n)).rstrip()
        else:
            actor = self._decider(s)
            action = names[action_a if actor == 0 else action_b]
            text = f"{self._name(actor)} {self._act_text(s, action)}."
        if n.phase == OVER:
            text += f" {self.result(n)}."
        elif n.beat != s.beat:
            text += (f" Beat {n.beat} begins (A {self._wound(n.inj_a)}, "
                     f"B {self._wound(n.inj_b)}).")
        return text

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
            verb = {BID: "bid", RISK: "wager"}.get(s.phase, "cancel")
            return f"{verb} {action}"
        for maneuver, length in (("injure", 6), ("lunge", 5)):
            if action.startswith(maneuver):
                count = int(action[length:])
                return f"{maneuver.capitalize()} with {count} wager{'' if count == 1 else 's'}"
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
            return f"injures, putting {action[6:]} wagers into the wound"
        if action.startswith("lunge"):
            return f"lunges, adding {action[5:]} wagers"
        return f"cancels {action} wagers"

    def situation(self, state: State, player: str) -> str:
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
        if s.phase == RISK:
            role = "you attack" if s.aggressor == me else f"{other} attacks, you defend"
            bids = (s.bid_a, s.bid_b)
            spent = (f"you bid {bids[me]} of your {self.pool(s, me)} dice, {other} "
                     f"{bids[1 - me]}; " if any(bids) else "")
            return (f"{spent}{role} and risk {self.dice_left(s, me)} dice against "
                    f"{other}'s {self.dice_left(s, 1 - me)}: how many to wager; {tag}; {own}")
        return self._after_situation(s, me, other, own)

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


# -- registration

def _build(ruleset: dict, options: dict) -> BloodedGame:
    rules = compile_rules(ruleset)
    for key in ("convention", "max_beats"):
        if options[key] is None:
            raise InputError(f"option {key} is required")
    a, b = (_duellist(options[side], side, rules) for side in SIDES)
    return BloodedGame(rules, a, b, options, ruleset_hash(ruleset))


_DEFAULTS = tomllib.loads(
    resources.files("envs").joinpath("rulesets", "blooded.toml").read_text("utf-8"))


def _ability(name: str, text: str, high: int = 5) -> Field:
    return Field(name, "int", text, default_key=f"sheet.{name}", low=0, high=high)


SYSTEM = SystemSpec(
    name="blooded",
    title="Houses of the Blooded dice-and-wagers duel",
    options=(
        Field("convention", "choice", "how the duel ends", default_key="convention",
              choices=CONVENTIONS, aliases={"first": "first_blood", "death": "mortal"}),
        Field("max_beats", "int", "beats with a risk before the duel is stopped (a draw)",
              default_key="max_beats", low=1, high=200),
        Field("bid_every_beat", "bool", "a strike bid on every beat, not only the first",
              default_key="bid_every_beat"),
    ),
    sheet=SheetSpec(
        fields=(_ability("prowess", "the Prowess virtue"),
                _ability("sword", "The Sword skill"),
                _ability("strength", "Strength (Lunge, Bash)"),
                _ability("athletics", "Athletics (Bash)"),
                _ability("style", "Style banked in the sword", high=_DEFAULTS["style_bank_cap"]),
                _ability("invokes", "aspect invokes for this duel (+"
                         f"{_DEFAULTS['invoke_dice']} dice each beat)", 50),
                *(Field(m, "flag", f"knows the {m.capitalize()} maneuver",
                        default_key=f"sheet.{m}") for m in MANEUVERS)),
        reference_key="sheets",
        example="prowess=3,sword=3,feint"),
    build=_build,
    examples=Examples(sheet_a="prowess=2,sword=1", sheet_b="prowess=1,sword=2",
                      state="beat=2,phase=risk,aggressor=1,inj_a=2", mix="0:1,1:1,2:2",
                      quick={"max_beats": 3},
                      variants={"first_blood": {"convention": "first_blood"}},
                      counters={"a": "prowess=2,sword=1,feint,riposte",
                                "b": "prowess=1,sword=2,style=2,bash,blind,bind",
                                "convention": "first_blood", "max_beats": 3}),
    pairing=None,
    action_words=lambda game, state, name: game.action_words(state, name),
)
