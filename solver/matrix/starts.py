"""The warm start of ``solver.matrix.lp`` as compiled loops: each game of a batch tried on
its start's supports, then on those of the game before it where that one settled (the
same core one point earlier: a near game), then on its own saddle point, then on
supports one pivot from its start's (``_repaired``), kept only where the pair is
strictly complementary (see ``started``).

The games come as (cores, rows, cols, points), the layout of a counter game's stage
games (``solver.counters.stage_rules``), so they are read where they are: the games of one core
at consecutive points lie side by side, and their bounds are taken together, vectorised
over the points. A plain batch (games, rows, cols) is the same with one point.

The tolerances are arguments, not globals: a compiled global is frozen into the cache,
which does not notice when ``solver.matrix.lp`` changes its value. Indices are cast to
unsigned where the compiler cannot see they are not negative (as in
``solver.counters.sums``): a signed index is checked for wrapping around, which keeps the
bounds' loop over the points from being vectorised (twice as slow).
"""

from __future__ import annotations

import numba
import numpy as np

#: games taken together: their scratch shared, each core's points' bounds vectorised
CHUNK = 64

_U = np.uint64


@numba.njit(cache=True)
def _bounds(games, core, first, count, rows, cols, full, low, high):
    """The least and greatest legal payoff of the points ``first`` .. ``first + count``
    of ``core`` (games ``core * points + first`` on) into ``low``, ``high`` there."""
    m, n, width = games.shape[1], games.shape[2], games.shape[3]
    g = core * width + first
    for p in range(count):
        low[g + p], high[g + p] = np.inf, -np.inf
    for a in range(m):
        for b in range(n):
            for p in range(count):
                if full or (rows[g + p, a] and cols[g + p, b]):
                    x = games[core, a, b, _U(first + p)]
                    low[_U(g + p)] = min(x, low[_U(g + p)])
                    high[_U(g + p)] = max(x, high[_U(g + p)])


@numba.njit(cache=True)
def _saddle(games, core, point, rows, cols, g, r, c, margin):
    """Whether (``r``, ``c``) is a strict saddle point of the game beyond ``margin``."""
    value = games[core, r, c, point]
    for a in range(games.shape[1]):
        if a != r and rows[g, a] and not games[core, a, c, point] < value - margin:
            return False
    for b in range(games.shape[2]):
        if b != c and cols[g, b] and not games[core, r, b, point] > value + margin:
            return False
    return True


@numba.njit(cache=True)
def _own_saddle(games, core, point, rows, cols, g):
    """The row of the game's greatest least payoff and the column of its least greatest
    one (the first of ties, as numpy's argmax and argmin)."""
    m, n = games.shape[1], games.shape[2]
    best_row, row_at, best_col, col_at = -np.inf, 0, np.inf, 0
    for a in range(m):
        if rows[g, a]:
            worst = np.inf
            for b in range(n):
                if cols[g, b]:
                    worst = min(worst, games[core, a, b, point])
            if worst > best_row:
                best_row, row_at = worst, a
    for b in range(n):
        if cols[g, b]:
            worst = -np.inf
            for a in range(m):
                if rows[g, a]:
                    worst = max(worst, games[core, a, b, point])
            if worst < best_col:
                best_col, col_at = worst, b
    return row_at, col_at


@numba.njit(cache=True)
def _inverse(matrix, size, inverse, limit):
    """``inverse`` of the leading ``size`` square of ``matrix`` (overwritten) by
    Gauss-Jordan elimination with partial pivoting; False where a pivot is exactly 0
    or the inverse's largest absolute row sum is not within ``limit``."""
    for a in range(size):
        for b in range(size):
            inverse[a, b] = 1.0 if a == b else 0.0
    for p in range(size):
        pivot, at = abs(matrix[p, p]), p
        for a in range(p + 1, size):
            if abs(matrix[a, p]) > pivot:
                pivot, at = abs(matrix[a, p]), a
        if pivot == 0.0:
            return False
        if at != p:
            for b in range(size):
                matrix[p, b], matrix[at, b] = matrix[at, b], matrix[p, b]
                inverse[p, b], inverse[at, b] = inverse[at, b], inverse[p, b]
        scale = 1.0 / matrix[p, p]
        for b in range(size):
            matrix[p, b] *= scale
            inverse[p, b] *= scale
        for a in range(size):
            if a != p and matrix[a, p] != 0.0:
                factor = matrix[a, p]
                for b in range(size):
                    matrix[a, b] -= factor * matrix[p, b]
                    inverse[a, b] -= factor * inverse[p, b]
    for a in range(size):
        total = 0.0
        for b in range(size):
            total += abs(inverse[a, b])
        if not total <= limit:   # nan too
            return False
    return True


