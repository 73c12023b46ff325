"""Bad input, class by class, as the second fuzz run found it (issue 29): bounds,
numbers as people type them, files, weights, the solver API, profiles, checkpoints and
states. Each case is one line on stderr with exit code 2 (the CLI) or an InputError
(the API), naming the bad value; where good input is involved, the answer is checked
against one derived by hand."""

from __future__ import annotations

import gzip
import json
import os
import threading

import numpy as np
import pytest
from test_bad_input import SMALL, assert_one_line_error, run_cli

import envs
import solver
from agents.cli.play import read_answer
from agents.files import write_json
from agents.profiles import load_profile, validate_profile
from solver.errors import InputError

PF_SMALL = ["--a", "fighter,hp=3", "--b", "rogue,hp=3", "-o", "max_rounds=1"]


# -- 1. bounds from the schema: sheets, dice expressions and ruleset values ----------------

@pytest.mark.parametrize("sheet, word", [
    ("damage=1d8+999999999999", "-20..60"),
    ("damage=1000d1000", "at most 10 dice"),
    ("damage=11d6", "at most 10 dice"),
    ("damage=1d100", "at most 20 sides"),
    ("damage=1d8-21", "-20..60"),
    ("sneak=99999999999", "0..10"),
    ("sneak=11d6", "0..10"),
    ("sneak=-1", "0..10"),
    ("sneak=1d8", "0..10 d6"),
    ("hp=1000", "1..999"),
    ("attack=61", "-20..60"),
])
def test_pathfinder_sheet_numbers_have_bounds(capsys, sheet, word):
    assert_one_line_error(["solve", "pathfinder", "--a", sheet, *PF_SMALL[2:]], word, capsys)


@pytest.mark.parametrize("sheet", [{"damage": "1000d1000"}, {"damage": "1d8+999999"},
                                   {"sneak": "50"}, {"sneak": ""}])
def test_envs_make_refuses_pathfinder_sheets_out_of_bounds(sheet):
    with pytest.raises(InputError, match="allowed|takes"):
        envs.make("pathfinder", a=sheet)


@pytest.mark.parametrize("text, word", [
    ("[strike]\nminimum_damage = 1000000000\n",
     "strike.minimum_damage: expected an integer 0..100"),
    ("[strike]\nminimum_damage = -1\n", "0..100"),
    ("[strike]\ncritical_multiplier = -1\n",
     "strike.critical_multiplier: expected an integer 1..4"),
    ("[strike]\ncritical_multiplier = 1000000000\n", "1..4"),
    ("[strike]\ncritical_multiplier = 9223372036854775807\n", "1..4"),
    ("[strike]\nsneak_die = 0\n", "2..20"),
    ("[strike]\nmultiple_attack_penalty = [0, 5, 1000]\n",
     "strike.multiple_attack_penalty[2]: expected an integer 0..40"),
    ("[checks]\ncritical_margin = 0\n", "1..40"),
    ("[conditions]\noff_guard = -2\n", "0..20"),
    ("[conditions]\nfeint_lasting_turns = 99999\n", "1..2"),
    ("[reactions.bullying_press]\nfrightened = 50\n", "0..4"),
    ("[reactions.deceptive_sidestep]\nreroll_penalty = -1\n", "0..20"),
])
def test_pathfinder_ruleset_numbers_have_bounds(tmp_path, capsys, text, word):
    path = tmp_path / "rules.toml"
    path.write_text(text)
    assert_one_line_error(["solve", "pathfinder", *PF_SMALL, "--ruleset", str(path)], word,
                          capsys)


def test_every_pathfinder_ruleset_number_is_bounded():
    # each number of the default ruleset (outside the sheets, which the sheet schema
    # bounds) is named by the declared bounds, so a new key cannot slip through
    from envs.pathfinder.rules import RULESET_BOUNDS
    from envs.rulesets import default_ruleset

    ruleset = default_ruleset("pathfinder")
    unbounded = []

    def walk(table, where):
        for key, value in table.items():
            if isinstance(value, dict):
                walk(value, f"{where}{key}.")
            elif (isinstance(value, int | list) and not isinstance(value, bool) and (
                    not isinstance(value, list) or value and isinstance(value[0], int))):
                unbounded.append(f"{where}{key}")

    walk({k: v for k, v in ruleset.items()
          if k not in ("sheets", "sheet_defaults", "max_rounds")}, "")
    assert sorted(set(unbounded) - set(RULESET_BOUNDS)) == []


