"""Tabula Trivium: rules, board, Numba engine and Monte Carlo policies.

Rules implemented (see ``shared/RULES.md`` section 2; **[choice]** marks a
decision of this project, each one a named constant or option below):

* Board **[choice]** (:data:`BOARD_SIDE` = 4): a hexagon of side 4 on the
  triangular lattice, 37 nodes on 3 families of 7 parallel lines; the rows
  (lines of constant axial ``r``) hold 4-5-6-7-6-5-4 nodes.  Each node has up
  to 6 neighbours along 3 straight lines.  The board is built as a
  :mod:`networkx` graph (:func:`board_graph`, axial coordinates ``(q, r)``,
  edges labelled by direction) and compiled to numpy tables (:func:`tables`).
  Nodes are numbered row by row (``r`` ascending, then ``q`` ascending).
* Setup **[choice]**: the split line runs through the centre perpendicular
  to the rows (pixel ``x = q + r/2 = 0``: through the centre and 2 second-ring
  nodes, between the middle nodes of the top and bottom sides).  Each seat
  owns one half (:data:`SEAT0_HALF`: seat 0 owns the half with ``x < 0``):
  9 stones on the 9 outer-ring nodes of that half, 5 pawns on its 5
  second-ring nodes.  The centre, the 6 innermost nodes and the 2 second-ring
  nodes on the split line start empty (9 empty nodes).
* Seat 0 moves first (studies swap the policies to measure both orders).
* A turn (one ply): first a pawn movement (mandatory; there is always one,
  see the loss rules), then a stone movement (mandatory if any stone of the
  mover can move after the pawn movement, otherwise skipped).
* Pawn movement: one or two steps in a straight line to an empty node, never
  through an occupied node; or a jump over an adjacent piece of either colour
  (pawn or stone) onto the empty node directly beyond it, capturing the
  jumped piece.  One jump per turn; the jump is the turn's pawn movement.
* Stone movement: any number of steps in a straight line over empty nodes.
  Stones never jump or capture.
* Loss: right after a pawn movement, a seat with no stones ("no stones") or no
  pawns ("no pawns") loses at once, also when the mover captured its own last
  piece; the stone movement is then not played.  (Only one piece is captured
  per turn, so at most one seat can be out; for arbitrary states
  :func:`material_status` checks seat 0 before seat 1 and stones before
  pawns.)  A seat that cannot move any pawn at the start of its turn loses
  ("pawns blocked").
* Draws **[choice]** (no draw rule is published): before each turn, after the
  blocked-pawn check, the game is drawn ("ply cap") if ``ply_cap`` turns
  (option, default :data:`DEFAULT_PLY_CAP` = 400) have been played.  After
  each complete turn the game is drawn ("repetition") if the position (board
  and side to move) has now occurred :data:`REPETITION_LIMIT` = 3 times,
  counting the initial position.  The engine compares Zobrist hashes
  (:data:`ZOBRIST_SEED`) of the positions since the last capture (a capture
  is irreversible, so no earlier position can recur).

Move lists (the order the policies draw from): pawn movements sorted by
``(from, to)`` node index (a pawn movement is determined by its two nodes:
a two-step move and a jump along the same line differ by the middle node
being empty or occupied); stone movements sorted by ``(from, to)``; full
turns by pawn movement, then stone movement.  A turn whose pawn movement
ends the game, or after which no stone can move, has no stone movement.

Policies (one per seat; every draw comes from the game's stream
:func:`solver.rng.game_stream`):

* ``random``: one draw ``below(n)`` picks a pawn movement uniformly from the
  list; if the game goes on and the stone list of the resulting position is
  non-empty, a second draw picks a stone movement uniformly.  A draw is made
  whenever the list is non-empty, even with one entry.
* ``greedy``: classes the pawn movements: winning captures (an opponent's
  last pawn or last stone) > other captures of opponent pieces > steps >
  captures of its own pieces (taken only when forced).  It keeps the best
  non-empty class and lists the full turns (those pawn movements times the
  stone movements that follow) in list order, each classed: *win* (the
  opponent has lost: out of pawns/stones, or no pawn movement at the start of
  its turn) > *safe* (no opponent pawn movement would capture one of the
  mover's pawns or stones) > *unsafe* > *lose* (the mover captured its own
  last pawn/stone).  One draw picks uniformly among the turns of the best
  class present.
* ``lookahead:D`` (1 <= D <= :data:`MAX_DEPTH`): negamax alpha-beta over full
  turns, D turns deep (D = 1: the mover's turn then evaluate).  The root's
  full turns are first shuffled with a Fisher-Yates pass (``for i = n-1 ..
  1: swap(i, below(i + 1))``, n - 1 draws); the first turn of maximal value
  in that order is played, so ties are broken uniformly.  Leaves are scored
  for the side to move by :func:`evaluate`: ``PAWN_VALUE * pawn difference +
  STONE_VALUE * stone difference + MOBILITY_VALUE * difference in the number
  of legal pawn movements``.  A position decided ``k`` turns below the root
  scores ``+-(WIN_SCORE - k)`` (faster wins, slower losses).  The search
  ignores repetition and the ply cap.  Values are exact integers, so the
  choice does not depend on the move ordering used for pruning.

Engine representation: a position is four ``uint64`` bitboards (bit ``i`` =
node ``i``) in a ``uint64[4]`` array, ``pieces[2*seat]`` the pawns and
``pieces[2*seat + 1]`` the stones of a seat, plus the side to move.  The
geometry tables (neighbours, rays, middle nodes) are packed after the
configuration header in ``icfg`` so that :func:`play_chunk` receives them as
arguments.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import networkx as nx
import numba as nb
import numpy as np
from trilab.solver import rng
from trilab.solver.bitboard import bit, popcount
from trilab.solver.bitboard import lowest_bit_index as lowest_bit
from trilab.solver.jit import kernel
from trilab.solver.montecarlo import GameConfig, GameSpec
from trilab.solver.tabula_trivium_reference import reference_game

# ------------------------------------------------------------------ constants

BOARD_SIDE = 4
"""[choice] Side of the hexagonal board (4: 37 nodes, rows 4-5-6-7-6-5-4)."""
N_NODES = 3 * BOARD_SIDE * (BOARD_SIDE - 1) + 1
N_DIRS = 6
MAX_RAY = 2 * BOARD_SIDE - 2
AXIAL_DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (-1, 1), (1, -1))
"""Direction ``d`` as an axial step ``(dq, dr)``; ``d ^ 1`` is the opposite direction and
``d // 2`` the line family (0: rows, 1: constant ``q``, 2: constant ``q + r``)."""
SEAT0_HALF = -1
"""[choice] Seat 0 owns the half with pixel ``x = q + r/2`` of this sign (-1: left)."""
PAWNS_PER_SEAT = 5
STONES_PER_SEAT = 9
DEFAULT_PLY_CAP = 400
"""[choice] Turns after which a game is a draw ("ply cap")."""
REPETITION_LIMIT = 3
"""[choice] A position (board and side to move) occurring this often is a draw."""
ZOBRIST_SEED = 0x7AB17A7121B1
"""Seed of the Zobrist keys (a fixed SplitMix64 stream, see :func:`zobrist_keys`)."""

