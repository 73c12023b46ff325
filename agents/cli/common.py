"""Arguments and output shared by the commands."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence

import envs
from envs.rulesets import load_ruleset
from solver.errors import InputError


def sheets(args: argparse.Namespace, mine: str | None = None) -> dict[str, dict]:
    """A's and B's sheets from --a/--b and --me/--them (--me is the sheet of --side)."""
    chosen = _by_side({"a": args.a, "b": args.b}, mine or args.side,
                      ("--me", args.me), ("--them", args.them), "sheet --{side}")
    return {side: sheet or "" for side, sheet in chosen.items()}


def priors(args: argparse.Namespace, mine: str | None = None) -> dict[str, str]:
    """The hidden sheets' priors by side, from --a-prior/--b-prior and --me-prior/
    --them-prior (text: ``envs.make`` checks it)."""
    chosen = _by_side({side: getattr(args, f"{side}_prior", None) for side in ("a", "b")},
                      mine or getattr(args, "side", "a"),
                      ("--me-prior", getattr(args, "me_prior", None)),
                      ("--them-prior", getattr(args, "them_prior", None)),
                      "prior --{side}-prior")
    return {f"{side}_prior": prior for side, prior in chosen.items() if prior is not None}


def _by_side(chosen: dict, mine: str, me: tuple, them: tuple, absolute: str) -> dict:
    """``chosen`` (by side, from the --a/--b flags) completed by the flags that name
    sides relative to ``mine`` (``me``/``them``: flag and value); naming a side twice is
    an error."""
    theirs = "b" if mine == "a" else "a"
    for side, (flag, given) in ((mine, me), (theirs, them)):
        if given is None:
            continue
        if chosen[side] is not None:
            raise InputError(f"{flag} names side {side.upper()}, whose "
                             f"{absolute.format(side=side)} already gives; use one of them")
        chosen[side] = given
    return chosen


def game_options(args: argparse.Namespace, mine: str | None = None) -> dict:
    """``envs.make``'s keyword arguments, still as text: the system's schema checks them."""
    options = sheets(args, mine)
    hidden = priors(args, mine)
    for side in ("a", "b"):
        if f"{side}_prior" in hidden:
            if options[side]:
                raise InputError(f"side {side.upper()} has both a sheet and a prior "
                                 f"(--{side}-prior); a side with a prior has no plain sheet")
            del options[side]
    options.update(hidden)
    if args.ruleset is not None:  # an empty path is an error, not the default rules
        options["ruleset"] = args.ruleset
    for name, text in args.options:
        if name in ("a", "b", "ruleset"):
            raise InputError(f"{name} is not given with -o; use --{name}")
        if name in options:
            raise InputError(f"option {name} is given twice")
        options[name] = text
    return options


def make_game(args: argparse.Namespace, mine: str | None = None):
    """The game of the command line; ``--me`` is the sheet of ``mine`` (``--side`` by
    default, the side the user plays)."""
    return envs.make(args.system, **game_options(args, mine))


def emit_json(document) -> None:
    # a batch of lines a write (json.dump writes each token apart: a second for a
    # knockout's report), never the whole text at once: a level-1 Pathfinder duel at 50
    # HP a side has a plan of 640 MB, which the whole text held three times over
    batch: list[str] = []
    for piece in json_pieces(document):
        batch.append(piece)
        if len(batch) >= WRITTEN_AT_ONCE:
            sys.stdout.write("".join(batch))
            batch.clear()
    sys.stdout.write("".join(batch) + "\n")


#: the pieces of a JSON document written together
WRITTEN_AT_ONCE = 4096
#: how deep objects and lists are laid out one entry a line (below, each entry is one line)
LAID_OUT = 2


def json_text(document) -> str:
    """A document as JSON (``json_pieces``), in one string."""
    return "".join(json_pieces(document))


def json_pieces(document, depth: int = 0) -> Iterator[str]:
    """A document as JSON, piece by piece: its objects and lists to ``LAID_OUT`` levels
    one entry a line, indented, and each entry below on one line (a plan's situation is
    one line). Each line is written by the json module's C encoder, which an ``indent``
    turns off: an indented level-1 knockout's odds took 6 s in the pure-Python one."""
    pad, inner = "  " * depth, "  " * (depth + 1)
    if depth < LAID_OUT and isinstance(document, dict) and document and all(
            isinstance(key, str) for key in document):
        yield "{\n"
        for n, (key, item) in enumerate(document.items()):
            yield (",\n" if n else "") + f"{inner}{json.dumps(key)}: "
            yield from json_pieces(item, depth + 1)
        yield f"\n{pad}}}"
    elif depth < LAID_OUT and isinstance(document, Sequence) and not isinstance(
            document, str | bytes) and len(document):   # a list, or rows made as read
        yield "[\n"
        for n, item in enumerate(document):
            yield (",\n" if n else "") + inner
            yield from json_pieces(item, depth + 1)
        yield f"\n{pad}]"
    else:
        yield _ENCODER.encode(document)


