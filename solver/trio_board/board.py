"""Trio (1917): the board geometry, the Fortress topologies and the setup.

Contract (the rules are stated in full in :mod:`trilab.solver.trio_board.rules`; this
module holds their board and setup part, **[choice]** marks a decision of
this project, see ``shared/RULES.md`` section 3):

* Board: a triangle of side :data:`SIDE` = 8 cut into 64 small triangles, minus
  the three corner triangles of side :data:`CUT` = 2 (4 cells each): 52 cells.
  Cell ``(r, k)`` is the ``k``-th triangle (from the left) of row ``r`` counted
  from the top (``0 <= k <= 2r``); even ``k`` points up, odd ``k`` points down.
  Cells are numbered 0..51 in that order (row by row, left to right) and the
  three Fortresses are the nodes 52, 53, 54 (:data:`FORT_BASE` + owner).
* Corners and seats **[choice]** (:data:`CORNER_NAMES`): seat 0 owns the top
  corner, seat 1 the bottom-left one, seat 2 the bottom-right one (turn order
  0, 1, 2 goes anticlockwise around the board).
* Bands: ``row_from[s]`` of a cell is its row counted from corner ``s`` (rows
  of cells parallel to the side opposite that corner, 1..8; rows 1 and 2 are
  the removed corner).  An up cell has ``sum(row_from) == 17``, a down cell 18.
  Two cells share a side exactly when one is up, the other down and their bands
  differ by one in one coordinate, so a cell has at most 3 neighbours.  Turning
  the board by a third, ``(a, b, c) -> (c, a, b)``, maps corner ``s`` to corner
  ``s + 1``.
* Zone of seat ``s``: the cells of rows 3 and 4 from corner ``s`` (5 + 7 cells);
  the three zones are disjoint and 16 central cells belong to none.
* Fortress adjacency **[choice]**, named option ``fortress`` (:data:`FORTRESS_OPTIONS`,
  default :data:`DEFAULT_FORTRESS`): ``sides`` = the Fortress touches the 2 cells
  of its row 3 that shared a side with the removed corner (the down-pointing
  ones, flat side towards the corner); ``row3`` = all 5 cells of its row 3 (the
  3 up cells touch the corner only at a point); ``general`` = the 2 side cells
  and the General's start cell.  A cell touches at most one Fortress.
* Setup: each seat has a General on the middle cell of its row 3 (the up cell
  whose two other bands are equal), 4 Officers on the rest of row 3 and 7
  Soldiers on its row 4.

The board is a :mod:`networkx` graph (:func:`board_graph`) so that other
Fortress readings can be plugged in; :func:`tables` compiles it to the numpy
tables the Numba engine receives as arguments.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import networkx as nx
import numpy as np

SIDE = 8
"""Side of the board triangle, in cells."""
CUT = 2
"""Side of each removed corner triangle (rows 1..CUT from a corner are removed)."""
N_SEATS = 3
N_CELLS = SIDE * SIDE - N_SEATS * CUT * CUT
FORT_BASE = N_CELLS
"""Node id of seat ``s``'s Fortress: ``FORT_BASE + s``."""
N_NODES = N_CELLS + N_SEATS
MAX_NEIGHBOURS = 3
UP_SUM = 2 * SIDE + 1
"""``sum(row_from)`` of an up cell (a down cell has ``UP_SUM + 1``)."""
ZONE_ROWS = (3, 4)
"""Rows (from the own corner) that form a seat's Zone."""
GENERAL_ROW = OFFICER_ROW = 3
SOLDIER_ROW = 4
CORNER_NAMES = ("top", "bottom-left", "bottom-right")
"""[choice] The corner of seat 0, 1, 2."""

FORTRESS_OPTIONS = ("sides", "row3", "general")
"""[choice] Readings of the Fortress adjacency (see the module docstring)."""
DEFAULT_FORTRESS = "sides"

EMPTY, SOLDIER, OFFICER, GENERAL = 0, 1, 2, 3
"""Piece kinds; the codes are ordered by value (General > Officer > Soldier)."""
KIND_NAMES = {SOLDIER: "soldier", OFFICER: "officer", GENERAL: "general"}
KIND_CODES = {v: k for k, v in KIND_NAMES.items()}
UNREACHABLE = 999
"""Distance of a node that cannot be reached (only other Fortresses)."""

Cell = int
"""A cell id 0..51 (row by row from the top, left to right)."""
Node = int
"""A cell id or a Fortress node ``FORT_BASE + owner``."""
Pieces = dict[int, tuple[int, str]]
"""A position's pieces: cell -> (seat, "general" | "officer" | "soldier")."""


def lattice_cells() -> list[tuple[int, int]]:
    """``(r, k)`` of the 52 playable cells, by cell id."""
    return [(r, k) for r in range(SIDE) for k in range(2 * r + 1)
            if min(bands(r, k)) > CUT]


def bands(r: int, k: int) -> tuple[int, int, int]:
    """``row_from`` (rows from the top, bottom-left, bottom-right corner) of cell ``(r, k)``."""
    j = k // 2
    if k % 2 == 0:  # up: vertices (r, j), (r+1, j), (r+1, j+1) of the point lattice
        return r + 1, SIDE - r + j, SIDE - j
    return r + 1, SIDE - r + j + 1, SIDE - j  # down: (r, j), (r, j+1), (r+1, j+1)


