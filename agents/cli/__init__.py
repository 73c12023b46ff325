"""The ``duel`` command: it only composes the solver, the systems and the agents.

The parser (``arguments``) and the input checks (``checks``) import nothing heavy; a
command's module, and with it the solver's backends or torch, is imported only once its
input has passed, so ``--help``, ``duel dice`` and every typo answer at once."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import importlib
import math
import os
import sys
import threading
import warnings

from solver.errors import InputError, RefinementWarning
from solver.heap import keeping_freed_memory
from solver.limits import beyond_ceiling

from .arguments import COMMANDS

#: the commands whose input ``checks.<command>`` checks (the others need only the parser,
#: or check as their first step, being light: dice, systems, profile)
CHECKED = ("solve", "odds", "play", "train")
#: the function of a command's module that runs it (``run`` unless named here)
RUNS = {("profile", "show"): "run_show", ("profile", "validate"): "run_validate",
        ("cache", "list"): "run_list", ("cache", "clear"): "run_clear",
        ("cache", "path"): "run_path"}


class _Parser(argparse.ArgumentParser):
    """Bad arguments are one line on stderr and exit code 2, like every other error."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _one_line_warning(message, category, filename, lineno, line=None) -> str:
    return f"duel: warning: {message}\n"


def build_parser(parser_class: type[argparse.ArgumentParser] = _Parser
                 ) -> argparse.ArgumentParser:
    """The ``duel`` parser; ``parser_class`` says what a bad argument does (the web's
    raises ``InputError`` instead of exiting)."""
    parser = parser_class(
        prog="duel",
        description="Exact solutions, odds and trained NPC opponents for tabletop duels.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                       parser_class=parser_class)
    for add_command in COMMANDS.values():
        add_command(subparsers)
    return parser


class _Warnings:
    """Every warning in one line as it comes; the refinements of a whole run added up and
    said once at the end, in words (the mixes shown stay optimal)."""

    def __init__(self, detail: bool = True):
        self.refinements = 0
        # the refinement note is the solver's business: a game master sees it with --detail
        self.detail = detail

    def show(self, message, category, filename, lineno, file=None, line=None) -> None:
        if isinstance(message, RefinementWarning):
            self.refinements += message.count
        elif not sys.stderr.closed:
            sys.stderr.write(_one_line_warning(message, category, filename, lineno))

    def summary(self) -> None:
        if self.refinements and self.detail and not sys.stderr.closed:
            print(f"duel: note: {self.refinements} of the mixes found are optimal, "
                  "but the solver could not confirm they are the least predictable ones",
                  file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    said = _Warnings(detail=bool(getattr(args, "detail", False)))
    with warnings.catch_warnings():
        warnings.showwarning = said.show
        warnings.simplefilter("always", RefinementWarning)
        try:
            return _run(args)
        finally:
            said.summary()


def run_command(args: argparse.Namespace) -> int:
    """Check the input of ``args.command``, then import its module and run it."""
    if args.command in CHECKED:
        from . import checks  # not with the parser: --help needs none of the systems
        getattr(checks, args.command)(args)
    module = importlib.import_module(f"{__name__}.{args.command}")
    run = RUNS.get((args.command, getattr(args, "action", None)), "run")
    # a large solve frees and takes back blocks of hundreds of megabytes at every layer:
    # a command keeps them for reuse (the solver itself never touches the process's heap)
    from ..progress import showing_work
    with keeping_freed_memory(), _answer_store(args), _ceiling(args), showing_work():
        return int(getattr(module, run)(args) or 0)


def _ceiling(args: argparse.Namespace):
    """With ``--allow-large`` (said on screen by ``checks.require_fits``), no memory
    ceiling for the solver either (``solver.limits``)."""
    return beyond_ceiling() if getattr(args, "allow_large", False) else contextlib.nullcontext()


#: the commands whose answers are written to the store as the process leaves, those a GM
#: waits for at once (``play`` keeps each as it comes, a session being long), and how
#: many bytes of them may wait: ``solve`` ends with its answer, but ``odds`` goes on
#: solving after its equilibrium, which, held as computed rather than read back from the
#: file as touched, would add up to half its size to the peak (level 1's is 304 MB);
#: against the equilibrium itself, where nothing is solved after it, it waits whatever its
#: size (``solver.cache.last_large_answers``)
KEPT_ON_LEAVING = {"solve": math.inf, "odds": 512 * 2**20}
#: the stores whose answers ``entry_point`` writes as it leaves (None: in ``main``, each
#: command's are written as it ends)
_LEAVING: list | None = None


def _answer_store(args: argparse.Namespace):
    """The answer store (``agents.store``) the whole-duel answers of a command that takes
    ``--no-cache`` are read from and kept in, unless it is given; no store elsewhere.
    Given ``--no-cache``, a command that goes on working after a large answer (``odds``)
    still spills it to a file with no name (``ScratchStore``), so that it weighs what
    is touched of it, as read back from the store."""
    no_cache = getattr(args, "no_cache", None)
    waiting = KEPT_ON_LEAVING.get(args.command, 0)
    if no_cache is None or (no_cache and not 0 < waiting < math.inf):
        return contextlib.nullcontext()   # nothing imported: `duel dice` stays light
    from ..store import AnswerStore, ScratchStore
    if no_cache:
        from solver.cache import caching
        return caching(ScratchStore(waiting))
    return _keeping(AnswerStore(deferred_bytes=waiting))


@contextlib.contextmanager
def _keeping(store):
    """The store read and kept in while a command runs; what waits in it is written
    when the command ends (even by an error or Ctrl-C: those answers are sound), or
    left to ``entry_point`` to write as the process leaves."""
    from solver.cache import caching
    try:
        with caching(store):
            yield
    finally:
        if _LEAVING is None:
            store.write_pending()
        else:
            _LEAVING.append(store)


def _run(args: argparse.Namespace) -> int:
    try:
        return run_command(args)
    except BrokenPipeError:
        # the reader (``| head``) has gone: nothing more to say to it
        sys.stderr.close()
        return 0
    except (InputError, OSError) as error:
        print(f"duel {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"duel {args.command}: interrupted", file=sys.stderr)
        return 130


#: the garbage collector's thresholds in a ``duel`` process (Python's are 700, 10, 10)
COLLECTOR_THRESHOLDS = (50_000, 20, 10)


def entry_point() -> None:
    # an answer builds hundreds of thousands of objects that last (a duel's states, a
    # plan's rows, a profile's observations), and none makes a cycle: at Python's
    # thresholds the collector ran 1,800 times and walked the whole heap 12 times for
    # one level-1 question against a profile (1.2 s of 14)
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    global _LEAVING
    _LEAVING = []
    try:
        code = main()
    except BaseException:   # a failure no command catches: its answers are still sound
        for store in _LEAVING:
            store.write_pending()
        raise
    _leave(code, _LEAVING)


def _leave(code: int, stores: list) -> None:
    """Exit once the answer is out, the answers of ``stores`` handed to a writer of
    their own, without Python's teardown when nothing needs it.

    Freeing a level-1 answer's objects one by one at exit took 0.4-0.5 s after the answer
    was printed, and the user waits for the prompt: the system takes the memory back
    whole. What must still happen does: the output is flushed and the exit handlers run.
    Where that cannot be vouched for (an output already closed, a thread still at work),
    the answers are written here and Python exits as usual."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        sound = True
    except (OSError, ValueError):
        sound = False
    sound = sound and not [thread for thread in threading.enumerate()
                           if thread is not threading.main_thread() and not thread.daemon]
    with warnings.catch_warnings():   # a store that has no room says so in one line
        warnings.showwarning = _Warnings().show
        for store in stores:
            store.write_pending(background=sound)
    if not sound:
        sys.exit(code)
    atexit._run_exitfuncs()
    with contextlib.suppress(OSError, ValueError):   # what an exit handler printed
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)
