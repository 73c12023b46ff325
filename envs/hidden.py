"""Hidden sheets for every system: each side's sheet drawn from a public prior and known
only to its owner, built generically from the system's public duels.

``envs.make(system, a_prior=[(SHEET, WEIGHT), ...], b=...)`` (or the text form
``"SHEET@WEIGHT;SHEET@WEIGHT"``) builds one public duel per pair of sheets and wraps
them in ``HiddenGame``: ``initial_outcomes`` draws the pair from the priors, the state
carries it, and ``observe`` gives each player

    (his own sheet's index in his prior, the public view of the duel, his trail)

- **the public view** is the system's own observation with what a hidden sheet keeps
  from its foe taken out, as the system declares it in its ruleset, ``[hidden_sheet]``:
  ``unknown`` fields read -1, and ``lost`` fields (a counter such as hit points) read
  what the hidden side has lost since the start (the damage dealt is seen, the total
  is not). A side whose sheet is public (a plain ``a=`` / ``b=``) is seen whole.
- **the trail** is a 59-bit digest of everything the player has seen so far (every
  public view and both actions once played; 0 once the duel is over): perfect recall,
  so an information set is one observation and the equilibrium is a policy on
  observations. Equal trails are taken for equal histories (a collision among 2^59
  values is not expected at the sizes the solvers take; the exact solver checks).

With one sheet at weight 1 the hidden duel is the public duel (the public view and the
trail recover what the system's observation shows), which the tests check on every
system.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from solver.errors import InputError
from solver.game import DeclaredGame, GameInfo, sample_step

from .schema import number_text

#: the ruleset table where a system declares what a hidden sheet keeps from its foe
SECRETS_KEY = "hidden_sheet"
#: the trail's digest bits (a non-negative integer of at most 18 digits)
TRAIL_BITS = 59
TRAIL_HIGH = 2**TRAIL_BITS - 1
PLAYERS = ("a", "b")


class HiddenState(NamedTuple):
    """A moment of a hidden-sheet duel: both sheets (indices into the priors), the
    public duel's state, and each player's history up to the last actions played,
    digested (with what he sees now, his ``trail``)."""

    type_a: int
    type_b: int
    inner: object
    trail_a: int
    trail_b: int


def parse_prior(value: object, side: str) -> list[tuple[object, float]]:
    """A prior as ``[(sheet, weight), ...]``, from that list or from the text form
    ``SHEET@WEIGHT;SHEET@WEIGHT`` (a bare SHEET weighs 1)."""
    what = f"{side}_prior"
    if isinstance(value, str):
        entries = []
        for part in filter(None, (p.strip() for p in value.split(";"))):
            sheet, sep, weight = part.rpartition("@")
            if not sep:
                sheet, weight = part, "1"
            number = number_text(weight)
            if number is None:
                raise InputError(f"{what}: weight of {sheet.strip()!r} must be a finite "
                                 f"number >= 0 (ASCII digits), got {weight.strip()!r:.40}")
            entries.append((sheet.strip(), number))
        value = entries
    if isinstance(value, Mapping) or not isinstance(value, Sequence) or not value:
        raise InputError(f"{what} must be a non-empty list of (sheet, weight) or text like "
                         f"'rogue@0.6;fighter,hp=30@0.4', got {value!r:.80}")
    prior = []
    for entry in value:
        if not (isinstance(entry, Sequence) and not isinstance(entry, str) and len(entry) == 2):
            raise InputError(f"{what}: each entry is a (sheet, weight) pair, got {entry!r:.80}")
        sheet, weight = entry
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not (
                _finite(weight) and weight >= 0):
            raise InputError(f"{what}: weight of {sheet!r} must be a finite number >= 0, "
                             f"got {weight!r}")
        prior.append((sheet, float(weight)))
    total = math.fsum(w for _, w in prior)
    if total <= 0 or not math.isfinite(total):
        raise InputError(f"{what}: at least one sheet needs a positive weight, and the "
                         "weights a finite sum")
    return [(sheet, weight / total) for sheet, weight in prior if weight > 0]


def _finite(number: int | float) -> bool:
    try:
        return math.isfinite(number)
    except OverflowError:
        return False


def make_hidden(entry, build_public, options: dict, priors: dict, ruleset: dict) -> HiddenGame:
    """The hidden-sheet duel of ``options`` (sheets ``a`` / ``b`` where plain) with
    ``priors`` by side (``None`` where the sheet is plain): ``build_public(a, b)`` makes
    one public duel."""
    sheets = {}
    for side in PLAYERS:
        plain = options.pop(side, None)
        if priors[side] is not None and plain not in (None, ""):
            raise InputError(f"side {side.upper()} has both a sheet ({side}=) and a prior "
                             f"({side}_prior=); a side with a prior has no plain sheet")
        prior = parse_prior(priors[side], side) if priors[side] is not None else [(plain, 1.0)]
        sheets[side] = [(entry.sheet.text(entry.sheet.normalise(sheet, side, ruleset),
                                          ruleset), weight) for sheet, weight in prior]
    games = {}
    for i, (sheet_a, _) in enumerate(sheets["a"]):
        for j, (sheet_b, _) in enumerate(sheets["b"]):
            games[i, j] = build_public(sheet_a, sheet_b)
    hidden = {side: priors[side] is not None for side in PLAYERS}
    return HiddenGame(games, sheets, hidden, secrets(entry.name, ruleset))


def secrets(system: str, ruleset: Mapping) -> dict[str, tuple[str, ...]]:
    """What a hidden sheet keeps from its foe, as the system declares it."""
    table = ruleset.get(SECRETS_KEY)
    if not isinstance(table, Mapping):
        raise InputError(f"{system} declares no [{SECRETS_KEY}] table in its ruleset (what a "
                         "hidden sheet keeps from its foe), so its sheets cannot be hidden")
    return {kind: tuple(table.get(kind, ())) for kind in ("unknown", "lost")}


def _union(lists: list[tuple[str, ...]]) -> list[str]:
    """Every name of ``lists``, each list's order kept (the longest first, then each
    missing name placed after the name it follows in its own list)."""
    lists = sorted(lists, key=len, reverse=True)
    union = list(lists[0])
    for names in lists[1:]:
        place = -1
        for name in names:
            if name in union:
                place = union.index(name)
            else:
                place += 1
                union.insert(place, name)
    return union


#: the multiplier of the trail's polynomial digest (a 64-bit FNV prime)
_PRIME = 0x100000001B3
_MASK = 2**64 - 1


def _digest(base: int, values: tuple[int, ...]) -> int:
    """``base`` extended by ``values``, in 59 bits (18 digits, the most a profile's
    observation key holds): a polynomial digest spelled out here (not Python's
    ``hash``), so a trail is the same on every platform and Python version."""
    digest = base
    for value in (len(values), *values):
        digest = ((digest ^ (value & _MASK)) * _PRIME) & _MASK
    return digest >> (64 - TRAIL_BITS)


class HiddenGame(DeclaredGame):
    """A system's duel with hidden sheets (``solver.game.Game``, public_information
    False), written once over the system's public duels, one per pair of sheets."""

    def __init__(self, games: dict, sheets: dict, hidden: dict, secret: dict):
        self.games = games
        self.sheets = sheets  # by side: [(sheet text, prior weight), ...]
        self.hidden = hidden
        first = max(games.values(), key=lambda game: len(game.info.action_names))
        self._check_alike(first)
        self._actions = _union([game.info.action_names for game in games.values()])
        self._outer = {key: np.array([self._actions.index(name)
                                      for name in game.info.action_names])
                       for key, game in games.items()}
        self._inner = {key: {int(o): i for i, o in enumerate(outer)}
                       for key, outer in self._outer.items()}
        self._fields = first.info.observation_fields
        self._masked = self._masks(first, secret)
        self._start = {key: self._start_values(game) for key, game in games.items()}
        # the words a system can give without what a hidden foe's sheet keeps
        self._hiding_words = {name for name in ("describe", "situation") if "foe_hidden"
                              in inspect.signature(getattr(first, name)).parameters}
        # by pair of sheets: the public duel's end test and payoff, looked up once (the
        # exact solver asks them at every point of the tree)
        self._ended = {key: game.is_terminal for key, game in games.items()}
        self._payoff = {key: game.payoff for key, game in games.items()}
        self.info = self._declare(first)

    # -- setting up

    def _check_alike(self, first) -> None:
        for (i, j), game in self.games.items():
            if not game.info.public_information:
                raise InputError(f"{first.info.system}: a prior needs the public duel; this "
                                 "one already hides information (drop hidden_levels)")
            if game.info.observation_fields != first.info.observation_fields:
                raise InputError(f"{first.info.system}: the sheets {self.sheets['a'][i][0]!r} "
                                 f"and {self.sheets['b'][j][0]!r} make a duel seen through "
                                 "other fields than the others; a prior mixes sheets of "
                                 "one kind of duel")

    def _masks(self, first, secret: dict) -> dict[str, dict[int, str]]:
        """By kind (``unknown``, ``lost``): the observation indices of the foe's fields
        that a hidden sheet keeps."""
        fields = first.info.observation_fields
        masked: dict[int, str] = {}
        for kind, names in secret.items():
            for name in names:
                if name not in fields:
                    raise InputError(f"{first.info.system}: [{SECRETS_KEY}] {kind} names "
                                     f"{name!r}, not an observation field; allowed: "
                                     f"{', '.join(fields)}")
                masked[fields.index(name)] = kind
        return masked

    def _start_values(self, game) -> dict[str, tuple[int, ...]]:
        """Each player's observation at the start (what ``lost`` counts from)."""
        start = game.initial_outcomes()[0][1]
        return {p: tuple(int(x) for x in game.observe(start, p)) for p in PLAYERS}

    def _declare(self, first) -> GameInfo:
        """The public duels' metadata, united: every sheet's actions, bounds wide enough
        for every pair of sheets, the public view's and the trail's fields; the options
        recorded with the priors in place of the hidden sheets."""
        infos = [game.info for game in self.games.values()]
        low = np.min([info.observation_low for info in infos], axis=0).tolist()
        high = np.max([info.observation_high for info in infos], axis=0).tolist()
        for index, kind in self._masked.items():
            if kind == "unknown":
                low[index] = min(low[index], -1)
            else:  # lost: what the foe lost since his start, at most his start's range
                low[index] = min(low[index], 0)
                high[index] = max(high[index], max(
                    max(start[p][index] for p in PLAYERS) - info.observation_low[index]
                    for start, info in zip(self._start.values(), infos, strict=True)))
        # a field constant in this short duel (one beat) widened by one: Gymnasium's Box
        # takes equal bounds for a mistake
        low = [lo - 1 if lo == hi else lo for lo, hi in zip(low, high, strict=True)]
        size = max(len(self.sheets[p]) for p in PLAYERS)
        recorded = {**first.info.options,
                    **{f"{p}_prior": [list(entry) for entry in self.sheets[p]]
                       for p in PLAYERS if self.hidden[p]}}
        for p in PLAYERS:
            if self.hidden[p]:
                recorded.pop(p, None)
        bounds = [info.payoff_bounds for info in infos]
        return GameInfo(
            system=first.info.system, action_names=tuple(self._actions),
            observation_fields=("own_sheet", *self._fields, "trail"),
            observation_low=(0 if size > 1 else -1, *low, 0),
            observation_high=(size - 1, *high, TRAIL_HIGH),
            public_information=False,
            payoff_bounds=(min(b[0] for b in bounds), max(b[1] for b in bounds)),
            may_cycle=any(info.may_cycle for info in infos), options=recorded,
            ruleset_hash=first.info.ruleset_hash,
            fast_paths=frozenset(path for path in ("sample", "transitions")
                                 if all(info.has(path) for info in infos)),
            length_unit=first.info.length_unit)

    # -- the public view and the trail

    def game_of(self, state: HiddenState):
        """The public duel of ``state``'s pair of sheets."""
        return self.games[state.type_a, state.type_b]

    def public_view(self, state: HiddenState, player: str) -> tuple[int, ...]:
        """What ``player`` sees of the duel: the system's observation, less what the
        foe's hidden sheet keeps from him."""
        key = (state.type_a, state.type_b)
        view = self.games[key].observe(state.inner, player)
        if not self._masked or not self.hidden["b" if player == "a" else "a"]:
            return tuple(int(x) for x in view)
        view = [int(x) for x in view]
        start = self._start[key][player]
        for k, kind in self._masked.items():
            view[k] = -1 if kind == "unknown" else start[k] - view[k]
        return tuple(view)

    def trail(self, state: HiddenState, player: str) -> int:
        """``player``'s trail at ``state``: his history before it with what he sees now."""
        if self.is_terminal(state):
            return 0  # nothing is left to decide: the ends need no trail
        base = state.trail_a if player == "a" else state.trail_b
        return _digest(base, self.public_view(state, player))

    def _after(self, state: HiddenState, steps) -> list:
        """``(action_a, action_b, outcomes)`` of the public duel at ``state``, each with
        its next states; each keeps both players' history up to the actions played
        (what they see next is added when they look: ``trail``), except an end, which
        needs none (``trail``): one end is one state whatever led there. Both trails at
        ``state`` are read once, if a step leads anywhere but an end."""
        kinds = (state.type_a, state.type_b)
        ended, trails, done = self._ended[kinds], None, []
        for action_a, action_b, outcomes in steps:
            bases, after = None, []
            for p, inner in outcomes:
                if ended(inner):
                    after.append((p, HiddenState(*kinds, inner, 0, 0)))
                    continue
                if bases is None:
                    trails = trails or (self.trail(state, "a"), self.trail(state, "b"))
                    pair = (int(action_a), int(action_b))
                    bases = (_digest(trails[0], pair), _digest(trails[1], pair))
                after.append((p, HiddenState(*kinds, inner, *bases)))
            done.append((action_a, action_b, after))
        return done

    # -- the protocol

    def initial_outcomes(self) -> list[tuple[float, HiddenState]]:
        """Both sheets drawn from the priors, then the public duel's own start."""
        return [(wa * wb * p, HiddenState(i, j, start, _digest(i, ()), _digest(j, ())))
                for i, (_, wa) in enumerate(self.sheets["a"])
                for j, (_, wb) in enumerate(self.sheets["b"])
                for p, start in self.games[i, j].initial_outcomes()]

    def legal_mask(self, state: HiddenState, player: str) -> np.ndarray:
        """The public duel's mask over every sheet's actions (a duel of a smaller pool
        of dice has fewer): the others illegal."""
        mask = np.zeros(len(self._actions), dtype=bool)
        key = (state.type_a, state.type_b)
        mask[self._outer[key]] = self.games[key].legal_mask(state.inner, player)
        return mask

    def _inner_actions(self, state: HiddenState, action_a: int, action_b: int):
        inner = self._inner[state.type_a, state.type_b]
        try:
            return inner[int(action_a)], inner[int(action_b)]
        except (KeyError, TypeError, ValueError):
            mask_a, mask_b = (self.legal_mask(state, p) for p in PLAYERS)
            for side, action, mask in (("A", action_a, mask_a), ("B", action_b, mask_b)):
                if not (isinstance(action, int | np.integer) and int(action) in inner):
                    legal = ", ".join(n for n, ok in zip(self._actions, mask, strict=True)
                                      if ok)
                    raise InputError(f"illegal action {action!r} for {side}; legal: "
                                     f"{legal}") from None
            raise

    def outcomes(self, state: HiddenState, action_a: int, action_b: int):
        inner = self.game_of(state).outcomes(state.inner,
                                             *self._inner_actions(state, action_a, action_b))
        return self._after(state, [(action_a, action_b, inner)])[0][2]

    def transitions(self, state: HiddenState):
        outer = self._outer[state.type_a, state.type_b].tolist()
        return self._after(state, [(outer[i], outer[j], outcomes) for i, j, outcomes
                                   in self.game_of(state).transitions(state.inner)])

    def sample(self, state: HiddenState, action_a: int, action_b: int, rng):
        after = sample_step(self.game_of(state), state.inner,
                            *self._inner_actions(state, action_a, action_b), rng)
        return self._after(state, [(action_a, action_b, [(1.0, after)])])[0][2][0][1]

    def is_terminal(self, state: HiddenState) -> bool:
        return self._ended[state.type_a, state.type_b](state.inner)

    def payoff(self, state: HiddenState) -> float:
        return self._payoff[state.type_a, state.type_b](state.inner)

    def result(self, state: HiddenState) -> str:
        return self.game_of(state).result(state.inner)

    def observe(self, state: HiddenState, player: str) -> tuple[int, ...]:
        own = state.type_a if player == "a" else state.type_b
        view = self.public_view(state, player)
        trail = 0 if self.is_terminal(state) else _digest(
            state.trail_a if player == "a" else state.trail_b, view)
        return (own, *view, trail)

    def starts_unit(self, state: HiddenState) -> bool:
        return self.game_of(state).starts_unit(state.inner)

    # -- presentation

    def state_fields(self, state: HiddenState) -> dict[str, int]:
        return {"sheet_a": state.type_a, "sheet_b": state.type_b,
                **self.game_of(state).state_fields(state.inner)}

    def state_from(self, values: Mapping[str, object]) -> HiddenState:
        """A moment from named fields: ``sheet_a`` / ``sheet_b`` (indices into the priors,
        0 by default) and the public duel's fields; its trails start afresh."""
        rest = dict(values)
        types = []
        for side in PLAYERS:
            count = len(self.sheets[side])
            index = rest.pop(f"sheet_{side}", 0)
            number = index if isinstance(index, int) and not isinstance(index, bool) else (
                number_text(index) if isinstance(index, str) else None)
            if number is None or number != int(number) or not 0 <= number < count:
                raise InputError(f"sheet_{side} must be an index into {side.upper()}'s prior, "
                                 f"0 to {count - 1}, got {index!r:.40}")
            types.append(int(number))
        inner = self.games[tuple(types)].state_from(rest)
        return HiddenState(*types, inner, *(_digest(t, ()) for t in types))

    def sheet_line(self, side: str, index: int | None) -> str:
        if index is None:
            shown = "; ".join(f"{sheet or 'default'} {100 * w:.0f}%"
                              for sheet, w in self.sheets[side])
            return f"{side.upper()}'s sheet: hidden, one of {shown}"
        return f"{side.upper()}'s sheet: {self.sheets[side][index][0] or 'default'}"

    def describe(self, state: HiddenState, viewer: str | None = None) -> str:
        types = {"a": state.type_a, "b": state.type_b}
        if viewer is None:
            lines = [self.sheet_line(p, types[p]) for p in PLAYERS]
            return "\n".join(lines + [self.game_of(state).describe(state.inner)])
        foe = "b" if viewer == "a" else "a"
        lines = [self.sheet_line(viewer, types[viewer]),
                 self.sheet_line(foe, types[foe] if not self.hidden[foe] else None)]
        if not self.hidden[foe] or "describe" in self._hiding_words:
            # the table as he sees it, under the sheets
            hiding = {"foe_hidden": True} if self.hidden[foe] else {}
            table = self.game_of(state).describe(state.inner, viewer, **hiding).splitlines()
            return "\n".join(lines + [f"  {line}" for line in table])
        view = self.public_view(state, viewer)
        seen = ", ".join(f"{name}={value}" for name, value in zip(self._fields, view,
                                                                   strict=True))
        return "\n".join(lines + [f"  seen: {seen}"])

    def narrate(self, state: HiddenState, action_a: int, action_b: int,
                next_state: HiddenState) -> str:
        return self.game_of(state).narrate(
            state.inner, *self._inner_actions(state, action_a, action_b), next_state.inner)

    def situation(self, state: HiddenState, player: str) -> str:
        """The public duel's words for the decision; a system whose ``situation`` (or
        ``describe``) takes ``foe_hidden`` leaves out there what a hidden foe's sheet
        keeps."""
        game = self.game_of(state)
        foe = "b" if player == "a" else "a"
        if self.hidden[foe] and "situation" in self._hiding_words:
            return game.situation(state.inner, player, foe_hidden=True)
        return game.situation(state.inner, player)

    def __getattr__(self, name: str):
        """What a system's words offer beyond the contract (Blooded's ``action_words``,
        Pathfinder's ``advice``): the public duel's, on the public duel's state. The
        fast paths of a public duel (counters, cores, its graph) are not offered: the
        hidden duel is not that game."""
        if name.startswith("_") or name in _NOT_OFFERED:
            raise AttributeError(name)
        games = self.__dict__.get("games")
        if not games:
            raise AttributeError(name)
        attribute = getattr(next(iter(games.values())), name)
        if not callable(attribute):
            return attribute

        def on_public_duel(*args, **kwargs):
            state = next((a for a in args if isinstance(a, HiddenState)), None)
            game = games[0, 0] if state is None else self.game_of(state)
            args = [a.inner if isinstance(a, HiddenState) else a for a in args]
            return getattr(game, name)(*args, **kwargs)
        return on_public_duel


#: the public duels' methods a hidden duel does not offer (its own fast paths say what
#: it has, and these would answer about one pair of sheets)
_NOT_OFFERED = frozenset({"games", "sheets", "hidden", "info", "counters", "core", "attach",
                          "core_transitions", "depleted", "cores", "graph", "cores_at",
                          "public_information"})
