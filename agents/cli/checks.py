"""Every command's input checked before any work: the system, sheets, options and
ruleset (by building the game, which takes milliseconds), ``--state``, ``--by``,
``--vs``, the personality, the numbers and the files. Nothing here imports the solver's
backends or torch, so a typo is answered at once, not after a solve. ``duel`` runs a
command's check before importing the command; each command runs it again first, so it
holds when the command is called on its own."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NamedTuple

import envs
from envs.schema import MAX_SEED, integer_text, number_text
from solver.errors import InputError
from solver.game import other
from solver.limits import MEMORY_CEILING, SHORTER_DUEL

from ..files import check_writable_target
from ..personalities import check_strength, check_win
from ..progress import duration_text
from ..temperaments import temperament
from .common import make_game
from .situations import check_state_field, parse_state, single_start


def solve(args: argparse.Namespace):
    """The game, and the moment asked with ``--state`` (None: the start)."""
    _export(args)
    game = make_game(args)
    require_fits(game, args)
    if not game.info.public_information:
        for flag, given in (("--state", args.state), ("--all-pairings", args.all_pairings),
                            ("--by", args.by),
                            ("--all-equilibria", getattr(args, "all_equilibria", False))):
            if given:
                raise InputError(f"{flag} is not available with hidden information; the "
                                 "exact solution is given from the start of the duel")
        return game, None
    if args.all_pairings:
        if envs.spec(game.info.system).pairing is None:
            raise InputError(f"{game.info.system} has no ability to cross for --all-pairings")
        return game, None
    start = parse_state(game, args.state) if args.state else None
    if start is None:
        single_start(game)
    if args.by:
        check_state_field(game, args.by, "--by")
    return game, start


def _export(args: argparse.Namespace) -> None:
    """``--export-efg FILE --horizon N``: both or neither, N a positive integer, FILE
    writable."""
    export, horizon = getattr(args, "export_efg", None), getattr(args, "horizon", None)
    if (export is None) != (horizon is None):
        raise InputError("--export-efg FILE and --horizon N go together")
    if export is None:
        return
    if not isinstance(horizon, int):   # read once: the command checks again
        args.horizon = _number(horizon, "--horizon", int, 1)
    target = Path(export)
    if target.is_dir() or not target.parent.is_dir():
        raise InputError(f"--export-efg {export}: give a file in an existing folder")
    check_writable_target(target)


def odds(args: argparse.Namespace):
    if args.limit is not None and args.limit < 0:
        raise InputError(f"--limit must be 0 or more, got {args.limit}")
    game = make_game(args)
    require_fits(game, args)
    from ..opponents import check_opponent  # the solver's imports: after a size refusal
    check_opponent(args.vs, game, other(args.side))
    if args.state and not game.info.public_information:
        raise InputError("--state is not available with hidden information; the odds are "
                         "given from the start of the duel")
    args.moment = parse_state(game, args.state) if args.state else None
    return game


def play(args: argparse.Namespace):
    if args.seed is not None and not isinstance(args.seed, int):
        seed = integer_text(args.seed)
        if seed is None or not 0 <= seed <= MAX_SEED:
            raise InputError(f"--seed must be an integer 0..{MAX_SEED}, got {args.seed!r:.40}")
        args.seed = seed
    game = make_game(args)
    require_fits(game, args)
    from ..opponents import check_opponent  # the solver's imports: after a size refusal
    check_opponent(args.vs, game, other(args.side))
    return game


class Cost(NamedTuple):
    """What a question costs beyond one solve of its duel: peak bytes beside the solve's,
    and per state of the duel (a plan's situations), the solutions' tables it holds
    besides (as a share of them), and its time in solves."""

    bytes: float
    per_state: float
    tables: float
    solves: float

    def __add__(self, other: Cost) -> Cost:
        return Cost(*(mine + theirs for mine, theirs in zip(self, other, strict=True)))


#: ``odds`` evaluates the equilibrium against the opponent, then solves the best
#: response twice (its values, its safest play; once where the chance of losing follows
#: the value, as in a knockout; not at all against a knockout's own equilibrium, which it
#: is) and the chances of its plan one after the other, each freeing what the next does
#: not read, and holds the plan: every situation the best play reaches (679,000 at 50 x
#: 50 HP, 640 MB of JSON, about 0.5 KB each held, ``odds.Plan``). Its 3.5 solves are said
#: before the exploration tells which case applies, so the time said may be long: level
#: 5's odds against the equilibrium took 1.26 solves at ``cbcdfff``. Pathfinder ``odds --vs
#: equilibrium --json``, measured / said (GB): 20 x 17 HP 1.49 / 1.92, 35 x 35 HP 2.16 /
#: 2.55, 50 x 50 HP 3.34 / 3.46, 68 x 53 HP 3.99 / 4.24 (90 / 221 s); docs/performance.md
QUESTION_COST = {"odds": Cost(0.4e9, 0.5, 0.0, 3.5)}
#: a personality's calibration before any of it: regularized solves of the whole duel
#: and best responses to them, one after another, and the personality's solution held
#: as the opponent. Pathfinder ``odds --vs bully:0.5`` measured / said: 2.42 / 2.48 GB
#: and 150 / 94 s at 20 x 17 HP, 5.42 / 6.17 GB and 235 / 231 s at 35 x 35 HP
CALIBRATION_COST = Cost(0.0, 0.0, 6.0, 6.0)
#: a question that solves the duel once
ONE_SOLVE = Cost(0.0, 0.0, 0.0, 1.0)


def require_fits(game, args: argparse.Namespace) -> None:
    """Refuse, from the system's estimate and before any state is explored, a question
    whose exact solves would take more than the memory ceiling (``solver.limits``),
    saying what it needs; with ``--allow-large`` say it and go ahead."""
    size = envs.footprint(game)
    if size is None:
        return
    memory, seconds = question_cost(size, args.command, _opponent(args), game.info.system)
    if memory <= MEMORY_CEILING:
        return
    states = size.states_in_words or f"{size.states:,} states"
    needs = (f"about {memory / 2**30:.1f} GiB of memory and about "
             f"{duration_text(seconds)} of solving, for {states}")
    if getattr(args, "allow_large", False):
        if not getattr(args, "size_said", False):   # checked again as the command runs
            print(f"duel {args.command}: note: this duel needs {needs}; going ahead "
                  "(--allow-large)", file=sys.stderr, flush=True)
            args.size_said = True
        return
    raise InputError(f"this duel is too large to solve here: it needs {needs}; the "
                     f"ceiling is {MEMORY_CEILING / 2**30:.0f} GiB. {SHORTER_DUEL.capitalize()}, "
                     "or --allow-large goes ahead anyway")


def question_cost(size, command: str, vs: str | None, system: str) -> tuple[float, float]:
    """The peak bytes and the seconds of ``command`` on a duel of ``size``, against the
    opponent ``vs`` (a personality is calibrated first)."""
    cost = QUESTION_COST.get(command, ONE_SOLVE)
    if is_personality(vs, system):
        cost += CALIBRATION_COST
    memory = size.memory + cost.bytes + cost.per_state * size.states + cost.tables * size.tables
    return memory, size.seconds * cost.solves


def _opponent(args: argparse.Namespace) -> str | None:
    """The opponent a question's cost depends on: ``--vs``, or the NPC ``train`` makes."""
    return getattr(args, "vs", None) or getattr(args, "personality", None)


def is_personality(vs: str | None, system: str) -> bool:
    """Whether ``vs`` names one of ``system``'s personalities (its data, not the solver)."""
    from ..temperaments import personality_names  # data files only: no solver
    if not isinstance(vs, str):
        return False
    name = vs.strip().partition("@")[0].partition(":")[0]
    try:
        return name in personality_names(system)
    except InputError:   # a system without personalities
        return False


def train(args: argparse.Namespace):
    """The game, and the training settings read from the numbers given."""
    settings = train_settings(args)
    game = make_game(args)
    if args.personality:
        temperament(game.info.system, args.personality)
    # a public duel's NPC is solved exactly (its personality calibrated by whole solves)
    require_fits(game, args)
    if settings["win"] is not None and not game.info.public_information:
        from solver.markov.evaluate import require_public  # only to say why it is refused
        require_public(game, "an NPC calibrated on its exact chance to win (--win)")
    check_out(Path(args.out))
    return game, settings


def train_settings(args: argparse.Namespace) -> dict:
    for flag, given in (("--strength", args.strength), ("--win", args.win)):
        if given is not None and not args.personality:
            raise InputError(f"{flag} needs --personality")
    if args.strength is not None and args.win is not None:
        raise InputError("give --strength or --win, not both")
    strength = win = None
    if args.win is not None:
        win, _ = check_win(_number(args.win, "--win"), args.against)
    elif args.personality:
        text = args.strength or "0.5"
        number = number_text(text)   # ASCII digits, as every number typed
        if number is None:
            raise InputError(f"strength must be a number in [0, 1], got {text!r:.40}")
        strength = check_strength(number)
    return {"strength": strength, "win": win, "against": args.against,
            # a budget of 0 trains nothing: a typo, not a request
            "minutes": _number(args.minutes, "minutes", above=True),
            "iterations": _number(args.iterations, "iterations", int, 1),
            "seed": _number(args.seed, "seed", int, 0, high=MAX_SEED)}


def _number(text: str | None, what: str, kind=float, low: float = 0, above: bool = False,
            high: int | None = None):
    """``text`` as a finite number >= ``low`` (> ``low`` with ``above``; <= ``high`` if
    given), written in ASCII digits, else None."""
    if text is None:
        return None
    wanted = "an integer" if kind is int else "a finite number"
    bound = f"{'>' if above else '>='} {low:g}" + (f" and <= {high}" if high is not None else "")
    value = integer_text(text) if kind is int else number_text(text)
    if value is None or value < low or (above and value == low) or (
            high is not None and value > high):
        raise InputError(f"{what} must be {wanted} {bound}, got {text!r:.40}")
    return value


def check_out(out: Path) -> None:
    """Fail before training, not after it, when the profile cannot be written."""
    if out.is_dir():
        raise InputError(f"--out {out} is a directory; give a file name such as baron.json")
    if not out.parent.is_dir():
        raise InputError(f"--out {out}: folder {out.parent} does not exist")
    check_writable_target(out)  # a FIFO, a device or a link is refused now, not after


def sweep_grid(args: argparse.Namespace):
    """``duel sweep``'s grid over its base duel, its numbers checked (``args.max_cells``
    set to the default when not given); the cells are checked by ``grid.cells``."""
    from ..sweep import MAX_CELLS, Grid, parse_axis
    if not args.grid:
        raise InputError("give at least one --grid AXIS=VALUES")
    if Path(args.out).suffix.lower() != ".parquet":   # x.csv was written as Parquet
        raise InputError(f"--out {args.out}: a sweep writes Parquet; name the file "
                         "FILE.parquet (pandas, polars and DuckDB read it)")
    options = dict(args.options)
    for name in options:
        if name in ("a", "b", "ruleset"):
            raise InputError(f"{name} is not given with -o; use --{name}")
    if args.max_cells is None:
        args.max_cells = MAX_CELLS
    if args.max_cells < 1:
        raise InputError(f"--max-cells takes an integer >= 1, got {args.max_cells}")
    if args.batch < 1:
        raise InputError(f"--batch takes an integer >= 1, got {args.batch}")
    if not args.task_memory > 0:
        raise InputError(f"--task-memory takes a number of GB > 0, got {args.task_memory}")
    return Grid(args.system, [parse_axis(text) for text in args.grid],
                {"a": args.a, "b": args.b}, options, args.ruleset)
