"""Tabula Trivium position notation (``trilab move tabula-trivium --position ...``).

A position is written ``ROWS SIDE [PLY]``:

* ``ROWS``: the 7 rows of the board from ``r = -3`` to ``r = 3`` (4-5-6-7-6-5-4
  nodes), joined by ``/``, each row's nodes by ascending ``q`` (the node order of
  :mod:`trilab.solver.tabula_trivium.board`).  A node is ``.`` (empty), ``A`` (a pawn
  of seat 0, the first player), ``a`` (a stone of seat 0), ``B`` (a pawn of seat 1)
  or ``b`` (a stone of seat 1);
* ``SIDE``: the seat to move, ``A`` (seat 0) or ``B`` (seat 1);
* ``PLY`` (optional, default 0): the turns played so far, which the ply cap counts
  (``0 <= PLY < 400``, the default cap).  The repetition rule counts from the
  position given (no earlier history).

The setup is :data:`START`::

    aabb/aA.Bb/aA..Bb/aA...Bb/aA..Bb/aA.Bb/aabb A

Seats hold at most 5 pawns and 9 stones (the setup's counts).  Bad strings raise
:class:`NotationError` (a ``ValueError``) with a one-line message.
"""

from __future__ import annotations

from trilab.solver.tabula_trivium.board import (
    BOARD_SIDE,
    N_NODES,
    PAWNS_PER_SEAT,
    STONES_PER_SEAT,
    Pieces,
    axial_coords,
    initial_pieces,
)
from trilab.solver.tabula_trivium.rules import DEFAULT_PLY_CAP

SYMBOLS = "AaBb"
"""The symbol of each bitboard of :data:`Pieces` (seat-0 pawn, stone, seat-1 pawn, stone)."""
SIDES = "AB"


class NotationError(ValueError):
    """A string that is not a Tabula Trivium position (one-line message)."""


def _rows() -> list[list[int]]:
    rows: dict[int, list[int]] = {}
    for i, (_, r) in enumerate(axial_coords()):
        rows.setdefault(r, []).append(i)
    return [rows[r] for r in sorted(rows)]


ROW_LENGTHS = tuple(len(r) for r in _rows())


def format_position(pieces: Pieces, side: int = 0, ply: int = 0) -> str:
    """The notation of a position (``PLY`` written only when it is not 0)."""
    rows = []
    for row in _rows():
        cells = []
        for node in row:
            sym = "."
            for k in range(4):
                if (int(pieces[k]) >> node) & 1:
                    sym = SYMBOLS[k]
            cells.append(sym)
        rows.append("".join(cells))
    text = "/".join(rows) + " " + SIDES[side]
    return text + (f" {ply}" if ply else "")


def parse_position(text: str, ply_cap: int = DEFAULT_PLY_CAP) -> tuple[Pieces, int, int]:
    """``(pieces, side, ply)`` of a position in the notation; :class:`NotationError`
    with one line if ``text`` is not one."""
    if not isinstance(text, str):
        raise NotationError(f"a position is a string, got {type(text).__name__}")
    parts = text.split()
    form = "ROWS SIDE [PLY], e.g. " + START
    if len(parts) not in (2, 3):
        raise NotationError(f"position {text!r}: expected {form}")
    rows_text, side_text = parts[0], parts[1]
    rows = rows_text.split("/")
    if len(rows) != len(ROW_LENGTHS):
        raise NotationError(f"position {text!r}: {len(rows)} rows, expected "
                            f"{len(ROW_LENGTHS)} joined by '/' (lengths "
                            f"{'-'.join(map(str, ROW_LENGTHS))})")
    out = [0, 0, 0, 0]
    for i, (row, nodes) in enumerate(zip(rows, _rows())):
        if len(row) != len(nodes):
            raise NotationError(f"position {text!r}: row {i + 1} has {len(row)} nodes, "
                                f"expected {len(nodes)}")
        for ch, node in zip(row, nodes):
            if ch == ".":
                continue
            k = SYMBOLS.find(ch)
            if k < 0:
                raise NotationError(f"position {text!r}: bad node {ch!r} in row {i + 1} "
                                    "(use . A a B b)")
            out[k] |= 1 << node
    for seat in (0, 1):
        pawns, stones = out[2 * seat].bit_count(), out[2 * seat + 1].bit_count()
        if pawns > PAWNS_PER_SEAT or stones > STONES_PER_SEAT:
            raise NotationError(f"position {text!r}: seat {SIDES[seat]} has {pawns} pawns and "
                                f"{stones} stones (at most {PAWNS_PER_SEAT} and "
                                f"{STONES_PER_SEAT})")
    if side_text not in SIDES:
        raise NotationError(f"position {text!r}: the side to move must be A or B, "
                            f"got {side_text!r}")
    ply = 0
    if len(parts) == 3:
        if not (parts[2].isascii() and parts[2].isdigit()) or int(parts[2]) >= ply_cap:
            raise NotationError(f"position {text!r}: PLY must be an integer in "
                                f"0..{ply_cap - 1}, got {parts[2]!r}")
        ply = int(parts[2])
    return tuple(out), SIDES.index(side_text), ply


START = format_position(initial_pieces(), 0)
"""The setup, seat A (0) to move."""
assert N_NODES == sum(ROW_LENGTHS) and BOARD_SIDE == 4
