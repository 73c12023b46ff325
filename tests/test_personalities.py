"""Personalities: the regularised solver against hand and brute-force checks, the
ends of the strength scale, and the temperament data format."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from agents.personalities import personality
from agents.temperaments import Condition, load_personality_data, personality_names, temperament
from solver import InputError, best_response, solve_game, solve_regularized
from solver.markov.graph import build_graph
from solver.markov.regularized import (
    regularized_maxmin,
    regularized_value,
    strength_to_beta,
)
from solver.policy import MixPolicy
from tests.solver_games import LoopingPennies, MatrixThenChance
from tests.toy_games import PenniesDuel


@pytest.fixture(scope="module")
def small():
    """Castle Falkenstein, two rounds, an asymmetric pairing (the equilibrium is mixed)."""
    return envs.make("falkenstein", a={"fencing": "AV"}, b={"fencing": "GD"}, max_rounds=2)


# -- one stage, checked by brute force

def _grid_values(Q, p, beta, steps=100_001):
    """The regularised max-min of a 2 x 2 game both ways on a grid: min over y of the
    dual beta log sum p exp(Q y / beta), and max over x of min_j (x^T Q)_j - beta KL."""
    t = np.linspace(0.0, 1.0, steps)
    y = np.stack([t, 1 - t], axis=1)
    dual = beta * np.log(np.exp(y @ Q.T / beta) @ p)
    x = np.stack([t, 1 - t], axis=1)[1:-1]
    kl = (x * np.log(x / p)).sum(axis=1)
    primal = (x @ Q).min(axis=1) - beta * kl
    return dual.min(), primal.max(), x[np.argmax(primal)]


@pytest.mark.parametrize("beta", [0.05, 0.5, 2.0])
def test_two_by_two_matches_grid_search(beta):
    Q = np.array([[1.0, -1.0], [-1.0, 0.5]])
    p = np.array([0.8, 0.2])
    solved = regularized_maxmin(Q, beta, p)
    dual, primal, x = _grid_values(Q, p, beta)
    # the dual is smooth, so its grid minimum is accurate; the primal has a kink at its
    # maximum, so its grid maximum is a little low: both must bracket the value
    assert solved.value == pytest.approx(dual, abs=1e-7)
    assert primal - 1e-9 <= solved.value <= dual + 1e-9
    assert solved.value == pytest.approx(primal, abs=1e-4)
    assert solved.row == pytest.approx(x, abs=1e-4)
    assert solved.gap <= 1e-10


def test_stage_ends_of_the_scale():
    Q = np.array([[1.0, -1.0], [-1.0, 0.5]])
    p = np.array([0.8, 0.2])
    equilibrium = regularized_maxmin(Q, 0.0, p)
    # matching-pennies-like game: A mixes 3/7, 4/7, value -1/7
    assert equilibrium.row == pytest.approx([3 / 7, 4 / 7])
    assert equilibrium.value == pytest.approx(-1 / 7)
    prior = regularized_maxmin(Q, np.inf, p)
    assert prior.row == pytest.approx(p)
    assert prior.value == pytest.approx(min(p @ Q))


def test_batch_respects_masks_and_certifies():
    rng = np.random.default_rng(3)
    Q = rng.uniform(-1, 1, (300, 6, 6))
    rows = rng.random((300, 6)) < 0.7
    rows[:, 0] = True
    cols = rng.random((300, 6)) < 0.7
    cols[:, 2] = True
    priors = rng.random((300, 6))
    for beta in (0.01, 0.3, 5.0):
        solved = regularized_maxmin(Q, beta, priors, rows, cols)
        assert np.all(solved.row[~rows] == 0)
        assert solved.row.sum(axis=1) == pytest.approx(np.ones(300))
        assert solved.gap.max() <= 1e-10
        # the certificate recomputed here: what the row mix guarantees, and what
        # best-answering the column mix is worth (the dual), beside the prior's weights
        masked = np.where(rows[:, :, None] & cols[:, None, :], Q, 0.0)
        p = np.where(rows, priors, 0.0)
        p /= p.sum(axis=1, keepdims=True)
        payoff = np.where(cols, np.einsum("bi,bij->bj", solved.row, masked), np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            kl = np.where(solved.row > 0, solved.row * np.log(solved.row / p), 0.0)
        guaranteed = payoff.min(axis=1) - beta * kl.sum(axis=1)
        with np.errstate(divide="ignore"):
            z = np.log(p) + np.einsum("bij,bj->bi", masked, solved.col) / beta
        dual = beta * np.log(np.exp(z).sum(axis=1))
        assert solved.value == pytest.approx(guaranteed, abs=1e-13)
        assert solved.gap == pytest.approx(dual - guaranteed, abs=1e-13)
        # started from its own answers, each game stays certified; one that was
        # settled (its gap at rounding level) takes no step and comes back as it was,
        # to the start's rounding (a step moves a mix by up to 3e-11 here)
        again = regularized_maxmin(Q, beta, priors, rows, cols, start=solved.col)
        assert again.gap.max() <= 1e-10
        assert np.abs(again.value - solved.value).max() <= 1e-12
        settled = again.gap <= 1e-14 * np.abs(masked).max()
        assert settled.sum() >= 10
        third = regularized_maxmin(Q, beta, priors, rows, cols, start=again.col)
        assert np.abs(third.row - again.row)[settled].max() <= 1e-14
        assert np.abs(third.value - again.value)[settled].max() <= 1e-14


def test_strength_to_beta():
    assert strength_to_beta(0) == 0
    assert strength_to_beta(0.5) == 1
    assert np.isinf(strength_to_beta(1))
    with pytest.raises(ValueError):
        strength_to_beta(1.5)


# -- whole games

@pytest.mark.parametrize("side", ["a", "b"])
def test_strength_zero_is_the_equilibrium(small, side):
    found = personality(small, "aggressive", 0.0, side)
    value = solve_game(small).value * (1 if side == "a" else -1)
    assert found.solution.value == pytest.approx(value, abs=1e-9)
    responder = "b" if side == "a" else "a"
    assert -best_response(small, found.policy, responder).value == pytest.approx(value, abs=1e-9)


@pytest.mark.parametrize("name", ["cautious", "trickster"])
def test_strength_one_is_the_temperament(small, name):
    found = personality(small, name, 1.0, "b")
    prior = temperament("falkenstein", name).policy(small)
    graph = build_graph(small)
    for s in np.flatnonzero(~graph.terminal):
        observation = small.observe(graph.states[s], "b")
        mask = graph.mask_b[s]
        assert found.policy.probabilities(observation, mask) == pytest.approx(
            prior.probabilities(observation, mask), abs=1e-12)


@pytest.mark.parametrize("name", ["aggressive", "cautious", "trickster", "steady"])
def test_exploitability_grows_with_strength(small, name):
    lost = []
    value = solve_game(small).value
    for strength in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
        found = personality(small, name, strength, "a")
        lost.append(value - best_response(small, found.policy, "b").value * -1)
    assert lost[0] == pytest.approx(0.0, abs=1e-9)
    assert all(later >= earlier - 1e-9 for earlier, later in zip(lost, lost[1:], strict=False))
    assert lost[-1] > lost[0]


def test_exact_personality_is_optimal_for_its_objective(small):
    found = personality(small, "steady", 0.5, "b")
    beta = found.beta
    own = regularized_value(small, "b", found.policy, found.prior, beta)
    assert own == pytest.approx(found.solution.value, abs=1e-9)
    for rival in (solve_game(small).policy_for("b"), found.prior,
                  personality(small, "steady", 0.3, "b").policy):
        assert regularized_value(small, "b", rival, found.prior, beta) <= own + 1e-9


def test_generic_solver_on_toy_games():
    """The solver knows nothing of duels: a chance game, a sequential step, a cycle."""
    for game in (MatrixThenChance(), PenniesDuel(), LoopingPennies()):
        prior = MixPolicy({game.action_names[0]: 3, game.action_names[1]: 1}, game.action_names)
        for side in ("a", "b"):
            sign = 1 if side == "a" else -1
            zero = solve_regularized(game, side, prior, 0.0)
            assert zero.value == pytest.approx(sign * solve_game(game).value, abs=1e-8)
            some = solve_regularized(game, side, prior, 0.7)
            assert some.value <= zero.value + 1e-9
            assert regularized_value(game, side, some.policy(), prior, 0.7) == pytest.approx(
                some.value, abs=1e-8)


# -- the data format

def test_built_in_temperaments():
    names = personality_names("falkenstein")
    assert {"aggressive", "cautious", "trickster", "steady"} <= set(names)
    assert all(names.values())


def test_conditions_follow_the_observation_fields(small):
    aggressive = temperament("falkenstein", "aggressive").policy(small)
    fields = small.observation_fields
    base = dict(zip(fields, [1, 1, 2, 2, 2, 2, 5, 5, 1, 2, 0], strict=True))
    cornered = dict(base, opp_back=0)
    mask = np.ones(6, bool)
    calm = aggressive.probabilities(tuple(base.values()), mask)
    pressed = aggressive.probabilities(tuple(cornered.values()), mask)
    assert pressed[0] > calm[0]  # AA doubles when the foe is at the wall
    assert Condition.parse("own_back < opp_back", "test").bind(fields)(
        tuple(dict(base, own_back=1).values()))


def test_bad_data_is_named(tmp_path, small):
    bad_field = tmp_path / "falkenstein.toml"
    bad_field.write_text('[temperament.x]\nbase = { AA = 1 }\n'
                         '[[temperament.x.when]]\nif = ["own_bak == 0"]\nscale = { AA = 2 }\n')
    data = load_personality_data("falkenstein", bad_field)
    with pytest.raises(InputError, match="own_bak.*allowed: round"):
        data.temperaments["x"].policy(small)
    bad_action = tmp_path / "bad_action.toml"
    bad_action.write_text('[temperament.x]\nbase = { ZZ = 1 }\n')
    with pytest.raises(InputError, match="ZZ"):
        load_personality_data("falkenstein", bad_action).temperaments["x"].policy(small)
    bad_condition = tmp_path / "bad_condition.toml"
    bad_condition.write_text('[temperament.x]\n[[temperament.x.when]]\nif = ["round ~ 1"]\n')
    with pytest.raises(InputError, match="round ~ 1"):
        load_personality_data("falkenstein", bad_condition)


def test_bad_names_and_strengths(small):
    with pytest.raises(InputError, match="unknown personality 'baron'.*aggressive"):
        personality(small, "baron", 0.5)
    with pytest.raises(InputError, match="strength"):
        personality(small, "cautious", 1.5)
    with pytest.raises(InputError, match="no personalities for system 'toy_pennies'"):
        personality(PenniesDuel(), "cautious", 0.5)


# -- strength is calibrated (the claims of the descriptions: tests/test_personality_claims.py)

@pytest.fixture(scope="module", params=[("GD", "GD"), ("GR", "GD")], ids=["GDvGD", "GRvGD"])
def pairing(request):
    """Two rounds, so sixteen calibrations fit in a test run (the full duel is in
    experiments/selfplay_curves.py)."""
    a, b = request.param
    return envs.make("falkenstein", a={"fencing": a}, b={"fencing": b}, max_rounds=2)


@pytest.mark.parametrize("name", ["cautious", "trickster", "steady"])
def test_exploitability_is_linear_in_strength(pairing, name):
    """At s = 0.25, 0.5, 0.75 the personality gives away s times what its temperament
    gives away, within CALIBRATION_TOLERANCE of the latter (measured here by a best
    response, not by the calibration's own bookkeeping). GR vs GD is a forced win for
    A: B's play gives nothing away, so A is the side measured there."""
    from agents.personalities import CALIBRATION_TOLERANCE
    side = "b" if pairing.options["a"]["fencing"] == pairing.options["b"]["fencing"] else "a"
    own = solve_game(pairing).value * (1 if side == "a" else -1)
    responder = "b" if side == "a" else "a"

    def lost(policy):
        return own + best_response(pairing, policy, responder).value

    full = lost(temperament("falkenstein", name).policy(pairing))
    assert full > 0.05  # a temperament that gives nothing away would test nothing
    for s in (0.25, 0.5, 0.75):
        measured = lost(personality(pairing, name, s, side).policy)
        assert abs(measured - s * full) <= CALIBRATION_TOLERANCE * full + 1e-9, (s, measured)


def test_claims_are_checked_data(tmp_path):
    bad = tmp_path / "claims.toml"
    bad.write_text('[temperament.x]\n[[temperament.x.claim]]\nsituation = "nowhere"\n'
                   'more = { AA = 1 }\n[situation.overall]\ntext = "anywhere"\nif = []\n')
    with pytest.raises(InputError, match="unknown situation 'nowhere'.*allowed: overall"):
        load_personality_data("falkenstein", bad)
    bad.write_text('[temperament.x]\n[[temperament.x.claim]]\nsituation = "overall"\n'
                   'more = { AA = 1 }\nof = "most"\n')
    with pytest.raises(InputError, match="unknown 'of' 'most'; allowed: situation, all"):
        load_personality_data("falkenstein", bad)


def test_the_claims_table_declares_margin_and_strengths(tmp_path):
    path = tmp_path / "claims.toml"
    claim = '[temperament.x]\n[[temperament.x.claim]]\nsituation = "overall"\nmore = { AA = 1 }\n'
    path.write_text('[claims]\nmargin = 0.02\nfrom_strength = 0.4\n' + claim
                    + 'margin = 0.1\ngrows = false\n')
    data = load_personality_data("falkenstein", path)
    (read,) = data.temperaments["x"].claims
    assert (data.claim_margin, data.claims_from) == (0.02, 0.4)
    assert (data.margin_of(read), read.grows) == (0.1, False)
    for table, match in (('[claims]\nfrom_strength = 0\n', r"from_strength must be .*\(0, 1\]"),
                         ('[claims]\nsince = 0.3\n', "only 'margin' and 'from_strength'"),
                         ('[claims]\nmargin = -1\n', "margin must be a finite number")):
        path.write_text(table + claim)
        with pytest.raises(InputError, match=match):
            load_personality_data("falkenstein", path)
    path.write_text(claim + 'grows = "yes"\n')
    with pytest.raises(InputError, match="'grows' must be true or false"):
        load_personality_data("falkenstein", path)


def test_built_in_files_declare_their_claims():
    for system in ("falkenstein", "blooded", "uchronia", "pathfinder"):
        data = load_personality_data(system)
        assert (data.claim_margin, data.claims_from) == (0.005, 0.25)


# -- one call from a game to a profile with exact metrics

def test_make_profile_from_a_personality(small):
    from agents import make_profile
    profile = make_profile(small, "b", personality="cautious", strength=0.5)
    metrics = profile.document["metrics"]
    assert profile.document["personality"] == {"name": "cautious", "strength": 0.5}
    own = -solve_game(small).value
    lost = own + best_response(small, profile, "a").value  # the profile as a policy
    assert metrics["exact"] and metrics["exploitability"] == pytest.approx(lost, abs=1e-9)
    assert lost > 0.01


def test_make_profile_from_a_policy_and_build_profile_fills_metrics(small):
    from agents import build_profile, make_profile
    equilibrium = solve_game(small).policy_for("a")
    made = make_profile(small, "a", policy=equilibrium)
    assert made.document["metrics"]["exploitability"] == pytest.approx(0.0, abs=1e-9)
    uniform = MixPolicy({"AA": 1, "DR": 1}, small.action_names)
    built = build_profile(small, uniform, "a")  # no metrics given: they are computed
    lost = solve_game(small).value + best_response(small, uniform, "b").value
    assert built["metrics"]["exact"]
    assert built["metrics"]["exploitability"] == pytest.approx(lost, abs=1e-9)
    with pytest.raises(InputError, match="exactly one of personality=, policy=, result="):
        make_profile(small, "a", personality="cautious", policy=uniform)


def test_a_calibrations_solve_starts_from_the_beta_tried_closest_on_log_beta(small,
                                                                           monkeypatch):
    """Each regularised solve of a search is handed the solution at the beta tried
    closest to it on log beta (0.15 is 1.5 times 0.1 and 1 / 6.7; 0.5 is 1 / 2 and 3.3
    times 0.15); none for the first, nor at the ends 0 and inf."""
    import solver
    from agents.personalities import calibration
    handed = []

    def recorded(game, side, prior, beta, near=None):
        handed.append((beta, None if near is None else near.beta))
        return type("Solved", (), {"beta": beta})()

    monkeypatch.setattr(solver, "solve_regularized", recorded)
    found = calibration(small, "aggressive", "a")
    monkeypatch.setattr(found, "solutions", {})
    for beta in (0.1, 1.0, 0.15, 0.5, np.inf, 0.0):
        found.solution(beta)
    assert handed == [(0.1, None), (1.0, 0.1), (0.15, 0.1), (0.5, 1.0), (np.inf, None),
                      (0.0, None)]
