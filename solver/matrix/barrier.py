"""The barrier Newton method of ``solver.markov.regularized``, game by game, as compiled loops.

Each stage problem is solved on its own (the games of a batch in parallel): Newton
steps on ``dual(y) - mu * sum log y_j`` over the opponent's simplex, the equality kept
in a KKT system, an Armijo line search strictly inside the simplex, ``mu`` shrunk once a
step is centred, until the duality gap certifies the answer. A game whose start is
already settled (a warm start from the same game solved a moment before) takes no step.
The rules and constants are ``solver.markov.regularized``'s, which passes them
in; only the arithmetic moved here (a numpy batch spent most of its time building small
arrays).
"""

from __future__ import annotations

import numba
import numpy as np

#: batches of fewer games run in one thread (a parallel region costs its start-up)
PARALLEL_GAMES = 64


def barrier_newton(Q, p, cols, beta, y, mu, scale, constants, x, value, gap) -> None:
    """Minimise the dual of each game ``Q[b]`` (n, m) from ``y[b]`` (in place) at barrier
    weight ``mu[b]``; ``constants`` are (gap tolerance, mu floor, mu shrink, centred,
    full step, Newton steps, halvings, settled), the first two and the last relative to
    ``scale``: a start whose gap is already below the last takes no step. Writes the
    Gibbs mix ``x[b]`` against the final ``y[b]``, what it guarantees (``value[b]``) and
    the duality gap (``gap[b]``)."""
    run = _in_parallel if len(Q) >= PARALLEL_GAMES else _in_turn
    run(Q, p, cols, beta, y, mu, scale, constants, x, value, gap)


@numba.njit(parallel=True, cache=True)
def _in_parallel(Q, p, cols, beta, y, mu, scale, constants, x, value, gap):
    for b in numba.prange(Q.shape[0]):
        value[b], gap[b] = _solve_one(Q[b], p[b], cols[b], beta, y[b], mu[b], scale,
                                      constants, x[b])


@numba.njit(cache=True)
def _in_turn(Q, p, cols, beta, y, mu, scale, constants, x, value, gap):
    for b in range(Q.shape[0]):
        value[b], gap[b] = _solve_one(Q[b], p[b], cols[b], beta, y[b], mu[b], scale,
                                      constants, x[b])


@numba.njit(cache=True)
def _solve_one(Q, p, cols, beta, y, mu, scale, constants, x):
    """(value, duality gap) of the Gibbs mix ``x`` (written) against ``y`` once it is
    certified (or mu has reached rounding level, or the steps ran out)."""
    gap_tolerance, floor, shrink, centring = constants[0], constants[1], constants[2], constants[3]
    newton_steps = int(constants[5])
    dual = _gibbs(Q, p, y, beta, x)
    value = _guaranteed(Q, x, p, cols, beta)
    if dual - value <= constants[7] * scale:
        return value, dual - value
    for _ in range(newton_steps):
        step, decrement = _newton_step(Q, p, cols, beta, y, mu)
        stalled = _line_search(Q, p, cols, beta, y, mu, step, decrement, constants)
        centred = decrement <= centring * mu or stalled
        dual = _gibbs(Q, p, y, beta, x)
        value = _guaranteed(Q, x, p, cols, beta)
        if dual - value <= gap_tolerance * scale or (centred and mu <= floor * scale):
            break
        if centred:
            mu /= shrink
    return value, dual - value


@numba.njit(cache=True)
def _gibbs(Q, p, y, beta, x) -> float:
    """The Gibbs mix ``x`` against ``y`` (written in place); returns the dual value."""
    n, m = Q.shape
    top = -np.inf
    for i in range(n):
        total = 0.0
        for j in range(m):
            total += Q[i, j] * y[j]
        x[i] = (np.log(p[i]) if p[i] > 0 else -np.inf) + total / beta
        top = max(top, x[i])
    weight = 0.0
    for i in range(n):
        x[i] = np.exp(x[i] - top)
        weight += x[i]
    for i in range(n):
        x[i] /= weight
    return beta * (top + np.log(weight))


@numba.njit(cache=True)
def _guaranteed(Q, x, p, cols, beta) -> float:
    n, m = Q.shape
    worst = np.inf
    for j in range(m):
        if cols[j]:
            total = 0.0
            for i in range(n):
                total += x[i] * Q[i, j]
            worst = min(worst, total)
    kl = 0.0
    for i in range(n):
        if x[i] > 0:
            kl += x[i] * np.log(x[i] / p[i])
    return worst - beta * kl


