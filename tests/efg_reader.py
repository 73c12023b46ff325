"""An independent reader of Gambit ``.efg`` files (the subset a two-player game with
chance uses: ``p``, ``c`` and ``t`` nodes in preorder), and two answers about the tree
read: the expected payoff when both play uniformly at every information set, and the
value by the sequence-form linear program (von Stengel 1996), with scipy alone."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linprog

_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|([{}])|([^\s{}"]+)')


@dataclass
class Node:
    kind: str                     # "p", "c" or "t"
    player: int = 0               # 1 or 2 at a "p" node
    infoset: int = 0
    actions: list[str] = field(default_factory=list)
    probabilities: list[float] = field(default_factory=list)   # at a "c" node
    payoffs: tuple[float, float] = (0.0, 0.0)                  # at a "t" node
    children: list[Node] = field(default_factory=list)


@dataclass
class ExtensiveForm:
    title: str
    players: list[str]
    root: Node


def _tokens(text: str) -> list[tuple[str, str]]:
    found = []
    for quoted, brace, word in _TOKEN.findall(text):
        if brace:
            found.append(("brace", brace))
        elif word:
            found.append(("word", word))
        else:
            found.append(("text", quoted.replace('\\"', '"').replace("\\\\", "\\")))
    return found


def read_efg(text: str) -> ExtensiveForm:
    tokens = _tokens(text)
    position = 0

    def take(kind: str | None = None) -> str:
        nonlocal position
        token_kind, value = tokens[position]
        if kind is not None and token_kind != kind:
            raise ValueError(f"expected {kind} at token {position}, got {value!r}")
        position += 1
        return value

    def group() -> list[str]:
        assert take("brace") == "{"
        items = []
        while tokens[position] != ("brace", "}"):
            items.append(take())
        take("brace")
        return items

    assert take("word") == "EFG" and take("word") == "2" and take("word") == "R"
    title = take("text")
    players = group()
    take("text")   # the comment

    def node() -> Node:
        kind = take("word")
        take("text")   # the node's name
        if kind == "t":
            take("word")
            take("text")
            first, second = (float(x) for x in group())
            return Node("t", payoffs=(first, second))
        if kind == "p":
            player, infoset = int(take("word")), int(take("word"))
            take("text")
            actions = group()
            take("word")   # no outcome at a decision
            found = Node("p", player, infoset, actions)
        else:
            infoset = int(take("word"))
            take("text")
            items = group()
            take("word")   # no outcome at a chance node
            found = Node("c", 0, infoset, items[0::2], [float(p) for p in items[1::2]])
        found.children = [node() for _ in found.actions]
        return found

    return ExtensiveForm(title, players, node())


def uniform_payoff(tree: ExtensiveForm) -> float:
    """Player 1's expected payoff when both play uniformly at every information set."""
    def walk(node: Node) -> float:
        if node.kind == "t":
            return node.payoffs[0]
        weights = (node.probabilities if node.kind == "c"
                   else [1 / len(node.children)] * len(node.children))
        return sum(w * walk(child) for w, child in zip(weights, node.children, strict=True))
    return walk(tree.root)


def sequence_form_value(tree: ExtensiveForm) -> float:
    """The value to player 1: max f'q s.t. E x = e, F'q <= A'x, x >= 0."""
    sequences = {1: {(): 0}, 2: {(): 0}}
    infosets = {1: {}, 2: {}}    # infoset -> (parent sequence, [its sequences])
    payoff: dict[tuple[int, int], float] = {}

    def walk(node: Node, chance: float, at: dict[int, tuple]) -> None:
        if node.kind == "t":
            key = (sequences[1][at[1]], sequences[2][at[2]])
            payoff[key] = payoff.get(key, 0.0) + chance * node.payoffs[0]
            return
        if node.kind == "c":
            for p, child in zip(node.probabilities, node.children, strict=True):
                walk(child, chance * p, at)
            return
        player = node.player
        parent, own = infosets[player].setdefault(node.infoset, (at[player], []))
        assert parent == at[player], "imperfect recall"
        for action, child in zip(node.actions, node.children, strict=True):
            sequence = at[player] + ((node.infoset, action),)
            if sequence not in sequences[player]:
                sequences[player][sequence] = len(sequences[player])
                own.append(sequence)
            walk(child, chance, {**at, player: sequence})

    walk(tree.root, 1.0, {1: (), 2: ()})

    def constraints(player: int) -> np.ndarray:
        index = sequences[player]
        matrix = np.zeros((1 + len(infosets[player]), len(index)))
        matrix[0, 0] = 1.0
        for row, (parent, own) in enumerate(infosets[player].values(), 1):
            matrix[row, index[parent]] = -1.0
            for sequence in own:
                matrix[row, index[sequence]] = 1.0
        return matrix

    e, f = constraints(1), constraints(2)
    a = np.zeros((len(sequences[1]), len(sequences[2])))
    for (i, j), value in payoff.items():
        a[i, j] += value
    n_x, n_q = e.shape[1], f.shape[0]
    objective = np.concatenate([np.zeros(n_x), -np.eye(n_q)[0]])
    upper = np.hstack([-a.T, f.T])
    equal = np.hstack([e, np.zeros((e.shape[0], n_q))])
    target = np.eye(e.shape[0])[0]
    bounds = [(0, None)] * n_x + [(None, None)] * n_q
    found = linprog(objective, A_ub=upper, b_ub=np.zeros(f.shape[1]), A_eq=equal,
                    b_eq=target, bounds=bounds, method="highs")
    assert found.status == 0, found.message
    return -found.fun
