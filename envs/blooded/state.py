"""The state of a Blooded duel and the data it is made of: the phases of a beat, the
endings, a duellist's sheet and the ruleset's numbers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

MANEUVERS = ("bash", "bind", "blind", "feint", "lunge", "riposte")
CONVENTIONS = ("mortal", "first_blood")
#: who chooses the role after a tied strike bid (ruleset ``bid_tie``): the higher
#: Prowess, then a fair coin; a fair coin; A; B
BID_TIES = ("prowess_then_coin", "coin", "a", "b")
#: how the dice pool lasts (ruleset ``pool``): gathered anew every beat (the
#: specification), or one pool for the whole duel that bids and wagers spend (the seed's
#: "I have eight dice left for the duel")
POOLS = ("every_beat", "whole_duel")
SIDES = ("a", "b")

# phases of a beat; DECLARE and RESPOND (the declarations before the risk, with
# ``declaration = "before"``) and SPEND (the Style each spends, with ``auto_spend_style
# = false``) come after OVER so that the others keep their numbers
BID, CHOOSE, RISK, BLIND, CANCEL, DBIND, VICTOR, RCANCEL, OVER, DECLARE, RESPOND, SPEND = \
    range(12)
PHASES = ("bid", "choose", "risk", "blind", "cancel", "defeated_bind", "victor",
          "riposte_cancel", "over", "declare", "respond", "spend")
#: when the maneuver is declared (option ``declaration``): after the dice, by the victor
#: (the specification), or before the wagers, the aggressor first (the seed's step 3)
DECLARATIONS = ("after", "before")
#: what a duellist may declare before the risk: the maneuver that ends his sequence if
#: he is the victor (0: nothing declared)
PLANS = ("", "injure", "lunge", "bash", "bind", "parry", "riposte")

ENDINGS = ("", "A wins: B takes a mortal Injury", "B wins: A takes a mortal Injury",
           "A wins: first blood", "B wins: first blood",
           "draw: the seconds stop the duel")
PAYOFF = (0.0, 1.0, -1.0, 1.0, -1.0, 0.0)
DRAW = 5


class State(NamedTuple):
    """Only what matters: each side's highest Injury, Style bank and Feint bonus.

    ``aggressor`` (0 = A, 1 = B) is this beat's aggressor once roles are set; ``victor``
    is the bid's winner while he chooses his role, then the risk's victor; ``wv`` /
    ``wd`` are the victor's / defeated's usable wagers left; ``plan_*`` what each
    declared before the risk (``declaration = "before"`` only). During the consequences
    ``bank_*`` is the bank left after this beat's spend and ``feint_*`` the bonus won
    for the next beat. With ``pool = "whole_duel"``, ``pool_*`` is the duel's pool left:
    0 on the first beat (not yet gathered), then the dice carried into the beat, and
    after the risk those carried into the next. Unused fields are 0.
    """

    beat: int
    phase: int
    aggressor: int
    inj_a: int
    inj_b: int
    bank_a: int
    bank_b: int
    feint_a: int
    feint_b: int
    bid_a: int
    bid_b: int
    victor: int
    wv: int
    wd: int
    ending: int
    plan_a: int = 0   # the declared maneuver (``PLANS``), with declaration = "before"
    plan_b: int = 0
    spend_a: int = 0  # the Style spent this beat, chosen (auto_spend_style = false)
    spend_b: int = 0
    pool_a: int = 0   # the duel's pool left, carried into this beat (pool = "whole_duel")
    pool_b: int = 0


STATE_FIELDS = State._fields


@dataclass(frozen=True)
class Duellist:
    prowess: int
    sword: int
    strength: int
    athletics: int
    style: int
    invokes: int
    maneuvers: frozenset[str]

    def knows(self, maneuver: str) -> bool:
        return maneuver in self.maneuvers


@dataclass(frozen=True)
class Rules:
    """The ruleset's numbers, checked."""

    target: int
    sides: int
    auto_spend: bool
    spend_cap: int
    bank_cap: int
    invoke_dice: int
    bids_spent: str
    bid_tie: str
    bash_cancellable: bool
    riposte_rolls: bool
    risk_tie: str
    whole_duel: bool
    per_style: int
    costs: Mapping[str, int]
    max_rank: int
    mortal_rank: int

