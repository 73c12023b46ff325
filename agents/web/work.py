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
import json
import logging
import os
import traceback

from solver.errors import InputError

from ..cli import dice, odds, profile, solve, systems, train
from ..cli.common import _jsonable

#: the command whose document each kind of work builds
DOCUMENTS = {"solve": solve.document, "odds": odds.document, "dice": dice.document,
             "systems": systems.document, "profile show": profile.show_document,
             "profile validate": profile.validate_document}

log = logging.getLogger("duel.web")


def document_text(kind: str, args) -> str:
    """The JSON text of ``kind``'s document, as ``duel ... --json`` prints it."""
    if kind == "train":
        return _printed(train.run, args)
    uses_store = not getattr(args, "no_cache", True)
    with _store() if uses_store else contextlib.nullcontext():
        document = DOCUMENTS[kind](args)
    return json.dumps(document, indent=2, default=_jsonable)


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


def work(connection, kind: str, args, store: str | None = None) -> None:
    """Run in the worker: send ("done", json text) or ("error", one line); ``store``:
    the answer store's directory (``DUEL_CACHE_DIR``) of the server that asked."""
    if store is not None:
        os.environ["DUEL_CACHE_DIR"] = store
    try:
        connection.send(("done", document_text(kind, args)))
    except (InputError, OSError) as error:
        connection.send(("error", str(error)))
    except Exception as error:  # noqa: BLE001 - said in one line; the log has the trace
        log.error("%s failed:\n%s", kind, traceback.format_exc())
        connection.send(("error", f"internal error ({type(error).__name__}: {error})"))
    finally:
        connection.close()
