"""``ismcts-infer:N`` of the Trio card game (solver/trio_cards/ismcts.py, infer.py).

* The deals ``infer`` keeps for the search are the deals it drew: each agrees with
  everything the seat knows and carries the weight the opponents' logged decisions
  give it (``MISMATCH`` per decision it does not explain); without evidence nothing is
  kept and the search draws from the exact belief.
* A kept deal is drawn in proportion to its weight (never one of weight 0), and a
  determinization from it is that deal with the public state ``determinize`` gives.
* The root's prior is ``infer``'s reveal (the same stream gives the same deals; it
  differs from ``deduce``'s in some positions), left
  only for a most-visited reveal that is clearly better; a sure trio is played without
  a search; the root counts every simulation otherwise.
* No peeking: the same position and log with other hidden cards give the same search.
* The engine plays the policy as a step-by-step replay that logs every decision does
  (and not as one that logs nothing); games are reproducible,
  do not depend on the chunks and play to the end at every table size; bad budgets and
  a table with a ``forgetful`` seat are refused in one line.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from test_trio_belief import assert_deal_agrees, deduce_of, hidden_swapped
from test_trio_infer import choose, explains, logged_decisions, scratch
from test_trio_ismcts import assert_plays_to_the_end, play, sevens_position
from trilab.solver.rng import game_stream
from trilab.solver.trio_cards import belief as bl
from trilab.solver.trio_cards import game as tc
from trilab.solver.trio_cards import infer, ismcts, rules

STREAM = 7  # the game index of the stream test_trio_infer.choose draws from


def config(players: int, teams: bool = False, budget: int = 40):
    cfg = tc.make_config({"players": players, "teams": teams,
                          "policies": [f"ismcts-infer:{budget}"]})
    team = np.zeros(tc.MAX_PLAYERS, np.int64)
    tc.fill_teams(players, teams, team)
    return cfg, team


def with_evidence(players: int, teams: bool, seed: int, reveals: int, every: int = 1):
    """``logged_decisions`` positions where another seat's decision is on record."""
    for k, (st, bnd, o, team, snap, n_snap, _) in enumerate(
            logged_decisions(players, teams, seed, reveals)):
        if k % every == 0 and any(snap[s, infer.S_SEAT] != o for s in range(n_snap)):
            yield k, st, bnd, o, team, snap.copy(), n_snap


def keep(st, bnd, o, team, snap, n_snap, players, teams, seed, iw=None, fw=None):
    """``infer_choice(keep=True)`` with 64 deals (in the workspace ``iw``, ``fw``, fresh by
    default): ``(iw, fw)`` after it."""
    n_mid = tc.DEAL[(players, teams)][1]
    legal = np.zeros(tc.MAX_ACTIONS, np.int64)
    k = tc.legal_reveals(players, n_mid, st.hsize, st.rlo, st.rhi, st.mid, st.mrev, legal)
    bi, bf = bl.new_workspace()
    bi2, bf2 = bl.new_workspace()
    if iw is None:
        _, iw, fw = infer.new_workspace()
    infer.infer_choice(o, game_stream(np.uint64(seed), np.uint64(STREAM)), infer.KEPT_DEALS,
                       team, 0, players, n_mid, st.hands, st.hsize, st.rlo, st.rhi, st.mid,
                       st.mrev, st.turn, st.owner, st.hknow, st.mknow, bnd, legal, k, bi, bf,
                       bi2, bf2, *scratch(), snap, n_snap, iw, fw, True, True)
    return iw, fw


def kept_deals(iw, fw):
    for d in range(iw[infer.O_N_KEPT]):
        at = infer.O_KEPT + infer.DEAL_W * d
        hands = iw[at:at + tc.MAX_PLAYERS * tc.MAX_HAND].reshape(tc.MAX_PLAYERS, tc.MAX_HAND)
        mid = iw[at + tc.MAX_PLAYERS * tc.MAX_HAND:at + infer.DEAL_W]
        yield hands, mid, fw[infer.F_KEPT + d]


