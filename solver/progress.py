"""How far long work has gone, for whoever wants to show it: the solver says what it
is doing and how much of it is done; how (or whether) that is shown is the listener's
business (the ``duel`` command draws one line on stderr, ``agents.progress``).

A piece of work is a ``Task`` with a total in some unit (counter values, states):
``task(what, total)`` opens it for a block, ``advance(amount, stage)`` moves the
innermost open task on. A task whose total is not known beforehand (an exploration
finds its states as it goes) has none: its reports say how much is done, not what is
left. Nothing is measured or said unless someone listens
(``listening``), so the hooks cost nothing in a solve nobody watches.

The time left is the time the task has taken so far, scaled by what is left of its
total over what is done (work per unit is taken as even; a task's total weighs its
stages, e.g. a counter solve counts each counter value twice: its stage games, then the
play pushed forward through it). It is said once a little of the work is done
(``ESTIMATE_AFTER``): before, there is nothing to scale.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

#: the share of a task done before the time left is estimated
ESTIMATE_AFTER = 0.02


@dataclass(frozen=True)
class Report:
    """One task's state as it moves on: ``tasks`` names it and the tasks around it
    (outermost first), ``stage`` what it does now, ``done`` of ``total`` units,
    ``elapsed`` seconds since it began, ``remaining`` the estimate of the seconds left
    (None until ``ESTIMATE_AFTER`` of it is done, or when its total is not known) and
    ``finished`` whether it has just ended."""

    tasks: tuple[str, ...]
    stage: str
    done: float
    total: float | None
    unit: str
    elapsed: float
    remaining: float | None
    finished: bool = False

    @property
    def fraction(self) -> float | None:
        if self.total is None:
            return None
        return min(1.0, self.done / self.total) if self.total > 0 else 0.0


@dataclass
class Task:
    what: str
    total: float | None
    unit: str
    started: float
    done: float = 0.0
    stage: str = ""


Listener = Callable[[Report], None]


class _Thread(threading.local):
    """Each thread's listeners and open tasks: work done on a background thread is
    heard by that thread's listeners only (``agents.opponents.PreparedOpponent``
    relays it when the main thread waits for it)."""

    def __init__(self):
        self.listeners: list[Listener] = []
        self.open: list[Task] = []


_HERE = _Thread()


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Send every report of the block's work to ``listener``."""
    _HERE.listeners.append(listener)
    try:
        yield
    finally:
        _HERE.listeners.remove(listener)


@contextmanager
def task(what: str, total: float | None, unit: str = "steps") -> Iterator[Task | None]:
    """Open a task of ``total`` units (None: not known beforehand) for the block (None,
    and nothing kept, when nobody listens)."""
    if not _HERE.listeners:
        yield None
        return
    opened = Task(what, None if total is None else float(total), unit, time.monotonic())
    _HERE.open.append(opened)
    try:
        yield opened
    finally:
        try:
            _notify(opened, finished=True)
        finally:   # a listener may stop the work by raising: the task is closed anyway
            _HERE.open.remove(opened)


def advance(amount: float, stage: str = "") -> None:
    """``amount`` more units of the innermost task done, now in ``stage``."""
    if not _HERE.open:
        return
    current = _HERE.open[-1]
    current.done += amount
    if stage:
        current.stage = stage
    _notify(current)


def _notify(current: Task, finished: bool = False) -> None:
    elapsed = time.monotonic() - current.started
    if current.total is None:
        remaining = 0.0 if finished else None
    else:
        # a total that was an estimate (a search's solves) grows with the work done
        current.total = max(current.total, current.done)
        share = current.done / current.total if current.total > 0 else 0.0
        remaining = 0.0 if finished else (
            elapsed * (1.0 - share) / share if share >= ESTIMATE_AFTER else None)
    relay(Report(tuple(t.what for t in _HERE.open), current.stage, current.done,
                 current.total, current.unit, elapsed, remaining, finished))


def relay(report: Report) -> None:
    """Say ``report`` to this thread's listeners (work of another thread, waited for)."""
    for listener in list(_HERE.listeners):
        listener(report)