def test_ruleset_keys_read_by_nothing_are_gone(tmp_path, capsys):
    for system, text in (("pathfinder", "tolerance = 1e-9\n"),
                         ("uchronia", "[dice]\nepreuve = 10\n"),
                         ("uchronia", "[dice]\nexploit = -1\n")):
        path = tmp_path / "rules.toml"
        path.write_text(text)
        options = PF_SMALL if system == "pathfinder" else ["-o", "max_turns=1"]
        assert_one_line_error(["solve", system, *options, "--ruleset", str(path)],
                              "unknown ruleset key", capsys)


# -- 2. numbers as people type them: ASCII digits only -----------------------------------

@pytest.mark.parametrize("argv, word", [
    (["solve", "falkenstein", "--a", "health=²"], "integer"),
    (["solve", "falkenstein", "--a", "health=١"], "integer"),
    (["solve", "falkenstein", "--a", "health=1_0"], "integer"),
    (["solve", "falkenstein", "-o", "max_rounds=1_0"], "integer"),
    (["solve", "falkenstein", "-o", "max_rounds=٢"], "integer"),
    (["solve", "blooded", "--a", "prowess=³"], "integer"),
    (["solve", "pathfinder", "--a", "hp=٣", *PF_SMALL[2:]], "integer"),
    (["solve", "pathfinder", "--a", "damage=1d٨", *PF_SMALL[2:]], "bad dice expression"),
    (["solve", "pathfinder", "--a", "deception=1_0:trained", *PF_SMALL[2:]], "MODIFIER:RANK"),
    (["solve", "pathfinder", "--a", "sneak=²", *PF_SMALL[2:]], "sneak"),
    (["solve", "falkenstein", *SMALL, "-o", "hidden_levels=true", "-o", "prior_a=GD:²"],
     "finite number"),
    (["solve", "falkenstein", *SMALL, "-o", "hidden_levels=true", "-o", "prior_a=GD:1_0"],
     "finite number"),
    (["odds", "falkenstein", *SMALL, "--vs", "mix=AA:٣"], "mix"),
])
def test_numbers_are_ascii_digits(capsys, argv, word):
    assert_one_line_error(argv, word, capsys)


@pytest.mark.parametrize("argv", [
    ["solve", "falkenstein", *SMALL, "--state", "round=²"],
    ["solve", "falkenstein", *SMALL, "--state", "round=1_0"],
    ["solve", "uchronia", "-o", "max_turns=2", "--state", "band=²"],
    ["solve", "uchronia", "-o", "max_turns=2", "--state", "band=١"],
    ["solve", "blooded", "-o", "max_beats=2", "--state", "beat=1_0"],
    ["solve", "blooded", "-o", "max_beats=2", "--state", "beat=" + "9" * 5000],
    ["solve", "pathfinder", *PF_SMALL, "--state", "hp_a=²"],
])
def test_state_numbers_are_ascii_digits(capsys, argv):
    assert_one_line_error(argv, "state field", capsys)


@pytest.mark.parametrize("value", [2.7, 2.0, True, "1_0", float("inf"), float("nan"), "²"])
@pytest.mark.parametrize("system, field, options", [
    ("blooded", "beat", {"max_beats": 3}),
    ("pathfinder", "hp_a", {"a": "fighter,hp=3", "b": "rogue,hp=3", "max_rounds": 1}),
    ("uchronia", "turn", {"max_turns": 3}),
    ("falkenstein", "round", {"max_rounds": 3}),
])
def test_reset_states_take_integers_only(system, field, options, value):
    env = envs.parallel_env(system, **options)
    with pytest.raises(InputError, match=f"state field {field} takes an integer"):
        env.reset(seed=0, options={"state": {field: value}})


