"""A JSON request becomes the parsed arguments of the matching ``duel`` command.

Each request key is a destination of that command's parser (``a``, ``b``, ``vs``,
``side``, ``state``, ``at_least``, ...), ``options`` a mapping of ``-o KEY=VALUE``; the
arguments are then parsed by the command's own parser, so the web accepts what the
command line accepts and refuses it with the same message. A sheet or a state may also be
a mapping (``{"sheet": "fighter", "hp": 20}``), which ``envs.make`` takes as it is.

Keys the server sets itself (files it writes, ``--json``, the answer store) are not
accepted from a request; uploaded files are named by the id their upload returned.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Mapping

from solver.errors import InputError

from ..cli.arguments import COMMANDS
from ..profiles import is_profile_path

#: what a request may not set: the server decides where files go and how it answers
SERVER_SET = frozenset({"json", "no_cache", "out", "resume", "file", "help", "command",
                        "action", "export_efg", "horizon"})
#: what a request may not set for one command: a sweep runs in the server's worker, with
#: the server's limit of cells, and writes no report file and no NPC library
SERVER_SET_FOR = {"sweep": frozenset({"max_cells", "backend", "address", "workers",
                                      "task_memory", "report", "personalities",
                                      "temperaments", "strength", "side", "batch", "quiet"})}
#: the most cells a sweep of the web screen solves (``duel sweep`` takes up to --max-cells)
SWEEP_MAX_CELLS = 200
#: the request keys naming an uploaded file by its id: key -> (its upload's kind, the
#: parser's destination)
UPLOADED = {"ruleset": ("ruleset", "ruleset"), "profile": ("profile", "file")}


class RequestError(InputError):
    """Bad input in a request, with the request field it is about (None: the whole)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


class _Raising(argparse.ArgumentParser):
    """The command's parser, its errors raised instead of printed and exited."""

    def error(self, message: str):
        raise InputError(message)


