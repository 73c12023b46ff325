"""Houses of the Blooded: the dice-and-wagers duel (docs/systems/blooded.md).

A beat: gather dice (Prowess + The Sword + Style spent + an aspect invoke + the rank of
the opponent's highest Injury, tagged), on the first beat a sealed strike bid that
burns the dice, then both set wagers aside in secret and roll the rest against 10.
The victor and the defeated then act in turn: Blind, cancellation one for one, the
defeated's Bind, and the victor's maneuvers (Feint, then Injure, Lunge, Bash, Bind,
Riposte or Parry). Unused wagers become Style.

Every chance event (the risk, a Bash) is an exact distribution of sums of d6. Each
choice made after the dice is a step of the player who makes it (the other waits).
Choices that can never help (Blind against a foe without wagers or with The Sword 0,
wagers into an Injury beyond its cap) are not offered, and steps with one sensible
choice are played at once: they leave every value as is. ``reductions.py`` holds them
all, behind the option ``reductions`` (on by default; off, the game is the plain rules).

The seed's readings beside the specification's are ruleset data (``declaration``, also an
option; ``bid_tie``, ``riposte_rolls``, ``bash_cancellable``), listed in
``docs/systems/blooded.md``; under ``declaration = "before"`` each beat has two public
steps before the risk (``DECLARE``, ``RESPOND``) and the victor makes what he declared.

The beats left are a counter (``solver.counters``): once the invokes are spent every
beat plays by the same rules, the last included, so a state without its beats left (a
*core*) has the same steps whatever they are; ``cores.py`` builds the cores at once.

The package: ``state.py`` (the state and the data it is made of), ``dice.py`` (the
exact dice), ``rules.py`` (the rules of a beat, as ``BloodedGame``), ``reductions.py``
(the state-space reductions), ``words.py`` (the presentation), ``counters.py``,
``cores.py`` and ``beats.py`` (the fast paths); this module declares the schema.
"""

from __future__ import annotations

import tomllib
from importlib import resources

from envs.schema import Examples, Field, SheetSpec, SystemSpec

from .dice import bash_split, risk_split, success_probability
from .footprint import footprint
from .rules import STYLE_BANK_LIMIT, BloodedGame, build, compile_rules
from .state import (
    BID,
    BLIND,
    CANCEL,
    CHOOSE,
    CONVENTIONS,
    DBIND,
    DECLARATIONS,
    DRAW,
    ENDINGS,
    MANEUVERS,
    OVER,
    PHASES,
    POOLS,
    RCANCEL,
    RISK,
    STATE_FIELDS,
    VICTOR,
    State,
)

_DEFAULTS = tomllib.loads(
    resources.files("envs").joinpath("rulesets", "blooded.toml").read_text("utf-8"))


#: the short duel of the example variants that need maneuvers or Style
_SHORT = {"convention": "first_blood", "max_beats": 2}


def _ability(name: str, text: str, high: int = 5) -> Field:
    return Field(name, "int", text, default_key=f"sheet.{name}", low=0, high=high)


SYSTEM = SystemSpec(
    name="blooded",
    title="Houses of the Blooded dice-and-wagers duel",
    options=(
        Field("convention", "choice", "how the duel ends", default_key="convention",
              choices=CONVENTIONS, aliases={"first": "first_blood", "death": "mortal"}),
        Field("max_beats", "int", "beats with a risk before the duel is stopped (a draw)",
              default_key="max_beats", low=1, high=200),
        Field("bid_every_beat", "bool", "a strike bid on every beat, not only the first",
              default_key="bid_every_beat"),
        Field("declaration", "choice", "when the maneuver is declared: after the dice, "
              "by the victor; before: the aggressor first, the defender knowing it, "
              "before the secret wagers (the seed's step 3)", default_key="declaration",
              choices=DECLARATIONS),
        Field("pool", "choice", "how long the dice pool lasts: every_beat, gathered anew each "
              "beat; whole_duel, the first beat's dice for the whole duel, bids and wagers "
              "spent from it (the seed's \"eight dice left for the duel\")",
              default_key="pool", choices=POOLS),
        Field("reductions", "bool", "drop the choices that can never help and play the "
              "steps with one sensible choice at once (the same values, fewer states); "
              "false: the plain rules", default=True),
    ),
    sheet=SheetSpec(
        fields=(_ability("prowess", "the Prowess virtue"),
                _ability("sword", "The Sword skill"),
                _ability("strength", "Strength (Lunge, Bash)"),
                _ability("athletics", "Athletics (Bash)"),
                # the bank cap in force is checked when the duel is built (a ruleset may
                # raise it); here only the most any ruleset allows
                _ability("style", "Style banked in the sword, at most the ruleset's "
                         f"style_bank_cap ({_DEFAULTS['style_bank_cap']} by default)",
                         high=STYLE_BANK_LIMIT),
                _ability("invokes", "aspect invokes for this duel (+"
                         f"{_DEFAULTS['invoke_dice']} dice each beat)", 50),
                *(Field(m, "flag", f"knows the {m.capitalize()} maneuver",
                        default_key=f"sheet.{m}") for m in MANEUVERS)),
        reference_key="sheets",
        example="prowess=3,sword=3,feint"),
    build=build,
    footprint=footprint,
    examples=Examples(sheet_a="prowess=2,sword=1", sheet_b="prowess=1,sword=2",
                      state="beat=2,phase=risk,aggressor=1,inj_a=2", mix="0:1,1:1,2:2",
                      quick={"max_beats": 3},
                      # the seed's readings (docs/systems/blooded.md), each on a short duel
                      variants={"first_blood": {"convention": "first_blood"},
                                "bid_tie": {"ruleset": {"bid_tie": "coin"},
                                            "convention": "first_blood"},
                                "declaration": {"declaration": "before",
                                                "a": "prowess=2,sword=1,feint,riposte,bash",
                                                "b": "prowess=1,sword=2,bash,bind",
                                                **_SHORT},
                                "riposte_rolls": {"ruleset": {"riposte_rolls": True},
                                                  "a": "prowess=2,sword=1,riposte",
                                                  "b": "prowess=1,sword=2,riposte", **_SHORT},
                                "bash_cancellable": {"ruleset": {"bash_cancellable": True},
                                                     "a": "prowess=2,sword=1,bash",
                                                     "b": "prowess=1,sword=2,bash", **_SHORT},
                                "chosen_spend": {"ruleset": {"auto_spend_style": False},
                                                 "a": "prowess=2,sword=1,style=1",
                                                 "b": "prowess=1,sword=2,style=2", **_SHORT},
                                "whole_duel": {"ruleset": {"pool": "whole_duel"},
                                               "convention": "first_blood"},
                                "hidden_sheet": {"a": None, "max_beats": 1, "a_prior":
                                                 "prowess=2,sword=1@1;prowess=1,sword=1@1"}},
                      counters={"a": "prowess=2,sword=1,feint,riposte",
                                "b": "prowess=1,sword=2,style=2,bash,blind,bind",
                                "convention": "first_blood", "max_beats": 3}),
    pairing=None,
    action_words=lambda game, state, name: game.action_words(state, name),
)

__all__ = ["BID", "BLIND", "CANCEL", "CHOOSE", "CONVENTIONS", "DBIND", "DRAW", "ENDINGS",
           "MANEUVERS", "OVER", "PHASES", "RCANCEL", "RISK", "STATE_FIELDS", "SYSTEM",
           "VICTOR", "BloodedGame", "State", "bash_split", "build", "compile_rules",
           "risk_split", "success_probability"]
