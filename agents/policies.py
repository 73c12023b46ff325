"""Policies for trained agents: a torch network over (observation, action mask), its
JSON-able spec, fitting it to a table of mixes, and tabular export over the states.

The network reads each observation field scaled to [-1, 1] by the game's declared
bounds (``observation_low`` / ``observation_high``) and, for fields with a few values
(at most ``ONE_HOT_LIMIT``), also one-hot: the scaled copy lets it generalise between
neighbouring values, the one-hot copy lets it fit a table of a few hundred situations
almost exactly. Illegal actions are masked before the softmax.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

import numpy as np
import torch
from torch import nn

from solver import policy_table
from solver.errors import InputError
from solver.game import Game, Observation

SPEC_KIND = "masked-mlp"
SPEC_VERSION = 1
ONE_HOT_LIMIT = 32
ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}
#: the largest layer (and action list, and one-hot block) a network spec may declare
MAX_WIDTH = 4096
MAX_LAYERS = 16


class PolicyNet(nn.Module):
    """An MLP from an encoded observation to one logit per action."""

    def __init__(self, n_inputs: int, n_actions: int, hidden: Sequence[int] = (128, 128),
                 activation: str = "relu"):
        super().__init__()
        layers: list[nn.Module] = []
        width = n_inputs
        for size in hidden:
            layers += [nn.Linear(width, size), ACTIVATIONS[activation]()]
            width = size
        layers.append(nn.Linear(width, n_actions))
        self.body = nn.Sequential(*layers)

    def forward(self, inputs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        """Log-probabilities; illegal actions get a large negative number, not -inf, so
        a row whose mask is all False still yields finite (uniform) values."""
        logits = self.body(inputs)
        return torch.log_softmax(logits.masked_fill(~masks, -1e9), dim=-1)


class NetworkPolicy:
    """A ``PolicyNet`` as a policy: ``probabilities`` / ``batch_probabilities``."""

    def __init__(self, n_actions: int, low: Sequence[float], high: Sequence[float],
                 hidden: Sequence[int] = (128, 128), activation: str = "relu",
                 action_names: Sequence[str] = (), observation_fields: Sequence[str] = (),
                 name: str = "network", one_hot_limit: int = ONE_HOT_LIMIT):
        if activation not in ACTIVATIONS:
            raise InputError(f"unknown activation {activation!r}; allowed: "
                             f"{', '.join(ACTIVATIONS)}")
        self.low = np.asarray(low, dtype=np.float32)
        self.high = np.asarray(high, dtype=np.float32)
        if self.low.shape != self.high.shape or self.low.ndim != 1:
            raise InputError("observation bounds low and high must be lists of one length")
        if not (np.isfinite(self.low).all() and np.isfinite(self.high).all()):
            raise InputError("observation bounds low and high must be finite numbers")
        self.hidden = tuple(int(h) for h in hidden)
        self.activation = activation
        self.action_names = tuple(action_names)
        self.observation_fields = tuple(observation_fields)
        self.name = name
        self.one_hot_limit = int(one_hot_limit)
        span = self.high - self.low + 1
        self.one_hot = np.where(span <= self.one_hot_limit, span, 0).astype(int)
        self.net = PolicyNet(len(self.low) + int(self.one_hot.sum()), n_actions, self.hidden,
                             activation)
        self.net.eval()

    @classmethod
    def for_game(cls, game: Game, hidden: Sequence[int] = (128, 128),
                 activation: str = "relu", name: str = "network") -> NetworkPolicy:
        low, high = observation_bounds(game)
        return cls(len(game.info.action_names), low, high, hidden, activation,
                   game.info.action_names, game.info.observation_fields, name)

    @property
    def n_actions(self) -> int:
        return self.net.body[-1].out_features

    def encode(self, observations: np.ndarray) -> torch.Tensor:
        """The network's input: scaled fields, then the one-hot blocks."""
        values = np.asarray(observations, dtype=np.float32).reshape(-1, len(self.low))
        span = np.where(self.high > self.low, self.high - self.low, 1.0)
        parts = [2.0 * (values - self.low) / span - 1.0]
        for field_index in np.flatnonzero(self.one_hot):
            size = self.one_hot[field_index]
            offset = values[:, field_index] - self.low[field_index]
            position = np.clip(np.rint(offset), 0, size - 1).astype(int)
            parts.append(np.eye(size, dtype=np.float32)[position])
        return torch.from_numpy(np.concatenate(parts, axis=1).astype(np.float32))

    def log_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> torch.Tensor:
        """With gradients, for fitting."""
        return self.net(self.encode(observations), torch.from_numpy(np.asarray(masks, bool)))

    def batch_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks, dtype=bool)
        with torch.inference_mode():
            probs = self.log_probabilities(np.atleast_2d(observations), masks).exp().numpy()
        probs = np.where(masks, probs.astype(float), 0.0)
        return probs / probs.sum(axis=1, keepdims=True).clip(min=1e-300)

    def probabilities(self, observation: Observation, mask: np.ndarray) -> np.ndarray:
        return self.batch_probabilities(np.asarray([observation]), np.asarray([mask]))[0]

    def to_spec(self) -> dict:
        """Architecture and weights, JSON-able (weights as base64 of little-endian
        float32, so a reload gives bit-identical probabilities)."""
        weights = {key: {"shape": list(tensor.shape),
                         "data": base64.b64encode(
                             tensor.detach().numpy().astype("<f4").tobytes()).decode("ascii")}
                   for key, tensor in self.net.state_dict().items()}
        return {"kind": SPEC_KIND, "version": SPEC_VERSION, "hidden": list(self.hidden),
                "activation": self.activation, "n_actions": self.n_actions,
                "observation_low": self.low.tolist(), "observation_high": self.high.tolist(),
                "one_hot_limit": self.one_hot_limit,
                "action_names": list(self.action_names),
                "observation_fields": list(self.observation_fields),
                "name": self.name, "weights": weights}

    @classmethod
    def from_spec(cls, spec: Mapping) -> NetworkPolicy:
        """The inverse of ``to_spec``; a malformed spec raises ``InputError``."""
        _check_spec_header(spec)
        try:
            policy = cls(int(spec["n_actions"]), spec["observation_low"],
                         spec["observation_high"], spec["hidden"], spec["activation"],
                         spec.get("action_names", ()), spec.get("observation_fields", ()),
                         spec.get("name", "network"), spec.get("one_hot_limit", ONE_HOT_LIMIT))
            policy.net.load_state_dict(_decode_weights(spec["weights"], policy.net))
        except InputError:
            raise
        except (KeyError, TypeError, ValueError, RuntimeError) as error:
            raise InputError(f"malformed network spec: {error}") from None
        return policy


