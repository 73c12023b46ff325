"""Self-play learning for games with hidden types (Castle Falkenstein's hidden levels), at
any horizon: Monte-Carlo CFR over information sets keyed on the perfect-recall
observation, with a torch policy network for the observations it never visited.

**Why this method.** With hidden types the value of a move depends on what the foe
believes, so learning must weigh each information set by the foe's and chance's reach
(counterfactual regret), not state by state as ``agents.selfplay`` does for public duels
(there a state is its own subgame; here it is not). Of the neural methods suited to
imperfect information, NFSP and regularised Nash dynamics learn from one sampled game at
a time through reinforcement-learning updates, which converge far more slowly than CFR's
regret updates over whole information sets; Deep CFR spends most of its time refitting
regret networks that, on a game whose observations take a few thousand values per round,
a table holds exactly (``experiments/selfplay_hidden.py`` measures it: after ten minutes
its exploitability is above 0.03 where ours is below 1e-6). So regrets live in tables
keyed on the observation, which *is* the information set (a hidden duel's observation
carries its trail, a digest of all its player has seen: ``envs.hidden``), and a network
(``agents.policies.NetworkPolicy``) is distilled from the average tables to play the
observations they never saw, which a ten-round duel always has. Convergence is then
CFR's, with no approximation error on what was visited.

**Sampling** (the general MCCFR estimator of Lanctot et al. 2009, unbiased for any
sampling scheme): one traversal per player per iteration. Chance and the opponent are
sampled from their true distributions (external sampling: no weight). The traverser
branches over all his legal actions at his first ``branch_depth`` decisions of a
traversal (a one-round duel is then plain external sampling) and beyond them samples one
action from his current mix blended with ``exploration`` uniform play, correcting by the
importance weight 1 / rho (outcome sampling); so a traversal of a ten-round duel costs
6^branch_depth paths, not 6^30. Regrets and averages are weighted by the iteration
(linear CFR, Brown & Sandholm 2019); the opponent's average mix is accumulated where he
is sampled, divided by the traverser's own sampling probability so every information set
keeps one constant weight across iterations.

**Measurement.** Where ``solver.hidden.sequence`` can unroll the game (one round), exploitability
is exact: NashConv / 2 by the best response over information sets. Beyond, it is
*estimated* (``estimate_exploitability``): for each side a best responder is trained by
the same traversal against the frozen policy (regret matching for one player: its
cumulative regrets rank the actions by their summed sampled values, and it plays the
best of them), then played against it in ``responder_games`` fresh seeded duels; the
mean gain comes with a 95% confidence interval. A trained responder is never better than the
exact best response, so the estimate is a lower bound up to that interval.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from solver.errors import InputError
from solver.game import Game, Policy, State, other, renormalise, sample_outcome, sample_step
from solver.hidden.sequence import (
    MAX_NODES,
    Tree,
    best_response_value,
    build_tree,
    exploitability_of,
    policy_plan,
)

from .hidden_checkpoints import load_checkpoint, save_checkpoint
from .interrupts import deferred_interrupt
from .selfplay import check_budget, check_int

#: states whose masks and observations are kept (a one-round duel has ~30,000; beyond,
#: states are recomputed: memory, not correctness)
CACHE_LIMIT = 200_000
#: how a responder's gain is reported: mean +- Z * standard error (95%)
Z_95 = 1.959964
MEASURES = ("auto", "exact", "estimated")
#: observations the network is distilled from (the most played), to bound its cost
DISTIL_ROWS = 20_000


@dataclass
class HiddenConfig:
    """How to train. Training stops at ``iterations`` or ``minutes`` of training time,
    whichever comes first; ``eval_every`` iterations apart the exploitability is measured
    (``measure``: ``exact``, ``estimated`` or ``auto``: exact where the tree fits)."""

    seed: int = 0
    iterations: int | None = 1000
    minutes: float | None = None
    eval_every: int = 200
    branch_depth: int = 3
    exploration: float = 0.1
    measure: str = "auto"
    responder_iterations: int = 500    # training of each estimated best responder
    responder_games: int = 2000        # sampled duels that measure it
    layer_sizes: tuple[int, ...] = (128, 128)
    distill_steps: int = 1000          # 0: no network (unvisited observations: uniform)
    learning_rate: float = 1e-2
    max_nodes: int = MAX_NODES         # the exact measure's tree limit
    checkpoint: str | Path | None = None
    checkpoint_every: int = 1000       # iterations between checkpoints (and at the end)

    def validate(self) -> None:
        check_int("seed", self.seed, 0)
        check_budget(self.iterations, self.minutes)
        for name in ("eval_every", "branch_depth", "distill_steps", "checkpoint_every"):
            check_int(name, getattr(self, name), 0)
        for name in ("responder_iterations", "responder_games"):
            check_int(name, getattr(self, name), 1)
        if not (isinstance(self.exploration, int | float) and 0 < self.exploration <= 1):
            raise InputError(f"exploration must be a number in (0, 1], got "
                             f"{self.exploration!r}")
        if self.measure not in MEASURES:
            raise InputError(f"unknown measure {self.measure!r}; allowed: "
                             f"{', '.join(MEASURES)}")


# -- the tables -------------------------------------------------------------------------

class InfosetTable:
    """One player's cumulative regrets and average-mix sums, keyed by observation."""

    def __init__(self, n_actions: int):
        self.n_actions = n_actions
        self.regrets: dict[tuple, np.ndarray] = {}
        self.sums: dict[tuple, np.ndarray] = {}
        self.masks: dict[tuple, np.ndarray] = {}   # where a mix was accumulated

    def current(self, observation: tuple, mask: np.ndarray) -> np.ndarray:
        """Regret matching: the positive regrets normalised; uniform where none."""
        regrets = self.regrets.get(observation)
        if regrets is None:
            return mask / mask.sum()
        return renormalise(np.maximum(regrets, 0.0), mask)

    def add_regrets(self, observation: tuple, increments: np.ndarray) -> None:
        found = self.regrets.get(observation)
        if found is None:
            self.regrets[observation] = increments.copy()
        else:
            found += increments

    def add_average(self, observation: tuple, mix: np.ndarray, weight: float,
                    mask: np.ndarray) -> None:
        found = self.sums.get(observation)
        if found is None:
            self.sums[observation] = weight * mix
            self.masks[observation] = mask
        else:
            found += weight * mix

    def average(self) -> dict[tuple, np.ndarray]:
        """The average mix at every observation where one was accumulated."""
        return {obs: total / total.sum() for obs, total in self.sums.items()
                if total.sum() > 0}

    def greedy(self) -> dict[tuple, np.ndarray]:
        """At every observation with regrets: the actions of the highest cumulative regret
        (the highest summed sampled value), evenly."""
        table = {}
        for obs, regrets in self.regrets.items():
            best = regrets >= regrets.max() - 1e-12 * max(1.0, abs(regrets.max()))
            table[obs] = best / best.sum()
        return table


