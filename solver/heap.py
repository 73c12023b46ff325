"""Freed memory kept for reuse during a large solve.

A counter solve allocates arrays of tens to hundreds of megabytes at every layer and
frees them at the next. glibc hands blocks that large back to the system at once
(``munmap``), so each new layer's arrays are faulted in and zeroed by the kernel again:
at level-10 hit points a tenth of the solve's time went there. Within
``keeping_freed_memory`` such blocks come from the heap and stay there when freed; on
leaving, the usual thresholds come back and the heap is trimmed. Elsewhere than glibc
(``mallopt`` missing) it does nothing.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Iterator
from contextlib import contextmanager

#: glibc's ``mallopt`` parameters and their defaults (``man 3 mallopt``)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
DEFAULT_THRESHOLD = 128 * 1024
#: blocks up to this size come from the heap within ``keeping_freed_memory``
KEPT_BLOCKS = 1 << 30


def _glibc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)   # the C library the interpreter runs on
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


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
        _LIBC.mallopt(M_TRIM_THRESHOLD, 4 * KEPT_BLOCKS)
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            _LIBC.mallopt(M_MMAP_THRESHOLD, DEFAULT_THRESHOLD)
            _LIBC.mallopt(M_TRIM_THRESHOLD, DEFAULT_THRESHOLD)
            _LIBC.malloc_trim(0)
