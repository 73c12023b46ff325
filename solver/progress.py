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

A task made of ``parts`` counts the tasks opened inside it as its units (a question's
steps, a calibration's tries): the share of the part running counts as that share of
one unit (the most of it seen: a part may run several tasks in turn), so what a report
says is left (``left``) is the whole work's, not only the step's now running.
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
    ``finished`` whether it has just ended. ``steps`` says, for each task of ``tasks``,
    which of its parts runs ("step 2 of 5"; "" for a task not made of parts), and
    ``left`` the seconds left of all the work: of the tasks made of parts around the
    reporting one, the outermost's (``remaining`` where there is none)."""

    tasks: tuple[str, ...]
    stage: str
    done: float
    total: float | None
    unit: str
    elapsed: float
    remaining: float | None
    finished: bool = False
    steps: tuple[str, ...] = ()
    left: float | None = None

    @property
    def fraction(self) -> float | None:
        if self.total is None:
            return None
        return min(1.0, self.done / self.total) if self.total > 0 else 0.0


@dataclass(eq=False)   # two tasks are told apart by identity, not by their fields
class Task:
    what: str
    total: float | None
    unit: str
    started: float
    done: float = 0.0
    stage: str = ""
    parts: bool = False
    #: what each part weighs in the task's time, for a task made of parts whose parts
    #: differ (empty: each weighs the same)
    weights: tuple[float, ...] = ()
    #: the largest share of the running part seen, and which part it was: a part may
    #: run several tasks one after the other, each from 0
    most_of_part: tuple[float, float] = (-1.0, 0.0)

    def share(self, running: float = 0.0) -> float | None:
        """The share of the task done (None when its total is not known), ``running`` of
        the part now running counted (the most of it seen so far)."""
        if self.total is None:
            return None
        if self.parts:
            seen = self.most_of_part[1] if self.most_of_part[0] == self.done else 0.0
            running = max(running, seen)
            self.most_of_part = (self.done, running)
        if not self.weights:
            return min(1.0, (self.done + running) / self.total) if self.total > 0 else 0.0
        parts = int(self.done)
        now = self.weights[parts] if parts < len(self.weights) else 0.0
        weighed = sum(self.weights[:parts]) + running * now
        return min(1.0, weighed / sum(self.weights)) if sum(self.weights) > 0 else 0.0

    def step(self, running: bool) -> str:
        """Which part runs (``running``: a task inside it reports) or is next: "step 2
        of 5" (the unit made singular); a part past those it expected, "try 7" alone;
        after the last part, the last."""
        if not self.parts or self.total is None:
            return ""
        one = (self.unit[:-3] + "y" if self.unit.endswith("ies")
               else self.unit.removesuffix("s"))
        if self.done < self.total:
            return f"{one} {self.done + 1:.0f} of {self.total:.0f}"
        if running:
            return f"{one} {self.done + 1:.0f}"
        return f"{one} {self.total:.0f} of {self.total:.0f}"


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
def task(what: str, total: float | None, unit: str = "steps", parts: bool = False,
         weights: tuple[float, ...] = ()) -> Iterator[Task | None]:
    """Open a task of ``total`` units (None: not known beforehand) for the block (None,
    and nothing kept, when nobody listens); with ``parts`` its units are the tasks
    opened inside it (see the module), each ``advance``d when it is done, and
    ``weights`` (one per unit) what each weighs in its time where they differ."""
    if weights and len(weights) != total:
        raise ValueError(f"{len(weights)} weights for {total} parts")
    if not _HERE.listeners:
        yield None
        return
    opened = Task(what, None if total is None else float(total), unit, time.monotonic(),
                  parts=parts, weights=tuple(weights))
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
    now = time.monotonic()
    if current.total is not None:
        # a total that was an estimate (a search's tries) grows with the work done
        current.total = max(current.total, current.done)
    opened = _HERE.open   # ``current`` is the innermost
    remaining = 0.0 if finished else _time_left(current, current.share(), now)
    # the work whose time is left: the tasks made of parts around this one, each the
    # part of the one around it
    outermost = len(opened) - 1
    while outermost > 0 and opened[outermost - 1].parts:
        outermost -= 1
    left = remaining if outermost == len(opened) - 1 else _time_left(
        opened[outermost], _share_through_parts(opened[outermost:]), now)
    relay(Report(tuple(t.what for t in opened), current.stage, current.done,
                 current.total, current.unit, now - current.started, remaining, finished,
                 tuple(t.step(t is not current) for t in opened), left))


def _time_left(task: Task, share: float | None, now: float) -> float | None:
    """The time ``task`` has taken, scaled by what is left of it over what is done."""
    if share is None or share < ESTIMATE_AFTER:
        return None
    return (now - task.started) * (1.0 - share) / share


def _share_through_parts(opened: list[Task]) -> float | None:
    """The share of ``opened[0]`` done, the part running inside each task made of parts
    counted as its share of one unit."""
    outer, *inner = opened
    if not (outer.parts and inner):
        return outer.share()
    if outer.total is not None and outer.done >= outer.total:
        return None   # a part past those it expected runs: its share is not known
    return outer.share(running=_share_through_parts(inner) or 0.0)


def relay(report: Report) -> None:
    """Say ``report`` to this thread's listeners (work of another thread, waited for)."""
    for listener in list(_HERE.listeners):
        listener(report)
