"""The answer store on disk: what the solver computed, kept in the user's cache
directory so that the next question about the same duel is read back instead.

One file per answer, named by a hash of its key, written whole to a temporary file
beside it and renamed into place (``os.replace``, atomic on POSIX and Windows within
one directory). Why files and not SQLite: an answer of a large duel is hundreds of
megabytes (SQLite refuses a blob over 1 GB and must hold a blob whole to write it),
entries are written once and never updated in part, and two processes computing the
same duel compute the same bytes, so "the last rename wins" is all the concurrency
needed: a reader sees the old file or the new one, never half of one. ``list`` is one
directory scan and ``clear`` frees the disk at once.

Each file starts with one line of JSON (the key, the version of the code that wrote
it, the payload's size and digest: the SHA-256 of the SHA-256 of each 32 MiB, hashed
on several threads), padded so that the payload starts at a multiple of 64 bytes,
then the payload. An entry of another version, another key (a hash collision) or
whose payload does not match its digest is a miss: the answer is computed again and
written over it, never used. ``get`` hands back a copy-on-write memory map of the
file: the arrays of an answer read back are its pages (``solver.cache``), not a copy.
(On Windows a mapped file cannot be replaced: a second process writing an entry
another one is reading is then said in a warning, and the answer still given.)

A store given ``deferred_bytes`` (the ``duel`` command's, for the questions a GM waits
for) keeps up to that many bytes of answers in memory, and any number where they are
the last large ones of their process (``solver.cache.last_large_answers``), and writes
them when told (``write_pending``): on Linux
in a child process of its own, once the answer is printed, so that the prompt comes
back before the disk has the answer (a level-5 solution is 1.7 GB, and its writing
took 3.5-3.8 s on a virtual machine). Until that child has written an entry, it holds a
lock beside it (``.keeping-*``, an ``flock``, let go by the system if the child dies):
``get``, ``entries`` and ``clear`` wait for it, so the next question reads the answer
rather than computing it again, and no listing misses it.

The payload is a pickle (``solver.cache``): only this user can write the directory
(it is made with mode 0700), and whoever can write it can already change the
user's own programs, so reading it back trusts nothing new.

The directory: ``$DUEL_CACHE_DIR`` if set (the tests set it), else the platform's
rule for a user's cache (XDG on Linux, ``~/Library/Caches`` on macOS,
``%LOCALAPPDATA%`` on Windows), written out in ``user_cache_dir`` rather than taken
from ``platformdirs``: the rule is three lines and stable, and a dependency for it
would be one more package to install for every user.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import mmap
import os
import shutil
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from itertools import islice
from pathlib import Path

from solver.cache import ALIGN, Payload, answers_may_wait

from .profiles import package_version

APP = "duel-solver"
SUFFIX = ".answer"
TEMPORARY = ".writing-"
#: the lock a child writing an answer in the background holds (``write_pending``)
KEEPING = ".keeping-"
#: the room on its disk the store never takes (``short_of_room``)
ROOM_LEFT = 64 * 2**20
#: the bytes of a payload hashed as one piece (``digest``)
DIGEST_CHUNK = 32 * 2**20


def user_cache_dir() -> Path:
    """The platform's cache directory of this package for the current user."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local"
        return Path(base) / APP / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / APP
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / APP


def store_dir() -> Path:
    """Where answers are kept: ``$DUEL_CACHE_DIR``, else ``user_cache_dir()/answers``."""
    chosen = os.environ.get("DUEL_CACHE_DIR")
    return Path(chosen) if chosen else user_cache_dir() / "answers"


@cache
def code_version() -> str:
    """The package version and a digest of the code and data that answers depend on
    (the solver, the systems and their rulesets, the personalities' calibration and
    temperaments): an editable install changes its code without changing its version,
    and an answer of other code must not be read."""
    digest = hashlib.sha256()
    for package in ("solver", "envs", "agents"):
        root = resources.files(package)
        for path in sorted(_files(Path(str(root)))):
            digest.update(str(path.relative_to(Path(str(root)).parent)).encode())
            digest.update(path.read_bytes())
    return f"{package_version()}+{digest.hexdigest()[:16]}"


