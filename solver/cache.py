"""Answers remembered: the solver's side of an answer store.

The solver knows nothing of where answers are kept. A store is any object with two
methods (``AnswerCache``): ``get(key)`` the bytes kept under ``key`` or None, and
``put(key, payload)``, the payload given as the pieces it is made of, one after
another (a large solution's arrays are written out as they are, never copied into
one buffer first). The key comes from the game: ``game.info.identity`` (set by
whoever built the game, e.g. ``envs.make``: what makes two games the same game); a
game without one is never stored, since nothing would tell two such games apart.
The store, not the solver, adds what makes an entry stale (the package version)
and checks that what it hands back is what was put (a hash).

An answer is kept as a pickle in which the game is a reference, not a copy
(``attached_game``): read back, it is attached to the game asking, so it answers
exactly as the computed object did (the same arrays, bit for bit). Its arrays are
kept out of band (pickle protocol 5), each aligned, after the pickle
(``write_answer``): a store that hands back a memory map of its file
(``agents.store``) gives arrays that are the file's pages, so a solution of hundreds
of megabytes is read back without copying it. Anything that fails to read back is a
miss: the answer is computed again and put over it.

``recalled`` reads an answer without ever computing it: the facade reads a moment
of a duel from the whole duel's solution when it is known (``solver.solve``).

``caching(store)`` makes ``store`` the one every whole-duel solution inside the
block reads and writes (the ``duel`` command's, for the equilibria that ``odds``
and ``play`` ask for through names), in this context: each thread's blocks are its
own, and a thread started in a copy of a context has that context's store.
``solve_game(game, cache=...)`` names one explicitly.
"""

from __future__ import annotations

import io
import pickle
import struct
import threading
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol, runtime_checkable

from .errors import RefinementWarning
from .game import Game

#: what an answer's pickle holds; bump it when that changes, so older entries miss
FORMAT = 6


#: an answer's bytes: one buffer, or the pieces that, one after another, make it
Payload = bytes | memoryview | Sequence[bytes | memoryview]


@runtime_checkable
class AnswerCache(Protocol):
    """Where answers are kept between processes."""

    def get(self, key: str) -> bytes | None:
        """The payload put under ``key``, or None (absent, stale or damaged)."""

    def put(self, key: str, payload: Payload) -> bytes | memoryview | None:
        """Keep ``payload`` under ``key`` (replacing what was there); a store may hand
        back the copy it kept, as ``get`` would give it (None: ask ``get``)."""


#: the store ``caching`` names for the block it covers, in this context (a thread's
#: blocks are its own: two threads' blocks may end in any order)
_AMBIENT: ContextVar[AnswerCache | None] = ContextVar("answer store", default=None)
#: answers already read or computed in this process, per game and question
_MEMO: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@contextmanager
def caching(store: AnswerCache | None) -> Iterator[None]:
    """Read and write whole-duel answers through ``store`` inside the block (None: no
    store, as outside any block)."""
    if store is not None and not isinstance(store, AnswerCache):
        raise TypeError(f"an answer store needs get(key) and put(key, payload), got "
                        f"{type(store).__name__}")
    token = _AMBIENT.set(store)
    try:
        yield
    finally:
        _AMBIENT.reset(token)


def ambient() -> AnswerCache | None:
    """The store of the innermost ``caching`` block of this context, if any (a thread
    started in a copy of a context, ``contextvars.copy_context().run``, has its
    blocks)."""
    return _AMBIENT.get()


#: in this context: a test of whether the answers being computed are the last large ones
#: of their process (None: they may not be), asked when one is kept (``answers_may_wait``)
_LAST: ContextVar[Callable[[], bool] | None] = ContextVar("last large answers", default=None)


@contextmanager
def last_large_answers(when: Callable[[], bool]) -> Iterator[None]:
    """Inside the block, the answers computed are the last large ones of their process
    wherever ``when()`` says so, asked as each is kept (after its computation: a test
    that needs what the computation explores pays nothing more, and an answer read
    back never asks). A store may then keep them waiting in memory whatever their
    size, to be written as the process leaves, as ``duel solve``'s are: written at once
    and read back as the file's pages, the computed copy is freed for the work to come,
    and where none comes that write only costs time (level 5's 1.7 GB: about 3 s)."""
    token = _LAST.set(when)
    try:
        yield
    finally:
        _LAST.reset(token)


def answers_may_wait() -> bool:
    """Whether the answer a store is asked to keep may wait in memory whatever its size
    (``last_large_answers``)."""
    when = _LAST.get()
    return when is not None and bool(when())


def key_of(game: Game, question: str) -> str | None:
    """The store key of ``question`` about ``game``; None for a game without an
    identity, which is never stored."""
    identity = game.info.identity
    return None if identity is None else f"{question}|format={FORMAT}|{identity}"


