"""Slow, obviously-correct pure-Python Trio board game (rules and policies).

The reference the Numba engine of :mod:`trilab.solver.trio_board.rules` is checked
against; the rules, the policies and every [choice] are stated there.  It
shares no code with the engine except :class:`trilab.solver.rng.PyRng` and the cell
ids of :func:`trilab.solver.trio_board.board.board_graph` (read from each cell's
``row_from``, so that both list moves in the same order).  Its own geometry:
a cell *is* its band triple ``(a, b, c)`` (rows from the top, bottom-left and
bottom-right corner; 3 <= each <= 8, sum 17 for an up cell and 18 for a down
cell); two cells share a side when their triples differ by one in exactly one
coordinate; the Fortress of corner ``s`` touches row 3 of that corner as the
RULES text reads it.  A position is a dict cell id -> ``(seat, kind name)``;
a move is ``(from, to)`` with ``to`` a cell id or ``52 + owner`` for a Fortress;
moves are found by walking every path and collected in a set.

Move digest: from 0, each ply folds with :func:`trilab.solver.rng.py_digest_step`
``from * 55 + to`` for a move or ``55 * 55`` for a pass (the engine's codes,
written here again).
"""

from __future__ import annotations

import functools
from collections import deque

from trilab.solver.rng import PyRng, py_digest_step

REASONS = ["fortress", "no generals", "ply cap"]
VALUE = {"soldier": 1, "officer": 2, "general": 3}
TOPOLOGIES = ("sides", "row3", "general")
FORTRESS_ID = 52  # + owner
NODES = 55
PASS = NODES * NODES


class Geometry:
    """The board of one Fortress reading, built from band triples."""

    def __init__(self, fortress: str):
        from trilab.solver.trio_board.board import board_graph  # ids only

        g = board_graph("sides")
        self.triple = {n: tuple(a["row_from"]) for n, a in g.nodes(data=True)
                       if a["kind"] == "cell"}
        self.id = {t: n for n, t in self.triple.items()}
        assert sorted(self.id) == sorted(
            (a, b, c) for a in range(3, 9) for b in range(3, 9) for c in range(3, 9)
            if a + b + c in (17, 18))
        self.nbrs: dict[int, list[int]] = {}
        for n, t in self.triple.items():
            step = -1 if sum(t) == 18 else 1
            out = []
            for s in range(3):
                u = list(t)
                u[s] += step
                if tuple(u) in self.id:
                    out.append(self.id[tuple(u)])
            self.nbrs[n] = sorted(out)
        self.touches: dict[int, set[int]] = {}  # Fortress owner -> cells
        for s in range(3):
            row3 = {n for n, t in self.triple.items() if t[s] == 3}
            flat = {n for n in row3 if sum(self.triple[n]) == 18}  # down: a side to the corner
            middle = {n for n in row3 if sum(self.triple[n]) == 17
                      and len({self.triple[n][o] for o in range(3) if o != s}) == 1}
            self.touches[s] = {"sides": flat, "row3": row3, "general": flat | middle}[fortress]
        self.dist = {s: self._bfs(s) for s in range(3)}

    def _bfs(self, s: int) -> dict[int, int]:
        dist = {n: 1 for n in self.touches[s]}
        todo = deque(sorted(dist))
        while todo:
            n = todo.popleft()
            for m in self.nbrs[n]:
                if m not in dist:
                    dist[m] = dist[n] + 1
                    todo.append(m)
        return dist

    def backwards(self, seat: int, a: int, b: int) -> bool:
        return self.triple[b][seat] < self.triple[a][seat]

    def zone(self, cell: int) -> int | None:
        for s in range(3):
            if self.triple[cell][s] in (3, 4):
                return s
        return None

    def fortresses_at(self, cell: int) -> list[int]:
        return [s for s in range(3) if cell in self.touches[s]]


@functools.cache
def geometry(fortress: str) -> Geometry:
    return Geometry(fortress)


def legal_moves(pieces: dict, seat: int, fortress: str = "sides") -> list[tuple[int, int]]:
    """Every legal ``(from, to)`` of ``seat``, sorted."""
    geo = geometry(fortress)

    def empty(x):
        return x not in pieces

    def enemy(x):
        return x in pieces and pieces[x][0] != seat

    def lands(x):
        return empty(x) or enemy(x)

    moves = set()
    for c, (s, kind) in pieces.items():
        if s != seat:
            continue
        if kind == "soldier":
            for x in geo.nbrs[c]:
                if not geo.backwards(seat, c, x) and lands(x):
                    moves.add((c, x))
        elif kind == "officer":
            restricted = geo.zone(c) == seat

            def allowed(a, b, restricted=restricted):
                return not (restricted and geo.backwards(seat, a, b))

            for m in geo.nbrs[c]:
                if not allowed(c, m):
                    continue
                if enemy(m):
                    moves.add((c, m))
                if empty(m):
                    for x in geo.nbrs[m]:
                        if x != c and allowed(m, x) and lands(x):
                            moves.add((c, x))
        else:  # general

            def ends(cell):
                out = {FORTRESS_ID + f for f in geo.fortresses_at(cell) if f != seat}
                return out | {x for x in geo.nbrs[cell] if lands(x)}

            first = ends(c)
            moves |= {(c, x) for x in first}
            for m in geo.nbrs[c]:
                if empty(m):
                    moves |= {(c, x) for x in ends(m) if x != c}
    return sorted(moves)