@pytest.mark.parametrize("players, teams, seed, every", [(3, False, 31, 3), (4, True, 32, 1)])
def test_the_kept_deals_are_the_weighted_deals_infer_drew(players, teams, seed, every):
    n_mid = tc.DEAL[(players, teams)][1]
    positions = light = 0
    for k, st, bnd, o, team, snap, n_snap in with_evidence(players, teams, seed, 40, every):
        iw, fw = keep(st, bnd, o, team, snap, n_snap, players, teams, k)
        assert iw[infer.O_N_KEPT] == infer.KEPT_DEALS
        for hands, mid, w in kept_deals(iw, fw):
            assert_deal_agrees(st, o, players, n_mid, hands, mid)
            missed = sum(not explains(snap, s, hands, mid, players, n_mid, team)
                         for s in range(n_snap) if snap[s, infer.S_SEAT] != o)
            assert w == pytest.approx(infer.MISMATCH ** missed)
            light += w < 1.0
        positions += 1
    assert positions >= 3 and light > 0  # some deals did not explain the evidence


def test_without_evidence_nothing_is_kept():
    """A decision without evidence leaves no deal of an earlier decision behind (the
    workspace is the engine's, kept from decision to decision)."""
    seen = 0
    iw = fw = None
    for st, bnd, o, team, snap, n_snap, _ in logged_decisions(3, False, 5, 80):
        evidence = any(snap[s, infer.S_SEAT] != o for s in range(n_snap))
        if iw is not None and iw[infer.O_N_KEPT] > 0 and not evidence:
            keep(st, bnd, o, team, snap, n_snap, 3, False, 0, iw, fw)
            assert iw[infer.O_N_KEPT] == 0
            seen += 1
        if evidence:
            iw, fw = keep(st, bnd, o, team, snap, n_snap, 3, False, 0)
            assert iw[infer.O_N_KEPT] == infer.KEPT_DEALS
    assert seen >= 2


def test_a_kept_deal_is_drawn_in_proportion_to_its_weight():
    _, iw, fw = infer.new_workspace()
    weights = [1.0, 0.0, 3.0, 0.05]
    iw[infer.O_N_KEPT] = len(weights)
    for d, w in enumerate(weights):
        at = infer.O_KEPT + infer.DEAL_W * d
        iw[at:at + infer.DEAL_W] = d + 1  # every card of deal d is d + 1
        fw[infer.F_KEPT + d] = w
    sh = np.zeros((tc.MAX_PLAYERS, tc.MAX_HAND), np.int64)
    sm = np.zeros(tc.MAX_MIDDLE, np.int64)
    rs = game_stream(np.uint64(3), np.uint64(0))
    draws = 20_000
    seen = Counter()
    for _ in range(draws):
        infer.kept_deal(rs, iw, fw, sh, sm)
        assert np.all(sh == sh[0, 0]) and np.all(sm == sh[0, 0])  # one whole deal
        seen[int(sh[0, 0]) - 1] += 1
    assert seen[1] == 0
    total = sum(weights)
    for d, w in enumerate(weights):
        p = w / total
        assert abs(seen[d] / draws - p) <= 4 * math.sqrt(p * (1 - p) / draws) + 1e-12


