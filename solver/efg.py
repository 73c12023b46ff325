"""A game written as a Gambit extensive form (``.efg``, the format of Gambit 16's
``read_efg``): the tree unrolled from the protocol to a horizon, simultaneous moves as
information sets.

At each step A moves first in the tree and B second, B's nodes after each of A's
actions in one information set (B does not see A's choice); a player with one legal
action (``wait``) is not asked. A player's information set is what he has observed and
played so far, the current observation and its mask (so the tree has perfect recall
whatever the system hides). Chance draws are chance nodes with the exact
probabilities. A duel still going at the horizon ends there, with the payoff
``cut_payoff(state)``: by default its value under the maximum-entropy equilibrium for
a game of public information (so the tree's value is the duel's), and 0 (a draw) with
hidden information.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from .errors import InputError
from .game import Game, State

#: the most nodes written: a tree grows exponentially with the horizon
MAX_EFG_NODES = 500_000


def write_efg(game: Game, path: str | Path, horizon: int,
              cut_payoff: Callable[[State], float] | None = None) -> int:
    """Write ``game`` to ``path`` as a Gambit ``.efg`` file, unrolled ``horizon`` steps
    (a step is one call of ``outcomes``); the number of nodes written."""
    if isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 1:
        raise InputError(f"horizon must be an integer >= 1, got {horizon!r}")
    if cut_payoff is None:
        cut_payoff = _default_cut(game)
    writer = _Writer(game, horizon, cut_payoff)
    writer.root()
    title = f"{game.info.system} to {horizon} steps"
    header = [f'EFG 2 R "{title}" {{ "A" "B" }}',
              '"exported by the duel solver: simultaneous moves as information sets; '
              'a duel still going at the horizon ends with its value there"', ""]
    Path(path).write_text("\n".join(header + writer.lines) + "\n", encoding="utf-8")
    return writer.nodes


def _default_cut(game: Game) -> Callable[[State], float]:
    if not game.info.public_information:
        return lambda state: 0.0
    from .solve import solve_game
    solution = solve_game(game)
    return solution.value_at


class _Writer:
    def __init__(self, game: Game, horizon: int, cut_payoff):
        self.game, self.horizon, self.cut_payoff = game, horizon, cut_payoff
        self.lines: list[str] = []
        self.infosets = {"a": {}, "b": {}}
        self.chance_sets = 0
        self.outcomes = 0
        self.nodes = 0

    def _count(self) -> None:
        self.nodes += 1
        if self.nodes > MAX_EFG_NODES:
            raise InputError(f"the tree to this horizon has more than {MAX_EFG_NODES} "
                             "nodes; give a shorter --horizon")

    def root(self) -> None:
        starts = self.game.initial_outcomes()
        if len(starts) == 1:
            self.state(starts[0][1], 0, {"a": (), "b": ()})
            return
        self.chance([(p, s) for p, s in starts], "start")
        for _, state in starts:
            self.state(state, 0, {"a": (), "b": ()})

    def chance(self, outcomes, label: str) -> None:
        self._count()
        self.chance_sets += 1
        moves = " ".join(f'"{k + 1}" {float(p)!r}' for k, (p, _) in enumerate(outcomes))
        self.lines.append(f'c "{label}" {self.chance_sets} "" {{ {moves} }} 0')

    def leaf(self, payoff: float, label: str) -> None:
        self._count()
        self.outcomes += 1
        self.lines.append(f't "" {self.outcomes} "{label}" {{ {payoff!r} {-payoff!r} }}')

    def state(self, state: State, depth: int, seen: dict) -> None:
        game = self.game
        if game.is_terminal(state):
            self.leaf(float(game.payoff(state)), _quoted(game.result(state)))
            return
        if depth >= self.horizon:
            self.leaf(float(self.cut_payoff(state)), "cut at the horizon")
            return
        masks = {p: np.asarray(game.legal_mask(state, p), bool) for p in ("a", "b")}
        views = {p: (tuple(int(x) for x in game.observe(state, p)), tuple(masks[p]))
                 for p in ("a", "b")}
        self.moves(state, depth, seen, masks, views, "a", None)

    def moves(self, state, depth, seen, masks, views, player, first) -> None:
        """``player``'s decision (A's, then B's after each of A's actions), then the
        chance of the step."""
        legal = np.flatnonzero(masks[player])
        if len(legal) == 1:
            self.after(state, depth, seen, masks, views, player, first, int(legal[0]))
            return
        key = (seen[player], views[player])
        sets = self.infosets[player]
        number = sets.setdefault(key, len(sets) + 1)
        names = " ".join(f'"{self.game.info.action_names[i]}"' for i in legal)
        self._count()
        self.lines.append(f'p "" {1 if player == "a" else 2} {number} "" {{ {names} }} 0')
        for action in legal:
            self.after(state, depth, seen, masks, views, player, first, int(action))

    def after(self, state, depth, seen, masks, views, player, first, action) -> None:
        if player == "a":
            self.moves(state, depth, seen, masks, views, "b", action)
            return
        action_a, action_b = first, action
        histories = {p: seen[p] + ((views[p], chosen),)
                     for p, chosen in (("a", action_a), ("b", action_b))}
        outcomes = [(p, s) for p, s in self.game.outcomes(state, action_a, action_b) if p > 0]
        if len(outcomes) > 1:
            self.chance(outcomes, "dice")
        for _, following in outcomes:
            self.state(following, depth + 1, histories)


def _quoted(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace('"', '\\"')