def vertices(r: int, k: int) -> list[tuple[float, float]]:
    """Corners of cell ``(r, k)`` in the plane (unit sides, apex at the origin, y up)."""
    j = k // 2
    pts = [(r, j), (r + 1, j), (r + 1, j + 1)] if k % 2 == 0 else [(r, j), (r, j + 1),
                                                                  (r + 1, j + 1)]
    h = math.sqrt(3) / 2
    return [(q - i / 2, -i * h) for i, q in pts]


def _lattice_neighbours(r: int, k: int) -> list[tuple[int, int]]:
    """Cells of the full triangle that share a side with ``(r, k)``."""
    out = [(r, k - 1), (r, k + 1)]
    out.append((r + 1, k + 1) if k % 2 == 0 else (r - 1, k - 1))
    return [(rr, kk) for rr, kk in out if 0 <= rr < SIDE and 0 <= kk <= 2 * rr]


@functools.cache
def board_graph(fortress: str = DEFAULT_FORTRESS) -> nx.Graph:
    """The board as an undirected graph.

    Cell nodes ``0..51`` have ``kind="cell"``, ``rc`` = ``(r, k)``, ``row_from``
    (tuple of 3 bands), ``up`` (bool), ``zone`` (seat or None), ``xy`` (centroid)
    and ``vertices``; Fortress nodes ``52 + s`` have ``kind="fortress"``,
    ``owner=s``, ``xy`` (centroid of the removed corner) and ``vertices`` (the
    removed corner's outline).  Edges carry ``contact``: ``"side"`` (shared side)
    or ``"point"`` (a Fortress touching a cell at a corner point only).
    """
    check_fortress(fortress)
    cells = lattice_cells()
    index = {rc: i for i, rc in enumerate(cells)}
    g = nx.Graph(fortress=fortress)
    for i, (r, k) in enumerate(cells):
        rf = bands(r, k)
        vs = vertices(r, k)
        zone = next((s for s in range(N_SEATS) if rf[s] in ZONE_ROWS), None)
        g.add_node(i, kind="cell", rc=(r, k), row_from=rf, up=k % 2 == 0, zone=zone,
                   xy=(sum(x for x, _ in vs) / 3, sum(y for _, y in vs) / 3), vertices=vs)
    for i, rc in enumerate(cells):
        for nb in _lattice_neighbours(*rc):
            if nb in index:
                g.add_edge(i, index[nb], contact="side")
    for s in range(N_SEATS):
        removed = [(r, k) for r in range(SIDE) for k in range(2 * r + 1) if bands(r, k)[s] <= CUT]
        outline = _corner_outline(s)
        g.add_node(FORT_BASE + s, kind="fortress", owner=s, vertices=outline,
                   xy=(sum(x for x, _ in outline) / 3, sum(y for _, y in outline) / 3))
        side_cells = {index[nb] for rc in removed for nb in _lattice_neighbours(*rc)
                      if nb in index}
        row3 = [i for i in range(N_CELLS) if g.nodes[i]["row_from"][s] == GENERAL_ROW]
        touching = {"sides": side_cells, "row3": set(row3),
                    "general": side_cells | {general_cell(g, s)}}[fortress]
        for i in sorted(touching):
            g.add_edge(FORT_BASE + s, i, contact="side" if i in side_cells else "point")
    return g


def _corner_outline(s: int) -> list[tuple[float, float]]:
    """The three corners of the removed triangle of corner ``s``."""
    h = math.sqrt(3) / 2
    apex = [(0, 0), (SIDE, 0), (SIDE, SIDE)][s]  # lattice (i, q) of the board corner
    pts = {0: [(0, 0), (CUT, 0), (CUT, CUT)],
           1: [(SIDE, 0), (SIDE - CUT, 0), (SIDE, CUT)],
           2: [(SIDE, SIDE), (SIDE - CUT, SIDE - CUT), (SIDE, SIDE - CUT)]}[s]
    assert pts[0] == apex
    return [(q - i / 2, -i * h) for i, q in pts]


def general_cell(g: nx.Graph, seat: int) -> Cell:
    """The middle cell of ``seat``'s row 3 (its General's start)."""
    for i in range(N_CELLS):
        rf = g.nodes[i]["row_from"]
        others = [rf[t] for t in range(N_SEATS) if t != seat]
        if rf[seat] == GENERAL_ROW and others[0] == others[1]:
            return i
    raise AssertionError("no middle cell")


def check_fortress(fortress: str) -> str:
    """``fortress`` if it is a known option; ``ValueError`` with one line otherwise."""
    if fortress not in FORTRESS_OPTIONS:
        raise ValueError(f"unknown fortress option {fortress!r}; choose one of "
                         f"{', '.join(FORTRESS_OPTIONS)}")
    return fortress


def fortress_neighbours(fortress: str, seat: int) -> list[Cell]:
    """Cells touching ``seat``'s Fortress under the ``fortress`` reading."""
    return sorted(board_graph(fortress).neighbors(FORT_BASE + seat))


