"""The dice of a Pathfinder step, drawn to be told: the initiative rolls, and a turn
walked check by check with a d20 each (the same steps, numbers and updates as the
exact walk of ``rules.turn_kinds``), then each hit's damage dice."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..rolls import faces
from .rules import (
    FACES,
    SUCCESS,
    _step,
    blocked_damage,
    degree,
    hit_damage,
    step_check,
    turn_kind,
    turn_start,
)


class Hit(NamedTuple):
    """One hit's damage: its dice as rolled, the bonus, critical, blocked, the damage."""

    dice: tuple[int, ...]
    bonus: int
    critical: bool
    blocked: bool
    damage: int


class Check(NamedTuple):
    """One d20 check: the step, the natural die, the modifier, the DC (or AC), the
    degree, and a Deceptive Sidestep's reroll (natural, modifier, degree) if one came."""

    step: str
    natural: int
    modifier: int
    dc: int
    degree: int
    reroll: tuple[int, int, int] | None = None
    hit: Hit | None = None  # a Strike that hit: its damage


class Initiative(NamedTuple):
    """Both initiative rolls: natural dice and modifiers (frightened subtracted)."""

    natural_a: int
    natural_b: int
    modifier_a: int
    modifier_b: int
    coin: int | None  # who a coin gave an equal result to, when one was tossed


class TurnRolls(NamedTuple):
    checks: tuple[Check, ...]
    hits: tuple[Hit, ...]
    dealt: int  # the damage the target takes (capped at his hit points)


def _d20(rng: np.random.Generator) -> int:
    return int(rng.integers(1, len(FACES) + 1))


def initiative_drawn(game, state, action_a: int, action_b: int, rng):
    """The initiative rolls, and who acts first after them (0: A)."""
    skill_a, order_a, _ = game._split[action_a]
    skill_b, order_b, _ = game._split[action_b]
    mod_a = game.fighters["a"].skill_mod[skill_a] - state.fr_a
    mod_b = game.fighters["b"].skill_mod[skill_b] - state.fr_b
    x, y = _d20(rng), _d20(rng)
    coin = None
    if x + mod_a != y + mod_b:
        a_wins = x + mod_a > y + mod_b
    elif game.initiative_tie == "b_first":
        a_wins = False
    elif mod_a != mod_b:
        a_wins = mod_a > mod_b
    else:
        coin = int(rng.integers(2))
        a_wins = coin == 0
    a_first = order_a == 0 if a_wins else order_b == 1
    return Initiative(x, y, mod_a, mod_b, coin), 0 if a_first else 1


def turn_drawn(game, state, rng):
    """One turn at the dice: (its rolls, the next state they lead to)."""
    x, ctx = game._context(state, state.hp_a if game.acting(state) == "b" else state.hp_b)
    actor, target = game.fighters["ab"[x]], game.fighters["ab"[1 - x]]
    rules = game.rules
    key, ready, press, sense, marked = turn_start(actor, target, ctx, rules)
    checks, hits = [], []
    for step in rules.plans[ctx.plan]:
        check = step_check(step, key, actor, target, ctx, rules, sense, marked)
        forced = None
        if check is not None:
            told, forced = _rolled(step, check, rules.margin, rng)
        before = list(key[0])
        key = _step(step, key, actor, target, ctx, rules, press, sense, marked, forced)[0][1]
        if check is None:
            continue
        landed = list(key[0])
        for hit in before:  # the hits are kept sorted: this step's is the one added
            landed.remove(hit)
        if landed:
            hits.append(_damage(actor, landed[0], rules, rng))
            told = told._replace(hit=hits[-1])
        checks.append(told)
    dealt = min(sum(h.damage for h in hits), ctx.cap)
    values = game._result_values(state, x, game._after_any_turn(state, x),
                                 turn_kind(key, ready, rules))
    return TurnRolls(tuple(checks), tuple(hits), dealt), game._land(state, x, dealt, values)


def _rolled(step: str, check, margin: int, rng):
    """A check rolled: (it told, the degrees forced on the walk's step)."""
    modifier, dc, reroll = check
    natural = _d20(rng)
    found = degree(natural, natural + modifier, dc, margin)
    if step in ("demoralize", "feint"):
        chances = [0.0] * 4
        chances[found] = 1.0
        return Check(step, natural, modifier, dc, found), tuple(chances)
    again = None
    if found == SUCCESS and reroll is not None:  # Deceptive Sidestep: the foe rerolls it
        second = _d20(rng)
        again = (second, reroll, degree(second, second + reroll, dc, margin))
    final, spent = (again[2], True) if again else (found, False)
    return Check(step, natural, modifier, dc, found, again), [(final, spent, 1.0)]


def _damage(actor, hit: tuple, rules, rng) -> Hit:
    off_guard, critical, blocked = hit
    dice = [sides for count, sides in actor.dice for _ in range(count)]
    if off_guard and actor.sneak:
        dice += [rules.sneak_die] * actor.sneak
    rolled = tuple(face for sides in dice for face in faces(rng, 1, sides))
    damage = hit_damage(sum(rolled), actor.damage_bonus, critical, rules)
    if blocked:
        damage = blocked_damage(damage, rules)
    return Hit(rolled, actor.damage_bonus, critical, blocked, damage)
