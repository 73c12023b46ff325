"""Pathfinder 2e duel rules that do not depend on hit points: checks and their degrees,
damage, initiative, and one duellist's whole turn as an exact distribution.

Every function here is pure and exact (enumeration of the d20 faces and convolution of
the damage dice); ``game.py`` applies the results to hit points and the round.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import numpy as np

from envs.rulesets import check_bounds
from envs.schema import integer_text
from solver.dice import parse_expression
from solver.errors import InputError

#: the range of every number of the ruleset the rules can take (PF2e's own values lie
#: well inside): checked before any work, so no value makes the dice tables explode
RULESET_BOUNDS = {
    "checks.critical_margin": (1, 40),
    "strike.multiple_attack_penalty": (0, 40),
    "strike.multiple_attack_penalty_agile": (0, 40),
    "strike.minimum_damage": (0, 100),
    "strike.critical_multiplier": (1, 4),
    "strike.sneak_die": (2, 20),
    "conditions.off_guard": (0, 20),
    "conditions.shield_bonus": (0, 20),
    "conditions.demoralize_success": (0, 4),
    "conditions.demoralize_critical": (0, 4),
    "conditions.feint_lasting_turns": (1, 2),
    "shield_block.hardness": (0, 99),
    "reactions.bullying_press.frightened": (0, 4),
    "reactions.bullying_press.frightened_stronger": (0, 4),
    "reactions.deceptive_sidestep.reroll_penalty": (0, 20),
}
#: weapon damage: at most this many dice in all, of at most this many sides, and a
#: modifier in this range (a PF2e weapon has up to 4 dice of d12)
MAX_WEAPON_DICE = 10
MAX_WEAPON_SIDES = 20
DAMAGE_MODIFIER = (-20, 60)
#: at most this many Sneak Attack dice (PF2e's rogue reaches 4)
MAX_SNEAK_DICE = 10

SKILLS = ("deception", "intimidation", "perception")
DECEPTION, INTIMIDATION, PERCEPTION = range(3)
#: ``block`` is no action: it keeps the reaction for Shield Block while the shield is up;
#: ``strike_reaction`` is the Strike that Bullying Press or Sense Weakness goes with (in a
#: plan without one, the first Strike)
STEPS = ("strike", "shield", "demoralize", "feint", "block", "strike_reaction")
STRIKES = ("strike", "strike_reaction")
#: degrees of a check
CRIT_FAIL, FAIL, SUCCESS, CRIT = range(4)
FACES = range(1, 21)


@dataclass(frozen=True)
class Rules:
    """The ruleset's numbers, typed once."""

    margin: int
    ranks: tuple[str, ...]
    skills: tuple[str, ...]
    map_normal: tuple[int, ...]
    map_agile: tuple[int, ...]
    minimum_damage: int
    critical_multiplier: int
    sneak_die: int
    off_guard: int
    shield_bonus: int
    demoralize_success: int
    demoralize_critical: int
    feint_turns: int
    press_skill: int
    press_against: int
    press_frightened: int
    press_frightened_stronger: int
    sidestep_skill: int
    sidestep_against: int
    sidestep_penalty: int
    sense_skill: int
    sense_against: int
    plan_names: tuple[str, ...]
    plans: tuple[tuple[str, ...], ...]
    #: a reaction comes back at the start of its owner's turn (the option
    #: ``reaction_refresh = "turn"``), not at the start of each round
    refresh_each_turn: bool = False
    #: Shield Block lowers the blocked hit's damage by this (the shield's Hardness)
    shield_hardness: int = 5


def _skill(value: object, where: str) -> int:
    if value not in SKILLS:
        raise InputError(f"ruleset {where}: unknown skill {value!r}; allowed: {', '.join(SKILLS)}")
    return SKILLS.index(value)


#: when a spent reaction comes back (the option ``reaction_refresh``)
REACTION_REFRESH = ("turn", "round")


