"""A best response's decisions held as columns (``solver.decision_table``), on both
backends: read row by row they are the rows, and ordered by reach they are Python's
stable sort of those rows."""

from __future__ import annotations

import numpy as np
import pytest
from test_counters import HitPennies

import solver.solve as facade
from solver import best_response


@pytest.mark.parametrize("backend", ["counters", "states"])
def test_most_reached_first_is_the_stable_sort_of_the_rows(backend):
    game = HitPennies(6, 7)
    with facade.forcing(backend):
        table = best_response(game, "uniform", "a").decisions(chances=True)
    rows = list(table)
    assert len(rows) == len(table) > 10
    # hit pennies reaches many decisions equally often: the ties keep their order
    assert len({row[1] for row in rows}) < len(rows)
    expected = sorted(rows, key=lambda row: -row[1])
    found = table.most_reached_first()
    assert [row[0] for row in found] == [row[0] for row in expected]
    for (_, reach, mix, value, chances), row in zip(found, expected, strict=True):
        assert (reach, value, chances) == (row[1], row[3], row[4])
        assert np.array_equal(mix, row[2])


def test_a_table_reads_like_a_sequence_of_rows():
    table = best_response(HitPennies(6, 7), "uniform", "b").decisions()
    rows = list(table)
    assert len(rows[0]) == 4   # no chances asked
    assert table[-1][0] == rows[-1][0] and [row[0] for row in table[1:3]] == [
        row[0] for row in rows[1:3]]
    assert table.states[-1] == rows[-1][0]
    with pytest.raises(IndexError):
        table[len(rows)]