def cell_neighbours(g: nx.Graph, cell: Cell) -> list[Cell]:
    """Cells sharing a side with ``cell`` (Fortresses excluded), ascending."""
    return sorted(n for n in g.neighbors(cell) if n < N_CELLS)


def initial_pieces() -> Pieces:
    """The setup: cell -> (seat, kind name) (a new dict)."""
    return dict(_initial_pieces())


@functools.cache
def _initial_pieces() -> Pieces:
    g = board_graph()
    out: Pieces = {}
    for s in range(N_SEATS):
        gen = general_cell(g, s)
        for i in range(N_CELLS):
            row = g.nodes[i]["row_from"][s]
            if i == gen:
                out[i] = (s, "general")
            elif row == OFFICER_ROW:
                out[i] = (s, "officer")
            elif row == SOLDIER_ROW:
                out[i] = (s, "soldier")
    return dict(sorted(out.items()))


def rotate(g: nx.Graph, cell: Cell) -> Cell:
    """The cell that ``cell`` becomes when the board turns corner ``s`` onto ``s + 1``."""
    a, b, c = g.nodes[cell]["row_from"]
    for i in range(N_CELLS):
        if g.nodes[i]["row_from"] == (c, a, b):
            return i
    raise AssertionError("not a symmetric board")


class TrioTables(NamedTuple):
    """The board compiled for the kernels (``int64``, -1 = none)."""

    nbr: np.ndarray  # [N_CELLS, 3]: cells sharing a side, ascending, -1 padded
    fort_of: np.ndarray  # [N_CELLS]: the seat whose Fortress this cell touches, or -1
    band: np.ndarray  # [N_CELLS, 3]: row_from (row counted from each corner)
    zone: np.ndarray  # [N_CELLS]: the seat whose Zone holds the cell, or -1
    dist: np.ndarray  # [3, N_NODES]: steps from Fortress s through cells (greedy's advance)
    nbr_mask: np.ndarray  # [N_CELLS]: bitboard (bit i = cell i) of the cells sharing a side
    fwd_mask: np.ndarray  # [3, N_CELLS]: the same without the backward steps of seat s
    init: np.ndarray  # [N_CELLS]: the setup as piece codes (seat << 2 | kind)


def piece_code(seat: int, kind: str) -> int:
    """The engine's code of a piece: ``seat << 2 | kind`` (0 = empty)."""
    return seat << 2 | KIND_CODES[kind]


def fortress_distances(g: nx.Graph) -> np.ndarray:
    """``dist[s, node]``: fewest steps from Fortress ``s`` to ``node`` through cells
    (entering the Fortress is the last step; other Fortresses are never crossed)."""
    dist = np.full((N_SEATS, N_NODES), UNREACHABLE, dtype=np.int64)
    cells_only = g.subgraph(range(N_CELLS))
    for s in range(N_SEATS):
        sub = nx.Graph(cells_only)
        sub.add_edges_from((FORT_BASE + s, n) for n in g.neighbors(FORT_BASE + s))
        for node, d in nx.single_source_shortest_path_length(sub, FORT_BASE + s).items():
            dist[s, node] = d
    return dist


@functools.cache
def tables(fortress: str = DEFAULT_FORTRESS) -> TrioTables:
    """Compile :func:`board_graph` of ``fortress`` to the engine's tables."""
    g = board_graph(fortress)
    nbr = np.full((N_CELLS, MAX_NEIGHBOURS), -1, dtype=np.int64)
    fort_of = np.full(N_CELLS, -1, dtype=np.int64)
    band = np.zeros((N_CELLS, N_SEATS), dtype=np.int64)
    zone = np.full(N_CELLS, -1, dtype=np.int64)
    for i in range(N_CELLS):
        ns = cell_neighbours(g, i)
        nbr[i, :len(ns)] = ns
        forts = [n - FORT_BASE for n in g.neighbors(i) if n >= FORT_BASE]
        assert len(forts) <= 1, "a cell touches at most one Fortress"
        if forts:
            fort_of[i] = forts[0]
        band[i] = g.nodes[i]["row_from"]
        if g.nodes[i]["zone"] is not None:
            zone[i] = g.nodes[i]["zone"]
    init = np.zeros(N_CELLS, dtype=np.int64)
    for cell, (seat, kind) in initial_pieces().items():
        init[cell] = piece_code(seat, kind)
    nbr_mask = np.zeros(N_CELLS, dtype=np.int64)
    fwd_mask = np.zeros((N_SEATS, N_CELLS), dtype=np.int64)
    for c in range(N_CELLS):
        for x in cell_neighbours(g, c):
            nbr_mask[c] |= 1 << x
            for s in range(N_SEATS):
                if band[x, s] >= band[c, s]:
                    fwd_mask[s, c] |= 1 << x
    out = TrioTables(nbr=nbr, fort_of=fort_of, band=band, zone=zone,
                     dist=fortress_distances(g), nbr_mask=nbr_mask, fwd_mask=fwd_mask, init=init)
    for t in out:
        t.setflags(write=False)
    return out