def compile_rules(ruleset: Mapping, options: Mapping | None = None) -> Rules:
    """The ruleset's tables as a ``Rules`` (with the options that change a turn's rules);
    wrong skills, steps or plans are InputErrors."""
    options = options or {}
    checks, strike, cond = ruleset["checks"], ruleset["strike"], ruleset["conditions"]
    reactions, plans = ruleset["reactions"], ruleset["plans"]
    if tuple(ruleset["initiative"]["skills"]) != SKILLS:
        raise InputError(f"ruleset initiative.skills must be {', '.join(SKILLS)} (the three "
                         "duel skills, each with its reaction)")
    for key in ("multiple_attack_penalty", "multiple_attack_penalty_agile"):
        if len(strike[key]) != 3:
            raise InputError(f"ruleset strike.{key} needs 3 penalties (1st, 2nd, 3rd Strike)")
    order = tuple(plans["order"])
    for name in order:
        if name == "order" or name not in plans:
            raise InputError(f"ruleset plans.order names {name!r}; allowed: "
                             f"{', '.join(k for k in plans if k != 'order')}")
        for step in plans[name]:
            if step not in STEPS:
                raise InputError(f"ruleset plans.{name}: unknown step {step!r}; "
                                 f"allowed: {', '.join(STEPS)}")
    check_bounds(ruleset, RULESET_BOUNDS)
    if cond["feint_lasting_turns"] not in (1, 2):
        raise InputError(f"ruleset conditions.feint_lasting_turns: allowed 1 (Feint's critical "
                         "results end with the feinter's turn) or 2 (they last through his "
                         f"next turn), got {cond['feint_lasting_turns']!r}")
    for name in order:
        if plans[name].count("strike_reaction") > 1:
            raise InputError(f"ruleset plans.{name}: at most one strike_reaction (one "
                             "reaction a turn)")
        if "block" in plans[name] and "shield" not in plans[name]:
            raise InputError(f"ruleset plans.{name}: block needs a shield step before it "
                             "(Shield Block needs a raised shield)")
    hardness = ruleset.get("shield_block", {}).get("hardness", 5)
    if not isinstance(hardness, int) or isinstance(hardness, bool) or not 0 <= hardness <= 99:
        raise InputError(f"ruleset shield_block.hardness takes an integer 0..99, "
                         f"got {hardness!r}")
    if strike["minimum_damage"] < 0:
        raise InputError("ruleset strike.minimum_damage must be at least 0 (a hit never heals)")
    press, side, sense = (reactions["bullying_press"], reactions["deceptive_sidestep"],
                          reactions["sense_weakness"])
    return Rules(
        margin=checks["critical_margin"], ranks=tuple(checks["ranks"]), skills=SKILLS,
        map_normal=tuple(strike["multiple_attack_penalty"]),
        map_agile=tuple(strike["multiple_attack_penalty_agile"]),
        minimum_damage=strike["minimum_damage"],
        critical_multiplier=strike["critical_multiplier"], sneak_die=strike["sneak_die"],
        off_guard=cond["off_guard"], shield_bonus=cond["shield_bonus"],
        demoralize_success=cond["demoralize_success"],
        demoralize_critical=cond["demoralize_critical"],
        feint_turns=cond["feint_lasting_turns"],
        press_skill=_skill(press["skill"], "reactions.bullying_press.skill"),
        press_against=_skill(press["stronger_against"], "reactions.bullying_press"),
        press_frightened=press["frightened"],
        press_frightened_stronger=press["frightened_stronger"],
        sidestep_skill=_skill(side["skill"], "reactions.deceptive_sidestep.skill"),
        sidestep_against=_skill(side["stronger_against"], "reactions.deceptive_sidestep"),
        sidestep_penalty=side["reroll_penalty"],
        sense_skill=_skill(sense["skill"], "reactions.sense_weakness.skill"),
        sense_against=_skill(sense["stronger_against"], "reactions.sense_weakness"),
        plan_names=order, plans=tuple(tuple(plans[name]) for name in order),
        refresh_each_turn=options.get("reaction_refresh", "round") == "turn",
        shield_hardness=hardness)


# -- sheets

