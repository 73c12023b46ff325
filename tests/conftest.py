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

import pytest  # noqa: E402

os.environ["DUEL_CACHE_DIR"] = tempfile.mkdtemp(prefix="duel-test-answers-")


@pytest.fixture(autouse=True)
def _fresh_answer_store(tmp_path, monkeypatch):
    monkeypatch.setenv("DUEL_CACHE_DIR", str(tmp_path / "answers"))
