"""A sweep's progress on stderr, with an estimate of the time left.

(``agents.progress`` draws self-play's bar from a training run's steps and minutes; a
sweep counts cells, so it has its own, smaller line.)"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from ..progress import duration_text


class SweepProgress:
    """``solved/total`` cells and the time left at the rate seen so far: redrawn in place
    on a terminal (at most five times a second), a line every ``every`` seconds in a
    log."""

    def __init__(self, total: int, skipped: int, stream: TextIO | None = None,
                 every: float = 10.0):
        self.total, self.skipped = total, skipped
        self.stream = stream or sys.stderr
        self.terminal = self.stream.isatty()
        self.every = every if not self.terminal else 0.2
        self.started = self.last = time.monotonic()
        self.solved = 0

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        left = "" if not self.solved else (
            f", about {duration_text(elapsed / self.solved * (self.total - self.solved))} left")
        return (f"sweep: {self.solved}/{self.total} cells solved"
                f"{f' ({self.skipped} done before or read from a mirror)' if self.skipped else ''}"
                f"; {duration_text(elapsed)} so far{left}")

    def step(self) -> None:
        self.solved += 1
        now = time.monotonic()
        if now - self.last >= self.every or self.solved == self.total:
            self.last = now
            self._show()

    def _show(self) -> None:
        if self.stream.closed:
            return
        end = " " if self.terminal else "\n"
        self.stream.write(("\r" if self.terminal else "") + self.line() + end)
        self.stream.flush()

    def close(self) -> None:
        if self.terminal and not self.stream.closed:
            self.stream.write("\n")
            self.stream.flush()

