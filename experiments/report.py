"""Benchmark tables in ``docs/performance.md``, written by the benchmarks themselves.

A benchmark run with ``--write-docs`` calls ``write_section`` with its rows: the
section named after the script is replaced (or appended) with a table stamped with the
date, the commit and the machine, so the page always shows the last run of each script
and never a number typed by hand. Sections are delimited by HTML comments, which
Markdown does not render:

    <!-- bench:NAME begin -->
    ...
    <!-- bench:NAME end -->
"""

from __future__ import annotations

import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PERFORMANCE = ROOT / "docs" / "performance.md"

# A column: its header, and how to read a row's cell (a key, or a function of the row).
Column = tuple[str, "str | Callable[[Mapping], object]"]


def add_flag(parser) -> None:
    """The opt-in flag every benchmark takes."""
    parser.add_argument("--write-docs", action="store_true",
                        help=f"replace this benchmark's table in {PERFORMANCE.relative_to(ROOT)}")


def commit() -> str:
    """The short commit of the working tree, marked ``-dirty`` when it has changes other
    than the tables benchmarks write (a run that writes two tables marked its second
    one dirty by its first)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True,
                              text=True, check=False).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    changed = git("status", "--porcelain", "--untracked-files=no", "--", ".",
                  f":(exclude){PERFORMANCE.relative_to(ROOT).as_posix()}")
    return f"{head}-dirty" if changed else head


def machine() -> str:
    """The processor, its logical cores and the system: what a reader needs to compare."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} logical cores, {platform.system()} {platform.release()}"


def cell(value: object) -> str:
    """A number as a reader wants it: thousands separated, floats to about 3 digits."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        size = abs(value)
        if value != 0 and (size < 1e-3 or size >= 1e9):
            return f"{value:.2e}"
        return f"{value:,.0f}" if size >= 100 else f"{value:.1f}" if size >= 10 else f"{value:.2f}"
    return str(value).replace("|", "\\|")


def table(columns: Sequence[Column], rows: Iterable[Mapping]) -> str:
    """A Markdown table of ``rows`` under ``columns``."""
    lines = ["| " + " | ".join(header for header, _ in columns) + " |",
             "|" + "---|" * len(columns)]
    for row in rows:
        cells = [cell(read(row) if callable(read) else row.get(read)) for _, read in columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def section(name: str, title: str, body: str, stamp: str) -> str:
    """One benchmark's section, between its markers."""
    return (f"<!-- bench:{name} begin -->\n## {title}\n\n{stamp}\n\n{body.strip()}\n"
            f"<!-- bench:{name} end -->")


def replace_section(text: str, name: str, new: str) -> str:
    """``text`` with the section ``name`` replaced by ``new``, or ``new`` appended."""
    pattern = re.compile(rf"<!-- bench:{re.escape(name)} begin -->.*?"
                         rf"<!-- bench:{re.escape(name)} end -->", re.DOTALL)
    if pattern.search(text):
        return pattern.sub(lambda _: new, text, count=1)
    return text.rstrip("\n") + "\n\n" + new + "\n"


def invocation() -> str:
    """The command line of this run, as a reader would type it from the project root."""
    script = Path(sys.argv[0]).resolve()
    shown = script.relative_to(ROOT) if script.is_relative_to(ROOT) else script
    return " ".join(["python", str(shown), *map(shlex.quote, sys.argv[1:])])


def write_section(name: str, title: str, columns: Sequence[Column], rows: Iterable[Mapping],
                  notes: str = "", path: Path = PERFORMANCE) -> None:
    """Replace benchmark ``name``'s table in ``path`` with these rows, stamped now."""
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    stamp = (f"Date {today}, commit `{commit()}`, machine: {machine()}. "
             f"Command: `{invocation()}`.")
    body = table(columns, rows) + (f"\n\n{notes.strip()}" if notes.strip() else "")
    text = path.read_text(encoding="utf-8") if path.exists() else "# Performance\n"
    path.write_text(replace_section(text, name, section(name, title, body, stamp)),
                    encoding="utf-8")
    # on stderr: a benchmark's --json prints one document on stdout
    print(f"wrote the {name} table to {path}", file=sys.stderr)


def reading_row(reading: str, choice, duel: dict, solution) -> dict:
    """One row of a readings experiment: the duel under one choice of a reading."""
    return {"reading": reading, "choice": choice, "duel": duel, "value": solution.value,
            "win": solution.win, "draw": solution.draw, "loss": solution.loss}


def readings_main(doc: str, measure: Callable[[bool], list[dict]],
                  argv: list[str] | None = None) -> None:
    """The command line of a readings experiment: ``measure(quick)`` gives one row per
    (reading, choice), printed as a table or, with ``--json``, as one document."""
    import argparse
    import json

    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short duels, in seconds")
    parser.add_argument("--json", action="store_true", help="one JSON document")
    args = parser.parse_args(argv)
    rows = measure(args.quick)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'reading':18} {'choice':36} {'value':>7} {'win':>6} {'draw':>6} {'loss':>6}")
    for r in rows:
        print(f"{r['reading']:18} {json.dumps(r['choice']):36} {r['value']:+7.3f} "
              f"{r['win']:6.1%} {r['draw']:6.1%} {r['loss']:6.1%}")
