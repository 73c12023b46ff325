"""The solver's progress (``solver.progress``): what a solve reports as it goes, the
estimate of the time left, and the one line the ``duel`` command draws on stderr
(``agents.progress.WorkLine``), never on stdout."""

import io
import json
import os

import pytest

import envs
import solver
from agents import progress as shown
from agents.cli import main
from solver import progress


def reports_of(work):
    said = []
    with progress.listening(said.append):
        work()
    return said


def test_nothing_is_kept_when_nobody_listens():
    with progress.task("solving", 10) as opened:
        assert opened is None
        progress.advance(5)   # no task open: nothing to move


def test_a_counter_solve_counts_every_counter_value_twice_in_order():
    game = envs.make("blooded", **envs.spec("blooded").examples.duel())
    from solver.counters.cores import explore
    from solver.counters.solution import solve_counters
    _, grid, _ = explore(game)
    said = reports_of(lambda: solve_counters(game))
    solving = [r for r in said if r.tasks == ("solving",)]
    assert solving[-1].finished and solving[-1].done == solving[-1].total == 2 * grid.size
    stages = [r.stage for r in solving[:-1]]
    first_push = stages.index("play pushed forward")
    assert set(stages[:first_push]) == {"stage games"}
    assert set(stages[first_push:]) == {"play pushed forward"}
    done = [r.done for r in solving]
    assert done == sorted(done) and all(r.total == 2 * grid.size for r in solving)
    # the stage games are all the counter values, then the push adds them again
    assert solving[first_push - 1].done == grid.size


def test_an_equilibrium_counts_its_play_pushed_forward_when_first_asked():
    # solve_game leaves the push until its statistics are asked: the stage games are
    # the whole solve, then asking the chance to win pushes the play, counted apart
    game = envs.make("blooded", **envs.spec("blooded").examples.duel())
    from solver.counters.cores import explore
    _, grid, _ = explore(game)
    found = []
    said = reports_of(lambda: found.append(solver.solve_game(game)))
    assert said[-1].finished and said[-1].tasks == ("solving",)
    assert said[-1].done == said[-1].total == grid.size
    assert {r.stage for r in said[:-1]} == {"stage games"}
    pushed = reports_of(lambda: found[0].win)
    assert pushed[-1].finished and pushed[-1].tasks == ("the play pushed forward",)
    assert pushed[-1].done == pushed[-1].total == grid.size
    assert reports_of(lambda: found[0].loss) == []   # pushed once


def test_a_state_graph_solve_counts_its_states_then_its_mixes():
    game = envs.make("falkenstein", a="fencing=GD", b="fencing=GR", max_rounds=2)
    graph = solver.state_graph(game)
    live = int((~graph.terminal).sum())
    said = reports_of(lambda: solver.solve_game(game))
    assert said[-1].finished and said[-1].tasks == ("solving",)
    assert said[-1].done == said[-1].total == 2 * live   # no cycle: each stage once


def test_the_report_counts_its_walk_to_the_next_moments_and_those_given_in_full():
    # a knockout's walk takes tens of seconds at level 10: it is shown as it goes
    from agents.cli.solve import NEXT_STEPS, solution_report
    game = envs.make("falkenstein", a="fencing=GD", b="fencing=GR", max_rounds=2)
    solution = solver.solve_game(game)
    found = []
    said = reports_of(lambda: found.append(solution_report(game, solution)))
    walked = [r for r in said if r.tasks == ("the next moments",)]
    # both choose at every exchange: one step reaches every next moment
    assert walked[-1].finished and (walked[-1].done, walked[-1].total) == (1, NEXT_STEPS)
    in_full = [r for r in said if r.tasks == ("the next moments in full",)]
    assert in_full[-1].finished and in_full[-1].done == in_full[-1].total == len(
        found[0]["next"]) > 1


def test_a_hidden_npc_measured_exactly_shows_its_steps_and_unrolls_the_duel_once(
        monkeypatch):
    # the measure after a training: the duel unrolled, its equilibrium, the NPC's
    # best reply; the equilibrium reads the tree the measure unrolled
    import solver.hidden.sequence as sequence
    from agents.hidden_metrics import hidden_metrics
    unrolled = []
    real = sequence._unrolled
    monkeypatch.setattr(sequence, "_unrolled", lambda *a: unrolled.append(a) or real(*a))
    game = envs.make("falkenstein", max_rounds=1, hidden_levels=True)
    said = reports_of(lambda: hidden_metrics(game, solver.UniformPolicy(), "b"))
    steps = [(r.done, r.stage, r.finished) for r in said if r.tasks == (
        "measuring it exactly",)]
    assert steps[-1] == (3, "the best reply to the NPC", True)
    assert (1, "the duel unrolled", False) in steps and (2, "its equilibrium", False) in steps
    assert len(unrolled) == 1