def _check_spec_header(spec: Mapping) -> None:
    if not isinstance(spec, Mapping):
        raise InputError(f"a network spec must be a JSON object, got {type(spec).__name__}")
    if spec.get("kind") != SPEC_KIND:
        raise InputError(f"unknown network kind {spec.get('kind')!r}; allowed: {SPEC_KIND}")
    if spec.get("version") != SPEC_VERSION:
        raise InputError(f"unsupported network spec version {spec.get('version')!r}; "
                         f"allowed: {SPEC_VERSION}")
    _check_sizes(spec)


def _check_sizes(spec: Mapping) -> None:
    """Sizes are checked before torch allocates anything: a typo of 10**9 units would
    otherwise exhaust the memory instead of being reported."""
    sizes = {"n_actions": [spec.get("n_actions")],
             "hidden": spec.get("hidden") if isinstance(spec.get("hidden"), list) else [None],
             "one_hot_limit": [spec.get("one_hot_limit", ONE_HOT_LIMIT)]}
    for key, values in sizes.items():
        low = 0 if key == "one_hot_limit" else 1  # 0: no field is one-hot encoded
        for value in values:
            if isinstance(value, bool) or not isinstance(value, int) \
                    or not low <= value <= MAX_WIDTH:
                raise InputError(f"malformed network spec: {key} must hold integers "
                                 f"{low}..{MAX_WIDTH}, got {spec.get(key)!r:.60}")
    if len(sizes["hidden"]) > MAX_LAYERS:
        raise InputError(f"malformed network spec: hidden has {len(sizes['hidden'])} layers; "
                         f"allowed: at most {MAX_LAYERS}")