class LearnedPolicy:
    """A policy on observations: the table where it has the observation, else the
    network (if any), else uniform over the legal actions."""

    def __init__(self, table: dict[tuple, np.ndarray], network=None,
                 name: str = "hidden-level learner"):
        self.table = table
        self.network = network
        self.name = name

    def probabilities(self, observation, mask: np.ndarray) -> np.ndarray:
        mix = self.table.get(tuple(int(x) for x in observation))
        if mix is not None:
            return renormalise(mix, mask)
        if self.network is not None:
            return self.network.probabilities(observation, mask)
        return renormalise(np.ones(len(mask)), mask)

    def batch_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """As ``probabilities`` row by row, with one network call for the rows the table
        lacks (a call per row costs a thousand times more)."""
        masks = np.asarray(masks, dtype=bool)
        keys = [tuple(int(x) for x in row) for row in np.asarray(observations)]
        probs = np.ones(masks.shape)
        missing = [k for k, key in enumerate(keys) if key not in self.table]
        for k, key in enumerate(keys):
            if key in self.table:
                probs[k] = self.table[key]
        if missing and self.network is not None:
            probs[missing] = self.network.batch_probabilities(
                np.asarray(observations)[missing], masks[missing])
        return renormalise(probs, masks)


# -- the traversal ----------------------------------------------------------------------

@dataclass
class Node:
    """What a traversal needs of a state, computed once."""

    terminal: bool
    payoff: float = 0.0
    masks: dict = field(default_factory=dict)
    observations: dict = field(default_factory=dict)


