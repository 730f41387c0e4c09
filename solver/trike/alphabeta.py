"""Negamax alpha-beta solver for Trike with a compact transposition table.

Contract: :func:`solve_position` returns, for a position and the side to move,

* ``margin``: final own score minus the opponent's under optimal play by both
  sides when each maximises its own margin (the game's exact score value);
* ``win``: ``margin > 0`` (Trike has no draws);
* ``remoteness``: plies to the end when the winner hurries and the loser
  delays (GamesmanOne's convention; a terminal position has remoteness 0);
* ``winning_moves``: the number of legal moves that lead to a won game.

Algorithm.  One iterative fail-soft negamax (an explicit stack, no recursion)
serves two scoring modes:

* ``MODE_MARGIN``: terminal value = final margin; parent value = ``-child``.
* ``MODE_REMOTENESS``: terminal value = ``+-WIN_BASE``; a parent's value is the
  child's negated and moved one step towards zero, so that a win in ``r``
  plies scores ``WIN_BASE - r`` and a loss in ``r`` plies ``-(WIN_BASE - r)``.
  Maximising this is "win fast, lose slowly".  The map is strictly
  decreasing, so windows are mapped through its inverse like mate scores.

Exact values come from null-window probes ``(t-1, t)`` in a binary search
(Pascal Pons' connect4 driver); the first probe at ``t = 0`` settles
win/loss.  Search details:

* Immediate-win detection: a one-step move that traps the pawn ends the game;
  such children are scored inline without recursion and tried first.
* Move ordering: the remaining moves are tried by lowest checker balance
  (own minus opponent's) around the destination, then by fewest replies
  for the opponent (Warnsdorff-like); measured 8x fewer nodes on size 6
  than ordering by free neighbours alone.
* Transposition table: two ``uint64`` words per entry, holding the key
  exactly (so no false hits), the mode, a bound flag and the value; buckets
  of two slots: a depth-preferred slot and an always-replace slot.  Size is
  given in MiB.  Nodes with at most ``TT_MIN_MOVES`` moves skip the table.
* Region keys (default; ``region_keys=False`` keys by the whole position):
  the pawn only ever reaches the connected empty region ``R`` next to it, so
  the rest of the game depends only on ``R`` and on the colours of the
  checkers next to ``R`` or around the pawn (its score points).  Every other
  checker is dropped from the key, and positions that differ only there share
  one entry.  ``R`` is recovered from such a key (it is the empty area the
  kept checkers enclose), so the depth of an entry is ``|R|``.  Measured on
  size 7 (win/loss): half the nodes (855 M -> 443 M over the seven classes)
  and half the time, the same answers.
* Symmetry reduction: the six symmetric images of the position are kept
  incrementally along the search path and the smallest (masked) one keys
  the table.
* Threads (``threads=2``): the threads search the same root and share the
  table without locks (an entry's first word is stored XORed with its
  second, so a torn entry fails the key check and is a miss).  A busy map
  marks the nodes each thread has open in the first ``DEFER_PLIES`` plies;
  after a node's first move (Young Brothers Wait), a thread about to enter
  a child another one is searching moves it to the end of its list
  (simplified ABDADA), so at nodes where every move must be searched the
  threads split the moves.  Measured side by side in ``make bench``
  (docs/speed.md): see ``results/bench/trike-threads.csv``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numba as nb
import numpy as np
from trilab.solver.jit import kernel
from trilab.solver.trike import engine as trike
from trilab.solver.trike.engine import TrikePosition
from trilab.solver.trike.stack_file import STACK_FORMAT, SearchCheckpoint

MODE_MARGIN = 0
MODE_REMOTENESS = 1
WIN_BASE = 60  # > 55 points, < 64 so encoded scores fit 7 signed bits
MAX_MARGIN = 7  # a final margin is at most the pawn's point and its 6 neighbours

FLAG_EMPTY = 0
FLAG_EXACT = 1
FLAG_LOWER = 2
FLAG_UPPER = 3

_MASK55 = np.uint64((1 << 55) - 1)
TT_MIN_MOVES = 4  # nodes with at most this many moves skip the table (measured on size 7)
_MAXPLY = 64
DEFER_PLIES = 8  # plies where threads defer a child another thread is searching
TT_CAP_MB = {2: 1, 3: 1, 4: 4, 5: 64, 6: 512}


@kernel(inline="always")
def _parent_value(mode: int, v: int) -> int:
    if mode == MODE_MARGIN:
        return -v
    return -v - 1 if v < 0 else -v + 1


@kernel(inline="always")
def _child_bound(mode: int, p: int) -> int:
    """Inverse of :func:`_parent_value` (maps a parent window bound to the child)."""
    if mode == MODE_MARGIN:
        return -p
    if p > 0:
        return -p - 1
    if p < 0:
        return 1 - p
    return 0


@kernel(inline="always")
def _terminal_value(mode: int, margin: int) -> int:
    if mode == MODE_MARGIN:
        return margin
    return WIN_BASE if margin > 0 else -WIN_BASE


@kernel(inline="always")
def _hash(a: np.uint64, b: np.uint64) -> np.uint64:
    h = a * np.uint64(0x9E3779B97F4A7C15) ^ (b + np.uint64(0x632BE59BD9B4E019))
    h ^= h >> np.uint64(31)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(29)
    return h


# Columns of the integer search stack (one row per ply).
_P, _ALPHA, _BETA, _ALPHA0, _BEST, _IDX, _NMOVES, _SLOT, _DEPTH, _DEFER = range(10)
# Columns of the uint64 search stack.
_MINE, _THEIRS, _KEYA, _KEYB = range(4)


@kernel(inline="always")
def _region(neighbours, score_mask, occ, pawn):
    """``(reach, rel)``: the empty points the pawn can still reach (the connected
    empty region next to it; a ray from the pawn only crosses this region) and
    the points whose checkers can still matter (the region's neighbours and the
    pawn's score points)."""
    empty = ~occ
    reach = neighbours[pawn] & empty
    frontier = reach
    rel = score_mask[pawn]
    while frontier:
        q = trike.lowest_bit_index(frontier)
        frontier &= frontier - np.uint64(1)
        nq = neighbours[q]
        rel |= nq
        grow = nq & empty & ~reach
        reach |= grow
        frontier |= grow
    return reach, rel


@kernel(inline="always")
def root_images(img_m, img_t, symmetry, mine, theirs):
    """Row 0 of the image stacks: the six symmetric images of the root's
    bitboards (side to move, opponent)."""
    for s in range(6):
        img_m[0, s] = trike.transform_bitboard(symmetry[s], mine)
        img_t[0, s] = trike.transform_bitboard(symmetry[s], theirs)


@kernel(inline="always")
def child_images(img_m, img_t, symmetry, ply, d, nsym):
    """Row ``ply + 1`` of the image stacks: the images after the side to move
    at ``ply`` places on ``d`` (the sides swap)."""
    for s in range(nsym):
        img_m[ply + 1, s] = img_t[ply, s]
        img_t[ply + 1, s] = img_m[ply, s] | (np.uint64(1) << np.uint64(symmetry[s, d]))


@kernel(inline="always")
def table_key(region, neighbours, score_mask, symmetry, sym_bytes, img_m, img_t, row, occ, pawn,
              nsym, npts):
    """``(key_a, key_b, depth)``: the table key of the position whose symmetric
    images are ``img_m[row, :nsym]`` / ``img_t[row, :nsym]`` (side to move,
    opponent) with the pawn on ``pawn``: the smallest image, restricted to the
    relevant checkers with region keys; ``key_a`` holds the image's pawn in
    bits 55-60.  ``depth``: the empty points that still matter (the pawn's
    region with region keys, every empty point otherwise)."""
    rel = np.uint64(0xFFFFFFFFFFFFFFFF)
    if region:
        reach, rel = _region(neighbours, score_mask, occ, pawn)
        depth = trike.popcount(reach)
    else:
        depth = npts - trike.popcount(occ)
    key_a = np.uint64(0xFFFFFFFFFFFFFFFF)
    key_b = np.uint64(0xFFFFFFFFFFFFFFFF)
    for s in range(nsym):
        rel_s = rel
        if region and s > 0:
            rel_s = trike.transform_by_bytes(sym_bytes, s, rel)
        a = (img_m[row, s] & rel_s) | (np.uint64(symmetry[s, pawn]) << np.uint64(55))
        b = img_t[row, s] & rel_s
        if a < key_a or (a == key_a and b < key_b):
            key_a = a
            key_b = b
    return key_a, key_b, depth


@kernel(inline="always")
def _entry_depth(region, neighbours, score_mask, ea, eb, npts):
    """Replacement depth of a stored entry: empty points (plain keys) or the
    size of the pawn's region (region keys; the region is recovered from the
    key: it is bounded by the relevant checkers the key keeps)."""
    occ = (ea | eb) & _MASK55
    if not region:
        return npts - trike.popcount(occ)
    pawn = np.int64((ea >> np.uint64(55)) & np.uint64(63))
    return trike.popcount(_region(neighbours, score_mask, occ, pawn)[0])


@kernel(inline="always")
def _store(mode, ply, ist, ust, tt, npts, neighbours, score_mask, region):
    """Write the node's result into its bucket (depth-preferred / always-replace)."""
    best = ist[ply, _BEST]
    if best <= ist[ply, _ALPHA0]:
        flag = FLAG_UPPER
    elif best >= ist[ply, _BETA]:
        flag = FLAG_LOWER
    else:
        flag = FLAG_EXACT
    slot = ist[ply, _SLOT]
    if slot < 0:
        return
    key_a = ust[ply, _KEYA]
    key_b = ust[ply, _KEYB]
    eb = key_b | (np.uint64(flag) << np.uint64(55)) | (np.uint64(best & 0x7F) << np.uint64(57))
    depth = ist[ply, _DEPTH]
    e0b = tt[slot, 1]
    e0a = tt[slot, 0] ^ e0b
    if (e0b >> np.uint64(55)) & np.uint64(3) == 0 or (e0a == key_a and (e0b & _MASK55) == key_b):
        target = slot
    else:
        d0 = _entry_depth(region, neighbours, score_mask, e0a, e0b, npts)
        target = slot if depth >= d0 else slot + 1
    tt[target, 0] = key_a ^ eb  # lockless: a torn entry fails the key check
    tt[target, 1] = eb


@kernel(inline="always")
def _enter(
    mode, ply, ist, ust, ray_masks, neighbours, score_mask, symmetry, sym_bytes, tt,
    order, img_m, img_t, stats, nsym, npts, region, tt_min_moves,
):
    """Open the node at ``ply``: leaf, immediate wins, table probe, ordering.

    Returns ``(done, value)``; when ``done`` is false the node's ordered
    non-trapping moves are in ``order[ply, :ist[ply, _NMOVES]]``.
    """
    stats[0] += 1
    mine = ust[ply, _MINE]
    theirs = ust[ply, _THEIRS]
    pawn = ist[ply, _P]
    alpha = ist[ply, _ALPHA]
    beta = ist[ply, _BETA]
    occ = mine | theirs
    moves = trike.move_mask(ray_masks, occ, pawn)
    if moves == np.uint64(0):
        return True, _terminal_value(mode, trike.final_margin(score_mask, mine, theirs, pawn))
    nm = trike.popcount(moves)

    # immediate (trapping) moves are one-step moves: scored inline, tried first
    best = -1000
    x = moves & neighbours[pawn]
    while x:
        bd = x & (~x + np.uint64(1))
        x ^= bd
        d = trike.lowest_bit_index(bd)
        if (neighbours[d] & ~(occ | bd)) == np.uint64(0):
            margin = trike.final_margin(score_mask, theirs, mine | bd, d)
            v = _parent_value(mode, _terminal_value(mode, margin))
            stats[0] += 1
            if v > best:
                best = v
    if best >= beta:
        return True, best

    # transposition table probe, keyed by the smallest symmetric image
    use_tt = nm > tt_min_moves
    key_a = np.uint64(0xFFFFFFFFFFFFFFFF)
    key_b = np.uint64(0xFFFFFFFFFFFFFFFF)
    slot = np.int64(0)
    depth = 0
    if use_tt:
        key_a, key_b, depth = table_key(
            region, neighbours, score_mask, symmetry, sym_bytes, img_m, img_t, ply,
            occ, pawn, nsym, npts,
        )
        key_a |= np.uint64(mode) << np.uint64(61)
        mask = np.uint64(tt.shape[0] - 1)
        slot = np.int64(_hash(key_a, key_b) & mask) & ~1
    for j in range(2 if use_tt else 0):
        eb = tt[slot + j, 1]
        ea = tt[slot + j, 0] ^ eb
        if ea == key_a and (eb & _MASK55) == key_b and (eb >> np.uint64(55)) & np.uint64(3) != 0:
            stats[1] += 1
            flag = np.int64((eb >> np.uint64(55)) & np.uint64(3))
            raw = np.int64(eb >> np.uint64(57))
            val = raw - 128 if raw >= 64 else raw
            if flag == FLAG_EXACT:
                return True, val
            if flag == FLAG_LOWER:
                if val > alpha:
                    alpha = val
            elif val < beta:
                beta = val
            if alpha >= beta:
                return True, val
            break
    ist[ply, _ALPHA0] = alpha
    if best > alpha:
        alpha = best
        if alpha >= beta:
            return True, best

    # order the non-trapping moves (measured on size 6, see benchmarks/):
    # 1. lowest checker balance (mine - theirs) around the destination,
    # 2. then fewest replies for the opponent from there.
    k = 0
    x = moves
    while x:
        bd = x & (~x + np.uint64(1))
        x ^= bd
        d = trike.lowest_bit_index(bd)
        if (neighbours[d] & ~(occ | bd)) != np.uint64(0):
            sm = score_mask[d]
            balance = trike.popcount(mine & sm) - trike.popcount(theirs & sm)
            replies = trike.popcount(trike.move_mask(ray_masks, occ | bd, d))
            c = ((8 + balance) * 16 + replies) * 64 + d
            j = k
            while j > 0 and order[ply, j - 1] > c:
                order[ply, j] = order[ply, j - 1]
                j -= 1
            order[ply, j] = c
            k += 1
    for i in range(k):
        order[ply, i] &= 63
    ist[ply, _ALPHA] = alpha
    ist[ply, _BETA] = beta
    ist[ply, _BEST] = best
    ist[ply, _IDX] = 0
    ist[ply, _NMOVES] = k
    ist[ply, _SLOT] = slot if use_tt else -1
    ist[ply, _DEPTH] = depth
    ist[ply, _DEFER] = 0
    ust[ply, _KEYA] = key_a
    ust[ply, _KEYB] = key_b
    if k == 0:  # every move traps the pawn: the node is complete
        _store(mode, ply, ist, ust, tt, npts, neighbours, score_mask, region)
        return True, best
    return False, 0


@kernel(inline="always")
def _busy_slot(mine, theirs, pawn, mask):
    """Slot of a position (as it stands, no symmetry) in the busy table."""
    return np.int64(_hash(mine ^ (np.uint64(pawn) << np.uint64(57)), theirs) & mask)


@kernel(inline="always")
def _defer_busy(ply, ist, ust, order, busy, bit):
    """Simplified ABDADA with Young Brothers Wait: once the node's first
    move has been searched (it did not cut, so every move may have to be),
    while the next move's child is being searched by another thread, move
    it to the end of the node's move list (each node defers at most as many
    times as it has moves), so the threads split the moves of the node
    instead of searching the same child together.  The first move is never
    put off: at a node that the first move wins, a second thread on another
    move would only waste its time."""
    mask = np.uint64(busy.shape[0] - 1)
    k = ist[ply, _NMOVES]
    while 1 <= ist[ply, _IDX] < k - 1 and ist[ply, _DEFER] < k:
        i = ist[ply, _IDX]
        d = order[ply, i]
        h = _busy_slot(ust[ply, _THEIRS], ust[ply, _MINE] | (np.uint64(1) << np.uint64(d)), d,
                       mask)
        if busy[h] & ~bit == 0:
            return
        for j in range(i, k - 1):
            order[ply, j] = order[ply, j + 1]
        order[ply, k - 1] = d
        ist[ply, _DEFER] += 1


@kernel(inline="always")
def _push_child(mode, ply, ist, ust, symmetry, order, img_m, img_t, nsym):
    """Set up row ``ply + 1`` for the next move of the node at ``ply``."""
    d = order[ply, ist[ply, _IDX]]
    ist[ply, _IDX] += 1
    bd = np.uint64(1) << np.uint64(d)
    c = ply + 1
    ust[c, _MINE] = ust[ply, _THEIRS]
    ust[c, _THEIRS] = ust[ply, _MINE] | bd
    ist[c, _P] = d
    ist[c, _ALPHA] = _child_bound(mode, ist[ply, _BETA])
    ist[c, _BETA] = _child_bound(mode, ist[ply, _ALPHA])
    child_images(img_m, img_t, symmetry, ply, d, nsym)


@nb.njit(cache=True)
def _new_stack(mine, theirs, pawn, alpha, beta, symmetry):
    """The explicit search stack of a root position (row 0 filled in)."""
    ist = np.zeros((_MAXPLY, 10), dtype=np.int64)
    ust = np.zeros((_MAXPLY, 4), dtype=np.uint64)
    order = np.zeros((_MAXPLY, 6 * 10), dtype=np.int64)
    img_m = np.zeros((_MAXPLY, 6), dtype=np.uint64)
    img_t = np.zeros((_MAXPLY, 6), dtype=np.uint64)
    root_images(img_m, img_t, symmetry, mine, theirs)
    ust[0, _MINE] = mine
    ust[0, _THEIRS] = theirs
    ist[0, _P] = pawn
    ist[0, _ALPHA] = alpha
    ist[0, _BETA] = beta
    ctl = np.zeros(1, dtype=np.int64)  # ply of the node to open when resumed
    return ist, ust, order, img_m, img_t, ctl


@kernel(nogil=True)
def _run(
    mode, ist, ust, order, img_m, img_t, ctl,
    ray_masks, neighbours, score_mask, symmetry, sym_bytes, npts, tt, stats, nsym, region,
    tt_min_moves, node_budget, helper, busy, defer_plies,
):
    """Fail-soft negamax from the root of a stack, iterative, suspendable.

    Runs until the root is solved, returning ``(True, v)``: v is exact if
    ``alpha < v < beta``, an upper bound if ``v <= alpha``, a lower bound if
    ``v >= beta``.  Releases the GIL (it touches only its arguments), so other
    threads of the caller run meanwhile.  After about ``node_budget`` nodes it suspends instead and
    returns ``(False, 0)``; calling it again with the same arrays resumes.
    ``helper`` numbers the thread (its bit in ``busy``); nodes at plies below
    ``defer_plies`` are marked in ``busy`` while open and put off children
    marked by other threads (0 for a search on its own).
    """
    ply = ctl[0]
    stop_at = stats[0] + node_budget
    bit = np.uint8(1 << (helper % 8))
    while True:
        if stats[0] >= stop_at:
            ctl[0] = ply
            return False, 0
        done, v = _enter(
            mode, ply, ist, ust, ray_masks, neighbours, score_mask, symmetry, sym_bytes, tt,
            order, img_m, img_t, stats, nsym, npts, region, tt_min_moves,
        )
        if not done:
            if ply < defer_plies:
                h = _busy_slot(ust[ply, _MINE], ust[ply, _THEIRS], ist[ply, _P],
                               np.uint64(busy.shape[0] - 1))
                busy[h] |= bit
                _defer_busy(ply, ist, ust, order, busy, bit)
            _push_child(mode, ply, ist, ust, symmetry, order, img_m, img_t, nsym)
            ply += 1
            continue
        # propagate v upwards until some node has another move to try
        while True:
            if ply == 0:
                return True, v
            ply -= 1
            pv = _parent_value(mode, v)
            if pv > ist[ply, _BEST]:
                ist[ply, _BEST] = pv
                if pv > ist[ply, _ALPHA]:
                    ist[ply, _ALPHA] = pv
            if ist[ply, _ALPHA] < ist[ply, _BETA] and ist[ply, _IDX] < ist[ply, _NMOVES]:
                if ply < defer_plies:
                    _defer_busy(ply, ist, ust, order, busy, bit)
                _push_child(mode, ply, ist, ust, symmetry, order, img_m, img_t, nsym)
                ply += 1
                break
            if ply < defer_plies:
                h = _busy_slot(ust[ply, _MINE], ust[ply, _THEIRS], ist[ply, _P],
                               np.uint64(busy.shape[0] - 1))
                busy[h] &= ~bit
            _store(mode, ply, ist, ust, tt, npts, neighbours, score_mask, region)
            v = ist[ply, _BEST]


def warm_up() -> float:
    """Compile (or load from the Numba cache) the search kernels; return seconds."""
    t0 = time.perf_counter()
    AlphaBetaSolver(3, tt_mb=1).solve_position(trike.opening(3, 0))
    return time.perf_counter() - t0


class TranspositionTable:
    """A preallocated table of ``2**k`` two-word entries (16 bytes each)."""

    def __init__(self, megabytes: float = 1024):
        if megabytes <= 0:
            raise ValueError("transposition table size must be positive")
        slots = max(2, int(megabytes * 2**20) // 16)
        slots = 1 << (slots.bit_length() - 1)
        self.array = np.zeros((slots, 2), dtype=np.uint64)

    @property
    def megabytes(self) -> float:
        return self.array.nbytes / 2**20

    def clear(self) -> None:
        self.array[:] = 0


@dataclass
class Solution:
    """Exact value of one position for the side to move."""

    margin: int
    remoteness: int
    winning_moves: int
    nodes: int
    seconds: float

    @property
    def win(self) -> bool:
        return self.margin > 0


class AlphaBetaSolver:
    """Solves Trike positions of one board size, sharing a transposition table."""

    def __init__(
        self,
        size: int,
        tt_mb: float = 1024,
        use_symmetry: bool = True,
        progress: Callable[[int], None] | None = None,
        chunk_nodes: int = 1 << 22,
        region_keys: bool = True,
        tt_min_moves: int = TT_MIN_MOVES,
        threads: int = 1,
        defer_plies: int = DEFER_PLIES,
    ):
        """``progress(nodes)`` is called every ``chunk_nodes`` nodes of a search;
        ``region_keys=False`` keys the table by the whole position; nodes
        with at most ``tt_min_moves`` moves skip the table (any value gives
        the same answers, only the speed differs).  ``threads > 1`` searches
        each probe with that many threads sharing the table; in the first
        ``defer_plies`` plies a thread puts off a child another thread is
        searching, after the node's first move (simplified ABDADA); the
        first thread to finish answers."""
        if threads < 1:
            raise ValueError("threads must be at least 1")
        self.threads = threads
        self.defer_plies = defer_plies
        self.region_keys = region_keys
        self.tt_min_moves = tt_min_moves
        self.progress = progress
        self.chunk_nodes = chunk_nodes
        self.tables = trike.tables(size)
        self.size = size
        # Small boards cannot fill a large table (size 5 has 1.3M reachable
        # positions): a larger one would only cost page faults and clearing.
        self.tt = TranspositionTable(min(tt_mb, TT_CAP_MB.get(size, tt_mb)))
        self.use_symmetry = use_symmetry
        self.stats = np.zeros(4, dtype=np.int64)
        self.max_margin = MAX_MARGIN
        self.checkpoint: SearchCheckpoint | None = None
        """Where each probe's stack is saved and resumed from (None: nowhere)."""

    @property
    def nodes(self) -> int:
        return int(self.stats[0])

    def reset(self) -> None:
        """Empty the table and zero the counters: the next solve starts fresh."""
        self.tt.clear()
        self.stats[:] = 0

    def _probe(self, mode: int, mine: int, theirs: int, pawn: int, alpha: int, beta: int) -> int:
        """One fail-soft search, run in chunks so progress is reported and
        Ctrl-C is honoured between chunks."""
        t = self.tables
        nsym = 6 if self.use_symmetry else 1

        busy = np.zeros(1 << 16 if self.threads > 1 else 1, dtype=np.uint8)
        defer_plies = self.defer_plies if self.threads > 1 else 0

        def chunk(stack, stats, helper):
            return _run(
                mode, *stack, t.ray_masks, t.neighbours, t.score_mask, t.symmetry,
                t.symmetry_bytes, t.n_points, self.tt.array, stats, nsym,
                self.region_keys, self.tt_min_moves, self.chunk_nodes, helper, busy,
                defer_plies,
            )

        def new_stack():
            return _new_stack(np.uint64(mine), np.uint64(theirs), pawn, alpha, beta, t.symmetry)

        saved = self.checkpoint
        key = self._probe_key(mode, mine, theirs, pawn, alpha, beta)
        first = new_stack()
        if saved is not None:
            first = saved.load(key, first) or first

        if self.threads == 1:
            stack = first
            while True:
                finished, v = chunk(stack, self.stats, 0)
                if finished:
                    return int(v)
                if saved is not None and saved.due():
                    saved.save(key, stack, self.nodes)
                if self.progress is not None:
                    self.progress(self.nodes)
        return self._probe_smp(chunk, new_stack, first, key)

    def _probe_key(self, mode: int, mine: int, theirs: int, pawn: int, alpha: int,
                   beta: int) -> str:
        """What a saved stack must match to be resumed by this probe
        (:mod:`trilab.solver.trike.stack_file`)."""
        return (f"trike-alphabeta v{STACK_FORMAT} size {self.size} mode {mode} "
                f"mine {mine:#x} theirs {theirs:#x} pawn {pawn} window {alpha} {beta} "
                f"symmetry {int(self.use_symmetry)} region {int(self.region_keys)} "
                f"tt-min-moves {self.tt_min_moves} maxply {_MAXPLY}")

    def _probe_smp(self, chunk, new_stack, first, key) -> int:
        """The calling thread and ``threads - 1`` helpers search the same root
        in chunks, sharing the table and a busy map of the nodes in the first
        ``defer_plies`` plies; the first result wins and stops the others
        after their current chunk.  Every stored bound is a true bound
        whichever thread wrote it, so the answer is exact."""
        stop = threading.Event()
        answer: list[int] = []
        helper_stats = [np.zeros_like(self.stats) for _ in range(self.threads - 1)]
        failures: list[BaseException] = []

        def helper(h: int) -> None:
            stack = new_stack()
            try:
                while not stop.is_set():
                    finished, v = chunk(stack, helper_stats[h - 1], h)
                    if finished:
                        answer.append(int(v))
                        stop.set()
            except BaseException as e:  # pragma: no cover - reported by the caller
                failures.append(e)
                stop.set()

        workers = [threading.Thread(target=helper, args=(h,), daemon=True)
                   for h in range(1, self.threads)]
        for w in workers:
            w.start()
        saved = self.checkpoint
        try:
            stack = first
            while not stop.is_set():
                finished, v = chunk(stack, self.stats, 0)
                if finished:
                    answer.insert(0, int(v))
                    stop.set()
                    break
                nodes = self.nodes + sum(int(s[0]) for s in helper_stats)
                if saved is not None and saved.due():
                    saved.save(key, stack, nodes)
                if self.progress is not None:
                    self.progress(nodes)
        finally:
            stop.set()
            for w in workers:
                w.join()
            for s in helper_stats:
                self.stats += s
        if failures:
            raise failures[0]
        return answer[0]

    def _exact(self, mode: int, mine: int, theirs: int, pawn: int, lo: int, hi: int) -> int:
        """Binary search with null windows for the exact value in ``[lo, hi]``."""
        # first probe at 0 settles the sign (win/loss)
        v = self._probe(mode, mine, theirs, pawn, -1, 1)
        if v > 0:
            lo = max(lo, v)
        else:
            hi = min(hi, v)
        while lo < hi:
            mid = (lo + hi + 1) // 2  # test value >= mid
            v = self._probe(mode, mine, theirs, pawn, mid - 1, mid)
            if v >= mid:
                lo = v
            else:
                hi = v
        return lo

    def is_win(self, pos: TrikePosition) -> bool:
        """Win/loss only (one null-window probe)."""
        mine, theirs = pos.mine_theirs()
        return self._probe(MODE_MARGIN, mine, theirs, pos.pawn, -1, 1) > 0

    def null_window(self, pos: TrikePosition, k: int, mode: int = MODE_MARGIN) -> int:
        """One null-window probe "is the value at least ``k``?" in ``mode``: the
        fail-soft result ``v``.  The value is at least ``k`` iff ``v >= k``,
        and ``v`` bounds it (from below if so, from above if not).  Values of
        ``MODE_REMOTENESS`` are ``+-(WIN_BASE - remoteness)``."""
        mine, theirs = pos.mine_theirs()
        return self._probe(mode, mine, theirs, pos.pawn, k - 1, k)

    def margin_at_least(self, pos: TrikePosition, k: int) -> bool:
        """Whether the side to move's exact margin is at least ``k`` (one
        null-window probe; ``is_win`` is ``margin_at_least(pos, 1)``)."""
        return self.null_window(pos, k) >= k

    def margin(self, pos: TrikePosition) -> int:
        mine, theirs = pos.mine_theirs()
        return self._exact(MODE_MARGIN, mine, theirs, pos.pawn, -self.max_margin, self.max_margin)

    def remoteness(self, pos: TrikePosition) -> int:
        mine, theirs = pos.mine_theirs()
        v = self._exact(MODE_REMOTENESS, mine, theirs, pos.pawn, -WIN_BASE, WIN_BASE)
        return WIN_BASE - abs(v)

    def solve_position(self, pos: TrikePosition, count_winning_moves: bool = True) -> Solution:
        """Margin, remoteness and number of winning moves of ``pos``."""
        n0, t0 = self.nodes, time.perf_counter()
        m = self.margin(pos)
        r = self.remoteness(pos)
        w = 0
        if count_winning_moves and m > 0:
            w = sum(1 for d in pos.legal_moves() if not self.is_win(pos.play(d)))
        return Solution(m, r, w, self.nodes - n0, time.perf_counter() - t0)
