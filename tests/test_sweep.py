"""``duel sweep``: every cell is the duel it names, solved exactly; mirrored pairs read
from one solve equal both solved; an interrupted sweep resumes to the same file; bad
grids are refused before any work; every backend gives the same cells."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pa = pytest.importorskip("pyarrow")
import pyarrow.parquet as pq  # noqa: E402

import envs  # noqa: E402
from agents.cli import main  # noqa: E402
from agents.sweep import Grid, make_backend, parse_axis, run_sweep  # noqa: E402
from agents.sweep.backends import LocalBackend  # noqa: E402
from agents.sweep.cells import TIMING_COLUMNS, swap_sides_in_words  # noqa: E402
from envs.rulesets import load_ruleset  # noqa: E402
from solver import solve_game  # noqa: E402
from solver.errors import InputError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

#: a small sweep of each system, with pairs whose mirror is in the grid
SMALL = {
    "blooded": (["a.prowess=1,2", "b.prowess=1,2"],
                {"max_beats": "2", "convention": "first_blood"}, "sword=1", "sword=1"),
    "falkenstein": (["a.fencing=AV,GD,GR", "b.fencing=AV,GD,GR"], {"max_rounds": "2"},
                    "", ""),
    "pathfinder": (["a=fighter,hp=6;rogue,hp=6", "b=fighter,hp=6;rogue,hp=6"],
                   {"max_rounds": "1"}, "", ""),
    "uchronia": (["a=novice,fine_shot", "b=novice,fine_shot", "o.start_band=moyenne,faible"],
                 {"max_turns": "4"}, "", ""),
    "toy_dice": (["a.hp=1,2", "b.hp=1,2"], {"max_rounds": "2"}, "", ""),
}
TOL = 1e-12
#: a mix read from the mirror is the max-entropy mix of the transposed stage games, found
#: to the refinement's acceptance tolerance (solver/entropy.py: a KKT residual of 1e-10);
#: the odds it gives agree to TOL
MIRRORED_MIX_TOL = 1e-9


def small_grid(system: str) -> Grid:
    axes, options, a, b = SMALL[system]
    return Grid(system, [parse_axis(text) for text in axes], {"a": a, "b": b}, options)


def rows_of(path) -> list[dict]:
    return pq.read_table(path).to_pylist()


def without_timing(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k not in TIMING_COLUMNS} for row in rows]


@pytest.fixture(scope="module")
def small_sweeps(tmp_path_factory):
    """Each system's small sweep, solved once in this process."""
    folder = tmp_path_factory.mktemp("sweeps")
    return {system: (run_sweep(small_grid(system), folder / f"{system}.parquet",
                               LocalBackend(1), progress=False),
                     rows_of(folder / f"{system}.parquet")) for system in SMALL}


def _solved_directly(system: str, row: dict) -> dict:
    """The cell's duel made from its row as `duel solve` would and solved: its numbers."""
    game = envs.make(system, a=row["a"], b=row["b"], **json.loads(row["options"]),
                     **({"ruleset": row["ruleset"]} if row["ruleset"] else {}))
    solution = solve_game(game)
    (chance, start), = game.initial_outcomes()
    mix_a, mix_b = solution.policy(start)
    names = game.info.action_names
    return {**solution.evaluation.as_dict(),
            "opening_a": {n: float(p) for n, p in zip(names, mix_a, strict=True) if p > 0},
            "opening_b": {n: float(p) for n, p in zip(names, mix_b, strict=True) if p > 0},
            "ruleset_hash": game.info.ruleset_hash}


