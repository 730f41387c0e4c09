"""Validated Trike games for the explorer: positions, moves and replays, sides 2..19.

Every request names a board side, an optional start position (the notation of
``trilab analyze --position``) and a list of moves (``row.col`` or ``swap``).
:func:`replay` checks each one and raises :class:`BadRequest` with one line
naming what is wrong; the server turns that into an HTTP 400.

Seats follow :mod:`trilab.analysis.trike.play`: seat 0 places the first
checker (colour ``b``); under the pie rule seat 1 may answer a one-checker
position with ``swap`` (it takes ``b``; the board does not change and seat 0,
now ``w``, moves next).
"""

from __future__ import annotations

from dataclasses import dataclass

from trilab.solver.trike import agents as trike_arrays
from trilab.solver.trike import engine as trike
from trilab.solver.trike.engine import TrikePosition

MIN_SIZE = trike_arrays.MIN_SIZE
MAX_SIZE = trike_arrays.MAX_SIZE
SWAP = "swap"


class BadRequest(ValueError):
    """A request the explorer refuses (HTTP 400), with a one-line reason."""


def parse_size(text: str | None) -> int:
    if text is None or text == "":
        raise BadRequest(f"give the board size: size={MIN_SIZE}..{MAX_SIZE}")
    text = text.strip()
    if not text.isdigit() or len(text) > 3:
        raise BadRequest(f"size {text!r} is not a whole number in {MIN_SIZE}..{MAX_SIZE}")
    size = int(text)
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise BadRequest(f"size {size} is not in {MIN_SIZE}..{MAX_SIZE}")
    return size


def parse_pos(text: str | None, size: int) -> TrikePosition | None:
    """The position ``text`` on a board of side ``size``; None for the empty board."""
    if text is None or text.strip() == "":
        return None
    if len(text) > 2 * trike_arrays.n_points(MAX_SIZE):
        raise BadRequest("position is too long")
    try:
        return trike.parse_position(text, size, max_size=MAX_SIZE)
    except trike.NotationError as e:
        raise BadRequest(f"bad position: {e}") from None


def legal_points(pos: TrikePosition) -> list[int]:
    """The pawn's destinations (engine order), for any side 2..19."""
    if pos.size <= trike.MAX_SIZE:
        return pos.legal_moves()
    return trike_arrays.legal_points(trike_arrays.from_position(pos, False))


def neighbours(size: int, point: int) -> list[int]:
    r, c = coords(size, point)
    out = []
    for dr, dc in trike.DIRECTIONS:
        if 0 <= c + dc <= r + dr < size:
            out.append(trike.point_index(r + dr, c + dc))
    return out


def coords(size: int, point: int) -> tuple[int, int]:
    """``(row, col)`` of a point index (any side)."""
    r = 0
    while trike.point_index(r + 1, 0) <= point:
        r += 1
    return r, point - trike.point_index(r, 0)


def scores(pos: TrikePosition) -> dict[str, int]:
    """Checkers of each colour on and around the pawn (the score of a finished game)."""
    cells = [pos.pawn, *neighbours(pos.size, pos.pawn)]
    return {"b": sum(pos.black >> p & 1 for p in cells),
            "w": sum(pos.white >> p & 1 for p in cells)}


def move_name(size: int, action: int | str) -> str:
    if action == SWAP:
        return SWAP
    r, c = coords(size, int(action))
    return f"{r}.{c}"


