"""Tabula Trivium: the Numba engine against the pure-Python reference.

Board geometry and setup, legal movements / next states / results on thousands
of random reachable states, policy decisions, whole seeded games, chunking,
move digests, rule-specific positions and configuration errors.  Hand-made positions are
written as diagrams: one line per row from the top (4-5-6-7-6-5-4 nodes), in
node order; ``A``/``a`` seat 0 pawn/stone, ``B``/``b`` seat 1, ``.`` empty.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from trilab.solver import rng as rngmod
from trilab.solver.tabula_trivium import game as tt
from trilab.solver.tabula_trivium import reference as ref

KIND = {(0, "pawn"): 0, (0, "stone"): 1, (1, "pawn"): 2, (1, "stone"): 3}
KIND_OF = {v: k for k, v in KIND.items()}
SYMBOL = {"A": 0, "a": 1, "B": 2, "b": 3}


# ------------------------------------------------------------------ helpers


def to_pieces(board: ref.Board) -> tt.Pieces:
    out = [0, 0, 0, 0]
    for cell, v in board.items():
        out[KIND[v]] |= 1 << ref.INDEX[cell]
    return tuple(out)


def to_board(pieces: tt.Pieces) -> ref.Board:
    board = {}
    for i, cell in enumerate(ref.CELLS):
        owners = [k for k in range(4) if pieces[k] >> i & 1]
        assert len(owners) <= 1, f"node {i} holds two pieces"
        if owners:
            board[cell] = KIND_OF[owners[0]]
    return board


def pm_index(m: ref.PawnMove) -> tt.PawnMove:
    return ref.INDEX[m[0]], ref.INDEX[m[1]], -1 if m[2] is None else ref.INDEX[m[2]]


def sm_index(m: ref.StoneMove | None) -> tt.StoneMove | None:
    return None if m is None else (ref.INDEX[m[0]], ref.INDEX[m[1]])


def diagram(text: str) -> tt.Pieces:
    rows = text.split()
    assert [len(r) for r in rows] == [4, 5, 6, 7, 6, 5, 4]
    out = [0, 0, 0, 0]
    for i, ch in enumerate("".join(rows)):
        if ch != ".":
            out[SYMBOL[ch]] |= 1 << i
    return tuple(out)


def chunk(cfg, seed: int, first: int, n: int):
    """``play_chunk`` called with the driver's argument types (one compiled version)."""
    return tt.play_chunk(np.uint64(seed), np.int64(first), np.int64(n), cfg.icfg, cfg.fcfg)


def engine_game(policies, start, seed=1, game=0, ply_cap=400):
    """``(winners, plies, reason, digest)`` of one engine game from ``start``."""
    res = tt.play_games({"policies": policies, "ply_cap": ply_cap}, seed, game, 1, start)
    return tuple(int(a[0]) for a in res)


def digest_of(*turns) -> int:
    """The move digest of a game that played ``turns`` (reference move codes)."""
    h = 0
    for pm, sm in turns:
        h = rngmod.py_digest_step(h, ref.turn_code(pm, sm))
    return h


def reference_game_from(policies, start, seed=1, game=0, ply_cap=400):
    pols = list(policies) * (2 if len(policies) == 1 else 1)
    return ref.play_game(seed, game, pols, ply_cap, to_board(start))


@functools.cache
def reachable_states(n_games: int = 24, seed: int = 2024) -> tuple:
    """``(board, side, phase)`` along random games played by the reference rules:
    ``phase`` is ``"start"`` (start of a turn) or ``"mid"`` (after the pawn movement)."""
    rnd = random.Random(seed)
    states = []
    for _ in range(n_games):
        board, side = ref.initial_board(), 0
        for _ply in range(400):
            states.append((board, side, "start"))
            if ref.status(board, side) is not None:
                break
            board = ref.play_pawn(board, rnd.choice(ref.pawn_moves(board, side)))
            states.append((board, side, "mid"))
            if ref.material_result(board) is not None:
                break
            stones = ref.stone_moves(board, side)
            if stones:
                board = ref.play_stone(board, rnd.choice(stones))
            side = 1 - side
    return tuple(states)