def _assert_same_duel(row: dict, direct: dict) -> None:
    for column in ("value", "win", "draw", "loss", "expected_length"):
        assert abs(row[column] - direct[column]) <= TOL, (column, row, direct)
    endings = json.loads(row["endings"])
    assert set(endings) == {k for k, p in direct["endings"].items()}
    for label, chance in direct["endings"].items():
        assert abs(endings[label] - chance) <= TOL, (label, row)
    mix_tol = MIRRORED_MIX_TOL if row["mirrored"] else TOL
    for side in ("opening_a", "opening_b"):
        mix = json.loads(row[side])
        for name in set(mix) | set(direct[side]):
            assert abs(mix.get(name, 0.0) - direct[side].get(name, 0.0)) <= mix_tol, (side, row)
    assert row["ruleset_hash"] == direct["ruleset_hash"]


@pytest.mark.parametrize("system", sorted(SMALL))
def test_every_cell_is_its_duel_solved(small_sweeps, system):
    summary, rows = small_sweeps[system]
    assert len(rows) == small_grid(system).size == summary.cells
    assert [row["cell"] for row in rows] == list(range(len(rows)))
    for row in rows:
        _assert_same_duel(row, _solved_directly(system, row))
    # every cell is found again in the file: asked again, the sweep solves nothing
    again = run_sweep(small_grid(system), summary.out, LocalBackend(1), progress=False)
    assert again.solved == 0 and again.reused + again.from_mirror == len(rows)


@pytest.mark.parametrize("system", ["blooded", "falkenstein", "pathfinder", "uchronia"])
def test_mirrored_pairs_are_solved_once(small_sweeps, system):
    """Each grid has pairs (x, y) and (y, x): one of them is read from the other, and
    the test above checked that cell against its own solve."""
    summary, rows = small_sweeps[system]
    mirrored = [row for row in rows if row["mirrored"]]
    assert mirrored and summary.from_mirror == len(mirrored)
    assert summary.solved == len(rows) - len(mirrored)
    for row in mirrored:
        assert row["seconds"] == 0.0


def test_a_system_not_known_symmetric_solves_both(small_sweeps):
    summary, rows = small_sweeps["toy_dice"]
    assert summary.solved == len(rows) == 4 and summary.from_mirror == 0