PAWN_VALUE = 100
"""[choice] Evaluation weight of a pawn (lookahead policy)."""
STONE_VALUE = 60
"""[choice] Evaluation weight of a stone (lookahead policy)."""
MOBILITY_VALUE = 2
"""[choice] Evaluation weight of one legal pawn movement (lookahead policy)."""
WIN_SCORE = 1_000_000
"""Score of a decided position (minus its distance in turns from the root)."""
INF = 1 << 40
MAX_DEPTH = 4
"""Deepest lookahead accepted by :func:`make_config`."""



def _buffer_sizes() -> tuple[int, int, int]:
    """Bounds on the pawn movements, stone movements and full turns of any position
    (any piece counts): ``p`` pawns, ``s`` stones and ``e`` empty nodes give at most
    ``min(12p, pe)`` pawn movements and, after a jump, ``s(e + 1)`` stone movements."""
    pawn = stone = turns = 0
    for p in range(1, N_NODES):
        for s in range(1, N_NODES - p + 1):
            e = N_NODES - p - s  # fewer pieces of the opponent only add empty nodes
            pm = min(2 * N_DIRS * p, p * e)
            sm = s * (e + 1)
            pawn, stone, turns = max(pawn, pm), max(stone, sm), max(turns, pm * max(sm, 1))
    return pawn, stone, turns


MAX_PAWN_MOVES, MAX_STONE_MOVES, MAX_TURNS = _buffer_sizes()

END_REASONS = ("no stones", "no pawns", "pawns blocked", "ply cap", "repetition")
R_NO_STONES, R_NO_PAWNS, R_BLOCKED, R_PLY_CAP, R_REPETITION = range(5)
DRAW_REASONS = ("ply cap", "repetition")

POLICY_RANDOM, POLICY_GREEDY, POLICY_LOOKAHEAD = 0, 1, 2
POLICIES = {
    "random": "uniform pawn movement, then uniform stone movement",
    "greedy": "captures (winning ones first), else a turn leaving nothing capturable, else any",
    "lookahead:D": f"depth-D alpha-beta over full turns (1 <= D <= {MAX_DEPTH}), "
    "material + pawn mobility, ties random",
}

# Greedy classes of pawn movements and of full turns.
PCAT_OWN, PCAT_STEP, PCAT_CAPTURE, PCAT_WINNING = 0, 1, 2, 3
CLASS_LOSE, CLASS_UNSAFE, CLASS_SAFE, CLASS_WIN = 0, 1, 2, 3

# icfg layout: header, then the tables.
HEADER = 16
I_PLY_CAP, I_KIND0, I_DEPTH0, I_KIND1, I_DEPTH1, I_INIT = 0, 1, 2, 3, 4, 5
OFF_NBR = HEADER
OFF_RAYS = OFF_NBR + N_NODES * N_DIRS
OFF_MID = OFF_RAYS + N_NODES * N_DIRS * MAX_RAY
ICFG_SIZE = OFF_MID + N_NODES * N_NODES

Node = int
"""A node index (row by row, ``r`` then ``q`` ascending)."""
PawnMove = tuple[int, int, int]
"""``(from, to, captured node or -1)``."""
StoneMove = tuple[int, int]
"""``(from, to)``."""
Pieces = tuple[int, int, int, int]
"""Bitboards: seat-0 pawns, seat-0 stones, seat-1 pawns, seat-1 stones."""

# ------------------------------------------------------------------ board


def axial_coords() -> list[tuple[int, int]]:
    """Axial ``(q, r)`` of every node, by node index."""
    n = BOARD_SIDE - 1
    cells = [
        (q, r)
        for r in range(-n, n + 1)
        for q in range(-n, n + 1)
        if abs(q + r) <= n
    ]
    return sorted(cells, key=lambda c: (c[1], c[0]))


def ring(q: int, r: int) -> int:
    """Distance from the centre (0 = centre, ``BOARD_SIDE - 1`` = outer ring)."""
    return max(abs(q), abs(r), abs(q + r))


def half(q: int, r: int) -> int:
    """Sign of the pixel abscissa ``x = q + r/2``: -1, 0 (split line) or +1."""
    x2 = 2 * q + r
    return (x2 > 0) - (x2 < 0)


