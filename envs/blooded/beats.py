"""The state graph of a Blooded duel built beat by beat: the ``graph`` fast path.

After the beats with an invoke (and the first, with its strike bid) every beat but the
last plays by the same rules: the transitions of a state at beat t are those of the same
state at beat t + 1, moved by one beat. So the rules run three times only: over the
opening beats, over one *core* beat holding every state a middle beat can hold, and over
the last beat (where the draw comes). The middle beats are then copies of the core made
with arrays, keeping only what the start can reach. ``solver.markov.graph.explore`` stays the
reference; the tests compare the two. (The solution does not need this graph: the beats
left are a counter, ``BloodedGame.counters``; what walks the states one by one, odds
against a fixed opponent, best responses, training, does.)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from solver.markov.graph import StateGraph, assemble, explore

from .state import RISK


class _Window:
    """The states of some beats, explored through the game's rules from seeds. A
    successor outside the window is an *exit*, kept apart and not explored: its target
    is stored as ``-1 - exit number``."""

    def __init__(self, game, inside: Callable[[object], bool]):
        self.game, self.inside = game, inside
        self.states: list = []
        self.index: dict = {}
        self.exits: list = []
        self.exit_index: dict = {}
        self.terminal: list[bool] = []
        self.payoff: list[float] = []
        self.mask_a: list[np.ndarray] = []
        self.mask_b: list[np.ndarray] = []
        self.pair_state: list[int] = []
        self.pair_a: list[int] = []
        self.pair_b: list[int] = []
        self.pair_entries: list[int] = []
        self.targets: list[int] = []
        self.probs: list[float] = []

    def add(self, state) -> int:
        found = self.index.get(state)
        if found is None:
            found = self.index[state] = len(self.states)
            self.states.append(state)
        return found

    def place(self, state) -> int:
        """The target of an outcome: a state of the window (added) or an exit."""
        if self.inside(state):
            return self.add(state)
        found = self.exit_index.get(state)
        if found is None:
            found = self.exit_index[state] = len(self.exits)
            self.exits.append(state)
        return -1 - found

    def _risk(self, state, cursor: int) -> None:
        """A risk's many pairs at once, from the layout every risk with the same dice
        shares (``BloodedGame.risk_layout``)."""
        wagers_a, wagers_b, counts, which, probs, nexts = self.game.risk_layout(state)
        self.pair_state.extend([cursor] * len(counts))
        self.pair_a.extend(wagers_a)
        self.pair_b.extend(wagers_b)
        self.pair_entries.extend(counts)
        self.targets.extend(np.array([self.place(n) for n in nexts])[which].tolist())
        self.probs.extend(probs)

    def run(self) -> None:
        """Explore every state added and not yet explored."""
        game, n_actions = self.game, len(self.game.info.action_names)
        index, states, targets, probs = self.index, self.states, self.targets, self.probs
        while len(self.terminal) < len(states):
            state = states[len(self.terminal)]
            done = game.is_terminal(state)
            self.terminal.append(done)
            self.payoff.append(float(game.payoff(state)) if done else 0.0)
            if done:
                self.mask_a.append(np.zeros(n_actions, bool))
                self.mask_b.append(np.zeros(n_actions, bool))
                continue
            self.mask_a.append(game.legal_mask(state, "a"))
            self.mask_b.append(game.legal_mask(state, "b"))
            cursor = len(self.terminal) - 1
            if state.phase == RISK:
                self._risk(state, cursor)
                continue
            for i, j, outcomes in game.transitions(state):
                self.pair_state.append(cursor)
                self.pair_a.append(i)
                self.pair_b.append(j)
                self.pair_entries.append(len(outcomes))
                for p, nxt in outcomes:
                    found = index.get(nxt)
                    targets.append(self.place(nxt) if found is None else found)
                    probs.append(p)

    def arrays(self) -> _Arrays:
        return _Arrays(self)


class _Arrays:
    """A window's lists as arrays; ``entry_state`` is the state of each outcome's pair."""

    def __init__(self, window: _Window):
        self.size = len(window.states)
        self.terminal = np.asarray(window.terminal, bool)
        self.payoff = np.asarray(window.payoff, float)
        self.mask_a = np.asarray(window.mask_a, bool)
        self.mask_b = np.asarray(window.mask_b, bool)
        self.pair_state = np.asarray(window.pair_state, np.int64)
        self.pair_a = np.asarray(window.pair_a, np.int64)
        self.pair_b = np.asarray(window.pair_b, np.int64)
        # a risk's results may name one next state twice in a pair: add them up (exits
        # become columns after the window's states for that)
        targets = np.asarray(window.targets, np.int64)
        columns = np.where(targets >= 0, targets, self.size - 1 - targets)
        indptr = np.concatenate([[0], np.cumsum(window.pair_entries, dtype=np.int64)])
        merged = sp.csr_matrix((np.asarray(window.probs, float), columns, indptr),
                               shape=(len(indptr) - 1, self.size + len(window.exits)))
        merged.sum_duplicates()
        self.pair_entries = np.diff(merged.indptr)
        self.targets = np.where(merged.indices < self.size, merged.indices,
                                self.size - 1 - merged.indices).astype(np.int64)
        self.probs = merged.data
        self.entry_state = np.repeat(self.pair_state, self.pair_entries)
        self.inner = self.targets >= 0


def beat_graph(game) -> StateGraph:
    """Every state reachable from the start, as ``solver.markov.graph.explore`` finds them."""
    first = max(d.invokes for d in game.sheets) + 1  # the first beat like the next ones
    first = max(first, 2)                            # the strike bid makes beat 1 apart
    last = game.max_beats
    middle = last - first  # beats first .. last - 1 are copies of the core
    if middle < 1:
        return explore(game)
    opening = _Window(game, lambda s: s.beat < first)
    opening.add(game.start())
    opening.run()
    core = _Window(game, lambda s: s.beat == first)
    for state in opening.exits:
        core.add(state)
    # generation k holds the states some middle beat first + j, j <= k, reaches: the
    # exits of one generation, moved back a beat, are the entries of the next
    folded = 0
    for generation in range(middle):
        core.run()
        if generation == middle - 1 or folded == len(core.exits):
            break
        for state in core.exits[folded:]:
            core.add(state._replace(beat=first))
        folded = len(core.exits)
    closing = _Window(game, lambda s: s.beat == last)
    for state in core.exits:
        closing.add(state._replace(beat=last))
    closing.run()
    return _assemble(game, first, last, opening, core, closing)


def _assemble(game, first: int, last: int, opening: _Window, core: _Window,
              closing: _Window) -> StateGraph:
    o, c, z = opening.arrays(), core.arrays(), closing.arrays()
    middle = last - first
    # where the exits lead: opening -> core ids (beat ``first``), core -> next copy,
    # the last copy -> closing ids
    opening_exit = np.array([core.index[s] for s in opening.exits], np.int64)
    # (-1: an exit of the last generation, which only the last middle beat reaches)
    core_exit = np.array([core.index.get(s._replace(beat=first), -1) for s in core.exits],
                         np.int64)
    closing_exit = np.array([closing.index[s._replace(beat=last)] for s in core.exits],
                            np.int64)
    reach = _reachable(c, z, opening_exit, core_exit,
                       closing_exit, middle)
    keep = np.concatenate([np.ones(o.size, bool), *reach])
    new_id = np.cumsum(keep) - 1
    base = [0] + [o.size + k * c.size for k in range(middle)] + [o.size + middle * c.size]

    parts = [(0, o, np.ones(o.size, bool), _route(o, 0, base[1] + opening_exit))]
    for k in range(middle):
        onward = base[k + 2] + core_exit if k < middle - 1 else base[-1] + closing_exit
        parts.append((base[k + 1], c, reach[k], _route(c, base[k + 1], onward)))
    parts.append((base[-1], z, reach[-1], _route(z, base[-1], np.zeros(0, np.int64))))

    states = _states(opening, core, closing, reach, first)
    return assemble(
        states,
        np.concatenate([a.terminal[kept] for _, a, kept, _ in parts]),
        np.concatenate([a.payoff[kept] for _, a, kept, _ in parts]),
        np.concatenate([a.mask_a[kept] for _, a, kept, _ in parts]),
        np.concatenate([a.mask_b[kept] for _, a, kept, _ in parts]),
        *_pairs(parts, new_id, len(states)), _start(len(states)))


def _route(a: _Arrays, offset: int, onward: np.ndarray) -> np.ndarray:
    """Global targets of a block's outcomes: its own states moved by ``offset``, its
    exits through ``onward`` (exit number -> global state)."""
    targets = a.targets + offset
    targets[~a.inner] = onward[-1 - a.targets[~a.inner]]
    return targets


def _reachable(c: _Arrays, z: _Arrays, seeds: np.ndarray, core_exit: np.ndarray,
               closing_exit: np.ndarray, middle: int) -> list[np.ndarray]:
    """Which core states each middle beat reaches, then which closing states."""
    within = _successors(c.entry_state[c.inner], c.targets[c.inner], c.size, c.size)
    onward = c.entry_state[~c.inner], -1 - c.targets[~c.inner]
    folded = core_exit[onward[1]] >= 0
    to_next = _successors(onward[0][folded], core_exit[onward[1][folded]], c.size, c.size)
    to_closing = _successors(onward[0], closing_exit[onward[1]], c.size, z.size)
    closing_within = _successors(z.entry_state, z.targets, z.size, z.size)
    reach, entering = [], np.zeros(c.size, bool)
    entering[seeds] = True
    for k in range(middle):
        reach.append(_closure(within, entering))
        step = to_next if k < middle - 1 else to_closing
        entering = (step @ reach[-1].astype(np.int64)) > 0
    reach.append(_closure(closing_within, entering))
    return reach


def _successors(source: np.ndarray, target: np.ndarray, n_from: int, n_to: int):
    """The transposed successor relation: (target, source) -> 1, for pushing reach."""
    ones = np.ones(len(source), np.int64)
    return sp.csr_matrix((ones, (target, source)), shape=(n_to, n_from))


def _closure(within: sp.csr_matrix, seeds: np.ndarray) -> np.ndarray:
    reach, frontier = seeds.copy(), seeds
    while frontier.any():
        step = (within @ frontier.astype(np.int64)) > 0
        frontier = step & ~reach
        reach |= frontier
    return reach


def _pairs(parts, new_id: np.ndarray, size: int):
    """The pairs of the kept states and their transitions, block after block."""
    pair_state, pair_a, pair_b, counts, indices, data = [], [], [], [], [], []
    for offset, a, kept, targets in parts:
        pairs = kept[a.pair_state]
        entries = kept[a.entry_state]
        pair_state.append(new_id[offset + a.pair_state[pairs]])
        pair_a.append(a.pair_a[pairs])
        pair_b.append(a.pair_b[pairs])
        counts.append(a.pair_entries[pairs])
        indices.append(new_id[targets[entries]])
        data.append(a.probs[entries])
    counts = np.concatenate(counts)
    indptr = np.concatenate([[0], np.cumsum(counts)])
    transitions = sp.csr_matrix((np.concatenate(data), np.concatenate(indices), indptr),
                                shape=(len(counts), size))
    return (np.concatenate(pair_state), np.concatenate(pair_a), np.concatenate(pair_b),
            transitions)


def _states(opening: _Window, core: _Window, closing: _Window, reach, first: int) -> list:
    states = list(opening.states)
    for k, kept in enumerate(reach[:-1]):
        beat = first + k
        states += [core.states[i]._replace(beat=beat) for i in np.flatnonzero(kept)]
    states += [closing.states[i] for i in np.flatnonzero(reach[-1])]
    return states


def _start(size: int) -> np.ndarray:
    start = np.zeros(size)
    start[0] = 1.0  # the opening window starts from the one start state
    return start
