"""Files the agents write and read back: written atomically, read strictly.

Every file the trainer or ``duel train`` writes (profile, checkpoint, learning curve)
goes through ``write_atomically``: a uniquely named temporary file in the target's
folder, then ``os.replace``. A reader therefore sees the old file or the new one,
never half of one, and two runs writing the same target never share a temporary
file (a fixed name such as ``FILE.tmp`` would be truncated by the second run while
the first still writes it). ``read_json`` turns everything a malformed file can do
(not JSON, NaN, nesting deep enough to exhaust the stack) into one ``InputError``.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from envs.reading import inflate_limited, read_limited
from solver.errors import InputError

#: the largest profile or checkpoint file read, as stored and as inflated when it is
#: gzip: a profile of every hit-point pair of Pathfinder's largest sheets is a few MB of
#: JSON, and a JSON document costs several times its size in memory once parsed
MAX_FILE_BYTES = 64 * 2**20
#: deeper than any file the agents write (a checkpoint is 5 levels, a profile 6), far
#: below the depth at which Python's own recursion (json, repr, ==) would fail
MAX_DEPTH = 32


def write_atomically(path: str | Path, write: Callable[[IO], None], binary: bool = False) -> Path:
    """Call ``write(handle)`` on a fresh temporary file beside ``path``, then move it
    over ``path``; if anything fails, the temporary file is removed and ``path`` is
    left as it was."""
    path = Path(path)
    check_writable_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(
        mode="wb" if binary else "w", encoding=None if binary else "utf-8",
        newline=None if binary else "", dir=path.parent, prefix=f".{path.name}.",
        suffix=".tmp", delete=False)
    try:
        with handle:
            # a temporary file is private (0600); the result gets an ordinary file's mode
            os.chmod(handle.name, _ordinary_mode())
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    return path


def check_writable_target(path: Path) -> None:
    """``path`` names a regular file or nothing yet: the move that ends an atomic write
    would replace a FIFO, a device or a symbolic link itself (``--out /dev/null`` would
    replace /dev/null), so those are refused."""
    if not str(path).strip():
        raise InputError("output path is empty; give a file name")
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as error:
        raise InputError(f"cannot write {path}: {error.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise InputError(f"output {path} is a symbolic link; allowed: a regular file or a "
                         f"new file (name the link's target instead)")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"output {path} is not a regular file; allowed: a regular file "
                         f"or a new file")


def _ordinary_mode() -> int:
    """The mode ``open(path, "w")`` would give a new file: 0666 less the umask (which
    can only be read by setting it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def read_json(path: str | Path, what: str) -> Any:
    """The JSON document at ``path``, plain or gzip-compressed (told by its first
    bytes, whatever its name); ``what`` names the kind of file in errors."""
    raw = inflate_limited(read_limited(path, what, MAX_FILE_BYTES), f"{what} {path}",
                          MAX_FILE_BYTES)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"cannot read {what} {path}: {error}") from None
    return parse_json(text, f"{what} {path}")


def write_json(path: str | Path, document: Any, indent: int | None = 1) -> Path:
    """``document`` as JSON at ``path``, atomically; gzip-compressed when the name ends
    in ``.gz`` (a profile of every hit-point pair holds a hundred thousand mixes)."""
    def dump(handle) -> None:
        json.dump(document, handle, indent=indent, allow_nan=False)
        handle.write("\n")

    if not Path(path).name.endswith(".gz"):
        return write_atomically(path, dump)

    def packed(raw) -> None:
        # no name and no time in the header: the same document gives the same bytes
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as stream, \
                io.TextIOWrapper(stream, encoding="utf-8") as text:
            dump(text)

    return write_atomically(path, packed, binary=True)


def parse_json(text: str, where: str) -> Any:
    """Strict JSON: NaN and Infinity (which Python's json accepts) and nesting deeper
    than ``MAX_DEPTH`` are errors, as is anything that is not JSON. Errors read
    ``{where}: ...``."""
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise InputError(f"{where}: it is not JSON ({error})") from None
    except RecursionError:
        raise InputError(f"{where}: it is nested too deeply; allowed: at most "
                         f"{MAX_DEPTH} levels") from None
    except ValueError as error:  # from _refuse_constant
        raise InputError(f"{where}: {error}") from None
    depth = nesting_depth(data)
    if depth > MAX_DEPTH:
        raise InputError(f"{where}: it is nested {depth} levels deep; allowed: at most "
                         f"{MAX_DEPTH}")
    return data


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows; allowed: finite numbers")


def nesting_depth(data: Any) -> int:
    """How many lists and objects deep ``data`` goes, counted without recursion."""
    deepest, pending = 0, [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            deepest = max(deepest, depth)
            pending.extend((item, depth + 1) for item in value
                           if isinstance(item, list | dict))
    return deepest
