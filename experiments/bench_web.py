"""``duel serve`` against the command line, question by question: how long a question
the answer store already holds takes through the web (under 1 s is the aim), and how
long a new question takes through the web against the CLI's time for the same (at most
1.5 times is the aim), in one table.

    python experiments/bench_web.py [--quick] [--json]

For each question: the CLI's time (a fresh process, an empty answer store, as a GM types
it); the web's time for it new (a running server, warmed by one unrelated question, its
own empty store); then the web's time for it stored (a server started again on that
store, so nothing is held in its memory) and the time of the page that asks it. Times are
wall clock over HTTP on this machine, the compiled solver (numba's cache) kept as on a
GM's machine after the first question.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: (label, command, request): the request as the page sends it; the CLI gets the same
QUESTIONS = [
    ("falkenstein GR-GD, 2 rounds: solve", "solve",
     {"system": "falkenstein", "a": "fencing=GR,physique=AV", "b": "fencing=GD",
      "options": {"max_rounds": 2}}),
    ("falkenstein GR-GD: solve", "solve",
     {"system": "falkenstein", "a": "fencing=GR,physique=AV", "b": "fencing=GD"}),
    ("falkenstein GR-GD: odds vs cautious", "odds",
     {"system": "falkenstein", "a": "fencing=GR,physique=AV", "b": "fencing=GD",
      "vs": "cautious:0.5"}),
    ("uchronia fine_shot-cold_shot: solve", "solve",
     {"system": "uchronia", "a": "fine_shot", "b": "cold_shot"}),
    ("blooded, 3 beats: solve", "solve",
     {"system": "blooded", "a": "prowess=2,sword=1", "b": "prowess=1,sword=2",
      "options": {"max_beats": 3}}),
    ("pathfinder fighter-rogue, first blood: solve", "solve",
     {"system": "pathfinder", "a": "fighter", "b": "rogue",
      "options": {"victory": "first_blood"}}),
]
QUICK = QUESTIONS[:1]
#: what warms a server before it is timed (its workers' process server started, as on a
#: GM's screen after the first question)
WARM = ("solve", {"system": "falkenstein", "options": {"max_rounds": 1}})


def argv_of(command: str, request: dict) -> list[str]:
    argv = [command, request["system"]]
    for key in ("a", "b", "vs"):
        if key in request:
            argv += [f"--{key}", request[key]]
    for name, value in request.get("options", {}).items():
        argv += ["-o", f"{name}={value}"]
    return argv


def cli_seconds(command: str, request: dict, store: str) -> float:
    environment = {**os.environ, "DUEL_CACHE_DIR": store,
                   "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    began = time.perf_counter()
    subprocess.run([sys.executable, "-m", "agents.cli", *argv_of(command, request), "--json"],
                   env=environment, check=True, capture_output=True)
    return time.perf_counter() - began


class Served:
    """``duel serve``'s app on a free port, in this process, answering from ``store``."""

    def __init__(self, store: str):
        import uvicorn

        from agents.web.app import create_app
        os.environ["DUEL_CACHE_DIR"] = store
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        config = uvicorn.Config(create_app(), host="127.0.0.1", port=self.port,
                                log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)

    def seconds(self, method: str, path: str, body: dict | None = None) -> float:
        data = None if body is None else json.dumps(body).encode()
        call = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data,
                                      method=method,
                                      headers={"Content-Type": "application/json"})
        began = time.perf_counter()
        with urllib.request.urlopen(call, timeout=3600) as response:
            response.read()
        return time.perf_counter() - began

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def measure(label: str, command: str, request: dict) -> dict:
    with tempfile.TemporaryDirectory() as cli_store, \
            tempfile.TemporaryDirectory() as web_store:
        cli = cli_seconds(command, request, cli_store)
        served = Served(web_store)
        try:
            served.seconds("POST", f"/api/{WARM[0]}", WARM[1])
            new = served.seconds("POST", f"/api/{command}", request)
        finally:
            served.close()
        again = Served(web_store)   # nothing in memory: the answer comes from the store
        try:
            page = again.seconds("GET", f"/duel?system={request['system']}")
            stored = again.seconds("POST", f"/api/{command}", request)
        finally:
            again.close()
    return {"question": label, "cli_new_s": cli, "web_new_s": new, "ratio": new / cli,
            "web_stored_s": stored, "page_s": page}


def table(rows: list[dict]) -> str:
    header = ["question", "CLI new (s)", "web new (s)", "web / CLI", "web stored (s)",
              "page (s)"]
    cells = [[r["question"], f"{r['cli_new_s']:.2f}", f"{r['web_new_s']:.2f}",
              f"{r['ratio']:.2f}", f"{r['web_stored_s']:.3f}", f"{r['page_s']:.3f}"]
             for r in rows]
    widths = [max(len(str(c)) for c in column) for column in zip(header, *cells, strict=True)]
    lines = ["  ".join(c.ljust(w) if k == 0 else c.rjust(w)
                       for k, (c, w) in enumerate(zip(line, widths, strict=True)))
             for line in [header, *cells]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one small question only")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = [measure(*question) for question in (QUICK if args.quick else QUESTIONS)]
    print(json.dumps(rows, indent=2) if args.json else table(rows))


if __name__ == "__main__":
    main()
