"""Analysis of one Trike position: its value and the value of every legal move.

Values come from the retrograde database of the size when one is given and
holds the position (and its children); otherwise from the alpha-beta solver.
All margins are from the view of the side to move at the analysed position.
:func:`analyze_trike` is the command ``trilab analyze trike``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from trilab.analysis.common import RESULTS, StudyError
from trilab.solver.trike import engine as trike
from trilab.solver.trike.alphabeta import AlphaBetaSolver
from trilab.solver.trike.engine import NotationError, TrikePosition, parse_position
from trilab.solver.trike.retrograde import DatabaseError, RetrogradeDatabase


@dataclass
class MoveValue:
    row: int
    col: int
    winner: str
    margin: int
    remoteness: int


@dataclass
class PositionReport:
    position: str
    to_move: str
    winner: str
    margin: int
    remoteness: int
    source: str
    moves: list[MoveValue] = field(default_factory=list)
    nodes: int = 0

    def to_json(self) -> dict:
        return {
            "position": self.position,
            "to_move": self.to_move,
            "winner": self.winner,
            "margin": self.margin,
            "remoteness": self.remoteness,
            "source": self.source,
            "moves": [m.__dict__ for m in self.moves],
        }


def _other(colour: str) -> str:
    return "w" if colour == "b" else "b"


def analyze(pos: TrikePosition, tt_mb: float = 256,
            database: RetrogradeDatabase | None = None) -> PositionReport:
    """Solve ``pos`` and each move from it (looked up in ``database`` when it holds them)."""
    children = [(d, pos.play(d)) for d in pos.legal_moves()]
    values = None
    source = "search"
    if database is not None:
        db = database
        if db.size == pos.size:
            found = [db.lookup(p) for p in [pos] + [c for _, c in children]]
            if all(f is not None for f in found):
                values = found
                source = "database"
    nodes = 0
    if values is None:
        solver = AlphaBetaSolver(pos.size, tt_mb=tt_mb)
        values = []
        for p in [pos] + [c for _, c in children]:
            values.append((solver.margin(p), solver.remoteness(p)))
        nodes = solver.nodes
    me = pos.to_move
    margin, rem = values[0]
    coords = trike.point_coords(pos.size)
    moves = []
    for (d, _), (cm, cr) in zip(children, values[1:]):
        r, c = coords[d]
        moves.append(MoveValue(r, c, me if cm < 0 else _other(me), -cm, cr + 1))
    moves.sort(key=lambda m: (-m.margin, m.remoteness if m.margin > 0 else -m.remoteness))
    return PositionReport(
        position=pos.to_notation(), to_move=me, winner=me if margin > 0 else _other(me),
        margin=margin, remoteness=rem, source=source, moves=moves, nodes=nodes,
    )


def format_report(rep: PositionReport) -> str:
    lines = [
        f"Position {rep.position}: {rep.to_move} to move",
        f"Winner {rep.winner}, margin {rep.margin:+d} for {rep.to_move}, "
        f"remoteness {rep.remoteness} (source: {rep.source})",
    ]
    if not rep.moves:
        lines.append("The pawn is trapped: the game is over.")
        return "\n".join(lines)
    lines.append(f"{'move':>8} {'winner':>6} {'margin':>6} {'remoteness':>10}")
    for m in rep.moves:
        lines.append(f"{f'({m.row},{m.col})':>8} {m.winner:>6} {m.margin:>+6d} {m.remoteness:>10}")
    return "\n".join(lines)


def analyze_trike(size: int, position: str, tt_mb: float = 256, db: str | Path | None = None):
    """The value of a Trike position and of each move (a ``PositionReport``)."""
    try:
        pos = parse_position(position, size)
    except NotationError as e:
        raise StudyError(str(e), "--position") from None
    path = Path(db) if db else RESULTS / "trike" / "db" / f"size-{size}.npz"
    if db and not path.exists():
        raise StudyError(f"no such database: {path}", "--db")
    database = None
    if path.exists():
        try:
            database = RetrogradeDatabase.load(path, size)
        except DatabaseError as e:
            raise StudyError(str(e), "--db") from None
    return analyze(pos, tt_mb=tt_mb, database=database)
