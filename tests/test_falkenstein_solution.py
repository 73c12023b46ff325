"""The exact solution of Castle Falkenstein duels, and the environment against it."""

from collections import Counter

import numpy as np
import pytest
from scipy import stats

import envs
from solver import InputError, exploitability, solve_game
from solver.game import policy_mix

LEVELS = ("PR", "AV", "GD", "GR", "EXC", "EXT")


@pytest.mark.parametrize("level", LEVELS)
def test_identical_sheets_are_worth_nothing(level):
    game = envs.make("falkenstein", a={"fencing": level}, b={"fencing": level})
    assert solve_game(game).value == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("options", [
    {"a": {"fencing": "AV"}, "b": {"fencing": "GD"}},
    {"a": {"fencing": "GD"}, "b": {"fencing": "GD"}},
    {"a": {"fencing": "AV"}, "b": {"fencing": "GD"}, "edge": "ledge",
     "convention": "to_the_death"},
    {"a": {"fencing": "GR", "physique": "GD"}, "b": {"fencing": "GD"}, "convention": "surrender",
     "max_rounds": 3},
])
def test_solved_pair_is_unexploitable(options):
    game = envs.make("falkenstein", **options)
    solution = solve_game(game)
    result = exploitability(game, solution.policy_for("a"), solution.policy_for("b"))
    assert abs(result.value) < 1e-8
    assert result.pair_value == pytest.approx(solution.value, abs=1e-9)


def test_swapping_the_sheets_negates_the_value():
    # an independent check of the asymmetric duel: the game is symmetric up to the names
    ab = envs.make("falkenstein", a={"fencing": "AV"}, b={"fencing": "GD"}, edge="ledge",
                   convention="to_the_death")
    ba = envs.make("falkenstein", a={"fencing": "GD"}, b={"fencing": "AV"}, edge="ledge",
                   convention="to_the_death")
    one, other = solve_game(ab), solve_game(ba)
    assert one.value == pytest.approx(-other.value, abs=1e-9)
    assert one.win == pytest.approx(other.loss, abs=1e-7)


def test_stage_values_match_a_direct_matrix_solve():
    import nashpy
    game = envs.make("falkenstein", a={"fencing": "AV"}, b={"fencing": "GD"}, edge="ledge",
                     convention="to_the_death")
    solution = solve_game(game)
    start = game.initial_outcomes()[0][1]
    matrix = solution.stage_matrix(start)
    rows = ~np.all(np.isnan(matrix), axis=1)
    cols = ~np.all(np.isnan(matrix), axis=0)
    sub = matrix[np.ix_(rows, cols)]
    x, y = nashpy.Game(sub).linear_program()
    assert float(x @ sub @ y) == pytest.approx(solution.value, abs=1e-7)


def _play_episodes(game, solution, episodes, seed):
    env = envs.parallel_env(game)
    policies = {"a": solution.policy_for("a"), "b": solution.policy_for("b")}
    rng = np.random.default_rng(seed)
    endings, outcomes = Counter(), Counter()
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        while env.agents:
            state = env.duel_state
            actions = {p: int(rng.choice(6, p=policy_mix(policies[p], game, state, p)))
                       for p in ("a", "b")}
            _, rewards, terminations, _, infos = env.step(actions)
        endings[infos["a"]["result"]] += 1
        outcomes[int(np.sign(rewards["a"]))] += 1
    return endings, outcomes


def test_episodes_end_as_the_solution_says():
    game = envs.make("falkenstein", a={"fencing": "AV"}, b={"fencing": "GD"}, edge="ledge",
                     convention="to_the_death")
    solution = solve_game(game)
    episodes = 3000
    endings, outcomes = _play_episodes(game, solution, episodes, seed=7)
    expected = np.array([solution.win, solution.draw, solution.loss]) * episodes
    observed = np.array([outcomes[1], outcomes[0], outcomes[-1]])
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    # endings: pool the rare ones so every expected count is at least 5
    common = [label for label, p in solution.endings.items() if p * episodes >= 5]
    rare = 1 - sum(solution.endings[label] for label in common)
    observed = [endings[label] for label in common] + [episodes - sum(endings[label]
                                                                      for label in common)]
    expected = [solution.endings[label] * episodes for label in common] + [rare * episodes]
    if expected[-1] < 5:  # nothing rare to speak of: fold it into the last common ending
        rare_observed, rare_expected = observed.pop(), expected.pop()
        observed[-1] += rare_observed
        expected[-1] += rare_expected
    expected = np.array(expected) * episodes / sum(expected)  # float rounding of the sum
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_hidden_levels_are_refused_with_a_clear_message():
    game = envs.make("falkenstein", hidden_levels=True)
    with pytest.raises(InputError, match="hidden information"):
        solve_game(game)


def test_documented_grid_is_the_default_fill():
    import re
    import tomllib
    from pathlib import Path
    page = (Path(__file__).parents[1] / "docs" / "systems" / "falkenstein.md").read_text()
    block = re.search(r"```toml\n(\[damage\].*?)```", page, re.S).group(1)
    override = tomllib.loads(block)
    for a, b in (("AV", "GD"), ("EXT", "PR"), ("GR", "GD")):
        sheets = {"a": {"fencing": a}, "b": {"fencing": b}}
        typed = envs.make("falkenstein", ruleset=override, max_rounds=2, **sheets)
        default = envs.make("falkenstein", max_rounds=2, **sheets)
        start = default.initial_outcomes()[0][1]
        for i in range(6):
            for j in range(6):
                if default.legal_mask(start, "a")[i] and default.legal_mask(start, "b")[j]:
                    assert typed.outcomes(start, i, j) == default.outcomes(start, i, j)


