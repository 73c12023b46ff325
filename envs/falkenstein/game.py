"""Castle Falkenstein's exchange: card pairs, the Rest obligation, the damage grid,
retreats, corps-à-corps and how a duel ends. Rules only; words are in ``words.py``."""

from __future__ import annotations

import numpy as np

from solver.errors import InputError
from solver.game import DeclaredGame, GameInfo, sample_outcome

from .ruleset import EXCHANGES_PER_ROUND, Rules
from .state import (
    ACTIONS,
    ATTACKS,
    DD,
    DEFENSES,
    END,
    ENDINGS,
    INDEX,
    OUT,
    OWED_AFTER,
    PAYOFF,
    RESTS,
    SEVERITY,
    WOUND_INDEX,
    Exchange,
    State,
    checked_player,
    win,
)
from .steps import (
    CHOICES,
    MOVE,
    MOVES,
    WAIT,
    choosers,
    circle_chance,
    pending,
    pending_cards,
    recentred,
    step_actions,
)
from .words import FalkensteinWords

#: the cached effect of an exchange that waits for an attacker's choice
PENDING = "pending"


class FalkensteinGame(FalkensteinWords, DeclaredGame):
    """The card duel as a simultaneous-move game (``solver.game.Game``)."""

    endings = ENDINGS

    def __init__(self, rules: Rules, options: dict, ruleset_digest: str):
        self.rules = rules
        self.sheets = {"a": options["a"], "b": options["b"]}
        self._setup_rules(options)
        self.info = self._declare(options, ruleset_digest)

    # -- precomputed tables (``outcomes`` only looks things up)

    def _setup_rules(self, opts: dict) -> None:
        rules = self.rules
        self.sabre_uses_physique = opts["sabre_uses_physique"]
        self.discipline_name = opts["discipline"]
        self.discipline = rules.disciplines[self.discipline_name]
        self._check_weapons()
        self.convention = opts["convention"]
        self.max_rounds = opts["max_rounds"]
        self.field_m = opts["field_m"]
        self.edge = opts["edge"]
        self.corps_a_corps_tie = opts["corps_a_corps_tie"]
        self.ledge = opts["ledge"]
        # a jump at the ledge and a circle are feats of footwork (Athletics)
        self._footwork_chance = {
            side: rules.feat_chance[self._level_of(side, rules.footwork_ability)]
            for side in ("a", "b")}
        self.disarm = opts["disarm"]
        # circling changes nothing where positions do not count
        self.movement = opts["movement"] if self.discipline.field and self.edge != "open" \
            else "none"
        self.actions = step_actions(self.disarm, self.movement)
        self._room = self.field_m - 2
        self._hits = tuple(tuple(max(0, ATTACKS[x] - DEFENSES[y]) for y in range(6))
                           for x in range(6))
        self._sheet_level = {side: self._level_of(side, self.discipline.ability)
                             for side in ("a", "b")}
        self._physique = {side: self._level_of(side, "physique") for side in ("a", "b")}
        strength = self.discipline.corps_a_corps
        self._strength = {side: self._level_of(side, strength) for side in ("a", "b")} \
            if strength else None
        self._row = {side: self._damage_row(side) for side in ("a", "b")}
        self._wounds = {side: self._wound_values(side) for side in ("a", "b")}
        self._legal = self._legal_table()
        self._wait_only = self._mask(WAIT)
        self._choice_mask = self._mask(*CHOICES)
        self._move_mask = self._mask(*MOVES)
        # per exchange: its (probability, back_a, health_a, health_b, ending) or PENDING
        self._effects: dict[tuple, tuple[tuple[float, int, int, int, int], ...] | str] = {}
        self._legal_indices = {key: np.flatnonzero(mask).tolist()
                               for key, mask in self._legal.items()}

    def _level_of(self, side: str, ability: str) -> int:
        return self.rules.aliases[self.sheets[side][ability].lower()]

    def _check_weapons(self) -> None:
        if self.discipline.wounds != "weapon":
            return
        weapons = {side: self.sheets[side]["weapon"] for side in ("a", "b")}
        sizes = {side: self.rules.weapons[w].size for side, w in weapons.items()}
        if sizes["a"] != sizes["b"]:
            raise InputError(
                f"not a duel: A's {weapons['a']} ({sizes['a']}) against B's {weapons['b']} "
                f"({sizes['b']}); a duel is fought with weapons of one size class")

    def _damage_row(self, side: str) -> int | None:
        """The attacker's fixed grid row, or None when it is his level."""
        weapon = self.rules.weapons[self.sheets[side]["weapon"]]
        if (self.sabre_uses_physique and weapon.uses_physique
                and self.discipline.wounds == "weapon"):
            return self._physique[side]
        return None

    def _wound_values(self, side: str) -> tuple[tuple[int, int, int], ...]:
        """The wound values of ``side``'s touches, by his level in the discipline's
        ability (only talent wounds depend on it)."""
        if self.discipline.wounds == "talent":
            return self.rules.talent_wounds
        if self.discipline.wounds == "weapon":
            values = self.rules.weapons[self.sheets[side]["weapon"]].wounds
        elif self.discipline.wounds == "blow":
            values = self.rules.blow_wounds[self._physique[side]]
        else:
            values = (0, 0, 0)
        return (values,) * len(self.rules.ladder)

    def _legal_table(self) -> dict[tuple[int, int], np.ndarray]:
        table = {}
        steps = len(self.actions) - len(ACTIONS)  # no step action is legal with the cards
        for exchange in range(1, EXCHANGES_PER_ROUND + 1):
            left = EXCHANGES_PER_ROUND - exchange
            for owed in range(2 * EXCHANGES_PER_ROUND + 1):
                mask = np.array([max(0, owed - RESTS[x]) <= 2 * left for x in range(6)]
                                + [False] * steps)
                table[owed, exchange] = mask
        return table

    def _mask(self, *names: str) -> np.ndarray:
        return np.array([name in names for name in self.actions])

    def _declare(self, options: dict, ruleset_digest: str) -> GameInfo:
        most_owed = max(self.rules.rests_required)
        top_health = max(max(max(row) for row in self.rules.health),
                         self.sheets["a"]["health"], self.sheets["b"]["health"])
        worst_wound = max(self._worst_wound("a"), self._worst_wound("b"))
        top_level = len(self.rules.ladder) - 1
        fields = [("round", 1, self.max_rounds), ("exchange", 1, EXCHANGES_PER_ROUND),
                  ("own_owed", 0, most_owed), ("opp_owed", 0, most_owed),
                  ("own_back", 0, self._room), ("opp_back", 0, self._room),
                  ("own_health", -worst_wound, top_health),
                  ("opp_health", -worst_wound, top_health),
                  ("own_level", 0, top_level), ("opp_level", 0, top_level)]
        if self.actions != ACTIONS:
            fields.append(("step", 0, MOVE))
        fields.append(("ending", 0, len(ENDINGS) - 1))
        self._health_high = top_health
        return GameInfo(
            system="falkenstein", action_names=self.actions,
            observation_fields=tuple(f[0] for f in fields),
            observation_low=tuple(f[1] for f in fields),
            observation_high=tuple(f[2] for f in fields),
            public_information=True, payoff_bounds=(-1.0, 1.0), may_cycle=False,
            options=options, ruleset_hash=ruleset_digest,
            fast_paths=frozenset({"sample", "transitions"}), length_unit="exchange")

    def _worst_wound(self, side: str) -> int:
        return max(max(values) for values in self._wounds[side])

    # -- the protocol

    def initial_outcomes(self) -> list[tuple[float, State]]:
        level_a, level_b = self._sheet_level["a"], self._sheet_level["b"]
        required = self.rules.rests_required
        return [(1.0, State(1, 1, required[level_a], required[level_b], self._room // 2,
                            self.sheets["a"]["health"], self.sheets["b"]["health"],
                            level_a, level_b))]

    def legal_mask(self, state: State, player: str) -> np.ndarray:
        """Legal iff the Rests still owed after the action fit in the exchanges left."""
        side = checked_player(player)
        if state.step:
            return self._step_mask(state, side).copy()
        owed = state.owed_a if side == "a" else state.owed_b
        return self._legal[owed, state.exchange].copy()

    def _step_mask(self, state: State, side: str) -> np.ndarray:
        if state.step == MOVE:
            return self._move_mask
        ex = self.resolve(state, *pending_cards(state.step))
        chooses = choosers(ex.effect_a, ex.effect_b)[side == "b"]
        return self._choice_mask if chooses else self._wait_only

    def outcomes(self, state: State, action_a: int, action_b: int) -> list[tuple[float, State]]:
        """The cards decide the exchange; only a jump at the ledge is left to chance (and,
        between exchanges, a circle)."""
        self._check_actions(state, action_a, action_b)
        if state.step:
            return self._step_outcomes(state, action_a, action_b)
        return self._next(state, action_a, action_b)

    def _step_outcomes(self, state: State, action_a: int,
                       action_b: int) -> list[tuple[float, State]]:
        if state.step == MOVE:
            return self._moved(state, self.actions[action_a], self.actions[action_b])
        cards = pending_cards(state.step)
        before = state._replace(step=0)
        return [(p, self._advance(before, *cards, *self._settle(before, ex)))
                for p, ex in self._chosen(before, cards, action_a, action_b)]

    def _chosen(self, state: State, cards: tuple[int, int], action_a: int,
                action_b: int) -> list[tuple[float, Exchange]]:
        """The pending exchange with each attacker's choice applied, then its jumps."""
        ex = self.resolve(state, *cards)
        for foe, action in (("b", action_a), ("a", action_b)):
            if self.actions[action] == "disarm":
                ex = ex._replace(**{f"effect_{foe}": "disarm", f"move_{foe}": 0})
        return self._jumps(state, ex)

    def _moved(self, state: State, move_a: str, move_b: str) -> list[tuple[float, State]]:
        """The movement between exchanges: a circle may re-centre the pair."""
        ready = state._replace(step=0)
        centred = ready._replace(back_a=recentred(state.back_a, self._room))
        chance = circle_chance(move_a, move_b, self._footwork_chance,
                               {"a": self.rules.feat_chance[state.level_a],
                                "b": self.rules.feat_chance[state.level_b]})
        if centred == ready or chance == 0.0:
            return [(1.0, ready)]
        if chance == 1.0:
            return [(1.0, centred)]
        return [(chance, centred), (1.0 - chance, ready)]

    def transitions(self, state: State) -> list[tuple[int, int, list[tuple[float, State]]]]:
        """Every legal joint action with its outcomes, in one call (the solver's fast
        path: the same as ``outcomes`` on each legal pair, without re-checking them)."""
        if state.step:
            legal_a, legal_b = (np.flatnonzero(self._step_mask(state, side)).tolist()
                                for side in ("a", "b"))
            return [(i, j, self._step_outcomes(state, i, j)) for i in legal_a for j in legal_b]
        legal_a = self._legal_indices[state.owed_a, state.exchange]
        legal_b = self._legal_indices[state.owed_b, state.exchange]
        after = self._next
        return [(i, j, after(state, i, j)) for i in legal_a for j in legal_b]

    def sample(self, state: State, action_a: int, action_b: int,
               rng: np.random.Generator | None = None) -> State:
        outcomes = self.outcomes(state, action_a, action_b)
        if len(outcomes) == 1:
            return outcomes[0][1]
        return sample_outcome(outcomes, rng if rng is not None else np.random.default_rng())

    def starts_unit(self, state: State) -> bool:
        """Every moment of the duel before its cards are played starts an exchange."""
        return not self.is_terminal(state) and not state.step

    def is_terminal(self, state: State) -> bool:
        return state.ending != 0

    def payoff(self, state: State) -> float:
        return PAYOFF[state.ending]

    def result(self, state: State) -> str:
        return ENDINGS[state.ending]

    def observe(self, state: State, player: str) -> tuple[int, ...]:
        """The state from ``player``'s side (hidden levels hide the foe's level and the
        Rests he owes: ``[hidden_sheet]`` in the ruleset, ``envs.hidden``)."""
        own, opp = ("a", "b") if checked_player(player) == "a" else ("b", "a")
        view = self.state_fields(state)
        observation = [state.round, state.exchange, view[f"owed_{own}"], view[f"owed_{opp}"],
                       view[f"back_{own}"], view[f"back_{opp}"], view[f"health_{own}"],
                       view[f"health_{opp}"], view[f"level_{own}"], view[f"level_{opp}"]]
        if self.actions != ACTIONS:
            observation.append(state.step)
        observation.append(state.ending)
        return tuple(observation)

    # -- resolving an exchange

    def _check_actions(self, state: State, action_a: int, action_b: int) -> None:
        if state.step and not state.ending:
            return self._check_step_actions(state, action_a, action_b)
        legal = self._legal
        if (not state.ending and isinstance(action_a, INDEX) and isinstance(action_b, INDEX)
                and 0 <= action_a < 6 and 0 <= action_b < 6
                and legal[state.owed_a, state.exchange][action_a]
                and legal[state.owed_b, state.exchange][action_b]):
            return
        if state.ending:
            raise InputError(f"the duel is over ({ENDINGS[state.ending]}); no more exchanges")
        for side, action, owed in (("A", action_a, state.owed_a), ("B", action_b, state.owed_b)):
            mask = self._legal[owed, state.exchange]
            if not (isinstance(action, int | np.integer) and 0 <= action < len(ACTIONS)
                    and mask[action]):
                name = ACTIONS[action] if isinstance(action, int | np.integer) and 0 <= action < 6 \
                    else repr(action)
                legal = ", ".join(a for a, ok in zip(ACTIONS, mask, strict=True) if ok)
                raise InputError(f"illegal action {name} for {side} (owes {owed} Rests at "
                                 f"exchange {state.exchange}); legal: {legal}")

    def _check_step_actions(self, state: State, action_a: int, action_b: int) -> None:
        for side, action in (("a", action_a), ("b", action_b)):
            mask = self._step_mask(state, side)
            if not (isinstance(action, INDEX) and 0 <= action < len(self.actions)
                    and mask[action]):
                legal = ", ".join(a for a, ok in zip(self.actions, mask, strict=True) if ok)
                raise InputError(f"illegal action {action!r} for {side.upper()} at this "
                                 f"step; legal: {legal}")

    def _next(self, state: State, action_a: int, action_b: int) -> list[tuple[float, State]]:
        # an exchange's effect depends on neither the round nor the Rests owed, so the
        # solver's thousands of calls share a few hundred resolutions
        key = (state.back_a, state.health_a, state.health_b, state.level_a, state.level_b,
               action_a, action_b)
        effects = self._effects.get(key)
        if effects is None:
            ex = self.resolve(state, action_a, action_b)
            effects = self._effects[key] = PENDING if self._pending(ex) else tuple(
                (p, *self._settle(state, ex)) for p, ex in self._jumps(state, ex))
        if effects is PENDING:
            return [(1.0, state._replace(step=pending(action_a, action_b)))]
        return [(p, self._advance(state, action_a, action_b, *effect))
                for p, *effect in effects]

    def _pending(self, ex: Exchange) -> bool:
        """Whether an attacker now chooses between a partial wound and a disarm."""
        return self.disarm == "attacker_chooses" and any(choosers(ex.effect_a, ex.effect_b))

    def resolved_as(self, state: State, action_a: int, action_b: int,
                    next_state: State) -> Exchange:
        """The exchange as it played out into ``next_state`` (which jumps succeeded, what
        the attackers chose); at the cards of a pending choice, the exchange so far."""
        if state.step:
            cards = pending_cards(state.step)
            before = state._replace(step=0)
            branches = self._chosen(before, cards, action_a, action_b)
        else:
            cards = (action_a, action_b)
            before = state
            branches = self._jumps(state, self.resolve(state, *cards))
            if next_state.step and next_state.step != MOVE:
                return self.resolve(state, *cards)
        for _, ex in branches:
            if self._advance(before, *cards, *self._settle(before, ex)) == next_state:
                return ex
        raise InputError("that state does not follow from this exchange")

    def _jumps(self, state: State, ex: Exchange) -> list[tuple[float, Exchange]]:
        """With ``ledge=jump`` each fall is a feat: success (effect "jump") lands him on
        the other wall with 0 m behind him, failure is the fall."""
        outcomes = [(1.0, ex)]
        if self.ledge == "fall":
            return outcomes
        for side, back in (("a", state.back_a), ("b", self._room - state.back_a)):
            if getattr(ex, f"effect_{side}") != "fall":
                continue
            chance = self._footwork_chance[side]
            landed = {f"effect_{side}": "jump", f"move_{side}": back}
            outcomes = [branch for p, before in outcomes for branch in (
                (p * chance, before._replace(**landed)), (p * (1.0 - chance), before))]
        return [(p, ex) for p, ex in outcomes if p > 0]

    def _settle(self, state: State, ex: Exchange) -> tuple[int, int, int, int]:
        """Back of A, Health of A and B, and the ending after the exchange."""
        back_a = state.back_a if self.edge == "open" else state.back_a - ex.move_a + ex.move_b
        if self.convention == "first_blood":
            health_a, health_b = state.health_a, state.health_b
            ending = self._first_blood(ex.effect_a, ex.effect_b)
        else:
            health_a, status_a = self._take(state.health_a, ex.effect_a,
                                            self._wounds["b"][state.level_b])
            health_b, status_b = self._take(state.health_b, ex.effect_b,
                                            self._wounds["a"][state.level_a])
            ending = self._ended(status_a, status_b)
        return back_a, health_a, health_b, ending

    def resolve(self, state: State, action_a: int, action_b: int) -> Exchange:
        """Hits, grid letters and their effects, all from the positions before it."""
        hits_a = self._hits[action_b][action_a]
        hits_b = self._hits[action_a][action_b]
        back_a, back_b = state.back_a, self._room - state.back_a
        if hits_a or hits_b:
            letter_a = self._letter("b", state.level_b, state.level_a, hits_a)
            letter_b = self._letter("a", state.level_a, state.level_b, hits_b)
            effect_a, move_a = self._on_ground(letter_a, back_a)
            effect_b, move_b = self._on_ground(letter_b, back_b)
            return Exchange(hits_a, hits_b, letter_a, letter_b, effect_a, effect_b,
                             move_a, move_b)
        if action_a == action_b == DD and self.discipline.corps_a_corps:
            return self._corps_a_corps(back_a, back_b)
        return Exchange(0, 0, "", "", "", "", 0, 0)

    def _letter(self, attacker: str, attacker_level: int, defender_level: int,
                hits: int) -> str:
        if not hits:
            return ""
        row = self._row[attacker]
        return self.rules.grid[attacker_level if row is None else row][defender_level][hits - 1]

    def _on_ground(self, letter: str, back: int) -> tuple[str, int]:
        """A grid letter as it plays out with ``back`` metres behind its receiver."""
        if letter != "R":
            return letter, 0
        if not self.discipline.field:
            return "still", 0
        if back >= 2 or self.edge == "open":
            return "retreat", 2
        return ("wall", 0) if self.edge == "wall" else ("fall", 0)

    def _corps_a_corps(self, back_a: int, back_b: int) -> Exchange:
        strength_a, strength_b = self._strength["a"], self._strength["b"]
        push = 2
        if strength_a == strength_b:
            if self.corps_a_corps_tie == "close_again":  # they close again: nobody moves
                return Exchange(0, 0, "", "", "", "", 0, 0)
            # each drives the other back, as far as the ground behind him allows
            push = self.rules.corps_a_corps_tie_m
        effect_a = effect_b = ""
        move_a = move_b = 0
        if strength_a <= strength_b:
            effect_a, move_a = self._pushed(back_a, push)
        if strength_b <= strength_a:
            effect_b, move_b = self._pushed(back_b, push)
        return Exchange(0, 0, "", "", effect_a, effect_b, move_a, move_b)

    def _pushed(self, back: int, metres: int) -> tuple[str, int]:
        if self.edge == "open":
            return "push", metres
        if self.edge == "ledge" and back < metres:
            return "fall", 0
        return "push", min(metres, back)

    # -- how the duel ends

    def _first_blood(self, effect_a: str, effect_b: str) -> int:
        worst_a, worst_b = SEVERITY.get(effect_a, 0), SEVERITY.get(effect_b, 0)
        if not worst_a and not worst_b:  # a disarm is no blood: it counts only without any
            return self._disarms(effect_a == "disarm", effect_b == "disarm")
        if worst_a == worst_b:
            return END["draw: both out" if worst_a >= OUT else "draw: both wounded alike"]
        loser, effect = ("A", effect_a) if worst_a > worst_b else ("B", effect_b)
        cause = {"wall": "first blood at the wall", "HC": "out of combat",
                 "fall": "fall"}.get(effect, "first blood")
        return win(loser, cause)

    def _disarms(self, disarmed_a: bool, disarmed_b: bool) -> int:
        if disarmed_a and disarmed_b:
            return END["draw: both disarmed"]
        if disarmed_a or disarmed_b:
            return win("A" if disarmed_a else "B", "disarm")
        return 0

    def _take(self, health: int, effect: str, wounds: tuple[int, int, int]) -> tuple[int, str]:
        """Health after the effect and the status it leaves: "", "disarm" or a way out."""
        if effect in ("fall", "HC", "disarm"):
            return health, effect
        if effect not in WOUND_INDEX:
            return health, ""
        if (self.convention == "surrender" and self.disarm == "by_convention"
                and WOUND_INDEX[effect] == 0):
            return health, "disarm"
        health -= wounds[WOUND_INDEX[effect]]
        return health, "unconscious" if health < 0 else ""

    def _ended(self, status_a: str, status_b: str) -> int:
        if status_a and status_b:
            if "disarm" not in (status_a, status_b):
                return END["draw: both out"]
            both = status_a == status_b
            return END["draw: both disarmed" if both else "draw: disarmed and out"]
        if not status_a and not status_b:
            return 0
        loser, status = ("A", status_a) if status_a else ("B", status_b)
        cause = {"HC": "out of combat", "fall": "fall"}.get(status, status)
        return win(loser, cause)

    def _advance(self, state: State, action_a: int, action_b: int, back_a: int,
                 health_a: int, health_b: int, ending: int) -> State:
        owed_a = OWED_AFTER[state.owed_a][action_a]
        owed_b = OWED_AFTER[state.owed_b][action_b]
        step = MOVE if self.movement == "circle" else 0
        if not ending and state.exchange < EXCHANGES_PER_ROUND:
            return State(state.round, state.exchange + 1, owed_a, owed_b, back_a,
                         health_a, health_b, state.level_a, state.level_b, step=step)
        if not ending and state.round < self.max_rounds:
            required = self.rules.rests_required
            return State(state.round + 1, 1, required[state.level_a], required[state.level_b],
                         back_a, health_a, health_b, state.level_a, state.level_b,
                         step=step)
        ending = ending or END["draw: out of time"]
        return State(state.round, state.exchange, owed_a, owed_b, back_a, health_a, health_b,
                     state.level_a, state.level_b, ending)

