"""``duel play``: a person plays a duel in the terminal against a policy."""

from __future__ import annotations

import re
import sys

import numpy as np

import envs
from envs.opponents import play
from envs.schema import integer_text
from solver.game import narration, sample_outcome, sample_step

from ..opponents import PreparedOpponent, opponent_label
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
    # made while the first question waits for its answer (the duel solved meanwhile)
    opponent = PreparedOpponent(args.vs, game, them)
    rng = np.random.default_rng(args.seed)
    # the dice told are drawn apart, so the duel a seed plays is the one it always played
    dice = np.random.default_rng(None if args.seed is None else [args.seed, 1])
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
        print(narration(game, state, action_a, action_b, following, dice), file=out)
        log.append({"a": game.info.action_names[action_a], "b": game.info.action_names[action_b]})
        state = following
    opponent.cancel()   # the duel ended or was left before the opponent was needed
    finished = game.is_terminal(state)
    if finished:
        # the whole table at the end: what was hidden during the duel is revealed now
        print("\n" + game.result(state) + "\n" + game.describe(state), file=out)
    if args.json:
        emit_json(play_document(game, state, log, me))
    return 0


#: a prompt longer than this lists its choices one a line
INLINE_PROMPT = 100


def choices(game, state, me: str) -> list[tuple[int, str]]:
    """The legal actions of ``me`` at ``state`` in the order the prompt numbers them
    1..n, each with the words shown for it (the system's words for an action, else its
    name)."""
    mask = game.legal_mask(state, me)
    words = envs.spec(game.info.system).action_words if game.info.system in envs.systems() \
        else None
    names = game.info.action_names
    return [(i, words(game, state, names[i]) if words is not None else names[i])
            for i in range(len(names)) if mask[i]]


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
    shown = choices(game, state, me)
    if len(shown) == 1:
        return shown[0][0]
    inline, numbers = _menu(shown), typed_numbers(shown)
    if len(inline) > INLINE_PROMPT:
        print("\n".join(f"  {n}. {words}" for n, (_, words) in zip(
            numbers, shown, strict=True)), file=out)
        inline = f"{numbers[0]}..{numbers[-1]}"
    while True:
        try:
            # the prompt goes where the narration goes, so --json keeps stdout clean
            print(f"Your choice [{inline}] (q quits): ", end="", file=out, flush=True)
            answer = read("").strip()
        except EOFError:
            return None
        if answer.lower() in ("q", "quit", "exit"):
            return None
        picked = pick(game, shown, answer)
        if picked is not None:
            return picked
        print(f"  {answer!r:.40} is not a legal choice here; type a number "
              f"{numbers[0]}..{numbers[-1]}, or one of: "
              f"{', '.join(words for _, words in shown)}", file=out)


#: choices that are one word and an amount ("bid 3", "wager 0")
_AMOUNT = re.compile(r"^(\D+?) (\d+)$")


def typed_numbers(shown: list[tuple[int, str]]) -> list[int]:
    """The number typed for each choice: its amount where the choices are amounts
    (``_amounts``: typing 3 bids 3, not the third choice), else its place from 1."""
    amounts = _amounts(shown)
    return amounts[1] if amounts else list(range(1, len(shown) + 1))


def _amounts(shown: list[tuple[int, str]]) -> tuple[str, list[int]] | None:
    """The word and the amounts where every choice is that word and an amount of its
    own ("bid 0" to "bid 9"), else None."""
    found = [_AMOUNT.match(words) for _, words in shown]
    if not all(found) or len({match.group(1) for match in found}) > 1:
        return None
    amounts = [int(match.group(2)) for match in found]
    return (found[0].group(1), amounts) if len(set(amounts)) == len(amounts) else None


def _menu(shown: list[tuple[int, str]]) -> str:
    """The choices as the prompt offers them: "bid 0..9" for amounts in a row, else
    each number with its words."""
    amounts = _amounts(shown)
    if amounts:
        word, numbers = amounts
        if numbers == list(range(numbers[0], numbers[-1] + 1)):
            return f"{word} {numbers[0]}..{numbers[-1]}"
    else:
        numbers = list(range(1, len(shown) + 1))
    return "  ".join(f"{n}:{words}" for n, (_, words) in zip(numbers, shown, strict=True))


def pick(game, shown: list[tuple[int, str]], answer: str) -> int | None:
    """The action ``answer`` names among ``shown``: its number (``typed_numbers``), its
    name, or the words shown for it (case and spaces aside); None if it names none."""
    if answer.isascii() and answer.isdigit():
        number = integer_text(answer)
        numbers = typed_numbers(shown)
        return shown[numbers.index(number)][0] if number in numbers else None
    typed = " ".join(answer.lower().split())
    for action, words in shown:
        if typed in (game.info.action_names[action].lower(), " ".join(words.lower().split())):
            return action
    return None
