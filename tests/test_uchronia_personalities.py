"""Each Uchronia temperament's description is a claim: its exact personality policy,
at strengths 0.25, 0.5, 0.75 and 1, does what the description says more (or less) than
the equilibrium, averaged over the states of the duel where the claim applies."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from agents import personality, personality_names
from solver import solve_game
from solver.game import policy_mix
from solver.markov.graph import build_graph

STRENGTHS = (0.25, 0.5, 0.75, 1.0)


@pytest.fixture(scope="module")
def games():
    """Small duels (the claims are about tendencies, not length): a duel-pistol duel
    from long range between a better and a plain shot (there the equilibrium does not
    always fire at once) and a bare-handed melee."""
    out = {
        "pistol": envs.make("uchronia", mode="pistol", a="tireur", b="",
                            start_band="grande", max_turns=5),
        "melee": envs.make("uchronia", mode="melee", a="athlete", b="colosse",
                           max_rounds=4),
    }
    return {mode: (game, solve_game(game)) for mode, game in out.items()}


def average(game, mix_at, actions, where) -> float:
    """Mean probability of ``actions`` over A's live states satisfying ``where`` at
    which one of them is legal and A has a real choice."""
    index = [game.action_names.index(a) for a in actions]
    total, count = 0.0, 0
    for state in build_graph(game).states:
        if game.is_terminal(state):
            continue
        mask = game.legal_mask(state, "a")
        if mask.sum() < 2 or not mask[index].any() or not where(game.observe(state, "a")):
            continue
        total += float(mix_at(state)[index].sum())
        count += 1
    assert count > 0
    return total / count


CLAIMS = [
    # (temperament, mode, actions, where (on A's observation), more than equilibrium?)
    ("hothead", "pistol", ("fire", "fire_moving"), lambda o: o[2] >= 2, True),
    ("hothead", "melee", ("fight",), lambda o: o[13] == 0, True),
    ("cold_shot", "pistol", ("fire", "fire_moving"), lambda o: o[2] >= 2, False),
    ("cold_shot", "pistol", ("aim", "advance"), lambda o: True, True),
    ("wrestler", "melee", ("grapple",), lambda o: o[13] == 0, True),
    ("wrestler", "pistol", ("advance", "fire_moving"), lambda o: True, True),
    ("prudent", "melee", ("break_off",), lambda o: o[13] == 0 and o[3] >= 1, True),
    ("prudent", "pistol", ("fire", "fire_moving"), lambda o: o[3] >= 1, False),
]


def test_every_temperament_has_claims():
    assert set(personality_names("uchronia")) == {c[0] for c in CLAIMS}


@pytest.mark.parametrize("name,mode,actions,where,more", CLAIMS,
                         ids=[f"{c[0]}-{c[1]}-{'+'.join(c[2])}" for c in CLAIMS])
def test_description_holds(games, name, mode, actions, where, more):
    game, solution = games[mode]
    equilibrium = average(game, lambda s: solution.policy(s)[0], actions, where)
    for strength in STRENGTHS:
        policy = personality(game, name, strength, side="a").policy
        played = average(game, lambda s, p=policy: policy_mix(p, game, s, "a"), actions,
                         where)
        if more:
            assert played > equilibrium + 1e-6, (strength, played, equilibrium)
        else:
            assert played < equilibrium - 1e-6, (strength, played, equilibrium)


def test_personality_descriptions_are_the_data():
    names = personality_names("uchronia")
    assert "long range" in names["hothead"] and "aims" in names["cold_shot"]
    assert np.isfinite(len(names))