@dataclass(frozen=True)
class Fighter:
    """One duellist's sheet, typed."""

    hp: int
    ac: int
    attack: int
    dice: tuple[tuple[int, int], ...]
    damage_bonus: int
    agile: bool
    shield: bool
    sneak: int
    skill_mod: tuple[int, int, int]      # by SKILLS
    trained: tuple[bool, bool, bool]     # by SKILLS
    will: int
    perception_dc: int
    damage_text: str
    skill_text: tuple[str, str, str]
    finesse: bool = False


def parse_damage(text: str) -> tuple[tuple[tuple[int, int], ...], int]:
    """``1d8+4`` -> (((1, 8),), 4): weapon dice and modifier, within the bounds above."""
    expression = parse_expression(text)
    dice, modifier = expression.dice, expression.modifier
    count = sum(n for n, _ in dice)
    sides = max((s for _, s in dice), default=0)
    low, high = DAMAGE_MODIFIER
    if count > MAX_WEAPON_DICE or sides > MAX_WEAPON_SIDES or not low <= modifier <= high:
        raise InputError(f"damage {text!r}: allowed: at most {MAX_WEAPON_DICE} dice of at "
                         f"most {MAX_WEAPON_SIDES} sides and a modifier {low}..{high}")
    return dice, modifier


def parse_skill(text: object, name: str, ranks: tuple[str, ...]) -> tuple[int, str]:
    """``6:expert`` -> (6, "expert"); a bare modifier is untrained."""
    raw = str(text).strip()
    modifier, _, rank = raw.partition(":")
    rank = rank.strip().lower() or ranks[0]
    value = integer_text(modifier)
    if value is None:
        raise InputError(f"{name} takes MODIFIER:RANK (e.g. 6:expert), got {text!r:.40}")
    if rank not in ranks:
        raise InputError(f"{name}: unknown rank {rank!r}; allowed: {', '.join(ranks)}")
    if abs(value) > 60:
        raise InputError(f"{name}: modifier must be within -60..60, got {value}")
    return value, rank


def parse_sneak(text: object, die: int) -> int:
    """Sneak Attack dice: ``1d6``, ``2`` (that many d6) or ``0``."""
    raw = str(text).strip().lower()
    count, sep, sides = raw.partition("d")
    number = integer_text(count or ("1" if sep else "")) if not sep or sides == str(die) \
        else None
    if number is None or not 0 <= number <= MAX_SNEAK_DICE or count.startswith(("+", "-")):
        raise InputError(f"sneak takes 0..{MAX_SNEAK_DICE} d{die} (e.g. 1d{die} or 1), "
                         f"got {text!r:.40}")
    return number


def fighter(sheet: Mapping, rules: Rules, side: str) -> Fighter:
    """The typed sheet of ``side``; impossible sheets are InputErrors naming the field."""
    dice, bonus = parse_damage(sheet["damage"])
    if not dice:
        raise InputError(f"{side}'s damage needs weapon dice such as 1d8+4, "
                         f"got {sheet['damage']!r}")
    mods, trained, texts = [], [], []
    for skill in SKILLS:
        value, rank = parse_skill(sheet[skill], f"{side}'s {skill}", rules.ranks)
        mods.append(value)
        trained.append(rules.ranks.index(rank) >= 1)
        texts.append(f"{value:+d} ({rank})")
    sneak = parse_sneak(sheet["sneak"], rules.sneak_die)
    agile, finesse = bool(sheet["agile"]), bool(sheet.get("finesse", False))
    if sneak and not (agile or finesse):
        # Player Core: Sneak Attack needs an agile or finesse melee weapon
        raise InputError(f"{side}'s sneak={sheet['sneak']}: Sneak Attack needs an agile or "
                         "finesse weapon; add agile or finesse to the sheet, or sneak=0")
    return Fighter(
        hp=sheet["hp"], ac=sheet["ac"], attack=sheet["attack"], dice=dice, damage_bonus=bonus,
        agile=agile, finesse=finesse, shield=bool(sheet["shield"]),
        sneak=sneak, skill_mod=tuple(mods),
        trained=tuple(trained), will=sheet["will"], perception_dc=sheet["perception_dc"],
        damage_text=str(sheet["damage"]), skill_text=tuple(texts))


# -- checks

