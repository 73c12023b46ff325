"""Bad input, class by class, as a fuzz run found it (issue 7).

Every class is one parametrised test: each case is the input, what must happen (exit
code 2 with one line on stderr, or the exception type) and a word the message must
contain. Where the right outcome is an answer rather than an error, the answer is
checked against one derived independently (by hand, nashpy or scipy).
"""

from __future__ import annotations

import base64
import json
import re
import warnings

import nashpy
import numpy as np
import pytest
from toy_games import Pennies, PenniesDuel

import envs
import solver
from agents.cli import main
from agents.policies import NetworkPolicy
from agents.profiles import build_profile
from experiments.reference import linprog_value
from solver.errors import InputError
from solver.policy import MixPolicy, UniformPolicy

SMALL = ["-o", "max_rounds=1"]


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """``duel ARGV`` in-process: exit code, stdout, stderr. A traceback fails the test."""
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's own errors
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(argv: list[str], word: str, capsys) -> str:
    code, _, err = run_cli(argv, capsys)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert word.lower() in err.lower(), err
    return err


@pytest.fixture(scope="module")
def small_game():
    return envs.make("falkenstein", max_rounds=1)


# -- 1. actions that are not action indices (OverflowError on inf) -----------------------

@pytest.mark.parametrize("action", [float("inf"), float("nan"), 1e300, -float("inf"),
                                    np.float64(1.0), 1.0, True, np.bool_(False), [1], None])
@pytest.mark.parametrize("kind", ["parallel", "single"])
def test_an_action_that_is_not_an_index_is_refused(action, kind):
    if kind == "parallel":
        env = envs.parallel_env("falkenstein", max_rounds=1)
        env.reset(seed=0)
        step = lambda: env.step({"a": action, "b": 0})  # noqa: E731
    else:
        env = envs.single_env("falkenstein", max_rounds=1)
        env.reset(seed=0)
        step = lambda: env.step(action)  # noqa: E731
    with pytest.raises(InputError, match=r"not an action index; allowed: 0\.\.5"):
        step()


@pytest.mark.parametrize("action", [np.int64(5), np.array(5), 5, "RR"])
def test_integer_actions_of_any_kind_are_accepted(action):
    env = envs.parallel_env("falkenstein", max_rounds=1)
    env.reset(seed=0)
    env.step({"a": action, "b": 0})
    assert env.exchanges[-1][1] == 5  # RR is the sixth action


# -- 2. reset(options={"state": ...}) takes only a live state of this game ---------------

def _start(game):
    return game.initial_outcomes()[0][1]


@pytest.mark.parametrize("make_state,word", [
    (lambda game: None, "not a state of falkenstein"),
    (lambda game: 5, "not a state of falkenstein"),
    (lambda game: (1, 2), "not a state of falkenstein"),
    (lambda game: tuple(_start(game)), "not a state of falkenstein"),
    (lambda game: Pennies(0, 0, 0), "not a state of falkenstein"),
    (lambda game: _start(game)._replace(back_a=-3), "back_a=-3 is out of range 0..4"),
    (lambda game: _start(game)._replace(owed_a=9), "owed_a=9 is out of range"),
    (lambda game: _start(envs.make("falkenstein", max_rounds=2))._replace(round=2),
     "round=2 is out of range 1..1"),
    (lambda game: _start(game)._replace(ending=1), "ending must be 0"),
    (lambda game: {"bogus": 1}, "allowed: round, exchange"),
    (lambda game: {"round": "x"}, "takes an integer"),
])
@pytest.mark.parametrize("kind", ["parallel", "single"])
def test_a_reset_state_must_be_a_live_state_of_this_game(small_game, make_state, word, kind):
    env = (envs.parallel_env if kind == "parallel" else envs.single_env)(small_game)
    with pytest.raises(InputError, match=word.replace(".", r"\.").replace("(", r"\(")):
        env.reset(seed=0, options={"state": make_state(small_game)})


@pytest.mark.parametrize("state,word", [
    (Pennies(0, 9, 0), "outside the observation bounds"),   # score bounds are -4..4
    (Pennies(4, 0, 0), "not live"),                          # turn 4 is the end
    ("heads", "not a state of toy_pennies"),
])
def test_a_reset_state_of_a_game_without_named_states_is_checked_by_its_bounds(state, word):
    env = envs.parallel_env(PenniesDuel())
    with pytest.raises(InputError, match=word):
        env.reset(seed=0, options={"state": state})


