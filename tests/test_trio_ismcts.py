"""``ismcts:N`` of the Trio card game (solver/trio_cards/ismcts.py).

* Every determinization agrees with everything the searching seat knows (its hand,
  the records, hand sizes, trios, sorted hands, three copies of each value) and
  gives every simulated seat the public records.
* No peeking: the same position with other hidden cards gives the same search
  (choice and root statistics) from the same stream.
* The root counts every simulation; the choice is the most visited reveal.
* A sure win is taken; the policy beats random players; games are reproducible
  and do not depend on how they are split into chunks; every table size and mode
  plays to the end.
* ``ismcts-flat:N``: at a turn's first reveal without a sure trio the flat search
  runs (stage-1 counts within the deals it drew, finalists = deduce's reveal and the
  three best others, the choice rule recomputed from its counts), it does not peek,
  and elsewhere the tree search with deduce playouts runs instead.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_trio_belief import (
    assert_deal_agrees,
    bounds,
    deduce_of,
    hidden_swapped,
    record_game,
)
from test_trio_cards import to_engine
from trilab.solver.rng import game_stream
from trilab.solver.trio_cards import belief as bl
from trilab.solver.trio_cards import game as tc
from trilab.solver.trio_cards import ismcts


def config(players: int, teams: bool = False, budget: int = 50):
    cfg = tc.make_config({"players": players, "teams": teams,
                          "policies": [f"ismcts:{budget}"]})
    team = np.zeros(tc.MAX_PLAYERS, np.int64)
    tc.fill_teams(players, teams, team)
    return cfg, team


def positions(players: int, teams: bool, games: int, seed: int):
    """Positions of recorded reference games that are not over: (engine state, bounds,
    seat to move)."""
    g = 0
    while games > 0:
        table, seat, _ = record_game(players, teams, "simple", seed + g, 4 + 7 * (g % 8), True)
        g += 1
        if seat is not None:
            games -= 1
            yield to_engine(table), bounds(table), seat


@pytest.mark.parametrize("players, teams", [(3, False), (5, False), (6, True)])
def test_determinizations_agree_with_everything_the_seat_knows(players, teams):
    cfg, _ = config(players, teams)
    _, m = tc.DEAL[(players, teams)]
    checked = 0
    for st, bnd, _ in positions(players, teams, 6, 40):
        for o in range(players):
            bi, bf = bl.new_workspace()
            z = bl.compute(o, players, m, st.hands, st.hsize, st.mid, st.owner, st.hknow,
                           st.mknow, bnd, bi, bf, False)
            assert z > 0
            wi = np.zeros(ismcts.ws_len(1), np.int64)
            rs = game_stream(np.uint64(o), np.uint64(checked))
            for _ in range(10):
                ismcts.determinize(o, rs, cfg.icfg, st.hands, st.hsize, st.rlo, st.rhi, st.mid,
                                   st.mrev, st.turn, st.owner, st.hknow, st.mknow, bnd, bi, bf,
                                   wi)
                hands = wi[ismcts.W_H:ismcts.W_HS].reshape(tc.MAX_PLAYERS, tc.MAX_HAND)
                mid = wi[ismcts.W_MID:ismcts.W_MREV]
                hk = wi[ismcts.W_HK:ismcts.W_MK].reshape(tc.MAX_PLAYERS, tc.MAX_PLAYERS,
                                                         tc.MAX_HAND)
                assert list(wi[ismcts.W_HS:ismcts.W_RLO]) == list(st.hsize)
                assert_deal_agrees(st, o, players, m, hands, mid)
                for q in range(players):  # every other seat gets seat o's public records
                    for i in range(st.hsize[q]):
                        for s in range(players):
                            if s != q and q != o:
                                assert hk[s, q, i] == st.hknow[o, q, i]
                checked += 1
    assert checked == 6 * players * 10


@pytest.mark.parametrize("players, teams", [(3, False), (4, False), (6, True)])
def test_changing_only_hidden_cards_changes_nothing_the_search_uses(players, teams):
    cfg, team = config(players, teams)
    _, m = tc.DEAL[(players, teams)]
    changed = 0
    for g, (st, bnd, seat) in enumerate(positions(players, teams, 5, 900)):
        other = hidden_swapped(st, bnd, seat, players, m, seed=g)
        changed += int(not np.array_equal(other.hands, st.hands) or
                       not np.array_equal(other.mid, st.mid))
        a = ismcts.search(cfg.icfg, team, st, bnd, seat, seat, 60, seed=g)
        b = ismcts.search(cfg.icfg, team, other, bnd, seat, seat, 60, seed=g)
        assert a[0] == b[0]
        assert np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    assert changed >= 3  # the check compared different deals


def test_the_root_counts_every_simulation_and_plays_the_most_visited_reveal():
    """The choice is the most visited reveal, or deduce's reveal when the most visited
    one is not clearly better."""
    cfg, team = config(3)
    searched = fallbacks = 0
    for st, bnd, seat in positions(3, False, 8, 70):
        choice, visits, wins = ismcts.search(cfg.icfg, team, st, bnd, seat, seat, 80, seed=1)
        legal = np.zeros(tc.MAX_ACTIONS, np.int64)
        k = tc.legal_reveals(3, 9, st.hsize, st.rlo, st.rhi, st.mid, st.mrev, legal)
        assert choice in set(legal[:k])
        if k == 1:
            assert visits.sum() == 0
            continue
        searched += 1
        assert visits.sum() == 80 and set(np.flatnonzero(visits)) <= set(legal[:k])
        assert np.all(wins <= visits) and np.all(wins >= 0)
        best = int(np.argmax(visits))
        if choice != best:
            fallbacks += 1
            assert choice == deduce_of(st, bnd, seat, 3, 9, False)
            m = wins / np.maximum(visits, 1)
            assert m[best] - m[choice] <= ismcts.CONFIDENCE * math.sqrt(
                max(m[best] * (1 - m[best]), 0.25 / visits[best]) / visits[best]
                + max(m[choice] * (1 - m[choice]), 0.25 / visits[choice]) / visits[choice])
    assert searched >= 5 and fallbacks >= 1  # the fallback rule was exercised


def sevens_position():
    """Seat 0 holds the three 7s at the low end of its hand; nothing revealed yet."""
    st = tc.new_state()
    st.hands[0, :9] = [7, 7, 7, 8, 9, 10, 11, 12, 12]
    st.hands[1, :9] = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    st.hands[2, :9] = [4, 4, 4, 5, 5, 5, 6, 6, 6]
    st.mid[:9] = [8, 8, 9, 9, 10, 10, 11, 11, 12]
    st.hsize[:3] = 9
    return st, np.array([[1, 12]] * tc.MAX_PLAYERS, np.int64)


def test_a_sure_win_is_taken():
    """The three 7s in the seat's own hand: it reveals them one by one and wins."""
    cfg, team = config(3)
    st, bnd = sevens_position()
    for k in range(3):
        choice, _, _ = ismcts.search(cfg.icfg, team, st, bnd, 0, 0, 40, seed=k)
        assert choice == 0  # its own lowest card
        res = tc.apply_reveal(choice, 0, 3, 9, st.hands, st.hsize, st.rlo, st.rhi, st.mid,
                              st.mrev, st.turn, st.owner, st.hknow, st.mknow)
    assert res == 7 and st.owner[7] == 0