def test_a_kept_determinization_is_the_kept_deal_with_the_public_state():
    """``determinize_kept`` puts the drawn kept deal (the only one of non-zero weight)
    into the game and the same public state and records as ``determinize``."""
    cfg, _ = config(3)
    checked = 0
    for k, st, bnd, o, team, snap, n_snap in with_evidence(3, False, 61, 30, 5):
        iw, fw = keep(st, bnd, o, team, snap, n_snap, 3, False, k)
        pick = k % infer.KEPT_DEALS
        fw[infer.F_KEPT:infer.F_KEPT + infer.KEPT_DEALS] = 0.0
        fw[infer.F_KEPT + pick] = 0.5
        hands, mid, _ = list(kept_deals(iw, fw))[pick]
        bi, bf = bl.new_workspace()
        bl.compute(o, 3, 9, st.hands, st.hsize, st.mid, st.owner, st.hknow, st.mknow, bnd, bi,
                   bf, False)
        kept, drawn = (np.zeros(ismcts.ws_len(1), np.int64) for _ in range(2))
        rs = game_stream(np.uint64(k), np.uint64(0))
        ismcts.determinize_kept(o, rs, cfg.icfg, st.hsize, st.rlo, st.rhi, st.mrev, st.turn,
                                st.owner, st.hknow, st.mknow, bnd, iw, fw, kept)
        ismcts.determinize(o, rs, cfg.icfg, st.hands, st.hsize, st.rlo, st.rhi, st.mid,
                           st.mrev, st.turn, st.owner, st.hknow, st.mknow, bnd, bi, bf, drawn)
        assert np.array_equal(kept[ismcts.W_H:ismcts.W_HS], hands.ravel())
        assert np.array_equal(kept[ismcts.W_MID:ismcts.W_MREV], mid)
        assert np.array_equal(kept[ismcts.W_HS:ismcts.W_MID], drawn[ismcts.W_HS:ismcts.W_MID])
        assert np.array_equal(kept[ismcts.W_MREV:ismcts.W_LEGAL],
                              drawn[ismcts.W_MREV:ismcts.W_LEGAL])
        checked += 1
    assert checked >= 5, "too few positions with evidence"  # every one of them checked


def test_the_root_prior_is_infers_reveal_left_only_for_a_clearly_better_one():
    budget = 40
    cfg, _ = config(3, budget=budget)
    searched = kept = not_deduce = left = 0
    for k, st, bnd, o, team, snap, n_snap in with_evidence(3, False, 41, 120):
        hint, _ = choose(st, bnd, o, team, snap.copy(), n_snap, 3, False, deals=64, seed=k)
        not_deduce += hint != deduce_of(st, bnd, o, 3, 9, False)
        choice, visits, wins = ismcts.search(cfg.icfg, team, st, bnd, o, o, budget, seed=k,
                                             game=STREAM, kind=ismcts.INFER_SEARCH,
                                             snap=snap.copy(), n_snap=n_snap)
        legal = np.zeros(tc.MAX_ACTIONS, np.int64)
        n_legal = tc.legal_reveals(3, 9, st.hsize, st.rlo, st.rhi, st.mid, st.mrev, legal)
        assert choice in set(legal[:n_legal])
        if n_legal == 1 or visits.sum() == 0:  # one reveal, or a sure trio
            assert choice == hint
            continue
        searched += 1
        assert visits.sum() == budget and np.all(wins <= visits)
        if choice == hint:
            kept += 1
            continue
        assert visits[choice] == visits.max()
        m = wins / np.maximum(visits, 1)
        se = math.sqrt(max(m[choice] * (1 - m[choice]), 0.25 / visits[choice]) / visits[choice]
                       + max(m[hint] * (1 - m[hint]), 0.25 / visits[hint]) / visits[hint])
        assert m[choice] - m[hint] > ismcts.CONFIDENCE * se
        left += 1
    assert searched >= 4 and kept >= 1 and not_deduce >= 1  # a prior deduce would not give
    assert left >= 1  # and the prior was left for a clearly better reveal


def test_a_sure_trio_is_played_without_a_search():
    cfg, team = config(3)
    st, bnd = sevens_position()
    for k in range(3):
        choice, visits, _ = ismcts.search(cfg.icfg, team, st, bnd, 0, 0, 40, seed=k,
                                          kind=ismcts.INFER_SEARCH)
        assert choice == 0 and visits.sum() == 0
        tc.apply_reveal(choice, 0, 3, 9, st.hands, st.hsize, st.rlo, st.rhi, st.mid, st.mrev,
                        st.turn, st.owner, st.hknow, st.mknow)
    assert st.owner[7] == 0


