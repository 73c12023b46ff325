"""Bad input, the classes of issue 29 that a size, a flag or a state reader decides:
a duel too large is refused from its system's estimate before any state is explored
(saying states, memory and time; ``--allow-large`` goes ahead), the command's own
numeric flags read ASCII digits only, and every system's ``state_from`` reads a number
one way and refuses a finished moment, whoever calls it."""

from __future__ import annotations

import argparse
import re

import numpy as np
import pytest
from test_bad_input import SMALL, assert_one_line_error, run_cli

import envs
import solver.limits
from agents.cli import checks
from solver.counters import explore
from solver.counters.solution import kept_cores, solution_bytes
from solver.errors import InputError

HUGE_PATHFINDER = ["pathfinder", "--a", "fighter,hp=200", "--b", "fighter,hp=200"]
HUGER_PATHFINDER = ["pathfinder", "--a", "fighter,hp=999", "--b", "fighter,hp=999"]
HUGE_BLOODED = ["blooded", "--a", "master", "--b", "master", "-o", "max_beats=200", "-o",
                "bid_every_beat=true"]


# -- a duel too large for the memory ceiling, refused from the estimate -------------------

@pytest.mark.parametrize("duel", [HUGE_PATHFINDER, HUGER_PATHFINDER, HUGE_BLOODED],
                         ids=["pathfinder-200", "pathfinder-999", "blooded-200-beats"])
@pytest.mark.parametrize("command", [["solve"], ["odds", "--vs", "uniform"],
                                     ["play", "--vs", "uniform"],
                                     ["train", "--out", "never-written.json"]])
def test_a_duel_too_large_is_refused_before_any_state_is_explored(monkeypatch, capsys,
                                                                   duel, command):
    def never(*_, **__):
        raise AssertionError("the duel was explored before its size was said")
    monkeypatch.setattr("solver.counters.explore", never)
    monkeypatch.setattr("solver.counters.solution.explore", never)
    err = assert_one_line_error([command[0], *duel, *command[1:]], "too large to solve",
                                capsys)
    assert "GiB of memory" in err and "of solving" in err and "--allow-large" in err
    assert "situations at each of" in err


def test_train_says_the_size_of_the_npc_it_would_solve(monkeypatch, capsys, tmp_path):
    # the master's sheets at the default 30 beats: a solve needs about 8.9 GiB, and a
    # personality's calibration solves the duel again and again
    monkeypatch.setattr("solver.counters.explore", None)   # any exploring would fail
    duel = ["blooded", "--a", "master", "--b", "master", "--out", str(tmp_path / "npc.json")]
    solve = assert_one_line_error(["solve", *duel[:-2]], "too large to solve", capsys)
    said = {name: assert_one_line_error(["train", *duel, *extra], "too large to solve",
                                        capsys)
            for name, extra in (("equilibrium", []), ("reckless", ["--personality",
                                                                   "reckless"]))}
    gib = {name: float(re.search(r"about ([0-9.]+) GiB", err)[1])
           for name, err in [("solve", solve), *said.items()]}
    assert gib["equilibrium"] == gib["solve"] < gib["reckless"]
    assert not (tmp_path / "npc.json").exists()


LEVEL_5 = ["pathfinder", "--a", "hp=68,ac=23,attack=15,damage=2d8+4", "--b",
           "hp=53,ac=22,attack=12,damage=2d6+4,agile,sneak=2d6"]


def test_odds_says_its_own_size_where_a_solve_of_the_duel_fits(monkeypatch, capsys):
    # level 5: the solve (3.2 GB measured) and the odds against the equilibrium (4.0 GB:
    # each of their solves frees what the next does not read, the plan's rows are made
    # as they are written) fit under the ceiling; the odds against a personality,
    # calibrated by solves of the whole duel first, with its solution then held as the
    # opponent, do not and are refused up front
    game = envs.make("pathfinder", a=LEVEL_5[2], b=LEVEL_5[4])
    for command in ("solve", "odds"):   # not refused
        checks.require_fits(game, argparse.Namespace(command=command, vs="equilibrium"))
    monkeypatch.setattr("solver.counters.explore", None)   # any exploring would fail
    err = assert_one_line_error(["odds", *LEVEL_5, "--vs", "bully:0.5"], "too large", capsys)
    said = float(re.search(r"about ([0-9.]+) GiB", err)[1])
    assert said > solver.limits.MEMORY_CEILING / 2**30
    size = envs.footprint(game)
    against = {vs: checks.question_cost(size, "odds", vs, "pathfinder")
               for vs in ("equilibrium", "bully:0.5")}
    assert said == round(against["bully:0.5"][0] / 2**30, 1)
    # more memory and more time than against the equilibrium, which is more than a solve
    assert all(np.greater(against["bully:0.5"], against["equilibrium"]))
    assert against["equilibrium"][0] > size.memory


