"""experiments/bench_questions.py on its tiny duels: each question asked cold and warm
in fresh processes, the trained profile made off the clock, one table of p50/p95/max."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def bench(*argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(ROOT / "experiments" / "bench_questions.py"),
                           "--quick", "--timeout", "300", *argv], env=env, check=True,
                          capture_output=True, text=True, timeout=900)


def test_a_question_against_a_trained_profile_is_timed_cold_and_warm():
    document = json.loads(bench("--only", "trained profile", "--json").stdout)
    (row,) = document["questions"]
    assert row["question"] == "falkenstein: odds vs trained profile"
    for when in ("cold", "warm"):
        assert row[when]["status"] == "ok", row[when]["error"]
        assert 0 < row[when]["seconds"] < 300
        assert row[when]["peak_mb"] > 20   # a Python process with numpy loaded
        assert document["summary"][f"{when} seconds"]["max"] == row[when]["seconds"]


def test_the_table_has_every_question_and_the_percentiles():
    questions, *_, met = bench("--only", "uchronia: solve").stdout.strip().split("\n\n")
    lines = questions.splitlines()
    assert lines[0].split() == ["question", "cold", "s", "warm", "s", "cold", "MB", "warm",
                                "MB", "status"]
    assert any(line.startswith("uchronia: solve") and line.endswith("ok") for line in lines)
    assert [line.split()[0] for line in lines[-3:]] == ["p50", "p95", "max"]
    # then the issue's targets that these questions measure
    assert met.splitlines()[0].split() == ["target", "measured", "limit", "met"]
    assert any(line.startswith("warm: max s") for line in met.splitlines())


def test_the_full_list_asks_every_kind_of_question_on_every_system():
    sys.path.insert(0, str(ROOT / "experiments"))
    import bench_questions as bench_module
    listed = bench_module.questions(bench_module.DUELS, bench_module.EVERY_QUESTION,
                                    {s: Path(f"{s}.json") for s in bench_module.TRAINING})
    assert len(listed) >= 24
    for system in ("falkenstein", "blooded", "pathfinder", "uchronia"):
        kinds = {q.label.split(": ", 1)[1].split(" vs ")[0] + (
            " vs profile" if "profile" in q.label and q.argv[0] == "odds" else "")
            for q in listed if q.label.startswith(system)}
        assert {"solve", "odds", "odds vs profile", "play, first step",
                "profile show"} <= kinds, (system, kinds)


def test_a_bad_input_is_timed_to_its_one_line_error():
    document = json.loads(bench("--only", "refused", "--json").stdout)
    assert document["questions"] == []
    (row,) = document["at_once"]
    assert row["status"] == "exit 2"
    assert row["error"].startswith("duel odds: error: unknown opponent 'nosuchthing'")
    assert 0 < row["seconds"] < 300


def test_every_listed_bad_input_is_refused_in_one_line():
    sys.path.insert(0, str(ROOT / "experiments"))
    import bench_questions as bench_module
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for question in bench_module.refusals(bench_module.REFUSED):
        done = subprocess.run([sys.executable, "-m", "agents.cli", *question.argv], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 2, (question.label, done.stderr[-2000:])
        assert len(done.stderr.strip().splitlines()) == 1, (question.label, done.stderr)


def test_help_and_dice_are_timed_and_answered():
    document = json.loads(bench("--only", "at once", "--json").stdout)
    rows = {row["question"]: row for row in document["at_once"]}
    assert set(rows) == {"at once: duel --help", "at once: duel solve --help",
                         "at once: duel dice, 2d6+3 at least 10",
                         "at once: duel dice, 1d20+7 vs 1d20+5"}
    assert {row["status"] for row in rows.values()} == {"ok"}


def test_each_profile_is_trained_on_a_duel_with_the_action_list_it_is_asked_in():
    sys.path.insert(0, str(ROOT / "experiments"))
    import bench_questions as bench_module

    import envs

    def game(argv):
        pairs = list(zip(argv[::2], argv[1::2], strict=True))
        sheets = {flag: value for flag, value in pairs if flag in ("--a", "--b")}
        return sheets, dict(value.split("=", 1) for flag, value in pairs if flag == "-o")

    for duel in bench_module.EVERY_QUESTION:
        system = bench_module.system_of(duel)
        a, b, options, _ = bench_module.DUELS[duel]
        asked = envs.make(system, a=a, b=b, **dict(o.split("=", 1) for o in options))
        named, trained_options = game(bench_module.TRAINING[system])
        trained = envs.make(system, a=named["--a"], b=named["--b"], **trained_options)
        assert trained.info.action_names == asked.info.action_names, duel


def test_a_cold_question_asked_three_times_keeps_its_median_run():
    document = json.loads(bench("--only", "uchronia: solve", "--repeats", "3", "--json").stdout)
    (row,) = document["questions"]
    runs = row["cold"]["runs"]
    assert len(runs) == 3 and all(seconds > 0 for seconds in runs)
    assert row["cold"]["seconds"] == sorted(runs)[1]


def test_a_failed_run_is_shown_whatever_the_others_took():
    sys.path.insert(0, str(ROOT / "experiments"))
    import bench_questions as bench_module
    ok = {"seconds": 1.0, "peak_mb": 50.0, "status": "ok", "error": ""}
    failed = {"seconds": 0.2, "peak_mb": 40.0, "status": "exit 1", "error": "boom"}
    shown = bench_module.median_run([dict(ok, seconds=3.0), failed, ok])
    assert (shown["status"], shown["error"], shown["runs"]) == ("exit 1", "boom", [3.0, 0.2, 1.0])
    assert bench_module.median_run([dict(ok, seconds=2.0), ok])["seconds"] == 2.0


def test_the_issues_targets_are_judged_on_their_own_questions():
    sys.path.insert(0, str(ROOT / "experiments"))
    import bench_questions as bench_module

    def row(question, cold, warm=0.2, peak=100.0, status="ok"):
        return {"question": question, "cold": {"seconds": cold, "peak_mb": peak,
                                               "status": status},
                "warm": {"seconds": warm, "peak_mb": peak, "status": status}}
    # 21 questions on reference sheets, 1..21 s: numpy's p95 (linear) is 1 + 0.95 * 20 = 20
    rows = [row(f"falkenstein: q{k}", float(k)) for k in range(1, 22)]
    rows += [row("blooded maneuvers: solve", 50.0, peak=5000.0),   # only in max and memory
             row("pathfinder 5: solve", 25.0, warm=1.5),
             row("pathfinder 5: odds vs bully:0.5", 0.3, status="exit 2"),
             row("pathfinder 10: solve", 0.3, status="exit 2")]
    at_once = [{"seconds": 0.3}, {"seconds": 0.45}]
    found = {t["target"]: t for t in bench_module.targets(rows, at_once)}
    assert found["bad input, help and dice: max s"]["measured"] == 0.45
    assert found["warm: max s"]["measured"] == 1.5 and not found["warm: max s"]["met"]
    reference = found["cold, default or reference sheets: p95 s"]
    assert (reference["measured"], reference["questions"], reference["met"]) == (20.0, 21, False)
    level5 = found["cold, pathfinder 5: max s"]
    assert (level5["measured"], level5["met"], level5["refused"]) == (25.0, True, 1)
    level10 = found["cold, pathfinder 10: max s"]   # refused: nothing timed
    assert (level10["measured"], level10["met"], level10["refused"]) == (None, None, 1)
    memory = found["peak memory: max MB"]
    assert (memory["measured"], memory["met"], memory["refused"]) == (5000.0, False, 2)
    said = bench_module.targets_table(list(found.values())).splitlines()
    assert said[5].endswith("yes (1 refused up front)") and said[6].endswith("refused up front")


def test_each_questions_answers_are_gone_before_the_next_is_asked(tmp_path, monkeypatch):
    """Level 5's answers take gigabytes a run: kept to the end, they filled the disk and
    a later question's answers were not kept. Each question's stores go once it is
    measured, on both trees, cold and warm."""
    sys.path.insert(0, str(ROOT / "experiments"))
    import bench_questions as bench_module
    left_over = []

    def asked(argv, env, stdin, timeout):
        left_over.append(sorted(p.name for p in tmp_path.glob("store-*-0-*")))
        store = Path(env["DUEL_CACHE_DIR"])
        store.mkdir(exist_ok=True)
        (store / f"answer of {argv[1]}").write_bytes(b"x")
        return {"seconds": 1.0, "keeping": 0.0, "peak_mb": 40.0, "status": "ok", "error": ""}

    monkeypatch.setattr(bench_module, "run_once", asked)
    listed = [bench_module.Question("first", ["solve", "0"]),
              bench_module.Question("second", ["solve", "1"])]
    rows = bench_module.measure(listed, tmp_path, 60.0, tmp_path / "older tree", 2)
    assert [row["question"] for row in rows] == ["first", "second"]
    # the first question's stores are there while it is asked; the second's runs (2 cold
    # and 2 warm on each tree) find none of them
    assert left_over[7] == ["store-baseline-0-0", "store-baseline-0-1", "store-now-0-0",
                            "store-now-0-1"]
    assert left_over[8:] == [[]] * 8
    assert not list(tmp_path.glob("store-*"))


def test_warm_is_the_median_of_as_many_runs_as_cold(tmp_path, monkeypatch):
    """One busy moment doubled a warm answer of 0.7 s (the only run asked): warm is asked
    as many times as cold, each reading the last cold run's store, and the median kept."""
    sys.path.insert(0, str(ROOT / "experiments"))
    import bench_questions as bench_module
    seconds = iter([9.0, 8.0, 7.0, 0.3, 2.2, 0.4])   # 3 cold, then 3 warm
    stores = []

    def asked(argv, env, stdin, timeout):
        stores.append(Path(env["DUEL_CACHE_DIR"]).name)
        return {"seconds": next(seconds), "keeping": 0.0, "peak_mb": 40.0, "status": "ok",
                "error": ""}

    monkeypatch.setattr(bench_module, "run_once", asked)
    (row,) = bench_module.measure([bench_module.Question("q", ["solve", "x"])], tmp_path,
                                  60.0, None, 3)
    assert (row["cold"]["seconds"], row["cold"]["runs"]) == (8.0, [9.0, 8.0, 7.0])
    assert (row["warm"]["seconds"], row["warm"]["runs"]) == (0.4, [0.3, 2.2, 0.4])
    assert stores == ["store-now-0-0", "store-now-0-1", "store-now-0-2"] + [
        "store-now-0-2"] * 3


