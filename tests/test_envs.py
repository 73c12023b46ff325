"""The PettingZoo and Gymnasium adapters, on toy games and on Castle Falkenstein."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import parallel_api_test, parallel_seed_test
from sampling import chi_square_pvalue, legal_pairs
from toy_games import GAMBIT_TURN, HEADS, TAILS, WAIT, OneShotPennies, Pennies, PenniesDuel

import envs
from envs.opponents import resolve_opponent
from solver.errors import InputError
from solver.game import policy_mix
from solver.policy import MixPolicy, UniformPolicy

FALKENSTEIN_SHEETS = {"a": {"fencing": "AV"}, "b": {"fencing": "GD"}}


@pytest.fixture
def falkenstein():
    return envs.make("falkenstein", **FALKENSTEIN_SHEETS)


def masked_policy(seed: int):
    """Uniform over the legal actions, from its own seeded stream."""
    rng = np.random.default_rng(seed)
    return lambda obs: int(rng.choice(np.flatnonzero(obs["action_mask"])))


def parallel_episode(env, seed: int, policy_seed: int = 0):
    choose = masked_policy(policy_seed)
    observations, _ = env.reset(seed=seed)
    trace = [env.duel_state]
    totals = {"a": 0.0, "b": 0.0}
    infos = {}
    while env.agents:
        actions = {p: choose(observations[p]) for p in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for p in rewards:
            totals[p] += rewards[p]
            assert env.observation_space(p).contains(observations[p])
        assert not any(truncations.values())
        trace.append(env.duel_state)
    return trace, totals, infos


def single_episode(env, seed: int, policy_seed: int = 0):
    choose = masked_policy(policy_seed)
    observation, info = env.reset(seed=seed)
    trace, total, over = [env.state], 0.0, False
    while not over:
        assert env.observation_space.contains(observation)
        observation, reward, over, truncated, info = env.step(choose(observation))
        assert not truncated
        total += reward
        trace.append(env.state)
    return trace, total, info


def quiet_check_env(env):
    """check_env, failing on any warning except the one about a missing spec."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    messages = [str(w.message) for w in caught if "not having a spec" not in str(w.message)]
    assert messages == []


# --- PettingZoo ---------------------------------------------------------------------

@pytest.mark.parametrize("game", [PenniesDuel(), PenniesDuel(hidden=True), OneShotPennies()])
def test_parallel_api(game):
    parallel_api_test(envs.parallel_env(game), num_cycles=50)


@pytest.mark.parametrize("game", [PenniesDuel(), PenniesDuel(hidden=True)])
def test_parallel_seed(game):
    # the seed test samples without the mask, so illegal actions are replaced
    parallel_seed_test(lambda: envs.parallel_env(game, illegal="uniform"), num_cycles=50)


def test_parallel_metadata_and_spaces():
    env = envs.parallel_env(PenniesDuel())
    assert env.metadata["name"] == "duel_toy_pennies_v0"
    assert env.metadata["render_modes"] == ["ansi"]
    assert env.metadata["is_parallelizable"] is True
    assert env.possible_agents == ["a", "b"]
    assert env.action_space("a").n == 3
    space = env.observation_space("b")
    assert space["observation"].dtype == np.int64
    assert list(space["observation"].low) == [0, -4, -1]


def test_parallel_rewards_are_zero_sum_and_paid_at_the_end():
    env = envs.parallel_env(PenniesDuel())
    for seed in range(20):
        trace, totals, infos = parallel_episode(env, seed, policy_seed=seed)
        end = trace[-1]
        assert totals["a"] == PenniesDuel().payoff(end) == -totals["b"]
        assert infos["a"]["result"] == infos["b"]["result"] == PenniesDuel().result(end)
        assert len(trace) == 5  # four steps, the call included


def test_parallel_terminal_observation_has_no_legal_action():
    env = envs.parallel_env(OneShotPennies())
    env.reset(seed=0)
    observations, rewards, terminations, _, _ = env.step({"a": 0, "b": 1})
    assert terminations == {"a": True, "b": True}
    assert rewards == {"a": -1.0, "b": 1.0}
    assert not observations["a"]["action_mask"].any()
    assert env.agents == []
    with pytest.raises(InputError, match="reset"):
        env.step({"a": 0, "b": 0})