@numba.njit(cache=True)
def _barrier(Q, p, cols, beta, y, mu, x) -> float:
    logs = 0.0
    for j in range(len(y)):
        if cols[j]:
            if y[j] <= 0:
                return np.inf
            logs += np.log(y[j])
    return _gibbs(Q, p, y, beta, x) - mu * logs


@numba.njit(cache=True)
def _newton_step(Q, p, cols, beta, y, mu):
    """The Newton direction restricted to sum(dy) = 0 and the Newton decrement."""
    n, m = Q.shape
    x = np.empty(n)
    _gibbs(Q, p, y, beta, x)
    gradient = np.zeros(m)
    for i in range(n):
        for j in range(m):
            gradient[j] += x[i] * Q[i, j]
    # the centred payoffs by column, and weighted by x, each computed once (the same
    # products, in the same order, as (Q[i, j] - g[j]) * x[i] * (Q[i, k] - g[k]))
    centred = np.empty((m, n))
    weighted = np.empty((m, n))
    for j in range(m):
        for i in range(n):
            centred[j, i] = Q[i, j] - gradient[j]
            weighted[j, i] = centred[j, i] * x[i]
    kkt = np.zeros((m + 1, m + 1))
    rhs = np.zeros(m + 1)
    for j in range(m):
        if not cols[j]:
            kkt[j, j] = 1.0
            continue
        rhs[j] = -(gradient[j] - mu / y[j])
        kkt[j, m] = 1.0
        kkt[m, j] = 1.0
        for k in range(m):
            if cols[k]:
                total = 0.0
                for i in range(n):
                    total += weighted[j, i] * centred[k, i]
                kkt[j, k] = total / beta
        kkt[j, j] += mu / y[j] ** 2
    solved = _solve_kkt(kkt, rhs)
    step = np.zeros(m)
    decrement = 0.0
    for j in range(m):
        if cols[j]:
            step[j] = solved[j]
            decrement += rhs[j] * step[j]
    return step, max(decrement, 0.0)


@numba.njit(cache=True)
def _solve_kkt(kkt, rhs):
    """Gaussian elimination with partial pivoting (as LAPACK's getrf, without its
    blocking); the pseudo-inverse where a pivot is exactly zero."""
    a, b = kkt.copy(), rhs.copy()
    size = len(b)
    for col in range(size):
        pivot = col
        for row in range(col + 1, size):
            if abs(a[row, col]) > abs(a[pivot, col]):
                pivot = row
        if a[pivot, col] == 0.0:
            return np.linalg.pinv(kkt) @ rhs
        if pivot != col:
            for k in range(size):
                a[col, k], a[pivot, k] = a[pivot, k], a[col, k]
            b[col], b[pivot] = b[pivot], b[col]
        for row in range(col + 1, size):
            factor = a[row, col] / a[col, col]
            if factor != 0.0:
                for k in range(col + 1, size):
                    a[row, k] -= factor * a[col, k]
                b[row] -= factor * b[col]
    for col in range(size - 1, -1, -1):
        total = b[col]
        for k in range(col + 1, size):
            total -= a[col, k] * b[k]
        b[col] = total / a[col, col]
    return b


@numba.njit(cache=True)
def _line_search(Q, p, cols, beta, y, mu, step, decrement, constants) -> bool:
    """Backtracking (Armijo) along ``step`` strictly inside the simplex, ``y`` moved in
    place; True where no step length improved the objective."""
    full_step, halvings = constants[4], int(constants[6])
    x = np.empty(Q.shape[0])
    alpha = 1.0
    for j in range(len(y)):
        if step[j] < 0:
            alpha = min(alpha, 0.99 * (y[j] / -step[j]))
    start = _barrier(Q, p, cols, beta, y, mu, x)
    if decrement <= full_step * (1.0 + abs(start)) and alpha >= 1.0:
        for j in range(len(y)):
            y[j] += step[j]
        return False
    if not decrement > 0:      # nothing to gain (a NaN decrement too, as before)
        return False
    slack = 1e-15 * (1.0 + abs(start))
    trial = np.empty(len(y))
    for _ in range(halvings):
        for j in range(len(y)):
            trial[j] = y[j] + alpha * step[j]
        if _barrier(Q, p, cols, beta, trial, mu, x) <= start - 0.25 * alpha * decrement + slack:
            y[:] = trial
            return False
        alpha *= 0.5
    return True
