"""Exact solution of games whose counters only fall (hit points), every counter value
at once.

A game declares the structure with the fast path ``counters`` (``GameInfo.fast_paths``)
and these methods:

- ``counters(state)``: the counter values of a live state (positive integers);
- ``core(state)`` / ``attach(core, counters)``: the state without its counters, and back;
- ``core_transitions(core)``: every legal joint action ``(i, j, outcomes)`` with outcomes
  ``(p, next_core, decrements)``, the same whatever the counters (masks too); at most
  one counter falls in a step;
- ``depleted(k)``: the terminal state reached when counter ``k`` falls to 0 or below.

Besides depletion, a step may also lead to a terminal core (a duel that ends however
many points the counters hold): its payoff is the same at every counter value.

The core graph (states without counters) is explored once: by ``walk``, core by core
through ``core_transitions``, or at once by the game's own ``cores()`` when it declares
that fast path (``CoreWalk``: the same cores, masks and outcomes, checked against the
walk by the conformance suite); compiled passes (``solver.counters.outcomes``) sort its
outcomes into the matrices below. Values are arrays over the grid of counter values,
solved layer by layer of the counters' sum (it falls with every positive decrement, by
at least the least one: a layer holds that many consecutive sums, ``Grid``, and depends
only on earlier layers and on itself). The steps that lower a counter are factored
(``Landings``): each pair's outcomes into one core form a distribution over
decrements, stored once however many pairs share it, and a layer sums each one once,
reading each decrement's values from the points of one sum as one run of columns of the
core's row (``Grid.column``: the points layer after layer), in
compiled loops (``solver.counters.sums``). Within a layer
the steps that change no counter can cycle. The core graph's strongly connected
components under those steps (``solver.markov.graph``'s schedule) are solved in order: an
acyclic one at once (value and maximum-entropy mixes from one batch of stage games per
shape); a cyclic one by value iteration through ``solver.markov.stages.sweep``, as the
generic solver does, from 0 (endless play is worth 0), on its choice cores only when
the chance steps between them are acyclic (their values are then affine in the choice
cores'). When no joint action of such a block stays in it for sure, its fixed point is
unique: policy-evaluation steps from the values one counter lower reach it first, and
the sweeps confirm it. Win, loss and the expected length (in the game's
``length_unit``) under the rule's mixes are then pushed forward from the start, layer
by layer. The
solution keeps the values of the cores a step lowers into, and of the choosing and
cyclic ones; any other core's value is rebuilt from its one joint action on demand.

Each stage game is settled by a rule passed to ``solve_counters``
(``solver.counters.stage_rules``): the maximum-entropy equilibrium by default, or a
best reply to fixed mixes, a fixed pair, a regularised player (``solver.counters.play``
and ``solver.counters.regularized`` answer with them); the layers, the policy-evaluation
steps and the sweeps are the same for every rule.

The modules, in the order they build on each other: ``outcomes`` and ``sums`` (the
compiled passes), ``grid`` (the counter values), ``cores`` (the core graph, explored
once), ``stage_rules`` (how a stage is settled), ``layers`` (one layer of values and
mixes), ``flow`` (play pushed forward: the statistics), ``solution`` (``solve_counters``
and its solution), ``play`` (the answers against fixed policies), ``regularized`` (a
personality's play).
"""

from .cores import CoreWalk, explore, walk
from .solution import CounterPolicy, CounterSolution, solve_counters

__all__ = ["CoreWalk", "CounterPolicy", "CounterSolution", "explore", "solve_counters", "walk"]