@functools.cache
def board_graph() -> nx.DiGraph:
    """The board as a directed graph.

    Nodes are ``0..36`` with attributes ``q``, ``r`` (axial), ``row``
    (``r + 3``), ``ring`` and ``half`` (-1, 0, +1).  Each pair of neighbours
    is joined by two arcs, ``u -> v`` labelled ``direction=d`` (index into
    :data:`AXIAL_DIRECTIONS`) and ``v -> u`` labelled ``d ^ 1``.
    """
    coords = axial_coords()
    index = {c: i for i, c in enumerate(coords)}
    g = nx.DiGraph()
    for i, (q, r) in enumerate(coords):
        g.add_node(i, q=q, r=r, row=r + BOARD_SIDE - 1, ring=ring(q, r), half=half(q, r))
    for i, (q, r) in enumerate(coords):
        for d, (dq, dr) in enumerate(AXIAL_DIRECTIONS):
            j = index.get((q + dq, r + dr))
            if j is not None:
                g.add_edge(i, j, direction=d)
    return g


class TabulaTables(NamedTuple):
    """The board compiled for the kernels (int64 arrays, -1 = off the board)."""

    nbr: np.ndarray  # [N_NODES, 6]: neighbour in each direction
    rays: np.ndarray  # [N_NODES, 6, MAX_RAY]: nodes along each direction, nearest first
    mid: np.ndarray  # [N_NODES, N_NODES]: the middle node of two nodes 2 steps apart on a line


@functools.cache
def tables() -> TabulaTables:
    """Compile :func:`board_graph` to neighbour, ray and middle-node tables."""
    g = board_graph()
    nbr = np.full((N_NODES, N_DIRS), -1, dtype=np.int64)
    for u, v, d in g.edges(data="direction"):
        nbr[u, d] = v
    rays = np.full((N_NODES, N_DIRS, MAX_RAY), -1, dtype=np.int64)
    mid = np.full((N_NODES, N_NODES), -1, dtype=np.int64)
    for u in range(N_NODES):
        for d in range(N_DIRS):
            k, v = 0, nbr[u, d]
            while v >= 0:
                rays[u, d, k] = v
                k, v = k + 1, nbr[v, d]
            if rays[u, d, 1] >= 0:
                mid[u, rays[u, d, 1]] = rays[u, d, 0]
    return TabulaTables(nbr, rays, mid)


def setup_nodes(seat: int) -> tuple[list[Node], list[Node]]:
    """``(pawn nodes, stone nodes)`` of ``seat`` at the start."""
    g = board_graph()
    sign = SEAT0_HALF if seat == 0 else -SEAT0_HALF
    outer = BOARD_SIDE - 1
    mine = [n for n, a in g.nodes(data=True) if a["half"] == sign]
    pawns = sorted(n for n in mine if g.nodes[n]["ring"] == outer - 1)
    stones = sorted(n for n in mine if g.nodes[n]["ring"] == outer)
    return pawns, stones


def initial_pieces() -> Pieces:
    """Bitboards of the initial position (seat 0 to move)."""
    out = []
    for seat in (0, 1):
        pawns, stones = setup_nodes(seat)
        out += [sum(1 << n for n in pawns), sum(1 << n for n in stones)]
    return tuple(out)


# ------------------------------------------------------------------ bit helpers


@kernel(inline="always")
def drop_lowest(x: np.uint64) -> np.uint64:
    return x & (x - np.uint64(1))


@kernel(inline="always")
def occupied(pieces: np.ndarray) -> np.uint64:
    return pieces[0] | pieces[1] | pieces[2] | pieces[3]


@kernel(inline="always")
def copy4(src: np.ndarray, dst: np.ndarray) -> None:
    for k in range(4):
        dst[k] = src[k]


@kernel(inline="always")
def seat_bit(seat: int) -> int:
    """Winner bitmask of ``seat``."""
    return 1 << seat


# ------------------------------------------------------------------ rules kernels


@kernel(inline="always")
def pawn_destinations(nbr: np.ndarray, occ: np.uint64, f: int) -> np.uint64:
    """Destinations of a pawn on ``f``: 1 or 2 empty steps, or a jump over a piece."""
    out = np.uint64(0)
    for d in range(N_DIRS):
        n1 = nbr[f, d]
        if n1 < 0:
            continue
        n2 = nbr[n1, d]
        if (occ & bit(n1)) == np.uint64(0):
            out |= bit(n1)
            if n2 >= 0 and (occ & bit(n2)) == np.uint64(0):
                out |= bit(n2)
        elif n2 >= 0 and (occ & bit(n2)) == np.uint64(0):
            out |= bit(n2)
    return out


@kernel(inline="always")
def pawn_moves(nbr: np.ndarray, mid: np.ndarray, pieces: np.ndarray, side: int,
               out: np.ndarray) -> int:
    """Write the legal pawn movements ``(from, to, captured or -1)`` of ``side`` into
    ``out`` sorted by ``(from, to)``; return their count."""
    occ = occupied(pieces)
    n = 0
    x = pieces[2 * side]
    while x:
        f = lowest_bit(x)
        x = drop_lowest(x)
        m = pawn_destinations(nbr, occ, f)
        while m:
            t = lowest_bit(m)
            m = drop_lowest(m)
            c = mid[f, t]
            if c >= 0 and (occ & bit(c)) == np.uint64(0):
                c = -1  # a two-step move over an empty node
            out[n, 0] = f
            out[n, 1] = t
            out[n, 2] = c
            n += 1
    return n


@kernel(inline="always")
def count_pawn_moves(nbr: np.ndarray, pieces: np.ndarray, side: int) -> int:
    """Number of legal pawn movements of ``side``."""
    occ = occupied(pieces)
    n = 0
    x = pieces[2 * side]
    while x:
        n += popcount(pawn_destinations(nbr, occ, lowest_bit(x)))
        x = drop_lowest(x)
    return n


@kernel(inline="always")
def has_pawn_move(nbr: np.ndarray, pieces: np.ndarray, side: int) -> bool:
    """True when ``side`` can move a pawn (an empty neighbour or a possible jump)."""
    occ = occupied(pieces)
    x = pieces[2 * side]
    while x:
        f = lowest_bit(x)
        x = drop_lowest(x)
        for d in range(N_DIRS):
            n1 = nbr[f, d]
            if n1 < 0:
                continue
            if (occ & bit(n1)) == np.uint64(0):
                return True
            n2 = nbr[n1, d]
            if n2 >= 0 and (occ & bit(n2)) == np.uint64(0):
                return True
    return False


