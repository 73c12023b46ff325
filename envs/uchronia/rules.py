"""The rules of Uchronia (``docs/systems/uchronia.md``): the ruleset compiled, what both
modes share, the pistol duel (``PistolGame``: range, shot dice, the order of fire, a
hit and its wound) and the melee (``MeleeGame``: the Confrontation, breaking off, a
winner's choice, grappling, wounds). The words of both are in ``words.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from solver.errors import InputError
from solver.game import DeclaredGame, GameInfo, sample_outcome

from ..rulesets import ruleset_error as _fail
from ..rulesets import ruleset_hash
from ..rulesets import ruleset_int as _int
from ..schema import token
from .dice import alone_table, at_least, confrontation_table, merge, resistance, shot_table
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
    KILLED,
    M_DISARMED,
    M_FLEES,
    M_IMMOBILISED,
    M_OUT,
    M_TIME,
    M_WALK,
    MELEE_ENDINGS,
    MINOR,
    OBSERVATION,
    OUT,
    P_BOTH,
    P_KILLED_A,
    P_KILLED_B,
    P_OUT_A,
    P_OUT_B,
    P_TIME,
    PISTOL_ENDINGS,
    PRESS,
    RELOAD,
    WAIT,
    Bout,
    Shot,
    other,
)
from .words import MeleeWords, PistolWords

# ---------------------------------------------------------------- the ruleset, compiled

@dataclass(frozen=True)
class Firearm:
    name: str
    advantageous: int
    optimal: int
    shots: int


@dataclass(frozen=True)
class Blade:
    name: str
    dice: int
    kind: str   # fists, blunt, blade
    duel: bool


def _atouts(value: object, key: str) -> tuple[str, ...]:
    names = tuple(token(v) for v in value)
    bad = [v for v in names if v not in ATOUTS]
    if bad:
        raise _fail(key, f"unknown Atout {bad[0]!r}; allowed: {', '.join(ATOUTS)}")
    return names


def _firearms(table: Mapping, bands: int) -> dict[str, Firearm]:
    out = {}
    for name, entry in table.items():
        key = f"pistol.weapons.{name}"
        optimal = _int(entry["optimal"], f"{key}.optimal", 0, bands - 1)
        out[name] = Firearm(str(entry["name"]),
                            _int(entry["advantageous"], f"{key}.advantageous", -1, optimal),
                            optimal, _int(entry["shots"], f"{key}.shots", 1, 12))
    return out


def _blades(table: Mapping) -> dict[str, Blade]:
    out = {}
    for name, entry in table.items():
        key = f"melee.weapons.{name}"
        kind = str(entry["kind"])
        if kind not in ("fists", "blunt", "blade"):
            raise _fail(f"{key}.kind", f"unknown kind {kind!r}; allowed: fists, blunt, blade")
        out[name] = Blade(str(entry["name"]), _int(entry["dice"], f"{key}.dice", 0, 6), kind,
                          bool(entry["duel"]))
    if "none" not in out or out["none"].dice != 0:
        raise _fail("melee.weapons.none", "bare hands must exist and add 0 dice")
    return out


def build(ruleset: dict, options: dict):
    """The game of ``options["mode"]``."""
    if options["mode"] == "melee":
        return MeleeGame(ruleset, options)
    return PistolGame(ruleset, options)


# ---------------------------------------------------------------- shared by both modes

class _Uchronia(DeclaredGame):
    """What both modes share: sheets, dice rules, metadata and the common protocol."""

    mode: str
    length_unit: str
    state_type: type
    endings: tuple[str, ...]

    def __init__(self, ruleset: dict, options: dict, actions: tuple[str, ...]):
        self.ruleset = ruleset
        self.sheets = {side: dict(options[side]) for side in ("a", "b")}
        self.dice = ruleset["dice"]
        self.base = _int(self.dice["base"], "dice.base", 0, 20)
        self.minimum = _int(self.dice["minimum"], "dice.minimum", 1, 20)
        self.significant = _int(self.dice["significant"], "dice.significant", 1, 100)
        self.exceptional = _int(self.dice["exceptional"], "dice.exceptional",
                                self.significant, 100)
        self.penalty = _int(ruleset["health"]["penalty"], "health.penalty", 0, 20)
        self.out_level = _int(ruleset["health"]["out_level"], "health.out_level", 1, 3)
        resist = ruleset["resistance"]
        self.cancel = _int(resist["cancel_margin"], "resistance.cancel_margin", 0, 100)
        self.resist_dice = {side: max(self.minimum, _int(resist["base"], "resistance.base",
                                                         0, 20)
                                      + self.count(side, _atouts(resist["atouts"],
                                                                 "resistance.atouts")))
                            for side in ("a", "b")}
        self._actions = actions
        self._options = dict(options)
        self._memo: dict = {}

    # -- metadata, also read directly by the solver
    def _declare(self, bounds: Mapping[str, int]) -> None:
        """GameInfo with every observation field bounded by 0 and ``bounds``; a field the
        mode does not use reads 0 but is declared 0..1, as Gymnasium wants every box to
        have room (and ``mode`` is 0..1 in both modes)."""
        self.info = GameInfo(
            system="uchronia", action_names=self._actions, observation_fields=OBSERVATION,
            observation_low=(0,) * len(OBSERVATION),
            observation_high=tuple(max(1, bounds.get(name, 0)) for name in OBSERVATION),
            public_information=True, payoff_bounds=(-1.0, 1.0), may_cycle=False,
            options=self._options, ruleset_hash=ruleset_hash(self.ruleset),
            fast_paths=frozenset({"transitions", "sample", "rolls"}), length_unit=self.length_unit)

    def count(self, side: str, atouts: tuple[str, ...]) -> int:
        return sum(bool(self.sheets[side].get(name)) for name in atouts)

    def dice_of(self, n: int) -> int:
        return max(self.minimum, n)

    def health_penalty(self, health: int) -> int:
        return self.penalty if health >= 1 else 0

    def wound(self, health: int, severity: int, threshold: int, side: str):
        """[(p, status)] after a wound of ``severity`` levels with its resistance test
        against ``threshold``: status OUT on a failed test or at ``out_level``."""
        fail, cancel, apply = resistance(self.resist_dice[side], threshold, self.cancel)
        hurt = health + severity
        return [(fail, OUT), (cancel, health), (apply, OUT if hurt >= self.out_level else hurt)]

    # -- the protocol
    def is_terminal(self, state) -> bool:
        return state.ending != 0

    def result(self, state) -> str:
        return self.endings[state.ending]

    def transitions(self, state):
        legal_b = np.flatnonzero(self.legal_mask(state, "b")).tolist()
        return [(i, j, self._outcomes(state, i, j))
                for i in np.flatnonzero(self.legal_mask(state, "a")).tolist() for j in legal_b]

    def outcomes(self, state, action_a: int, action_b: int):
        self._check(state, action_a, action_b)
        return self._outcomes(state, action_a, action_b)

    def _outcomes(self, state, action_a: int, action_b: int) -> list:
        """The exact outcomes, computed once per situation: a turn's dice do not depend
        on the turn counter, so they are resolved with the counter at 0 and memoised,
        then the counter is added back and the limit applied."""
        clock = state[0]
        key = (state._replace(**{self.clock: 0}), action_a, action_b)
        raw = self._memo.get(key)
        if raw is None:
            raw = self._memo[key] = self._resolve(key[0], action_a, action_b)
        if clock == 0 and self.limit > 1:
            return raw
        if clock + 1 < self.limit:  # the limit cannot strike: just move the counter on
            kind = type(state)
            return [(p, nxt if nxt.ending else tuple.__new__(kind, (clock + nxt[0],) + nxt[1:]))
                    for p, nxt in raw]
        items = []
        for p, nxt in raw:
            if not nxt.ending and clock + nxt[0] >= self.limit:
                nxt = self._time_up()
            elif not nxt.ending:
                nxt = nxt._replace(**{self.clock: clock + nxt[0]})
            items.append((p, nxt))
        return merge(items)

    def sample(self, state, action_a: int, action_b: int, rng: np.random.Generator):
        return sample_outcome(self.outcomes(state, action_a, action_b), rng)

    def _check(self, state, action_a: int, action_b: int) -> None:
        if self.is_terminal(state):
            raise InputError("the duel is over: no action is legal")
        for player, action in (("a", action_a), ("b", action_b)):
            mask = self.legal_mask(state, player)
            if not isinstance(action, int | np.integer) or not 0 <= action < len(mask) \
                    or not mask[action]:
                legal = ", ".join(self.action_names[k] for k in np.flatnonzero(mask))
                raise InputError(f"illegal action {action!r} for {player.upper()}; "
                                 f"legal: {legal}")

    def _mask(self, legal) -> np.ndarray:
        mask = np.zeros(len(self.action_names), bool)
        mask[list(legal)] = True
        return mask


# ---------------------------------------------------------------- the pistol duel

class PistolGame(PistolWords, _Uchronia):
    """The pistol duel of timing."""

    mode = "pistol"
    length_unit = "turn"
    state_type = Shot
    endings = PISTOL_ENDINGS

    def __init__(self, ruleset: dict, options: dict):
        super().__init__(ruleset, options, ACTIONS)
        rules = ruleset["pistol"]
        self.bands = tuple(rules["bands"])
        self.band_names = tuple(rules["band_names"])
        if len(self.band_names) != len(self.bands) or not 2 <= len(self.bands) <= 10:
            raise _fail("pistol.band_names", "expected one name per band (2..10 bands)")
        self.firearms = _firearms(rules["weapons"], len(self.bands))
        self.weapon = {side: self._firearm(side, rules) for side in ("a", "b")}
        self.may_aim = {side: self._may_aim(side, rules) for side in ("a", "b")}
        self.wound_breaks_aim = options["wound_breaks_aim"]
        self.max_turns = options["max_turns"]
        if options["start_band"] not in self.bands:
            raise InputError(f"unknown start_band {options['start_band']!r}; allowed: "
                             f"{', '.join(self.bands)}")
        self.start_band = self.bands.index(options["start_band"])
        self.threshold = _int(rules["threshold"], "pistol.threshold", 1, 100)
        # 0: no reloading at all (one load per duel, as in the classic noisy duel)
        self.reload = _int(rules["reload_per_turn"], "pistol.reload_per_turn", 0, 12)
        self.out_of_range = _int(rules["out_of_range"], "pistol.out_of_range", 1, 10)
        self.aim_bonus = _int(rules["aim_bonus"], "pistol.aim_bonus", 0, 10)
        self.moving = _int(rules["moving_penalty"], "pistol.moving_penalty", 0, 10)
        self.range_bonus = _int(rules["range_bonus"], "pistol.range_bonus", 0, 10)
        self.range_penalty = _int(rules["range_penalty"], "pistol.range_penalty", 0, 10)
        self.severity = (_int(rules["wounded"], "pistol.wounded", 0, 3),
                         _int(rules["grave"], "pistol.grave", 0, 3))
        self.resist = (_int(rules["wounded_resist"], "pistol.wounded_resist", 1, 100),
                       _int(rules["grave_resist"], "pistol.grave_resist", 1, 100))
        shooting = _atouts(rules["pool_atouts"], "pistol.pool_atouts")
        self.skill = {side: self.base + self.count(side, shooting) for side in ("a", "b")}
        initiative = _atouts(rules["initiative_atouts"], "pistol.initiative_atouts")
        lead = self.count("a", initiative) - self.count("b", initiative)
        self.first = "a" if lead > 0 else "b" if lead < 0 else None
        capacity = max(self.weapon[s].shots for s in ("a", "b"))
        self._declare({"turn": self.max_turns, "band": len(self.bands) - 1, "own_health": 2,
                       "opp_health": 2, "own_ammo": capacity, "opp_ammo": capacity,
                       "own_aim": 1, "opp_aim": 1, "ending": len(PISTOL_ENDINGS) - 1})

    def _firearm(self, side: str, rules: Mapping) -> Firearm:
        name = self.sheets[side].get("weapon") or rules["default_weapon"]
        if name not in self.firearms:
            raise InputError(f"weapon {name!r} on sheet {side} is not a firearm; in mode "
                             f"pistol allowed: {', '.join(self.firearms)}")
        return self.firearms[name]

    def _may_aim(self, side: str, rules: Mapping) -> bool:
        """Whether ``side``'s firearm is among ``pistol.aim_weapons``."""
        names = tuple(token(v) for v in rules["aim_weapons"])
        bad = [v for v in names if v not in self.firearms]
        if bad:
            raise _fail("pistol.aim_weapons", f"unknown firearm {bad[0]!r}; allowed: "
                                              f"{', '.join(self.firearms)}")
        return (self.sheets[side].get("weapon") or rules["default_weapon"]) in names

    # -- rules
    def initial_outcomes(self) -> list[tuple[float, Shot]]:
        """Both fully loaded, unhurt, not aiming, at ``start_band``."""
        return [(1.0, Shot(0, self.start_band, 0, 0, self.weapon["a"].shots,
                           self.weapon["b"].shots, 0, 0))]

    def range_dice(self, side: str, band: int) -> int | None:
        """Dice the range adds at ``band`` (None: out of range, the shot is illegal)."""
        weapon = self.weapon[side]
        beyond = band - weapon.optimal
        if beyond >= self.out_of_range:
            return None
        if band <= weapon.advantageous:
            return self.range_bonus
        return -self.range_penalty if beyond > 0 else 0

    def shot_dice(self, side: str, band: int, health: int, aimed: bool, moving: bool) -> int:
        """The shooter's pool: 3 + shooting Atouts ± range, + aim, - moving, - wounds."""
        dice = (self.skill[side] + self.range_dice(side, band) - self.health_penalty(health)
                + (self.aim_bonus if aimed and not moving else 0)
                - (self.moving if moving else 0))
        return self.dice_of(dice)

    def legal_mask(self, state: Shot, player: str) -> np.ndarray:
        if state.ending:
            return np.zeros(len(ACTIONS), bool)
        ammo = state.ammo_a if player == "a" else state.ammo_b
        in_range = self.range_dice(player, state.band) is not None
        legal = []
        if ammo and in_range:
            legal.append(FIRE)
        if ammo and self.may_aim[player]:
            legal.append(AIM)
        if state.band > 0:
            legal.append(ADVANCE)
        if ammo < self.weapon[player].shots and self.reload:
            legal.append(RELOAD)
        if ammo and in_range and state.band > 0:
            legal.append(FIRE_MOVING)
        if not ammo and not self.reload:
            # emptied for good (no reloading): he may stand where he is, or close in
            legal.append(WAIT)
        return self._mask(legal)

    def hit(self, dice: int, health: int, target: str) -> list[tuple[Fraction, int]]:
        """[(p, target's status)] after one shot of ``dice`` dice at a target of
        ``health``: a miss, Blessé or Grièvement Blessé (each with its resistance test),
        or Tué on an exceptional margin."""
        return _hit(self, dice, health, target)

    def _shots(self, state: Shot, action_a: int, action_b: int):
        """[(p, status_a, status_b)] once the turn's shots are resolved."""
        fires = {"a": action_a in (FIRE, FIRE_MOVING), "b": action_b in (FIRE, FIRE_MOVING)}
        health = {"a": state.health_a, "b": state.health_b}
        if not fires["a"] and not fires["b"]:
            return [(1, state.health_a, state.health_b)]
        dice = {side: self._dice(state, side, (action_a, action_b)[i], health[side])
                for i, side in enumerate("ab")}
        if fires["a"] and fires["b"] and self.first is not None:
            return self._in_order(state, (action_a, action_b), health, dice)
        after = {side: (self.hit(dice[other(side)], health[side], side)
                        if fires[other(side)] else [(1, health[side])]) for side in "ab"}
        return [(pa * pb, sa, sb) for pa, sa in after["a"] for pb, sb in after["b"]]

    def _dice(self, state: Shot, side: str, action: int, health: int) -> int:
        """``side``'s pool for ``action`` at ``health`` (the turn's, or the one a first
        shot just left him at: a wound that applied breaks his aim, if wounds do)."""
        if action not in (FIRE, FIRE_MOVING):
            return 0
        aimed = (state.aim_a if side == "a" else state.aim_b) == 1 and self.steady(
            health, state.health_a if side == "a" else state.health_b)
        return self.shot_dice(side, state.band, health, aimed, action == FIRE_MOVING)

    def steady(self, health: int, before: int) -> bool:
        """Whether an aim survives going from health ``before`` to ``health``: always,
        unless ``wound_breaks_aim`` and the wound applied (a cancelled one leaves it)."""
        return not (self.wound_breaks_aim and health > before)

    def _in_order(self, state: Shot, actions, health, dice):
        """The better shooter fires first; a second shooter still standing fires with
        the penalty of the wound he just took."""
        first = self.first
        second = other(first)
        out = []
        for p1, hit_second in self.hit(dice[first], health[second], second):
            if hit_second >= OUT:
                status = {first: health[first], second: hit_second}
                out.append((p1, status["a"], status["b"]))
                continue
            action = actions[0] if second == "a" else actions[1]
            reply = self._dice(state, second, action, hit_second)
            for p2, hit_first in self.hit(reply, health[first], first):
                status = {first: hit_first, second: hit_second}
                out.append((p1 * p2, status["a"], status["b"]))
        return out

    def _outcomes(self, state: Shot, action_a: int, action_b: int) -> list:
        """Shots first, then movement, reloading and the turn limit. What the dice do
        depends only on the actions, the band, the healths and the aims, so it is
        worked out once per such situation (``_turn``) and reused."""
        live, ends, band = self._turn(state, action_a, action_b)
        turn = state.turn + 1
        if turn >= self.max_turns:
            done = sum(item[0] for item in live)
            return ends + ([(done, self._time_up)] if live else [])
        ammo_a = self._ammo("a", state.ammo_a, action_a)
        ammo_b = self._ammo("b", state.ammo_b, action_b)
        new = tuple.__new__
        return [(p, new(Shot, (turn, band, sa, sb, ammo_a, ammo_b, aim_a, aim_b, 0)))
                for p, sa, sb, aim_a, aim_b in live] + ends

    def _turn(self, state: Shot, action_a: int, action_b: int):
        """(live [(p, health_a, health_b, aim_a, aim_b)], ending outcomes, next band):
        an aim is held by who aimed, unless a wound that applied broke it."""
        key = (action_a, action_b, state.band, state.health_a, state.health_b, state.aim_a,
               state.aim_b)
        found = self._memo.get(key)
        if found is not None:
            return found
        shots = merge((p, (sa, sb)) for p, sa, sb in self._shots(state, action_a, action_b))
        aims = (action_a == AIM, action_b == AIM)
        live = [(p, sa, sb, int(aims[0] and self.steady(sa, state.health_a)),
                 int(aims[1] and self.steady(sb, state.health_b)))
                for p, (sa, sb) in shots if sa < OUT and sb < OUT]
        ends = merge((p, self._ending(sa, sb)) for p, (sa, sb) in shots
                      if sa >= OUT or sb >= OUT)
        moves = ADVANCE in (action_a, action_b) or FIRE_MOVING in (action_a, action_b)
        band = max(0, state.band - 1) if moves else state.band
        found = self._memo[key] = (live, ends, band)
        return found

    def transitions(self, state: Shot):
        legal_a = self._legal_list(state, "a")
        legal_b = self._legal_list(state, "b")
        return [(i, j, self._outcomes(state, i, j)) for i in legal_a for j in legal_b]

    def _legal_list(self, state: Shot, player: str) -> list[int]:
        key = (player, state.band, state.ammo_a if player == "a" else state.ammo_b)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = np.flatnonzero(self.legal_mask(state, player)).tolist()
        return found

    @property
    def _time_up(self) -> Shot:
        return Shot(0, 0, 0, 0, 0, 0, 0, 0, P_TIME)

    def _ending(self, sa: int, sb: int) -> Shot:
        if sa >= OUT and sb >= OUT:
            ending = P_BOTH
        elif sb >= OUT:
            ending = P_KILLED_A if sb == KILLED else P_OUT_A
        else:
            ending = P_KILLED_B if sa == KILLED else P_OUT_B
        return Shot(0, 0, 0, 0, 0, 0, 0, 0, ending)

    def _ammo(self, side: str, ammo: int, action: int) -> int:
        if action in (FIRE, FIRE_MOVING):
            return ammo - 1
        if action == RELOAD:
            return min(self.weapon[side].shots, ammo + self.reload)
        return ammo

    def starts_unit(self, state: Shot) -> bool:
        """Every moment of a pistol duel comes before a turn."""
        return not self.is_terminal(state)

    def payoff(self, state: Shot) -> float:
        if state.ending in (P_KILLED_A, P_OUT_A):
            return 1.0
        if state.ending in (P_KILLED_B, P_OUT_B):
            return -1.0
        return 0.0

    def observe(self, state: Shot, player: str) -> tuple[int, ...]:
        own, opp = ("a", "b") if player == "a" else ("b", "a")
        v = state._asdict()
        return (0, state.turn, state.band, v[f"health_{own}"], v[f"health_{opp}"],
                v[f"ammo_{own}"], v[f"ammo_{opp}"], v[f"aim_{own}"], v[f"aim_{opp}"],
                0, 0, 0, 0, 0, 0, 0, state.ending)


