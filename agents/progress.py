"""Terminal progress of self-play: one line on stderr, redrawn in place."""

from __future__ import annotations

import os
import shutil
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


# -- the solver's long work, as the `duel` command shows it

#: seconds of a question before anything is drawn (a quick answer draws nothing)
QUIET_SECONDS = 2.0
#: seconds between two lines where the stream is not a terminal (no redraw in place)
LOG_SECONDS = 10.0


class WorkLine:
    """The solver's progress (``solver.progress``) as one line on a stream: redrawn
    in place on a terminal (at most four times a second, cut to the terminal's width,
    wiped when the work ends), a line every ``LOG_SECONDS`` elsewhere; nothing in the
    question's first ``QUIET_SECONDS``, counted from the line's making (a question of
    several short solves is shown once it has taken that long, whichever solve runs)."""

    def __init__(self, stream: TextIO, terminal: bool):
        self.stream, self.terminal = stream, terminal
        self.began = time.monotonic()
        self.last, self.width = 0.0, 0

    def __call__(self, report) -> None:
        if report.finished:
            if len(report.tasks) == 1 and self.width:
                self._wipe()
            return
        now = time.monotonic()
        if now - self.began < QUIET_SECONDS or now - self.last < (
                0.25 if self.terminal else LOG_SECONDS):
            return
        self.last = now
        if self.terminal:
            text = fitted(report, _columns(self.stream) - 1 - len(PREFIX))
            self.stream.write("\r" + (PREFIX + text).ljust(self.width))
            self.width = len(PREFIX + text)
        else:
            self.stream.write(PREFIX + work_text(report) + "\n")
        self.stream.flush()

    def _wipe(self) -> None:
        self.stream.write("\r" + " " * self.width + "\r")
        self.stream.flush()
        self.width = 0


PREFIX = "duel: "


def _columns(stream: TextIO) -> int:
    """The width of the terminal ``stream`` writes to (stderr's: stdout may be a file)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError):   # not a terminal, or no file behind it
        return shutil.get_terminal_size().columns


def work_text(report, counts: bool = True, tasks: slice = slice(None)) -> str:
    """``solving: stage games 45% (1,234 of 2,742 counter values), about 20 s left``;
    of work whose total is not known, ``exploring the duel: 49,152 situations so far``.
    Tasks made of parts say which runs (``the odds (step 4 of 6) > solving: ...``), and
    the time left is the whole work's (``solver.progress.Report.left``). ``counts``
    False leaves out the units done, ``tasks`` keeps some of the tasks' names."""
    steps = report.steps or ("",) * len(report.tasks)
    what = " > ".join(f"{name} ({step})" if step else name
                      for name, step in list(zip(report.tasks, steps, strict=True))[tasks])
    stage = f": {report.stage}" if report.stage else ""
    if report.total is None:
        return f"{what}{stage or ':'} {report.done:,.0f} {report.unit} so far"
    left = ("" if report.left is None else f", about {duration_text(report.left)} left")
    counted = (f" ({report.done:,.0f} of {report.total:,.0f} {report.unit})"
               if counts else "")
    return f"{what}{stage} {report.fraction:.0%}{counted}{left}"


def fitted(report, width: int) -> str:
    """``work_text`` in at most ``width`` characters: without the units done, then with
    the outermost and innermost tasks' names only, then cut (a line longer than the
    terminal wraps, and each redraw would leave a line behind)."""
    for counts, tasks in ((True, slice(None)), (False, slice(None)),
                          (False, slice(0, len(report.tasks), max(1, len(report.tasks) - 1)))):
        text = work_text(report, counts, tasks)
        if len(text) <= width:
            return text
    return text[:max(0, width - 3)] + "..."


def duration_text(seconds: float) -> str:
    """``20 s``, ``3 min``, ``1.2 h``: a time as a waiting reader takes it in."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def showing_work(stream: TextIO | None = None):
    """The solver's progress drawn on ``stream`` (stderr) for the block: when it is a
    terminal, or when ``DUEL_PROGRESS=1`` asks (a log then gets a line now and then);
    never on stdout, so ``--json`` stays one document."""
    import contextlib
    import os

    from solver.progress import listening

    stream = stream or sys.stderr
    terminal = stream.isatty()
    if not terminal and os.environ.get("DUEL_PROGRESS") != "1":
        return contextlib.nullcontext()
    return listening(WorkLine(stream, terminal))