@kernel(inline="always")
def can_capture(nbr: np.ndarray, pieces: np.ndarray, side: int, victim: int) -> bool:
    """True when a pawn of ``side`` can jump over a pawn or stone of ``victim``."""
    occ = occupied(pieces)
    targets = pieces[2 * victim] | pieces[2 * victim + 1]
    x = pieces[2 * side]
    while x:
        f = lowest_bit(x)
        x = drop_lowest(x)
        for d in range(N_DIRS):
            n1 = nbr[f, d]
            if n1 < 0 or (targets & bit(n1)) == np.uint64(0):
                continue
            n2 = nbr[n1, d]
            if n2 >= 0 and (occ & bit(n2)) == np.uint64(0):
                return True
    return False


@kernel(inline="always")
def stone_destinations(rays: np.ndarray, occ: np.uint64, f: int) -> np.uint64:
    """Destinations of a stone on ``f``: along each ray up to the first occupied node."""
    m = np.uint64(0)
    for d in range(N_DIRS):
        for k in range(MAX_RAY):
            q = rays[f, d, k]
            if q < 0 or (occ & bit(q)) != np.uint64(0):
                break
            m |= bit(q)
    return m


@kernel(inline="always")
def stone_moves(rays: np.ndarray, pieces: np.ndarray, side: int, out: np.ndarray) -> int:
    """Write the legal stone movements ``(from, to)`` of ``side`` into ``out`` sorted by
    ``(from, to)``; return their count."""
    occ = occupied(pieces)
    n = 0
    x = pieces[2 * side + 1]
    while x:
        f = lowest_bit(x)
        x = drop_lowest(x)
        m = stone_destinations(rays, occ, f)
        while m:
            out[n, 0] = f
            out[n, 1] = lowest_bit(m)
            n += 1
            m = drop_lowest(m)
    return n


@kernel(inline="always")
def apply_pawn_move(pieces: np.ndarray, side: int, f: int, t: int, c: int) -> None:
    """Move the pawn of ``side`` from ``f`` to ``t``, removing the piece on ``c`` if >= 0."""
    pieces[2 * side] ^= bit(f) | bit(t)
    if c >= 0:
        keep = ~bit(c)
        for k in range(4):
            pieces[k] &= keep


@kernel(inline="always")
def apply_stone_move(pieces: np.ndarray, side: int, f: int, t: int) -> None:
    """Move the stone of ``side`` from ``f`` to ``t``."""
    pieces[2 * side + 1] ^= bit(f) | bit(t)


@kernel(inline="always")
def material_status(pieces: np.ndarray) -> tuple[int, int]:
    """``(winners, reason)`` when a seat has no stones or no pawns, else ``(0, -1)``.

    Seat 0 is checked before seat 1, stones before pawns."""
    for seat in range(2):
        if pieces[2 * seat + 1] == np.uint64(0):
            return seat_bit(1 - seat), R_NO_STONES
        if pieces[2 * seat] == np.uint64(0):
            return seat_bit(1 - seat), R_NO_PAWNS
    return 0, -1


@kernel
def status(nbr: np.ndarray, pieces: np.ndarray, side: int) -> tuple[int, int]:
    """Result at the start of ``side``'s turn: ``(winners, reason)`` or ``(0, -1)``."""
    w, r = material_status(pieces)
    if r >= 0:
        return w, r
    if not has_pawn_move(nbr, pieces, side):
        return seat_bit(1 - side), R_BLOCKED
    return 0, -1


@nb.njit(cache=True)
def zobrist_keys() -> np.ndarray:
    """``4 * N_NODES`` piece keys (index ``kind * N_NODES + node``) and a side key."""
    st = rng.game_stream(np.uint64(ZOBRIST_SEED), np.uint64(0))
    keys = np.empty(4 * N_NODES + 1, dtype=np.uint64)
    for i in range(keys.shape[0]):
        keys[i] = rng.next_u64(st)
    return keys


@kernel
def zobrist(keys: np.ndarray, pieces: np.ndarray, side: int) -> np.uint64:
    """Zobrist hash of ``(pieces, side to move)``."""
    h = np.uint64(0)
    for k in range(4):
        x = pieces[k]
        while x:
            h ^= keys[k * N_NODES + lowest_bit(x)]
            x = drop_lowest(x)
    if side == 1:
        h ^= keys[4 * N_NODES]
    return h


# ------------------------------------------------------------------ policies


@nb.njit(cache=True)
def new_workspace():
    """Preallocated buffers of the policies and the search (one per kernel call)."""
    pbuf = np.empty((MAX_PAWN_MOVES, 3), dtype=np.int64)
    sbuf = np.empty((MAX_STONE_MOVES, 2), dtype=np.int64)
    turns = np.empty((MAX_TURNS, 6), dtype=np.int64)
    tmp = np.empty((2, 4), dtype=np.uint64)
    s_pcs = np.empty((MAX_DEPTH + 1, 4), dtype=np.uint64)
    s_post = np.empty((MAX_DEPTH + 1, 4), dtype=np.uint64)
    s_pm = np.empty((MAX_DEPTH + 1, MAX_PAWN_MOVES, 3), dtype=np.int64)
    s_sm = np.empty((MAX_DEPTH + 1, MAX_STONE_MOVES, 2), dtype=np.int64)
    s_int = np.empty((MAX_DEPTH + 1, 8), dtype=np.int64)
    pcat = np.empty(MAX_PAWN_MOVES, dtype=np.int64)
    return pbuf, sbuf, turns, tmp, s_pcs, s_post, s_pm, s_sm, s_int, pcat


