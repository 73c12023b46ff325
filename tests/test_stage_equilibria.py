"""Every extreme equilibrium of an exchange (``solver.stage_equilibria``, ``duel solve
--all-equilibria``) on degenerate games derived by hand, and the maximum-entropy mix as
a convex combination of them."""

from __future__ import annotations

import json

import numpy as np
import pytest

import envs
from agents.cli import main
from solver import InputError, solve_game, stage_equilibria
from solver.matrix.extreme import extreme_equilibria
from tests.solver_games import ConstantStage

#: [[1, -1, 0], [-1, 1, 0], [0, 0, 0]], value 0. A must guarantee 0 against the first
#: two columns: x1 = x2, so A's optimal mixes are (t, t, 1 - 2t), t in [0, 1/2], with
#: vertices (1/2, 1/2, 0) and (0, 0, 1); B's alike by symmetry. Four extreme
#: equilibria. The most entropic (t, t, 1 - 2t) has -2 ln t = -2 ln(1 - 2t): t = 1/3,
#: the uniform mix = 2/3 (1/2, 1/2, 0) + 1/3 (0, 0, 1) for each side.
PENNIES_OR_PASS = np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
HALF, PASS = (0.5, 0.5, 0.0), (0.0, 0.0, 1.0)


def _pairs(found) -> set:
    return {(tuple(np.round(x, 9)), tuple(np.round(y, 9))) for x, y in found.pairs}


def _marginals(found) -> tuple[np.ndarray, np.ndarray]:
    mix_a = sum(w * x for w, (x, _) in zip(found.weights, found.pairs, strict=True))
    mix_b = sum(w * y for w, (_, y) in zip(found.weights, found.pairs, strict=True))
    return mix_a, mix_b


def test_a_degenerate_game_has_the_four_hand_derived_extreme_equilibria():
    uniform = np.full(3, 1 / 3)
    found = extreme_equilibria(PENNIES_OR_PASS, "xyz", "xyz", (uniform, uniform))
    assert found.value == pytest.approx(0.0, abs=1e-12)
    assert _pairs(found) == {(HALF, HALF), (HALF, PASS), (PASS, HALF), (PASS, PASS)}
    assert found.weights.min() >= 0 and found.weights.sum() == pytest.approx(1.0)
    for mix in _marginals(found):
        np.testing.assert_allclose(mix, uniform, atol=1e-9)
    # 2/3 on the vertex (1/2, 1/2, 0) of each side
    on_half = sum(w for w, (x, _) in zip(found.weights, found.pairs, strict=True)
                  if x[0] > 0)
    assert on_half == pytest.approx(2 / 3, abs=1e-9)
    assert "4 extreme equilibria" in repr(found)


@pytest.mark.parametrize("matrix, pairs", [
    # one action each: the one pair
    ([[0.5]], [([1.0], [1.0])]),
    # A has one action; B's best replies to it are his first and third (worth 1 to A)
    ([[1.0, 2.0, 1.0]], [([1.0], [1.0, 0.0, 0.0]), ([1.0], [0.0, 0.0, 1.0])]),
    # B has one action; A's best replies are his second and third
    ([[1.0], [3.0], [3.0]], [([0.0, 1.0, 0.0], [1.0]), ([0.0, 0.0, 1.0], [1.0])]),
], ids=["1x1", "1x3", "3x1"])
def test_a_side_with_one_action_has_its_best_replies_as_extreme_equilibria(matrix, pairs):
    matrix = np.array(matrix)
    rows, columns = matrix.shape
    entropy = tuple(sum(np.array(pair[side]) for pair in pairs) / len(pairs)
                    for side in (0, 1))
    found = extreme_equilibria(matrix, "xyz"[:rows], "xyz"[:columns], entropy)
    assert [(x.tolist(), y.tolist()) for x, y in found.pairs] == pairs
    np.testing.assert_allclose(found.weights, np.full(len(pairs), 1 / len(pairs)))


def test_an_exchange_where_each_owes_its_rests_lists_its_one_equilibrium(capsys):
    # the last exchange of a round with two Rests owed: each side's only card pair
    assert main(["solve", "falkenstein", "-o", "max_rounds=1", "--all-equilibria",
                 "--state", "exchange=3"]) == 0
    said = capsys.readouterr().out
    assert "1 extreme equilibrium" in said and "A plays two Rests; B plays two Rests" in said


def test_a_stage_of_a_duel_through_the_facade():
    """ConstantStage (tests/solver_games.py): Z for A against X loses, all else draws.
    A's optimal mixes avoid Z: vertices X and Y; every mix of B is optimal: vertices X,
    Y, Z. Six extreme equilibria; the maximum-entropy pair is (1/2, 1/2, 0) and
    (1/3, 1/3, 1/3)."""
    game = ConstantStage()
    (_, start), = game.initial_outcomes()
    found = stage_equilibria(game, start)
    unit = np.eye(3)
    assert _pairs(found) == {(tuple(unit[i]), tuple(unit[j])) for i in (0, 1)
                             for j in (0, 1, 2)}
    mix_a, mix_b = _marginals(found)
    np.testing.assert_allclose(mix_a, [0.5, 0.5, 0.0], atol=1e-9)
    np.testing.assert_allclose(mix_b, [1 / 3] * 3, atol=1e-9)
    document = found.as_dict()
    assert document["count"] == 6
    assert sum(e["weight_in_maximum_entropy"] for e in document["equilibria"]) == \
        pytest.approx(1.0)


def test_every_equilibrium_listed_for_a_duel_is_one(capsys):
    """Checked on the stage matrix itself: no deviation of either side gains."""
    sheets = ["--a", "fencing=AV", "--b", "fencing=GD", "-o", "max_rounds=2"]
    assert main(["solve", "falkenstein", *sheets, "--all-equilibria", "--json",
                 "--no-cache"]) == 0
    report = json.loads(capsys.readouterr().out)
    game = envs.make("falkenstein", a={"fencing": "AV"}, b={"fencing": "GD"}, max_rounds=2)
    (_, start), = game.initial_outcomes()
    solution = solve_game(game)
    matrix = solution.stage_matrix(start)
    names = list(game.info.action_names)
    assert report["count"] == len(report["equilibria"]) >= 1
    for entry in report["equilibria"]:
        x = np.array([entry["a"].get(a, 0.0) for a in names])
        y = np.array([entry["b"].get(b, 0.0) for b in names])
        legal = np.nan_to_num(matrix, nan=0.0)
        rows, columns = ~np.isnan(matrix).all(axis=1), ~np.isnan(matrix).all(axis=0)
        assert x @ legal @ y == pytest.approx(solution.value, abs=1e-9)
        assert (legal @ y)[rows].max() <= solution.value + 1e-9
        assert (x @ legal)[columns].min() >= solution.value - 1e-9


def test_refused_with_hidden_information_and_for_large_exchanges(capsys):
    assert main(["solve", "falkenstein", "-o", "hidden_levels=true", "--all-equilibria"]) == 2
    assert "--all-equilibria is not available with hidden information" in \
        capsys.readouterr().err
    with pytest.raises(InputError, match="15 x 2 legal actions.*up to 14"):
        extreme_equilibria(np.zeros((15, 2)), "a" * 15, "ab",
                           (np.full(15, 1 / 15), np.full(2, 0.5)))