def test_the_time_left_scales_the_time_taken(monkeypatch):
    clock = iter([0.0, 10.0, 10.0, 30.0, 40.0])
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    said = []
    with progress.listening(said.append):
        with progress.task("solving", 100, "counter values"):   # begins at 0 s
            progress.advance(1, "stage games")     # 1%: too little to scale
            progress.advance(24, "stage games")    # 25% in 10 s: 30 s left
            progress.advance(25)                   # 50% in 30 s: 30 s left
    assert [r.remaining for r in said] == [None, pytest.approx(30.0), pytest.approx(30.0), 0.0]
    assert said[1].stage == said[2].stage == "stage games"
    assert shown.work_text(said[1]) == ("solving: stage games 25% (25 of 100 counter "
                                        "values), about 30 s left")


def test_an_estimated_total_grows_with_the_work():
    said = []
    with progress.listening(said.append), progress.task("calibrating", 2, "solves"):
        for _ in range(3):
            progress.advance(1)
    assert [(r.done, r.total) for r in said] == [(1, 2), (2, 2), (3, 3), (3, 3)]


def test_an_exploration_says_the_states_found_so_far(monkeypatch):
    # how many states a duel has is not known before it is explored: no share, no time
    from solver.markov import graph
    monkeypatch.setattr(graph, "CHECK_EVERY", 50)
    game = envs.make("falkenstein", max_rounds=2)
    found = []
    said = reports_of(lambda: found.append(graph.explore(game)))
    assert said and {r.tasks for r in said} == {("exploring the duel",)}
    assert all(r.total is None and r.remaining in (None, 0.0) for r in said)
    done = [r.done for r in said]
    assert done == sorted(done) and len(done) >= 3
    assert said[-1].finished and said[-1].done == len(found[0].states)
    assert shown.work_text(said[0]) == f"exploring the duel: {said[0].done:,.0f} situations so far"


def report(elapsed, finished=False, tasks=("solving",)):
    return progress.Report(tasks, "stage games", 5, 10, "counter values", elapsed,
                           None if finished else 7.0, finished, ("",) * len(tasks),
                           None if finished else 7.0)


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def line_on_a_clock(monkeypatch, terminal):
    """A progress line on a string, made now on a clock the test moves."""
    clock = Clock()
    monkeypatch.setattr(shown.time, "monotonic", clock)
    stream = io.StringIO()
    return shown.WorkLine(stream, terminal), stream, clock


def test_the_line_is_quiet_at_first_redrawn_in_place_and_wiped(monkeypatch):
    monkeypatch.setattr(shown.shutil, "get_terminal_size", lambda: os.terminal_size((200, 24)))
    line, stream, clock = line_on_a_clock(monkeypatch, terminal=True)
    line(report(1.0))
    assert stream.getvalue() == ""   # a quick answer draws nothing
    clock.now += 3
    line(report(3.0))
    drawn = stream.getvalue()
    assert drawn.startswith("\rduel: solving: stage games 50% (5 of 10 counter values)")
    assert drawn.endswith("about 7 s left")
    line(report(3.1))   # too soon after the last: not redrawn
    assert stream.getvalue() == drawn
    clock.now += 1
    line(report(4.0, tasks=("calibrating", "solving")))
    assert stream.getvalue().count("\r") == 2
    line(report(5.0, finished=True, tasks=("calibrating", "solving")))   # inner: kept
    line(report(6.0, finished=True))
    assert stream.getvalue().endswith("\r" + " " * len(line_text(report(4.0, tasks=(
        "calibrating", "solving")))) + "\r")


def test_a_question_of_short_solves_is_shown_once_it_has_taken_long(monkeypatch):
    # four solves of 1.5 s each: none alone is long, the question is
    line, stream, clock = line_on_a_clock(monkeypatch, terminal=True)
    for _ in range(4):
        clock.now += 1.0
        line(report(1.0))
        clock.now += 0.5
        line(report(1.5, finished=True))
    # drawn from 2.5 s on: the second solve, the third and the fourth
    assert stream.getvalue().count("duel: solving") == 3


