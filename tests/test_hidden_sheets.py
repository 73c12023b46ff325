"""Hidden sheets in every system (``envs.hidden``): a side's sheet drawn from a public
prior. The expected numbers are computed independently: the public duel's value by the
public-information solver (``solver.solve_game``, a different algorithm on a different
game), symmetry (mirrored priors), and the holder's guarantee (a side that knows his
sheet can play each sheet's public equilibrium, so he gets at least the prior-weighted
mean of his public values)."""

from __future__ import annotations

import math

import pytest

import envs
from solver import solve_game
from solver.errors import InputError
from solver.hidden.sequence import solve_hidden

#: per system: small duel options and two sheets for A (the prior's), B's sheet; each
#: hidden duel below unrolls into a few thousand points at most
DUELS = {
    "pathfinder": ({"victory": "first_blood", "max_rounds": 1},
                   ("fighter,hp=6", "fighter,hp=6,ac=14"), "rogue,hp=6"),
    "uchronia": ({"max_turns": 3}, ("adresse,tireur", "adresse"), "sang-froid"),
    "blooded": ({"max_beats": 1}, ("prowess=2,sword=1", "prowess=1,sword=1"),
                "prowess=1,sword=2"),
    "falkenstein": ({"max_rounds": 1}, ("fencing=GD", "fencing=EXC"), "fencing=GR"),
}
SYSTEMS = sorted(DUELS)


def public_value(system: str, a: str, b: str) -> float:
    options, _, _ = DUELS[system]
    return solve_game(envs.make(system, a=a, b=b, **options)).value


@pytest.mark.parametrize("system", SYSTEMS)
def test_one_sheet_at_weight_one_is_the_public_duel(system):
    options, (sheet, _), foe = DUELS[system]
    expected = public_value(system, sheet, foe)
    for hidden in ({"a_prior": [(sheet, 1.0)], "b": foe},
                   {"a": sheet, "b_prior": f"{foe}@1"},
                   {"a_prior": f"{sheet}@2", "b_prior": [(foe, 0.5)]}):
        solution = solve_hidden(envs.make(system, **hidden, **options))
        assert solution.value == pytest.approx(expected, abs=1e-9)
        assert solution.exploitability < 1e-6


@pytest.mark.parametrize("system", SYSTEMS)
def test_mirrored_priors_are_worth_nothing(system):
    options, sheets, _ = DUELS[system]
    prior = f"{sheets[0]}@0.3;{sheets[1]}@0.7"
    solution = solve_hidden(envs.make(system, a_prior=prior, b_prior=prior, **options))
    assert solution.value == pytest.approx(0.0, abs=1e-9)
    assert solution.exploitability < 1e-6


@pytest.mark.parametrize("system", SYSTEMS)
def test_information_never_hurts_the_side_that_holds_it(system):
    options, sheets, foe = DUELS[system]
    weights = (0.4, 0.6)
    prior = list(zip(sheets, weights, strict=True))
    solution = solve_hidden(envs.make(system, a_prior=prior, b=foe, **options))
    mean = math.fsum(w * public_value(system, sheet, foe) for sheet, w in prior)
    assert solution.value >= mean - 1e-9
    # each type's payoff, weighted by the prior, is the value
    types = solution.type_values("a")
    assert sorted(t.prior for t in types) == pytest.approx(sorted(weights))
    assert math.fsum(t.prior * t.value for t in types) == pytest.approx(solution.value,
                                                                        abs=1e-9)


def test_a_hidden_sheet_keeps_what_the_system_declares():
    """Pathfinder: the foe's HP are hidden, the damage dealt is seen (hp 6 to 4: 2 lost)."""
    game = envs.make("pathfinder", a_prior="fighter,hp=6@1;fighter,hp=9@1", b="rogue,hp=6",
                     max_rounds=1)
    fields = game.info.observation_fields
    start = {t: state for _, state in game.initial_outcomes()
             for t in [state.type_a]}
    hp = fields.index("opp_hp")
    for kind, state in start.items():
        assert game.observe(state, "b")[hp] == 0          # nothing lost yet, whatever HP
        assert game.observe(state, "a")[hp] == 6          # A sees B's public sheet
        assert game.observe(state, "a")[0] == kind        # his own sheet
    hurt = start[1]._replace(inner=start[1].inner._replace(hp_a=7))
    assert game.observe(hurt, "b")[hp] == 2
    assert game.observe(hurt, "a")[fields.index("own_hp")] == 7


def test_falkenstein_hidden_levels_is_a_prior_over_levels():
    """The option hidden_levels=true and a prior over Fencing levels are one game: the
    same tree and the same value (two sheets a side, one round)."""
    levels = envs.make("falkenstein", hidden_levels=True, max_rounds=1, prior_a="GD:1,GR:2",
                       prior_b="GD:1,EXC:1")
    sheets = envs.make("falkenstein", max_rounds=1, a_prior="fencing=GD@1;fencing=GR@2",
                       b_prior="fencing=GD@1;fencing=EXC@1")
    old, new = solve_hidden(levels), solve_hidden(sheets)
    assert new.value == pytest.approx(old.value, abs=1e-12)
    assert len(new.tree.node_state) == len(old.tree.node_state)
    assert len(new.tree.leaf_root) == len(old.tree.leaf_root)


@pytest.mark.parametrize("bad, named", [
    ({"a": "fighter", "a_prior": "rogue@1"}, "both a sheet"),
    ({"a_prior": "rogue@-1"}, "-1"),
    ({"a_prior": "rogue@inf"}, "inf"),
    ({"a_prior": "rogue@0;fighter@0"}, "positive weight"),
    ({"a_prior": "rogue@²"}, "ASCII"),
    ({"a_prior": [("rogue", True)]}, "True"),
    ({"a_prior": [("rogue", float("nan"))]}, "nan"),
    ({"a_prior": "wizard@1"}, "wizard"),
    ({"a_prior": []}, "non-empty"),
])
def test_bad_priors_are_refused_by_name(bad, named):
    with pytest.raises(InputError, match=named):
        envs.make("pathfinder", **bad)


def test_a_prior_needs_the_public_duel():
    with pytest.raises(InputError, match="hidden_levels"):
        envs.make("falkenstein", hidden_levels=True, a_prior="fencing=GD@1")
