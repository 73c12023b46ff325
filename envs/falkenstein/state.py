"""Castle Falkenstein's vocabulary: the card pairs, the state, the ways a duel ends."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.errors import check_choice

ACTIONS = ("AA", "AD", "AR", "DD", "DR", "RR")
DD = ACTIONS.index("DD")
# attacks, defenses and rests of each action, in ACTIONS order
ATTACKS = tuple(name.count("A") for name in ACTIONS)
DEFENSES = tuple(name.count("D") for name in ACTIONS)
RESTS = tuple(name.count("R") for name in ACTIONS)
#: what each card's letter stands for, to say a pair in words
CARD_WORDS = {"A": "Attack", "D": "Defense", "R": "Rest"}
INDEX = (int, np.integer)
# Rests still owed after an action, by Rests owed before it (at most 2 a card pair for
# 3 exchanges a round)
OWED_AFTER = tuple(tuple(max(0, owed - rests) for rests in RESTS) for owed in range(7))


def pair_words(name: str) -> str:
    """A card pair in words ("two Attacks", "Defense+Rest"); the choices of a step
    ("wound", "circle") read as they are."""
    if name not in ACTIONS:
        return name
    first, second = (CARD_WORDS[letter] for letter in name)
    return f"two {first}s" if first == second else f"{first}+{second}"

# What one exchange does to one duellist (beyond the grid letter it receives):
# "retreat" 2 m, "wall" (an R turned into BP), "fall", a wound letter, "push" (lost a
# corps-à-corps), "still" (an R without a field) or "" (nothing).
SEVERITY = {"wall": 1, "BP": 1, "BT": 2, "BM": 3, "HC": 4, "fall": 4}
OUT = 4
WOUND_INDEX = {"wall": 0, "BP": 0, "BT": 1, "BM": 2}

_CAUSES = ("first blood", "first blood at the wall", "out of combat", "unconscious",
           "disarm", "{loser} falls from the ledge")
_DRAWS = ("both wounded alike", "both out", "both disarmed", "disarmed and out",
          "out of time")
#: every way a duel can end; a state stores the index (0: not over)
ENDINGS = ("",) + tuple(
    f"{winner} wins: {cause.format(loser=loser)}"
    for winner, loser in (("A", "B"), ("B", "A")) for cause in _CAUSES
) + tuple(f"draw: {draw}" for draw in _DRAWS)
END = {label: index for index, label in enumerate(ENDINGS)}
PAYOFF = tuple(1.0 if label.startswith("A wins") else -1.0 if label.startswith("B wins")
                else 0.0 for label in ENDINGS)


class State(NamedTuple):
    """A moment of the duel between two exchanges (or the end).

    ``back_a`` is the room behind A in metres (B has ``field_m - 2 - back_a``). Rests are
    stored as owed, so equivalent situations are one state. Levels are ladder indices of
    the Fencing role (the sheets'; hidden levels are hidden sheets, ``envs.hidden``, whose
    trails keep what a duellist has seen). ``ending`` indexes ``ENDINGS`` (0 while the duel
    goes on).

    ``step`` is the decision the moment waits for (``steps.py``: 0, the cards).
    """

    round: int
    exchange: int
    owed_a: int
    owed_b: int
    back_a: int
    health_a: int
    health_b: int
    level_a: int
    level_b: int
    ending: int = 0
    step: int = 0


STATE_FIELDS = State._fields

class Exchange(NamedTuple):
    """One exchange resolved from the positions before it."""

    hits_a: int  # touches A receives
    hits_b: int
    letter_a: str  # grid letter A receives ("" for none)
    letter_b: str
    effect_a: str  # what it does on this ground (see SEVERITY's comment)
    effect_b: str
    move_a: int  # metres A is driven back
    move_b: int


def win(loser: str, cause: str) -> int:
    winner = "B" if loser == "A" else "A"
    if cause == "fall":
        return END[f"{winner} wins: {loser} falls from the ledge"]
    return END[f"{winner} wins: {cause}"]


def checked_player(player: str) -> str:
    if player not in ("a", "b"):
        check_choice("player", player, ("a", "b"))
    return player
