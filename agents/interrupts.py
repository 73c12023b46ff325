"""Ctrl-C during long work: finish the current step, then stop cleanly."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def deferred_interrupt() -> Iterator[Callable[[], bool]]:
    """Turn the first Ctrl-C into a flag read between steps, so a checkpoint always
    holds whole steps; a second Ctrl-C interrupts at once. Off the main thread (where
    Python delivers no signals) the flag never rises."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    hit = []

    def handler(signum, frame):
        if hit:
            raise KeyboardInterrupt
        hit.append(signum)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield lambda: bool(hit)
    finally:
        signal.signal(signal.SIGINT, previous)