def test_reset_states_as_named_tuples_take_integers_only():
    env = envs.parallel_env("blooded", max_beats=3)
    start = env.game.initial_outcomes()[0][1]
    for value in (True, 2.0, 2.7):
        with pytest.raises(InputError):
            env.reset(seed=0, options={"state": start._replace(beat=value)})


def test_integer_text_states_still_read(capsys):
    code, out, _ = run_cli(["solve", "falkenstein", "-o", "max_rounds=2", "--state",
                            "round=+2", "--json"], capsys)
    assert code == 0 and json.loads(out)


# -- 3. files: regular, bounded, read without blocking; --out never replaces a special file

@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _within(seconds: float, call):
    """``call()``'s result, failing the test if it takes longer than ``seconds``."""
    box = {}

    def target():
        try:
            box["out"] = call()
        except BaseException as error:  # noqa: BLE001 - raised again below
            box["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "it blocked"
    if "error" in box:
        raise box["error"]
    return box["out"]


@pytest.mark.parametrize("path, word", [
    ("", "empty"), ("/dev/zero", "not a regular file"), ("/dev/urandom", "not a regular file"),
    ("/dev/null", "not a regular file"), ("/", "a directory"), ("/nonexistent.toml", "not found"),
])
def test_a_ruleset_is_a_regular_file(capsys, path, word):
    assert_one_line_error(["solve", "falkenstein", *SMALL, "--ruleset", path], word, capsys)


def test_a_ruleset_fifo_is_refused_without_waiting(capsys, fifo):
    _within(5, lambda: assert_one_line_error(
        ["solve", "falkenstein", *SMALL, "--ruleset", str(fifo)], "a FIFO", capsys))


def test_a_ruleset_over_a_megabyte_is_refused(tmp_path, capsys):
    path = tmp_path / "big.toml"
    path.write_text("# " + "x" * 2**20 + "\n")
    assert_one_line_error(["solve", "falkenstein", *SMALL, "--ruleset", str(path)],
                          "at most 1 MB", capsys)


def test_profiles_are_regular_files(fifo):
    for path in (fifo, "/dev/zero", ""):
        with pytest.raises(InputError, match="not a regular file|empty"):
            _within(5, lambda p=path: load_profile(p))


def test_a_gzip_profile_that_inflates_too_far_is_refused(tmp_path):
    path = tmp_path / "bomb.json.gz"
    with gzip.open(path, "wb", compresslevel=9) as stream:
        stream.write(b"[" + b" " * (65 * 2**20) + b"]")
    assert path.stat().st_size < 2**20
    with pytest.raises(InputError, match="inflates to more than 64 MB"):
        validate_profile(path)


@pytest.mark.parametrize("kind", ["fifo", "symlink", "device", "directory"])
def test_out_never_replaces_a_special_file(tmp_path, fifo, kind):
    target = {"fifo": fifo, "device": "/dev/null", "directory": tmp_path}.get(kind)
    if kind == "symlink":
        real = tmp_path / "real.json"
        real.write_text("{}")
        target = tmp_path / "link.json"
        target.symlink_to(real)
    with pytest.raises(InputError, match="not a regular file|symbolic link"):
        write_json(target, {"a": 1})
    if kind == "symlink":
        assert target.is_symlink() and (tmp_path / "real.json").read_text() == "{}"
    if kind == "fifo":
        assert fifo.exists() and not fifo.is_file()


def test_out_writes_a_new_or_regular_file(tmp_path):
    for path in (tmp_path / "new.json", tmp_path / "new.json"):  # new, then replaced
        write_json(path, {"a": 1})
        assert json.loads(path.read_text()) == {"a": 1}


# -- 4. weights: finite, non-negative, not all zero, a finite sum -------------------------

def test_priors_near_float_range_keep_their_proportions(capsys):
    huge = run_cli(["solve", "falkenstein", *SMALL, "-o", "hidden_levels=true", "-o",
                    "prior_a=PR:1e308,AV:1e308", "--json"], capsys)
    plain = run_cli(["solve", "falkenstein", *SMALL, "-o", "hidden_levels=true", "-o",
                     "prior_a=PR:1,AV:1", "--json"], capsys)
    assert huge[0] == plain[0] == 0
    assert json.loads(huge[1])["value"] == pytest.approx(json.loads(plain[1])["value"],
                                                         abs=1e-12)


@pytest.mark.parametrize("prior, word", [
    ("PR:inf", "finite number"), ("PR:nan", "finite number"), ("PR:-1", "finite number"),
    ("PR:0,AV:0", "positive weight"), ("PR:1e308,PR:1e308", "finite number"),
])
def test_bad_prior_weights_are_one_line(capsys, prior, word):
    assert_one_line_error(["solve", "falkenstein", *SMALL, "-o", "hidden_levels=true", "-o",
                           f"prior_a={prior}"], word, capsys)


# -- 5. the solver API ----------------------------------------------------------------

PENNIES = [[1.0, -1.0], [-1.0, 1.0]]


@pytest.mark.parametrize("call, word", [
    (lambda: solver.solve_matrices([PENNIES], row_masks=[[np.nan, 1.0]]), "nan"),
    (lambda: solver.solve_matrices([PENNIES], row_masks=[["no", "yes"]]), "'no'"),
    (lambda: solver.solve_matrices([PENNIES], row_masks=[[2, 1]]), "0 and 1"),
    (lambda: solver.solve_matrices([PENNIES], col_masks=[[-1, 1]]), "0 and 1"),
    (lambda: solver.solve_matrices([PENNIES], row_masks=[[0.5, 1]]), "0 and 1"),
    (lambda: solver.solve_matrices([PENNIES], row_masks=[[1j, 1]]), "0 and 1"),
    (lambda: solver.solve_matrices([PENNIES], row_masks=[[True], [True, False]]),
     "rectangular"),
    (lambda: solver.solve_matrices(np.zeros((0, 0, 0))), "empty"),
    (lambda: solver.solve_matrices([PENNIES], start="x"), "pair"),
    (lambda: solver.solve_matrices([PENNIES], start=([[1, 0]], [[1], [0, 1]])), "rectangular"),
    (lambda: solver.solve_matrices([PENNIES], start=([[1, 0, 0]], [[1, 0]])), "shapes"),
    (lambda: solver.solve_matrix(PENNIES, max_entropy="no"), "True or False"),
    (lambda: solver.solve_matrices([PENNIES], max_entropy=1), "True or False"),
])
def test_bad_solver_arguments_are_input_errors(call, word):
    with pytest.raises(InputError, match=word):
        call()


def test_masks_of_zeros_and_ones_mean_what_booleans_do():
    # row 1 removed: the column player picks the column where row 0 loses, value -1
    for mask in ([[1, 0]], [[True, False]], np.array([[1, 0]], dtype=np.int8)):
        assert solver.solve_matrices([PENNIES], row_masks=mask).value[0] == -1.0


# -- 6. profiles: one key per observation, probabilities in [0, 1], finite numbers --------

@pytest.fixture(scope="module")
def profile_document():
    from agents.profiles import build_profile
    from solver.policy import UniformPolicy

    game = envs.make("falkenstein", max_rounds=1)
    return build_profile(game, UniformPolicy(), "a", metrics={})


def _write(tmp_path, document):
    path = tmp_path / "npc.json"
    path.write_text(json.dumps(document))
    return path


def _tabular(document):
    document = json.loads(json.dumps(document))
    fields = document["observation_fields"]
    key = ",".join(f"{name}=1" for name in fields)
    document["policy"] = {"kind": "tabular", "table": {key: {document["action_names"][0]: 1.0}}}
    return document, key


@pytest.mark.parametrize("spell", [
    lambda key: key.replace("=1", "=+1", 1), lambda key: key.replace("=1", "= 1", 1),
    lambda key: key.replace("=1", "=01", 1), lambda key: key.replace("=1", "=1_0", 1),
    lambda key: key.replace("=1", "=١", 1),
])
def test_an_observation_key_has_one_spelling(tmp_path, profile_document, spell):
    document, key = _tabular(profile_document)
    table = document["policy"]["table"]
    table[spell(key)] = table[key]
    with pytest.raises(InputError, match="bad observation key"):
        validate_profile(_write(tmp_path, document))


def test_two_keys_for_one_observation_are_an_error(tmp_path, profile_document):
    document, key = _tabular(profile_document)
    parts = key.split(",")
    reordered = ",".join(parts[1:] + parts[:1])
    document["policy"]["table"][reordered] = document["policy"]["table"][key]
    with pytest.raises(InputError, match="name one observation"):
        validate_profile(_write(tmp_path, document))


@pytest.mark.parametrize("metrics, word", [
    ({"against_equilibrium": {"value": 0.0, "win": 2.5, "draw": 0.0, "loss": 0.0}}, "[0, 1]"),
    ({"against_equilibrium": {"value": 0.0, "win": 0.5, "draw": -1, "loss": 0.5}}, "[0, 1]"),
    ({"game_value": 10**400}, "finite number"),
])
def test_profile_metrics_are_checked(tmp_path, profile_document, metrics, word):
    document = dict(profile_document, metrics=metrics)
    with pytest.raises(InputError, match=word.replace("[", r"\[").replace("]", r"\]")):
        validate_profile(_write(tmp_path, document))


def test_a_huge_integer_mix_weight_is_one_line(tmp_path, capsys, profile_document):
    document, key = _tabular(profile_document)
    document["policy"]["table"][key] = {document["action_names"][0]: 10**400}
    path = tmp_path / "npc.json"
    path.write_text(json.dumps(document))
    for argv in (["profile", "validate", str(path)], ["profile", "show", str(path)],
                 ["odds", "falkenstein", *SMALL, "--vs", str(path)]):
        assert_one_line_error(argv, "probability", capsys)


# -- 7. checkpoints and seeds: checked before any work ---------------------------------

@pytest.mark.parametrize("seed", [str(2**63), str(2**200), "-1", "1_0", "²"])
def test_a_seed_is_checked_before_training(tmp_path, capsys, seed):
    out = tmp_path / "npc.json"
    assert_one_line_error(["train", "falkenstein", *SMALL, "--network", "--iterations", "2",
                           "--seed", seed, "--out", str(out)], "seed", capsys)
    assert not out.exists()


def test_a_checkpoint_claiming_absurd_steps_is_refused(tmp_path):
    from selfplay_toy import ToyDuel

    from agents.selfplay import TrainConfig, train

    checkpoint = tmp_path / "run.json"
    config = {"eval_every": 0, "distill_steps": 0, "seed": 1}
    train(ToyDuel(), TrainConfig(iterations=3, checkpoint=checkpoint, **config), progress=False)
    saved = checkpoint.read_text()
    for field, value in (("step", 10**30), ("seconds", 1e300)):
        document = json.loads(saved)
        document[field] = value
        checkpoint.write_text(json.dumps(document))
        with pytest.raises(InputError, match=f"{field} must be at most"):
            train(ToyDuel(), TrainConfig(iterations=6, checkpoint=checkpoint, **config),
                  progress=False, resume=True)


# -- 8. a finished moment is not a live one ---------------------------------------------

@pytest.mark.parametrize("argv, word", [
    (["solve", "falkenstein", *SMALL, "--state", "ending=1"], "the duel is over"),
    (["solve", "falkenstein", *SMALL, "--state", "health_a=-1"], "unconscious"),
    (["solve", "pathfinder", *PF_SMALL, "--state", "hp_a=0"], "1..3"),
    (["solve", "blooded", "-o", "max_beats=2", "--state", "phase=over"], "live duel"),
    (["solve", "blooded", "-o", "max_beats=2", "--state", "ending=1"], "live duel"),
    # the ruleset's mortal rank is 5: rank 5 ends a mortal duel, rank 1 a first-blood one
    (["solve", "blooded", "-o", "max_beats=2", "--state", "inj_a=5"], "inj_a must be 0..4"),
    (["solve", "blooded", "-o", "max_beats=2", "-o", "convention=first_blood", "--state",
      "inj_b=1"], "inj_b must be 0..0"),
    (["solve", "uchronia", "-o", "max_turns=2", "--state", "ending=1"], "0..0"),
])
def test_a_finished_moment_is_refused(capsys, argv, word):
    assert_one_line_error(argv, word, capsys)


# -- 10. duel play reads bytes -----------------------------------------------------------

class _Stdin:
    def __init__(self, data: bytes):
        import io
        self.buffer = io.BytesIO(data)


@pytest.mark.parametrize("data, expected", [
    (b"\xff\xfe\n", "\ufffd\ufffd\n"),
    (b"1\n", "1\n"),
    ("é\n".encode(), "é\n"),
])
def test_an_answer_is_decoded_safely(monkeypatch, data, expected):
    monkeypatch.setattr("sys.stdin", _Stdin(data))
    assert read_answer() == expected


def test_an_overlong_answer_is_cut_and_its_rest_dropped(monkeypatch):
    monkeypatch.setattr("sys.stdin", _Stdin(b"9" * 5000 + b"\n2\n"))
    assert read_answer() == "9" * 1000
    assert read_answer() == "2\n"
    with pytest.raises(EOFError):
        read_answer()


@pytest.mark.parametrize("typed", ["\x00\x01\x02", "²", "١", "9" * 5000, "\ufffd", "1_0"])
def test_what_is_typed_at_the_prompt_is_never_a_traceback(capsys, typed):
    answers = iter([typed, "q"])
    from agents.cli import build_parser
    from agents.cli.play import run

    args = build_parser().parse_args(["play", "falkenstein", *SMALL, "--vs", "uniform",
                                      "--seed", "1"])
    assert run(args, read=lambda prompt="": next(answers)) == 0
    out = capsys.readouterr().out
    assert "is not a legal choice here" in out and "You leave the field." in out


# -- 11. a duel that would not fit is refused in words before anything is allocated ------

@pytest.mark.parametrize("command", [["solve"], ["odds", "--vs", "uniform"]])
def test_a_duel_too_large_to_solve_is_refused_in_words(capsys, command):
    # 200 hit points a side: 40,000 counter values of some 45,000 situations, whose
    # tables (8 bytes a value) are several GiB
    err = assert_one_line_error([command[0], "pathfinder", "--a", "fighter,hp=200", "--b",
                                 "fighter,hp=200", *command[1:]], "too large to solve", capsys)
    assert "GiB" in err and "40,000 counter values" in err


def test_the_room_a_solution_needs_is_counted_as_allocated():
    # the estimate is the tables' own size: 8 bytes per value and per mix entry
    from solver.counters import explore
    from solver.counters.solution import kept_cores, solution_bytes

    game = envs.make("pathfinder", a="fighter,hp=3", b="rogue,hp=2")
    graph, grid, roots = explore(game)
    kept = len(kept_cores(graph, [core for _, core, _ in roots]))
    slots = int(graph.slots["a"][-1]) + int(graph.slots["b"][-1])
    assert grid.size == 3 * 2
    assert solution_bytes(graph, grid, kept) == 8 * (kept * (grid.size + 2) + 6 * slots)


@pytest.mark.parametrize("kind", ["fifo", "symlink", "device"])
def test_train_refuses_a_special_out_before_training(tmp_path, capsys, fifo, kind):
    target = {"fifo": fifo, "device": "/dev/null"}.get(kind)
    if kind == "symlink":
        (tmp_path / "real.json").write_text("{}")
        target = tmp_path / "link.json"
        target.symlink_to(tmp_path / "real.json")
    assert_one_line_error(["train", "falkenstein", *SMALL, "--network", "--iterations", "2",
                           "--out", str(target)], "output", capsys)
    assert not (tmp_path / "link.json.ckpt").exists()


# -- last: sheets where no Strike can ever hit (an IndexError in the counter backend) ------

@pytest.mark.parametrize("max_rounds", [0, 2])
def test_a_duel_where_no_strike_can_hit_is_an_endless_draw(max_rounds):
    # attack -20 against AC 60: even a natural 20 (one step up from a critical failure)
    # misses, so no hit point is ever lost; endless play scores 0 (the specification)
    sheet = "hp=3,attack=-20,ac=60"
    game = envs.make("pathfinder", a=f"fighter,{sheet}", b=f"rogue,{sheet}",
                     max_rounds=max_rounds)
    solution = solver.solve_game(game)
    assert (solution.value, solution.win, solution.loss) == (0.0, 0.0, 0.0)
    assert solution.draw == pytest.approx(1.0, abs=1e-12)
