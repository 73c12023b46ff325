"""Exact solution of games with hidden types: the sequence-form linear program.

The games solved here draw each player's private type at the start
(``initial_outcomes``); after that every action and chance outcome is public, and a
player sees what ``observe`` shows him. An information set of a player is his
observation history (every observation he had at a decision and the action he took
there): perfect recall by construction, whatever the observation keeps. The game tree
is unrolled from ``initial_outcomes`` / ``outcomes`` up to ``max_nodes`` decision points.

The equilibrium is the sequence-form linear program of Koller, Megiddo and von Stengel
(1996), one per player, sparse, solved by HiGHS; exploitability is computed exactly by
a best response over information sets (dynamic programming over sequences). The
strategies are returned as policies on observations when the current observation
identifies the information set (the observation has perfect recall), which is checked.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..gains import gain_over
from ..game import BatchPolicy, Game, Policy, joint_outcomes, renormalise
from ..policy import TabularPolicy
from ..results import summary
from ..sparse import sp

#: points of the tree (decisions and ends) beyond which it is not unrolled: the memory of
#: the unrolled tree and of the linear program
MAX_NODES = 2_000_000
#: random descents that estimate the tree's size before unrolling it (Knuth's estimator)
PROBES = 200


@dataclass
class Sequences:
    """One player's information sets and sequences (sequence 0 is the empty one)."""

    keys: dict = field(default_factory=dict)        # (parent sequence, observation) -> set
    parent: list[int] = field(default_factory=list)  # information set -> parent sequence
    observation: list[tuple] = field(default_factory=list)
    mask: list[np.ndarray] = field(default_factory=list)
    first: list[int] = field(default_factory=list)   # information set -> its first sequence
    following: list[list[int]] = field(default_factory=list)  # set -> sequence by action
    count: int = 1                                     # sequences so far (the empty one too)

    def infoset(self, parent: int, observation: tuple, mask: np.ndarray) -> int:
        key = (parent, observation)
        found = self.keys.get(key)
        if found is not None:
            return found
        index = self.keys[key] = len(self.parent)
        self.parent.append(parent)
        self.observation.append(observation)
        self.mask.append(mask)
        self.first.append(self.count)
        ranks = np.cumsum(mask) - 1 + self.count
        self.following.append(np.where(mask, ranks, -1).tolist())
        self.count += int(mask.sum())
        return index

    def sequence(self, infoset: int, action: int) -> int:
        """The sequence of playing ``action`` at ``infoset`` (legal actions in order)."""
        return self.following[infoset][action]

    def constraints(self) -> sp.csr_matrix:
        """The realisation-plan constraints: row 0 is the empty sequence, one row per
        information set (its sequences sum to its parent's)."""
        rows, cols, vals = [0], [0], [1.0]
        for index, parent in enumerate(self.parent):
            width = int(self.mask[index].sum())
            rows += [index + 1] * (width + 1)
            cols += [parent] + list(range(self.first[index], self.first[index] + width))
            vals += [-1.0] + [1.0] * width
        return sp.csr_matrix((vals, (rows, cols)), shape=(len(self.parent) + 1, self.count))


@dataclass
class Tree:
    """The unrolled game: decision nodes, leaves and both players' sequences."""

    players: dict[str, Sequences]
    node_state: list = field(default_factory=list)
    node_chance: list[float] = field(default_factory=list)
    node_infoset: dict[str, list[int]] = field(default_factory=lambda: {"a": [], "b": []})
    node_parent: dict[str, list[int]] = field(default_factory=lambda: {"a": [], "b": []})
    node_root: list[int] = field(default_factory=list)
    node_depth: list[int] = field(default_factory=list)  # steps from the start
    leaf_seq: dict[str, list[int]] = field(default_factory=lambda: {"a": [], "b": []})
    leaf_chance: list[float] = field(default_factory=list)
    leaf_payoff: list[float] = field(default_factory=list)
    leaf_root: list[int] = field(default_factory=list)
    roots: list = field(default_factory=list)  # (probability, state) of initial_outcomes

    def payoff_matrix(self) -> sp.csr_matrix:
        """A's expected payoff by pair of sequences (chance weighted, summed)."""
        weights = np.asarray(self.leaf_chance) * np.asarray(self.leaf_payoff)
        shape = (self.players["a"].count, self.players["b"].count)
        return sp.csr_matrix((weights, (self.leaf_seq["a"], self.leaf_seq["b"])), shape=shape)


