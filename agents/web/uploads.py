"""Files a page uploads (a ruleset, a profile, a sweep's results): checked, kept in the
server's own folder under the hash of their bytes, and named in later requests by that
id.

An upload is read with the size limit of the same file on the command line
(``envs.rulesets.MAX_RULESET_BYTES``, ``agents.files.MAX_FILE_BYTES``; a results file
within the latter), written once,
and then read by the commands exactly as a file named on the command line is
(``envs.reading.read_limited``), so it is parsed by the same checked code.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

import envs
from envs.rulesets import MAX_RULESET_BYTES, default_ruleset, load_ruleset, ruleset_hash
from solver.errors import InputError

from ..cli.systems import fields_under
from ..files import MAX_FILE_BYTES
from ..profiles import load_profile
from .pages import shown_values

#: the largest upload of each kind, and the file name it is kept under
LIMITS = {"ruleset": MAX_RULESET_BYTES, "profile": MAX_FILE_BYTES,
          "results": MAX_FILE_BYTES}
SUFFIXES = {"ruleset": ".toml", "profile": ".json", "results": ".parquet"}
ID = re.compile(r"[0-9a-f]{16}")


class Uploads:
    """The uploaded files of one server, in ``directory`` (a fresh temporary one)."""

    def __init__(self, directory: Path | None = None):
        self.directory = Path(directory or tempfile.mkdtemp(prefix="duel-serve-"))
        self.directory.mkdir(parents=True, exist_ok=True)

    def public(self, text: str) -> str:
        """``text`` (an error) without this server's folder: a client names its uploads by
        their ids, and learns nothing of where the server keeps them."""
        return text.replace(f"{self.directory}{os.sep}", "")

    def path(self, kind: str, upload_id: str) -> str:
        """The file of upload ``upload_id``; InputError for an id never returned."""
        if isinstance(upload_id, str) and ID.fullmatch(upload_id):
            for suffix in (SUFFIXES[kind], SUFFIXES[kind] + ".gz"):
                found = self.directory / f"{upload_id}{suffix}"
                if found.is_file():
                    return str(found)
        raise InputError(f"no uploaded {kind} {upload_id!r:.40}; upload the file first "
                         f"(POST /api/upload/{kind})")

    def keep(self, kind: str, data: bytes) -> tuple[str, str]:
        """Keep ``data`` (already within ``LIMITS[kind]``): its id and its path (a
        compressed profile keeps ``.gz``, by which the commands know to inflate it)."""
        upload_id = hashlib.sha256(data).hexdigest()[:16]
        gzip = kind == "profile" and data.startswith(b"\x1f\x8b")
        path = self.directory / f"{upload_id}{SUFFIXES[kind]}{'.gz' if gzip else ''}"
        if not path.exists():
            path.write_bytes(data)
        return upload_id, str(path)

    def ruleset(self, system: str, data: bytes) -> dict:
        """An uploaded ruleset, checked as ``--ruleset`` checks it: its id, the hash of
        the rules it makes and where they differ from the defaults."""
        spec = envs.systems().get(system)
        if spec is None:
            raise InputError(f"unknown system {system!r}; allowed: {', '.join(envs.systems())}")
        upload_id, path = self.keep("ruleset", data)
        merged = load_ruleset(system, path, spec.ruleset_file)
        envs.make(system, ruleset=path)   # its values checked as every command checks them
        defaults = default_ruleset(system, spec.ruleset_file)
        return {"ruleset": upload_id, "system": system, "hash": ruleset_hash(merged),
                "default_hash": ruleset_hash(defaults),
                "differences": differences(defaults, merged),
                # what the forms show in an empty field under these rules
                "shown": shown_values(fields_under(spec, merged))}

    def profile(self, data: bytes) -> dict:
        upload_id, path = self.keep("profile", data)
        profile = load_profile(path)
        return {"profile": upload_id, "system": profile.system, "side": profile.side,
                "name": profile.name}


    def results(self, data: bytes, name: str | None = None) -> dict:
        """An uploaded results file of ``duel sweep`` (``cells.parquet``) and its report
        (``agents.sweep.report``'s document), which calls it ``name``."""
        from ..sweep.report import read_report
        upload_id, path = self.keep("results", data)
        source = Path(name).name if name else "the uploaded results"
        try:
            report = read_report(path, source)
        except InputError:
            raise InputError(f"{source} is not a results file of duel sweep (no grid "
                             "recorded)") from None
        except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError,
                ZeroDivisionError) as error:
            # pyarrow's errors on bytes that are not Parquet are ValueErrors (ArrowInvalid)
            raise InputError(f"{source} is not a results file of duel sweep "
                             f"({type(error).__name__}: {str(error)[:120]})") from None
        return {"results": upload_id, "report": report}


def differences(defaults: dict, merged: dict, where: str = "") -> list[dict]:
    """Every value of ``merged`` that is not the default's, by its dotted key."""
    found = []
    for key, value in merged.items():
        default = defaults.get(key)
        if isinstance(value, dict) and isinstance(default, dict):
            found += differences(default, value, f"{where}{key}.")
        elif value != default:
            found.append({"key": f"{where}{key}", "default": default, "value": value})
    return found