def degree(natural: int, total: int, dc: int, margin: int = 10) -> int:
    """The degree of one check: CRIT, SUCCESS, FAIL or CRIT_FAIL; the natural die
    shifts it one step after the total has set it."""
    if total >= dc + margin:
        found = CRIT
    elif total >= dc:
        found = SUCCESS
    elif total > dc - margin:
        found = FAIL
    else:
        found = CRIT_FAIL
    if natural == 20:
        return min(found + 1, CRIT)
    if natural == 1:
        return max(found - 1, CRIT_FAIL)
    return found


@cache
def degree_probabilities(modifier: int, dc: int, margin: int = 10) -> tuple[float, ...]:
    """P(CRIT_FAIL), P(FAIL), P(SUCCESS), P(CRIT) of d20 + ``modifier`` against ``dc``."""
    counts = [0, 0, 0, 0]
    for natural in FACES:
        counts[degree(natural, natural + modifier, dc, margin)] += 1
    return tuple(c / 20 for c in counts)


@cache
def strike_degrees(modifier: int, ac: int, sidestep: bool, reroll_modifier: int,
                   margin: int = 10) -> tuple[tuple[int, bool, float], ...]:
    """(final degree, sidestep spent, probability) of one Strike. Deceptive Sidestep,
    when available, is spent on a degree of exactly SUCCESS: the attacker rerolls at
    ``reroll_modifier`` and the second degree stands, critical included."""
    first = degree_probabilities(modifier, ac, margin)
    out: dict[tuple[int, bool], float] = {}
    for found, p in enumerate(first):
        if p == 0:
            continue
        if found == SUCCESS and sidestep:
            for again, q in enumerate(degree_probabilities(reroll_modifier, ac, margin)):
                if q:
                    out[again, True] = out.get((again, True), 0.0) + p * q
        else:
            out[found, False] = out.get((found, False), 0.0) + p
    return tuple((d, spent, p) for (d, spent), p in sorted(out.items()))


#: who wins equal initiative results (the option ``initiative_tie``)
INITIATIVE_TIES = ("higher_modifier", "b_first")


def initiative_first(mod_a: int, mod_b: int, ties: str = "higher_modifier") -> float:
    """P(A wins initiative): d20 + mod_a against d20 + mod_b (frightened already
    subtracted). Equal results go to the higher modifier, then a fair coin
    (``higher_modifier``, the specification's default) or to B (``b_first``: PF2e gives
    ties to the adversary, B played as the NPC)."""
    if ties == "b_first":
        tie = 0.0
    else:
        tie = 1 if mod_a > mod_b else 0.5 if mod_a == mod_b else 0
    wins = 0.0
    for x in FACES:
        for y in FACES:
            if x + mod_a > y + mod_b:
                wins += 1
            elif x + mod_a == y + mod_b:
                wins += tie
    return wins / 400


# -- damage

def dice_counts(dice: tuple[tuple[int, int], ...]) -> dict[int, int]:
    """Ways to roll each sum of ``dice`` ((count, sides) groups)."""
    counts = {0: 1}
    for count, sides in dice:
        for _ in range(count):
            nxt: dict[int, int] = {}
            for total, ways in counts.items():
                for face in range(1, sides + 1):
                    nxt[total + face] = nxt.get(total + face, 0) + ways
            counts = nxt
    return counts


def damage_distribution(dice: tuple[tuple[int, int], ...], bonus: int, critical: bool,
                        rules: Rules) -> dict[int, float]:
    """Damage of one hit: at least ``minimum_damage``, then doubled on a critical
    (PF2e applies the minimum to the rolled sum, then the multiplier)."""
    counts = dice_counts(dice)
    total = sum(counts.values())
    out: dict[int, float] = {}
    for rolled, ways in counts.items():
        hit = hit_damage(rolled, bonus, critical, rules)
        out[hit] = out.get(hit, 0.0) + ways / total
    return out


def hit_damage(rolled: int, bonus: int, critical: bool, rules: Rules) -> int:
    """One hit's damage from its dice's sum: the bonus added, at least
    ``minimum_damage``, doubled on a critical."""
    hit = max(rules.minimum_damage, rolled + bonus)
    return hit * rules.critical_multiplier if critical else hit