class Traversal:
    """MCCFR traversals of ``game`` (see the module docstring). ``fixed`` maps a player to
    a frozen policy: he is then sampled from it and never learns (a best responder)."""

    def __init__(self, game: Game, config: HiddenConfig, fixed: dict | None = None):
        self.game = game
        self.config = config
        self.fixed = fixed or {}
        n = len(game.info.action_names)
        self.tables = {p: InfosetTable(n) for p in ("a", "b")}
        self.rng = np.random.default_rng(config.seed)
        self.nodes: dict[State, Node] = {}
        self.iterations = 0

    def node(self, state: State) -> Node:
        found = self.nodes.get(state)
        if found is not None:
            return found
        game = self.game
        if game.is_terminal(state):
            found = Node(True, float(game.payoff(state)))
        else:
            found = Node(False)
            for player in ("a", "b"):
                found.masks[player] = np.asarray(game.legal_mask(state, player), dtype=bool)
                found.observations[player] = tuple(int(x) for x in game.observe(state, player))
        if len(self.nodes) < CACHE_LIMIT:
            self.nodes[state] = found
        return found

    def mix(self, player: str, node: Node) -> np.ndarray:
        mask, observation = node.masks[player], node.observations[player]
        if player in self.fixed:
            return renormalise(self.fixed[player].probabilities(observation, mask), mask)
        return self.tables[player].current(observation, mask)

    def draw(self, probs: np.ndarray) -> int:
        return int(np.searchsorted(np.cumsum(probs), self.rng.random() * probs.sum(),
                                   side="right").clip(0, len(probs) - 1))

    def iterate(self) -> None:
        """One traversal for each learning player."""
        self.iterations += 1
        for player in ("a", "b"):
            if player not in self.fixed:
                start = sample_outcome(self.game.initial_outcomes(), self.rng)
                self.traverse(start, player, 1.0, 0)

    def traverse(self, state: State, player: str, weight: float, depth: int) -> float:
        """A sampled estimate of ``player``'s value of ``state`` under the current mixes;
        ``weight`` is 1 / the probability of the traverser's own sampled actions so far."""
        node = self.node(state)
        if node.terminal:
            return node.payoff if player == "a" else -node.payoff
        foe = other(player)
        foe_mix = self.mix(foe, node)
        if foe not in self.fixed:
            self.tables[foe].add_average(node.observations[foe], foe_mix,
                                         weight * self.iterations, node.masks[foe])
        foe_action = self.draw(foe_mix)
        mask = node.masks[player]
        if mask.sum() == 1:  # nothing to decide (a ``wait``)
            return self.traverse(self.step(state, player, int(np.argmax(mask)), foe_action),
                                 player, weight, depth)
        mine = self.mix(player, node)
        walk = self.branch if depth < self.config.branch_depth else self.sample
        values = walk(state, player, foe_action, mine, mask, weight, depth)
        value = float(mine @ values)
        self.tables[player].add_regrets(node.observations[player],
                                        np.where(mask, weight * self.iterations
                                                 * (values - value), 0.0))
        return value

    def branch(self, state: State, player: str, foe_action: int, mine: np.ndarray,
               mask: np.ndarray, weight: float, depth: int) -> np.ndarray:
        """Every legal action's sampled value (external sampling)."""
        values = np.zeros(len(mask))
        for action in np.flatnonzero(mask):
            values[action] = self.traverse(self.step(state, player, int(action), foe_action),
                                           player, weight, depth + 1)
        return values

    def sample(self, state: State, player: str, foe_action: int, mine: np.ndarray,
               mask: np.ndarray, weight: float, depth: int) -> np.ndarray:
        """One action drawn from the exploring mix ``rho``; its value over ``rho`` and 0
        elsewhere, an unbiased estimate of every action's value (outcome sampling)."""
        rho = renormalise((1 - self.config.exploration) * mine
                          + self.config.exploration * mask / mask.sum(), mask)
        action = self.draw(rho)
        values = np.zeros(len(mask))
        values[action] = self.traverse(self.step(state, player, action, foe_action),
                                       player, weight / rho[action], depth + 1) / rho[action]
        return values

    def step(self, state: State, player: str, action: int, foe_action: int) -> State:
        pair = (action, foe_action) if player == "a" else (foe_action, action)
        return sample_step(self.game, state, pair[0], pair[1], self.rng)


# -- measuring ---------------------------------------------------------------------------

@dataclass
class Measurement:
    """Exploitability (NashConv / 2) of a pair, exact or estimated, with what each best
    responder gains (``gain_a``: A's best response against B's policy, to A)."""

    exploitability: float
    gain_a: float
    gain_b: float
    exact: bool
    method: str
    interval: float = 0.0   # 95% half-width of an estimate; 0 when exact
    value: float = 0.0      # of the pair, to A (an estimate's: its sampled mean)


EXACT_METHOD = ("exactly: the best answer to it over everything the other side can know "
                "(a best response over information sets, solver.hidden.sequence)")
