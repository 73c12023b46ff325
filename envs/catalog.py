"""The systems and their options. Rules themselves live in each system's module and
ruleset file; this is only the table of contents the CLI and ``systems()`` show."""

from __future__ import annotations

from . import Option, System

SHEETS = (
    Option("a", dict, None, "character sheet of duellist A (mapping ability -> level)"),
    Option("b", dict, None, "character sheet of duellist B"),
    Option("ruleset", str, None, "TOML file overriding the system's [default] rules"),
)

FALKENSTEIN = System(
    name="falkenstein",
    title="Castle Falkenstein card duel",
    status="implemented",
    module="envs.falkenstein",
    options=SHEETS + (
        Option("convention", str, "first_blood", "how the duel ends",
               ("first_blood", "surrender", "to_the_death")),
        Option("max_rounds", int, None, "rounds of three exchanges before the seconds stop it"),
        Option("field_m", int, None, "length of the ground in metres (even, 2..12)"),
        Option("edge", str, None, "what lies behind the ground", ("wall", "ledge")),
        Option("sabre_uses_physique", bool, False, "sabre damage looked up by Physique"),
        Option("discipline", str, "fencing", "the kind of duel",
               ("fencing", "wrestling", "boxing", "sorcery", "chess")),
        Option("hidden_levels", bool, False, "levels drawn from priors and kept secret"),
        Option("prior_a", dict, None, "prior over A's level when hidden (level -> weight)"),
        Option("prior_b", dict, None, "prior over B's level when hidden"),
    ),
)

SYSTEMS = (
    FALKENSTEIN,
    System("blooded", "Houses of the Blooded dice-and-wagers duel", "planned"),
    System("uchronia", "Uchronia confrontations and pistol duel", "planned"),
    System("pathfinder", "Pathfinder 2e combat duel", "planned"),
)