def _files(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.suffix in (".py", ".toml")
            and "__pycache__" not in path.parts]


class AnswerStore:
    """Answers kept as files in ``directory`` (``store_dir()`` by default); the
    ``get`` / ``put`` of ``solver.cache.AnswerCache``."""

    def __init__(self, directory: Path | str | None = None, deferred_bytes: float = 0):
        self.directory = Path(directory) if directory is not None else store_dir()
        #: how many bytes of answers may wait for ``write_pending`` (0: each is written
        #: as it is put, ``math.inf``: all wait); an answer beyond is written at once
        self.deferred_bytes = deferred_bytes
        #: key -> payload put and not written yet
        self._pending: dict[str, list[memoryview]] = {}
        #: the keys of those waiting as the process's last large answers: they do not
        #: count against ``deferred_bytes`` (the small answers made after them still wait)
        self._last: set[str] = set()

    def _name(self, key: str) -> str:
        return hashlib.sha256(key.encode()).hexdigest()[:32]

    def _file(self, key: str) -> Path:
        return self.directory / (self._name(key) + SUFFIX)

    def _lock(self, key: str) -> Path:
        return self.directory / (KEEPING + self._name(key))

    def get(self, key: str) -> memoryview | None:
        """The payload kept under ``key``, as a copy-on-write memory map of its file
        (the answer's arrays are then the file's pages, read as they are touched), or
        None when it is absent, stale or damaged (or put in this store and not written
        yet: its caller has it as computed)."""
        if key in self._pending:
            return None
        _wait_for(self._lock(key))
        try:
            with open(self._file(key), "rb") as file:
                header = _header(file.readline())
                start, size = file.tell(), os.fstat(file.fileno()).st_size
                if (header is None or header.get("key") != key
                        or header.get("version") != code_version()
                        or header.get("bytes") != size - start):
                    return None
                if size == start:
                    return memoryview(b"")
                mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_COPY)
        except (OSError, ValueError):
            return None
        payload = memoryview(mapped)[start:]
        # the pages the digest reads are let go as it goes (none is written yet: they
        # are the file's), so checking a large answer never holds it all, and its arrays
        # weigh only what is touched of them
        releasing = hasattr(mmap, "MADV_DONTNEED")   # not on Windows

        def let_go(hashed: int) -> None:
            end = (start + hashed) // mmap.PAGESIZE * mmap.PAGESIZE
            if releasing and end:
                mapped.madvise(mmap.MADV_DONTNEED, 0, end)

        if header.get("sha256") != digest(payload, let_go):
            return None
        if releasing:
            mapped.madvise(mmap.MADV_DONTNEED)
        return payload

    def put(self, key: str, payload: Payload) -> memoryview | None:
        """Keep ``payload`` (one buffer, or pieces written one after another) and hand
        back the copy kept, as ``get`` would (a memory map of the file written), without
        checking its digest again: it is this call's own file, mapped before it took the
        entry's name, so no other writer's file can stand in its place. A store that
        cannot be written (a full disk, a read-only directory) is said in a warning and
        the answer is still given (None is handed back). A payload that fits in
        ``deferred_bytes`` with those already waiting (but the last large ones), or (a
        store that defers any) one of the process's last large answers
        (``solver.cache.answers_may_wait``), waits for ``write_pending``, and None is
        handed back."""
        pieces = _pieces(payload)
        waiting = sum(piece.nbytes for waiting_key, kept in self._pending.items()
                      if waiting_key not in self._last for piece in kept)
        if waiting + sum(piece.nbytes for piece in pieces) <= self.deferred_bytes:
            self._last.discard(key)
        elif self.deferred_bytes > 0 and answers_may_wait():
            self._last.add(key)
        else:
            return self._write(key, pieces)
        self._pending[key] = pieces
        return None

    def write_pending(self, background: bool = False) -> None:
        """Write the answers waiting to be written; with ``background`` (where the
        system can fork: Linux), in a child process that goes on after this one exits,
        each entry locked until it is in place. Call it as the process leaves: the
        child takes this process's memory as it is, and a process that goes on
        writing to it would copy every page it touches."""
        pending, self._pending, self._last = self._pending, {}, set()
        if not pending:
            return
        short = self._short_of_room(sum(piece.nbytes for kept in pending.values()
                                        for piece in kept))
        if short:   # said here: a child writing in the background has no one to tell
            warnings.warn(f"the answers could not be kept in {self.directory}: {short}",
                          stacklevel=2)
            return
        background = background and sys.platform == "linux"
        locks = self._locked(pending) if background else None
        if locks is None:   # not asked, or a directory that takes no locks
            for key, payload in pending.items():
                self._write(key, payload)
            return
        try:
            child = os.fork() if locks else 1   # none: every answer is another writer's
        except OSError:   # no process to spare
            child = None
        if child is None:
            self._write_locked(pending, locks)
        elif child == 0:
            try:
                _detach()
                self._write_locked(pending, locks)
            finally:
                os._exit(0)

    def _write_locked(self, pending: dict, locks: dict) -> None:
        """Write the answers whose locks this process holds, each lock let go once its
        answer is in place."""
        for key, lock in locks.items():
            self._write(key, pending[key])
            os.unlink(self._lock(key))
            lock.close()

    def _locked(self, pending: dict) -> dict | None:
        """key -> an open file holding an exclusive lock on the key's lock file
        (inherited by the child that writes them). A key another process is writing
        already (the same answer) is left to it. None where the directory takes no
        lock."""
        import fcntl
        locks = {}
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            for key in pending:
                locks[key] = open(os.open(self._lock(key), os.O_CREAT | os.O_WRONLY, 0o600),
                                  "wb")
                try:
                    fcntl.flock(locks[key], fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    locks.pop(key).close()
        except OSError:
            for key, lock in locks.items():
                lock.close()
                with contextlib.suppress(OSError):
                    os.unlink(self._lock(key))
            return None
        return locks

    def _write(self, key: str, payload: Payload) -> memoryview | None:
        pieces = _pieces(payload)
        header = {"key": key, "version": code_version(),
                  "bytes": sum(piece.nbytes for piece in pieces), "sha256": "0" * 64,
                  "created": datetime.now(UTC).isoformat(timespec="seconds")}
        temporary, kept = None, None
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            short = self._short_of_room(header["bytes"])
            if short:
                raise OSError(short)
            with (ThreadPoolExecutor(1) as hashing,
                  tempfile.NamedTemporaryFile("w+b", dir=self.directory, prefix=TEMPORARY,
                                              delete=False) as file):
                temporary = file.name
                # hashed while it is written (both let the GIL go): the digest of a
                # level-5 solution took 0.6 s before its 3 s of writing
                hashed = hashing.submit(digest, pieces)
                file.write(_header_line(header))
                start = file.tell()
                # no fsync: an answer cut short by a crash fails its digest and is
                # computed again, so waiting for the disk buys nothing
                for piece in pieces:
                    file.write(piece)
                header["sha256"] = hashed.result()
                file.seek(0)
                file.write(_header_line(header))   # as long as the one it replaces
                file.flush()
                kept = _mapped(file, start)
            os.replace(temporary, self._file(key))
        except (OSError, ValueError) as error:
            warnings.warn(f"the answer could not be kept in {self.directory}: {error}",
                          stacklevel=2)
            if temporary is not None and os.path.exists(temporary):
                os.unlink(temporary)
            return None
        return kept

    def _short_of_room(self, nbytes: int) -> str | None:
        return short_of_room(self.directory, nbytes)

    def entries(self) -> list[dict]:
        """Every answer kept: its file, what it answers, its size, when it was made and
        whether this code can read it (``fresh``)."""
        self.settle()
        found = []
        for path in sorted(self.directory.glob("*" + SUFFIX)):
            try:
                with open(path, "rb") as file:
                    header = _header(file.readline())
                size = path.stat().st_size
            except OSError:
                continue
            header = header or {}
            key = str(header.get("key", ""))
            found.append({"file": path.name, **describe_key(key), "bytes": size,
                          "created": header.get("created"),
                          "fresh": header.get("version") == code_version()})
        return found

    def clear(self) -> dict:
        """Remove every answer (and any file left half-written by a process that was
        killed); how many files and bytes were freed."""
        self.settle()
        removed, freed = 0, 0
        for pattern in ("*" + SUFFIX, TEMPORARY + "*", KEEPING + "*"):
            for path in self.directory.glob(pattern):
                try:
                    size = path.stat().st_size
                    path.unlink()
                except OSError:
                    continue
                removed, freed = removed + 1, freed + size
        return {"removed": removed, "bytes": freed}

    def settle(self) -> None:
        """Wait until every answer being written in the background is in place."""
        for lock in self.directory.glob(KEEPING + "*"):
            _wait_for(lock)


def short_of_room(directory: Path, nbytes: int) -> str | None:
    """Why ``nbytes`` of answers are not written in ``directory`` (None: they fit). A cache
    never takes a disk's last ``ROOM_LEFT`` bytes: they are the user's other work's."""
    where = _existing(directory)   # or the folder it will be made in
    try:
        free = shutil.disk_usage(where).free
    except OSError:
        return None   # the write itself says what stands in the way
    if nbytes + ROOM_LEFT <= free:
        return None
    return (f"they take {size_text(nbytes)} and the disk has {size_text(free)} free "
            f"(a cache leaves it {size_text(ROOM_LEFT)}); `duel cache clear` frees "
            "what the store holds")


class ScratchStore:
    """The store of ``duel odds --no-cache``: nothing is read, and nothing outlives the
    process. An answer larger than ``spilled_bytes`` (what an ``AnswerStore`` would keep
    waiting in memory) is still written out, to a file with no name beside the store
    (on a disk, where a temporary directory may be memory itself), and handed back as
    its memory map, as ``AnswerStore.put`` hands back what it keeps: the answer's arrays
    are then the file's pages, read as they are touched, and the computed copy is freed.
    Odds that solve a best response after the equilibrium hold its tables meanwhile,
    most of which they never touch again (level 5's, when its best response was still
    solved: 4.27 GiB at the peak as computed, 3.58 GiB spilled). The process's last
    large answers (``solver.cache.answers_may_wait``) are kept as computed: no work to
    come needs their room. The file goes
    when the process lets go of its map; where it cannot be written (no room, no folder
    that takes it), the answer is kept as computed, unsaid: the user asked for no store."""

    def __init__(self, spilled_bytes: float, directory: Path | str | None = None):
        self.spilled_bytes = spilled_bytes
        self._directory = directory

    def get(self, key: str) -> None:
        return None

    def put(self, key: str, payload: Payload) -> memoryview | None:
        pieces = _pieces(payload)
        size = sum(piece.nbytes for piece in pieces)
        if size <= self.spilled_bytes or answers_may_wait():
            return None
        try:   # the folder looked for only now: a question that spills nothing needs none
            directory = _existing(Path(self._directory) if self._directory is not None
                                  else store_dir())
            if short_of_room(directory, size):
                return None
            # no name from the start where the system allows it (Linux), else unlinked
            # at once (or, on Windows, deleted with its last handle: the map's)
            with tempfile.TemporaryFile(dir=directory) as file:
                for piece in pieces:
                    file.write(piece)
                file.flush()
                return _mapped(file, 0)
        except (OSError, ValueError, RuntimeError):   # RuntimeError: no home directory
            return None


def _existing(directory: Path) -> Path:
    """``directory``, or the nearest folder above it that exists."""
    while not directory.exists() and directory != directory.parent:
        directory = directory.parent
    return directory


def size_text(count: float) -> str:
    """A number of bytes as people read it: ``512 B``, ``3 kB``, ``1.7 GB``."""
    for unit in ("B", "kB", "MB"):
        if count < 1000:
            return f"{count:.0f} {unit}"
        count /= 1000
    return f"{count:.1f} GB"


def _wait_for(lock: Path) -> None:
    """Return once no process holds ``lock`` (at once where there is none)."""
    try:
        import fcntl
        with open(lock, "rb") as file:
            fcntl.flock(file, fcntl.LOCK_SH)
    except (OSError, ImportError):
        pass   # no lock (or no flock, on Windows, where nothing writes in the background)


def _detach() -> None:
    """Make this (forked) process a writer of its own: its own session, so that
    neither Ctrl-C nor a closed terminal stops it, and its input and output let go,
    so that whoever reads the parent's (a pipe, ``subprocess``) sees their end when
    the parent exits."""
    os.setsid()
    nowhere = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(nowhere, descriptor)
    os.close(nowhere)
    # new streams, not the parent's (whose locks another thread may have held at the
    # fork), and nothing to say: no one is listening
    sys.stdout = sys.stderr = open(os.devnull, "w")
    warnings.simplefilter("ignore")


def _mapped(file, start: int) -> memoryview:
    """The file's bytes from ``start`` on, as a copy-on-write memory map (an answer's
    arrays may be written to; the file never is)."""
    if os.fstat(file.fileno()).st_size == start:
        return memoryview(b"")
    return memoryview(mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_COPY))[start:]


