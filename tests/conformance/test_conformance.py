"""The contract of ``solver.game``, checked on every registered system and on the toy
games: registering a system is what tests it.

Each system is tried on its own examples (``SystemSpec.examples``): the quick duel of
its two example sheets and every variant it declares (``example_duels``) for everything
that enumerates or solves, the same with mirrored sheets for the value 0 of a
symmetric duel, and the default duel for its state count. The checks of what a game
declares beyond the protocol's types are in ``contract``.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from contract import (
    assert_cycles_declared,
    assert_public_observations_determine_state,
    assert_sampler_exact_on_deterministic_steps,
)
from example_duels import (
    EXAMPLE_NAMES,
    EXAMPLES,
    FAVOURING_ONE_SIDE,
    SYSTEMS,
    example_game,
    example_name,
    example_options,
    ruleset_file,
)
from graphs import assert_same_cores, assert_same_graph
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import parallel_api_test, parallel_seed_test
from sampling import chi_square_pvalue, legal_pairs
from scipy.sparse.csgraph import connected_components
from solver_games import LoopingPennies, MatrixThenChance
from toy_games import OneShotPennies, PenniesDuel

import envs
from agents.cli import main
from solver import exploitability, solve_game
from solver.counters import walk
from solver.game import Game, check_game
from solver.hidden.sequence import estimate_size, hidden_exploitability, solve_hidden
from solver.markov.graph import build_graph, explore
from solver.solve import forcing

#: reachable states checked one by one (the quick duels are far smaller in general)
STATE_SAMPLE = 400
DRAWS = 600


def toy_games() -> dict[str, Game]:
    return {"pennies": PenniesDuel(), "hidden pennies": PenniesDuel(hidden=True),
            "one-shot pennies": OneShotPennies(), "matrix then chance": MatrixThenChance(),
            "looping pennies": LoopingPennies()}


#: each example game built once for the whole module, so its state graph is explored
#: once (``build_graph`` caches it per game); games are immutable rules
shared_game = functools.cache(example_game)
GAMES = {**{example_name(*example): (lambda example=example: shared_game(*example))
            for example in EXAMPLES},
         **{name: (lambda game=game: game) for name, game in toy_games().items()}}


@pytest.fixture(params=list(GAMES))
def game(request) -> Game:
    return GAMES[request.param]()


@pytest.fixture(params=SYSTEMS)
def system(request) -> str:
    return request.param


@pytest.fixture(params=EXAMPLES, ids=EXAMPLE_NAMES)
def example(request) -> tuple[str, str | None]:
    """A system and one of its example duels (None: the quick duel)."""
    return request.param


def sample_states(game: Game, limit: int = STATE_SAMPLE) -> list:
    """Reachable states, spread over the whole graph (every k-th in discovery order)."""
    states = build_graph(game).states
    return states[::max(1, len(states) // limit)]


def live_states(game: Game) -> list:
    return [s for s in sample_states(game) if not game.is_terminal(s)]


# --- declared metadata and the rules ------------------------------------------------

def test_metadata_is_declared_and_consistent(game):
    """Complete metadata, and every method of the protocol and of each declared fast
    path (``check_game``)."""
    info = check_game(game).info
    assert isinstance(game, Game)
    assert isinstance(info.public_information, bool)
    assert len(info.observation_fields) == len(set(info.observation_fields))


def test_outcome_probabilities_are_a_distribution(game):
    starts = game.initial_outcomes()
    assert all(p > 0 for p, _ in starts) and sum(p for p, _ in starts) == pytest.approx(1.0)
    for state in live_states(game):
        for a, b in legal_pairs(game, state):
            outcomes = game.outcomes(state, a, b)
            assert all(p > 0 for p, _ in outcomes), (state, a, b)
            assert sum(p for p, _ in outcomes) == pytest.approx(1.0, abs=1e-12), (state, a, b)
            assert len({s for _, s in outcomes}) == len(outcomes), "unmerged outcomes"


def test_declared_transitions_equal_outcomes(game):
    if not game.info.has("transitions"):
        pytest.skip(f"{game.info.system} declares no transitions fast path")
    for state in live_states(game):
        joint = {(a, b): sorted(outcomes, key=repr) for a, b, outcomes in game.transitions(state)}
        expected = {(a, b): sorted(game.outcomes(state, a, b), key=repr)
                    for a, b in legal_pairs(game, state)}
        assert joint.keys() == expected.keys()
        for pair, outcomes in expected.items():
            assert [s for _, s in joint[pair]] == [s for _, s in outcomes]
            assert np.allclose([p for p, _ in joint[pair]], [p for p, _ in outcomes])


def test_declared_graph_equals_exploration(game):
    if not game.info.has("graph"):
        pytest.skip(f"{game.info.system} declares no graph fast path")
    assert_same_graph(game.graph(), explore(game))


def test_declared_sampler_draws_from_outcomes(game):
    """Where there is chance, the draws fit the exact chances."""
    if not game.info.has("sample"):
        pytest.skip(f"{game.info.system} declares no sampler")
    rng = np.random.default_rng(2026)
    chancy = [(state, a, b) for state in live_states(game) for a, b in legal_pairs(game, state)
              if len(game.outcomes(state, a, b)) > 1]
    if not chancy:
        pytest.skip(f"{game.info.system}: no chance in these states")
    for state, a, b in chancy[:: max(1, len(chancy) // 6)]:
        draws = [game.sample(state, a, b, rng) for _ in range(DRAWS)]
        assert chi_square_pvalue(game.outcomes(state, a, b), draws) > 1e-3, (state, a, b)


def test_declared_sampler_is_exact_on_deterministic_steps(game):
    if not game.info.has("sample"):
        pytest.skip(f"{game.info.system} declares no sampler")
    checked = assert_sampler_exact_on_deterministic_steps(game, live_states(game),
                                                          np.random.default_rng(2026))
    if not checked:
        pytest.skip(f"{game.info.system}: every step in these states has chance")


def test_declared_cycles(game):
    assert_cycles_declared(game, build_graph(game))


def test_public_observations_determine_the_state(game):
    if not game.info.public_information:
        pytest.skip("hidden information: observations may not tell states apart")
    assert_public_observations_determine_state(game, build_graph(game).states)


def test_the_length_is_counted_in_units_that_cannot_be_skipped(game):
    """A duel's length counts its units (rounds, exchanges: ``starts_unit``). No duel
    ends before its first unit has begun, and within a unit play cannot cycle: every
    cycle of the state graph passes a unit's start, so a duel that goes on has a
    length that grows."""
    graph = build_graph(game)
    inside = ~graph.terminal & ~graph.unit_starts(game)
    links = graph.transitions.tocoo()
    source, target = graph.pair_state[links.row], links.col
    keep = inside[source] & inside[target]
    within = sp.csr_matrix((np.ones(keep.sum()), (source[keep], target[keep])),
                           shape=(graph.size, graph.size))
    count, _ = connected_components(within, directed=True, connection="strong")
    assert count == graph.size and not within.diagonal().any(), \
        "play can cycle without opening a new unit"
    before = (graph.start > 0) & inside        # reached before any unit has begun
    while True:
        grown = before | (within.T @ before > 0)
        if (grown == before).all():
            break
        before = grown
    ends_early = before[source] & graph.terminal[target]
    assert not ends_early.any(), "a duel can end before its first unit begins"


def test_observations_lie_within_their_declared_bounds(game):
    low = np.array(game.info.observation_low)
    high = np.array(game.info.observation_high)
    for state in sample_states(game):
        for player in ("a", "b"):
            observation = np.array(game.observe(state, player))
            assert observation.dtype.kind in "iu", (state, player)
            assert np.all(low <= observation) and np.all(observation <= high), (state, player)


def test_one_observation_one_mask(game):
    masks: dict = {}
    for state in live_states(game):
        for player in ("a", "b"):
            key = (player, tuple(game.observe(state, player)))
            mask = tuple(game.legal_mask(state, player))
            assert masks.setdefault(key, mask) == mask, (state, player)


def test_every_live_state_lets_both_players_act(game):
    for state in live_states(game):
        for player in ("a", "b"):
            assert np.asarray(game.legal_mask(state, player)).any(), (state, player)


def test_terminal_payoffs_lie_within_their_bounds(game):
    low, high = game.info.payoff_bounds
    graph = build_graph(game)
    assert np.all((low <= graph.payoff) & (graph.payoff <= high))


# --- presentation ---------------------------------------------------------------------

def test_presentation_speaks_words(game):
    for state in live_states(game)[:50]:
        texts = [game.describe(state), game.describe(state, "a"),
                 game.situation(state, "a"), game.situation(state, "b")]
        a, b = legal_pairs(game, state)[0]
        nxt = game.outcomes(state, a, b)[0][1]
        texts.append(game.narrate(state, a, b, nxt))
        for text in texts:
            assert isinstance(text, str) and text.strip()


def test_state_fields_read_back(example):
    """The fields read back to the state; with hidden information, to the same fields
    (a hidden duel's state may also keep what was played, Falkenstein's card history,
    which no field gives: a moment given by fields starts it afresh)."""
    game = shared_game(*example)
    for state in live_states(game)[:100]:
        fields = game.state_fields(state)
        assert all(isinstance(v, int | np.integer) for v in fields.values()), fields
        assert game.state_fields(game.state_from(fields)) == fields
        if game.info.public_information:
            assert game.state_from(fields) == state
            assert game.state_from({k: str(v) for k, v in fields.items()}) == state


# --- the environments -------------------------------------------------------------------

def test_pettingzoo_api(game):
    parallel_api_test(envs.parallel_env(game), num_cycles=60)


def test_pettingzoo_seed(game):
    parallel_seed_test(lambda: envs.parallel_env(game, illegal="uniform"), num_cycles=60)


def test_same_seed_same_trajectory(game):
    def episode():
        env = envs.parallel_env(game)
        observations, _ = env.reset(seed=7)
        rng = np.random.default_rng(7)
        trace = [env.duel_state]
        while env.agents:
            observations, *_ = env.step({p: int(rng.choice(np.flatnonzero(
                observations[p]["action_mask"]))) for p in env.agents})
            trace.append(env.duel_state)
        return trace
    assert episode() == episode()


@pytest.mark.parametrize("player", ["a", "b"])
def test_gymnasium_check_env(game, player):
    env = envs.single_env(game, opponent="uniform", player=player, illegal="uniform")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    assert [str(w.message) for w in caught if "spec" not in str(w.message)] == []


# --- exact solutions ----------------------------------------------------------------------

def test_mirrored_sheets_are_worth_nothing(example):
    system, variant = example
    if example in FAVOURING_ONE_SIDE:
        pytest.skip("the variant's rules favour one side")
    sheet = example_options(system, variant)["a"]
    game = envs.make(system, **example_options(system, variant, sheet, sheet))
    if not game.info.public_information:
        pytest.skip("the exact solution needs public information")
    assert solve_game(game).value == pytest.approx(0.0, abs=1e-9)


#: hidden duels the conformance suite solves exactly (the small hidden_sheet variants;
#: Falkenstein's uniform six-level prior takes minutes, tested in test_hidden.py)
HIDDEN_SOLVED = 200_000


def test_the_hidden_equilibrium_is_unexploitable(game):
    """A hidden duel small enough: its sequence-form equilibrium is unexploitable by an
    exact best response, and so are its policies on the observations (perfect recall,
    which every system's hidden sheets have)."""
    if game.info.public_information:
        pytest.skip("public information: test_the_solved_pair_is_unexploitable")
    if estimate_size(game) > HIDDEN_SOLVED:
        pytest.skip("a larger hidden duel: solved in test_hidden.py")
    solution = solve_hidden(game)
    assert 0 <= solution.exploitability < 1e-6
    if not all(solution.perfect_recall.values()):
        return  # a toy whose observation forgets: its equilibrium is no policy on it
    gap, value = hidden_exploitability(game, solution.policy_for("a"),
                                       solution.policy_for("b"))
    assert 0 <= gap < 1e-6
    assert value == pytest.approx(solution.value, abs=1e-9)


def test_the_solved_pair_is_unexploitable(game):
    if not game.info.public_information:
        pytest.skip("the exact solution needs public information")
    solution = solve_game(game)
    gap = exploitability(game, solution.policy_for("a"), solution.policy_for("b"))
    assert 0 <= gap.value < 1e-8


def test_default_duel_state_count(system, capsys):
    examples = envs.spec(system).examples
    game = envs.make(system, a=examples.sheet_a, b=examples.sheet_b)
    graph = build_graph(game)
    with capsys.disabled():
        print(f"\n{system}: {graph.size} reachable states in the default duel "
              f"({int((~graph.terminal).sum())} with a decision)")
    assert graph.size > 1


# --- the command line ---------------------------------------------------------------------

def cli_options(system: str, variant: str | None = None) -> list[str]:
    options = example_options(system, variant)
    sheets = ["--a", options.pop("a"), "--b", options.pop("b")]
    table = options.pop("ruleset", None)
    ruleset = ["--ruleset", ruleset_file(table)] if table is not None else []
    return [system, *sheets, *ruleset, *(f"-o{k}={v}" for k, v in options.items())]


@pytest.fixture
def public_example(example) -> tuple[str, str | None]:
    """An example duel the commands solve exactly (the hidden-information commands have
    their own tests: a hidden solve takes seconds)."""
    if not shared_game(*example).info.public_information:
        pytest.skip("hidden information: the commands are tested in test_cli_*")
    return example


@pytest.mark.parametrize("command", [["solve"], ["odds", "--vs", "uniform"],
                                     ["odds", "--vs", "equilibrium", "--side", "b"]])
def test_cli_answers(public_example, command, capsys):
    assert main([command[0], *cli_options(*public_example), *command[1:]]) == 0
    assert capsys.readouterr().out.strip()


def test_cli_solves_a_moment(system, capsys):
    """The example moment (``Examples.state``) is one of the quick duel."""
    state = envs.spec(system).examples.state
    assert main(["solve", *cli_options(system), "--state", state, "--json"]) == 0
    assert capsys.readouterr().out.strip()


def test_cli_plays_until_the_player_leaves(public_example, capsys):
    from agents.cli import build_parser, play
    args = build_parser().parse_args(["play", *cli_options(*public_example), "--vs",
                                      "uniform", "--seed", "1"])
    answers = iter(["1", "2", "1", "q"])
    assert play.run(args, read=lambda prompt: next(answers)) == 0
    assert capsys.readouterr().out.strip()


def test_cli_lists_the_system(system, capsys):
    import json
    assert main(["systems", "--json"]) == 0
    listed = {entry["name"]: entry for entry in json.loads(capsys.readouterr().out)}
    assert listed[system]["status"] == "implemented"


def test_cli_trains_a_profile_that_plays(public_example, tmp_path, capsys):
    profile = tmp_path / "npc.json"
    options = cli_options(*public_example)
    assert main(["train", *options, "--iterations", "200", "--out", str(profile)]) == 0
    assert main(["profile", "show", str(profile)]) == 0
    assert main(["odds", *options, "--vs", str(profile)]) == 0
    assert capsys.readouterr().out.strip()


# --- counters (hit points solved as array axes) ----------------------------------------

COUNTER_SYSTEMS = [s for s in SYSTEMS if envs.spec(s).examples.counters]


@pytest.fixture(params=COUNTER_SYSTEMS or [None])
def counter_game(request) -> Game:
    if request.param is None:
        pytest.skip("no system gives a counters example")
    game = envs.make(request.param, **envs.spec(request.param).examples.counters)
    assert game.info.has("counters"), "the counters example must declare the fast path"
    return game


def test_core_transitions_equal_outcomes(counter_game):
    """Every live state's outcomes, rebuilt from its core's transitions: counters
    lowered by the decrements, or the depleted end where one falls to 0."""
    game = counter_game
    for state in live_states(game):
        hp = np.asarray(game.counters(state))
        assert game.attach(game.core(state), hp) == state
        mask_a, mask_b = game.legal_mask(state, "a"), game.legal_mask(state, "b")
        rebuilt = {}
        for a, b, outcomes in game.core_transitions(game.core(state)):
            assert mask_a[a] and mask_b[b]
            merged: dict = {}
            for p, core, decrement in outcomes:
                after = hp - np.asarray(decrement)
                low = np.flatnonzero(after <= 0)
                nxt = game.depleted(int(low[0])) if len(low) else game.attach(core, after)
                merged[nxt] = merged.get(nxt, 0.0) + p
            rebuilt[a, b] = merged
        assert set(rebuilt) == set(legal_pairs(game, state))
        for (a, b), merged in rebuilt.items():
            expected = dict((s, p) for p, s in game.outcomes(state, a, b))
            assert merged.keys() == expected.keys()
            assert np.allclose([merged[s] for s in expected], list(expected.values()))


def test_counter_example_declares_its_cycles(counter_game):
    """The counters example may be endless (no turn cap): its graph, checked as well."""
    assert_cycles_declared(counter_game, build_graph(counter_game))


def test_declared_cores_equal_the_walk(counter_game):
    """The ``cores`` fast path finds what the walk through ``core_transitions`` finds."""
    game = counter_game
    if not game.info.has("cores"):
        pytest.skip(f"{game.info.system} declares no cores fast path")
    assert_same_cores(game.cores(), walk(game))


def test_observations_at_many_counters_are_each_states_observation(counter_game):
    """The ``counter_observations`` fast path sees at a core holding each counter value
    what ``observe`` sees at that state."""
    game = counter_game
    if not game.info.has("counter_observations"):
        pytest.skip(f"{game.info.system} declares no counter_observations fast path")
    states = live_states(game)
    tops = np.max([game.counters(state) for state in states], axis=0)
    points = np.stack(np.meshgrid(*[np.arange(1, top + 1) for top in tops],
                                  indexing="ij"), axis=-1).reshape(-1, len(tops))
    for core in {game.core(state) for state in states}:
        for player in ("a", "b"):
            seen = game.observe_counters(core, points, player)
            assert seen.tolist() == [list(game.observe(game.attach(core, point), player))
                                     for point in points]


def test_counter_solver_agrees_with_the_state_graph(counter_game):
    """The same value and maximum-entropy mixes at every reachable state as the generic
    solver (the state graph's, forced)."""
    game = counter_game
    (_, start), = game.initial_outcomes()
    fast = solve_game(game)
    with forcing("states"):
        generic = solve_game(game, start=start)
    assert fast.value == pytest.approx(generic.value, abs=1e-8)
    for key in ("win", "draw", "loss", "expected_length"):
        assert getattr(fast, key) == pytest.approx(getattr(generic, key), abs=1e-8), key
    for label, p in generic.endings.items():
        assert fast.endings.get(label, 0.0) == pytest.approx(p, abs=1e-8), label
    assert np.allclose(fast.stage_matrix(start), generic.stage_matrix(start), atol=1e-8,
                       equal_nan=True)
    for s, state in enumerate(generic.graph.states):
        if game.is_terminal(state):
            continue
        assert fast.value_at(state) == pytest.approx(generic.values[s], abs=1e-8)
        mix_a, mix_b = fast.policy(state)
        assert np.abs(mix_a - generic.mix_a[s]).max() < 1e-8, state
        assert np.abs(mix_b - generic.mix_b[s]).max() < 1e-8, state