def test_the_row_asks_its_cell_again_on_the_command_line(small_sweeps, capsys):
    _, rows = small_sweeps["pathfinder"]
    row = next(r for r in rows if r["a"] != r["b"])
    options = [f"-o{name}={value}" for name, value in json.loads(row["options"]).items()
               if value is not None]
    assert main(["solve", "pathfinder", "--a", row["a"], "--b", row["b"], *options,
                 "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert abs(document["value"] - row["value"]) <= TOL
    assert abs(document["win"] - row["win"]) <= TOL


def test_grid_axes_read_ranges_lists_and_sheets():
    assert parse_axis("a.prowess=1..5").values == ("1", "2", "3", "4", "5")
    assert parse_axis("a.hp=10..30:10").values == ("10", "20", "30")
    assert parse_axis("b=novice,duellist,master").values == ("novice", "duellist", "master")
    assert parse_axis("b=fighter,hp=6").values == ("fighter,hp=6",)
    assert parse_axis("a=fighter,hp=6;rogue").values == ("fighter,hp=6", "rogue")
    assert parse_axis("o.max_beats=2,3").name == "max_beats"
    grid = Grid("blooded", [parse_axis("a.Prowess=1..2"), parse_axis("b=novice,master"),
                            parse_axis("a.riposte=false,true")])
    cells = grid.cells()
    assert len(cells) == 8
    assert [c.a for c in cells[:4]] == ["prowess=1", "prowess=1,riposte", "prowess=1",
                                        "prowess=1,riposte"]
    assert cells[3].b == "master" and cells[3].point == {
        "grid_a_prowess": 1, "grid_b": "master", "grid_a_riposte": True}


@pytest.mark.parametrize("system", sorted(SMALL))
def test_sheet_text_reads_back_as_the_same_sheet(system):
    spec = envs.spec(system)
    ruleset = load_ruleset(system, None, spec.ruleset_file)
    texts = [spec.examples.sheet_a, spec.examples.sheet_b, "",
             *spec.sheet.references(ruleset)]
    for text in texts:
        sheet = spec.sheet.normalise(text, "a", ruleset)
        written = spec.sheet.text(sheet, ruleset)
        assert spec.sheet.normalise(written, "a", ruleset) == sheet
    assert spec.sheet.text(spec.sheet.normalise("", "a", ruleset), ruleset) == ""


def test_endings_trade_the_sides_words():
    assert swap_sides_in_words("A knocks B out") == "B knocks A out"
    assert swap_sides_in_words("B wins: A is killed") == "A wins: B is killed"
    assert swap_sides_in_words("draw: the seconds stop the duel") == (
        "draw: the seconds stop the duel")


BAD_GRIDS = [
    (["--grid", "a.prowes=1..3"], "unknown sheet field 'prowes'"),
    (["--grid", "a.prowess=5..1"], "empty range 5..1"),
    (["--grid", "a.prowess=1..9"], "a's prowess takes integer 0..5, got 6"),
    (["--grid", "b=novice,grandmaster"], "'grandmaster'"),
    (["--grid", "o.max_beat=1,2"], "unknown option 'max_beat'"),
    (["--grid", "a.prowess=1..5", "--grid", "b.prowess=1..5", "--max-cells", "24"],
     "25 cells, more than --max-cells 24"),
    (["--grid", "a.prowess=1,1"], "given twice"),
    (["--grid", "a.prowess=1,2", "--grid", "a.prowess=3"], "given twice"),
    (["--grid", "x.prowess=1"], "bad --grid key"),
    (["--grid", "a.sword=1,,2"], "empty value"),
]


@pytest.mark.parametrize(("grid", "said"), BAD_GRIDS)
def test_bad_grids_are_refused_in_one_line_before_any_work(tmp_path, capsys, monkeypatch,
                                                          grid, said):
    def no_solving(*args):
        raise AssertionError("a cell was solved")
    monkeypatch.setattr("agents.sweep.backends.solve_cell", no_solving)
    out = tmp_path / "r.parquet"
    assert main(["sweep", "blooded", *grid, "--out", str(out), "--workers", "1"]) == 2
    error = capsys.readouterr().err
    assert said in error and error.count("\n") == 1 and error.startswith("duel sweep: error")
    assert not out.exists() and not (tmp_path / "r.parquet.parts").exists()


def test_a_profile_library_named_by_a_file_is_refused_before_any_work(tmp_path, capsys,
                                                                      monkeypatch):
    def no_solving(*args):
        raise AssertionError("a cell was solved")
    monkeypatch.setattr("agents.sweep.backends.solve_cell", no_solving)
    taken = tmp_path / "npcs.json"
    taken.write_text("{}")
    out = tmp_path / "r.parquet"
    assert main(["sweep", "falkenstein", "--grid", "a.fencing=GD,GR", "--out", str(out),
                 "--personalities", str(taken), "--workers", "1"]) == 2
    error = capsys.readouterr().err
    assert "give a folder" in error and error.count("\n") == 1
    assert not out.exists() and taken.read_text() == "{}"


def test_a_grid_with_hidden_information_is_refused_before_any_work():
    grid = Grid("falkenstein", [parse_axis("o.hidden_levels=false,true")])
    with pytest.raises(InputError, match="cell 1 .* has hidden information"):
        grid.cells()


def test_the_pool_gives_the_cells_of_one_worker(tmp_path, small_sweeps):
    run_sweep(small_grid("falkenstein"), tmp_path / "pool.parquet", LocalBackend(2),
              progress=False)
    _, one = small_sweeps["falkenstein"]
    assert without_timing(rows_of(tmp_path / "pool.parquet")) == without_timing(one)


def test_ray_gives_the_cells_of_the_local_backend(tmp_path, small_sweeps):
    pytest.importorskip("ray", reason="Ray is the optional extra duel-solver[cluster]")
    backend = make_backend("ray", workers=2, memory=512 * 1024**2)
    run_sweep(small_grid("falkenstein"), tmp_path / "ray.parquet", backend, progress=False)
    _, local = small_sweeps["falkenstein"]
    assert without_timing(rows_of(tmp_path / "ray.parquet")) == without_timing(local)


KILL_GRID = ["falkenstein", "-o", "max_rounds=3", "--grid", "a.fencing=PR,AV,GD,GR",
             "--grid", "b.fencing=PR,AV,GD,GR", "--grid", "o.edge=wall,ledge"]


def _sweep_process(out: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "agents.cli", "sweep", *KILL_GRID, "--out", str(out),
               "--workers", "1", "--batch", "1", "--quiet"]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), os.environ.get("PYTHONPATH", "")])}
    # Ctrl-C as a terminal gives it: a child inherits an ignored SIGINT, and Python then
    # raises no KeyboardInterrupt (a shell without job control starts a background
    # command, such as a test run, with SIGINT ignored)
    return subprocess.Popen(command, env=environment, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=_default_interrupt)