def play(policies, seed, first, n, **options):
    cfg = tc.make_config({"players": len(policies), "policies": policies, **options})
    return tc.play_chunk(np.uint64(seed), np.int64(first), np.int64(n), cfg.icfg, cfg.fcfg)


def assert_plays_to_the_end(policies, seed, n, **options) -> None:
    """``n`` games of ``policies`` end with a win or at the turn cap, and are not the
    games ``memory`` plays from the same streams (the engine's fallback when a policy
    returns -1): the policies were played."""
    winners, length, reason, digest = play(policies, seed, 0, n, **options)
    assert np.all((winners != 0) | (reason == tc.TURN_CAP)) and np.all(length >= 1)
    fallback = play(["memory"] * len(policies), seed, 0, n, **options)[3]
    assert not np.array_equal(digest, fallback)


def test_games_are_reproducible_and_do_not_depend_on_the_chunks():
    pols = ["ismcts:25", "memory", "deduce"]
    whole = play(pols, 11, 0, 4)
    again = play(pols, 11, 0, 4)
    tail = play(pols, 11, 2, 2)
    for x, y, z in zip(whole, again, tail, strict=True):
        assert np.array_equal(x, y) and np.array_equal(x[2:], z)


def test_ismcts_beats_random_players():
    winners, _, _, _ = play(["ismcts:30", "random", "random"], 5, 0, 16)
    assert int(np.sum(winners & 1)) >= 12


@pytest.mark.parametrize("players, teams, mode", [(4, True, "spicy"), (5, False, "spicy"),
                                                  (6, False, "simple"), (6, True, "simple")])
def test_every_table_plays_to_the_end(players, teams, mode):
    assert_plays_to_the_end([f"ismcts:{10 + p}" for p in range(players)], 3, 2, teams=teams,
                            mode=mode)


@pytest.mark.parametrize("text", ["ismcts:0", "ismcts:x", "ismcts:", "ismcts:-5",
                                  "ismcts-deduce:0", "ismcts:2000000", "ismcts-flat:",
                                  "ismcts-flat:1.5"])
def test_bad_budgets_are_rejected_in_one_line(text):
    with pytest.raises(ValueError, match="ismcts") as err:
        tc.make_config({"policies": [text]})
    assert "\n" not in str(err.value)


def test_budgets_reach_the_kernels():
    cfg = tc.make_config({"players": 4, "policies": ["ismcts:7", "memory", "ismcts-deduce:9",
                                                     " ismcts-flat:0011"]})
    assert list(cfg.icfg[tc.I_BUDGET:tc.I_BUDGET + 4]) == [7, 0, 9, 11]
    assert cfg.icfg[tc.I_PLAYOUT] == tc.MEMORY and cfg.icfg[tc.I_PLAYOUT + 2] == tc.DEDUCE
    assert cfg.icfg[tc.I_PLAYOUT + 3] == ismcts.FLAT
    assert cfg.seat_policies == ("ismcts:7", "memory", "ismcts-deduce:9", "ismcts-flat:11")


