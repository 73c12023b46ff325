"""Pathfinder 2e combat duels (GM Core's dueling rules): the secret initiative skill
each round, the three dueling reactions, and a library of turn plans.

``rules.py`` holds the hit-point-free rules (checks, damage, one whole turn),
``game.py`` the duel as a ``solver.game.Game``, ``words.py`` its presentation.
"""

from __future__ import annotations

from envs.rulesets import ruleset_hash
from envs.schema import Examples, Field, SheetSpec, SystemSpec, integer_text
from solver.errors import InputError

from .footprint import footprint
from .game import KEEP, PLAN_TIMINGS, REACTION_CHOICES, SPEND, PathfinderGame
from .rules import (
    INITIATIVE_TIES,
    REACTION_REFRESH,
    SKILLS,
    compile_rules,
    fighter,
    parse_damage,
)
from .state import ORDERS, State
from .words import PathfinderWords


def _damage(text: str) -> str:
    dice, _ = parse_damage(text)  # within the weapon bounds
    if not dice:
        raise InputError(f"damage needs weapon dice such as 1d8+4, got {text!r}")
    return text.strip()


def _skill(text: str) -> str:
    modifier, _, _ = text.partition(":")
    if integer_text(modifier) is None:
        raise InputError(f"a skill takes MODIFIER:RANK such as 6:expert (ranks untrained, "
                         f"trained, expert, master, legendary), got {text!r}")
    return text.strip()


def _sheet_fields() -> tuple[Field, ...]:
    d = "sheet_defaults."
    skill_help = "{} modifier and rank, MODIFIER:RANK (e.g. 6:expert)"
    return (
        Field("hp", "int", "hit points", default_key=d + "hp", low=1, high=999),
        Field("ac", "int", "Armor Class", default_key=d + "ac", low=0, high=99),
        Field("attack", "int", "melee attack modifier", default_key=d + "attack",
              low=-20, high=60),
        Field("damage", "text", "weapon damage, dice + modifier (e.g. 1d8+4)",
              default_key=d + "damage", parse=_damage),
        Field("agile", "flag", "agile weapon (multiple attack penalty -4/-8)",
              default_key=d + "agile"),
        Field("finesse", "flag", "finesse weapon (Sneak Attack needs agile or finesse)",
              default_key=d + "finesse"),
        Field("shield", "flag", "carries a shield (Raise a Shield: +2 AC)",
              default_key=d + "shield"),
        Field("sneak", "text", "Sneak Attack dice (e.g. 1d6), 0 for none",
              default_key=d + "sneak"),
        *(Field(skill, "text", skill_help.format(skill.capitalize()), default_key=d + skill,
                parse=_skill) for skill in SKILLS),
        Field("will", "int", "Will DC", default_key=d + "will", low=0, high=99),
        Field("perception_dc", "int", "Perception DC", default_key=d + "perception_dc",
              low=0, high=99),
    )


def _action_parts(name: str) -> dict[str, str]:
    """``deception-first-feint-strike2`` -> the initiative skill, the order, the plan;
    per turn, ``deception-first`` -> the skill and the order, ``feint-strike2`` -> the
    plan."""
    if name == "wait":
        return {}
    if name in (SPEND, KEEP):
        return {"reaction": name.partition("-")[0]}
    skill, _, rest = name.partition("-")
    order, _, plan = rest.partition("-")
    if skill not in SKILLS or order not in ORDERS:
        return {"plan": name}
    return {"initiative skill": skill, "order": order, **({"plan": plan} if plan else {})}


def _build(ruleset: dict, options: dict) -> PathfinderGame:
    rules = compile_rules(ruleset, options)
    fighters = {side: fighter(options[side], rules, side) for side in ("a", "b")}
    return PathfinderWords(rules, fighters, options, ruleset_hash(ruleset))


SYSTEM = SystemSpec(
    name="pathfinder",
    title="Pathfinder 2e combat duel",
    options=(
        Field("victory", "choice", "how the duel is won", default_key="victory",
              choices=("knockout", "first_blood")),
        Field("max_rounds", "int", "rounds before a draw (0: no limit, solved by value "
              "iteration)", default_key="max_rounds", low=0, high=1000),
        Field("initiative_tie", "choice", "who wins equal initiative results: the higher "
              "modifier then a coin, or B (PF2e gives ties to the adversary, B as the NPC)",
              default_key="initiative.tie_break", choices=INITIATIVE_TIES,
              aliases={"modifier_then_coin": "higher_modifier"}),
        Field("plans", "choice", "when a turn's plan is chosen: committed with the initiative "
              "skill and order (the specification), or per_turn, by its actor as his turn "
              "starts, knowing the order, the Feint and the frightened values (PF2e)",
              default_key="plan_timing", choices=PLAN_TIMINGS),
        Field("reaction_refresh", "choice", "when a spent reaction comes back: at the start "
              "of its owner's turn (PF2e) or of each round (the specification)",
              default_key="reaction_refresh", choices=REACTION_REFRESH),
        Field("reaction_choice", "choice", "when Bullying Press, Sense Weakness or "
              "Deceptive Sidestep picks its Strike: in the plan (the first Strike or the "
              "step strike_reaction; the Sidestep on the first exact success), or "
              "each_strike, its owner at each Strike knowing what the turn did so far "
              "(needs plans=per_turn)", default_key="reaction_choice",
              choices=REACTION_CHOICES),
    ),
    sheet=SheetSpec(fields=_sheet_fields(), reference_key="sheets",
                    example="rogue,hp=30,perception=6:expert"),
    build=_build,
    footprint=footprint,
    # small hit points: a knockout duel of the full reference sheets is millions of
    # states (see the README); these solve in seconds
    examples=Examples(sheet_a="fighter,hp=6", sheet_b="rogue,hp=6",
                      state="hp_a=5,hp_b=4,fr_b=1",
                      mix="intimidation-first-strike3:2,perception-second-feint-strike2:1",
                      quick={"max_rounds": 1},
                      variants={"first_blood": {"victory": "first_blood"},
                                "round_reactions": {"reaction_refresh": "round"},
                                "per_turn_plans": {"plans": "per_turn"},
                                "each_strike": {"plans": "per_turn",
                                                "reaction_choice": "each_strike"},
                                "b_first": {"initiative_tie": "b_first"},
                                "shield_block": {"a": "fighter,hp=6,shield", "ruleset": {
                                    "plans": {"order": ["strike3", "strike2_shield_block"]}}},
                                "hidden_sheet": {"a": None, "a_prior":
                                                 "fighter,hp=6@0.5;fighter,hp=6,ac=14@0.5"}},
                      counters={"a": "fighter,hp=4", "b": "rogue,hp=3"}),
    pairing=None,
    action_parts=_action_parts,
    action_words=lambda game, state, name: game.advice(name),
)

__all__ = ["SYSTEM", "PathfinderGame", "State"]
