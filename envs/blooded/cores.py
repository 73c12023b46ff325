"""The cores of a Blooded duel at once: the ``cores`` fast path of ``solver.counters``.

A core is a state without the beats left (``BloodedGame.core``). Most cores are steps
after the dice (Blind, cancellations, the defeated's Bind, the victor's maneuvers, a
Riposte's cancellation), and those steps do not depend on the Injuries: the same
choices, the same chances, the same next steps; only the end of the beat differs,
where the Injury dealt is kept if it is above the one already taken
(``Reductions.skipped_cancel`` judges a cancellation by what it does, never by the
state it leaves, for that). So the rules run once over the steps of unhurt duellists (the
*templates*), and every pair of Injuries reached gets a copy made with arrays, each
next state with its Injuries raised to those of the copy. The rules also run once per
beat start (a risk, a bid): few states with many joint actions, whose risks come from
the table every risk with the same dice shares.

States are integers here (``_Codec``: each field a digit of a mixed radix), which
numpy raises to the Injuries of a copy and finds again by sorting.
``solver.counters.walk`` (core by core through ``core_transitions``) stays the
reference: the conformance suite and ``tests/test_blooded_cores.py`` compare the two.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from solver.counters import CoreWalk
from solver.markov.graph import ranges

from .dice import risk_table_layout
from .state import BLIND, OVER, PLANS, RCANCEL, RISK, State

INJ_A, INJ_B = State._fields.index("inj_a"), State._fields.index("inj_b")
BEAT, PHASE = State._fields.index("beat"), State._fields.index("phase")


class _Codec:
    """States as int64: every field a digit, its radix the field's bound + 1."""

    def __init__(self, game):
        r, n = game.rules, game.max_dice
        bounds = {"beat": game.plain_beat + 1, "phase": OVER, "aggressor": 1,
                  "inj_a": r.max_rank, "inj_b": r.max_rank, "bank_a": r.bank_cap,
                  "bank_b": r.bank_cap, "feint_a": 1, "feint_b": 1, "bid_a": n, "bid_b": n,
                  "victor": 1, "wv": n, "wd": n, "ending": 5,
                  # declarations only with declaration = "before" (else one digit value)
                  "plan_a": len(PLANS) - 1 if game.declare_first else 0,
                  "plan_b": len(PLANS) - 1 if game.declare_first else 0}
        bounds["phase"] = game.last_phase
        for field in ("spend_a", "spend_b"):  # chosen only without auto_spend_style
            bounds[field] = 0 if r.auto_spend else r.spend_cap
        # the duel's pool (pool = "whole_duel") is never a core of this walk: one digit
        bounds["pool_a"] = bounds["pool_b"] = 0
        radix = np.array([bounds[f] + 1 for f in State._fields], np.int64)
        self.radix = radix
        self.known: dict[State, int] = {}
        self.place = np.concatenate([np.cumprod(radix[::-1])[::-1][1:], [1]]).astype(np.int64)

    def one(self, state: State) -> int:
        return int(np.dot(np.asarray(state, np.int64), self.place))

    def code(self, state: State) -> int:
        return sum(map(int.__mul__, state, self.place.tolist()))

    def many(self, states: list[State]) -> np.ndarray:
        """The codes of ``states`` (remembered: the same next states recur)."""
        known, place = self.known, self.place.tolist()
        out = []
        for state in states:
            code = known.get(state)
            if code is None:
                code = known[state] = sum(map(int.__mul__, state, place))
            out.append(code)
        return np.array(out, np.int64)

    def field(self, codes: np.ndarray, k: int) -> np.ndarray:
        return (codes // self.place[k]) % self.radix[k]

    def states(self, codes: np.ndarray) -> list[State]:
        # field by field: a short list per field, zipped, beats one long row per state
        fields = [((codes // place) % radix).tolist()
                  for place, radix in zip(self.place.tolist(), self.radix.tolist(),
                                          strict=True)]
        return list(map(State._make, zip(*fields, strict=True)))


class _Templates(NamedTuple):
    """The templates' transitions as arrays: per template its pairs
    (``pair_slices``), per pair its actions and outcomes (``entry_slices``), per
    outcome its raw target (a code as the rules give it), probability and whether it
    stays in the beat (``inside``: a template); ``successor`` (template to the
    templates it leads to, a CSR matrix) pushes reach."""

    pair_a: np.ndarray
    pair_b: np.ndarray
    counts: np.ndarray
    targets: np.ndarray
    probs: np.ndarray
    pair_slices: np.ndarray
    entry_slices: np.ndarray
    inside: np.ndarray
    successor: sp.csr_matrix


class _Copies(NamedTuple):
    """The copies of the templates over the Injuries reached: each copy's code and
    template, its pairs (``pair_owner``: the copy of each) and outcomes, their raw
    targets raised to the copy's Injuries."""

    codes: np.ndarray
    template: np.ndarray
    pair_owner: np.ndarray
    pair_a: np.ndarray
    pair_b: np.ndarray
    counts: np.ndarray
    raw_targets: np.ndarray
    probs: np.ndarray


def _post_dice(phase: int) -> bool:
    return BLIND <= phase <= RCANCEL


class _Builder:
    """The walk: beat starts one by one, the steps after the dice as templates."""

    def __init__(self, game):
        self.game, self.rules = game, game.endless
        self.plain = game.plain_beat
        self.codec = _Codec(game)
        n = len(game.info.action_names)
        self.n = n
        # beat starts (and the ends of the duel): their codes, masks and transitions
        self.starts: dict[int, int] = {}
        self.start_states: list[State] = []
        self.start_parts: list[tuple] = []   # (pair_a, pair_b, counts, raw targets, probs)
        # per start: the templates its risk leads to (ids), and its Injuries
        self.seeds: list[np.ndarray] = []
        # templates: unhurt steps after the dice
        self.templates: dict[State, int] = {}
        self.template_states: list[State] = []
        self.template_codes: list[int] = []
        # the templates' transitions, flat: pairs per template, then per pair its
        # actions and number of outcomes, per outcome its raw target and probability
        self.template_pairs: list[int] = []
        self.template_flat: tuple[list, list, list, list, list] = ([], [], [], [], [])
        self._layouts: dict = {}
        self.targets_seen = 0  # beat starts whose direct targets were gathered
        self._arrays: tuple[int, _Templates] | None = None  # while no template is added
        self._after: dict = {}
        # per pair of Injuries (inj_a * (max_rank + 1) + inj_b): the templates reached
        self.reach: dict[int, np.ndarray] = {}
        self.spread = 0  # beat starts whose seeds have spread into ``reach``

    # -- raw targets: codes as the rules give them (a new beat is beat + 1)
    def template(self, state: State) -> int:
        found = self.templates.get(state)
        if found is None:
            found = self.templates[state] = len(self.template_states)
            self.template_states.append(state)
            self.template_codes.append(self.codec.code(state))
        return found

    def start(self, code: int) -> bool:
        """Add the beat start (or end) ``code``; False if it was known."""
        if code in self.starts:
            return False
        self.starts[code] = len(self.start_states)
        self.start_states.append(None)  # filled when walked
        return True

    def walk_templates(self, first: int) -> None:
        """The transitions of the templates from ``first`` on (adding those they reach)."""
        k = first
        pair_a, pair_b, counts, targets, probs = self.template_flat
        while k < len(self.template_states):
            state = self.template_states[k]
            found = self.rules.transitions(state)
            self.template_pairs.append(len(found))
            nexts = []
            for i, j, outcomes in found:
                pair_a.append(i)
                pair_b.append(j)
                counts.append(len(outcomes))
                for p, nxt in outcomes:
                    if _post_dice(nxt.phase):
                        self.template(nxt)
                    nexts.append(nxt)
                    probs.append(p)
            targets.append(self.codec.many(nexts))
            k += 1

    def walk_start(self, state: State) -> None:
        """A beat start's transitions: a risk from its dice's table, the rest by the
        rules; the templates its risk leads to become its seeds."""
        g = self.rules
        if state.phase == OVER:
            self.start_parts.append(None)
            self.seeds.append(np.zeros(0, np.int64))
            return
        if state.phase != RISK:
            pair_a, pair_b, counts, targets, probs = [], [], [], [], []
            for i, j, outcomes in g.transitions(state):
                pair_a.append(i)
                pair_b.append(j)
                counts.append(len(outcomes))
                targets.extend(nxt for _, nxt in outcomes)
                probs.extend(p for p, _ in outcomes)
            raw = self.codec.many(targets)
            self.start_parts.append((np.asarray(pair_a), np.asarray(pair_b),
                                     np.asarray(counts), raw, np.asarray(probs)))
            self.seeds.append(np.zeros(0, np.int64))
            return
        tie = 1 - state.aggressor if g.rules.risk_tie == "defender" else state.aggressor
        key = (g.dice_left(state, 0), g.dice_left(state, 1), tie)
        layout = self._layouts.get(key)
        if layout is None:
            wagers_a, wagers_b, counts, which, probs, cases = risk_table_layout(
                *key, g.rules.target, g.rules.sides)
            layout = self._layouts[key] = (np.asarray(wagers_a), np.asarray(wagers_b),
                                           np.asarray(counts), np.asarray(which),
                                           np.asarray(probs), cases,
                                           np.array([self._case_id(c) for c in cases]))
        wagers_a, wagers_b, counts, which, probs, cases, ids = layout
        unhurt = state._replace(inj_a=0, inj_b=0)
        # what follows the roll depends on the state only through what the roll leaves
        # (``_risk_base``): each result is worked out once per such base
        base = g._risk_base(unhurt)
        table = self._after.get(base)
        if table is None:
            size = 1 + 2 * (self.game.max_dice + 1) ** 2
            table = self._after[base] = (np.full(size, -1, np.int64),
                                         np.full(size, -1, np.int64))
        codes, templates = table
        for k in np.flatnonzero(codes[ids] < 0).tolist():
            nxt = g._after_risk(unhurt, base, cases[k])
            codes[ids[k]] = self.codec.one(nxt)
            templates[ids[k]] = self.template(nxt) if _post_dice(nxt.phase) else -1
        raised = _raise(self.codec, codes[ids], state.inj_a, state.inj_b)
        seeds = templates[ids]
        self.start_parts.append((wagers_a, wagers_b, counts, raised[which], probs))
        self.seeds.append(seeds[seeds >= 0])

    def _case_id(self, case) -> int:
        """A risk's result (None: both failed; else victor, his wagers, the other's)
        as a position in a base's table."""
        if case is None:
            return 0
        side = self.game.max_dice + 1
        victor, wv, wd = case
        return 1 + (victor * side + wv) * side + wd


def core_walk(game) -> CoreWalk:
    """Every core of ``game`` (a ``BloodedGame``), as ``solver.counters.walk`` finds them."""
    with _no_cycle_collection():
        return _core_walk(game)


@contextmanager
def _no_cycle_collection():
    """The build makes millions of states (tuples of ints) and keeps them: none can be
    part of a reference cycle, yet each collection of the oldest generation would scan
    them all again (about a third of the build's time)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _core_walk(game) -> CoreWalk:
    b = _Builder(game)
    codec = b.codec
    (_, first), = game.initial_outcomes()
    first_core = game.core(first)
    b.start(codec.one(first_core))
    b.start_states[0] = first_core
    walked, templates_walked = 0, 0
    instances = np.zeros((0, 3), np.int64)   # (template, inj_a, inj_b) reached
    while True:
        # beat starts not yet walked
        while walked < len(b.start_states):
            state = b.start_states[walked]
            b.walk_start(state)
            walked += 1
        b.walk_templates(templates_walked)
        templates_walked = len(b.template_states)
        instances, ends = _instances(b)
        fresh = [int(c) for c in ends.tolist() if b.start(int(c))]
        # beat starts reached from beat starts directly (a double failure, a bid)
        direct = _start_targets(b)
        fresh += [int(c) for c in direct.tolist() if b.start(int(c))]
        if not fresh:
            break
        new_states = codec.states(np.asarray(fresh, np.int64))
        for code, state in zip(fresh, new_states, strict=True):
            b.start_states[b.starts[code]] = state
    return _assemble(b, instances)


def _to_core(codec: _Codec, codes: np.ndarray, plain: int) -> np.ndarray:
    """A new beat past the plain one is the plain beat again."""
    beat = codec.field(codes, BEAT)
    return codes - np.where(beat > plain, beat - plain, 0) * codec.place[BEAT]


def _start_targets(b: _Builder) -> np.ndarray:
    """Beat starts (and ends) reached from the beat starts walked since the last call,
    not through a template."""
    codec = b.codec
    parts = [part[3] for part in b.start_parts[b.targets_seen:] if part is not None]
    b.targets_seen = len(b.start_parts)
    if not parts:
        return np.zeros(0, np.int64)
    raw = np.unique(np.concatenate(parts))
    raw = raw[~_post_dice_codes(codec, raw)]
    return _to_core(codec, raw, b.plain)


def _post_dice_codes(codec: _Codec, codes: np.ndarray) -> np.ndarray:
    phase = codec.field(codes, PHASE)
    return (phase >= BLIND) & (phase <= RCANCEL)


def _template_arrays(b: _Builder) -> _Templates:
    """The templates walked so far as arrays (remembered while none is added)."""
    flat = b.template_flat
    if b._arrays is not None and b._arrays[0] == len(flat[0]):
        return b._arrays[1]
    pair_a, pair_b, counts = (np.asarray(x, np.int64) for x in flat[:3])
    # (no template at all when every roll ends the beat at once: a first blood duel)
    targets = np.concatenate(flat[3]) if flat[3] else np.zeros(0, np.int64)
    probs = np.asarray(flat[4], float)
    per = np.asarray(b.template_pairs, np.int64)
    size = len(per)
    pair_slices = np.concatenate([[0], np.cumsum(per)])
    entry_slices = np.concatenate([[0], np.cumsum(counts)])
    inside = _post_dice_codes(b.codec, targets)
    owner = np.repeat(np.repeat(np.arange(size), per), counts)
    # a step inside the beat leads to a template (the same beat, unhurt)
    codes = np.asarray(b.template_codes, np.int64)
    order = np.argsort(codes)
    to = order[np.searchsorted(codes[order], targets[inside])]
    successor = sp.csr_matrix((np.ones(len(to), np.int8), (owner[inside], to)),
                              shape=(size, size))
    arrays = _Templates(pair_a, pair_b, counts, targets, probs, pair_slices, entry_slices,
                        inside, successor)
    b._arrays = (len(flat[0]), arrays)
    return arrays


def _instances(b: _Builder) -> tuple[np.ndarray, np.ndarray]:
    """(template, inj_a, inj_b) for every copy some beat start reaches, and the beat
    starts and ends reached by the copies added since the last call (as cores).

    Reach only grows from one call to the next (a template's successors are walked
    with it), so each pair of Injuries keeps its reach (``b.reach``) and spreads it
    from its new seeds only; the ends of the copies found earlier are known starts.
    """
    codec = b.codec
    if not b.template_states:
        return np.zeros((0, 3), np.int64), np.zeros(0, np.int64)
    t = _template_arrays(b)
    size = len(b.template_states)
    top = b.rules.rules.max_rank + 1
    new_starts = range(b.spread, len(b.start_states))
    b.spread = len(b.start_states)
    new_pairs: dict[int, list[int]] = {}
    for k in new_starts:
        state = b.start_states[k]
        new_pairs.setdefault(state.inj_a * top + state.inj_b, []).append(k)
    ends = []
    for pair, starts in new_pairs.items():
        reach = b.reach.get(pair)
        if reach is None or len(reach) < size:
            grown = np.zeros(size, bool)
            if reach is not None:
                grown[:len(reach)] = reach
            reach = b.reach[pair] = grown
        frontier = _unreached(reach, np.concatenate([b.seeds[k] for k in starts]))
        fresh = []
        while frontier.size:
            reach[frontier] = True
            fresh.append(frontier)
            frontier = _unreached(reach, t.successor.indices[
                ranges(t.successor.indptr, frontier)])
        if fresh:
            entries = ranges(t.entry_slices, ranges(t.pair_slices, np.concatenate(fresh)))
            leaving = t.targets[entries[~t.inside[entries]]]
            ends.append(_raise(codec, np.unique(leaving), pair // top, pair % top))
    instances = np.concatenate(
        [np.stack([chosen, np.full(len(chosen), pair // top),
                   np.full(len(chosen), pair % top)], axis=1)
         for pair, chosen in ((p, np.flatnonzero(b.reach[p])) for p in sorted(b.reach))]
        + [np.zeros((0, 3), np.int64)])
    if not ends:
        return instances, np.zeros(0, np.int64)
    return instances, np.unique(_to_core(codec, np.concatenate(ends), b.plain))


def _unreached(reach: np.ndarray, found: np.ndarray) -> np.ndarray:
    """The templates among ``found`` not yet in ``reach``, each once, in order."""
    mark = np.zeros(len(reach), bool)
    mark[found] = True
    return np.flatnonzero(mark & ~reach)


def _raise(codec: _Codec, codes: np.ndarray, inj_a: np.ndarray, inj_b: np.ndarray):
    """``codes`` with each Injury raised to at least ``inj_a`` / ``inj_b``."""
    have_a, have_b = codec.field(codes, INJ_A), codec.field(codes, INJ_B)
    return (codes + (np.maximum(have_a, inj_a) - have_a) * codec.place[INJ_A]
            + (np.maximum(have_b, inj_b) - have_b) * codec.place[INJ_B])


def _lift(b: _Builder, instances: np.ndarray) -> _Copies:
    """The copies ``instances`` (template, inj_a, inj_b) as arrays."""
    codec, t = b.codec, _template_arrays(b)
    template, inj_a, inj_b = instances.T
    own = _raise(codec, np.asarray(b.template_codes, np.int64)[template], inj_a, inj_b)
    pairs = ranges(t.pair_slices, template)
    pair_owner = np.repeat(np.arange(len(instances)), np.diff(t.pair_slices)[template])
    entries = ranges(t.entry_slices, pairs)
    entry_owner = np.repeat(pair_owner, t.counts[pairs])
    raw = _raise(codec, t.targets[entries], inj_a[entry_owner], inj_b[entry_owner])
    return _Copies(own, template, pair_owner, t.pair_a[pairs], t.pair_b[pairs],
                   t.counts[pairs], raw, t.probs[entries])


def _assemble(b: _Builder, instances: np.ndarray) -> CoreWalk:
    """The walk: beat starts first, then the copies, their pairs in that order (so
    sorted by core), each outcome's target found among the cores' codes."""
    codec, n = b.codec, b.n
    copies = _lift(b, instances)
    codes = np.concatenate([codec.many(b.start_states), copies.codes])
    order = np.argsort(codes)
    starts = len(b.start_states)
    terminal = np.zeros(len(codes), bool)
    payoff = np.zeros(len(codes))
    mask_a = np.zeros((len(codes), n), bool)
    mask_b = np.zeros((len(codes), n), bool)
    pieces = []  # per part: pair cores, actions, outcome counts, raw targets, probs, beats
    for k, (state, part) in enumerate(zip(b.start_states, b.start_parts, strict=True)):
        if part is None:
            terminal[k], payoff[k] = True, b.game.payoff(state)
            continue
        pair_a, pair_b, counts, raw, probs = part
        pieces.append((np.full(len(pair_a), k), pair_a, pair_b, counts, raw, probs,
                       np.full(len(raw), state.beat)))
    # the copies: their templates' pairs and outcomes
    beats = codec.field(np.asarray(b.template_codes, np.int64), BEAT)[copies.template]
    pieces.append((starts + copies.pair_owner, copies.pair_a, copies.pair_b, copies.counts,
                   copies.raw_targets, copies.probs,
                   beats[np.repeat(copies.pair_owner, copies.counts)]))
    pair_core, pair_a, pair_b, counts, raw, probs, beat = (
        np.concatenate([np.asarray(piece[i]) for piece in pieces]) for i in range(7))
    # a core's pairs are its legal actions times the opponent's, so they give its masks
    mask_a[pair_core, pair_a] = True
    mask_b[pair_core, pair_b] = True
    # a new beat lowers the beats left; the end of the duel does not
    lowered = (codec.field(raw, BEAT) > beat) & (codec.field(raw, PHASE) != OVER)
    targets = order[np.searchsorted(codes[order], _to_core(codec, raw, b.plain))]
    return CoreWalk(codec.states(codes), terminal, payoff, mask_a, mask_b,
                    pair_core.astype(np.int64), pair_a.astype(np.int64),
                    pair_b.astype(np.int64), counts.astype(np.int64), targets,
                    probs.astype(float), lowered.astype(np.int64)[:, None])