@numba.njit(cache=True)
def _support(legal, g, start, s, unique, on, inside):
    """Game ``g``'s legal actions weighing more than ``unique`` in row ``s`` of
    ``start``, listed in ``on`` and marked in ``inside``; how many."""
    count = 0
    for a in range(legal.shape[1]):
        inside[a] = legal[g, a] and start[s, a] > unique
        if inside[a]:
            on[count] = a
            count += 1
    return count


@numba.njit(cache=True)
def _mixed(games, core, point, rows, cols, g, on_rows, on_cols, in_rows, in_cols, size,
           unit_map, margins, scratch, row, col):
    """The pair equalising the game on its supports (the first ``size`` of ``on_rows``,
    ``on_cols``) written into rows ``g`` of ``row``, ``col`` and its value returned, or
    nan where it is not strictly complementary (the written weights are then cleared).
    The square system is solved on the payoffs mapped as ``solver.matrix._normalise``
    maps them, shifted by 1 (the simplex's own system)."""
    margin, tolerance, unique, inverse_limit = margins
    value = _equalised(games, core, point, g, on_rows, on_cols, size, unit_map,
                       inverse_limit, scratch, row, col)
    if np.isnan(value):
        return np.nan
    if _complementary(rows, cols, g, in_rows, in_cols, row, col, scratch[2], scratch[3],
                      value, margin, tolerance, unique):
        return value
    _clear(g, on_rows, on_cols, size, row, col)
    return np.nan


@numba.njit(cache=True, inline="always")
def _equalised(games, core, point, g, on_rows, on_cols, size, unit_map, inverse_limit,
               scratch, row, col):
    """The pair equalising the game on its supports (as ``_mixed``), written into rows
    ``g`` of ``row``, ``col``, each action's score into the scratch, and its value
    returned, unchecked; nan, with nothing written, where the system has no such pair."""
    low, stretch, grid = unit_map
    block, inverse, row_scores, col_scores = scratch
    if size == 1:
        row[g, on_rows[0]], col[g, on_cols[0]] = 1.0, 1.0
    else:
        for s in range(size):
            for t in range(size):
                unit = np.rint((games[core, on_rows[s], on_cols[t], point] - low)
                               / stretch / grid)
                block[s, t] = unit * grid + 1.0
        if not (_inverse(block, size, inverse, inverse_limit)
                and _equalising(inverse, size, g, on_rows, on_cols, row, col)):
            return np.nan
    return _scores(games, core, point, g, on_rows, on_cols, size, row, col, row_scores,
                   col_scores)


@numba.njit(cache=True)
def _clear(g, on_rows, on_cols, size, row, col):
    for s in range(size):
        row[g, on_rows[s]], col[g, on_cols[s]] = 0.0, 0.0


@numba.njit(cache=True)
def _equalising(inverse, size, g, on_rows, on_cols, row, col):
    """The mixes equalising a square game from the ``inverse`` of its payoffs: the column
    mix is the inverse's row sums, the row mix its column sums, each over their total,
    written into rows ``g`` of ``row``, ``col``. False, with nothing written, where the
    total is 0: no mix equalises both sides (the equalising value is infinite)."""
    total = 0.0
    for t in range(size):
        for s in range(size):
            total += inverse[t, s]
    if total == 0.0:
        return False
    for t in range(size):
        weight = 0.0
        for s in range(size):
            weight += inverse[t, s]
        col[g, on_cols[t]] = weight / total
    for s in range(size):
        weight = 0.0
        for t in range(size):
            weight += inverse[t, s]
        row[g, on_rows[s]] = weight / total
    return True