def _too_large(game: Game, size: float, max_nodes: int) -> InputError:
    return InputError(
        f"{game.info.system} with these options unrolls into {size:.3g} decisions and ends "
        f"or more, beyond the {max_nodes} the exact hidden-information solver can take; shorten "
        "the duel (a lower horizon) or learn it with the self-play trainer (duel train)")


def estimate_size(game: Game, probes: int = PROBES, seed: int = 0) -> float:
    """The expected number of points of the unrolled tree, estimated by random descents
    (Knuth 1975: a descent's product of branching factors is unbiased for each depth)."""
    rng = np.random.default_rng(seed)
    starts = game.initial_outcomes()
    total = 0.0
    for _ in range(probes):
        width, state = float(len(starts)), starts[rng.integers(len(starts))][1]
        total += 1.0 + width
        while not game.is_terminal(state):
            mask_a = game.legal_mask(state, "a")
            mask_b = game.legal_mask(state, "b")
            children = [after for _, _, outcomes in joint_outcomes(game, state, mask_a, mask_b)
                        for _, after in outcomes]
            width *= len(children)
            total += width
            state = children[rng.integers(len(children))]
    return total / probes


#: the trees unrolled in this process, by game and node limit: a training, its metrics
#: and the equilibrium they are measured against each asked for the same one (a third
#: of a small training's time went to unrolling it three times)
_TREES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def build_tree(game: Game, max_nodes: int = MAX_NODES) -> Tree:
    """Unroll ``game`` from its initial outcomes (once per game and limit); an
    InputError beyond ``max_nodes`` points (refused at once when a quick estimate is far
    beyond it)."""
    known = _TREES.setdefault(game, {})
    if max_nodes not in known:
        known[max_nodes] = _unrolled(game, max_nodes)
    return known[max_nodes]


def _unrolled(game: Game, max_nodes: int) -> Tree:
    estimate = estimate_size(game)
    if estimate > 4 * max_nodes:
        raise _too_large(game, estimate, max_nodes)
    tree = Tree({"a": Sequences(), "b": Sequences()})
    stack = []
    for root, (probability, state) in enumerate(game.initial_outcomes()):
        tree.roots.append((probability, state))
        stack.append((state, probability, 0, 0, root, 0))
    while stack:
        state, chance, seq_a, seq_b, root, depth = stack.pop()
        if game.is_terminal(state):
            _leaf(tree, game, state, chance, seq_a, seq_b, root)
            continue
        if len(tree.node_state) + len(tree.leaf_root) >= max_nodes:
            raise _too_large(game, max_nodes, max_nodes)
        set_a, set_b = _node(tree, game, state, chance, seq_a, seq_b, root)
        tree.node_depth.append(depth)
        follow_a = tree.players["a"].following[set_a]
        follow_b = tree.players["b"].following[set_b]
        for i, j, outcomes in joint_outcomes(game, state, tree.players["a"].mask[set_a],
                                             tree.players["b"].mask[set_b]):
            for p, after in outcomes:
                stack.append((after, chance * p, follow_a[i], follow_b[j], root, depth + 1))
    return tree


