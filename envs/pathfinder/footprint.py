"""How large a Pathfinder duel's exact solution is, from its sheets and options alone
(``SystemSpec.footprint``), in microseconds and before any state is explored.

A duel without a round limit is solved over its counters (the two hit points): its
situations without hit points (cores) are the same at every hit point, and how many
there are depends on the sheets only through the shields carried (Raise a Shield and
Shield Block add the shield's states): counted once for each and kept in ``MEASURED``.
The solution's tables hold, at each of the ``hp_a * hp_b`` counter values, the values
of the kept cores and both sides' mixes (``solver.counters.solution.solution_bytes``);
the peak memory adds what exploring the cores takes. The constants are calibrated from
``/usr/bin/time -v`` runs recorded in docs/performance.md. A duel with a round limit is
solved over its state graph and has no estimate here (None): its exploration stops once it
outgrows the memory ceiling (``solver.markov.graph.require_room``).
"""

from __future__ import annotations

from envs.schema import Footprint

#: by the number of shields carried (0, 1, 2): the cores, those whose values are kept at
#: every counter value, the mix entries of both sides at one counter value, and the
#: landing cores (those a lowering step reaches), as ``solver.counters.explore`` counts
#: them (the same for fighter and rogue; the landing cores at 3 x 2 HP, a few more than
#: at larger hp)
MEASURED = {0: (108_659, 26_633, 25_572, 13_961), 1: (242_745, 52_701, 47_772, 25_917),
            2: (543_692, 102_116, 85_056, 45_092)}
#: the same under ``plans = "per_turn"``: fewer cores (the plan is chosen as the turn
#: starts, not crossed with the skill and order), every one kept
MEASURED_PER_TURN = {0: (21_685, 21_685, 61_812, 6_151), 1: (31_348, 31_348, 111_303, 8_884),
                     2: (45_416, 45_416, 192_608, 12_800)}
#: and with ``reaction_choice = "each_strike"``: every pause before a Strike or on a hit
#: is a situation of its own
MEASURED_EACH_STRIKE = {0: (355_301, 355_301, 733_216, 154_751),
                        1: (563_253, 563_253, 1_187_218, 239_066),
                        2: (884_172, 884_172, 1_895_312, 367_316)}
#: the process before any duel (the interpreter, numpy, scipy, numba)
IMPORTS_BYTES = 150 * 2**20
#: peak bytes per core while exploring them (538 MB peak for 108,659 cores at hp 3)
BYTES_PER_CORE = 3_600
#: a layer's working arrays, bounded (``solver.counters``' ``FLOW_ENTRIES`` and
#: ``STAGE_ENTRIES``): they reach it from about 20 x 20 hit points on
WORKING_BYTES = 700 * 2**20
#: the peak beside the tables, as a share of them (what exploring left, the visits
#: pushed forward), besides the chance of arriving at each landing core at every counter
#: value (``solver.counters.flow``, 2.3 GB at level 10). ``solve --json`` with the answer
#: kept, measured / said (GB): 20 x 17 HP 1.07 / 1.51, 35 x 35 HP 1.96 / 2.09, 50 x 50 HP
#: 2.71 / 2.92, 68 x 53 HP 3.24 / 3.64, 150 x 140 HP 14.62 / 15.03 (116 s) (20 x 20 HP,
#: no store: 1.15 / 1.55); docs/performance.md
TABLE_OVERHEAD = 1.3
#: seconds per core to explore, and per core and counter value to solve
SECONDS_PER_CORE = 4e-5
SECONDS_PER_CORE_VALUE = 1.5e-7


def footprint(game) -> Footprint | None:
    if game.max_rounds:
        return None
    shields = sum(bool(fighter.shield) for fighter in game.fighters.values())
    measured = (MEASURED_EACH_STRIKE if game.each_strike else
                MEASURED_PER_TURN if game.per_turn else MEASURED)
    cores, kept, slots, landing = measured[shields]
    values = game.start_hp["a"] * game.start_hp["b"]
    tables = 8 * (kept * (values + 2) + values * slots)
    arriving = 8 * landing * (values + 2)
    memory = (IMPORTS_BYTES + BYTES_PER_CORE * cores + WORKING_BYTES + TABLE_OVERHEAD * tables
              + arriving)
    seconds = SECONDS_PER_CORE * cores + SECONDS_PER_CORE_VALUE * cores * values
    return Footprint(cores * values, int(memory), seconds,
                     f"{cores:,} situations at each of {values:,} counter values", tables)