def test_parallel_illegal_action_names_the_legal_ones():
    env = envs.parallel_env(PenniesDuel())
    env.reset(seed=0)
    with pytest.raises(InputError, match=r"illegal action wait .*legal: heads \(0\), tails \(1\)"):
        env.step({"a": WAIT, "b": HEADS})
    with pytest.raises(InputError, match="action 7 of B"):
        env.step({"a": HEADS, "b": 7})
    with pytest.raises(InputError, match="action 1.5"):
        env.step({"a": 1.5, "b": 0})
    with pytest.raises(InputError, match="no action for agent 'b'"):
        env.step({"a": HEADS})
    with pytest.raises(InputError, match="unknown agents"):
        env.step({"a": HEADS, "b": HEADS, "c": HEADS})


def test_parallel_uniform_mode_replaces_and_reports_illegal_actions():
    env = envs.parallel_env(PenniesDuel(), illegal="uniform")
    env.reset(seed=0)
    _, _, _, _, infos = env.step({"a": WAIT, "b": HEADS})
    assert infos["a"] == {"illegal_action": "wait"}
    assert env.exchanges[-1][1] in (HEADS, TAILS)


def test_parallel_forced_wait_may_be_left_out_and_names_are_accepted():
    env = envs.parallel_env(PenniesDuel())
    env.reset(seed=0, options={"state": Pennies(GAMBIT_TURN, 0, 0)})
    env.step({"b": "tails"})
    assert env.exchanges[-1][1:3] == (WAIT, TAILS)
    with pytest.raises(InputError, match="unknown action of A 'pass'"):
        env.step({"a": "pass", "b": "heads"})


def test_parallel_seeded_episodes_repeat():
    env = envs.parallel_env(PenniesDuel(hidden=True))
    first = parallel_episode(env, seed=7)
    again = parallel_episode(env, seed=7)
    assert first[0] == again[0]
    traces = {tuple(parallel_episode(env, seed=s)[0]) for s in range(30)}
    assert len(traces) > 1


def test_parallel_unseeded_reset_continues_the_seeded_stream():
    def two_episodes():
        env = envs.parallel_env(PenniesDuel(hidden=True))
        first = parallel_episode(env, seed=3)[0]
        choose = masked_policy(0)
        observations, _ = env.reset()
        second = [env.duel_state]
        while env.agents:
            observations, *_ = env.step({p: choose(observations[p]) for p in env.agents})
            second.append(env.duel_state)
        return first, second
    assert two_episodes() == two_episodes()


def test_parallel_ansi_render_narrates_the_exchange():
    env = envs.parallel_env(PenniesDuel(), render_mode="ansi")
    env.reset(seed=0)
    assert "begins" in env.render()
    env.step({"a": HEADS, "b": TAILS})
    text = env.render()
    assert "A plays heads, B plays tails" in text
    assert "Coins show heads and tails" in text
    assert "Turn 1 of 4" in text


def test_render_without_narrate_or_describe_falls_back():
    env = envs.parallel_env(OneShotPennies(), render_mode="ansi")
    env.reset(seed=0)
    env.step({"a": 1, "b": 1})
    text = env.render()
    assert "A plays tails, B plays tails" in text
    assert "The duel is over: A matches" in text


def test_render_without_mode_returns_none():
    env = envs.parallel_env(OneShotPennies())
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert env.render() is None


def test_parallel_global_state_joins_both_views():
    env = envs.parallel_env(PenniesDuel(hidden=True))
    env.reset(seed=0, options={"state": Pennies(0, 0, 1)})
    assert list(env.state()) == [0, 0, 1, 0, 0, -1]
    assert env.state_space.contains(env.state())