def _node(tree: Tree, game: Game, state, chance: float, seq_a: int, seq_b: int,
          root: int) -> tuple[int, int]:
    sets = []
    for player, parent in (("a", seq_a), ("b", seq_b)):
        mask = np.asarray(game.legal_mask(state, player), dtype=bool)
        observation = tuple(int(x) for x in game.observe(state, player))
        infoset = tree.players[player].infoset(parent, observation, mask)
        if not np.array_equal(tree.players[player].mask[infoset], mask):
            raise ValueError(f"{game.info.system}: one information set of {player} with "
                             "two different masks; the observation hides the legal moves")
        tree.node_infoset[player].append(infoset)
        tree.node_parent[player].append(parent)
        sets.append(infoset)
    tree.node_state.append(state)
    tree.node_chance.append(chance)
    tree.node_root.append(root)
    return sets[0], sets[1]


def _leaf(tree: Tree, game: Game, state, chance: float, seq_a: int, seq_b: int,
          root: int) -> None:
    tree.leaf_seq["a"].append(seq_a)
    tree.leaf_seq["b"].append(seq_b)
    tree.leaf_chance.append(chance)
    tree.leaf_payoff.append(float(game.payoff(state)))
    tree.leaf_root.append(root)


# -- the linear programs -----------------------------------------------------------------

def solve_sequence_form(tree: Tree, player: str) -> tuple[np.ndarray, float]:
    """The realisation plan of ``player`` that guarantees the most, and the value to A.

    For A: max v_0 over (x, v) s.t. F^T v <= A^T x, E x = e, x >= 0 (v free), where E, F
    are the players' sequence constraints: the inner minimisation over B's plans
    replaced by its dual. For B the mirror image (minimising)."""
    payoff = tree.payoff_matrix()
    own = tree.players[player].constraints()
    theirs = tree.players["b" if player == "a" else "a"].constraints()
    # A: one row per B sequence, F^T v - A^T x <= 0. B minimises u_0 s.t. A y - E^T u <= 0;
    # with v = -u that is the same program with -A in place of A^T
    matrix = payoff.T if player == "a" else -payoff
    n_own, n_dual = own.shape[1], theirs.shape[0]
    upper = sp.hstack([-matrix, theirs.T]).tocsr()
    equal = sp.hstack([own, sp.csr_matrix((own.shape[0], n_dual))]).tocsr()
    cost = np.zeros(n_own + n_dual)
    cost[n_own] = -1.0  # maximise v_0
    rhs = np.zeros(own.shape[0])
    rhs[0] = 1.0
    bounds = [(0, None)] * n_own + [(None, None)] * n_dual
    from scipy.optimize import linprog  # here: a public duel's command never loads it
    result = linprog(cost, A_ub=upper, b_ub=np.zeros(upper.shape[0]), A_eq=equal, b_eq=rhs,
                     bounds=bounds, method="highs")
    if result.status != 0:
        raise RuntimeError(f"sequence-form LP of {player} failed: {result.message}")
    value = -result.fun
    return np.clip(result.x[:n_own], 0.0, None), value if player == "a" else -value


def behaviour(sequences: Sequences, plan: np.ndarray) -> list[np.ndarray]:
    """The mix at every information set from a realisation plan (uniform where the plan
    never reaches it)."""
    mixes = []
    for index, mask in enumerate(sequences.mask):
        width = int(mask.sum())
        local = plan[sequences.first[index]: sequences.first[index] + width]
        full = np.zeros(len(mask))
        full[mask] = local
        mixes.append(renormalise(full, mask))
    return mixes


def realisation(sequences: Sequences, mixes: list[np.ndarray]) -> np.ndarray:
    """The realisation plan of behaviour mixes (information sets are numbered parents
    first, so one pass in order suffices)."""
    plan = np.zeros(sequences.count)
    plan[0] = 1.0
    for index, parent in enumerate(sequences.parent):
        mask = sequences.mask[index]
        first = sequences.first[index]
        plan[first: first + int(mask.sum())] = plan[parent] * mixes[index][mask]
    return plan