def live_states(k: int, seed: int) -> list:
    """``k`` start-of-turn states where the game goes on, sampled reproducibly."""
    pool = [(b, s) for b, s, ph in reachable_states() if ph == "start" and not ref.status(b, s)]
    return random.Random(seed).sample(pool, k)


# ------------------------------------------------------------------ board and setup


def test_board_graph_geometry():
    g = tt.board_graph()
    assert g.number_of_nodes() == tt.N_NODES == 37
    rows = Counter(a["row"] for _, a in g.nodes(data=True))
    assert [rows[r] for r in range(7)] == [4, 5, 6, 7, 6, 5, 4]
    assert Counter(a["ring"] for _, a in g.nodes(data=True)) == {0: 1, 1: 6, 2: 12, 3: 18}
    # corners have 3 neighbours, other rim nodes 4, inner nodes 6
    assert Counter(d for _, d in g.out_degree()) == {3: 6, 4: 12, 6: 19}
    for u, v, d in g.edges(data="direction"):
        assert g.edges[v, u]["direction"] == d ^ 1
    # 3 families of 7 straight lines: each edge of family f keeps the line invariant
    invariants = (lambda q, r: r, lambda q, r: q, lambda q, r: q + r)
    for f, inv in enumerate(invariants):
        lines = Counter(inv(a["q"], a["r"]) for _, a in g.nodes(data=True))
        assert sorted(lines.values()) == [4, 4, 5, 5, 6, 6, 7]
        for u, v, d in g.edges(data="direction"):
            if d // 2 == f:
                nu, nv = g.nodes[u], g.nodes[v]
                assert inv(nu["q"], nu["r"]) == inv(nv["q"], nv["r"])


def test_tables_agree_with_graph():
    g = tt.board_graph()
    t = tt.tables()
    arcs = {(u, d): v for u, v, d in g.edges(data="direction")}
    two_apart = 0
    for u in range(tt.N_NODES):
        for d in range(tt.N_DIRS):
            assert t.nbr[u, d] == arcs.get((u, d), -1)
            walk, x = [], arcs.get((u, d))
            while x is not None:
                walk.append(x)
                x = arcs.get((x, d))
            assert list(t.rays[u, d, : len(walk)]) == walk
            assert all(t.rays[u, d, len(walk):] == -1)
            if len(walk) >= 2:
                assert t.mid[u, walk[1]] == walk[0]
                two_apart += 1
    assert (t.mid >= 0).sum() == two_apart


def test_reference_board_is_the_same_board():
    g = tt.board_graph()
    assert len(ref.CELLS) == tt.N_NODES
    for i, a in g.nodes(data=True):
        assert ref.CELLS[i] == (2 * a["q"] + a["r"], a["r"])  # doubled coordinates
        assert {ref.INDEX[c] for c in ref.neighbours(ref.CELLS[i])} == set(g.successors(i))


def test_setup_counts_and_symmetry():
    g = tt.board_graph()
    pieces = tt.initial_pieces()
    assert [p.bit_count() for p in pieces] == [5, 9, 5, 9]
    occupied = pieces[0] | pieces[1] | pieces[2] | pieces[3]
    assert occupied.bit_count() == 28
    empty = {i for i in range(37) if not occupied >> i & 1}
    split = {i for i, a in g.nodes(data=True) if 2 * a["q"] + a["r"] == 0}
    assert len(split) == 3 and {g.nodes[i]["ring"] for i in split} == {0, 2}
    # the split line is perpendicular to the rows: one node in rows 1, 3, 5, none elsewhere
    assert sorted(g.nodes[i]["row"] for i in split) == [1, 3, 5]
    inner = {i for i, a in g.nodes(data=True) if a["ring"] <= 1}
    assert empty == inner | split and len(empty) == 9
    for seat in (0, 1):
        sign = tt.SEAT0_HALF * (1 if seat == 0 else -1)
        for kind, ring_ in ((0, 2), (1, 3)):
            nodes = {i for i in range(37) if pieces[2 * seat + kind] >> i & 1}
            assert all(g.nodes[i]["ring"] == ring_ and g.nodes[i]["half"] == sign for i in nodes)
    # the mirror x -> -x maps each seat's pieces onto the other's
    index = {(a["q"], a["r"]): i for i, a in g.nodes(data=True)}
    mirror = [index[(-a["q"] - a["r"], a["r"])] for _, a in sorted(g.nodes(data=True))]
    for k in range(4):
        image = sum(1 << mirror[i] for i in range(37) if pieces[k] >> i & 1)
        assert image == pieces[k ^ 2]
    assert to_pieces(ref.initial_board()) == pieces


