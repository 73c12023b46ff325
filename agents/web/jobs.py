"""Long work: each question in its own worker process, shared by every page that asks it.

A question is known by its key (the command, the game's identity as the answer store
keys it, and the rest of the question), so a second tab asking the same duel joins the
first computation instead of starting another. A job can be cancelled (its process is
ended); at most ``workers`` run at once, the others wait their turn. How long a job
will take is estimated from the last jobs of the same command and system, or, for work
that reports its progress (a sweep's cells), from the rate of its own progress.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import statistics
import threading
import time
from dataclasses import dataclass, field

#: jobs kept after they end (for their result and for a late tab asking the same)
KEPT = 200
#: durations remembered per command and system for the estimate
HISTORY = 5
#: the work that reports its progress (a sweep: cells solved of cells planned), whose
#: estimate is its own rate, not the last jobs' durations (their grids differ)
PROGRESSING = frozenset({"sweep"})


@dataclass
class Job:
    id: str
    key: str
    kind: str
    system: str | None
    args: object
    estimate: float | None
    state: str = "waiting"       # waiting, running, done, error, cancelled
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    result: str | None = None    # the document's JSON text
    error: str | None = None
    process: object = None
    finished: threading.Event = field(default_factory=threading.Event)
    #: (done, planned) as the work last said, for work that reports it
    progress: tuple[int, int] | None = None
    #: the solver's last line on what it is doing (``work.SolverWords``)
    work: str | None = None

    def status(self) -> dict:
        elapsed = (self.ended or time.monotonic()) - self.started
        estimate = self.estimate
        if self.progress and self.progress[0] and self.state == "running":
            done, planned = self.progress
            estimate = elapsed * planned / done   # the rate so far, kept to the end
        return {"job": self.id, "kind": self.kind, "state": self.state,
                "elapsed": round(elapsed, 2),
                "estimate": None if estimate is None else round(estimate, 2),
                "progress": None if self.progress is None else dict(
                    zip(("done", "planned"), self.progress, strict=True)),
                "work": self.work if self.state == "running" else None,
                "error": self.error}


class Jobs:
    """The server's jobs: started in worker processes, deduplicated by key."""

    def __init__(self, workers: int = 2, context=None):
        self.context = context or _worker_context()
        self.slots = threading.Semaphore(workers)
        self.lock = threading.Lock()
        self.jobs: dict[str, Job] = {}
        self.live: dict[str, Job] = {}
        self.durations: dict[tuple, list[float]] = {}
        self.counter = itertools.count(1)

    def submit(self, key: str, kind: str, args, system: str | None = None) -> Job:
        """The job answering ``key``: the one running or done already, else a new one."""
        with self.lock:
            known = self.live.get(key)
            if known is not None and known.state in ("waiting", "running", "done"):
                return known
            job = Job(f"j{next(self.counter)}", key, kind, system, args,
                      None if kind in PROGRESSING else self._estimate(kind, system))
            self.jobs[job.id] = job
            self.live[key] = job
            self._forget_old()
        threading.Thread(target=self._run, args=(job,), daemon=True).start()
        return job

    def get(self, job_id: str) -> Job | None:
        return self.jobs.get(job_id)

    def cancel(self, job_id: str) -> Job | None:
        job = self.jobs.get(job_id)
        if job is None or job.finished.is_set():
            return job
        with self.lock:
            job.state = "cancelled"
            if self.live.get(job.key) is job:
                del self.live[job.key]
            if job.process is not None:   # started: ended now (else it never starts)
                job.process.terminate()
        return job

    def _estimate(self, kind: str, system: str | None) -> float | None:
        seen = self.durations.get((kind, system))
        return statistics.median(seen) if seen else None

    def _forget_old(self) -> None:
        ended = [j for j in self.jobs.values() if j.finished.is_set()]
        for job in ended[:max(0, len(self.jobs) - KEPT)]:
            del self.jobs[job.id]
            if self.live.get(job.key) is job:
                del self.live[job.key]

    def _run(self, job: Job) -> None:
        with self.slots:
            if job.state == "cancelled":
                return self._end(job)
            receiver, sender = self.context.Pipe(duplex=False)
            from .work import work
            # the store of this server's environment now, not of the process server's
            store = os.environ.get("DUEL_CACHE_DIR")
            process = self.context.Process(target=work, args=(sender, job.kind, job.args, store),
                                           daemon=True)
            with self.lock:   # a cancel comes before the start or after it, not between
                if job.state == "cancelled":
                    return self._end(job)
                process.start()
                job.process, job.state, job.started = process, "running", time.monotonic()
            sender.close()
            message = _receive(receiver, process, job)
            process.join()
        self._settle(job, message)

    def _settle(self, job: Job, message) -> None:
        if job.state == "cancelled":
            return self._end(job)
        if message is None:
            job.state, job.error = "error", "the computation ended without an answer " \
                                            "(out of memory?)"
        elif message[0] == "done":
            job.state, job.result = "done", message[1]
            seen = self.durations.setdefault((job.kind, job.system), [])
            seen.append(time.monotonic() - job.started)
            del seen[:-HISTORY]
        else:
            job.state, job.error = "error", message[1]
        if job.state == "error":
            with self.lock:   # an error is not an answer: the next asking tries again
                if self.live.get(job.key) is job:
                    del self.live[job.key]
        self._end(job)

    def _end(self, job: Job) -> None:
        job.ended = time.monotonic()
        job.finished.set()


def _receive(receiver, process, job: Job):
    """The worker's answer, or None if it ended without one; its progress messages
    before it (``("progress", done, planned)``, ``("work", text)``) are kept on ``job``."""
    while True:
        if receiver.poll(0.05):
            try:
                message = receiver.recv()
            except EOFError:
                return None
            if message[0] == "work":
                job.work = message[1]
            elif message[0] == "progress":
                job.progress = tuple(message[1:])
            else:
                return message
            continue
        if not process.is_alive() and not receiver.poll(0):
            return None


def _worker_context():
    """Workers forked from a server of processes that has imported the commands once:
    quick to start, and no fork of this threaded process (a lock held by another thread
    at the fork would stay held in the child)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["agents.web.work"])
    return context
