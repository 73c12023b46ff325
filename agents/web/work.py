"""What a worker process runs: one command's document from its parsed arguments.

The server's pages and JSON routes never compute a duel in the server's own process: each
question runs here, in a process forked from a server of processes that has imported
this module (and with it the commands and the solver) once, so a worker starts in
milliseconds, a question can be cancelled by ending its process, and the server goes
on serving while it runs.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import time
import traceback

from solver.errors import InputError
from solver.progress import listening

from ..cli import dice, odds, profile, solve, systems, train
from ..cli.common import json_text
from ..progress import work_text

#: the command whose document each kind of work builds
DOCUMENTS = {"solve": solve.document, "odds": odds.document, "dice": dice.document,
             "systems": systems.document, "profile show": profile.show_document,
             "profile validate": profile.validate_document}

log = logging.getLogger("duel.web")


def document_text(kind: str, args, on_progress=None) -> str:
    """The JSON text of ``kind``'s document, as ``duel ... --json`` prints it (a sweep's:
    ``sweep_document``'s; ``on_progress(done, planned)`` hears of its cells)."""
    if kind == "sweep":
        return json_text(sweep_document(args, on_progress))
    uses_store = not getattr(args, "no_cache", True)
    with _store() if uses_store else contextlib.nullcontext():
        if kind == "train":
            return _printed(train.run, args)
        return json_text(DOCUMENTS[kind](args))


def sweep_document(args, on_progress=None) -> dict:
    """A sweep solved in this process into ``args.out`` (resumed from its journal, as
    ``duel sweep`` resumes), and its report: ``{"summary": what duel sweep --json says,
    "report": agents.sweep.report's document}``."""
    from ..cli.checks import sweep_grid
    from ..sweep import run_sweep
    from ..sweep.backends import LocalBackend
    from ..sweep.report import read_report

    grid = sweep_grid(args)
    cells = grid.cells(args.max_cells)
    # one process: the worker is already one of the server's --workers slots
    summary = run_sweep(grid, args.out, LocalBackend(1), args.max_cells, cells=cells,
                        progress=False, batch=args.batch, on_solved=on_progress)
    found = {k: v for k, v in summary.as_dict().items() if k != "out"}
    return {"summary": found, "report": read_report(args.out, results_name(args.system))}


def results_name(system: str) -> str:
    """The name a sweep's results file is downloaded as (and its report calls it)."""
    return f"{system}-sweep.parquet"


def _printed(run, args) -> str:
    """What ``run(args)`` prints on stdout (``duel train --json`` builds its document
    as it writes the profile; it is read back from there, not built a second time)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        run(args)
    return out.getvalue()


def _store():
    from solver.cache import caching

    from ..store import AnswerStore
    return caching(AnswerStore())


#: the least time between two of the solver's progress lines sent to the server
WORK_SECONDS = 0.5


class SolverWords:
    """The solver's progress (``solver.progress``) sent to the server as the line the
    terminal shows (``("work", text)``, at most every ``WORK_SECONDS``), so that a page
    waiting on a long question says what is being done and how long that will take."""

    def __init__(self, connection):
        self.connection, self.last = connection, float("-inf")

    def __call__(self, report) -> None:
        now = time.monotonic()
        if report.finished or now - self.last < WORK_SECONDS:
            return
        self.last = now
        self.connection.send(("work", work_text(report)))


def work(connection, kind: str, args, store: str | None = None) -> None:
    """Run in the worker: send ("done", json text) or ("error", one line), and before it
    the work's progress (``SolverWords``; a sweep's cells as ("progress", done,
    planned)); ``store``: the answer store's directory (``DUEL_CACHE_DIR``) of the
    server that asked."""
    if store is not None:
        os.environ["DUEL_CACHE_DIR"] = store
    def progress(done: int, planned: int) -> None:
        connection.send(("progress", done, planned))

    try:
        with listening(SolverWords(connection)):
            text = document_text(kind, args, progress)
        connection.send(("done", text))
    except (InputError, OSError) as error:
        connection.send(("error", str(error)))
    except Exception as error:  # noqa: BLE001 - said in one line; the log has the trace
        log.error("%s failed:\n%s", kind, traceback.format_exc())
        connection.send(("error", f"internal error ({type(error).__name__}: {error})"))
    finally:
        connection.close()