def blocked_damage(damage: int, rules: Rules) -> int:
    """Shield Block: the damage less the shield's Hardness (the shield takes the rest)."""
    return max(0, damage - rules.shield_hardness)


# -- one turn

@dataclass(frozen=True)
class TurnContext:
    """Everything a turn depends on besides hit points. ``actor`` strikes ``target``."""

    plan: int
    actor_skill: int
    target_skill: int
    actor_frightened: int
    target_frightened: int
    target_off_guard: bool    # carried from earlier turns
    target_shield: bool       # raised in the target's last turn, still up
    cap: int                  # damage beyond this is all the same (the target's HP)
    target_reaction: bool = True  # the target's reaction is not spent since his turn
    target_blocks: bool = False   # the target keeps his reaction for Shield Block


def resolve_turn(actor: Fighter, target: Fighter, ctx: TurnContext,
                 rules: Rules) -> list[tuple[float, tuple[int, int, bool, bool, bool]]]:
    """The exact distribution of one turn: probability, then (damage capped at
    ``ctx.cap``, target's frightened after, Sense Weakness lingering, Feint critical
    success, Feint critical failure, the target spent his reaction on a Sidestep that
    the state must remember: only when reactions refresh each turn)."""
    return [(p, (dmg, *kind)) for kind, damage, chances in turn_kinds(actor, target, ctx, rules)
            for dmg, p in zip(damage.tolist(), chances.tolist(), strict=True)]


def turn_kinds(actor: Fighter, target: Fighter, ctx: TurnContext, rules: Rules
               ) -> list[tuple[tuple[int, bool, bool, bool], np.ndarray, np.ndarray]]:
    """``resolve_turn`` by kind of result: each (target's frightened after, Sense
    Weakness lingering, Feint critical success, Feint critical failure, Sidestep spent
    and remembered) with the damages
    it comes with and their probabilities (positive). The checks are walked first,
    keeping only which Strikes hit and how; the damage of those hits together is one
    convolution, shared by every turn (walking every damage along would multiply the
    checks' outcomes by the damage values)."""
    # (hits so far, target frightened, feint next, feint crit, linger, feint fumble,
    #  target's reaction ready, strikes made) -> probability; a hit is (off-guard,
    #  critical, blocked); a raised shield kept for Shield Block takes the target's
    #  reaction from his Sidestep
    first, ready, press, sense, marked = turn_start(actor, target, ctx, rules)
    frontier = {first: 1.0}
    for step in rules.plans[ctx.plan]:
        nxt: dict[tuple, float] = {}
        for key, p in frontier.items():
            for q, after in _step(step, key, actor, target, ctx, rules, press, sense, marked):
                nxt[after] = nxt.get(after, 0.0) + p * q
        frontier = nxt
    by_kind: dict[tuple, dict[tuple, float]] = {}
    for key, p in frontier.items():
        weights = by_kind.setdefault(turn_kind(key, ready, rules), {})
        weights[key[0]] = weights.get(key[0], 0.0) + p
    return _damage_by_group(by_kind, actor, ctx, rules)


def _damage_by_group(groups: dict, actor, ctx, rules) -> list:
    """[(group, damages dealt, their chances)]: each group's hits (``{hits: chance}``)
    turned into the chance of each total damage, the ones never dealt left out."""
    out = []
    for group, weights in groups.items():
        damages = np.stack([_hits_damage(actor, hits, ctx.cap, rules) for hits in weights])
        chances = np.fromiter(weights.values(), float, len(weights)) @ damages
        dealt = np.flatnonzero(chances > 0)
        out.append((group, dealt, chances[dealt]))
    return out


def turn_start(actor: Fighter, target: Fighter, ctx: TurnContext, rules: Rules):
    """What a turn starts from: (the first key of ``turn_kinds``' walk, whether the
    target's reaction is ready, Bullying Press and Sense Weakness in use, the plan
    marks its reacting Strike)."""
    steps = rules.plans[ctx.plan]
    trained = actor.trained
    keeps = "block" in steps  # his reaction waits for Shield Block
    press = trained[rules.press_skill] and ctx.actor_skill == rules.press_skill and not keeps
    sense = trained[rules.sense_skill] and ctx.actor_skill == rules.sense_skill and not keeps
    block = ctx.target_shield and ctx.target_blocks and ctx.target_reaction
    sidestep = (target.trained[rules.sidestep_skill] and ctx.target_reaction
                and ctx.target_skill == rules.sidestep_skill and not ctx.target_blocks)
    ready = sidestep or block
    key = ((), ctx.target_frightened, False, False, False, False, ready, 0)
    return key, ready, press, sense, "strike_reaction" in steps


