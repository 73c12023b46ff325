"""The checks of the conformance suite can fail: each one on a toy game that breaks the
promise it checks, and passes on one that keeps it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import toy_dice
from contract import (
    assert_cycles_declared,
    assert_public_observations_determine_state,
    assert_sampler_exact_on_deterministic_steps,
)
from solver_games import LoopingPennies, MatrixThenChance
from toy_games import OneShotPennies, PenniesDuel

import envs
from envs.schema import Examples
from solver.errors import InputError
from solver.game import FAST_PATH_NEEDS, FAST_PATH_PROTOCOLS, check_game, protocol_methods
from solver.markov.graph import build_graph

# --- the fast paths are checked on the game itself -------------------------------------

#: each fast path's methods, written out (not read from the protocols under test)
FAST_PATH_METHODS = {"sample": ["sample"], "transitions": ["transitions"],
                     "graph": ["graph"],
                     "counters": ["counters", "core", "attach", "core_transitions",
                                  "depleted"],
                     "cores": ["cores"], "rolls": ["rolls"],
                     "counter_observations": ["observe_counters"]}


def declaring(game_class: type, *fast_paths: str) -> object:
    """An instance of ``game_class`` that declares ``fast_paths`` without adding their
    methods."""
    return type(f"Declares{game_class.__name__}", (game_class,),
                {"fast_paths": frozenset(fast_paths)})()


def test_the_protocols_name_the_methods_the_solver_calls():
    assert {path: list(protocol_methods(protocol))
            for path, protocol in FAST_PATH_PROTOCOLS.items()} == FAST_PATH_METHODS


@pytest.mark.parametrize("fast_path", list(FAST_PATH_METHODS))
def test_a_declared_fast_path_without_its_methods_is_refused(fast_path):
    needed = [FAST_PATH_NEEDS[fast_path]] if fast_path in FAST_PATH_NEEDS else []
    game = declaring(OneShotPennies, fast_path, *needed)
    with pytest.raises(InputError) as refused:
        check_game(game)
    message = str(refused.value)
    for method in FAST_PATH_METHODS[fast_path]:
        assert f"no method {method} (declared fast path {fast_path!r}" in message
    assert "OneShotPennies" in message


def test_a_fast_path_method_with_the_wrong_arguments_is_refused():
    class ShortSample(OneShotPennies):
        fast_paths = frozenset({"sample"})

        def sample(self, state):
            return self.outcomes(state, 0, 0)[0][1]

    with pytest.raises(InputError, match=r"sample must take \(state, action_a, action_b, "
                                         r"rng\)"):
        check_game(ShortSample())


def test_a_method_missing_from_the_protocol_is_named():
    class Mute(OneShotPennies):
        situation = None

    with pytest.raises(InputError, match=r"no method situation \(the protocol"):
        check_game(Mute())


def test_a_game_without_metadata_is_refused():
    class Undeclared:
        info = {"system": "toy"}

    with pytest.raises(InputError, match="object is not a duel game.*declares no metadata"):
        check_game(object())
    with pytest.raises(InputError, match="metadata as solver.game.GameInfo, got dict"):
        check_game(Undeclared())


def test_cores_need_counters():
    with pytest.raises(InputError, match="the cores fast path needs the counters fast path"):
        check_game(declaring(OneShotPennies, "cores"))


def test_the_declared_fast_paths_of_a_working_game_pass():
    assert check_game(PenniesDuel()).info.fast_paths == {"sample"}


def test_envs_make_checks_the_game_it_builds(monkeypatch):
    class Boasting(toy_dice.ToyDiceGame):
        def __init__(self, ruleset, options):
            super().__init__(ruleset, options)
            self.info = dataclasses.replace(self.info, fast_paths=frozenset({"graph"}))

    spec = dataclasses.replace(toy_dice.SYSTEM, name="toy_boasting",
                               build=lambda ruleset, options: Boasting(ruleset, options))
    monkeypatch.setitem(envs._REGISTERED, spec.name, spec)  # registered for this test only
    with pytest.raises(InputError, match=r"no method graph \(declared fast path 'graph'"):
        envs.make("toy_boasting")
    assert envs.make("toy_dice").info.fast_paths == frozenset()


# --- may_cycle -----------------------------------------------------------------------------

def test_a_game_that_cycles_must_say_so():
    class Unannounced(LoopingPennies):
        may_cycle = False

    game = Unannounced()
    with pytest.raises(AssertionError, match="may_cycle=False but its state graph has a "
                                             "cycle"):
        assert_cycles_declared(game, build_graph(game))


@pytest.mark.parametrize("game", [LoopingPennies(), MatrixThenChance()],
                         ids=["cycles, declared", "acyclic, not declared"])
def test_declared_cycles_pass(game):
    assert_cycles_declared(game, build_graph(game))


def test_a_game_that_may_cycle_need_not():
    class Cautious(MatrixThenChance):
        may_cycle = True

    game = Cautious()
    assert_cycles_declared(game, build_graph(game))


# --- public information -------------------------------------------------------------------

class ScorelessPennies(PenniesDuel):
    """Public, but the players do not see the score: two live states look alike."""

    def observe(self, state, player):
        return (state.turn, 0, state.lucky)


def test_public_observations_must_tell_states_apart():
    game = ScorelessPennies()
    with pytest.raises(AssertionError, match="declares public information, but a sees"):
        assert_public_observations_determine_state(game, build_graph(game).states)


def test_hidden_observations_may_not():
    game = PenniesDuel(hidden=True)
    states = build_graph(game).states
    b_views = {tuple(game.observe(s, "b")) for s in states if not game.is_terminal(s)}
    live = [s for s in states if not game.is_terminal(s)]
    assert len(b_views) < len(live)  # B cannot tell whether A holds the lucky coin
    assert_public_observations_determine_state(game, states)


def test_public_observations_of_the_toys_pass():
    for game in (PenniesDuel(), MatrixThenChance()):
        assert_public_observations_determine_state(game, build_graph(game).states)


# --- the sampler on deterministic steps ---------------------------------------------------

class StubbornSampler(OneShotPennies):
    """A sampler that always draws a match, though a mismatch is certain on (0, 1)."""

    fast_paths = frozenset({"sample"})

    def sample(self, state, action_a, action_b, rng):
        return ("match",)


class HonestSampler(StubbornSampler):
    def sample(self, state, action_a, action_b, rng):
        return ("match",) if action_a == action_b else ("miss",)


def test_a_sampler_must_draw_the_one_outcome():
    game = StubbornSampler()
    with pytest.raises(AssertionError, match="the sampler drew"):
        assert_sampler_exact_on_deterministic_steps(game, build_graph(game).states,
                                                    np.random.default_rng(1))


def test_an_exact_sampler_passes_every_deterministic_step():
    game = HonestSampler()
    # one live state, four joint actions, each with one outcome
    assert assert_sampler_exact_on_deterministic_steps(game, build_graph(game).states,
                                                       np.random.default_rng(1)) == 4


# --- the example variants -------------------------------------------------------------------

def test_a_variant_is_options_over_the_quick_duel():
    examples = Examples(sheet_a="x", sheet_b="y", state="", mix="",
                        quick={"rounds": 2, "mode": "plain"},
                        variants={"long": {"rounds": 5}, "brawl": {"mode": "brawl",
                                                                   "b": "z"}})
    assert examples.duel() == {"a": "x", "b": "y", "rounds": 2, "mode": "plain"}
    assert examples.duel("long") == {"a": "x", "b": "y", "rounds": 5, "mode": "plain"}
    assert examples.duel("brawl") == {"a": "x", "b": "z", "rounds": 2, "mode": "brawl"}
    with pytest.raises(InputError, match="unknown example variant 'short'; allowed: long, "
                                         "brawl"):
        examples.duel("short")
