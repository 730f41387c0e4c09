"""``ismcts-infer:N`` of the Trio card game (solver/trio_cards/ismcts.py, infer.py).

* The deals ``infer`` keeps for the search are the deals it drew: each agrees with
  everything the seat knows and carries the weight the opponents' logged decisions
  give it (``MISMATCH`` per decision it does not explain); without evidence nothing is
  kept and the search draws from the exact belief.
* A kept deal is drawn in proportion to its weight (never one of weight 0).
* The root's prior is ``infer``'s reveal (the same stream gives the same deals), left
  only for a most-visited reveal that is clearly better; a sure trio is played without
  a search; the root counts every simulation otherwise.
* No peeking: the same position and log with other hidden cards give the same search.
* The engine logs decisions when an ``ismcts-infer`` seat plays; games are reproducible,
  do not depend on the chunks and play to the end at every table size; bad budgets and
  a table with a ``forgetful`` seat are refused in one line.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from test_trio_belief import hidden_swapped
from test_trio_infer import choose, explains, logged_decisions, scratch
from test_trio_ismcts import play, sevens_position
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


def keep(st, bnd, o, team, snap, n_snap, players, teams, seed):
    """``infer_choice(keep=True)`` with 64 deals: ``(iw, fw)`` after it."""
    n_mid = tc.DEAL[(players, teams)][1]
    legal = np.zeros(tc.MAX_ACTIONS, np.int64)
    k = tc.legal_reveals(players, n_mid, st.hsize, st.rlo, st.rhi, st.mid, st.mrev, legal)
    bi, bf = bl.new_workspace()
    bi2, bf2 = bl.new_workspace()
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
            counts = Counter()
            for q in range(players):
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
            assert all(counts[v] == (0 if st.owner[v] >= 0 else 3) for v in range(1, 13))
            missed = sum(not explains(snap, s, hands, mid, players, n_mid, team)
                         for s in range(n_snap) if snap[s, infer.S_SEAT] != o)
            assert w == pytest.approx(infer.MISMATCH ** missed)
            light += w < 1.0
        positions += 1
    assert positions >= 3 and light > 0  # some deals did not explain the evidence


def test_without_evidence_nothing_is_kept():
    seen = 0
    for st, bnd, o, team, snap, n_snap, _ in logged_decisions(3, False, 5, 30):
        if any(snap[s, infer.S_SEAT] != o for s in range(n_snap)):
            continue
        iw, _ = keep(st, bnd, o, team, snap, n_snap, 3, False, 0)
        assert iw[infer.O_N_KEPT] == 0
        seen += 1
    assert seen >= 3


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


def test_the_root_prior_is_infers_reveal_left_only_for_a_clearly_better_one():
    budget = 40
    cfg, _ = config(3, budget=budget)
    searched = kept = 0
    for k, st, bnd, o, team, snap, n_snap in with_evidence(3, False, 41, 45, 2):
        hint, _ = choose(st, bnd, o, team, snap.copy(), n_snap, 3, False, deals=64, seed=k)
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
    assert searched >= 4 and kept >= 1


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


def test_games_are_reproducible_and_do_not_depend_on_the_chunks():
    pols = ["deduce", "ismcts-infer:6", "deduce"]
    whole, again, tail = play(pols, 23, 0, 4), play(pols, 23, 0, 4), play(pols, 23, 2, 2)
    assert all(np.array_equal(x, y) and np.array_equal(x[2:], z)
               for x, y, z in zip(whole, again, tail, strict=True))


@pytest.mark.parametrize("players, teams, mode", [(3, False, "spicy"), (4, True, "simple"),
                                                  (6, False, "simple")])
def test_every_table_plays_to_the_end(players, teams, mode):
    winners, length, reason, _ = play([f"ismcts-infer:{3 + p}" for p in range(players)], 6,
                                      0, 2, teams=teams, mode=mode)
    assert np.all((winners != 0) | (reason == tc.TURN_CAP)) and np.all(length >= 1)


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