def test_bad_construction_is_an_input_error():
    with pytest.raises(InputError, match="only when the game is built by name"):
        envs.parallel_env(PenniesDuel(), max_rounds=3)
    with pytest.raises(InputError, match="render mode"):
        envs.parallel_env(PenniesDuel(), render_mode="human")
    with pytest.raises(InputError, match="illegal-action mode"):
        envs.parallel_env(PenniesDuel(), illegal="ignore")
    with pytest.raises(InputError, match="no opponent"):
        envs.parallel_env(PenniesDuel(), opponent="uniform")
    with pytest.raises(InputError, match="not a duel game"):
        envs.parallel_env(object())
    with pytest.raises(InputError, match="system"):
        envs.parallel_env("chess")
    with pytest.raises(InputError, match="player"):
        envs.single_env(PenniesDuel(), player="c")


# --- exact against sampled ----------------------------------------------------------

def sampled_next_states(env, state, a: int, b: int, n: int) -> list:
    draws = []
    for _ in range(n):
        env.reset(options={"state": state})
        env.step({"a": a, "b": b})
        draws.append(env.duel_state)
    return draws


def assert_env_samples_outcomes(game, states, n: int, seed: int = 12345) -> None:
    env = envs.parallel_env(game)
    env.reset(seed=seed)
    for state in states:
        for a, b in legal_pairs(game, state):
            draws = sampled_next_states(env, state, a, b, n)
            p = chi_square_pvalue(game.outcomes(state, a, b), draws)
            assert p > 1e-3, (state, a, b, p)


def test_toy_transitions_match_outcomes():
    states = [Pennies(0, 0, 0), Pennies(0, 0, 1), Pennies(1, -1, 0), Pennies(GAMBIT_TURN, 2, 1)]
    assert_env_samples_outcomes(PenniesDuel(hidden=True), states, n=1200)


def test_toy_initial_draw_matches_initial_outcomes():
    game = PenniesDuel(hidden=True)
    env = envs.parallel_env(game)
    env.reset(seed=99)
    draws = []
    for _ in range(2000):
        env.reset()
        draws.append(env.duel_state)
    assert chi_square_pvalue(game.initial_outcomes(), draws) > 1e-3


def test_chi_square_helper_rejects_a_wrong_distribution():
    rng = np.random.default_rng(0)
    draws = list(rng.choice(["x", "y"], size=2000, p=[0.7, 0.3]))
    assert chi_square_pvalue([(0.5, "x"), (0.5, "y")], draws) < 1e-6


# --- Gymnasium ----------------------------------------------------------------------

@pytest.mark.parametrize("player", ["a", "b"])
def test_single_env_passes_check_env(player):
    quiet_check_env(envs.single_env(PenniesDuel(hidden=True), player=player, illegal="uniform",
                                    render_mode="ansi"))
    quiet_check_env(envs.single_env(OneShotPennies(), player=player))


def test_single_env_exposes_game_and_state():
    env = envs.single_env(PenniesDuel(), player="b")
    env.reset(seed=0)
    assert isinstance(env.game, PenniesDuel)
    assert env.state == Pennies(0, 0, 0) == env.duel_state
    assert isinstance(env.opponent, UniformPolicy)


@pytest.mark.parametrize("player", ["a", "b"])
def test_single_env_reward_is_the_learners_payoff(player):
    env = envs.single_env(PenniesDuel(), player=player)
    sign = 1 if player == "a" else -1
    for seed in range(20):
        trace, total, info = single_episode(env, seed, policy_seed=seed)
        assert total == sign * env.game.payoff(trace[-1])
        assert info["result"] == env.game.result(trace[-1])


def test_single_env_skips_the_learners_forced_waits():
    env = envs.single_env(PenniesDuel(), player="a")
    trace, _, _ = single_episode(env, seed=1)
    assert GAMBIT_TURN not in [state.turn for state in trace]
    assert len(trace) == 4  # three decisions
    env = envs.single_env(PenniesDuel(), player="a", skip_forced=False)
    observation, _ = env.reset(seed=1, options={"state": Pennies(GAMBIT_TURN, 0, 0)})
    assert list(observation["action_mask"]) == [0, 0, 1]
    with pytest.raises(InputError, match="illegal action heads .*legal: wait"):
        env.step(HEADS)
    env.step(WAIT)
    assert env.state.turn == GAMBIT_TURN + 1


