"""Solvers checked against each other and against exhaustive minimax."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import from_reference, random_position, to_reference
from trilab.solver.trike import engine as trike
from trilab.solver.trike import reference as ref
from trilab.solver.trike import retrograde
from trilab.solver.trike.alphabeta import AlphaBetaSolver


@pytest.fixture(scope="module")
def databases():
    return {size: retrograde.solve(size) for size in range(2, 6)}


def _ab_values(solver, pos):
    sol = solver.solve_position(pos)
    return sol.margin, sol.remoteness, sol.winning_moves


@pytest.mark.parametrize("size", [2, 3, 4])
def test_alphabeta_matches_exhaustive_minimax(size, rng):
    solver = AlphaBetaSolver(size, tt_mb=4)
    positions = [trike.opening(size, p) for p in range(trike.n_points(size))]
    positions += [random_position(size, rng) for _ in range(200)]
    for pos in positions:
        board, pawn = to_reference(pos)
        assert _ab_values(solver, pos) == ref.minimax(size, board, pawn), pos.to_notation()


@pytest.mark.parametrize("size", [2, 3, 4])
def test_retrograde_matches_exhaustive_minimax(size, databases, rng):
    db = databases[size]
    for pos in [trike.opening(size, p) for p in range(trike.n_points(size))] + [
        random_position(size, rng) for _ in range(200)
    ]:
        board, pawn = to_reference(pos)
        margin, rem, _ = ref.minimax(size, board, pawn)
        assert db.lookup(pos) == (margin, rem), pos.to_notation()


@pytest.mark.parametrize("size,samples", [(2, 50), (3, 300), (4, 1000), (5, 2000)])
def test_alphabeta_matches_retrograde(size, samples, databases, rng):
    db = databases[size]
    solver = AlphaBetaSolver(size, tt_mb=16)
    positions = [trike.opening(size, p) for p in range(trike.n_points(size))]
    positions += [random_position(size, rng) for _ in range(samples)]
    for pos in positions:
        assert db.lookup(pos) == (solver.margin(pos), solver.remoteness(pos)), pos.to_notation()


def test_retrograde_tiers_are_complete_and_consistent(databases):
    db = databases[4]
    # every reachable position (found by walking the whole game tree) is stored
    seen = set()
    stack = [trike.opening(4, p) for p in range(trike.n_points(4))]
    while stack:
        pos = stack.pop()
        key = db.key_of(pos)
        if key in seen:
            continue
        seen.add(key)
        assert db.lookup(pos) is not None
        stack.extend(pos.play(d) for d in pos.legal_moves())
    assert len(seen) == db.positions
    for keys in db.keys:
        assert np.all(keys[1:] > keys[:-1])


@pytest.mark.parametrize("size", [3, 4, 5])
def test_symmetric_images_get_identical_answers(size, rng):
    solver = AlphaBetaSolver(size, tt_mb=8)
    plain = AlphaBetaSolver(size, tt_mb=8, use_symmetry=False)
    for _ in range(40):
        pos = random_position(size, rng)
        base = _ab_values(solver, pos)
        for s in range(6):
            img = pos.transformed(s)
            assert _ab_values(solver, img) == base
            assert _ab_values(plain, img) == base


def test_tiny_table_forces_replacements_but_stays_exact(databases, rng):
    """2-slot table: constant overwrites must never change an answer."""
    db = databases[5]
    solver = AlphaBetaSolver(5, tt_mb=32 / 2**20)
    assert solver.tt.array.shape[0] == 2
    for _ in range(60):
        pos = random_position(5, rng, plies=rng.randrange(3, 8))
        assert db.lookup(pos) == (solver.margin(pos), solver.remoteness(pos))


def test_win_probe_agrees_with_margin(rng):
    solver = AlphaBetaSolver(5, tt_mb=8)
    for _ in range(100):
        pos = random_position(5, rng)
        assert solver.is_win(pos) == (solver.margin(pos) > 0)


def test_database_round_trip(tmp_path, databases):
    db = databases[4]
    path = tmp_path / "size-4.npz"
    db.save(path)
    loaded = retrograde.RetrogradeDatabase.load(path)
    assert loaded.size == 4 and loaded.positions == db.positions
    for a, b in zip(loaded.margin, db.margin):
        np.testing.assert_array_equal(a, b)
    assert not list(tmp_path.glob("*.tmp"))


def test_database_rejects_other_versions(tmp_path, databases):
    path = tmp_path / "db.npz"
    databases[3].save(path)
    with np.load(path) as z:
        arrays = dict(z)
    arrays["version"] = np.array(99)
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match="version 99"):
        retrograde.RetrogradeDatabase.load(path)


def test_retrograde_refuses_keys_that_do_not_fit():
    with pytest.raises(ValueError):
        retrograde.enumerate_tiers(8)


def test_suspended_search_resumes_to_the_same_answer(databases):
    """Tiny node budgets force many suspensions; answers and node counts must not change."""
    calls = []
    chunked = AlphaBetaSolver(5, tt_mb=4, progress=calls.append, chunk_nodes=97)
    whole = AlphaBetaSolver(5, tt_mb=4)
    for p in range(trike.n_points(5)):
        pos = trike.opening(5, p)
        got = _ab_values(chunked, pos)
        assert got == _ab_values(whole, pos)
        assert databases[5].lookup(pos) == got[:2]
    assert chunked.nodes == whole.nodes
    assert len(calls) > 100 and calls == sorted(calls)


@pytest.mark.parametrize("size", [6, 7])
def test_alphabeta_matches_exhaustive_minimax_on_late_positions_of_big_boards(size, rng):
    """Sizes with no retrograde database: check endgames (few empty points) by brute force."""
    solver = AlphaBetaSolver(size, tt_mb=16)
    n = trike.n_points(size)
    checked = 0
    while checked < 40:
        pos = random_position(size, rng, plies=n - 12 + rng.randrange(0, 4))
        if pos.is_terminal():
            continue
        board, pawn = to_reference(pos)
        assert _ab_values(solver, pos) == ref.minimax(size, board, pawn), pos.to_notation()
        checked += 1


def test_symmetry_byte_tables_match_the_point_permutation(rng):
    for size in range(trike.MIN_SIZE, trike.MAX_SIZE + 1):
        t = trike.tables(size)
        for s in range(6):
            for _ in range(40):
                board = np.uint64(rng.getrandbits(t.n_points))
                assert trike.transform_by_bytes(t.symmetry_bytes, s, board) == \
                    trike.transform_bitboard(t.symmetry[s], board)


@pytest.mark.parametrize("size,samples", [(3, 60), (4, 60), (5, 60), (6, 15)])
def test_region_keys_agree_with_whole_position_keys(size, samples, rng):
    region = AlphaBetaSolver(size, tt_mb=8)
    whole = AlphaBetaSolver(size, tt_mb=8, region_keys=False)
    positions = [trike.opening(size, p) for p in range(trike.n_points(size))][:6]
    positions += [random_position(size, rng, plies=rng.randrange(size, 3 * size))
                  for _ in range(samples)]
    for pos in positions:
        assert _ab_values(region, pos) == _ab_values(whole, pos), pos.to_notation()


def _relevant_cells(size: int, board: dict, pawn) -> set:
    """Reference: cells whose checkers can still matter (flood fill by the rules)."""
    region, todo = set(), [c for c in ref.neighbours(size, pawn) if c not in board]
    while todo:
        c = todo.pop()
        if c not in region:
            region.add(c)
            todo += [n for n in ref.neighbours(size, c) if n not in board]
    rel = {pawn, *ref.neighbours(size, pawn)}
    for c in region:
        rel.update(ref.neighbours(size, c))
    return rel


def test_positions_differing_only_in_dead_checkers_share_one_table_entry(rng):
    """Swap the colours of a black and a white checker that can no longer matter:
    the value is the same (checked with whole-position keys, which cannot merge
    them), and with region keys the second search is a table hit at the root."""
    size, checked = 7, 0
    whole = AlphaBetaSolver(size, tt_mb=16, region_keys=False)
    while checked < 12:
        pos = random_position(size, rng, plies=rng.randrange(12, 20))
        board, pawn = to_reference(pos)
        if ref.trapped(size, board, pawn) or len(ref.legal_moves(size, board, pawn)) <= 4:
            continue
        rel = _relevant_cells(size, board, pawn)
        dead = {v: [c for c, w in board.items() if w == v and c not in rel] for v in "bw"}
        if not dead["b"] or not dead["w"]:
            continue
        other = dict(board)
        other[dead["b"][0]], other[dead["w"][0]] = "w", "b"
        twin = from_reference(size, other, pawn)
        assert _ab_values(whole, twin) == _ab_values(whole, pos)
        region = AlphaBetaSolver(size, tt_mb=16)
        first = region.is_win(pos)
        before = region.nodes
        assert region.is_win(twin) == first
        assert region.nodes - before <= 1 + len(ref.legal_moves(size, board, pawn))
        checked += 1


@pytest.mark.parametrize("size", [4, 5])
def test_table_threshold_changes_speed_not_answers(size, databases, rng):
    """Every ``tt_min_moves`` (nodes with that many moves or fewer skip the
    table) gives the retrograde database's values, from a table that each
    setting fills differently."""
    db = databases[size]
    positions = [trike.opening(size, p) for p in range(trike.n_points(size))]
    positions += [random_position(size, rng) for _ in range(150)]
    for k in (0, 1, 2, 3, 6, 40):
        solver = AlphaBetaSolver(size, tt_mb=2, tt_min_moves=k)
        for pos in positions:
            assert db.lookup(pos) == (solver.margin(pos), solver.remoteness(pos)), (k, pos)


@pytest.mark.parametrize("tt_mb", [16, 0.01])
def test_two_threads_sharing_the_table_match_retrograde(tt_mb, databases, rng):
    """Two threads on one shared table (a tiny table forces constant
    replacement races) give the database's exact values; small chunks make
    the threads stop and resume often."""
    db = databases[5]
    solver = AlphaBetaSolver(5, tt_mb=tt_mb, threads=2, chunk_nodes=1 << 10)
    positions = [trike.opening(5, p) for p in range(trike.n_points(5))]
    positions += [random_position(5, rng) for _ in range(300)]
    for pos in positions:
        assert db.lookup(pos) == (solver.margin(pos), solver.remoteness(pos)), pos.to_notation()


def test_two_threads_agree_with_one_on_size_6_openings():
    one = AlphaBetaSolver(6, tt_mb=64)
    two = AlphaBetaSolver(6, tt_mb=64, threads=2, defer_plies=12)
    for cls in trike.opening_classes(6):
        pos = trike.opening(6, cls[0])
        a, b = one.solve_position(pos), two.solve_position(pos)
        assert (a.margin, a.remoteness, a.winning_moves) == (b.margin, b.remoteness,
                                                             b.winning_moves)
    assert two.nodes > 0


def test_threads_must_be_positive():
    with pytest.raises(ValueError, match="threads"):
        AlphaBetaSolver(4, threads=0)
