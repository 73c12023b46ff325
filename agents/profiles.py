"""Opponent profiles: a policy for one side of a duel, saved as versioned JSON.

``build_profile`` makes the document (the policy, the game it was made for, its
metrics), ``save_profile`` writes it atomically, ``validate_profile`` checks a file
or document strictly against the schema, and ``load_profile`` returns a ``Profile``:
a policy (``probabilities`` / ``batch_probabilities``) usable by the environments,
the solver and the CLI. The schema is documented in the README ("Opponent profiles").
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from envs.schema import integer_text
from solver.errors import InputError
from solver.game import Game, Observation, Policy, observation_key, renormalise
from solver.policy import uniform_over

from .files import MAX_DEPTH, nesting_depth, read_json, write_json

SCHEMA = "duel-profile/1"
#: a mix's probabilities may miss 1 by this much (JSON floats are exact; the slack is
#: for hand-edited files)
SUM_TOLERANCE = 1e-6
REQUIRED: dict[str, type | tuple[type, ...]] = {
    "schema": str, "system": str, "side": str, "options": dict, "ruleset_hash": str,
    "package_version": str, "created": str, "personality": (dict, type(None)),
    "action_names": list, "observation_fields": list, "policy": dict, "metrics": dict}
OPTIONAL: dict[str, type | tuple[type, ...]] = {
    "name": str, "description": str, "training": dict}
POLICY_KINDS = ("tabular", "network")
_OUTCOME = {"value": "number", "win": "probability", "draw": "probability",
            "loss": "probability"}
#: the metrics a profile may record (all optional) and their shapes
METRICS: dict[str, Any] = {
    "exact": bool, "note": str, "game_value": "number",
    "value_against_best_response": "number", "exploitability": "number",
    "against_equilibrium": _OUTCOME, "against_best_response": _OUTCOME,
    "tendencies_against": str, "weighting": str,
    "situations": [{"name": str, "text": str, "reach": "probability",
                    "frequencies": "actions",
                    "most_frequent": "action"}],
    "exploit": [{"text": str}],
    # hidden information: how exploitability was measured, and an estimate's uncertainty
    "exploitability_method": str, "exploitability_interval": "number",
    "self_play_value": "number", "pair_exploitability": "number",
}


class ProfileWarning(UserWarning):
    """A profile used in another game than the one it was made for."""


def package_version() -> str:
    try:
        return metadata.version("duel-solver")
    except metadata.PackageNotFoundError:
        return "unknown"


# -- building and saving

def file_stem(path: str | Path) -> str:
    """A profile's default name: its file name without ``.gz`` and ``.json``."""
    name = Path(path).name
    for suffix in (".gz", ".json"):
        name = name.removesuffix(suffix)
    return name


def make_profile(game: Game, side: str, *, personality: str | None = None,
                 strength: float = 0.5, policy: Policy | None = None, result=None,
                 name: str | None = None) -> Profile:
    """One call from a game to a profile with its exact metrics (where the game has
    public information), for exactly one of: a built-in ``personality`` of ``strength``
    (computed exactly), a ``policy``, or a training ``result`` (``agents.selfplay``'s
    ``TrainResult``, whose ``side`` policy is stored). ``save_profile(path,
    profile.document)`` writes it."""
    given = [what for what in (personality, policy, result) if what is not None]
    if len(given) != 1:
        raise InputError("make_profile takes exactly one of personality=, policy=, result=; "
                         f"got {len(given)}")
    # metrics and personalities solve games: loading a profile needs neither
    from .metrics import profile_metrics
    from .personalities import personality as compute_personality

    record, training, source = None, None, "exact"
    if personality is not None:
        found = compute_personality(game, personality, strength, side)
        policy, record = found.policy, {"name": personality, "strength": found.strength}
    elif result is not None:
        policy, source = getattr(result, f"policy_{side}"), "trained"
        training = {"steps": result.step, "seconds": result.seconds}
    document = build_profile(game, policy, side, personality=record,
                             metrics=profile_metrics(game, policy, side), training=training,
                             source=source, name=name)
    return Profile(document)


