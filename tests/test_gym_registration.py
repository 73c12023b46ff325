"""Gymnasium ids: ``duel/<system>-v0`` registered by ``envs`` with its own entry point,
``duel/<system>-npc-v0`` by ``agents`` for the opponents only ``agents`` can name; neither
package imports Gymnasium to register. Each case runs in a fresh process, since what is
imported first is what is tested."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: check_env, failing on any warning but the one about the env not being made by
#: gymnasium.make (it checks ``env.unwrapped``)
CHECK = """
import warnings
def checked(env):
    from gymnasium.utils.env_checker import check_env
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    return [str(w.message) for w in caught if "spec" not in str(w.message)]
"""


def run_fresh(script: str) -> dict:
    done = subprocess.run([sys.executable, "-c", CHECK + script], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def loaded(*modules: str) -> str:
    return "{" + ", ".join(f"{m!r}: {m!r} in sys.modules" for m in modules) + "}"


@pytest.mark.parametrize("first, then", [("envs", "gymnasium"), ("gymnasium", "envs")])
def test_envs_registers_its_own_entry_point_whichever_is_imported_first(first, then):
    found = run_fresh(f"""
import sys, json
import {first}
import {then}
env = gymnasium.make("duel/falkenstein-v0", opponent="equilibrium", illegal="uniform")
env.reset(seed=0)
print(json.dumps({{"entry": gymnasium.spec("duel/falkenstein-v0").entry_point,
                   "type": type(env.unwrapped).__name__, "warnings": checked(env),
                   "loaded": {loaded("agents", "torch")}}}))
""")
    assert found["entry"] == "envs.single:single_env"
    assert found["type"] == "SingleDuelEnv"
    assert found["warnings"] == []
    assert found["loaded"] == {"agents": False, "torch": False}


def test_importing_envs_imports_no_gymnasium_nor_the_solver_backends():
    found = run_fresh(f"""
import sys, json
import envs
game = envs.make("blooded")
print(json.dumps({loaded("gymnasium", "pettingzoo", "numba", "torch", "matplotlib",
                         "agents")}))
""")
    assert not any(found.values()), found


def test_envs_ids_refuse_a_personality_and_point_to_agents():
    found = run_fresh("""
import json
import envs, gymnasium
from solver.errors import InputError
try:
    gymnasium.make("duel/falkenstein-v0", opponent="cautious:0.5")
    said = None
except InputError as error:
    said = str(error)
print(json.dumps({"error": said}))
""")
    assert found["error"] is not None and "agents.load_profile" in found["error"]


def test_agents_registers_the_ids_that_take_a_personality():
    found = run_fresh("""
import json
import gymnasium
env = gymnasium.make("agents:duel/falkenstein-npc-v0", opponent="cautious:0.5",
                     illegal="uniform", b={"fencing": "GD"}, max_rounds=2)
env.reset(seed=0)
print(json.dumps({"entry": gymnasium.spec("duel/falkenstein-npc-v0").entry_point,
                  "opponent": env.unwrapped.opponent.name, "warnings": checked(env)}))
""")
    assert found["entry"] == "agents.gym:single_env"
    assert found["opponent"] == "cautious 0.5"
    assert found["warnings"] == []


def test_agents_then_gymnasium_registers_both_variants():
    found = run_fresh("""
import json
import agents
import gymnasium
print(json.dumps(sorted(name for name in gymnasium.registry if name.startswith("duel/"))))
""")
    systems = ["blooded", "falkenstein", "pathfinder", "uchronia"]
    assert found == sorted([f"duel/{s}-v0" for s in systems]
                           + [f"duel/{s}-npc-v0" for s in systems])
