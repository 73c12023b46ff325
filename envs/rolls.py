"""Dice told at the table. The exact rules give a step's outcomes as merged next
states; to tell a player what was rolled, a system draws concrete dice again and keeps
the first draw that leads to the next state already drawn: that is a draw of the dice
given the result, with their exact conditional chances (rejection sampling)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: draws tried before giving up on telling a step's dice (a result rarer than about
#: 1 in 10 000 is then narrated without them)
MAX_TRIES = 20_000


def faces(rng: np.random.Generator, count: int, sides: int = 6) -> tuple[int, ...]:
    """``count`` dice of ``sides`` faces, as rolled."""
    if count <= 0:
        return ()
    return tuple(int(face) for face in rng.integers(1, sides + 1, size=count))


def given(draw: Callable[[np.random.Generator], tuple[object, object]], result: object,
          rng: np.random.Generator, tries: int = MAX_TRIES):
    """The dice of the first ``draw(rng) -> (dice, outcome)`` whose outcome is
    ``result``; None if none is found in ``tries``."""
    for _ in range(tries):
        dice, outcome = draw(rng)
        if outcome == result:
            return dice
    return None


def sum_text(rolled: tuple[int, ...]) -> str:
    """A pool's dice and their sum: "6+3+1 = 10", "no dice"."""
    if not rolled:
        return "no dice"
    if len(rolled) == 1:
        return str(rolled[0])
    return "+".join(map(str, rolled)) + f" = {sum(rolled)}"
