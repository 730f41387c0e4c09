"""The counter-based random streams: Numba and pure Python agree, streams differ."""

from __future__ import annotations

import numpy as np
from trilab.solver import rng


def test_numba_and_python_streams_are_identical():
    for seed, game in [(0, 0), (1, 0), (0, 1), (12345, 987654321), (2**63, 2**40 + 7)]:
        st = rng.game_stream(np.uint64(seed), np.uint64(game))
        py = rng.PyRng(seed, game)
        for n in (1, 2, 3, 7, 12, 36, 1000):
            assert int(rng.next_u64(st)) == py.next_u64()
            assert rng.uniform(st) == py.uniform()
            assert rng.below(st, n) == py.below(n)


def test_streams_are_distinct_and_uniform_enough():
    firsts = {int(rng.next_u64(rng.game_stream(np.uint64(7), np.uint64(g)))) for g in range(5000)}
    assert len(firsts) == 5000
    st = rng.game_stream(np.uint64(3), np.uint64(0))
    counts = np.bincount([rng.below(st, 6) for _ in range(60000)], minlength=6)
    assert counts.min() > 9500 and counts.max() < 10500


def test_move_digest_is_the_same_in_numba_and_python():
    import numba as nb

    @nb.njit
    def fold(codes):
        h = np.uint64(0)
        for c in codes:
            h = rng.digest_step(h, c)
        return h

    codes = np.array([0, 1, 5, 63, 1 << 40, 7], dtype=np.int64)
    h = 0
    for c in codes:
        h = rng.py_digest_step(h, int(c))
    assert int(fold(codes)) == h
    assert int(fold(codes[::-1])) != h  # order matters
