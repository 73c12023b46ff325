"""`duel dice`: exact odds of a dice expression, a threshold, an opposed roll or a d20 check."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from fractions import Fraction

from envs.d20 import DEGREES, degrees_of_success
from solver.dice import Distribution, margin, parse_expression
from solver.errors import InputError


def run(args: argparse.Namespace) -> int:
    """Print the requested odds; bad input raises InputError."""
    title, tables, document = _answer(args)
    if args.json:
        print(json.dumps(document, indent=2))
    else:
        print(title)
        for table in tables:
            print()
            print(table)
    return 0


def document(args: argparse.Namespace) -> dict:
    """The one document ``duel dice --json`` prints (the web's ``POST /api/dice`` too)."""
    return _answer(args)[2]


def _answer(args: argparse.Namespace) -> tuple[str, list[str], dict]:
    if args.dc:
        return _degrees(args.expression, args.dc)
    if args.vs is not None:
        return _opposed(args.expression, args.vs)
    if args.at_least:
        return _thresholds(args.expression, args.at_least)
    return _full(args.expression)


# --- the four forms: each returns (title, text tables, JSON document)


def _full(text: str) -> tuple[str, list[str], dict]:
    expression = parse_expression(text)
    dist = expression.distribution()
    title = f"{expression}: mean {_fraction_and_float(dist.mean())}, {dist.denominator} outcomes"
    headers = ["total", "P(=)", "%", "P(>=)", "%"]
    document = {
        "expression": str(expression),
        "mean": _exact(dist.mean()),
        "denominator": dist.denominator,
        "outcomes": _outcomes(dist, "total"),
    }
    return title, [_table(headers, _distribution_rows(dist))], document


def _thresholds(text: str, thresholds: Sequence[int]) -> tuple[str, list[str], dict]:
    expression = parse_expression(text)
    dist = expression.distribution()
    chances = [(t, dist.probability_at_least(t)) for t in thresholds]
    rows = [[str(t), str(p), _percent(p)] for t, p in chances]
    document = {
        "expression": str(expression),
        "at_least": [{"threshold": t, "probability": _exact(p)} for t, p in chances],
    }
    return str(expression), [_table(["at least", "P", "%"], rows)], document


def _opposed(text_a: str, text_b: str) -> tuple[str, list[str], dict]:
    a, b = parse_expression(text_a), parse_expression(text_b)
    diff = margin(a.distribution(), b.distribution())
    summary = {
        "a_wins": diff.probability_at_least(1),
        "tie": diff.probability(0),
        "b_wins": diff.probability_at_most(-1),
    }
    labels = {"a_wins": "A > B", "tie": "A = B", "b_wins": "A < B"}
    rows = [[labels[key], str(p), _percent(p)] for key, p in summary.items()]
    document = {
        "a": str(a),
        "b": str(b),
        **{key: _exact(p) for key, p in summary.items()},
        "margin_mean": _exact(diff.mean()),
        "margin": _outcomes(diff, "margin"),
    }
    tables = [
        _table(["result", "P", "%"], rows),
        _table(["A - B", "P(=)", "%", "P(>=)", "%"], _distribution_rows(diff)),
    ]
    return f"A = {a} vs B = {b}", tables, document


def _degrees(text: str, dcs: Sequence[int]) -> tuple[str, list[str], dict]:
    expression = parse_expression(text)
    if not expression.is_single_d20():
        raise InputError(f"--dc needs a single d20 check such as d20+9, got {text!r}")
    modifier = expression.modifier
    checks = [(dc, degrees_of_success(modifier, dc)) for dc in dcs]
    headers = ["DC", *(name.replace("_", " ") for name in DEGREES), "success or better"]
    rows = [
        [str(dc), *(_cell(p) for p in chances.values()), _cell(_success_or_better(chances))]
        for dc, chances in checks
    ]
    document = {
        "expression": str(expression),
        "modifier": modifier,
        "checks": [
            {
                "dc": dc,
                **{name: _exact(p) for name, p in chances.items()},
                "success_or_better": _exact(_success_or_better(chances)),
            }
            for dc, chances in checks
        ],
    }
    return str(expression), [_table(headers, rows)], document


# --- formatting


def _success_or_better(chances: dict[str, Fraction]) -> Fraction:
    return chances["critical_success"] + chances["success"]


def _distribution_rows(dist: Distribution) -> list[list[str]]:
    return [
        [str(k), str(p), _percent(p), str(at_least), _percent(at_least)]
        for k, p, at_least in _with_at_least(dist)
    ]


def _outcomes(dist: Distribution, key: str) -> list[dict]:
    return [
        {key: k, "probability": _exact(p), "at_least": _exact(at_least)}
        for k, p, at_least in _with_at_least(dist)
    ]


def _with_at_least(dist: Distribution) -> list[tuple[int, Fraction, Fraction]]:
    # One pass from the top keeps the "at least" column linear in the number of totals.
    rows, tail = [], 0
    for k, count in reversed(dist.counts().items()):
        tail += count
        rows.append((k, Fraction(count, dist.denominator), Fraction(tail, dist.denominator)))
    return rows[::-1]


def _exact(p: Fraction) -> dict:
    return {"fraction": str(p), "float": float(p)}


def _fraction_and_float(p: Fraction) -> str:
    return str(p) if p.denominator == 1 else f"{p} ({float(p):.4g})"


def _percent(p: Fraction) -> str:
    # Two decimals would print a possible total as 0.00% or a failure-prone one as 100.00%.
    if 0 < p < Fraction(1, 20000):
        return "<0.01%"
    if Fraction(19999, 20000) < p < 1:
        return ">99.99%"
    return f"{float(p) * 100:.2f}%"


def _cell(p: Fraction) -> str:
    return f"{p} ({_percent(p)})"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=False)]
    lines = [headers, *rows]
    return "\n".join(
        "  ".join(cell.rjust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )
