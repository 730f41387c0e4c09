"""Depth-first proof-number search (df-pn) for Trike's win/loss question.

Contract: :meth:`DfpnSolver.is_win` answers whether the side to move wins a
Trike position under perfect play, exactly as
:meth:`trilab.solver.trike.alphabeta.AlphaBetaSolver.is_win` does (Trike has no
draws), by a different algorithm: it is the second code path the size-8 and
size-9 opening studies can be checked with, and the one to measure against
alpha-beta on the hard replies.

Algorithm (Nagai's df-pn in negamax form, with Pawlewicz and Lew's
``1 + epsilon`` threshold trick).  Every node carries two numbers:
``phi`` (how much work proving "the side to move wins" still looks like) and
``delta`` (the same for "the side to move loses").  A won position has
``(0, INF)``, a lost one ``(INF, 0)``; for an inner node

    phi(n) = min over children of delta(c)     delta(n) = sum over children of phi(c)

A node is searched until its ``phi`` or ``delta`` reaches the thresholds its
parent gave it; the child searched next is the one with the least ``delta``,
with thresholds ``phi_c = th_delta(n) - delta(n) + phi(c)`` and
``delta_c = min(th_phi(n), max(delta_2 + 1, delta_2 * (1 + epsilon)))``
(``delta_2``: the second least).  The root gets infinite thresholds, so the
search ends with a proof or a disproof.  The game is a DAG (every move adds
a checker), so there are no repetition (GHI) cases to handle.

Search details:

* A new child counts as ``phi = 1`` and ``delta`` = its number of moves
  (every one of them must be refuted to prove it lost: df-pn+'s mobility
  initialisation).  Children that trap the pawn are scored at once: one the
  opponent loses proves the node; one it wins is dropped.
* Transposition table: three ``uint64`` words per entry (the table key of
  :func:`trilab.solver.trike.alphabeta.table_key`, the log2 of the subtree's
  work, ``phi`` and ``delta`` as 32 bits each), buckets of four, replacing
  the entry with the least work; region keys and symmetry reduction as in
  alpha-beta.  Lost entries only cost re-search, never a wrong answer: a
  value is final only when ``phi`` or ``delta`` is 0.
* An explicit stack (no recursion), run in chunks of ``chunk_nodes`` so that
  progress is reported and Ctrl-C is honoured between chunks.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numba as nb
import numpy as np
from trilab.solver.jit import kernel
from trilab.solver.trike import engine as trike
from trilab.solver.trike.alphabeta import child_images, root_images, table_key
from trilab.solver.trike.engine import TrikePosition

INF = (1 << 31) - 1
"""Proof or disproof number of a settled node; finite sums stop at ``INF - 1``."""
EPSILON_INVERSE = 2
"""The ``1 + epsilon`` trick with ``epsilon = 1 / EPSILON_INVERSE`` (0 turns it off)."""
BUCKET = 4
_MAXPLY = 64
_MAXMOVES = 60
_USED = np.uint64(1) << np.uint64(63)
_MASK32 = np.uint64(0xFFFFFFFF)
_MASK55 = np.uint64((1 << 55) - 1)

# Columns of the integer stack (one row per ply).
_P, _THPHI, _THDELTA, _N, _STATE, _WORK0, _BEST = range(7)
# Columns of the uint64 stack.
_MINE, _THEIRS, _KEYA, _KEYB = range(4)


@kernel(inline="always")
def _lookup(tt, key_a, key_b, default_phi, default_delta):
    """``(phi, delta)`` stored for a key, or the defaults."""
    slot = np.int64(_bucket(tt, key_a, key_b))
    for j in range(BUCKET):
        if tt[slot + j, 0] == key_a and (tt[slot + j, 1] & _MASK55) == key_b:
            w = tt[slot + j, 2]
            return np.int64(w & _MASK32), np.int64(w >> np.uint64(32))
    return default_phi, default_delta


@kernel(inline="always")
def _bucket(tt, key_a, key_b):
    h = key_a * np.uint64(0x9E3779B97F4A7C15) ^ (key_b + np.uint64(0x632BE59BD9B4E019))
    h ^= h >> np.uint64(31)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(29)
    return h & np.uint64(tt.shape[0] - BUCKET)


@kernel(inline="always")
def _store(tt, key_a, key_b, phi, delta, work):
    """Write ``(phi, delta)``: over the same key, else an empty slot, else the
    entry with the least work (work is kept as its bit length, 0..63)."""
    slot = np.int64(_bucket(tt, key_a, key_b))
    lw = np.uint64(0)
    while work > 0 and lw < np.uint64(63):
        work >>= 1
        lw += np.uint64(1)
    target = slot
    least = np.uint64(64)
    for j in range(BUCKET):
        ea = tt[slot + j, 0]
        if ea == key_a and (tt[slot + j, 1] & _MASK55) == key_b:
            target = slot + j
            break
        ew = np.uint64(0) if ea == np.uint64(0) else tt[slot + j, 1] >> np.uint64(55)
        if ew < least:  # an empty slot (0) first, else the least work (>= 1)
            least = ew
            target = slot + j
    tt[target, 0] = key_a
    tt[target, 1] = key_b | (lw << np.uint64(55))
    tt[target, 2] = np.uint64(phi) | (np.uint64(delta) << np.uint64(32))


@kernel(inline="always")
def _expand(ply, ist, ust, ray_masks, neighbours, score_mask, symmetry, sym_bytes, img_m, img_t,
            cdest, ckey_a, ckey_b, cphi, cdelta, nsym, npts, region, tt):
    """List the node's children (moves that do not end the game), ordered by
    fewest replies then lowest checker balance around the destination, with
    their table keys.  Returns True when a move traps the pawn and wins."""
    mine = ust[ply, _MINE]
    theirs = ust[ply, _THEIRS]
    pawn = ist[ply, _P]
    occ = mine | theirs
    moves = trike.move_mask(ray_masks, occ, pawn)
    k = 0
    x = moves
    c = ply + 1
    while x:
        bd = x & (~x + np.uint64(1))
        x ^= bd
        d = trike.lowest_bit_index(bd)
        occ_c = occ | bd
        replies = trike.popcount(trike.move_mask(ray_masks, occ_c, d))
        if replies == 0:
            if trike.final_margin(score_mask, theirs, mine | bd, d) < 0:
                return True
            continue  # the opponent wins there: never worth choosing
        sm = score_mask[d]
        balance = trike.popcount(mine & sm) - trike.popcount(theirs & sm)
        child_images(img_m, img_t, symmetry, ply, d, nsym)  # into the scratch row
        ka, kb, _ = table_key(region, neighbours, score_mask, symmetry, sym_bytes, img_m, img_t,
                              c, occ_c, d, nsym, npts)
        order = (replies * 16 + 8 + balance) * 64 + d
        j = k
        while j > 0 and cdelta[ply, j - 1] > order:
            cdest[ply, j] = cdest[ply, j - 1]
            ckey_a[ply, j] = ckey_a[ply, j - 1]
            ckey_b[ply, j] = ckey_b[ply, j - 1]
            cdelta[ply, j] = cdelta[ply, j - 1]
            j -= 1
        cdest[ply, j] = d
        ckey_a[ply, j] = ka | _USED
        ckey_b[ply, j] = kb
        cdelta[ply, j] = order
        k += 1
    for i in range(k):  # stored numbers, or new-child ones: (1, number of replies)
        cphi[ply, i], cdelta[ply, i] = _lookup(tt, ckey_a[ply, i], ckey_b[ply, i], 1,
                                               cdelta[ply, i] >> 10)
    ist[ply, _N] = k
    return False


@nb.njit(cache=True)
def _new_stack(mine, theirs, pawn, symmetry):
    """The explicit search stack of a root position (row 0 filled in)."""
    ist = np.zeros((_MAXPLY, 7), dtype=np.int64)
    ust = np.zeros((_MAXPLY, 4), dtype=np.uint64)
    cdest = np.zeros((_MAXPLY, _MAXMOVES), dtype=np.int64)
    ckey_a = np.zeros((_MAXPLY, _MAXMOVES), dtype=np.uint64)
    ckey_b = np.zeros((_MAXPLY, _MAXMOVES), dtype=np.uint64)
    cphi = np.zeros((_MAXPLY, _MAXMOVES), dtype=np.int64)
    cdelta = np.zeros((_MAXPLY, _MAXMOVES), dtype=np.int64)
    img_m = np.zeros((_MAXPLY, 6), dtype=np.uint64)
    img_t = np.zeros((_MAXPLY, 6), dtype=np.uint64)
    root_images(img_m, img_t, symmetry, mine, theirs)
    ust[0, _MINE] = mine
    ust[0, _THEIRS] = theirs
    ist[0, _P] = pawn
    ist[0, _THPHI] = INF
    ist[0, _THDELTA] = INF
    ctl = np.zeros(1, dtype=np.int64)  # ply of the node to continue when resumed
    return ist, ust, cdest, ckey_a, ckey_b, cphi, cdelta, img_m, img_t, ctl


@kernel(nogil=True)
def _run(ist, ust, cdest, ckey_a, ckey_b, cphi, cdelta, img_m, img_t, ctl,
         ray_masks, neighbours, score_mask, symmetry, sym_bytes, npts, tt, stats, nsym, region,
         eps_inv, node_budget):
    """df-pn from the root of a stack, iterative and suspendable.

    Returns ``(True, phi, delta)`` of the root once it is settled (one of
    them 0), or ``(False, 0, 0)`` after about ``node_budget`` expansions;
    calling again with the same arrays resumes.  ``stats[0]`` counts node
    expansions (including re-expansions), ``stats[1]`` table stores.
    """
    ply = ctl[0]
    stop_at = stats[0] + node_budget
    while True:
        if stats[0] >= stop_at:
            ctl[0] = ply
            return False, 0, 0
        phi = np.int64(0)
        delta = np.int64(0)
        settled = False
        if ist[ply, _STATE] == 0:  # a new node: list its children
            stats[0] += 1
            ist[ply, _STATE] = 1
            ist[ply, _WORK0] = stats[0]
            key_a, key_b, _ = table_key(
                region, neighbours, score_mask, symmetry, sym_bytes, img_m, img_t, ply,
                ust[ply, _MINE] | ust[ply, _THEIRS], ist[ply, _P], nsym, npts)
            ust[ply, _KEYA] = key_a | _USED
            ust[ply, _KEYB] = key_b
            if _expand(ply, ist, ust, ray_masks, neighbours, score_mask, symmetry, sym_bytes,
                       img_m, img_t, cdest, ckey_a, ckey_b, cphi, cdelta, nsym, npts, region,
                       tt):
                phi, delta, settled = 0, INF, True
        best = -1
        phi_best = np.int64(0)
        delta_2 = np.int64(INF)
        if not settled:
            phi = np.int64(INF)
            for i in range(ist[ply, _N]):
                cp = cphi[ply, i]
                cd = cdelta[ply, i]
                if cp >= INF:
                    delta = INF
                elif delta < INF:
                    delta = min(delta + cp, INF - 1)
                if cd < phi:
                    delta_2 = phi
                    phi = cd
                    best = i
                    phi_best = cp
                elif cd < delta_2:
                    delta_2 = cd
        if settled or phi >= ist[ply, _THPHI] or delta >= ist[ply, _THDELTA]:
            # done with this node for now: record it and return to the parent
            _store(tt, ust[ply, _KEYA], ust[ply, _KEYB], phi, delta,
                   stats[0] - ist[ply, _WORK0] + 1)
            stats[1] += 1
            ist[ply, _STATE] = 0
            if ply == 0:
                return True, phi, delta
            ply -= 1
            cphi[ply, ist[ply, _BEST]] = phi  # the parent's view of this child
            cdelta[ply, ist[ply, _BEST]] = delta
            continue
        # descend into the child with the least delta
        th_phi = ist[ply, _THDELTA] - delta + phi_best
        if th_phi > INF:
            th_phi = INF
        th_delta = delta_2 + 1
        if eps_inv > 0 and delta_2 < INF:
            th_delta = max(th_delta, delta_2 + delta_2 // eps_inv)
        if th_delta > ist[ply, _THPHI]:
            th_delta = ist[ply, _THPHI]
        ist[ply, _BEST] = best
        d = cdest[ply, best]
        c = ply + 1
        ust[c, _MINE] = ust[ply, _THEIRS]
        ust[c, _THEIRS] = ust[ply, _MINE] | (np.uint64(1) << np.uint64(d))
        ist[c, _P] = d
        ist[c, _THPHI] = th_phi
        ist[c, _THDELTA] = th_delta
        ist[c, _STATE] = 0
        child_images(img_m, img_t, symmetry, ply, d, nsym)
        ply = c


def warm_up() -> float:
    """Compile (or load from the Numba cache) the search kernels; return seconds."""
    t0 = time.perf_counter()
    DfpnSolver(3, tt_mb=1).is_win(trike.opening(3, 0))
    return time.perf_counter() - t0


class DfpnSolver:
    """Win/loss of Trike positions of one board size by df-pn, sharing a table."""

    def __init__(
        self,
        size: int,
        tt_mb: float = 1024,
        use_symmetry: bool = True,
        region_keys: bool = True,
        progress: Callable[[int], None] | None = None,
        chunk_nodes: int = 1 << 20,
        epsilon_inverse: int = EPSILON_INVERSE,
    ):
        """``progress(nodes)`` is called every ``chunk_nodes`` expansions;
        ``region_keys=False`` keys the table by the whole position;
        ``epsilon_inverse=0`` turns the ``1 + epsilon`` trick off."""
        self.size = size
        self.tables = trike.tables(size)
        if tt_mb <= 0:
            raise ValueError("transposition table size must be positive")
        entries = max(BUCKET, int(tt_mb * 2**20) // 24)
        self.table = np.zeros((1 << (entries.bit_length() - 1), 3), dtype=np.uint64)
        self.use_symmetry = use_symmetry
        self.region_keys = region_keys
        self.progress = progress
        self.chunk_nodes = chunk_nodes
        self.epsilon_inverse = epsilon_inverse
        self.stats = np.zeros(2, dtype=np.int64)

    @property
    def nodes(self) -> int:
        """Node expansions so far (a node searched again counts again)."""
        return int(self.stats[0])

    def reset(self) -> None:
        """Empty the table and zero the counters."""
        self.table[:] = 0
        self.stats[:] = 0

    def proof_numbers(self, pos: TrikePosition) -> tuple[int, int]:
        """``(phi, delta)`` of the settled root: ``(0, INF)`` won, ``(INF, 0)`` lost."""
        t = self.tables
        mine, theirs = pos.mine_theirs()
        stack = _new_stack(np.uint64(mine), np.uint64(theirs), pos.pawn, t.symmetry)
        nsym = 6 if self.use_symmetry else 1
        while True:
            finished, phi, delta = _run(
                *stack, t.ray_masks, t.neighbours, t.score_mask, t.symmetry, t.symmetry_bytes,
                t.n_points, self.table, self.stats, nsym, self.region_keys,
                self.epsilon_inverse, self.chunk_nodes,
            )
            if finished:
                return int(phi), int(delta)
            if self.progress is not None:
                self.progress(self.nodes)

    def is_win(self, pos: TrikePosition) -> bool:
        """Whether the side to move wins ``pos`` (which must not be finished)."""
        if pos.is_terminal():
            return pos.margin() > 0
        phi, delta = self.proof_numbers(pos)
        if phi != 0 and delta != 0:
            raise AssertionError(f"df-pn stopped unsettled: phi={phi}, delta={delta}")
        return phi == 0