@numba.njit(cache=True)
def _scores(games, core, point, g, on_rows, on_cols, size, row, col, row_scores, col_scores):
    """Each row's payoff against the column mix, each column's against the row mix (both
    on their supports), into ``row_scores``, ``col_scores``; the pair's value."""
    m, n = games.shape[1], games.shape[2]
    for a in range(m):
        score = 0.0
        for t in range(size):
            score += games[core, a, on_cols[t], point] * col[g, on_cols[t]]
        row_scores[a] = score
    value = 0.0
    for s in range(size):
        value += row[g, on_rows[s]] * row_scores[on_rows[s]]
    for b in range(n):
        col_scores[b] = 0.0
    for s in range(size):
        weight = row[g, on_rows[s]]
        for b in range(n):
            col_scores[b] += weight * games[core, on_rows[s], b, point]
    return value


@numba.njit(cache=True)
def _complementary(rows, cols, g, in_rows, in_cols, row, col, row_scores, col_scores, value,
                   margin, tolerance, unique):
    """Weights beyond ``unique`` on the supports (``in_rows``, ``in_cols``), every other
    legal row below ``value`` and column above it by more than ``margin``, the supports'
    scores within ``tolerance`` of it."""
    for a in range(rows.shape[1]):
        gap = row_scores[a] - value
        if in_rows[a]:
            if not (row[g, a] > unique and abs(gap) <= tolerance):
                return False
        elif rows[g, a] and not gap < -margin:
            return False
    for b in range(cols.shape[1]):
        gap = col_scores[b] - value
        if in_cols[b]:
            if not (col[g, b] > unique and abs(gap) <= tolerance):
                return False
        elif cols[g, b] and not gap > margin:
            return False
    return True


@numba.njit(cache=True)
def _game(games, core, point, rows, cols, start_row, start_col, g, previous, low, high,
          tolerances, supports, scratch, row, col):
    """Game ``g`` (see ``started``): whether it is settled, and its value. With
    ``previous``, the game before it (the same core one point earlier) is settled: its
    supports are tried too, after the start's."""
    unique, constant_tol, _, _, scale_above = tolerances
    magnitude = max(abs(low), abs(high))
    span = high - low
    if (magnitude > scale_above or 0.0 < magnitude < 1.0 / scale_above
            or span <= constant_tol * magnitude):
        return False, 0.0  # extreme games are rescaled first; constant ones have a closed form
    margin = unique * span + constant_tol * magnitude
    bounds = (low, span, magnitude, margin)
    settled, value = _on_supports(games, core, point, rows, cols, g, start_row, start_col, g,
                                  bounds, tolerances, supports, scratch, row, col)
    if not settled and previous:
        settled, value = _on_supports(games, core, point, rows, cols, g, row, col, g - 1,
                                      bounds, tolerances, supports, scratch, row, col)
    if settled:
        return True, value
    r, c = _own_saddle(games, core, point, rows, cols, g)
    if _saddle(games, core, point, rows, cols, g, r, c, margin):
        row[g, r], col[g, c] = 1.0, 1.0
        return True, games[core, r, c, point]
    return _repaired(games, core, point, rows, cols, g, start_row, start_col, bounds,
                     tolerances, supports, scratch, row, col)


@numba.njit(cache=True)
def _on_supports(games, core, point, rows, cols, g, start_row, start_col, s, bounds,
                 tolerances, supports, scratch, row, col):
    """Game ``g`` tried on the supports of row ``s`` of ``start_row``, ``start_col``:
    whether it settles there, and its value."""
    unique = tolerances[0]
    on_rows, on_cols, in_rows, in_cols = supports
    size = _support(rows, g, start_row, s, unique, on_rows, in_rows)
    if size != _support(cols, g, start_col, s, unique, on_cols, in_cols):
        return False, 0.0
    return _settles_on(games, core, point, rows, cols, g, size, bounds, tolerances, supports,
                       scratch, row, col)