def test_a_line_longer_than_the_terminal_is_shortened_to_fit(monkeypatch):
    monkeypatch.setattr(shown.shutil, "get_terminal_size", lambda: os.terminal_size((80, 24)))
    line, stream, clock = line_on_a_clock(monkeypatch, terminal=True)
    clock.now += 3
    tasks = ("the odds", "calibrating strength 0.5", "solving")
    line(progress.Report(tasks, "stage games", 5, 10, "counter values", 3.0, 7.0, False,
                         ("step 1 of 4", "try 2 of 6", ""), 70.0))
    drawn = stream.getvalue()
    assert drawn == "\rduel: the odds (step 1 of 4) > solving: stage games 50%, about 70 s left"
    assert len(drawn) - 1 <= 79
    narrow = progress.Report(("solving",), "stage games", 5, 10, "counter values", 3.0, 7.0,
                             False, ("",), 7.0)
    assert shown.fitted(narrow, 20) == "solving: stage ga..."


def test_the_time_left_is_the_whole_questions_through_its_parts(monkeypatch):
    # two parts, the second weighing three times the first: half the first in 10 s is
    # 1/8 of the question (70 s left); half the second at 50 s is 5/8 of it (30 s left)
    def question(clock):
        with progress.task("the odds", 2, "steps", parts=True, weights=(1.0, 3.0)):
            solve_on(clock, 10.0, 20.0)
            progress.advance(1, "the equilibrium")
            solve_on(clock, 50.0, 80.0)
            progress.advance(1)
    said = reports_on_a_clock(monkeypatch, question)
    halves = [r for r in said if r.tasks == ("the odds", "solving") and r.done == 50]
    assert [(r.remaining, r.left, r.steps) for r in halves] == [
        (pytest.approx(10.0), pytest.approx(70.0), ("step 1 of 2", "")),
        (pytest.approx(30.0), pytest.approx(30.0), ("step 2 of 2", ""))]
    assert shown.work_text(halves[1]) == ("the odds (step 2 of 2) > solving: stage games 50% "
                                          "(50 of 100 counter values), about 30 s left")
    step = next(r for r in said if r.tasks == ("the odds",) and r.done == 1)
    assert step.stage == "the equilibrium" and step.left == pytest.approx(60.0)
    # the last part done: the last step, not a step past those expected
    assert [r.steps for r in said if r.tasks == ("the odds",)][-2:] == [
        ("step 2 of 2",), ("step 2 of 2",)]
    assert said[-1].finished and said[-1].tasks == ("the odds",) and said[-1].left == 0.0


def reports_on_a_clock(monkeypatch, work):
    """The reports of ``work(clock)``, timed by a clock at 0 s that it moves."""
    clock = Clock()
    clock.now = 0.0
    monkeypatch.setattr(progress.time, "monotonic", clock)
    return reports_of(lambda: work(clock))


def solve_on(clock, half, end):
    """A solve of 100 counter values, half done at ``half`` s, all at ``end``."""
    with progress.task("solving", 100, "counter values"):
        clock.now = half
        progress.advance(50, "stage games")
        clock.now = end
        progress.advance(50)


def test_a_part_that_runs_two_solves_keeps_the_most_of_it_seen(monkeypatch):
    # a step that solves, then pushes: its share does not fall back to 0 with the push
    def question(clock):
        with progress.task("the odds", 2, "steps", parts=True):
            solve_on(clock, 10.0, 20.0)
            solve_on(clock, 30.0, 40.0)
    said = reports_on_a_clock(monkeypatch, question)
    second_half = [r for r in said if r.tasks[-1] == "solving" and r.done == 50][1]
    # the step counted done (1 of 2) at 30 s: 30 s left, not the 90 s of its new half
    assert second_half.left == pytest.approx(30.0)


def test_past_the_parts_it_expected_a_task_says_no_time_left(monkeypatch):
    # a calibration's tries are an estimate: the seventh of six runs with no time said
    said = []
    with progress.listening(said.append):
        with progress.task("calibrating", 2, "tries", parts=True):
            progress.advance(1)
            progress.advance(1)
            with progress.task("solving", 100, "counter values"):
                progress.advance(50)
    third = said[-2]
    assert third.tasks == ("calibrating", "solving") and third.steps == ("try 3", "")
    assert third.left is None and third.remaining is not None
    assert shown.work_text(third) == ("calibrating (try 3) > solving 50% (50 of 100 "
                                      "counter values)")


def test_a_task_of_weighed_parts_has_one_weight_a_part():
    with pytest.raises(ValueError, match="2 weights for 3 parts"):
        with progress.task("the odds", 3, "steps", parts=True, weights=(1.0, 2.0)):
            pass


def line_text(r):
    return "duel: " + shown.work_text(r)


def test_a_log_gets_a_line_now_and_then(monkeypatch):
    line, stream, clock = line_on_a_clock(monkeypatch, terminal=False)
    for step in range(30):
        clock.now += 1
        line(report(3.0 + step))
    lines = stream.getvalue().splitlines()
    assert 2 <= len(lines) <= 3 and "\r" not in stream.getvalue()