def _hit(game: PistolGame, dice: int, health: int, target: str):
    miss, wounded, grave, killed = shot_table(dice, game.threshold, game.significant,
                                               game.exceptional)
    out = [(miss, health), (killed, KILLED)]
    for p, severity, resist in ((wounded, game.severity[0], game.resist[0]),
                                (grave, game.severity[1], game.resist[1])):
        out += [(p * q, status) for q, status in game.wound(health, severity, resist, target)]
    return [(p, s) for p, s in out if p > 0]


# ---------------------------------------------------------------- the melee

class MeleeGame(MeleeWords, _Uchronia):
    """One Confrontation a round."""

    mode = "melee"
    length_unit = "round"
    state_type = Bout
    endings = MELEE_ENDINGS
    bands = ()

    def __init__(self, ruleset: dict, options: dict):
        super().__init__(ruleset, options, ACTIONS)
        rules = ruleset["melee"]
        self.rules = rules
        self.blades = _blades(rules["weapons"])
        self.weapon = {side: self._blade(side, rules) for side in ("a", "b")}
        self.max_rounds = options["max_rounds"]
        self.break_threshold = _int(rules["break_off_threshold"], "melee.break_off_threshold",
                                    1, 100)
        self.flight = float(rules["flight_payoff"])
        if not 0 <= self.flight <= 1:
            raise _fail("melee.flight_payoff", f"expected a number 0..1, got {self.flight}")
        self.fumble_penalty = _int(rules["fumble_penalty"], "melee.fumble_penalty", 0, 10)
        self.resist = (_int(rules["resist_significant"], "melee.resist_significant", 1, 100),
                       _int(rules["resist_exceptional"], "melee.resist_exceptional", 1, 100))
        self.wound_levels = (_int(rules["wound"], "melee.wound", 0, 3),
                             _int(rules["blade_exceptional_wound"],
                                  "melee.blade_exceptional_wound", 0, 3))
        self._setup_pools(rules)
        top_grip = max(self.full_pool.values())
        self._declare({"mode": 1, "turn": self.max_rounds, "own_health": 2, "opp_health": 2,
                       "own_grip": top_grip, "opp_grip": top_grip, "own_fumble": 1,
                       "opp_fumble": 1, "chooser": 2, "intent": 1, "margin": 2,
                       "ending": len(MELEE_ENDINGS) - 1})

    def _blade(self, side: str, rules: Mapping) -> Blade:
        name = self.sheets[side].get("weapon") or rules["default_weapon"]
        if name not in self.blades:
            raise InputError(f"weapon {name!r} on sheet {side} is not a melee weapon; in "
                             f"mode melee allowed: {', '.join(self.blades)}")
        return self.blades[name]

    def _setup_pools(self, rules: Mapping) -> None:
        """Pools without penalties: ``fight_pool`` (with the fencer's or the boxer's
        Atout where it counts), ``grapple_pool`` (never the boxer's), ``break_pool``;
        ``full_pool`` is what the grapple penalty is measured against."""
        melee = _atouts(rules["pool_atouts"], "melee.pool_atouts")
        fencer, boxer = _atouts([rules["fencer"], rules["boxer"]], "melee.fencer/boxer")
        breaking = _atouts(rules["break_off_atouts"], "melee.break_off_atouts")
        self.fight_pool, self.grapple_pool, self.break_pool = {}, {}, {}
        for side in "ab":
            weapon = self.weapon[side]
            unarmed = weapon.kind == "fists"
            core = self.base + self.count(side, melee) + self.weapon_dice(side)
            special = (self.count(side, (fencer,)) if weapon.duel else 0) + (
                self.count(side, (boxer,)) if unarmed else 0)
            self.fight_pool[side] = core + special
            self.grapple_pool[side] = core + (self.count(side, (fencer,)) if weapon.duel else 0)
            self.break_pool[side] = self.base + self.count(side, breaking)
        self.full_pool = dict(self.fight_pool)

    def weapon_dice(self, side: str) -> int:
        """The dice ``side``'s weapon adds to his pool under ``weapon_dice``: always his
        own; only against a bare-handed foe; or what his weapon adds beyond the foe's."""
        own, foe = self.weapon[side], self.weapon[other(side)]
        if self._options["weapon_dice"] == "against_unarmed":
            return own.dice if foe.kind == "fists" else 0
        if self._options["weapon_dice"] == "difference":
            return max(0, own.dice - foe.dice)
        return own.dice

    def armed(self, side: str) -> bool:
        return self.weapon[side].kind != "fists"

    # -- rules
    def initial_outcomes(self) -> list[tuple[float, Bout]]:
        return [(1.0, Bout(0, 0, 0, 0, 0, 0, 0))]

    def legal_mask(self, state: Bout, player: str) -> np.ndarray:
        if state.ending:
            return np.zeros(len(ACTIONS), bool)
        if state.chooser:
            if "ab"[state.chooser - 1] != player:
                return self._mask([WAIT])
            return self._mask(self.options_after_roll(state, player))
        return self._mask([FIGHT, BREAK_OFF] + ([] if self.armed(player) else [GRAPPLE]))

    def options_after_roll(self, state: Bout, winner: str) -> list[int]:
        """What a winner may do with a significant or better margin: apply his intent
        (``press``), free himself if grappled, disarm an armed loser on an exceptional
        fight margin."""
        options = [PRESS]
        if getattr(state, f"grip_{winner}") > 0:
            options.append(FREE)
        if state.intent == 0 and state.margin == EXCEPTIONAL and self.armed(other(winner)):
            options.append(DISARM)
        return options

    def penalties(self, state: Bout, side: str) -> int:
        return (self.health_penalty(getattr(state, f"health_{side}"))
                + getattr(state, f"grip_{side}")
                + (self.fumble_penalty if getattr(state, f"fumble_{side}") else 0))

    def confrontation_dice(self, state: Bout, side: str, intent: int) -> int:
        base = self.fight_pool[side] if intent == FIGHT else self.grapple_pool[side]
        return self.dice_of(base - self.penalties(state, side))

    def break_dice(self, state: Bout, side: str) -> int:
        return self.dice_of(self.break_pool[side] - self.penalties(state, side))

    clock = "round"

    @property
    def limit(self) -> int:
        return self.max_rounds

    def _time_up(self) -> Bout:
        return self._end(M_TIME, None)

    def _resolve(self, state: Bout, action_a: int, action_b: int) -> list:
        if state.chooser:
            winner = "ab"[state.chooser - 1]
            choice = action_a if winner == "a" else action_b
            return merge(self._choose(state, winner, choice))
        breaks = (action_a == BREAK_OFF, action_b == BREAK_OFF)
        if all(breaks):
            return merge(self._both_break(state))
        if any(breaks):
            breaker = "a" if breaks[0] else "b"
            intent = action_b if breaker == "a" else action_a
            return merge(self._one_breaks(state, breaker, intent))
        return merge(self._confrontation(state, action_a, action_b))

    def _confrontation(self, state: Bout, action_a: int, action_b: int):
        dice_a = self.confrontation_dice(state, "a", action_a)
        dice_b = self.confrontation_dice(state, "b", action_b)
        table = confrontation_table(dice_a, dice_b, self.significant, self.exceptional)
        out = []
        for (winner, margin, fumble_a, fumble_b), p in table.items():
            rolled = state._replace(fumble_a=fumble_a, fumble_b=fumble_b)
            if winner == 0 or margin == MINOR:
                out.append((p, self._next_round(rolled)))
                continue
            side = "ab"[winner - 1]
            intent = action_a if side == "a" else action_b
            out += [(p * q, s) for q, s in self._won(rolled, side, intent, margin)]
        return out

    def _one_breaks(self, state: Bout, breaker: str, intent: int):
        """The breaker rolls his Prouesse first; on a failure he is helpless and the
        other's margin is his whole total (``failed_break_off = "helpless"``), or the
        round passes (``"round_lost"``)."""
        stays = other(breaker)
        success = at_least(self.break_dice(state, breaker), self.break_threshold)
        out = [(success, self._end(M_FLEES, stays))]
        if self._options["failed_break_off"] == "round_lost":
            # no Confrontation was rolled, so no one fumbled: the round just passes
            calm = state._replace(fumble_a=0, fumble_b=0)
            return out + [(1 - success, self._next_round(calm))]
        dice = self.confrontation_dice(state, stays, intent)
        for (margin, fumbled), p in alone_table(dice, self.significant,
                                                 self.exceptional).items():
            rolled = state._replace(**{f"fumble_{stays}": fumbled, f"fumble_{breaker}": 0})
            if margin == MINOR:
                out.append(((1 - success) * p, self._next_round(rolled)))
                continue
            out += [((1 - success) * p * q, s)
                    for q, s in self._won(rolled, stays, intent, margin)]
        return out

    def _both_break(self, state: Bout):
        pa = at_least(self.break_dice(state, "a"), self.break_threshold)
        pb = at_least(self.break_dice(state, "b"), self.break_threshold)
        calm = state._replace(fumble_a=0, fumble_b=0)
        return [(pa * pb, self._end(M_WALK, None)), (pa * (1 - pb), self._end(M_FLEES, "b")),
                ((1 - pa) * pb, self._end(M_FLEES, "a")),
                ((1 - pa) * (1 - pb), self._next_round(calm))]

    def _won(self, state: Bout, winner: str, intent: int, margin: int):
        """A winner with a significant or better margin: his choice if he has one (a
        sequential step), else his intent applies."""
        pending = state._replace(chooser=1 if winner == "a" else 2,
                                 intent=0 if intent == FIGHT else 1, margin=margin)
        if len(self.options_after_roll(pending, winner)) > 1:
            return [(1, pending)]
        return self._apply(state, winner, intent, margin)

    def _choose(self, state: Bout, winner: str, choice: int):
        settled = state._replace(chooser=0, intent=0, margin=0)
        if choice == DISARM:
            return [(1, self._end(M_DISARMED, winner))]
        if choice == FREE:
            grip = getattr(state, f"grip_{winner}")
            freed = 0 if state.margin == EXCEPTIONAL else max(0, grip - 1)
            return [(1, self._next_round(settled._replace(**{f"grip_{winner}": freed})))]
        intent = FIGHT if state.intent == 0 else GRAPPLE
        return self._apply(settled, winner, intent, state.margin)

    def _apply(self, state: Bout, winner: str, intent: int, margin: int):
        """The winner's intent with a significant or exceptional margin."""
        loser = other(winner)
        if intent == GRAPPLE:
            grip = getattr(state, f"grip_{loser}") + 1
            if margin == EXCEPTIONAL or grip >= self.full_pool[loser]:
                return [(1, self._end(M_IMMOBILISED, winner))]
            return [(1, self._next_round(state._replace(**{f"grip_{loser}": grip})))]
        blade = self.weapon[winner].kind == "blade"
        severity = self.wound_levels[1 if blade and margin == EXCEPTIONAL else 0]
        threshold = self.resist[margin - 1]
        health = getattr(state, f"health_{loser}")
        out = []
        for p, status in self.wound(health, severity, threshold, loser):
            if status >= OUT:
                out.append((p, self._end(M_OUT, winner)))
            else:
                out.append((p, self._next_round(state._replace(**{f"health_{loser}": status}))))
        return out

    def _next_round(self, state: Bout) -> Bout:
        return state._replace(round=state.round + 1, chooser=0, intent=0, margin=0)

    def _end(self, how: int, winner: str | None) -> Bout:
        """A terminal state: ``how`` (M_*) for ``winner`` (None: a draw); nothing else
        is kept, so equal endings merge."""
        ending = how if winner is None else how + (1 if winner == "a" else 5)
        return Bout(0, 0, 0, 0, 0, 0, 0, ending=ending)

    def starts_unit(self, state: Bout) -> bool:
        """A round opens where both choose; a winner choosing after the roll is in it."""
        return state.chooser == 0 and not self.is_terminal(state)

    def payoff(self, state: Bout) -> float:
        label = MELEE_ENDINGS[state.ending]
        sign = 1.0 if label.startswith("A wins") else -1.0 if label.startswith("B wins") \
            else 0.0
        return sign * (self.flight if label.endswith("flees") else 1.0)

    def observe(self, state: Bout, player: str) -> tuple[int, ...]:
        own, opp = ("a", "b") if player == "a" else ("b", "a")
        v = state._asdict()
        chooser = 0 if not state.chooser else 1 if "ab"[state.chooser - 1] == player else 2
        return (1, state.round, 0, v[f"health_{own}"], v[f"health_{opp}"], 0, 0, 0, 0,
                v[f"grip_{own}"], v[f"grip_{opp}"], v[f"fumble_{own}"], v[f"fumble_{opp}"],
                chooser, state.intent, state.margin, state.ending)
