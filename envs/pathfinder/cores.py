"""The cores of a Pathfinder duel at once: the ``cores`` fast path of ``solver.counters``.

A core is a state without hit points (``PathfinderGame.core``), of one of a round's
three steps: a decision (332 of them for fighter against rogue, about 360 joint actions
each), a first or a second turn (45,290 together, one joint action each, with 1.5M of
the 1.69M outcomes). What a turn does depends on its core only through its context (the
plan, both skills, both frightened values, the target's off-guard and shield: 864
contexts), and a decision only through the immunities (its legal plans) and the
frightened values (initiative). So the rules run once per context
(``PathfinderGame._turn_kinds``) and once per table (the masks, the initiative), and
every core's outcomes are copied from them with arrays: cores are integer codes (each
field a digit), found and numbered by sorting. The walk goes round by round: the new
decision cores, the first turns they lead to, the second turns, the decision cores
those lead to, until no core is new.

``solver.counters.walk`` (core by core through ``core_transitions``) stays the
reference: the conformance suite compares the two.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.counters import CoreWalk
from solver.markov.graph import ranges

from .rules import TurnContext, shield_state, spends_own_reaction
from .state import (
    DECIDE,
    DEM_AT,
    FIRST,
    FR_AT,
    OG_AT,
    PLAN_AT,
    SECOND,
    SH_AT,
    SKILL_AT,
    SPENT_AT,
    State,
)

PHASE, ORDER = State._fields.index("phase"), State._fields.index("first")


class _Codec:
    """Cores as int64: every field a digit, its radix the field's bound + 1 (a core of
    a duel without a round limit: round 1, no hit points, no ending)."""

    def __init__(self, game):
        top = {"phase": SECOND, "round": 1, "fr": game.max_frightened, "dem": 1, "og": 3,
               "sh": 2, "skill": 2, "plan": game.n_plans - 1, "first": 1, "spent": 1}
        self.radix = np.array([top.get(name.removesuffix("_a").removesuffix("_b"), 0) + 1
                               for name in State._fields], np.int64)
        self.place = np.concatenate([np.cumprod(self.radix[::-1])[::-1][1:], [1]])

    def codes(self, rows: np.ndarray) -> np.ndarray:
        return rows @ self.place

    def rows(self, codes: np.ndarray) -> np.ndarray:
        return codes[:, None] // self.place % self.radix


class _Piece(NamedTuple):
    """The joint actions of one batch of new cores (``owner``: a position in the batch),
    their outcomes, and each outcome's next core as a position in ``links``: codes, one
    per (core, kind of result) where many outcomes share a next core."""

    codes: np.ndarray
    mask_a: np.ndarray
    mask_b: np.ndarray
    owner: np.ndarray
    pair_a: np.ndarray
    pair_b: np.ndarray
    counts: np.ndarray
    links: np.ndarray
    link: np.ndarray
    probs: np.ndarray
    decrements: np.ndarray


class _Turns:
    """The turns of every context met so far (``PathfinderGame._turn_kinds``), flat: per
    context its kinds of result (``kind_bounds``, ``kinds``) and its results
    (``entry_bounds``; ``kind`` a position among the context's kinds)."""

    def __init__(self, game):
        self.game = game
        fr = game.max_frightened + 1
        self.shape = (2, game.n_plans, 3, 3, fr, fr, 2, 3, 2)
        self.known: dict[int, int] = {}
        self.found: list = []
        self._flatten()

    def ids(self, contexts: np.ndarray) -> np.ndarray:
        """The position of each context (rows: actor, plan, actor's skill, target's
        skill, actor's frightened, target's, target off-guard, target's shield, target's
        reaction unspent), the new ones resolved."""
        codes, first, inverse = np.unique(np.ravel_multi_index(tuple(contexts.T), self.shape),
                                          return_index=True, return_inverse=True)
        fresh = [k for k, code in enumerate(codes.tolist()) if code not in self.known]
        for k in fresh:
            x, plan, skill_x, skill_y, fr_x, fr_y, off_guard, shield, reaction = contexts[
                first[k]].tolist()
            ctx = TurnContext(plan, skill_x, skill_y, fr_x, fr_y, bool(off_guard), bool(shield),
                              cap=self.game.start_hp["ab"[1 - x]],
                              target_reaction=bool(reaction), target_blocks=shield == 2)
            self.known[int(codes[k])] = len(self.found)
            self.found.append(self.game._turn_kinds(x, ctx))
        if fresh:
            self._flatten()
        return np.array([self.known[code] for code in codes.tolist()], np.int64)[inverse]

    def _flatten(self):
        def bounds(sizes):
            return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

        found = self.found
        self.kind_bounds = bounds([len(t.kinds) for t in found])
        self.entry_bounds = bounds([len(t.kind) for t in found])
        self.kinds = np.array([k for t in found for k in t.kinds], np.int64).reshape(-1, 5)
        self.kind = np.concatenate([t.kind for t in found] + [np.zeros(0, np.int64)])
        self.damage = np.concatenate([t.damage for t in found] + [np.zeros(0, np.int64)])
        self.chance = np.concatenate([t.chance for t in found] + [np.zeros(0)])


class _Builder:
    """The tables the rules give once (masks, initiative, what each plan leaves) and
    the outcomes of a batch of new cores of one step from them."""

    def __init__(self, game):
        self.game, self.codec = game, _Codec(game)
        n = len(game.info.action_names)
        self.wait = np.zeros(n, bool)
        self.wait[game.wait] = True
        # by the player's own immunity flag: his legal actions at a decision
        self.masks = {side: np.array([game.legal_mask(State(**{f"dem_{side}": dem}), side)
                                      for dem in (0, 1)]) for side in "ab"}
        # P(A wins initiative) by skill of A, of B, frightened of A, of B
        frightened = range(game.max_frightened + 1)
        self.win = np.array([[[[game.initiative(State(fr_a=fa, fr_b=fb), sa, sb)
                                for fb in frightened] for fa in frightened]
                              for sb in range(3)] for sa in range(3)])
        # by both immunity flags (2 * A's + B's): a decision's joint actions, A's legal
        # actions times B's, A's outer (as ``transitions`` lists them)
        tables = [(np.flatnonzero(self.masks["a"][i]), np.flatnonzero(self.masks["b"][j]))
                  for i in (0, 1) for j in (0, 1)]
        self.pair_bounds = np.cumsum([0] + [len(a) * len(b) for a, b in tables])
        self.pair_a = np.concatenate([np.repeat(a, len(b)) for a, b in tables])
        self.pair_b = np.concatenate([np.tile(b, len(a)) for a, b in tables])
        self.split = np.array(game._split, np.int64)   # action -> (skill, order, plan)
        steps = game._plan_steps
        self.shields = np.array([shield_state(s) for s in steps], np.int64)
        self.scares = np.array(["demoralize" in s for s in steps], np.int64)
        # by actor, plan and his skill: the turn spends his reaction (and it is remembered)
        self.spends = np.array([[[game.rules.refresh_each_turn and spends_own_reaction(
            game.fighters[side], s, skill, game.rules) for skill in range(3)] for s in steps]
            for side in "ab"], np.int64)
        self.contexts = _Turns(game)

    def decisions(self, codes: np.ndarray) -> _Piece:
        """A decision's joint actions, each to A acting first or second."""
        rows = self.codec.rows(codes)
        dem_a, dem_b = rows[:, DEM_AT], rows[:, DEM_AT + 1]
        table = dem_a * 2 + dem_b
        chosen = ranges(self.pair_bounds, table)
        owner = np.repeat(np.arange(len(codes)), np.diff(self.pair_bounds)[table])
        pair_a, pair_b = self.pair_a[chosen], self.pair_b[chosen]
        (skill_a, order_a, plan_a), (skill_b, order_b, plan_b) = (self.split[pair_a].T,
                                                                  self.split[pair_b].T)
        win = self.win[skill_a, skill_b, rows[owner, FR_AT], rows[owner, FR_AT + 1]]
        # PathfinderGame.first_probability, in the same operations
        p_a = win * (order_a == 0) + (1 - win) * (order_b == 1)
        chances = np.stack([p_a, 1 - p_a], axis=1)
        kept = chances > 0
        place = self.codec.place
        # a decision's skills, plans and order are 0: the first turn's are added
        turn = (codes[owner] + (FIRST - DECIDE) * place[PHASE] + skill_a * place[SKILL_AT]
                + skill_b * place[SKILL_AT + 1] + plan_a * place[PLAN_AT]
                + plan_b * place[PLAN_AT + 1])
        links = (turn[:, None] + np.array([0, place[ORDER]]))[kept]
        return _Piece(codes, self.masks["a"][dem_a], self.masks["b"][dem_b], owner, pair_a,
                      pair_b, kept.sum(axis=1), links, np.arange(len(links)), chances[kept],
                      np.zeros((len(links), 2), np.int64))

    def turns(self, codes: np.ndarray) -> _Piece:
        """A turn's one joint action (both wait) and its results, from its context's."""
        rows = self.codec.rows(codes)
        at = np.arange(len(codes))
        x = ((rows[:, PHASE] == FIRST) != (rows[:, ORDER] == 0)).astype(np.int64)
        y = 1 - x
        context = np.stack([x, rows[at, PLAN_AT + x], rows[at, SKILL_AT + x],
                            rows[at, SKILL_AT + y], rows[at, FR_AT + x], rows[at, FR_AT + y],
                            rows[at, OG_AT + y] != 0, rows[at, SH_AT + y],
                            1 - rows[at, SPENT_AT + y]], axis=1)
        t = self.contexts
        ctx = t.ids(context)
        # one next core per (core, kind of result), from the values any result leaves
        base = self.after_any_turn(rows, at, x)
        kind_of = ranges(t.kind_bounds, ctx)
        per_core = np.diff(t.kind_bounds)[ctx]
        holder = np.repeat(at, per_core)
        nxt = self.result_rows(rows[holder], base[holder], x[holder], t.kinds[kind_of])
        entry = ranges(t.entry_bounds, ctx)
        counts = np.diff(t.entry_bounds)[ctx]
        # per result (14 million at level 5): repeated per core, never gathered by owner
        link = np.repeat(np.cumsum(per_core) - per_core, counts) + t.kind[entry]
        damage = t.damage[entry]
        on_b = damage * np.repeat(y, counts)      # the target's counter is lowered
        decrements = np.stack([damage - on_b, on_b], axis=1)
        wait = np.full(len(codes), self.game.wait, np.int64)
        masks = np.broadcast_to(self.wait, (len(codes), len(self.wait)))
        return _Piece(codes, masks, masks, at, wait, wait, counts, self.codec.codes(nxt), link,
                      t.chance[entry], decrements)

    def after_any_turn(self, rows, at, x) -> np.ndarray:
        """``PathfinderGame._after_any_turn`` for every row (``x`` the actor): his
        frightened decays, his shield and his Demoralize follow his plan; then the
        second turn, or the next round's decision."""
        base = rows.copy()
        plan = rows[at, PLAN_AT + x]
        base[at, SPENT_AT + x] = self.spends[x, plan, rows[at, SKILL_AT + x]]
        base[at, FR_AT + x] = np.maximum(0, rows[at, FR_AT + x] - 1)
        base[at, SH_AT + x] = self.shields[plan]
        base[at, DEM_AT + x] |= self.scares[plan]
        first = rows[:, PHASE] == FIRST
        base[first, PHASE] = SECOND
        base[at[first], PLAN_AT + x[first]] = 0
        base[~first, PHASE] = DECIDE
        base[~first, SKILL_AT:ORDER + 1] = 0
        return base

    @staticmethod
    def result_rows(rows, base, x, kinds) -> np.ndarray:
        """``PathfinderGame._result_values`` for every row: ``kinds`` (fright, linger,
        crit, fumble, spent) set the target's frightened and both off-guard bits, and
        what spends the target's reaction (a Sidestep, a Shield Block) is kept."""
        at, y = np.arange(len(rows)), 1 - x
        fright, linger, crit, fumble, spent = kinds.T
        out = base.copy()
        out[at, FR_AT + y] = fright
        out[at, SPENT_AT + y] |= spent
        out[at, OG_AT + y] = np.where(crit != 0, 2, (rows[at, OG_AT + y] & 1) | linger)
        out[at, OG_AT + x] = (rows[at, OG_AT + x] & 2) | fumble
        return out


def core_walk(game) -> CoreWalk:
    """Every core of ``game`` (a ``PathfinderGame`` without a round limit), as
    ``solver.counters.walk`` finds them."""
    b = _Builder(game)
    (_, start), = game.initial_outcomes()
    seen = {phase: np.zeros(0, np.int64) for phase in (DECIDE, FIRST, SECOND)}
    pieces = []
    fresh = b.codec.codes(np.array([game.core(start)], np.int64))
    phase = DECIDE
    while len(fresh):
        seen[phase] = np.union1d(seen[phase], fresh)
        piece = b.decisions(fresh) if phase == DECIDE else b.turns(fresh)
        pieces.append(piece)
        phase = (phase + 1) % 3
        found = np.unique(piece.links)
        fresh = found[~np.isin(found, seen[phase])]
    return _assemble(b, pieces)


def _assemble(b: _Builder, pieces: list[_Piece]) -> CoreWalk:
    """The batches one after the other (so the pairs are sorted by core), each
    outcome's next core found among the cores' codes."""
    codes = np.concatenate([p.codes for p in pieces])
    order = np.argsort(codes)
    starts = np.cumsum([0] + [len(p.codes) for p in pieces])
    targets = [order[np.searchsorted(codes[order], p.links)][p.link] for p in pieces]

    def joined(name):
        return np.concatenate([getattr(p, name) for p in pieces])

    rows = b.codec.rows(codes)
    cores = list(map(State._make, zip(*rows.T.tolist(), strict=True)))
    return CoreWalk(cores, np.zeros(len(codes), bool), np.zeros(len(codes)),
                    joined("mask_a"), joined("mask_b"),
                    np.concatenate([start + p.owner for start, p in zip(starts[:-1], pieces,
                                                                        strict=True)]),
                    joined("pair_a"), joined("pair_b"), joined("counts"),
                    np.concatenate(targets), joined("probs"), joined("decrements"), rows)