ESTIMATED_METHOD = ("by estimate: an opponent trained to exploit it (regret matching against "
                    "the frozen policy) played {games} sampled duels against it (95% "
                    "interval +-{interval:.4f}); a perfect exploiter takes at least as much, "
                    "so the true figure is at least this, up to the interval")


def exact_tree(game: Game, config: HiddenConfig) -> Tree | None:
    """The unrolled tree when the exact measure is wanted and fits; None to estimate.
    ``measure="exact"`` on a game that does not fit is an InputError saying why."""
    if config.measure == "estimated":
        return None
    try:
        return build_tree(game, config.max_nodes)
    except InputError as error:
        if config.measure == "exact":
            raise InputError(f"the exact exploitability cannot take this game: {error}; "
                             "measure it estimated (a trained best responder) instead"
                             ) from None
        return None


def exact_measure(game: Game, tree: Tree, policy_a: Policy, policy_b: Policy) -> Measurement:
    plans = {"a": policy_plan(game, tree, policy_a, "a"),
             "b": policy_plan(game, tree, policy_b, "b")}
    payoff = tree.payoff_matrix()
    value = float(plans["a"] @ (payoff @ plans["b"]))
    gain_a = best_response_value(tree, "a", plans["b"], payoff) - value
    gain_b = best_response_value(tree, "b", plans["a"], payoff) + value
    return Measurement(float(exploitability_of(tree, plans)), float(gain_a), float(gain_b),
                       True, EXACT_METHOD, value=value)


def play(game: Game, policy_a: Policy, policy_b: Policy, games: int,
         rng: np.random.Generator) -> np.ndarray:
    """A's payoff in ``games`` sampled duels between the two policies."""
    payoffs = np.empty(games)
    for k in range(games):
        state = sample_outcome(game.initial_outcomes(), rng)
        while not game.is_terminal(state):
            actions = []
            for player, policy in (("a", policy_a), ("b", policy_b)):
                mask = np.asarray(game.legal_mask(state, player), dtype=bool)
                probs = renormalise(policy.probabilities(game.observe(state, player), mask),
                                    mask)
                actions.append(int(rng.choice(len(probs), p=probs)))
            state = sample_step(game, state, actions[0], actions[1], rng)
        payoffs[k] = game.payoff(state)
    return payoffs


def train_responder(game: Game, policy: Policy, responder: str,
                    config: HiddenConfig) -> LearnedPolicy:
    """A best responder of ``responder`` against the frozen ``policy`` on the other side."""
    trainer = Traversal(game, config, fixed={other(responder): policy})
    for _ in range(config.responder_iterations):
        trainer.iterate()
    return LearnedPolicy(trainer.tables[responder].greedy(), name="trained best responder")


def estimate_exploitability(game: Game, policy_a: Policy, policy_b: Policy,
                            config: HiddenConfig) -> Measurement:
    """NashConv / 2 estimated by trained best responders (module docstring)."""
    rng = np.random.default_rng(config.seed + 1)
    games = config.responder_games
    pair = play(game, policy_a, policy_b, games, rng)
    responder_a = train_responder(game, policy_b, "a", config)
    responder_b = train_responder(game, policy_a, "b", config)
    against_b = play(game, responder_a, policy_b, games, rng)
    against_a = play(game, policy_a, responder_b, games, rng)
    gain_a = against_b.mean() - pair.mean()
    gain_b = pair.mean() - against_a.mean()
    spread = math.sqrt(sum(x.var(ddof=1) / games for x in (pair, against_b, against_a)))
    interval = Z_95 * spread
    method = ESTIMATED_METHOD.format(games=games, interval=interval)
    return Measurement(float((gain_a + gain_b) / 2), float(gain_a), float(gain_b), False, method,
                       interval, float(pair.mean()))


# -- training ----------------------------------------------------------------------------

@dataclass
class HiddenResult:
    """What ``train_hidden`` returns: both sides' policies, the last measurement and the
    learning curve (rows of ``agents.curves.CURVE_FIELDS`` plus ``exact``)."""

    policy_a: LearnedPolicy
    policy_b: LearnedPolicy
    measurement: Measurement | None
    curve: list[dict]
    iterations: int
    seconds: float
    visited: dict[str, int]


def train_hidden(game: Game, config: HiddenConfig | None = None, progress: bool = False,
                 resume: bool = False) -> HiddenResult:
    """Train both sides of ``game`` by self-play (module docstring); seeded. With
    ``resume`` and an existing ``config.checkpoint``, training continues from it (the
    budget counts the checkpoint's iterations and seconds); a Ctrl-C finishes the
    current iteration, and the checkpoint and the result keep everything done."""
    config = config or HiddenConfig()
    config.validate()
    tree = exact_tree(game, config)
    from .policies import _one_thread  # torch's threads only contend on networks this small

    with _one_thread():
        return _train(game, config, tree, progress, resume)