def _default_interrupt() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _stop_after_parts(process: subprocess.Popen, parts: Path, count: int, how) -> None:
    deadline = time.monotonic() + 120
    while len(list(parts.glob("*.parquet"))) < count:
        assert process.poll() is None, process.stderr.read().decode()
        assert time.monotonic() < deadline, "the sweep wrote no journal"
        time.sleep(0.05)
    process.send_signal(how)
    process.wait(60)


def test_a_killed_sweep_resumes_to_the_file_of_an_uninterrupted_one(tmp_path):
    out = tmp_path / "killed.parquet"
    parts = tmp_path / "killed.parquet.parts"
    interrupted = _sweep_process(out)
    _stop_after_parts(interrupted, parts, 2, signal.SIGINT)
    assert interrupted.returncode == 130 and not out.exists()
    after_interrupt = len(list(parts.glob("*.parquet")))
    killed = _sweep_process(out)
    _stop_after_parts(killed, parts, after_interrupt + 2, signal.SIGKILL)
    assert killed.returncode == -signal.SIGKILL and not out.exists()
    journaled = sum(len(pq.read_table(p)) for p in parts.glob("*.parquet"))
    assert journaled >= 4

    grid = Grid("falkenstein", [parse_axis(t) for t in KILL_GRID[4::2]], {"a": "", "b": ""},
                {"max_rounds": "3"})
    resumed = run_sweep(grid, out, LocalBackend(1), progress=False)
    assert resumed.solved + journaled + resumed.from_mirror == resumed.cells == 32
    assert not parts.exists()
    whole = run_sweep(grid, tmp_path / "whole.parquet", LocalBackend(1), progress=False)
    assert whole.solved == resumed.solved + journaled
    assert without_timing(rows_of(out)) == without_timing(rows_of(tmp_path / "whole.parquet"))
    # a finished sweep asked again solves nothing
    assert run_sweep(grid, out, LocalBackend(1), progress=False).solved == 0


def test_a_ruleset_axis_sweeps_rules_variants(tmp_path):
    easy = tmp_path / "easy.toml"
    easy.write_text("hit_on = 2\n")
    grid = Grid("toy_dice", [parse_axis(f"ruleset={easy}"), parse_axis("a.hp=1,2")],
                {"a": "", "b": ""}, {"max_rounds": "2"})
    run_sweep(grid, tmp_path / "r.parquet", LocalBackend(1), progress=False)
    rows = rows_of(tmp_path / "r.parquet")
    assert [row["ruleset"] for row in rows] == [str(easy)] * 2
    for row in rows:
        _assert_same_duel(row, _solved_directly("toy_dice", row))
    with pytest.raises(InputError, match="does not exist"):
        Grid("toy_dice", [parse_axis(f"ruleset={tmp_path / 'none.toml'}")]).cells()


