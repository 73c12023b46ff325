"""The most memory a solve may take, and the one way to go beyond it.

A game master's laptop has 8 to 16 GB: past ``MEMORY_CEILING`` a duel is refused in
words, with what it would need, before anything is allocated (the ``duel`` command
from the system's estimate, ``envs`` ``SystemSpec.footprint``, before any state is
explored; the counters backend again from the tables it is about to allocate). A caller
who has been told the size and goes ahead anyway (``duel ... --allow-large``) lifts the
ceiling for a block with ``beyond_ceiling``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

MEMORY_CEILING = 4 * 2**30
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