def _header_line(header: dict) -> bytes:
    """The header as one line, padded with spaces so that the payload after it starts
    at a multiple of ``solver.cache.ALIGN`` bytes (its arrays are then aligned when the
    file is mapped)."""
    line = json.dumps(header).encode()
    return line + b" " * (-(len(line) + 1) % ALIGN) + b"\n"


def digest(payload: Payload, hashed_so_far: Callable[[int], None] | None = None) -> str:
    """The SHA-256 of the SHA-256 of each ``DIGEST_CHUNK`` bytes of ``payload`` (the
    chunks hashed a few at once on several threads: hashing releases the GIL, and a
    large answer is checked in a fraction of the time one thread takes); after each
    few, ``hashed_so_far`` is told how many bytes are done."""
    def hashed(chunk) -> bytes:
        return hashlib.sha256(chunk).digest()

    chunks = _chunks(_pieces(payload), DIGEST_CHUNK)
    threads = min(os.cpu_count() or 1, 8)
    # a few at a time: a chunk across two pieces is a copy
    batch = list(islice(chunks, 2 * threads))
    if len(batch) <= 1:
        return hashlib.sha256(b"".join(map(hashed, batch))).hexdigest()
    sums: list[bytes] = []
    done = 0
    with ThreadPoolExecutor(threads) as pool:
        while batch:
            sums += pool.map(hashed, batch)
            done += sum(len(chunk) for chunk in batch)
            if hashed_so_far is not None:
                hashed_so_far(done)
            batch = list(islice(chunks, 2 * threads))
    return hashlib.sha256(b"".join(sums)).hexdigest()