def flat_config(players: int, teams: bool = False, budget: int = 16):
    cfg = tc.make_config({"players": players, "teams": teams,
                          "policies": [f"ismcts-flat:{budget}"]})
    team = np.zeros(tc.MAX_PLAYERS, np.int64)
    tc.fill_teams(players, teams, team)
    return cfg, team


def turn_starts(players: int, teams: bool, games: int, seed: int):
    """Positions of :func:`positions` at the first reveal of a turn."""
    for st, bnd, seat in positions(players, teams, 4 * games, seed):
        if st.turn[0] == 0 and games > 0:
            games -= 1
            yield st, bnd, seat


def test_the_flat_search_keeps_deduce_unless_a_finalist_is_clearly_better():
    budget = 16
    cfg, team = flat_config(3, budget=budget)
    flat = tested = 0
    for st, bnd, seat in turn_starts(3, False, 8, 300):
        legal = np.zeros(tc.MAX_ACTIONS, np.int64)
        k = tc.legal_reveals(3, 9, st.hsize, st.rlo, st.rhi, st.mid, st.mrev, legal)
        legal = list(legal[:k])
        hint = deduce_of(st, bnd, seat, 3, 9, False)
        choice, counts, visits = ismcts.flat_search(cfg.icfg, team, st, bnd, seat, seat,
                                                    budget, seed=3)
        assert choice in legal
        if visits.sum() > 0:  # a sure trio: the tree search ran
            assert visits.sum() == budget
            continue
        flat += 1
        wins, gain, square, final = counts
        assert np.all(wins[legal] <= budget // 4) and np.all(wins >= 0)
        finalists = set(np.flatnonzero(final))
        assert hint in finalists and len(finalists) == min(4, k)
        others = sorted(wins[x] for x in legal if x != hint)
        cut = others[-3] if len(others) >= 3 else min(others)
        assert all(wins[x] >= cut for x in finalists - {hint})
        assert gain[hint] == 0 and np.all(np.abs(gain) <= budget)
        assert np.all(square >= gain ** 2 / budget - 1e-9)  # Cauchy-Schwarz
        best = max((x for x in legal if x in finalists and x != hint), key=lambda x: gain[x],
                   default=hint)
        if gain[best] <= 0:
            assert choice == hint
            continue
        m = gain[best] / budget
        se = math.sqrt(max((square[best] - budget * m * m) / (budget - 1), 0) / budget)
        assert choice == (best if m > ismcts.FLAT_CONFIDENCE * se else hint)
        tested += 1
    assert flat >= 5 and tested >= 1  # a finalist with a positive gain was tested


@pytest.mark.parametrize("players, teams", [(3, False), (6, True)])
def test_the_flat_search_does_not_peek(players, teams):
    cfg, team = flat_config(players, teams, budget=12)
    _, m = tc.DEAL[(players, teams)]
    changed = 0
    for g, (st, bnd, seat) in enumerate(turn_starts(players, teams, 4, 910)):
        other = hidden_swapped(st, bnd, seat, players, m, seed=g)
        changed += int(not np.array_equal(other.hands, st.hands) or
                       not np.array_equal(other.mid, st.mid))
        a = ismcts.flat_search(cfg.icfg, team, st, bnd, seat, seat, 12, seed=g)
        b = ismcts.flat_search(cfg.icfg, team, other, bnd, seat, seat, 12, seed=g)
        assert a[0] == b[0]
        assert np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    assert changed >= 2


def test_mid_turn_the_flat_policy_searches_the_tree():
    cfg, team = flat_config(3, budget=20)
    st, bnd = sevens_position()
    choice, _, visits = ismcts.flat_search(cfg.icfg, team, st, bnd, 0, 0, 20, seed=1)
    assert choice == 0 and visits.sum() == 20  # a sure trio: the tree search
    tc.apply_reveal(0, 0, 3, 9, st.hands, st.hsize, st.rlo, st.rhi, st.mid, st.mrev, st.turn,
                    st.owner, st.hknow, st.mknow)
    choice, _, visits = ismcts.flat_search(cfg.icfg, team, st, bnd, 0, 0, 20, seed=1)
    assert choice == 0 and visits.sum() == 20  # mid-turn: the tree search


def test_flat_games_are_reproducible_and_play_to_the_end():
    pols = ["deduce", "ismcts-flat:8", "memory"]
    whole = play(pols, 12, 0, 3)
    tail = play(pols, 12, 1, 2)
    for x, z in zip(whole, tail, strict=True):
        assert np.array_equal(x[1:], z)
    assert_plays_to_the_end(["ismcts-flat:6"] * 4, 2, 2, teams=True, mode="spicy")