def _train(game: Game, config: HiddenConfig, tree: Tree | None, progress: bool,
           resume: bool) -> HiddenResult:
    """The loop: exact curve rows every ``eval_every`` iterations where the tree exists
    (an estimate costs minutes, so without a tree the one row is the final measure)."""
    trainer = Traversal(game, config)
    checkpoint = Path(config.checkpoint) if config.checkpoint else None
    curve: list[dict] = []
    seconds = 0.0
    if resume and checkpoint is not None and checkpoint.exists():
        seconds, curve = load_checkpoint(trainer, checkpoint)
    with deferred_interrupt() as interrupted:
        while not _finished(trainer, config, seconds) and not interrupted():
            began = time.perf_counter()
            trainer.iterate()
            seconds += time.perf_counter() - began
            if tree is not None and config.eval_every \
                    and trainer.iterations % config.eval_every == 0:
                measured = exact_measure(game, tree, *table_policies(trainer))
                curve.append(_row(measured, trainer.iterations, seconds))
                _show(progress, curve[-1])
            if checkpoint is not None and trainer.iterations % config.checkpoint_every == 0:
                save_checkpoint(trainer, seconds, curve, checkpoint)
    if checkpoint is not None:
        save_checkpoint(trainer, seconds, curve, checkpoint)
    if progress:
        print(file=sys.stderr)
    policies = _final_policies(game, trainer, config)
    measurement = (exact_measure(game, tree, *policies) if tree is not None
                   else estimate_exploitability(game, *policies, config))
    if not curve or curve[-1]["step"] != trainer.iterations:
        curve.append(_row(measurement, trainer.iterations, seconds))
    visited = {p: len(trainer.tables[p].sums) for p in ("a", "b")}
    return HiddenResult(*policies, measurement, curve, trainer.iterations, seconds, visited)


def _finished(trainer: Traversal, config: HiddenConfig, seconds: float) -> bool:
    if config.iterations is not None and trainer.iterations >= config.iterations:
        return True
    return config.minutes is not None and seconds >= 60.0 * config.minutes


def table_policies(trainer: Traversal) -> tuple[LearnedPolicy, LearnedPolicy]:
    """The average tables as they stand (no network: unvisited observations uniform)."""
    return (LearnedPolicy(trainer.tables["a"].average()),
            LearnedPolicy(trainer.tables["b"].average()))


def _row(measured: Measurement, step: int, seconds: float) -> dict:
    return {"step": step, "seconds": seconds, "exploitability": measured.exploitability,
            "gain_a": measured.gain_a, "gain_b": measured.gain_b, "value": measured.value,
            "exact": measured.exact}


def _show(progress: bool, row: dict) -> None:
    if progress:
        kind = "exact" if row["exact"] else "estimated"
        sys.stderr.write(f"\riteration {row['step']}  {row['seconds']:7.1f}s  "
                         f"exploitability {row['exploitability']:.4f} ({kind})   ")
        sys.stderr.flush()


def _final_policies(game: Game, trainer: Traversal,
                    config: HiddenConfig) -> tuple[LearnedPolicy, LearnedPolicy]:
    """The average tables, each with a network distilled from it for the observations
    it never visited (none when ``distill_steps`` is 0)."""
    result = []
    for player in ("a", "b"):
        table = trainer.tables[player].average()
        network = _distil(game, trainer, player, table, config) if config.distill_steps else None
        result.append(LearnedPolicy(table, network, name=f"hidden-level learner ({player})"))
    return result[0], result[1]


def _distil(game: Game, trainer: Traversal, player: str, table: dict, config: HiddenConfig):
    from .policies import NetworkPolicy, fit  # torch is imported only here

    if not table:
        return None
    sums, masks = trainer.tables[player].sums, trainer.tables[player].masks
    # the most played observations teach the network most; the table keeps them all
    keys = sorted(table, key=lambda obs: -sums[obs].sum())[:DISTIL_ROWS]
    network = NetworkPolicy.for_game(game, config.layer_sizes,
                                     name=f"hidden-level learner ({player})")
    weights = np.array([sums[obs].sum() for obs in keys])
    fit(network, np.array(keys), np.array([masks[k] for k in keys]),
        np.array([table[k] for k in keys]), steps=config.distill_steps,
        learning_rate=config.learning_rate, weights=weights, seed=config.seed)
    return network
