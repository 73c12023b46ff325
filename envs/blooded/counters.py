"""The fast paths of a Blooded duel: the beats left as a counter (``solver.counters``),
the cores at once (``cores.py``) and the state graph built beat by beat (``beats.py``).

Once the invokes are spent every beat plays by the same rules, the last included, so a
state without its beats left (a *core*) has the same steps whatever they are.
"""

from __future__ import annotations

from .state import OVER, State


class BeatsLeft:
    """The counter fast paths of ``BloodedGame`` (a mixin: it reads the game's sheets,
    ``max_beats``, ``options`` and rules, and builds the endless duel with its class)."""

    _endless_game = None  # built on first use

    def graph(self):
        """Every reachable state at once, the middle beats copied from one (``beats``)."""
        from .beats import beat_graph
        return beat_graph(self)

    # -- the beats left as a counter (GameInfo.fast_paths "counters", solver.counters)
    def counters(self, state: State) -> tuple[int]:
        """The beats left, this one included: it falls by one when a beat ends, and
        the duel is stopped (a draw) when it reaches 0."""
        return (self.max_beats - state.beat + 1,)

    def core(self, state: State) -> State:
        """``state`` without the beats left: the beats with an invoke keep their number,
        the others are all the first beat without one (``plain_beat``)."""
        return state._replace(beat=min(state.beat, self.plain_beat))

    def attach(self, core: State, counters) -> State:
        """The state of ``core`` with ``counters[0]`` beats left; a beat with an invoke
        keeps its number (it only exists with its own beats left)."""
        if core.beat < self.plain_beat:
            return core
        return core._replace(beat=max(self.plain_beat, self.max_beats - int(counters[0]) + 1))

    def depleted(self, counter: int) -> State:
        return self.stopped()

    def core_transitions(self, core: State):
        """Every legal joint action at ``core`` with ``(p, next core, (beats ended,))``:
        the rules of a duel without a beat limit (``endless``), a new beat lowering the
        counter by one."""
        plain, beat, out = self.plain_beat, core.beat, []
        # within a beat the next core is the next state; a new beat past the invokes
        # is the plain beat again
        ended, within = (1,), (0,)
        for i, j, outcomes in self.endless.transitions(core):
            out.append((i, j, [(p, nxt if nxt.beat <= plain else nxt._replace(beat=plain),
                                ended if nxt.beat > beat and nxt.phase != OVER else within)
                               for p, nxt in outcomes]))
        return out

    def cores(self):
        """Every core at once, the steps after the dice copied over the Injuries
        (``cores``)."""
        from .cores import core_walk
        return core_walk(self)

    @property
    def plain_beat(self) -> int:
        """The first beat without an aspect invoke: from it on, every beat plays by the
        same rules (never the first with one pool for the whole duel: its dice are
        that pool, a later beat's are the pool left and bonus dice)."""
        first = max(d.invokes for d in self.sheets) + 1
        return max(first, 2) if self.rules.whole_duel else first

    @property
    def endless(self):
        """This duel without its beat limit, as far as the cores go: the same rules, the
        draw never reached before beat ``plain_beat + 1``."""
        if self._endless_game is None:
            options = {**self.options, "max_beats": self.plain_beat + 1}
            self._endless_game = type(self)(self.rules, *self.sheets, options,
                                            self.ruleset_hash)
        return self._endless_game
