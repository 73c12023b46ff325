"""A moment of a duel already solved (``solver.solve_game(game, start=...)`` after the
whole duel) is read from the whole duel's solution, kept in this process or in the
answer store, and answers as a solve from that moment does."""

import numpy as np
import pytest

import envs
import solver
from agents.store import AnswerStore


def counter_duels():
    for name, spec in envs.systems().items():
        if not spec.implemented or spec.examples is None:
            continue
        options = spec.examples.duel()
        game = envs.make(name, **options)
        if game.info.public_information and game.info.has("counters"):
            yield pytest.param(name, options, 3, id=name)
    # knockout: cycles (a round that hurts nobody), whose fixed point the layers reach
    # (one moment: a solve from a moment walks its cores one by one, for half a minute)
    yield pytest.param("pathfinder", {"a": "fighter,hp=3", "b": "rogue,hp=3"}, 1,
                       id="pathfinder knockout")


def moments(game, most=3):
    """Live states where both choose, spread over the duel (the start excluded)."""
    graph = solver.state_graph(game)
    chosen = [s for s, dead in zip(graph.states, graph.terminal, strict=True)
              if not dead and all(game.legal_mask(s, p).sum() > 1 for p in "ab")]
    step = max(1, len(chosen) // most)
    return chosen[1::step][:most]


def assert_same(derived, fresh, states):
    for name in ("value", "win", "draw", "loss", "expected_length"):
        assert getattr(derived, name) == pytest.approx(getattr(fresh, name), abs=1e-12), name
    assert derived.endings.keys() == fresh.endings.keys()
    for label, chance in fresh.endings.items():
        assert derived.endings[label] == pytest.approx(chance, abs=1e-12)
    for state in states:
        for mine, theirs in zip(derived.policy(state), fresh.policy(state), strict=True):
            np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-12)
        assert derived.value_at(state) == pytest.approx(fresh.value_at(state), abs=1e-12)
        np.testing.assert_allclose(derived.stage_matrix(state), fresh.stage_matrix(state),
                                   rtol=0, atol=1e-12)


def reachable(game, state, most=30):
    """A few live states reachable from ``state`` (itself first)."""
    found, frontier = [state], [state]
    while frontier and len(found) < most:
        here = frontier.pop(0)
        for i in np.flatnonzero(game.legal_mask(here, "a")):
            for j in np.flatnonzero(game.legal_mask(here, "b")):
                for _, after in game.outcomes(here, int(i), int(j)):
                    if not game.is_terminal(after) and after not in found:
                        found.append(after)
                        frontier.append(after)
    return found[:most]


@pytest.mark.parametrize(("system", "options", "most"), list(counter_duels()))
def test_a_moment_of_a_solved_duel_answers_as_a_solve_from_it(system, options, most,
                                                              tmp_path, monkeypatch):
    store = AnswerStore(tmp_path)
    whole = solver.solve_game(envs.make(system, **options), cache=store)
    assert whole.convergence.residual < 1e-14   # the moments below are read from it
    probe = envs.make(system, **options)
    fresh = {state: solver.solve_game(probe, start=state)
             for state in moments(probe, most)}
    assert fresh
    game = envs.make(system, **options)   # another process: the whole duel in the store
    import solver.counters.solution as counter_solution
    monkeypatch.setattr(counter_solution, "solve_counters",
                        lambda *a, **k: pytest.fail("solved again"))
    for state, solved in fresh.items():
        derived = solver.solve_game(game, start=state, cache=store)
        assert derived.start == state and solved.start == state
        assert_same(derived, solved, reachable(game, state))
        # its visits are the moment's: a state's mixes table from the moment
        assert derived.visits[0].sum() == pytest.approx(solved.visits[0].sum(), abs=1e-9)


def test_a_moment_without_the_whole_duel_known_is_solved_from_it(tmp_path):
    options = envs.spec("blooded").examples.duel()
    probe = envs.make("blooded", **options)
    state = moments(probe)[0]
    before = list(tmp_path.iterdir())
    solved = solver.solve_game(envs.make("blooded", **options), start=state,
                               cache=AnswerStore(tmp_path))
    assert list(tmp_path.iterdir()) == before   # nothing computed for the whole duel
    assert solved.start == state


def test_a_moment_explored_from_the_declared_cores_answers_as_one_walked(monkeypatch):
    """Pathfinder declares its cores from the start: a moment among them is explored
    from those (with cores the moment cannot reach) instead of walked core by core."""
    options = {"a": "fighter,hp=3", "b": "rogue,hp=3"}
    state = moments(envs.make("pathfinder", **options), 1)[0]
    game = envs.make("pathfinder", **options)
    declared = solver.solve_game(game, start=state)
    from solver.counters import cores
    monkeypatch.setattr(cores, "_declared", lambda game, starts: None)
    walked = solver.solve_game(envs.make("pathfinder", **options), start=state)
    assert set(walked.cores.cores) <= set(declared.cores.cores)
    assert_same(declared, walked, reachable(game, state))