def test_the_states_said_are_the_counter_values_times_the_situations(capsys):
    err = assert_one_line_error(["solve", *HUGE_PATHFINDER], "too large", capsys)
    assert "at each of 40,000 counter values" in err        # 200 x 200 hit points
    err = assert_one_line_error(["solve", *HUGE_BLOODED], "too large", capsys)
    assert "at each of 200 beats left" in err


@pytest.mark.parametrize("timing", [{"plans": "committed"}, {"plans": "per_turn"},
                                    {"plans": "per_turn", "reaction_choice": "each_strike"}])
@pytest.mark.parametrize("a, b", [("fighter,hp=3", "rogue,hp=2"),
                                  ("fighter,hp=2,shield", "rogue,hp=2")])
def test_the_pathfinder_estimate_covers_what_the_solver_allocates(a, b, timing):
    game = envs.make("pathfinder", a=a, b=b, **timing)
    size = envs.footprint(game)
    graph, grid, roots = explore(game)     # the count the estimate must match
    kept = len(kept_cores(graph, [core for _, core, _ in roots]))
    assert size.states == len(graph.cores) * grid.size
    # the tables, and the chance of arriving at each landing core pushed forward
    arriving = 8 * len(graph.landing) * grid.columns
    assert size.memory > solution_bytes(graph, grid, kept) + arriving + 8 * len(graph.cores)


def test_a_pathfinder_duel_with_a_round_limit_has_no_estimate():
    assert envs.footprint(envs.make("pathfinder", max_rounds=2)) is None


@pytest.mark.parametrize("sheet", ["novice", "shara"])
def test_the_blooded_estimate_counts_the_cores_of_a_reference_sheet(sheet):
    game = envs.make("blooded", a=sheet, b=sheet, max_beats=3)
    graph, grid, _ = explore(game)
    assert grid.size == 3
    assert envs.footprint(game).states == pytest.approx(len(graph.cores) * 3, rel=0.01)


@pytest.mark.parametrize("options", [
    {"a": "novice", "b": "novice", "bid_every_beat": True},
    {"a": "invokes=5"},
    {"a": "invokes=3", "b": "invokes=3"},
    {"a": "novice", "b": "novice", "pool": "whole_duel"},
], ids=["bid-every-beat", "invokes-5", "invokes-3-each", "whole-duel-pool"])
def test_the_blooded_estimate_covers_the_options_that_multiply_the_cores(options):
    game = envs.make("blooded", max_beats=1, **options)
    graph, _, _ = explore(game)
    assert len(graph.cores) <= envs.footprint(game).states <= 2 * len(graph.cores)


@pytest.mark.parametrize("options", [["-o", "bid_every_beat=true"], ["--a", "invokes=50"]])
def test_a_one_beat_blooded_duel_that_takes_gigabytes_is_refused_up_front(monkeypatch, capsys,
                                                                          options):
    # measured (/usr/bin/time): 6.8 GB and 6.6 GB at their peaks, where the estimate
    # said 0.65 and 1.1 GiB
    monkeypatch.setattr("solver.counters.explore", None)   # any exploring would fail
    assert_one_line_error(["solve", "blooded", "-o", "max_beats=1", *options],
                          "too large to solve", capsys)


def test_allow_large_says_the_size_and_goes_ahead(monkeypatch, capsys, tmp_path):
    # a ceiling of one byte: every duel is too large, the solver's own check included
    monkeypatch.setattr(checks, "MEMORY_CEILING", 1)
    monkeypatch.setattr(solver.limits, "MEMORY_CEILING", 1)
    duel = ["blooded", "--a", "novice", "--b", "novice", "-o", "max_beats=1", "--no-cache"]
    assert_one_line_error(["solve", *duel], "too large to solve", capsys)
    code, out, err = run_cli(["solve", *duel, "--allow-large"], capsys)
    assert code == 0, err
    assert "going ahead (--allow-large)" in err and "GiB of memory" in err
    assert err.count("going ahead") == 1   # said once, though the input is checked twice
    assert "win" in out
    npc = ["train", *duel, "--out", str(tmp_path / "npc.json")]
    assert_one_line_error(npc, "too large to solve", capsys)
    code, _, err = run_cli([*npc, "--allow-large"], capsys)
    assert code == 0 and "going ahead (--allow-large)" in err, err
    assert (tmp_path / "npc.json").exists()


