"""Houses of the Blooded: one pool for the whole duel (ruleset ``pool = "whole_duel"``,
the seed's "I have eight dice left for the duel"), by hand and by a brute force written
again from the reading in docs/systems/blooded.md:

- the first beat's dice (Prowess + The Sword + the Style spent + an invoke) are the
  duel's pool; the strike bid and the wagers are spent from it for good, the dice
  rolled are picked up again;
- a later beat has the pool left plus, for that beat only, its bonus dice (the Style
  spent, an invoke, the tagged Injury, a Feint's bonus), which bids and wagers spend
  first: the pool carried out of a later beat is min(pool carried in, dice rolled).
"""

from __future__ import annotations

import numpy as np
import pytest
from graphs import assert_same_graph
from test_blooded import _risk_results, act, faces, legal_names, state

import envs
from envs.blooded import OVER, RISK, VICTOR
from envs.blooded.state import BID, CHOOSE
from experiments.reference import linprog_value
from solver import solve_game
from solver.errors import InputError
from solver.markov.graph import explore
from solver.solve import forcing

WHOLE = {"pool": "whole_duel"}


def whole(**options):
    return envs.make("blooded", ruleset=WHOLE, **options)


# ---------------------------------------------------------------- the pool, by hand

def test_the_seeds_example_gathers_eleven_and_keeps_what_it_rolls():
    # Shara: Prowess 3 + The Sword 3 + 2 Style pulled + 3 from the aspect = 11 dice on
    # the first beat, as every_beat gathers them. She bids 4 (7 left: the seed counts
    # 8, the specification 7), wagers 2 and rolls 5: the pool for the rest of the duel
    # is those 5 dice.
    game = whole(a="prowess=3,sword=3,style=2,invokes=1", b="prowess=2,sword=4,invokes=0")
    opening = game.start()
    assert game.pool(opening, 0) == 11 and game.pool(opening, 1) == 6
    risk = opening._replace(phase=RISK, bid_a=4, bid_b=2)
    assert game.dice_left(risk, 0) == 7 and game.dice_left(risk, 1) == 4
    for _, nxt in game.outcomes(risk, 2, 1):
        assert (nxt.pool_a, nxt.pool_b) == (5, 3)


def test_a_later_beat_has_the_pool_left_and_its_bonus_dice():
    # beat 2: A carries 2 dice, has 3 Style (all spent) and tags B's Injury 1: 2 + 3 + 1
    # = 6 dice. Wagering w he rolls 6 - w and keeps min(2, 6 - w): 2 for w <= 4 (the
    # bonus dice pay first), 1 for w = 5, 0 for w = 6. B carries 3, no bonus.
    game = whole(a="prowess=3,sword=3,invokes=0", b="prowess=3,sword=3,invokes=0",
                 convention="mortal")
    s = state(beat=2, aggressor=1, inj_b=1, bank_a=3, pool_a=2, pool_b=3)
    assert legal_names(game, s, "a") == [str(k) for k in range(7)]
    assert legal_names(game, s, "b") == ["0", "1", "2", "3"]
    for wa, kept in ((0, 2), (4, 2), (5, 1), (6, 0)):
        for _, nxt in game.outcomes(s, wa, 1):
            assert (nxt.pool_a, nxt.pool_b) == (kept, 2)


def test_the_pool_left_reaches_the_next_beat_and_the_default_ignores_it():
    # B parries: the beat ends, both pools go on unchanged to beat 2 (A 1, B 2), where
    # A, now aggressor, has his 1 die and the Style banked (1 + 1 spent); B 2 + 1
    game = whole(a="prowess=2,sword=2,invokes=0", b="prowess=2,sword=2,invokes=0")
    victor = state(phase=VICTOR, aggressor=0, victor=1, wv=3, wd=2, pool_a=1, pool_b=2)
    (_, nxt), = act(game, victor, "parry")
    assert nxt == state(beat=2, aggressor=1, bank_a=1, bank_b=1, pool_a=1, pool_b=2)
    assert game.pool(nxt, 0) == 2 and game.pool(nxt, 1) == 3
    # the default gathers Prowess + The Sword anew: 4 + 1 whatever was carried
    plain = envs.make("blooded", a="prowess=2,sword=2,invokes=0",
                      b="prowess=2,sword=2,invokes=0")
    assert plain.pool(nxt, 0) == 5 and "pool_a" not in plain.state_fields(nxt)


