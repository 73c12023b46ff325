"""How large an Uchronia duel's exact solution is, from its sheets, options and rules
alone (``SystemSpec.footprint``), in microseconds and before any state is explored.

Both modes are solved over their state graph, whose states grow linearly with the turns
(or rounds) allowed, from a few on: each turn holds at most the same situations.

- A pistol turn's situations are a distance band (those up to the start: the duellists
  only close in), both healths (``health.out_level`` each), both loads (0 to each
  firearm's shots) and both aims (for a firearm that can aim). Their product is counted
  at every turn: the turns after the first few reach 86% of it (6,084 of 7,056 with two
  revolvers from ``grande``), the first ones less.
- A melee round's situations are both healths, both fumbles, the winner's choice after
  a roll, and the grapple penalty each side can suffer: up to his fighting pool, where
  his foe is unarmed (an armed fighter cannot grapple), none otherwise. They are counted
  as ``MELEE_PER_ROUND * health levels ** 2 * (penalties_a * penalties_b) **
  MELEE_GROWTH``, a fit through the states ``solver.markov.graph`` adds a round between
  10 and 30 rounds (72 a round with no penalty possible; 808 with two pools of 3
  unarmed, 1,535 for 5 and 3, 2,327 for 7 and 3, 6,451 for 7 and 7 (6,608 from 30 to
  60); 276 and 360 with one side armed), kept above each (by 0% to 32%).

The peak memory is the process and, per state, the graph (its outcomes: about 58 a
state in a pistol duel, 17 in a melee) with the solution's arrays; the constants are fits
to ``/usr/bin/time`` runs recorded beside them, kept above every one: a duel near the
ceiling may be refused though it would fit, rather than let through though it does not.
"""

from __future__ import annotations

import math

from envs.schema import Footprint

from .state import other

#: the process before any duel (the interpreter, numpy, scipy, numba)
IMPORTS_BYTES = 250 * 2**20
#: peak bytes per pistol state counted: ``duel solve``, two revolvers from ``grande``,
#: measured / said (GB): 40 turns 1.29 / 1.71, 80 turns 2.66 / 3.12, 200 turns 7.02 / 7.35
#: (the bytes per state grow with the duel: the fit is to the longest)
PISTOL_BYTES_PER_STATE = 5_000
#: seconds per pistol state counted (13.8 s at 40 turns, 30.3 s at 80, 94.5 s at 200)
PISTOL_SECONDS_PER_STATE = 7e-5
#: a melee round's situations (see the module)
MELEE_PER_ROUND, MELEE_GROWTH = 8.0, 1.17
#: peak bytes and seconds per melee state counted: ``duel solve``, two unarmed fighters
#: with pools of 7, measured / said: 60 rounds 0.75 / 1.01 GB and 15.2 s, 200 rounds
#: 2.52 / 2.74 GB and 50.1 s
MELEE_BYTES_PER_STATE = 1_800
MELEE_SECONDS_PER_STATE = 4e-5


def pistol_states(game) -> int:
    """The states counted for a pistol duel (see the module)."""
    sides = ("a", "b")
    per_turn = (game.start_band + 1) * game.out_level ** 2 * math.prod(
        (game.weapon[side].shots + 1) * (2 if game.may_aim[side] else 1) for side in sides)
    return (game.max_turns + 1) * per_turn


def melee_states(game) -> int:
    """The states counted for a melee (see the module)."""
    penalties = math.prod(1 if game.armed(other(side)) else game.full_pool[side]
                          for side in ("a", "b"))
    per_round = MELEE_PER_ROUND * game.out_level ** 2 * penalties ** MELEE_GROWTH
    return int((game.max_rounds + 1) * per_round)


def footprint(game) -> Footprint:
    if game.mode == "pistol":
        states, per_state, seconds = (pistol_states(game), PISTOL_BYTES_PER_STATE,
                                      PISTOL_SECONDS_PER_STATE)
        unit, length = "turns", game.max_turns
    else:
        states, per_state, seconds = (melee_states(game), MELEE_BYTES_PER_STATE,
                                      MELEE_SECONDS_PER_STATE)
        unit, length = "rounds", game.max_rounds
    values_and_mixes = 8 * states * (1 + 2 * len(game.info.action_names))
    return Footprint(states, int(IMPORTS_BYTES + per_state * states), seconds * states,
                     f"about {states:,} situations over {length:,} {unit}",
                     values_and_mixes)