def remembered(game: Game, question: str, compute: Callable[[], object],
               store: AnswerCache | None, extras: Callable[[], dict] | None = None,
               adopt: Callable[[dict], None] | None = None):
    """The answer to ``question`` about ``game``: from this process's memory, else
    from ``store``, else ``compute()`` (then kept in both). ``extras()`` names more
    objects worth keeping with it (the explored graph), ``adopt`` takes them back."""
    known = _MEMO.setdefault(game, {})
    if question in known:
        return known[question]
    key = key_of(game, question) if store is not None else None
    found = _read(game, key, store, adopt)
    if found is None:
        with _hearing() as heard:
            answer = compute()
        said = [_recorded(message, category) for message, category in heard]
        _replay(said)
        found = {"answer": answer, "warnings": said, **(extras() if extras else {})}
        kept = _keep(store, key, game, found) if key is not None else False
        if kept:
            # the store's copy from now on: a store that maps its file hands back
            # arrays that are its pages, read as touched, and the computed copy is freed
            # (a document without arrays frees nothing: it is kept as computed)
            found = _adopted(kept, game, adopt) or _read(game, key, store, adopt,
                                                          replay=False) or found
    known[question] = found["answer"]
    return found["answer"]


def recalled(game: Game, question: str, store: AnswerCache | None,
             adopt: Callable[[dict], None] | None = None):
    """The answer to ``question`` about ``game`` if this process or ``store`` has it
    (as ``remembered`` reads it), else None: nothing is computed."""
    known = _MEMO.setdefault(game, {})
    if question not in known:
        # its warnings are the whole answer's, not said again for a part of it
        found = _read(game, key_of(game, question) if store is not None else None, store,
                      adopt, replay=False)
        if found is None:
            return None
        known[question] = found["answer"]
    return known[question]


def _read(game: Game, key: str | None, store: AnswerCache | None,
          adopt: Callable[[dict], None] | None, replay: bool = True) -> dict | None:
    """The document kept under ``key``, adopted and (with ``replay``) its warnings said
    again; None if there is none that reads back."""
    payload = store.get(key) if key is not None else None
    found = None if payload is None else read_answer(payload, game)
    if found is not None:
        if adopt is not None:
            adopt(found)
        if replay:
            _replay(found.get("warnings", []))
    return found


def _adopted(kept, game: Game, adopt: Callable[[dict], None] | None) -> dict | None:
    """The document a store handed back as it kept it (``AnswerCache.put``), adopted;
    None if it handed back nothing (or nothing that reads back)."""
    found = None if kept is True else read_answer(kept, game)
    if found is not None and adopt is not None:
        adopt(found)
    return found


#: the warnings of the computation under way in this context (None: none is heard)
_HEARD: ContextVar[list | None] = ContextVar("heard", default=None)
#: guards ``_HOOKED``: how many computations hear warnings, the ``showwarning`` the
#: hook stands in for, and whether the "always" filter was the process's before
_HOOK = threading.Lock()
_HOOKED: dict = {"hearing": 0, "replaced": None, "had always": False}
_ALWAYS = ("always", None, Warning, None, 0)


@contextmanager
def _hearing() -> Iterator[list]:
    """Every warning of this context's computation in the block (none said once only
    or filtered out), each as (message, category), and only those: another thread's
    computation hears its own, and a thread that hears none says its warnings as
    before (unfiltered while any computation hears).
    (``warnings.catch_warnings`` swaps process-wide state: the blocks of two threads
    ending out of order left one's recorder in place for good, swallowing every later
    warning of the process.) A question asked side by side on another thread is heard
    by the computation that asked it where it runs in a copy of its context."""
    heard: list = []
    with _HOOK:
        if _HOOKED["hearing"] == 0:
            _HOOKED["replaced"], warnings.showwarning = warnings.showwarning, _show
            _HOOKED["had always"] = _ALWAYS in warnings.filters
            warnings.simplefilter("always")
        _HOOKED["hearing"] += 1
    token = _HEARD.set(heard)
    try:
        yield heard
    finally:
        _HEARD.reset(token)
        with _HOOK:
            _HOOKED["hearing"] -= 1
            if _HOOKED["hearing"] == 0:
                # what this hook added is taken out (another block may have replaced it)
                if warnings.showwarning is _show:
                    warnings.showwarning = _HOOKED["replaced"]
                if not _HOOKED["had always"] and _ALWAYS in warnings.filters:
                    warnings.filters.remove(_ALWAYS)


def _show(message, category, filename, lineno, file=None, line=None) -> None:
    heard = _HEARD.get()
    if heard is not None:
        heard.append((message, category))
    else:
        _HOOKED["replaced"](message, category, filename, lineno, file, line)


def _recorded(message: Warning | str, category: type[Warning]) -> tuple:
    """A warning of the computation, kept with the answer: read back, the answer says
    what computing it said (the refinements ``duel`` counts, a convergence stopped)."""
    if isinstance(message, RefinementWarning):
        return RefinementWarning, message.count
    return category, str(message)


def _replay(said: list[tuple]) -> None:
    for category, detail in said:
        if category is RefinementWarning:
            warnings.warn(RefinementWarning(detail), stacklevel=4)
        else:
            warnings.warn(detail, category, stacklevel=4)


