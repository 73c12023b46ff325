"""The Pathfinder 2e duel as a simultaneous-move game with exact chance.

A round is three steps:
- ``decide`` (phase 0): both duellists secretly choose an initiative skill, an order
  preference and a turn plan (one action); initiative is rolled (chance).
- ``first`` (phase 1): the duellist acting first plays his turn (chance only; both
  players ``wait``).
- ``second`` (phase 2): the other one plays his turn; the next round starts.

Under ``plans = "per_turn"`` (the option; PF2e's own timing) the decision holds only the
skill and the order (``SKILL-ORDER``), and each turn opens with its actor's choice of a
plan (the plan's name; his opponent's only action is ``wait``), knowing who acts first,
the Feint and the frightened values the first turn left: the plan is never kept in the
state, the turn is played at once with the plan chosen. With ``reaction_choice =
"each_strike"`` as well, the turn is played Strike by Strike (``strikes.py``): it pauses
before each Strike of an actor whose Bullying Press or Sense Weakness is unspent (he
spends it on that Strike or keeps it) and after each exact success against a target
whose Sidestep is ready (he spends it or takes the hit). A pause is a state of its own
(the fields from ``step`` on; the plan is then kept, and the hits before it have dealt
their damage), with the chooser's ``spend-reaction`` or ``keep-reaction`` against his
foe's ``wait``.

Splitting the round keeps the number of transitions small: a whole round at once would
cross every first-turn result with every second-turn result for each of ~900 joint
actions. Everything is public between rounds; the hidden choices are the simultaneous
move itself, so the solver sees a public-information game.

What a state keeps between turns (only what changes a later probability):
- ``fr_x``: X's frightened value (0..2; it only ever rises to the highest value);
- ``dem_x``: X has tried to Demoralize his opponent, who is now immune to him;
- ``sh_x``: X raised his shield in his last turn (up until the start of his next): 1,
  or 2 when his plan kept his reaction for Shield Block (a plan with the step
  ``block``: his reaction then goes to the first hit against him, not to a Sidestep);
- ``og_x``: bits of X's off-guard against his opponent's Strikes: bit 0 "until X's
  next turn" (Sense Weakness against a Deception initiative, or X's own critically
  failed Feint; equivalent for Strikes, which the opponent makes only in his turns),
  bit 1 "during the opponent's next turn" (the opponent's critical Feint). When bit 1
  is set on the opponent of the duellist who just acted, bit 0 adds nothing (that
  duellist has at most one turn before his opponent's next) and is dropped;
- ``spent_x``: X spent his reaction since the start of his last turn (only when
  reactions refresh each turn, ``reaction_refresh = "turn"``; always 0 when they refresh
  each round). It is cleared when X's turn starts: a Sidestep spent in the foe's turn is
  missing in the foe's next turn if the foe acts twice in a row, and so is the reaction
  X spent on Bullying Press or Sense Weakness in his own turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache, partial
from typing import NamedTuple

import numpy as np

from solver.errors import InputError
from solver.game import DeclaredGame, GameInfo

from .rules import (
    DECEPTION,
    SKILLS,
    Fighter,
    Rules,
    TurnContext,
    initiative_first,
    resolve_turn,
    shield_state,
    spends_own_reaction,
    turn_kind,
    turn_kinds,
    turn_start,
)
from .state import (
    DECIDE,
    DEM_AT,
    ENDINGS,
    FIRST,
    FR_AT,
    HP_AT,
    MIDTURN_AT,
    MIDTURN_FIELDS,
    OG_AT,
    ORDERS,
    OVER,
    PAYOFF,
    PHASES,
    PLAN_AT,
    SECOND,
    SH_AT,
    SKILL_AT,
    SPENT_AT,
    WAIT,
    State,
)
from .strikes import ACTOR_BEFORE_STRIKE, Stop, strikes_made, walk


class Turn(NamedTuple):
    """One turn's results (``rules.turn_kinds``) as arrays: the kinds of result (all but
    the damage: the target's frightened after, Sense Weakness lingering, Feint critical
    success, Feint critical failure, the target's reaction spent) and for each result
    its kind (a position in ``kinds``), damage to the target (capped) and chance."""

    kinds: list[tuple]
    kind: np.ndarray
    damage: np.ndarray
    chance: np.ndarray


#: when a turn's plan is chosen (the option ``plans``): with the skill and the order, or
#: by its actor as his turn starts
PLAN_TIMINGS = ("committed", "per_turn")
#: when the owner of a Strike-triggered reaction chooses the Strike it goes with (the
#: option ``reaction_choice``): in the plan (the step ``strike_reaction``, else the first
#: Strike; the Sidestep on the first exact success), or at each Strike (per turn only)
REACTION_CHOICES = ("plan", "each_strike")
#: a choice within a turn played Strike by Strike: spend the reaction on this Strike
SPEND, KEEP = "spend-reaction", "keep-reaction"
#: where an observation holds the observer's hit points and his opponent's
OWN_HP_FIELD, OPP_HP_FIELD = 2, 3


def action_names(rules: Rules, per_turn: bool = False,
                 each_strike: bool = False) -> tuple[str, ...]:
    """``skill-order-plan`` for every combination, then ``wait``; per turn,
    ``skill-order`` for every combination, then every plan (then spending or keeping a
    reaction when it is chosen at each Strike), then ``wait``."""
    plans = [plan.replace("_", "-") for plan in rules.plan_names]
    if per_turn:
        return (*(f"{skill}-{order}" for skill in SKILLS for order in ORDERS), *plans,
                *((SPEND, KEEP) if each_strike else ()), WAIT)
    names = [f"{skill}-{order}-{plan}" for skill in SKILLS for order in ORDERS
             for plan in plans]
    return (*names, WAIT)


def split_action(index: int, n_plans: int) -> tuple[int, int, int]:
    """(skill, order, plan) of an action index."""
    rest, plan = divmod(index, n_plans)
    skill, order = divmod(rest, 2)
    return skill, order, plan


def _actor(state: State) -> int:
    """Who plays the turn of this phase: 0 for A, 1 for B."""
    return 0 if (state.phase == FIRST) == (state.first == 0) else 1


class PathfinderGame(DeclaredGame):
    """The duel (``solver.game.Game``). ``fighters`` are the typed sheets of A and B."""

    endings = ENDINGS

    def __init__(self, rules: Rules, fighters: Mapping[str, Fighter], options: dict,
                 ruleset_digest: str):
        self.rules = rules
        self.fighters = dict(fighters)
        self.first_blood = options["victory"] == "first_blood"
        self.max_rounds = int(options["max_rounds"] or 0)
        self.per_turn = (options.get("plans") or "committed") == "per_turn"
        self.each_strike = (options.get("reaction_choice") or "plan") == "each_strike"
        if self.each_strike and not self.per_turn:
            raise InputError("reaction_choice=each_strike needs plans=per_turn (committed "
                             "plans name their reacting Strike with strike_reaction)")
        names = action_names(rules, self.per_turn, self.each_strike)
        self.max_frightened = max(rules.demoralize_success, rules.demoralize_critical,
                                  rules.press_frightened, rules.press_frightened_stronger, 0)
        self.n_plans = len(rules.plan_names)
        self.wait = len(names) - 1
        # per turn: the decision's actions hold no plan, and the plans follow them
        self._decision_plans = 1 if self.per_turn else self.n_plans
        self.n_decisions = len(SKILLS) * len(ORDERS) * self._decision_plans
        # first blood is knockout at 1 HP: a hit deals at least 1 damage
        self.start_hp = {s: 1 if self.first_blood else f.hp for s, f in self.fighters.items()}
        self._plan_steps = rules.plans
        fields, low, high = self._observation_bounds()
        self.info = GameInfo(
            system="pathfinder", action_names=names, observation_fields=fields,
            observation_low=low, observation_high=high,
            public_information=True, payoff_bounds=(-1.0, 1.0),
            may_cycle=self.max_rounds == 0, options=options, ruleset_hash=ruleset_digest,
            # hit points are counters when nothing but a knockout ends the duel; the
            # cores at once (``cores.py``) only when each turn is chance alone; a turn's
            # dice are told (``rolls``) for committed plans
            fast_paths=frozenset({
                "transitions", *(() if self.each_strike else ("sample",)),
                *(() if self.per_turn else ("rolls",)),
                *(("counters", "counter_observations",
                   *(() if self.per_turn else ("cores",))) if self.max_rounds == 0 else ())}),
            length_unit="round")
        self._wait_mask = np.zeros(len(names), bool)
        self._wait_mask[self.wait] = True
        self.reaction_actions = [names.index(SPEND), names.index(KEEP)] if (
            self.each_strike) else []
        self._walk = lru_cache(maxsize=None)(self._walk_uncached)
        self._turn = lru_cache(maxsize=None)(self._turn_uncached)
        self._cumulative = lru_cache(maxsize=None)(self._cumulative_uncached)
        self._turn_kinds = lru_cache(maxsize=None)(self._turn_kinds_uncached)
        ties = options.get("initiative_tie") or "higher_modifier"
        self.initiative_tie = ties
        self._initiative = lru_cache(maxsize=None)(partial(initiative_first, ties=ties))
        self._masks: dict[tuple, np.ndarray] = {}
        self._split = [split_action(i, self._decision_plans) for i in range(self.n_decisions)]
        self._ko = {(x, blood): State(phase=OVER, round=0, ending=1 + x + 2 * blood)
                    for x in (0, 1) for blood in (False, True)}
        self._draw = State(phase=OVER, round=0, ending=5)

    # -- metadata

    def _observation_bounds(self) -> tuple[tuple, tuple, tuple]:
        top = max(self.start_hp.values())
        last_round = max(self.max_rounds, 1)
        fields = [("phase", 0, 3), ("round", 1, last_round + 1), ("own_hp", 0, top),
                  ("opp_hp", 0, top), ("own_frightened", 0, self.max_frightened),
                  ("opp_frightened", 0, self.max_frightened), ("own_demoralized_him", 0, 1),
                  ("opp_demoralized_me", 0, 1), ("own_off_guard", 0, 3),
                  ("opp_off_guard", 0, 3), ("own_shield", 0, 2), ("opp_shield", 0, 2),
                  ("own_skill", 0, 2), ("opp_skill", 0, 2),
                  ("own_plan", 0, self.n_plans - 1), ("opp_plan", 0, self.n_plans - 1),
                  ("own_first", 0, 1), ("own_reaction_spent", 0, 1),
                  ("opp_reaction_spent", 0, 1), ("ending", 0, len(ENDINGS) - 1)]
        if self.each_strike:
            longest = max(len(steps) for steps in self._plan_steps)
            fields += [("step", 0, longest), ("pending", 0, 3),
                       *((name, 0, 1) for name in MIDTURN_FIELDS[2:])]
        return (tuple(f[0] for f in fields), tuple(f[1] for f in fields),
                tuple(f[2] for f in fields))

    # -- the rules

    def start(self) -> State:
        return State(hp_a=self.start_hp["a"], hp_b=self.start_hp["b"],
                     round=1 if self.max_rounds else 1)

    def initial_outcomes(self) -> list[tuple[float, State]]:
        return [(1.0, self.start())]

    def is_terminal(self, state: State) -> bool:
        return state.phase == OVER

    def payoff(self, state: State) -> float:
        return PAYOFF[state.ending]

    def starts_unit(self, state: State) -> bool:
        """A round opens where both choose their skill, order and plan."""
        return state.phase == DECIDE

    def result(self, state: State) -> str:
        return ENDINGS[state.ending] if state.phase == OVER else "the duel goes on"

    def legal_plans(self, state: State, side: str) -> list[int]:
        """The plans ``side`` may commit to: shield plans need a shield, Feint plans
        training in Deception, Demoralize plans an opponent not yet immune."""
        me = self.fighters[side]
        immune = state.dem_a if side == "a" else state.dem_b
        legal = []
        for index, steps in enumerate(self._plan_steps):
            if ("shield" in steps and not me.shield) or (
                    "feint" in steps and not me.trained[DECEPTION]) or (
                    "demoralize" in steps and immune):
                continue
            legal.append(index)
        return legal

    def legal_mask(self, state: State, player: str) -> np.ndarray:
        if state.phase == OVER:
            return np.zeros(len(self.action_names), bool)
        if state.phase != DECIDE:
            if state.step:  # a choice within a turn played Strike by Strike
                if self.choosing(state) == player:
                    return self._cached_mask(("reaction",), lambda: self.reaction_actions)
                return self._wait_mask.copy()
            if self.per_turn and self.acting(state) == player:
                return self._cached_mask(("turn", player, state[DEM_AT + "ab".index(player)]),
                                         lambda: self._plan_actions(state, player))
            return self._wait_mask.copy()
        return self._cached_mask(("decide", player, state[DEM_AT + "ab".index(player)]),
                                 lambda: self._decision_actions(state, player))

    def _cached_mask(self, key: tuple, actions) -> np.ndarray:
        """The mask of ``actions()``, computed once per key (the side and his immunity
        flag: all a mask depends on)."""
        mask = self._masks.get(key)
        if mask is None:
            mask = np.zeros(len(self.action_names), bool)
            mask[actions()] = True
            self._masks[key] = mask
        return mask.copy()

    def _decision_actions(self, state: State, player: str) -> list[int]:
        """Every skill and order, each with every legal plan when plans are committed."""
        plans = [0] if self.per_turn else self.legal_plans(state, player)
        return [(skill * len(ORDERS) + order) * self._decision_plans + plan
                for plan in plans for skill in range(len(SKILLS)) for order in range(len(ORDERS))]

    def _plan_actions(self, state: State, player: str) -> list[int]:
        """The plan actions of the duellist whose turn opens (per turn)."""
        return [self.n_decisions + plan for plan in self.legal_plans(state, player)]

    def _turn_pairs(self, state: State) -> list[tuple[int, int]]:
        """The joint actions of a turn: both wait; per turn, the actor's plans; within a
        turn played Strike by Strike, the chooser's spending or keeping his reaction."""
        if not self.per_turn:
            return [(self.wait, self.wait)]
        if state.step:
            chooser, plans = self.choosing(state), self.reaction_actions
        else:
            chooser, plans = self.acting(state), self._plan_actions(state, self.acting(state))
        if chooser == "a":
            return [(plan, self.wait) for plan in plans]
        return [(self.wait, plan) for plan in plans]

    def _planned(self, state: State, action_a: int, action_b: int) -> State:
        """The turn's state with its plan: per turn, the one its actor just chose."""
        if not self.per_turn:
            return state
        x = _actor(state)
        values = list(state)
        values[PLAN_AT + x] = (action_a, action_b)[x] - self.n_decisions
        return State._make(values)

    def check_actions(self, state: State, action_a: int, action_b: int) -> None:
        for side, action in (("a", action_a), ("b", action_b)):
            mask = self.legal_mask(state, side)
            if not (0 <= int(action) < len(mask)) or not mask[int(action)]:
                allowed = [self.action_names[i] for i in np.flatnonzero(mask)]
                raise InputError(f"illegal action {action!r} for {side} in phase "
                                 f"{PHASES[state.phase]}; allowed: {', '.join(allowed)}")

    def outcomes(self, state: State, action_a: int, action_b: int) -> list[tuple[float, State]]:
        self.check_actions(state, action_a, action_b)
        return self._outcomes(state, int(action_a), int(action_b))

    def _outcomes(self, state: State, action_a: int, action_b: int):
        if state.phase == DECIDE:
            return self._decide(state, action_a, action_b)
        return self._turn_outcomes(state, action_a, action_b)

    def _turn_outcomes(self, state: State, action_a: int, action_b: int):
        if self.each_strike:
            return self._strike_outcomes(state, action_a, action_b)
        return self._play_turn(self._planned(state, action_a, action_b))

    def transitions(self, state: State):
        """Every legal joint action with its outcomes (the solver's fast path)."""
        if state.phase != DECIDE:
            return [(i, j, self._turn_outcomes(state, i, j))
                    for i, j in self._turn_pairs(state)]
        legal_a = np.flatnonzero(self.legal_mask(state, "a")).tolist()
        legal_b = np.flatnonzero(self.legal_mask(state, "b")).tolist()
        made: dict[tuple, State] = {}  # the phase-1 states, shared by the order choices
        return [(i, j, self._decide(state, i, j, made)) for i in legal_a for j in legal_b]

    def initiative(self, state: State, skill_a: int, skill_b: int) -> float:
        """P(A wins initiative) with these skills (frightened lowers the roll)."""
        a, b = self.fighters["a"], self.fighters["b"]
        return self._initiative(a.skill_mod[skill_a] - state.fr_a,
                                b.skill_mod[skill_b] - state.fr_b)

    def first_probability(self, state: State, action_a: int, action_b: int) -> float:
        """P(A acts first): he wins and wants to, or B wins and wants to act second."""
        skill_a, order_a, _ = self._split[action_a]
        skill_b, order_b, _ = self._split[action_b]
        win = self.initiative(state, skill_a, skill_b)
        return win * (order_a == 0) + (1 - win) * (order_b == 1)

    def _decide(self, state: State, action_a: int, action_b: int,
                made: dict | None = None) -> list[tuple[float, State]]:
        made = {} if made is None else made
        skill_a, _, plan_a = self._split[action_a]
        skill_b, _, plan_b = self._split[action_b]
        p_a = self.first_probability(state, action_a, action_b)
        out = []
        for p, first in ((p_a, 0), (1 - p_a, 1)):
            if p <= 0:
                continue
            key = (skill_a, skill_b, plan_a, plan_b, first)
            nxt = made.get(key)
            if nxt is None:
                values = list(state)
                values[0] = FIRST
                values[12:17] = key
                nxt = made[key] = State._make(values)
            out.append((p, nxt))
        return out

    def acting(self, state: State) -> str:
        """Who plays the turn of this phase."""
        a_first = state.first == 0
        return "a" if (state.phase == FIRST) == a_first else "b"

    def choosing(self, state: State) -> str:
        """Who makes the choice pending within a turn played Strike by Strike: the actor
        before his Strike, his target after an exact success against him."""
        actor = self.acting(state)
        if state.pending == ACTOR_BEFORE_STRIKE:
            return actor
        return "b" if actor == "a" else "a"

    def _play_turn(self, state: State) -> list[tuple[float, State]]:
        x, base, results = self._turn_results(state, state[HP_AT + 1 - _actor(state)])
        if base is None:
            return self._ended(state, x, results)
        out: dict[State, float] = {}
        for p, dmg, values in results:
            nxt = self._land(state, x, dmg, values)
            out[nxt] = out.get(nxt, 0.0) + p
        return [(p, s) for s, p in out.items() if p > 0]

    def _land(self, state: State, x: int, dmg: int, values: list | None) -> State:
        """The state after x's turn dealt ``dmg``: a knockout, the draw at the round
        limit (``values`` None), or ``values`` with the target's hit points lowered."""
        hp = HP_AT + 1 - x
        if dmg >= state[hp]:
            return self._ko[(x, self.first_blood)]
        if values is None:
            return self._draw
        values[hp] = state[hp] - dmg
        return State._make(values)

    def _context(self, state: State, cap: int) -> tuple[int, TurnContext]:
        x = _actor(state)
        y = 1 - x
        return x, TurnContext(
            plan=state[PLAN_AT + x], actor_skill=state[SKILL_AT + x],
            target_skill=state[SKILL_AT + y], actor_frightened=state[FR_AT + x],
            target_frightened=state[FR_AT + y], target_off_guard=state[OG_AT + y] != 0,
            target_shield=bool(state[SH_AT + y]), cap=cap,
            target_reaction=not state[SPENT_AT + y], target_blocks=state[SH_AT + y] == 2)

    def _turn_results(self, state: State, cap: int):
        """The turn of this phase before hit points are applied: the actor x, the next
        state's values common to every result (None when the round limit ends the duel)
        and every result ``(p, damage to the target capped at cap, next values)``."""
        x, ctx = self._context(state, cap)
        base = self._after_any_turn(state, x)
        results = [(p, result[0], self._result_values(state, x, base, result[1:]))
                   for p, result in self._turn("ab"[x], ctx)]
        return x, base, results

    def _after_any_turn(self, state: State, x: int) -> list | None:
        """What the turn changes whatever the dice: the actor's frightened decays, his
        shield is up if he raised it, Demoralize leaves its immunity; then the next
        phase (None when the round limit ends the duel). ``cores.py`` does the same with
        arrays (the conformance suite compares the two)."""
        steps = self._plan_steps[state[PLAN_AT + x]]
        base = list(state)
        # his reaction came back as his turn began, unless it comes back each round
        base[SPENT_AT + x] = int(self.rules.refresh_each_turn and spends_own_reaction(
            self.fighters["ab"[x]], steps, state[SKILL_AT + x], self.rules))
        base[FR_AT + x] = max(0, state[FR_AT + x] - 1)
        base[SH_AT + x] = shield_state(steps)
        base[DEM_AT + x] = state[DEM_AT + x] | ("demoralize" in steps)
        if state.phase == FIRST:
            base[0] = SECOND
            base[PLAN_AT + x] = 0
            return base
        return self._next_round(base)

    def _result_values(self, state: State, x: int, base: list | None,
                       kind: tuple) -> list | None:
        """The next state's values after one kind of turn result (``Turn.kinds``; hit
        points not yet lowered); the actor's own "until my next turn" off-guard ended
        when the turn began. ``cores.py`` does the same with arrays."""
        if base is None:
            return None
        fright, linger, crit, fumble, spent = kind
        y = 1 - x
        values = base.copy()
        values[FR_AT + y] = fright
        values[SPENT_AT + y] = state[SPENT_AT + y] | spent
        values[OG_AT + y] = 2 if crit else (state[OG_AT + y] & 1) | linger
        values[OG_AT + x] = (state[OG_AT + x] & 2) | fumble
        return values

    # -- a fast draw (GameInfo.fast_paths "sample")

    def sample(self, state: State, action_a: int, action_b: int,
               rng: np.random.Generator) -> State:
        """One draw from ``outcomes`` without listing them: the initiative, or one
        result of the turn's exact distribution."""
        self.check_actions(state, action_a, action_b)
        if state.phase == DECIDE:
            first = int(rng.random() >= self.first_probability(state, action_a, action_b))
            skill_a, _, plan_a = self._split[action_a]
            skill_b, _, plan_b = self._split[action_b]
            return state._replace(phase=FIRST, skill_a=skill_a, skill_b=skill_b,
                                  plan_a=plan_a, plan_b=plan_b, first=first)
        state = self._planned(state, action_a, action_b)
        x, ctx = self._context(state, state[HP_AT + 1 - _actor(state)])
        results = self._turn("ab"[x], ctx)
        drawn = int(np.searchsorted(self._cumulative("ab"[x], ctx), rng.random(),
                                    side="right"))
        result = results[min(drawn, len(results) - 1)][1]
        values = self._result_values(state, x, self._after_any_turn(state, x), result[1:])
        return self._land(state, x, result[0], values)

    def _cumulative_uncached(self, actor: str, ctx: TurnContext) -> np.ndarray:
        weights = np.fromiter((p for p, _ in self._turn(actor, ctx)), dtype=float)
        return np.cumsum(weights) / weights.sum()

    # -- hit points as counters (GameInfo.fast_paths "counters", solver.counters)

    def counters(self, state: State) -> tuple[int, int]:
        """The hit points of A and B: they only fall, by what a turn deals, whatever
        they are; a duellist at 0 is knocked out."""
        return state.hp_a, state.hp_b

    def core(self, state: State) -> State:
        """``state`` without its hit points."""
        return state._replace(hp_a=0, hp_b=0)

    def attach(self, core: State, counters) -> State:
        return core._replace(hp_a=int(counters[0]), hp_b=int(counters[1]))

    def observe_counters(self, core: State, points: np.ndarray, player: str) -> np.ndarray:
        """What ``player`` sees at ``core`` holding each row of hit points ``points``:
        the same but for his own and his opponent's hit points."""
        points = np.asarray(points, dtype=np.int64)
        seen = np.repeat(np.asarray([self.observe(self.attach(core, points[0]), player)],
                                    dtype=np.int64), len(points), axis=0)
        mine = 0 if player == "a" else 1
        seen[:, OWN_HP_FIELD], seen[:, OPP_HP_FIELD] = points[:, mine], points[:, 1 - mine]
        return seen

    def depleted(self, counter: int) -> State:
        """The end when ``counter`` (0: A's hit points, 1: B's) reaches 0."""
        return self._ko[(1 - counter, self.first_blood)]

    def core_transitions(self, core: State):
        """Every legal joint action at ``core`` with ``(p, next core, (damage to A,
        damage to B))``; damage is capped at the target's starting hit points."""
        if core.phase == DECIDE:
            return [(i, j, [(p, nxt, (0, 0)) for p, nxt in outcomes])
                    for i, j, outcomes in self.transitions(core)]
        if self.each_strike:
            return [(i, j, self._strike_core_outcomes(core, i, j))
                    for i, j in self._turn_pairs(core)]
        return [(i, j, self._core_turn(self._planned(core, i, j)))
                for i, j in self._turn_pairs(core)]

    def _core_turn(self, core: State) -> list:
        """A turn's outcomes at ``core`` (its plan in it), by kind of result."""
        x, ctx = self._context(core, self.start_hp["ab"[1 - _actor(core)]])
        base = self._after_any_turn(core, x)
        turn = self._turn_kinds(x, ctx)
        # one next core per kind of result (everything but the damage)
        made = [State._make(self._result_values(core, x, base, kind)) for kind in turn.kinds]
        damage = turn.damage.tolist()
        lowered = [(0, d) for d in damage] if x == 0 else [(d, 0) for d in damage]
        return list(zip(turn.chance.tolist(), map(made.__getitem__, turn.kind.tolist()),
                        lowered, strict=True))

    def cores(self):
        """Every core at once, as ``solver.counters.walk`` finds them (``cores.py``)."""
        from .cores import core_walk
        return core_walk(self)

    def _turn_kinds_uncached(self, x: int, ctx: TurnContext) -> Turn:
        found = turn_kinds(self.fighters["ab"[x]], self.fighters["ab"[1 - x]], ctx, self.rules)
        return Turn([kind for kind, _, _ in found],
                    np.repeat(np.arange(len(found)), [len(d) for _, d, _ in found]),
                    np.concatenate([d for _, d, _ in found]),
                    np.concatenate([c for _, _, c in found]))

    def _ended(self, state: State, x: int, results: list) -> list[tuple[float, State]]:
        """The last turn of the last round: a knockout, or a draw at the round limit."""
        win = self._ko[(x, self.first_blood)]
        ko = sum(p for p, dmg, _ in results if dmg >= state[HP_AT + 1 - x])
        out = [(ko, win), (1 - ko, self._draw)]
        return [(p, s) for p, s in out if p > 0]

    def _turn_uncached(self, actor: str, ctx: TurnContext):
        target = "b" if actor == "a" else "a"
        return resolve_turn(self.fighters[actor], self.fighters[target], ctx, self.rules)

    def _next_round(self, values: list) -> list | None:
        """The values of the next round's decision state, None at the round limit."""
        if self.max_rounds and values[1] >= self.max_rounds:
            return None
        values[0] = DECIDE
        values[12:17] = (0, 0, 0, 0, 0)
        values[1] = values[1] + 1 if self.max_rounds else 1
        return values

    # -- a turn played Strike by Strike (reaction_choice = "each_strike")

    def _strike_outcomes(self, state: State, action_a: int, action_b: int):
        """The outcomes of a turn's plan chosen, or of a choice within it: to the turn's
        next pause or its end, the hits before it dealt."""
        x, found = self._strike_results(state, action_a, action_b,
                                        state[HP_AT + 1 - _actor(state)])
        out: dict[State, float] = {}
        for damage, chance, values in found:
            for dmg, p in zip(damage.tolist(), chance.tolist(), strict=True):
                nxt = self._land(state, x, dmg, None if values is None else values.copy())
                out[nxt] = out.get(nxt, 0.0) + p
        return [(p, s) for s, p in out.items() if p > 0]

    def _strike_core_outcomes(self, core: State, action_a: int, action_b: int) -> list:
        """``_strike_outcomes`` at ``core`` as ``core_transitions`` gives them."""
        x, found = self._strike_results(core, action_a, action_b,
                                        self.start_hp["ab"[1 - _actor(core)]])
        out = []
        for damage, chance, values in found:
            nxt = State._make(values)
            out += [(p, nxt, (0, d) if x == 0 else (d, 0))
                    for d, p in zip(damage.tolist(), chance.tolist(), strict=True)]
        return out

    def _strike_results(self, state: State, action_a: int, action_b: int, cap: int):
        """(the actor, [(damages, their chances, the next values: None at the round
        limit's end)]) of the walk from ``state``'s turn start or pause."""
        if state.step:
            chooser = "ab".index(self.choosing(state))
            spend = self.info.action_names[(action_a, action_b)[chooser]] == SPEND
        else:
            state, spend = self._planned(state, action_a, action_b), None
        x, ctx = self._context(state, cap)
        actor, target = self.fighters["ab"[x]], self.fighters["ab"[1 - x]]
        key, ready, _, _, _ = turn_start(actor, target, ctx, self.rules)
        if state.step:
            index = state.step - 1
            _, _, feint_next, crit, linger, fumble, still, reacted = state[MIDTURN_AT:]
            key = ((), state[FR_AT + 1 - x], bool(feint_next), bool(crit), bool(linger),
                   bool(fumble), bool(still), strikes_made(self._plan_steps[ctx.plan], index))
            start = Stop(state.pending, index, key, bool(reacted))
        else:
            start = Stop(0, 0, key, False)
        return x, [(damage, chance, self._stop_values(state, x, stop, ready))
                   for stop, damage, chance in self._walk(x, ctx, start, spend)]

    def _walk_uncached(self, x: int, ctx: TurnContext, start: Stop, spend: bool | None):
        actor, target = self.fighters["ab"[x]], self.fighters["ab"[1 - x]]
        _, _, press, sense, _ = turn_start(actor, target, ctx, self.rules)
        return walk(actor, target, ctx, self.rules, start, press, sense, spend)

    def _stop_values(self, state: State, x: int, stop: Stop, ready: bool) -> list | None:
        """The next values (hit points not yet lowered) at a walk's stop: a pause keeps
        the turn's progress, its end is the turn's result (``ready``: the target's
        reaction was ready as the turn began)."""
        y = 1 - x
        if stop.pending:
            values = list(state)
            _, fright, feint_next, crit, linger, fumble, still, _ = stop.key
            values[FR_AT + y] = fright
            values[MIDTURN_AT:] = [stop.index + 1, stop.pending, *map(int, (
                feint_next, crit, linger, fumble, still, stop.reacted))]
            return values
        values = self._result_values(state, x, self._after_any_turn(state, x),
                                     turn_kind(stop.key, ready, self.rules))
        if values is not None:
            # his reaction is spent only if he spent it on one of his Strikes
            values[SPENT_AT + x] = int(self.rules.refresh_each_turn and stop.reacted)
            values[MIDTURN_AT:] = [0] * len(MIDTURN_FIELDS)
        return values

    # -- observations

    def observe(self, state: State, player: str) -> tuple[int, ...]:
        me, him = (("a", "b") if player == "a" else ("b", "a"))
        get = state._asdict()
        acting_first = int((state.first == 0) == (player == "a")) if state.phase in (
            FIRST, SECOND) else 0
        return (state.phase, state.round if state.phase != OVER else 1,
                get[f"hp_{me}"], get[f"hp_{him}"], get[f"fr_{me}"], get[f"fr_{him}"],
                get[f"dem_{me}"], get[f"dem_{him}"], get[f"og_{me}"], get[f"og_{him}"],
                get[f"sh_{me}"], get[f"sh_{him}"], get[f"skill_{me}"], get[f"skill_{him}"],
                get[f"plan_{me}"], get[f"plan_{him}"], acting_first, get[f"spent_{me}"],
                get[f"spent_{him}"], state.ending,
                *(state[MIDTURN_AT:] if self.each_strike else ()))
