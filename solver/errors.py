"""The one exception type for bad input, so every front end can report it the same way,
and the one warning a solve may leave that changes no value."""


class InputError(ValueError):
    """Bad input from a user: an unknown name, an out-of-range value, a malformed file.

    The message names the bad value and, where there is a closed set, the allowed ones.
    """


def check_choice(kind: str, value: object, allowed) -> None:
    """Raise InputError unless ``value`` is one of ``allowed``."""
    allowed = list(allowed)
    if value not in allowed:
        raise InputError(f"unknown {kind} {value!r}; allowed: {', '.join(map(str, allowed))}")


class RefinementWarning(RuntimeWarning):
    """The least predictable optimal mix could not be confirmed for ``count`` games: their
    linear-programming mixes, still optimal, are returned instead.

    Front ends add the counts of one run and say it once, in words.
    """

    def __init__(self, count: int):
        super().__init__(f"max-entropy refinement failed for {count} mix(es); returning "
                         "their LP mixes, which are still optimal")
        self.count = count
