"""The compiled parts of the counters backend: whether numba still has to compile them
(its first run, about ``COMPILE_SECONDS``), and the one line that says so.

Every numba function of the backend is compiled with ``cache=True``: numba keeps the
machine code beside the sources (or in ``NUMBA_CACHE_DIR``) and a second process loads
it instead of compiling. What is not on disk yet is found from numba's index of each
function (a file per function, checked against its source's stamp).
"""

from __future__ import annotations

import importlib
import sys
from typing import TextIO

#: the modules whose functions a counter game's solution compiles
MODULES = ("solver.counters.outcomes", "solver.counters.sums", "solver.matrix.starts")
#: how long the first compile takes on a shared 2-core machine, measured (``duel solve`` of a
#: small Blooded duel with no compiled code on disk)
COMPILE_SECONDS = 50
NOTICE = "preparing the solver (once, about {seconds} s)"

_announced = False


def cached_functions() -> dict[str, object]:
    """Every numba function of ``MODULES`` compiled with ``cache=True``, by name."""
    from numba.core.caching import FunctionCache
    from numba.core.registry import CPUDispatcher

    found = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and isinstance(value._cache, FunctionCache):
                found[f"{name}.{attribute}"] = value
    return found


def uncompiled() -> list[str]:
    """The functions with no machine code on disk for their current source."""
    missing = []
    for name, function in cached_functions().items():
        try:
            known = function._cache._cache_file._load_index()
        except Exception:  # noqa: BLE001 - numba's internals moved: assume it is there
            continue
        if not known:
            missing.append(name)
    return missing


def announce(stream: TextIO | None = None) -> bool:
    """Say ``NOTICE`` once per process on ``stream`` (by default stderr, when it is a
    terminal: a pipe or a log gets no chatter) if numba has most of its functions left
    to compile (the first run); whether it was said."""
    global _announced
    if _announced:
        return False
    if stream is None:
        if not sys.stderr.isatty():
            return False
        stream = sys.stderr
    _announced = True
    functions, missing = len(cached_functions()), len(uncompiled())
    # a first run finds (nearly) nothing on disk; a few functions missing later are
    # those only large duels use (the parallel sums), compiled in seconds when they come
    if not functions or missing < functions / 2:
        return False
    stream.write(NOTICE.format(seconds=round(COMPILE_SECONDS * missing / functions)) + "\n")
    stream.flush()
    return True


def loops_run_side_by_side() -> bool:
    """Whether two threads may run the compiled parallel loops at once: numba's OpenMP
    and TBB layers allow it, its own work queue (where neither is installed, as on a
    Mac without libomp) stops the process instead; and whether there are two cores."""
    import os

    import numba
    try:
        layer = numba.threading_layer()
    except ValueError:   # no parallel loop has run yet: none is chosen
        return False
    return layer in ("omp", "tbb") and (os.cpu_count() or 1) > 1
