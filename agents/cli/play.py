"""``duel play``: a person plays a duel in the terminal against a policy."""

from __future__ import annotations

import sys

import numpy as np

from envs.opponents import play
from envs.schema import integer_text
from solver.game import sample_outcome, sample_step

from ..opponents import opponent_label, opponent_policy
from . import checks
from .common import emit_json, game_header

#: the longest answer read (an action name or number is a few characters)
MAX_ANSWER_BYTES = 1000


def read_answer(prompt: str = "") -> str:
    """One line typed at the prompt, read as bytes and decoded so that nothing typed
    (invalid UTF-8, binary, a line of a megabyte) raises; EOFError at the end of input.
    What is past ``MAX_ANSWER_BYTES`` on a line is dropped: no action is that long."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a text stream stood in for stdin (tests, embedding)
        return input(prompt)
    line = stream.readline(MAX_ANSWER_BYTES)
    if not line:
        raise EOFError
    rest = line
    while not rest.endswith(b"\n") and rest:
        rest = stream.readline(MAX_ANSWER_BYTES)
    return line.decode("utf-8", errors="replace")


def run(args, read=read_answer) -> int:
    game = checks.play(args)
    me, them = args.side, ("b" if args.side == "a" else "a")
    opponent = opponent_policy(args.vs, game, them)
    rng = np.random.default_rng(args.seed)
    state = sample_outcome(game.initial_outcomes(), rng)
    log = []
    out = sys.stderr if args.json else sys.stdout
    print(game_header(game, me), file=out)
    print(f"Your opponent plays {opponent_label(args.vs)}.", file=out)
    while not game.is_terminal(state):
        print("\n" + game.describe(state, viewer=me), file=out)
        mine = _ask(game, state, me, read, out)
        if mine is None:
            print("You leave the field.", file=out)
            break
        theirs = play(opponent, game, state, them, rng)
        action_a, action_b = (mine, theirs) if me == "a" else (theirs, mine)
        following = sample_step(game, state, action_a, action_b, rng)
        print(game.narrate(state, action_a, action_b, following), file=out)
        log.append({"a": game.info.action_names[action_a], "b": game.info.action_names[action_b]})
        state = following
    finished = game.is_terminal(state)
    if finished:
        # the whole table at the end: what was hidden during the duel is revealed now
        print("\n" + game.result(state) + "\n" + game.describe(state), file=out)
    if args.json:
        emit_json(play_document(game, state, log, me))
    return 0


def play_document(game, state, log: list[dict], me: str) -> dict:
    """The one document ``duel play --json`` prints at the end of a duel (or when the
    player leaves): the exchanges played and how it ended."""
    finished = game.is_terminal(state)
    return {"exchanges": log, "finished": finished,
            "result": game.result(state) if finished else "abandoned",
            "payoff_to_you": (game.payoff(state) * (1 if me == "a" else -1)
                              if finished else None)}


def _ask(game, state, me: str, read, out) -> int | None:
    """The player's legal action; asks again on anything else, None to quit. A single
    legal action (waiting while the other side or the dice act) is played unasked."""
    mask = game.legal_mask(state, me)
    legal = [i for i in range(len(game.info.action_names)) if mask[i]]
    if len(legal) == 1:
        return legal[0]
    choices = "  ".join(f"{i + 1}:{game.info.action_names[i]}" for i in legal)
    while True:
        try:
            # the prompt goes where the narration goes, so --json keeps stdout clean
            print(f"Your choice [{choices}] (q quits): ", end="", file=out, flush=True)
            answer = read("").strip()
        except EOFError:
            return None
        if answer.lower() in ("q", "quit", "exit"):
            return None
        picked = _parse_answer(game, answer)
        if picked in legal:
            return picked
        print(f"  {answer!r:.40} is not a legal choice here; legal: "
              f"{', '.join(game.info.action_names[i] for i in legal)}", file=out)


def _parse_answer(game, answer: str) -> int | None:
    upper = answer.upper()
    names = [n.upper() for n in game.info.action_names]
    if upper in names:
        return names.index(upper)
    number = integer_text(answer) if answer.isascii() and answer.isdigit() else None
    if number is not None and 1 <= number <= len(names):
        return number - 1
    return None
