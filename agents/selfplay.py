"""Self-play training of round-level policies for both sides of any duel.

The algorithm is external-sampling Monte-Carlo CFR (Lanctot et al. 2009) for
simultaneous moves, run on the game's states rather than on its history tree, with
the variance-reduction baselines of VR-MCCFR (Schmid et al. 2019) and discounted
regrets (DCFR, Brown & Sandholm 2019):

- Each player keeps regret tables keyed by its observation. A step makes two
  traversals, one per player (alternating updates). The traverser tries every legal
  action at every state it reaches; the opponent's action is drawn once per state
  (from his current strategy blended with ``exploration`` uniform play, importance
  weighted), and chance is drawn once per joint action. Only the protocol is used:
  ``initial_outcomes``, ``legal_mask``, ``observe``, ``is_terminal``, ``payoff`` and
  ``outcomes`` / ``sample_step`` to draw the next state. No solver call is made
  while learning; the exact evaluation only measures.
- A traversal memoises the traverser's value of each state it has computed in this
  step, so a state reached along several paths is expanded once. On the history
  tree of a ten-round duel the traverser's branching is astronomic; on the states
  a step costs one expansion per reachable state.
- Baselines: the value of each (state, own action, opponent action) seen last time
  stands in for the opponent actions not drawn, corrected by the drawn one, and each
  chance outcome's last value (its exact payoff when terminal) does the same for
  chance. The estimates stay unbiased; in a deterministic duel they approach a full
  sweep of the opponent's actions at the price of one.
- Every state is a local regret minimiser on its own clock (the number of times it
  has been updated), which sees the traverser's action values: its continuation
  under the current strategies. Regret matching is Hannan consistent, so each
  state's average strategy pair converges to the equilibrium of its stage game once
  the stages below have converged; by induction from the last exchange up (the
  argument of Lisy et al. 2013 for simultaneous-move search) the average policy
  converges to a subgame-perfect equilibrium. Visits are weighted equally rather
  than by counterfactual reach: a state's reach weight would count the traverser's
  paths to it, which grows exponentially with depth and diverged in our runs. The
  own clock matters too: with a global step count a state reached rarely has its
  average decided by its last visit. DCFR's discounting (alpha 1.5, beta 0, gamma 2)
  forgets the poor early strategies; "cfr+" (regret floor, linear average) and
  "none" (plain regret matching) are available for comparison.
- Cycles (games without a turn cap) are cut where a traversal meets a state it is
  still expanding: that state's last computed value stands in for it.
- On a game that declares counters, without a magnet, the traversal runs compiled
  (``agents.counter_traversal``: the same estimator over integer states); learning
  (``_learn``) is the same code for both.
- A "magnet" per side (a policy, for personalities) with weight ``regularization``
  changes that side's payoff to payoff - regularization * KL(mix || magnet), charged
  at every state it plays, and the opponent plays against that same regularised
  payoff (a zero-sum regularised game, solved state by state). Its learners minimise
  regret on the linearised utility. At 0 it is the ordinary equilibrium; the larger
  the weight, the closer the side stays to its magnet. (``SelfPlay.magnet_weight``
  holds it per side; "alpha" here means only DCFR's discount exponent.)

Why not the alternatives: plain self-play policy gradient cycles; outcome-sampling
MCCFR's importance weights multiply along thirty exchanges; NFSP needs far more
samples than the few hundred states of a duel. The average tables are distilled into
a torch network (``agents.policies``) for export and for observations they never saw.

The curve's ``seconds`` count training only (exact evaluation, checkpoints and
distillation excluded), summed across resumed runs; ``minutes`` is a budget on that
total, as ``iterations`` is on the steps. An exact evaluation falls every ``eval_every``
steps, except that one which took longer than a second is not repeated before as much
training time has passed: a fast game's budget is not spent evaluating.

This module is the algorithm and ``train``, its entry point. Around it: the regret
tables (``agents.regrets``), checkpoints (``agents.checkpoints``), learning curves
(``agents.curves``), the progress bar (``agents.progress``), Ctrl-C between steps
(``agents.interrupts``) and atomic files (``agents.files``).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from envs.schema import MAX_SEED
from solver import Exploitability, exploitability
from solver.errors import InputError, check_choice
from solver.game import PLAYERS, Game, Policy, State, renormalise, sample_step
from solver.policy import TabularPolicy

from .checkpoints import load_checkpoint, save_checkpoint
from .counter_traversal import CounterTraversal, Visits
from .curves import curve_path, curve_title, write_curve
from .interrupts import deferred_interrupt
from .policies import NetworkPolicy, fit
from .progress import Progress, progress_bar
from .regrets import LOG_FLOOR, RegretTable

DISCOUNTINGS = ("dcfr", "cfr+", "none")
#: an evaluation longer than this is postponed (to a later multiple of ``eval_every``)
#: until as much training time has passed, so evaluating takes at most half the run
EVALUATION_GRACE_SECONDS = 1.0


@dataclass
class TrainConfig:
    """How to train. Training stops at ``iterations`` steps or ``minutes`` of training
    time, whichever comes first (both are totals across resumed runs)."""

    seed: int = 0
    iterations: int | None = 1000
    minutes: float | None = None
    eval_every: int = 100            # steps between exact evaluations; 0: at the end only
    checkpoint: str | Path | None = None
    checkpoint_every: int = 500
    curve_path: str | Path | None = None  # CSV; the PNG goes beside it. Default: by checkpoint
    magnet_a: Policy | None = None
    magnet_b: Policy | None = None
    regularization: float = 0.0
    discounting: str = "dcfr"        # "dcfr", "cfr+" (regret floor, linear average) or "none"
    cache_transitions: bool = True   # keep each exact outcome list once, then sample it
    baseline_rate: float = 1.0       # how fast the pair baselines follow new values; 0: none
    exploration: float = 0.2         # share of uniform play in the opponent's sampled action
    layer_sizes: tuple[int, ...] = (128, 128)  # of the distilled network's hidden layers
    distill_steps: int = 2000        # 0: return the average tables themselves
    learning_rate: float = 1e-2      # of the distillation (Adam)

    def validate(self) -> None:
        check_int("seed", self.seed, 0, MAX_SEED)
        check_budget(self.iterations, self.minutes)
        check_choice("discounting", self.discounting, DISCOUNTINGS)
        check_int("eval_every", self.eval_every, 0)
        check_int("checkpoint_every", self.checkpoint_every, 1)
        check_int("distill_steps", self.distill_steps, 0)
        if not all(isinstance(h, int) and h > 0 for h in self.layer_sizes):
            raise InputError(f"layer_sizes must be positive integers, got {self.layer_sizes}")
        for name in ("baseline_rate", "exploration"):
            rate = getattr(self, name)
            if not (isinstance(rate, int | float) and 0 <= rate <= 1):
                raise InputError(f"{name} must be a number in [0, 1], got {rate!r}")
        if not (math.isfinite(self.learning_rate) and self.learning_rate > 0):
            raise InputError(f"learning_rate must be > 0, got {self.learning_rate!r}")
        self._validate_magnets()

    def _validate_magnets(self) -> None:
        if not (isinstance(self.regularization, int | float)
                and math.isfinite(self.regularization) and self.regularization >= 0):
            raise InputError(f"regularization must be a number >= 0, got {self.regularization!r}")
        for side, magnet in (("a", self.magnet_a), ("b", self.magnet_b)):
            if magnet is not None and not callable(getattr(magnet, "probabilities", None)):
                raise InputError(f"magnet_{side} must be a policy (with probabilities), "
                                 f"got {type(magnet).__name__}")
        if self.regularization > 0 and self.magnet_a is None and self.magnet_b is None:
            raise InputError("regularization > 0 needs a magnet_a or magnet_b to pull toward")

    def fingerprint(self) -> dict:
        """What a checkpoint must agree with to be resumed."""
        return {"seed": self.seed, "regularization": float(self.regularization),
                "magnet_a": self.magnet_a is not None, "magnet_b": self.magnet_b is not None,
                "discounting": self.discounting, "exploration": float(self.exploration),
                "baseline_rate": float(self.baseline_rate),
                "cache_transitions": self.cache_transitions}


def check_int(name: str, value: object, low: int, high: int | None = None) -> None:
    """An integer setting of a trainer, at least ``low`` (and at most ``high``)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise InputError(f"{name} must be an integer >= {low}, got {value!r}")
    if high is not None and value > high:
        raise InputError(f"{name} must be an integer {low}..{high}, got {value!r:.40}")


