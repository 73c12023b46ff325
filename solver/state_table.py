"""A list of states as one integer table, for pickling.

A solution kept in the answer store holds its explored states (a knockout's hundred
thousand cores). Pickled one by one, their 28 fields each are three million objects:
seconds to write and to read back. Most systems' states are namedtuples of plain ints;
those go as one int64 array (out of band, so a memory-mapped store reads it in place)
and come back as the same namedtuples, equal and of the same types. Any other list is
kept as it is.
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from .game import State


def pack(states: list[State]) -> tuple:
    """``states`` in a form that pickles fast; ``unpack`` gives them back."""
    kind = type(states[0]) if states else None
    fields = getattr(kind, "_fields", None)
    if (not fields or any(type(state) is not kind for state in states)
            or set(map(type, chain.from_iterable(states))) != {int}):
        return ("list", states)
    try:
        table = np.fromiter(chain.from_iterable(states), dtype=np.int64,
                            count=len(states) * len(fields))
    except OverflowError:
        return ("list", states)
    return ("table", kind, table.reshape(len(states), len(fields)))


def unpack(packed: tuple) -> list[State]:
    """The states ``pack`` was given."""
    if packed[0] == "list":
        return packed[1]
    _, kind, table = packed
    return list(map(kind._make, table.tolist()))


def index_of(states: list[State]) -> dict[State, int]:
    """Each state's position in ``states``."""
    return dict(zip(states, range(len(states)), strict=True))


class PicklesStatesAsTable:
    """A mixin for an explored graph: its states (the attribute ``STATES`` names) are
    pickled as one table (``pack``) and its ``index`` is rebuilt on reading."""

    STATES = "states"

    def __getstate__(self) -> dict:
        kept = {**self.__dict__, self.STATES: pack(getattr(self, self.STATES))}
        del kept["index"]
        return kept

    def __setstate__(self, kept: dict) -> None:
        states = unpack(kept[self.STATES])
        self.__dict__.update(kept, **{self.STATES: states, "index": index_of(states)})
