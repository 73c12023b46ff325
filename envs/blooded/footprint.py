"""How large a Blooded duel's exact solution is, from its sheets and options alone
(``SystemSpec.footprint``), in microseconds and before any state is explored.

A duel is solved over its counter, the beats left: its situations without it (cores) are
the same at every beat once the invokes are spent, and their number grows with each
side's Prowess and The Sword (the dice of the wagers) and with the maneuvers known (the
steps after the dice). ``cores`` is a log-linear fit through the cores that
``solver.counters.explore`` counts for the reference sheets (novice 693, shara 4,647,
duellist 15,247, master 1,656,661: exact at those four), times one more copy for every
beat with an invoke beyond the first, and for a strike bid on every beat the factor
measured on the novice. The peak memory is the process, what exploring the cores takes
and the solution's tables (the kept values and both sides' mixes at every beat left,
``solver.counters.solution.solution_bytes``). docs/performance.md records the
measurements (``/usr/bin/time -v``) the constants come from.
"""

from __future__ import annotations

import math

from envs.schema import Footprint

#: log(cores) = LOG_BASE + DICE * sum over sides of log(Prowess + The Sword + 1)
#: + the weight of each maneuver known by each side
LOG_BASE = 4.074
DICE = 1.123
MANEUVER_WEIGHT = {"feint": 0.297, "riposte": 0.297, "bash": 0.459, "bind": 0.459,
                   "blind": 0.459, "lunge": 0.459}
#: a strike bid on every beat multiplies the cores by this (measured on the novice:
#: 15,839 cores instead of 693)
EVERY_BEAT_BID = 23.0
#: the process before any duel (interpreter, numpy, scipy, numba, the compiled code)
IMPORTS_BYTES = 250 * 2**20
#: peak bytes per core while exploring them (6.6 GB of the 9.3 GB of the largest sheets)
BYTES_PER_CORE = 4_000
#: mix entries of both sides per core at one beat left (2.4 to 2.8 a side, measured)
SLOTS_PER_CORE = 5.6
#: seconds per core to explore, and per core and beat left to solve (the largest sheets:
#: 104 s at 30 beats)
SECONDS_PER_CORE = 2e-5
SECONDS_PER_CORE_BEAT = 2e-6


def cores(game) -> int:
    """The estimated cores of ``game`` (see the module)."""
    found = LOG_BASE
    for sheet in game.sheets:
        found += DICE * math.log(sheet.prowess + sheet.sword + 1)
        found += sum(MANEUVER_WEIGHT.get(name, max(MANEUVER_WEIGHT.values()))
                     for name in sheet.maneuvers)
    copies = max(1, max(sheet.invokes for sheet in game.sheets))
    bids = EVERY_BEAT_BID if game.bid_every_beat else 1.0
    return int(math.exp(found) * copies * bids)


def footprint(game) -> Footprint:
    situations, beats = cores(game), game.max_beats
    tables = 8 * situations * ((beats + 2) + beats * SLOTS_PER_CORE)
    memory = IMPORTS_BYTES + BYTES_PER_CORE * situations + tables
    seconds = SECONDS_PER_CORE * situations + SECONDS_PER_CORE_BEAT * situations * beats
    return Footprint(situations * beats, int(memory), seconds,
                     f"about {situations:,} situations at each of {beats:,} beats left",
                     int(tables))