def check_budget(iterations: int | None, minutes: float | None) -> None:
    """A trainer's stopping budget: iterations, minutes or both, each positive."""
    if iterations is None and minutes is None:
        raise InputError("give iterations or minutes (or both) to stop training")
    if iterations is not None:
        check_int("iterations", iterations, 1)
    if minutes is not None and not (
            isinstance(minutes, int | float) and not isinstance(minutes, bool)
            and math.isfinite(minutes) and minutes > 0):
        raise InputError(f"minutes must be a finite number > 0, got {minutes!r}")


@dataclass
class TrainResult:
    """The trained pair, the learning curve and the final exact measurements."""

    policy_a: Policy
    policy_b: Policy
    table_a: TabularPolicy           # the average strategies themselves
    table_b: TabularPolicy
    curve: list[dict]
    step: int
    seconds: float
    exploitability: Exploitability | None        # of policy_a / policy_b
    table_exploitability: Exploitability | None  # of the tables
    distill_loss: tuple[float, float] = (0.0, 0.0)  # mean KL of each network to its table
    curve_csv: Path | None = None
    curve_png: Path | None = None
    files: list[Path] = field(default_factory=list)


class _StateInfo(NamedTuple):
    terminal: bool
    payoff: float
    rows: tuple[int, int]                 # table rows of A's and B's observation
    legal: tuple[np.ndarray, np.ndarray]  # legal action indices of A and B


