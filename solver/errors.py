"""The one exception type for bad input, so every front end can report it the same way."""


class InputError(ValueError):
    """Bad input from a user: an unknown name, an out-of-range value, a malformed file.

    The message names the bad value and, where there is a closed set, the allowed ones.
    """


def check_choice(kind: str, value: object, allowed) -> None:
    """Raise InputError unless ``value`` is one of ``allowed``."""
    allowed = list(allowed)
    if value not in allowed:
        raise InputError(f"unknown {kind} {value!r}; allowed: {', '.join(map(str, allowed))}")
