"""The states of an Uchronia duel and the names they are made of: the actions of both
modes, the observation, the Atouts, the endings, and a pistol duel's ``Shot`` and a
melee's ``Bout``."""

from __future__ import annotations

from typing import NamedTuple

MODES = ("pistol", "melee")
#: whose melee weapon dice count (``melee.weapon_dice``)
WEAPON_DICE = ("always", "against_unarmed", "difference")
#: what a failed break-off costs (``melee.failed_break_off``)
FAILED_BREAK_OFF = ("helpless", "round_lost")
PISTOL_ACTIONS = ("fire", "aim", "advance", "reload", "fire_moving")
MELEE_ACTIONS = ("fight", "grapple", "break_off", "press", "disarm", "free", "wait")
# One action list for both modes (masks tell what each mode allows), so one set of
# temperaments and one observation layout serve the whole system.
ACTIONS = PISTOL_ACTIONS + MELEE_ACTIONS
FIRE, AIM, ADVANCE, RELOAD, FIRE_MOVING = range(5)
FIGHT, GRAPPLE, BREAK_OFF, PRESS, DISARM, FREE, WAIT = range(5, 12)
#: the observation, from the observer's side, the same layout in both modes (fields
#: the mode does not use read 0); ``mode`` is 0 for pistol, 1 for melee
OBSERVATION = ("mode", "turn", "band", "own_health", "opp_health", "own_ammo", "opp_ammo",
               "own_aim", "opp_aim", "own_grip", "opp_grip", "own_fumble", "opp_fumble",
               "chooser", "intent", "margin", "ending")
INTENTS = ("fight", "grapple")
MARGINS = ("minor", "significant", "exceptional")
MINOR, SIGNIFICANT, EXCEPTIONAL = range(3)
# a duellist's status after a shot or a wound: health levels 0..2, then these
OUT, KILLED = 3, 4
ATOUTS = ("adresse", "tireur", "sang_froid", "colosse", "athlete", "escrimeur",
          "pugiliste", "constitution", "volonte")
ATOUT_ALIASES = {
    "adresse": ("adresse exceptionnelle",), "tireur": ("excellent tireur",),
    "sang_froid": ("sang-froid exceptionnel",), "colosse": (),
    "athlete": ("athlete accompli",), "escrimeur": ("excellent escrimeur",),
    "pugiliste": ("excellent pugiliste",), "constitution": ("constitution robuste",),
    "volonte": ("volonte de fer",),
}
WEAPON_ALIASES = {
    "bare hands": "none", "mains nues": "none", "fists": "none", "unarmed": "none",
    "pistolet de duel": "duel_pistol", "pistol": "duel_pistol",
    "revolver de poche": "pocket_revolver", "sword": "epee", "knife": "couteau",
    "cudgel": "matraque", "cane": "canne", "axe": "hache", "spear": "lance",
}

PISTOL_ENDINGS = ("", "A wins: B is killed", "A wins: B is out of combat",
                  "B wins: A is killed", "B wins: A is out of combat",
                  "draw: both fall", "draw: the seconds stop the duel")
MELEE_ENDINGS = ("", "A wins: B is out of combat", "A wins: B is disarmed",
                 "A wins: B is immobilised", "A wins: B flees",
                 "B wins: A is out of combat", "B wins: A is disarmed",
                 "B wins: A is immobilised", "B wins: A flees",
                 "draw: both walk away", "draw: the seconds stop the fight")
P_KILLED_A, P_OUT_A, P_KILLED_B, P_OUT_B, P_BOTH, P_TIME = 1, 2, 3, 4, 5, 6
M_OUT, M_DISARMED, M_IMMOBILISED, M_FLEES = 0, 1, 2, 3  # + 1 (A wins) or + 5 (B wins)
M_WALK, M_TIME = 9, 10


class Shot(NamedTuple):
    """A pistol duel between turns: turns played, distance band (0 très faible ..
    3 grande), health levels (0 Indemne, 1 Blessé, 2 Grièvement Blessé), rounds loaded,
    aim held (1 after an ``aim``), and how it ended (0: not over)."""

    turn: int
    band: int
    health_a: int
    health_b: int
    ammo_a: int
    ammo_b: int
    aim_a: int
    aim_b: int
    ending: int = 0


class Bout(NamedTuple):
    """A melee between rounds, or after a roll while the winner chooses.

    ``grip_*`` is the grapple penalty each side suffers; ``fumble_*`` is 1 if that side
    fumbled his last Confrontation roll (one die less this round). While a winner
    chooses, ``chooser`` is 1 (A) or 2 (B), ``intent`` his intent (0 fight, 1 grapple)
    and ``margin`` its class (1 significant, 2 exceptional)."""

    round: int
    health_a: int
    health_b: int
    grip_a: int
    grip_b: int
    fumble_a: int
    fumble_b: int
    chooser: int = 0
    intent: int = 0
    margin: int = 0
    ending: int = 0


def other(side: str) -> str:
    """The other side: "a" <-> "b"."""
    return "b" if side == "a" else "a"
