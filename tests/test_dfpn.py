"""df-pn (proof-number search) checked against retrograde, brute force and alpha-beta."""

from __future__ import annotations

import pytest
from conftest import random_position, to_reference
from trilab.solver.trike import dfpn, retrograde
from trilab.solver.trike import engine as trike
from trilab.solver.trike import reference as ref
from trilab.solver.trike.alphabeta import AlphaBetaSolver
from trilab.solver.trike.dfpn import DfpnSolver


@pytest.fixture(scope="module")
def databases():
    return {size: retrograde.solve(size) for size in range(2, 6)}


def _positions(size, rng, samples):
    out = [trike.opening(size, p) for p in range(trike.n_points(size))]
    while len(out) < trike.n_points(size) + samples:
        pos = random_position(size, rng)
        if not pos.is_terminal():
            out.append(pos)
    return out


@pytest.mark.parametrize("size", [2, 3, 4])
def test_dfpn_matches_exhaustive_minimax(size, rng):
    solver = DfpnSolver(size, tt_mb=1)
    for pos in _positions(size, rng, 150):
        board, pawn = to_reference(pos)
        assert solver.is_win(pos) == (ref.minimax(size, board, pawn)[0] > 0), pos.to_notation()


@pytest.mark.parametrize("options", [
    {}, {"use_symmetry": False}, {"region_keys": False}, {"epsilon_inverse": 0},
    {"tt_mb": 0.002},  # 64 entries: constant replacement, the search must still end right
], ids=["default", "no-symmetry", "whole-keys", "no-epsilon", "tiny-table"])
@pytest.mark.parametrize("size,samples", [(3, 100), (4, 300), (5, 300)])
def test_dfpn_matches_retrograde_in_every_setting(size, samples, options, databases, rng):
    db = databases[size]
    solver = DfpnSolver(size, **{"tt_mb": 8, **options})
    for pos in _positions(size, rng, samples):
        assert solver.is_win(pos) == (db.lookup(pos)[0] > 0), pos.to_notation()


@pytest.mark.parametrize("size", [6, 7])
def test_dfpn_matches_alphabeta_on_big_boards(size, rng):
    """Middle-game positions of boards without a database, against alpha-beta."""
    a, b = DfpnSolver(size, tt_mb=16), AlphaBetaSolver(size, tt_mb=16)
    n = trike.n_points(size)
    checked = 0
    while checked < 25:
        pos = random_position(size, rng, plies=n // 3 + rng.randrange(0, n // 3))
        if pos.is_terminal():
            continue
        assert a.is_win(pos) == b.is_win(pos), pos.to_notation()
        checked += 1


def test_dfpn_settles_every_opening_of_size_6_like_alphabeta():
    a, b = DfpnSolver(6, tt_mb=16), AlphaBetaSolver(6, tt_mb=16)
    for cls in trike.opening_classes(6):
        pos = trike.opening(6, cls[0])
        phi, delta = a.proof_numbers(pos)
        assert {phi, delta} == {0, dfpn.INF}
        assert (phi == 0) == b.is_win(pos)


def test_symmetric_images_get_identical_answers(rng):
    solver = DfpnSolver(5, tt_mb=1)
    for _ in range(60):
        pos = random_position(5, rng)
        if pos.is_terminal():
            continue
        answers = set()
        for s in range(trike.N_SYMMETRIES):
            solver.reset()
            answers.add(solver.is_win(pos.transformed(s)))
        assert len(answers) == 1, pos.to_notation()


def test_suspended_search_resumes_to_the_same_answer(databases):
    calls = []
    chunked = DfpnSolver(5, tt_mb=4, progress=calls.append, chunk_nodes=53)
    whole = DfpnSolver(5, tt_mb=4)
    for p in range(trike.n_points(5)):
        pos = trike.opening(5, p)
        assert chunked.is_win(pos) == whole.is_win(pos) == (databases[5].lookup(pos)[0] > 0)
    assert chunked.nodes == whole.nodes
    assert len(calls) > 100 and calls == sorted(calls)


def test_finished_positions_and_bad_tables():
    pos = trike.opening(2, 0).play(1).play(2)  # size 2: the pawn on (1,1) is trapped
    assert pos.is_terminal()
    assert DfpnSolver(2).is_win(pos) == (pos.margin() > 0)
    with pytest.raises(ValueError, match="positive"):
        DfpnSolver(4, tt_mb=0)
