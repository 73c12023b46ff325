"""Castle Falkenstein's steps beside the card exchange: the attacker's choice of a disarm
(``disarm=attacker_chooses``) and the movement between exchanges (``movement=circle``).

A state's ``step`` says which decision it is: ``0`` the cards; ``1 + 6 * a + b`` the
choice of wound or disarm after the card pairs ``a`` and ``b`` were played from this very
state (the exchange is resolved again with the choices); ``MOVE`` the movement after an
exchange. A side with nothing to decide plays ``wait``."""

from __future__ import annotations

from .state import ACTIONS

CHOICES = ("wound", "disarm")
MOVES = ("stand", "circle", "press")
WAIT = "wait"
#: the step of the movement between exchanges (after the 36 pending card pairs)
MOVE = 1 + len(ACTIONS) ** 2
#: the effects a disarm may replace: a partial wound, or an R turned into one at a wall
PARTIAL = ("BP", "wall")
#: how far a successful circle brings each side's room toward the middle
CIRCLE_M = 2


def step_actions(disarm: str, movement: str) -> tuple[str, ...]:
    """The game's fixed action list: the card pairs, then the steps' actions in use."""
    extra = (CHOICES if disarm == "attacker_chooses" else ()) + \
        (MOVES if movement == "circle" else ())
    return ACTIONS + extra + ((WAIT,) if extra else ())


def pending(action_a: int, action_b: int) -> int:
    """The step at which the attacker(s) of the card pairs ``action_a``, ``action_b``
    choose between wound and disarm."""
    return 1 + len(ACTIONS) * action_a + action_b


def pending_cards(step: int) -> tuple[int, int]:
    return divmod(step - 1, len(ACTIONS))


def choosers(effect_a: str, effect_b: str) -> tuple[bool, bool]:
    """Whether A and B each dealt a partial wound (A chooses when B receives one)."""
    return effect_b in PARTIAL, effect_a in PARTIAL


def recentred(back: int, room: int) -> int:
    """The room behind a side after a successful circle: toward the middle of the
    ground by up to ``CIRCLE_M`` metres."""
    middle = room // 2
    return back + max(-CIRCLE_M, min(CIRCLE_M, middle - back))


def circle_chance(move_a: str, move_b: str, circle: dict[str, float],
                  press: dict[str, float]) -> float:
    """The chance that the pair re-centres: each circle is a feat (``circle`` chances);
    against a press a circle succeeds only if the circler's feat succeeds and the
    presser's (``press`` chances) fails. Two circles re-centre once if either succeeds."""
    moves = {"a": move_a, "b": move_b}
    missed = 1.0
    for side, foe in (("a", "b"), ("b", "a")):
        if moves[side] != "circle":
            continue
        success = circle[side] * ((1.0 - press[foe]) if moves[foe] == "press" else 1.0)
        missed *= 1.0 - success
    return 1.0 - missed
