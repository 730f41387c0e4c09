"""The belief of a Trio card seat (solver/trio_cards/belief.py): consistency, exactness, no peeking.

* Every sampled deal is consistent: the public history of a reference game is
  replayed on the deal the sample implies (the sampled hidden cards plus the
  trios put back where they came from) and every reveal shows the card it
  showed in the game.
* The exact marginals of the dynamic programme, and the sampler's frequencies,
  equal a brute-force enumeration of every placement of the distinguishable
  hidden cards on small hand-made situations.
* The programme's walk: the odometer visits exactly the valid states, and the
  placement test by copy masks agrees with adding the copies, on game positions.
* No peeking: replacing the hidden cards by another consistent deal changes
  neither the belief's output (marginals, samples) nor the ``deduce`` choice.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest
from test_trio_cards import to_engine
from trilab.solver.rng import PyRng
from trilab.solver.trio_cards import belief as bl
from trilab.solver.trio_cards import deduce as dd
from trilab.solver.trio_cards import game as tc
from trilab.solver.trio_cards import reference as ref

FREE = np.array([[1, 12]] * tc.MAX_PLAYERS, dtype=np.int64)


def bounds(table: ref.Table) -> np.ndarray:
    out = FREE.copy()
    out[:table.n] = table.bounds
    return out


def record_game(players: int, teams: bool, mode: str, seed: int, stop: int, memory: bool):
    """Play a reference game for ``stop`` reveals (or to its end); returns the table,
    the seat to move and the public history ``[(seat, action, value)]``."""
    opts = ref.parse_options({"players": players, "mode": mode, "teams": teams,
                              "policies": ["memory" if memory else "random"]})
    rng = PyRng(seed, 0)
    table = ref.new_table(rng, opts)
    history = []
    for turn in range(500):
        seat = turn % players
        while True:
            if len(history) >= stop:
                return table, seat, history
            a = ref.choose(table, seat, opts["seats"][seat][0], rng)
            kind, p = a
            value = table.middle[p] if kind == "mid" else (
                table.hands[p][0] if kind == "low" else table.hands[p][-1])
            history.append((seat, a, value))
            got = table.reveal(a, table.team_of(seat))
            if got == 0:
                continue
            if got > 0:
                if table.result(table.team_of(seat)) is not None:
                    return table, None, history
                if teams:
                    table.swap(table.team_of(seat))
            break
    return table, None, history


def replay_consistent(players: int, mode: str, history, hands, middle, observer: int,
                      own_hand: list[int]) -> bool:
    """Rebuild the deal a sampled current position implies and replay ``history`` on it."""
    # the trios taken: which hands / slots their cards came from
    init_hands = [list(h) for h in hands]
    init_mid = list(middle)
    up = []
    for _, (kind, p), v in history:
        if up and v != up[0][2]:
            up = []
            continue
        up.append((kind, p, v))
        if len(up) == 3:
            for kind2, q, w in up:
                if kind2 == "mid":
                    init_mid[q] = w
                else:
                    init_hands[q].append(w)
            up = []
    size, _ = ref.DEALS[players]
    if any(len(h) != size for h in init_hands):
        return False
    deck = [v for h in init_hands for v in sorted(h)] + init_mid
    if sorted(deck) != [v for v in range(1, 13) for _ in range(3)]:
        return False
    table = ref.Table(players, mode, False, deck)
    for seat, (kind, p), v in history:
        shown = table.middle[p] if kind == "mid" else (
            table.hands[p][0] if kind == "low" else table.hands[p][-1])
        if shown != v:
            return False
        table.reveal((kind, p), table.team_of(seat))
    cur_own = sorted(table.hands[observer] + [w for k, q, w in table.faceup
                                              if k != "mid" and q == observer])
    return cur_own == own_hand


@pytest.mark.parametrize("players, memory", [(3, True), (3, False), (4, True), (5, False),
                                             (6, True)])
def test_every_sampled_deal_replays_the_public_history(players, memory):
    r = random.Random(players)
    _, m = ref.DEALS[players]
    checked = 0
    for g in range(12):
        stop = r.randrange(3, 80)
        table, seat, history = record_game(players, False, "simple", 100 + g, stop, memory)
        st = to_engine(table)
        bnd = bounds(table)
        for o in range(players):
            z, hands, mid = bl.sample_deals(st, bnd, o, players, m, 40, seed=g)
            assert z > 0
            own = [int(x) for x in st.hands[o, :st.hsize[o]]]
            for k in range(40):
                hs = [[int(x) for x in hands[k, q, :st.hsize[q]]] for q in range(players)]
                ms = [int(x) if st.mid[j] else None for j, x in enumerate(mid[k, :m])]
                assert all(h == sorted(h) and 0 not in h for h in hs)
                assert all(x != 0 for x in ms if x is not None)
                assert replay_consistent(players, "simple", history, hs,
                                         [x if x is not None else 0 for x in ms], o, own)
                checked += 1
    assert checked >= 40 * 12 * 3


@pytest.mark.parametrize("players", [4, 6])
def test_team_samples_agree_with_everything_retained(players):
    """Team play: the belief keeps what the records keep (a swap erases the records of both
    hands); a sample agrees with the own hand, every record and the card counts."""
    for g in range(8):
        table, _, history = record_game(players, True, "spicy", 300 + g, 10 + 9 * g, True)
        st = to_engine(table)
        bnd = bounds(table)
        for o in range(players):
            z, hands, mid = bl.sample_deals(st, bnd, o, players, 0, 20, seed=g)
            assert z > 0
            for k in range(20):
                assert_deal_agrees(st, o, players, 0, hands[k], mid[k])


# ---------------------------------------------------------------- exact enumeration


def small_situation(seed: int):
    """A hand-made late position of 3 players: four values left (12 cards), trios of the
    other eight taken, cards spread over the hands and the middle, some cards recorded
    (true records), one turn in progress or none."""
    r = random.Random(seed)
    values = sorted(r.sample(range(1, 13), 4))
    cards = [v for v in values for _ in range(3)]
    r.shuffle(cards)
    sizes = r.choice([(3, 3, 3, 3), (4, 3, 2, 3), (2, 4, 4, 2), (3, 5, 2, 2), (4, 4, 4, 0)])
    st = tc.new_state()
    at = 0
    for p in range(3):
        h = sorted(cards[at:at + sizes[p]])
        at += sizes[p]
        st.hands[p, :len(h)] = h
        st.hsize[p] = len(h)
    for j in range(sizes[3]):
        st.mid[2 + j] = cards[at + j]  # slots 0, 1 emptied by trios
    for v in range(1, 13):
        if v not in values:
            st.owner[v] = r.randrange(3)
    for o in range(3):
        for q in range(3):
            for i in range(st.hsize[q]):
                if q != o and r.random() < 0.3:
                    st.hknow[o, q, i] = st.hands[q, i]
        for j in range(tc.MAX_MIDDLE):
            if st.mid[j] and r.random() < 0.3:
                st.mknow[o, j] = st.mid[j]
    bnd = FREE.copy()
    for q in range(3):
        if st.hsize[q] and r.random() < 0.5:  # true public bounds, as trios leave them
            bnd[q] = (r.randint(1, st.hands[q, 0]), r.randint(st.hands[q, st.hsize[q] - 1], 12))
    return st, bnd


def brute_force(st, bnd, o: int, n: int, n_mid: int):
    """Exact marginals by enumerating every placement of the distinguishable hidden cards
    (all copies not in a trio nor in the seat's hand) and keeping the consistent ones."""
    pool = []
    for v in range(1, 13):
        if st.owner[v] < 0:
            pool += [(v, c) for c in range(3 - int((st.hands[o, :st.hsize[o]] == v).sum()))]
    others = [q for q in range(n) if q != o]
    slots = [j for j in range(n_mid) if st.mid[j]]
    hand = {(q, i): Counter() for q in others for i in range(st.hsize[q])}
    middle = {j: Counter() for j in slots}
    total = 0

    def rec(rest, k, chosen):
        nonlocal total
        if k == len(others):
            for perm in itertools.permutations(rest):
                if any(st.mknow[o, j] and st.mknow[o, j] != perm[t][0]
                       for t, j in enumerate(slots)):
                    continue
                total += 1
                for q, h in chosen:
                    for i, v in enumerate(h):
                        hand[(q, i)][v] += 1
                for t, j in enumerate(slots):
                    middle[j][perm[t][0]] += 1
            return
        q = others[k]
        for combo in itertools.combinations(range(len(rest)), int(st.hsize[q])):
            h = sorted(rest[c][0] for c in combo)
            if any(st.hknow[o, q, i] and st.hknow[o, q, i] != h[i] for i in range(len(h))):
                continue
            if h and not bnd[q, 0] <= h[0] <= h[-1] <= bnd[q, 1]:
                continue
            left = [x for c, x in enumerate(rest) if c not in combo]
            rec(left, k + 1, chosen + [(q, h)])

    rec(pool, 0, [])
    return total, hand, middle


@pytest.mark.parametrize("seed", range(10))
def test_marginals_equal_brute_force_enumeration(seed):
    st, bnd = small_situation(seed)
    for o in range(3):
        total, hand, middle = brute_force(st, bnd, o, 3, tc.MAX_MIDDLE)
        assert total > 0
        z, marg, pmarg = bl.belief_marginals(st, bnd, o, 3, tc.MAX_MIDDLE)
        assert z > 0
        for (q, i), cnt in hand.items():
            for v in range(1, 13):
                want = cnt[v] / total
                got = 1.0 if st.hknow[o, q, i] == v else (
                    0.0 if st.hknow[o, q, i] else marg[q, i, v])
                assert got == pytest.approx(want, abs=1e-12), (o, q, i, v)
        for j, cnt in middle.items():
            for v in range(1, 13):
                want = cnt[v] / total
                got = (1.0 if st.mknow[o, j] == v else 0.0) if st.mknow[o, j] else pmarg[v]
                assert got == pytest.approx(want, abs=1e-12), (o, j, v)
        # the sampler's frequencies
        n = 4000
        _, hands, mids = bl.sample_deals(st, bnd, o, 3, tc.MAX_MIDDLE, n, seed=seed)
        for (q, i), cnt in hand.items():
            freq = Counter(int(x) for x in hands[:, q, i])
            for v in range(1, 13):
                p = cnt[v] / total
                assert abs(freq[v] / n - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-9, (q, i, v)
        for j, cnt in middle.items():
            freq = Counter(int(x) for x in mids[:, j])
            for v in range(1, 13):
                p = cnt[v] / total
                assert abs(freq[v] / n - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-9, (j, v)


def visited_states(v: int, bi: np.ndarray) -> list[tuple[int, list[int]]]:
    """The states of layer ``v`` the passes visit (odometer), with their fills."""
    out = []
    s = bl._first_state(v, bi)
    while s >= 0:
        out.append((s, [int(x) for x in bi[bl.FILL:bl.FILL + bl.MAXC]]))
        s = bl._next_state(v, s, bi)
    return out


def placement_target(v: int, j: int, fill: list[int], bi: np.ndarray) -> tuple[int, str]:
    """The state of layer ``v`` placement ``j`` leads to from ``fill`` (layer ``v - 1``),
    by definition: add its copies, every container of the layer within its size, those
    that end at ``v`` full; -1 and why otherwise."""
    fill = list(fill)
    for i in range(bi[bl.L_NALL + v]):
        c = bi[bl.L_ALL + bl.MAXC * v + i]
        if bi[bl.C_L + c] == v:
            fill[c] = 0
    row = bl.CMB + bl.CMB_W * j
    for u in range(bi[row]):
        fill[bi[row + 1 + 2 * u]] += bi[row + 2 + 2 * u]
    for i in range(bi[bl.L_NALL + v]):
        c = bi[bl.L_ALL + bl.MAXC * v + i]
        if fill[c] > bi[bl.C_K + c]:
            return -1, "overflow"
    for i in range(bi[bl.L_NALL + v]):
        c = bi[bl.L_ALL + bl.MAXC * v + i]
        if bi[bl.C_U + c] == v and fill[c] != bi[bl.C_K + c]:
            return -1, "not full"
    return sum(bi[bl.L_STR + bl.MAXC * v + i] * fill[bi[bl.L_ACT + bl.MAXC * v + i]]
               for i in range(bi[bl.L_NA + v])), ""


def test_state_walk_and_placement_masks_match_the_definition():
    """The passes visit exactly the valid states (every index decoded, in order) and the
    placement test by copy masks (:func:`belief._combo_state`) agrees with adding the
    copies and checking every container, for every state and placement of positions of
    3-6 players; placements are accepted and rejected for both reasons."""
    outcomes = Counter()
    for players, seed in [(3, 1), (3, 4), (4, 2), (5, 3), (6, 5)]:
        outcomes += walk_and_test_placements(players, seed)
    assert outcomes[""] > 0 and outcomes["overflow"] > 0 and outcomes["not full"] > 0, outcomes


def walk_and_test_placements(players: int, seed: int) -> Counter:
    table, seat, _ = record_game(players, False, "simple", seed, 4 + 3 * seed, True)
    assert seat is not None
    st = to_engine(table)
    bi, bf = bl.new_workspace()
    z = bl.compute(seat, players, len(table.middle), st.hands, st.hsize, st.mid, st.owner,
                   st.hknow, st.mknow, bounds(table), bi, bf, False)
    assert z > 0
    outcomes = Counter()
    for v in range(bl.N_LAYERS):
        decoded = []
        for s in range(bi[bl.L_SIZE + v]):
            if bl._decode(v, s, bi):
                decoded.append((s, [int(x) for x in bi[bl.FILL:bl.FILL + bl.MAXC]]))
        walked = visited_states(v, bi)
        assert [s for s, _ in walked] == [s for s, _ in decoded], (players, seed, v)
        for (_, f1), (_, f2) in zip(walked, decoded):
            active = [bi[bl.L_ALL + bl.MAXC * v + i] for i in range(bi[bl.L_NALL + v])]
            assert [f1[c] for c in active] == [f2[c] for c in active]
        if v == bl.N_VALUES:
            break
        for s, fill in decoded:
            bi[bl.FILL:bl.FILL + bl.MAXC] = fill
            bl._start_layer(v + 1, bi)
            base, room, must = bl._prepare(v + 1, bi)
            for j in range(bi[bl.L_CMB + v + 1], bi[bl.L_CMB + v + 2]):
                want, why = placement_target(v + 1, j, fill, bi)
                assert bl._combo_state(j, base, room, must, bi) == want, (v, s, j, why)
                outcomes[why] += 1
    return outcomes


def test_sortedness_and_bounds_are_used():
    """An unknown position lies between the known values around it (the hand's bounds at
    the ends), and its probabilities sum to one."""
    for seed in range(6):
        st, bnd = small_situation(seed)
        z, marg, _ = bl.belief_marginals(st, bnd, 0, 3, tc.MAX_MIDDLE)
        assert z > 0
        for q in (1, 2):
            for i in range(st.hsize[q]):
                if st.hknow[0, q, i]:
                    continue
                lo = max([st.hknow[0, q, k] for k in range(i) if st.hknow[0, q, k]],
                         default=bnd[q, 0])
                hi = min([st.hknow[0, q, k] for k in range(i + 1, st.hsize[q])
                          if st.hknow[0, q, k]], default=bnd[q, 1])
                assert marg[q, i, :lo].sum() == 0 and marg[q, i, hi + 1:].sum() == 0
                assert marg[q, i].sum() == pytest.approx(1.0)


# ---------------------------------------------------------------- no peeking


def deduce_of(st, bnd, o: int, n: int, n_mid: int, teams: bool, mode: str = "simple") -> int:
    """The ``deduce`` reveal of seat ``o`` in engine state ``st`` (-1: no belief)."""
    legal = np.zeros(tc.MAX_ACTIONS, dtype=np.int64)
    k = tc.legal_reveals(n, n_mid, st.hsize, st.rlo, st.rhi, st.mid, st.mrev, legal)
    bi, bf = bl.new_workspace()
    f = np.zeros(tc.MAX_ACTIONS)
    team = o % (n // 2) if teams else o
    return int(dd.deduce_choice(
        o, team, tc.MODES.index(mode), n, n_mid, st.hands, st.hsize, st.rlo, st.rhi, st.mid,
        st.mrev, st.turn, st.owner, st.hknow, st.mknow, bnd, legal, k, bi, bf, f,
        np.zeros(6, np.int64), np.zeros(6, np.int64), np.zeros(6), np.zeros(6),
        np.zeros(9, np.int64)))


def assert_deal_agrees(st, o: int, n: int, n_mid: int, hands, mid) -> None:
    """A complete deal agrees with everything seat ``o`` knows in ``st``: sorted hands of
    the right sizes, its own hand, every record of the other hands and of the middle
    (the first ``n_mid`` slots), and three copies of every value not taken in a trio."""
    counts = Counter()
    for q in range(n):
        h = hands[q, :st.hsize[q]]
        assert list(h) == sorted(h) and 0 not in h
        counts.update(int(x) for x in h)
        for i in range(st.hsize[q]):
            if q == o:
                assert h[i] == st.hands[o, i]
            elif st.hknow[o, q, i]:
                assert h[i] == st.hknow[o, q, i]
    for j in range(n_mid):
        assert (mid[j] != 0) == (st.mid[j] != 0)
        if st.mid[j] and st.mknow[o, j]:
            assert mid[j] == st.mknow[o, j]
    counts.update(int(x) for x in mid[:n_mid] if x)
    for v in range(1, 13):
        assert counts[v] == (0 if st.owner[v] >= 0 else 3)


def hidden_swapped(st, bnd, o: int, n: int, n_mid: int, seed: int):
    """The same position for seat ``o`` with other hidden cards: a deal drawn from the
    belief itself (same own hand, records, sizes, trios; other unknown cards)."""
    z, hands, mid = bl.sample_deals(st, bnd, o, n, n_mid, 1, seed=seed)
    other = st.copy()
    other.hands[:] = hands[0]
    for j in range(n_mid):
        if st.mid[j]:
            other.mid[j] = mid[0, j]
    return other


@pytest.mark.parametrize("players, teams", [(3, False), (4, False), (6, True)])
def test_changing_only_hidden_cards_changes_nothing_the_seat_uses(players, teams):
    _, m = tc.DEAL[(players, teams)]
    changed = 0
    for g in range(10):
        table, seat, _ = record_game(players, teams, "simple", 700 + g, 5 + 7 * g, True)
        st = to_engine(table)
        bnd = bounds(table)
        for o in range(players):
            other = hidden_swapped(st, bnd, o, players, m, seed=g)
            changed += int(not np.array_equal(other.hands, st.hands) or
                           not np.array_equal(other.mid, st.mid))
            a = bl.belief_marginals(st, bnd, o, players, m)
            b = bl.belief_marginals(other, bnd, o, players, m)
            assert a[0] == b[0]
            np.testing.assert_array_equal(a[1], b[1])
            np.testing.assert_array_equal(a[2], b[2])
            assert deduce_of(st, bnd, o, players, m, teams) == deduce_of(
                other, bnd, o, players, m, teams)
            sa = bl.sample_deals(st, bnd, o, players, m, 5, seed=1)
            sb = bl.sample_deals(other, bnd, o, players, m, 5, seed=1)
            np.testing.assert_array_equal(sa[1], sb[1])
            np.testing.assert_array_equal(sa[2], sb[2])
    assert changed > 10
