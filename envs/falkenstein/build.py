"""From checked options to a Castle Falkenstein game: the rules' cross-checks (which
conventions a discipline allows, priors only with hidden levels, Health by Physique and
Courage) that a per-field schema cannot express."""

from __future__ import annotations

from solver.errors import InputError

from ..rulesets import ruleset_hash
from .game import FalkensteinGame
from .ruleset import Rules, _field, _prior, _weapon_name, compile_rules


def build(ruleset: dict, options: dict) -> FalkensteinGame:
    """The game of ``options`` (checked by the schema) under ``ruleset`` (merged)."""
    rules = compile_rules(ruleset)
    resolved = _resolve_options(rules, options)
    sheets = {side: _complete_sheet(options[side], side, rules) for side in ("a", "b")}
    resolved = {"a": sheets["a"], "b": sheets["b"], "ruleset": options["ruleset"], **resolved}
    return FalkensteinGame(rules, resolved, ruleset_hash(ruleset))


def _complete_sheet(sheet: dict, side: str, rules: Rules) -> dict:
    """Levels as ladder codes; Health from Physique and Courage unless given."""
    out = {key: (rules.ladder[rules.level(value, f"{side}'s {key}")]
                 if key in rules.abilities else value) for key, value in sheet.items()}
    if out["health"] is None:
        out["health"] = rules.health[rules.level(out["physique"], "physique")][
            rules.level(out["courage"], "courage")]
    out["weapon"] = _weapon_name(out["weapon"], rules.weapons, f"weapon of {side}")
    return out


def _resolve_options(rules: Rules, given: dict) -> dict:
    discipline = given["discipline"]
    allowed = rules.disciplines[discipline].conventions
    default = rules.convention if rules.convention in allowed else allowed[0]
    convention = given["convention"] or default
    if convention not in allowed:
        raise InputError(f"convention {convention!r} is not allowed in {discipline}; "
                         f"allowed: {', '.join(allowed)}")
    hidden = given["hidden_levels"]
    if hidden and given["movement"] != "none":
        raise InputError(f"movement={given['movement']} is not supported with hidden_levels "
                         "(the card history would not record the moves); use movement=none")
    priors = {}
    for side in ("a", "b"):
        prior = given[f"prior_{side}"]
        if prior is not None and not hidden:
            raise InputError(f"prior_{side} applies only with hidden_levels=true")
        if hidden:
            weights = rules.prior if prior is None else _prior(
                prior, f"prior_{side}", rules.ladder, rules.level)
            priors[side] = dict(zip(rules.ladder, weights, strict=True))
    return {
        "convention": convention, "max_rounds": given["max_rounds"],
        "field_m": _field(given["field_m"], "field_m"), "edge": given["edge"],
        "corps_a_corps_tie": given["corps_a_corps_tie"], "ledge": given["ledge"],
        "disarm": given["disarm"], "movement": given["movement"],
        "sabre_uses_physique": given["sabre_uses_physique"], "discipline": discipline,
        "hidden_levels": hidden, "prior_a": priors.get("a"), "prior_b": priors.get("b"),
    }