# -- the command's numeric flags: ASCII digits, as every number typed ---------------------

@pytest.mark.parametrize("typed", ["1_0", "²", "٨", "1e3", ""])
@pytest.mark.parametrize("argv", [
    ["dice", "1d20+5", "--dc"],
    ["dice", "1d6", "--at-least"],
    ["odds", "falkenstein", *SMALL, "--vs", "uniform", "--limit"],
    ["sweep", "blooded", "--grid", "a.prowess=1..2", "--out", "x.parquet", "--workers"],
    ["sweep", "blooded", "--grid", "a.prowess=1..2", "--out", "x.parquet", "--batch"],
])
def test_numeric_flags_are_ascii_integers(capsys, argv, typed):
    assert_one_line_error([*argv, typed], "ASCII digits", capsys)


@pytest.mark.parametrize("typed", ["1_0", "²", "inf", "nan"])
def test_numeric_real_flags_are_ascii_finite_numbers(capsys, typed):
    assert_one_line_error(["sweep", "blooded", "--grid", "a.prowess=1..2", "--out",
                           "x.parquet", "--task-memory", typed], "finite number", capsys)


@pytest.mark.parametrize("argv", [
    ["odds", "falkenstein", *SMALL, "--vs", "cautious:0_5"],
    ["odds", "falkenstein", *SMALL, "--vs", "cautious:٠.5"],
    ["train", "falkenstein", *SMALL, "--personality", "cautious", "--strength", "٠.5",
     "--out", "x.json"],
    ["train", "falkenstein", *SMALL, "--personality", "cautious", "--strength", "0_5",
     "--out", "x.json"],
])
def test_a_strength_is_an_ascii_number(capsys, argv):
    assert_one_line_error(argv, "strength must be a number", capsys)


def test_ascii_flags_still_read(capsys):
    code, out, _ = run_cli(["dice", "1d20+5", "--dc", "+15", "--json"], capsys)
    assert code == 0 and '"dc": 15' in out


# -- state_from: one reading of a number, whoever calls it --------------------------------

GAMES = {"blooded": ("beat", {"max_beats": 3}),
         "uchronia": ("turn", {"max_turns": 3}),
         "pathfinder": ("hp_a", {"a": "fighter,hp=3", "b": "rogue,hp=3", "max_rounds": 1}),
         "falkenstein": ("round", {"max_rounds": 3})}


@pytest.mark.parametrize("value", [2.7, 2.0, True, "1_0", "²", "١", float("nan")])
@pytest.mark.parametrize("system", sorted(GAMES))
def test_state_from_reads_integers_only(system, value):
    field, options = GAMES[system]
    game = envs.make(system, **options)
    with pytest.raises(InputError, match=f"state field {field} takes an integer"):
        game.state_from({field: value})
    assert game.state_fields(game.state_from({field: "2"}))[field] == 2


@pytest.mark.parametrize("system, options, fields", [
    ("blooded", {"max_beats": 2}, {"inj_a": 5}),
    ("blooded", {"max_beats": 2}, {"ending": 1}),
    ("blooded", {"max_beats": 2}, {"phase": "over"}),
    ("uchronia", {"max_turns": 2}, {"ending": 1}),
    ("pathfinder", {"a": "fighter,hp=3", "b": "rogue,hp=3", "max_rounds": 1}, {"hp_b": 0}),
    ("falkenstein", {"max_rounds": 2}, {"ending": 1}),
])
def test_state_from_refuses_a_finished_moment(system, options, fields):
    with pytest.raises(InputError):
        envs.make(system, **options).state_from(fields)


# -- the classes of issue 29 on the systems beyond the one each was found on --------------

QUICK = {"falkenstein": ["-o", "max_rounds=1"], "uchronia": ["-o", "max_turns=1"],
         "blooded": ["-o", "max_beats=1"],
         "pathfinder": ["--a", "fighter,hp=3", "--b", "rogue,hp=3", "-o", "max_rounds=1"]}


@pytest.mark.parametrize("system, sheet, word", [
    ("blooded", "prowess=99999999999", "0..5"),
    ("blooded", "sword=-1", "0..5"),
    ("blooded", "invokes=51", "0..50"),
    ("blooded", "style=1000000000000000000000", "0..50"),
    ("falkenstein", "health=99999999999", "0..99"),
    ("falkenstein", "health=-1", "0..99"),
    ("falkenstein", "fencing=99999999999", "allowed: PR"),
])
def test_huge_sheet_numbers_have_bounds_on_every_system(capsys, system, sheet, word):
    assert_one_line_error(["solve", system, *QUICK[system], "--a", sheet], word, capsys)