def _decode_weights(weights: Mapping, net: nn.Module) -> dict[str, torch.Tensor]:
    expected = net.state_dict()
    if set(weights) != set(expected):
        raise InputError(f"network weights name {sorted(weights)}, "
                         f"the architecture needs {sorted(expected)}")
    decoded = {}
    for key, entry in weights.items():
        raw = np.frombuffer(base64.b64decode(entry["data"], validate=True), dtype="<f4")
        if not np.isfinite(raw).all():  # a NaN weight would be played as uniform, silently
            raise InputError(f"network weight {key} holds a value that is not finite; "
                             "allowed: finite numbers")
        shape = tuple(entry["shape"])
        if shape != tuple(expected[key].shape) or raw.size != int(np.prod(shape)):
            raise InputError(f"network weight {key} has shape {list(shape)} and "
                             f"{raw.size} values; the architecture needs "
                             f"{list(expected[key].shape)}")
        decoded[key] = torch.from_numpy(raw.astype(np.float32).reshape(shape))
    return decoded


def observation_bounds(game: Game) -> tuple[list[float], list[float]]:
    """The game's declared observation bounds."""
    info = game.info
    return [float(x) for x in info.observation_low], [float(x) for x in info.observation_high]


def fit(policy: NetworkPolicy, observations: np.ndarray, masks: np.ndarray,
        targets: np.ndarray, steps: int = 2000, learning_rate: float = 1e-2,
        weights: np.ndarray | None = None, seed: int = 0) -> float:
    """Fit ``policy`` to target mixes by full-batch Adam on the (weighted) KL divergence;
    returns the final mean KL. Seeded, so the same data give the same weights."""
    with _one_thread():
        return _fit(policy, observations, masks, targets, steps, learning_rate, weights, seed)


@contextmanager
def _one_thread() -> Iterator[None]:
    # at these sizes a second thread costs more in synchronisation than it saves
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def _fit(policy: NetworkPolicy, observations: np.ndarray, masks: np.ndarray,
         targets: np.ndarray, steps: int, learning_rate: float,
         weights: np.ndarray | None, seed: int) -> float:
    torch.manual_seed(seed)
    _reset(policy.net)
    targets_t = torch.as_tensor(np.where(masks, targets, 0.0), dtype=torch.float32)
    weights_t = torch.as_tensor(np.ones(len(targets)) if weights is None else weights,
                                dtype=torch.float32)
    weights_t = weights_t / weights_t.sum()
    # the targets' own entropy makes the loss a KL, which reads as "how far from the table"
    entropy = (targets_t * torch.log(targets_t.clamp(min=1e-30))).sum(dim=1)
    optimiser = torch.optim.Adam(policy.net.parameters(), lr=learning_rate)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, max(1, steps))
    policy.net.train()
    inputs = policy.encode(observations)
    masks_t = torch.from_numpy(np.asarray(masks, bool))
    loss = torch.zeros(())
    for _ in range(steps):
        optimiser.zero_grad()
        log_probs = policy.net(inputs, masks_t)
        kl = entropy - (targets_t * log_probs.masked_fill(~masks_t, 0.0)).sum(dim=1)
        loss = (weights_t * kl).sum()
        loss.backward()
        optimiser.step()
        schedule.step()
    policy.net.eval()
    return float(loss.detach())


def _reset(net: nn.Module) -> None:
    for module in net.modules():
        if isinstance(module, nn.Linear):
            module.reset_parameters()


def tabulate(game: Game, policy, player: str) -> dict[Observation, np.ndarray]:
    """``policy``'s mix (over the whole action list, zero where illegal) at every
    observation ``player`` makes where the game is decided (``solver.policy_table``)."""
    return policy_table(game, policy, player)
