"""``duel systems``: the duel systems, their status, options and sheets."""

from __future__ import annotations

import envs
from envs.rulesets import load_ruleset

from .common import emit_json, format_table, plain


def _field(entry, ruleset: dict | None) -> dict:
    default = entry.default_value(ruleset) if ruleset is not None else entry.default
    return {"name": entry.name, "type": entry.kind, "accepts": entry.type_text(),
            "default": default, "choices": list(entry.choices), "help": entry.help}


def _describe(spec) -> dict:
    ruleset = load_ruleset(spec.name, None, spec.ruleset_file) if spec.implemented else None
    document = {"name": spec.name, "title": spec.title, "status": spec.status,
                "options": [_field(o, ruleset) for o in spec.options],
                "sheet": [_field(f, ruleset) for f in spec.sheet.fields],
                "reference_sheets": list(spec.sheet.references(ruleset or {}))}
    if spec.examples is not None:
        document["examples"] = vars(spec.examples)
    return document


def document(args=None) -> list[dict]:
    """The one document ``duel systems --json`` prints (the web's ``GET /api/systems``)."""
    return [_describe(spec) for spec in envs.systems().values()]


def run(args) -> int:
    documents = document(args)
    if args.json:
        emit_json(documents)
        return 0
    print(format_table(["system", "status", "title"],
                       [[d["name"], d["status"], d["title"]] for d in documents]))
    for d in documents:
        if d["status"] != "implemented":
            continue
        print(f"\n{d['name']}: options (-o KEY=VALUE)")
        for o in d["options"]:
            print(f"  {o['name']:<20} {o['help']}; {o['accepts']}"
                  + (f" (default {plain(o['default'])})" if o["default"] is not None else ""))
        print(f"{d['name']}: sheet fields (--a / --b, e.g. --a {d['examples']['sheet_a']})"
              if "examples" in d else f"{d['name']}: sheet fields (--a / --b)")
        for f in d["sheet"]:
            print(f"  {f['name']:<20} {f['help']}; {f['accepts']}")
        if d["reference_sheets"]:
            print(f"  reference sheets: {', '.join(d['reference_sheets'])}")
    return 0
