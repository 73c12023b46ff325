"""The CLI says each warning in one line, and the refinement notes of a run once, added up."""

import warnings

from agents.cli import _Warnings
from solver.errors import RefinementWarning


def test_refinements_are_added_up_and_said_once_other_warnings_at_once(capsys):
    said = _Warnings()
    with warnings.catch_warnings():
        warnings.showwarning = said.show
        warnings.simplefilter("always")
        warnings.warn(RefinementWarning(3), stacklevel=1)
        warnings.warn("the values did not settle", UserWarning, stacklevel=1)
        warnings.warn(RefinementWarning(4), stacklevel=1)
    assert capsys.readouterr().err == "duel: warning: the values did not settle\n"
    said.summary()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "7 of the mixes found are optimal" in err