@kernel(inline="always")
def pawn_category(pieces: np.ndarray, side: int, c: int) -> int:
    """Greedy class of a pawn movement capturing ``c`` (-1: none)."""
    if c < 0:
        return PCAT_STEP
    opp = 1 - side
    b = bit(c)
    if (pieces[2 * opp] & b) != np.uint64(0):
        return PCAT_WINNING if popcount(pieces[2 * opp]) == 1 else PCAT_CAPTURE
    if (pieces[2 * opp + 1] & b) != np.uint64(0):
        return PCAT_WINNING if popcount(pieces[2 * opp + 1]) == 1 else PCAT_CAPTURE
    return PCAT_OWN


@kernel(inline="always")
def turn_class(nbr: np.ndarray, pieces: np.ndarray, side: int) -> int:
    """Greedy class of the position after a full turn of ``side`` (game not decided)."""
    opp = 1 - side
    if not has_pawn_move(nbr, pieces, opp):
        return CLASS_WIN
    if can_capture(nbr, pieces, opp, side):
        return CLASS_UNSAFE
    return CLASS_SAFE


@kernel
def full_turns(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, pieces: np.ndarray,
               side: int, pm: np.ndarray, n_pm: int, pcat: np.ndarray, want: int,
               classify: bool, ws: tuple) -> int:
    """List the full turns ``(pf, pt, pc, sf, st, class)`` built on the pawn movements
    ``pm[i]`` with ``pcat[i] == want`` (all of them when ``want < 0``) into ``ws``'s
    turn buffer, in list order; ``sf = st = -1`` for no stone movement.  The class
    (greedy) is computed when ``classify``; return the count."""
    sbuf, turns, tmp = ws[1], ws[2], ws[3]
    after, child = tmp[0], tmp[1]
    n = 0
    for i in range(n_pm):
        if want >= 0 and pcat[i] != want:
            continue
        copy4(pieces, after)
        apply_pawn_move(after, side, pm[i, 0], pm[i, 1], pm[i, 2])
        w, r = material_status(after)
        ns = 0
        if r < 0:
            ns = stone_moves(rays, after, side, sbuf)
        for j in range(max(ns, 1)):
            turns[n, 0] = pm[i, 0]
            turns[n, 1] = pm[i, 1]
            turns[n, 2] = pm[i, 2]
            turns[n, 3] = -1
            turns[n, 4] = -1
            turns[n, 5] = 0
            if r >= 0:
                turns[n, 5] = CLASS_WIN if w == seat_bit(side) else CLASS_LOSE
            elif ns == 0:
                if classify:
                    turns[n, 5] = turn_class(nbr, after, side)
            else:
                turns[n, 3] = sbuf[j, 0]
                turns[n, 4] = sbuf[j, 1]
                if classify:
                    copy4(after, child)
                    apply_stone_move(child, side, sbuf[j, 0], sbuf[j, 1])
                    turns[n, 5] = turn_class(nbr, child, side)
            n += 1
    return n


@kernel
def random_turn(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, pieces: np.ndarray,
                side: int, st: np.ndarray, ws: tuple, out: np.ndarray) -> None:
    """The ``random`` policy: write ``(pf, pt, pc, sf, st)`` into ``out``."""
    pbuf, sbuf, tmp = ws[0], ws[1], ws[3]
    after = tmp[0]
    n = pawn_moves(nbr, mid, pieces, side, pbuf)
    k = rng.below(st, n)
    for c in range(3):
        out[c] = pbuf[k, c]
    out[3] = -1
    out[4] = -1
    copy4(pieces, after)
    apply_pawn_move(after, side, out[0], out[1], out[2])
    if material_status(after)[1] >= 0:
        return
    ns = stone_moves(rays, after, side, sbuf)
    if ns > 0:
        k = rng.below(st, ns)
        out[3] = sbuf[k, 0]
        out[4] = sbuf[k, 1]


@kernel
def greedy_turn(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, pieces: np.ndarray,
                side: int, st: np.ndarray, ws: tuple, out: np.ndarray) -> None:
    """The ``greedy`` policy (see the module docstring): one draw."""
    pbuf, turns, pcat = ws[0], ws[2], ws[9]
    n_pm = pawn_moves(nbr, mid, pieces, side, pbuf)
    want = 0
    for i in range(n_pm):
        pcat[i] = pawn_category(pieces, side, pbuf[i, 2])
        want = max(want, pcat[i])
    n = full_turns(nbr, mid, rays, pieces, side, pbuf, n_pm, pcat, want, True, ws)
    best = 0
    for i in range(n):
        best = max(best, turns[i, 5])
    count = 0
    for i in range(n):
        if turns[i, 5] == best:
            count += 1
    k = rng.below(st, count)
    for i in range(n):
        if turns[i, 5] == best:
            if k == 0:
                for c in range(5):
                    out[c] = turns[i, c]
                return
            k -= 1


@kernel
def evaluate(nbr: np.ndarray, pieces: np.ndarray, side: int, mobility: int) -> int:
    """Static score for ``side`` to move (``mobility`` = its pawn movements, > 0)."""
    opp = 1 - side
    return (
        PAWN_VALUE * (popcount(pieces[2 * side]) - popcount(pieces[2 * opp]))
        + STONE_VALUE * (popcount(pieces[2 * side + 1]) - popcount(pieces[2 * opp + 1]))
        + MOBILITY_VALUE * (mobility - count_pawn_moves(nbr, pieces, opp))
    )


@kernel
def leaf_value(nbr: np.ndarray, pieces: np.ndarray, side: int, dist: int) -> int:
    """Value for ``side`` to move at a leaf ``dist`` turns below the root."""
    mob = count_pawn_moves(nbr, pieces, side)
    if mob == 0:
        return -(WIN_SCORE - dist)
    return evaluate(nbr, pieces, side, mob)