def test_an_empty_pool_fails_its_risk():
    # beat 2, A has no dice left and no bonus: he wagers nothing and fails; B, with 2
    # dice, makes 10 on 6+4, 5+5, 4+6, 6+5, 5+6, 6+6: 6/36, and Injures (first blood)
    game = whole(a="prowess=2,sword=2,invokes=0", b="prowess=2,sword=2,invokes=0",
                 convention="first_blood")
    s = state(beat=2, aggressor=1, pool_a=0, pool_b=2)
    assert legal_names(game, s, "a") == ["0"]
    ways = sum(1 for roll in faces(2) if sum(roll) >= 10)
    assert ways == 6
    got = {nxt.phase: p for p, nxt in game.outcomes(s, 0, 0)}
    assert set(got) == {RISK, OVER}  # both failed: beat 3's risk; B won: over
    assert got[OVER] == pytest.approx(6 / 36, abs=1e-15)


def test_the_pool_is_also_an_option():
    # -o pool=whole_duel plays the same duel as the ruleset key; the option's default is
    # the ruleset's
    by_option = envs.make("blooded", pool="whole_duel", **SHEETS)
    by_ruleset = whole(**SHEETS)
    assert by_option.rules == by_ruleset.rules and by_option.rules.whole_duel
    assert not envs.make("blooded", **SHEETS).rules.whole_duel


def test_the_pool_reading_is_refused_in_words():
    with pytest.raises(InputError, match="pool.*'whole'.*every_beat, whole_duel"):
        envs.make("blooded", ruleset={"pool": "whole"})


# ---------------------------------------------------------------- a whole duel by brute force