class SelfPlay:
    """The training state: tables, rng, step counter and curve; ``step()`` trains."""

    def __init__(self, game: Game, config: TrainConfig):
        self.game = game
        self.config = config
        self.n = len(game.info.action_names)
        self.rng = np.random.default_rng(config.seed)
        self.tables = (RegretTable(self.n), RegretTable(self.n))
        self.magnets = (config.magnet_a, config.magnet_b)
        # each side's weight of KL(mix || magnet) in its payoff: 0 without a magnet
        self.magnet_weight = tuple(float(config.regularization) if m is not None else 0.0
                                   for m in self.magnets)
        self.steps = 0
        self.seconds = 0.0
        self.curve: list[dict] = []
        self.evaluated_at = (0.0, 0.0)   # (training seconds, evaluation's duration)
        self._states: dict[State, _StateInfo] = {}
        self._moves: dict[tuple, tuple] = {}
        self._starts = game.initial_outcomes()
        self._compiled = self._compiled_traversal()

    def _compiled_traversal(self) -> CounterTraversal | None:
        """The compiled traversal where the game declares its counters, the outcome
        lists are kept and no magnet pulls (its penalty is not compiled)."""
        if not (self.game.info.has("counters") and self.config.cache_transitions
                and not any(self.magnet_weight)):
            return None
        compiled = CounterTraversal(self.game)
        compiled.restore(self.tables, None)
        return compiled

    # -- the protocol, cached where it is deterministic

    def _info(self, state: State) -> _StateInfo:
        info = self._states.get(state)
        if info is None:
            info = self._states[state] = self._describe(state)
        return info

    def _describe(self, state: State) -> _StateInfo:
        game = self.game
        if game.is_terminal(state):
            return _StateInfo(True, float(game.payoff(state)), (-1, -1), (None, None))
        rows, legal = [], []
        for side, player in enumerate(PLAYERS):
            mask = np.asarray(game.legal_mask(state, player), dtype=bool)
            observation = tuple(int(x) for x in game.observe(state, player))
            table = self.tables[side]
            magnet = None
            if self.magnets[side] is not None and observation not in table.index:
                magnet = self._magnet_mix(side, observation, mask)
            rows.append(table.row(observation, mask, magnet))
            legal.append(np.flatnonzero(mask))
        return _StateInfo(False, 0.0, tuple(rows), tuple(legal))

    def _magnet_mix(self, side: int, observation: tuple, mask: np.ndarray) -> np.ndarray:
        return renormalise(self.magnets[side].probabilities(observation, mask), mask)

    def _outcomes(self, state: State, pair: tuple[int, int]) -> tuple:
        """The exact outcome list of a joint action, fetched once: (probabilities,
        cumulative probabilities, next states)."""
        key = (state, *pair)
        entry = self._moves.get(key)
        if entry is None:
            outcomes = self.game.outcomes(state, *pair)
            probs = np.asarray([p for p, _ in outcomes], dtype=float)
            probs = probs / probs.sum()
            entry = self._moves[key] = (probs, np.cumsum(probs), [s for _, s in outcomes])
        return entry

    def _outcome_value(self, me: int, state: State, pair: tuple[int, int],
                       value: Callable[[State], float]) -> float:
        """The traverser's value after a joint action, chance drawn once. With the
        outcome list at hand the draw is corrected by every outcome's baseline (its
        value at the last visit; the exact payoff when terminal): still unbiased, and
        most of the noise of the draw cancels."""
        if not self.config.cache_transitions:
            return value(sample_step(self.game, state, pair[0], pair[1], self.rng))
        probs, cumulative, states = self._outcomes(state, pair)
        if len(states) == 1:
            return value(states[0])
        drawn = min(int(np.searchsorted(cumulative, self.rng.random() * cumulative[-1],
                                        side="right")), len(states) - 1)
        sampled = value(states[drawn])
        baselines = np.fromiter((self._baseline(me, s) for s in states), dtype=float,
                                count=len(states))
        return float(probs @ baselines + sampled - baselines[drawn])

    def _baseline(self, me: int, state: State) -> float:
        info = self._info(state)
        if info.terminal:
            return info.payoff if me == 0 else -info.payoff
        return float(self.tables[me].values[info.rows[me]])

    def _draw(self, strategy: np.ndarray, legal: np.ndarray) -> int:
        if len(legal) == 1:
            return int(legal[0])
        # a plain loop: for a handful of actions it beats cumsum + searchsorted
        left = self.rng.random() * float(strategy[legal].sum())
        for action in legal[:-1]:
            left -= strategy[action]
            if left < 0:
                return int(action)
        return int(legal[-1])

    def _start(self) -> State:
        return self._starts[self._start_index()][1]

    def _start_index(self) -> int:
        if len(self._starts) == 1:
            return 0
        weights = np.cumsum([p for p, _ in self._starts])
        pick = int(np.searchsorted(weights, self.rng.random() * weights[-1], side="right"))
        return min(pick, len(self._starts) - 1)

    # -- learning

    def step(self) -> None:
        """One step: a traversal for A, then one for B (alternating updates)."""
        self.steps += 1
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20_000))
        try:
            for side in (0, 1):
                if self._compiled is None:
                    self._learn(side, self._traverse(side))
                else:
                    visits = self._traverse_compiled(side)
                    self._learn(side, visits)
                    self._compiled.remember(side, self.tables[side], visits.rows)
        finally:
            sys.setrecursionlimit(limit)

    def _penalty(self, side: int, row: int, strategy: np.ndarray) -> float:
        if not self.magnet_weight[side]:
            return 0.0
        live = strategy > 0
        log_mix = np.log(strategy[live])
        return self.magnet_weight[side] * float(
            strategy[live] @ (log_mix - self.tables[side].log_magnet[row][live]))

    def _traverse_compiled(self, me: int) -> Visits:
        """``_traverse``, compiled (``agents.counter_traversal``)."""
        seed = int(self.rng.integers(1 << 63))
        return self._compiled.traverse(me, self.tables, seed, self._start_index(),
                                       self.config.exploration, self.config.baseline_rate)

    def _traverse(self, me: int) -> Visits:
        """The traverser's action values at every state it reaches this step."""
        them = 1 - me
        tables = self.tables
        snapshots = (tables[0].current(), tables[1].current())
        sign = 1.0 if me == 0 else -1.0
        values: dict[State, float] = {}
        expanding: set[State] = set()
        visits: list[tuple[int, np.ndarray, np.ndarray, float]] = []

        def value(state: State) -> float:
            known = values.get(state)
            if known is not None:
                return known
            info = self._info(state)
            if info.terminal:
                values[state] = sign * info.payoff
                return values[state]
            if state in expanding:
                return float(tables[me].values[info.rows[me]])
            expanding.add(state)
            mine = tables[me].strategy(snapshots[me], info.rows[me])
            theirs = tables[them].strategy(snapshots[them], info.rows[them])
            other, weight = self._sample_opponent(theirs, info.legal[them])
            q = self._estimate(me, info, theirs, other, weight, [
                self._outcome_value(me, state, (int(a), other) if me == 0 else (other, int(a)),
                                    value)
                for a in info.legal[me]])
            total = float(mine @ q) - self._penalty(me, info.rows[me], mine) \
                + self._penalty(them, info.rows[them], theirs)
            visits.append((info.rows[me], q, mine, total))
            expanding.discard(state)
            values[state] = total
            return total

        value(self._start())
        if not visits:
            return Visits(np.zeros(0, np.int64), np.zeros((0, self.n)), np.zeros((0, self.n)),
                          np.zeros(0))
        rows, q, mix, total = zip(*visits, strict=True)
        return Visits(np.asarray(rows, np.int64), np.stack(q), np.stack(mix),
                      np.asarray(total, float))

    def _sample_opponent(self, theirs: np.ndarray, legal: np.ndarray) -> tuple[int, float]:
        """The opponent's action, drawn from his mix blended with some uniform play so
        that states behind his rare actions are still visited (a best responder goes
        there), with the importance weight that keeps the estimate unbiased."""
        explore = self.config.exploration
        if not explore or len(legal) == 1:
            return self._draw(theirs, legal), 1.0
        sampling = (1.0 - explore) * theirs
        sampling[legal] += explore / len(legal)
        other = self._draw(sampling, legal)
        return other, float(theirs[other] / sampling[other])

    def _estimate(self, me: int, info: _StateInfo, theirs: np.ndarray, other: int,
                  weight: float, sampled: list[float]) -> np.ndarray:
        """The traverser's action values against the opponent's whole mix, from the one
        sampled opponent action: baseline-corrected (VR-MCCFR), so still unbiased, with
        the other actions' values taken from the baseline of the last visits."""
        row = info.rows[me]
        table = self.tables[me]
        baseline = table.baselines[row]
        observed = np.zeros(self.n)
        observed[info.legal[me]] = sampled
        column = baseline[:, other].copy()
        q = (baseline @ theirs + weight * (observed - column)) * table.masks[row]
        baseline[:, other] = column + self.config.baseline_rate * (observed - column)
        return q

    def _learn(self, side: int, visits: Visits) -> None:
        if not len(visits.rows):
            return
        table = self.tables[side]
        rows, q, mix = visits.rows, visits.q, visits.mix
        gradient = q
        if self.magnet_weight[side]:
            # the linearised KL penalty: its gradient is
            # magnet_weight * (log mix - log magnet) + const
            gradient = q - self.magnet_weight[side] * (np.log(np.maximum(mix, LOG_FLOOR))
                                                       - table.log_magnet[rows])
        expected = (mix * gradient).sum(axis=1, keepdims=True)
        np.add.at(table.visits, rows, 1)
        # each state keeps its own clock: a state reached rarely must not have its
        # average decided by the one late visit a global step count would weigh most
        clock = table.visits[rows].astype(float)
        self._discount(table, rows, clock)
        np.add.at(table.regrets, rows, (gradient - expected) * table.masks[rows])
        weight = clock if self.config.discounting == "cfr+" else np.ones(len(rows))
        if self.config.discounting == "cfr+":
            table.regrets[rows] = np.maximum(table.regrets[rows], 0.0)
        np.add.at(table.totals, rows, weight[:, None] * mix)
        table.values[rows] = visits.total

    def _discount(self, table: RegretTable, rows: np.ndarray, clock: np.ndarray) -> None:
        """Discounted CFR (Brown & Sandholm 2019, alpha 1.5, beta 0, gamma 2) on each
        state's own clock: old positive regrets fade slowly, negative ones fast, and
        the average weighs visit k about as k squared, forgetting the poor start."""
        if self.config.discounting != "dcfr":
            return
        rows, first = np.unique(rows, return_index=True)
        clock = clock[first][:, None]
        regrets = table.regrets[rows]
        keep = clock ** 1.5 / (clock ** 1.5 + 1.0)
        table.regrets[rows] = regrets * np.where(regrets > 0, keep, 0.5)
        table.totals[rows] *= (clock / (clock + 1.0)) ** 2

    # -- evaluation and persistence

    def policies(self) -> tuple[TabularPolicy, TabularPolicy]:
        return self.tables[0].policy("self-play a"), self.tables[1].policy("self-play b")

    def evaluate(self) -> dict | None:
        """Exact exploitability of the average tables, appended to the curve."""
        if not self.game.info.public_information:
            return None
        started = time.perf_counter()
        result = exploitability(self.game, *self.policies())
        self.evaluated_at = (self.seconds, time.perf_counter() - started)
        row = {"step": self.steps, "seconds": self.seconds, "exploitability": result.value,
               "gain_a": result.gain_a, "gain_b": result.gain_b, "value": result.pair_value}
        if self.curve and self.curve[-1]["step"] == self.steps:
            self.curve[-1] = row
        else:
            self.curve.append(row)
        return row

    def evaluation_due(self) -> bool:
        """At each multiple of ``eval_every`` steps, unless the last evaluation took
        longer than both the grace and the training since it (then at a later one)."""
        every = self.config.eval_every
        if not every or self.steps % every:
            return False
        when, took = self.evaluated_at
        return took <= max(EVALUATION_GRACE_SECONDS, self.seconds - when)

    def finished(self) -> bool:
        config = self.config
        return ((config.iterations is not None and self.steps >= config.iterations)
                or (config.minutes is not None and self.seconds >= 60.0 * config.minutes))

    def forget_states(self, chance: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Drop the cached state rows (after the tables were replaced from a checkpoint,
        with ``chance``: the chance states' values, as ``chance_document`` wrote them)."""
        self._states.clear()
        if self._compiled is not None:
            self._compiled.restore(self.tables, chance)

    def chance_states(self) -> int:
        """How many states may hold a chance value (those of the compiled traversal)."""
        return 0 if self._compiled is None else len(self._compiled.memo)

    def chance_document(self) -> dict:
        """The chance states' last values, for a checkpoint (none without the compiled
        traversal: the Python one keeps them in the tables' rows)."""
        if self._compiled is None:
            return {"states": [], "values": [[], []]}
        return self._compiled.chance_document()


# -- the training loop

def train(game: Game, config: TrainConfig | None = None, progress: bool = True,
          resume: bool = False) -> TrainResult:
    """Train both sides of ``game``; see the module docstring for the algorithm.

    With ``resume`` and an existing ``config.checkpoint``, training continues from the
    checkpoint's step (tables, rng and curve restored). A Ctrl-C finishes the current
    step, saves the checkpoint and raises ``KeyboardInterrupt``.
    """
    config = config or TrainConfig()
    config.validate()
    trainer = SelfPlay(game, config)
    checkpoint = Path(config.checkpoint) if config.checkpoint else None
    if resume and checkpoint is not None and checkpoint.exists():
        load_checkpoint(trainer, checkpoint)
    bar = progress_bar(config, progress)
    try:
        _loop(trainer, checkpoint, bar)
    finally:
        if bar is not None:
            bar.close()
    if not trainer.curve or trainer.curve[-1]["step"] != trainer.steps:
        trainer.evaluate()
    if checkpoint is not None:
        save_checkpoint(trainer, checkpoint)
    return _finish(trainer, curve_path(config.curve_path, config.checkpoint))


def _loop(trainer: SelfPlay, checkpoint: Path | None, bar: Progress | None) -> None:
    config = trainer.config
    with deferred_interrupt() as interrupted:
        while not trainer.finished():
            started = time.perf_counter()
            trainer.step()
            trainer.seconds += time.perf_counter() - started
            if trainer.evaluation_due():
                trainer.evaluate()
            if checkpoint is not None and (trainer.steps % config.checkpoint_every == 0
                                           or interrupted()):
                save_checkpoint(trainer, checkpoint)
            if bar is not None:
                bar.show(trainer)
            if interrupted():
                where = f"; checkpoint saved to {checkpoint}" if checkpoint else ""
                raise KeyboardInterrupt(f"training interrupted at step {trainer.steps}{where}")


def _finish(trainer: SelfPlay, curve_csv: Path | None) -> TrainResult:
    config, game = trainer.config, trainer.game
    table_a, table_b = trainer.policies()
    public = game.info.public_information
    table_score = exploitability(game, table_a, table_b) if public else None
    policy_a, policy_b, losses = table_a, table_b, (0.0, 0.0)
    score = table_score
    if config.distill_steps:
        (policy_a, loss_a), (policy_b, loss_b) = (distill(trainer, side) for side in (0, 1))
        losses = (loss_a, loss_b)
        score = exploitability(game, policy_a, policy_b) if public else None
    result = TrainResult(policy_a, policy_b, table_a, table_b, trainer.curve, trainer.steps,
                         trainer.seconds, score, table_score, losses)
    if curve_csv is not None:
        result.curve_csv, result.curve_png = write_curve(trainer.curve, curve_csv,
                                                         title=curve_title(game))
        result.files += [result.curve_csv, result.curve_png]
    return result


def distill(trainer: SelfPlay, side: int) -> tuple[NetworkPolicy, float]:
    """The side's average table fitted by a network."""
    config = trainer.config
    table = trainer.tables[side]
    policy = NetworkPolicy.for_game(trainer.game, config.layer_sizes,
                                    name=f"self-play {PLAYERS[side]}")
    if table.size == 0:
        return policy, 0.0
    loss = fit(policy, np.asarray(table.observations, dtype=np.float32),
               table.masks[:table.size], table.average(), steps=config.distill_steps,
               learning_rate=config.learning_rate, seed=config.seed + side)
    return policy, loss