@numba.njit(cache=True, inline="always")
def _settles_on(games, core, point, rows, cols, g, size, bounds, tolerances, supports,
                scratch, row, col):
    """Game ``g`` tried on the supports listed in ``supports`` (``size`` actions each)."""
    magnitude, margin = bounds[2], bounds[3]
    unique, _, regret_tol, inverse_limit, _ = tolerances
    on_rows, on_cols, in_rows, in_cols = supports
    if size == 1:
        if _saddle(games, core, point, rows, cols, g, on_rows[0], on_cols[0], margin):
            row[g, on_rows[0]], col[g, on_cols[0]] = 1.0, 1.0
            return True, games[core, on_rows[0], on_cols[0], point]
    elif size > 1:
        value = _mixed(games, core, point, rows, cols, g, on_rows, on_cols, in_rows, in_cols,
                       size, _unit_map(bounds, tolerances),
                       (margin, regret_tol * max(1.0, magnitude), unique, inverse_limit),
                       scratch, row, col)
        if not np.isnan(value):
            return True, value
    return False, 0.0


@numba.njit(cache=True, inline="always")
def _unit_map(bounds, tolerances):
    """How ``_mixed`` maps a game's payoffs: its least, its span and the grid they are
    rounded to (the constant tolerance over the span, at the payoffs' magnitude)."""
    low, span, magnitude, _ = bounds
    return low, span, tolerances[1] * magnitude / span


@numba.njit(cache=True)
def _repaired(games, core, point, rows, cols, g, start_row, start_col, bounds, tolerances,
              supports, scratch, row, col):
    """Game ``g`` tried on supports one pivot of the simplex from its start's, where
    those failed. The pair equalising the start's supports tells who breaks it: on each
    side, the action left out that does best against it (it should do worse than the
    value by the margin) and the lightest weight of the support (it should weigh more
    than UNIQUE_TOL). Breaking actions on both sides enter together; one alone enters
    with the other side's first answer to it, else in place of each action of its own
    side's support; a light weight leaves with the other side's lightest, or each of
    its actions."""
    margin = bounds[3]
    unique, inverse_limit = tolerances[0], tolerances[3]
    on_rows, on_cols, in_rows, in_cols = supports
    size = _support(rows, g, start_row, g, unique, on_rows, in_rows)
    if size == 0 or size != _support(cols, g, start_col, g, unique, on_cols, in_cols):
        return False, 0.0
    value = _equalised(games, core, point, g, on_rows, on_cols, size,
                       _unit_map(bounds, tolerances), inverse_limit, scratch, row, col)
    if np.isnan(value):
        return False, 0.0
    row_scores, col_scores = scratch[2], scratch[3]
    enter_row = _breaking(rows[g], in_rows, row_scores, value - margin, 1.0)
    enter_col = _breaking(cols[g], in_cols, col_scores, value + margin, -1.0)
    leave_row = _lightest(row[g], on_rows, size, unique)
    leave_col = _lightest(col[g], on_cols, size, unique)
    _clear(g, on_rows, on_cols, size, row, col)
    step = (games, core, point, rows, cols, g, bounds, tolerances, supports, scratch, row, col)
    grows = size < min(len(in_rows), len(in_cols))
    if enter_row >= 0 and enter_col >= 0:
        return _pivot(step, enter_row, -1, enter_col, -1) if grows else (False, 0.0)
    if enter_row >= 0:
        answer = _answer(games[core, enter_row, :, point], cols[g], in_cols, on_cols, size,
                         col_scores, value, -1.0)
        return _entering(step, enter_row, answer if grows else -1, on_rows, size, True)
    if enter_col >= 0:
        answer = _answer(games[core, :, enter_col, point], rows[g], in_rows, on_rows, size,
                         row_scores, value, 1.0)
        return _entering(step, enter_col, answer if grows else -1, on_cols, size, False)
    if size < 2:
        return False, 0.0
    if leave_row >= 0 and leave_col >= 0:
        return _pivot(step, -1, leave_row, -1, leave_col)
    if leave_col >= 0:
        return _leaving(step, leave_col, on_rows, size, False)
    if leave_row >= 0:
        return _leaving(step, leave_row, on_cols, size, True)
    return False, 0.0