def turn_kind(key: tuple, ready: bool, rules: Rules) -> tuple:
    """The kind of result a walked key ends in (everything but the hits): target's
    frightened, Sense Weakness lingering, Feint critical success and failure that
    outlast the turn, the target's reaction spent and remembered."""
    _, fright, _, crit, linger, fumble, still, _ = key
    lasting = rules.feint_turns > 1  # Feint's critical results outlast this turn
    spent = rules.refresh_each_turn and ready and not still
    return fright, linger, crit and lasting, fumble and lasting, spent


def _step(step: str, key: tuple, actor: Fighter, target: Fighter, ctx: TurnContext,
          rules: Rules, press: bool, sense: bool, marked: bool, forced=None):
    """[(p, next key)] of one step of the plan; ``forced`` replaces the chances of
    its check's degrees (the dice already rolled: ``step_check``)."""
    if step in ("shield", "block"):
        return [(1.0, key)]
    if step == "demoralize":
        return _demoralize(key, actor, target, ctx, rules, forced)
    if step == "feint":
        return _feint(key, actor, target, ctx, rules, forced)
    return _strike(key, actor, target, ctx, rules, press, sense,
                   reacting(step, key, marked), forced)


def reacting(step: str, key: tuple, marked: bool) -> bool:
    """Whether this Strike takes the reaction: the plan's strike_reaction, or else the
    first Strike."""
    return step == "strike_reaction" or (not marked and key[-1] == 0)


def step_check(step: str, key: tuple, actor: Fighter, target: Fighter, ctx: TurnContext,
               rules: Rules, sense: bool, marked: bool) -> tuple[int, int, int | None] | None:
    """The check of one step: (modifier, DC or AC, the modifier of a Deceptive
    Sidestep's reroll, None when no Sidestep can come); None for a step without one."""
    fright = key[1]
    if step == "demoralize":
        return actor.skill_mod[INTIMIDATION] - ctx.actor_frightened, target.will - fright, None
    if step == "feint":
        return (actor.skill_mod[DECEPTION] - ctx.actor_frightened,
                target.perception_dc - fright, None)
    if step not in STRIKES:
        return None
    modifier, ac, reroll, _ = _strike_numbers(key, actor, target, ctx, rules, sense,
                                              reacting(step, key, marked))
    ready, blocking = key[6], key[6] and ctx.target_blocks
    return modifier, ac, reroll if ready and not blocking else None


def _demoralize(key, actor, target, ctx, rules, forced=None):
    hits, fright, *rest = key
    modifier = actor.skill_mod[INTIMIDATION] - ctx.actor_frightened
    probs = forced or degree_probabilities(modifier, target.will - fright, rules.margin)
    scared = {CRIT: rules.demoralize_critical, SUCCESS: rules.demoralize_success}
    return [(p, (hits, max(fright, scared.get(d, 0)), *rest)) for d, p in enumerate(probs) if p]


def _feint(key, actor, target, ctx, rules, forced=None):
    hits, fright, nxt, crit, linger, fumble, ready, made = key
    modifier = actor.skill_mod[DECEPTION] - ctx.actor_frightened
    probs = forced or degree_probabilities(modifier, target.perception_dc - fright,
                                           rules.margin)
    out = []
    for d, p in enumerate(probs):
        if not p:
            continue
        state = (hits, fright, nxt or d == SUCCESS, crit or d == CRIT, linger,
                 fumble or d == CRIT_FAIL, ready, made)
        out.append((p, state))
    return out