@dataclass
class Ply:
    """One position of a game: the board, who owns ``b``, and what may be played."""

    size: int
    pos: TrikePosition | None  # None: the empty board
    b_seat: int  # the seat owning colour b (1 after a swap)
    swapped: bool  # a swap has been played (it happens at most once)
    move: str | None  # the move that led here (None for the start)

    @property
    def notation(self) -> str:
        return "" if self.pos is None else self.pos.to_notation()

    @property
    def to_move(self) -> str:
        return "b" if self.pos is None else self.pos.to_move

    @property
    def seat_to_move(self) -> int:
        return self.b_seat if self.to_move == "b" else 1 - self.b_seat

    @property
    def swap_allowed(self) -> bool:
        return self.pos is not None and self.pos.checkers == 1 and not self.swapped

    def legal(self) -> list[int]:
        if self.pos is None:
            return list(range(trike_arrays.n_points(self.size)))
        return legal_points(self.pos)

    def to_json(self, details: bool = True) -> dict:
        out = {"pos": self.notation, "move": self.move, "to_move": self.to_move,
               "seat_to_move": self.seat_to_move, "b_seat": self.b_seat,
               "checkers": 0 if self.pos is None else self.pos.checkers}
        if details:
            legal = self.legal()
            out["legal"] = [list(coords(self.size, p)) for p in legal]
            out["swap_allowed"] = self.swap_allowed
            out["over"] = self.pos is not None and not legal
            if out["over"]:
                sc = scores(self.pos)
                winner = "b" if sc["b"] > sc["w"] else "w"
                out["score"] = sc
                out["winner"] = winner
                out["winner_seat"] = self.b_seat if winner == "b" else 1 - self.b_seat
        return out


def parse_move(text: str, ply: Ply, index: int | None = None) -> int | str:
    """The action of the move ``text`` (``row.col`` or ``swap``) in ``ply``."""
    where = "" if index is None else f"move {index + 1}: "
    text = text.strip().lower()
    if text == SWAP:
        if not ply.swap_allowed:
            raise BadRequest(f"{where}swap: the pie swap is only allowed as the answer "
                             "to the first checker, once")
        return SWAP
    parts = text.replace(",", ".").split(".")
    if len(parts) != 2 or not all(p.isdigit() and len(p) <= 2 for p in parts):
        raise BadRequest(f"{where}{text!r}: a move is row.col (for example 3.1) or swap")
    r, c = int(parts[0]), int(parts[1])
    size = ply.size
    if not 0 <= c <= r < size:
        raise BadRequest(f"{where}({r},{c}) is not on the board of side {size}: "
                         f"rows 0..{size - 1}, columns 0..row")
    p = trike.point_index(r, c)
    if ply.pos is not None and p not in ply.legal():
        if (ply.pos.black | ply.pos.white) >> p & 1:
            raise BadRequest(f"{where}({r},{c}): the point already holds a checker")
        if not ply.legal():
            raise BadRequest(f"{where}({r},{c}): the game is over, the pawn is trapped")
        raise BadRequest(f"{where}({r},{c}) cannot be reached: the pawn moves in a straight "
                         "line over empty points")
    return p


def play(ply: Ply, action: int | str) -> Ply:
    """The ply after ``action`` (already validated by :func:`parse_move`)."""
    name = move_name(ply.size, action)
    if action == SWAP:
        return Ply(ply.size, ply.pos, 1 - ply.b_seat, True, name)
    if ply.pos is None:
        return Ply(ply.size, trike.opening(ply.size, action), ply.b_seat, ply.swapped, name)
    return Ply(ply.size, ply.pos.play(action), ply.b_seat, ply.swapped, name)


def start(size: int, pos_text: str | None = None) -> Ply:
    """The first ply of a game (the empty board or a given position; seat 0 owns ``b``)."""
    return Ply(size, parse_pos(pos_text, size), 0, False, None)


def replay(size: int, start_text: str | None, moves_text: str | None) -> list[Ply]:
    """Every ply from ``start_text`` through the comma-separated ``moves_text``."""
    plies = [start(size, start_text)]
    if moves_text is None or moves_text.strip() == "":
        return plies
    moves = moves_text.split(",")
    if len(moves) > trike_arrays.n_points(size) + 1:
        raise BadRequest(f"{len(moves)} moves: a game of side {size} has at most "
                         f"{trike_arrays.n_points(size) + 1}")
    for i, text in enumerate(moves):
        plies.append(play(plies[-1], parse_move(text, plies[-1], i)))
    return plies