@pytest.mark.parametrize("system, text, word", [
    ("falkenstein", "field_m = 1000000000\n", "2..12"),
    ("falkenstein", "corps_a_corps_tie_m = -5\n", "0..2"),
    ("falkenstein", "[rests_required]\nPR = 1000000000\n", "0..6"),
    ("falkenstein", "[feat_chance]\nPR = 1e308\n", "probability"),
    ("uchronia", "[dice]\nbase = 1000000000\n", "0..20"),
    ("uchronia", "[dice]\nminimum = -3\n", "1..20"),
    ("uchronia", "[health]\nout_level = 1000000000\n", "1..3"),
    ("uchronia", "[resistance]\ncancel_margin = -1\n", "0..100"),
    ("blooded", "risk_target = 1000000000\n", "1..200"),
    ("blooded", "die_sides = -6\n", "2..100"),
    ("blooded", "invoke_dice = 9223372036854775807\n", "0..20"),
    ("blooded", "[costs]\nbash = -2\n", "0..20"),
    ("blooded", "wagers_per_style = 1e9\n", "integer"),
])
def test_huge_or_negative_ruleset_numbers_have_bounds_on_every_system(tmp_path, capsys,
                                                                      system, text, word):
    path = tmp_path / "rules.toml"
    path.write_text(text)
    assert_one_line_error(["solve", system, *QUICK[system], "--ruleset", str(path)], word,
                          capsys)


@pytest.mark.parametrize("path, word", [("", "empty"), ("/dev/zero", "not a regular file"),
                                        ("/", "a directory")])
@pytest.mark.parametrize("system", sorted(QUICK))
def test_a_ruleset_is_a_regular_file_on_every_system(capsys, system, path, word):
    assert_one_line_error(["solve", system, *QUICK[system], "--ruleset", path], word, capsys)


@pytest.mark.parametrize("typed", ["\x00\x01", "²", "١", "9" * 5000, "1_0"])
@pytest.mark.parametrize("system", ["blooded", "uchronia"])
def test_what_is_typed_at_the_prompt_is_never_a_traceback_on_every_system(capsys, system,
                                                                          typed):
    answers = iter([typed, "q"])
    from agents.cli import build_parser
    from agents.cli.play import run

    args = build_parser().parse_args(["play", system, *QUICK[system], "--vs", "uniform",
                                      "--seed", "1", "--no-cache"])
    assert run(args, read=lambda prompt="": next(answers)) == 0
    out = capsys.readouterr().out
    assert "is not a legal choice here" in out


@pytest.mark.parametrize("out", ["x.csv", "cells", "x.parquet.json"])
def test_a_sweep_names_its_parquet_file_so(capsys, out):
    # x.csv was written, as Parquet, after the whole grid was solved
    assert_one_line_error(["sweep", "blooded", "--grid", "a.prowess=1..2", "--out", out],
                          "FILE.parquet", capsys)


# -- Uchronia: states grow with the turns (rounds), counted from the sheets and rules ------

REVOLVERS = {"a": "tireur,adresse,sang-froid,weapon=revolver",
             "b": "tireur,adresse,sang-froid,weapon=revolver", "start_band": "grande"}


def test_the_pistol_estimate_by_hand():
    # two revolvers (6 shots) from grande (band 3 of 0..3), both aiming weapons: a turn
    # holds at most 4 bands x 3 x 3 healths x 7 x 7 loads x 2 x 2 aims = 7,056 situations
    game = envs.make("uchronia", **REVOLVERS, max_turns=10)
    assert envs.footprint(game).states == 11 * 7_056
    # duel pistols (1 shot) from moyenne: 3 x 9 x 2 x 2 x 4 = 432 a turn
    assert envs.footprint(envs.make("uchronia", max_turns=10)).states == 11 * 432


@pytest.mark.parametrize("options", [
    {}, dict(REVOLVERS, max_turns=10), {"mode": "melee", "max_rounds": 30},
    {"mode": "melee", "a": "pugiliste,athlete,colosse,adresse",
     "b": "pugiliste,athlete,colosse,adresse", "max_rounds": 30},
    {"mode": "melee", "a": "pugiliste,athlete", "b": "weapon=epee", "max_rounds": 30},
    {"mode": "melee", "a": "weapon=hache", "b": "weapon=epee", "max_rounds": 30},
], ids=["pistol", "revolvers", "melee", "melee-pools-7", "melee-one-armed", "melee-armed"])
def test_the_uchronia_estimate_covers_the_states_explored(options):
    from solver.markov.graph import build_graph
    game = envs.make("uchronia", **options)
    explored = build_graph(game).size
    assert explored <= envs.footprint(game).states <= 3 * explored


