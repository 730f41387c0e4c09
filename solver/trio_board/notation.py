"""Trio (1917) board game position notation (``trilab move trio-board --position ...``).

A position is written ``ROWS SIDE [PLY]``:

* ``ROWS``: the board's rows from the top (triangle rows 2..7 of
  :mod:`trilab.solver.trio_board.board`; 5-7-9-11-11-9 cells, the corners cut
  away), joined by ``/``; within a row the cells from left to right (cell ids in
  order).  A cell is ``.`` (empty) or a piece: its kind ``G`` (General), ``O``
  (Officer) or ``S`` (Soldier) followed by its seat ``0``, ``1`` or ``2``
  (seat 0 owns the top corner, 1 the bottom-left, 2 the bottom-right);
* ``SIDE``: the seat to move, ``0``, ``1`` or ``2``;
* ``PLY`` (optional, default 0): the plies played so far, which the ply cap counts
  (``0 <= PLY <= 600``, the default cap).

The Fortress reading and the ``lost_general`` rule are options of the game, not
of the position (``--fortress``).  The setup is :data:`START`.  A seat holds at
most one General, 4 Officers and 9 Soldiers (the setup's counts).  Bad strings
raise :class:`NotationError` (a ``ValueError``) with a one-line message.
"""

from __future__ import annotations

import re

from trilab.solver.trio_board.board import (
    KIND_NAMES,
    N_CELLS,
    N_SEATS,
    Pieces,
    initial_pieces,
    lattice_cells,
)
from trilab.solver.trio_board.rules import DEFAULT_PLY_CAP

KIND_LETTERS = {"general": "G", "officer": "O", "soldier": "S"}
LETTER_KINDS = {v: k for k, v in KIND_LETTERS.items()}
TOKEN = re.compile(r"\.|[GOS][0-2]")
MOST = {"general": 1, "officer": 4, "soldier": 9}
"""The most pieces of a kind a seat can hold (the setup's counts)."""


class NotationError(ValueError):
    """A string that is not a Trio board position (one line)."""


def rows() -> list[list[int]]:
    """The cell ids of each row, from the top, left to right."""
    out: dict[int, list[int]] = {}
    for cell, (r, _k) in enumerate(lattice_cells()):
        out.setdefault(r, []).append(cell)
    return [out[r] for r in sorted(out)]


def format_position(pieces: Pieces, side: int, ply: int = 0) -> str:
    """The notation of a position (``PLY`` only when it is not 0)."""
    text = "/".join("".join(
        KIND_LETTERS[pieces[c][1]] + str(pieces[c][0]) if c in pieces else "." for c in row)
        for row in rows())
    return f"{text} {side}" + (f" {ply}" if ply else "")


def parse_position(text: str, ply_cap: int = DEFAULT_PLY_CAP) -> tuple[Pieces, int, int]:
    """``(pieces, side, ply)`` of a position in the notation."""
    fields = text.split()
    if len(fields) not in (2, 3):
        raise NotationError(f"a Trio board position is 'ROWS SIDE [PLY]', got {text!r}")
    board, side_text = fields[0], fields[1]
    if side_text not in ("0", "1", "2"):
        raise NotationError(f"the seat to move must be 0, 1 or 2, got {side_text!r}")
    ply = 0
    if len(fields) == 3:
        if not fields[2].isdigit() or int(fields[2]) > ply_cap:
            raise NotationError(f"the ply must be 0..{ply_cap}, got {fields[2]!r}")
        ply = int(fields[2])
    layout = rows()
    parts = board.split("/")
    if len(parts) != len(layout):
        raise NotationError(f"a Trio board has {len(layout)} rows joined by '/', "
                            f"got {len(parts)}")
    pieces: Pieces = {}
    counts = {(s, k): 0 for s in range(N_SEATS) for k in KIND_NAMES.values()}
    for n, (part, cells) in enumerate(zip(parts, layout), 1):
        tokens = TOKEN.findall(part)
        if "".join(tokens) != part:
            raise NotationError(f"row {n}: {part!r} holds something other than '.' or "
                                "a piece G/O/S followed by its seat 0-2")
        if len(tokens) != len(cells):
            raise NotationError(f"row {n} has {len(cells)} cells, got {len(tokens)}")
        for cell, token in zip(cells, tokens):
            if token != ".":
                seat, kind = int(token[1]), LETTER_KINDS[token[0]]
                pieces[cell] = (seat, kind)
                counts[(seat, kind)] += 1
    for (seat, kind), n in counts.items():
        if n > MOST[kind]:
            raise NotationError(f"seat {seat} has {n} {kind}s, at most {MOST[kind]}")
    assert all(0 <= c < N_CELLS for c in pieces)
    return pieces, int(side_text), ply


START = format_position(initial_pieces(), 0)
"""The setup, seat 0 to move."""
