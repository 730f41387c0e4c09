"""``infer:K`` of the Trio card game (solver/trio_cards/infer.py).

* The decision log: against ``deduce`` opponents the true deal explains every
  logged decision of the other seats (its weight is 1), while deals drawn from
  the belief often do not (the evidence is real); the log is emptied by a trio and
  keeps the most recent decisions when full.
* Without another seat's decision on record, ``infer`` plays ``deduce`` exactly.
* With evidence, its posterior equals a Python restatement of the module
  docstring (deals from the same stream, weights by the logged decisions, the
  smoothing with the exact belief) and its reveal is ``deduce``'s rules on it.
* No peeking: the same position and log with other hidden cards give the same
  choice from the same stream.
* Games are reproducible and do not depend on the chunks; every table size plays
  to the end; bad deal counts, and tables with a ``forgetful`` seat (whose records
  are private), are refused in one line.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_trio_belief import deduce_of, hidden_swapped
from test_trio_ismcts import assert_plays_to_the_end, play
from trilab.solver.rng import game_stream
from trilab.solver.trio_cards import belief as bl
from trilab.solver.trio_cards import deduce as dd
from trilab.solver.trio_cards import game as tc
from trilab.solver.trio_cards import infer, rules


def scratch():
    return (np.zeros(tc.MAX_ACTIONS), np.zeros(6, np.int64), np.zeros(6, np.int64),
            np.zeros(6), np.zeros(6), np.zeros(9, np.int64))


def logged_decisions(players: int, teams: bool, seed: int, reveals: int):
    """Play ``deduce`` in every seat on the engine, logging every decision as the engine
    does for an ``infer`` seat; yields ``(state, bounds, seat, team, snap, n_snap, trio)``
    before each reveal (``trio``: the last reveal made a trio)."""
    cfg = tc.make_config({"players": players, "teams": teams, "policies": ["deduce"]})
    icfg = cfg.icfg
    n_mid = int(icfg[rules.I_MIDDLE])
    team = np.zeros(tc.MAX_PLAYERS, np.int64)
    tc.fill_teams(players, teams, team)
    st = tc.new_state()
    rs = game_stream(np.uint64(seed), np.uint64(0))
    deck = np.zeros(tc.N_CARDS, np.int64)
    tc.deal(rs, players, int(icfg[rules.I_HAND]), n_mid, deck, st.hands, st.hsize, st.mid)
    tc.end_turn(st.rlo, st.rhi, st.mrev, st.turn)
    bnd = np.array([[1, 12]] * tc.MAX_PLAYERS, np.int64)
    acc = np.zeros(tc.N_VALUES + 1, np.int64)
    tacts = np.zeros(3, np.int64)
    h = np.uint64(0)
    if teams:
        h = np.uint64(tc.team_swaps(-1, players, st.hands, st.hsize, st.hknow, acc, h))
    snap, _, _ = infer.new_workspace()
    n_snap = 0
    trio = False
    made = 0
    for tn in range(500):
        p = tn % players
        while made < reveals:
            yield st, bnd, p, team, snap, n_snap, trio
            a = deduce_of(st, bnd, p, players, n_mid, teams)
            assert a >= 0
            n_snap = infer.record(snap, n_snap, p, a, st.hsize, st.rlo, st.rhi, st.mrev,
                                  st.turn, st.owner, st.hknow, st.mknow, bnd)
            status, h = rules.reveal_step(a, p, icfg, team, st.hands, st.hsize, st.rlo,
                                          st.rhi, st.mid, st.mrev, st.turn, st.owner,
                                          st.hknow, st.mknow, bnd, tacts, acc, True, h)
            h = np.uint64(h)
            made += 1
            trio = status == rules.TRIO
            if trio:
                n_snap = 0
            if status >= rules.WON:
                return
            if status != rules.GO_ON:
                break
        if made >= reveals:
            return


def explains(snap, s, deal_hands, deal_mid, players, n_mid, team):
    _, iw, _ = infer.new_workspace()
    iw[infer.O_HANDS:infer.O_MID] = deal_hands.ravel()
    iw[infer.O_MID:infer.O_HSIZE] = deal_mid
    bi2, bf2 = bl.new_workspace()
    return bool(infer.explains(s, snap, team, 0, players, n_mid, iw, bi2, bf2, *scratch()))


@pytest.mark.parametrize("players, teams, seed", [(3, False, 1), (3, False, 2), (4, True, 3)])
def test_the_true_deal_explains_every_logged_decision(players, teams, seed):
    n_mid = tc.DEAL[(players, teams)][1]
    checked = failed = trios = 0
    for k, (st, bnd, o, team, snap, n_snap, trio) in enumerate(
            logged_decisions(players, teams, seed, 60)):
        trios += trio
        if trio:
            assert n_snap == 0  # a trio changed the hands: the log starts again
        assert 0 <= n_snap <= infer.MAX_SNAP
        for s in range(n_snap):
            assert np.array_equal(snap[s, infer.S_HSIZE:infer.S_OWNER], st.hsize)
            if snap[s, infer.S_SEAT] == o:
                continue
            assert explains(snap, s, st.hands, st.mid, players, n_mid, team)
            checked += 1
            if k % 3 == 0:  # deals drawn from o's belief need not explain it
                _, hands, mid = bl.sample_deals(st, bnd, o, players, n_mid, 4, seed=k)
                for d in range(4):
                    failed += not explains(snap, s, hands[d], mid[d], players, n_mid, team)
    assert checked >= 30 and failed > 0


def test_a_full_log_keeps_the_most_recent_decisions():
    st = tc.new_state()
    bnd = np.array([[1, 12]] * tc.MAX_PLAYERS, np.int64)
    snap, _, _ = infer.new_workspace()
    n_snap = 0
    for k in range(infer.MAX_SNAP + 8):
        st.hsize[0] = k  # marks the snapshot
        n_snap = infer.record(snap, n_snap, k % 3, k, st.hsize, st.rlo, st.rhi, st.mrev,
                              st.turn, st.owner, st.hknow, st.mknow, bnd)
    assert n_snap == infer.MAX_SNAP
    assert list(snap[:, infer.S_ACT]) == list(range(8, infer.MAX_SNAP + 8))
    assert list(snap[:, infer.S_HSIZE]) == list(range(8, infer.MAX_SNAP + 8))
    assert list(snap[:, infer.S_SEAT]) == [k % 3 for k in range(8, infer.MAX_SNAP + 8)]
    assert list(snap[:, infer.S_ID]) == list(range(9, infer.MAX_SNAP + 9))  # the memo's keys
    n_snap = infer.record(snap, 0, 1, 5, st.hsize, st.rlo, st.rhi, st.mrev, st.turn,
                          st.owner, st.hknow, st.mknow, bnd)
    assert n_snap == 1 and snap[0, infer.S_ID] == 1  # an emptied log counts from 1 again


def choose(st, bnd, o, team, snap, n_snap, players, teams, deals=16, seed=0, memo=True,
           out=None, iw=None, fw=None):
    n_mid = tc.DEAL[(players, teams)][1]
    legal = np.zeros(tc.MAX_ACTIONS, np.int64)
    k = tc.legal_reveals(players, n_mid, st.hsize, st.rlo, st.rhi, st.mid, st.mrev, legal)
    bi, bf = bl.new_workspace()
    bi2, bf2 = bl.new_workspace()
    if iw is None:
        _, iw, fw = infer.new_workspace()
    rs = game_stream(np.uint64(seed), np.uint64(7))
    before = rs.copy()
    a = infer.infer_choice(o, rs, deals, team, 0, players, n_mid, st.hands, st.hsize, st.rlo,
                           st.rhi, st.mid, st.mrev, st.turn, st.owner, st.hknow, st.mknow, bnd,
                           legal, k, bi, bf, bi2, bf2, *scratch(), snap, n_snap, iw, fw,
                           memo)
    if out is not None:
        out.append((iw[infer.O_MEMO_N], rs.copy()))
    return int(a), not np.array_equal(rs, before)


def test_without_evidence_infer_plays_deduce_and_draws_nothing():
    seen = 0
    for st, bnd, o, team, snap, n_snap, _ in logged_decisions(3, False, 5, 40):
        if any(snap[s, infer.S_SEAT] != o for s in range(n_snap)):
            continue
        a, drew = choose(st, bnd, o, team, snap, n_snap, 3, False)
        assert a == deduce_of(st, bnd, o, 3, 9, False) and not drew
        seen += 1
    assert seen >= 3


@pytest.mark.parametrize("players, teams, seed", [(3, False, 11), (4, True, 12)])
def test_the_memo_changes_no_choice(players, teams, seed):
    """Deals that give a logged seat the same hand share one ``deduce`` call, within a
    decision and across the decisions until the log is emptied (as the engine keeps it:
    one workspace, emptied by :func:`infer.forget` at each trio); the choice and the
    stream are those of calling ``deduce`` for every deal."""
    _, kept, fw = infer.new_workspace()
    calls = remembered = alone = 0
    for k, (st, bnd, o, team, snap, n_snap, trio) in enumerate(
            logged_decisions(players, teams, seed, 60)):
        if trio:
            infer.forget(kept)
        evidence = sum(snap[s, infer.S_SEAT] != o for s in range(n_snap))
        if not evidence:
            continue
        before = kept[infer.O_MEMO_N]
        with_memo, without, fresh = [], [], []
        a, _ = choose(st, bnd, o, team, snap, n_snap, players, teams, deals=24, seed=k,
                      out=with_memo, iw=kept, fw=fw)
        b, _ = choose(st, bnd, o, team, snap, n_snap, players, teams, deals=24, seed=k,
                      memo=False, out=without)
        c, _ = choose(st, bnd, o, team, snap, n_snap, players, teams, deals=24, seed=k,
                      out=fresh)
        assert a == b == c
        assert np.array_equal(with_memo[0][1], without[0][1])
        assert np.array_equal(fresh[0][1], without[0][1])
        assert without[0][0] == 0 and 1 <= fresh[0][0] <= 24 * evidence
        calls += 24 * evidence
        remembered += with_memo[0][0] - before
        alone += fresh[0][0]
    assert calls >= 200 and alone < calls  # deals of one decision shared a call
    assert remembered < alone  # and decisions shared the calls of earlier ones


@pytest.mark.parametrize("players, teams, seed", [(3, False, 8), (4, True, 9)])
def test_changing_only_hidden_cards_changes_nothing_infer_uses(players, teams, seed):
    n_mid = tc.DEAL[(players, teams)][1]
    compared = changed = 0
    for k, (st, bnd, o, team, snap, n_snap, _) in enumerate(
            logged_decisions(players, teams, seed, 40)):
        if k % 4 or not any(snap[s, infer.S_SEAT] != o for s in range(n_snap)):
            continue
        other = hidden_swapped(st, bnd, o, players, n_mid, seed=k)
        changed += int(not np.array_equal(other.hands, st.hands))
        a, drew = choose(st, bnd, o, team, snap.copy(), n_snap, players, teams, seed=k)
        b, _ = choose(other, bnd, o, team, snap.copy(), n_snap, players, teams, seed=k)
        assert a == b and drew
        compared += 1
    assert compared >= 4 and changed >= 2


def test_games_are_reproducible_and_do_not_depend_on_the_chunks():
    pols = ["infer:8", "deduce", "memory"]
    whole, again, tail = play(pols, 21, 0, 4), play(pols, 21, 0, 4), play(pols, 21, 2, 2)
    assert all(np.array_equal(x, y) and np.array_equal(x[2:], z)
               for x, y, z in zip(whole, again, tail, strict=True))


def test_every_table_plays_to_the_end():
    for players, teams, mode in [(3, False, "spicy"), (4, True, "simple"), (5, False, "simple")]:
        assert_plays_to_the_end([f"infer:{2 + p}" for p in range(players)], 4, 2, teams=teams,
                                mode=mode)


@pytest.mark.parametrize("text", ["infer", "infer:0", "infer:x", "infer:", "infer:-3",
                                  "infer:200000", "infer:1.5"])
def test_bad_deal_counts_are_refused_in_one_line(text):
    with pytest.raises(ValueError, match="infer") as err:
        tc.make_config({"policies": [text]})
    assert "\n" not in str(err.value)


def test_a_table_with_infer_and_forgetful_seats_is_refused():
    """A forgetful seat's records are private; infer reads the others' records."""
    with pytest.raises(ValueError, match="forgetful") as err:
        tc.make_config({"players": 3, "policies": ["infer:4", "forgetful:0.5", "deduce"]})
    assert "\n" not in str(err.value)
    tc.make_config({"players": 3, "policies": ["infer:4", "memory", "random"]})


def test_deal_counts_reach_the_kernels():
    cfg = tc.make_config({"players": 3, "policies": ["infer:64", "deduce", "infer:5"]})
    assert list(cfg.icfg[rules.I_POLICY:rules.I_POLICY + 3]) == [rules.INFER, rules.DEDUCE,
                                                                 rules.INFER]
    assert list(cfg.icfg[rules.I_BUDGET:rules.I_BUDGET + 3]) == [64, 0, 5]
    assert cfg.options["policies"] == ["infer:64", "deduce", "infer:5"]


def python_posterior(st, bnd, o, team, snap, n_snap, players, teams, deals, seed):
    """``infer``'s posterior restated in Python from its docstring: ``deals`` deals drawn
    from the exact belief on the decision's stream, each weighted by :data:`MISMATCH
    <infer.MISMATCH>` for every logged decision of another seat that ``deduce`` holding
    the deal's cards would not have made, and the weighted frequencies smoothed with the
    exact marginals (:data:`PRIOR <infer.PRIOR>` deals' worth).  Returns ``(hand[q, i, v]
    at the positions unknown to ``o``, middle[v] or None, the belief's workspace)``."""
    n_mid = tc.DEAL[(players, teams)][1]
    bi, bf = bl.new_workspace()
    z = bl.compute(o, players, n_mid, st.hands, st.hsize, st.mid, st.owner, st.hknow,
                   st.mknow, bnd, bi, bf, True)
    assert z > 0
    exact_hand = bf[bl.MARG:bl.PMARG].reshape(bl.N_GROUPS, bl.MAX_HAND, 13).copy()
    exact_mid = bf[bl.PMARG:bl.PMARG + 13].copy()
    rs = game_stream(np.uint64(seed), np.uint64(7))
    sh, sm = np.zeros((tc.MAX_PLAYERS, tc.MAX_HAND), np.int64), np.zeros(9, np.int64)
    unknown = [(q, i) for q in range(players) if q != o for i in range(st.hsize[q])
               if st.hknow[o, q, i] == 0]
    slots = [j for j in range(n_mid) if st.mid[j] and not st.mknow[o, j]]
    counts, pool, total = np.zeros((tc.MAX_PLAYERS, tc.MAX_HAND, 13)), np.zeros(13), 0.0
    for _ in range(deals):
        bl.sample(rs, o, players, n_mid, st.hands, st.hsize, st.mid, st.hknow, st.mknow, bi,
                  bf, sh, sm)
        w = 1.0
        for s in range(n_snap):
            if snap[s, infer.S_SEAT] != o and not explains(snap, s, sh, sm, players, n_mid,
                                                           team):
                w *= infer.MISMATCH
        total += w
        for q, i in unknown:
            counts[q, i, sh[q, i]] += w
        for j in slots:
            pool[sm[j]] += w / len(slots)
    hand = {(q, i): (counts[q, i, 1:] + infer.PRIOR * exact_hand[q, i, 1:])
            / (total + infer.PRIOR) for q, i in unknown}
    middle = (pool[1:] + infer.PRIOR * exact_mid[1:]) / (total + infer.PRIOR) if slots else None
    return hand, middle, (bi, bf)


@pytest.mark.parametrize("players, teams, seed", [(3, False, 14), (4, True, 15),
                                                  (5, False, 16)])
def test_the_posterior_and_choice_equal_their_python_restatement(players, teams, seed):
    """With evidence on record, the probabilities ``infer_choice`` leaves in its belief
    workspace equal :func:`python_posterior` (to 1e-12), and its reveal is ``deduce``'s
    rules on those probabilities."""
    n_mid = tc.DEAL[(players, teams)][1]
    checked = moved = 0
    for k, (st, bnd, o, team, snap, n_snap, _) in enumerate(
            logged_decisions(players, teams, seed, 45)):
        if not any(snap[s, infer.S_SEAT] != o for s in range(n_snap)):
            continue
        legal = np.zeros(tc.MAX_ACTIONS, np.int64)
        n_legal = tc.legal_reveals(players, n_mid, st.hsize, st.rlo, st.rhi, st.mid, st.mrev,
                                   legal)
        bi, bf = bl.new_workspace()
        bi2, bf2 = bl.new_workspace()
        _, iw, fw = infer.new_workspace()
        a = infer.infer_choice(o, game_stream(np.uint64(k), np.uint64(7)), 12, team, 0,
                               players, n_mid, st.hands, st.hsize, st.rlo, st.rhi, st.mid,
                               st.mrev, st.turn, st.owner, st.hknow, st.mknow, bnd, legal,
                               n_legal, bi, bf, bi2, bf2, *scratch(), snap, n_snap, iw, fw,
                               False)
        hand, middle, (pbi, pbf) = python_posterior(st, bnd, o, team, snap, n_snap, players,
                                                    teams, 12, k)
        got = bf[bl.MARG:bl.PMARG].reshape(bl.N_GROUPS, bl.MAX_HAND, 13)
        for (q, i), want in hand.items():
            np.testing.assert_allclose(got[q, i, 1:], want, rtol=0, atol=1e-12)
            exact = pbf[bl.MARG:bl.PMARG].reshape(bl.N_GROUPS, bl.MAX_HAND, 13)[q, i, 1:]
            moved += not np.allclose(want, exact, atol=1e-9)
        if middle is not None:
            np.testing.assert_allclose(bf[bl.PMARG + 1:bl.PMARG + 13], middle, rtol=0,
                                       atol=1e-12)
        python_hand = pbf[bl.MARG:bl.PMARG].reshape(bl.N_GROUPS, bl.MAX_HAND, 13)
        for (q, i), want in hand.items():  # deduce's rules on the Python posterior
            python_hand[q, i, 1:] = want
        if middle is not None:
            pbf[bl.PMARG + 1:bl.PMARG + 13] = middle
        b = dd.deduce_scored(o, team[o], 0, players, n_mid, st.hands, st.hsize, st.rlo, st.rhi,
                             st.mid, st.mrev, st.turn, st.owner, st.hknow, st.mknow, bnd,
                             legal, n_legal, pbi, pbf, *scratch())
        assert a == b
        checked += 1
    assert checked >= 5 and moved > 0  # the evidence moved some probabilities
