"""The rules of a Blooded duel (docs/systems/blooded.md), as ``BloodedGame``.

A beat: the pools (``pool``), the strike bid (``_bid``), the risk (``_risk``,
``_risk_all``), then the consequences in their order: Blind (``_blind``), the
cancellation (``_cancel_result``), the defeated's Bind, the victor's maneuvers
(``victor_options``, ``_maneuver``: Feint, Injure, Lunge, Parry, Bind, Riposte
(``_riposte_hits``), Bash (``_bash``)), and the end of the beat (``_end_beat``: the
Injury, the Style gains, the next beat or the end of the duel).

Where the rules offer a choice that can never help, or a step with one sensible choice,
``reductions.py`` decides (``self.reductions``); everything else is here.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import numpy as np

from envs.rulesets import ruleset_hash
from solver.errors import InputError
from solver.game import GameInfo, sample_outcome

from .counters import BeatsLeft
from .dice import bash_split, risk_table, risk_table_layout, success_probability
from .reductions import PlainRules, Reductions
from .state import (
    BID,
    BID_TIES,
    BLIND,
    CANCEL,
    CHOOSE,
    DBIND,
    DECLARE,
    DRAW,
    ENDINGS,
    MANEUVERS,
    OVER,
    PAYOFF,
    PLANS,
    POOLS,
    RCANCEL,
    RESPOND,
    RISK,
    SIDES,
    SPEND,
    VICTOR,
    Duellist,
    Rules,
    State,
)
from .words import BloodedWords

#: the largest ``style_bank_cap`` a ruleset may set (and so the largest sheet ``style``)
STYLE_BANK_LIMIT = 50


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


def _bool(ruleset: Mapping, key: str) -> bool:
    value = ruleset[key]
    if not isinstance(value, bool):
        raise InputError(f"ruleset {key} must be true or false, got {value!r}")
    return value


def compile_rules(ruleset: Mapping) -> Rules:
    """The ruleset as checked numbers; readings not modelled are errors."""
    costs = {name: _int(ruleset["costs"], name, 0, 20) for name in MANEUVERS}
    max_rank = _int(ruleset, "max_rank", 1, 20)
    return Rules(
        target=_int(ruleset, "risk_target", 1, 200), sides=_int(ruleset, "die_sides", 2, 100),
        auto_spend=_bool(ruleset, "auto_spend_style"),
        spend_cap=_int(ruleset, "style_spend_cap", 0, 50),
        bank_cap=_int(ruleset, "style_bank_cap", 0, STYLE_BANK_LIMIT),
        invoke_dice=_int(ruleset, "invoke_dice", 0, 20),
        bids_spent=_word(ruleset, "bids_spent", ("both", "loser")),
        bid_tie=_word(ruleset, "bid_tie", BID_TIES),
        bash_cancellable=_bool(ruleset, "bash_cancellable"),
        riposte_rolls=_bool(ruleset, "riposte_rolls"),
        risk_tie=_word(ruleset, "risk_tie", ("defender", "aggressor")),
        whole_duel=_word(ruleset, "pool", POOLS) == "whole_duel",
        per_style=_int(ruleset, "wagers_per_style", 1, 20), costs=costs,
        max_rank=max_rank, mortal_rank=_int(ruleset, "mortal_rank", 1, max_rank))


def duellist(sheet: Mapping, side: str, rules: Rules) -> Duellist:
    known = frozenset(m for m in MANEUVERS if sheet[m])
    if "lunge" in known and sheet["strength"] < 1:
        raise InputError(f"sheet {side}: lunge needs strength 1 or more, got strength "
                         f"{sheet['strength']}; allowed: strength 1..5 with lunge")
    if sheet["style"] > rules.bank_cap:
        raise InputError(f"sheet {side}: style {sheet['style']} exceeds the Style bank cap; "
                         f"allowed: 0..{rules.bank_cap}")
    return Duellist(sheet["prowess"], sheet["sword"], sheet["strength"], sheet["athletics"],
                    sheet["style"], sheet["invokes"], known)


def build(ruleset: dict, options: dict) -> BloodedGame:
    """The duel of ``options`` (sheets ``a`` and ``b`` and the schema's options; the
    option ``pool``, whose default is the ruleset's, decides the pool)."""
    rules = compile_rules({**ruleset, "pool": options.get("pool", ruleset["pool"])})
    for key in ("convention", "max_beats"):
        if options[key] is None:
            raise InputError(f"option {key} is required")
    a, b = (duellist(options[side], side, rules) for side in SIDES)
    game = BloodedGame(rules, a, b, options, ruleset_hash(ruleset))
    if rules.whole_duel:
        _require_pool_room(game)
    return game


#: the most situations a duel with one pool for the whole duel may have, by the estimate
#: of ``whole_duel_situations`` (they are walked one by one, about a thousand a second)
MAX_WHOLE_DUEL_SITUATIONS = 1_000_000


def first_pool(d: Duellist, rules: Rules) -> int:
    """The most dice ``d`` gathers on the first beat: the duel's pool under ``pool =
    "whole_duel"``."""
    invoke = rules.invoke_dice if d.invokes >= 1 else 0
    return d.prowess + d.sword + min(d.style, rules.spend_cap) + invoke


def whole_duel_situations(game: BloodedGame) -> int:
    """An estimate of the situations of ``game`` under ``pool = "whole_duel"``: those of
    the same duel with the pool gathered every beat (its cores, found at once by
    ``cores.py``) times the pairs of pools left (measured on test_blooded_pool's mortal
    duel: 190,217 situations for an estimate of 240,660). Past a million pairs of
    pools nothing fits, so the cores are not counted then."""
    pools = math.prod(first_pool(d, game.rules) + 1 for d in game.sheets)
    if pools > MAX_WHOLE_DUEL_SITUATIONS:
        return pools
    every_beat = dataclasses.replace(game.rules, whole_duel=False)
    twin = BloodedGame(every_beat, *game.sheets, game.options, game.ruleset_hash)
    return pools * len(twin.cores().cores)


def _require_pool_room(game: BloodedGame) -> None:
    """Refuse, in words and before the walk, a whole-duel pool too large to walk."""
    size = whole_duel_situations(game)
    if size > MAX_WHOLE_DUEL_SITUATIONS:
        a, b = (first_pool(d, game.rules) for d in game.sheets)
        raise InputError(
            f"ruleset pool = \"whole_duel\": with pools of {a} and {b} dice this duel has "
            f"about {size:,} situations, more than the {MAX_WHOLE_DUEL_SITUATIONS:,} that "
            "can be walked here; fewer dice fit (lower prowess, sword, style or invokes), "
            "or fewer maneuvers, or convention=first_blood")


class BloodedGame(BloodedWords, BeatsLeft):
    """The duel between sheets ``a`` and ``b`` under ``rules`` and the options."""

    system = "blooded"

    def __init__(self, rules: Rules, a: Duellist, b: Duellist, options: dict,
                 digest: str):
        self.rules = rules
        self.sheets = (a, b)
        self.convention = options["convention"]
        self.max_beats = options["max_beats"]
        self.bid_every_beat = bool(options["bid_every_beat"])
        # the seed's declarations before the risk, or the victor's choice after the dice
        self.declare_first = options.get("declaration", "after") == "before"
        self.options = options
        self.ruleset_hash = digest
        self.max_dice = max(self._pool_bound(d) for d in self.sheets)
        self.reductions = Reductions(self) if options["reductions"] else PlainRules(self)
        self._set_actions()
        self._set_observation()
        self.info = GameInfo(
            system="blooded", action_names=self.action_names,
            observation_fields=self.observation_fields,
            observation_low=self.observation_low, observation_high=self.observation_high,
            public_information=True, payoff_bounds=(-1.0, 1.0), may_cycle=False,
            options=options, ruleset_hash=digest,
            fast_paths=self._fast_paths(),
            length_unit="beat")
        self._masks: dict = {}
        self._after_cache: dict = {}  # (state after the roll, case) -> next state
        self._cancel_cache: dict = {}  # (state, count cancelled) -> next state

    # -- setup
    def _fast_paths(self) -> frozenset[str]:
        paths = {"sample", "transitions", "graph", "counters", "cores", "rolls"}
        if self.rules.whole_duel:
            # the cores at once (cores.py) assume a beat's dice come from its own
            # gathering; the duel's pool is walked core by core (core_transitions)
            paths.discard("cores")
        return frozenset(paths)

    def _pool_bound(self, d: Duellist) -> int:
        r = self.rules
        # Prowess, The Sword, Style spent, an invoke, a tagged Injury, a Feint's bonus
        bound = d.prowess + d.sword + r.spend_cap + r.invoke_dice + r.max_rank + d.sword
        if r.whole_duel:  # a later beat's Style and invoke come on top of the first's
            bound += r.spend_cap + r.invoke_dice
        return bound

    def _set_actions(self) -> None:
        counts = tuple(str(n) for n in range(self.max_dice + 1))
        # the most wagers put into one Injury (beyond the rank cap only without the
        # reductions)
        most = self.reductions.injury_wagers(self.max_dice, 1)
        injure = tuple(f"injure{k}" for k in range(most + 1))
        lunge = tuple(f"lunge{k}" for k in range(most + 1))
        names = counts + ("aggressor", "defender", "blind", "pass", "feint") + injure + lunge \
            + ("bash", "bind", "riposte", "parry", "wait")
        if self.declare_first:
            names += tuple(f"declare_{plan}" for plan in PLANS[1:])
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
        if self.last_phase != OVER:
            spec = tuple((f, 0, self.last_phase) if f == "phase" else (f, low, high)
                         for f, low, high in spec)
        if self.declare_first:
            spec += (("own_plan", 0, len(PLANS) - 1), ("opp_plan", 0, len(PLANS) - 1))
        if not self.rules.auto_spend:
            cap = self.rules.spend_cap
            spec += (("own_spend", 0, cap), ("opp_spend", 0, cap))
        if self.rules.whole_duel:
            spec += (("own_pool", 0, n), ("opp_pool", 0, n))
        self.observation_fields = tuple(s[0] for s in spec)
        self.observation_low = tuple(s[1] for s in spec)
        self.observation_high = tuple(s[2] for s in spec)

    @property
    def last_phase(self) -> int:
        """The highest phase this duel has: the declarations' and the spend's phases
        exist only with their readings."""
        return max(OVER, RESPOND if self.declare_first else 0,
                   SPEND if not self.rules.auto_spend else 0)

    # -- pools
    def pool(self, state: State, side: int) -> int:
        """Dice gathered at the start of ``state.beat`` by ``side`` (0 = A). With
        ``pool = "whole_duel"`` the first beat's are the duel's pool; a later beat has
        the pool left and, for that beat only, its other dice (``bonus_dice``)."""
        d = self.sheets[side]
        if self.rules.whole_duel and state.beat > 1:
            return (state.pool_a, state.pool_b)[side] + self.bonus_dice(state, side)
        return d.prowess + d.sword + self.bonus_dice(state, side)

    def bonus_dice(self, state: State, side: int) -> int:
        """The dice gathered beyond Prowess + The Sword: the Style spent, an invoke, the
        tagged Injury, a Feint's bonus."""
        d, r = self.sheets[side], self.rules
        feint = state.feint_a if side == 0 else state.feint_b
        tag = state.inj_b if side == 0 else state.inj_a
        invoke = r.invoke_dice if d.invokes >= state.beat else 0
        return self.spent(state, side) + invoke + tag + feint * d.sword

    def carried(self, state: State, side: int, rolled: int) -> int:
        """The duel's pool ``side`` carries out of the risk at ``state`` (``pool =
        "whole_duel"``) when he rolls ``rolled`` dice: the bid and the wagers are spent,
        the dice rolled are picked up again; the first beat's dice all belong to the
        pool, a later beat's bonus dice are spent first and the rest is lost."""
        if state.beat == 1:
            return rolled
        return min((state.pool_a, state.pool_b)[side], rolled)

    def spent(self, state: State, side: int) -> int:
        """The Style ``side`` spends this beat: all his bank up to the cap
        (``auto_spend_style``), or what he chose (the seed's "I pull two Style")."""
        if self.rules.auto_spend:
            return min((state.bank_a, state.bank_b)[side], self.rules.spend_cap)
        return (state.spend_a, state.spend_b)[side]

    def spendable(self, state: State, side: int) -> int:
        return min((state.bank_a, state.bank_b)[side], self.rules.spend_cap)

    def dice_left(self, state: State, side: int) -> int:
        return self.pool(state, side) - (state.bid_a if side == 0 else state.bid_b)

    # -- the protocol: start, masks
    def initial_outcomes(self) -> list[tuple[float, State]]:
        return [(1.0, self.start())]

    def start(self) -> State:
        a, b = self.sheets
        return self._gather(State(1, BID, 0, 0, 0, a.style, b.style, 0, 0, 0, 0, 0, 0, 0, 0))

    def _gather(self, s: State) -> State:
        """A new beat: first the Style each chooses to spend (``auto_spend_style =
        false``, when either has any), then its bid or its risk."""
        if not self.rules.auto_spend and (self.spendable(s, 0) or self.spendable(s, 1)):
            return s._replace(phase=SPEND, aggressor=0 if s.phase == BID else s.aggressor)
        return self._after_gather(s)

    def _after_gather(self, s: State) -> State:
        if s.beat == 1 or self.bid_every_beat:
            return s._replace(phase=BID)
        return self._to_risk(s)

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
        return PAYOFF[state.ending]

    def result(self, state: State) -> str:
        if state.ending == DRAW:
            beats = "1 beat" if self.max_beats == 1 else f"{self.max_beats} beats"
            return f"draw: the seconds stop the duel after {beats}"
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
        if s.phase == SPEND:
            return list(range(self.spendable(s, side) + 1))
        if s.phase == RISK:
            return list(range(self.dice_left(s, side) + 1))
        deciding = self._decider(s)
        if side != deciding:
            return [self.WAIT]
        return self._choices(s)

    def _decider(self, s: State) -> int:
        if s.phase == DECLARE:
            return s.aggressor
        if s.phase == RESPOND:
            return 1 - s.aggressor
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
            return self.reductions.cancels(s)
        if s.phase == DBIND:
            return [ix["bind"], ix["pass"]]
        if s.phase in (DECLARE, RESPOND):
            side = self._decider(s)
            return [ix[f"declare_{plan}"] for plan in self.plans(side, side == s.aggressor)]
        return [ix[name] for name in self.victor_options(s)]

    # -- declarations before the risk (declaration = "before")
    def plans(self, side: int, aggressor: bool) -> list[str]:
        """What ``side`` may declare in his role: the basic maneuver (Injure attacking,
        Parry defending) and each advanced one on his sheet that may end his sequence."""
        d = self.sheets[side]
        names = ["injure", "lunge"] if aggressor else ["parry", "riposte"]
        names += ["bash", "bind"]
        return [n for n in names if n in ("injure", "parry") or d.knows(n)]

    def _to_risk(self, s: State) -> State:
        """A beat's roles are set: the risk, or first the declarations (the aggressor's,
        then the defender's), each played at once where only one is possible."""
        if not self.declare_first:
            return s._replace(phase=RISK)
        return self._declare_forced(s._replace(phase=DECLARE, plan_a=0, plan_b=0))

    def _declare_forced(self, s: State) -> State:
        for phase, nxt in ((DECLARE, RESPOND), (RESPOND, RISK)):
            if s.phase == phase:
                side = self._decider(s)
                options = self.plans(side, side == s.aggressor)
                if len(options) > 1:
                    return s
                s = self._declared(s, side, options[0])._replace(phase=nxt)
        return s

    def _declared(self, s: State, side: int, plan: str) -> State:
        return s._replace(**{f"plan_{SIDES[side]}": PLANS.index(plan)})

    def _as_declared(self, s: State, names: list[str]) -> list[str]:
        """The victor's maneuvers when he declared before the risk: a Feint if he may,
        then only what he declared; the basic one of his role if he cannot pay for it."""
        plan = PLANS[s.plan_a if s.victor == 0 else s.plan_b]

        def kind(name: str) -> str:
            return name.rstrip("0123456789")

        ending = [n for n in names if n != "feint"]
        kept = [n for n in ending if kind(n) == plan]
        if not kept:
            basic = "injure" if s.aggressor == s.victor else "parry"
            kept = [n for n in ending if kind(n) == basic]
        return [n for n in names if n == "feint"] + kept

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
            top = self.reductions.injury_wagers(w, 1)
            names += [f"injure{k}" for k in range(top + 1)]
            if d.knows("lunge") and w >= costs["lunge"]:
                top = self.reductions.injury_wagers(w - costs["lunge"], 1 + d.strength)
                names += [f"lunge{k}" for k in range(top + 1)]
        else:
            names.append("parry")
            if d.knows("riposte") and w >= costs["riposte"]:
                names.append("riposte")
        for name in ("bash", "bind"):
            if d.knows(name) and w >= costs[name]:
                names.append(name)
        return self._as_declared(s, names) if self.declare_first else names

    # -- the protocol: outcomes
    def outcomes(self, state: State, action_a: int, action_b: int) -> list[tuple[float, State]]:
        self._check(state, action_a, action_b)
        if state.phase == BID:
            return self._bid(state, action_a, action_b)
        if state.phase == SPEND:
            return self._spend(state, action_a, action_b)
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
        chooser = [(1.0, 0 if ba > bb else 1)] if ba != bb else self._bid_tie()
        if self.rules.bids_spent == "loser" and ba != bb:
            ba, bb = (0, bb) if ba > bb else (ba, 0)
        return [(p, s._replace(phase=CHOOSE, bid_a=ba, bid_b=bb, victor=w, aggressor=0))
                for p, w in chooser]

    def _spend(self, s: State, sa: int, sb: int) -> list[tuple[float, State]]:
        """Both reveal the Style they spend; then the beat's bid or risk."""
        return [(1.0, self._after_gather(s._replace(spend_a=sa, spend_b=sb)))]

    def _bid_tie(self) -> list[tuple[float, int]]:
        """[(p, side who chooses the role)] after equal bids, by ``bid_tie``."""
        tie = self.rules.bid_tie
        pa, pb = self.sheets[0].prowess, self.sheets[1].prowess
        if tie == "prowess_then_coin" and pa != pb:
            return [(1.0, 0 if pa > pb else 1)]
        if tie in ("a", "b"):
            return [(1.0, SIDES.index(tie))]
        return [(0.5, 0), (0.5, 1)]

    def transitions(self, state: State) -> list[tuple[int, int, list[tuple[float, State]]]]:
        """Every legal joint action with its outcomes, as ``outcomes`` gives them (the
        solver's fast path: no re-checks, the risk's next states shared across pairs)."""
        if state.phase == RISK:
            return self._risk_all(state)
        if state.phase == BID:
            return [(ba, bb, self._bid(state, ba, bb))
                    for ba in range(self.pool(state, 0) + 1)
                    for bb in range(self.pool(state, 1) + 1)]
        if state.phase == SPEND:
            return [(sa, sb, self._spend(state, sa, sb))
                    for sa in range(self.spendable(state, 0) + 1)
                    for sb in range(self.spendable(state, 1) + 1)]
        decider, choices = self._decider(state), self._choices(state)
        if decider == 0:
            return [(i, self.WAIT, self._decide(state, i)) for i in choices]
        return [(self.WAIT, j, self._decide(state, j)) for j in choices]

    def _risk_all(self, s: State) -> list[tuple[int, int, list[tuple[float, State]]]]:
        """``_risk`` for every pair of wagers at once: the pairs' results come from a
        table shared by every risk with the same dice (``risk_table``), each distinct
        result is turned into a next state once."""
        tie = 1 - s.aggressor if self.rules.risk_tie == "defender" else s.aggressor
        table, cases = risk_table(self.dice_left(s, 0), self.dice_left(s, 1), tie,
                                   self.rules.target, self.rules.sides)
        if self.rules.whole_duel:
            return self._risk_all_kept(s, table)
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

    def _risk_all_kept(self, s: State, table) -> list[tuple[int, int, list]]:
        """``_risk_all`` with one pool for the whole duel: the pool each carries out
        depends on his wagers, so each pair has its own state after the roll."""
        out, base = [], self._risk_base(s)
        left_a, left_b = self.dice_left(s, 0), self.dice_left(s, 1)
        for wa, wb, items in table:
            base = base._replace(pool_a=self.carried(s, 0, left_a - wa),
                                 pool_b=self.carried(s, 1, left_b - wb))
            merged: dict[State, float] = {}
            nexts = self._after_cases(s, [case for _, case in items], base)
            for (p, _), nxt in zip(items, nexts, strict=True):
                merged[nxt] = merged.get(nxt, 0.0) + p
            out.append((wa, wb, [(p, nxt) for nxt, p in merged.items()]))
        return out

    def _kept_base(self, s: State, wa: int, wb: int) -> State:
        """``_risk_base`` with the duel's pool each carries out when A wagers ``wa``
        and B ``wb`` (``pool = "whole_duel"``)."""
        return self._risk_base(s)._replace(
            pool_a=self.carried(s, 0, self.dice_left(s, 0) - wa),
            pool_b=self.carried(s, 1, self.dice_left(s, 1) - wb))

    def risk_layout(self, s: State):
        """The risk at ``s`` as ``transitions`` gives it, in flat lists: A's and B's
        wagers of each pair, its number of results, each result's position in the
        list of next states and its probability, and that list (a next state may
        repeat within a pair: its probabilities then add up)."""
        if self.rules.whole_duel:
            return _layout(self._risk_all(s))
        tie = 1 - s.aggressor if self.rules.risk_tie == "defender" else s.aggressor
        wagers_a, wagers_b, counts, which, probs, cases = risk_table_layout(
            self.dice_left(s, 0), self.dice_left(s, 1), tie, self.rules.target,
            self.rules.sides)
        return wagers_a, wagers_b, counts, which, probs, self._after_cases(s, cases)

    def _after_cases(self, s: State, cases, base: State | None = None) -> list[State]:
        """The state after the roll at ``s`` for each case, shared between risks that
        leave the same state behind them (``base``: ``_risk_base`` unless given)."""
        base = self._risk_base(s) if base is None else base
        shared, found = self._after_cache, []
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
        return s._replace(phase=BLIND, bank_a=s.bank_a - self.spent(s, 0),
                          bank_b=s.bank_b - self.spent(s, 1), spend_a=0, spend_b=0,
                          feint_a=0, feint_b=0,
                          bid_a=0, bid_b=0)

    def _risk(self, s: State, wa: int, wb: int) -> list[tuple[float, State]]:
        """The roll of one pair of wagers (the same table as ``transitions``)."""
        base = self._kept_base(s, wa, wb) if self.rules.whole_duel else self._risk_base(s)
        tie = 1 - s.aggressor if self.rules.risk_tie == "defender" else s.aggressor
        lb = self.dice_left(s, 1)
        table, _ = risk_table(self.dice_left(s, 0), lb, tie, self.rules.target,
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
            return [(1.0, self._to_risk(s._replace(aggressor=aggressor, victor=0)))]
        if s.phase in (DECLARE, RESPOND):
            declared = self._declared(s, self._decider(s), name.removeprefix("declare_"))
            following = RESPOND if s.phase == DECLARE else RISK
            return [(1.0, self._declare_forced(declared._replace(phase=following)))]
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
        """Play at once the steps in which the one who decides has a single choice: a
        single legal one, or (``reductions``) a single sensible one."""
        reduce = self.reductions
        if s.phase == BLIND and not (self._may_blind(s) and reduce.blind_helps(s)):
            s = s._replace(phase=CANCEL)
        if s.phase == CANCEL:
            if min(s.wv, s.wd) == 0:
                s = s._replace(phase=DBIND)
            else:
                return reduce.skipped_cancel(s) or s
        if s.phase == DBIND:
            if not self._may_bind(s):
                s = s._replace(phase=VICTOR)
            else:
                return reduce.forced_bind(s) or s
        if s.phase == VICTOR:
            s = reduce.canonical_victor(s)
            options = self.victor_options(s)
            played = reduce.finishing_blow(s, options) or (options[0] if len(options) == 1
                                                           else None)
            if played is not None:
                # played at once if it leaves one state (Parry, Injure, a finishing blow);
                # a lone declared Bash or rolling Riposte stays a step, for its chances
                outcomes = self._maneuver(s, played)
                if len(outcomes) == 1:
                    return outcomes[0][1]
        return s

    def _may_blind(self, s: State) -> bool:
        """Whether the victor may declare Blind: an aggressor who knows it and can pay."""
        v = self.sheets[s.victor]
        return (s.aggressor == s.victor and v.knows("blind")
                and s.wv >= self.rules.costs["blind"])

    def _may_bind(self, s: State) -> bool:
        """Whether the defeated may Bind: he knows it (and declared it, if declarations
        come first) and can pay."""
        defeated = 1 - s.victor
        declared = not self.declare_first or PLANS[(s.plan_a, s.plan_b)[defeated]] == "bind"
        return (self.sheets[defeated].knows("bind") and declared
                and s.wd >= self.rules.costs["bind"])

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
            s = s._replace(wv=s.wv - costs["riposte"])
            hit = self.riposte_chance(s.victor)
            out = [(hit, self._to_cancel_attack(s))] if hit > 0 else []
            if hit < 1:  # a riposte that fails: both bank, the riposter still attacks next
                out.append((1 - hit, self._end_beat(s, None, 0, self._gains(s, s.wv, s.wd),
                                                    s.victor)))
            return out
        if name == "bash":
            return self._bash(s._replace(wv=s.wv - costs["bash"]))
        raise InputError(f"unknown maneuver {name!r}")

    def riposte_chance(self, side: int) -> float:
        """The chance that ``side``'s Riposte lands: sure (the specification), or with
        ``riposte_rolls`` a risk of his Prowess + The Sword against the target (the seed:
        "If the attack is successful or if it fails")."""
        if not self.rules.riposte_rolls:
            return 1.0
        d = self.sheets[side]
        return success_probability(d.prowess + d.sword, self.rules.target, self.rules.sides)

    def _to_cancel_attack(self, s: State) -> State:
        """An attack by the victor ``s.victor`` with his wagers ``s.wv``, which the other
        may cancel one for one with his ``s.wd`` (RCANCEL) before it hits: a Riposte, or
        a cancellable Bash."""
        s = s._replace(phase=RCANCEL)
        if min(s.wv, s.wd) == 0:
            return self._riposte_hits(s)
        return self.reductions.skipped_cancel(s) or s

    def _riposte_hits(self, s: State) -> State:
        """The riposter (the victor, defender) injures the aggressor for 1 + his wagers
        left after cancellation; the aggressor banks what he has left."""
        return self._end_beat(s, 1 - s.victor, 1 + s.wv, self._gains(s, 0, s.wd), s.victor)

    def _bash(self, s: State) -> list[tuple[float, State]]:
        a, b = self.sheets
        split = bash_split(a.strength + a.athletics, b.strength + b.athletics,
                           self.rules.target, self.rules.sides)
        merged: dict[State, float] = {}
        for p, (roller, attacks) in zip(split, ((0, True), (0, False), (1, True),
                                                (1, False), (None, False)), strict=True):
            if p <= 0:
                continue
            nxt = self.bash_result(s, roller, attacks)
            merged[nxt] = merged.get(nxt, 0.0) + p
        return [(p, nxt) for nxt, p in merged.items()]

    def bash_result(self, s: State, roller: int | None, attacks: bool) -> State:
        """The state after a Bash whose higher roller is ``roller`` (None: equal), who
        ``attacks`` when he stands and the other fell."""
        wagers = {s.victor: s.wv, 1 - s.victor: s.wd}
        if attacks and self.rules.bash_cancellable:
            # the attack of the higher roller, who is the victor of the cancellation
            return self._to_cancel_attack(s._replace(victor=roller, wv=wagers[roller],
                                                     wd=wagers[1 - roller]))
        if attacks:
            left = {roller: 0, 1 - roller: wagers[1 - roller]}
            gains = (left[0] // self.rules.per_style, left[1] // self.rules.per_style)
            return self._end_beat(s, 1 - roller, 1 + wagers[roller], gains, roller)
        following = 1 - s.aggressor if roller is None else roller
        return self._end_beat(s, None, 0, self._gains(s, s.wv, s.wd), following)

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
        nxt = State(s.beat + 1, phase, 0 if phase == BID else next_aggressor, inj[0], inj[1],
                    bank_a, bank_b, s.feint_a, s.feint_b, 0, 0, 0, 0, 0, 0,
                    pool_a=s.pool_a, pool_b=s.pool_b)
        return self._gather(nxt)

    # -- observation
    def observe(self, state: State, player: str) -> tuple[int, ...]:
        me = 0 if player == "a" else 1
        s = state

        def own(a: int, b: int) -> int:
            return a if me == 0 else b

        def opp(a: int, b: int) -> int:
            return b if me == 0 else a
        live = s.phase != OVER
        if s.phase in (BID, CHOOSE) or not live or (s.phase == SPEND and (
                s.beat == 1 or self.bid_every_beat)):
            role = 0
        else:
            role = 1 if s.aggressor == me else -1
        dice_phase = s.phase in (BID, RISK, DECLARE, RESPOND)
        own_dice = self.dice_left(s, me) if dice_phase else 0
        opp_dice = self.dice_left(s, 1 - me) if dice_phase else 0
        decided = s.phase in (CHOOSE, BLIND, CANCEL, DBIND, VICTOR, RCANCEL)
        victor = (1 if s.victor == me else -1) if decided else 0
        after = s.phase in (BLIND, CANCEL, DBIND, VICTOR, RCANCEL)
        own_w = (s.wv if s.victor == me else s.wd) if after else 0
        opp_w = (s.wd if s.victor == me else s.wv) if after else 0
        seen = (min(s.beat, self.max_beats), s.phase, role, own(s.inj_a, s.inj_b),
                opp(s.inj_a, s.inj_b), own(s.bank_a, s.bank_b), opp(s.bank_a, s.bank_b),
                own(s.feint_a, s.feint_b), opp(s.feint_a, s.feint_b), own_dice, opp_dice,
                own(s.bid_a, s.bid_b), opp(s.bid_a, s.bid_b), victor, own_w, opp_w)
        if self.declare_first:  # the declarations are public
            seen += (own(s.plan_a, s.plan_b), opp(s.plan_a, s.plan_b))
        if not self.rules.auto_spend:  # the Style chosen to spend, revealed at once
            seen += (own(s.spend_a, s.spend_b), opp(s.spend_a, s.spend_b))
        if self.rules.whole_duel:  # the duel's pools left are public
            seen += (own(s.pool_a, s.pool_b), opp(s.pool_a, s.pool_b))
        return seen



def _layout(rows: list[tuple[int, int, list[tuple[float, State]]]]):
    """Transitions of a risk as ``BloodedGame.risk_layout`` gives them."""
    nexts: list[State] = []
    position: dict[State, int] = {}
    which, probs = [], []
    for _, _, outcomes in rows:
        for p, nxt in outcomes:
            if nxt not in position:
                position[nxt] = len(nexts)
                nexts.append(nxt)
            which.append(position[nxt])
            probs.append(p)
    return ([wa for wa, _, _ in rows], [wb for _, wb, _ in rows],
            [len(outcomes) for _, _, outcomes in rows], np.array(which, np.int64), probs,
            nexts)
