"""The maximum-entropy optimal mix of each player of a batch of matrix games.

Among all optimal mixes of a player (a polytope, the optimal face) the one of
maximum Shannon entropy is unique, and it is what the project reports wherever a
statistic depends on which equilibrium is played.

Both players are handled the same way: the column player of ``A`` is the row
player of ``1 - A.T`` (payoffs here are already mapped onto [0, 1]), so a batch of
G games becomes 2G "row player" problems, problem k paired with k + G.

For one problem with payoffs P, value v and LP mixes (x*, q*):
1. S, the maximal support of the optimal mixes, is supp(x*) plus those other rows
   that are best replies to q* and that some optimal mix can use. Whether one can
   is settled by first-order certificates where possible (``_usable_rows``,
   ``_unusable_rows``), otherwise by one LP over the cone of optimal mixes
   (``_cone_supports``).
2. T, the maximal support of the opponent, comes from the paired problem. By
   complementary slackness every optimal x has x.P_j = v for j in T, and for j not
   in T some optimal x has x.P_j > v (Goldman-Tucker).
3. If the rows S and the equations {x.P_j = v, j in T; sum x = 1} pin down one
   point, the face is that point and x* is the answer. The caller usually knows
   this already from the final simplex basis (nondegenerate: true for almost every
   game with real-valued payoffs), and such games are skipped altogether.
4. Otherwise maximise entropy on S subject to x.(P_j - P_k) = 0 for j in T (k a
   fixed member of T; this form does not depend on the rounding in v) and
   x.(P_j - v) >= 0 for j not in T. Its dual, min logsumexp(D lam) with lam >= 0 on
   the inequality columns, is attained because the face meets the relative
   interior of the simplex on S; x = softmax(D lam). Solved by projected Newton.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from ..errors import RefinementWarning
from .simplex import primal_values, solve_lps

#: probabilities above this count as part of an LP mix's support
SUPPORT_TOL = 1e-11
#: payoff differences below this (payoffs are in [0, 1]) are ties; a row scoring
#: further below the value against q* is not a best reply
GAP_TOL = 1e-9
#: singular values below this count as zero in the uniqueness test
RANK_TOL = 1e-9
#: Newton stops when every KKT residual is below this (payoff units of [0, 1])
KKT_TOL = 1e-12
#: results with a KKT residual above this are not trusted
ACCEPT_TOL = 1e-10
MAX_NEWTON = 100
#: the step lengths tried by the line search, all at once: 1, 1/2, 1/4, ...
STEPS = 0.5 ** np.arange(24)


class Problems(NamedTuple):
    """2G row-player problems padded to a common square size."""

    payoff: np.ndarray  # (K, s, s)
    value: np.ndarray  # (K,)
    mine: np.ndarray  # (K, s) the LP mix of the player
    theirs: np.ndarray  # (K, s) the LP mix of the opponent
    rows: np.ndarray  # (K, s) legal rows (the player's actions)
    cols: np.ndarray  # (K, s) legal columns (the opponent's actions)


def max_entropy_mixes(unit: np.ndarray, rmask: np.ndarray, cmask: np.ndarray,
                      row: np.ndarray, col: np.ndarray, value: np.ndarray,
                      unique: tuple[np.ndarray, np.ndarray] | None = None,
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Max-entropy optimal (row, col) mixes of games with payoffs ``unit`` in [0, 1].

    ``row``/``col`` are optimal mixes and ``value`` the game values; ``unique`` may
    flag, per player, the games whose given mix is already known to be the only
    optimal one (no work is done for those). A mix whose refinement fails stays
    the given one, with a warning.
    """
    games = len(unit)
    settled = np.zeros((2, games), dtype=bool) if unique is None else np.stack(unique)
    todo = np.flatnonzero(~settled.all(axis=0))
    row, col = row.copy(), col.copy()
    if todo.size:
        row[todo], col[todo] = _refine(unit[todo], rmask[todo], cmask[todo], row[todo],
                                       col[todo], value[todo], settled[:, todo].ravel())
    return row, col