@kernel
def _open_level(nbr: np.ndarray, mid: np.ndarray, ws: tuple, level: int, side: int,
                alpha: int, beta: int) -> None:
    """Start the node ``s_pcs[level]``: pawn movements with opponent captures first."""
    pbuf, s_pcs, s_pm, s_int = ws[0], ws[4], ws[6], ws[8]
    pcs = s_pcs[level]
    n = pawn_moves(nbr, mid, pcs, side, pbuf)
    opp_pieces = pcs[2 * (1 - side)] | pcs[2 * (1 - side) + 1]
    k = 0
    for first in (True, False):
        for i in range(n):
            c = pbuf[i, 2]
            cap = c >= 0 and (opp_pieces & bit(c)) != np.uint64(0)
            if cap == first:
                s_pm[level, k, 0] = pbuf[i, 0]
                s_pm[level, k, 1] = pbuf[i, 1]
                s_pm[level, k, 2] = c
                k += 1
    s_int[level, 0] = n  # pawn movements
    s_int[level, 1] = -1  # current pawn movement
    s_int[level, 2] = 0  # stone movements after it
    s_int[level, 3] = 0  # next stone movement
    s_int[level, 4] = alpha
    s_int[level, 5] = beta
    s_int[level, 6] = -INF  # best
    s_int[level, 7] = side


@kernel
def search(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, root: np.ndarray, side: int,
           depth: int, alpha: int, beta: int, dist0: int, ws: tuple) -> int:
    """Fail-soft negamax alpha-beta value of ``root`` for ``side`` to move, ``depth``
    >= 1 full turns deep, ``dist0`` turns below the decision.  ``root`` must be
    undecided (material present, ``side`` has a pawn movement).  Explicit stack, no
    recursion; values are exact inside ``(alpha, beta)``."""
    s_pcs, s_post, s_pm, s_sm, s_int = ws[4], ws[5], ws[6], ws[7], ws[8]
    copy4(root, s_pcs[0])
    _open_level(nbr, mid, ws, 0, side, alpha, beta)
    lv = 0
    while True:
        me = s_int[lv, 7]
        have_child = False
        v = 0
        if s_int[lv, 3] < s_int[lv, 2]:
            j = s_int[lv, 3]
            s_int[lv, 3] = j + 1
            copy4(s_post[lv], s_pcs[lv + 1])
            apply_stone_move(s_pcs[lv + 1], me, s_sm[lv, j, 0], s_sm[lv, j, 1])
            have_child = True
        else:
            i = s_int[lv, 1] + 1
            s_int[lv, 1] = i
            s_int[lv, 2] = 0
            s_int[lv, 3] = 0
            if i >= s_int[lv, 0]:  # all children seen
                if lv == 0:
                    return s_int[0, 6]
                v = -s_int[lv, 6]
                lv -= 1
            else:
                post = s_post[lv]
                copy4(s_pcs[lv], post)
                apply_pawn_move(post, me, s_pm[lv, i, 0], s_pm[lv, i, 1], s_pm[lv, i, 2])
                w, r = material_status(post)
                if r >= 0:
                    decided = WIN_SCORE - (dist0 + lv + 1)
                    v = decided if w == seat_bit(me) else -decided
                else:
                    ns = stone_moves(rays, post, me, s_sm[lv])
                    s_int[lv, 2] = ns
                    if ns > 0:
                        continue
                    copy4(post, s_pcs[lv + 1])
                    have_child = True
        if have_child:
            opp = 1 - me
            cdist = dist0 + lv + 1
            if depth - lv - 1 == 0:
                v = -leaf_value(nbr, s_pcs[lv + 1], opp, cdist)
            elif not has_pawn_move(nbr, s_pcs[lv + 1], opp):
                v = WIN_SCORE - cdist
            else:
                _open_level(nbr, mid, ws, lv + 1, opp, -s_int[lv, 5], -s_int[lv, 4])
                lv += 1
                continue
        # deliver v to level lv, popping finished (cut-off) levels
        while True:
            if v > s_int[lv, 6]:
                s_int[lv, 6] = v
            if v > s_int[lv, 4]:
                s_int[lv, 4] = v
            if s_int[lv, 4] < s_int[lv, 5]:
                break
            if lv == 0:
                return s_int[0, 6]
            v = -s_int[lv, 6]
            lv -= 1


@kernel
def lookahead_turn(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, pieces: np.ndarray,
                   side: int, depth: int, st: np.ndarray, ws: tuple, out: np.ndarray) -> None:
    """The ``lookahead:depth`` policy (see the module docstring)."""
    pbuf, turns, tmp, pcat = ws[0], ws[2], ws[3], ws[9]
    n_pm = pawn_moves(nbr, mid, pieces, side, pbuf)
    pcat[:n_pm] = 0
    n = full_turns(nbr, mid, rays, pieces, side, pbuf, n_pm, pcat, -1, False, ws)
    for i in range(n - 1, 0, -1):
        j = rng.below(st, i + 1)
        for c in range(5):
            turns[i, c], turns[j, c] = turns[j, c], turns[i, c]
    child = tmp[0]
    opp = 1 - side
    best = -INF
    bi = 0
    for i in range(n):
        copy4(pieces, child)
        apply_pawn_move(child, side, turns[i, 0], turns[i, 1], turns[i, 2])
        w, r = material_status(child)
        if r >= 0:
            v = WIN_SCORE - 1 if w == seat_bit(side) else -(WIN_SCORE - 1)
        else:
            if turns[i, 3] >= 0:
                apply_stone_move(child, side, turns[i, 3], turns[i, 4])
            if depth == 1:
                v = -leaf_value(nbr, child, opp, 1)
            elif not has_pawn_move(nbr, child, opp):
                v = WIN_SCORE - 1
            else:
                v = -search(nbr, mid, rays, child, opp, depth - 1, -INF, -best, 1, ws)
        if v > best:
            best = v
            bi = i
    for c in range(5):
        out[c] = turns[bi, c]


