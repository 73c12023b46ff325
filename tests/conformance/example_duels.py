"""The example duels the conformance suite and the stored playthroughs cover: for every
registered system its quick duel and each variant it declares
(``envs.schema.Examples.variants``), named ``system`` or ``system-variant``."""

from __future__ import annotations

import envs
from solver.game import Game

SYSTEMS = [name for name, spec in envs.systems().items() if spec.implemented]
#: (system, variant or None for the quick duel)
EXAMPLES = [(system, variant) for system in SYSTEMS
            for variant in (None, *envs.spec(system).examples.variants)]


def example_name(system: str, variant: str | None) -> str:
    return system if variant is None else f"{system}-{variant}"


EXAMPLE_NAMES = [example_name(*example) for example in EXAMPLES]


def example_options(system: str, variant: str | None = None, a: str | None = None,
                    b: str | None = None) -> dict:
    """The example duel's options, sheets included; ``a`` / ``b`` replace its sheets."""
    options = envs.spec(system).examples.duel(variant)
    return {**options, **({"a": a} if a is not None else {}),
            **({"b": b} if b is not None else {})}


def example_game(system: str, variant: str | None = None) -> Game:
    return envs.make(system, **example_options(system, variant))