def test_setup_diagram():
    # seat 0 (A pawns, a stones) owns the left half, seat 1 the right half
    assert tt.initial_pieces() == diagram("""
           aabb
          aA.Bb
         aA..Bb
        aA...Bb
         aA..Bb
          aA.Bb
           aabb
    """)


# ------------------------------------------------------------------ rules on random states


def test_engine_matches_reference_on_random_states():
    states = reachable_states()
    assert len(states) > 3000
    seen = Counter()
    rnd = random.Random(7)
    for board, side, phase in states:
        pieces = to_pieces(board)
        assert to_board(pieces) == board
        # results
        mat = ref.material_result(board)
        assert tt.material_result(pieces) == (mat if mat else (0, -1))
        st = ref.status(board, side)
        assert tt.game_status(pieces, side) == (st if st else (0, -1))
        if st:
            seen[tt.END_REASONS[st[1]]] += 1
        if phase == "start":
            expected = [pm_index(m) for m in ref.pawn_moves(board, side)]
            got = tt.legal_pawn_moves(pieces, side)
            assert got == expected
            arr = np.array(pieces, np.uint64)
            assert tt.count_pawn_moves(tt.tables().nbr, arr, side) == len(got)
            for m, e in zip(ref.pawn_moves(board, side), got):
                assert tt.play_pawn(pieces, side, e) == to_pieces(ref.play_pawn(board, m))
                if m[2] is None:
                    seen["one step" if e[1] in tt.tables().nbr[e[0]] else "two steps"] += 1
                else:
                    owner, kind = board[m[2]]
                    seen[f"jump {'own' if owner == side else 'opp'} {kind}"] += 1
        else:
            expected = [sm_index(m) for m in ref.stone_moves(board, side)]
            got = tt.legal_stone_moves(pieces, side)
            assert got == expected
            for m in rnd.sample(ref.stone_moves(board, side), min(4, len(got))):
                after = tt.play_stone(pieces, side, sm_index(m))
                assert after == to_pieces(ref.play_stone(board, m))
            seen["no stone move" if not got else "stone moves"] += 1
    for what in ("one step", "two steps", "jump own pawn", "jump own stone", "jump opp pawn",
                 "jump opp stone", "no stones", "no pawns", "stone moves"):
        assert seen[what] > 0, (what, seen)


def test_zobrist_hashes_separate_positions():
    keys = tt.zobrist_keys()
    hashes = {}
    for board, side, _ in reachable_states()[:3000]:
        pos = (to_pieces(board), side)
        h = int(tt.zobrist(keys, np.array(pos[0], np.uint64), side))
        assert hashes.setdefault(h, pos) == pos
        other = int(tt.zobrist(keys, np.array(pos[0], np.uint64), 1 - side))
        assert other != h


# ------------------------------------------------------------------ policy decisions


def check_decision(policy, board, side, seed, game):
    pieces = to_pieces(board)
    pm, sm, nxt = tt.decide(policy, pieces, side, seed, game)
    py = rngmod.PyRng(seed, game)
    rpm, rsm = ref.choose_turn(policy, board, side, py)
    assert (pm, sm) == (pm_index(rpm), sm_index(rsm)), policy
    assert nxt == py.next_u64()  # both consumed the same draws
    return pm, sm


