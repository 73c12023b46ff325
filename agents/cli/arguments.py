"""Every command's arguments: the whole ``duel`` parser, with nothing to import but
argparse, so ``duel --help`` and a mistyped flag answer at once. A command's module
(``agents.cli.<command>``) is imported only to run it."""

from __future__ import annotations

import argparse

from envs.numbers import integer_text, number_text
from solver.dice import EXPRESSION_FORM
from solver.errors import InputError


def parse_option(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise InputError(f"bad option {text!r}; expected KEY=VALUE")
    return key.strip(), value.strip()


def _argparse_type(parse):
    """``parse`` for argparse, which then reports our message instead of its own."""
    def convert(text: str):
        try:
            return parse(text)
        except InputError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    convert.__name__ = parse.__name__
    return convert


def integer(text: str) -> int:
    """A numeric flag's integer as people type it (``envs.numbers``: ASCII digits; not
    ``1_0``, ``²`` or ``٨``, which Python's ``int`` reads)."""
    value = integer_text(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected an integer in ASCII digits, got {text!r:.40}")
    return value


def number(text: str) -> float:
    """A numeric flag's finite real number as people type it (``envs.numbers``)."""
    value = number_text(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a finite number in ASCII digits, got "
                                         f"{text!r:.40}")
    return value


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print exactly one JSON document on stdout")


SHEET_HELP = ("FIELD=VALUE fields, bare words for flags, a reference sheet's name; "
              "each system's fields: `duel systems`")


def add_game_args(parser: argparse.ArgumentParser) -> None:
    """SYSTEM, the two sheets, --ruleset and --option KEY=VALUE."""
    parser.add_argument("system", help="duel system (see `duel systems`)")
    parser.add_argument("--a", default=None, metavar="SHEET", help=f"sheet of A: {SHEET_HELP}")
    parser.add_argument("--b", default=None, metavar="SHEET", help="sheet of B")
    parser.add_argument("--me", default=None, metavar="SHEET",
                        help="your sheet: A's, or B's with --side b")
    parser.add_argument("--them", default=None, metavar="SHEET",
                        help="the other duellist's sheet")
    for side, alias, whose in (("a", "me", "A's"), ("b", "them", "B's")):
        parser.add_argument(f"--{side}-prior", dest=f"{side}_prior", default=None,
                            metavar="SHEET@WEIGHT;...",
                            help=f"{whose} sheet hidden, drawn from these sheets and weights, "
                            "e.g. 'rogue@0.6;fighter,hp=30@0.4' (no --" + side + " then)")
        parser.add_argument(f"--{alias}-prior", dest=f"{alias}_prior", default=None,
                            metavar="SHEET@WEIGHT;...",
                            help=f"--{'a' if alias == 'me' else 'b'}-prior of "
                            f"{'your side (--side)' if alias == 'me' else 'the other side'}")
    parser.add_argument("--ruleset", metavar="FILE",
                        help="TOML file replacing any of the rules' defaults, with the "
                             "keys of envs/rulesets/SYSTEM.toml")
    parser.add_argument("-o", "--option", dest="options", action="append", default=[],
                        type=_argparse_type(parse_option), metavar="KEY=VALUE",
                        help="a system option, e.g. -o convention=surrender (repeatable)")


def add_side(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--side", choices=("a", "b"), default="a",
                        help="the side you play (default a): --me is its sheet")


def add_cache(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor keep answers in the answer store "
                             "(`duel cache path`)")


def add_allow_large(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--allow-large", action="store_true",
                        help="solve a duel whose estimated memory is above the 4 GiB "
                             "ceiling anyway (it says how much and how long first)")


def systems(subparsers) -> None:
    parser = subparsers.add_parser(
        "systems", help="list the duel systems, their personalities and reference sheets",
        description="Every duel system with its NPC personalities and reference sheets; "
                    "with SYSTEM, that system in full: options, sheet fields, "
                    "personalities, reference sheets.")
    parser.add_argument("system", nargs="?", metavar="SYSTEM",
                        help="show this system in full")
    add_json(parser)


def solve(subparsers) -> None:
    parser = subparsers.add_parser(
        "solve", help="exact odds and the least predictable safe play of a duel",
        description="Solve the whole duel exactly and print both sides' least predictable "
                    "safe play (the maximum-entropy equilibrium), the odds and how duels end.")
    add_game_args(parser)
    add_side(parser)
    parser.add_argument("--state", metavar="FIELD=VALUE,...",
                        help="ask about any moment (fields: `duel solve SYSTEM --json`'s "
                             "\"state\")")
    parser.add_argument("--by", metavar="FIELD",
                        help="also the least predictable safe play grouped by a state field "
                             "(e.g. band), weighted by how often each state is reached")
    parser.add_argument("--all-pairings", action="store_true",
                        help="win probability of A for every pair of levels")
    parser.add_argument("--all-equilibria", action="store_true",
                        help="every extreme equilibrium of the exchange at --state (or the "
                             "start), and of which of them the least predictable play is "
                             "a mix")
    parser.add_argument("--export-efg", metavar="FILE",
                        help="write the duel as a Gambit .efg file (simultaneous moves as "
                             "information sets), unrolled --horizon steps")
    parser.add_argument("--horizon", metavar="N",
                        help="steps unrolled by --export-efg (a duel still going there ends "
                             "with its value)")
    parser.add_argument("--detail", action="store_true",
                        help="also print the stage game, the value and technical terms")
    add_allow_large(parser)
    add_cache(parser)
    add_json(parser)


def odds(subparsers) -> None:
    parser = subparsers.add_parser(
        "odds", help="what to play against an opponent, and your exact odds",
        description="You are --me (side A unless --side b); the opponent, --them, plays "
                    "--vs.")
    add_game_args(parser)
    parser.add_argument("--vs", required=True, metavar="OPPONENT",
                        help="uniform | equilibrium | mix=ACTION:WEIGHT,... | profile.json | "
                             "a personality NAME[:STRENGTH], e.g. cautious:0.5, or "
                             "NAME@win=RATE[,against=best], e.g. cautious@win=0.45")
    add_side(parser)
    parser.add_argument("--state", metavar="FIELD=VALUE,...",
                        help="ask from any moment of the duel, against the same opponent "
                             "(fields as for duel solve --state)")
    parser.add_argument("--limit", type=integer, metavar="N",
                        help="situations to list: the N most frequent (12 in words, all of "
                             "them in --json unless given)")
    parser.add_argument("--detail", action="store_true",
                        help="also print values and the technical terms")
    add_allow_large(parser)
    add_cache(parser)
    add_json(parser)


def dice(subparsers) -> None:
    parser = subparsers.add_parser(
        "dice",
        help="exact odds of a dice roll",
        description=(
            "Exact distribution of a dice expression, as in AnyDice; or the chance to reach "
            "thresholds, to beat another pool, or of each Pathfinder degree against a DC."
        ),
    )
    parser.add_argument("expression", help=f"dice expression {EXPRESSION_FORM}")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--at-least", nargs="+", type=integer, metavar="T", help="P(total >= T) for each T"
    )
    mode.add_argument("--vs", metavar="EXPR", help="an opposing pool: P(A > B), ties, margins")
    mode.add_argument(
        "--dc", nargs="+", type=integer, metavar="DC", help="degrees of success of d20+K against DC"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def train(subparsers) -> None:
    parser = subparsers.add_parser(
        "train", help="train an NPC duellist and save it as a profile",
        description="Self-play training of one side of a duel (optionally with a "
                    "personality), saved as an opponent profile with its metrics and "
                    "learning curve.")
    add_game_args(parser)
    parser.add_argument("--side", choices=("a", "b"), default="a",
                        help="the side you will play against the NPC (default a), as in "
                             "every command: the NPC plays the other side, --them's sheet")
    parser.add_argument("--personality", metavar="NAME",
                        help="a built-in temperament, e.g. cautious (see the README)")
    parser.add_argument("--strength", metavar="S",
                        help="closeness to the temperament in [0, 1] (default 0.5): "
                             "0 is the equilibrium, 1 the temperament itself")
    parser.add_argument("--win", metavar="RATE",
                        help="instead of --strength: the NPC's exact chance to win in [0, 1] "
                             "(0.45 for 45%%); the most flavourful NPC of the temperament "
                             "that wins that often")
    parser.add_argument("--against", choices=("equilibrium", "best"), default="equilibrium",
                        help="whom --win is measured against: the equilibrium (default) "
                             "or the best reply to the NPC")
    parser.add_argument("--out", required=True, metavar="FILE", help="the profile to write")
    parser.add_argument("--minutes", metavar="N", help="training time budget in minutes (> 0)")
    parser.add_argument("--iterations", metavar="N",
                        help="training steps (default 1000 when --minutes is not given)")
    parser.add_argument("--seed", metavar="S", default="0", help="random seed (default 0)")
    parser.add_argument("--resume", action="store_true",
                        help="continue from the checkpoint next to --out (FILE.ckpt)")
    parser.add_argument("--name", help="the profile's name (default: the file's stem)")
    parser.add_argument("--network", action="store_true",
                        help="store the trained policy distilled into a network instead of a "
                             "table (for games too large to enumerate)")
    parser.add_argument("--exact", action="store_true",
                        help="hidden information: measure exploitability exactly, an error "
                             "where the exact solver cannot unroll the game (beyond one "
                             "round); without it, it is estimated there by a trained exploiter")
    add_allow_large(parser)
    add_cache(parser)
    add_json(parser)


def play(subparsers) -> None:
    parser = subparsers.add_parser(
        "play", help="play a duel in the terminal against an opponent",
        description="Type the name or the number of your action at each prompt; "
                    "q quits. The opponent's choice is revealed after yours.")
    add_game_args(parser)
    parser.add_argument("--vs", default="equilibrium", metavar="OPPONENT",
                        help="uniform | equilibrium | mix=ACTION:WEIGHT,... | profile.json | "
                             "a personality NAME[:STRENGTH] or NAME@win=RATE")
    add_side(parser)
    parser.add_argument("--seed", default=None, help="seed of the opponent's draws")
    add_allow_large(parser)
    add_cache(parser)
    add_json(parser)


def profile(subparsers) -> None:
    parser = subparsers.add_parser(
        "profile", help="show or validate an opponent profile",
        description="Inspect an opponent profile written by `duel train`.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="tendencies by situation, metrics, how to exploit it")
    show.add_argument("file", help="the profile (JSON)")
    add_json(show)
    validate = actions.add_parser("validate", help="check a profile against the schema")
    validate.add_argument("file", help="the profile (JSON)")
    add_json(validate)


GRID_HELP = ("an axis of the grid: a.FIELD=1..5 (or 10..50:10), b.FIELD=V1,V2, "
             "a=SHEET,SHEET (';' between sheets that hold commas), o.OPTION=V1,V2 or "
             "ruleset=FILE,FILE (repeatable: the cells are the product of the axes)")


def sweep(subparsers) -> None:
    parser = subparsers.add_parser(
        "sweep", help="solve a grid of duels into a results file (balance for designers)",
        description="Solve every duel of a grid of sheets, options and rulesets exactly and "
                    "write one row per duel to a Parquet file; an interrupted sweep resumes "
                    "where it stopped.")
    parser.add_argument("system", help="duel system (see `duel systems`)")
    parser.add_argument("--grid", action="append", default=[], metavar="AXIS=VALUES",
                        help=GRID_HELP)
    parser.add_argument("--a", default="", metavar="SHEET",
                        help="A's sheet, which a.FIELD axes change (default: the "
                             "system's default sheet)")
    parser.add_argument("--b", default="", metavar="SHEET", help="B's sheet")
    parser.add_argument("--ruleset", metavar="FILE",
                        help="TOML file replacing any of the rules' defaults, with the "
                             "keys of envs/rulesets/SYSTEM.toml")
    parser.add_argument("-o", "--option", dest="options", action="append", default=[],
                        type=_argparse_type(parse_option), metavar="KEY=VALUE",
                        help="a system option for every cell (repeatable)")
    parser.add_argument("--out", required=True, metavar="FILE.parquet",
                        help="the results file (its journal is kept beside it until done)")
    parser.add_argument("--max-cells", type=integer, default=None, metavar="N",
                        help="refuse a grid of more cells (default 10000)")
    parser.add_argument("--backend", default="local", choices=("local", "ray"),
                        help="local: a process pool here (default); ray: Ray tasks")
    parser.add_argument("--address", metavar="ADDRESS",
                        help="the Ray cluster to use (default: start Ray here)")
    parser.add_argument("--workers", type=integer, metavar="N",
                        help="processes (local) or CPUs of the Ray started here; "
                             "default: this machine's cores")
    parser.add_argument("--task-memory", type=number, default=2.0, metavar="GB",
                        help="memory declared to Ray for each cell (default 2)")
    parser.add_argument("--report", metavar="FILE.md",
                        help="also write a designer's reading of the results, with plots")
    parser.add_argument("--personalities", metavar="DIR",
                        help="also a library of NPC profiles: one per cell and temperament "
                             "in DIR, with DIR/index.json")
    parser.add_argument("--temperaments", metavar="NAME,...",
                        help="the temperaments of --personalities (default: all)")
    parser.add_argument("--strength", type=number, default=0.5, metavar="S",
                        help="the profiles' closeness to their temperament in [0, 1] "
                             "(default 0.5)")
    parser.add_argument("--side", choices=("a", "b"), default="a",
                        help="the side the players play (default a): the NPC profiles "
                             "play the other")
    parser.add_argument("--batch", type=integer, default=32, metavar="N",
                        help="cells solved between two writes of the journal (default 32; "
                             "it is also written every 10 s)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_json(parser)


def cache(subparsers) -> None:
    parser = subparsers.add_parser(
        "cache", help="list, clear or locate the answers kept between questions",
        description="`duel solve`, `odds` and `play` keep each duel's solution in the "
                    "answer store and read it back the next time (--no-cache skips it); "
                    "the environment variable DUEL_CACHE_DIR moves the store.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, text in (("list", "every answer kept, its size and age"),
                       ("clear", "remove every answer kept"),
                       ("path", "the directory of the answer store")):
        add_json(actions.add_parser(name, help=text))


def serve(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve", help="the game master's screen in the browser, and its JSON API",
        description="Serve the pages and the JSON API (docs/api.md) on this machine; "
                    "--host 0.0.0.0 serves them to the whole network.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                        help="let pages from ORIGIN (a virtual tabletop's, e.g. "
                             "https://vtt.example) call the API (repeatable)")
    parser.add_argument("--workers", type=int, default=2, metavar="N",
                        help="questions computed at once, each in its own process "
                             "(default 2)")


#: every command and the function adding its arguments, in the order ``--help`` lists them
COMMANDS = {"systems": systems, "solve": solve, "odds": odds, "dice": dice, "train": train,
            "play": play, "profile": profile, "sweep": sweep, "cache": cache,
            "serve": serve}
