"""How large a Blooded duel's exact solution is, from its sheets and options alone
(``SystemSpec.footprint``), in microseconds and before any state is explored.

A duel is solved over its counter, the beats left: its situations without it (cores) are
the same at every beat once the invokes are spent, and their number grows with each
side's Prowess and The Sword (the dice of the wagers) and with the maneuvers known (the
steps after the dice). ``cores`` is a log-linear fit through the cores that
``solver.counters.explore`` counts for the reference sheets (novice 693, shara 4,647,
duellist 15,247, master 1,656,661: exact at those four). The peak memory is the
process, what exploring the cores takes and the solution's tables (the kept values and
both sides' mixes at every beat left, ``solver.counters.solution.solution_bytes``).
docs/performance.md records the measurements (``/usr/bin/time -v``) the constants come
from.

Three options multiply the cores, and each of their cores costs more to explore (more
joint actions): a strike bid on every beat, invokes beyond one, and one dice pool for the
whole duel. Their factors are fits through ``explore``'s counts at one beat (default
sheets, novices, a duellist against a novice; invokes 2 to 50), kept above every count
measured (by 4% to 72%): a duel near the ceiling may be refused though it would fit,
rather than let through though it does not.
"""

from __future__ import annotations

import math

from envs.schema import Footprint

from .rules import first_pool

#: log(cores) = LOG_BASE + DICE * sum over sides of log(Prowess + The Sword + 1)
#: + the weight of each maneuver known by each side
LOG_BASE = 4.074
DICE = 1.123
MANEUVER_WEIGHT = {"feint": 0.297, "riposte": 0.297, "bash": 0.459, "bind": 0.459,
                   "blind": 0.459, "lunge": 0.459}
#: a strike bid on every beat multiplies the cores by BID_SLOPE * (pairs of first pools)
#: + BID_BASE (measured: novices 22.9 for 9 pairs, a duellist against a novice 29 for
#: 30, the default sheets 118 for 100)
BID_SLOPE, BID_BASE = 1.2, 14.0
#: one pool for the whole duel multiplies them by POOL_SHARE * (pairs of pools) (measured:
#: 0.51, 0.45 and 0.40 of the pairs on the same sheets)
POOL_SHARE = 0.55
#: invokes: the cores at n invokes are n * INVOKE_CAP * (1 - exp(-n / INVOKE_SCALE)) times
#: those at one (measured on the default sheets, one side's invokes: 5.4x at 5, 19.9x at
#: 10, 56x at 20, 165x at 50), times 1 + the same share for the other side's (both at
#: 10: 57.6x)
INVOKE_CAP, INVOKE_SCALE = 3.5, 12.0
#: the process before any duel (interpreter, numpy, scipy, numba, the compiled code)
IMPORTS_BYTES = 250 * 2**20
#: peak bytes per core while exploring them (6.6 GB of the 9.3 GB of the largest sheets);
#: with a bid every beat (12.3 KB measured), invokes beyond one (7.9 to 8.9 KB) or the
#: whole duel's pool (13.7 KB a core explored, fewer than estimated), the largest that applies
BYTES_PER_CORE = 4_000
BYTES_PER_CORE_WITH = {"bid": 12_500, "invokes": 9_000, "pool": 10_000}
#: mix entries of both sides per core at one beat left (2.4 to 2.8 a side, measured)
SLOTS_PER_CORE = 5.6
#: seconds per core to explore, and per core and beat left to solve (the largest sheets:
#: 104 s at 30 beats)
SECONDS_PER_CORE = 2e-5
SECONDS_PER_CORE_BEAT = 2e-6
#: seconds per core to explore with those options (measured 95, 50 to 61, 250 to 405 us)
SECONDS_PER_CORE_WITH = {"bid": 1e-4, "invokes": 6.5e-5, "pool": 2.5e-4}


def cores(game) -> int:
    """The estimated cores of ``game`` (see the module)."""
    found = LOG_BASE
    for sheet in game.sheets:
        found += DICE * math.log(sheet.prowess + sheet.sword + 1)
        found += sum(MANEUVER_WEIGHT.get(name, max(MANEUVER_WEIGHT.values()))
                     for name in sheet.maneuvers)
    pools = math.prod(first_pool(sheet, game.rules) + 1 for sheet in game.sheets)
    bids = BID_SLOPE * pools + BID_BASE if game.bid_every_beat else 1.0
    whole = POOL_SHARE * pools if game.rules.whole_duel else 1.0
    return int(math.exp(found) * _invoke_copies(game) * bids * whole)


def _invoke_copies(game) -> float:
    """How many times the cores at one invoke a side the invokes make (see the module)."""
    fewer, more = sorted(sheet.invokes for sheet in game.sheets)
    if more <= 1:
        return 1.0

    def share(n: int) -> float:
        return INVOKE_CAP * (1.0 - math.exp(-n / INVOKE_SCALE))
    return max(1.0, more * share(more) * (1.0 + share(fewer)))


def _costlier(game) -> list[str]:
    """The options that make each core costlier to explore (see the module)."""
    return [name for name, applies in (
        ("bid", game.bid_every_beat), ("pool", game.rules.whole_duel),
        ("invokes", max(sheet.invokes for sheet in game.sheets) > 1)) if applies]


def footprint(game) -> Footprint:
    situations, beats = cores(game), game.max_beats
    costlier = _costlier(game)
    per_core = max([BYTES_PER_CORE, *(BYTES_PER_CORE_WITH[name] for name in costlier)])
    to_explore = max([SECONDS_PER_CORE, *(SECONDS_PER_CORE_WITH[name] for name in costlier)])
    tables = 8 * situations * ((beats + 2) + beats * SLOTS_PER_CORE)
    memory = IMPORTS_BYTES + per_core * situations + tables
    seconds = to_explore * situations + SECONDS_PER_CORE_BEAT * situations * beats
    return Footprint(situations * beats, int(memory), seconds,
                     f"about {situations:,} situations at each of {beats:,} beats left",
                     int(tables))
