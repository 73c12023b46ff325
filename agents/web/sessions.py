"""``duel play`` in the browser: one duel per session, one request per decision.

A session holds what ``duel play`` holds in its loop (the game, the state, the
opponent's policy, the seeded draws, the log); each decision runs the steps of that loop
until the player chooses again, speaking only through the system's presentation
(``describe`` for the player's view, ``narrate``, ``action_words``). The hidden parts
(``describe`` without a viewer) are shown when the duel is over, and the last answer
carries ``duel play --json``'s document.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict

import numpy as np

from envs.opponents import play
from solver.errors import InputError
from solver.game import other, sample_outcome, sample_step

from ..cli import checks
from ..cli.common import game_header
from ..cli.play import choices, pick, play_document, typed_numbers
from ..opponents import opponent_label, opponent_policy

#: sessions kept (the oldest is forgotten first)
KEPT = 100
#: steps played without a decision before a duel is called stuck (a cycle of waits)
MAX_WAITS = 10_000


class Session:
    def __init__(self, session_id: str, args):
        self.id = session_id
        self.lock = threading.Lock()
        self.game = checks.play(args)
        self.me, self.them = args.side, other(args.side)
        self.vs = args.vs
        self.opponent = opponent_policy(args.vs, self.game, self.them)
        self.rng = np.random.default_rng(args.seed)
        self.state = sample_outcome(self.game.initial_outcomes(), self.rng)
        self.log: list[dict] = []
        self.quit = False
        self.header = game_header(self.game, self.me)
        self.narration = self._advance()

    def view(self, said: list[str] | None = None) -> dict:
        """What the page shows now: the table as the player sees it, the choices in
        words, what just happened; at the end the whole table and the document."""
        game, state = self.game, self.state
        over = game.is_terminal(state) or self.quit
        shown = {"session": self.id, "header": self.header,
                 "opponent": opponent_label(self.vs), "narration": said or [],
                 "description": game.describe(state, viewer=self.me), "over": over,
                 "choices": [] if over else self._choices()}
        if over:
            shown["revealed"] = game.describe(state)
            shown["result"] = game.result(state) if game.is_terminal(state) else "abandoned"
            shown["document"] = play_document(game, state, self.log, self.me)
        return shown

    def _choices(self) -> list[dict]:
        shown = choices(self.game, self.state, self.me)
        names = self.game.info.action_names
        return [{"action": names[action], "number": number, "words": words}
                for number, (action, words) in zip(typed_numbers(shown), shown, strict=True)]

    def choose(self, action: object) -> list[str]:
        """Play the player's ``action`` (its name, its number among the choices or the
        words shown, as ``duel play`` reads them), then every step until the next
        decision; the narration of them all."""
        if self.game.is_terminal(self.state) or self.quit:
            raise InputError("this duel is over; start another")
        if action == "quit":
            self.quit = True
            return ["You leave the field."]
        if isinstance(action, bool) or not isinstance(action, str | int):
            raise InputError(f"an action is its name or its number, got {action!r:.40}")
        shown = choices(self.game, self.state, self.me)
        picked = pick(self.game, shown, str(action).strip())
        if picked is None:
            names = self.game.info.action_names
            raise InputError(f"{action!r:.40} is not a legal choice here; legal: "
                             f"{', '.join(names[a] for a, _ in shown)}")
        said = [self._step(picked)]
        return said + self._advance()

    def _step(self, mine: int) -> str:
        game, state = self.game, self.state
        theirs = play(self.opponent, game, state, self.them, self.rng)
        action_a, action_b = (mine, theirs) if self.me == "a" else (theirs, mine)
        following = sample_step(game, state, action_a, action_b, self.rng)
        said = game.narrate(state, action_a, action_b, following)
        self.log.append({"a": game.info.action_names[action_a],
                         "b": game.info.action_names[action_b]})
        self.state = following
        return said

    def _advance(self) -> list[str]:
        """The steps in which the player has one legal action (waiting while the other
        side or the dice act), played unasked as ``duel play`` plays them."""
        said = []
        for _ in range(MAX_WAITS):
            if self.game.is_terminal(self.state):
                break
            legal = np.flatnonzero(self.game.legal_mask(self.state, self.me))
            if len(legal) > 1:
                break
            said.append(self._step(int(legal[0])))
        return said


class Sessions:
    def __init__(self):
        self.sessions: OrderedDict[str, Session] = OrderedDict()
        self.counter = itertools.count(1)
        self.lock = threading.Lock()

    def start(self, args) -> Session:
        session = Session(f"s{next(self.counter)}", args)
        with self.lock:
            self.sessions[session.id] = session
            while len(self.sessions) > KEPT:
                self.sessions.popitem(last=False)
        return session

    def get(self, session_id: str) -> Session:
        found = self.sessions.get(session_id)
        if found is None:
            raise InputError(f"no duel {session_id!r:.40} in play (the server keeps the "
                             f"last {KEPT}); start another")
        return found
