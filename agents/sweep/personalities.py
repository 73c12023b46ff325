"""``duel sweep --personalities DIR``: a cast of NPC duellists over the grid, one exact
profile per cell and temperament (``agents.personalities``, as ``duel train
--personality`` makes one), in one folder with an index.

A profile already in the folder is kept (its file is written atomically), so an
interrupted library resumes too; the index, ``index.json``, is written last."""

from __future__ import annotations

from pathlib import Path

from agents.files import write_json

from .backends import LocalBackend
from .grid import Cell

INDEX = "index.json"


def profile_stem(cell: Cell, name: str) -> str:
    return f"cell-{cell.index:05d}-{name}"


def profile_cell(system: str, arguments: dict, names: list[str], strength: float,
                 npc: str, folder: str, stems: list[str]) -> list[dict]:
    """The profiles of every temperament ``names`` at this cell, the NPC playing side
    ``npc``; each written to ``folder/STEM.json`` unless there already."""
    import envs
    from agents.personalities import personality
    from agents.profiles import build_profile, read_document, save_profile

    game = None
    entries = []
    for name, stem in zip(names, stems, strict=True):
        path = Path(folder) / f"{stem}.json"
        if not path.is_file():
            game = game or envs.make(system, **arguments)
            found = personality(game, name, strength, npc)
            document = build_profile(
                game, found.policy, npc, personality={"name": name, "strength": strength},
                source="exact", name=stem,
                training={"stored": "exact", "reason": "duel sweep --personalities: the "
                          "exact personality of a public game, nothing trained"})
            save_profile(path, document)
        metrics = read_document(path).get("metrics", {})
        entries.append({"file": path.name, "temperament": name, "strength": strength,
                        "side": npc, "exploitability": metrics.get("exploitability")})
    return entries


def build_library(cells: list[Cell], folder: str | Path, names: list[str], strength: float,
                  npc: str, backend=None) -> Path:
    """Every cell's profiles in ``folder`` and the index; returns the index's path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    backend = backend or LocalBackend()
    tasks = [(str(cell.index), profile_cell,
              (cell.system, cell.make_arguments(), names, strength, npc, str(folder),
               [profile_stem(cell, name) for name in names])) for cell in cells]
    found = dict(backend.run(tasks))
    index = [{"cell": cell.index, "a": cell.a, "b": cell.b, "options": cell.options,
              "ruleset": cell.ruleset, **cell.point, **entry}
             for cell in cells for entry in found[str(cell.index)]]
    return write_json(folder / INDEX, {"system": cells[0].system if cells else None,
                                       "profiles": index})


def check_library_request(system: str, names: list[str] | None) -> list[str]:
    """The temperaments asked for (every one of the system's by default), checked."""
    from agents.temperaments import personality_names
    from solver.errors import InputError

    known = personality_names(system)
    if not known:
        raise InputError(f"{system} has no temperaments for --personalities")
    if not names:
        return list(known)
    for name in names:
        if name not in known:
            raise InputError(f"unknown temperament {name!r} for {system}; allowed: "
                             f"{', '.join(known)}")
    return names

