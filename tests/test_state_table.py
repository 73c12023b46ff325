"""States kept as one integer table when a solution is pickled (``solver.state_table``):
they come back equal, of the same types, and in the same order; what is not a table
of plain ints is kept as it is."""

from __future__ import annotations

import pickle
from collections import namedtuple

import numpy as np
import pytest

import envs
from solver import state_table
from solver.counters.cores import explore
from solver.markov.graph import build_graph

Point = namedtuple("Point", "x y")


def _round_trip(states):
    return state_table.unpack(pickle.loads(pickle.dumps(state_table.pack(states))))


def test_namedtuples_of_ints_become_one_table_and_come_back_the_same():
    states = [Point(3, -1), Point(0, 2**62), Point(3, -1)]
    packed = state_table.pack(states)
    assert packed[0] == "table" and packed[2].tolist() == [[3, -1], [0, 2**62], [3, -1]]
    back = _round_trip(states)
    assert back == states
    assert all(type(state) is Point and all(type(v) is int for v in state) for state in back)


@pytest.mark.parametrize("states", [
    [Point(True, 1)],                  # a bool would come back as an int
    [Point(1, 2), (1, 2)],             # two kinds
    [Point(1, "x")],                   # not an int
    [Point(2**63, 0)],                 # past int64
    [(1, 2), (3, 4)],                  # no field names
    [],
], ids=["bool", "mixed", "text", "huge", "plain tuples", "empty"])
def test_anything_else_is_kept_as_it_is(states):
    assert state_table.pack(states) == ("list", states)
    back = _round_trip(states)
    assert back == states and [type(s) for s in back] == [type(s) for s in states]
    assert [type(v) for s in back for v in s] == [type(v) for s in states for v in s]


def test_a_core_graph_and_a_state_graph_pickle_their_states_as_a_table():
    game = envs.make("pathfinder", a="fighter,hp=3", b="rogue,hp=3", victory="knockout")
    cores = explore(game)[0]
    graph = build_graph(envs.make("uchronia", mode="pistol", max_turns=3))
    for explored, states in ((cores, "cores"), (graph, "states")):
        kept = explored.__getstate__()
        assert kept[states][0] == "table" and "index" not in kept
        back = pickle.loads(pickle.dumps(explored))
        assert getattr(back, states) == getattr(explored, states)
        assert back.index == explored.index
        assert np.array_equal(back.terminal, explored.terminal)


def test_a_graph_read_back_beside_its_original_takes_its_states_as_they_are():
    game = envs.make("pathfinder", a="fighter,hp=3", b="rogue,hp=3", victory="knockout")
    cores = explore(game)[0]
    back = pickle.loads(pickle.dumps(cores))
    assert back.cores is cores.cores and back.index is cores.index


def test_a_graph_read_back_elsewhere_rebuilds_its_states_when_first_asked():
    game = envs.make("pathfinder", a="fighter,hp=3", b="rogue,hp=3", victory="knockout")
    cores = explore(game)[0]
    states, index = list(cores.cores), dict(cores.index)
    kept = pickle.dumps(cores)
    # another process: no graph of that name lives here
    state_table._LIVE.clear()
    back = pickle.loads(kept)
    assert "cores" not in back.__dict__ and "index" not in back.__dict__
    assert back.index == index and back.cores == states and back.cores is not cores.cores
    assert all(type(a) is type(b) for a, b in zip(back.cores, states, strict=True))
    # written again before its states are rebuilt, and after: it reads back the same
    state_table._LIVE.clear()
    untouched = pickle.loads(kept)
    again = pickle.dumps(untouched)
    assert "cores" not in untouched.__dict__
    for written in (again, pickle.dumps(back)):
        state_table._LIVE.clear()
        assert pickle.loads(written).cores == states


def test_a_walk_made_from_a_table_hands_over_what_pack_would_give(monkeypatch):
    # Pathfinder's walk builds its cores from one int table: the graph pickles that
    # table as it is (not packed again), and it is the one ``pack`` would give
    graph = explore(envs.make("pathfinder", a="fighter,hp=4", b="rogue,hp=3"))[0]
    expected = state_table.pack(graph.cores)
    monkeypatch.setattr(state_table, "pack", lambda states: pytest.fail("packed again"))
    given = graph.__getstate__()["cores"]
    assert given[0] == expected[0] == "table" and given[1] is expected[1]
    assert given[2].dtype == expected[2].dtype and np.array_equal(given[2], expected[2])


def test_a_table_that_is_not_the_states_is_never_taken_for_them():
    graph = explore(envs.make("pathfinder", a="fighter,hp=4", b="rogue,hp=3"))[0]
    kept = graph.__getstate__()["cores"]
    for wrong in (kept[2][:-1], kept[2].astype(np.int32), kept[2][:, :-1]):
        fresh = explore(envs.make("pathfinder", a="fighter,hp=4", b="rogue,hp=3"))[0]
        fresh.__dict__.pop("_packed_states", None)
        fresh.packed_as(wrong)
        assert "_packed_states" not in fresh.__dict__
