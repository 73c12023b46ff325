"""The most memory a solve may take, and the one way to go beyond it.

A game master's laptop has 8 to 16 GB: past ``MEMORY_CEILING`` a duel is refused in
words, with what it would need, before anything is allocated (the ``duel`` command
from the system's estimate, ``envs`` ``SystemSpec.footprint``, before any state is
explored; the counters backend again from the tables it is about to allocate). A caller
who has been told the size and goes ahead anyway (``duel ... --allow-large``) lifts the
ceiling for a block with ``beyond_ceiling``.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterator
from contextlib import contextmanager

MEMORY_CEILING = 4 * 2**30
#: what a refusal past the ceiling suggests, whichever estimate or count refused
SHORTER_DUEL = "a shorter duel fits (fewer hit points, beats, turns or rounds)"
_lifted: list[bool] = []


def ceiling() -> float:
    """The memory a solve may take here, in bytes (unbounded within ``beyond_ceiling``)."""
    return float("inf") if _lifted else float(MEMORY_CEILING)


@contextmanager
def beyond_ceiling() -> Iterator[None]:
    """No memory ceiling inside the block: for a caller who was told the size."""
    _lifted.append(True)
    try:
        yield
    finally:
        _lifted.pop()


def give_back_freed() -> None:
    """Hand the memory freed inside the C heap back to the system. glibc keeps freed
    blocks of a few megabytes for its next allocations, but a solution's tables are
    allocated apart from them: a level-5 Pathfinder question kept 2.8 GB of its
    equilibrium's freed layers resident while the best response's tables came on top.
    Nothing where the C library has no ``malloc_trim`` (it is glibc's)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim():
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here: reading the ceiling (the CLI's checks) imports nothing more
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