@pytest.mark.parametrize("players, teams, seed", [(3, False, 8), (4, True, 9)])
def test_changing_only_hidden_cards_changes_nothing_the_search_uses(players, teams, seed):
    cfg, _ = config(players, teams, budget=30)
    n_mid = tc.DEAL[(players, teams)][1]
    compared = changed = 0
    for k, st, bnd, o, team, snap, n_snap in with_evidence(players, teams, seed, 40, 4):
        other = hidden_swapped(st, bnd, o, players, n_mid, seed=k)
        changed += int(not np.array_equal(other.hands, st.hands))
        a = ismcts.search(cfg.icfg, team, st, bnd, o, o, 30, seed=k, kind=ismcts.INFER_SEARCH,
                          snap=snap.copy(), n_snap=n_snap)
        b = ismcts.search(cfg.icfg, team, other, bnd, o, o, 30, seed=k,
                          kind=ismcts.INFER_SEARCH, snap=snap.copy(), n_snap=n_snap)
        assert a[0] == b[0]
        assert np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
        compared += 1
    assert compared >= 3 and changed >= 2


def test_the_engine_logs_decisions_for_an_ismcts_infer_seat():
    cfg = tc.make_config({"players": 3, "policies": ["deduce", "ismcts-infer:5", "ismcts:5"]})
    assert [bool(tc.models_opponents(cfg.icfg, p)) for p in range(3)] == [False, True, False]
    cfg = tc.make_config({"players": 3, "policies": ["infer:3", "memory", "ismcts-deduce:4"]})
    assert [bool(tc.models_opponents(cfg.icfg, p)) for p in range(3)] == [True, False, False]
    with pytest.raises(ValueError, match="forgetful") as err:
        tc.make_config({"players": 3, "policies": ["ismcts-infer:4", "forgetful:0.5",
                                                   "deduce"]})
    assert "\n" not in str(err.value)


def replay(policies, seed: int, game: int, log: bool = True):
    """A 3-player game of ``deduce`` and ``ismcts-infer`` seats played step by step in
    Python on the engine's rules, from the engine's stream, logging every decision as the
    engine should (``log=False``: logging nothing): ``(winners, turns, digest)``."""
    cfg = tc.make_config({"players": 3, "policies": policies})
    icfg, n, n_mid = cfg.icfg, 3, 9
    team = np.zeros(tc.MAX_PLAYERS, np.int64)
    tc.fill_teams(n, False, team)
    st = tc.new_state()
    rs = game_stream(np.uint64(seed), np.uint64(game))
    tc.deal(rs, n, int(icfg[rules.I_HAND]), n_mid, np.zeros(tc.N_CARDS, np.int64), st.hands,
            st.hsize, st.mid)
    tc.end_turn(st.rlo, st.rhi, st.mrev, st.turn)
    bnd = np.array([[1, 12]] * tc.MAX_PLAYERS, np.int64)
    acc, tacts = np.zeros(tc.N_VALUES + 1, np.int64), np.zeros(3, np.int64)
    snap, iw, fw = infer.new_workspace()
    bi, bf = bl.new_workspace()
    bi2, bf2 = bl.new_workspace()
    budget = max(int(b) for b in icfg[rules.I_BUDGET:rules.I_BUDGET + n])
    wi = np.zeros(ismcts.ws_len(budget), np.int64)
    tree_i, tree_w = ismcts.new_tree(budget)
    legal = np.zeros(tc.MAX_ACTIONS, np.int64)
    n_snap, h = 0, np.uint64(0)
    for tn in range(int(icfg[rules.I_TURN_CAP])):
        p = tn % n
        while True:
            k = tc.legal_reveals(n, n_mid, st.hsize, st.rlo, st.rhi, st.mid, st.mrev, legal)
            if icfg[rules.I_POLICY + p] == rules.ISMCTS:
                a = ismcts.ismcts_choice(
                    p, rs, int(icfg[rules.I_BUDGET + p]), icfg, team, tn, st.hands, st.hsize,
                    st.rlo, st.rhi, st.mid, st.mrev, st.turn, st.owner, st.hknow, st.mknow,
                    bnd, legal, k, bi, bf, wi, tree_i, tree_w, ismcts.INFER_SEARCH, bi2, bf2,
                    *scratch(), snap, n_snap, iw, fw)
            else:
                a = deduce_of(st, bnd, p, n, n_mid, False)
            assert a >= 0
            if log:
                n_snap = infer.record(snap, n_snap, p, a, st.hsize, st.rlo, st.rhi, st.mrev,
                                      st.turn, st.owner, st.hknow, st.mknow, bnd)
            status, h = rules.reveal_step(a, p, icfg, team, st.hands, st.hsize, st.rlo,
                                          st.rhi, st.mid, st.mrev, st.turn, st.owner,
                                          st.hknow, st.mknow, bnd, tacts, acc, True, h)
            h = np.uint64(h)
            if status == rules.TRIO:
                n_snap = 0
                infer.forget(iw)
            if status >= rules.WON:
                return tc.winners_mask(n, team, team[p]), tn + 1, int(h)
            if status != rules.GO_ON:
                break
    return 0, int(icfg[rules.I_TURN_CAP]), int(h)


