"""The Numba Trike engine against the pure-Python reference, plus geometry."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import random_position, to_reference
from trilab.solver.trike import engine as trike
from trilab.solver.trike import reference as ref

SIZES = range(trike.MIN_SIZE, trike.MAX_SIZE + 1)


@pytest.mark.parametrize("size", SIZES)
def test_neighbour_counts(size):
    t = trike.tables(size)
    counts = [int(x).bit_count() for x in t.neighbours]
    corners = {0, trike.point_index(size - 1, 0), trike.point_index(size - 1, size - 1)}
    for p, (r, c) in enumerate(trike.point_coords(size)):
        edge = c == 0 or c == r or r == size - 1
        expected = 2 if p in corners else 4 if edge else 6
        if size == 2:
            expected = 2
        assert counts[p] == expected, (size, r, c)
        assert counts[p] == len(ref.neighbours(size, (r, c)))


@pytest.mark.parametrize("size", SIZES)
def test_symmetries_are_the_six_automorphisms(size):
    t = trike.tables(size)
    n = t.n_points
    images = {tuple(int(x) for x in row) for row in t.symmetry}
    assert len(images) == (6 if size > 1 else 1)
    assert tuple(range(n)) in images  # identity
    for row in t.symmetry:
        assert sorted(int(x) for x in row) == list(range(n))
        for p, q in itertools.product(range(n), repeat=2):
            adjacent = bool(int(t.neighbours[p]) >> q & 1)
            assert adjacent == bool(int(t.neighbours[row[p]]) >> int(row[q]) & 1)


@pytest.mark.parametrize("size", SIZES)
def test_reference_symmetries_match(size):
    t = trike.tables(size)
    coords = trike.point_coords(size)
    ref_maps = {tuple(m[c] for c in coords) for m in ref.symmetries(size)}
    eng_maps = {tuple(coords[int(x)] for x in row) for row in t.symmetry}
    assert ref_maps == eng_maps


@pytest.mark.parametrize("size", SIZES)
def test_opening_classes_are_the_orbits_of_the_reference_symmetries(size):
    coords = trike.point_coords(size)
    orbits = {frozenset(m[c] for m in ref.symmetries(size)) for c in coords}
    classes = trike.opening_classes(size)
    assert {frozenset(coords[p] for p in c) for c in classes} == orbits
    assert sorted(p for c in classes for p in c) == list(range(len(coords)))
    if size == 7:  # as the size-7 table lists them (results/trike/size-7.csv)
        assert (len(classes), len(coords)) == (7, 28)


@pytest.mark.parametrize("size", SIZES)
def test_engine_matches_reference_on_random_positions(size, rng):
    coords = trike.point_coords(size)
    for _ in range(300):
        pos = random_position(size, rng)
        board, pawn = to_reference(pos)
        assert {coords[d] for d in pos.legal_moves()} == ref.legal_moves(size, board, pawn)
        assert len(pos.legal_moves()) == len(set(pos.legal_moves()))
        assert pos.is_terminal() == ref.trapped(size, board, pawn)
        assert pos.to_move == ref.to_move(board)
        if pos.is_terminal():
            assert pos.margin() == ref.margin_for_mover(size, board, pawn)
            assert abs(pos.margin()) % 2 == 1  # 3, 5 or 7 occupied scored cells: no tie
        for d in pos.legal_moves():
            child_board, child_pawn = to_reference(pos.play(d))
            assert child_board == ref.play(board, coords[d]) and child_pawn == coords[d]


@pytest.mark.parametrize("size", [3, 5, 8, 10])
def test_games_end_and_trapping_moves_are_single_steps(size, rng):
    for _ in range(100):
        pos = random_position(size, rng, plies=0)
        history = [pos.pawn]
        while not pos.is_terminal():
            pos = pos.play(rng.choice(pos.legal_moves()))
            history.append(pos.pawn)
        assert pos.checkers == len(history) <= trike.n_points(size)
        if len(history) > 1:  # the trapping move is one step long
            nb = int(trike.tables(size).neighbours[history[-1]])
            assert nb >> history[-2] & 1


@pytest.mark.parametrize("size", SIZES)
def test_transform_and_canonical(size, rng):
    t = trike.tables(size)
    for _ in range(50):
        pos = random_position(size, rng)
        images = [pos.transformed(s) for s in range(6)]
        for img in images:
            assert img.black.bit_count() == pos.black.bit_count()
            assert img.to_move == pos.to_move
            assert len(img.legal_moves()) == len(pos.legal_moves())
            assert img.is_terminal() == pos.is_terminal()
        mine, theirs = pos.mine_theirs()
        canon = trike.canonical(t.symmetry, np.uint64(mine), np.uint64(theirs), pos.pawn)
        for img in images:
            m, th = img.mine_theirs()
            image_canon = trike.canonical(t.symmetry, np.uint64(m), np.uint64(th), img.pawn)
            assert image_canon[:3] == canon[:3]


def test_popcount_is_exact_on_high_bits():
    for x in [0, 1, (1 << 55) - 1, (1 << 64) - 1, 0x8000000000000001, 0x0123456789ABCDEF]:
        assert trike.popcount(np.uint64(x)) == x.bit_count()


# ------------------------------------------------------------------ notation

def test_notation_example_and_round_trip(rng):
    pos = trike.parse_position("B/../...")
    assert pos.size == 3 and pos.pawn == 0 and pos.to_move == "w"
    assert pos.to_notation() == "B/../..."
    for size in SIZES:
        for _ in range(30):
            p = random_position(size, rng)
            assert trike.parse_position(p.to_notation()) == p


@pytest.mark.parametrize("text, needle", [
    ("B/../..", "row 2 has 2 cells"),
    ("B/.x/...", "unknown character 'x'"),
    ("b/../...", "no pawn"),
    ("B/bb/...", "b must have as many as w or one more"),
    ("B/w./...", "the pawn must stand on the last checker placed, a w checker"),
    ("B/W./...", "more than one pawn"),
    ("B", "board sizes are 2..10"),
])
def test_notation_errors_say_which(text, needle):
    with pytest.raises(trike.NotationError, match=None) as exc:
        trike.parse_position(text)
    assert needle in str(exc.value)


def test_notation_size_mismatch():
    with pytest.raises(trike.NotationError, match="board size is 4"):
        trike.parse_position("B/../...", size=4)


def test_tables_reject_bad_sizes():
    for bad in (1, 11):
        with pytest.raises(ValueError):
            trike.tables(bad)


@pytest.mark.parametrize("size", SIZES)
def test_move_mask_equals_move_list(size, rng):
    t = trike.tables(size)
    for _ in range(300):
        pos = random_position(size, rng)
        occ = np.uint64(pos.black | pos.white)
        mask = int(trike.move_mask(t.ray_masks, occ, pos.pawn))
        assert mask == sum(1 << d for d in pos.legal_moves())
        if mask:
            assert trike.lowest_bit_index(np.uint64(mask)) == min(pos.legal_moves())
