"""The state-space reductions of a Blooded duel: choices that can never help, not
offered; steps with one sensible choice, played at once; wagers that can no longer
change anything, dropped. Each leaves every value as it is and makes the game smaller.

``BloodedGame`` asks ``game.reductions`` at each place the rules would offer such a
choice: ``Reductions`` when the option ``reductions`` is on (the default),
``PlainRules`` when it is off, which offers every choice the rules allow. The tests
solve both and compare them (``tests/test_blooded_reductions.py``).

A step where the rules themselves leave a single legal choice (no wagers to cancel, a
Bind the defeated cannot pay, a Parry the only maneuver) is played at once in both:
that is no choice at all, not a reduction.
"""

from __future__ import annotations

from .state import OVER, VICTOR, State


class PlainRules:
    """Every choice the rules allow, every step they give (``reductions=false``)."""

    def __init__(self, game):
        self.game = game

    def injury_wagers(self, wagers: int, rank: int) -> int:
        """The most wagers offered for an Injury of ``rank`` + wagers: all he has."""
        return wagers

    def blind_helps(self, s: State) -> bool:
        return True

    def cancels(self, s: State) -> list[int]:
        """The counts the defeated may cancel at ``s`` (CANCEL or RCANCEL)."""
        return list(range(min(s.wv, s.wd) + 1))

    def skipped_cancel(self, s: State) -> State | None:
        return None

    def forced_bind(self, s: State) -> State | None:
        return None

    def finishing_blow(self, s: State, options: list[str]) -> str | None:
        return None

    def canonical_victor(self, s: State) -> State:
        return s


class Reductions(PlainRules):
    """The reduced duel (``reductions=true``): the same values, fewer states."""

    def __init__(self, game):
        super().__init__(game)
        costs = game.rules.costs
        # the most a victor can pay in one beat after the roll: a Feint, the dearest
        # ending maneuver and an Injury's wagers up to the rank cap
        self._spend_bound = costs["feint"] + max(costs.values()) + game.rules.max_rank - 1

    def injury_wagers(self, wagers: int, rank: int) -> int:
        """Wagers into an Injury of ``rank`` + wagers stop at the rank cap: more only
        cost Style."""
        return min(wagers, max(0, self.game.rules.max_rank - rank))

    def blind_helps(self, s: State) -> bool:
        """Blind does nothing against a foe without wagers or with The Sword 0 (it only
        costs wagers), so the step is skipped."""
        return self.game.sheets[s.victor].sword > 0 and s.wd > 0

    def cancels(self, s: State) -> list[int]:
        """The counts the defeated may cancel at ``s``, without those that lose the duel
        at once while another does not (they can never help)."""
        game = self.game
        counts = super().cancels(s)
        keep = [c for c in counts if not _lost(game._cancel_result(s, c), 1 - s.victor)]
        return keep or counts

    def skipped_cancel(self, s: State) -> State | None:
        """The next state when every sensible cancellation at ``s`` leads to it (as when
        the victor finishes the duel whatever is cancelled), else None.

        The choices are compared by what they do to the beat, not by the states they
        lead to: as if both were unhurt (an Injury below one already taken leaves the
        same state, yet it is another Injury), and on the last beat as on any other
        (``endless``: the draw would hide everything). So a beat's steps depend neither
        on the Injuries nor on the beats left (``cores.py`` relies on it); at worst
        equivalent choices are offered."""
        game = self.game
        judge = game if s.beat < game.max_beats else game.endless
        seen = (s if judge is game else game.core(s))._replace(inj_a=0, inj_b=0)
        counts = judge.reductions.cancels(seen)
        if len({judge._cancel_result(seen, c) for c in counts}) > 1:
            return None
        return game._cancel_result(s, counts[0])

    def forced_bind(self, s: State) -> State | None:
        """The defeated binds at once (DBIND) when passing would lose the duel at once."""
        game = self.game
        if not _lost(game._settle(s._replace(phase=VICTOR)), 1 - s.victor):
            return None
        (_, bound), = game._decide(s, game.index["bind"])
        return bound

    def finishing_blow(self, s: State, options: list[str]) -> str | None:
        """The first Injure, Lunge or Riposte among ``options`` that surely ends the
        duel in the victor's favour (any Injury at first blood, a mortal one otherwise;
        a sure Riposte after the most the aggressor can cancel): nothing beats it."""
        game = self.game
        rules = game.rules
        needed = 1 if game.convention == "first_blood" else rules.mortal_rank
        strength = game.sheets[s.victor].strength
        for name in options:
            if name.startswith("injure"):
                rank = 1 + int(name[6:])
            elif name.startswith("lunge"):
                rank = 1 + strength + int(name[5:])
            elif name == "riposte":
                if game.riposte_chance(s.victor) < 1:  # a Riposte that may miss is no sure blow
                    continue
                left = s.wv - rules.costs["riposte"]
                rank = 1 + left - min(left, s.wd)
            else:
                continue
            if min(rank, rules.max_rank) >= needed:
                return name
        return None

    def canonical_victor(self, s: State) -> State:
        """Wagers that can no longer change anything, dropped (the same values, fewer
        states). The defeated's wagers only bank Style unless the victor may Bash (the
        defeated may then attack with them) or Riposte (he cancels with them): then
        only whole Style points count, up to the bank's room. The victor spends at most
        ``_spend_bound`` on maneuvers and his Injury; beyond that, and beyond the Style
        his bank can take, more wagers change nothing (plus the defeated's wagers, which a
        Riposte's cancellation may take)."""
        v, r = self.game.sheets[s.victor], self.game.rules
        uses_wd = v.knows("bash") or (v.knows("riposte") and s.aggressor != s.victor)
        banks = (s.bank_a, s.bank_b)
        wd = s.wd
        if not uses_wd:
            room = r.per_style * max(0, r.bank_cap - banks[1 - s.victor])
            wd = min(r.per_style * (wd // r.per_style), room)
        room = r.per_style * max(0, r.bank_cap - banks[s.victor])
        wv = min(s.wv, self._spend_bound + room + (s.wd if uses_wd else 0))
        return s._replace(wv=wv, wd=wd) if (wv, wd) != (s.wv, s.wd) else s


def _lost(s: State, side: int) -> bool:
    """Whether the duel is over at ``s`` with ``side`` (0 = A) beaten."""
    return s.phase == OVER and s.ending in ((2, 4) if side == 0 else (1, 3))
