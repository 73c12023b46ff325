"""Castle Falkenstein card duel: the rules of ``docs/systems/falkenstein.md``.

Every [default] of the rules is data in ``rulesets/falkenstein.toml``, compiled once
into lookup tables (``ruleset.py``), so ``outcomes`` is a handful of tuple look-ups.
``game.py`` holds the rules, ``words.py`` the presentation, ``build.py`` the checks
that cross options; this module declares the system's schema.

Readings taken where the rules leave a combination open (each one is tested):

- A fall from the ledge puts the faller out of the duel, as HC does (the seed: "précipité
  dans l'abîme vers une mort inévitable"). Under first blood it ranks with HC, above every
  other wound; a fall against HC or against another fall is "draw: both out", a fall
  against a lesser wound loses.
- A corps-à-corps push at the ledge with less room behind the loser than the push is a
  fall (or, with ``ledge=jump``, a jump), as a retreat with less than 2 m would be; at a
  wall the push moves him as far as it allows.
- With ``ledge=jump`` two jumps in one exchange are independent feats; if both land, the
  two moves cancel out, as two retreats do. A landed jump is no blood.
- A duel that ends keeps the positions and Health the exchange produced; round and
  exchange stay those of the last exchange, and the Rests it played count.
- Weapon size classes are checked only in disciplines that wound with weapons; wrestling,
  boxing, sorcery and chess ignore the weapons on the sheets.
- Without a field (sorcery, chess) R does nothing at all, so nothing turns into BP.
- Under surrender a BT or BM wound costs Health and ends the duel only below 0 Health; a
  disarm ends it even if the disarmer took such a wound in the same exchange.
- Under first blood an R turned into BP at the wall is a BP like any other (equal BPs
  draw); the label only records where it happened.
- ``hidden_levels`` is the generic hidden sheets (``envs.hidden``): one sheet per level of
  the discipline's ability in the prior, the rest of the sheet (Health included) as given;
  ``prior_a`` / ``prior_b`` without it is an error (it would do nothing).
- With ``disarm=attacker_chooses`` the choice comes before any jump at the ledge in the
  same exchange is resolved; under first blood a disarm counts only if nobody bleeds.
- With ``movement=circle`` a press is a feat on the Fencing role's level (hidden levels
  refuse movement: no value of it is checked there yet); two circles re-centre once.
"""


from __future__ import annotations

import tomllib
from importlib import resources

from ..schema import Examples, Field, SheetSpec, SystemSpec
from .build import build, hidden_priors
from .game import FalkensteinGame
from .ruleset import (
    CONVENTIONS,
    CORPS_A_CORPS_TIES,
    DISARMS,
    EDGES,
    LEDGES,
    MAX_ROUNDS,
    MOVEMENTS,
)
from .state import ACTIONS, ENDINGS, State, pair_words

_DEFAULTS = tomllib.loads(
    resources.files("envs").joinpath("rulesets", "falkenstein.toml").read_text("utf-8"))
LADDER = tuple(_DEFAULTS["ladder"])
_LEVEL_NAMES = dict(zip(_DEFAULTS["level_names"], LADDER, strict=True))


def _level_field(ability: str) -> Field:
    return Field(ability, "choice", f"{ability.capitalize()} level", default=LADDER[1],
                 choices=LADDER, aliases=_LEVEL_NAMES)


def _prior_field(side: str) -> Field:
    return Field(f"prior_{side}", "weights",
                 f"prior over {side.upper()}'s level when hidden (default: the ruleset's)",
                 choices=LADDER, aliases=_LEVEL_NAMES)


SYSTEM = SystemSpec(
    name="falkenstein",
    title="Castle Falkenstein card duel",
    options=(
        Field("convention", "choice", "how the duel ends (default: the ruleset's, if the "
              "discipline allows it)", choices=CONVENTIONS),
        Field("max_rounds", "int", "rounds of three exchanges before the seconds stop it",
              default_key="max_rounds", low=1, high=MAX_ROUNDS),
        Field("field_m", "int", "length of the ground in metres (even)",
              default_key="field_m", low=2, high=12),
        Field("edge", "choice", "what lies behind the ground", default_key="edge",
              choices=EDGES),
        Field("ledge", "choice", "at a ledge with no room: a jump (a feat) or a fall",
              default_key="ledge", choices=LEDGES),
        Field("disarm", "choice", "a partial wound turned into a disarm: by the convention "
              "(surrender only) or at the attacker's choice", default_key="disarm",
              choices=DISARMS),
        Field("movement", "choice", "between exchanges: no movement, or stand / circle / "
              "press", default_key="movement", choices=MOVEMENTS),
        Field("corps_a_corps_tie", "choice", "corps-à-corps between equal strengths",
              default_key="corps_a_corps_tie", choices=CORPS_A_CORPS_TIES),
        Field("sabre_uses_physique", "bool", "sabre damage looked up by Physique",
              default=False),
        Field("discipline", "choice", "the kind of duel", default="fencing",
              choices=tuple(_DEFAULTS["disciplines"])),
        Field("hidden_levels", "bool", "levels drawn from priors and kept secret",
              default=False),
        _prior_field("a"),
        _prior_field("b"),
    ),
    sheet=SheetSpec(
        fields=tuple(_level_field(ability) for ability in _DEFAULTS["abilities"]) + (
            Field("health", "int", "Health (default: by Physique and Courage)", low=0,
                  high=99),
            Field("weapon", "choice", "the weapon", default_key="default_weapon",
                  choices=tuple(_DEFAULTS["weapons"])),
            Field("name", "text", "the duellist's name"),
        ),
        example="fencing=GD,physique=AV",
    ),
    build=build,
    action_words=lambda game, state, name: pair_words(name),
    examples=Examples(sheet_a="fencing=GR,physique=AV", sheet_b="fencing=GD",
                      state="round=2,exchange=1,owed_a=1", mix="AA:0.5,DR:0.5",
                      quick={"max_rounds": 2},
                      variants={"surrender": {"convention": "surrender"},
                                "to_the_death": {"convention": "to_the_death"},
                                "ledge": {"edge": "ledge", "field_m": 4},
                                "disarm": {"disarm": "attacker_chooses",
                                           "convention": "surrender"},
                                "movement": {"movement": "circle"},
                                "close_again": {"corps_a_corps_tie": "close_again"},
                                "open_ground": {"edge": "open"},
                                "sorcery_talent": {
                                    "discipline": "sorcery", "convention": "surrender",
                                    "a": "sorcery=GR", "b": "sorcery=GD",
                                    "ruleset": {"disciplines": {"sorcery": {
                                        "wounds": "talent",
                                        "conventions": ["first_blood", "surrender"]}}}},
                                "hidden_levels": {"hidden_levels": True, "max_rounds": 1},
                                "hidden_sheet": {"a": None, "max_rounds": 1, "a_prior":
                                                 "fencing=GR,physique=AV@1;fencing=EXC@1"}}),
    pairing=lambda game: game.discipline.ability,
    hidden_priors=hidden_priors,
)

__all__ = ["ACTIONS", "ENDINGS", "SYSTEM", "FalkensteinGame", "State"]
