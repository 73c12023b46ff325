"""Hidden sheets in every system (``envs.hidden``): a side's sheet drawn from a public
prior. The expected numbers are computed independently: the public duel's value by the
public-information solver (``solver.solve_game``, a different algorithm on a different
game), symmetry (mirrored priors), and the holder's guarantee (a side that knows his
sheet can play each sheet's public equilibrium, so he gets at least the prior-weighted
mean of his public values)."""

from __future__ import annotations

import json
import math

import pytest

import envs
from agents.cli import main
from agents.cli.hidden import render_hidden
from agents.hidden_learner import HiddenConfig, train_hidden
from solver import solve_game
from solver.errors import InputError
from solver.hidden.sequence import hidden_exploitability, solve_hidden
from solver.policy import UniformPolicy

#: per system: small duel options and two sheets for A (the prior's), B's sheet; each
#: hidden duel below unrolls into a few thousand points at most
DUELS = {
    "pathfinder": ({"victory": "first_blood", "max_rounds": 1},
                   ("fighter,hp=6", "fighter,hp=6,ac=14"), "rogue,hp=6"),
    "uchronia": ({"max_turns": 3}, ("adresse,tireur", "adresse"), "sang-froid"),
    "blooded": ({"max_beats": 1}, ("prowess=2,sword=1", "prowess=1,sword=1"),
                "prowess=1,sword=2"),
    "falkenstein": ({"max_rounds": 1}, ("fencing=GD", "fencing=EXC"), "fencing=GR"),
}
SYSTEMS = sorted(DUELS)


def public_value(system: str, a: str, b: str) -> float:
    options, _, _ = DUELS[system]
    return solve_game(envs.make(system, a=a, b=b, **options)).value


@pytest.mark.parametrize("system", SYSTEMS)
def test_one_sheet_at_weight_one_is_the_public_duel(system):
    options, (sheet, _), foe = DUELS[system]
    expected = public_value(system, sheet, foe)
    for hidden in ({"a_prior": [(sheet, 1.0)], "b": foe},
                   {"a": sheet, "b_prior": f"{foe}@1"},
                   {"a_prior": f"{sheet}@2", "b_prior": [(foe, 0.5)]}):
        solution = solve_hidden(envs.make(system, **hidden, **options))
        assert solution.value == pytest.approx(expected, abs=1e-9)
        assert solution.exploitability < 1e-6


@pytest.mark.parametrize("system", SYSTEMS)
def test_mirrored_priors_are_worth_nothing(system):
    options, sheets, _ = DUELS[system]
    prior = f"{sheets[0]}@0.3;{sheets[1]}@0.7"
    solution = solve_hidden(envs.make(system, a_prior=prior, b_prior=prior, **options))
    assert solution.value == pytest.approx(0.0, abs=1e-9)
    assert solution.exploitability < 1e-6


@pytest.mark.parametrize("system", SYSTEMS)
def test_information_never_hurts_the_side_that_holds_it(system):
    options, sheets, foe = DUELS[system]
    weights = (0.4, 0.6)
    prior = list(zip(sheets, weights, strict=True))
    solution = solve_hidden(envs.make(system, a_prior=prior, b=foe, **options))
    mean = math.fsum(w * public_value(system, sheet, foe) for sheet, w in prior)
    assert solution.value >= mean - 1e-9
    # each type's payoff, weighted by the prior, is the value
    types = solution.type_values("a")
    assert sorted(t.prior for t in types) == pytest.approx(sorted(weights))
    assert math.fsum(t.prior * t.value for t in types) == pytest.approx(solution.value,
                                                                        abs=1e-9)


def test_a_hidden_sheet_keeps_what_the_system_declares():
    """Pathfinder: the foe's HP are hidden, the damage dealt is seen (hp 6 to 4: 2 lost)."""
    game = envs.make("pathfinder", a_prior="fighter,hp=6@1;fighter,hp=9@1", b="rogue,hp=6",
                     max_rounds=1)
    fields = game.info.observation_fields
    start = {t: state for _, state in game.initial_outcomes()
             for t in [state.type_a]}
    hp = fields.index("opp_hp")
    for kind, state in start.items():
        assert game.observe(state, "b")[hp] == 0          # nothing lost yet, whatever HP
        assert game.observe(state, "a")[hp] == 6          # A sees B's public sheet
        assert game.observe(state, "a")[0] == kind        # his own sheet
    hurt = start[1]._replace(inner=start[1].inner._replace(hp_a=7))
    assert game.observe(hurt, "b")[hp] == 2
    assert game.observe(hurt, "a")[fields.index("own_hp")] == 7


def test_falkenstein_hidden_levels_is_a_prior_over_levels():
    """The option hidden_levels=true and a prior over Fencing levels are one game: the
    same tree and the same value (two sheets a side, one round)."""
    levels = envs.make("falkenstein", hidden_levels=True, max_rounds=1, prior_a="GD:1,GR:2",
                       prior_b="GD:1,EXC:1")
    sheets = envs.make("falkenstein", max_rounds=1, a_prior="fencing=GD@1;fencing=GR@2",
                       b_prior="fencing=GD@1;fencing=EXC@1")
    old, new = solve_hidden(levels), solve_hidden(sheets)
    assert new.value == pytest.approx(old.value, abs=1e-12)
    assert len(new.tree.node_state) == len(old.tree.node_state)
    assert len(new.tree.leaf_root) == len(old.tree.leaf_root)


