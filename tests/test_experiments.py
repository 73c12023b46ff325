"""Every experiment script runs to the end on tiny arguments (a few seconds each, in a
fresh interpreter), writing only to a temporary folder, never into the repository: so a
change that breaks a research table or a benchmark shows up here, not months later."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments"
#: each takes seconds alone; the bound is for a loaded machine (once, 143 s in a full run)
SECONDS = 300

#: script -> arguments that make it finish in seconds ("{out}": the temporary folder)
TINY = {
    "bench_blooded": ["--cases", "default", "--default-beats", "1", "--baseline-seconds",
                      "0.5", "--baseline-beats", "1", "--json"],
    # fighter against rogue to knockout at 1 HP each: the smallest duel with counters
    "bench_counter_play": ["--hp", "1"],
    "bench_falkenstein": ["--repeats", "1", "--max-rounds", "1", "--json"],
    "bench_hidden": ["--target", "0.05", "--step", "5", "--json"],
    # one question, asked cold and warm in two fresh processes
    "bench_questions": ["--quick", "--only", "uchronia: solve", "--timeout", "300"],
    "bench_matrix": ["--games", "40", "--degenerate", "20", "--nashpy", "5", "--repeats", "1",
                     "--json"],
    "bench_pathfinder": ["--cases", "one", "--baseline-seconds", "0.5", "--json"],
    "bench_sums": ["--hp", "2", "--repeats", "1", "--json"],
    "bench_sweep": ["--system", "falkenstein", "--json"],
    "bench_web": ["--quick", "--json"],
    "hidden_sizes": ["uchronia"],
    "bench_selfplay": ["--minutes", "0.005", "--duels", "GD-GD", "--es-probe", "0", "--out",
                       "{out}", "--json"],
    "bench_uchronia": ["--cases", "default", "--repeats", "1", "--max-turns", "2",
                       "--max-rounds", "2", "--json"],
    "blooded_wagers": ["--max-beats", "1", "--pools", "2", "--out", "{out}", "--json"],
    "bluffing": ["--out", "{out}", "--json"],
    "falkenstein_movement": ["--max-rounds", "1", "--out", "{out}", "--json"],
    "falkenstein_pairings": ["--max-rounds", "1", "--out", "{out}", "--json"],
    "pathfinder_plans": ["--quick", "--json"],
    "pathfinder_readings": ["--hp", "2", "--json"],
    "readings_blooded": ["--quick", "--json"],
    "readings_blooded_pool": ["--quick", "--json"],
    "readings_uchronia": ["--quick", "--json"],
    "pathfinder_initiative": ["--max-rounds", "1", "--out", "{out}", "--json"],
    "selfplay_blooded": ["--max-beats", "1", "--minutes", "0.005", "--eval-every", "100",
                         "--json"],
    "selfplay_curves": ["--minutes", "0.005", "--systems", "falkenstein", "-o", "max_rounds=1",
                        "--out", "{out}", "--json"],
    "selfplay_hidden": ["--minutes", "0.005", "--out", "{out}", "--json"],
    "selfplay_pathfinder": ["--a", "fighter,hp=1", "--b", "rogue,hp=1", "--victory",
                            "first_blood", "--minutes", "0.005", "--eval-every", "100", "--json"],
    "uchronia_noisy_duel": ["--max-turns", "2", "--out", "{out}", "--json"],
}


def scripts() -> set[str]:
    """The runnable scripts of experiments/ (the others are modules they share)."""
    return {path.stem for path in EXPERIMENTS.glob("*.py")
            if 'if __name__ == "__main__":' in path.read_text("utf-8")}


def _written(folder: Path) -> set[Path]:
    return set(folder.rglob("*")) if folder.exists() else set()


def test_every_script_has_tiny_arguments():
    assert scripts() == set(TINY)


#: the scripts that compare with OpenSpiel, the optional extra `.[bench]`, and the modules
#: each imports from it (Deep CFR also needs dm-tree, which a bare open-spiel lacks)
NEEDS_OPENSPIEL = {"bench_hidden": ("pyspiel",), "bench_selfplay": ("pyspiel",),
                   "selfplay_hidden": ("pyspiel", "tree")}


@pytest.mark.parametrize("name", sorted(TINY))
def test_script_runs_on_tiny_arguments(name, tmp_path):
    for module in NEEDS_OPENSPIEL.get(name, ()):
        pytest.importorskip(module, reason="OpenSpiel and dm-tree are the optional extra .[bench]")
    out = tmp_path / "out"
    arguments = [a.replace("{out}", str(out)) for a in TINY[name]]
    environment = {**os.environ, "MPLBACKEND": "Agg",
                   "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    before = _written(EXPERIMENTS / "out")
    done = subprocess.run([sys.executable, str(EXPERIMENTS / f"{name}.py"), *arguments],
                          cwd=tmp_path, env=environment, capture_output=True, text=True,
                          timeout=SECONDS)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip(), "the script printed nothing"
    assert _written(EXPERIMENTS / "out") == before, "the script wrote into the repository"


def test_bluffing_takes_one_duel_as_duel_does(tmp_path):
    """The bluffing experiment on one hidden duel given like `duel`'s (its tiny case): its
    public values are the public solver's, and hiding never costs the holder."""
    import json

    import envs
    from solver import solve_game
    arguments = ["--system", "uchronia", "--b", "sang-froid", "--a-prior",
                 "adresse,tireur@1;adresse@1", "-o", "max_turns=2", "--json"]
    environment = {**os.environ, "MPLBACKEND": "Agg",
                   "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(EXPERIMENTS / "bluffing.py"), *arguments],
                          cwd=tmp_path, env=environment, capture_output=True, text=True,
                          timeout=SECONDS)
    assert done.returncode == 0, done.stderr[-3000:]
    (report,) = json.loads(done.stdout)["systems"]
    sheets = report["sides"]["a"]["sheets"]
    for entry in sheets:
        public = solve_game(envs.make("uchronia", a=entry["sheet"], b="sang-froid",
                                      max_turns=2)).value
        assert entry["public"] == pytest.approx(public, abs=1e-9)
    assert report["sides"]["a"]["hiding_gain"] >= -1e-9
    assert sum(e["prior"] * e["hidden"] for e in sheets) == pytest.approx(report["value"])
