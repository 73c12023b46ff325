"""The state of a Pathfinder duel: its phases, its fields and where each side's are."""

from __future__ import annotations

from typing import NamedTuple

DECIDE, FIRST, SECOND, OVER = range(4)
PHASES = ("decide", "first turn", "second turn", "over")
ORDERS = ("first", "second")
ENDINGS = ("", "A knocks B out", "B knocks A out", "A draws first blood",
           "B draws first blood", "draw: round limit reached")
PAYOFF = (0.0, 1.0, -1.0, 1.0, -1.0, 0.0)
WAIT = "wait"


class State(NamedTuple):
    phase: int = DECIDE
    round: int = 1
    hp_a: int = 0
    hp_b: int = 0
    fr_a: int = 0
    fr_b: int = 0
    dem_a: int = 0
    dem_b: int = 0
    og_a: int = 0
    og_b: int = 0
    sh_a: int = 0
    sh_b: int = 0
    skill_a: int = 0
    skill_b: int = 0
    plan_a: int = 0
    plan_b: int = 0
    first: int = 0          # 0: A acts first this round, 1: B
    spent_a: int = 0
    spent_b: int = 0
    ending: int = 0
    # within a turn played Strike by Strike (``reaction_choice = "each_strike"``; all 0
    # between turns): 1 + the plan step of the Strike at which a choice is pending, who
    # makes it (``strikes.PENDINGS``), and what the turn has done so far that its later
    # steps read: the walk's key of ``rules.turn_kinds`` (the target's frightened is
    # his ``fr`` field) and whether the actor has spent his reaction this turn
    step: int = 0
    pending: int = 0
    feint_next: int = 0
    feint_crit: int = 0
    linger: int = 0
    fumble: int = 0
    ready: int = 0
    reacted: int = 0


STATE_FIELDS = State._fields
#: the fields of a turn under way (``State.step`` and after), kept only by
#: ``reaction_choice = "each_strike"``
MIDTURN_FIELDS = STATE_FIELDS[STATE_FIELDS.index("step"):]
MIDTURN_AT = STATE_FIELDS.index("step")
# positions of A's field in the state tuple (B's is the next one)
HP_AT, FR_AT, DEM_AT, OG_AT, SH_AT, SKILL_AT, PLAN_AT, SPENT_AT = (
    STATE_FIELDS.index(f"{name}_a") for name in (
        "hp", "fr", "dem", "og", "sh", "skill", "plan", "spent"))