def _pieces(payload: Payload) -> list[memoryview]:
    if isinstance(payload, bytes | bytearray | memoryview):
        payload = [payload]
    return [memoryview(piece).cast("B") for piece in payload]


def _chunks(pieces: list[memoryview], size: int) -> Iterator[bytes | memoryview]:
    """The bytes of ``pieces`` one after another, cut every ``size`` bytes: views of a
    piece, or a copy where a chunk spans two."""
    pending = bytearray()
    for piece in pieces:
        at = 0
        if pending:
            at = min(size - len(pending), len(piece))
            pending += piece[:at]
            if len(pending) < size:
                continue
            yield bytes(pending)
            pending = bytearray()
        while len(piece) - at >= size:
            yield piece[at:at + size]
            at += size
        pending += piece[at:]
    if pending:
        yield bytes(pending)


def _header(line: bytes) -> dict | None:
    try:
        header = json.loads(line)
    except ValueError:
        return None
    return header if isinstance(header, dict) else None


def describe_key(key: str) -> dict:
    """What a key answers, for people: the question, the system and the options
    (``solver.cache.key_of``: the question's parts, then the game's identity)."""
    question, _, rest = key.partition("|")
    start = rest.find("{")
    try:
        identity = json.loads(rest[start:]) if start >= 0 else {}
    except ValueError:
        identity = {}
    return {"question": question or "?", "system": identity.get("system", "?"),
            "options": identity.get("options", {})}