def build_profile(game: Game, policy: Policy, side: str, *,
                  personality: Mapping | None = None, metrics: Mapping | None = None,
                  training: Mapping | None = None, source: str = "exact",
                  name: str | None = None, tabular: bool | None = None,
                  table: Mapping[Observation, np.ndarray] | None = None,
                  fallback=None) -> dict:
    """The profile document of ``policy`` playing ``side`` of ``game``.

    The policy is tabulated over every observation of ``side`` on the reachable
    states when the game is of public information (or ``tabular`` is true);
    otherwise a network policy is embedded through its ``to_spec()``. A ``table``
    given (observation -> mix over the action list) is stored as it is, with the
    ``fallback`` network (if any) for the observations it lacks: the hidden-level
    learner's form, whose states cannot be listed. Without ``metrics`` they are
    computed (``agents.metrics.profile_metrics``: exact where the game has public
    information), so a profile never records empty metrics.
    """
    if side not in ("a", "b"):
        raise InputError(f"unknown side {side!r}; allowed: a, b")
    if metrics is None:
        from .metrics import profile_metrics  # it solves games: loading a profile does not

        metrics = profile_metrics(game, policy, side)
    if tabular is None:
        tabular = game.info.public_information or not hasattr(policy, "to_spec")
    if table is not None:
        body = {"kind": "tabular", "source": source, "table": keyed_table(game, table)}
        if fallback is not None:
            body["network"] = fallback.to_spec()
    elif tabular:
        body = {"kind": "tabular", "source": source, "table": tabulate_policy(game, policy, side)}
    else:
        body = {"kind": "network", "source": source, "network": policy.to_spec()}
    document = {
        "schema": SCHEMA, "system": game.info.system, "side": side,
        "options": _jsonable(game.info.options), "ruleset_hash": str(game.info.ruleset_hash),
        "package_version": package_version(),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "personality": dict(personality) if personality else None,
        "action_names": list(game.info.action_names),
        "observation_fields": list(game.info.observation_fields),
        "policy": body, "metrics": _jsonable(dict(metrics or {}))}
    if name:
        document["name"] = name
    if training:
        document["training"] = _jsonable(dict(training))
    return document


def tabulate_policy(game: Game, policy: Policy, side: str) -> dict[str, dict[str, float]]:
    """``{observation key: {action: probability}}`` over the side's reachable
    observations; only actions with positive probability are listed."""
    from .policies import tabulate  # torch is only needed here, not to load a profile

    return keyed_table(game, tabulate(game, policy, side))


def keyed_table(game: Game, table: Mapping[Observation, np.ndarray]) -> dict:
    """``{observation key: {action: probability}}``, positive probabilities only."""
    return {observation_key(game, observation): {
        action: float(p) for action, p in zip(game.info.action_names, mix, strict=True)
        if p > 0} for observation, mix in table.items()}


def save_profile(path: str | Path, document: Mapping) -> Path:
    """Validate ``document`` and write it to ``path`` atomically (``agents.files``), so
    a reader never sees half a profile and two writers never share a temporary file;
    gzip-compressed when the name ends in ``.gz``."""
    validate_document(document, str(path))
    return write_json(path, document)


def _jsonable(value: Any) -> Any:
    """Plain JSON types (numpy scalars and arrays, tuples and paths converted)."""
    return json.loads(json.dumps(value, default=_convert))