def _strike_numbers(key, actor, target, ctx, rules, sense, reacting):
    """(attack modifier, AC, a Sidestep reroll's modifier, the target off-guard) of a
    Strike from ``key``."""
    _, fright, feint_next, crit, linger, _, _, made = key
    sensed = sense and reacting
    linger = linger or (sensed and ctx.target_skill == rules.sense_against)
    off_guard = ctx.target_off_guard or feint_next or crit or linger or sensed
    ac = (target.ac + rules.shield_bonus * ctx.target_shield - fright
          - rules.off_guard * off_guard)
    penalties = rules.map_agile if actor.agile else rules.map_normal
    modifier = actor.attack - penalties[min(made, 2)] - ctx.actor_frightened
    reroll = modifier - rules.sidestep_penalty * (ctx.actor_skill == rules.sidestep_against)
    return modifier, ac, reroll, off_guard


def _strike(key, actor, target, ctx, rules, press, sense, reacting, forced=None):
    hits, fright, feint_next, crit, linger, fumble, ready, made = key
    sensed = sense and reacting
    if sensed and ctx.target_skill == rules.sense_against:
        linger = True
    modifier, ac, reroll, off_guard = _strike_numbers(key, actor, target, ctx, rules, sense,
                                                      reacting)
    blocking = ready and ctx.target_blocks
    out = []
    for found, spent, p in forced or strike_degrees(modifier, ac, ready and not blocking,
                                                    reroll, rules.margin):
        after, hit_fright = hits, fright
        if found >= SUCCESS:
            # Shield Block takes the first hit, whatever its degree
            spent = spent or blocking
            # the hits as a sorted tuple: the same hits in another order deal the same
            after = tuple(sorted((*hits, (bool(off_guard), found == CRIT, blocking))))
            if press and reacting:
                boost = (rules.press_frightened_stronger
                         if ctx.target_skill == rules.press_against else rules.press_frightened)
                hit_fright = max(fright, boost)
        out.append((p, (after, hit_fright, False, crit, linger, fumble, ready and not spent,
                        made + 1)))
    return out


@cache
def _hit_cache(dice, bonus, sneak, off_guard, critical, blocked, rules):
    if off_guard and sneak:
        dice = tuple(dice) + ((sneak, rules.sneak_die),)
    hit = damage_distribution(dice, bonus, critical, rules)
    if not blocked:
        return hit
    out: dict[int, float] = {}
    for damage, p in hit.items():
        left = blocked_damage(damage, rules)
        out[left] = out.get(left, 0.0) + p
    return out


def _hits_damage(actor: Fighter, hits: tuple, cap: int, rules: Rules) -> np.ndarray:
    """P(damage = 0..cap) of ``hits`` ((off-guard, critical, blocked) each) together."""
    return _hits_cache(actor.dice, actor.damage_bonus, actor.sneak, hits, cap, rules)


@cache
def _hits_cache(dice, bonus, sneak, hits, cap, rules) -> np.ndarray:
    # no hit deals less than 0 (``compile_rules``), so capping the sum once is capping
    # it after every hit
    total = np.ones(1)
    for off_guard, critical, blocked in hits:
        one = _hit_cache(dice, bonus, sneak, off_guard, critical, blocked, rules)
        single = np.zeros(max(one) + 1)
        single[list(one)] = list(one.values())
        total = np.convolve(total, single)
    capped = np.zeros(cap + 1)
    capped[:len(total)] = total[:cap + 1]
    capped[cap] += total[cap + 1:].sum()
    capped.flags.writeable = False  # shared by every turn with these hits
    return capped


def spends_own_reaction(actor: Fighter, steps: tuple[str, ...], skill: int,
                        rules: Rules) -> bool:
    """Whether a turn of ``steps`` spends the actor's reaction on Bullying Press or Sense
    Weakness (declared before his first Strike, whatever it does); a turn that keeps it
    for Shield Block does not."""
    return (any(step in STRIKES for step in steps) and "block" not in steps
            and actor.trained[skill]
            and skill in (rules.press_skill, rules.sense_skill))


def shield_state(steps: tuple[str, ...]) -> int:
    """The shield after a turn of ``steps``: 0 down, 1 raised, 2 raised with the
    reaction kept for Shield Block."""
    if "shield" not in steps:
        return 0
    return 2 if "block" in steps else 1