def best_response_value(tree: Tree, player: str, opponent_plan: np.ndarray,
                        payoff: sp.csr_matrix | None = None) -> float:
    """What ``player`` gets (to himself) by a best response over his information sets
    to the opponent's realisation plan: V(s) = g(s) + sum over the information sets
    following s of the best of their sequences' V, taken from the deepest up."""
    payoff = tree.payoff_matrix() if payoff is None else payoff
    sign = 1.0 if player == "a" else -1.0
    gains = sign * (payoff @ opponent_plan if player == "a" else payoff.T @ opponent_plan)
    sequences = tree.players[player]
    values = np.asarray(gains, dtype=float).copy()
    for index in range(len(sequences.parent) - 1, -1, -1):
        first = sequences.first[index]
        width = int(sequences.mask[index].sum())
        values[sequences.parent[index]] += values[first: first + width].max()
    return float(values[0])


def best_response_mixes(tree: Tree, player: str, opponent_plan: np.ndarray,
                        tie: float = 1e-9) -> tuple[float, list[np.ndarray]]:
    """``best_response_value`` and the play that reaches it: at every information set
    the actions within ``tie`` of the best, evenly."""
    payoff = tree.payoff_matrix()
    sign = 1.0 if player == "a" else -1.0
    values = sign * np.asarray(payoff @ opponent_plan if player == "a"
                               else payoff.T @ opponent_plan, dtype=float)
    sequences = tree.players[player]
    mixes: list = [None] * len(sequences.parent)
    for index in range(len(sequences.parent) - 1, -1, -1):
        mask = sequences.mask[index]
        first = sequences.first[index]
        local = values[first: first + int(mask.sum())]
        best = local.max()
        values[sequences.parent[index]] += best
        mixes[index] = np.zeros(len(mask))
        mixes[index][mask] = local >= best - tie
        mixes[index] /= mixes[index].sum()
    return float(values[0]), mixes


# -- the solution ------------------------------------------------------------------------

@dataclass
class TypeValue:
    """One private type of a player: its prior probability, a start state that shows it,
    and its expected payoff (to that player) under the equilibrium found."""

    player: str
    observation: tuple
    state: object
    prior: float
    value: float


@dataclass
class HiddenSolution:
    """The equilibrium of a game with hidden types.

    ``value`` (to A) is unique; the strategies and the payoff of each type need not be.
    ``plans`` are the realisation plans, ``mixes`` the behaviour mixes by information set.
    """

    game: Game
    tree: Tree
    value: float
    plans: dict[str, np.ndarray]
    mixes: dict[str, list[np.ndarray]]
    exploitability: float
    perfect_recall: dict[str, bool]

    def policy_for(self, player: str) -> TabularPolicy:
        """The equilibrium of ``player`` on his observations (needs perfect recall)."""
        if not self.perfect_recall[player]:
            raise InputError(f"{self.game.info.system}: {player}'s observation forgets part "
                             "of his history, so the equilibrium is not a policy on it")
        sequences = self.tree.players[player]
        table = dict(zip(sequences.observation, self.mixes[player], strict=True))
        return TabularPolicy(table, name=f"hidden-information equilibrium of {player}")

    def node_reach(self) -> np.ndarray:
        """Probability of reaching every decision node under the equilibrium."""
        tree = self.tree
        reach_a = self.plans["a"][np.asarray(tree.node_parent["a"], dtype=np.int64)]
        reach_b = self.plans["b"][np.asarray(tree.node_parent["b"], dtype=np.int64)]
        return np.asarray(tree.node_chance) * reach_a * reach_b

    def __repr__(self) -> str:
        return summary("HiddenSolution", self.game,
                       {"value": self.value, "exploitability": self.exploitability,
                        "decision_points": len(self.tree.node_chance)})

    def root_values(self) -> dict[str, float]:
        """A's expected payoff from each initial outcome (each pair of types), labelled
        by the types (``root_labels``), under the equilibrium found (not unique in
        general), in the order of ``tree.roots``."""
        values = self._root_values()
        return dict(zip(root_labels(self.game, self.tree.roots), map(float, values),
                        strict=True))

    def _root_values(self) -> np.ndarray:
        tree = self.tree
        terms = (np.asarray(tree.leaf_chance) * np.asarray(tree.leaf_payoff)
                 * self.plans["a"][np.asarray(tree.leaf_seq["a"], dtype=np.int64)]
                 * self.plans["b"][np.asarray(tree.leaf_seq["b"], dtype=np.int64)])
        totals = np.bincount(np.asarray(tree.leaf_root, dtype=np.int64), weights=terms,
                             minlength=len(tree.roots))
        return totals / np.array([p for p, _ in tree.roots])

    def belief_entropy(self, about: str) -> list[tuple[float, float]]:
        """By step of the duel: (probability that the step is played, expected entropy in
        bits of the other player's posterior over ``about``'s type at it)."""
        return belief_entropy(self, about)

    def type_values(self, player: str) -> list[TypeValue]:
        """Each type of ``player`` (told apart by his first observation), its prior and
        its expected payoff to him under the equilibrium found."""
        return type_values(self.game, self.tree, self.plans, player)


