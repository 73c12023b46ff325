"""Every form of opponent, as a policy: the one place above both the solver and the
environments where a name, a mix, a profile file or a personality becomes a policy
(the CLI's ``--vs``, and Gymnasium's ``opponent=`` through ``agents.gym``)."""

from __future__ import annotations

import contextvars
import threading
from difflib import get_close_matches
from pathlib import Path

from envs.numbers import number_text
from solver.errors import InputError

from .personalities import check_strength, check_win, personality
from .profiles import is_profile_path, load_profile
from .temperaments import personality_names

DEFAULT_STRENGTH = 0.5


def accepted_forms(game) -> str:
    names = list(personality_names_or_none(game.info.system))
    forms = ["uniform", "equilibrium", "mix=ACTION:WEIGHT,... (actions: "
             f"{', '.join(game.info.action_names)})", "a profile file (FILE.json or FILE.json.gz)"]
    if names:
        forms.append(f"a personality NAME[:STRENGTH] ({', '.join(names)}; strength 0..1, "
                     f"default {DEFAULT_STRENGTH}) or NAME@win=RATE[,against=best] (the NPC "
                     "that wins RATE of its duels against the equilibrium, or the best reply)")
    return "; ".join(forms)


def personality_names_or_none(system: str) -> dict[str, str]:
    try:
        return personality_names(system)
    except InputError:
        return {}


def opponent_policy(spec, game, player: str):
    """The policy that ``spec`` names, playing ``player`` in ``game``."""
    kind, value = _read(spec, game, player)
    if kind == "personality":
        name, strength = value
        return personality(game, name, strength, player).policy
    if kind == "personality at win":
        name, rate, against = value
        return personality(game, name, side=player, win=rate, against=against).policy
    if value == "equilibrium" and not game.info.public_information:
        # the sequence-form equilibrium, by information set, as duel odds plays it
        from solver.hidden.sequence import solve_hidden
        return solve_hidden(game).policy_for(player)
    from envs.opponents import resolve_opponent  # the solver: only once the spec is read
    return resolve_opponent(value, game, player)


class _Cancelled(Exception):
    """The opponent is no longer wanted."""


class PreparedOpponent:
    """The opponent ``spec`` names, made on a background thread from the moment this
    is built (``duel play`` asks its first question meanwhile: the equilibrium or a
    personality is solved while the player reads and answers); it plays as the policy
    once made, and waiting for it relays the work's progress to this thread's
    listeners (``solver.progress``). An error in making it is raised where it is first
    played."""

    def __init__(self, spec, game, player: str):
        self._policy, self._error, self._latest = None, None, None
        self._cancelled = False
        # in a copy of this context: the answer store of the block it is made in
        self._thread = threading.Thread(target=contextvars.copy_context().run,
                                        args=(self._make, spec, game, player),
                                        daemon=True, name="duel opponent")
        if game.info.public_information:
            self._thread.start()
        else:   # no exact solve to wait for: made at once, its errors said at once
            self._policy = opponent_policy(spec, game, player)

    def _make(self, spec, game, player: str) -> None:
        from solver.progress import listening
        try:
            with listening(self._hear):
                self._policy = opponent_policy(spec, game, player)
        except _Cancelled:
            pass
        except BaseException as error:  # noqa: BLE001 - raised again where it is played
            self._error = error

    def _hear(self, report) -> None:
        if self._cancelled:   # raised inside the work, at its next step: it stops there
            raise _Cancelled
        self._latest = report

    def cancel(self) -> None:
        """Stop making the opponent (the duel ended before it played): the work stops at
        its next step, nothing of it kept."""
        self._cancelled = True

    def policy(self):
        """The opponent's policy, once made (waiting for it, its progress relayed)."""
        from solver.progress import relay
        while self._thread.is_alive():
            self._thread.join(0.25)
            if self._latest is not None:
                relay(self._latest)
        if self._latest is not None:   # the last word: the work has ended (the line wiped)
            relay(self._latest)
            self._latest = None
        if self._error is not None:
            raise self._error
        return self._policy

    def probabilities(self, observation, mask):
        return self.policy().probabilities(observation, mask)


def check_opponent(spec, game, player: str) -> None:
    """Refuse a bad ``spec`` at once, as ``opponent_policy`` would, but without its work
    (a personality's calibration, the equilibrium's solve): the CLI calls it before any."""
    kind, _ = _read(spec, game, player)
    if kind.startswith("personality") and not game.info.public_information:
        from solver.markov.evaluate import require_public  # only to say why it is refused
        require_public(game, "the exact personality")


def _read(spec, game, player: str) -> tuple[str, object]:
    """``spec`` checked and read: ``("personality", (name, strength))``, or
    ``("policy", what resolve_opponent takes)`` (a profile loaded, a mix parsed; the
    equilibrium left by name, to be solved only when it is played)."""
    if not isinstance(spec, str):
        return "policy", spec
    if is_profile_path(spec):
        return "policy", load_profile(spec)
    name, at, asked = spec.partition("@")
    if at and name in personality_names_or_none(game.info.system):
        return "personality at win", (name, *_win(asked, spec))
    name, colon, strength = spec.partition(":")
    if name in personality_names_or_none(game.info.system):
        level = check_strength(_number(strength)) if colon else DEFAULT_STRENGTH
        return "personality", (name, level)
    if spec == "equilibrium":
        return "policy", spec
    if spec == "uniform" or spec.startswith("mix="):
        from envs.opponents import resolve_opponent
        return "policy", resolve_opponent(spec, game, player)
    raise InputError(f"unknown opponent {spec!r} for --vs{_suggestion(spec, game)}; "
                     f"accepted: {accepted_forms(game)}")


def _win(text: str, spec: str) -> tuple[float, str]:
    """``win=RATE[,against=best]`` read: the chance to win and whom it is against."""
    fields = dict(part.partition("=")[::2] for part in text.split(","))
    if "win" not in fields or set(fields) - {"win", "against"}:
        raise InputError(f"bad personality {spec!r} for --vs; expected "
                         "NAME@win=RATE[,against=best] such as cautious@win=0.45")
    try:
        rate = float(fields["win"])
    except ValueError:
        raise InputError(f"win must be a chance in [0, 1], got {fields['win']!r}") from None
    return check_win(rate, fields.get("against", "equilibrium"))


def _suggestion(spec: str, game) -> str:
    """A close name, for a typo such as ``equilbrium``."""
    names = ["uniform", "equilibrium", *personality_names_or_none(game.info.system)]
    close = get_close_matches(spec.partition(":")[0].strip().lower(), names, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _number(text: str) -> float:
    number = number_text(text)   # ASCII digits: ``٠.5`` and ``0_5`` are no strength
    if number is None:
        raise InputError(f"strength must be a number in [0, 1], got {text!r:.40}")
    return number


def opponent_label(spec: str) -> str:
    return Path(spec).name if is_profile_path(spec) else spec
