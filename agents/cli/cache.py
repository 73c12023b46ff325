"""``duel cache list|clear|path``: the answers kept between questions (``agents.store``);
its arguments are in ``arguments.cache``."""

from __future__ import annotations

from ..store import size_text
from .common import emit_json, format_table


def run_list(args) -> int:
    from ..store import AnswerStore, code_version
    store = AnswerStore()
    entries = store.entries()
    if args.json:
        emit_json({"directory": str(store.directory), "version": code_version(),
                   "entries": entries})
        return 0
    if not entries:
        print(f"No answers kept in {store.directory}.")
        return 0
    rows = [[entry["system"], entry["question"], _sheets(entry["options"]),
             size_text(entry["bytes"]), entry["created"] or "?",
             "yes" if entry["fresh"] else "no (recomputed when asked)"]
            for entry in entries]
    print(f"Answers kept in {store.directory}:")
    print(format_table(["system", "answer", "sheets", "size", "made", "current"], rows))
    total = sum(entry["bytes"] for entry in entries)
    print(f"{len(entries)} answer{'s' if len(entries) != 1 else ''}, {size_text(total)}.")
    return 0


def run_clear(args) -> int:
    from ..store import AnswerStore
    store = AnswerStore()
    freed = store.clear()
    if args.json:
        emit_json({"directory": str(store.directory), **freed})
    else:
        print(f"Removed {freed['removed']} file{'s' if freed['removed'] != 1 else ''} "
              f"({size_text(freed['bytes'])}) from {store.directory}.")
    return 0


def run_path(args) -> int:
    from ..store import AnswerStore
    store = AnswerStore()
    if args.json:
        emit_json({"directory": str(store.directory)})
    else:
        print(store.directory)
    return 0


def _sheets(options: dict) -> str:
    """Both sheets in a few words: the fields that are set."""
    def sheet(value) -> str:
        if not isinstance(value, dict):
            return str(value)
        return ",".join(k if v is True else f"{k}={v}" for k, v in value.items()
                        if v not in (None, False)) or "defaults"
    return " vs ".join(sheet(options.get(side)) for side in ("a", "b"))