def root_labels(game: Game, roots) -> list[str]:
    """A label for each initial outcome: the observation fields that tell the outcomes
    apart to each player (his type), ``"A own_kind=1; B own_level=3"``; a number is
    added where two outcomes look alike to both."""
    fields = game.info.observation_fields
    seen = {p: [tuple(int(x) for x in game.observe(state, p)) for _, state in roots]
            for p in ("a", "b")}
    labels = []
    for k in range(len(roots)):
        parts = []
        for p in ("a", "b"):
            told = [f"{fields[i]}={seen[p][k][i]}" for i in range(len(fields))
                    if len({obs[i] for obs in seen[p]}) > 1]
            if told:
                parts.append(f"{p.upper()} {','.join(told)}")
        labels.append("; ".join(parts) or "start")
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    numbered: dict[str, int] = {}
    for k, label in enumerate(labels):
        if counts[label] > 1:
            numbered[label] = numbered.get(label, 0) + 1
            labels[k] = f"{label} #{numbered[label]}"
    return labels


def type_values(game: Game, tree: Tree, plans: dict[str, np.ndarray],
                player: str) -> list[TypeValue]:
    seq_a = np.asarray(tree.leaf_seq["a"], dtype=np.int64)
    seq_b = np.asarray(tree.leaf_seq["b"], dtype=np.int64)
    terms = (np.asarray(tree.leaf_chance) * np.asarray(tree.leaf_payoff)
             * plans["a"][seq_a] * plans["b"][seq_b])
    by_root = np.bincount(np.asarray(tree.leaf_root, dtype=np.int64), weights=terms,
                          minlength=len(tree.roots))
    sign = 1.0 if player == "a" else -1.0
    grouped: dict[tuple, list] = {}
    for root, (probability, state) in enumerate(tree.roots):
        observation = tuple(int(x) for x in game.observe(state, player))
        entry = grouped.setdefault(observation, [state, 0.0, 0.0])
        entry[1] += probability
        entry[2] += sign * by_root[root]
    return [TypeValue(player, obs, state, prior, total / prior)
            for obs, (state, prior, total) in grouped.items()]