@pytest.mark.parametrize("actions,word", [
    (None, "actions must be a dict"), ([0, 0], "actions must be a dict"),
    ({"a": 0, "b": 0, "c": 1}, "unknown agents ['c']; agents: a, b"),
])
def test_parallel_actions_must_be_a_dict_of_agents(actions, word):
    env = envs.parallel_env("falkenstein", max_rounds=1)
    env.reset(seed=0)
    with pytest.raises(InputError, match=re.escape(word)):
        env.step(actions)


@pytest.mark.parametrize("skip_forced", ["no", None, 0])
def test_skip_forced_must_be_a_bool(skip_forced):
    with pytest.raises(InputError, match="skip_forced must be True or False"):
        envs.single_env("falkenstein", max_rounds=1, skip_forced=skip_forced)


def test_reset_options_must_be_a_dict():
    env = envs.single_env("falkenstein", max_rounds=1)
    with pytest.raises(InputError, match="reset options must be a dict"):
        env.reset(seed=0, options=["state"])


def test_a_reset_state_may_be_given_by_named_fields():
    game = envs.make("falkenstein", max_rounds=2)
    env = envs.single_env(game)
    observation, _ = env.reset(seed=0, options={"state": {"round": 2, "back_a": 0}})
    # by hand: the start (round 1, exchange 1, 2 Rests owed each, 2 m behind A, Health 5,
    # average levels) moved to round 2 with A's back to the wall
    assert env.state == _start(game)._replace(round=2, back_a=0)
    assert observation["observation"][0] == 2


# -- 3. payoffs that are not real numbers (the imaginary part was dropped) ---------------

@pytest.mark.parametrize("matrix,word", [
    ([[1 + 5j, 0], [0, 1]], "complex"),
    (np.array([[1 + 5j, 0], [0, 1]]), "complex"),
    ([[True, False], [False, True]], "bool"),
    (np.array([[1, 0], [0, 1]], dtype=bool), "bool"),
    ([["1", "0"], ["0", "1"]], "'1'"),
    (np.array([[1, None], [0, 1]], dtype=object), "None"),
    (np.array([[1, "a"], [0, 1]], dtype=object), "'a'"),
    ([[1, 10**400], [0, 1]], "too large"),
])
def test_payoffs_must_be_real_numbers(matrix, word):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ComplexWarning is not an answer
        with pytest.raises(InputError, match=word):
            solver.solve_matrix(matrix)
        with pytest.raises(InputError, match=word):
            solver.solve_matrices([matrix])


# -- 4. payoffs of extreme size are solved correctly, without a warning ------------------

@pytest.mark.parametrize("matrix", [
    [[1e308, -1e308], [-1e308, 1e308]],
    [[3e307, -1e307], [-2e307, 4e307]],
    [[1.7e308, -1.7e308, 0.5e308], [-1e308, 1.5e308, -1.7e308], [0.3e308, -0.2e308, 1e307]],
    [[1e308, -1e308]],
    [[3e-320, -1e-320], [-2e-320, 4e-320]],
])
def test_payoffs_of_extreme_size_are_solved_exactly(matrix):
    a = np.asarray(matrix, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        row, col, value = solver.solve_matrix(a)
        batch = solver.solve_matrices([a])
    expected_row, expected_col = next(iter(nashpy.Game(a / np.abs(a).max())
                                           .support_enumeration()))
    assert row == pytest.approx(expected_row, abs=1e-9)
    assert col == pytest.approx(expected_col, abs=1e-9)
    reference = linprog_value(a)
    scale = np.abs(a).max()
    assert value == pytest.approx(reference, abs=1e-9 * scale)
    assert batch.value[0] == pytest.approx(reference, abs=1e-9 * scale)


# -- 5. `duel profile show` shows whatever `duel profile validate` accepts ---------------

@pytest.fixture(scope="module")
def profile_document(small_game):
    return build_profile(small_game, UniformPolicy(), "b", metrics={"exact": True})


def _write(tmp_path, document, name="p.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("metrics,word", [
    ({"exact": True, "game_value": "high"}, "metric game_value must be a finite number"),
    ({"exact": True, "game_value": float("nan")}, "finite"),
    ({"exact": True, "exploitability": float("inf")}, "finite"),
    ({"exact": "yes"}, "metric exact must be bool"),
    ({"against_equilibrium": {"win": 1}}, "value, win, draw, loss"),
    ({"situations": [{"name": "x"}]}, "situations[0]"),
    ({"situations": [{"name": "x", "text": "y", "reach": 1, "frequencies": {"ZZ": 1},
                      "most_frequent": "AA"}]}, "must be an action"),
    ({"exploit": "everything"}, "must be a list"),
    ({"speed": 3}, "unknown metric 'speed'; allowed: exact"),
])
def test_profile_validate_refuses_what_show_could_not_print(tmp_path, capsys,
                                                            profile_document, metrics, word):
    path = _write(tmp_path, dict(profile_document, metrics=metrics))
    for action in ("validate", "show"):
        assert_one_line_error(["profile", action, path], word, capsys)