@pytest.mark.parametrize("policy, k", [("random", 300), ("greedy", 120), ("lookahead:1", 12)])
def test_policy_decisions_match_reference(policy, k):
    for i, (board, side) in enumerate(live_states(k, seed=len(policy))):
        check_decision(policy, board, side, 99, i)


def test_greedy_preferences():
    branches = Counter()
    for i, (board, side) in enumerate(live_states(150, seed=5)):
        moves = ref.pawn_moves(board, side)
        pm, sm = check_decision("greedy", board, side, 5, i)
        caps = [m for m in moves if m[2] is not None and board[m[2]][0] != side]
        cap = None if pm[2] < 0 else board[ref.CELLS[pm[2]]]
        if caps:
            branches["capture"] += 1
            assert cap is not None and cap[0] != side  # captures an opponent piece
        elif any(m[2] is None for m in moves):
            branches["step"] += 1
            assert cap is None  # never its own piece unless forced
        after = ref.play_pawn(board, (ref.CELLS[pm[0]], ref.CELLS[pm[1]],
                                      None if pm[2] < 0 else ref.CELLS[pm[2]]))
        if sm is not None:
            after = ref.play_stone(after, (ref.CELLS[sm[0]], ref.CELLS[sm[1]]))
        if not caps and ref.material_result(after) is None and ref.pawn_moves(after, 1 - side):
            # a safe turn was played whenever one existed among the steps
            steps = [m for m in moves if m[2] is None] or moves
            safe_exists = any(
                ref.material_result(b) is None and not ref.opponent_can_capture(b, side)
                for _, _, b in ref.full_turns(board, side, steps)
            )
            assert safe_exists == (not ref.opponent_can_capture(after, side))
            branches["safe" if safe_exists else "unsafe"] += 1
    assert min(branches[b] for b in ("capture", "step", "safe", "unsafe")) >= 1, branches


def dense_positions(n: int, max_turns: int, seed: int) -> list[tt.Pieces]:
    """Crowded random positions (piece counts not limited to 5 + 9) where both seats
    have between 3 and ``max_turns`` full turns: small trees for deep references."""
    rnd = random.Random(seed)
    out = []
    while len(out) < n:
        nodes = list(range(37))
        rnd.shuffle(nodes)
        n_pawns = rnd.choice([1, 2, 3])
        pieces = [0, 0, 0, 0]
        for i, node in enumerate(nodes[rnd.choice([5, 6, 7, 8]):]):
            pieces[2 * (i % 2) + (0 if i < 2 * n_pawns else 1)] |= 1 << node
        pieces = tuple(pieces)
        if tt.game_status(pieces, 0)[1] >= 0 or tt.game_status(pieces, 1)[1] >= 0:
            continue
        board = to_board(pieces)
        if all(3 <= len(ref.full_turns(board, s, ref.pawn_moves(board, s))) <= max_turns
               for s in (0, 1)):
            out.append(pieces)
    return out


@pytest.mark.parametrize("depth, n, max_turns", [(1, 12, 15), (2, 12, 15), (3, 8, 15)])
def test_deep_lookahead_matches_plain_negamax(depth, n, max_turns):
    for i, pieces in enumerate(dense_positions(n, max_turns, seed=depth)):
        check_decision(f"lookahead:{depth}", to_board(pieces), i % 2, 17, i)  # both sides


# ------------------------------------------------------------------ whole games


@pytest.mark.parametrize("policies, n, cap", [
    (["random"], 40, 400),
    (["greedy"], 10, 60),
    (["random", "greedy"], 30, 400),
    (["greedy", "random"], 30, 400),
    (["lookahead:1", "random"], 5, 400),
    (["random", "lookahead:1"], 4, 400),
])
def test_games_match_reference(policies, n, cap):
    options = {"policies": policies, "ply_cap": cap}
    cfg = tt.make_config(options)
    w, length, reason, digest = chunk(cfg, 31, 100, n)
    assert digest.dtype == np.uint64
    got = list(zip(w.tolist(), length.tolist(), reason.tolist(), digest.tolist()))
    expected = [tt.SPEC.reference_game(31, 100 + g, options) for g in range(n)]
    assert got == expected
    for winners, plies, r, _ in got:
        assert 0 <= r < len(tt.END_REASONS) and plies <= cap
        assert (winners == 0) == (tt.END_REASONS[r] in tt.SPEC.draw_reasons)