def belief_entropy(solution: HiddenSolution, about: str) -> list[tuple[float, float]]:
    """See ``HiddenSolution.belief_entropy``: the posterior at an information set of the
    observer is proportional to the reach of its nodes by ``about``'s type (the
    observer's own factor is the same at all of them)."""
    game, tree = solution.game, solution.tree
    observer = "b" if about == "a" else "a"
    kinds = [tuple(int(x) for x in game.observe(state, about)) for _, state in tree.roots]
    labels = {kind: k for k, kind in enumerate(dict.fromkeys(kinds))}
    kind_of_node = np.array([labels[kinds[r]] for r in tree.node_root], dtype=np.int64)
    reach = solution.node_reach()
    infoset = np.asarray(tree.node_infoset[observer], dtype=np.int64)
    depth = np.asarray(tree.node_depth, dtype=np.int64)
    mass = np.zeros((len(tree.players[observer].parent), len(labels)))
    np.add.at(mass, (infoset, kind_of_node), reach)
    set_depth = np.zeros(len(mass), dtype=np.int64)
    set_depth[infoset] = depth
    totals = mass.sum(axis=1)
    posterior = np.divide(mass, totals[:, None], out=np.zeros_like(mass),
                          where=totals[:, None] > 0)
    logs = np.log2(posterior, out=np.zeros_like(posterior), where=posterior > 0)
    entropy = -(posterior * logs).sum(axis=1)
    result = []
    for d in range(int(depth.max(initial=-1)) + 1):
        at = set_depth == d
        played = totals[at].sum()
        result.append((float(played), float((totals[at] * entropy[at]).sum() / played)
                       if played > 0 else 0.0))
    return result


def _perfect_recall(sequences: Sequences) -> bool:
    return len(set(sequences.observation)) == len(sequences.observation)


def solve_hidden(game: Game, max_nodes: int = MAX_NODES) -> HiddenSolution:
    """The sequence-form equilibrium of ``game`` and its exact exploitability."""
    tree = build_tree(game, max_nodes)
    plans, values = {}, {}
    for player in ("a", "b"):
        plans[player], values[player] = solve_sequence_form(tree, player)
    mixes = {p: behaviour(tree.players[p], plans[p]) for p in ("a", "b")}
    # the plans rebuilt from the mixes: what the returned policies really play
    plans = {p: realisation(tree.players[p], mixes[p]) for p in ("a", "b")}
    gap = exploitability_of(tree, plans)
    recall = {p: _perfect_recall(tree.players[p]) for p in ("a", "b")}
    return HiddenSolution(game, tree, values["a"], plans, mixes, gap, recall)


def exploitability_of(tree: Tree, plans: dict[str, np.ndarray]) -> float:
    """NashConv / 2 of a pair of realisation plans, exactly."""
    payoff = tree.payoff_matrix()
    against_b = best_response_value(tree, "a", plans["b"], payoff)
    against_a = best_response_value(tree, "b", plans["a"], payoff)
    # NashConv: A's best response to B's plan can never score less than what B's best
    # response to A's plan leaves A
    leaves = np.asarray(tree.leaf_payoff, dtype=float)
    payoffs = (float(leaves.min(initial=0.0)), float(leaves.max(initial=0.0)))
    return gain_over(against_b, -against_a, payoffs, "A's best response to B's plan") / 2


def policy_plan(game: Game, tree: Tree, policy: Policy, player: str) -> np.ndarray:
    """The realisation plan of ``policy`` played as ``player`` (on his observations)."""
    sequences = tree.players[player]
    if isinstance(policy, BatchPolicy) and sequences.observation:  # a network: one call
        masks = np.asarray(sequences.mask, dtype=bool)
        probs = policy.batch_probabilities(np.asarray(sequences.observation), masks)
        return realisation(sequences, list(renormalise(probs, masks)))
    mixes = [renormalise(policy.probabilities(obs, mask), mask)
             for obs, mask in zip(sequences.observation, sequences.mask, strict=True)]
    return realisation(sequences, mixes)


def hidden_exploitability(game: Game, policy_a: Policy, policy_b: Policy,
                          max_nodes: int = MAX_NODES) -> tuple[float, float]:
    """(exploitability, value to A) of two policies on observations, exactly."""
    tree = build_tree(game, max_nodes)
    plans = {"a": policy_plan(game, tree, policy_a, "a"),
             "b": policy_plan(game, tree, policy_b, "b")}
    value = float(plans["a"] @ (tree.payoff_matrix() @ plans["b"]))
    return exploitability_of(tree, plans), value
