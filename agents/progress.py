"""Terminal progress of self-play: one line on stderr, redrawn in place."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from .selfplay import SelfPlay, TrainConfig


class Progress:
    """A one-line progress bar on stderr, redrawn at most five times a second."""

    WIDTH = 28

    def __init__(self, config: TrainConfig, stream: TextIO | None = None):
        self.config = config
        self.stream = stream or sys.stderr
        self.last = 0.0

    def fraction(self, trainer: SelfPlay) -> float:
        parts = []
        if self.config.iterations:
            parts.append(trainer.steps / self.config.iterations)
        if self.config.minutes:
            parts.append(trainer.seconds / (60.0 * self.config.minutes))
        return min(1.0, max(parts, default=0.0))

    def show(self, trainer: SelfPlay) -> None:
        now = time.monotonic()
        if now - self.last < 0.2 and not trainer.finished():
            return
        self.last = now
        done = self.fraction(trainer)
        filled = int(round(done * self.WIDTH))
        score = trainer.curve[-1]["exploitability"] if trainer.curve else float("nan")
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done:4.0%} "
                          f"step {trainer.steps}  {trainer.seconds:6.1f}s  "
                          f"exploitability {score:.4f} ")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def progress_bar(config: TrainConfig, wanted: bool) -> Progress | None:
    """A bar when wanted and stderr is a terminal (a log file gets no redraws)."""
    return Progress(config) if wanted and sys.stderr.isatty() else None
