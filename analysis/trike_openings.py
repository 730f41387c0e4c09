"""The Trike opening study: who wins each first placement, by how much, how fast.

For a board size, every opening point is solved (one representative per
symmetry class, the rest copied) for the player to move after the opening
(the *mover*; the first player is the *placer*).  The table has one row per
point; the summary answers the pie-rule questions:

* Without the pie rule the first player wins iff some opening wins for the
  placer.
* With the pie rule the second player swaps exactly on the openings that win
  for the placer, so the second player always wins; the first player's best
  openings are those with the smallest winning margin for the second player.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from solver import retrograde, trike
from solver.alphabeta import AlphaBetaSolver, warm_up

METHODS = ("alphabeta", "retrograde")
COLUMNS = ["point", "row", "col", "symmetry_class", "winner", "margin", "remoteness",
           "winning_replies", "nodes", "seconds"]

_SOLVERS: dict[tuple[int, float], AlphaBetaSolver] = {}


def _solver(size: int, tt_mb: float) -> AlphaBetaSolver:
    """One solver (and so one transposition table) per size in this process."""
    key = (size, tt_mb)
    if key not in _SOLVERS:
        _SOLVERS.clear()  # free the previous table before allocating a new one
        _SOLVERS[key] = AlphaBetaSolver(size, tt_mb=tt_mb)
    return _SOLVERS[key]


def solve_opening_alphabeta(size: int, point: int, tt_mb: float = 1024) -> dict:
    """Solve the opening on ``point``; values for the placer, as a table row."""
    s = _solver(size, tt_mb)
    sol = s.solve_position(trike.opening(size, point))
    return {
        "winner": "mover" if sol.win else "placer",
        "margin": -sol.margin,
        "remoteness": sol.remoteness,
        "winning_replies": sol.winning_moves,
        "nodes": sol.nodes,
        "seconds": round(sol.seconds, 4),
    }


def solve_opening_database(db: retrograde.RetrogradeDatabase, point: int) -> dict:
    """The same row read from a retrograde database (no search: 0 nodes)."""
    t0 = time.perf_counter()
    pos = trike.opening(db.size, point)
    found = db.lookup(pos)
    if found is None:
        raise KeyError(f"opening {point} missing from the database")
    margin, rem = found
    replies = 0
    for d in pos.legal_moves():
        child = db.lookup(pos.play(d))
        if child is None:
            raise KeyError("database is missing a reachable position")
        replies += child[0] < 0
    return {
        "winner": "mover" if margin > 0 else "placer",
        "margin": -margin,
        "remoteness": rem,
        "winning_replies": replies,
        "nodes": 0,
        "seconds": round(time.perf_counter() - t0, 4),
    }


@dataclass
class OpeningStudy:
    """The solved opening table of one size and what it says about the pie rule."""

    size: int
    method: str
    table: pd.DataFrame
    seconds: float
    extra: dict = field(default_factory=dict)

    @property
    def nodes(self) -> int:
        reps = self.table.drop_duplicates("symmetry_class")
        return int(reps["nodes"].sum())

    def summary(self) -> dict:
        t = self.table
        placer = t[t.winner == "placer"]
        # With the pie rule the second player wins by |margin| on every opening;
        # the first player's best openings minimise that, then maximise length.
        loss = t["margin"].abs()
        best = t[loss == loss.min()]
        best = best[best.remoteness == best.remoteness.max()]
        return {
            "openings": len(t),
            "symmetry_classes": int(t.symmetry_class.nunique()),
            "placer_wins": len(placer),
            "first_player_wins_without_pie": bool(len(placer)),
            "winning_openings_without_pie": [_label(r) for r in placer.itertuples()],
            "pie_swap_on": [_label(r) for r in placer.itertuples()],
            "pie_play_on": [_label(r) for r in t[t.winner == "mover"].itertuples()],
            "pie_second_player_margin": int(loss.min()),
            "pie_best_openings_for_first_player": [_label(r) for r in best.itertuples()],
        }

    def to_json(self) -> dict:
        cols = ["row", "col", "winner", "margin", "remoteness", "winning_replies"]
        return {
            "game": "trike",
            "size": self.size,
            "method": self.method,
            "openings": [
                {c: (v.item() if isinstance(v, np.generic) else v) for c, v in zip(cols, row)}
                for row in self.table[cols].itertuples(index=False)
            ],
            "nodes": self.nodes,
            "seconds": round(self.seconds, 3),
            "summary": self.summary(),
        }


def _label(row) -> str:
    return f"({row.row},{row.col})"


def run(
    size: int,
    method: str = "alphabeta",
    tt_mb: float = 1024,
    progress: Callable[[Iterable], Iterable] | None = None,
    db_path=None,
) -> OpeningStudy:
    """Solve every opening of ``size``; ``progress`` wraps the class iterator."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}")
    classes = trike.opening_classes(size)
    coords = trike.point_coords(size)
    t0 = time.perf_counter()
    extra: dict = {}
    if method == "retrograde":
        db = retrograde.solve(size)
        extra = {"database_positions": db.positions, "database_seconds": round(db.seconds, 3),
                 "tier_sizes": [len(k) for k in db.keys]}
        if db_path is not None:
            db.save(db_path)
            extra["database"] = str(db_path)

        def solve_one(p: int) -> dict:
            return solve_opening_database(db, p)
    else:
        extra = {"compile_seconds": round(warm_up(), 3)}
        t0 = time.perf_counter()

        def solve_one(p: int) -> dict:
            return solve_opening_alphabeta(size, p, tt_mb)

    iterator = progress(classes) if progress else classes
    rows = []
    for cls_id, cls in enumerate(iterator):
        res = solve_one(cls[0])
        for p in cls:
            r, c = coords[p]
            rows.append({"point": p, "row": r, "col": c, "symmetry_class": cls_id, **res})
    table = pd.DataFrame(rows, columns=COLUMNS).sort_values("point").reset_index(drop=True)
    return OpeningStudy(size, method, table, time.perf_counter() - t0, extra)