def test_single_env_learner_b_makes_the_call():
    env = envs.single_env(PenniesDuel(), player="b")
    observation, _ = env.reset(seed=0, options={"state": Pennies(GAMBIT_TURN, 0, 0)})
    assert list(observation["action_mask"]) == [1, 1, 0]
    _, _, _, _, info = env.step(HEADS)
    assert info["opponent_actions"] == ("wait",)


def test_single_env_illegal_and_out_of_range_actions():
    env = envs.single_env(PenniesDuel())
    env.reset(seed=0)
    with pytest.raises(InputError, match=r"illegal action wait .*heads \(0\), tails \(1\)"):
        env.step(WAIT)
    with pytest.raises(InputError, match="allowed: 0..2"):
        env.step(-1)


def test_single_env_seeded_episodes_repeat():
    env = envs.single_env(PenniesDuel(hidden=True), player="b")
    assert single_episode(env, seed=5) == single_episode(env, seed=5)
    traces = {tuple(single_episode(env, seed=s)[0]) for s in range(30)}
    assert len(traces) > 1


def test_single_env_ansi_render_mentions_every_exchange_of_the_step():
    env = envs.single_env(PenniesDuel(), player="a", opponent="mix=tails:1",
                          render_mode="ansi")
    env.reset(seed=0, options={"state": Pennies(1, 0, 0)})
    env.step(HEADS)  # then B's call is played for A, who can only wait
    text = env.render()
    assert "A plays heads, B plays tails" in text
    assert "A plays wait, B plays tails" in text
    assert "B calls tails" in text


def test_mix_opponent_is_played_masked():
    env = envs.single_env(PenniesDuel(), player="a", opponent="mix=heads:1")
    assert isinstance(env.opponent, MixPolicy)
    for seed in range(5):
        env.reset(seed=seed)
        over, seen = False, []
        while not over:
            _, _, over, _, info = env.step(TAILS)
            seen += info["opponent_actions"]
        assert set(seen) == {"heads"}


def test_set_opponent_switches_policy():
    env = envs.single_env(PenniesDuel(), player="b")
    env.set_opponent("mix=tails:1")
    env.reset(seed=0)
    _, _, _, _, info = env.step(HEADS)
    assert info["opponent_actions"] == ("tails",)


def test_policy_object_opponent_is_used_as_is():
    policy = MixPolicy({"heads": 1.0, "tails": 3.0}, PenniesDuel.action_names)
    assert resolve_opponent(policy, PenniesDuel(), "b") is policy
    game = PenniesDuel()
    mix = policy_mix(policy, game, Pennies(0, 0, 0), "b")
    assert mix == pytest.approx([0.25, 0.75, 0.0])


@pytest.mark.parametrize("spec", ["bogus", 42, None, "heads:1"])
def test_bad_opponent_spec_lists_the_accepted_forms(spec):
    with pytest.raises(InputError) as error:
        envs.single_env(PenniesDuel(), opponent=spec)
    message = str(error.value)
    for form in ("uniform", "equilibrium", "mix=", "agents.load_profile"):
        assert form in message


def test_mix_opponent_with_unknown_action_is_an_input_error():
    with pytest.raises(InputError, match="unknown action 'AA'"):
        envs.single_env(PenniesDuel(), opponent="mix=AA:1")


def test_equilibrium_of_hidden_game_is_not_available():
    with pytest.raises(InputError, match="not available yet"):
        resolve_opponent("equilibrium", PenniesDuel(hidden=True), "b")


def test_equilibrium_opponent_plays_the_solved_mix():
    game = PenniesDuel()
    env = envs.single_env(game, player="a", opponent="equilibrium")
    assert policy_mix(env.opponent, game, Pennies(0, 0, 0), "b") == pytest.approx(
        [0.5, 0.5, 0.0])
    # the coin falls heads 3 times in 5, so B calls heads
    assert policy_mix(env.opponent, game, Pennies(GAMBIT_TURN, 0, 0), "b") == pytest.approx(
        [1.0, 0.0, 0.0])
    single_episode(env, seed=0)


