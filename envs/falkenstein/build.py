"""From checked options to a Castle Falkenstein game: the rules' cross-checks (which
conventions a discipline allows, Health by Physique and Courage) that a per-field schema
cannot express, and hidden levels read as the generic hidden sheets (``envs.hidden``)."""

from __future__ import annotations

from solver.errors import InputError

from ..rulesets import ruleset_hash
from ..schema import HiddenPriors, SystemSpec
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
    return {
        "convention": convention, "max_rounds": given["max_rounds"],
        "field_m": _field(given["field_m"], "field_m"), "edge": given["edge"],
        "corps_a_corps_tie": given["corps_a_corps_tie"], "ledge": given["ledge"],
        "disarm": given["disarm"], "movement": given["movement"],
        "sabre_uses_physique": given["sabre_uses_physique"], "discipline": discipline,
        "hidden_levels": False, "prior_a": None, "prior_b": None,
    }


#: the options of hidden levels, which the hidden duel records in place of its priors
HIDING = ("hidden_levels", "prior_a", "prior_b")


def hidden_priors(system: SystemSpec, options: dict, ruleset: dict) -> HiddenPriors | None:
    """``hidden_levels=true`` as hidden sheets: each side's sheet drawn from its prior over
    levels in the discipline's ability (``prior_a`` / ``prior_b``, else the ruleset's
    [prior]), the rest of the sheet as given. Takes the options of hidden levels and the
    sheets out of ``options``; None (with them left in) when levels are public. ``system``
    is Falkenstein's spec, whose option declarations convert them."""
    given = {name: system.option(name).convert(options[name], f"option {name}")
             if options.get(name) is not None else system.option(name).default_value(ruleset)
             for name in (*HIDING, "movement", "discipline", "edge", "ledge")}
    if not given["hidden_levels"]:
        for side in ("a", "b"):
            if given[f"prior_{side}"] is not None:
                raise InputError(f"prior_{side} applies only with hidden_levels=true")
        return None
    movement = given["movement"]
    if movement is not None and movement != "none":
        raise InputError(f"movement={movement} is not supported with hidden_levels yet "
                         "(no value of it is checked there); use movement=none")
    rules = compile_rules(ruleset)
    ability = rules.disciplines[given["discipline"]].ability
    if ability == rules.footwork_ability and given["edge"] == "ledge" and \
            given["ledge"] == "jump":
        # the former hidden levels jumped on the sheet's level, a drawn sheet jumps on the
        # drawn one: which reading holds is not settled, so neither is given
        raise InputError(f"discipline={given['discipline']} draws {ability}, the ability of "
                         "a jump at the ledge, so hidden_levels with edge=ledge and "
                         "ledge=jump is not supported yet; use ledge=fall or another edge")
    for name in HIDING:
        options.pop(name, None)
    priors, levels, sheets = {}, {}, {}
    for side in ("a", "b"):
        prior = given[f"prior_{side}"]
        weights = rules.prior if prior is None else _prior(
            prior, f"prior_{side}", rules.ladder, rules.level)
        sheets[side] = system.sheet.normalise(options.pop(side, None), side, ruleset)
        levels[side] = dict(zip(rules.ladder, weights, strict=True))
        priors[side] = [(_at_level(sheets[side], ability, level, side, rules), weight)
                        for level, weight in levels[side].items() if weight > 0]
    return HiddenPriors(priors, {"hidden_levels": True, "prior_a": levels["a"],
                                 "prior_b": levels["b"], **sheets})


def _at_level(sheet: dict, ability: str, level: str, side: str, rules: Rules) -> dict:
    """``sheet`` with ``level`` in ``ability``: only the level is drawn, so a Health that
    the sheet leaves to its Physique and Courage stays the sheet's own."""
    drawn = {key: value for key, value in sheet.items() if value is not None}
    drawn[ability] = level
    if sheet["health"] is None:
        own = _complete_sheet(sheet, side, rules)["health"]
        if _complete_sheet({**sheet, ability: level}, side, rules)["health"] != own:
            drawn["health"] = own
    return drawn