def test_the_pistol_estimate_covers_a_duel_without_reloading():
    # both guns are soon empty and the duel over: far fewer states than counted
    from solver.markov.graph import build_graph
    empty = envs.make("uchronia", ruleset={"pistol": {"reload_per_turn": 0}})
    assert build_graph(empty).size <= envs.footprint(empty).states


@pytest.mark.parametrize("duel", [
    ["-o", "max_turns=200", "--a", REVOLVERS["a"], "--b", REVOLVERS["b"], "-o",
     "start_band=grande"],
    ["-o", "mode=melee", "-o", "max_rounds=200", "--ruleset", "BASE_12"],
], ids=["revolvers-200-turns", "melee-pools-of-12"])
@pytest.mark.parametrize("command", [["solve"], ["odds", "--vs", "uniform"]])
def test_a_long_uchronia_duel_is_refused_before_any_state_is_explored(monkeypatch, capsys,
                                                                      tmp_path, duel,
                                                                      command):
    # 200 turns with two revolvers from grande: 6.6 GB measured (/usr/bin/time); a
    # melee with 12 dice a side: grapple penalties up to 12 each
    from envs.uchronia import MeleeGame, PistolGame
    rules = tmp_path / "base.toml"
    rules.write_text("[dice]\nbase = 12\n")
    duel = [str(rules) if word == "BASE_12" else word for word in duel]

    def never(*_, **__):
        raise AssertionError("the duel was explored before its size was said")
    monkeypatch.setattr(PistolGame, "initial_outcomes", never)
    monkeypatch.setattr(MeleeGame, "initial_outcomes", never)
    err = assert_one_line_error([command[0], "uchronia", *duel, *command[1:]],
                                "too large to solve", capsys)
    assert re.search(r"situations over 200 (turns|rounds)", err)


# -- a duel no system estimates: refused as its exploration outgrows the ceiling ----------

TO_THE_DEATH = {"convention": "to_the_death", "max_rounds": 3, "a": "fencing=GR,health=6",
                "b": "fencing=GD,health=6"}


def test_an_exploration_past_the_ceiling_stops_in_words(monkeypatch):
    # Falkenstein has no estimate (its first-blood duels hold 72 states a round); a
    # duel to the death with health grows with it. Its states and outcomes, counted by
    # an exploration with no ceiling, decide where a lower ceiling stops the next one
    from solver.markov import graph as state_graph
    with solver.limits.beyond_ceiling():
        whole = state_graph.explore(envs.make("falkenstein", **TO_THE_DEATH))
    needed = (state_graph.STATE_BYTES * whole.size
              + state_graph.OUTCOME_BYTES * whole.transitions.nnz)
    monkeypatch.setattr(solver.limits, "MEMORY_CEILING", needed)
    assert state_graph.explore(envs.make("falkenstein", **TO_THE_DEATH)).size == whole.size
    monkeypatch.setattr(solver.limits, "MEMORY_CEILING", needed - 1)
    with pytest.raises(InputError, match=f"reached {whole.size:,} situations"):
        state_graph.explore(envs.make("falkenstein", **TO_THE_DEATH))
    # checked along the way too: at half the room it stops before the end
    monkeypatch.setattr(solver.limits, "MEMORY_CEILING", needed // 2)
    monkeypatch.setattr(state_graph, "CHECK_EVERY", 50)
    with pytest.raises(InputError, match="too large to solve here") as refused:
        state_graph.explore(envs.make("falkenstein", **TO_THE_DEATH))
    reached = int(re.search(r"reached ([0-9,]+) situations", str(refused.value))[1]
                  .replace(",", ""))
    assert reached < whole.size
    with solver.limits.beyond_ceiling():
        assert state_graph.explore(envs.make("falkenstein", **TO_THE_DEATH)).size == \
            whole.size


def test_a_duel_refused_while_explored_says_so_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(solver.limits, "MEMORY_CEILING", 2**20)
    duel = ["falkenstein", "-o", "convention=to_the_death", "-o", "max_rounds=3", "--a",
            "fencing=GR,health=6", "--b", "fencing=GD,health=6", "--no-cache"]
    err = assert_one_line_error(["solve", *duel], "too large to solve here", capsys)
    assert "--allow-large" in err
    code, out, err = run_cli(["solve", *duel, "--allow-large"], capsys)
    assert code == 0, err
    assert "win" in out
