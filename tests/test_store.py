"""The answer store: solutions kept on disk (``agents.store``) and read back by the
solver (``solver.cache``) answer exactly as recomputed ones; stale, damaged or
foreign entries are recomputed; two processes writing one entry never damage it."""

import dataclasses
import hashlib
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import textwrap
import warnings
import weakref
from pathlib import Path

import numpy as np
import pytest

import envs
import solver
from agents.cli import main
from agents.store import AnswerStore, code_version, store_dir, user_cache_dir
from solver.cache import AnswerCache, caching, key_of

ROOT = Path(__file__).resolve().parents[1]


class Counting:
    """A store that counts what the solver asks of it."""

    def __init__(self, inner):
        self.inner, self.gets, self.puts = inner, 0, 0

    def get(self, key):
        self.gets += 1
        return self.inner.get(key)

    def put(self, key, payload):
        self.puts += 1
        return self.inner.put(key, payload)


def public_quick_duels():
    for name, spec in envs.systems().items():
        if not spec.implemented or spec.examples is None:
            continue
        options = spec.examples.duel()
        if envs.make(name, **options).info.public_information:
            yield pytest.param(name, options, id=name)


def live_states(game, most=200):
    graph = solver.state_graph(game)
    live = [s for s, dead in zip(graph.states, graph.terminal, strict=True) if not dead]
    step = max(1, len(live) // most)
    return live[::step]


@pytest.mark.parametrize(("system", "options"), list(public_quick_duels()))
def test_a_kept_solution_answers_as_a_recomputed_one(system, options, tmp_path):
    store = Counting(AnswerStore(tmp_path))
    computed = solver.solve_game(envs.make(system, **options), cache=store)
    # missed, computed, put: the answer given is the copy the store handed back
    assert (store.gets, store.puts) == (1, 1)
    game = envs.make(system, **options)   # a new game, as in another process
    kept = solver.solve_game(game, cache=store)
    assert (store.gets, store.puts) == (2, 1)   # read back, not computed again
    assert kept is not computed and kept.game is game
    recomputed = solver.solve_game(envs.make(system, **options))
    for name in ("value", "win", "draw", "loss", "expected_length"):
        assert getattr(kept, name) == pytest.approx(getattr(recomputed, name), abs=1e-12)
    assert kept.endings.keys() == recomputed.endings.keys()
    for label, chance in recomputed.endings.items():
        assert kept.endings[label] == pytest.approx(chance, abs=1e-12)
    assert kept.convergence == recomputed.convergence
    for state in live_states(game):
        for mine, theirs in zip(kept.policy(state), recomputed.policy(state), strict=True):
            np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-12)
        assert kept.value_at(state) == pytest.approx(recomputed.value_at(state), abs=1e-12)
        np.testing.assert_allclose(kept.stage_matrix(state), recomputed.stage_matrix(state),
                                   rtol=0, atol=1e-12)
    start = game.initial_outcomes()[0][1]
    observation = game.observe(start, "a")
    mask = game.legal_mask(start, "a")
    np.testing.assert_allclose(kept.policy_for("a").probabilities(observation, mask),
                               recomputed.policy_for("a").probabilities(observation, mask),
                               rtol=0, atol=1e-12)


def falkenstein(**options):
    return envs.make("falkenstein", **{"a": "fencing=GD", "b": "fencing=GR", **options})