@pytest.mark.parametrize("policies", [["random"], ["greedy", "random"]])
def test_chunking_does_not_change_results(policies):
    cfg = tt.make_config({"policies": policies})
    whole = chunk(cfg, 8, 50, 60)
    parts = [chunk(cfg, 8, 50 + a, b - a)
             for a, b in ((0, 1), (1, 17), (17, 42), (42, 60))]
    assert len(whole) == 4
    for k in range(4):
        assert np.array_equal(whole[k], np.concatenate([p[k] for p in parts]))
    single = [chunk(cfg, 8, 50 + g, 1) for g in (0, 33, 59)]
    for g, s in zip((0, 33, 59), single):
        assert [int(x[0]) for x in s] == [int(whole[k][g]) for k in range(4)]


# ------------------------------------------------------------------ move digests


def test_turn_codes_match_reference_and_are_distinct():
    rnd = random.Random(3)
    seen = {}
    for _ in range(3000):
        pf, pt, pc = rnd.randrange(37), rnd.randrange(37), rnd.randrange(-1, 37)
        sf = rnd.randrange(-1, 37)
        st = -1 if sf < 0 else rnd.randrange(37)
        code = int(tt.turn_code(pf, pt, pc, sf, st))
        pm = (ref.CELLS[pf], ref.CELLS[pt], None if pc < 0 else ref.CELLS[pc])
        sm = None if sf < 0 else (ref.CELLS[sf], ref.CELLS[st])
        assert code == ref.turn_code(pm, sm)
        assert 0 <= code < 2**63
        assert seen.setdefault(code, (pf, pt, pc, sf, st)) == (pf, pt, pc, sf, st)


@pytest.mark.parametrize("policy, n, cap", [
    ("random", 24, 400),
    ("greedy", 6, 60),
    ("lookahead:1", 3, 60),
])
def test_digests_match_reference_game_by_game(policy, n, cap):
    options = {"policies": [policy], "ply_cap": cap}
    w, length, reason, digest = chunk(tt.make_config(options), 2026, 7, n)
    for g in range(n):
        expected = ref.reference_game(2026, 7 + g, options)
        assert int(digest[g]) == expected[3], (policy, g)
        assert (int(w[g]), int(length[g]), int(reason[g])) == expected[:3], (policy, g)
    assert len(set(digest.tolist())) == n  # the digests tell the games apart


# ------------------------------------------------------------------ rule-specific positions

OWN_LAST_STONE = """
    ....
    ....b
    .....b
    B....aA
    .....b
    ....b
    ....
"""


def test_capturing_own_last_stone_loses():
    start = diagram(OWN_LAST_STONE)
    board = to_board(start)
    only = (ref.INDEX[(6, 0)], ref.INDEX[(2, 0)], ref.INDEX[(4, 0)])
    assert tt.legal_pawn_moves(start, 0) == [only]
    assert [pm_index(m) for m in ref.pawn_moves(board, 0)] == [only]
    after = tt.play_pawn(start, 0, only)
    assert tt.material_result(after) == (2, tt.R_NO_STONES)
    ref_only = tuple(ref.CELLS[i] for i in only)
    played = digest_of((ref_only, None))  # one turn, no stone movement
    for policy in ("random", "greedy", "lookahead:1", "lookahead:2"):
        assert engine_game([policy, "random"], start) == (2, 1, tt.R_NO_STONES, played)
    assert reference_game_from(["greedy", "random"], start) == (2, 1, ref.NO_STONES, played)


BLOCKED_AT_START = """
    ....
    b....
    b.....
    Abba..B
    b.....
    b....
    ....
"""

BLOCKED_BY_STONE = """
    ....
    b....
    b.....
    Bb.a..A
    b.....
    b....
    ....
"""


