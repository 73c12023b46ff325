"""Houses of the Blooded: dice, the risk, every maneuver on hand-built states, tagging,
the Style bank, a first-blood duel solved by an independent brute force, bad input.

Every expected number is derived by hand (in the comment beside it) or by enumerating
dice faces here with itertools.product; nothing compares a function with itself."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

import envs
from envs.blooded import (
    BID,
    BLIND,
    CANCEL,
    CHOOSE,
    DBIND,
    OVER,
    RCANCEL,
    RISK,
    VICTOR,
    State,
    bash_split,
    risk_split,
    success_probability,
)
from experiments.reference import linprog_value
from solver import solve_game
from solver.errors import InputError
from solver.solve import forcing

ALL = "bash,bind,blind,feint,lunge,riposte"


def faces(n: int):
    return itertools.product(range(1, 7), repeat=n)


def sums(n: int) -> Counter:
    """How many ways n d6 make each total, by listing every face (0 dice total 0)."""
    return Counter(sum(roll) for roll in faces(n))


def state(**fields) -> State:
    base = dict(beat=1, phase=RISK, aggressor=0, inj_a=0, inj_b=0, bank_a=0, bank_b=0,
                feint_a=0, feint_b=0, bid_a=0, bid_b=0, victor=0, wv=0, wd=0, ending=0)
    base.update(fields)
    return State(**base)


def act(game, s: State, name: str) -> list[tuple[float, State]]:
    """The outcomes of the deciding side playing ``name`` (the other waits)."""
    i = game.action_names.index(name)
    wait = game.action_names.index("wait")
    if game.legal_mask(s, "a")[i] and not game.legal_mask(s, "b")[i]:
        return game.outcomes(s, i, wait)
    return game.outcomes(s, wait, i)


def only(outcomes):
    assert len(outcomes) == 1 and outcomes[0][0] == pytest.approx(1.0)
    return outcomes[0][1]


def legal_names(game, s: State, player: str) -> list[str]:
    return [n for n, ok in zip(game.action_names, game.legal_mask(s, player), strict=True)
            if ok]


# -- dice

@pytest.mark.parametrize("n", range(1, 9))
def test_making_ten_matches_enumeration(n):
    if n <= 6:
        ways = sum(1 for roll in faces(n) if sum(roll) >= 10)
    else:  # split the dice in two halves and pair their enumerated totals
        left, right = sums(4), sums(n - 4)
        ways = sum(c1 * c2 for t1, c1 in left.items() for t2, c2 in right.items()
                   if t1 + t2 >= 10)
    assert success_probability(n) == pytest.approx(ways / 6 ** n, abs=1e-15)


def test_zero_dice_fail():
    assert success_probability(0) == 0.0
    # A with no dice fails; B with 2 dice makes 10 in 6 of 36 ways (4+6, 5+5, 5+6, 6+4,
    # 6+5, 6+6): B alone succeeds 1/6, nobody 5/6.
    assert risk_split(0, 2) == pytest.approx((5 / 6, 0, 1 / 6, 0, 0, 0))


@pytest.mark.parametrize("na,nb", [(2, 2), (2, 3), (3, 2), (3, 3), (1, 3)])
def test_risk_split_matches_enumeration(na, nb):
    count = Counter()
    for roll in faces(na + nb):
        ta, tb = sum(roll[:na]), sum(roll[na:])
        ok_a, ok_b = ta >= 10, tb >= 10
        key = ("neither" if not (ok_a or ok_b) else "a" if not ok_b else "b" if not ok_a
               else "a>" if ta > tb else "=" if ta == tb else "b>")
        count[key] += 1
    whole = 6 ** (na + nb)
    expected = [count[k] / whole for k in ("neither", "a", "b", "a>", "=", "b>")]
    assert risk_split(na, nb) == pytest.approx(expected, abs=1e-15)


def test_risk_outcome_distribution_by_enumeration():
    # A (aggressor, 5 dice) wagers 2 and rolls 3; B (defender, 5 dice) wagers 1, rolls 4.
    # Victor A: 2 usable; defeated B: ceil(1/2) = 1 on a partial success, 0 if B failed.
    # Victor B (higher, or equal: the defender wins ties): 1 usable, A keeps ceil(2/2) = 1.
    # No maneuvers are known, so: A victor with B keeping 1 -> B cancels (CANCEL);
    # A victor alone -> A picks his Injury (VICTOR, 2 wagers); B victor parries at once
    # (1 wager banks 0 Style), and with A keeping 1 A's cancel changes nothing (either
    # way both bank 0 Style), so the step is skipped: the next beat starts exactly as
    # after a double failure.
    game = envs.make("blooded", a="prowess=3,sword=2,invokes=0",
                     b="prowess=2,sword=3,invokes=0")
    s = state(beat=2)
    out = dict((nxt, p) for p, nxt in game.outcomes(s, 2, 1))
    ways = Counter()
    for roll in faces(7):
        ta, tb = sum(roll[:3]), sum(roll[3:])
        if ta >= 10 and (tb < 10 or ta > tb):
            ways["cancel_a" if tb >= 10 else "victor_a"] += 1
        elif tb >= 10 and ta >= 10:
            ways["cancel_b"] += 1
        else:
            ways["next"] += 1
    whole = 6 ** 7
    next_beat = state(beat=3, aggressor=1)
    expected = {state(phase=CANCEL, beat=2, victor=0, wv=2, wd=1): ways["cancel_a"] / whole,
                state(phase=VICTOR, beat=2, victor=0, wv=2, wd=0): ways["victor_a"] / whole,
                next_beat: (ways["cancel_b"] + ways["next"]) / whole}
    assert set(out) == set(expected)
    for key, p in expected.items():
        assert out[key] == pytest.approx(p, abs=1e-14)


# -- maneuvers on hand-built states

@pytest.fixture(scope="module")
def full():
    """A knows every maneuver (Sword 3, Strength 2); B knows every one too."""
    return envs.make("blooded", a=f"prowess=2,sword=3,strength=2,athletics=1,{ALL}",
                     b=f"prowess=2,sword=2,strength=1,athletics=1,{ALL}")


def test_blind(full):
    # A (aggressor victor, Sword 3) pays 2 of his 5 wagers; B's 4 fall by 3 to 1.
    s = state(phase=BLIND, victor=0, wv=5, wd=4)
    assert legal_names(full, s, "a") == ["blind", "pass"]
    assert only(act(full, s, "blind")) == state(phase=CANCEL, victor=0, wv=3, wd=1)
    # Blind floors at 0: B's 2 wagers minus 3 is 0, so nobody cancels and B, who now
    # cannot pay for Bind, waits while A chooses his maneuver.
    assert only(act(full, s._replace(wd=2), "blind")) == state(phase=VICTOR, victor=0,
                                                                 wv=3, wd=0)


def test_cancellation(full):
    # B may cancel 0..min(1, 3); cancelling 1 leaves A 2 and B 0.
    s = state(phase=CANCEL, victor=0, wv=3, wd=1)
    assert legal_names(full, s, "b") == ["0", "1"]
    assert legal_names(full, s, "a") == ["wait"]
    assert only(act(full, s, "1")) == state(phase=VICTOR, victor=0, wv=2, wd=0)
    # B knows Bind, so with 2 left after cancelling nothing he may end the beat.
    assert only(act(full, s._replace(wd=2), "0")) == state(phase=DBIND, victor=0, wv=3, wd=2)


def test_defeated_bind(full):
    # B pays 2 of his 3: A banks floor(4/2) = 2 on his 1 left, B floor(1/2) = 0; no
    # Injury; A was aggressor, so B is aggressor on beat 2.
    s = state(phase=DBIND, victor=0, wv=4, wd=3, bank_a=1)
    nxt = only(act(full, s, "bind"))
    assert nxt == state(beat=2, phase=RISK, aggressor=1, bank_a=3, bank_b=0)


def test_injure_and_style(full):
    # Injure with 2 of 5 wagers: Injury 1 + 2 = 3 to B; A banks floor(3/2) = 1 on his 2
    # left, B floor(1/2) = 0; roles alternate.
    s = state(phase=VICTOR, victor=0, wv=5, wd=1, bank_a=2)
    nxt = only(act(full, s, "injure2"))
    assert nxt == state(beat=2, aggressor=1, inj_b=3, bank_a=3)


def test_injure_options_stop_at_the_cap(full):
    # Ranks cap at 5, so at most 4 wagers go into an Injury; Lunge (Strength 2) adds at
    # most 5 - 1 - 2 = 2 after its cost of 2.
    s = state(phase=VICTOR, victor=0, wv=9, wd=0)
    names = legal_names(full, s, "a")
    assert [n for n in names if n.startswith("injure")] == [f"injure{k}" for k in range(5)]
    assert [n for n in names if n.startswith("lunge")] == ["lunge0", "lunge1", "lunge2"]
    assert {"feint", "bash", "bind"} <= set(names) and "parry" not in names


def test_lunge(full):
    # Lunge (cost 2) adding 1 wager: Injury 1 + Strength 2 + 1 = 4; 5 - 2 - 1 = 2 left
    # bank 1 Style.
    s = state(phase=VICTOR, victor=0, wv=5, wd=0)
    assert only(act(full, s, "lunge1")) == state(beat=2, aggressor=1, inj_b=4, bank_a=1)


def test_feint_then_next_beat_bonus(full):
    # Feint costs 2 (5 -> 3) and gives A The Sword (3) extra dice on the next beat only.
    s = state(phase=VICTOR, victor=0, wv=5, wd=0)
    after = only(act(full, s, "feint"))
    assert after == state(phase=VICTOR, victor=0, wv=3, wd=0, feint_a=1)
    assert "feint" not in legal_names(full, after, "a")  # once a beat
    nxt = only(act(full, after, "injure0"))  # Injury 1, 3 left bank 1
    assert nxt == state(beat=2, aggressor=1, inj_b=1, bank_a=1, feint_a=1)
    # Beat 2 pool: Prowess 2 + Sword 3 + Style 1 + tag 0 (A unhurt... B's rank 1 is
    # tagged by A: +1) + Feint 3; the invoke (1 on the sheet) was used on beat 1.
    assert full.pool(nxt, 0) == 2 + 3 + 1 + 1 + 3
    # After that beat's roll the bonus is gone.
    rolled = full.outcomes(nxt, 0, 0)
    assert all(s2.feint_a == 0 for _, s2 in rolled)


def test_parry_and_riposte(full):
    # B defends and wins with 6 wagers, A keeps 2. Parry banks floor(6/2) = 3 and
    # floor(2/2) = 1.
    s = state(phase=VICTOR, aggressor=0, victor=1, wv=6, wd=2)
    assert only(act(full, s, "parry")) == state(beat=2, aggressor=1, bank_a=1, bank_b=3)
    # Riposte costs 3 (6 -> 3); A may cancel with his 2.
    r = only(act(full, s, "riposte"))
    assert r == state(phase=RCANCEL, aggressor=0, victor=1, wv=3, wd=2)
    assert legal_names(full, r, "a") == ["0", "1", "2"]
    # A cancels 1: Injury 1 + (3 - 1) = 3 to A; A banks floor(1/2) = 0; B is aggressor.
    assert only(act(full, r, "1")) == state(beat=2, aggressor=1, inj_a=3)


def test_bash_by_enumeration():
    # A (Strength 1 + Athletics 1 = 2 dice) bashes; B rolls 0 + 1 = 1 die, so B always
    # falls. A pays 2 of 4 wagers. A higher and standing (>= 10): A attacks with his 2
    # left, Injury 3 to B, B banks floor(2/2) = 1 and A is aggressor next beat. A higher
    # but fallen: no attack, both bank 1, A aggressor. B higher or equal: no attack,
    # both bank 1, B aggressor next (B higher takes the momentum; equal rolls alternate
    # and A was aggressor), so those two merge.
    game = envs.make("blooded", a="prowess=2,sword=2,strength=1,athletics=1,bash",
                     b="prowess=2,sword=2,strength=0,athletics=1")
    s = state(phase=VICTOR, victor=0, wv=4, wd=2)
    ways = Counter()
    for roll in faces(3):
        ta, tb = roll[0] + roll[1], roll[2]
        ways["attack" if ta > tb and ta >= 10 else "a_momentum" if ta > tb else "b"] += 1
    expected = {state(beat=2, aggressor=0, inj_b=3, bank_b=1): ways["attack"] / 216,
                state(beat=2, aggressor=0, bank_a=1, bank_b=1): ways["a_momentum"] / 216,
                state(beat=2, aggressor=1, bank_a=1, bank_b=1): ways["b"] / 216}
    got = dict((nxt, p) for p, nxt in act(game, s, "bash"))
    assert set(got) == set(expected)
    for key, p in expected.items():
        assert got[key] == pytest.approx(p, abs=1e-15)


def test_bash_split_counts_both_sides():
    # 2 dice against 2 dice, by enumeration of the 1296 faces.
    ways = [0] * 5
    for a1, a2, b1, b2 in faces(4):
        ta, tb = a1 + a2, b1 + b2
        if ta == tb:
            ways[4] += 1
        elif ta > tb:
            ways[0 if ta >= 10 > tb else 1] += 1
        else:
            ways[2 if tb >= 10 > ta else 3] += 1
    assert bash_split(2, 2) == pytest.approx([w / 1296 for w in ways], abs=1e-15)


def test_bash_by_the_defeated_who_stands():
    # B (defender victor) bashes with 2 of 4 wagers; A (defeated, 3 wagers left) rolls
    # 2 + 3 = 5 dice and B 0 dice (Strength 0, Athletics 0: B always falls with 0).
    # A is higher whenever he rolls more than 0 (always: 5 dice total >= 5); he stands
    # with >= 10 and then attacks the fallen B with his 3 wagers: Injury 4 to B. A is
    # aggressor next in both cases; with no attack B banks floor(2/2) = 1 and A 1.
    game = envs.make("blooded", a="prowess=2,sword=2,strength=2,athletics=3",
                     b="prowess=2,sword=2,strength=0,athletics=0,bash")
    s = state(phase=VICTOR, aggressor=0, victor=1, wv=4, wd=3)
    stand = sum(1 for roll in faces(5) if sum(roll) >= 10) / 6 ** 5
    got = dict((nxt, p) for p, nxt in act(game, s, "bash"))
    assert got[state(beat=2, aggressor=0, inj_b=4, bank_b=1)] == pytest.approx(stand)
    assert got[state(beat=2, aggressor=0, bank_a=1, bank_b=1)] == pytest.approx(1 - stand)


def test_victor_bind(full):
    # The victor binds: pays 2 of 5, banks floor(3/2) = 1; B banks floor(2/2) = 1.
    s = state(phase=VICTOR, victor=0, wv=5, wd=2)
    assert only(act(full, s, "bind")) == state(beat=2, aggressor=1, bank_a=1, bank_b=1)


def test_maneuvers_only_from_the_sheet():
    game = envs.make("blooded", a="prowess=2,sword=3", b="prowess=2,sword=3")
    s = state(phase=VICTOR, victor=0, wv=5, wd=0)
    assert legal_names(game, s, "a") == [f"injure{k}" for k in range(5)]


# -- tagging, Style, roles

def test_tagging_and_pool(full):
    # A on beat 2: Prowess 2 + Sword 3 + Style spent min(7, 5) = 5 + no invoke left
    # (1 on the sheet, used on beat 1) + B's highest Injury 3, tagged + Feint 3 = 16.
    s = state(beat=2, inj_b=3, bank_a=7, feint_a=1)
    assert legal_names(full, s, "a")[-1] == "16"
    # B: 2 + 2 + 0 + 0 + A's Injury 0 = 4 dice.
    assert legal_names(full, s, "b")[-1] == "4"
    # On beat 1 the invoke adds 3.
    assert full.pool(state(beat=1), 1) == 2 + 2 + 3


def test_style_spent_and_bank_cap(full):
    # Bank 7: 5 are spent at the roll whatever happens, 2 stay; a double failure (both
    # wager everything: zero dice fail) carries them to beat 3 unchanged.
    s = state(beat=2, bank_a=7, bank_b=3)
    la = full.pool(s, 0)
    lb = full.pool(s, 1)
    nxt = only(full.outcomes(s, la, lb))
    assert (nxt.bank_a, nxt.bank_b, nxt.phase, nxt.aggressor) == (2, 0, RISK, 1)
    # Bank left 5 + floor(14/2) = 12, capped at 10.
    v = state(phase=VICTOR, victor=0, wv=14, wd=0, bank_a=5)
    assert only(act(full, v, "injure0")).bank_a == 10


def test_mortal_wound_ends_the_duel(full):
    s = state(phase=VICTOR, victor=0, wv=6, wd=0, inj_b=2)
    end = only(act(full, s, "injure4"))
    assert end.phase == OVER and full.payoff(end) == 1.0
    # A lower Injury changes nothing: B keeps his highest, 4.
    s = state(phase=VICTOR, victor=0, wv=6, wd=0, inj_b=4)
    assert only(act(full, s, "injure1")).inj_b == 4


def test_first_blood_and_max_beats():
    game = envs.make("blooded", convention="first_blood", max_beats=2)
    s = state(beat=2, phase=VICTOR, victor=1, aggressor=1, wv=1)
    end = only(act(game, s, "injure0"))
    assert end.phase == OVER and game.payoff(end) == -1.0
    # The last beat's Parry ends the duel as a draw.
    p = state(beat=2, phase=VICTOR, victor=1, aggressor=0, wv=3)
    end = only(act(game, p, "parry")) if "parry" in legal_names(game, p, "b") else None
    assert end is not None and end.phase == OVER and game.payoff(end) == 0.0


def test_strike_bid_and_roles():
    # Both bids are spent; the higher bidder chooses. Pools: A 3 + 3 + 3 = 9, B 2 + 4 + 3.
    game = envs.make("blooded", a="prowess=3,sword=3", b="prowess=2,sword=4")
    s0 = game.initial_outcomes()[0][1]
    assert s0.phase == BID
    chose = only(game.outcomes(s0, 4, 2))
    assert chose == state(phase=CHOOSE, victor=0, bid_a=4, bid_b=2)
    risk = only(act(game, chose, "defender"))
    assert risk.aggressor == 1 and game.dice_left(risk, 0) == 5 and game.dice_left(risk, 1) == 7
    # A tie: A's higher Prowess chooses.
    assert only(game.outcomes(s0, 2, 2)).victor == 0
    # Equal Prowess: a fair coin.
    even = envs.make("blooded", a="prowess=3", b="prowess=3")
    coin = even.outcomes(even.initial_outcomes()[0][1], 1, 1)
    assert sorted((p, s.victor) for p, s in coin) == [(0.5, 0), (0.5, 1)]


def test_bid_every_beat():
    game = envs.make("blooded", bid_every_beat=True)
    s = state(phase=VICTOR, victor=0, wv=2)
    assert only(act(game, s, "injure0")).phase == BID


# -- a first-blood duel by an independent brute force

_SUMS: dict[int, Counter] = {}


def _dice(n: int) -> Counter:
    if n not in _SUMS:
        _SUMS[n] = sums(n) if n > 0 else Counter({0: 1})
    return _SUMS[n]


def _risk_results(n_agg: int, n_def: int) -> Counter:
    """Ways (out of 6**(n_agg + n_def)) of each result, the aggressor's dice first:
    'neither', 'agg' / 'def' (the victor, the other failed), 'agg>' / 'def>=' (both made
    10; ties go to the defender). Zero dice fail."""
    out = Counter()
    for ta, ca in _dice(n_agg).items():
        for td, cd in _dice(n_def).items():
            ok_a, ok_d = n_agg > 0 and ta >= 10, n_def > 0 and td >= 10
            key = ("neither" if not (ok_a or ok_d) else "agg" if not ok_d
                   else "def" if not ok_a else "agg>" if ta > td else "def>=")
            out[key] += ca * cd
    return out


class BruteFirstBlood:
    """The first-blood duel without maneuvers or invokes, written again from the rules:
    a beat's pool is Prowess + The Sword + Style spent (at most 5); the aggressor
    victor's Injury ends the duel; a defender victor parries after the defeated
    aggressor cancels c of his ceil(w / 2) usable wagers against the victor's (chosen
    to suit him); then both bank floor(left / 2), the bank capped at 10."""

    def __init__(self, base_a: int, base_b: int, beats: int, tie: str):
        self.base = (base_a, base_b)
        self.beats = beats
        self.tie = tie  # who chooses on a tied bid: "a", "b" or "coin"
        self.memo: dict = {}

    def after_beat(self, beat, banks, aggressor, gains) -> float:
        if beat == self.beats:
            return 0.0
        new = tuple(min(10, banks[x] + gains[x]) for x in (0, 1))
        return self.beat(beat + 1, new, 1 - aggressor, (0, 0))

    def parried(self, beat, banks, aggressor, wv, wd) -> float:
        """The defender (1 - aggressor) won with wv usable; the aggressor keeps wd and
        picks how many to cancel: A maximises, B minimises."""
        values = []
        for c in range(min(wv, wd) + 1):
            gains = [0, 0]
            gains[1 - aggressor], gains[aggressor] = (wv - c) // 2, (wd - c) // 2
            values.append(self.after_beat(beat, banks, aggressor, gains))
        return max(values) if aggressor == 0 else min(values)

    def risk(self, beat, banks, aggressor, left) -> float:
        sign = 1.0 if aggressor == 0 else -1.0  # an aggressor's Injury wins for him
        agg, dfd = aggressor, 1 - aggressor
        m = np.zeros((left[0] + 1, left[1] + 1))
        for wa in range(left[0] + 1):
            for wb in range(left[1] + 1):
                w = (wa, wb)
                ways = _risk_results(left[agg] - w[agg], left[dfd] - w[dfd])
                value = (ways["agg"] + ways["agg>"]) * sign
                value += ways["neither"] * self.after_beat(beat, banks, aggressor, (0, 0))
                value += ways["def"] * self.parried(beat, banks, aggressor, w[dfd], 0)
                value += ways["def>="] * self.parried(beat, banks, aggressor, w[dfd],
                                                      (w[agg] + 1) // 2)
                m[wa, wb] = value / sum(ways.values())
        return linprog_value(m)

    def beat(self, beat, banks, aggressor, bids) -> float:
        key = (beat, banks, aggressor, bids)
        if key not in self.memo:
            spent = tuple(min(b, 5) for b in banks)
            left = tuple(self.base[x] + spent[x] - bids[x] for x in (0, 1))
            rest = tuple(banks[x] - spent[x] for x in (0, 1))
            self.memo[key] = self.risk(beat, rest, aggressor, left)
        return self.memo[key]

    def value(self) -> float:
        bid = np.zeros((self.base[0] + 1, self.base[1] + 1))
        for ba in range(self.base[0] + 1):
            for bb in range(self.base[1] + 1):
                options = [self.beat(1, (0, 0), role, (ba, bb)) for role in (0, 1)]
                if ba == bb and self.tie == "coin":  # equal Prowess: a fair coin
                    bid[ba, bb] = (max(options) + min(options)) / 2
                else:
                    a_chooses = ba > bb or (ba == bb and self.tie == "a")
                    bid[ba, bb] = max(options) if a_chooses else min(options)
        return linprog_value(bid)


def test_one_beat_first_blood_is_worth_zero():
    # With one beat, the side that would lose can bid all its dice: the other must then
    # bid as many to choose and is left too few dice, or lets him choose and he takes
    # the role in which nobody can injure him. Brute force and solver agree on 0.
    game = envs.make("blooded", a="prowess=2,sword=1,invokes=0",
                     b="prowess=1,sword=1,invokes=0", convention="first_blood", max_beats=1)
    brute = BruteFirstBlood(3, 2, beats=1, tie="a").value()
    assert brute == pytest.approx(0.0, abs=1e-9)
    assert solve_game(game).value == pytest.approx(brute, abs=1e-8)


def test_two_beat_first_blood_duel_by_brute_force():
    a, b = "prowess=2,sword=2,invokes=0", "prowess=2,sword=1,invokes=0"
    game = envs.make("blooded", a=a, b=b, convention="first_blood", max_beats=2)
    brute = BruteFirstBlood(4, 3, beats=2, tie="coin").value()
    assert solve_game(game).value == pytest.approx(brute, abs=1e-8)
    assert abs(brute) > 1e-3  # not degenerate


def test_mirrored_sheets_are_worth_zero():
    game = envs.make("blooded", a="prowess=1,sword=2,invokes=0",
                     b="prowess=1,sword=2,invokes=0", max_beats=2)
    assert solve_game(game).value == pytest.approx(0.0, abs=1e-9)


# -- bad input

@pytest.mark.parametrize("sheet,words", [
    ("prowess=-1", ["prowess", "0..5"]),
    ("prowess=6", ["prowess", "0..5"]),
    ("parry_riposte", ["unknown entry", "riposte", "lunge"]),
    ("lunge,strength=0", ["lunge", "strength 1"]),
    ("style=11", ["style", "0..10"]),
    ("sword=three", ["sword", "integer"]),
])
def test_bad_sheets(sheet, words):
    with pytest.raises(InputError) as error:
        envs.make("blooded", a=sheet)
    for word in words:
        assert word in str(error.value)


@pytest.mark.parametrize("options,words", [
    ({"convention": "to_the_death"}, ["mortal", "first_blood"]),
    ({"max_beats": 0}, ["max_beats", "1..200"]),
    ({"tempo": 3}, ["unknown option", "convention", "max_beats", "bid_every_beat"]),
])
def test_bad_options(options, words):
    with pytest.raises(InputError) as error:
        envs.make("blooded", **options)
    for word in words:
        assert word in str(error.value)


def test_bad_ruleset_values():
    with pytest.raises(InputError, match="risk_tie.*defender, aggressor"):
        envs.make("blooded", ruleset={"risk_tie": "coin"})
    # auto_spend_style = false is a reading now (issue 28): only a non-boolean is refused
    with pytest.raises(InputError, match="auto_spend_style"):
        envs.make("blooded", ruleset={"auto_spend_style": "sometimes"})


def test_illegal_action_named():
    game = envs.make("blooded")
    s = state(phase=CANCEL, victor=0, wv=3, wd=1)
    with pytest.raises(InputError, match="illegal action '3' for b; allowed: 0, 1"):
        game.outcomes(s, game.action_names.index("wait"), 3)


def test_state_from_round_trip():
    game = envs.make("blooded")
    s = game.state_from({"beat": 2, "phase": "risk", "aggressor": 1, "inj_a": 2})
    assert s == state(beat=2, aggressor=1, inj_a=2)
    assert game.state_from(game.state_fields(s)) == s
    with pytest.raises(InputError, match="unknown state field 'hp'"):
        game.state_from({"hp": 3})
    assert "rank 2" in game.situation(s, "b")
    assert "A is wounded at rank 2, which you may tag" in game.situation(s, "b")
    assert math.isclose(sum(p for p, _ in game.outcomes(s, 0, 0)), 1.0)


@pytest.mark.parametrize("field", ["bid_a", "bid_b", "aggressor", "victor", "wv", "wd"])
def test_a_moment_at_the_bid_holds_nothing_the_bid_sets(field):
    # the bid decides the bids, the roles and what follows them: asked at the bid with
    # one of them set, the moment said "4 dice to play" and then "you have 9 dice"
    game = envs.make("blooded", max_beats=2)
    with pytest.raises(InputError, match=f"state field {field} comes from the strike bid"):
        game.state_from({"phase": "bid", field: 1})
    risk = game.state_from({"phase": "risk", "bid_a": 5, "bid_b": 3})
    assert (risk.bid_a, risk.bid_b) == (5, 3)


def test_ruleset_variants_of_bids_and_ties():
    # bids_spent = "loser": the winner keeps his dice, the loser's bid burns.
    game = envs.make("blooded", a="prowess=3,sword=3", b="prowess=2,sword=4",
                     ruleset={"bids_spent": "loser"})
    chose = only(game.outcomes(game.initial_outcomes()[0][1], 4, 2))
    assert (chose.bid_a, chose.bid_b, chose.victor) == (0, 2, 0)
    # risk_tie = "aggressor": A (aggressor) and B have 5 dice, both wager 2 and roll 3.
    # Equal totals of 10 or more (4+3+3 vs 5+5+... ) now go to A: A victor with 2 usable,
    # B keeps ceil(2/2) = 1; so B cancels. Count by enumeration: both >= 10 and equal.
    # (B victor: A cancels, and it matters: B's 2 or 1 wagers bank 1 or 0 Style.)
    tied = envs.make("blooded", a="prowess=3,sword=2,invokes=0",
                     b="prowess=3,sword=2,invokes=0", ruleset={"risk_tie": "aggressor"})
    s = state(beat=2)
    ways = Counter()
    for roll in faces(6):
        ta, tb = sum(roll[:3]), sum(roll[3:])
        if ta >= 10 and tb >= 10:
            ways["a" if ta >= tb else "b"] += 1
    got = dict((nxt, p) for p, nxt in tied.outcomes(s, 2, 2))
    assert got[state(beat=2, phase=CANCEL, victor=0, wv=2, wd=1)] == pytest.approx(
        ways["a"] / 6 ** 6)
    assert got[state(beat=2, phase=CANCEL, victor=1, wv=2, wd=1)] == pytest.approx(
        ways["b"] / 6 ** 6)


def test_wagers_that_cannot_matter_are_dropped():
    # B cancels 1 of A's 4 with his 4: A keeps 3, B 3. A knows no Bash or Riposte, so
    # B's 3 can only bank floor(3/2) = 1 Style, exactly as 2 would: the state keeps 2.
    # (A's 3 wagers cannot reach rank 5, so A still chooses his Injury.)
    game = envs.make("blooded", a="prowess=3,sword=3", b="prowess=3,sword=3")
    s = state(phase=CANCEL, victor=0, wv=4, wd=4)
    assert only(act(game, s, "1")) == state(phase=VICTOR, victor=0, wv=3, wd=2)
    # A's bank is full (10), so his wagers can bank no Style. A defends and knows Bash,
    # so B's wager stays (after a Bash B may attack with it); A's beyond what a Feint,
    # the dearest maneuver (3), 4 Injury wagers (9) and B's 1 wager could use are
    # dropped: 12 -> 10. (The last beat is no exception: a beat's states never depend on
    # the beats left.)
    for beats in (1, 30):
        bash = envs.make("blooded", a="prowess=3,sword=3,bash", b="prowess=3,sword=3",
                         max_beats=beats)
        s = state(phase=CANCEL, aggressor=1, victor=0, wv=12, wd=1, bank_a=10)
        assert only(act(bash, s, "0")) == state(phase=VICTOR, aggressor=1, victor=0,
                                                wv=10, wd=1, bank_a=10)


def test_a_finishing_blow_is_played_at_once():
    # A, aggressor and victor with 4 wagers, can Injure at rank 1 + 4 = 5: mortal, the
    # best outcome there is, so the step is skipped and B takes the mortal Injury.
    game = envs.make("blooded", a="prowess=3,sword=3", b="prowess=3,sword=3")
    s = state(phase=CANCEL, victor=0, wv=6, wd=1)
    # B's cancel step is moot too: cancelling his 1 wager leaves A 5, still mortal.
    assert game._settle(s) == state(phase=OVER, inj_b=5, ending=1)
    # With 5 wagers against B's 2, only cancelling both saves B (5 or 4 left kill): that
    # is his one sensible choice, played at once; A then has 3 and chooses his Injury.
    s = state(phase=CANCEL, victor=0, wv=5, wd=2)
    assert game._settle(s) == state(phase=VICTOR, victor=0, wv=3, wd=0)
    # With 4 against B's 3, cancelling 1, 2 or 3 leaves A 3, 2 or 1: B chooses among
    # them, and cancelling none (A kills at once) is no longer offered.
    s = state(phase=CANCEL, victor=0, wv=4, wd=3)
    assert game._settle(s) == s
    assert legal_names(game, s, "b") == ["1", "2", "3"]
    assert only(act(game, s, "1"))[1] == VICTOR
    # A defender's Riposte finishes when even the most the aggressor can cancel leaves
    # rank 5: 9 wagers - 3 for the Riposte - B's 1 cancelled = 5 left, rank 6 -> 5.
    riposte = envs.make("blooded", a="prowess=3,sword=3,riposte", b="prowess=3,sword=3")
    s = state(phase=VICTOR, aggressor=1, victor=0, wv=9, wd=1)
    assert riposte._settle(s) == state(phase=OVER, inj_b=5, ending=1)
    # With 7 wagers: 7 - 3 - 1 = 3 left, rank 4 at worst: A still chooses.
    s = state(phase=VICTOR, aggressor=1, victor=0, wv=7, wd=1)
    assert riposte._settle(s) == s
    # B, defeated with 2 wagers left, knows Bind: passing lets A's 4 wagers kill, so B
    # binds at once. The beat ends; A banks 4 // 2 = 2 Style, B's 0 left bank none, and
    # B is aggressor on beat 2.
    binder = envs.make("blooded", a="prowess=3,sword=3", b="prowess=3,sword=3,bind")
    s = state(phase=DBIND, victor=0, wv=4, wd=2)
    assert binder._settle(s) == state(beat=2, phase=RISK, aggressor=1, bank_a=2)
    # At first blood any Injury ends the duel: Injure 0 is played at once.
    first = envs.make("blooded", a="prowess=3,sword=3", b="prowess=3,sword=3",
                      convention="first_blood")
    s = state(phase=CANCEL, victor=0, wv=2, wd=1)
    assert first._settle(s) == state(phase=OVER, inj_b=1, ending=3)


def test_a_cancellation_is_judged_by_what_it_does_not_by_the_state_it_leaves():
    # B, defender and victor, ripostes with 5 wagers against A's 1 (3 for the Riposte,
    # 2 left). A may cancel 0 or 1: a rank 3 or rank 2 Injury. A already has rank 4, so
    # both leave the same state (only the highest Injury is kept); the step is offered
    # all the same (another Injury is another effect: a beat's steps do not depend on
    # the Injuries), and the two equivalent choices lead to the one next state (A banks
    # floor(1/2) = floor(0/2) = 0 either way; B, the riposter, attacks next beat).
    game = envs.make("blooded", a="prowess=3,sword=3", b="prowess=3,sword=3,riposte")
    victor = state(phase=VICTOR, aggressor=0, victor=1, wv=5, wd=1, inj_a=4)
    cancel = only(act(game, victor, "riposte"))
    assert cancel == state(phase=RCANCEL, aggressor=0, victor=1, wv=2, wd=1, inj_a=4)
    assert legal_names(game, cancel, "a") == ["0", "1"]
    after = state(beat=2, phase=RISK, aggressor=1, inj_a=4)
    assert only(act(game, cancel, "0")) == only(act(game, cancel, "1")) == after
    # unhurt, the two choices differ (rank 3 or 2), as before
    unhurt = only(act(game, victor._replace(inj_a=0), "riposte"))
    assert {only(act(game, unhurt, c)).inj_a for c in ("0", "1")} == {3, 2}


@pytest.mark.parametrize("options, expected", [
    # value, win, draw, loss recorded by the generic solver before cancellations were
    # judged by their effects and before the last beat stopped dropping Style
    ({"a": "prowess=2,sword=2,feint,bash,riposte,blind,bind,lunge,strength=2,style=3",
      "b": "prowess=1,sword=2,riposte,bind,invokes=2,style=1", "max_beats": 6},
     (0.492823528494936, 0.4997289112890586, 0.4933657059168186, 0.006905382794122709)),
    ({"a": "prowess=3,sword=2,riposte,lunge,strength=2",
      "b": "prowess=2,sword=3,riposte,bash,blind", "max_beats": 5},
     (0.00966941259730015, 0.028357005254107944, 0.9529554020890845, 0.01868759265680779)),
])
@pytest.mark.parametrize("reductions", [True, False])
def test_equivalent_choices_change_no_value(options, expected, reductions):
    # the plain rules (reductions off, envs/blooded/reductions.py) give the same numbers
    game = envs.make("blooded", reductions=reductions, **options)
    (_, start), = game.initial_outcomes()
    with forcing("states"):
        generic = solve_game(game, start=start)
    for solution in (generic, solve_game(game)):  # generic, counters
        got = (solution.value, solution.win, solution.draw, solution.loss)
        assert got == pytest.approx(expected, abs=1e-12)
