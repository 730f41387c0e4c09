"""Tabula Trivium: the board geometry, the setup and the bounds on move lists.

Contract (the rules are stated in full in :mod:`trilab.solver.tabula_trivium.game`; this
module holds their board and setup part, **[choice]** marks a decision of this
project):

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
  second-ring nodes (:func:`setup_nodes`, :func:`initial_pieces`).  The
  centre, the 6 innermost nodes and the 2 second-ring nodes on the split line
  start empty (9 empty nodes).

A position is four bitboards (bit ``i`` = node ``i``), :data:`Pieces`: seat-0
pawns, seat-0 stones, seat-1 pawns, seat-1 stones.  :data:`MAX_PAWN_MOVES`,
:data:`MAX_STONE_MOVES` and :data:`MAX_TURNS` bound the move lists of any
position (any piece counts), so that the kernels' buffers never overflow.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import networkx as nx
import numpy as np

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

Node = int
"""A node index (row by row, ``r`` then ``q`` ascending)."""
PawnMove = tuple[int, int, int]
"""``(from, to, captured node or -1)``."""
StoneMove = tuple[int, int]
"""``(from, to)``."""
Pieces = tuple[int, int, int, int]
"""Bitboards: seat-0 pawns, seat-0 stones, seat-1 pawns, seat-1 stones."""


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