def test_the_engine_plays_the_policy_with_the_decisions_logged():
    """The engine's games are those of a step-by-step replay that logs every decision
    for the ``ismcts-infer`` seat, and not those of one that logs nothing."""
    pols = ["deduce", "ismcts-infer:6", "deduce"]
    winners, length, _, digest = play(pols, 29, 0, 4)
    unlogged = 0
    for g in range(4):
        assert replay(pols, 29, g) == (winners[g], length[g], int(digest[g]))
        unlogged += replay(pols, 29, g, log=False)[2] != int(digest[g])
    assert unlogged >= 1


def test_games_are_reproducible_and_do_not_depend_on_the_chunks():
    pols = ["deduce", "ismcts-infer:6", "deduce"]
    whole, again, tail = play(pols, 23, 0, 4), play(pols, 23, 0, 4), play(pols, 23, 2, 2)
    assert all(np.array_equal(x, y) and np.array_equal(x[2:], z)
               for x, y, z in zip(whole, again, tail, strict=True))


@pytest.mark.parametrize("players, teams, mode", [(3, False, "spicy"), (4, True, "simple"),
                                                  (6, False, "simple")])
def test_every_table_plays_to_the_end(players, teams, mode):
    assert_plays_to_the_end([f"ismcts-infer:{3 + p}" for p in range(players)], 6, 2,
                            teams=teams, mode=mode)


@pytest.mark.parametrize("text", ["ismcts-infer:0", "ismcts-infer", "ismcts-infer:x",
                                  "ismcts-infer:2000000"])
def test_bad_budgets_are_refused_in_one_line(text):
    with pytest.raises(ValueError, match="ismcts-infer") as err:
        tc.make_config({"policies": [text]})
    assert "\n" not in str(err.value)


def test_budgets_reach_the_kernels():
    cfg = tc.make_config({"players": 3, "policies": ["ismcts-infer:64", "deduce",
                                                     "ismcts-infer:007"]})
    assert list(cfg.icfg[rules.I_POLICY:rules.I_POLICY + 3]) == [rules.ISMCTS, rules.DEDUCE,
                                                                 rules.ISMCTS]
    assert list(cfg.icfg[rules.I_BUDGET:rules.I_BUDGET + 3]) == [64, 0, 7]
    assert cfg.icfg[rules.I_PLAYOUT] == ismcts.INFER_SEARCH
    assert cfg.seat_policies == ("ismcts-infer:64", "deduce", "ismcts-infer:7")
