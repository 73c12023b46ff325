"""The toy dice duel of ``tests/toy_system`` is registered for every test, as a system
outside the package would be (``envs.register``)."""

import sys
from pathlib import Path

TOY_SYSTEM = Path(__file__).parent / "toy_system"
sys.path.insert(0, str(TOY_SYSTEM))

import toy_dice  # noqa: E402

import envs  # noqa: E402

envs.register(toy_dice.SYSTEM)


# The answer store (``agents.store``) never writes to the user's cache from the tests:
# one temporary store for the session (subprocesses inherit it), and a fresh one for
# each test, so that no test reads an answer another test computed.
import os  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402

import pytest  # noqa: E402

os.environ["DUEL_CACHE_DIR"] = tempfile.mkdtemp(prefix="duel-test-answers-")


@pytest.fixture(autouse=True)
def _fresh_answer_store(tmp_path, monkeypatch):
    monkeypatch.setenv("DUEL_CACHE_DIR", str(tmp_path / "answers"))


@pytest.fixture(autouse=True)
def _no_opponent_left_working():
    """An opponent ``duel play`` made on a thread of its own (``PreparedOpponent``)
    stops at its next step once the duel is left: waited for after each test, so that
    its work, which puts the process's warning hook and an "always" filter in place
    while it computes (``solver.cache._hearing``), never overlaps the next test's
    ``pytest.warns``, which saves and restores the same two."""
    yield
    for thread in threading.enumerate():
        if thread.name == "duel opponent":
            thread.join(120)