@numba.njit(cache=True)
def _entering(step, entering, answer, on, size, is_row):
    """``entering`` (a row where ``is_row``, else a column) brought in with the other
    side's ``answer`` (-1: none), then in place of each action of its own side's
    support ``on`` (``size`` of them)."""
    for s in range(-1, size):   # each pivot leaves the supports as they were
        if s < 0 and answer < 0:
            continue
        added, dropped = (answer, -1) if s < 0 else (-1, on[s])
        found = (_pivot(step, entering, dropped, added, -1) if is_row
                 else _pivot(step, added, -1, entering, dropped))
        if found[0]:
            return found
    return False, 0.0


@numba.njit(cache=True)
def _leaving(step, leaving, on, size, is_row):
    """``leaving`` (a row where ``is_row``, else a column) taken out with each action of
    the other side's support ``on`` in turn."""
    for s in range(size):
        found = (_pivot(step, -1, leaving, -1, on[s]) if is_row
                 else _pivot(step, -1, on[s], -1, leaving))
        if found[0]:
            return found
    return False, 0.0


@numba.njit(cache=True)
def _pivot(step, add_row, drop_row, add_col, drop_col):
    """The game of ``step`` (``_repaired``'s arguments) tried on its supports with
    ``add_*`` in and ``drop_*`` out (-1: none); the supports are left as they were."""
    games, core, point, rows, cols, g, bounds, tolerances, supports, scratch, row, col = step
    on_rows, on_cols, in_rows, in_cols = supports
    size = _step(on_rows, in_rows, add_row, drop_row)
    _step(on_cols, in_cols, add_col, drop_col)
    settled, found = _settles_on(games, core, point, rows, cols, g, size, bounds, tolerances,
                                 supports, scratch, row, col)
    _step(on_rows, in_rows, drop_row, add_row)
    _step(on_cols, in_cols, drop_col, add_col)
    return settled, found


@numba.njit(cache=True)
def _breaking(legal, inside, scores, bound, sign):
    """The legal action off the support whose score (times ``sign``) is best, if it is
    at least ``bound`` (times ``sign``); -1 if none."""
    found, best = -1, sign * bound
    for a in range(len(inside)):
        if legal[a] and not inside[a] and sign * scores[a] >= best:
            found, best = a, sign * scores[a]
    return found


@numba.njit(cache=True)
def _answer(payoffs, legal, inside, on, size, scores, value, sign):
    """The action off the support that a side (maximising for ``sign`` 1) turns to
    first as the other side's mix moves toward the entering action (``payoffs``: each
    action's against it; ``scores``: against the mix now): the ratio test of a pivot,
    the support taken as one action paying the value now and its best against the
    entering one; -1 if none turns."""
    best = -np.inf
    for s in range(size):
        best = max(best, sign * payoffs[on[s]])
    found, first = -1, np.inf
    for a in range(len(inside)):
        if legal[a] and not inside[a]:
            behind, gains = sign * (value - scores[a]), sign * payoffs[a] - best
            if behind + gains > 0.0 and behind / (behind + gains) < first:
                found, first = a, behind / (behind + gains)
    return found


@numba.njit(cache=True)
def _lightest(weights, on, size, unique):
    """The support's action of least weight, if it is not above ``unique``; -1 if none."""
    found, least = -1, unique
    for s in range(size):
        if weights[on[s]] <= least:
            found, least = on[s], weights[on[s]]
    return found


@numba.njit(cache=True)
def _step(on, inside, add, drop):
    """The support with ``add`` in and ``drop`` out (-1: none), listed in order in
    ``on``; its size."""
    if drop >= 0:
        inside[drop] = False
    if add >= 0:
        inside[add] = True
    count = 0
    for a in range(len(inside)):
        if inside[a]:
            on[count] = a
            count += 1
    return count


