"""Uchronia (melee Confrontation and pistol duel). Every expected number is derived
independently of envs/uchronia/: by hand (the reasoning in a comment), by enumerating
the dice faces with itertools.product, or by a separate brute-force solver written here
with scipy's linprog."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

import envs
from envs.uchronia import ACTIONS, FIGHT, Bout, Shot
from experiments.reference import linprog_value
from solver import solve_game
from solver.errors import InputError

F = Fraction


def faces(n: int):
    """Every roll of n d6, each with probability 1/6**n."""
    return itertools.product(range(1, 7), repeat=n)


def p_at_least(n: int, threshold: int) -> Fraction:
    return F(sum(sum(r) >= threshold for r in faces(n)), 6 ** n)


def pistol(a="", b="", **options):
    return envs.make("uchronia", mode="pistol", a=a, b=b, **options)


def melee(a="", b="", **options):
    return envs.make("uchronia", mode="melee", a=a, b=b, **options)


def act(names, name: str) -> int:
    return names.index(name)


def dist(game, state, action_a: str, action_b: str) -> dict:
    names = game.action_names
    out = game.outcomes(state, act(names, action_a), act(names, action_b))
    assert abs(sum(p for p, _ in out) - 1) < 1e-12
    return {s: p for p, s in out}


def only(game, state, action_a: str, action_b: str):
    ((p, nxt),) = game.outcomes(state, act(game.action_names, action_a),
                                act(game.action_names, action_b))
    assert p == pytest.approx(1.0)
    return nxt


def legal(game, state, player: str) -> set[str]:
    return {n for n, ok in zip(game.action_names, game.legal_mask(state, player),
                               strict=True) if ok}


# ---------------------------------------------------------------- dice, by enumeration

def brute_shot(n: int, threshold: int = 10) -> tuple[Fraction, ...]:
    """(miss, Blessé, Grièvement Blessé, Tué) of a shot of n dice: every die a 1 is a
    miss; a hit by 0-4 is Blessé, 5-9 Grièvement Blessé, 10+ Tué."""
    counts = [0, 0, 0, 0]
    for roll in faces(n):
        total = sum(roll)
        if total < threshold or all(d == 1 for d in roll):
            counts[0] += 1
        else:
            margin = total - threshold
            counts[1 if margin < 5 else 2 if margin < 10 else 3] += 1
    return tuple(F(c, 6 ** n) for c in counts)


def brute_resistance(n: int, threshold: int) -> tuple[Fraction, Fraction, Fraction]:
    """(fail, cancel, apply): fail below threshold, cancel at threshold + 10 or more."""
    fail = cancel = 0
    for roll in faces(n):
        total = sum(roll)
        fail += total < threshold
        cancel += total >= threshold + 10
    return F(fail, 6 ** n), F(cancel, 6 ** n), F(6 ** n - fail - cancel, 6 ** n)


@pytest.mark.parametrize("n", range(1, 8))
def test_shot_severities_by_enumeration(n):
    from envs.uchronia.dice import shot_table
    assert shot_table(n, 10, 5, 10) == brute_shot(n)


@pytest.mark.parametrize("n,threshold", [(3, 10), (3, 15), (4, 15), (5, 20), (6, 20)])
def test_resistance_by_enumeration(n, threshold):
    from envs.uchronia import resistance
    assert resistance(n, threshold, 10) == brute_resistance(n, threshold)


def test_resistance_by_hand():
    # 3d6 against 15: totals 15..18 come up 10+6+3+1 = 20 ways of 216, so the test
    # fails 196/216; cancelling needs 25, impossible with three dice.
    from envs.uchronia import resistance
    assert resistance(3, 15, 10) == (F(196, 216), F(0), F(20, 216))
    # 3d6 against 10: 27 ways below 10 are 81 (216 - 135); cancelling needs 20: never.
    assert resistance(3, 10, 10) == (F(81, 216), F(0), F(135, 216))


def test_resistance_pool_counts_its_atouts_only():
    # Colosse, Constitution Robuste and Volonté de Fer: 6 dice against 15 cancels a
    # wound at 25 or more; Adresse adds nothing.
    game = pistol("colosse,constitution,volonte,adresse")
    assert game.resist_dice == {"a": 6, "b": 3}


def test_confrontation_table_by_enumeration():
    from envs.uchronia.dice import confrontation_table
    for na, nb in ((1, 1), (2, 3), (3, 3), (4, 2)):
        expected: dict = {}
        for ra in faces(na):
            for rb in faces(nb):
                ta, tb = sum(ra), sum(rb)
                winner = 0 if ta == tb else 1 if ta > tb else 2
                margin = abs(ta - tb)
                cls = 0 if not winner or margin < 5 else 1 if margin < 10 else 2
                key = (winner, cls, int(all(d == 1 for d in ra)),
                       int(all(d == 1 for d in rb)))
                expected[key] = expected.get(key, 0) + F(1, 6 ** (na + nb))
        got = {k: v for k, v in confrontation_table(na, nb, 5, 10).items() if v}
        assert got == expected


# ---------------------------------------------------------------- the pistol duel

def test_pistol_start_and_legal_actions():
    game = pistol()
    ((p, start),) = game.initial_outcomes()
    # moyenne, both duel pistols loaded (1 shot), unhurt, not aiming
    assert start == Shot(0, 2, 0, 0, 1, 1, 0, 0)
    # full: no reload; in range at moyenne (optimal); may advance
    assert legal(game, start, "a") == {"fire", "aim", "advance", "fire_moving"}
    empty = start._replace(band=0, ammo_a=0)
    # empty at très faible: only reload (no aim without a load, no advance)
    assert legal(game, empty, "a") == {"reload"}


def test_out_of_range_shot_is_illegal():
    # revolver de poche: optimal faible (1); grande (3) is two bands beyond: illegal;
    # moyenne (2) is one beyond: -1 die.
    game = pistol("weapon=pocket_revolver")
    start = game.initial_outcomes()[0][1]
    far = start._replace(band=3)
    assert "fire" not in legal(game, far, "a") and "fire_moving" not in legal(game, far, "a")
    assert game.shot_dice("a", 2, 0, False, False) == 2
    assert game.shot_dice("a", 0, 0, False, False) == 3  # no advantageous range


def test_shot_pools_by_hand():
    # duel pistol: +1 at très faible (advantageous), 0 at faible and moyenne, -1 at
    # grande; aim +1; fire_moving -1 and never aimed; wounded -1; never below 1 die.
    game = pistol("adresse")
    assert [game.shot_dice("a", band, 0, False, False) for band in range(4)] == [5, 4, 4, 3]
    assert game.shot_dice("a", 2, 0, True, False) == 5
    assert game.shot_dice("a", 3, 0, True, True) == 2   # 4 - 1 range - 1 moving
    assert game.shot_dice("a", 3, 2, False, True) == 1  # 4 - 1 - 1 - 1 = 1
    poor = pistol()
    assert poor.shot_dice("a", 3, 1, False, True) == 1  # 3 - 3 = 0 -> 1 die


def test_one_shot_by_hand():
    # A fires at moyenne with 3 dice at an unhurt B who aims. Totals 3d6: below 10 81
    # ways (miss); 10..14 115 ways (Blessé, resistance 3d6 vs 15: survives 20/216);
    # 15..18 20 ways (Grièvement Blessé, resistance vs 20: impossible, HC).
    game = pistol(wound_breaks_aim=False)  # the reading before the key: aim survives
    start = game.initial_outcomes()[0][1]
    out = dist(game, start, "fire", "aim")
    miss = Shot(1, 2, 0, 0, 0, 1, 0, 1)
    hurt = Shot(1, 2, 0, 1, 0, 1, 0, 1)
    down = Shot(0, 0, 0, 0, 0, 0, 0, 0, 2)  # A wins: B is out of combat
    assert out[miss] == pytest.approx(81 / 216)
    assert out[hurt] == pytest.approx(115 / 216 * 20 / 216)
    assert out[down] == pytest.approx(115 / 216 * 196 / 216 + 20 / 216)
    assert set(out) == {miss, hurt, down}


def test_each_intent_on_a_hand_built_state():
    game = pistol(a="weapon=revolver")
    s = Shot(3, 2, 0, 0, 3, 1, 1, 0)
    # aim then reload: reload adds two rounds (3 -> 5) and loses the aim; B's aim holds
    assert only(game, s, "reload", "aim") == Shot(4, 2, 0, 0, 5, 1, 0, 1)
    # advance: the distance falls one band, the mover loses his aim
    assert only(game, s, "advance", "aim") == Shot(4, 1, 0, 0, 3, 1, 0, 1)
    # one advancing is enough; both advancing still closes one band only; B's aim
    # survives A's advance (only the mover loses his)
    assert only(game, s._replace(aim_b=1), "aim", "advance") == Shot(4, 1, 0, 0, 3, 1, 1, 0)
    assert only(game, s, "advance", "advance") == Shot(4, 1, 0, 0, 3, 1, 0, 0)
    # reload fills at most to the cylinder: 5 -> 6
    assert only(game, s._replace(ammo_a=5), "reload", "aim").ammo_a == 6
    # fire_moving: shoots at moyenne with 3 + 0 - 1 = 2 dice (aim unused), then closes
    out = dist(game, s, "fire_moving", "aim")
    miss = Shot(4, 1, 0, 0, 2, 1, 0, 1)
    assert out[miss] == pytest.approx(1 - 6 / 36)  # 2d6 >= 10: 6 ways of 36
    # fire with the aim held: 4 dice at moyenne; 4d6 >= 10 is 1 - 126/1296
    out = dist(game, s, "fire", "aim")
    assert out[Shot(4, 2, 0, 0, 2, 1, 0, 1)] == pytest.approx(126 / 1296)


def test_aim_needs_a_load_and_is_lost_by_reloading():
    game = pistol()
    s = Shot(0, 0, 0, 0, 0, 1, 0, 0)
    assert "aim" not in legal(game, s, "a")
    assert only(game, s, "reload", "aim") == Shot(1, 0, 0, 0, 1, 1, 0, 1)


def test_advance_illegal_at_point_blank():
    game = pistol()
    s = Shot(0, 0, 0, 0, 1, 1, 0, 0)
    assert legal(game, s, "a") == {"fire", "aim"}


def test_simultaneous_shots_with_equal_atouts():
    # equal shooting Atouts: both shots resolve on the unhurt shooters; at très faible
    # each rolls 3 + 1 (Atout) + 1 (advantageous) = 5 dice: both fall with P(down)^2.
    game = pistol("tireur", "adresse")
    s = Shot(0, 0, 0, 0, 1, 1, 0, 0)
    miss, wounded, grave, killed = (float(x) for x in brute_shot(5))
    fail15 = float(brute_resistance(3, 15)[0])
    down = killed + grave + wounded * fail15  # 3d6 never reaches 20
    out = dist(game, s, "fire", "fire")
    assert out[Shot(0, 0, 0, 0, 0, 0, 0, 0, 5)] == pytest.approx(down * down)


def test_better_shooter_fires_first():
    # A (Adresse) shoots first with 5 dice at très faible; B (none) replies only if he
    # is still standing, with 4 dice, 3 if A's shot left him Blessé. Both never fall.
    game = pistol("adresse", "")
    s = Shot(0, 0, 0, 0, 1, 1, 0, 0)
    out = dist(game, s, "fire", "fire")
    assert Shot(0, 0, 0, 0, 0, 0, 0, 0, 5) not in out
    a_miss, a_w, a_g, a_k = (float(x) for x in brute_shot(5))
    fail15, _, keep15 = (float(x) for x in brute_resistance(3, 15))
    b_standing_unhurt = a_miss
    b_standing_hurt = a_w * keep15

    def drops(n):
        _, w, g, k = (float(x) for x in brute_shot(n))
        return k + g + w * fail15

    expected_a_down = b_standing_unhurt * drops(4) + b_standing_hurt * drops(3)
    a_down = sum(p for st, p in out.items() if st.ending in (3, 4))
    assert a_down == pytest.approx(expected_a_down)
    b_down = sum(p for st, p in out.items() if st.ending in (1, 2))
    assert b_down == pytest.approx(a_k + a_g + a_w * fail15)


def test_wounds_add_up_to_out_of_combat():
    # a Blessé hit on a Grièvement Blessé target (2 + 1 = 3) is Hors de Combat even
    # when the resistance test succeeds: 3d6 against 15 from 1d6... the shooter here
    # rolls with 1 die (grande, moving, wounded: 3 - 1 - 1 - 1) and cannot hit.
    game = pistol()
    s = Shot(0, 3, 2, 2, 1, 1, 0, 0)
    out = dist(game, s, "fire_moving", "aim")
    assert list(out.values()) == [pytest.approx(1.0)]
    # at très faible with 4 dice (3 + 1 - 1 wounded + 1 aimed) any hit drops B
    s = Shot(0, 0, 2, 2, 1, 1, 1, 0)
    out = dist(game, s, "fire", "aim")
    miss, *_ = brute_shot(4)
    assert out[Shot(0, 0, 0, 0, 0, 0, 0, 0, 2)] + out.get(
        Shot(0, 0, 0, 0, 0, 0, 0, 0, 1), 0) == pytest.approx(1 - float(miss))


def test_max_turns_then_draw():
    game = pistol(max_turns=1)
    s = game.initial_outcomes()[0][1]
    assert only(game, s, "aim", "aim").ending == 6


# ---------------------------------------------------------------- brute-force solve

def brute_point_blank(turns: int, first: str | None, skill_a: int, skill_b: int) -> float:
    """A duel-pistol duel at très faible, written from the specification alone:
    actions fire / aim / reload; pool 3 + Atouts + 1 (advantageous) + aim - wounds;
    resistance 3 dice; health 0..2, 3+ out; a kill is 'out' as well (payoff +-1)."""
    shot = {n: brute_shot(n) for n in range(1, 9)}
    r15, r20 = brute_resistance(3, 15), brute_resistance(3, 20)

    def hit(n, health):
        miss, w, g, k = shot[max(1, n)]
        out = {health: miss, 3: k}
        for p, sev, (fail, cancel, apply) in ((w, 1, r15), (g, 2, r20)):
            out[3] = out.get(3, 0) + p * fail
            out[health] = out.get(health, 0) + p * cancel
            new = min(3, health + sev)
            out[new] = out.get(new, 0) + p * apply
        return out

    def pool(skill, health, aim):
        return 3 + skill + 1 + aim - (1 if health else 0)

    def shots(ha, hb, fa, fb, aim_a, aim_b):
        if not fa and not fb:
            return {(ha, hb): F(1)}
        res: dict = {}
        if fa and fb and first:
            one, two = ("a", "b") if first == "a" else ("b", "a")
            h = {"a": ha, "b": hb}
            sk = {"a": (skill_a, aim_a), "b": (skill_b, aim_b)}
            for s2, p1 in hit(pool(sk[one][0], h[one], sk[one][1]), h[two]).items():
                if s2 >= 3:
                    key = {one: h[one], two: s2}
                    res[(key["a"], key["b"])] = res.get((key["a"], key["b"]), 0) + p1
                    continue
                for s1, p2 in hit(pool(sk[two][0], s2, sk[two][1]), h[one]).items():
                    key = {one: s1, two: s2}
                    res[(key["a"], key["b"])] = res.get((key["a"], key["b"]), 0) + p1 * p2
            return res
        da = hit(pool(skill_b, hb, aim_b), ha) if fb else {ha: F(1)}
        db = hit(pool(skill_a, ha, aim_a), hb) if fa else {hb: F(1)}
        for x, px in da.items():
            for y, py in db.items():
                res[(x, y)] = res.get((x, y), 0) + px * py
        return res

    memo: dict = {}

    def value(turn, ha, hb, la, lb, aim_a, aim_b):
        if turn == turns:
            return 0.0
        key = (turn, ha, hb, la, lb, aim_a, aim_b)
        if key in memo:
            return memo[key]
        acts_a = (["fire", "aim"] if la else []) + ([] if la else ["reload"])
        acts_b = (["fire", "aim"] if lb else []) + ([] if lb else ["reload"])
        m = np.zeros((len(acts_a), len(acts_b)))
        for i, xa in enumerate(acts_a):
            for j, xb in enumerate(acts_b):
                total = 0.0
                for (sa, sb), p in shots(ha, hb, xa == "fire", xb == "fire", aim_a,
                                         aim_b).items():
                    if sa >= 3 or sb >= 3:
                        v = 0.0 if sa >= 3 and sb >= 3 else 1.0 if sb >= 3 else -1.0
                    else:
                        na = la - (xa == "fire") + (xa == "reload")
                        nb = lb - (xb == "fire") + (xb == "reload")
                        v = value(turn + 1, sa, sb, na, nb, int(xa == "aim"),
                                  int(xb == "aim"))
                    total += float(p) * v
                m[i, j] = total
        memo[key] = linprog_value(m)
        return memo[key]

    return value(0, 0, 0, 1, 1, 0, 0)


@pytest.mark.parametrize("a,b,first,skills", [
    ("", "", None, (0, 0)),
    ("adresse", "", "a", (1, 0)),
    ("tireur", "adresse,sang-froid", "b", (1, 2)),
])
def test_point_blank_duel_matches_brute_force(a, b, first, skills):
    # the reference keeps the aim through a wound: the reading before the key
    game = pistol(a, b, start_band="tres_faible", max_turns=4, wound_breaks_aim=False)
    expected = brute_point_blank(4, first, *skills)
    assert solve_game(game).value == pytest.approx(expected, abs=1e-7)


def test_mirrored_pistol_duel_is_worth_zero():
    game = pistol("tireur", "tireur", max_turns=6)
    assert solve_game(game).value == pytest.approx(0.0, abs=1e-9)


def test_better_shooter_is_favoured():
    game = pistol("adresse,tireur", "sang-froid", max_turns=8)
    assert solve_game(game).value > 0.5


# ---------------------------------------------------------------- the melee

def test_melee_pools_by_hand():
    # bare hands: 3 + Athlète + Pugiliste (fighting) = 5, grappling 4 (no Pugiliste);
    # épée with Escrimeur: 3 + 1 (Escrimeur, duel weapon) + 1 (weapon) = 5; a hache
    # with Escrimeur: 3 + 2 = 5 (not a duel weapon); break-off 3 + Athlète.
    game = melee("athlete,pugiliste", "escrimeur,weapon=epee")
    s = game.initial_outcomes()[0][1]
    assert game.confrontation_dice(s, "a", act(ACTIONS, "fight")) == 5
    assert game.confrontation_dice(s, "a", act(ACTIONS, "grapple")) == 4
    assert game.confrontation_dice(s, "b", act(ACTIONS, "fight")) == 5
    assert game.break_dice(s, "a") == 4 and game.break_dice(s, "b") == 3
    axe = melee("escrimeur,weapon=hache")
    assert axe.confrontation_dice(s, "a", FIGHT) == 5
    # wounded, grappled twice and fumbled: 5 - 1 - 2 - 1 = 1
    hurt = s._replace(health_a=1, grip_a=2, fumble_a=1)
    assert game.confrontation_dice(hurt, "a", FIGHT) == 1
    assert game.break_dice(hurt, "a") == 1  # 4 - 4 -> never below 1


def test_grapple_only_unarmed():
    game = melee("", "weapon=couteau")
    s = game.initial_outcomes()[0][1]
    assert legal(game, s, "a") == {"fight", "grapple", "break_off"}
    assert legal(game, s, "b") == {"fight", "break_off"}


def test_break_off_against_a_fighter():
    # A breaks off: 3d6 against 15 succeeds 20/216 (flight, -0.5 for A). Otherwise B's
    # margin is his whole 3d6 total: 3..4 minor (1 + 3 = 4 ways), 5..9 significant
    # (6+10+15+21+25 = 77), 10+ exceptional (135); bare hands, so any wound is +1 with
    # a resistance test of 3d6 vs 10 (significant: fails 81/216) or vs 15 (exceptional:
    # fails 196/216).
    game = melee()
    s = game.initial_outcomes()[0][1]
    out = dist(game, s, "break_off", "fight")
    flee = F(20, 216)
    assert out[Bout(0, 0, 0, 0, 0, 0, 0, ending=8)] == pytest.approx(float(flee))
    assert game.payoff(Bout(0, 0, 0, 0, 0, 0, 0, ending=8)) == -0.5
    out_of_combat = (1 - flee) * (F(77, 216) * F(81, 216) + F(135, 216) * F(196, 216))
    assert out[Bout(0, 0, 0, 0, 0, 0, 0, ending=5)] == pytest.approx(float(out_of_combat))
    # B fumbles (three 1s, total 3: a minor margin) 1/216: next round he has -1 die
    fumbled = Bout(1, 0, 0, 0, 0, 0, 1)
    assert out[fumbled] == pytest.approx(float((1 - flee) * F(1, 216)))


def test_both_break_off():
    game = melee()
    s = game.initial_outcomes()[0][1]
    out = dist(game, s, "break_off", "break_off")
    p = 20 / 216
    assert out[Bout(0, 0, 0, 0, 0, 0, 0, ending=9)] == pytest.approx(p * p)  # walk away
    assert out[Bout(0, 0, 0, 0, 0, 0, 0, ending=4)] == pytest.approx((1 - p) * p)  # B flees
    assert out[Bout(1, 0, 0, 0, 0, 0, 0)] == pytest.approx((1 - p) ** 2)


def test_fight_effects_by_margin():
    # épée (blade) against bare hands: an exceptional margin is +2 (Grièvement Blessé)
    # after a resistance test vs 15; A may disarm instead only if B holds a weapon: here
    # B is unarmed, so no sequential step. Brute force over the 4d6 vs 3d6 roll.
    game = melee("weapon=epee", "")
    s = game.initial_outcomes()[0][1]
    out = dist(game, s, "fight", "fight")
    sig = exc = 0
    for ra in faces(4):
        for rb in faces(3):
            m = sum(ra) - sum(rb)
            sig += 5 <= m < 10
            exc += m >= 10
    sig, exc = F(sig, 6 ** 7), F(exc, 6 ** 7)
    # health 2 for B: exceptional and the test vs 15 passed (20/216, cancel impossible)
    grave = sum(p for st, p in out.items() if not st.ending and st.health_b == 2)
    assert grave == pytest.approx(float(exc * F(20, 216)))
    # health 1: significant and the test vs 10 passed (135/216)
    hurt = sum(p for st, p in out.items() if not st.ending and st.health_b == 1)
    assert hurt == pytest.approx(float(sig * F(135, 216)))


def test_disarm_is_a_sequential_choice():
    # A (épée) beats an armed B (couteau) by 10+: A chooses between press and disarm;
    # B waits. Disarming ends the duel as B's loss. (Both are armed: either may get the
    # choice, and only on an exceptional margin.)
    game = melee("weapon=epee", "weapon=couteau")
    s = game.initial_outcomes()[0][1]
    out = dist(game, s, "fight", "fight")
    pending = [st for st in out if st.chooser]
    assert {st.chooser for st in pending} == {1, 2} and {st.margin for st in pending} == {2}
    st = next(st for st in pending if st.chooser == 1)
    assert legal(game, st, "a") == {"press", "disarm"}
    assert legal(game, st, "b") == {"wait"}
    done = only(game, st, "disarm", "wait")
    assert done.ending == 2 and game.payoff(done) == 1.0
    # pressing instead: blade exceptional, +2 after a test vs 15 (3 dice: 20/216 pass)
    pressed = dist(game, st, "press", "wait")
    assert pressed[Bout(1, 0, 2, 0, 0, st.fumble_a, st.fumble_b)] == pytest.approx(20 / 216)
    # the equilibrium always disarms
    sol = solve_game(melee("weapon=epee", "weapon=couteau", max_rounds=3))
    mix_a, _ = sol.policy(st._replace(round=0))
    assert mix_a[act(ACTIONS, "disarm")] == pytest.approx(1.0)


def test_grapple_effects_and_escape():
    game = melee()
    grapple, fight = act(ACTIONS, "grapple"), act(ACTIONS, "fight")
    s = Bout(0, 0, 0, 0, 0, 0, 0)
    # A grapples with a significant margin: B gets one die of grapple penalty
    res = game._apply(s, "a", grapple, 1)
    assert res == [(1, Bout(1, 0, 0, 0, 1, 0, 0))]
    # exceptional: immobilised, A wins (+1)
    ((_, end),) = game._apply(s, "a", grapple, 2)
    assert end.ending == 3 and game.payoff(end) == 1.0
    # B's full pool is 3 dice: a third significant grapple takes it to 0: immobilised
    ((_, end),) = game._apply(s._replace(grip_b=2), "a", grapple, 1)
    assert end.ending == 3
    # a grappled winner (B, grip 1) with a significant margin chooses: press or free
    held = Bout(4, 0, 0, 0, 1, 0, 0, chooser=2, intent=0, margin=1)
    assert legal(game, held, "b") == {"press", "free"}
    assert only(game, held, "wait", "free") == Bout(5, 0, 0, 0, 0, 0, 0)
    # an exceptional margin frees him entirely
    held2 = Bout(4, 0, 0, 0, 2, 0, 0, chooser=2, intent=1, margin=2)
    assert only(game, held2, "wait", "free") == Bout(5, 0, 0, 0, 0, 0, 0)
    # pressing a grapple instead keeps his own penalty
    assert only(game, held2, "wait", "press").ending == 7  # B wins: A is immobilised
    assert fight == FIGHT


def test_grappled_winner_gets_the_choice_in_play():
    game = melee()
    s = Bout(0, 0, 0, 0, 1, 0, 0)
    out = dist(game, s, "fight", "fight")
    assert any(st.chooser == 2 for st in out)   # B, grappled, won by 5+
    assert not any(st.chooser == 1 for st in out)  # A is free: his win applies at once


def test_melee_time_limit_and_mirror():
    game = melee(max_rounds=1)
    s = game.initial_outcomes()[0][1]
    out = dist(game, s, "fight", "fight")
    assert Bout(0, 0, 0, 0, 0, 0, 0, ending=10) in out
    assert solve_game(melee("athlete", "athlete", max_rounds=4)).value == pytest.approx(
        0.0, abs=1e-9)


# ---------------------------------------------------------------- presentation, input

def test_situation_words():
    game = pistol()
    s = Shot(0, 2, 0, 0, 1, 0, 1, 0)
    text = game.situation(s, "a")
    assert "twenty paces" in text and "loaded, aimed" in text
    assert "fired his only shot" in text
    assert "twenty paces" in game.describe(s)
    assert "A takes aim" in game.narrate(s, 1, 3, Shot(1, 2, 0, 0, 1, 1, 1, 0))
    m = melee()
    assert "break off" in m.situation(m.initial_outcomes()[0][1], "b")


def test_state_from_and_fields():
    game = pistol()
    s = game.state_from({"band": "faible", "aim_a": "1"})
    assert s == Shot(0, 1, 0, 0, 1, 1, 1, 0)
    assert game.state_from(game.state_fields(s)) == s
    with pytest.raises(InputError, match="allowed"):
        game.state_from({"distance": 1})
    with pytest.raises(InputError, match="0..3"):
        game.state_from({"band": 7})


def test_observations_are_from_own_side():
    game = pistol("weapon=revolver")
    s = Shot(2, 1, 1, 0, 4, 0, 1, 0)
    zeros = (0,) * 7  # the melee's fields
    assert game.observe(s, "a") == (0, 2, 1, 1, 0, 4, 0, 1, 0) + zeros + (0,)
    assert game.observe(s, "b") == (0, 2, 1, 0, 1, 0, 4, 0, 1) + zeros + (0,)


def test_full_names_and_accents_accepted():
    game = pistol("Adresse Exceptionnelle,Sang-froid Exceptionnel", "excellent tireur")
    assert game.sheets["a"]["adresse"] and game.sheets["a"]["sang_froid"]
    assert game.sheets["b"]["tireur"]
    m = melee("weapon=Épée,Athlète Accompli,volonté de fer")
    assert m.weapon["a"].name == "épée" and m.resist_dice["a"] == 4


@pytest.mark.parametrize("kwargs,match", [
    (dict(a="sharpshooter"), "allowed:.*adresse"),
    (dict(a="weapon=bazooka"), "allowed:.*duel_pistol"),
    (dict(mode="chess"), "allowed: pistol, melee"),
    (dict(speed=3), "allowed: mode"),
    (dict(a="weapon=epee"), "not a firearm.*allowed: duel_pistol"),
    (dict(mode="melee", b="weapon=revolver"), "not a melee weapon.*allowed: none"),
    (dict(start_band="far"), "allowed: tres_faible"),
    (dict(max_turns=0), "max_turns"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(InputError, match=match):
        envs.make("uchronia", **kwargs)


def test_illegal_action_is_an_input_error():
    game = pistol()
    s = Shot(0, 0, 0, 0, 1, 1, 0, 0)
    with pytest.raises(InputError, match="legal: fire, aim"):
        game.outcomes(s, act(ACTIONS, "advance"), 0)