def test_a_warning_of_a_successful_run_is_kept_and_said(tmp_path, monkeypatch, capsys):
    """An answer the store could not keep is asked cold again when asked warm; the run
    still exits 0. Its warning is kept with the run (``--json``) and said once."""
    sys.path.insert(0, str(ROOT / "experiments"))
    import bench_questions as bench_module
    kept = "duel: warning: the answer could not be kept (disk full)"
    said = iter([[], [kept], [], [kept], [kept], []])   # 3 cold, then 3 warm

    def asked(argv, env, stdin, timeout):
        return {"seconds": 1.0, "keeping": 0.0, "peak_mb": 40.0, "status": "ok",
                "error": "", "warnings": next(said)}

    monkeypatch.setattr(bench_module, "run_once", asked)
    (row,) = bench_module.measure([bench_module.Question("q", ["solve", "x"])], tmp_path,
                                  60.0, None, 3)
    assert row["cold"]["warnings"] == row["warm"]["warnings"] == [kept]
    assert capsys.readouterr().err.count(kept) == 1


def test_run_once_keeps_the_warnings_of_a_run_that_succeeds(tmp_path):
    """A real process: a profile made for other options is read with a warning, exit 0."""
    sys.path.insert(0, str(ROOT / "experiments"))
    import bench_questions as bench_module
    profile = tmp_path / "p.json"
    subprocess.run([sys.executable, "-m", "agents.cli", "train", "falkenstein", "--a",
                    "fencing=GR", "--b", "fencing=GD", "-o", "max_rounds=1", "--personality",
                    "aggressive", "--out", str(profile)], check=True, capture_output=True,
                   cwd=ROOT, env=dict(os.environ, DUEL_CACHE_DIR=str(tmp_path / "s")))
    done = bench_module.run_once(["odds", "falkenstein", "-o", "max_rounds=2", "--vs",
                                  str(profile)],
                                 bench_module.environment(tmp_path / "store"), "", 300)
    assert done["status"] == "ok"
    assert any("was made for other options" in line for line in done["warnings"])