def test_blocked_pawns_lose_at_the_start_of_the_turn():
    start = diagram(BLOCKED_AT_START)
    assert tt.legal_pawn_moves(start, 0) == [] and tt.legal_stone_moves(start, 0)
    assert tt.game_status(start, 0) == (2, tt.R_BLOCKED)
    assert tt.game_status(start, 1) == (0, -1)  # seat 1 could move
    for policy in ("random", "greedy"):
        assert engine_game([policy], start) == (2, 0, tt.R_BLOCKED, 0)  # no turn: digest 0
        assert reference_game_from([policy], start) == (2, 0, ref.BLOCKED, 0)
    # seat 1 can move now (a jump), but greedy seat 0 slides its stone in the way
    start = diagram(BLOCKED_BY_STONE)
    assert len(tt.legal_pawn_moves(start, 1)) == 1
    pm, sm, _ = tt.decide("greedy", start, 0, 3, 0)
    assert sm == (ref.INDEX[(0, 0)], ref.INDEX[(-2, 0)])
    after = tt.play_stone(tt.play_pawn(start, 0, pm), 0, sm)
    assert tt.game_status(after, 1) == (1, tt.R_BLOCKED)
    for g in range(3):
        pm, sm, _ = tt.decide("greedy", start, 0, 1, g)
        played = digest_of(((ref.CELLS[pm[0]], ref.CELLS[pm[1]],
                             None if pm[2] < 0 else ref.CELLS[pm[2]]),
                            (ref.CELLS[sm[0]], ref.CELLS[sm[1]])))
        assert engine_game(["greedy", "random"], start, game=g) == (1, 1, tt.R_BLOCKED, played)
        assert reference_game_from(["greedy", "random"], start, game=g) == (
            1, 1, ref.BLOCKED, played)


STONE_STUCK = """
    ....
    b....
    b.....
    ab....A
    b.....
    B....
    ....
"""


def test_stone_movement_is_skipped_when_no_stone_can_move():
    start = diagram(STONE_STUCK)
    assert tt.legal_stone_moves(start, 0) == []
    for pm in tt.legal_pawn_moves(start, 0):
        assert tt.legal_stone_moves(tt.play_pawn(start, 0, pm), 0) == []
    for policy in ("random", "greedy", "lookahead:1", "lookahead:2"):
        assert tt.decide(policy, start, 0, 4, 2)[1] is None
    for policy in ("random", "greedy", "lookahead:1"):
        check_decision(policy, to_board(start), 0, 4, 2)
    # random draws once (the pawn movement) and nothing for the missing stone movement
    py = rngmod.PyRng(4, 2)
    py.below(len(tt.legal_pawn_moves(start, 0)))
    assert tt.decide("random", start, 0, 4, 2)[2] == py.next_u64()
    assert engine_game(["random"], start, ply_cap=6) == reference_game_from(
        ["random"], start, ply_cap=6)


@pytest.mark.parametrize("cap", [1, 2, 7, 25])
def test_ply_cap_gives_draws(cap):
    options = {"policies": ["random"], "ply_cap": cap}
    w, length, reason, digest = tt.play_games(options, 3, 0, 30)
    assert length.max() <= cap
    capped = reason == tt.R_PLY_CAP
    assert capped.sum() > 0
    assert np.all(length[capped] == cap) and np.all(w[capped] == 0)
    assert np.all(w[~capped] != 0)  # the other games were decided before the cap
    expected = [ref.reference_game(3, g, options) for g in range(30)]
    assert list(zip(w.tolist(), length.tolist(), reason.tolist(), digest.tolist())) == expected


