"""Freed memory kept for reuse during a large solve.

A counter solve allocates arrays of tens to hundreds of megabytes at every layer and
frees them at the next. glibc hands blocks that large back to the system at once
(``munmap``), so each new layer's arrays are faulted in and zeroed by the kernel again:
at level-10 hit points a tenth of the solve's time went there. Within
``keeping_freed_memory`` such blocks come from the heap and stay there when freed; on
leaving, glibc's default thresholds are set again (as fixed values: its own adjustment
of the mmap threshold, and ``MALLOC_*`` settings from the environment, do not come back)
and the heap is trimmed. Elsewhere than glibc (``mallopt`` missing) it does nothing.

It is a setting of the whole process, so the solver never makes it: a program that
owns its process and solves large duels opts in by wrapping its work (the ``duel``
command does, and so do the benchmarks), and a library calling the solver keeps the
heap it has.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Iterator
from contextlib import contextmanager

#: glibc's ``mallopt`` parameters and their defaults (``man 3 mallopt``)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
DEFAULT_THRESHOLD = 128 * 1024
#: blocks up to this size come from the heap within ``keeping_freed_memory``; freed
#: memory at the heap's top is kept up to the largest threshold ``mallopt`` takes
KEPT_BLOCKS = 1 << 30
KEPT_TOP = 2**31 - 1


def _glibc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)   # the C library the interpreter runs on
    except OSError:
        return None
    if not (hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim")):
        return None
    # mallopt takes C ints: ctypes would cut a larger Python int to its low bits
    libc.mallopt.argtypes, libc.mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    libc.malloc_trim.argtypes, libc.malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
    return libc


_LIBC = _glibc()
_depth = 0


@contextmanager
def keeping_freed_memory() -> Iterator[None]:
    """Large blocks freed inside are kept for the next allocations (nestable)."""
    global _depth
    if _LIBC is None:
        yield
        return
    if _depth == 0:
        _LIBC.mallopt(M_MMAP_THRESHOLD, KEPT_BLOCKS)
        _LIBC.mallopt(M_TRIM_THRESHOLD, KEPT_TOP)
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            _LIBC.mallopt(M_MMAP_THRESHOLD, DEFAULT_THRESHOLD)
            _LIBC.mallopt(M_TRIM_THRESHOLD, DEFAULT_THRESHOLD)
            _LIBC.malloc_trim(0)