@pytest.mark.parametrize("metrics", [{"exact": True}, {"exact": True, "game_value": 0.5},
                                     {}, {"exact": False}])
def test_profile_show_prints_a_missing_metric_as_not_measured(tmp_path, capsys,
                                                              profile_document, metrics):
    path = _write(tmp_path, dict(profile_document, metrics=metrics))
    assert run_cli(["profile", "validate", path], capsys)[0] == 0
    code, out, err = run_cli(["profile", "show", path], capsys)
    assert code == 0, err
    if metrics.get("exact"):
        assert re.search(r"exploitability \(value lost\) +not measured", out), out
    if "game_value" in metrics:
        assert "+0.5000" in out


# -- 6. malformed rulesets through the CLI -----------------------------------------------

@pytest.mark.parametrize("text,word", [
    ("weapons = 5\n", "weapons: expected a table, got 5"),
    ("max_rounds = \"3\"\n", "max_rounds: expected an integer"),
    ("nosuch = 1\n", "unknown ruleset key 'nosuch'; allowed: abilities"),
    ("max_rounds = nan\n", "got nan"),
    ("max_rounds = inf\n", "got inf"),
    ("max_rounds = 99999999999999999999\n", "1..1000"),
    ("[weapons.rapier]\nwounds = [1, \"x\", 3]\n", "weapons.rapier.wounds[1]"),
    ("[weapons.rapier]\nwounds = [4, 5]\n", "list of 3 integers"),
    ("[weapons.rapier]\nsize = nan\n", "expected a word"),
    ("[weapons.newsword]\nwounds = [1, 2, 3]\n", "allowed: cane, court_sword"),
    ("health = 5\n", "health: expected a table"),
    ("[health]\nPR = []\n", "list of 6 integers"),
    ("[rests_required]\nPR = -1\n", "0..6"),
    ("[prior]\nGD = -1\n", "finite number >= 0"),
    ("[damage]\ngrid = [[1]]\n", "6 rows of 6"),
    ("[damage.by_difference]\n\"0\" = \"XX/YY\"\n", "letters R, BP"),
    ("[disciplines]\nfencing = 3\n", "disciplines.fencing: expected a table"),
    ("[disciplines.fencing]\nconventions = []\n", "at least one of first_blood"),
    ("[disciplines.fencing]\nwounds = \"lots\"\n", "allowed: weapon, blow, none"),
    ("edge = \"abyss\"\n", "allowed: wall, ledge"),
    ("x = \n", "not valid TOML"),
])
def test_a_malformed_ruleset_is_one_line(tmp_path, capsys, text, word):
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    assert_one_line_error(["solve", "falkenstein", "--ruleset", str(path), *SMALL], word,
                          capsys)


def test_an_empty_ruleset_table_overrides_nothing(tmp_path, capsys):
    path = tmp_path / "empty.toml"
    path.write_text("[weapons]\n[health]\n", encoding="utf-8")
    with_file = run_cli(["solve", "falkenstein", "--ruleset", str(path), *SMALL, "--json"],
                        capsys)
    without = run_cli(["solve", "falkenstein", *SMALL, "--json"], capsys)
    assert with_file[0] == without[0] == 0
    assert json.loads(with_file[1])["value"] == json.loads(without[1])["value"]


# -- 7. deep nesting is an error, not a RecursionError traceback --------------------------

@pytest.mark.parametrize("kind,text", [
    ("json", "[" * 100_000 + "]" * 100_000),
    ("json", '{"a":' * 50_000 + "1" + "}" * 50_000),
    ("json", '{"schema": "duel-profile/1", "x": ' + "[" * 40 + "]" * 40 + "}"),
    ("toml", "a = " + "[" * 5000 + "]" * 5000 + "\n"),
    ("toml", "[" + ".".join(["x"] * 3000) + "]\n"),
])
def test_deep_nesting_is_refused(tmp_path, capsys, kind, text):
    path = tmp_path / f"deep.{kind}"
    path.write_text(text, encoding="utf-8")
    argv = (["profile", "validate", str(path)] if kind == "json"
            else ["solve", "falkenstein", "--ruleset", str(path), *SMALL])
    assert_one_line_error(argv, "nested", capsys)


