"""Houses of the Blooded: the seed's readings beside the specification's (issue 28),
each switch, its default, and numbers worked out by hand in the comments."""

from __future__ import annotations

import pytest

import envs
from solver.errors import InputError

# ---------------------------------------------------------------- the Style bank cap in force

def test_sheet_style_is_bounded_by_the_bank_cap_in_force():
    # a ruleset that raises the cap to 20 accepts a sheet with 15 banked
    game = envs.make("blooded", a="style=15", ruleset={"style_bank_cap": 20})
    assert game.start().bank_a == 15
    # the default cap (10) still refuses it, naming what is allowed
    with pytest.raises(InputError, match="style 15.*0..10"):
        envs.make("blooded", a="style=15")
    # and a lowered cap refuses what the default would allow
    with pytest.raises(InputError, match="style 8.*0..5"):
        envs.make("blooded", a="style=8", ruleset={"style_bank_cap": 5})