def test_repetition_gives_draws():
    """Crowded positions with both pawns in a corner triangle around one empty node:
    lookahead:1 self-play sometimes dances the pawns round the triangle.  Engine games
    that end by repetition (and a sample of the others) must match the reference,
    which counts exact positions."""
    rnd = random.Random(12)
    g = tt.board_graph()
    corners = [n for n in g if g.out_degree(n) == 3]
    found, others = [], []
    for _ in range(6000):
        c = rnd.choice(corners)
        tri = [c, *rnd.choice([(n, m) for n, m in combinations(g.successors(c), 2)
                               if g.has_edge(n, m)])]
        rnd.shuffle(tri)
        pieces = [1 << tri[0], 0, 1 << tri[1], 0]
        rest = [n for n in range(37) if n not in tri]
        rnd.shuffle(rest)
        for i, node in enumerate(rest[rnd.choice([1, 2, 3, 4, 5, 6]):]):
            pieces[2 * (i % 2) + 1] |= 1 << node
        start = tuple(pieces)
        if tt.game_status(start, 0)[1] >= 0:
            continue
        result = engine_game(["lookahead:1"], start, ply_cap=60)
        (found if result[2] == tt.R_REPETITION else others).append((start, result))
        if len(found) >= 3:
            break
    assert found, "no repetition found: the repetition rule is never triggered"
    for start, result in found + others[:20]:
        assert result == reference_game_from(["lookahead:1"], start, ply_cap=60)
        if result[2] == tt.R_REPETITION:
            assert result[0] == 0 and result[1] >= 4


# ------------------------------------------------------------------ configuration


def test_make_config_and_spec():
    cfg = tt.make_config({"policies": ["greedy"]})
    assert cfg.n_seats == 2 and cfg.seat_policies == ("greedy", "greedy")
    assert cfg.options == {"policies": ["greedy", "greedy"], "ply_cap": tt.DEFAULT_PLY_CAP}
    assert cfg.icfg.dtype == np.int64 and cfg.fcfg.dtype == np.float64
    cfg = tt.make_config({"policies": ["lookahead:2", "random"], "ply_cap": 50})
    assert cfg.seat_policies == ("lookahead:2", "random") and cfg.options["ply_cap"] == 50
    spec = tt.SPEC
    assert spec.name == "tabula-trivium"
    assert set(spec.draw_reasons) <= set(spec.end_reasons) == set(ref.END_REASONS)
    assert spec.end_reasons == ref.END_REASONS
    assert spec.reference_game is ref.reference_game
    assert {"random", "greedy"} <= set(spec.policies)
    # the reference uses the engine's documented constants
    for name in ("DEFAULT_PLY_CAP", "REPETITION_LIMIT", "PAWN_VALUE", "STONE_VALUE",
                 "MOBILITY_VALUE", "WIN_SCORE"):
        assert getattr(tt, name) == getattr(ref, name), name


@pytest.mark.parametrize("options, needle", [
    ({"policies": ["randm"]}, "unknown policy 'randm'"),
    ({"policies": ["lookahead:0"]}, "bad lookahead depth '0'"),
    ({"policies": ["lookahead:x"]}, "bad lookahead depth 'x'"),
    ({"policies": [f"lookahead:{tt.MAX_DEPTH + 1}"]}, "bad lookahead depth"),
    ({"policies": []}, "got 0"),
    ({"policies": ["random"] * 3}, "got 3"),
    ({"policies": ["random"], "ply_cap": 0}, "ply_cap must be an integer >= 1, got 0"),
    ({"policies": ["random"], "ply_cap": "10"}, "ply_cap must be an integer >= 1"),
    ({"policies": ["random"], "seats": 3}, "unknown tabula-trivium option(s): seats"),
])
def test_bad_configs_raise(options, needle):
    with pytest.raises(ValueError) as exc:
        tt.make_config(options)
    assert needle in str(exc.value)
    assert "\n" not in str(exc.value)


def test_start_positions_are_validated():
    cfg = tt.make_config({"policies": ["random"]})
    with pytest.raises(ValueError, match="two pieces on one node"):
        tt.with_start(cfg, (1, 1, 2, 4))
    with pytest.raises(ValueError, match="4 bitboards of 37 bits"):
        tt.with_start(cfg, (1 << 37, 2, 4, 8))
    start = diagram(OWN_LAST_STONE)
    assert list(tt.with_start(cfg, start).icfg[tt.I_INIT:tt.I_INIT + 4]) == list(start)
    assert list(cfg.icfg[tt.I_INIT:tt.I_INIT + 4]) == list(tt.initial_pieces())
