"""The toy dice duel of ``tests/toy_system`` is registered for every test, as a system
outside the package would be (``envs.register``)."""

import sys
from pathlib import Path

TOY_SYSTEM = Path(__file__).parent / "toy_system"
sys.path.insert(0, str(TOY_SYSTEM))

import toy_dice  # noqa: E402

import envs  # noqa: E402

envs.register(toy_dice.SYSTEM)
