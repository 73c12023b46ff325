"""``duel profile show FILE`` and ``duel profile validate FILE``."""

from __future__ import annotations

import envs

from ..profiles import load_profile
from ..temperaments import load_personality_data, personality_names
from .common import emit_json, format_table, percent

NOT_MEASURED = "not measured"
#: a situation class that holds in more of the decisions than this tells a GM nothing
#: beyond "overall", so the report leaves it out
TELLS_NOTHING = 0.9


def validate_document(args) -> dict:
    """The one document ``duel profile validate --json`` prints."""
    profile = load_profile(args.file)
    size = len(profile.table) if profile.kind == "tabular" else None
    return {"file": args.file, "valid": True, "schema": profile.document["schema"],
            "system": profile.system, "side": profile.side, "kind": profile.kind,
            "observations": size}


def show_document(args) -> dict:
    """The one document ``duel profile show --json`` prints."""
    return load_profile(args.file).metadata


def show_text(args) -> str:
    """What ``duel profile show`` prints: the profile in words."""
    profile = load_profile(args.file)
    return "\n".join(_header(profile) + _metrics(profile) + _tendencies(profile)
                     + _exploit(profile))


def run_validate(args) -> int:
    if args.json:
        emit_json(validate_document(args))
        return 0
    profile = load_profile(args.file)
    size = len(profile.table) if profile.kind == "tabular" else None
    what = f"tabular policy over {size} observations" if size is not None else "network policy"
    print(f"{args.file}: a valid {profile.document['schema']} profile "
          f"({profile.system}, side {profile.side}, {what})")
    return 0


def run_show(args) -> int:
    if args.json:
        emit_json(show_document(args))
        return 0
    print(show_text(args))
    return 0


def _header(profile) -> list[str]:
    document = profile.document
    options = profile.options
    sheets = [f"{side.upper()}: " + _words(options.get(side))
              for side in ("a", "b") if isinstance(options.get(side), dict)]
    rest = ", ".join(f"{k}={_words(v)}" for k, v in options.items()
                     if k not in ("a", "b") and v is not None)
    lines = [f"Profile {profile.name} ({document['schema']}): {profile.system}, "
             f"plays side {profile.side.upper()}", *sheets]
    if rest:
        lines.append(f"Options: {rest}")
    if profile.personality:
        name, strength = profile.personality["name"], profile.personality["strength"]
        described = _description(profile.system, name)
        win = profile.personality.get("win")
        whom = ("the equilibrium" if profile.personality.get("against") == "equilibrium"
                else "the best reply")
        level = (f"strength {strength:g}" if win is None else
                 f"winning {100 * win:.1f}% against {whom} (strength {strength:.2f})")
        lines.append(f"Personality: {name}, {level}"
                     + (f" ({described})" if described else ""))
        weakest = _described_from(profile.system)
        if described and weakest is not None and strength < weakest:
            lines.append(f"  (its description holds from strength {weakest:g} on; this "
                         "weaker one plays close to sound play)")
    size = f"tabular over {len(profile.table)} observations" if profile.kind == "tabular" \
        else "a network"
    source = f", {profile.source} policy" if profile.source else ""
    lines.append(f"Policy: {size}{source}")
    training = document.get("training") or {}
    if training.get("reason"):
        lines.append(f"Why this policy: {training['reason']}")
    lines.append(f"Made {document['created']} with duel-solver {document['package_version']}, "
                 f"ruleset {document['ruleset_hash']}")
    return lines