def test_the_report_states_the_numbers_of_the_duels(tmp_path):
    """A toy grid whose numbers come from solving each duel directly."""
    out, report = tmp_path / "r.parquet", tmp_path / "report.md"
    grid = Grid("toy_dice", [parse_axis("a.hp=1..3"), parse_axis("b.hp=1,2"),
                             parse_axis("a.lucky=false,true")], {"a": "", "b": ""},
                {"max_rounds": "2"})
    run_sweep(grid, out, LocalBackend(1), progress=False)
    from agents.sweep.report import write_report
    write_report(out, report)
    text = report.read_text()

    def win(hp_a, hp_b, lucky=False):
        game = envs.make("toy_dice", a={"hp": hp_a, "lucky": lucky}, b={"hp": hp_b},
                         max_rounds=2)
        return 100 * solve_game(game).evaluation.win

    gains = [win(h + 1, b, lucky) - win(h, b, lucky) for h in (1, 2) for b in (1, 2)
             for lucky in (False, True)]
    assert (f"one step of a.hp changes A's chance of winning by {min(gains):+.1f} to "
            f"{max(gains):+.1f} points") in text
    row = f"| b.hp=1, a.lucky=False | {win(2, 1) - win(1, 1):+.1f} | {win(3, 1) - win(2, 1):+.1f} |"
    assert row in text
    luck = max(abs(win(h, b, True) - win(h, b)) for h in (1, 2, 3) for b in (1, 2))
    assert f"`a.lucky`: its values move A's chance of winning by at most {luck:.2f}" in text
    assert "gives sheets no cost" in text
    # hp=1 against every B of the grid is never worth more than hp=2 (the default sheet):
    # a dominated sheet, with its gaps
    def value(hp_a, hp_b):
        game = envs.make("toy_dice", a={"hp": hp_a}, b={"hp": hp_b}, max_rounds=2)
        return solve_game(game).value

    gaps = [value(2, b) - value(1, b) for b in (1, 2)]
    assert min(gaps) >= 0 and max(gaps) > 0
    assert f"| `hp=1` | `(default)` | 2 | {min(gaps):+.3f} | {max(gaps):+.3f} |" in text
    assert (tmp_path / "report_plots" / "heat_map.png").read_bytes()[:4] == b"\x89PNG"


def test_personalities_build_one_profile_per_cell_and_temperament(tmp_path):
    from agents import load_profile
    from agents.personalities import personality
    from agents.sweep.personalities import build_library, check_library_request

    grid = Grid("falkenstein", [parse_axis("a.fencing=AV,GD")], {"a": "", "b": ""},
                {"max_rounds": "2"})
    cells = grid.cells()
    names = check_library_request("falkenstein", ["cautious"])
    index = json.loads(build_library(cells, tmp_path, names, 0.5, "b",
                                     LocalBackend(1)).read_text())
    assert [(e["cell"], e["temperament"], e["side"]) for e in index["profiles"]] == [
        (0, "cautious", "b"), (1, "cautious", "b")]
    for entry, cell in zip(index["profiles"], cells, strict=True):
        game = envs.make("falkenstein", **cell.make_arguments())
        expected = personality(game, "cautious", 0.5, "b").policy
        profile = load_profile(tmp_path / entry["file"])
        (_, start), = game.initial_outcomes()
        seen, mask = game.observe(start, "b"), game.legal_mask(start, "b")
        assert abs(profile.probabilities(seen, mask)
                   - expected.probabilities(seen, mask)).max() <= TOL
    with pytest.raises(InputError, match="unknown temperament 'bold'"):
        check_library_request("falkenstein", ["bold"])


def test_progress_says_the_cells_done_and_the_time_left():
    import io

    from agents.sweep.progress import SweepProgress

    stream = io.StringIO()
    shown = SweepProgress(4, 3, stream, every=0.0)
    shown.started -= 10.0  # two cells in ten seconds: five a cell, ten for the last two
    shown.step()
    shown.step()
    assert stream.getvalue().splitlines()[-1] == (
        "sweep: 2/4 cells solved (3 done before or read from a mirror); 10 s so far, "
        "about 10 s left")