def _convert(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


# -- validation

def read_document(path: str | Path) -> Any:
    """The parsed file; not JSON, NaN or nesting that would exhaust the stack are
    InputErrors (``validate_document`` checks the rest)."""
    return read_json(path, "profile")


def validate_profile(source: str | Path | Mapping) -> dict:
    """Check a profile file (or an already parsed document) strictly against the
    schema; return the document. Anything wrong raises InputError naming it."""
    if isinstance(source, Mapping):
        return validate_document(source, "profile")
    return validate_document(read_document(source), str(source))


def validate_document(document: Any, where: str) -> dict:
    if not isinstance(document, dict):
        raise InputError(f"{where}: a profile must be a JSON object, "
                         f"got {type(document).__name__}")
    if nesting_depth(document) > MAX_DEPTH:  # a document built in memory, not read
        raise InputError(f"{where}: it is nested more than {MAX_DEPTH} levels deep")
    schema = document.get("schema")
    if schema != SCHEMA:
        raise InputError(f"{where}: unsupported profile schema {schema!r}; allowed: {SCHEMA}")
    _check_keys(document, where)
    if document["side"] not in ("a", "b"):
        raise InputError(f"{where}: side must be 'a' or 'b', got {document['side']!r}")
    _check_names(document["action_names"], "action_names", where)
    _check_names(document["observation_fields"], "observation_fields", where)
    _check_personality(document["personality"], where)
    _check_policy(document["policy"], document, where)
    _check_metrics(document["metrics"], document["action_names"], where)
    return document


def _check_keys(document: dict, where: str) -> None:
    for key, kind in REQUIRED.items():
        if key not in document:
            raise InputError(f"{where}: missing field {key!r}")
        _check_type(document[key], kind, key, where)
    for key, kind in OPTIONAL.items():
        if key in document:
            _check_type(document[key], kind, key, where)
    unknown = set(document) - set(REQUIRED) - set(OPTIONAL)
    if unknown:
        raise InputError(f"{where}: unknown field {sorted(unknown)[0]!r}; allowed: "
                         f"{', '.join([*REQUIRED, *OPTIONAL])}")


def _check_type(value: Any, kind, key: str, where: str) -> None:
    if not isinstance(value, kind):
        names = " or ".join(t.__name__ if t is not type(None) else "null"
                            for t in (kind if isinstance(kind, tuple) else (kind,)))
        raise InputError(f"{where}: field {key!r} must be {names}, got {type(value).__name__}")


def _check_names(names: list, key: str, where: str) -> None:
    if not names or not all(isinstance(n, str) and n for n in names) \
            or len(set(names)) != len(names):
        raise InputError(f"{where}: {key} must be a non-empty list of distinct names")


def _check_personality(personality: dict | None, where: str) -> None:
    if personality is None:
        return
    keys = set(personality)
    if not {"name", "strength"} <= keys or keys - {"name", "strength", "win", "against"}:
        raise InputError(f"{where}: personality must have 'name' and 'strength' (and, for "
                         f"an NPC asked by its chance to win, 'win' and 'against'), "
                         f"got {sorted(personality)}")
    if not isinstance(personality["name"], str) or not personality["name"]:
        raise InputError(f"{where}: personality name must be a non-empty string")
    strength = personality["strength"]
    if isinstance(strength, bool) or not isinstance(strength, int | float) \
            or not 0 <= strength <= 1:
        raise InputError(f"{where}: personality strength must be a number in [0, 1], "
                         f"got {strength!r}")
    win = personality.get("win", 0.0)
    if isinstance(win, bool) or not isinstance(win, int | float) or not 0 <= win <= 1:
        raise InputError(f"{where}: personality win must be a chance in [0, 1], got {win!r}")


def _check_policy(policy: dict, document: dict, where: str) -> None:
    kind = policy.get("kind")
    if kind not in POLICY_KINDS:
        raise InputError(f"{where}: unknown policy kind {kind!r}; allowed: "
                         f"{', '.join(POLICY_KINDS)}")
    if not isinstance(policy.get("source", ""), str):
        raise InputError(f"{where}: policy source must be a string")
    # a table may carry a network for the observations it lacks (hidden information)
    allowed = {"kind", "source", "network"} | ({"table"} if kind == "tabular" else set())
    if set(policy) - allowed:
        raise InputError(f"{where}: unknown policy field {sorted(set(policy) - allowed)[0]!r}; "
                         f"allowed: {', '.join(sorted(allowed))}")
    if "network" in policy:
        _check_network(policy["network"], where)
    if kind == "network":
        if "network" not in policy:
            raise InputError(f"{where}: a network policy needs a 'network' object "
                             "(the spec of agents.policies)")
        return
    table = policy.get("table")
    if not isinstance(table, dict) or not table:
        raise InputError(f"{where}: a tabular policy needs a non-empty 'table' object")
    fields, actions = document["observation_fields"], document["action_names"]
    seen: dict[Observation, str] = {}
    for key, mix in table.items():
        observation = parse_key(key, fields, where)
        if observation in seen:
            raise InputError(f"{where}: keys {seen[observation]!r} and {key!r} name one "
                             f"observation; give each observation once")
        seen[observation] = key
        _check_mix(mix, actions, f"{where}: mix at {key!r}")


def _check_network(network: Any, where: str) -> None:
    if not isinstance(network, dict):
        raise InputError(f"{where}: a policy's 'network' must be an object "
                         "(the spec of agents.policies)")
    from .policies import NetworkPolicy  # the spec checks itself; torch only here
    try:
        NetworkPolicy.from_spec(network)
    except InputError as error:
        raise InputError(f"{where}: {error}") from None


def _check_metrics(metrics: dict, actions: Sequence[str], where: str) -> None:
    """Every metric is optional (a display prints "not measured" for a missing one),
    but one that is present has the type ``METRICS`` gives it: so ``duel profile show``
    can print whatever ``duel profile validate`` accepts."""
    for key, value in metrics.items():
        kind = METRICS.get(key)
        if kind is None:
            raise InputError(f"{where}: unknown metric {key!r}; allowed: {', '.join(METRICS)}")
        _check_value(value, kind, f"{where}: metric {key}", actions)


def _check_value(value: Any, kind: Any, what: str, actions: Sequence[str]) -> None:
    if kind == "number":
        if not _finite_number(value):
            raise InputError(f"{what} must be a finite number, got {value!r:.40}")
    elif kind == "probability":
        if not _finite_number(value) or not 0 <= value <= 1:
            raise InputError(f"{what} must be a number in [0, 1], got {value!r:.40}")
    elif kind == "action":
        if value not in actions:
            raise InputError(f"{what} must be an action ({', '.join(actions)}), "
                             f"got {value!r:.40}")
    elif kind == "actions":
        if not isinstance(value, dict):
            raise InputError(f"{what} must be an object action: number")
        for action, number in value.items():
            _check_value(action, "action", what, actions)
            _check_value(number, "number", f"{what}[{action}]", actions)
    elif isinstance(kind, list):  # a list of objects of the one given shape
        if not isinstance(value, list):
            raise InputError(f"{what} must be a list, got {type(value).__name__}")
        for index, item in enumerate(value):
            _check_value(item, kind[0], f"{what}[{index}]", actions)
    elif isinstance(kind, dict):  # an object whose keys are all required
        if not isinstance(value, dict) or set(kind) - set(value):
            raise InputError(f"{what} must be an object with {', '.join(kind)}, "
                             f"got {value!r:.60}")
        for key, entry in kind.items():
            _check_value(value[key], entry, f"{what}.{key}", actions)
    elif not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise InputError(f"{what} must be {kind.__name__}, got {type(value).__name__}")


def parse_key(key: str, fields: Sequence[str], where: str = "profile") -> Observation:
    """``field=value,...`` (all of ``fields``, in any order) -> the observation tuple."""
    values: dict[str, int] = {}
    for part in key.split(","):
        name, sep, text = part.partition("=")
        value = integer_text(text) if text == text.strip() else None
        # one spelling per observation: "round=+1", "round=01" and "round=1_0" are not
        # "round=1" (each would be a second key for one observation, and the last win)
        if not sep or value is None or text != str(value) or name in values:
            raise InputError(f"{where}: bad observation key {key!r:.80}; expected "
                             f"field=integer,... (ASCII digits as Python prints an integer: "
                             f"no '+', no leading zero, no space)")
        values[name] = value
    if set(values) != set(fields):
        missing = sorted(set(fields) - set(values))
        extra = sorted(set(values) - set(fields))
        raise InputError(f"{where}: observation key {key!r} does not match the observation "
                         f"fields (missing {missing}, unknown {extra})")
    return tuple(values[name] for name in fields)


def _finite_number(value: Any) -> bool:
    """A JSON number (not a boolean) that is finite as a float: an integer of 400
    digits is not one (``math.isfinite`` would overflow on it)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _check_mix(mix: Any, actions: Sequence[str], where: str) -> None:
    if not isinstance(mix, dict) or not mix:
        raise InputError(f"{where} must be a non-empty object of action: probability")
    for action, p in mix.items():
        if action not in actions:
            raise InputError(f"{where}: unknown action {action!r}; allowed: {', '.join(actions)}")
        if not _finite_number(p) or not 0 <= p <= 1:
            raise InputError(f"{where}: probability of {action} must be in [0, 1], got {p!r}")
    total = math.fsum(mix.values())
    if abs(total - 1) > SUM_TOLERANCE:
        raise InputError(f"{where}: probabilities sum to {total:.9g}, not 1")


# -- the loaded policy

class Profile:
    """A loaded profile: a policy on its side's observations, with what it records."""

    def __init__(self, document: dict, path: str | Path | None = None):
        self.document = document
        self.path = Path(path) if path is not None else None
        self.side: str = document["side"]
        self.system: str = document["system"]
        self.options: dict = document["options"]
        self.action_names = tuple(document["action_names"])
        self.observation_fields = tuple(document["observation_fields"])
        self.personality: dict | None = document["personality"]
        self.metrics: dict = document["metrics"]
        self.kind: str = document["policy"]["kind"]
        self.source: str = document["policy"].get("source", "")
        self.name = document.get("name") or (file_stem(self.path) if self.path else "profile")
        self.table: dict[Observation, np.ndarray] = {}
        self.network = None
        if self.kind == "tabular":
            self.table = {parse_key(key, self.observation_fields): self._vector(mix)
                          for key, mix in document["policy"]["table"].items()}
        if "network" in document["policy"]:  # the policy, or a table's fallback
            from .policies import NetworkPolicy  # torch only for network profiles
            self.network = NetworkPolicy.from_spec(document["policy"]["network"])

    @property
    def metadata(self) -> dict:
        """Everything the file records except the policy itself."""
        return {k: v for k, v in self.document.items() if k != "policy"} | {
            "policy": {k: v for k, v in self.document["policy"].items()
                       if k not in ("table", "network")}}

    def _vector(self, mix: Mapping[str, float]) -> np.ndarray:
        vector = np.zeros(len(self.action_names))
        for action, p in mix.items():
            vector[self.action_names.index(action)] = p
        return vector

    def probabilities(self, observation: Observation, mask: np.ndarray) -> np.ndarray:
        """The recorded mix, renormalised over the legal actions; at an observation the
        table lacks, the network's (a network profile, or a table's fallback), else
        uniform; uniform too where none of its actions is legal."""
        if self.kind == "network":
            return self.network.probabilities(observation, mask)
        probs = self.table.get(tuple(int(x) for x in observation))
        if probs is None:
            if self.network is not None:
                return self.network.probabilities(observation, mask)
            return uniform_over(mask)
        masked = probs * np.asarray(mask, dtype=bool)
        total = masked.sum()
        return masked / total if total > 0 else uniform_over(mask)

    def batch_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self.kind == "network":
            return self.network.batch_probabilities(observations, masks)
        masks = np.asarray(masks, dtype=bool)
        rows = np.asarray(observations).astype(np.int64).tolist()
        found = [self.table.get(tuple(row)) for row in rows]
        missing = [k for k, probs in enumerate(found) if probs is None]
        if missing and self.network is not None:
            fallback = self.network.batch_probabilities(
                np.asarray([rows[k] for k in missing]), masks[missing])
            for k, probs in zip(missing, fallback, strict=True):
                found[k] = probs
        recorded = np.zeros(masks.shape)
        known = [k for k, probs in enumerate(found) if probs is not None]
        if known:
            recorded[known] = np.asarray([found[k] for k in known])
        # the recorded mix over the legal actions; uniform where it has none of them
        return renormalise(recorded, masks)

    def check_game(self, game: Game, side: str | None = None) -> None:
        """Refuse another system; warn (``ProfileWarning``) when the ruleset, options,
        package version or side differ from what the profile was made for."""
        check_game(self, game, side)

    def __repr__(self) -> str:
        who = self.personality["name"] if self.personality else "unnamed"
        return f"Profile({self.name!r}, {self.system}, side {self.side}, {who})"


def check_game(profile: Profile, game: Game, side: str | None = None) -> None:
    """Raise InputError if ``profile`` cannot play ``game`` (another system, other
    actions or observations); warn if it was made for another ruleset, other options,
    another package version or the other side (DESIGN.md: a warning, not an error)."""
    if profile.system != game.info.system:
        raise InputError(f"profile {profile.name!r} is for {profile.system}, "
                         f"not {game.info.system}")
    for what, mine, theirs in (("actions", profile.action_names, game.info.action_names),
                               ("observation fields", profile.observation_fields,
                                game.info.observation_fields)):
        if tuple(mine) != tuple(theirs):
            raise InputError(f"profile {profile.name!r} has {what} {list(mine)}, "
                             f"the game has {list(theirs)}")
    differences = []
    if profile.document["ruleset_hash"] != str(game.info.ruleset_hash):
        differences.append("another ruleset")
    if _jsonable(profile.options) != _jsonable(game.info.options):
        differences.append(f"other options ({_option_changes(profile.options, game.info.options)})")
    if profile.document["package_version"] != package_version():
        differences.append(f"package version {profile.document['package_version']} "
                           f"(this is {package_version()})")
    if side is not None and side != profile.side:
        differences.append(f"side {profile.side} (it now plays {side})")
    if differences:
        warnings.warn(f"profile {profile.name!r} was made for {', '.join(differences)}; "
                      "using it anyway", ProfileWarning, stacklevel=3)


def _option_changes(mine: Mapping, theirs: Mapping) -> str:
    mine, theirs = _jsonable(mine), _jsonable(theirs)
    changed = [key for key in sorted(set(mine) | set(theirs)) if mine.get(key) != theirs.get(key)]
    return ", ".join(changed)


def load_profile(path: str | Path) -> Profile:
    """The profile at ``path`` as a policy; a malformed file raises InputError."""
    return Profile(validate_profile(path), path)


#: the file names a command-line opponent that is a profile ends with
PROFILE_SUFFIXES = (".json", ".json.gz")


def is_profile_path(text: object) -> bool:
    """Whether a command-line opponent names a profile file (ends in .json or .json.gz)."""
    return isinstance(text, str | Path) and str(text).lower().endswith(PROFILE_SUFFIXES)