@kernel
def choose_turn(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, pieces: np.ndarray,
                side: int, kind: int, depth: int, st: np.ndarray, ws: tuple,
                out: np.ndarray) -> None:
    """Write the turn ``(pf, pt, pc, sf, st)`` chosen by the policy into ``out``.

    ``side`` must have a pawn movement.  ``sf = st = -1``: no stone movement."""
    if kind == POLICY_RANDOM:
        random_turn(nbr, mid, rays, pieces, side, st, ws, out)
    elif kind == POLICY_GREEDY:
        greedy_turn(nbr, mid, rays, pieces, side, st, ws, out)
    else:
        lookahead_turn(nbr, mid, rays, pieces, side, depth, st, ws, out)


# ------------------------------------------------------------------ games


@kernel
def play_game(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, keys: np.ndarray,
              icfg: np.ndarray, st: np.ndarray, ws: tuple, pieces: np.ndarray,
              hist: np.ndarray, turn: np.ndarray) -> tuple[int, int, int]:
    """One game from the initial position: ``(winners, plies, reason)``."""
    ply_cap = icfg[I_PLY_CAP]
    for k in range(4):
        pieces[k] = np.uint64(icfg[I_INIT + k])
    side = 0
    ply = 0
    hist[0] = zobrist(keys, pieces, side)
    since = 0  # first history entry after the last capture
    while True:
        if not has_pawn_move(nbr, pieces, side):
            return seat_bit(1 - side), ply, R_BLOCKED
        if ply >= ply_cap:
            return 0, ply, R_PLY_CAP
        kind = icfg[I_KIND0 + 2 * side]
        depth = icfg[I_DEPTH0 + 2 * side]
        choose_turn(nbr, mid, rays, pieces, side, kind, depth, st, ws, turn)
        h = hist[ply] ^ keys[4 * N_NODES]  # incremental Zobrist update, side flipped
        base = 2 * side * N_NODES
        h ^= keys[base + turn[0]] ^ keys[base + turn[1]]
        if turn[2] >= 0:
            for k in range(4):
                if (pieces[k] & bit(turn[2])) != np.uint64(0):
                    h ^= keys[k * N_NODES + turn[2]]
        apply_pawn_move(pieces, side, turn[0], turn[1], turn[2])
        ply += 1
        w, r = material_status(pieces)
        if r >= 0:
            return w, ply, r
        if turn[2] >= 0:
            since = ply
        if turn[3] >= 0:
            apply_stone_move(pieces, side, turn[3], turn[4])
            h ^= keys[base + N_NODES + turn[3]] ^ keys[base + N_NODES + turn[4]]
        side = 1 - side
        hist[ply] = h
        seen = 0
        for i in range(since, ply + 1):
            if hist[i] == h:
                seen += 1
        if seen >= REPETITION_LIMIT:
            return 0, ply, R_REPETITION


@nb.njit(cache=True)
def unpack_tables(icfg: np.ndarray):
    """``(nbr, rays, mid)`` views of the tables packed in ``icfg``."""
    nbr = icfg[OFF_NBR:OFF_RAYS].reshape((N_NODES, N_DIRS))
    rays = icfg[OFF_RAYS:OFF_MID].reshape((N_NODES, N_DIRS, MAX_RAY))
    mid = icfg[OFF_MID:ICFG_SIZE].reshape((N_NODES, N_NODES))
    return nbr, rays, mid