def _words(value) -> str:
    """A recorded value as a person types it on the command line (``fencing=GD``,
    ``PR:0.25,AV:0.75``, ``true``), never a Python repr."""
    if isinstance(value, dict):
        if value and all(isinstance(v, int | float) and not isinstance(v, bool)
                         for v in value.values()):
            return ",".join(f"{k}:{v:.4g}" for k, v in value.items())
        return ",".join(k if v is True else f"{k}={_words(v)}" for k, v in value.items()
                        if v is not None and v is not False)
    if isinstance(value, list | tuple):
        return "/".join(_words(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _telling(rows: list[dict]) -> list[dict]:
    """The rows worth a GM's reading: "overall", and the situation classes that hold in
    at most ``TELLS_NOTHING`` of the decisions (the others say what "overall" says)."""
    return [row for row in rows
            if row["name"] == "overall" or row.get("reach", 0.0) <= TELLS_NOTHING]


def _description(system: str, name: str) -> str:
    try:
        return personality_names(system).get(name, "")
    except Exception:  # a profile of a system without personality data still shows
        return ""


def _described_from(system: str) -> float | None:
    """The weakest strength at which the system's descriptions hold (its claims)."""
    try:
        return load_personality_data(system).claims_from
    except Exception:  # as _description
        return None


def _metrics(profile) -> list[str]:
    metrics = profile.metrics
    method = metrics.get("exploitability_method")
    if method and not metrics.get("exact"):
        return _estimated(metrics, method)
    if not metrics.get("exact"):
        return ["", metrics.get("note", "No exact metrics.")]
    rows = [["value of the duel (equilibrium)", _number(metrics, "game_value", "+.4f")],
            ["value against a best responder",
             _number(metrics, "value_against_best_response", "+.4f")],
            ["exploitability (value lost)", _number(metrics, "exploitability", ".4f")]]
    for key, label in (("against_equilibrium", "against the equilibrium"),
                       ("against_best_response", "against a best responder")):
        result = metrics.get(key)
        rows.append([f"{label}: win / draw / loss",
                     f"{percent(result['win'])} / {percent(result['draw'])} / "
                     f"{percent(result['loss'])}" if result else NOT_MEASURED])
    lines = ["", "Metrics (exact, from the profile's side):",
             format_table(["metric", "value"], rows)]
    if method:
        lines.append(f"Exploitability measured {method}.")
    return lines


def _estimated(metrics: dict, method: str) -> list[str]:
    """Hidden information beyond the exact solver's reach: estimates, said as such."""
    rows = [["value against a trained exploiter",
             _number(metrics, "value_against_best_response", "+.4f")],
            ["value in self-play (against its training partner)",
             _number(metrics, "self_play_value", "+.4f")],
            ["exploitability (value lost, estimated)",
             _number(metrics, "exploitability", ".4f")
             + (f" +- {metrics['exploitability_interval']:.4f}"
                if "exploitability" in metrics else "")]]
    return ["", "Metrics (estimated, from the profile's side):",
            format_table(["metric", "value"], rows),
            f"Exploitability measured {method}."]


def _number(metrics: dict, key: str, spec: str) -> str:
    """A metric formatted, or "not measured": every metric is optional in the schema."""
    return format(metrics[key], spec) if key in metrics else NOT_MEASURED


def _tendencies(profile) -> list[str]:
    rows_in = _telling(profile.metrics.get("situations") or [])
    if not rows_in:
        return []
    lines = ["", f"Tendencies by situation (how often it plays each action; {_weighting(profile)};"
             " reach = share of its decisions; situations that hold in more than "
             f"{TELLS_NOTHING:.0%} of them are left out):"]
    for title, columns in _columns(profile, rows_in):
        rows = [[row["name"], percent(row["reach"]),
                 *(f"{100 * share:.0f}%" for share in _shares(row, columns).values()),
                 *([row["most_frequent"]] if title is None else [])] for row in rows_in]
        header = ["situation", "reach", *columns, *(["mostly"] if title is None else [])]
        lines += [*([f"{title}:"] if title else []), format_table(header, rows), ""]
    lines += [f"  {row['name']}: {row['text']}" for row in rows_in]
    return lines


def _columns(profile, rows: list[dict]) -> list[tuple[str | None, dict[str, list[str]]]]:
    """The tables' columns: each action, or, for a system whose actions have parts
    (Pathfinder's initiative skill, order and plan: thirty actions), one table per part
    with a column per value, each the actions that have it. Actions never played in
    any situation are left out."""
    played = [a for a in profile.action_names if any(row["frequencies"].get(a, 0.0) > 0
                                                     for row in rows)]
    known = envs.systems().get(profile.system)
    split = known.action_parts if known is not None else None
    if split is None:
        return [(None, {action: [action] for action in played})]
    tables: dict[str, dict[str, list[str]]] = {}
    for action in played:
        for part, value in split(action).items():
            tables.setdefault(part, {}).setdefault(value, []).append(action)
    return list(tables.items())


def _shares(row: dict, columns: dict[str, list[str]]) -> dict[str, float]:
    return {name: sum(row["frequencies"].get(a, 0.0) for a in actions)
            for name, actions in columns.items()}


def _exploit(profile) -> list[str]:
    rows = _telling(profile.metrics.get("exploit") or [])
    if not rows:
        return []
    return ["", f"How to exploit it (what a best responder plays; {_weighting(profile)}, "
            "as above):", *(f"  - {row['text']}" for row in rows)]


def _weighting(profile) -> str:
    weighting = profile.metrics.get("weighting")
    if weighting:
        return weighting
    against = profile.metrics.get("tendencies_against", "its opponent")
    return f"against {against}"