# -- 8. a network profile with non-finite weights is refused at validation ---------------

def _network_document(small_game, change) -> dict:
    policy = NetworkPolicy.for_game(small_game, hidden=(4,))
    document = build_profile(small_game, policy, "b", tabular=False)
    change(document["policy"]["network"])
    return document


def _poison(value: float):
    def change(spec):
        entry = spec["weights"]["body.0.weight"]
        raw = np.frombuffer(base64.b64decode(entry["data"]), dtype="<f4").copy()
        raw[3] = value
        entry["data"] = base64.b64encode(raw.astype("<f4").tobytes()).decode("ascii")
    return change


@pytest.mark.parametrize("change,word", [
    (_poison(float("nan")), "not finite"),
    (_poison(float("inf")), "not finite"),
    (_poison(-float("inf")), "not finite"),
    (lambda spec: spec.update(hidden=[10**9]), "hidden must hold integers 1..4096"),
    (lambda spec: spec.update(hidden=[0]), "hidden must hold integers"),
    (lambda spec: spec.update(observation_low=["x"] * len(spec["observation_low"])),
     "malformed network spec"),
    (lambda spec: spec.update(observation_high=[float("nan")] * len(spec["observation_low"])),
     "NaN is not a number JSON allows"),
])
def test_a_broken_network_profile_is_refused(tmp_path, capsys, small_game, change, word):
    path = _write(tmp_path, _network_document(small_game, change))
    for action in ("validate", "show"):
        assert_one_line_error(["profile", action, path], word, capsys)
    assert_one_line_error(["odds", "falkenstein", *SMALL, "--side", "a", "--vs", path],
                          word, capsys)


# -- 9. malformed sheets on the command line -----------------------------------------------

@pytest.mark.parametrize("sheet,word", [
    ("fencing=", "bad sheet entry 'fencing='"),
    ("=GD", "bad sheet entry '=GD'"),
    ("bogus", "allowed: fields fencing"),
    ("fencing=ZZ", "allowed: PR, AV"),
    ("health=99999999999999999999", "integer 0..99"),
    ("health=1e3", "integer 0..99"),
    ("health=²", "integer 0..99"),
    ("health=٣", "integer 0..99"),
    ("fencing=GD,fencing=GR", "given twice"),
    ("Fencing=GD,fencing=GR", "given twice"),
    ("fencing=GD,nom=Élodie", "unknown entry 'nom'"),
])
def test_a_malformed_sheet_is_one_line(capsys, sheet, word):
    assert_one_line_error(["solve", "falkenstein", *SMALL, "--a", sheet], word, capsys)


# -- 10. malformed options on the command line ---------------------------------------------

@pytest.mark.parametrize("option,word", [
    ("max_rounds=1e9", "integer 1..1000"),
    ("max_rounds=999999999999999999", "integer 1..1000"),
    ("max_rounds=²", "integer 1..1000"),
    ("prior_a=GD:-1", "finite number >= 0"),
    ("prior_a=GD:nan", "finite number >= 0"),
    ("prior_a=GD:1e400", "finite number >= 0"),
    ("prior_a=ZZ:1", "allowed: PR, AV"),
    ("edge=", "allowed: wall, ledge"),
    ("edge", "expected KEY=VALUE"),
    ("=3", "expected KEY=VALUE"),
    ("bogus=1", "allowed: convention, max_rounds"),
    ("hidden_levels=maybe", "true|false"),
])
def test_a_malformed_option_is_one_line(capsys, option, word):
    assert_one_line_error(["solve", "falkenstein", "-o", option], word, capsys)


# -- 11. malformed --state -------------------------------------------------------------------

@pytest.mark.parametrize("state,word", [
    ("round=-1", "round=-1 is out of range 1..1"),
    ("round=99999999999999999999999", "out of range 1..1"),
    ("bogus=1", "allowed: round, exchange"),
    ("round=x", "takes an integer"),
    ("round=1.5", "takes an integer"),
    ("round=²", "takes an integer"),
    ("round", "expected KEY=VALUE"),
    ("round=1,round=1", "given twice"),
    ("back_a=-3", "back_a=-3 is out of range 0..4"),
    ("owed_a=9", "owed_a=9 is out of range"),
    ("level_a=ZZ", "allowed: PR (Poor)"),
    ("ending=1", "ending must be 0"),
    ("exchange=0", "exchange=0 is out of range 1..3"),
])
def test_a_malformed_state_is_one_line(capsys, state, word):
    assert_one_line_error(["solve", "falkenstein", *SMALL, "--state", state], word, capsys)