def _refine(unit, rmask, cmask, row, col, value,
            settled: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    games, m, n = unit.shape
    prob = _stack(unit, rmask, cmask, row, col, value)
    support, found = _max_supports(prob, settled)
    other = np.roll(support, games, axis=0)
    found &= np.roll(found, games)  # T of a problem is its partner's support
    check = np.flatnonzero(found & ~settled)
    refine = np.zeros(len(found), dtype=bool)
    refine[check] = ~_single_point(prob.payoff[check], support[check], other[check])
    mixes = prob.mine.copy()
    todo = np.flatnonzero(refine)
    if todo.size:
        mixes[todo], ok = _max_entropy_on_face(prob, todo, support[todo], other[todo])
        found[todo] = ok
        mixes[todo[~ok]] = prob.mine[todo[~ok]]
    if not found.all():
        warnings.warn(RefinementWarning(int((~found).sum())), stacklevel=4)
    return mixes[:games, :m], mixes[games:, :n]


def _stack(unit, rmask, cmask, row, col, value) -> Problems:
    games, m, n = unit.shape
    s = max(m, n)
    payoff = np.zeros((2 * games, s, s))
    payoff[:games, :m, :n] = unit
    legal = rmask[:, :, None] & cmask[:, None, :]
    payoff[games:, :n, :m] = np.where(legal, 1.0 - unit, 0.0).transpose(0, 2, 1)

    def pad(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = np.zeros((2 * games, s), dtype=a.dtype)
        out[:games, :a.shape[1]] = a
        out[games:, :b.shape[1]] = b
        return out

    return Problems(payoff, np.r_[value, 1.0 - value], pad(row, col), pad(col, row),
                    pad(rmask, cmask), pad(cmask, rmask))


def _max_supports(prob: Problems, settled: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maximal support of each problem's optimal mixes, and whether it was found.

    A ``settled`` problem has a single optimal mix, so its support is that mix's.
    Otherwise the rows tied with the value against q* but unused by x* are unsure;
    cheap certificates settle most of them, one LP per problem the rest.
    """
    support = prob.mine > SUPPORT_TOL
    against = np.einsum("kij,kj->ki", prob.payoff, prob.theirs)
    candidate = prob.rows & (against >= prob.value[:, None] - GAP_TOL)
    unsure = candidate & ~support & ~settled[:, None]
    found = np.ones(len(support), dtype=bool)
    need = np.flatnonzero(unsure.any(axis=1))
    if need.size:
        sure = _usable_rows(prob, need, unsure[need], support[need])
        support[need] |= sure
        # rows x* uses stay, whatever rounding makes of the certificate
        candidate[need] &= support[need] | ~_unusable_rows(prob, need, candidate[need])
        unsure[need] &= ~sure & candidate[need]
        need = np.flatnonzero(unsure.any(axis=1))
    if need.size:
        extra, ok = _cone_supports(prob.payoff[need], prob.value[need], candidate[need],
                                   unsure[need], prob.cols[need])
        support[need] |= extra
        found[need] = ok
    return support, found


def _unusable_rows(prob: Problems, need: np.ndarray, tied: np.ndarray) -> np.ndarray:
    """Rows that no optimal mix uses, certified without an LP.

    The mirror image of ``_usable_rows`` for the opponent: moving a little of q*
    onto column c keeps q* optimal if no tied row gains by it, and then every row
    that loses by the move scores below v against an optimal q, so no optimal x
    uses it (complementary slackness).
    """
    payoff, value = prob.payoff[need], prob.value[need]
    used = prob.theirs[need] > SUPPORT_TOL
    loose = ~tied[:, :, None]
    # moving weight onto column c from the whole of q*, then from one used column c2
    into_mix = prob.cols[need] & np.all(loose | (payoff <= value[:, None, None] + GAP_TOL), axis=1)
    below = payoff < value[:, None, None] - GAP_TOL
    shifts = payoff[:, :, :, None] - payoff[:, :, None, :]  # row i, to column c, from c2
    safe = np.all(loose[..., None] | (shifts <= GAP_TOL), axis=1) & used[:, None, :]
    safe &= prob.cols[need][:, :, None]
    hurt = np.any(safe[:, None] & (shifts < -GAP_TOL), axis=(2, 3))
    return np.any(into_mix[:, None, :] & below, axis=2) | hurt


def _usable_rows(prob: Problems, need: np.ndarray, unsure: np.ndarray,
                 support: np.ndarray) -> np.ndarray:
    """Unsure rows that an optimal mix can certainly use, without an LP.

    Shifting a little weight onto row i keeps x* optimal if, on every column where
    x* scores exactly v, row i scores at least v (mixing i into x*) or at least as
    much as some row r that x* uses (moving weight from r to i). This settles
    duplicated and weakly better rows, the usual source of unsure rows.
    """
    payoff, mine, value = prob.payoff[need], prob.mine[need], prob.value[need]
    scores = np.einsum("ki,kij->kj", mine, payoff)
    binding = prob.cols[need] & (scores <= value[:, None] + GAP_TOL)
    slack = ~binding[:, None, :]
    into_mix = np.all(slack | (payoff >= value[:, None, None] - GAP_TOL), axis=2)
    at_least = payoff[:, :, None, :] >= payoff[:, None, :, :] - GAP_TOL
    beats = np.all(slack[:, :, None, :] | at_least, axis=3)
    from_row = np.any(beats & support[:, None, :], axis=2)
    return unsure & (into_mix | from_row)


def _cone_supports(payoff: np.ndarray, value: np.ndarray, candidate: np.ndarray,
                   unsure: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which ``unsure`` rows some optimal mix uses: max sum z, z <= x, z <= 1 over the
    cone {x >= 0 on candidate rows, x.(P_j - v) >= 0}; z_i ends at 1 exactly on
    the rows of the maximal support (scale up a mix of full support)."""
    count, s, _ = payoff.shape
    idx = np.arange(s)
    flag = unsure.astype(float)
    G = np.zeros((count, 2 * s + s, 2 * s))
    G[:, idx, idx] = -flag
    G[:, idx, s + idx] = flag
    G[:, s + idx, s + idx] = flag
    slack = value[:, None, None] - payoff
    # exact zeros where v equals a payoff up to rounding keep the cone from collapsing
    slack[np.abs(slack) < GAP_TOL] = 0.0
    use = candidate[:, :, None] & cols[:, None, :]
    G[:, 2 * s:, :s] = np.where(use, slack, 0.0).transpose(0, 2, 1)
    b = np.zeros((count, 3 * s))
    b[:, s:2 * s] = flag
    c = np.concatenate([np.zeros((count, s)), flag], axis=1)
    tableaux = solve_lps(G, b, c, bounded=True)
    z = primal_values(tableaux, 2 * s)[:, s:]
    return unsure & (z > 0.5), tableaux.ok


def _single_point(payoff: np.ndarray, support: np.ndarray, other: np.ndarray) -> np.ndarray:
    """True where {x on S : sum x = 1, x.P_j = v for j in T} is one point: the
    matrix [P_ST | 1] has full row rank |S|. Then the optimal face is that point."""
    block = np.where(support[:, :, None] & other[:, None, :], payoff, 0.0)
    augmented = np.concatenate([block, support[:, :, None].astype(float)], axis=2)
    singular = np.linalg.svd(augmented, compute_uv=False)
    return (singular > RANK_TOL).sum(axis=1) == support.sum(axis=1)


def _max_entropy_on_face(prob: Problems, todo: np.ndarray, support: np.ndarray,
                         other: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    payoff, value = prob.payoff[todo], prob.value[todo]
    cols = prob.cols[todo]
    k = np.arange(len(todo))
    ref = payoff[k, :, np.argmax(other, axis=1)]
    D = np.where(other[:, None, :], payoff - ref[:, :, None], payoff - value[:, None, None])
    D = np.where(support[:, :, None] & cols[:, None, :], D, 0.0)
    return _projected_newton(D, support, cols & ~other)


def _projected_newton(D: np.ndarray, support: np.ndarray,
                      bounded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """min_lam logsumexp over S of D lam, lam >= 0 where ``bounded``; returns softmax.

    Bertsekas' projected Newton: variables at their bound with a positive gradient
    are held there, the rest take a (slightly regularised) Newton step, and the
    step length is chosen by an Armijo search along the projection arc.
    """
    count, _, n = D.shape
    lam = np.zeros((count, n))
    out = np.zeros(support.shape)
    residual = np.full(count, np.inf)
    ids = np.arange(count)
    Dt = D.transpose(0, 2, 1)
    floor = np.where(support, 0.0, -np.inf)
    f, p = _logsumexp(floor)
    for _ in range(MAX_NEWTON):
        g = (p[:, None, :] @ D)[:, 0]
        res = np.abs(np.where(bounded, np.minimum(lam, g), g)).max(axis=1)
        done = res <= KKT_TOL
        if done.any():
            out[ids[done]], residual[ids[done]] = p[done], res[done]
            keep = ~done
            if not keep.any():
                return out, residual <= ACCEPT_TOL
            D, Dt, floor, bounded, ids = D[keep], Dt[keep], floor[keep], bounded[keep], ids[keep]
            lam, f, p, g, res = lam[keep], f[keep], p[keep], g[keep], res[keep]
        held = bounded & (lam <= np.minimum(res, 1e-6)[:, None]) & (g > 0)
        step = _newton_step(D, Dt, p, g, held, res)
        lam, f, p = _line_search(Dt, floor, bounded, lam, f, g, step)
    out[ids], residual[ids] = p, res
    return out, residual <= ACCEPT_TOL


def _newton_step(D: np.ndarray, Dt: np.ndarray, p: np.ndarray, g: np.ndarray,
                 held: np.ndarray, res: np.ndarray) -> np.ndarray:
    """Newton direction on the free variables; the Hessian of logsumexp is the
    covariance of the columns of D under p, singular when columns are dependent,
    hence a Levenberg-Marquardt term that shrinks with the residual."""
    H = (Dt * p[:, None, :]) @ D - g[:, :, None] * g[:, None, :]
    free = ~held
    if held.any():
        H = np.where(free[:, :, None] & free[:, None, :], H, 0.0)
        g = np.where(free, g, 0.0)
    # held variables have a zero row and gradient, so any positive diagonal fixes them
    diagonal = np.einsum("kjj->kj", H)
    diagonal += (1e-12 + 1e-3 * np.minimum(res, 1.0))[:, None]
    return np.linalg.solve(H, -g[:, :, None])[:, :, 0]


def _line_search(Dt: np.ndarray, floor: np.ndarray, bounded: np.ndarray, lam: np.ndarray,
                 f: np.ndarray, g: np.ndarray,
                 step: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The new point, its objective and softmax: the full step where it passes Armijo
    along the projection arc (nearly always, once close), else the longest of STEPS
    that does. The tiny slack lets the last, quadratically convergent steps pass
    once f no longer resolves the decrease in floating point."""
    trial, ft, pt = _trials(Dt, floor, bounded, lam, step[:, None, :])
    passed = _armijo(trial, ft, lam, f, g)[:, 0]
    if not passed.all():
        redo = ~passed
        ladder = STEPS[None, 1:, None] * step[redo, None, :]
        trials, fts, pts = _trials(Dt[redo], floor[redo], bounded[redo], lam[redo], ladder)
        ok = _armijo(trials, fts, lam[redo], f[redo], g[redo])
        first = np.where(ok.any(axis=1), np.argmax(ok, axis=1), len(STEPS) - 2)
        pick = np.arange(len(first)), first
        trial[redo, 0], ft[redo, 0], pt[redo, 0] = trials[pick], fts[pick], pts[pick]
    return trial[:, 0], ft[:, 0], pt[:, 0]


def _trials(Dt: np.ndarray, floor: np.ndarray, bounded: np.ndarray, lam: np.ndarray,
            steps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Projected points lam + steps (K, T, n), their objectives and softmaxes."""
    trial = lam[:, None, :] + steps
    trial = np.where(bounded[:, None, :], np.maximum(trial, 0.0), trial)
    ft, pt = _logsumexp(trial @ Dt + floor[:, None, :])
    return trial, ft, pt


def _armijo(trial: np.ndarray, ft: np.ndarray, lam: np.ndarray, f: np.ndarray,
            g: np.ndarray) -> np.ndarray:
    decrease = np.einsum("ktj,kj->kt", trial - lam[:, None, :], g)
    # f is a logsumexp of moderate logits, so an absolute slack of a few ulps is enough
    return ft <= f[:, None] + 1e-4 * decrease + 1e-14


def _logsumexp(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    top = logits.max(axis=-1, keepdims=True)
    weights = np.exp(logits - top)
    total = weights.sum(axis=-1, keepdims=True)
    return (top + np.log(total))[..., 0], weights / total
