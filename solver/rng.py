"""Counter-based random streams for reproducible Monte Carlo games.

Every game gets its own stream, derived only from ``(seed, game_index)``, so
a study gives bit-identical results whatever the chunking, the number of
jobs or the executor.  The generator is SplitMix64 (Steele, Lea and Flood,
2014): the state is one ``uint64`` advanced by a constant, each output a
bijective mix of the state.  The Numba kernels keep the state in a
one-element ``uint64`` array; :class:`PyRng` is the same generator in pure
Python for the reference implementations, so a reference and an engine fed
the same ``(seed, game_index)`` draw the same numbers.

Draws:

* ``next_u64``: 64 random bits.
* ``uniform``: a float in ``[0, 1)`` from the top 53 bits.
* ``below(n)``: an integer in ``[0, n)``, ``floor(uniform * n)`` (bias below
  ``n / 2**53``, negligible for the small ``n`` used here).

Move digests: :func:`digest_step` folds one move code (a non-negative
integer) into a running ``uint64`` digest of a game's moves, ``h' =
mix(h ^ (code + GOLDEN))`` starting from ``h = 0``; :func:`py_digest_step` is
the same in pure Python.  Engines and references return the digest of every
game so that golden files pin the whole move sequence, not only its outcome.
"""

from __future__ import annotations

import numba as nb
import numpy as np

GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB
MASK64 = (1 << 64) - 1


@nb.njit(cache=True, inline="always")
def _mix(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True)
def game_stream(seed: np.uint64, game_index: np.uint64) -> np.ndarray:
    """The state array of game ``game_index`` of a study seeded with ``seed``."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = _mix(_mix(np.uint64(seed) + np.uint64(GOLDEN)) ^ np.uint64(game_index))
    return state


@nb.njit(cache=True, inline="always")
def next_u64(state: np.ndarray) -> np.uint64:
    state[0] += np.uint64(GOLDEN)
    return _mix(state[0])


@nb.njit(cache=True, inline="always")
def uniform(state: np.ndarray) -> float:
    return np.float64(next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@nb.njit(cache=True, inline="always")
def below(state: np.ndarray, n: int) -> int:
    return np.int64(uniform(state) * n)


@nb.njit(cache=True, inline="always")
def digest_step(h: np.uint64, code: np.int64) -> np.uint64:
    """The running move digest ``h`` after one more move ``code >= 0``."""
    return _mix(h ^ (np.uint64(code) + np.uint64(GOLDEN)))


def _py_mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    return z ^ (z >> 31)


def py_digest_step(h: int, code: int) -> int:
    """:func:`digest_step` in pure Python (``0 <= code < 2**63``)."""
    return _py_mix(h ^ ((code + GOLDEN) & MASK64))


class PyRng:
    """The same stream in pure Python (for reference implementations)."""

    def __init__(self, seed: int, game_index: int):
        self.state = _py_mix(_py_mix((seed + GOLDEN) & MASK64) ^ (game_index & MASK64))

    def next_u64(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        return _py_mix(self.state)

    def uniform(self) -> float:
        return (self.next_u64() >> 11) * (1.0 / 9007199254740992.0)

    def below(self, n: int) -> int:
        return int(self.uniform() * n)