def test_asked_for_progress_the_json_on_stdout_stays_one_document(capsys, monkeypatch):
    monkeypatch.setenv("DUEL_PROGRESS", "1")
    monkeypatch.setattr(shown, "QUIET_SECONDS", 0.0)
    monkeypatch.setattr(shown, "LOG_SECONDS", 0.0)
    assert main(["solve", "blooded", "--json", "--no-cache"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["system"] == "blooded"
    assert "duel: solving: stage games" in err and "counter values" in err


def test_no_progress_on_a_pipe_unless_asked(capsys, monkeypatch):
    monkeypatch.delenv("DUEL_PROGRESS", raising=False)
    monkeypatch.setattr(shown, "QUIET_SECONDS", 0.0)
    assert main(["solve", "blooded", "--json", "--no-cache"]) == 0
    assert "duel: solving" not in capsys.readouterr().err


def blooded():
    return envs.make("blooded", **envs.spec("blooded").examples.duel())


def test_an_opponent_made_in_the_background_plays_as_the_one_made_at_once():
    from agents.opponents import PreparedOpponent, opponent_policy
    game = blooded()
    prepared = PreparedOpponent("equilibrium", game, "b")
    heard = reports_of(prepared.policy)   # waiting relays the background's work
    assert heard and heard[-1].finished and heard[-1].tasks == ("solving",)
    direct = opponent_policy("equilibrium", blooded(), "b")
    state = game.initial_outcomes()[0][1]
    observation, mask = game.observe(state, "b"), game.legal_mask(state, "b")
    assert prepared.probabilities(observation, mask) == pytest.approx(
        direct.probabilities(observation, mask), abs=1e-12)


def test_an_error_making_the_opponent_is_raised_where_it_plays(monkeypatch):
    from agents import opponents

    def refuse(*args):
        raise solver.InputError("no such opponent")
    monkeypatch.setattr(opponents, "opponent_policy", refuse)
    prepared = opponents.PreparedOpponent("equilibrium", blooded(), "b")
    with pytest.raises(solver.InputError, match="no such opponent"):
        prepared.policy()


def test_an_opponent_no_longer_wanted_stops_at_its_next_step(tmp_path):
    from agents.opponents import PreparedOpponent
    from agents.store import AnswerStore
    from solver.cache import caching
    with caching(AnswerStore(tmp_path)):
        prepared = PreparedOpponent("equilibrium", blooded(), "b")
        prepared.cancel()
        prepared._thread.join(120)
    assert not prepared._thread.is_alive()
    assert prepared._policy is None and prepared._error is None
    assert not list(tmp_path.glob("*.answer"))   # stopped before its answer was kept


@pytest.mark.parametrize("side_by_side", [False, True])
def test_the_odds_say_their_step_and_the_whole_questions_time_left(capsys, monkeypatch,
                                                                   side_by_side):
    # the equilibrium, the opponent, the odds against it, the best response, its odds,
    # the plan's chances: each step's solves are shown inside it (the time left, the
    # question's: tested above); side by side, the best response is solved on a thread
    # of its own, unheard, while this one finds the odds against the opponent. Every
    # knockout ends in a win or a loss: the plan's chances are read off the best
    # response's values, no solve to show
    import solver.counters.play
    monkeypatch.setattr(solver.counters.play, "fits_side_by_side", lambda game: side_by_side)
    monkeypatch.setenv("DUEL_PROGRESS", "1")
    monkeypatch.setattr(shown, "QUIET_SECONDS", 0.0)
    monkeypatch.setattr(shown, "LOG_SECONDS", 0.0)
    heard = []
    real = shown.work_text
    monkeypatch.setattr(shown, "work_text", lambda r, *a: heard.append(r) or real(r, *a))
    assert main(["odds", "pathfinder", "--a", "fighter,hp=6", "--b", "rogue,hp=6",
                 "--vs", "bully:0.5", "--json", "--no-cache"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["vs"] == "bully:0.5"
    inside = [r for r in heard if r.tasks[0] == "the odds" and len(r.tasks) > 1]
    heard_in = {1, 2, 3, 5} if side_by_side else {1, 2, 3, 4, 5}
    assert {r.steps[0] for r in inside} == {f"step {n} of 6" for n in heard_in}
    assert any(r.tasks[1].startswith("calibrating") and r.steps[1].startswith("try ")
               for r in inside)
    assert "duel: the odds (step 1 of 6) > solving: stage games" in err
