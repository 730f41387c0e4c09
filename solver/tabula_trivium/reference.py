"""Slow, obviously-correct pure-Python Tabula Trivium: rules, policies, whole games.

The reference the Numba engine (:mod:`trilab.solver.tabula_trivium.game`, whose docstring
states the rules; the policies are stated in :mod:`trilab.solver.tabula_trivium.policies`)
is checked against.  It shares no code with the engine except
:class:`trilab.solver.rng.PyRng` and :func:`trilab.solver.rng.py_digest_step`: the board
is built here from
"doubled" coordinates ``(x, y)`` (``y`` the row, ``x`` twice the pixel
abscissa, neighbours at ``(+-2, 0)`` and ``(+-1, +-1)``), positions are dicts
``cell -> (seat, "pawn" | "stone")``, and everything is recomputed from the
rules each time.  Nodes are numbered like the engine's: by row ``y``, then by
``x``.

Move digest: a game folds, with :func:`trilab.solver.rng.py_digest_step` from 0, the
code of every turn it plays (:func:`turn_code`: ``(((pf * 64 + pt) * 64 + pc +
1) * 64 + sf + 1) * 64 + st + 1`` on node indexes, ``pc``, ``sf`` and ``st``
being -1 for no capture / no stone movement), in the order played.
"""

from __future__ import annotations

from trilab.solver.rng import PyRng, py_digest_step

Cell = tuple[int, int]
Board = dict[Cell, tuple[int, str]]
PawnMove = tuple[Cell, Cell, Cell | None]
StoneMove = tuple[Cell, Cell]

RADIUS = 3  # hexagon of side 4
DIRS: tuple[Cell, ...] = ((2, 0), (-2, 0), (1, 1), (-1, -1), (1, -1), (-1, 1))
CELLS: list[Cell] = sorted(
    ((x, y) for y in range(-RADIUS, RADIUS + 1) for x in range(-2 * RADIUS, 2 * RADIUS + 1)
     if (x + y) % 2 == 0 and abs(x) + abs(y) <= 2 * RADIUS),
    key=lambda c: (c[1], c[0]),
)
INDEX: dict[Cell, int] = {c: i for i, c in enumerate(CELLS)}
SEAT0_SIDE = -1  # seat 0 owns the cells with x < 0

END_REASONS = ("no stones", "no pawns", "pawns blocked", "ply cap", "repetition")
NO_STONES, NO_PAWNS, BLOCKED, PLY_CAP, REPETITION = range(5)
DEFAULT_PLY_CAP = 400
REPETITION_LIMIT = 3
PAWN_VALUE = 100
STONE_VALUE = 60
MOBILITY_VALUE = 2
WIN_SCORE = 1_000_000
CODE_BASE = 64  # radix of the turn codes


def on_board(c: Cell) -> bool:
    return c in INDEX


def step(c: Cell, d: Cell, k: int = 1) -> Cell:
    return (c[0] + k * d[0], c[1] + k * d[1])


