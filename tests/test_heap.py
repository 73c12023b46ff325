"""The heap is set to keep freed blocks only for the outermost solve, then reset."""

from __future__ import annotations

import solver.heap as heap


class RecordingLibc:
    def __init__(self):
        self.calls = []

    def mallopt(self, parameter, value):
        self.calls.append(("mallopt", parameter, value))
        return 1

    def malloc_trim(self, pad):
        self.calls.append(("trim", pad))
        return 1


def test_the_thresholds_are_raised_once_and_reset_when_the_outermost_solve_ends(
        monkeypatch):
    libc = RecordingLibc()
    monkeypatch.setattr(heap, "_LIBC", libc)
    with heap.keeping_freed_memory():
        with heap.keeping_freed_memory():
            pass
        # each value fits the C int mallopt takes
        assert libc.calls == [("mallopt", -3, 1 << 30), ("mallopt", -1, 2**31 - 1)]
    assert libc.calls[2:] == [("mallopt", -3, 128 * 1024), ("mallopt", -1, 128 * 1024),
                              ("trim", 0)]


def test_an_error_inside_still_resets_them(monkeypatch):
    libc = RecordingLibc()
    monkeypatch.setattr(heap, "_LIBC", libc)
    try:
        with heap.keeping_freed_memory():
            raise ValueError("stop")
    except ValueError:
        pass
    assert libc.calls[-1] == ("trim", 0) and len(libc.calls) == 5
    with heap.keeping_freed_memory():    # the depth came back to 0: set again
        pass
    assert len(libc.calls) == 10


def test_the_real_thresholds_are_accepted():
    # glibc returns 1 for a value it takes (0, or an overflow error, otherwise)
    if heap._LIBC is None:
        return
    assert heap._LIBC.mallopt(heap.M_MMAP_THRESHOLD, heap.KEPT_BLOCKS) == 1
    assert heap._LIBC.mallopt(heap.M_TRIM_THRESHOLD, heap.KEPT_TOP) == 1
    assert heap._LIBC.mallopt(heap.M_MMAP_THRESHOLD, heap.DEFAULT_THRESHOLD) == 1
    assert heap._LIBC.mallopt(heap.M_TRIM_THRESHOLD, heap.DEFAULT_THRESHOLD) == 1


def test_the_solver_leaves_the_heap_alone_and_the_cli_opts_in(monkeypatch, capsys):
    # a counters solve (Blooded declares them) makes no mallopt call of its own;
    # the same duel through ``duel solve`` runs inside keeping_freed_memory once
    import envs
    from agents.cli import main
    from solver import solve_game
    libc = RecordingLibc()
    monkeypatch.setattr(heap, "_LIBC", libc)
    game = envs.make("blooded", max_beats=1)
    assert game.info.has("counters")
    solve_game(game)
    assert libc.calls == []
    assert main(["solve", "blooded", "-o", "max_beats=1", "--json"]) == 0
    capsys.readouterr()
    assert [call[0] for call in libc.calls] == ["mallopt", "mallopt", "mallopt", "mallopt",
                                                "trim"]
