"""The exact solver of games with hidden types (``solver.hidden.sequence``) and the perfect-recall
observation of Castle Falkenstein's hidden variant. Expected numbers are derived by hand
(the reasoning is in the comments), by brute force over pure strategies, or by the
public-information solver, never read from the code under test."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hidden_games import STRONG, WEAK, TinyBluff
from toy_games import PenniesDuel

import envs
from envs.falkenstein import ACTIONS
from solver import evaluate, solve_game
from solver.errors import InputError
from solver.hidden.sequence import (
    best_response_value,
    build_tree,
    hidden_exploitability,
    policy_plan,
    solve_hidden,
)
from solver.policy import MixPolicy, UniformPolicy


def test_tiny_bluff_equilibrium_matches_the_hand_derivation():
    game = TinyBluff()
    solution = solve_hidden(game)
    assert solution.value == pytest.approx(0.75, abs=1e-9)
    policy_a, policy_b = solution.policy_for("a"), solution.policy_for("b")
    mask = np.ones(2, dtype=bool)
    assert policy_a.probabilities((STRONG, 0), mask) == pytest.approx([1.0, 0.0], abs=1e-9)
    assert policy_a.probabilities((WEAK, 0), mask) == pytest.approx([0.75, 0.25], abs=1e-9)
    assert policy_b.probabilities((-1, 0), mask) == pytest.approx([0.5, 0.5], abs=1e-9)
    kinds = {t.observation[0]: (t.prior, t.value) for t in solution.type_values("a")}
    assert kinds[STRONG] == pytest.approx((0.5, 1.5), abs=1e-9)
    assert kinds[WEAK] == pytest.approx((0.5, 0.0), abs=1e-9)
    (b_type,) = solution.type_values("b")
    assert b_type.value == pytest.approx(-0.75, abs=1e-9)
    assert solution.exploitability < 1e-9


def _pure_plans(game, tree, player):
    """Every pure strategy of ``player`` (one action per information set) as a plan."""
    sequences = tree.players[player]
    choices = [np.flatnonzero(mask) for mask in sequences.mask]
    for pick in itertools.product(*choices):
        table = {obs: np.eye(2)[action] for obs, action in zip(sequences.observation, pick,
                                                                strict=True)}

        class Pure:
            def probabilities(self, observation, mask, table=table):
                return table[tuple(observation)]
        yield policy_plan(game, tree, Pure(), player)


def test_best_response_value_agrees_with_brute_force_over_pure_strategies():
    game = TinyBluff()
    tree = build_tree(game)
    payoff = tree.payoff_matrix()
    fixed_b = policy_plan(game, tree, MixPolicy({"x_or_left": 0.3, "y_or_right": 0.7},
                                                game.action_names), "b")
    brute_a = max(plan @ payoff @ fixed_b for plan in _pure_plans(game, tree, "a"))
    assert best_response_value(tree, "a", fixed_b) == pytest.approx(brute_a, abs=1e-12)
    fixed_a = policy_plan(game, tree, UniformPolicy(), "a")
    brute_b = max(-(fixed_a @ payoff @ plan) for plan in _pure_plans(game, tree, "b"))
    assert best_response_value(tree, "b", fixed_a) == pytest.approx(brute_b, abs=1e-12)
    # by hand: against B's LEFT 0.3, Strong X pays 1.3, Weak Y pays 0.3 - 0.7 = -0.4 and
    # X pays 0.4, so A gets (1.3 + 0.4) / 2
    assert brute_a == pytest.approx(0.85)


def test_exploitability_of_uniform_play_is_positive_and_of_the_solution_nil():
    game = PenniesDuel(hidden=True)
    gap, _ = hidden_exploitability(game, UniformPolicy(), UniformPolicy())
    assert gap > 0.01
    solution = solve_hidden(game)
    assert 0 <= solution.exploitability < 1e-6


# ---------------------------------------------------------------- Castle Falkenstein

def hidden_duel(prior_a: str, prior_b: str, **options):
    return envs.make("falkenstein", hidden_levels=True, prior_a=prior_a, prior_b=prior_b,
                     max_rounds=1, **options)


@pytest.mark.parametrize("level_a, level_b", [("GD", "GD"), ("GR", "GD"), ("AV", "GD")])
def test_a_prior_on_one_level_gives_the_public_value(level_a, level_b):
    hidden = solve_hidden(hidden_duel(f"{level_a}:1", f"{level_b}:1"))
    public = solve_game(envs.make("falkenstein", a={"fencing": level_a},
                                  b={"fencing": level_b}, max_rounds=1))
    assert hidden.value == pytest.approx(public.value, abs=1e-7)
    assert hidden.exploitability < 1e-6


@pytest.fixture(scope="module")
def bluffing():
    return solve_hidden(hidden_duel("GD:0.5,GR:0.5", "GD:1"))


def test_hidden_falkenstein_equilibrium_is_unexploitable(bluffing):
    assert bluffing.exploitability < 1e-6
    assert bluffing.perfect_recall == {"a": True, "b": True}
    # the policies on observations replay the value through the public-state evaluator,
    # an independent path (forward visit counts on the state graph)
    game = bluffing.game
    replay = evaluate(game, bluffing.policy_for("a"), bluffing.policy_for("b"))
    assert replay.value == pytest.approx(bluffing.value, abs=1e-7)
    gap, value = hidden_exploitability(game, bluffing.policy_for("a"),
                                       bluffing.policy_for("b"))
    assert gap < 1e-6 and value == pytest.approx(bluffing.value, abs=1e-7)


def test_type_payoffs_average_to_the_value(bluffing):
    for player, sign in (("a", 1.0), ("b", -1.0)):
        types = bluffing.type_values(player)
        assert sum(t.prior for t in types) == pytest.approx(1.0)
        assert sum(t.prior * t.value for t in types) == pytest.approx(sign * bluffing.value)
    # each type of A may play its public equilibrium, which guarantees its public value
    # whatever B does (B's play uses less than the public state): so the value is at
    # least the prior's average of the public values, 0 for GD against GD (symmetry)
    strong = solve_game(envs.make("falkenstein", a={"fencing": "GR"}, b={"fencing": "GD"},
                                  max_rounds=1)).value
    assert 0.5 * strong - 1e-9 <= bluffing.value <= 1.0


def test_the_exact_solver_refuses_a_horizon_it_cannot_take():
    game = envs.make("falkenstein", hidden_levels=True, max_rounds=3)
    with pytest.raises(InputError, match="duel train"):
        solve_hidden(game, max_nodes=20_000)


@pytest.mark.parametrize("prior, needle", [
    ("GD:-1", "-1"), ("GD:nan", "nan"), ("GD:inf", "inf"), ("GD:0,GR:0", "positive"),
    ("XX:1", "XX")])
def test_bad_priors_are_clear_errors(prior, needle):
    with pytest.raises(InputError, match=needle):
        hidden_duel(prior, "GD:1")


# ---------------------------------------------------------------- perfect recall

def _walk(game, state, pairs):
    for a, b in pairs:
        ((_, state),) = game.outcomes(state, ACTIONS.index(a), ACTIONS.index(b))
    return state


def test_round_one_evidence_reaches_round_two():
    game = envs.make("falkenstein", hidden_levels=True, prior_a="GD:1", prior_b="GD:1",
                     max_rounds=2)
    ((_, first),) = game.initial_outcomes()
    # nobody attacks, so nothing moves: the two round-1 histories differ only in B's
    # cards (two Rests or four), and round 2 starts from the same situation
    quiet = _walk(game, first, [("RR", "RR"), ("DD", "DD"), ("DD", "DD")])
    sandbag = _walk(game, first, [("RR", "RR"), ("DD", "DR"), ("DD", "DR")])
    assert quiet.inner.round == sandbag.inner.round == 2
    assert quiet.inner.exchange == sandbag.inner.exchange == 1
    assert quiet.inner == sandbag.inner
    # the same table in view, yet A tells the two rounds apart (his trail)
    assert game.public_view(quiet, "a") == game.public_view(sandbag, "a")
    assert game.observe(quiet, "a") != game.observe(sandbag, "a")


def test_the_order_of_this_round_is_remembered():
    game = envs.make("falkenstein", hidden_levels=True, prior_a="GD:1", prior_b="GD:1",
                     max_rounds=1)
    ((_, first),) = game.initial_outcomes()
    # the same cards in another order: same counts, same ground, different moments
    one = _walk(game, first, [("RR", "DR"), ("DD", "RR")])
    two = _walk(game, first, [("DD", "RR"), ("RR", "DR")])
    assert one.inner == two.inner
    for player in ("a", "b"):
        assert game.public_view(one, player) == game.public_view(two, player)
        assert game.observe(one, player) != game.observe(two, player)


def test_public_duels_merge_what_the_order_of_the_cards_does_not_change():
    game = envs.make("falkenstein", a={"fencing": "GD"}, b={"fencing": "GD"})
    ((_, first),) = game.initial_outcomes()
    after = _walk(game, first, [("RR", "DR"), ("DD", "RR")])
    assert after == _walk(game, first, [("DD", "RR"), ("RR", "DR")])
    assert len(game.observe(after, "a")) == 11


# ---------------------------------------------------------------- the command line

HIDDEN_CLI = ["solve", "falkenstein", "-o", "hidden_levels=true", "-o", "max_rounds=1"]


def _cli_json(capsys, *argv):
    import json

    from agents.cli import main
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_hidden_solve_with_one_level_each_gives_the_public_value(capsys):
    hidden = _cli_json(capsys, *HIDDEN_CLI, "-o", "prior_a=GR:1", "-o", "prior_b=GD:1")
    public = _cli_json(capsys, "solve", "falkenstein", "--a", "fencing=GR", "--b",
                       "fencing=GD", "-o", "max_rounds=1")
    assert hidden["value"] == pytest.approx(public["value"], abs=1e-7)
    assert hidden["exploitability"] < 1e-6
    assert [t["player"] for t in hidden["types"]] == ["a", "b"]
    assert hidden["types"][0]["payoff"] == pytest.approx(public["value"], abs=1e-7)


def test_cli_hidden_solve_reports_each_level(capsys):
    from agents.cli import main
    argv = [*HIDDEN_CLI, "-o", "prior_a=GD:0.5,GR:0.5", "-o", "prior_b=GD:1"]
    report = _cli_json(capsys, *argv)
    levels = [t for t in report["types"] if t["player"] == "a"]
    assert [t["prior"] for t in levels] == pytest.approx([0.5, 0.5])
    assert sum(t["prior"] * t["payoff"] for t in levels) == pytest.approx(report["value"])
    # every level opens the duel somewhere: its first situation is met for sure
    assert all(t["plays"][0]["reach"] == pytest.approx(1.0) for t in levels)
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "(unique)" in out and "need not be unique" in out and "fencing=GR" in out
    assert "exchange 1 of 3" in out


@pytest.mark.parametrize("options, needle", [
    (["-o", "max_rounds=10"], "duel train"), (["-o", "prior_a=GD:-1"], "-1"),
    (["-o", "prior_b=GD:0"], "positive"), (["-o", "prior_a=XX:1"], "XX"),
    (["-o", "prior_a=GD:nan"], "nan")])
def test_cli_hidden_bad_input_is_one_line_and_exit_2(capsys, options, needle):
    from agents.cli import main
    argv = ["solve", "falkenstein", "-o", "hidden_levels=true", *options]
    if "max_rounds=10" not in options:
        argv += ["-o", "max_rounds=1"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and needle in err and "Traceback" not in err


def test_cli_hidden_odds_with_one_level_each_match_the_public_best_response(capsys):
    # one level each: nothing is hidden, so the best response by information set must
    # equal the public best response (an MDP solved on the state graph, other code)
    hidden = _cli_json(capsys, "odds", "falkenstein", "-o", "hidden_levels=true", "-o",
                       "max_rounds=1", "-o", "prior_a=GD:1", "-o", "prior_b=AV:1",
                       "--vs", "uniform", "--side", "b")
    public = _cli_json(capsys, "odds", "falkenstein", "--a", "fencing=GD", "--b",
                       "fencing=AV", "-o", "max_rounds=1", "--vs", "uniform", "--side", "b")
    assert hidden["best_response"]["value"] == pytest.approx(
        public["best_response"]["value"], abs=1e-9)
    assert hidden["best_response"]["win"] + hidden["best_response"]["draw"] + hidden[
        "best_response"]["loss"] == pytest.approx(1.0)


def test_cli_hidden_odds_against_the_equilibrium_gain_nothing(capsys):
    options = ["-o", "hidden_levels=true", "-o", "max_rounds=1",
               "-o", "prior_a=GD:0.5,GR:0.5", "-o", "prior_b=GD:1"]
    solved = _cli_json(capsys, "solve", "falkenstein", *options)
    odds = _cli_json(capsys, "odds", "falkenstein", *options, "--vs", "equilibrium")
    # a best response to an equilibrium earns the value and no more
    assert odds["best_response"]["value"] == pytest.approx(solved["value"], abs=1e-6)
    assert odds["equally_good"] is True   # said so in the web's words
    uniform = _cli_json(capsys, "odds", "falkenstein", *options, "--vs", "uniform")
    assert uniform["equally_good"] is False   # uniform play can be exploited
    assert uniform["best_response"]["value"] >= uniform["equilibrium_against_it"][
        "value"] - 1e-12
    assert uniform["equilibrium_against_it"]["value"] >= solved["value"] - 1e-9


# ---------------------------------------------------------------- CFR+ cross-check

@pytest.mark.parametrize("game, iterations", [(TinyBluff(), 1000),
                                              (PenniesDuel(hidden=True), 400)])
def test_cfr_plus_agrees_with_the_linear_program(game, iterations):
    from solver.hidden.cfr import CFRPlus
    lp = solve_hidden(game)
    cfr = CFRPlus(lp.tree)
    cfr.run(iterations)
    gap = cfr.exploitability()
    assert gap < 5e-3
    # a pair whose NashConv is 2 * gap has a value within 2 * gap of the game's value
    assert abs(cfr.value() - lp.value) <= 2 * gap + 1e-12


# ---------------------------------------------------------------- bluff measures

def test_belief_entropy_and_pair_payoffs_of_the_tiny_bluff():
    solution = solve_hidden(TinyBluff())
    # B decides once, knowing nothing: the prior (1/2, 1/2), one bit
    assert solution.belief_entropy("a") == [pytest.approx((1.0, 1.0))]
    # each start is one type of A: Strong's 3/2 and Weak's 0 (the hand derivation above)
    # labelled by A's type (own_kind 0 is Strong, 1 Weak)
    assert solution.root_values() == pytest.approx({"A own_kind=0": 1.5, "A own_kind=1": 0.0},
                                                   abs=1e-9)


def test_a_known_level_leaves_no_doubt():
    solution = solve_hidden(hidden_duel("GD:1", "GD:1"))
    assert all(entropy == pytest.approx(0.0, abs=1e-12)
               for _, entropy in solution.belief_entropy("a"))
    # B's first decision is met for sure; later ones as often as the duel goes on
    played = [p for p, _ in solution.belief_entropy("a")]
    assert played[0] == pytest.approx(1.0) and all(p <= 1 + 1e-12 for p in played)
