"""Readable ``repr`` of the solver's results: what was answered, about which game, and
its labelled numbers (``<Solution of falkenstein: value=+0.0000, win=15.93%, ...>``),
instead of a dataclass dump of state graphs and arrays."""

from __future__ import annotations

from collections.abc import Mapping

#: the numbers shown as percentages
_CHANCES = ("win", "draw", "loss")


def game_name(game: object) -> str:
    info = getattr(game, "info", None)
    return getattr(info, "system", None) or type(game).__name__


def summary(kind: str, game: object | None, numbers: Mapping[str, object]) -> str:
    """``<KIND of SYSTEM: name=number, ...>`` (``<KIND: ...>`` without a game), chances
    as percentages."""
    shown = ", ".join(f"{name}={_shown(name, value)}" for name, value in numbers.items())
    where = "" if game is None else f" of {game_name(game)}"
    return f"<{kind}{where}: {shown}>"


def outcome_numbers(result: object) -> dict[str, float]:
    """The value and win / draw / loss of a result that has them (from A's side)."""
    return {name: getattr(result, name) for name in ("value", *_CHANCES)}


def _shown(name: str, value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if name.split("_")[0] in _CHANCES:
        return f"{100 * value:.2f}%"
    return f"{value:+.6g}"