def ring(c: Cell) -> int:
    x, y = c
    return max(abs(y), (abs(x) + abs(y)) // 2)


def neighbours(c: Cell) -> list[Cell]:
    return [step(c, d) for d in DIRS if on_board(step(c, d))]


def initial_board() -> Board:
    board: Board = {}
    for c in CELLS:
        if c[0] == 0:
            continue
        seat = 0 if (c[0] < 0) == (SEAT0_SIDE < 0) else 1
        if ring(c) == RADIUS:
            board[c] = (seat, "stone")
        elif ring(c) == RADIUS - 1:
            board[c] = (seat, "pawn")
    return board


def order(moves):
    return sorted(moves, key=lambda m: (INDEX[m[0]], INDEX[m[1]]))


def pawn_moves(board: Board, seat: int) -> list[PawnMove]:
    """Steps of 1 or 2 over empty cells, or a jump capturing the adjacent piece."""
    moves = []
    for c, (s, kind) in board.items():
        if s != seat or kind != "pawn":
            continue
        for d in DIRS:
            one, two = step(c, d), step(c, d, 2)
            if not on_board(one):
                continue
            if one not in board:
                moves.append((c, one, None))
                if on_board(two) and two not in board:
                    moves.append((c, two, None))
            elif on_board(two) and two not in board:
                moves.append((c, two, one))
    return order(moves)


def stone_moves(board: Board, seat: int) -> list[StoneMove]:
    """Any number of steps in a straight line over empty cells."""
    moves = []
    for c, (s, kind) in board.items():
        if s != seat or kind != "stone":
            continue
        for d in DIRS:
            k = 1
            while on_board(step(c, d, k)) and step(c, d, k) not in board:
                moves.append((c, step(c, d, k)))
                k += 1
    return order(moves)


def play_pawn(board: Board, move: PawnMove) -> Board:
    src, dst, captured = move
    out = dict(board)
    out[dst] = out.pop(src)
    if captured is not None:
        del out[captured]
    return out


def play_stone(board: Board, move: StoneMove) -> Board:
    src, dst = move
    out = dict(board)
    out[dst] = out.pop(src)
    return out


def count(board: Board, seat: int, kind: str) -> int:
    return sum(1 for v in board.values() if v == (seat, kind))


def material_result(board: Board) -> tuple[int, int] | None:
    """``(winners bitmask, reason)`` when a seat is out of stones or pawns (seat 0 first,
    stones before pawns), else ``None``."""
    for seat in (0, 1):
        if count(board, seat, "stone") == 0:
            return 1 << (1 - seat), NO_STONES
        if count(board, seat, "pawn") == 0:
            return 1 << (1 - seat), NO_PAWNS
    return None


def status(board: Board, side: int) -> tuple[int, int] | None:
    """Result at the start of ``side``'s turn, or ``None`` when the game goes on."""
    res = material_result(board)
    if res is not None:
        return res
    if not pawn_moves(board, side):
        return 1 << (1 - side), BLOCKED
    return None


def full_turns(board: Board, seat: int, pawn_list: list[PawnMove]):
    """``(pawn move, stone move or None, board after)`` for each pawn move in order."""
    out = []
    for pm in pawn_list:
        after = play_pawn(board, pm)
        stones = [] if material_result(after) is not None else stone_moves(after, seat)
        if not stones:
            out.append((pm, None, after))
        for sm in stones:
            out.append((pm, sm, play_stone(after, sm)))
    return out


# ------------------------------------------------------------------ policies


def random_turn(board: Board, seat: int, rng: PyRng):
    pawns = pawn_moves(board, seat)
    pm = pawns[rng.below(len(pawns))]
    after = play_pawn(board, pm)
    if material_result(after) is not None:
        return pm, None
    stones = stone_moves(after, seat)
    if not stones:
        return pm, None
    return pm, stones[rng.below(len(stones))]


def opponent_can_capture(board: Board, seat: int) -> bool:
    """Whether the opponent of ``seat`` has a jump over a piece of ``seat``."""
    return any(
        cap is not None and board[cap][0] == seat for _, _, cap in pawn_moves(board, 1 - seat)
    )


def greedy_turn(board: Board, seat: int, rng: PyRng):
    pawns = pawn_moves(board, seat)
    opp = 1 - seat

    def category(pm: PawnMove) -> int:
        cap = pm[2]
        if cap is None:
            return 1
        owner, kind = board[cap]
        if owner == seat:
            return 0
        return 3 if count(board, opp, kind) == 1 else 2

    best_cat = max(category(pm) for pm in pawns)
    chosen = [pm for pm in pawns if category(pm) == best_cat]
    classed = []
    for pm, sm, after in full_turns(board, seat, chosen):
        res = material_result(after)
        if res is not None:
            cls = 3 if res[0] == 1 << seat else 0
        elif not pawn_moves(after, opp):
            cls = 3
        elif opponent_can_capture(after, seat):
            cls = 1
        else:
            cls = 2
        classed.append((cls, pm, sm))
    top = max(cls for cls, _, _ in classed)
    best = [(pm, sm) for cls, pm, sm in classed if cls == top]
    return best[rng.below(len(best))]


def evaluate(board: Board, side: int) -> int:
    opp = 1 - side
    return (
        PAWN_VALUE * (count(board, side, "pawn") - count(board, opp, "pawn"))
        + STONE_VALUE * (count(board, side, "stone") - count(board, opp, "stone"))
        + MOBILITY_VALUE * (len(pawn_moves(board, side)) - len(pawn_moves(board, opp)))
    )


def negamax(board: Board, side: int, depth: int, dist: int) -> int:
    """Plain negamax (no pruning) for ``side`` to move, ``dist`` turns below the root."""
    if not pawn_moves(board, side):
        return -(WIN_SCORE - dist)
    if depth == 0:
        return evaluate(board, side)
    return max(turn_value(board, side, pm, sm, depth, dist) for pm, sm, _ in
               full_turns(board, side, pawn_moves(board, side)))


def turn_value(board: Board, side: int, pm, sm, depth: int, dist: int) -> int:
    """Value for ``side`` of playing ``(pm, sm)`` then searching ``depth - 1`` turns."""
    after = play_pawn(board, pm)
    res = material_result(after)
    if res is not None:
        score = WIN_SCORE - (dist + 1)
        return score if res[0] == 1 << side else -score
    if sm is not None:
        after = play_stone(after, sm)
    return -negamax(after, 1 - side, depth - 1, dist + 1)


def lookahead_turn(board: Board, seat: int, depth: int, rng: PyRng):
    turns = [(pm, sm) for pm, sm, _ in full_turns(board, seat, pawn_moves(board, seat))]
    for i in range(len(turns) - 1, 0, -1):
        j = rng.below(i + 1)
        turns[i], turns[j] = turns[j], turns[i]
    values = [turn_value(board, seat, pm, sm, depth, 0) for pm, sm in turns]
    return turns[values.index(max(values))]


def parse_policy(text: str) -> tuple[str, int]:
    if text in ("random", "greedy"):
        return text, 0
    name, _, depth = text.partition(":")
    if name == "lookahead" and depth.isdigit() and int(depth) >= 1:
        return name, int(depth)
    raise ValueError(f"unknown policy {text!r}")


def choose_turn(policy: str, board: Board, seat: int, rng: PyRng):
    """``(pawn move, stone move or None)`` chosen by ``policy``."""
    name, depth = parse_policy(policy)
    if name == "random":
        return random_turn(board, seat, rng)
    if name == "greedy":
        return greedy_turn(board, seat, rng)
    return lookahead_turn(board, seat, depth, rng)


# ------------------------------------------------------------------ games


def turn_code(pm: PawnMove, sm: StoneMove | None) -> int:
    """The move code of the turn ``(pm, sm)`` (module docstring)."""
    pc = -1 if pm[2] is None else INDEX[pm[2]]
    sf, st = (-1, -1) if sm is None else (INDEX[sm[0]], INDEX[sm[1]])
    digits = (INDEX[pm[0]], INDEX[pm[1]], pc + 1, sf + 1, st + 1)
    code = 0
    for d in digits:
        code = code * CODE_BASE + d
    return code


def position_key(board: Board, side: int):
    return tuple(sorted(board.items())), side


def reference_game(seed: int, game_index: int, options: dict) -> tuple[int, int, int, int]:
    """Play one game from the initial position; ``(winners bitmask, plies, reason,
    move digest)``."""
    policies = list(options.get("policies", ["random"]))
    if len(policies) == 1:
        policies *= 2
    ply_cap = options.get("ply_cap", DEFAULT_PLY_CAP)
    return play_game(seed, game_index, policies, ply_cap, initial_board())


def play_game(seed: int, game_index: int, policies: list[str], ply_cap: int,
              board: Board) -> tuple[int, int, int, int]:
    """Play one game from ``board`` with seat 0 to move, drawing from
    ``PyRng(seed, game_index)``; ``(winners bitmask, plies, reason, move digest)``."""
    rng = PyRng(seed, game_index)
    side = 0
    ply = 0
    digest = 0
    seen = {position_key(board, side): 1}
    while True:
        if not pawn_moves(board, side):
            return 1 << (1 - side), ply, BLOCKED, digest
        if ply >= ply_cap:
            return 0, ply, PLY_CAP, digest
        pm, sm = choose_turn(policies[side], board, side, rng)
        digest = py_digest_step(digest, turn_code(pm, sm))
        board = play_pawn(board, pm)
        ply += 1
        res = material_result(board)
        if res is not None:
            return res[0], ply, res[1], digest
        if sm is not None:
            board = play_stone(board, sm)
        side = 1 - side
        key = position_key(board, side)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] >= REPETITION_LIMIT:
            return 0, ply, REPETITION, digest
