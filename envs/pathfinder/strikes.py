"""A turn played Strike by Strike (the option ``reaction_choice = "each_strike"``, under
``plans = "per_turn"``): the owner of a Strike-triggered reaction chooses at each Strike
whether to spend it, knowing what the turn has done so far.

The actor, before each of his Strikes while his Bullying Press or Sense Weakness is
unspent, chooses to spend it on that Strike or keep it; the target, when a Strike against
him lands an exact success while his Deceptive Sidestep is ready, chooses to spend it on
that hit or keep it. Between two such choices the turn is chance, walked as
``rules.turn_kinds`` walks a whole turn (the same steps, numbers and updates); the walk
stops at each choice (a *pause*) and the hits before it deal their damage there.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .rules import (
    STRIKES,
    SUCCESS,
    Fighter,
    Rules,
    TurnContext,
    _damage_by_group,
    _step,
    _strike,
    _strike_numbers,
    degree_probabilities,
)

#: who chooses at a pause: the actor before a Strike, or the target after an exact
#: success against him (the Strike without, or with, the actor's reaction)
ACTOR_BEFORE_STRIKE, TARGET_AFTER_HIT, TARGET_AFTER_REACTED_HIT = 1, 2, 3
PENDINGS = (ACTOR_BEFORE_STRIKE, TARGET_AFTER_HIT, TARGET_AFTER_REACTED_HIT)


class Stop(NamedTuple):
    """Where a walk ends: at a pause (``pending`` one of ``PENDINGS``, ``index`` the plan
    step of its Strike) or at the turn's end (``pending`` 0); ``key`` is the walk's key
    (``rules.turn_kinds``) with no hits (they are dealt), ``reacted`` whether the actor
    has spent his reaction this turn."""

    pending: int
    index: int
    key: tuple
    reacted: bool


def strikes_made(steps: tuple[str, ...], index: int) -> int:
    """How many Strikes the plan has made before its step ``index`` (the multiple attack
    penalty's count)."""
    return sum(step in STRIKES for step in steps[:index])


def walk(actor: Fighter, target: Fighter, ctx: TurnContext, rules: Rules, start: Stop,
         press: bool, sense: bool, spend: bool | None = None
         ) -> list[tuple[Stop, np.ndarray, np.ndarray]]:
    """The turn from ``start`` to its next stops: each stop with the damages its hits
    deal (capped at ``ctx.cap``) and their probabilities (positive). ``start`` is the
    turn's beginning (``pending`` 0), or a pause whose chooser just chose ``spend``.
    ``press`` and ``sense``: the actor's Bullying Press or Sense Weakness is in use."""
    steps = rules.plans[ctx.plan]
    frontier = {(start.key, start.reacted): 1.0}
    stopped: dict[tuple, float] = {}
    choice = (start.pending, spend) if start.pending else None
    for index in range(start.index, len(steps)):
        nxt: dict[tuple, float] = {}
        for (key, reacted), p in frontier.items():
            for q, pending, after, now in _one_step(steps[index], key, reacted, choice, actor,
                                                    target, ctx, rules, press, sense):
                into, at = (stopped, (pending, index, after, now)) if pending else (
                    nxt, (after, now))
                into[at] = into.get(at, 0.0) + p * q
        choice, frontier = None, nxt
    for (key, reacted), p in frontier.items():
        at = (0, len(steps), key, reacted)
        stopped[at] = stopped.get(at, 0.0) + p
    by_stop: dict[Stop, dict[tuple, float]] = {}
    for (pending, index, key, reacted), p in stopped.items():
        weights = by_stop.setdefault(Stop(pending, index, ((), *key[1:]), reacted), {})
        weights[key[0]] = weights.get(key[0], 0.0) + p
    return _damage_by_group(by_stop, actor, ctx, rules)


def _one_step(step, key, reacted, choice, actor, target, ctx, rules, press, sense):
    """[(p, pending, next key, reacted)] of one step: pending 0 goes on, else the walk
    pauses before this step's Strike (the key unchanged) or after its exact success."""
    if step not in STRIKES:
        return [(q, 0, after, reacted)
                for q, after in _step(step, key, actor, target, ctx, rules, press, sense, False)]
    if choice is not None and choice[0] != ACTOR_BEFORE_STRIKE:
        pending, spend = choice
        reacting = pending == TARGET_AFTER_REACTED_HIT
        modifier, ac, reroll, _ = _strike_numbers(key, actor, target, ctx, rules, sense,
                                                  reacting)
        forced = ([(found, True, q) for found, q in
                   enumerate(degree_probabilities(reroll, ac, rules.margin)) if q]
                  if spend else [(SUCCESS, False, 1.0)])
        return [(q, 0, after, reacted) for q, after in _strike(
            key, actor, target, ctx, rules, press, sense, reacting, forced)]
    if choice is None and (press or sense) and not reacted:
        return [(1.0, ACTOR_BEFORE_STRIKE, key, reacted)]
    reacting = bool(choice and choice[1])
    return _rolled_strike(key, reacted or reacting, reacting, actor, target, ctx, rules,
                          press, sense)


def _rolled_strike(key, reacted, reacting, actor, target, ctx, rules, press, sense):
    """A Strike rolled: when the target's Sidestep is ready, its exact success pauses
    for his choice; every other degree (and every degree without a Sidestep) goes on."""
    if not key[6] or ctx.target_blocks:  # no Sidestep to choose (Shield Block is no choice)
        return [(q, 0, after, reacted) for q, after in _strike(
            key, actor, target, ctx, rules, press, sense, reacting)]
    modifier, ac, _, _ = _strike_numbers(key, actor, target, ctx, rules, sense, reacting)
    chances = degree_probabilities(modifier, ac, rules.margin)
    forced = [(found, False, q) for found, q in enumerate(chances) if q and found != SUCCESS]
    out = [(q, 0, after, reacted) for q, after in _strike(
        key, actor, target, ctx, rules, press, sense, reacting, forced)] if forced else []
    if chances[SUCCESS]:
        pending = TARGET_AFTER_REACTED_HIT if reacting else TARGET_AFTER_HIT
        out.append((chances[SUCCESS], pending, key, reacted))
    return out