def _jsonable(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


#: ``json.dumps(..., default=_jsonable)``, its encoder made once: a plan's 40,000 lines
#: each made one
_ENCODER = json.JSONEncoder(default=_jsonable)


def format_table(header: list[str], rows: list[list], align: str | None = None) -> str:
    """A plain text table; the first column left-aligned, the others right."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = []
    for n, row in enumerate(cells):
        parts = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:],
                                                                         strict=True)]
        lines.append("  ".join(parts).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


#: two values closer than this are the same worth
SAME_WORTH = 1e-9


def equally_good(best: dict, steady: dict) -> bool:
    """Whether the best play against an opponent and the safe one (the equilibrium) are
    worth the same to the player (``value``, to ``SAME_WORTH``)."""
    return bool(abs(best["value"] - steady["value"]) <= SAME_WORTH)


def percent(p: float) -> str:
    return f"{100 * p:.2f}%"


def sheet_text(spec, sheet: dict, ruleset: dict) -> str:
    """A sheet in the syntax of the command line, without the fields left at their
    defaults (flags by name, a reference sheet first)."""
    defaults = spec.sheet.normalise(
        {"sheet": sheet["sheet"]} if sheet.get("sheet") else {}, "a", ruleset)
    parts = [sheet["sheet"]] if sheet.get("sheet") else []
    for key, value in sheet.items():
        if key == "sheet" or value is None or defaults.get(key) == value:
            continue
        parts.append(key if value is True else f"{key}={value}")
    return ",".join(parts) or "the default sheet"


def full_sheet_text(sheet: dict) -> str:
    """Every field of a sheet, defaults included, in the syntax of the command line (a
    reference sheet first, then each field; flags by name when set): typed back as
    ``--a``, it gives the same sheet."""
    parts = [sheet["sheet"]] if sheet.get("sheet") else []
    for key, value in sheet.items():
        if key == "sheet" or value is None or value is False:
            continue
        parts.append(key if value is True else f"{key}={plain(value)}")
    return ",".join(parts) or "the default sheet"


def prior_text(prior: list) -> str:
    """A hidden sheet's prior in words: ``hidden: rogue 60%, fighter,hp=30 40%``."""
    return "hidden: " + ", ".join(f"{sheet or 'the default sheet'} {percent(weight)}"
                                  for sheet, weight in prior)


def game_header(game, me: str | None = None) -> str:
    """Who duels whom under which rules: the first lines of every command's output, each
    sheet with every field."""
    spec = envs.spec(game.info.system)
    options = game.info.options
    if any(options.get(f"{side}_prior") for side in ("a", "b")):
        ruleset = load_ruleset(spec.name, options.get("ruleset"), spec.ruleset_file)
        who = {side: f"{side.upper()} ({prior_text(options[f'{side}_prior'])})"
               if options.get(f"{side}_prior") else
               f"{side.upper()} ({sheet_text(spec, options[side], ruleset)})"
               for side in ("a", "b")}
    elif game.info.public_information:
        who = {side: f"{side.upper()} ({full_sheet_text(options[side])})"
               for side in ("a", "b")}
    else:  # a drawn type replaces a field of the sheet: only the fields given are told
        ruleset = load_ruleset(spec.name, options.get("ruleset"), spec.ruleset_file)
        who = {side: f"{side.upper()} ({sheet_text(spec, options[side], ruleset)})"
               for side in ("a", "b")}
    if me is not None:
        them = "b" if me == "a" else "a"
        duel = f"You are {who[me]}, against {who[them]}."
    else:
        duel = f"{who['a']} against {who['b']}."
    settings = ", ".join(f"{entry.name}={plain(options.get(entry.name))}"
                         for entry in spec.options if options.get(entry.name) is not None)
    rules = f"rules: {options['ruleset']}" if options.get("ruleset") else "rules: the defaults"
    return f"{spec.title}. {duel}\n{rules}; {settings}."


def plain(value) -> str:
    """An option's value as typed on the command line."""
    if isinstance(value, dict):
        return ",".join(f"{k}:{v:.3g}" if isinstance(v, float) else f"{k}:{v}"
                        for k, v in value.items() if v)
    return str(value).lower() if isinstance(value, bool) else str(value)


def in_words(play: dict[str, float], words: dict[str, str]) -> dict[str, float]:
    """A mix by the words of its actions (actions said alike add up)."""
    said: dict[str, float] = {}
    for name, p in play.items():
        said[words[name]] = said.get(words[name], 0.0) + p
    return said


def play_text(play: dict[str, float]) -> str:
    """``two Attacks``, or ``two Defenses 60% / two Attacks 40%`` for a mix."""
    if len(play) == 1:
        return next(iter(play))
    return " / ".join(f"{action} {100 * p:.0f}%" for action, p in
                      sorted(play.items(), key=lambda item: -item[1]))