def test_falkenstein_episodes_repeat_and_pay_at_the_end(falkenstein):
    env = envs.parallel_env(falkenstein, render_mode="ansi")
    trace, totals, infos = parallel_episode(env, seed=11)
    assert trace == parallel_episode(env, seed=11)[0]
    assert totals["a"] == falkenstein.payoff(trace[-1]) == -totals["b"]
    assert infos["a"]["result"] == falkenstein.result(trace[-1])
    text = env.render()
    last = env.exchanges[-1]
    said = envs.spec("falkenstein").action_words(falkenstein, trace[-1],
                                                  falkenstein.action_names[last[1]])
    assert f"A plays {said}" in text


def test_falkenstein_gymnasium_make(falkenstein):
    env = gymnasium.make("duel/falkenstein-v0", opponent="uniform", **FALKENSTEIN_SHEETS)
    assert env.unwrapped.game.system == "falkenstein"
    trace, total, info = single_episode(env.unwrapped, seed=3)
    assert total == falkenstein.payoff(trace[-1])
    env.close()


def test_falkenstein_illegal_action_is_an_input_error(falkenstein):
    env = envs.parallel_env(falkenstein)
    env.reset(seed=0)
    # Average Fencing owes two Rests a round: after two restless exchanges only RR is left
    env.step({"a": "AA", "b": "DD"})
    env.step({"a": "AA", "b": "DD"})
    with pytest.raises(InputError, match=r"illegal action AA \(index 0\) for A .*legal: RR"):
        env.step({"a": "AA", "b": "RR"})


def test_falkenstein_hidden_levels_initial_draw(falkenstein):
    game = envs.make("falkenstein", hidden_levels=True, **FALKENSTEIN_SHEETS)
    env = envs.parallel_env(game)
    env.reset(seed=8)
    draws = []
    for _ in range(3000):
        env.reset()
        draws.append(env.duel_state)
    assert chi_square_pvalue(game.initial_outcomes(), draws) > 1e-3


def test_falkenstein_hidden_levels_refuse_the_equilibrium(falkenstein):
    with pytest.raises(InputError, match="not available yet"):
        envs.single_env("falkenstein", opponent="equilibrium", hidden_levels=True)


def test_a_draw_pays_plus_zero_to_both_sides():
    import math
    game = envs.make("falkenstein", a={"fencing": "GD"}, b={"fencing": "GD"}, max_rounds=1)
    env = envs.parallel_env(game)
    env.reset(seed=0)
    rewards = {}
    while env.agents:  # both always Rest: nobody is touched, the duel is a draw on time
        _, rewards, *_ = env.step({"a": "RR", "b": "RR"})
    assert rewards == {"a": 0.0, "b": 0.0}
    assert all(math.copysign(1.0, r) == 1.0 for r in rewards.values())
    single = envs.single_env(game, opponent="mix=RR:1", player="b")
    single.reset(seed=0)
    over, reward = False, None
    while not over:
        _, reward, over, *_ = single.step("RR")
    assert reward == 0.0 and math.copysign(1.0, reward) == 1.0


def test_gymnasium_make_in_a_fresh_process_takes_every_opponent_form(tmp_path):
    # Gymnasium's module prefix imports agents first, which registers the ids whose
    # opponent may be a profile path or a personality, as everywhere else
    import subprocess
    import sys
    profile = tmp_path / "npc.json"
    from agents.cli import main
    assert main(["train", "falkenstein", "-o", "max_rounds=1", "--them", "fencing=GD",
                 "--personality", "cautious", "--out", str(profile)]) == 0
    script = (
        "import gymnasium\n"
        f"for opponent in ({str(profile)!r}, 'cautious:0.5', 'uniform'):\n"
        "    env = gymnasium.make('agents:duel/falkenstein-npc-v0', opponent=opponent,\n"
        "                         b={'fencing': 'GD'}, max_rounds=1)\n"
        "    observation, info = env.reset(seed=0)\n"
        "    print(type(env.unwrapped).__name__)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["SingleDuelEnv"] * 3
