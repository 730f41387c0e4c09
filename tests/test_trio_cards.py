"""The Numba Trio card engine against the pure-Python reference, plus rule checks."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from trilab.solver.rng import PyRng, game_stream, py_digest_step
from trilab.solver.trio_cards import game as tc
from trilab.solver.trio_cards import reference as ref

TABLES = [(3, False), (4, False), (4, True), (5, False), (6, False), (6, True)]
MODES = ("simple", "spicy")


# ---------------------------------------------------------------- glue


def code(action: tuple[str, int]) -> int:
    kind, i = action
    return {"low": 2 * i, "high": 2 * i + 1, "mid": tc.MID_BASE + i}[kind]


def to_engine(table: ref.Table) -> tc.EngineState:
    """The engine arrays of a reference table."""
    st = tc.new_state()
    for p in range(table.n):
        full = sorted(table.hands[p] + [v for k, q, v in table.faceup if k != "mid" and q == p])
        st.hands[p, :len(full)] = full
        st.hsize[p] = len(full)
        st.rlo[p] = table.count_up("low", p)
        st.rhi[p] = table.count_up("high", p)
    for j, card in enumerate(table.middle):
        st.mid[j] = card or 0
    for kind, j, _ in table.faceup:
        if kind == "mid":
            st.mrev[j] = 1
    if table.faceup:
        st.turn[:] = (len(table.faceup), table.faceup[0][2])
    for v, team in table.trios.items():
        st.owner[v] = team
    for o, records in enumerate(table.know):
        for key, v in records.items():
            if key[0] == "mid":
                st.mknow[o, key[1]] = v
            else:
                st.hknow[o, key[1], key[2]] = v
    return st


def assert_same(st: tc.EngineState, table: ref.Table) -> None:
    want = to_engine(table)
    for name, a, b in zip(tc.EngineState._fields, st, want):
        np.testing.assert_array_equal(a, b, err_msg=name)


def engine_legal(st: tc.EngineState, n: int, m: int) -> list[int]:
    out = np.zeros(tc.MAX_ACTIONS, dtype=np.int64)
    k = tc.legal_reveals(n, m, st.hsize, st.rlo, st.rhi, st.mid, st.mrev, out)
    return [int(x) for x in out[:k]]


def engine_apply(st: tc.EngineState, a: int, team: int, n: int, m: int) -> int:
    return int(tc.apply_reveal(a, team, n, m, st.hands, st.hsize, st.rlo, st.rhi, st.mid,
                               st.mrev, st.turn, st.owner, st.hknow, st.mknow))


def engine_memory(st: tc.EngineState, o: int, team: int, mode: str, n: int, m: int,
                  rs: np.ndarray) -> int:
    sc = tc.new_scratch()
    k = tc.legal_reveals(n, m, st.hsize, st.rlo, st.rhi, st.mid, st.mrev, sc.legal)
    return int(tc.memory_choice(o, rs, team, tc.MODES.index(mode), n, m, st.hands, st.hsize,
                                st.rlo, st.rhi, st.mid, st.mrev, st.turn, st.owner, st.hknow,
                                st.mknow, sc.legal, k, sc.cand, sc.acc, sc.loc, sc.pool))


def assert_conserved(st: tc.EngineState, n: int) -> None:
    counts = np.zeros(tc.N_VALUES + 1, dtype=np.int64)
    for p in range(n):
        for v in st.hands[p, :st.hsize[p]]:
            counts[v] += 1
        assert list(st.hands[p, :st.hsize[p]]) == sorted(st.hands[p, :st.hsize[p]])
    for v in st.mid:
        counts[v] += 1
    owned = st.owner >= 0
    assert not owned[0] and (counts[owned] == 0).all()  # a trio's cards left play
    counts[owned] += 3
    assert list(counts[1:]) == [3] * tc.N_VALUES
    assert int(st.hsize.sum()) + int((st.mid != 0).sum()) + 3 * int((st.owner >= 0).sum()) == 36


def true_value(table: ref.Table, action: tuple[str, int]) -> int:
    kind, i = action
    if kind == "mid":
        return table.middle[i]
    return table.hands[i][0] if kind == "low" else table.hands[i][-1]


def random_states(players: int, teams: bool, mode: str, count: int, seed: int):
    """Reference tables met on random walks that often reveal matching cards
    (to reach trios and wins), with random forgetting; yields
    ``(table, seat to move)``."""
    r = random.Random(seed)
    opts = ref.parse_options({"players": players, "mode": mode, "teams": teams})
    made = 0
    game = 0
    while made < count:
        table = ref.new_table(PyRng(seed, game), opts)
        game += 1
        cheat = r.choice([0.2, 0.6, 0.95])
        for turn in range(300):
            seat = turn % players
            if r.random() < 0.3:
                table.forget(r.randrange(players), r.choice([0.0, 0.3, 1.0]), PyRng(seed, turn))
            over = False
            while True:
                if r.random() < (0.15, 0.4, 0.9)[len(table.faceup)] and made < count:
                    made += 1
                    yield table, seat
                legal = table.legal()
                if table.faceup and r.random() < cheat:
                    match = [a for a in legal if true_value(table, a) == table.faceup[0][2]]
                    legal = match or legal
                got = table.reveal(r.choice(legal), table.team_of(seat))
                if got == 0:
                    continue
                if got > 0 and table.result(table.team_of(seat)) is not None:
                    over = True
                elif got > 0 and teams and r.random() < 0.7:
                    table.swap(table.team_of(seat))
                break
            if over or made >= count:
                break


def deck_with(*groups: list[int]) -> list[int]:
    """A deck dealing ``groups`` first, then the remaining cards ascending."""
    rest = [v for v in range(1, 13) for _ in range(3)]
    head = [v for g in groups for v in g]
    for v in head:
        rest.remove(v)
    return head + rest


# ---------------------------------------------------------------- deal and tables


@pytest.mark.parametrize("players, teams", TABLES)
def test_deal_sizes_and_engine_deal_matches_reference(players, teams):
    expected = {(3, False): (9, 9), (4, False): (7, 8), (5, False): (6, 6),
                (6, False): (5, 6), (4, True): (9, 0), (6, True): (6, 0)}[(players, teams)]
    assert tc.DEAL[(players, teams)] == expected
    h, m = expected
    assert players * h + m == 36
    st = tc.new_state()
    deck = np.zeros(36, dtype=np.int64)
    for g in range(20):
        rs = game_stream(np.uint64(99), np.uint64(g))
        tc.deal(rs, players, h, m, deck, st.hands, st.hsize, st.mid)
        py = PyRng(99, g)
        table = ref.Table(players, "simple", teams, ref.shuffled_deck(py))
        assert int(rs[0]) == py.state  # the same draws
        assert [len(x) for x in table.hands] == [h] * players
        assert len(table.middle) == m
        assert_same(st, table)
        assert_conserved(st, players)
        if teams:
            before = copy.deepcopy(table.hands)
            table.swap(-1)
            dig = tc.team_swaps(-1, players, st.hands, st.hsize, st.hknow,
                                np.zeros(13, np.int64), np.uint64(0))
            assert_same(st, table)
            assert int(dig) == table.digest != 0  # every team swapped
            assert_conserved(st, players)
            for a, b in tc.make_config({"players": players, "teams": True}).teams:
                assert sorted(before[a] + before[b]) == sorted(table.hands[a] + table.hands[b])


def test_linked_pairs():
    listed = {(1, 6), (1, 8), (2, 5), (2, 9), (3, 4), (3, 10), (4, 11), (5, 12)}
    engine = {(a, b) for a in range(1, 13) for b in range(a + 1, 13) if tc.is_linked(a, b)}
    assert engine == listed == ref.LINKED_PAIRS
    assert not any(tc.is_linked(7, b) or tc.is_linked(b, 7) for b in range(1, 13))
    assert all(tc.is_linked(a, b) == tc.is_linked(b, a) for a in range(1, 13)
               for b in range(1, 13))


# ---------------------------------------------------------------- random states


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("players, teams", TABLES)
def test_engine_matches_reference_on_random_states(players, teams, mode):
    m = tc.DEAL[(players, teams)][1]
    trios = wins = forgets = 0
    for idx, (table, seat) in enumerate(random_states(players, teams, mode, 200, 7 + players)):
        st = to_engine(table)
        assert_conserved(st, players)
        legal = table.legal()
        assert engine_legal(st, players, m) == [code(a) for a in legal]
        team = table.team_of(seat)
        for a in legal:
            t2 = copy.deepcopy(table)
            s2 = st.copy()
            got = t2.reveal(a, team)
            assert t2.digest == py_digest_step(table.digest, code(a))
            assert engine_apply(s2, code(a), team, players, m) == got
            assert_same(s2, t2)
            assert_conserved(s2, players)
            if got > 0:
                trios += 1
                reason = t2.result(team)
                want = -1 if reason is None else ref.REASONS.index(reason)
                wins += reason is not None
                assert tc.trio_result(got, team, s2.owner, tc.MODES.index(mode)) == want
        for o in range(players):
            rng = PyRng(idx, o)
            rs = game_stream(np.uint64(idx), np.uint64(o))
            want = table.memory_choice(o, rng)
            assert engine_memory(st, o, table.team_of(o), mode, players, m, rs) == code(want)
            assert int(rs[0]) == rng.state
        if not table.faceup:
            o = idx % players
            p = (0.0, 0.25, 0.6, 1.0)[idx % 4]
            rng = PyRng(idx, 100)
            rs = game_stream(np.uint64(idx), np.uint64(100))
            t2, s2 = copy.deepcopy(table), st.copy()
            h = tc.forget(o, p, rs, players, m, s2.hsize, s2.hknow, s2.mknow,
                          np.uint64(t2.digest))
            t2.forget(o, p, rng)
            assert_same(s2, t2)
            assert int(rs[0]) == rng.state
            assert int(h) == t2.digest
            forgets += t2.digest != table.digest
            if teams:
                skip = idx % (players // 2 + 1) - 1
                t2.swap(skip)
                h = tc.team_swaps(skip, players, s2.hands, s2.hsize, s2.hknow,
                                  np.zeros(13, np.int64), np.uint64(h))
                assert_same(s2, t2)
                assert int(h) == t2.digest
                assert_conserved(s2, players)
    assert trios > 20 and wins >= 1  # the walk reached trios and wins
    assert forgets >= 1  # and forgot records


@pytest.mark.parametrize("mode", MODES)
def test_win_detection_matches_reference(mode):
    """Random reachable trio ownerships (no side has won yet), then one more trio."""
    r = random.Random(mode)
    table = ref.Table(4, mode, False, deck_with())
    seen = set()
    for _ in range(3000):
        table.trios = {}
        for v in r.sample(range(1, 13), r.randrange(0, 9)):
            t = r.randrange(4)
            table.trios[v] = t
            if table.result(t) is not None:
                del table.trios[v]
        owner = np.full(13, -1, dtype=np.int64)
        for w, t in table.trios.items():
            owner[w] = t
        team = r.randrange(4)
        v = r.choice([w for w in range(1, 13) if owner[w] < 0])
        mine = [w for w, t in table.trios.items() if t == team]
        assert tc.would_win(v, team, owner, tc.MODES.index(mode)) == (
            table.result(team, mine + [v]) is not None)
        owner[v] = team
        table.trios[v] = team
        reason = table.result(team)
        want = -1 if reason is None else ref.REASONS.index(reason)
        assert tc.trio_result(v, team, owner, tc.MODES.index(mode)) == want
        seen.add(want)
    assert seen == {-1, tc.SEVENS, tc.THREE_TRIOS if mode == "simple" else tc.LINKED_TRIOS}


# ---------------------------------------------------------------- whole games


def mixed(players: int) -> list[str]:
    return ["memory", "random", "forgetful:0.3", "forgetful:1", "random", "forgetful:0"][:players]


GAME_CASES = [
    (players, teams, mode, policies, 12 if policies == "random" else 24)
    for players, teams in TABLES
    for mode in MODES
    for policies in ("random", "memory", "forgetful:0.3", "mixed")
] + [  # deduce in every seat: the engine's belief and choices against reference_deduce's,
    # move by move (the Python twin is slow from 5 players on: one game there)
    (3, False, "simple", "deduce", 6), (3, False, "spicy", "deduce", 6),
    (4, False, "simple", "deduce", 4), (4, False, "spicy", "deduce", 4),
    (4, True, "simple", "deduce", 6), (4, True, "spicy", "deduce", 6),
    (5, False, "simple", "deduce", 1), (6, True, "spicy", "deduce", 1),
]


@pytest.mark.parametrize("players, teams, mode, policies, n_games", GAME_CASES)
def test_engine_games_match_reference_games(players, teams, mode, policies, n_games):
    pol = mixed(players) if policies == "mixed" else [policies]
    options = {"players": players, "teams": teams, "mode": mode, "policies": pol}
    config = tc.make_config(options)
    w, n, r, d = tc.play_chunk(np.uint64(2024), np.int64(5), np.int64(n_games), config.icfg,
                               config.fcfg)
    assert d.dtype == np.uint64
    for g in range(n_games):
        assert ref.reference_game(2024, 5 + g, options) == (int(w[g]), int(n[g]), int(r[g]),
                                                            int(d[g]))
    assert len(set(d.tolist())) == n_games
    if policies != "random":
        assert (r != tc.TURN_CAP).any()


def test_forgetful_zero_is_memory_game_by_game():
    a = tc.make_config({"players": 4, "policies": ["memory"]})
    b = tc.make_config({"players": 4, "policies": ["forgetful:0"]})
    c = tc.make_config({"players": 4, "policies": ["forgetful:1"]})
    ra = tc.play_chunk(np.uint64(3), np.int64(0), np.int64(200), a.icfg, a.fcfg)
    rb = tc.play_chunk(np.uint64(3), np.int64(0), np.int64(200), b.icfg, b.fcfg)
    rc = tc.play_chunk(np.uint64(3), np.int64(0), np.int64(200), c.icfg, c.fcfg)
    for x, y in zip(ra, rb):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(ra[1], rc[1])


def test_turn_cap_ends_with_no_winner():
    options = {"players": 3, "policies": ["random"], "turn_cap": 4}
    config = tc.make_config(options)
    w, n, r, d = tc.play_chunk(np.uint64(5), np.int64(0), np.int64(200), config.icfg,
                               config.fcfg)
    capped = r == tc.TURN_CAP
    assert capped.sum() > 150
    assert (w[capped] == 0).all() and (n[capped] == 4).all()
    assert (n[~capped] <= 4).all() and (w[~capped] != 0).all()
    for g in range(30):
        assert ref.reference_game(5, g, options) == (int(w[g]), int(n[g]), int(r[g]),
                                                     int(d[g]))
    assert tc.END_REASONS[tc.TURN_CAP] in tc.SPEC.draw_reasons


@pytest.mark.parametrize("mode", MODES)
def test_sevens_win_at_once(mode):
    table = ref.Table(3, mode, False, deck_with([1, 1, 1, 2, 2, 2, 7, 7, 7]))
    st = to_engine(table)
    for step in range(3):
        got = table.reveal(("high", 0), 0)
        assert engine_apply(st, 1, 0, 3, 9) == got == (7 if step == 2 else 0)
    assert table.result(0) == "sevens"
    assert tc.trio_result(7, 0, st.owner, tc.MODES.index(mode)) == tc.SEVENS
    assert st.hsize[0] == 6 and st.owner[7] == 0 and (st.owner[np.arange(13) != 7] == -1).all()


def test_mismatch_returns_the_cards():
    table = ref.Table(3, "simple", False, deck_with([1, 2, 3, 4, 5, 6, 8, 9, 10]))
    st = to_engine(table)
    before = st.copy()
    assert engine_apply(st, 0, 0, 3, 9) == 0
    assert engine_apply(st, 3, 0, 3, 9) == -1  # seat 0 shows a 1, seat 1 its highest (5)
    for name in ("hands", "hsize", "rlo", "rhi", "mid", "mrev", "turn", "owner"):
        np.testing.assert_array_equal(getattr(st, name), getattr(before, name))
    assert st.hknow[1, 0, 0] == 1 and st.hknow[0, 0, 0] == 0  # others saw it, not its owner


def test_one_card_hand_has_one_reveal():
    table = ref.Table(3, "simple", False, deck_with([1, 2, 2, 2, 3, 3, 3, 4, 4]))
    for _ in range(8):
        table.take(("high", 0))
    assert len(table.hands[0]) == 1
    st = to_engine(table)
    assert [a for a in engine_legal(st, 3, 9) if a < 2] == [0]
    assert [a for a in table.legal() if a[1] == 0 and a[0] != "mid"] == [("low", 0)]


@pytest.mark.parametrize("mode, second, reason", [
    ("spicy", 5, "linked trios"), ("spicy", 6, None), ("simple", 6, None)])
def test_teams_share_trios(mode, second, reason):
    # 4 players in teams: seat 0 and seat 2 are partners (team 0)
    deck = deck_with([2, 2, 2, 7, 7, 7, 8, 8, 8], [1, 1, 1, 3, 3, 3, 4, 4, 4],
                     [second] * 3 + [10, 10, 10, 11, 11, 11])
    table = ref.Table(4, mode, True, deck)
    st = to_engine(table)
    for seat, value in ((0, 2), (2, second)):
        for _ in range(3):
            got = table.reveal(("low", seat), table.team_of(seat))
            assert engine_apply(st, 2 * seat, table.team_of(seat), 4, 0) == got
        assert got == value and st.owner[value] == 0  # team 0 owns both
        want = table.result(table.team_of(seat))
    assert want == reason
    assert tc.trio_result(second, 0, st.owner, tc.MODES.index(mode)) == (
        -1 if reason is None else tc.END_REASONS.index(reason))
    assert tc.winners_mask(4, np.array([0, 1, 0, 1, 4, 5]), 0) == 0b0101
    if mode == "simple":  # a third trio by either partner wins for both
        st.owner[11] = 0
        assert tc.trio_result(11, 0, st.owner, 0) == tc.THREE_TRIOS


def test_team_groups_and_per_team_policies():
    config = tc.make_config({"players": 6, "teams": True, "policies": ["memory", "random",
                                                                       "forgetful:0.5"]})
    assert config.teams == ((0, 3), (1, 4), (2, 5))
    assert config.seat_policies == ("memory", "random", "forgetful:0.5") * 2
    assert tc.make_config({"players": 4, "teams": True}).teams == ((0, 2), (1, 3))
    assert tc.make_config({"players": 4}).teams is None


BAD = [
    ({"players": 2}, "3..6"),
    ({"players": 7}, "3..6"),
    ({"players": 3, "teams": True}, "team"),
    ({"players": 5, "teams": True}, "team"),
    ({"players": 3, "policies": ["clever"]}, "clever"),
    ({"players": 3, "policies": ["forgetful:2"]}, "forgetful"),
    ({"players": 3, "policies": ["forgetful:-0.1"]}, "forgetful"),
    ({"players": 3, "policies": ["forgetful:x"]}, "forgetful"),
    ({"players": 3, "policies": ["forgetful"]}, "forgetful"),
    ({"players": 3, "policies": ["forgetful:nan"]}, "forgetful"),
    ({"players": 4, "policies": ["random", "memory"]}, "wrong number of policies"),
    ({"players": 3, "policies": ["random"] * 4}, "wrong number of policies"),
    ({"players": 3, "turn_cap": 0}, "turn_cap"),
    ({"players": 3, "mode": "hot"}, "mode"),
    ({"players": 3, "colour": 1}, "colour"),
]


@pytest.mark.parametrize("options, needle", BAD)
def test_bad_configs_raise_one_line(options, needle):
    with pytest.raises(ValueError) as err:
        tc.make_config(options)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_spec():
    spec = tc.SPEC
    assert spec.name == "trio-cards" and spec.end_reasons == tc.END_REASONS
    assert spec.reference_game is ref.reference_game
    assert set(spec.policies) == {"random", "memory", "forgetful:P", "deduce", "infer:K",
                                  "ismcts:N", "ismcts-deduce:N", "ismcts-flat:N",
                                  "ismcts-infer:N"}
    cfg = spec.make_config({"players": 5, "mode": "spicy", "policies": ["forgetful:0.25"]})
    assert cfg.n_seats == 5 and cfg.options["mode"] == "spicy"
    assert cfg.icfg.dtype == np.int64 and cfg.fcfg.dtype == np.float64
    assert list(cfg.fcfg[:5]) == [0.25] * 5


def test_digest_codes_are_distinct_and_agree():
    """Reveal, swap and forget codes never collide; engine and reference agree."""
    reveals = [code(a) for a in [(k, p) for p in range(6) for k in ("low", "high")]
               + [("mid", j) for j in range(tc.MAX_MIDDLE)]]
    assert reveals == [ref.reveal_code(a) for a in [(k, p) for p in range(6)
                                                     for k in ("low", "high")]
                       + [("mid", j) for j in range(tc.MAX_MIDDLE)]]
    assert reveals == list(range(tc.MAX_ACTIONS))
    swaps = [int(tc.swap_code(t, a, b)) for t in range(3) for a in range(1, 13)
             for b in range(1, 13)]
    assert swaps == [ref.swap_code(t, a, b) for t in range(3) for a in range(1, 13)
                     for b in range(1, 13)]
    forgets = [ref.forget_code(("hand", q, i)) for q in range(6) for i in range(tc.MAX_HAND)]
    forgets += [ref.forget_code(("mid", j)) for j in range(tc.MAX_MIDDLE)]
    assert forgets == list(range(tc.FORGET_CODE_BASE, tc.FORGET_MID_CODE_BASE + tc.MAX_MIDDLE))
    everything = reveals + swaps + forgets
    assert len(set(everything)) == len(everything) and min(everything) >= 0


def test_digest_sees_reswaps():
    """Reswaps are folded: switching them off changes digests (the reference agrees)."""
    base = {"players": 4, "teams": True, "policies": ["random"]}
    a = tc.make_config(base)
    b = tc.make_config({**base, "team_reswap": False})
    ra = tc.play_chunk(np.uint64(9), np.int64(0), np.int64(40), a.icfg, a.fcfg)
    rb = tc.play_chunk(np.uint64(9), np.int64(0), np.int64(40), b.icfg, b.fcfg)
    assert (ra[3] != rb[3]).any()
    for g in range(3):
        assert ref.reference_game(9, g, {**base, "team_reswap": False})[3] == int(rb[3][g])
