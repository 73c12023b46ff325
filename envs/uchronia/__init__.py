"""Uchronia: the melee Confrontation and the pistol duel (``docs/systems/uchronia.md``).

Every [default] of the rules is data in ``rulesets/uchronia.toml``. Two modes:

- ``pistol`` (the default): the duel of timing. Each turn both secretly fire, aim,
  advance, reload or fire while moving; shots are Épreuves at the band the turn
  started at; the better shooter (more shooting Atouts) fires first.
- ``melee``: one Confrontation a round. Both secretly fight, grapple or break off; the
  winner's intent applies by margin; a winner who may disarm, or who is grappled and
  may free himself, chooses after the roll (a sequential step: the other waits).

The readings fixed by the specification are followed as written. Readings this package
had to choose beyond them (each tested, and listed in the README):

- Immobilisation by grappling compares the grapple counter with the victim's full
  Confrontation pool without penalties (3 + his melee Atouts, Excellent Pugiliste when
  unarmed or Excellent Escrimeur with a duel weapon, + weapon dice): once the counter
  reaches it he is immobilised.
- A winner against a failed break-off is a winner like any other: if grappled he may
  free himself instead, and an armed helpless breaker may be disarmed.
- A fumble (every die a 1) changes nothing about the roll it spoils: the totals compare
  as usual; it only costs a die next round.
- Terminal states keep only how the duel ended (and, in the pistol duel, the healths),
  so equal endings merge.

Where the seed reads otherwise than the specification, both readings are here, one key
apart (``docs/systems/uchronia.md`` lists them): ``melee.weapon_dice``,
``melee.failed_break_off``, ``pistol.aim_weapons`` and ``pistol.wound_breaks_aim`` (on
by default, as the seed says; ``false`` is the specification's list).

The package: ``state.py`` (the states and the names they are made of), ``dice.py``
(the exact dice), ``rules.py`` (the rules of both modes), ``words.py`` (their
presentation); this module declares the schema.
"""

from __future__ import annotations

from ..rulesets import default_ruleset
from ..schema import Examples, Field, SheetSpec, SystemSpec
from .dice import at_least, margin_class, pool, resistance
from .footprint import footprint
from .rules import Blade, Firearm, MeleeGame, PistolGame, build
from .state import (
    ACTIONS,
    ATOUT_ALIASES,
    ATOUTS,
    FAILED_BREAK_OFF,
    FIGHT,
    FIRE,
    FIRE_MOVING,
    MELEE_ACTIONS,
    MELEE_ENDINGS,
    MODES,
    OBSERVATION,
    PISTOL_ACTIONS,
    PISTOL_ENDINGS,
    WEAPON_ALIASES,
    WEAPON_DICE,
    Bout,
    Shot,
)

_DEFAULTS = default_ruleset("uchronia")
WEAPONS = tuple(_DEFAULTS["melee"]["weapons"]) + tuple(_DEFAULTS["pistol"]["weapons"])
BANDS = tuple(_DEFAULTS["pistol"]["bands"])


SYSTEM = SystemSpec(
    name="uchronia",
    title="Uchronia confrontations and pistol duel",
    options=(
        Field("mode", "choice", "pistol: the duel of timing; melee: one Confrontation a "
              "round", default_key="mode", choices=MODES),
        Field("max_turns", "int", "pistol turns played before the seconds call a draw",
              default_key="pistol.max_turns", low=1, high=200),
        Field("max_rounds", "int", "melee rounds before the seconds stop the fight",
              default_key="melee.max_rounds", low=1, high=200),
        Field("start_band", "choice", "distance band the pistol duel starts at",
              default_key="pistol.start_band", choices=BANDS,
              aliases={"tres faible": "tres_faible", "twenty paces": "moyenne",
                       "point blank": "tres_faible", "long": "grande"}),
        Field("weapon_dice", "choice", "melee weapon dice: always the wielder's own; "
              "against_unarmed, only against bare hands (the seed); difference, the "
              "better-armed side gets the difference", default_key="melee.weapon_dice",
              choices=WEAPON_DICE),
        Field("failed_break_off", "choice", "a failed melee break-off: helpless (his "
              "total counts as 0) or round_lost (the round passes, no Confrontation)",
              default_key="melee.failed_break_off", choices=FAILED_BREAK_OFF),
        Field("wound_breaks_aim", "bool", "a pistol wound that applies loses the "
              "victim's aim (the seed); false: aim survives every wound",
              default_key="pistol.wound_breaks_aim"),
    ),
    sheet=SheetSpec(
        fields=tuple(Field(name, "flag", str(_DEFAULTS["atouts"][name]), default=False,
                           aliases={alias: name for alias in ATOUT_ALIASES[name]})
                     for name in ATOUTS) + (
            Field("weapon", "choice", "melee weapon or firearm (default: bare hands in "
                  "melee, the duel pistol in the pistol duel)", choices=WEAPONS,
                  aliases=WEAPON_ALIASES),),
        reference_key="sheets",
        example="adresse,tireur,weapon=revolver"),
    build=build,
    footprint=footprint,
    examples=Examples(sheet_a="adresse,tireur", sheet_b="sang-froid",
                      state="band=1,aim_a=1", mix="fire:1,aim:2",
                      quick={"max_turns": 6},
                      # a bare-handed brawler against no weapon, a sword, a club: grapples,
                      # disarms and the grappled winner's choice all occur
                      variants={"melee": {"mode": "melee", "a": "pugiliste,athlete",
                                          "b": "", "max_rounds": 3},
                                "melee_epee": {"mode": "melee", "a": "pugiliste,athlete",
                                               "b": "weapon=epee", "max_rounds": 3},
                                "melee_matraque": {"mode": "melee", "a": "pugiliste,athlete",
                                                   "b": "weapon=matraque", "max_rounds": 3},
                                "long_range": {"a": "tireur,weapon=revolver", "b": "adresse",
                                               "start_band": "grande"},
                                # the seed's readings (docs/systems/uchronia.md)
                                "against_unarmed": {"mode": "melee", "a": "weapon=couteau",
                                                    "b": "", "max_rounds": 3,
                                                    "weapon_dice": "against_unarmed"},
                                "round_lost": {"mode": "melee", "a": "pugiliste,athlete",
                                               "b": "weapon=epee", "max_rounds": 3,
                                               "failed_break_off": "round_lost"},
                                "aim_kept": {"wound_breaks_aim": False},
                                "aim_weapons": {"b": "sang-froid,weapon=revolver", "ruleset": {
                                    "pistol": {"aim_weapons": ["duel_pistol"]}}},
                                "no_reload": {"ruleset": {"pistol": {"reload_per_turn": 0}}},
                                "hidden_sheet": {"a": None, "max_turns": 3,
                                                 "a_prior": "adresse,tireur@1;adresse@1"}}),
)

__all__ = ["ACTIONS", "ATOUTS", "BANDS", "FIGHT", "FIRE", "FIRE_MOVING", "MELEE_ACTIONS",
           "MELEE_ENDINGS", "MODES", "OBSERVATION", "PISTOL_ACTIONS", "PISTOL_ENDINGS",
           "SYSTEM", "WEAPONS", "Blade", "Bout", "Firearm", "MeleeGame", "PistolGame", "Shot",
           "at_least", "build", "margin_class", "pool", "resistance"]