@nb.njit(cache=True)
def play_chunk(seed: np.uint64, first_game: int, n_games: int, icfg: np.ndarray,
               fcfg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play games ``first_game .. first_game + n_games - 1``; game ``g`` draws only from
    ``rng.game_stream(seed, g)``.  Returns ``(winners, length, reason)`` int64 arrays."""
    nbr, rays, mid = unpack_tables(icfg)
    keys = zobrist_keys()
    ws = new_workspace()
    pieces = np.empty(4, dtype=np.uint64)
    hist = np.empty(icfg[I_PLY_CAP] + 1, dtype=np.uint64)
    turn = np.empty(5, dtype=np.int64)
    winners = np.zeros(n_games, dtype=np.int64)
    length = np.zeros(n_games, dtype=np.int64)
    reason = np.zeros(n_games, dtype=np.int64)
    for g in range(n_games):
        st = rng.game_stream(np.uint64(seed), np.uint64(first_game + g))
        w, n, r = play_game(nbr, mid, rays, keys, icfg, st, ws, pieces, hist, turn)
        winners[g] = w
        length[g] = n
        reason[g] = r
    return winners, length, reason


# ------------------------------------------------------------------ configuration


def parse_policy(text: str) -> tuple[int, int]:
    """``(kind, depth)`` of a policy name; ``ValueError`` if unknown."""
    if not isinstance(text, str):
        raise ValueError(f"policy must be a string, got {text!r}")
    name = text.strip()
    if name == "random":
        return POLICY_RANDOM, 0
    if name == "greedy":
        return POLICY_GREEDY, 0
    if name.startswith("lookahead:"):
        arg = name.split(":", 1)[1]
        if not arg.isdigit() or not 1 <= int(arg) <= MAX_DEPTH:
            raise ValueError(
                f"bad lookahead depth {arg!r} in {name!r}: expected an integer 1..{MAX_DEPTH}"
            )
        return POLICY_LOOKAHEAD, int(arg)
    raise ValueError(
        f"unknown policy {name!r}: expected random, greedy or lookahead:D (1 <= D <= {MAX_DEPTH})"
    )


def make_config(options: dict) -> GameConfig:
    """Validate ``{"policies": [one for both seats, or two], "ply_cap": 400}``."""
    unknown = sorted(set(options) - {"policies", "ply_cap"})
    if unknown:
        raise ValueError(f"unknown tabula-trivium option(s): {', '.join(unknown)}")
    policies = options.get("policies", ["random"])
    if isinstance(policies, str):
        policies = [policies]
    policies = list(policies)
    if len(policies) not in (1, 2):
        raise ValueError(
            f"tabula-trivium needs 1 policy (both seats) or 2 (one per seat), got {len(policies)}"
        )
    if len(policies) == 1:
        policies = policies * 2
    parsed = [parse_policy(p) for p in policies]
    ply_cap = options.get("ply_cap", DEFAULT_PLY_CAP)
    if isinstance(ply_cap, bool) or not isinstance(ply_cap, (int, np.integer)) or ply_cap < 1:
        raise ValueError(f"ply_cap must be an integer >= 1, got {ply_cap!r}")
    t = tables()
    icfg = np.zeros(ICFG_SIZE, dtype=np.int64)
    icfg[I_PLY_CAP] = int(ply_cap)
    for seat, (kind, depth) in enumerate(parsed):
        icfg[I_KIND0 + 2 * seat] = kind
        icfg[I_DEPTH0 + 2 * seat] = depth
    icfg[I_INIT:I_INIT + 4] = initial_pieces()
    icfg[OFF_NBR:OFF_RAYS] = t.nbr.ravel()
    icfg[OFF_RAYS:OFF_MID] = t.rays.ravel()
    icfg[OFF_MID:ICFG_SIZE] = t.mid.ravel()
    names = tuple(p.strip() for p in policies)
    return GameConfig(
        n_seats=2,
        seat_policies=names,
        icfg=icfg,
        fcfg=np.zeros(0, dtype=np.float64),
        options={"policies": list(names), "ply_cap": int(ply_cap)},
    )


# ------------------------------------------------------------------ Python API


def _arr(pieces: Pieces) -> np.ndarray:
    return np.array([int(x) for x in pieces], dtype=np.uint64)


def _tup(arr: np.ndarray) -> Pieces:
    return tuple(int(x) for x in arr)


def legal_pawn_moves(pieces: Pieces, side: int) -> list[PawnMove]:
    """Legal pawn movements of ``side`` in list order."""
    t = tables()
    out = np.empty((MAX_PAWN_MOVES, 3), dtype=np.int64)
    n = pawn_moves(t.nbr, t.mid, _arr(pieces), side, out)
    return [tuple(int(v) for v in row) for row in out[:n]]


def legal_stone_moves(pieces: Pieces, side: int) -> list[StoneMove]:
    """Legal stone movements of ``side`` in list order."""
    out = np.empty((MAX_STONE_MOVES, 2), dtype=np.int64)
    n = stone_moves(tables().rays, _arr(pieces), side, out)
    return [tuple(int(v) for v in row) for row in out[:n]]


def play_pawn(pieces: Pieces, side: int, move: PawnMove) -> Pieces:
    """Pieces after a pawn movement of ``side`` (not validated)."""
    a = _arr(pieces)
    apply_pawn_move(a, side, *move)
    return _tup(a)


def play_stone(pieces: Pieces, side: int, move: StoneMove) -> Pieces:
    """Pieces after a stone movement of ``side`` (not validated)."""
    a = _arr(pieces)
    apply_stone_move(a, side, *move)
    return _tup(a)


def game_status(pieces: Pieces, side: int) -> tuple[int, int]:
    """``(winners, reason index)`` at the start of ``side``'s turn; ``(0, -1)``: goes on."""
    w, r = status(tables().nbr, _arr(pieces), side)
    return int(w), int(r)


def material_result(pieces: Pieces) -> tuple[int, int]:
    """``(winners, reason index)`` from material alone; ``(0, -1)`` when both have both."""
    w, r = material_status(_arr(pieces))
    return int(w), int(r)


@nb.njit(cache=True)
def _decide(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, pieces: np.ndarray, side: int,
            kind: int, depth: int, seed: int, game: int) -> tuple[np.ndarray, np.uint64]:
    st = rng.game_stream(np.uint64(seed), np.uint64(game))
    ws = new_workspace()
    out = np.empty(5, dtype=np.int64)
    choose_turn(nbr, mid, rays, pieces, side, kind, depth, st, ws, out)
    return out, rng.next_u64(st)


def decide(policy: str, pieces: Pieces, side: int, seed: int, game: int
           ) -> tuple[PawnMove, StoneMove | None, int]:
    """The turn ``policy`` plays from a position (``side`` must have a pawn movement),
    drawing from ``game_stream(seed, game)``, and the stream's next 64-bit output."""
    kind, depth = parse_policy(policy)
    t = tables()
    out, nxt = _decide(t.nbr, t.mid, t.rays, _arr(pieces), side, kind, depth, seed, game)
    pm = (int(out[0]), int(out[1]), int(out[2]))
    sm = None if out[3] < 0 else (int(out[3]), int(out[4]))
    return pm, sm, int(nxt)


def with_start(cfg: GameConfig, pieces: Pieces) -> GameConfig:
    """A copy of ``cfg`` whose games start from ``pieces`` (seat 0 to move), for
    studies of given positions and for tests."""
    values = [int(x) for x in pieces]
    if len(values) != 4 or any(v < 0 or v >> N_NODES for v in values):
        raise ValueError(f"start must be 4 bitboards of {N_NODES} bits, got {pieces!r}")
    if sum(v.bit_count() for v in values) != (values[0] | values[1] | values[2] | values[3]
                                             ).bit_count():
        raise ValueError("start has two pieces on one node")
    icfg = cfg.icfg.copy()
    icfg[I_INIT:I_INIT + 4] = values
    return GameConfig(cfg.n_seats, cfg.seat_policies, icfg, cfg.fcfg.copy(), dict(cfg.options))


def play_games(options: dict, seed: int, first_game: int, n_games: int,
               start: Pieces | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Convenience: :func:`play_chunk` with a configuration built from ``options``
    (games from ``start`` when given)."""
    cfg = make_config(options)
    if start is not None:
        cfg = with_start(cfg, start)
    return play_chunk(np.uint64(seed), np.int64(first_game), np.int64(n_games), cfg.icfg,
                      cfg.fcfg)


SPEC = GameSpec(
    name="tabula-trivium",
    end_reasons=END_REASONS,
    policies=POLICIES,
    make_config=make_config,
    play_chunk=play_chunk,
    reference_game=reference_game,
    draw_reasons=DRAW_REASONS,
)
