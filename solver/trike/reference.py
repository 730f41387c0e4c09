"""Slow, obviously-correct pure-Python Trike rules and exhaustive minimax.

Used by the tests only, as the reference the Numba engine and the solvers are
checked against.  It shares no code with :mod:`trilab.solver.trike.engine`: points are
``(row, col)`` tuples, boards are dicts, and everything is recomputed from the
rules each time (see :mod:`trilab.solver.trike.engine` for the rules).
"""

from __future__ import annotations

import functools
import itertools

from trilab.solver.rng import PyRng

Cell = tuple[int, int]
DIRS: tuple[Cell, ...] = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1))


def on_board(size: int, cell: Cell) -> bool:
    r, c = cell
    return 0 <= c <= r < size


def neighbours(size: int, cell: Cell) -> list[Cell]:
    r, c = cell
    return [(r + dr, c + dc) for dr, dc in DIRS if on_board(size, (r + dr, c + dc))]


def legal_moves(size: int, board: dict[Cell, str], pawn: Cell) -> set[Cell]:
    """Cells the pawn can slide to: straight lines over empty cells."""
    out = set()
    for dr, dc in DIRS:
        r, c = pawn[0] + dr, pawn[1] + dc
        while on_board(size, (r, c)) and (r, c) not in board:
            out.add((r, c))
            r, c = r + dr, c + dc
    return out


def trapped(size: int, board: dict[Cell, str], pawn: Cell) -> bool:
    return all(n in board for n in neighbours(size, pawn))


def to_move(board: dict[Cell, str]) -> str:
    nb = sum(1 for v in board.values() if v == "b")
    nw = sum(1 for v in board.values() if v == "w")
    return "b" if nb == nw else "w"


def scores(size: int, board: dict[Cell, str], pawn: Cell) -> dict[str, int]:
    """Each colour's checkers on the pawn's cell or adjacent to it."""
    cells = [pawn, *neighbours(size, pawn)]
    return {col: sum(1 for x in cells if board.get(x) == col) for col in "bw"}


def margin_for_mover(size: int, board: dict[Cell, str], pawn: Cell) -> int:
    s = scores(size, board, pawn)
    me = to_move(board)
    other = "w" if me == "b" else "b"
    return s[me] - s[other]


def play(board: dict[Cell, str], dest: Cell) -> dict[Cell, str]:
    nb = dict(board)
    nb[dest] = to_move(board)
    return nb


def symmetries(size: int) -> list[dict[Cell, Cell]]:
    """The six symmetries as cell maps, via barycentric coordinates."""
    cells = [(r, c) for r in range(size) for c in range(r + 1)]
    maps = []
    for perm in itertools.permutations(range(3)):
        m = {}
        for r, c in cells:
            bary = (c, r - c, size - 1 - r)
            a, _, e = bary[perm[0]], bary[perm[1]], bary[perm[2]]
            m[(r, c)] = (size - 1 - e, a)
        maps.append(m)
    return maps


def minimax(size: int, board: dict[Cell, str], pawn: Cell) -> tuple[int, int, int]:
    """Exhaustive minimax without pruning (memoised on the exact position).

    Returns ``(margin, remoteness, winning_moves)`` for the side to move:
    the margin maximised by both sides, remoteness with the winner hurrying
    and the loser delaying, and the number of moves to a lost child.
    """
    key = (size, tuple(sorted(board.items())), pawn)
    return _minimax(key)


@functools.cache
def _minimax(key) -> tuple[int, int, int]:
    size, items, pawn = key
    board = dict(items)
    moves = legal_moves(size, board, pawn)
    if not moves:
        return margin_for_mover(size, board, pawn), 0, 0
    children = []
    for dest in sorted(moves):
        child = play(board, dest)
        children.append(_minimax((size, tuple(sorted(child.items())), dest)))
    margin = max(-m for m, _, _ in children)
    winning = [r for m, r, _ in children if m < 0]
    if winning:
        remoteness = 1 + min(winning)
    else:
        remoteness = 1 + max(r for _, r, _ in children)
    return margin, remoteness, len(winning)


def point_of(cell: Cell) -> int:
    """The point index ``row*(row+1)/2 + col`` (the engine's numbering)."""
    r, c = cell
    return r * (r + 1) // 2 + c


def seeded_game(size: int, seed: int, game: int) -> tuple[list[int], int]:
    """The game of :func:`trilab.solver.trike.engine.seeded_game`, played by these rules:
    opening on cell number ``below(cells)`` in row-major order, then each move
    ``below(len(moves))`` from the legal cells sorted by point index.  Returns
    the point indices played and the final margin for ``b``."""

    stream = PyRng(seed, game)
    cells = [(r, c) for r in range(size) for c in range(r + 1)]
    pawn = cells[stream.below(len(cells))]
    board = {pawn: "b"}
    played = [point_of(pawn)]
    while not trapped(size, board, pawn):
        moves = sorted(legal_moves(size, board, pawn), key=point_of)
        pawn = moves[stream.below(len(moves))]
        board = play(board, pawn)
        played.append(point_of(pawn))
    s = scores(size, board, pawn)
    return played, s["b"] - s["w"]