def _keep(store: AnswerCache, key: str, game: Game, document: dict):
    """Put ``document`` in ``store``: the copy the store hands back, else None if
    the document holds no array (a plan of 40,000 rows takes half a second to read
    back and frees nothing: the computed one is kept), else True; False where it could
    not be pickled (a game holding a lambda, say: said in a warning, and the answer
    still given)."""
    try:
        payload = write_answer(document, game)
    except Exception as error:  # noqa: BLE001 - whatever pickling raises, keep answering
        warnings.warn(f"{game.info.system}: the answer cannot be kept in the store "
                      f"({type(error).__name__}: {error})", stacklevel=3)
        return False
    kept = store.put(key, payload)
    if not _arrays_in(payload):
        return None
    return True if kept is None else kept


def _arrays_in(pieces: list[bytes | memoryview]) -> int:
    """The number of arrays ``write_answer`` wrote out of band (its frame says)."""
    return struct.unpack_from("<Q", pieces[0], len(MAGIC))[0]


def attached_game() -> Game:
    """Stands in an answer's pickle for the game it answers: reading it back, ``_Reader``
    gives the game asking instead."""
    raise pickle.UnpicklingError("an answer's game is the one reading it back")


class _Writer(pickle.Pickler):
    """Pickles the game as a call of ``attached_game``. A ``persistent_id`` would say the
    same, but the pickler asks it of every object (2.5 million for a level-1 plan, 0.2 s);
    it asks ``reducer_override`` only of objects that are not plain data."""

    def __init__(self, file, game: Game, buffers: list):
        super().__init__(file, protocol=5, buffer_callback=buffers.append)
        self.game = game

    def reducer_override(self, obj):
        return (attached_game, ()) if obj is self.game else NotImplemented


class _Reader(pickle.Unpickler):
    def __init__(self, file, game: Game, buffers: list):
        super().__init__(file, buffers=buffers)
        self.game = game

    def find_class(self, module: str, name: str):
        if (module, name) == (__name__, attached_game.__name__):
            return lambda: self.game
        return super().find_class(module, name)


#: what an answer's bytes start with: this layout, then the count of arrays
MAGIC = b"duel-answer/2\n"
#: every part of an answer starts at a multiple of this many bytes from its start (a
#: store that keeps the start so aligned hands back arrays numpy and numba read as is)
ALIGN = 64


def _aligned(size: int) -> int:
    return -(-size // ALIGN) * ALIGN


def write_answer(document: dict, game: Game) -> list[bytes | memoryview]:
    """``document`` as the pieces of its bytes, one after another, every reference to
    ``game`` kept as a reference: the arrays' pieces are views of the arrays (writing
    them out copies nothing).

    The layout: ``MAGIC``, the number of arrays and the length of each part (8 bytes
    each, little-endian), then the pickle and every array's data out of band (pickle
    protocol 5), each part starting at a multiple of ``ALIGN``. Read back from a
    memory map (``agents.store``), the arrays are the file's pages, not copies: a
    solution of hundreds of megabytes is read in the time its pages take to map, and
    nothing is copied but what is touched."""
    buffers: list[pickle.PickleBuffer] = []
    stream = io.BytesIO()
    _Writer(stream, game, buffers).dump(document)
    parts = [stream.getbuffer(), *(buffer.raw() for buffer in buffers)]
    frame = MAGIC + struct.pack(f"<{len(parts) + 1}Q", len(buffers),
                                *(part.nbytes for part in parts))
    pieces: list[bytes | memoryview] = [frame + _padding(len(frame))]
    for part in parts:
        pieces += [part, _padding(part.nbytes)]
    return pieces


def _padding(size: int) -> bytes:
    return bytes(_aligned(size) - size)


def read_answer(payload: bytes | memoryview, game: Game) -> dict | None:
    """The document ``write_answer`` made, attached to ``game``, its arrays views of
    ``payload`` (copied first if ``payload`` is read-only: an answer's arrays may be
    written to); None if it does not read back (a damaged or foreign payload is a
    miss, never an error)."""
    try:
        view = memoryview(payload).cast("B")
        if view.readonly:
            view = memoryview(bytearray(view))
        parts = _parts(view)
        document = _Reader(io.BytesIO(parts[0]), game, parts[1:]).load()
    except Exception:  # noqa: BLE001 - whatever a damaged pickle raises, it is a miss
        return None
    if not isinstance(document, dict) or "answer" not in document:
        return None
    return document


def _parts(view: memoryview) -> list[memoryview]:
    """The pickle and the arrays' data of an answer's bytes (``write_answer``)."""
    if bytes(view[:len(MAGIC)]) != MAGIC:
        raise ValueError("not an answer of this layout")
    at = len(MAGIC)
    (count,) = struct.unpack_from("<Q", view, at)
    sizes = struct.unpack_from(f"<{count + 1}Q", view, at + 8)
    at = _aligned(at + 8 * (count + 2))
    parts = []
    for size in sizes:
        if at + size > len(view):
            raise ValueError("an answer cut short")
        parts.append(view[at:at + size])
        at = _aligned(at + size)
    return parts