# -- 12. --vs: a typo lists every accepted form ----------------------------------------------

@pytest.mark.parametrize("command", ["odds", "play"])
@pytest.mark.parametrize("vs,word", [
    ("equilbrium", "did you mean 'equilibrium'"),
    ("unifrom", "did you mean 'uniform'"),
    ("AA:1", "unknown opponent 'AA:1'"),
    ("", "unknown opponent ''"),
    ("mix=ZZ:1", "allowed: AA, AD"),
    ("mix=AA:nan", "finite number >= 0"),
    ("mix=AA:1e400", "finite number >= 0"),
    ("nosuch.json", "not found"),
])
def test_a_bad_opponent_lists_the_accepted_forms(capsys, command, vs, word):
    err = assert_one_line_error([command, "falkenstein", *SMALL, "--vs", vs], word, capsys)
    if "unknown opponent" in err:
        for form in ("uniform", "equilibrium", "mix=ACTION:WEIGHT", "profile file"):
            assert form in err


# -- 13. numbers that are not seeds or counts ------------------------------------------------

@pytest.mark.parametrize("argv,word", [
    (["play", "falkenstein", *SMALL, "--vs", "uniform", "--seed", "-1"], "--seed"),
    (["odds", "falkenstein", *SMALL, "--vs", "uniform", "--limit", "-1"], "--limit"),
    (["dice", "d20", "--dc", "x"], "expected an integer"),
    (["dice", "99999999d6"], "at most 1000"),
    (["dice", "d20+99999999999999999999"], "too large"),
    (["dice", "4d6kh3"], "bad dice expression"),
    (["dice", "((1d6))"], "bad dice expression"),
])
def test_a_bad_number_is_one_line(capsys, argv, word):
    assert_one_line_error(argv, word, capsys)


# -- 14. envs.make with wrong types for every option -----------------------------------------

@pytest.mark.parametrize("options,error,word", [
    ({"max_rounds": 1.5}, InputError, "integer 1..1000"),
    ({"max_rounds": True}, InputError, "integer 1..1000"),
    ({"max_rounds": []}, InputError, "integer 1..1000"),
    ({"max_rounds": float("nan")}, InputError, "integer 1..1000"),
    ({"field_m": b"4"}, InputError, "integer 2..12"),
    ({"field_m": 1j}, InputError, "integer 2..12"),
    ({"edge": ["wall"]}, InputError, "allowed: wall, ledge"),
    ({"hidden_levels": 2}, InputError, "true|false"),
    ({"hidden_levels": True, "prior_a": {"GD": 10**400}}, InputError, "finite number"),
    ({"hidden_levels": True, "prior_a": {"GD": True}}, InputError, "finite number"),
    ({"prior_a": [("GD", 1)]}, InputError, "weights"),
    ({"convention": 0}, InputError, "allowed: first_blood"),
    ({"discipline": 3}, InputError, "allowed: fencing"),
    ({"a": 5}, InputError, "sheet a must be a mapping"),
    ({"a": {"health": 1.5}}, InputError, "integer 0..99"),
    ({"a": {"name": 5}}, InputError, "takes text"),
    ({"ruleset": 5}, InputError, "TOML file path or a table"),
    ({"ruleset": {"weapons": 5}}, InputError, "expected a table"),
    ({"bogus": 1}, InputError, "allowed: convention"),
])
def test_envs_make_refuses_wrong_types(options, error, word):
    with pytest.raises(error, match=word.replace("|", r"\|").replace(".", r"\.")):
        envs.make("falkenstein", **{"max_rounds": 1, **options})


@pytest.mark.parametrize("options", [
    {"max_rounds": np.int64(1)}, {"max_rounds": np.float64(1.0)}, {"max_rounds": "1"},
    {"max_rounds": 1, "hidden_levels": np.bool_(False)}, {"max_rounds": 1, "field_m": 6.0},
])
def test_envs_make_accepts_numpy_and_text_values(options, small_game):
    assert envs.make("falkenstein", **options).info.options == small_game.info.options


# -- 15. the solver's other entry points ---------------------------------------------------

