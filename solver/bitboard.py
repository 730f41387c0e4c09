"""Bit tricks on ``uint64`` bitboards shared by the board-game engines (Numba)."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, inline="always")
def bit(p: int) -> np.uint64:
    """The bitboard holding only point ``p``."""
    return np.uint64(1) << np.uint64(p)


@nb.njit(cache=True, inline="always")
def popcount(x: np.uint64) -> int:
    """Number of set bits (SWAR popcount, exact for any uint64)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@nb.njit(cache=True, inline="always")
def lowest_bit_index(x: np.uint64) -> int:
    """Index of the lowest set bit of a non-zero bitboard."""
    return popcount((x & (~x + np.uint64(1))) - np.uint64(1))
