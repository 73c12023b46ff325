"""A list of states as one integer table, for pickling.

A solution kept in the answer store holds its explored states (a knockout's hundred
thousand cores). Pickled one by one, their 28 fields each are three million objects:
seconds to write and to read back. Most systems' states are namedtuples of plain ints;
those go as one int64 array (out of band, so a memory-mapped store reads it in place)
and come back as the same namedtuples, equal and of the same types. Any other list is
kept as it is.
"""

from __future__ import annotations

import uuid
import weakref
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
    pickled as one table (``pack``) and its ``index`` is rebuilt on reading.

    Read back, the states are rebuilt only when first asked for: turning a knockout's
    table back into a hundred thousand states takes half a second, paid only by what
    needs them. A graph read back in the process that holds the graph it was written
    from (a solution handed back by the store right after it was kept) takes that
    graph's states and index as they are: the same graph, never rebuilt."""

    STATES = "states"

    def __getstate__(self) -> dict:
        kept = {key: value for key, value in self.__dict__.items()
                if key not in ("index", _PACKED)}
        kept[self.STATES] = self.__dict__.get(_PACKED) or pack(getattr(self, self.STATES))
        kept[_TOKEN] = self._token()
        return kept

    def __setstate__(self, kept: dict) -> None:
        kept = dict(kept)
        packed = kept.pop(self.STATES)
        self.__dict__.update(kept)
        twin = _LIVE.get(kept.get(_TOKEN))
        if twin is not None:
            self.__dict__.update({self.STATES: getattr(twin, self.STATES),
                                  "index": twin.index})
        else:
            self.__dict__[_PACKED] = packed
        if _TOKEN in kept:
            _LIVE.setdefault(kept[_TOKEN], self)

    def packed_as(self, table: np.ndarray) -> None:
        """Its states are ``table``'s rows, as ``pack`` would give them (a walk that made
        them from one): pickled as it is, not packed again (0.1 s a knockout)."""
        states = getattr(self, self.STATES)
        fields = getattr(type(states[0]), "_fields", None) if states else None
        if fields and table.dtype == np.int64 and table.shape == (len(states), len(fields)):
            self.__dict__[_PACKED] = ("table", type(states[0]), table)

    def __getattr__(self, name: str):
        # called only for what the instance lacks: the states and index not yet rebuilt
        packed = self.__dict__.get(_PACKED)
        if packed is None or name not in (type(self).STATES, "index"):
            raise AttributeError(name)
        states = unpack(packed)
        self.__dict__.update({type(self).STATES: states, "index": index_of(states)})
        self.__dict__.pop(_PACKED, None)
        return self.__dict__[name]

    def _token(self) -> str:
        """What names this graph among those of this process (``_LIVE``)."""
        token = self.__dict__.setdefault(_TOKEN, uuid.uuid4().hex)
        _LIVE.setdefault(token, self)
        return token


#: the packed states: of a graph read back, until they are first asked for; of a graph
#: whose walk made its states from one table (``packed_as``), beside them
_PACKED = "_packed_states"
#: the name a graph is pickled with, the same for every copy of it
_TOKEN = "_graph_token"
#: the graphs of this process by name: a copy read back takes its twin's states
_LIVE: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
