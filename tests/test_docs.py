"""What the README and docs/ show still works: every ``duel …`` line of their fenced
code blocks is accepted by the CLI's argument parser (parsed, not run), and every
```python block runs (in a fresh interpreter, in a temporary folder, with a timeout).
Written over whatever the Markdown holds, so a rewritten README is checked the same."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from agents.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: an opening fence (``` or ~~~, three or more) with its info string, up to its closing one
FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=fence)\s*$",
                   re.M | re.S)
PROMPT = re.compile(r"^\s*(?:\$\s+)?duel\s")
PYTHON_SECONDS = 300
#: "page:line" of a block that fails today -> why; kept visible (strict) until the page is
#: fixed, and void once the page is rewritten (its blocks then have other lines)
#: blocks known not to run, by page and line, with the reason (none today)
KNOWN_BROKEN: dict[str, str] = {}


def blocks(page: Path):
    """(info string, first line number, text, lines printed) of every fenced block of
    ``page``; lines printed are those of a block without an info string that follows it
    at once (what the page says it prints), else None."""
    text = page.read_text("utf-8")
    found = list(FENCE.finditer(text))
    for block, after in zip(found, [*found[1:], None], strict=False):   # None after the last
        line = text.count("\n", 0, block.start("body")) + 1
        printed = (after.group("body").splitlines() if after is not None
                   and not after.group("info").strip()
                   and not text[block.end():after.start()].strip() else None)
        yield block.group("info").strip().lower(), line, block.group("body"), printed


def commands(page: Path):
    """(line number, words) of every ``duel …`` command in ``page``'s code blocks, with
    continuation lines (a trailing backslash) joined and comments dropped."""
    for info, first, body, _ in blocks(page):
        if info.split()[:1] == ["python"]:
            continue
        lines = body.split("\n")
        number = 0
        while number < len(lines):
            start, line = number, lines[number]
            while line.rstrip().endswith("\\") and number + 1 < len(lines):
                number += 1
                line = line.rstrip()[:-1] + " " + lines[number]
            number += 1
            if PROMPT.match(line):
                words = shlex.split(line.strip().removeprefix("$").strip(), comments=True)
                yield first + start, words[1:]


def python_blocks(page: Path):
    for info, first, body, printed in blocks(page):
        if info.split()[:1] == ["python"]:
            yield first, body, printed


def _relative(page: Path) -> str:
    return str(page.relative_to(ROOT))


COMMANDS = [pytest.param(words, id=f"{_relative(page)}:{line}")
            for page in PAGES for line, words in commands(page)]
def _python_param(page: Path, line: int, body: str, printed: list[str] | None):
    where = f"{_relative(page)}:{line}"
    marks = ([pytest.mark.xfail(reason=KNOWN_BROKEN[where], strict=True)]
             if where in KNOWN_BROKEN else [])
    return pytest.param(body, printed, id=where, marks=marks)


PYTHON = [_python_param(page, *block) for page in PAGES for block in python_blocks(page)]
#: the commands whose printed answer a page shows right below them: those that only
#: compute (solve, odds), quick enough to run here
ANSWERING = ("solve", "odds")


def shown_answers(page: Path):
    """(line, words, lines printed) of every code block holding one ``duel solve|odds``
    command that the page follows at once with a block of what it prints."""
    for info, first, body, printed in blocks(page):
        command = [line for line in body.splitlines() if line.strip()]
        if printed is None or info.split()[:1] == ["python"] or len(command) != 1:
            continue
        words = shlex.split(command[0].split("&&")[-1], comments=True)
        if words[:1] == ["duel"] and words[1:2] and words[1] in ANSWERING:
            yield first, words[1:], printed


SHOWN = [pytest.param(words, printed, id=f"{_relative(page)}:{line}")
         for page in PAGES for line, words, printed in shown_answers(page)]


def test_the_readme_shows_commands_and_python():
    assert COMMANDS and PYTHON


@pytest.mark.parametrize("words", COMMANDS)
def test_every_duel_command_shown_parses(words, capsys):
    try:
        build_parser().parse_args(words)
    except SystemExit as stop:  # --help exits 0; a bad command line exits 2
        assert stop.code == 0, f"duel {shlex.join(words)}: {capsys.readouterr().err.strip()}"


@pytest.mark.parametrize(("body", "printed"), PYTHON)
def test_every_python_block_shown_runs(body, printed, tmp_path):
    """It runs, and prints what the page shows below it, if it shows anything."""
    environment = {**os.environ, "MPLBACKEND": "Agg",
                   "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", body], cwd=tmp_path, env=environment,
                          capture_output=True, text=True, timeout=PYTHON_SECONDS)
    assert done.returncode == 0, done.stderr[-2000:]
    if printed is not None:
        assert_shown(printed, done.stdout.splitlines(), "the Python block")


def test_the_readme_shows_what_a_command_prints():
    assert any(str(param.id).startswith("README.md") for param in SHOWN)


@pytest.mark.parametrize(("words", "printed"), SHOWN)
def test_a_command_prints_what_its_page_shows(words, printed, capsys):
    """Every line a page shows below a command is in what the command prints, in the
    same order (a line ``[... what is left out ...]`` stands for lines not shown)."""
    from agents.cli import main
    assert main(words) == 0
    assert_shown(printed, capsys.readouterr().out.splitlines(), f"duel {shlex.join(words)}")


def assert_shown(printed: list[str], said: list[str], what: str) -> None:
    """Every line of ``printed`` is in ``said``, in the same order (a line ``[... what is
    left out ...]`` stands for lines not shown)."""
    at = 0
    for line in printed:
        if line.strip().startswith("[..."):
            continue
        assert line in said[at:], f"{what} no longer prints: {line}"
        at = said.index(line, at) + 1