def test_a_damaged_or_stale_entry_is_recomputed_never_used(tmp_path):
    store = AnswerStore(tmp_path)
    truth = solver.solve_game(falkenstein(), cache=store).value
    (entry,) = tmp_path.glob("*.answer")
    header, payload = entry.read_bytes().split(b"\n", 1)
    damaged = bytearray(payload)
    damaged[len(damaged) // 2] ^= 0xFF
    stale = json.loads(header) | {"version": "0.0.0+old"}
    for written in (header + b"\n" + bytes(damaged), header + b"\n" + payload[:-10],
                    json.dumps(stale).encode() + b"\n" + payload, b"not a header\n"):
        entry.write_bytes(written)
        counted = Counting(store)
        assert solver.solve_game(falkenstein(), cache=counted).value == truth
        assert (counted.gets, counted.puts) == (1, 1)   # missed, computed, put
        assert store.get(json.loads(header)["key"]) is not None


def test_put_hands_back_its_own_copy_whatever_replaces_the_file_after(tmp_path):
    store = AnswerStore(tmp_path)
    mine = bytes(range(256)) * 4096
    kept = store.put("one key", [mine[:1000], mine[1000:]])
    assert bytes(kept) == mine == bytes(store.get("one key"))
    # another writer's entry under the same key: the copy handed back is still this one's
    store.put("one key", b"theirs")
    assert bytes(kept) == mine
    assert bytes(store.get("one key")) == b"theirs"


def test_an_answer_without_arrays_is_kept_as_computed_and_one_with_arrays_as_stored(
        tmp_path, monkeypatch):
    # reading a document back frees the computed arrays for the store's pages; a plan
    # of plain rows frees nothing, and its 40,000 rows took half a second to read back
    read = []
    real = solver.cache.read_answer
    monkeypatch.setattr(solver.cache, "read_answer",
                        lambda payload, game: read.append(1) or real(payload, game))
    store, game = AnswerStore(tmp_path), falkenstein()
    rows = {"plan": [{"win": 0.25, "situation": "first exchange"}] * 3}
    assert solver.cache.remembered(game, "rows", lambda: rows, store) is rows
    assert read == []
    table = {"values": np.arange(4.0)}
    found = solver.cache.remembered(game, "table", lambda: table, store)
    assert read == [1] and found is not table
    assert np.array_equal(found["values"], np.arange(4.0))


def test_a_payload_that_does_not_unpickle_is_a_miss(tmp_path):
    store = AnswerStore(tmp_path)
    game = falkenstein()
    store.put(key_of(game, "solution|states|tolerance=1e-10|max_sweeps=100000"),
              b"\x80\x05garbage")
    counted = Counting(store)
    assert solver.solve_game(game, cache=counted).value == pytest.approx(
        solver.solve_game(falkenstein()).value, abs=1e-12)
    assert counted.puts == 1


def test_the_key_names_the_game_and_a_game_without_identity_is_never_kept(tmp_path):
    assert key_of(falkenstein(), "q") == key_of(falkenstein(), "q")
    assert key_of(falkenstein(), "q") != key_of(falkenstein(max_rounds=3), "q")
    ruleset = tmp_path / "rules.toml"
    ruleset.write_text("")   # overrides nothing: the same rules, so the same game
    assert key_of(falkenstein(ruleset=str(ruleset)), "q") == key_of(falkenstein(), "q")
    game = falkenstein()
    game.info = dataclasses.replace(game.info, identity=None)
    counted = Counting(AnswerStore(tmp_path))
    solver.solve_game(game, cache=counted)
    assert (counted.gets, counted.puts) == (0, 0)


def test_an_answer_store_is_two_methods():
    assert isinstance(AnswerStore("."), AnswerCache)
    with pytest.raises(TypeError, match="get"):
        with caching(object()):
            pass


WRITER = textwrap.dedent("""
    import sys
    from agents.store import AnswerStore
    store, me = AnswerStore(sys.argv[1]), sys.argv[2]
    payload = me.encode() * 400_000
    for _ in range(40):
        store.put("one key", payload)
""")


def test_two_processes_writing_one_entry_never_damage_it(tmp_path):
    """Two real processes write the same key over and over (each its own 1-2 MB
    payload) while this one reads it: every read is whole, one of the two payloads."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), me], env=env)
               for me in ("A", "BB")]
    store, reads = AnswerStore(tmp_path), set()
    while any(w.poll() is None for w in writers):
        if (tmp_path / AnswerStore(tmp_path)._file("one key").name).exists():
            payload = store.get("one key")
            assert payload is not None   # never a half-written file
            reads.add(hashlib.sha256(payload).hexdigest())
    assert [w.wait() for w in writers] == [0, 0]
    wanted = {hashlib.sha256(me.encode() * 400_000).hexdigest() for me in ("A", "BB")}
    assert reads <= wanted
    assert hashlib.sha256(store.get("one key")).hexdigest() in wanted
    assert [p.name for p in tmp_path.iterdir()] == [store._file("one key").name]


def test_the_store_directory_follows_the_platform_and_the_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("DUEL_CACHE_DIR", str(tmp_path / "here"))
    assert store_dir() == tmp_path / "here"
    monkeypatch.delenv("DUEL_CACHE_DIR")
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert store_dir() == tmp_path / "xdg" / "duel-solver" / "answers"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert user_cache_dir() == tmp_path / ".cache" / "duel-solver"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert user_cache_dir() == tmp_path / "Library" / "Caches" / "duel-solver"
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    assert user_cache_dir() == tmp_path / "local" / "duel-solver" / "Cache"


def test_the_tests_never_write_to_the_user_cache():
    assert Path(os.environ["DUEL_CACHE_DIR"]) != user_cache_dir() / "answers"
    assert not Path(os.environ["DUEL_CACHE_DIR"]).is_relative_to(user_cache_dir())


def test_the_version_names_the_code(monkeypatch):
    assert code_version().startswith("0.") and "+" in code_version()


def run_json(argv, capsys) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_duel_cache_path_list_clear(capsys):
    where = Path(run_json(["cache", "path"], capsys)["directory"])
    assert where == Path(os.environ["DUEL_CACHE_DIR"])
    assert run_json(["cache", "list"], capsys)["entries"] == []
    duel = ["falkenstein", "--a", "fencing=GD", "--b", "fencing=GR"]
    solved = run_json(["solve", *duel], capsys)
    entries = run_json(["cache", "list"], capsys)["entries"]
    # the solution, and the report made of it (read back whole when asked again)
    assert sorted((e["system"], e["question"], e["fresh"]) for e in entries) == [
        ("falkenstein", "solution", True), ("falkenstein", "solve report", True)]
    assert {e["options"]["a"]["fencing"] for e in entries} == {"GD"}
    assert run_json(["solve", *duel], capsys)["value"] == solved["value"]
    assert run_json(["solve", *duel, "-o", "max_rounds=3", "--no-cache"], capsys)
    assert len(run_json(["cache", "list"], capsys)["entries"]) == 2
    cleared = run_json(["cache", "clear"], capsys)
    assert cleared["removed"] == 2 and cleared["bytes"] == sum(e["bytes"] for e in entries)
    assert run_json(["cache", "list"], capsys)["entries"] == []
    assert main(["cache", "list"]) == 0
    assert "No answers kept" in capsys.readouterr().out


def test_a_scratch_store_reads_nothing_and_leaves_nothing(tmp_path):
    """``--no-cache``'s store: a large answer comes back as the pages of a file with no
    name (the same bytes); a small one, and any ``get``, come back as nothing."""
    from agents.store import ScratchStore
    store = ScratchStore(10, tmp_path / "not made")
    assert store.put("k", b"x" * 10) is None
    pieces = [b"a" * 64, memoryview(b"b" * 100)]
    kept = store.put("k", pieces)
    assert isinstance(kept, memoryview) and bytes(kept) == b"a" * 64 + b"b" * 100
    assert store.get("k") is None
    assert list(tmp_path.iterdir()) == []   # the folder is not made, the file has no name


@pytest.mark.parametrize("obstacle", ["no room", "no folder"])
def test_a_scratch_store_that_cannot_write_keeps_the_answer_as_computed(tmp_path, monkeypatch,
                                                                        obstacle):
    from agents import store
    def homeless():
        raise RuntimeError("Could not determine home directory.")   # as Path.home() says

    if obstacle == "no room":
        _free_on_disk(monkeypatch, store.ROOM_LEFT + 999)
    else:
        monkeypatch.setattr(store, "store_dir", homeless)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # nothing said: the user kept nothing anyway
        scratch = store.ScratchStore(0, tmp_path if obstacle == "no room" else None)
        assert scratch.put("k", b"x" * 1000) is None
    assert list(tmp_path.iterdir()) == []


def test_odds_without_the_store_answer_the_same_from_spilled_answers(capsys, monkeypatch):
    """``--no-cache`` odds whose every answer is spilled (the equilibrium, its
    statistics, the odds) and read back from the file say what they say with each
    answer held as computed, and leave the store empty; ``solve``, whose answer ends
    it, spills nothing."""
    import solver.cache
    from agents import store
    from agents.cli import KEPT_ON_LEAVING
    spilled, adopted = [], []
    real_put, real_adopted = store.ScratchStore.put, solver.cache._adopted
    monkeypatch.setattr(store.ScratchStore, "put", lambda self, key, payload: spilled.append(
        kept := real_put(self, key, payload)) or kept)
    monkeypatch.setattr(solver.cache, "_adopted", lambda *a: adopted.append(
        found := real_adopted(*a)) or found)
    duel = ["pathfinder", "--a", "fighter,hp=8", "--b", "rogue,hp=8", "--no-cache"]
    odds = ["odds", *duel, "--vs", "uniform"]
    monkeypatch.setitem(KEPT_ON_LEAVING, "odds", 2**40)
    computed = run_json(odds, capsys)
    assert spilled and all(kept is None for kept in spilled)
    assert all(found is None for found in adopted)
    monkeypatch.setitem(KEPT_ON_LEAVING, "odds", 1)
    spilled.clear()
    assert run_json(odds, capsys) == computed
    assert len([kept for kept in spilled if kept is not None]) >= 2
    assert len([found for found in adopted if found is not None]) >= 2   # read back
    assert not store_dir().exists()   # not even made
    spilled.clear()
    run_json(["solve", *duel], capsys)
    assert spilled == []


def test_odds_and_play_read_the_solution_solve_kept(capsys, monkeypatch):
    duel = ["falkenstein", "--a", "fencing=GD", "--b", "fencing=GR"]
    run_json(["solve", *duel], capsys)
    monkeypatch.setattr("solver.solve._solve_whole", lambda *a: pytest.fail("recomputed"))
    odds = run_json(["odds", *duel, "--vs", "equilibrium"], capsys)
    assert odds["best_response"]["value"] == pytest.approx(
        odds["equilibrium_against_it"]["value"], abs=1e-9)
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["play", *duel]) == 0


def test_an_answer_that_cannot_be_kept_is_still_given(tmp_path, monkeypatch):
    def refuse(document, game):
        raise TypeError("cannot pickle 'function' object")
    monkeypatch.setattr("solver.cache.write_answer", refuse)
    # as in a new process: an earlier test may have solved the same game in this one
    monkeypatch.setattr("solver.cache._MEMO", weakref.WeakKeyDictionary())
    counted = Counting(AnswerStore(tmp_path))
    with pytest.warns(UserWarning, match="cannot be kept"):
        value = solver.solve_game(falkenstein(), cache=counted).value
    assert value == pytest.approx(solver.solve_game(falkenstein()).value, abs=1e-12)
    assert counted.puts == 0


def test_a_store_that_cannot_be_written_warns_and_answers(tmp_path):
    blocked = tmp_path / "a file, not a directory"
    blocked.write_text("")
    with pytest.warns(UserWarning, match="could not be kept"):
        value = solver.solve_game(falkenstein(), cache=AnswerStore(blocked)).value
    assert value == pytest.approx(solver.solve_game(falkenstein()).value, abs=1e-12)


def test_a_kept_answer_says_what_computing_it_said(tmp_path, monkeypatch):
    import solver.solve  # noqa: F401  (patched below, also when this test runs alone)
    from solver.errors import RefinementWarning
    from solver.markov.stages import ConvergenceWarning

    real, computed = solver.solve._solve_whole, []

    def warning_solve(*args):
        computed.append(args)
        warnings.warn(RefinementWarning(3), stacklevel=1)
        warnings.warn("values still moving", ConvergenceWarning, stacklevel=1)
        return real(*args)
    monkeypatch.setattr("solver.solve._solve_whole", warning_solve)
    store = AnswerStore(tmp_path)
    for _ in range(2):   # computed, then read back: the same warnings both times
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            solver.solve_game(falkenstein(), cache=store)
        assert [(w.category, getattr(w.message, "count", None)) for w in caught] == [
            (RefinementWarning, 3), (ConvergenceWarning, None)]
        assert str(caught[1].message) == "values still moving"
    assert len(computed) == 1


def test_two_threads_computing_at_once_each_keep_their_own_warnings(tmp_path):
    """Thread A starts computing, B starts and warns, A warns and ends first, then B:
    each answer, read back, says only its own warning, a thread computing nothing is
    heard as usual meanwhile, and the process's warning hook and filters are as they were
    after (``catch_warnings`` left A's recorder in place and filed A's warning under B)."""
    import threading

    from solver.cache import remembered
    store, game = AnswerStore(tmp_path), falkenstein()
    b_started, a_warned = threading.Event(), threading.Event()

    def compute_a():
        b_started.wait(30)
        warnings.warn("said by A", UserWarning, stacklevel=1)
        a_warned.set()
        return "answer A"

    def compute_b():
        b_started.set()
        warnings.warn("said by B", UserWarning, stacklevel=1)
        a_warned.wait(30)
        return "answer B"

    hook, filters = warnings.showwarning, list(warnings.filters)
    said_meanwhile = []
    with warnings.catch_warnings():
        warnings.showwarning = lambda message, *rest: said_meanwhile.append(str(message))
        a = threading.Thread(target=remembered, args=(game, "question A", compute_a, store))
        b = threading.Thread(target=remembered, args=(game, "question B", compute_b, store))
        a.start()
        b.start()
        b_started.wait(30)
        warnings.warn("said by the main thread", UserWarning, stacklevel=1)
        a.join(30)
        b.join(30)
    assert (warnings.showwarning, warnings.filters) == (hook, filters)
    assert said_meanwhile.count("said by the main thread") == 1
    for question, answer, said in (("question A", "answer A", "said by A"),
                                   ("question B", "answer B", "said by B")):
        game = falkenstein()   # as in a new process: read back from the store
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert remembered(game, question, lambda: pytest.fail("computed again"),
                              store) == answer
        assert [str(w.message) for w in caught] == [said]


def test_each_thread_reads_and_keeps_through_its_own_store(tmp_path):
    """Thread A names store SA, then B names SB, and A's block ends first: B still has
    SB (a list of the process's blocks handed it SA). An opponent made on a thread of
    its own (``duel play``'s) keeps its solution in the store of the block it is made in."""
    import threading

    from agents.opponents import PreparedOpponent
    from solver.cache import ambient
    store_a, store_b = Counting(None), Counting(None)
    a_named, b_named, a_left = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def thread_a():
        with caching(store_a):
            a_named.set()
            b_named.wait(30)
        a_left.set()

    def thread_b():
        a_named.wait(30)
        with caching(store_b):
            b_named.set()
            a_left.wait(30)
            seen["b"] = ambient()

    threads = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert seen["b"] is store_b and ambient() is None
    kept = Counting(AnswerStore(tmp_path))
    with caching(kept):
        PreparedOpponent("equilibrium", falkenstein(), "b").policy()
    assert kept.puts == 1 and len(list(tmp_path.glob("*.answer"))) == 1


def test_a_question_asked_side_by_side_is_heard_by_the_computation_that_asked_it():
    from solver.cache import _hearing
    from solver.counters.play import answered_side_by_side

    def warns() -> str:
        warnings.warn("said on the other thread", UserWarning, stacklevel=1)
        return "later"
    with _hearing() as heard:
        assert answered_side_by_side(lambda: "first", warns) == ["first", "later"]
    assert [(str(message), category) for message, category in heard] == [
        ("said on the other thread", UserWarning)]


def test_a_kept_personality_strength_needs_no_search_and_plays_the_same(tmp_path,
                                                                        monkeypatch):
    from agents import personalities

    store = AnswerStore(tmp_path)
    with caching(store):
        computed = personalities.personality(falkenstein(), "aggressive", 0.5, "b")
    monkeypatch.setattr(personalities, "_CALIBRATIONS", {})   # as in a new process
    monkeypatch.setattr(personalities.Calibration, "beta",
                        lambda self, strength: pytest.fail("searched again"))
    monkeypatch.setattr(personalities.Calibration, "point",
                        lambda self, beta: pytest.fail("its play solved again"))
    monkeypatch.setattr("solver.solve._solve_whole", lambda *a: pytest.fail("duel solved"))
    with caching(store):
        kept = personalities.personality(falkenstein(), "aggressive", 0.5, "b")
    assert kept.beta == computed.beta
    assert kept.exploitability == pytest.approx(computed.exploitability, abs=1e-12)
    game = falkenstein()
    for state in live_states(game, 50):
        observation, mask = game.observe(state, "b"), game.legal_mask(state, "b")
        np.testing.assert_allclose(kept.policy.probabilities(observation, mask),
                                   computed.policy.probabilities(observation, mask),
                                   rtol=0, atol=1e-12)


def test_another_strength_reads_back_the_steps_its_search_shares(tmp_path, monkeypatch):
    import solver as facade
    from agents import personalities

    solved = []
    real = facade.solve_regularized
    monkeypatch.setattr(facade, "solve_regularized",   # (game, side, prior, beta)
                        lambda *args, **near: solved.append(args[3]) or real(*args, **near))

    def strength(value: float, store=None):
        monkeypatch.setattr(personalities, "_CALIBRATIONS", {})   # as in a new process
        solved.clear()
        with caching(store):
            found = personalities.personality(falkenstein(), "aggressive", value, "b")
        return found, list(solved)

    alone, tried = strength(0.3)    # no store: every step of the search solved
    store = AnswerStore(tmp_path)
    strength(0.6, store)
    again, solved_again = strength(0.3, store)
    # the same search, so the same beta and play; the steps 0.6 took are not solved again
    assert again.beta == alone.beta and again.exploitability == alone.exploitability
    assert len(solved_again) < len(tried) and set(solved_again) < set(tried)


def test_training_a_personality_asked_before_reads_its_kept_beta(capsys, tmp_path,
                                                                    monkeypatch):
    from agents import personalities

    duel = ["falkenstein", "-o", "max_rounds=1", "--a", "fencing=AV", "--b", "fencing=GD"]
    run_json(["odds", *duel, "--vs", "cautious:0.5"], capsys)   # keeps B's beta
    game = envs.make("falkenstein", max_rounds=1, a={"fencing": "AV"}, b={"fencing": "GD"})
    with caching(None):
        searched = personalities.calibration(game, "cautious", "b").beta(0.5)
    monkeypatch.setattr(personalities, "_CALIBRATIONS", {})   # as in a new process
    monkeypatch.setattr(personalities.Calibration, "beta",
                        lambda self, strength: pytest.fail("searched again"))
    out = tmp_path / "npc.json"
    assert main(["train", *duel, "--personality", "cautious", "--strength", "0.5",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    document = json.loads(out.read_text())
    assert document["training"]["regularization"] == searched


def test_a_solve_asked_again_is_read_back_whole(capsys, monkeypatch):
    """The report of a solved moment is kept: asked again (text or --json), no solution
    is read or computed, and it says the same; another moment is its own question."""
    duel = ["solve", "falkenstein", "--a", "fencing=GD", "--b", "fencing=GR"]
    first = run_json(duel, capsys)
    main(duel)
    first_text = capsys.readouterr().out
    moment = run_json([*duel, "--state", "exchange=2"], capsys)
    monkeypatch.setattr("agents.cli.solve.solve_game", lambda *a: pytest.fail("read again"))
    monkeypatch.setattr("agents.cli.solve.solve_moment", lambda *a: pytest.fail("again"))
    assert run_json(duel, capsys) == first
    assert main(duel) == 0 and capsys.readouterr().out == first_text
    assert run_json([*duel, "--state", "exchange=2"], capsys) == moment
    assert moment["state"]["exchange"] == 2 != first["state"]["exchange"]
    with pytest.raises(BaseException, match="again"):
        run_json([*duel, "--state", "exchange=3"], capsys)


def test_odds_asked_again_are_read_back_the_same(capsys, monkeypatch):
    duel = ["odds", "falkenstein", "--a", "fencing=GD", "--b", "fencing=GR", "--side", "b"]
    first = {vs: run_json([*duel, "--vs", vs], capsys)
             for vs in ("uniform", "mix=AA:1", "aggressive:0.5")}
    monkeypatch.setattr("agents.cli.odds.best_response", lambda *a, **k: pytest.fail("again"))
    for vs, answer in first.items():
        assert run_json([*duel, "--vs", vs], capsys) == answer
    assert main([*duel, "--vs", "uniform"]) == 0   # the text is made from it as before
    assert "Your opponent plays uniform." in capsys.readouterr().out


def test_a_plan_makes_its_rows_as_read_and_keeps_them_through_the_store():
    """A plan's rows are made when read (level 1's sheets at 50 HP a side held 1.85 KB a
    row as dicts): read twice they are the same rows, written as JSON as a list of them
    is, and the plan read back from an answer's bytes makes them again."""
    import importlib

    from agents.cli.common import json_text
    from solver.cache import read_answer, write_answer
    odds = importlib.import_module("agents.cli.odds")
    game = envs.make("falkenstein", a="fencing=GD", b="fencing=GR")
    plan = odds._answer(game, "uniform", "b")["plan"]
    rows = list(plan)
    assert isinstance(plan, odds.Plan) and len(rows) > 10
    assert plan == rows and plan[:] == rows and plan[-1] == rows[-1] != rows[0]
    with pytest.raises(IndexError):
        plan[len(rows)]
    assert json_text({"plan": plan}) == json_text({"plan": rows})
    payload = b"".join(bytes(piece) for piece in write_answer({"answer": plan}, game))
    read = read_answer(payload, game)["answer"]
    assert read is not plan and read == rows


def test_a_plans_states_are_kept_as_one_array_of_their_fields():
    """A plan's states, all of one kind with integer fields, are held as one array and
    made again when read: the same states, of the same kind, before and after the
    answer's bytes; states of another shape are kept as they are."""
    import importlib

    from solver.cache import read_answer, write_answer
    odds = importlib.import_module("agents.cli.odds")
    game = envs.make("pathfinder", a="fighter,hp=4", b="rogue,hp=4")
    states = [row[0] for row in solver.best_response(game, "uniform", "a").decisions()]
    compact = odds._compact(states)
    assert isinstance(compact, odds._States) and compact.fields.shape == (
        len(states), len(states[0]))
    payload = b"".join(bytes(piece) for piece in write_answer({"answer": compact}, game))
    for kept in (compact, read_answer(payload, game)["answer"]):
        assert list(kept) == states and {type(state) for state in kept} == {type(states[0])}
        assert all(type(field) is int for state in kept for field in state)
    for other in ([(1, 2), (3, 4)], [states[0], states[1]._replace(round=1.5)],
                  [states[0]._replace(round=2**70)], [states[0], (1,) * len(states[0])], []):
        assert odds._compact(other) is other


def test_odds_against_a_profile_are_kept_by_its_contents(capsys, tmp_path, monkeypatch):
    duel = ["falkenstein", "--a", "fencing=GD", "--b", "fencing=GR", "-o", "max_rounds=2"]
    profile = tmp_path / "npc.json"
    assert main(["train", *duel, "--iterations", "20", "--out", str(profile)]) == 0
    capsys.readouterr()
    first = run_json(["odds", *duel, "--vs", str(profile)], capsys)
    copy = tmp_path / "same npc.json"
    copy.write_bytes(profile.read_bytes())
    real = solver.best_response
    monkeypatch.setattr("agents.cli.odds.best_response", lambda *a, **k: pytest.fail("again"))
    again = run_json(["odds", *duel, "--vs", str(copy)], capsys)
    assert again == dict(first, vs=str(copy))
    document = json.loads(profile.read_text())
    document["name"] = "another npc"   # another file: another opponent, computed
    copy.write_text(json.dumps(document))
    monkeypatch.setattr("agents.cli.odds.best_response", real)
    assert run_json(["odds", *duel, "--vs", str(copy)], capsys)["best_response"] == (
        first["best_response"])


def test_a_system_kept_outside_the_package_names_its_code_in_the_identity():
    toy = json.loads(envs.make("toy_dice").info.identity)
    source = Path(sys.modules[envs.spec("toy_dice").build.__module__].__file__)
    assert toy["code"] == hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    assert "code" not in json.loads(falkenstein().info.identity)   # the version covers it


def test_another_opponent_in_a_solved_duel_reads_its_kept_equilibrium(capsys, monkeypatch):
    duel = ["falkenstein", "--a", "fencing=GD", "--b", "fencing=GR", "-o", "max_rounds=3"]
    run_json(["solve", *duel], capsys)
    monkeypatch.setattr("solver.solve._solve_whole", lambda *a: pytest.fail("solved again"))
    for vs in ("uniform", "aggressive:0.5"):
        odds = run_json(["odds", *duel, "--vs", vs, "--side", "b"], capsys)
        assert odds["best_response"]["value"] >= odds["equilibrium_against_it"]["value"] - 1e-12


def test_a_payload_in_pieces_has_the_digest_of_its_bytes_one_after_another(monkeypatch):
    # the SHA-256 of the SHA-256 of every 7 bytes, from hashlib on the joined bytes,
    # whatever the pieces' lengths (chunks within a piece, across two, or empty pieces)
    import agents.store as store_module
    monkeypatch.setattr(store_module, "DIGEST_CHUNK", 7)
    rng = np.random.default_rng(2)
    for _ in range(200):
        pieces = [rng.bytes(int(n)) for n in rng.integers(0, 30, rng.integers(0, 7))]
        joined = b"".join(pieces)
        sums = b"".join(hashlib.sha256(joined[at:at + 7]).digest()
                        for at in range(0, len(joined), 7))
        assert store_module.digest(pieces) == hashlib.sha256(sums).hexdigest()


def _counted_pushes(monkeypatch) -> list:
    """Every play pushed forward over the counters from now on (one item each)."""
    from solver.counters import solution as counter_solution
    pushes = []
    push = counter_solution.forward_statistics

    def counted(*args, **named):
        # its ninth argument says whether the play is pushed (else the value only)
        if (args[8] if len(args) > 8 else named.get("statistics", True)):
            pushes.append(1)
        return push(*args, **named)

    monkeypatch.setattr(counter_solution, "forward_statistics", counted)
    return pushes


def test_an_equilibrium_asked_for_its_mixes_only_is_never_pushed_forward(tmp_path,
                                                                        monkeypatch):
    # an opponent's equilibrium needs its mixes and values; its statistics are pushed
    # forward when first asked, kept beside it, and read back by the next process
    from solver.counters import solution as counter_solution
    pushes = _counted_pushes(monkeypatch)
    duel = {"a": "fighter,hp=3", "b": "rogue,hp=3"}
    store = Counting(AnswerStore(tmp_path))
    solution = solver.solve_game(envs.make("pathfinder", **duel), cache=store)
    solution.policy_for("b").mixes, solution.value_at(solution.game.initial_outcomes()[0][1])
    assert (len(pushes), store.puts) == (0, 1)
    at_once = counter_solution.solve_counters(envs.make("pathfinder", **duel))
    assert len(pushes) == 1
    assert solution.evaluation == at_once.evaluation and solution.value == at_once.value
    assert np.array_equal(solution.visits, at_once.visits)
    assert np.array_equal(solution.core_visits, at_once.core_visits)
    assert (len(pushes), store.puts) == (2, 2)
    again = solver.solve_game(envs.make("pathfinder", **duel), cache=store)
    assert again.evaluation == at_once.evaluation
    assert np.array_equal(again.visits, at_once.visits)
    assert len(pushes) == 2   # read back with the solution, never pushed again


def test_a_solve_that_reports_its_statistics_keeps_them_in_the_solution(tmp_path,
                                                                       monkeypatch):
    # ``statistics=True`` pushes the play before the solution is kept: one entry, read
    # back whole by the next process
    pushes = _counted_pushes(monkeypatch)
    duel = {"a": "fighter,hp=3", "b": "rogue,hp=3"}
    store = Counting(AnswerStore(tmp_path))
    solved = solver.solve_game(envs.make("pathfinder", **duel), cache=store, statistics=True)
    assert (len(pushes), store.puts) == (1, 1)
    again = solver.solve_game(envs.make("pathfinder", **duel), cache=store)
    assert again.evaluation == solved.evaluation
    assert np.array_equal(again.visits, solved.visits)
    assert (len(pushes), store.puts) == (1, 1)


def test_a_store_holding_answers_writes_them_when_told(tmp_path):
    """``put`` on a store that may hold answers writes nothing and reads back nothing (its
    caller has the answer as computed); ``write_pending`` writes it whole, as a plain
    store would."""
    payload = np.random.default_rng(1).bytes(3 * 2**20)
    store = AnswerStore(tmp_path, deferred_bytes=math.inf)
    assert store.put("k", [payload[:100], payload[100:]]) is None
    assert store.get("k") is None and not list(tmp_path.glob("*"))
    store.write_pending()
    assert bytes(AnswerStore(tmp_path).get("k")) == payload
    assert [entry["bytes"] > len(payload) for entry in AnswerStore(tmp_path).entries()] == [True]


BACKGROUND = textwrap.dedent("""
    import sys
    import numpy as np
    import math
    from agents.store import AnswerStore
    store = AnswerStore(sys.argv[1], deferred_bytes=math.inf)
    store.put("big", np.random.default_rng(2).bytes(256 * 2**20))
    store.write_pending(background=True)
    print("left")
""")


@pytest.mark.skipif(sys.platform != "linux", reason="written in the background on Linux")
def test_an_answer_written_in_the_background_is_waited_for(tmp_path):
    """The process that computed an answer leaves while a child of its own writes it
    (256 MB: a fraction of a second at least); a reader asking at once waits for the
    child's lock and gets the whole answer, where it would otherwise find no entry, and
    the listing then shows it alone, the lock gone."""
    done = subprocess.run([sys.executable, "-c", BACKGROUND, str(tmp_path)],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert (done.returncode, done.stdout) == (0, "left\n"), done.stderr
    read = AnswerStore(tmp_path).get("big")
    wanted = np.random.default_rng(2).bytes(256 * 2**20)
    assert read is not None and hashlib.sha256(read).digest() == hashlib.sha256(wanted).digest()
    assert [p.name for p in tmp_path.iterdir()] == [AnswerStore(tmp_path)._file("big").name]


def test_the_duel_command_keeps_its_answer_after_it_leaves(tmp_path, capsys, monkeypatch):
    """``duel solve`` run as a user runs it hands its answers to a writer of its own as
    it exits; asked again in this process, the answer is read back (nothing is solved)
    and says the same, byte for byte."""
    duel = ["solve", "falkenstein", "--a", "fencing=GD", "--b", "fencing=GR", "--json"]
    store = tmp_path / "answers"
    done = subprocess.run([sys.executable, "-m", "agents.cli", *duel], capture_output=True,
                          text=True, timeout=600, env=dict(os.environ, PYTHONPATH=str(ROOT),
                                                           DUEL_CACHE_DIR=str(store)))
    assert done.returncode == 0, done.stderr
    monkeypatch.setenv("DUEL_CACHE_DIR", str(store))
    monkeypatch.setattr("agents.cli.solve.solve_game", lambda *a: pytest.fail("solved again"))
    assert main(duel) == 0 and capsys.readouterr().out == done.stdout
    assert {entry["question"] for entry in AnswerStore(store).entries()} == {
        "solution", "solve report"}


@pytest.mark.skipif(sys.platform != "linux", reason="written in the background on Linux")
def test_an_answer_another_process_is_writing_is_left_to_it(tmp_path):
    """While a writer holds an entry's lock (here this test), a process leaving with the
    same answer neither waits for it nor writes over it: it exits at once."""
    import fcntl
    script = textwrap.dedent("""
        import sys
        import math
        from agents.store import AnswerStore
        store = AnswerStore(sys.argv[1], deferred_bytes=math.inf)
        store.put("big", b"x" * 1000)
        store.write_pending(background=True)
        print("left")
    """)
    lock_path = AnswerStore(tmp_path)._lock("big")
    with open(lock_path, "wb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        done = subprocess.run([sys.executable, "-c", script, str(tmp_path)],
                              capture_output=True, text=True, timeout=60,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert (done.returncode, done.stdout) == (0, "left\n"), done.stderr
    assert AnswerStore(tmp_path).get("big") is None


def test_answers_computed_before_an_unforeseen_failure_are_kept(tmp_path):
    """A failure no command catches, after the answer was computed: the process fails
    as Python does (a traceback, exit 1), and what it computed is in the store."""
    script = textwrap.dedent("""
        import sys
        import agents.cli as cli
        sys.argv = ["duel", "solve", "falkenstein", "--a", "fencing=GD", "--b", "fencing=GR"]
        answered = cli.run_command
        def failing(args):
            answered(args)
            raise RuntimeError("after the answer")
        cli.run_command = failing
        cli.entry_point()
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, PYTHONPATH=str(ROOT),
                                                DUEL_CACHE_DIR=str(tmp_path)))
    assert done.returncode == 1 and "RuntimeError: after the answer" in done.stderr
    assert {entry["question"] for entry in AnswerStore(tmp_path).entries()} == {
        "solution", "solve report"}


def test_without_locks_or_a_process_to_spare_the_answer_is_written_in_place(
        tmp_path, monkeypatch):
    """A directory that takes no lock (ENOLCK on some network disks), or a fork the
    system refuses: the answers are written before ``write_pending`` returns, whole,
    and no lock is left behind."""
    import errno
    import fcntl

    def no_lock(*args):
        raise OSError(errno.ENOLCK, "no locks available")

    def no_fork():
        raise OSError(errno.EAGAIN, "no process to spare")

    monkeypatch.setattr(os, "fork", no_fork)
    for where, patch in (("no locks", lambda: monkeypatch.setattr(fcntl, "flock", no_lock)),
                         ("no fork", lambda: None)):
        patch()
        store = AnswerStore(tmp_path / where, deferred_bytes=math.inf)
        store.put("k", b"answer " + where.encode())
        store.write_pending(background=True)
        assert [p.name for p in (tmp_path / where).iterdir()] == [store._file("k").name]
        assert bytes(AnswerStore(tmp_path / where).get("k")) == b"answer " + where.encode()


def _free_on_disk(monkeypatch, free: int) -> None:
    real = shutil.disk_usage
    monkeypatch.setattr("agents.store.shutil.disk_usage",
                        lambda path: real(path)._replace(free=free))


def test_an_answer_is_kept_only_where_the_disk_has_room_for_it_and_more(tmp_path,
                                                                        monkeypatch):
    """1,000 bytes fit a disk with 1,000 bytes free beyond the room a cache leaves it,
    not one byte less; refused, the answer is said not kept and no file is left."""
    from agents.store import ROOM_LEFT
    payload = b"x" * 1000
    _free_on_disk(monkeypatch, ROOM_LEFT + 999)
    with pytest.warns(UserWarning, match="kept .*: they take 1 kB and the disk has 67 MB free"):
        assert AnswerStore(tmp_path / "short").put("k", payload) is None
    assert list((tmp_path / "short").iterdir()) == []
    _free_on_disk(monkeypatch, ROOM_LEFT + 1000)
    assert bytes(AnswerStore(tmp_path / "room").put("k", payload)) == payload


def test_a_full_disk_is_said_before_a_background_writer_is_forked(tmp_path, monkeypatch):
    """The child writing in the background has no one to tell: a disk without room is
    said by the process leaving, and no child is made."""
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("forked"))
    _free_on_disk(monkeypatch, 0)
    store = AnswerStore(tmp_path, deferred_bytes=math.inf)
    store.put("k", b"answer")
    with pytest.warns(UserWarning, match="could not be kept .*the disk has 0 B free"):
        store.write_pending(background=True)
    assert list(tmp_path.iterdir()) == []


def test_the_duel_command_says_in_one_line_that_a_full_disk_kept_nothing(tmp_path):
    """As a user runs it: the answer is printed whole, one line says why it was not
    kept, and the store holds nothing."""
    script = textwrap.dedent("""
        import shutil, sys
        real = shutil.disk_usage
        shutil.disk_usage = lambda path: real(path)._replace(free=0)
        sys.argv = ["duel", "solve", "falkenstein", "--a", "fencing=GD", "--b", "fencing=GR",
                    "--json"]
        from agents.cli import entry_point
        entry_point()
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, PYTHONPATH=str(ROOT),
                                                DUEL_CACHE_DIR=str(tmp_path)))
    assert done.returncode == 0 and json.loads(done.stdout)["system"] == "falkenstein"
    assert re.fullmatch(r"duel: warning: the answers could not be kept in .*: they take "
                        r"[0-9]+ kB and the disk has 0 B free .*`duel cache clear`"
                        r" frees what the store holds\n", done.stderr), done.stderr
    assert AnswerStore(tmp_path).entries() == []


def test_an_answer_beyond_the_bytes_a_store_may_hold_is_written_at_once(tmp_path):
    """Of a store that may hold 3 MB: a 2 MB answer waits, a second one (4 MB in all) is
    written as it is put, and the first only when told."""
    store = AnswerStore(tmp_path, deferred_bytes=3 * 2**20)
    first, second = b"a" * 2**21, b"b" * 2**21
    assert store.put("first", first) is None
    assert bytes(store.put("second", second)) == second
    assert AnswerStore(tmp_path).get("first") is None
    assert bytes(AnswerStore(tmp_path).get("second")) == second
    store.write_pending()
    assert bytes(AnswerStore(tmp_path).get("first")) == first


@pytest.mark.parametrize("last", [True, False])
def test_the_last_large_answers_of_a_process_wait_in_memory(tmp_path, last):
    """Told that the answers computed are the last large ones of their process, a store
    that defers keeps one of any size waiting, and ``--no-cache``'s spills nothing;
    told they are not, each writes one beyond its bytes at once. A small answer made
    after still fits the budget of waiting bytes. A store that defers nothing (no one
    writes what waits) writes it at once either way."""
    from agents.store import ScratchStore
    from solver.cache import last_large_answers
    answer = b"x" * 2**21
    asked = []
    with last_large_answers(lambda: asked.append(1) or last):
        waiting = AnswerStore(tmp_path / "deferring", deferred_bytes=2**20)
        scratch = ScratchStore(2**20, tmp_path)
        at_once = AnswerStore(tmp_path / "at once")
        assert (waiting.put("k", answer) is None) is last
        assert (scratch.put("k", answer) is None) is last
        assert bytes(at_once.put("k", answer)) == answer
    assert asked   # asked as the answer is kept
    # a small answer made after it still waits: the last large ones take no budget
    assert waiting.put("small", b"s" * 2**19) is None
    found = AnswerStore(tmp_path / "deferring").get("k")
    assert found is None if last else bytes(found) == answer
    waiting.write_pending()
    assert bytes(AnswerStore(tmp_path / "deferring").get("k")) == answer
    assert bytes(AnswerStore(tmp_path / "deferring").get("small")) == b"s" * 2**19
    assert ScratchStore(2**20, tmp_path).put("k", answer) is not None   # outside the block


@pytest.mark.parametrize(("system", "last"), [("pathfinder", True), ("blooded", False)])
def test_odds_against_the_equilibrium_spill_it_only_where_a_best_response_is_solved(
        capsys, monkeypatch, system, last):
    """``--no-cache`` odds against the equilibrium, every answer beyond 1 byte spilled:
    a Pathfinder knockout (every end a win or a loss, of one amount each) reads the best
    response off the equilibrium, so its solution is the last large answer and is kept
    as computed; a Blooded duel, which may end drawn, solves its best response after it
    and spills it. Either way the answer is the one computed with nothing spilled."""
    from agents import store
    from agents.cli import KEPT_ON_LEAVING
    spilled = []
    real_put = store.ScratchStore.put
    monkeypatch.setattr(store.ScratchStore, "put", lambda self, key, payload: spilled.append(
        (key.split("|")[0], real_put(self, key, payload))) or spilled[-1][1])
    duel = {"pathfinder": ["--a", "fighter,hp=8", "--b", "rogue,hp=8"],
            "blooded": ["--a", "novice", "--b", "novice", "-o", "max_beats=3"]}[system]
    odds = ["odds", system, *duel, "--vs", "equilibrium", "--no-cache"]
    monkeypatch.setitem(KEPT_ON_LEAVING, "odds", 2**40)
    computed = run_json(odds, capsys)
    monkeypatch.setitem(KEPT_ON_LEAVING, "odds", 1)
    spilled.clear()
    assert run_json(odds, capsys) == computed
    solution = [kept for question, kept in spilled if question == "solution"]
    assert len(solution) == 1 and (solution[0] is None) is last