def command_parser(command: str, action: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``duel COMMAND [ACTION]`` (``COMMAND --help`` lists the same)."""
    root = _Raising(prog="duel")
    subparsers = root.add_subparsers(dest="command", parser_class=_Raising)
    COMMANDS[command](subparsers)
    parser = subparsers.choices[command]
    if action is not None:
        nested = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = nested.choices[action]
    return parser


def parse_request(command: str, request: object, uploads: Callable[[str, str], str],
                  action: str | None = None, server: list[str] = ()) -> argparse.Namespace:
    """``request`` (a JSON object) as the parsed arguments of ``duel COMMAND``, with
    ``--json`` and the ``server``'s own arguments; ``uploads(kind, id)`` gives the path
    of an uploaded file."""
    if not isinstance(request, Mapping):
        raise RequestError("the request must be a JSON object, e.g. "
                           '{"system": "falkenstein", "a": "fencing=GR", "b": "fencing=GD"}')
    parser = command_parser(command, action)
    refused = SERVER_SET | SERVER_SET_FOR.get(command, frozenset())
    actions = {a.dest: a for a in parser._actions if a.dest not in refused}
    argv: list[str] = []
    positional: list[str] = []
    kept: dict[str, object] = {}
    dests = _dests(parser)
    for key, value in request.items():
        if key == "options" and "options" in actions:
            argv += _options(value)
        elif key in UPLOADED and UPLOADED[key][1] in dests:
            kind, dest = UPLOADED[key]
            kept[dest] = _uploaded(uploads, kind, value, key)
            if dest == "file":   # a positional: parsed as a stand-in, then set
                positional.append(kept[dest])
        elif key == "vs" and isinstance(value, Mapping) and "vs" in actions:
            argv.append("--vs=" + _uploaded(uploads, "profile", value.get("profile"), "vs"))
        elif key == "vs" and is_profile_path(value):
            raise RequestError('a profile opponent is the id its upload returned, '
                               '{"vs": {"profile": ID}}; the server reads no path a '
                               'request names', key)
        elif key not in actions:
            allowed = ", ".join(sorted(set(actions) | {k for k, (_, d) in UPLOADED.items()
                                                       if d in dests}))
            raise RequestError(f"unknown field {key!r} for {command}; allowed: {allowed}", key)
        elif isinstance(value, Mapping):
            kept[key] = _mapping(key, value, as_text=command == "sweep")
        elif not actions[key].option_strings:
            positional.append(_text(value, key))
        else:
            argv += _argument(actions[key], key, value)
    try:
        args = parser.parse_args(argv + list(server) + (["--json"] if "json" in dests else [])
                                 + ["--", *positional])
    except InputError as error:
        raise RequestError(str(error), field_of(str(error), request)) from None
    for key, value in kept.items():
        setattr(args, key, value)
    args.command, args.action = command, action
    return args


def _dests(parser: argparse.ArgumentParser) -> set[str]:
    return {a.dest for a in parser._actions}


def _uploaded(uploads, kind: str, value: object, field: str | None = None) -> str:
    if not isinstance(value, str):
        raise RequestError(f"{field or kind} names an uploaded {kind} by the id its upload "
                           f"returned, got {value!r:.60}", field or kind)
    try:
        return uploads(kind, value)
    except InputError as error:
        raise RequestError(str(error), field or kind) from None


def _options(value: object) -> list[str]:
    if not isinstance(value, Mapping):
        raise RequestError(f"options must be a mapping OPTION -> value, got {value!r:.60}",
                           "options")
    argv = []
    for name, given in value.items():
        if given is None or given == "":
            continue   # a field left empty keeps the default
        argv += ["-o", f"{name}={_text(given, f'options.{name}')}"]
    return argv


def _text(value: object, field: str) -> str:
    """A JSON value as the command line writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    if isinstance(value, Mapping):   # weights: NAME:WEIGHT,...
        return ",".join(f"{k}:{_text(v, field)}" for k, v in value.items())
    raise RequestError(f"{field} must be a word, a number or true/false, got {value!r:.60}",
                       field)


def _mapping(key: str, value: Mapping, as_text: bool = False) -> dict | str:
    """A sheet as a mapping (kept as one: ``envs.make`` takes it; as the command line's
    text with ``as_text``: a sweep's grid writes into the text); a state as text."""
    for name, given in value.items():
        if not isinstance(name, str) or isinstance(given, list | dict):
            raise RequestError(f"{key} must map names to words, numbers or true/false, "
                               f"got {name!r:.40}: {given!r:.40}", key)
    if key == "state":
        return ",".join(f"{k}={_text(v, f'state.{k}')}" for k, v in value.items()
                        if v is not None and v != "")
    kept = {k: v for k, v in value.items() if v is not None and v != ""}
    if not as_text:
        return kept
    # the reference sheet first, a flag as its bare word, then FIELD=VALUE; a flag
    # turned off is said only over a reference sheet (which may have it on)
    over_sheet = "sheet" in kept
    words = [_text(kept.pop("sheet"), f"{key}.sheet")] if over_sheet else []
    for name, given in kept.items():
        if given is True:
            words.append(name)
        elif given is not False or over_sheet:
            words.append(f"{name}={_text(given, f'{key}.{name}')}")
    return ",".join(words)


def _argument(action: argparse.Action, key: str, value: object) -> list[str]:
    flag = action.option_strings[-1] if action.option_strings else None
    if action.nargs == 0:   # a switch such as --all-pairings
        if not isinstance(value, bool):
            raise RequestError(f"{key} is true or false, got {value!r:.60}", key)
        return [flag] if value else []
    if value is None:
        return []
    if isinstance(value, list) and action.nargs in ("+", "*"):
        return [flag, *(_text(v, key) for v in value)]
    if isinstance(value, list) and isinstance(action, argparse._AppendAction):
        return [f"{flag}={_text(v, key)}" for v in value]   # --grid=A --grid=B
    # FLAG=VALUE: a value that starts with "-" is not read as another flag
    return [f"{flag}={_text(value, key)}"]


# --- which field an error is about, for the page to mark it

_PATTERNS = (
    (r"\b([ab])'s (\w+)", lambda m: f"{m[1]}.{m[2]}"),
    (r"entry '([^']+)' on sheet ([ab])", lambda m: f"{m[2]}.{m[1]}"),
    (r"sheet ([ab])\b", lambda m: m[1]),
    (r"\boption '?(\w+)", lambda m: f"options.{m[1]}"),
    (r"state field '?(\w+)", lambda m: "state"),
    (r"\bstate\b|--state", lambda m: "state"),
    (r"--vs|opponent|\bmix\b", lambda m: "vs"),
    (r"personality|strength", lambda m: "personality"),
    (r"profile", lambda m: "vs"),
    (r"ruleset", lambda m: "ruleset"),
    (r"argument (?:--)?([\w-]+)", lambda m: m[1].replace("-", "_")),
    (r"--([\w-]+)", lambda m: m[1].replace("-", "_")),
)


def field_of(message: str, request: object) -> str | None:
    """The request field ``message`` (an InputError's) is about, where it names one: the
    field whose value it quotes, else the one its words name."""
    if isinstance(request, Mapping):
        quoted = set(re.findall(r"'([^']*)'", message))
        for key, value in request.items():
            if isinstance(value, str) and value in quoted:
                return str(key)
    for pattern, field in _PATTERNS:
        found = re.search(pattern, message)
        if found:
            return field(found)
    if isinstance(request, Mapping):
        for key in request:
            if re.search(rf"\b{re.escape(str(key))}\b", message):
                return str(key)
    return None
