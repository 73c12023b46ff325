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


STATE_FIELDS = State._fields
# positions of A's field in the state tuple (B's is the next one)
HP_AT, FR_AT, DEM_AT, OG_AT, SH_AT, SKILL_AT, PLAN_AT, SPENT_AT = (
    STATE_FIELDS.index(f"{name}_a") for name in (
        "hp", "fr", "dem", "og", "sh", "skill", "plan", "spent"))