class BruteWholeDuel:
    """A first-blood duel without maneuvers or invokes, under either pool reading,
    written again from the rules: on the first beat each has Prowess + The Sword dice
    (no Style), bids, and the higher bidder (a tie: A, who has the higher Prowess)
    chooses the role; each beat both wager in secret and roll the rest; an aggressor
    victor's Injury ends the duel; a defender victor parries after the defeated
    cancels c of his usable wagers (chosen to suit him); both bank floor(left / 2).
    ``whole``: a later beat's dice are the pool carried in + the Style spent, and the
    pool carried out is the dice rolled (first beat) or min(carried in, rolled);
    otherwise every beat has Prowess + The Sword + the Style spent."""

    def __init__(self, base_a: int, base_b: int, beats: int, whole: bool):
        self.base, self.beats, self.whole = (base_a, base_b), beats, whole
        self.memo: dict = {}

    def next_beat(self, beat, banks, pools, aggressor, gains) -> float:
        if beat == self.beats:
            return 0.0
        new = tuple(min(10, banks[x] + gains[x]) for x in (0, 1))
        return self.beat(beat + 1, new, pools, 1 - aggressor, (0, 0))

    def parried(self, beat, banks, pools, aggressor, wv, wd) -> float:
        values = []
        for c in range(min(wv, wd) + 1):
            gains = [0, 0]
            gains[1 - aggressor], gains[aggressor] = (wv - c) // 2, (wd - c) // 2
            values.append(self.next_beat(beat, banks, pools, aggressor, gains))
        return max(values) if aggressor == 0 else min(values)

    def kept(self, beat, carried, rolled) -> int:
        return rolled if beat == 1 else min(carried, rolled)

    def risk(self, beat, banks, pools, aggressor, dice) -> float:
        sign = 1.0 if aggressor == 0 else -1.0
        agg, dfd = aggressor, 1 - aggressor
        m = np.zeros((dice[0] + 1, dice[1] + 1))
        for wa in range(dice[0] + 1):
            for wb in range(dice[1] + 1):
                w = (wa, wb)
                out = tuple(self.kept(beat, pools[x], dice[x] - w[x]) for x in (0, 1))
                ways = _risk_results(dice[agg] - w[agg], dice[dfd] - w[dfd])
                value = (ways["agg"] + ways["agg>"]) * sign
                value += ways["neither"] * self.next_beat(beat, banks, out, aggressor, (0, 0))
                value += ways["def"] * self.parried(beat, banks, out, aggressor, w[dfd], 0)
                value += ways["def>="] * self.parried(beat, banks, out, aggressor, w[dfd],
                                                      (w[agg] + 1) // 2)
                m[wa, wb] = value / sum(ways.values())
        return linprog_value(m)

    def beat(self, beat, banks, pools, aggressor, bids) -> float:
        key = (beat, banks, pools, aggressor, bids)
        if key not in self.memo:
            spent = tuple(min(b, 5) for b in banks)
            if self.whole and beat > 1:
                dice = tuple(pools[x] + spent[x] - bids[x] for x in (0, 1))
            else:
                dice = tuple(self.base[x] + spent[x] - bids[x] for x in (0, 1))
            rest = tuple(banks[x] - spent[x] for x in (0, 1))
            self.memo[key] = self.risk(beat, rest, pools, aggressor, dice)
        return self.memo[key]

    def value(self) -> float:
        bid = np.zeros((self.base[0] + 1, self.base[1] + 1))
        for ba in range(self.base[0] + 1):
            for bb in range(self.base[1] + 1):
                options = [self.beat(1, (0, 0), (0, 0), role, (ba, bb)) for role in (0, 1)]
                bid[ba, bb] = max(options) if ba >= bb else min(options)
        return linprog_value(bid)


SHEETS = {"a": "prowess=2,sword=1,invokes=0", "b": "prowess=1,sword=2,invokes=0",
          "convention": "first_blood"}


@pytest.mark.parametrize("a, b, beats", [
    ("prowess=3,sword=1", "prowess=2,sword=2", 2), ("prowess=2,sword=1", "prowess=1,sword=2", 3)])
def test_a_whole_duel_pool_by_brute_force(a, b, beats):
    sheets = {"a": f"{a},invokes=0", "b": f"{b},invokes=0", "convention": "first_blood",
              "max_beats": beats}
    base = [sum(int(f.split("=")[1]) for f in sheet.split(",")) for sheet in (a, b)]
    brute = BruteWholeDuel(*base, beats, whole=True).value()
    # the same brute force under the default reading agrees with the default code,
    # and the two readings differ: the pool carried matters
    every = BruteWholeDuel(*base, beats, whole=False).value()
    assert solve_game(envs.make("blooded", **sheets)).value == pytest.approx(every, abs=1e-8)
    assert solve_game(whole(**sheets)).value == pytest.approx(brute, abs=1e-8)
    with forcing("states"):
        assert solve_game(whole(**sheets)).value == pytest.approx(brute, abs=1e-8)
    assert abs(brute - every) > 1e-2


# ---------------------------------------------------------------- reductions and fast paths

DUEL = {"a": "prowess=2,sword=1,feint,riposte,bash", "b": "prowess=1,sword=2,style=2,bash,bind"}
# mortal, the Injuries multiply the situations: smaller pools (no invoke) and a mortal
# rank of 3 there, so that a mortal Injury can be dealt with so few dice
MORTAL = {"a": "prowess=2,sword=2,invokes=0,feint",
          "b": "prowess=1,sword=2,style=1,invokes=0,bash",
          "ruleset": {**WHOLE, "max_rank": 3, "mortal_rank": 3}}


@pytest.mark.parametrize("duel, convention", [(DUEL, "first_blood"), (MORTAL, "mortal")])
def test_whole_duel_keeps_the_reductions_and_the_fast_paths_exact(duel, convention):
    options = {"ruleset": WHOLE, **duel, "convention": convention, "max_beats": 3}

    def make(**more):
        return envs.make("blooded", **options, **more)
    reduced, plain = make(), make(reductions=False)
    assert "cores" not in reduced.info.fast_paths
    one, other = solve_game(reduced), solve_game(plain)
    assert abs(one.value) > 1e-3 and one.draw < 1  # a duel that is decided
    with forcing("states"):
        generic = solve_game(make())
    for field in ("value", "win", "draw", "loss"):
        assert getattr(one, field) == pytest.approx(getattr(other, field), abs=1e-12)
        assert getattr(one, field) == pytest.approx(getattr(generic, field), abs=1e-12)
    assert_same_graph(reduced.graph(), explore(make()))


def test_the_default_pool_keeps_its_states():
    # every_beat never fills the new fields: the start and a beat's states are as before
    game = envs.make("blooded", **SHEETS)
    assert game.start() == state(phase=BID)
    assert {nxt.phase for _, nxt in game.outcomes(game.start(), 1, 0)} == {CHOOSE}
    assert all(nxt.pool_a == nxt.pool_b == 0
               for _, nxt in game.outcomes(state(beat=2, aggressor=1), 1, 1))


def test_a_pool_too_large_to_walk_is_refused_before_the_walk():
    # the duellist against the lunging basher: pools of 9 and 9 dice (10 x 10 pairs),
    # 11,866 situations with the pool gathered every beat, about 1.19 million with one
    # pool: refused in words; the example duel (4,453 x 100) fits
    with pytest.raises(InputError, match=r"whole_duel.*pools of 9 and 9 dice.*1,186,600"):
        whole(a="duellist", b="prowess=3,sword=3,strength=2,athletics=2,lunge,bash")
    assert whole(a="prowess=3,sword=3", b="prowess=2,sword=4").rules.whole_duel
