"""Reading a file a person named: a regular file, under a size limit, without blocking.

A path on the command line may name anything: a FIFO with no writer (an ordinary
``open`` waits forever), ``/dev/zero`` (a read never ends), a directory, or nothing at
all (an unset variable in a script gives ``''``). Every file read from a user's path
goes through ``read_limited``, so each of those is one ``InputError``.
"""

from __future__ import annotations

import os
import stat
import zlib
from pathlib import Path

from solver.errors import InputError

#: the first bytes of a gzip stream
GZIP_MAGIC = b"\x1f\x8b"


def _size_text(size: int) -> str:
    return f"{size / 2**20:.3g} MB" if size >= 2**20 else f"{size} bytes"


def checked_path(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a Path; an empty one is an error (it would read as the folder ``.``)."""
    if not isinstance(path, str | os.PathLike) or not os.fspath(path).strip():
        raise InputError(f"{what} path is empty; give a file name")
    return Path(path)


def read_limited(path: str | os.PathLike, what: str, limit: int) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    The file's type is read with ``os.stat`` before it is opened, and it is opened with
    ``O_NONBLOCK``, so a FIFO or a device is refused, never waited on or read forever.
    """
    path = checked_path(path, what)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{what} file not found: {path}") from None
    except OSError as error:
        raise InputError(f"cannot read {what} {path}: {error.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{what} {path} is not a regular file ({_kind(info.st_mode)}); "
                         f"allowed: a regular file")
    _check_size(info.st_size, path, what, limit)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise InputError(f"cannot read {what} {path}: {error.strerror}") from None
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):  # replaced since the stat
            raise InputError(f"{what} {path} is not a regular file; allowed: a regular file")
        data = handle.read(limit + 1)
    _check_size(len(data), path, what, limit)
    return data


def _check_size(size: int, path: Path, what: str, limit: int) -> None:
    if size > limit:
        raise InputError(f"{what} {path} is {_size_text(size)}; allowed: at most "
                         f"{_size_text(limit)}")


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"


def inflate_limited(raw: bytes, where: str, limit: int) -> bytes:
    """``raw`` as it is, or inflated when it is gzip, refusing to inflate past ``limit``
    bytes (a small file can inflate a thousandfold)."""
    if not raw.startswith(GZIP_MAGIC):
        return raw
    inflater = zlib.decompressobj(wbits=31)  # 16 + 15: gzip header
    try:
        data = inflater.decompress(raw, limit + 1)
        if len(data) > limit:
            raise InputError(f"{where} inflates to more than {_size_text(limit)}; allowed: "
                             f"at most {_size_text(limit)}")
        if not inflater.eof:
            raise InputError(f"{where}: the gzip stream is cut short")
    except zlib.error as error:
        raise InputError(f"cannot read {where}: {error}") from None
    return data