def board_text(study: OpeningStudy) -> str:
    """The board as text, each point marked P (placer wins) or M (mover wins)."""
    n = study.size
    mark = dict(zip(study.table.point, study.table.winner.map({"placer": "P", "mover": "M"})))
    lines = []
    for r in range(n):
        cells = [mark[trike.point_index(r, c)] for c in range(r + 1)]
        lines.append(" " * (n - 1 - r) + " ".join(cells))
    return "\n".join(lines)


def format_table(study: OpeningStudy) -> str:
    t = study.table.copy()
    t["seconds"] = t["seconds"].map(lambda x: f"{x:.3f}")
    return t.to_string(index=False)


def format_summary(study: OpeningStudy) -> str:
    s = study.summary()
    lines = [
        f"Openings won by the placer: {s['placer_wins']} of {s['openings']} "
        f"({s['symmetry_classes']} symmetry classes)",
    ]
    if s["first_player_wins_without_pie"]:
        lines.append("Without the pie rule the first player wins, by opening on "
                     + ", ".join(s["winning_openings_without_pie"]) + ".")
    else:
        lines.append("Without the pie rule the first player loses: every opening "
                     "wins for the second player.")
    if s["pie_swap_on"]:
        lines.append("With the pie rule the second player swaps on "
                     + ", ".join(s["pie_swap_on"]) + " and plays on elsewhere.")
    else:
        lines.append("With the pie rule the second player never swaps (no opening "
                     "wins for the placer).")
    lines.append("The second player then wins; the first player's best openings "
                 f"(second player's margin {s['pie_second_player_margin']}): "
                 + ", ".join(s["pie_best_openings_for_first_player"]) + ".")
    return "\n".join(lines)