def after_move(pieces: dict, move: tuple[int, int], lost_general: str = "keep"
               ) -> tuple[dict, int]:
    """``(pieces after move, end reason index or -1)``."""
    a, b = move
    out = dict(pieces)
    seat, kind = out.pop(a)
    if b >= FORTRESS_ID:
        return out, REASONS.index("fortress")
    victim = out.get(b)
    out[b] = (seat, kind)
    if victim is not None and victim[1] == "general":
        if lost_general == "remove":
            out = {c: p for c, p in out.items() if p[0] != victim[0]}
        if not any(k == "general" for _, k in out.values()):
            return out, REASONS.index("no generals")
    return out, -1


def pick(rng: PyRng, options: list):
    """The only option, or one drawn with ``below``."""
    if len(options) == 1:
        return options[0]
    return options[rng.below(len(options))]


def choose(policy: str, pieces: dict, seat: int, moves: list, rng: PyRng, fortress: str):
    """The move ``policy`` plays among ``moves`` (non-empty, sorted)."""
    if policy == "random":
        return pick(rng, moves)
    wins = [m for m in moves if m[1] >= FORTRESS_ID]
    if wins:
        return pick(rng, wins)
    captures = [m for m in moves if m[1] in pieces]
    if captures:
        top = max(VALUE[pieces[m[1]][1]] for m in captures)
        return pick(rng, [m for m in captures if VALUE[pieces[m[1]][1]] == top])
    dist = geometry(fortress).dist

    def advance(m):
        a, b = m
        if pieces[a][1] == "general":
            opps = [o for o in range(3) if o != seat]
            return min(dist[o][a] for o in opps) - min(dist[o][b] for o in opps)
        return dist[seat][b] - dist[seat][a]

    top = max(advance(m) for m in moves)
    return pick(rng, [m for m in moves if advance(m) == top])


def setup() -> dict:
    """General on the middle of row 3 (other two bands equal), Officers on the rest of
    row 3, Soldiers on row 4, for each corner."""
    geo = geometry("sides")
    out = {}
    for n, t in geo.triple.items():
        for s in range(3):
            others = [t[o] for o in range(3) if o != s]
            if t[s] == 3:
                out[n] = (s, "general" if others[0] == others[1] else "officer")
            elif t[s] == 4:
                out[n] = (s, "soldier")
    return out


def has_general(pieces: dict, seat: int) -> bool:
    return (seat, "general") in pieces.values()


def reference_game(seed: int, game_index: int, options: dict,
                   start: tuple[dict, int] | None = None) -> tuple[int, int, int, int]:
    """One game: ``(winners, plies, reason index, digest)``."""
    fortress = options.get("fortress", "sides")
    assert fortress in TOPOLOGIES
    policies = list(options.get("policies", ["random"]))
    if len(policies) == 1:
        policies *= 3
    cap = options.get("ply_cap", 600)
    lost = options.get("lost_general", "keep")
    rng = PyRng(seed, game_index)
    pieces, side = (dict(start[0]), start[1]) if start else (setup(), 0)
    if lost == "remove":
        pieces = {c: p for c, p in pieces.items() if has_general(pieces, p[0])}
    ply, digest = 0, 0
    if not any(k == "general" for _, k in pieces.values()):
        return 0, 0, REASONS.index("no generals"), 0
    while True:
        if lost == "remove" and not has_general(pieces, side):
            side = (side + 1) % 3
            continue
        if ply >= cap:
            return 0, ply, REASONS.index("ply cap"), digest
        moves = legal_moves(pieces, side, fortress)
        ply += 1
        if not moves:
            digest = py_digest_step(digest, PASS)
            side = (side + 1) % 3
            continue
        move = choose(policies[side].strip(), pieces, side, moves, rng, fortress)
        digest = py_digest_step(digest, move[0] * NODES + move[1])
        pieces, result = after_move(pieces, move, lost)
        if result == REASONS.index("fortress"):
            return 1 << side, ply, result, digest
        if result >= 0:
            return 0, ply, result, digest
        side = (side + 1) % 3
