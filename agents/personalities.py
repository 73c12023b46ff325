"""NPC personalities: the exact play of a temperament (``agents.temperaments``) at a
given strength, or at a given chance to win.

A personality of strength s in [0, 1] is the most robust play that stays close to
its temperament: against a best responder, it maximises its value minus
``beta * KL(play || temperament)`` at every state it visits. s = 0 is the
maximum-entropy equilibrium, s = 1 the temperament itself. It is computed exactly by
backward induction (``solver.markov.regularized``), not learnt.

Strength is calibrated so that a game master can feel it: ``beta(s)`` is found, per
game, side and temperament, by bisection on the exact exploitability, so that the
personality gives away ``s`` times what the temperament itself gives away to a best
responder (within ``CALIBRATION_TOLERANCE`` of the temperament's exploitability). The
exploitability grows with beta, so the search is well posed; every solve it makes is
cached for the process (``calibration``). A fixed map such as s / (1 - s) is not
enough: on GD vs GD it gives away 75% of the temperament's exploitability at s = 0.25.

A personality may also be asked by its exact chance to win (``personality(...,
win=RATE)``): the largest beta whose play wins RATE of its duels against the foe's
equilibrium or best reply, by bisection on exact evaluations (``WinCalibration``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from solver.errors import InputError
from solver.gains import gain_over
from solver.game import Game, other
from solver.policy import TabularPolicy

from .temperaments import TemperamentPolicy, temperament

if TYPE_CHECKING:
    from solver.markov.regularized import RegularizedSolution


def check_strength(strength: object) -> float:
    if isinstance(strength, bool) or not isinstance(strength, int | float) \
            or not 0.0 <= float(strength) <= 1.0:
        raise InputError(f"strength must be a number in [0, 1], got {strength!r}")
    return float(strength)


# -- strength calibration

#: the calibrated exploitability lies within this fraction of the temperament's own
#: exploitability of its target s * exploitability(temperament)
CALIBRATION_TOLERANCE = 0.02
#: below this exploitability the temperament is as safe as the equilibrium: any beta
#: gives the same play, so the fixed map s / (1 - s) is kept
_NOTHING_TO_CALIBRATE = 1e-6
_MAX_SOLVES = 40
#: the betas a calibration usually tries, the temperament's own exploitability counted,
#: for the estimate of the time left: 5 to 8 measured on the four systems' reference
#: duels, cold (each try a regularised solve and a best response to it)
TYPICAL_TRIES = 6
#: the search stays within these betas: beyond them the play no longer moves (a prior
#: with zero weights makes the exploitability jump at beta = 0), and the stage solver
#: slows down
BETA_RANGE = (1e-6, 1e6)


@dataclass
class _Point:
    beta: float
    exploitability: float


class Calibration:
    """Exploitability as a function of beta for one temperament on one side of one game,
    from exact solves; ``beta(s)`` inverts it by a safeguarded bisection on log beta.

    Each exploitability found (the temperament's, and the personality's at each beta the
    search tries) is kept in the answer store under ``asked`` (the temperament, its
    side and data): the search is the same at every strength until it narrows, so
    another strength of the same NPC reads its first steps back instead of solving."""

    def __init__(self, game: Game, side: str, prior: TemperamentPolicy, asked: str):
        # the solver is imported here, not with the module: reading the temperaments
        # (the CLI checking --vs or --personality) needs none of it
        from solver.markov.evaluate import require_public
        require_public(game, "the exact personality")
        self.game, self.side, self.prior, self.asked = game, side, prior, asked
        self.points: list[_Point] = []
        self.solutions: dict[float, RegularizedSolution] = {}

    def _remembered(self, question: str, compute):
        from solver.cache import ambient, remembered
        return remembered(self.game, f"{self.asked}|{question}", compute, ambient())

    @cached_property
    def game_value(self) -> float:
        """The duel's value from this side (asked only when a play is solved: a
        personality read from the answer store needs no solution of the duel)."""
        from solver import solve_game
        return solve_game(self.game).value * (1.0 if self.side == "a" else -1.0)

    @cached_property
    def full(self) -> float:
        """What the temperament itself gives away (asked only when a beta is searched:
        a beta read from the answer store needs no search)."""
        return self._remembered("exploitability of the temperament",
                                lambda: self.exploitability_of(self.read_prior))

    @cached_property
    def read_prior(self):
        """The prior read once on the game: every regularised solve plays it."""
        from solver import read_policy
        return read_policy(self.game, self.prior, self.side)

    def exploitability_of(self, policy) -> float:
        """What ``policy`` gives away to a best responder, from its own side."""
        from solver import best_response
        response = best_response(self.game, policy, other(self.side)).value
        return gain_over(response, -self.game_value, self.game.info.payoff_bounds)

    def solution(self, beta: float) -> RegularizedSolution:
        """The regularised solution at ``beta`` (solved once, then cached; the searches on
        exploitability and on the chance to win share it)."""
        if beta not in self.solutions:
            from solver import solve_regularized
            self.solutions[beta] = solve_regularized(self.game, self.side, self.read_prior,
                                                     beta, near=self._nearest(beta))
        return self.solutions[beta]

    def _nearest(self, beta: float) -> RegularizedSolution | None:
        """The solution at the beta tried closest to ``beta`` (on log beta, as the
        searches step): the solver may start from its play."""
        tried = [known for known in self.solutions if 0.0 < known < np.inf]
        if not 0.0 < beta < np.inf or not tried:
            return None
        return self.solutions[min(tried, key=lambda known: abs(np.log(known / beta)))]

    def point(self, beta: float) -> _Point:
        """What the exact personality at ``beta`` gives away (solved once, then kept)."""
        for known in self.points:
            if known.beta == beta:
                return known
        found = _Point(beta, self._remembered(
            f"exploitability at beta={beta!r}",
            lambda: self.exploitability_of(self.solution(beta).policy())))
        self.points.append(found)
        self.points.sort(key=lambda p: p.beta)
        return found

    def beta(self, strength: float) -> float:
        """The beta at which the personality gives away ``strength`` times what the
        temperament gives away (within ``CALIBRATION_TOLERANCE`` of the latter)."""
        from solver.markov.regularized import strength_to_beta
        from solver.progress import task
        if strength in (0.0, 1.0):
            return strength_to_beta(strength)
        with task(f"calibrating strength {strength:g}", TYPICAL_TRIES, "tries", parts=True):
            return self._search(strength)

    def _search(self, strength: float) -> float:
        from solver.markov.regularized import strength_to_beta
        from solver.progress import advance
        if self.full <= _NOTHING_TO_CALIBRATE:
            return strength_to_beta(strength)
        advance(1)
        target, slack = strength * self.full, CALIBRATION_TOLERANCE * self.full
        for _ in range(_MAX_SOLVES):
            below, above = self._bracket(target)
            for candidate in (below, above):
                if candidate is not None and abs(candidate.exploitability - target) <= slack:
                    return candidate.beta
            beta = self._next_beta(below, above, target)
            if any(p.beta == beta for p in self.points):
                break  # at the end of BETA_RANGE, or the bracket cannot shrink further
            self.point(beta)
            advance(1)
        return self._closest(target)

    def _closest(self, target: float) -> float:
        inside = [p for p in self.points if 0.0 < p.beta < np.inf]
        return min(inside, key=lambda p: abs(p.exploitability - target)).beta

    def _bracket(self, target: float) -> tuple[_Point | None, _Point | None]:
        inside = [p for p in self.points if 0.0 < p.beta < np.inf]  # log beta is finite
        below = [p for p in inside if p.exploitability <= target]
        above = [p for p in inside if p.exploitability > target]
        return (max(below, key=lambda p: p.beta) if below else None,
                min(above, key=lambda p: p.beta) if above else None)

    def _next_beta(self, below: _Point | None, above: _Point | None, target: float) -> float:
        # log beta, since the exploitability climbs over decades of beta; interpolation
        # inside the bracket, kept away from its ends so the bracket always shrinks
        if below is None and above is None:
            return 0.1
        if below is None:
            return max(above.beta / 10.0, BETA_RANGE[0])
        if above is None:
            return min(below.beta * 10.0, BETA_RANGE[1])
        low, high = np.log(below.beta), np.log(above.beta)
        rise = above.exploitability - below.exploitability
        t = (target - below.exploitability) / rise if rise > 0 else 0.5
        return float(np.exp(low + min(max(t, 0.1), 0.9) * (high - low)))


# -- calibration on the chance to win

#: whom a personality's chance to win is measured against: the foe's maximum-entropy
#: equilibrium, or his best reply (the safest of his best replies, as ``duel odds`` says)
AGAINST = ("equilibrium", "best")
#: the search on the chance to win stops this close to the rate asked
WIN_TOLERANCE = 5e-4
#: the betas looked at first, from the most flavourful (the temperament itself) down to
#: the equilibrium: the rate asked is searched in the first gap between two of them that
#: holds it, so the personality found is the one closest to its temperament
WIN_GRID = (np.inf, BETA_RANGE[1], 1e3, 1e2, 1e1, 1.0, 1e-1, 1e-2, 1e-3, BETA_RANGE[0], 0.0)


class WinCalibration:
    """The chance to win of the personality at beta (an exact evaluation against the
    foe's equilibrium, or his best reply); ``beta(rate)`` is the largest beta at which it
    is ``rate``, found by a safeguarded bisection on log beta. The regularised solves
    are the strength calibration's (``Calibration.solution``), shared with it."""

    def __init__(self, base: Calibration, against: str):
        self.base, self.against = base, against
        self.wins: dict[float, float] = {}

    def win(self, beta: float) -> float:
        if beta not in self.wins:
            self.wins[beta] = self.win_of(self.base.solution(beta).policy())
        return self.wins[beta]

    def win_of(self, policy) -> float:
        """The exact chance that ``policy``, on the calibrated side, wins the duel."""
        from solver import best_response, evaluate, solve_game
        game, side = self.base.game, self.base.side
        foe = other(side)
        equilibrium = solve_game(game).policy_for(foe)
        if self.against == "best":
            found = best_response(game, policy, foe, safest=equilibrium).evaluation
        else:
            found = evaluate(game, *((policy, equilibrium) if side == "a"
                                     else (equilibrium, policy)))
        return found.win if side == "a" else found.loss

    def beta(self, rate: float, name: str) -> float:
        """The most flavourful beta whose chance to win is ``rate`` (within
        ``WIN_TOLERANCE``); a rate no beta reaches is refused with the reachable range."""
        for high, low in zip(WIN_GRID, WIN_GRID[1:], strict=False):
            for end in (high, low):
                if abs(self.win(end) - rate) <= WIN_TOLERANCE:
                    return end
            if (self.win(high) - rate) * (self.win(low) - rate) < 0:
                return self._bisect(high, low, rate)
        wins = [self.win(beta) for beta in WIN_GRID]
        whom = "the equilibrium" if self.against == "equilibrium" else "the best reply"
        raise InputError(
            f"no {name} NPC of {self.base.game.info.system} wins {100 * rate:.1f}% against "
            f"{whom} in this duel: it wins {100 * wins[-1]:.1f}% at the equilibrium "
            f"(strength 0) and {100 * wins[0]:.1f}% as the temperament itself (strength 1), "
            f"{100 * min(wins):.1f}% to {100 * max(wins):.1f}% in all; ask a rate in that "
            "range")

    def _bisect(self, high: float, low: float, rate: float) -> float:
        # the ends 0 and inf have no log: the gaps next to them are searched from the
        # ends of BETA_RANGE, where the play no longer moves (see BETA_RANGE)
        if np.isinf(high) or low == 0.0:
            return min((high, low), key=lambda beta: abs(self.win(beta) - rate))
        for _ in range(_MAX_SOLVES):
            top, bottom = np.log(high), np.log(low)
            rise = self.win(high) - self.win(low)
            t = (rate - self.win(low)) / rise
            beta = float(np.exp(bottom + min(max(t, 0.1), 0.9) * (top - bottom)))
            if abs(self.win(beta) - rate) <= WIN_TOLERANCE or beta in (high, low):
                return beta
            if (self.win(beta) - rate) * (self.win(high) - rate) < 0:
                low = beta
            else:
                high = beta
        return min(self.wins, key=lambda beta: abs(self.wins[beta] - rate))


_WIN_CALIBRATIONS: dict[tuple, WinCalibration] = {}


def win_calibration(game: Game, name: str, side: str, against: str) -> WinCalibration:
    """The (cached) calibration of temperament ``name`` as ``side`` of ``game`` on its
    chance to win against ``against``."""
    base = calibration(game, name, side)
    key = (id(base), against)
    if key not in _WIN_CALIBRATIONS or _WIN_CALIBRATIONS[key].base is not base:
        _WIN_CALIBRATIONS[key] = WinCalibration(base, against)
    return _WIN_CALIBRATIONS[key]


def check_win(rate: object, against: object = "equilibrium") -> tuple[float, str]:
    """A chance to win asked (a number in [0, 1]) and whom it is against, checked."""
    if isinstance(rate, bool) or not isinstance(rate, int | float) \
            or not 0.0 <= float(rate) <= 1.0:
        raise InputError(f"win must be a chance in [0, 1] (0.45 for 45%), got {rate!r}")
    if against not in AGAINST:
        raise InputError(f"unknown against={against!r}; allowed: {', '.join(AGAINST)}")
    return float(rate), str(against)


_CALIBRATIONS: dict[tuple, Calibration] = {}


def calibration(game: Game, name: str, side: str) -> Calibration:
    """The (cached) strength calibration of temperament ``name`` as ``side`` of ``game``;
    games are told apart by system, ruleset hash and options."""
    key = (game.info.system, game.info.ruleset_hash, _options_key(game.info.options), name,
           side)
    if key not in _CALIBRATIONS:
        prior = temperament(game.info.system, name).policy(game)
        _CALIBRATIONS[key] = Calibration(game, side, prior,
                                         f"personality curve|{name}|{side}|"
                                         f"temperament={_temperament_digest(game, name)}")
    return _CALIBRATIONS[key]


def _temperament_digest(game: Game, name: str) -> str:
    """The temperament's data, in a few characters: a changed TOML is another question."""
    return hashlib.sha256(repr(temperament(game.info.system, name)).encode()).hexdigest()[:16]


def _calibration_question(game: Game, name: str, side: str, strength: float) -> str:
    """The answer store's question of a calibrated beta: the personality, its side and
    strength, and its temperament's data."""
    return (f"personality beta|{name}|{side}|strength={strength!r}|"
            f"temperament={_temperament_digest(game, name)}")


def _win_question(game: Game, name: str, side: str, rate: float, against: str) -> str:
    """The answer store's question of a beta calibrated on the chance to win."""
    return (f"personality beta|{name}|{side}|win={rate!r}|against={against}|"
            f"temperament={_temperament_digest(game, name)}")


def _options_key(options: Mapping) -> str:
    return json.dumps(options, sort_keys=True, default=str)


# -- the exact personality

@dataclass
class Personality:
    """A personality's exact play on one side of a game, and what it gives away to a
    best responder (``exploitability``, from its own side). A personality asked by its
    chance to win also records that chance (``win``, exact) and whom it is against;
    its ``strength`` is then the one that gives away as much."""

    name: str
    strength: float
    side: str
    prior: TemperamentPolicy
    solution: RegularizedSolution
    exploitability: float
    win: float | None = None
    against: str | None = None

    @property
    def beta(self) -> float:
        return self.solution.beta

    @property
    def policy(self) -> TabularPolicy:
        label = (f"{self.strength:g}" if self.win is None else
                 f"win {100 * self.win:.1f}% vs {self.against}")
        return self.solution.policy(name=f"{self.name} {label}")


def calibrated_beta(game: Game, name: str, side: str, strength: float) -> float:
    """The beta of personality ``name`` at ``strength`` on ``side`` of a public game, read
    from the answer store when asked before, else calibrated and kept."""
    from solver.cache import ambient, remembered
    found = calibration(game, name, side)
    return remembered(game, _calibration_question(game, name, side, strength),
                      lambda: found.beta(strength), ambient())


def _play_at(found: Calibration, beta: float) -> tuple[RegularizedSolution, float]:
    return found.solution(beta), found.point(beta).exploitability


def personality(game: Game, name: str, strength: float | None = None, side: str = "a", *,
                win: float | None = None, against: str = "equilibrium") -> Personality:
    """The exact play of personality ``name`` as ``side``, at a strength or a chance to win.

    With ``strength``, its beta is calibrated so that its exploitability is ``strength``
    times the temperament's. With ``win`` instead, it is the most flavourful play of the
    temperament (the largest beta) whose exact chance to win against the foe's
    equilibrium (``against="equilibrium"``) or his best reply (``"best"``) is ``win``,
    within ``WIN_TOLERANCE``; a chance no strength reaches is refused with the range
    that is reachable. Either beta is kept in the answer store.

    Needs a game of public information (the exact solver's requirement).
    """
    if (strength is None) == (win is None):
        raise InputError("give a personality a strength or a chance to win (win=), not "
                         f"{'both' if win is not None else 'neither'}")
    if side not in ("a", "b"):
        raise InputError(f"unknown side {side!r}; allowed: a, b")
    if win is not None:
        return _personality_at_win(game, name, side, *check_win(win, against))
    strength = check_strength(strength)
    from solver.cache import ambient, remembered
    found = calibration(game, name, side)
    beta = calibrated_beta(game, name, side, strength)
    # the play at that beta and what it gives away, kept too (by beta: another strength
    # may land on it): a personality asked again (odds, then play) is read back
    solution, exploitability = remembered(game, f"{found.asked}|play beta={beta!r}",
                                          lambda: _play_at(found, beta), ambient())
    return Personality(name, strength, side, found.prior, solution, exploitability)


def _personality_at_win(game: Game, name: str, side: str, rate: float,
                        against: str) -> Personality:
    from solver.cache import ambient, remembered
    search = win_calibration(game, name, side, against)
    beta = remembered(game, _win_question(game, name, side, rate, against),
                      lambda: search.beta(rate, name), ambient())
    base = search.base
    solution = base.solution(beta)
    lost = base.point(beta).exploitability
    strength = (min(lost / base.full, 1.0) if base.full > _NOTHING_TO_CALIBRATE
                else beta / (1.0 + beta))
    return Personality(name, 1.0 if np.isinf(beta) else strength, side, base.prior, solution,
                       lost, search.win(beta), against)
