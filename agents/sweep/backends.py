"""Where cells are solved: ``local`` (a process pool on this machine) or ``ray`` (Ray
tasks, on a local Ray instance or a cluster). Each runs tasks ``(tag, work, arguments)``
(``work`` a module-level function, ``solve_cell`` by default) and yields
``(tag, work(*arguments))`` as they finish, in any order; the results are the same
whichever runs them."""

from __future__ import annotations

import os
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator

from solver.errors import InputError

from .cells import solve_cell

BACKENDS = ("local", "ray")
#: memory declared to Ray for each cell unless told otherwise (bytes)
TASK_MEMORY = 2 * 1024**3

Task = tuple[str, Callable, tuple]  # (tag, work, its arguments)


def solve_task(tag: str, system: str, arguments: dict) -> Task:
    """The task of solving one cell: ``envs.make(system, **arguments)``."""
    return tag, solve_cell, (system, arguments)


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class LocalBackend:
    """A pool of processes on this machine; one worker solves in this process. The pool
    starts with the first run and stops after it, unless ``start`` kept it (a benchmark
    times the cells without the workers' start)."""

    def __init__(self, workers: int | None = None):
        self.workers = workers or default_workers()
        self.pool = None

    def start(self) -> LocalBackend:
        if self.workers > 1 and self.pool is None:
            import multiprocessing
            # spawn, not fork: the parent has numba's and torch's threads running
            self.pool = multiprocessing.get_context("spawn").Pool(self.workers,
                                                                  _ignore_interrupts)
            self.pool.map(_ready, range(self.workers))  # every worker up
        return self

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()  # an interrupted sweep stops its workers at once
            self.pool.join()
            self.pool = None

    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[str, dict]]:
        if self.workers == 1:
            yield from map(_run_task, tasks)
            return
        kept = self.pool is not None
        self.start()
        try:
            yield from self.pool.imap_unordered(_run_task, list(tasks), chunksize=1)
        except BaseException:
            self.close()
            raise
        if not kept:
            self.close()


def _ready(_) -> None:
    """A worker's first task: it imports what solving needs."""
    import envs  # noqa: F401
    import solver  # noqa: F401


def _ignore_interrupts() -> None:
    """Ctrl-C reaches the whole process group: only the parent answers it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_task(task: Task) -> tuple[str, object]:
    tag, work, arguments = task
    return tag, work(*arguments)


def _call(work: Callable, *arguments):
    """A task's work, as one Ray remote function runs any of them."""
    return work(*arguments)


class RayBackend:
    """Each cell a Ray task with ``memory`` bytes declared, so Ray schedules no more cells
    on a node than its memory holds; on the cluster at ``address``, or on a Ray instance
    started here with ``workers`` CPUs."""

    def __init__(self, workers: int | None = None, address: str | None = None,
                 memory: int = TASK_MEMORY):
        self.workers, self.address, self.memory = workers, address, memory

    def run(self, tasks: Iterable[Task]) -> Iterator[tuple[str, dict]]:
        ray = _import_ray()
        started_here = not ray.is_initialized()
        if started_here:
            ray.init(address=self.address, include_dashboard=False, log_to_driver=False,
                     num_cpus=None if self.address else (self.workers or default_workers()))
        remote = ray.remote(num_cpus=1, memory=self.memory, max_retries=0)(_call)
        waiting = deque(tasks)
        in_flight = max(1, 2 * int(ray.cluster_resources().get("CPU", 1)))
        pending: dict = {}
        try:
            while waiting or pending:
                while waiting and len(pending) < in_flight:
                    tag, work, arguments = waiting.popleft()
                    pending[remote.remote(work, *arguments)] = tag
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    tag = pending.pop(ref)
                    yield tag, self._result(ray, ref)
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
            if started_here:
                ray.shutdown()


    def _result(self, ray, ref):
        try:
            return ray.get(ref)
        except ray.exceptions.OutOfMemoryError:
            raise InputError(
                f"a cell needed more memory than its node had (declared: "
                f"{self.memory / 1024**3:.1f} GB a cell); the cells done are kept: run the "
                "sweep again with a larger --task-memory") from None


def _import_ray():
    try:
        import ray
    except ModuleNotFoundError:
        raise InputError("--backend ray needs Ray: pip install 'duel-solver[cluster]'"
                         ) from None
    return ray


def make_backend(name: str, workers: int | None = None, address: str | None = None,
                 memory: int = TASK_MEMORY):
    if name not in BACKENDS:
        raise InputError(f"unknown backend {name!r}; allowed: {', '.join(BACKENDS)}")
    if workers is not None and workers < 1:
        raise InputError(f"--workers takes an integer >= 1, got {workers}")
    if address is not None and name != "ray":
        raise InputError("--address is for --backend ray")
    if name == "ray":
        _import_ray()
        return RayBackend(workers, address, memory)
    return LocalBackend(workers)