@pytest.mark.parametrize("call,word", [
    (lambda: solver.solve_matrices([[[1, 2], [3]]]), "ragged rows"),
    (lambda: solver.solve_matrices([[]]), "empty"),
    (lambda: solver.solve_matrices(np.zeros((2, 0, 3))), "empty"),
    (lambda: solver.solve_matrices([[[float("nan"), 1], [1, 2]]]), "non-finite payoff nan"),
    (lambda: solver.solve_matrices(np.ones((2, 2, 2)), row_masks=np.ones((3, 2))),
     "row_masks has shape"),
    (lambda: solver.solve_matrices("abc"), "'abc'"),
    (lambda: solver.best_response(envs.make("falkenstein", max_rounds=1),
                                  UniformPolicy(), "c"), "allowed: a, b"),
    (lambda: solver.best_response(envs.make("falkenstein", max_rounds=1),
                                  UniformPolicy(), None), "allowed: a, b"),
    (lambda: solver.exploitability(envs.make("falkenstein", max_rounds=1), 5, "uniform"),
     "unknown policy 5"),
    (lambda: solver.evaluate(envs.make("falkenstein", max_rounds=1), "equilbrium",
                             "uniform"), "did you mean 'equilibrium'"),
])
def test_solver_entry_points_refuse_bad_input(call, word):
    with pytest.raises(InputError, match=word):
        call()


# -- 16. policy names are accepted wherever a policy is -------------------------------------

@pytest.mark.parametrize("name_a,name_b,policy_a,policy_b", [
    ("uniform", "uniform", UniformPolicy(), UniformPolicy()),
    ("mix=AA:1", "uniform", "AA", UniformPolicy()),
    ("uniform", "mix=DD:1,RR:3", UniformPolicy(), "DD:0.25,RR:0.75"),
])
def test_policy_names_are_policies_in_the_solver(small_game, name_a, name_b, policy_a,
                                                 policy_b):
    def policy(spec):
        if not isinstance(spec, str):
            return spec
        weights = {part.split(":")[0]: float(part.split(":")[1]) if ":" in part else 1.0
                   for part in spec.split(",")}
        return MixPolicy(weights, small_game.info.action_names)

    by_name = solver.exploitability(small_game, name_a, name_b)
    by_object = solver.exploitability(small_game, policy(policy_a), policy(policy_b))
    assert by_name.value == pytest.approx(by_object.value, abs=1e-12)
    assert by_name.pair_value == pytest.approx(by_object.pair_value, abs=1e-12)
    response = solver.best_response(small_game, name_b, "a")
    assert response.value == pytest.approx(
        solver.best_response(small_game, policy(policy_b), "a").value, abs=1e-12)


def test_the_equilibrium_by_name_is_unexploitable(small_game):
    assert solver.exploitability(small_game, "equilibrium", "equilibrium").value \
        == pytest.approx(0, abs=1e-9)


# -- 17. mix weights near the float limit are a mix, not silently uniform -------------------

@pytest.mark.parametrize("huge,plain", [
    ({"AA": 1e308, "DD": 1e308}, {"AA": 1, "DD": 1}),
    ({"AA": 1.5e308, "DD": 0.5e308}, {"AA": 3, "DD": 1}),
])
def test_huge_mix_weights_keep_their_proportions(small_game, huge, plain):
    names = small_game.info.action_names
    assert MixPolicy(huge, names).weights == pytest.approx(MixPolicy(plain, names).weights)
    text = "mix=" + ",".join(f"{k}:{v!r}" for k, v in huge.items())
    assert MixPolicy.parse(text, names).weights == pytest.approx(
        MixPolicy(plain, names).weights)


def test_huge_mix_weights_on_the_command_line(capsys):
    huge = run_cli(["odds", "falkenstein", *SMALL, "--vs", "mix=AA:1e308,DD:1e308",
                    "--json"], capsys)
    plain = run_cli(["odds", "falkenstein", *SMALL, "--vs", "mix=AA:1,DD:1", "--json"],
                    capsys)
    assert huge[0] == plain[0] == 0
    assert json.loads(huge[1])["best_response"] == json.loads(plain[1])["best_response"]


def test_an_action_named_twice_in_a_mix_is_refused(small_game, capsys):
    # it added up ("AA:1,AA:2" weighed AA 3) without a word
    with pytest.raises(InputError, match="AA is named twice"):
        MixPolicy.parse("mix=AA:1,DD:1,AA:2", small_game.info.action_names)
    assert_one_line_error(["odds", "falkenstein", *SMALL, "--vs", "mix=AA,AA"],
                          "named twice", capsys)
