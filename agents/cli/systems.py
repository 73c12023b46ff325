"""``duel systems``: the duel systems, their status, NPC personalities and reference
sheets; ``duel systems SYSTEM``: one system in full (options and sheet fields too)."""

from __future__ import annotations

import envs
from envs.rulesets import load_ruleset
from solver.errors import check_choice

from .common import emit_json, format_table, plain


def _field(entry, ruleset: dict | None) -> dict:
    default = entry.default_value(ruleset) if ruleset is not None else entry.default
    return {"name": entry.name, "type": entry.kind, "accepts": entry.type_text(),
            "default": default, "choices": list(entry.choices), "help": entry.help}


def _personalities(name: str) -> list[dict]:
    from ..temperaments import personality_names, systems_with_personalities
    if name not in systems_with_personalities():
        return []
    return [{"name": key, "description": text}
            for key, text in personality_names(name).items()]


def fields_under(spec, ruleset: dict | None) -> dict:
    """The options, sheet fields and reference sheets of ``spec`` as ``ruleset`` (the
    merged rules; None: a system not implemented) makes their defaults."""
    references = spec.sheet.references(ruleset or {})
    return {"options": [_field(o, ruleset) for o in spec.options],
            "sheet": [_field(f, ruleset) for f in spec.sheet.fields],
            "reference_sheets": list(references),
            "reference_sheet_fields": {key: dict(fields)
                                       for key, fields in references.items()}}


def _describe(spec) -> dict:
    ruleset = load_ruleset(spec.name, None, spec.ruleset_file) if spec.implemented else None
    document = {"name": spec.name, "title": spec.title, "status": spec.status,
                **fields_under(spec, ruleset),
                "personalities": _personalities(spec.name) if spec.implemented else []}
    if spec.examples is not None:
        document["examples"] = vars(spec.examples)
    return document


def document(args=None) -> list[dict] | dict:
    """The one document ``duel systems [SYSTEM] --json`` prints (the web's
    ``GET /api/systems``)."""
    chosen = getattr(args, "system", None)
    documents = _documents(chosen)
    return documents[0] if chosen is not None else documents


def _documents(chosen: str | None) -> list[dict]:
    known = envs.systems()
    if chosen is not None:
        check_choice("system", chosen, tuple(known))
    return [_describe(spec) for name, spec in known.items()
            if chosen is None or name == chosen]


def run(args) -> int:
    chosen = getattr(args, "system", None)
    documents = _documents(chosen)
    if args.json:
        emit_json(documents[0] if chosen is not None else documents)
        return 0
    if chosen is None:
        print(format_table(["system", "status", "title"],
                           [[d["name"], d["status"], d["title"]] for d in documents]))
        print("\n`duel systems SYSTEM` shows one in full: its options and sheet fields too.")
    for d in documents:
        if d["status"] != "implemented":
            continue
        print("")
        if chosen is not None:
            print(f"{d['name']}: {d['title']}")
            print("\n".join(_options_text(d)))
        print("\n".join(_people_text(d)))
    return 0


def _options_text(d: dict) -> list[str]:
    lines = [f"{d['name']}: options (-o KEY=VALUE)"]
    for o in d["options"]:
        lines.append(f"  {o['name']:<20} {o['help']}; {o['accepts']}"
                     + (f" (default {plain(o['default'])})" if o["default"] is not None else ""))
    lines.append(f"{d['name']}: sheet fields (--a / --b, e.g. --a {d['examples']['sheet_a']})"
                 if "examples" in d else f"{d['name']}: sheet fields (--a / --b)")
    for f in d["sheet"]:
        default = (f" (default {plain(f['default'])})"
                   if f["default"] not in (None, False, "") else "")
        lines.append(f"  {f['name']:<20} {f['help']}; {f['accepts']}{default}")
    return lines


def _people_text(d: dict) -> list[str]:
    """The personalities (--vs NAME[:STRENGTH]) and the reference sheets, each with its
    fields as a sheet on the command line gives them."""
    lines = []
    if d["personalities"]:
        lines.append(f"{d['name']}: personalities (--vs NAME[:STRENGTH])")
        lines += [f"  {p['name']:<12} {p['description']}" for p in d["personalities"]]
    if d["reference_sheet_fields"]:
        lines.append(f"{d['name']}: reference sheets (--a NAME, fields after it override)")
        for name, fields in d["reference_sheet_fields"].items():
            told = ", ".join(f"{key}={plain(value)}" for key, value in fields.items())
            lines.append(f"  {name:<12} {told}")
    return lines
