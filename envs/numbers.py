"""A number as people type it, read the same way everywhere: sheets, options, states,
weights, profiles, ``duel play``'s prompt and the command's own numeric flags. It
imports nothing heavy, so the command's parser can use it.

ASCII digits with an optional sign (and for a real number a decimal point and an
exponent). Other digits (``²``, ``١``) and ``1_0``, which Python's ``int`` and ``float``
read, are refused: a key or a value has one spelling.
"""

from __future__ import annotations

import math
import re

_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_NUMBER_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]{1,4})?")
#: more digits than this is not a count of anything a duel holds (and Python refuses to
#: convert 4,300 digits)
MAX_DIGITS = 18
#: the largest seed: a trainer seeds torch with seed + side, which must fit in int64
MAX_SEED = 2**63 - 2
#: a state field's digits are read further, so that its range is what the error names
STATE_DIGITS = 100


def integer_text(text: str, digits: int = MAX_DIGITS) -> int | None:
    """``text`` as an integer if it is one as people type it (ASCII digits, a sign,
    at most ``digits`` digits), else None."""
    text = text.strip()
    if not _INTEGER_TEXT.fullmatch(text) or len(text.lstrip("+-")) > digits:
        return None
    return int(text)


def number_text(text: str) -> float | None:
    """``text`` as a finite real number if it is one as people type it (``2``, ``-0.5``,
    ``1e-3``), else None; ``inf``, ``nan`` and numbers beyond float range are not."""
    text = text.strip()
    if not _NUMBER_TEXT.fullmatch(text) or len(text) > 4 * MAX_DIGITS:
        return None
    number = float(text)
    return number if math.isfinite(number) else None