@pytest.mark.parametrize("bad, named", [
    ({"a": "fighter", "a_prior": "rogue@1"}, "both a sheet"),
    ({"a_prior": "rogue@-1"}, "-1"),
    ({"a_prior": "rogue@inf"}, "inf"),
    ({"a_prior": "rogue@0;fighter@0"}, "positive weight"),
    ({"a_prior": "rogue@²"}, "ASCII"),
    ({"a_prior": [("rogue", True)]}, "True"),
    ({"a_prior": [("rogue", float("nan"))]}, "nan"),
    ({"a_prior": "wizard@1"}, "wizard"),
    ({"a_prior": []}, "non-empty"),
])
def test_bad_priors_are_refused_by_name(bad, named):
    with pytest.raises(InputError, match=named):
        envs.make("pathfinder", **bad)


def test_a_prior_needs_the_public_duel():
    with pytest.raises(InputError, match="hidden_levels"):
        envs.make("falkenstein", hidden_levels=True, a_prior="fencing=GD@1")


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_learner_trains_every_system_and_measures_it_exactly(system):
    """The learner's own exact measure of its pair agrees with an independent exact best
    response over the tree (``hidden_exploitability``), and learning lowers it."""
    options, sheets, foe = DUELS[system]
    game = envs.make(system, a_prior=[(sheets[0], 0.5), (sheets[1], 0.5)], b=foe, **options)
    result = train_hidden(game, HiddenConfig(seed=0, iterations=400, distill_steps=0,
                                             eval_every=200))
    assert result.measurement.exact
    gap, _ = hidden_exploitability(game, result.policy_a, result.policy_b)
    assert result.measurement.exploitability == pytest.approx(gap, abs=1e-9)
    uniform, _ = hidden_exploitability(game, UniformPolicy(), UniformPolicy())
    assert gap < uniform


def test_a_profile_records_the_prior_and_answers_as_a_hidden_npc(tmp_path, capsys):
    options = ["-o", "max_turns=3"]
    sheets = ["--a", "sang-froid", "--them-prior", "adresse,tireur@1;adresse@1"]
    out = tmp_path / "npc.json"
    assert main(["train", "uchronia", *sheets, *options, "--iterations", "200",
                 "--out", str(out)]) == 0
    profile = json.loads(out.read_text())
    assert profile["options"]["b_prior"] == [["adresse,tireur", 0.5], ["adresse", 0.5]]
    capsys.readouterr()
    assert main(["odds", "uchronia", *sheets, *options, "--vs", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # the best response to the NPC, by what A can see, against the NPC's exact play:
    # at least what A's equilibrium play gets against it
    best, steady = report["best_response"], report["equilibrium_against_it"]
    assert best["value"] >= steady["value"] - 1e-9
    solution = solve_hidden(envs.make("uchronia", a="sang-froid", max_turns=3,
                                      b_prior="adresse,tireur@1;adresse@1"))
    assert best["value"] >= solution.value - 1e-9  # the NPC is no better than equilibrium


def test_duel_solve_reports_value_exploitability_and_the_types(capsys):
    assert main(["solve", "uchronia", "--a", "sang-froid", "--them-prior",
                 "adresse,tireur@1;adresse@3", "-o", "max_turns=3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    expected = solve_hidden(envs.make("uchronia", a="sang-froid", max_turns=3,
                                      b_prior=[("adresse,tireur", 1), ("adresse", 3)]))
    assert report["value"] == pytest.approx(expected.value, abs=1e-9)
    assert 0 <= report["exploitability"] < 1e-6
    payoffs = {entry["type"]: (entry["prior"], entry["payoff"]) for entry in report["types"]
               if entry["player"] == "b"}
    assert sorted(p for p, _ in payoffs.values()) == pytest.approx([0.25, 0.75])
    assert math.fsum(p * v for p, v in payoffs.values()) == pytest.approx(-report["value"],
                                                                          abs=1e-9)


def test_a_hidden_blooded_sheet_is_solved_and_its_play_said_in_words(capsys):
    # Blooded's size estimate reads the public duel's sheets: a prior has none, and the
    # hidden solver counts its own size instead
    assert main(["solve", "blooded", "--a", "duellist", "--b-prior", "novice@1;duellist@1",
                 "-o", "max_beats=1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    game = envs.make("blooded", a="duellist", max_beats=1,
                     b_prior=[("novice", 1), ("duellist", 1)])
    assert report["value"] == pytest.approx(solve_hidden(game).value, abs=1e-9)
    opening = report["types"][0]["plays"][0]
    assert opening["situation"].startswith("strike bid")
    assert all(opening["words"][name] == f"bid {name}" for name in opening["mix"])
    assert "strike bid" in render_hidden(game, report)


def test_duel_solve_refuses_a_duel_too_long_with_the_horizon_that_fits(capsys):
    code = main(["solve", "pathfinder", "--b", "rogue", "--a-prior", "fighter@1;fighter,ac=16@1",
                 "-o", "victory=first_blood", "-o", "max_rounds=2"])
    assert code == 2
    error = capsys.readouterr().err
    assert "fits up to -o max_rounds=1" in error and "beyond the 2000000" in error


@pytest.mark.parametrize("argv, needle", [
    (["--a", "fighter", "--a-prior", "rogue@1"], "both a sheet and a prior"),
    (["--a-prior", "rogue@1", "--me-prior", "rogue@1"], "--me-prior names side A"),
    (["--a-prior", "rogue@x1"], "x1"),
])
def test_bad_prior_flags_are_one_line_and_exit_2(argv, needle, capsys):
    assert main(["solve", "pathfinder", *argv, "-o", "max_rounds=1"]) == 2
    error = capsys.readouterr().err
    assert needle in error and "Traceback" not in error