@numba.njit(cache=True)
def _chunk(chunk, games, rows, cols, full, start_row, start_col, tolerances, row, col, value,
           low, high, settled):
    """Games ``chunk * CHUNK`` onwards (up to CHUNK of them, core by core), sharing their
    scratch; each run of one core's points has its bounds taken at once."""
    m, n, width = games.shape[1], games.shape[2], games.shape[3]
    size = min(m, n)
    supports = (np.empty(m, np.int64), np.empty(n, np.int64), np.empty(m, np.bool_),
                np.empty(n, np.bool_))
    scratch = (np.empty((size, size)), np.empty((size, size)), np.empty(m), np.empty(n))
    g, end = chunk * CHUNK, min((chunk + 1) * CHUNK, games.shape[0] * width)
    while g < end:
        core, first = g // width, g % width
        count = min(width - first, end - g)
        _bounds(games, core, first, count, rows, cols, full, low, high)
        for point in range(first, first + count):
            previous = point > first and settled[g - 1]
            settled[g], value[g] = _game(games, core, point, rows, cols, start_row, start_col,
                                         g, previous, low[g], high[g], tolerances, supports,
                                         scratch, row, col)
            g += 1


@numba.njit(parallel=True, cache=True)
def _in_parallel(games, rows, cols, full, start_row, start_col, tolerances, row, col, value,
                 low, high, settled):
    for chunk in numba.prange((games.shape[0] * games.shape[3] + CHUNK - 1) // CHUNK):
        _chunk(chunk, games, rows, cols, full, start_row, start_col, tolerances, row, col,
               value, low, high, settled)


@numba.njit(cache=True)
def _in_series(games, rows, cols, full, start_row, start_col, tolerances, row, col, value,
               low, high, settled):
    """``_in_parallel`` in one thread (one function compiled twice would share a cache
    entry, whatever its flags)."""
    for chunk in range((games.shape[0] * games.shape[3] + CHUNK - 1) // CHUNK):
        _chunk(chunk, games, rows, cols, full, start_row, start_col, tolerances, row, col,
               value, low, high, settled)


#: batches of fewer games run in one thread: a parallel region waits for its slowest
#: thread, long on a busy machine, for little work
PARALLEL_FROM = 1024


def started(games: np.ndarray, rows: np.ndarray, cols: np.ndarray, full: bool,
            start: tuple[np.ndarray, np.ndarray], tolerances: tuple[float, ...]):
    """Each game of ``games`` (cores, m, n, points; C-contiguous) tried on its start's
    supports S, T (the legal actions of ``start`` (games, m) and (games, n), flat core by
    core, weighing more than UNIQUE_TOL), then on the answer's supports at the point
    before (the same core; where it settled), then on its own saddle point, then on
    supports one pivot from S, T (an action in or out on each side, ``_repaired``: a
    level-5 Pathfinder duel's stage games that moved off their start's supports went to
    the simplex 178,000 times, 45,000 times so).

    Both mixes solve the square system A_ST y = v, x A_ST = v, sum = 1 (for one action
    each, a saddle point checked on its row and column). The pair is the unique
    equilibrium when, beyond a margin (UNIQUE_TOL of the payoff range and the snapping's
    CONSTANT_TOL), both mixes are positive on S and T, every other legal row scores below
    v against y and every other legal column above v against x: each optimal mix then
    lives on S (T) and meets the same equations, whose solution is unique. So it is the
    maximum-entropy pair too. A pair that is merely optimal (a tie off the supports, a
    weight of 0 on them) is refused, as it may not be the maximum-entropy one; so are
    constant games (their closed form decides) and games of extreme size (the caller
    rescales them). The equalities must hold to REGRET_TOL of max(1, max |payoff|), and
    the inverse of the shifted square system stay within INVERSE_LIMIT.

    ``tolerances`` is (UNIQUE_TOL, CONSTANT_TOL, REGRET_TOL, INVERSE_LIMIT, SCALE_ABOVE).
    Returns the mixes (games, m), (games, n), values, which games are settled, and every
    game's least and greatest legal payoff.
    """
    count = games.shape[0] * games.shape[3]
    row, col = np.zeros((count, games.shape[1])), np.zeros((count, games.shape[2]))
    value, low, high = np.zeros(count), np.empty(count), np.empty(count)
    settled = np.zeros(count, dtype=np.bool_)
    run = _in_parallel if count >= PARALLEL_FROM else _in_series
    run(games, rows, cols, full, start[0], start[1], tolerances, row, col, value, low, high,
        settled)
    return row, col, value, settled, low, high
