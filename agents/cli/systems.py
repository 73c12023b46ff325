"""``duel systems``: the duel systems, their status and options."""

from __future__ import annotations

import envs

from .common import add_json, emit_json, format_table

# given as --a, --b and --ruleset rather than -o
SHEET_FLAGS = ("a", "b", "ruleset")


def register(subparsers) -> None:
    parser = subparsers.add_parser("systems", help="list the duel systems and their options")
    add_json(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    registry = envs.systems()
    if args.json:
        emit_json([{
            "name": s.name, "title": s.title, "status": s.status,
            "options": [{"name": o.name, "type": o.kind.__name__, "default": o.default,
                         "choices": list(o.choices), "help": o.help} for o in s.options],
        } for s in registry.values()])
        return 0
    print(format_table(["system", "status", "title"],
                       [[s.name, s.status, s.title] for s in registry.values()]))
    for s in registry.values():
        if s.options:
            print(f"\noptions of {s.name} (-o KEY=VALUE; sheets with --a / --b):")
            for o in s.options:
                if o.name in SHEET_FLAGS:
                    continue
                choices = f" [{'|'.join(o.choices)}]" if o.choices else ""
                print(f"  {o.name:<20} {o.help}{choices}")
    return 0
