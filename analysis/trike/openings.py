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

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from trilab.analysis import artifacts
from trilab.analysis.executors import SerialExecutor, interrupted_inside
from trilab.analysis.trike import unit_order as unit_orders
from trilab.solver.trike import dfpn, retrograde
from trilab.solver.trike import engine as trike
from trilab.solver.trike.alphabeta import AlphaBetaSolver, warm_up
from trilab.solver.trike.dfpn import DfpnSolver
from trilab.solver.trike.stack_file import SearchCheckpoint

METHODS = ("alphabeta", "dfpn", "retrograde")
SPLITS = ("class", "replies", "moves")


def default_split(size: int) -> str:
    """The task granularity of a size: whole classes up to 7, replies (proven
    answer by answer) at 8, and the mover's moves after each answer from 9."""
    return "class" if size <= 7 else "replies" if size == 8 else "moves"
COLUMNS = ["point", "row", "col", "symmetry_class", "winner", "margin", "remoteness",
           "winning_replies", "nodes", "seconds"]
CHECKPOINT_FORMAT = "trilab-trike-checkpoint"
CHECKPOINT_VERSION = 4
"""1: proven classes and replies; 2 adds the placer's proven answers to replies
still open (``answers``); 3 the mover's proven moves after answers still open
(``moves``); 4 the lines split below a move (``split``, ``lines``).  All are
read; any other version is refused."""
CHECKPOINT_VERSIONS_READ = (1, 2, 3, 4)
SOLVER_VERSION = "alphabeta-1"  # bump when a change could alter a solved value
SOLVER_VERSIONS = {"alphabeta": SOLVER_VERSION, "dfpn": "dfpn-1"}
"""What a checkpoint of each search method records (a run resumes only its own)."""
PROGRESS_EVERY_SECONDS = 30.0
EAGER_SPLIT = True
"""Whether a win/loss move split proves the units with the placer to move through
the placer's answers at once (:func:`run`).  Such a unit searched whole spends its
budget in the search's order, often refuting an answer the agent would not have
tried first, and that work is lost when it gives up.  Simulated on the five
size-8 replies of the solver benchmark (units giving up after 4 M nodes, the
table kept, the agent's order): 650 M nodes against 849 M (16 M: 744 M against
950 M); on size 9 every placer-to-move unit that gave up had its first answer in
the agent's order win, after 4 G nodes lost (docs/speed.md)."""
SPLIT_AFTER_NODES = 4_000_000_000
"""A move-split unit (a move after an answer, or a line below one) that passes
this many nodes is proven through its children instead (:func:`run`): about three
minutes of two size-9 threads.  A win/loss alpha-beta run gives such a unit up at
once and goes on with its children; one with exact values, or a unit a stopped run
left past the limit, is split when the next run starts.  A shorter unit stopped
with the run resumes from its saved search stack (:func:`stack_file`)."""
DEFAULT_TT_MB: dict[int, float] = {2: 4, 3: 4, 4: 4, 5: 4, 6: 16, 7: 256, 8: 4096, 9: 4096,
                                   10: 4096}
"""Transposition table per worker (MiB) when ``tt_mb`` is not given, chosen by
measurement (``benchmarks/bench_trike.py --tt``, ``results/bench/trike-tt.csv``):
every class starts from an empty table, and zeroing a large table costs more
than it saves on small boards (size 6: 1024 MiB took 2.5 s of search, 16 MiB
0.55 s with the same node count).  Used by every command that searches a
size's openings (solve, confirm, margins)."""


def default_tt_mb(size: int) -> float:
    """The measured transposition-table size for ``size`` (:data:`DEFAULT_TT_MB`)."""
    return DEFAULT_TT_MB.get(size, 4096)


_SOLVERS: dict[tuple[int, float, str, int], AlphaBetaSolver | DfpnSolver] = {}


_TABLE_OF: list[tuple] = [()]
"""The reply whose answers the alpha-beta table of this process holds (see
:func:`solve_opening_search`)."""


def _solver(size: int, tt_mb: float, method: str = "alphabeta",
            reply: tuple = (), threads: int = 1) -> AlphaBetaSolver | DfpnSolver:
    """One solver (one table) per size, method and process, emptied before each
    task, except that alpha-beta answers to the same ``reply`` (a key) run one
    after another keep the table; the node counter is zeroed either way.
    ``threads``: alpha-beta search threads sharing the table."""
    key = (size, tt_mb, method, threads)
    if key not in _SOLVERS:
        _SOLVERS.clear()  # free the previous table before allocating a new one
        _TABLE_OF[0] = ()
        if method == "dfpn":
            _SOLVERS[key] = DfpnSolver(size, tt_mb=tt_mb)
        else:
            _SOLVERS[key] = AlphaBetaSolver(size, tt_mb=tt_mb, threads=threads)
    solver = _SOLVERS[key]
    if reply and method == "alphabeta" and _TABLE_OF[0] == (key, reply):
        solver.stats[:] = 0
    else:
        solver.reset()
    _TABLE_OF[0] = (key, reply) if reply else ()
    return solver


def _unit_path(args: tuple) -> tuple[int, ...]:
    """A move-split task's unit: (point, reply, answer, move, *line)."""
    return (args[1], args[6], args[8], args[10], *(args[11] if len(args) > 11 else ()))


def stack_file(progress_file: str) -> str:
    """Where the task whose progress goes to ``progress_file`` saves its search stack:
    ``<checkpoint>.stack-<unit>.npz`` beside ``<checkpoint>.progress-<unit>.json``."""
    head, sep, tail = progress_file.rpartition(".progress-")
    if not sep:
        return progress_file + ".stack.npz"
    return f"{head}.stack-{tail.removesuffix('.json')}.npz"


def solve_opening_search(
    size: int,
    point: int,
    tt_mb: float = 1024,
    win_loss_only: bool = False,
    progress_file: str | None = None,
    progress: Callable[[int], None] | None = None,
    reply: int = -1,
    method: str = "alphabeta",
    answer: int = -1,
    threads: int = 1,
    move: int = -1,
    line: tuple[int, ...] = (),
    stop_after_nodes: float = 0,
) -> dict:
    """Solve the opening on ``point`` from scratch; values for the placer, as a row.

    ``method`` is the search: ``"alphabeta"`` or ``"dfpn"`` (proof-number
    search, :mod:`trilab.solver.trike.dfpn`; win/loss only).

    With ``reply >= 0`` solve instead the position after the mover's reply
    ``reply`` (the placer to move): ``placer_wins`` and, unless
    ``win_loss_only``, the placer's exact margin and the remoteness there.
    :func:`combine_replies` turns the replies of an opening into its row.

    With ``answer >= 0`` too, solve the position after the placer's answer
    ``answer`` to that reply (the mover to move): the same fields, still for
    the placer, and ``answer``; :func:`combine_answers` turns the answers to
    a reply into the reply's row (a reply-split run proves a reply this way,
    one resumable unit per answer).  With ``move >= 0`` too, solve the
    position after the mover's ``move`` that follows the answer (the placer
    to move): the same fields and ``move``; :func:`combine_moves` turns the
    moves after an answer into the answer's row (a move-split run).  With a
    ``line`` too (the points played after ``move``, one or more), solve the
    position at its end: the same fields for the placer, and ``line``, the
    whole path from the opening (a unit of a split line, see :func:`run`).

    Every task starts with an empty table, so its values and node count do not
    depend on which tasks ran before it in the same process (or on which
    executor ran it); the one exception is an alpha-beta answer run right
    after another answer to the same reply in the same process: it keeps the
    table, as a search of the whole reply would (values never depend on the
    table, only node counts do; clearing a 256 MiB table for each of the 115
    answers of size 7 took 4.5 s of its 30).  ``progress_file`` receives the nodes and seconds spent
    so far every 30 s (atomic JSON writes), so unfinished work is on record.
    An alpha-beta win/loss search with a ``progress_file`` also saves its search
    stack beside it as often (:func:`stack_file`,
    :mod:`trilab.solver.trike.stack_file`), and a task whose stack is there goes
    on from it: the row's ``nodes`` and ``seconds`` then include the saved
    stack's, recorded again under ``resumed``.  With ``stop_after_nodes > 0``
    the search gives up once it has cost that many nodes (the saved stack's
    included) and returns ``{"too_long": True, "nodes", "seconds"}`` instead of
    values: a run then splits the unit (:func:`run`).
    """
    if method == "dfpn" and not win_loss_only:
        raise ValueError("df-pn answers win/loss only")
    s = _solver(size, tt_mb, method, (point, reply, win_loss_only) if answer >= 0 else (),
                threads)
    t0 = time.perf_counter()
    last = [t0]
    saved = None
    if progress_file and win_loss_only and method == "alphabeta":
        saved = SearchCheckpoint(stack_file(progress_file), PROGRESS_EVERY_SECONDS)
    if isinstance(s, AlphaBetaSolver):
        s.checkpoint = saved  # (a stopped task's is replaced here)

    def done(row: dict) -> dict:
        s.progress = None
        if saved is not None:
            s.checkpoint = None
            if saved.resumed:
                row["nodes"] += saved.prior_nodes
                row["seconds"] = round(row["seconds"] + saved.prior_seconds, 3)
                row["resumed"] = {"nodes": saved.prior_nodes,
                                  "seconds": round(saved.prior_seconds, 1)}
        return row

    def report(nodes: int) -> None:
        if saved is not None:
            nodes += saved.prior_nodes
        if stop_after_nodes > 0 and nodes >= stop_after_nodes:
            raise _TooLong(nodes)
        if progress is not None:
            progress(nodes)
        now = time.perf_counter()
        if progress_file and now - last[0] >= PROGRESS_EVERY_SECONDS:
            last[0] = now
            try:
                seconds = now - t0 + (saved.prior_seconds if saved is not None else 0.0)
                record = {"point": point, "nodes": nodes, "seconds": round(seconds, 1)}
                if reply >= 0:
                    record["reply"] = reply
                if answer >= 0:
                    record["answer"] = answer
                if move >= 0:
                    record["move"] = move
                if line:
                    record["line"] = [point, reply, answer, move, *line]
                artifacts.write_json(progress_file, record)
            except OSError:
                pass  # a remote worker may not see the folder: progress is optional

    s.progress = report
    try:
        return _search_unit(s, size, point, win_loss_only, reply, answer, move, line, t0, done)
    except _TooLong as stop:
        return done({"too_long": True, "nodes": stop.nodes - (saved.prior_nodes if saved else 0),
                     "seconds": round(time.perf_counter() - t0, 3)})


class _TooLong(Exception):
    """A unit past its node budget (:func:`solve_opening_search`)."""

    def __init__(self, nodes: int):
        super().__init__(nodes)
        self.nodes = nodes


def _search_unit(s, size: int, point: int, win_loss_only: bool, reply: int, answer: int,
                 move: int, line: tuple[int, ...], t0: float, done: Callable[[dict], dict]
                 ) -> dict:
    """The search of :func:`solve_opening_search` once its solver is set up."""
    pos = trike.opening(size, point)
    if line:
        end = pos.play(reply).play(answer).play(move)
        for d in line:
            end = end.play(d)
        placer_to_move = len(line) % 2 == 0  # after the move the placer is to move
        if win_loss_only:
            win = s.is_win(end)
            win, margin, remoteness = win if placer_to_move else not win, None, None
        else:
            sol = s.solve_position(end, count_winning_moves=False)
            win, margin, remoteness = sol.win, sol.margin, sol.remoteness
            if not placer_to_move:
                win, margin = not win, -margin
        return done({"line": [point, reply, answer, move, *line], "placer_wins": bool(win),
                "margin": margin, "remoteness": remoteness, "nodes": s.nodes,
                "seconds": round(time.perf_counter() - t0, 3)})
    if move >= 0:
        after = pos.play(reply).play(answer).play(move)  # the placer to move
        if win_loss_only:
            win, margin, remoteness = s.is_win(after), None, None
        else:
            sol = s.solve_position(after, count_winning_moves=False)
            win, margin, remoteness = sol.win, sol.margin, sol.remoteness
        return done({"reply": reply, "answer": answer, "move": move, "placer_wins": bool(win),
                "margin": margin, "remoteness": remoteness, "nodes": s.nodes,
                "seconds": round(time.perf_counter() - t0, 3)})
    if answer >= 0:
        grandchild = pos.play(reply).play(answer)  # the mover to move
        if win_loss_only:
            win, margin, remoteness = not s.is_win(grandchild), None, None
        else:
            sol = s.solve_position(grandchild, count_winning_moves=False)
            win, margin, remoteness = not sol.win, -sol.margin, sol.remoteness
        return done({"reply": reply, "answer": answer, "placer_wins": bool(win), "margin": margin,
                "remoteness": remoteness, "nodes": s.nodes,
                "seconds": round(time.perf_counter() - t0, 3)})
    if reply >= 0:
        child = pos.play(reply)
        if win_loss_only:
            win, margin, remoteness = s.is_win(child), None, None
        else:
            sol = s.solve_position(child, count_winning_moves=False)  # alpha-beta
            win, margin, remoteness = sol.win, sol.margin, sol.remoteness
        return done({"reply": reply, "placer_wins": bool(win), "margin": margin,
                "remoteness": remoteness, "nodes": s.nodes,
                "seconds": round(time.perf_counter() - t0, 3)})
    if win_loss_only:
        win = s.is_win(pos)
        margin = remoteness = replies = None
    else:
        sol = s.solve_position(pos)
        win, margin, remoteness, replies = sol.win, -sol.margin, sol.remoteness, sol.winning_moves
    return done({
        "winner": "mover" if win else "placer",
        "margin": margin,
        "remoteness": remoteness,
        "winning_replies": replies,
        "nodes": s.nodes,
        "seconds": round(time.perf_counter() - t0, 3),
    })


def combine_replies(rows: dict[int, dict], replies: list[int], win_loss_only: bool) -> dict | None:
    """The opening's row from its solved replies, or None while undecided.

    The mover wins iff some reply leaves the placer lost.  Exact values need
    every reply: the placer's margin is the least over replies, remoteness is
    1 + the least remoteness of the mover's winning replies (when the mover
    wins) or 1 + the greatest over all replies (when the placer wins).
    """
    done = [rows[r] for r in replies if r in rows]
    usable = [r for r in done if win_loss_only or r["margin"] is not None]
    lost = [r for r in usable if not r["placer_wins"]]
    complete = len(usable) == len(replies)
    nodes = sum(r["nodes"] for r in done)
    seconds = round(sum(r["seconds"] for r in done), 3)
    if win_loss_only:
        if not lost and not complete:
            return None
        return {"winner": "mover" if lost else "placer", "margin": None, "remoteness": None,
                "winning_replies": (len(lost) if complete else None) if lost else 0,
                "nodes": nodes, "seconds": seconds}
    if not complete:
        return None
    margin = min(r["margin"] for r in usable)
    if lost:
        remoteness = 1 + min(r["remoteness"] for r in lost)
    else:
        remoteness = 1 + max(r["remoteness"] for r in usable)
    return {"winner": "mover" if lost else "placer", "margin": margin, "remoteness": remoteness,
            "winning_replies": len(lost), "nodes": nodes, "seconds": seconds}


def combine_answers(rows: dict[int, dict], answers: list[int],
                    win_loss_only: bool) -> dict | None:
    """A reply's row (for the placer, to move there) from the placer's solved
    answers to it, or None while undecided.

    ``rows[a]`` holds the values after answer ``a`` for the placer
    (``placer_wins``, the placer's ``margin``, the ``remoteness`` there).  The
    placer wins the reply iff some answer wins; the margin is the greatest
    over answers; remoteness is 1 + the least remoteness of the winning
    answers (when the placer wins) or 1 + the greatest over all answers.
    These are the negamax rules one ply up, so the row equals the one a
    search of the whole reply gives.  ``nodes`` and ``seconds`` are the work
    of the answers used.
    """
    usable = [rows[a] for a in answers
              if a in rows and (win_loss_only or rows[a]["margin"] is not None)]
    won = [r for r in usable if r["placer_wins"]]
    complete = len(usable) == len(answers)
    if not won and not complete or not win_loss_only and not complete:
        return None
    row = {"placer_wins": bool(won), "margin": None, "remoteness": None}
    if not win_loss_only:
        row["margin"] = max(r["margin"] for r in usable)
        row["remoteness"] = 1 + (min(r["remoteness"] for r in won) if won
                                 else max(r["remoteness"] for r in usable))
    row["nodes"] = sum(r["nodes"] for r in usable)
    row["seconds"] = round(sum(r["seconds"] for r in usable), 3)
    return row


def combine_moves(rows: dict[int, dict], moves: list[int],
                  win_loss_only: bool) -> dict | None:
    """An answer's row (the mover to move there; values for the placer) from
    the rows after each of the mover's ``moves`` (the placer to move there),
    or None while undecided: the placer wins iff every move leaves it a win;
    the margin is the least over moves; remoteness is 1 + the least
    remoteness of the moves the placer loses (when the mover wins) or 1 +
    the greatest over all moves.  :func:`combine_replies` one level down,
    in the answer rows' format."""
    row = combine_replies(rows, moves, win_loss_only)
    if row is None:
        return None
    return {"placer_wins": row["winner"] == "placer", "margin": row["margin"],
            "remoteness": row["remoteness"], "nodes": row["nodes"], "seconds": row["seconds"]}


def _unit_costs(rows: dict[int, dict], usable: Callable[[dict], bool]) -> dict[str, dict]:
    """What each proven unit of a decided answer or reply cost, kept in its row when
    the units' own rows are folded into it: ``{point: {"nodes", "seconds"}}`` by the
    answer's or move's point, with the units of an answer's own units under
    ``"units"`` (a reply's row then holds every move's cost, and every split
    line's below it), and under ``"lost"`` the work of split units below it
    that no folded row records (:meth:`Checkpoint.lost_below`)."""
    out = {}
    for point, row in sorted(rows.items()):
        if usable(row):
            out[str(point)] = {"nodes": row["nodes"], "seconds": row["seconds"],
                               **({"units": row["units"]} if row.get("units") else {}),
                               **({"lost": row["lost"]} if row.get("lost") else {})}
    return out


def read_reply_record(path: Path,
                      size: int) -> tuple[dict[int, dict], dict[int, dict[int, dict]]]:
    """The classes and per-reply rows of a reply-split run's record."""
    data = json.loads(Path(path).read_text())
    if data.get("size") != size:
        raise ValueError(f"{path} is not a Trike size-{size} record")
    classes = {int(p): row for p, row in data.get("classes", {}).items()}
    replies = {int(p): {int(r): row for r, row in rows.items()}
               for p, rows in data.get("replies", {}).items()}
    return classes, replies


def reply_representatives(size: int, point: int) -> dict[int, int]:
    """Each reply of the mover to the opening on ``point`` -> the first reply (in
    engine order) whose child position is a symmetric image of its own.

    Mirror-image replies have the same value, so a reply-split run proves one
    reply per image class (the corner opening has 7 classes of 2 replies).
    """
    return move_representatives(trike.opening(size, point))


def move_representatives(pos: trike.TrikePosition,
                         moves: list[int] | None = None) -> dict[int, int]:
    """Each move of ``pos`` (in the order of ``moves``, engine order by
    default) -> the first move whose child is a symmetric image of its own."""
    t = trike.tables(pos.size)
    seen: dict[tuple[int, int, int], int] = {}
    out = {}
    for r in pos.legal_moves() if moves is None else moves:
        child = pos.play(r)
        mine, theirs = child.mine_theirs()
        m, th, pawn, _ = trike.canonical(t.symmetry, np.uint64(mine), np.uint64(theirs),
                                         child.pawn)
        out[r] = seen.setdefault((int(m), int(th), int(pawn)), r)
    return out


def answer_order(size: int, point: int, reply: int) -> list[int]:
    """The placer's answers to ``reply`` in the search's root order (:func:`search_order`)."""
    return search_order(trike.opening(size, point).play(reply))


def search_order(pos: trike.TrikePosition) -> list[int]:
    """The moves of ``pos`` in the order the alpha-beta search tries them at
    its root: moves that end the game first (best score first), then the
    others by lowest checker balance around the destination and fewest
    replies for the opponent.  A reply-split run proves the answers to a
    reply (and a move-split run the mover's moves after an answer) in this
    order, so a won position usually stops at its first move, as a search
    of the whole position would."""
    t = trike.tables(pos.size)
    mine, theirs = pos.mine_theirs()
    occ = mine | theirs
    keys = []
    for d in pos.legal_moves():
        bd = 1 << d
        sm = int(t.score_mask[d])
        if int(t.neighbours[d]) & ~(occ | bd) == 0:  # the pawn is trapped: the game ends
            margin = ((mine | bd) & sm).bit_count() - (theirs & sm).bit_count()
            keys.append(((0, -margin, 0), d))
        else:
            balance = (mine & sm).bit_count() - (theirs & sm).bit_count()
            replies = int(trike.move_mask(t.ray_masks, np.uint64(occ | bd), d)).bit_count()
            keys.append(((1, balance, replies), d))
    return [d for _, d in sorted(keys)]


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
    """The solved opening table of one size and what it says about the pie rule.

    ``table`` has a row per point of every solved class; ``open_classes``
    lists the classes not solved yet (a run stopped by a time limit or Ctrl-C).
    """

    size: int
    method: str
    table: pd.DataFrame
    seconds: float
    extra: dict = field(default_factory=dict)
    open_classes: list[list[int]] = field(default_factory=list)
    win_loss_only: bool = False

    @property
    def complete(self) -> bool:
        return not self.open_classes

    @property
    def nodes(self) -> int:
        reps = self.table.drop_duplicates("symmetry_class")
        return int(reps["nodes"].sum())

    def summary(self) -> dict:
        t = self.table
        placer = t[t.winner == "placer"]
        out = {
            "openings": len(t),
            "symmetry_classes": int(t.symmetry_class.nunique()),
            "complete": self.complete,
            "open_classes": [[point_label(self.size, p) for p in c] for c in self.open_classes],
            "placer_wins": len(placer),
            "first_player_wins_without_pie": bool(len(placer)),
            "winning_openings_without_pie": [_label(r) for r in placer.itertuples()],
            "pie_swap_on": [_label(r) for r in placer.itertuples()],
            "pie_play_on": [_label(r) for r in t[t.winner == "mover"].itertuples()],
        }
        if not self.win_loss_only and len(t):
            # With the pie rule the second player wins by |margin| on every
            # opening; the first player's best openings minimise that, then
            # maximise the game's length.
            loss = t["margin"].abs()
            best = t[loss == loss.min()]
            best = best[best.remoteness == best.remoteness.max()]
            out["pie_second_player_margin"] = int(loss.min())
            out["pie_best_openings_for_first_player"] = [_label(r) for r in best.itertuples()]
        return out

    def to_json(self) -> dict:
        cols = ["row", "col", "winner", "margin", "remoteness", "winning_replies"]
        return {
            "game": "trike",
            "size": self.size,
            "method": self.method,
            "openings": [
                {c: _plain(v) for c, v in zip(cols, row)}
                for row in self.table[cols].itertuples(index=False)
            ],
            "nodes": self.nodes,
            "seconds": round(self.seconds, 3),
            "summary": self.summary(),
        }


def _plain(v):
    """A JSON-ready scalar: numpy scalars unwrapped, missing values (None, NaN,
    ``pd.NA`` of the nullable win/loss-only columns) as None."""
    if v is None or pd.api.types.is_scalar(v) and pd.isna(v):
        return None
    return v.item() if isinstance(v, np.generic) else v


def _label(row) -> str:
    return f"({row.row},{row.col})"


def point_label(size: int, p: int) -> str:
    """A point as ``(row,col)``."""
    r, c = trike.point_coords(size)[p]
    return f"({r},{c})"


class Interrupted(Exception):
    """A run stopped by Ctrl-C, SIGTERM or its time limit; work so far is saved."""

    def __init__(self, study: OpeningStudy, reason: str, checkpoint: Path | None):
        super().__init__(reason)
        self.study = study
        self.reason = reason
        self.checkpoint = checkpoint


class CheckpointError(ValueError):
    """A checkpoint that cannot be used (damaged, or of another run); one line."""


def _set_aside(path: Path, tag: str) -> Path:
    """Rename ``path`` to ``path.TAG`` (``path.TAG-2``, ... if taken); return the new name."""
    aside = path.with_name(f"{path.name}.{tag}")
    n = 2
    while aside.exists():
        aside = path.with_name(f"{path.name}.{tag}-{n}")
        n += 1
    path.rename(aside)
    return aside


def _impossible_value(size: int, classes: dict[int, dict],
                      replies: dict[int, dict[int, dict]],
                      answers: dict[int, dict[int, dict[int, dict]]] | None = None,
                      moves: dict[int, dict[int, dict[int, dict[int, dict]]]] | None = None,
                      lines: dict[tuple[int, ...], dict] | None = None,
                      split: dict[tuple[int, ...], dict] | None = None) -> str | None:
    """The first value of a checkpoint no Trike game of ``size`` can have, or ``None``.

    Class rows: ``winner`` placer or mover; ``margin`` (the placer's) ``None``
    or an integer of the winner's sign and at most the number of points;
    ``remoteness`` and ``winning_replies`` ``None`` or integers in range;
    ``nodes`` and ``seconds`` not negative.  Reply rows: ``placer_wins`` a
    boolean, the same checks on ``margin`` and ``remoteness``.  Answer rows
    (the placer's answers to a reply): the same as reply rows, on three
    distinct points; move rows (the mover's moves after an answer) on four,
    line rows on five or more; split lines on four or more distinct points."""
    points = trike.n_points(size)

    def count(value, most: int) -> bool:
        return value is None or (type(value) is int and 0 <= value <= most)

    def spent(row: dict) -> bool:
        return all(isinstance(row.get(k, 0), int | float) and row.get(k, 0) >= 0
                   for k in ("nodes", "seconds"))

    for point, row in classes.items():
        where = f"class {point}"
        if not 0 <= point < points:
            return f"{where}: no such point"
        if row.get("winner") not in ("placer", "mover"):
            return f"{where}: winner {row.get('winner')!r}"
        margin = row.get("margin")
        if margin is not None and (type(margin) is not int or not 0 < abs(margin) <= points
                                   or (margin > 0) != (row["winner"] == "placer")):
            return f"{where}: margin {margin!r} for a {row['winner']} win"
        if not count(row.get("remoteness"), points) or not count(
                row.get("winning_replies"), points):
            return f"{where}: remoteness or winning replies out of range"
        if not spent(row):
            return f"{where}: negative nodes or seconds"
    def reply_row(row: dict) -> str | None:
        """What is wrong with a reply's or an answer's row (for the placer)."""
        if type(row.get("placer_wins")) is not bool:
            return f"placer_wins {row.get('placer_wins')!r}"
        margin = row.get("margin")
        if margin is not None and (type(margin) is not int or not 0 < abs(margin) <= points
                                   or (margin > 0) != row["placer_wins"]):
            return f"margin {margin!r}"
        if not count(row.get("remoteness"), points) or not spent(row):
            return "remoteness, nodes or seconds out of range"
        return None

    for point, rows in replies.items():
        for reply, row in rows.items():
            where = f"class {point}, reply {reply}"
            if not (0 <= point < points and 0 <= reply < points):
                return f"{where}: no such point"
            problem = reply_row(row)
            if problem:
                return f"{where}: {problem}"
    for point, by_reply in (answers or {}).items():
        for reply, rows in by_reply.items():
            for answer, row in rows.items():
                where = f"class {point}, reply {reply}, answer {answer}"
                if not all(0 <= x < points for x in (point, reply, answer)) or len(
                        {point, reply, answer}) < 3:
                    return f"{where}: no such points"
                problem = reply_row(row)
                if problem:
                    return f"{where}: {problem}"
    for point, by_reply in (moves or {}).items():
        for reply, by_answer in by_reply.items():
            for answer, rows in by_answer.items():
                for move, row in rows.items():
                    where = f"class {point}, reply {reply}, answer {answer}, move {move}"
                    path = (point, reply, answer, move)
                    if not all(0 <= x < points for x in path) or len(set(path)) < 4:
                        return f"{where}: no such points"
                    problem = reply_row(row)
                    if problem:
                        return f"{where}: {problem}"
    for path, row in (lines or {}).items():
        where = f"line {line_tag(path)}"
        if len(path) < 5 or len(set(path)) < len(path) or not all(
                0 <= x < points for x in path):
            return f"{where}: no such points"
        problem = reply_row(row)
        if problem:
            return f"{where}: {problem}"
    for path, row in (split or {}).items():
        if len(path) < 4 or len(set(path)) < len(path) or not all(
                0 <= x < points for x in path):
            return f"split line {line_tag(path)}: no such points"
        if not spent(row):
            return f"split line {line_tag(path)}: negative nodes or seconds"
    return None


def line_tag(path: tuple[int, ...]) -> str:
    """A line's key in a checkpoint and its progress file's name: ``"17-19-20-0"``."""
    return "-".join(map(str, path))


def parse_line_tag(tag: str) -> tuple[int, ...]:
    return tuple(int(x) for x in tag.split("-"))


def line_position(size: int, path: tuple[int, ...]) -> trike.TrikePosition:
    """The position after the opening ``path[0]`` and the moves ``path[1:]``."""
    pos = trike.opening(size, path[0])
    for d in path[1:]:
        pos = pos.play(d)
    return pos


class Checkpoint:
    """The solved classes of one run, rewritten atomically after each one.

    A class solved with full values also answers a win/loss-only run; a
    win/loss-only result is recomputed when full values are asked for.  A
    checkpoint that does not parse is renamed ``*.damaged`` (kept for
    inspection) and reported as a :class:`CheckpointError`.
    """

    def __init__(self, path: Path | None, size: int, solver: str = SOLVER_VERSION):
        self.path = path
        self.size = size
        self.solver = solver
        self.classes: dict[int, dict] = {}
        self.replies: dict[int, dict[int, dict]] = {}
        self.answers: dict[int, dict[int, dict[int, dict]]] = {}
        self.moves: dict[int, dict[int, dict[int, dict[int, dict]]]] = {}
        self.lines: dict[tuple[int, ...], dict] = {}
        """Rows of the units below a split move: the whole path from the opening
        (five points or more) -> the row after it, values for the placer."""
        self.split: dict[tuple[int, ...], dict] = {}
        """Lines (a move's path of four points, or a longer line) proven through
        their children instead of as one unit -> the nodes and seconds the
        unfinished unit had cost when it was split (work lost)."""
        if path is None or not path.exists():
            return
        try:
            data = json.loads(path.read_text())
            classes = {int(k): dict(v) for k, v in data["classes"].items()}
            replies = {int(k): {int(r): dict(row) for r, row in v.items()}
                       for k, v in data.get("replies", {}).items()}
            answers = {int(k): {int(r): {int(a): dict(row) for a, row in rows.items()}
                                for r, rows in v.items()}
                       for k, v in data.get("answers", {}).items()}
            moves = {int(k): {int(r): {int(a): {int(m): dict(row) for m, row in ms.items()}
                                       for a, ms in by_a.items()}
                              for r, by_a in v.items()}
                     for k, v in data.get("moves", {}).items()}
            lines = {parse_line_tag(k): dict(row) for k, row in data.get("lines", {}).items()}
            split = {parse_line_tag(k): dict(row) for k, row in data.get("split", {}).items()}
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            aside = _set_aside(path, "damaged")
            raise CheckpointError(
                f"the checkpoint {path} is damaged ({type(e).__name__}: {e}); it was kept as "
                f"{aside}; run again with --restart to start over") from None
        if data.get("format") != CHECKPOINT_FORMAT or data.get("size") != size:
            raise CheckpointError(f"{path} is not a Trike size-{size} checkpoint; use another "
                                  "--out, or --restart to set it aside and start over")
        version = data.get("version", 1)
        if version not in CHECKPOINT_VERSIONS_READ:
            raise CheckpointError(f"{path} is a version-{version} checkpoint, this trilab reads "
                                  f"versions {', '.join(map(str, CHECKPOINT_VERSIONS_READ))}: "
                                  "use that trilab, or --restart to set it aside and start over")
        if data.get("solver") != solver:
            raise CheckpointError(f"{path} was written by solver {data.get('solver')!r}, this "
                                  f"is {solver!r}: --restart sets it aside and starts "
                                  "over")
        problem = _impossible_value(size, classes, replies, answers, moves, lines, split)
        if problem is not None:
            aside = _set_aside(path, "damaged")
            raise CheckpointError(
                f"the checkpoint {path} holds an impossible value ({problem}); it was kept as "
                f"{aside}; run again with --restart to start over")
        self.classes, self.replies, self.answers, self.moves = classes, replies, answers, moves
        self.lines, self.split = lines, split

    @staticmethod
    def discard(path: Path) -> Path | None:
        """Set an existing checkpoint aside (``*.discarded``) and drop its progress
        files, so the next run starts from nothing (``--restart``)."""
        for pattern in (".progress-*.json", ".stack-*.npz"):
            for f in path.parent.glob(path.name + pattern):
                f.unlink(missing_ok=True)
        return _set_aside(path, "discarded") if path.exists() else None

    def done(self, point: int, win_loss_only: bool) -> dict | None:
        row = self.classes.get(point)
        if row is None or (row.get("margin") is None and not win_loss_only):
            return None
        if win_loss_only and row.get("margin") is not None:
            return {**row, "margin": None, "remoteness": None, "winning_replies": None}
        return row

    def save(self, point: int, row: dict) -> None:
        self.classes[point] = row
        self._write()

    def save_reply(self, point: int, reply: int, row: dict) -> None:
        self.replies.setdefault(point, {})[reply] = row
        self._write()

    def save_answer(self, point: int, reply: int, answer: int, row: dict) -> None:
        self.answers.setdefault(point, {}).setdefault(reply, {})[answer] = row
        self._write()

    def save_move(self, point: int, reply: int, answer: int, move: int, row: dict) -> None:
        self.moves.setdefault(point, {}).setdefault(reply, {}).setdefault(answer, {})[move] = row
        self._write()

    def save_line(self, path: tuple[int, ...], row: dict) -> None:
        self.lines[path] = row
        self._write()

    def line_row(self, path: tuple[int, ...]) -> dict | None:
        """The proven row of a move (four points) or a longer line, if any."""
        if len(path) == 4:
            return self.moves.get(path[0], {}).get(path[1], {}).get(path[2], {}).get(path[3])
        return self.lines.get(path)

    def lost_below(self, prefix: tuple[int, ...]) -> dict | None:
        """The work of the split units at or below ``prefix`` that are still marked
        (lost when they were split, and never folded into a decided line's row):
        summed ``{"nodes", "seconds"}``, or None.  Recorded as ``lost`` in the row
        that decides ``prefix``, before :meth:`drop_lines` forgets the marks."""
        n = len(prefix)
        marks = [v for k, v in self.split.items() if k[:n] == prefix and int(v["nodes"]) > 0]
        if not marks:
            return None
        return {"nodes": sum(int(v["nodes"]) for v in marks),
                "seconds": round(sum(float(v["seconds"]) for v in marks), 1)}

    def drop_lines(self, prefix: tuple[int, ...]) -> None:
        """Forget the lines (and split marks) below ``prefix``, once it is decided.
        Written with the next save."""
        n = len(prefix)
        self.lines = {k: v for k, v in self.lines.items() if k[:n] != prefix}
        self.split = {k: v for k, v in self.split.items() if k[:n] != prefix}

    def drop_answers(self, point: int, reply: int | None = None) -> None:
        """Forget the answers to a proven reply (or to every reply of a decided
        class), and the moves after them: the reply's row records them.
        Written with the next save."""
        self.drop_lines((point,) if reply is None else (point, reply))
        if reply is None:
            self.answers.pop(point, None)
            self.moves.pop(point, None)
            return
        for table in (self.answers, self.moves):
            rows = table.get(point, {})
            rows.pop(reply, None)
            if not rows:
                table.pop(point, None)

    def drop_moves(self, point: int, reply: int, answer: int) -> None:
        """Forget the moves after a proven answer (its row records them)."""
        self.drop_lines((point, reply, answer))
        by_answer = self.moves.get(point, {}).get(reply, {})
        by_answer.pop(answer, None)
        if not by_answer:
            self.moves.get(point, {}).pop(reply, None)
            if not self.moves.get(point):
                self.moves.pop(point, None)

    def _write(self) -> None:
        if self.path is None:
            return
        artifacts.write_json(self.path, {
            "format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, "size": self.size,
            "solver": self.solver,
            "classes": {str(k): v for k, v in sorted(self.classes.items())},
            "replies": {str(k): {str(r): row for r, row in sorted(v.items())}
                        for k, v in sorted(self.replies.items())},
            "answers": {str(k): {str(r): {str(a): row for a, row in sorted(rows.items())}
                                 for r, rows in sorted(v.items())}
                        for k, v in sorted(self.answers.items())},
            "moves": {str(k): {str(r): {str(a): {str(m): row for m, row in sorted(ms.items())}
                                        for a, ms in sorted(by_a.items())}
                               for r, by_a in sorted(v.items())}
                      for k, v in sorted(self.moves.items())},
            "split": {line_tag(k): row for k, row in sorted(self.split.items())},
            "lines": {line_tag(k): row for k, row in sorted(self.lines.items())},
        })

    def progress_file(self, point: int, reply: int = -1, answer: int = -1,
                      move: int = -1, line: tuple[int, ...] = ()) -> str | None:
        if self.path is None:
            return None
        tag = f"{point}" if reply < 0 else f"{point}-{reply}"
        if answer >= 0:
            tag += f"-{answer}"
        if move >= 0:
            tag += f"-{move}"
        if line:
            tag += "-" + line_tag(line)
        return str(self.path.with_name(self.path.name + f".progress-{tag}.json"))

    def _progress_files(self) -> list[tuple[Path, dict]]:
        """The progress files beside the checkpoint that can be read, with their data."""
        if self.path is None:
            return []
        found = []
        for f in sorted(self.path.parent.glob(self.path.name + ".progress-*.json")):
            try:
                found.append((f, json.loads(f.read_text())))
            except (OSError, ValueError):
                continue
        return found

    def _settled(self, data: dict) -> bool:
        """True when the unit of a progress file, or a node above it, is decided on
        record (the class, the reply, the answer, the move or a line above it)."""
        point = int(data["point"])
        if point in self.classes:
            return True
        if "reply" in data and int(data["reply"]) in self.replies.get(point, {}):
            return True
        if "answer" in data and int(data["answer"]) in self.answers.get(point, {}).get(
                int(data["reply"]), {}):
            return True
        if "move" in data and int(data["move"]) in self.moves.get(point, {}).get(
                int(data["reply"]), {}).get(int(data["answer"]), {}):
            return True
        return "line" in data and any(self.line_row(tuple(data["line"][:k])) is not None
                                      for k in range(5, len(data["line"]) + 1))

    def unfinished_work(self) -> dict[str, dict]:
        """Nodes and seconds recorded by tasks still running when a run stopped (the
        units nothing on record has decided)."""
        return {f.name.rsplit(".progress-", 1)[1].removesuffix(".json"): data
                for f, data in self._progress_files() if not self._settled(data)}

    def drop_settled_progress(self) -> list[str]:
        """Delete the progress and stack files of units that are decided on record, or
        below a node that is: a run that decides a node while units under it still run
        (a sibling refuted it, or the run stopped just after) leaves their files, which
        no run reads again.  Returns the units' tags."""
        dropped = []
        for f, data in self._progress_files():
            if self._settled(data):
                f.unlink(missing_ok=True)
                Path(stack_file(str(f))).unlink(missing_ok=True)
                dropped.append(f.name.rsplit(".progress-", 1)[1].removesuffix(".json"))
        return dropped

    def mark_long_units(self, min_nodes: float) -> list[tuple[int, ...]]:
        """Mark for splitting every move-split unit (a move after an answer, or
        a line below one) left unfinished after at least ``min_nodes`` nodes
        (a run splits its units as they pass the limit; this catches those of
        runs with a higher one); return the lines newly marked.  Their progress files go: the units
        that replace them keep their own."""
        marked = []
        for tag, data in self.unfinished_work().items():
            path = parse_line_tag(tag)
            if len(path) >= 4 and data.get("nodes", 0) >= min_nodes and path not in self.split:
                self.split[path] = {"nodes": int(data["nodes"]),
                                    "seconds": float(data.get("seconds", 0.0))}
                marked.append(path)
        if marked:
            self._write()
            for path in marked:
                self.clear_progress(*path[:4], line=path[4:])
        return marked

    def mark_split(self, path: tuple[int, ...], nodes: int, seconds: float) -> None:
        """Mark the unit ``path`` (a move's four points or a longer line) for
        proving through its children, having cost ``nodes`` and ``seconds``."""
        self.split[path] = {"nodes": int(nodes), "seconds": float(seconds)}
        self._write()

    def has_progress(self, path: tuple[int, ...]) -> bool:
        """Whether the unit ``path`` (four points or more) has saved work: a
        progress file or a search stack."""
        f = self.progress_file(*path[:4], line=path[4:])
        return bool(f) and (Path(f).exists() or Path(stack_file(f)).exists())

    def clear_progress(self, point: int, reply: int = -1, answer: int = -1,
                       move: int = -1, line: tuple[int, ...] = ()) -> None:
        f = self.progress_file(point, reply, answer, move, line)
        if f:
            Path(f).unlink(missing_ok=True)
            Path(stack_file(f)).unlink(missing_ok=True)


def run(
    size: int,
    method: str = "alphabeta",
    tt_mb: float = 1024,
    progress: Callable[..., Any] | None = None,
    db_path=None,
    executor=None,
    checkpoint_path: Path | None = None,
    win_loss_only: bool = False,
    time_limit: float | None = None,
    split: str | None = None,
    on_ready: Callable[[], Any] | None = None,
    threads: int = 1,
    split_after_nodes: float = SPLIT_AFTER_NODES,
    unit_order: str | None = None,
    eager_split: bool | None = None,
) -> OpeningStudy:
    """Solve every opening class of ``size`` (one task per class).

    ``executor`` (see :mod:`trilab.analysis.executors`) runs the tasks; finished
    classes are saved to ``checkpoint_path`` at once and skipped when the same
    run starts again.  ``progress(total=, initial=)`` makes a progress bar.
    On Ctrl-C, SIGTERM (as KeyboardInterrupt) or ``time_limit`` seconds,
    raises :class:`Interrupted` carrying the partial study.

    ``split`` is the task granularity: ``"class"`` (one task per opening
    class) or ``"replies"`` (the mover's replies proven one by one, each
    saved as soon as it is proven, so work inside a long class survives a
    restart); the default is ``"replies"`` from size 8 up.  A reply is
    itself proven through the placer's answers to it (:func:`answer_order`,
    one per symmetry class), one task per answer, each saved at once: a run
    stopped inside a reply loses at most the answer in progress.  ``"moves"``
    goes one level further: an answer is proven through the mover's moves
    after it (:func:`search_order`, one per symmetry class), one task and
    one saved row each (:func:`combine_moves`), so a run stopped inside an
    answer loses at most the move in progress; the default from size 9 up,
    where a single answer can take hours.  And a move-split run goes deeper
    where it has to: a move (or a line below one) that an earlier run left
    unfinished after ``split_after_nodes`` nodes is split into its children
    (the placer's answers to the move, then the mover's moves after an
    answer, ...: the same rules one ply down, :func:`combine_answers` and
    :func:`combine_moves`), each a unit saved on its own, so no unit is
    redone from nothing run after run.  In a win/loss alpha-beta run every unit
    also saves its search stack every 30 s (:func:`stack_file`), and a unit
    started again goes on from it, with an empty table (so with somewhat more
    nodes than the rest of the search would have taken): whatever the split, a
    stop loses at most the last 30 s of each running unit.  With the move split,
    alpha-beta and win/loss only, a unit does not wait for the next run to be split: it gives
    up as soon as it passes ``split_after_nodes`` (its saved stack's nodes
    included) and the run goes on with its children (at once with one worker,
    in a further pass over the units with several).  ``on_ready()`` is called
    once the kernels are loaded, just before the search starts.  ``unit_order``
    is the order in which a split run tries the units below a node
    (:mod:`trilab.analysis.trike.unit_order`): ``"search"`` (the search's root
    order) or ``"agent"`` (the MCTS agent's ranking, so a won node usually stops
    at its first unit); the default is ``"agent"`` for the move split and
    ``"search"`` otherwise.  ``eager_split`` (the default where units give up, i.e.
    a win/loss alpha-beta move split): a unit with the placer to move (a move after
    an answer, a line of even length) is split into the placer's answers before it
    is searched at all, so its budget is never spent in the search's own order
    (:data:`EAGER_SPLIT`); only the units with the mover to move are searched and
    give up.  ``threads`` alpha-beta threads work on each task, sharing its table.
    """
    split = split or default_split(size)
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}")
    unit_order = unit_order or ("agent" if split == "moves" else "search")
    if unit_order not in unit_orders.ORDERS:
        raise ValueError(f"unknown unit order {unit_order!r}")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}")
    classes = trike.opening_classes(size)
    t0 = time.perf_counter()
    if method == "retrograde":
        db = retrograde.solve(size)
        extra = {"database_positions": db.positions, "database_seconds": round(db.seconds, 3),
                 "tier_sizes": [len(k) for k in db.keys]}
        if db_path is not None:
            db.save(db_path)
            extra["database"] = str(db_path)
        results = {cls[0]: solve_opening_database(db, cls[0]) for cls in classes}
        return _study(size, method, classes, results, time.perf_counter() - t0, extra, False)

    executor = executor or SerialExecutor()
    extra = {"compile_seconds": round(dfpn.warm_up() if method == "dfpn" else warm_up(), 3),
             "executor": executor.describe()}
    if on_ready is not None:
        on_ready()
    t0 = time.perf_counter()
    ckpt = Checkpoint(checkpoint_path, size, SOLVER_VERSIONS[method])
    results: dict[int, dict] = {}
    for cls in classes:
        row = ckpt.done(cls[0], win_loss_only)
        if row is not None:
            results[cls[0]] = row
    extra["resumed_classes"] = len(results)
    extra["split"] = split
    extra["unit_order"] = unit_order if split != "class" else None
    # a move-split win/loss unit past this many nodes stops and is split at once (0: never;
    # exact values take many probes a unit, so their units are split only between runs)
    unit_budget = (split_after_nodes if split == "moves" and method == "alphabeta"
                   and win_loss_only else 0)
    eager = unit_budget > 0 and (EAGER_SPLIT if eager_split is None else eager_split)
    extra["eager_split"] = eager
    extra["settled_progress_dropped"] = ckpt.drop_settled_progress()
    if split == "moves":
        extra["lines_split_now"] = [line_tag(x) for x in
                                    ckpt.mark_long_units(split_after_nodes)]
    extra["threads"] = threads
    todo = [cls[0] for cls in classes if cls[0] not in results]
    # Complete runs start with the costliest class (shortest wall time on many
    # workers); time-limited runs with the cheapest (most classes proven).
    todo.sort(key=lambda p: centrality(size, p), reverse=time_limit is not None)
    replies = {p: trike.opening(size, p).legal_moves() for p in todo}
    bar = progress(total=len(classes), initial=len(results)) if progress else None
    serial = isinstance(executor, SerialExecutor)

    def node_progress(nodes: int) -> None:
        if bar is not None:
            bar.set_postfix_str(f"{nodes:,} nodes")
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            raise TimeoutError

    mirror = {p: reply_representatives(size, p) for p in todo} if split != "class" else {}
    def position(path: tuple[int, ...]) -> trike.TrikePosition:
        return line_position(size, path)

    children_of: dict[tuple[int, ...], tuple[list[int], dict[int, int]]] = {}

    def children(path: tuple[int, ...]) -> tuple[list[int], dict[int, int]]:
        """The moves at the end of ``path`` (search order) and their mirror map."""
        if path not in children_of:
            pos = position(path)
            order = search_order(pos)
            children_of[path] = order, move_representatives(pos, order)
        return children_of[path]

    def answers(p: int, r: int) -> tuple[list[int], dict[int, int]]:
        """The placer's answers to reply ``r`` (search order) and their mirror map."""
        return children((p, r))

    def moves(p: int, r: int, a: int) -> tuple[list[int], dict[int, int]]:
        """The mover's moves after answer ``a`` (search order) and their mirror map."""
        return children((p, r, a))

    def usable(row: dict | None) -> bool:
        return row is not None and (win_loss_only or row["margin"] is not None)

    def decide_reply(p: int, r: int) -> None:
        """Save reply ``r``'s row once its proven answers decide it."""
        order, rep = answers(p, r)
        proven = ckpt.answers.get(p, {}).get(r, {})
        rows = {a: proven[rep[a]] for a in order if rep[a] in proven}
        row = combine_answers(rows, order, win_loss_only)
        if row is not None and order:
            # work done: each proven answer once, not once per image
            used = [x for x in proven.values() if usable(x)]
            row["nodes"] = sum(x["nodes"] for x in used)
            row["seconds"] = round(sum(x["seconds"] for x in used), 3)
            row["reply"] = r
            row["units"] = _unit_costs(proven, usable)
            lost = ckpt.lost_below((p, r))
            if lost:
                row["lost"] = lost
            ckpt.drop_answers(p, r)
            ckpt.save_reply(p, r, row)

    def decide_answer(p: int, r: int, a: int) -> None:
        """Save answer ``a``'s row once its proven moves decide it."""
        order, rep = moves(p, r, a)
        proven = ckpt.moves.get(p, {}).get(r, {}).get(a, {})
        rows = {m: proven[rep[m]] for m in order if rep[m] in proven}
        row = combine_moves(rows, order, win_loss_only)
        if row is not None and order:
            used = [x for x in proven.values() if usable(x)]
            row["nodes"] = sum(x["nodes"] for x in used)
            row["seconds"] = round(sum(x["seconds"] for x in used), 3)
            row["reply"], row["answer"] = r, a
            row["units"] = _unit_costs(proven, usable)
            lost = ckpt.lost_below((p, r, a))
            if lost:
                row["lost"] = lost
            ckpt.drop_moves(p, r, a)
            ckpt.save_answer(p, r, a, row)

    visits_of: dict[tuple[int, ...], list[int]] = {}

    def visit(path: tuple[int, ...], order: list[int], rep: dict[int, int]) -> list[int]:
        """The representatives among ``order`` (the moves at the end of ``path``, search
        order) in the order the units are tried (``unit_order``)."""
        if path not in visits_of:
            ranked = order
            if unit_order == "agent" and len(order) > 1:
                ranked = unit_orders.agent_order(position(path), order)
            visits_of[path] = list(dict.fromkeys(rep[m] for m in ranked))
        return visits_of[path]

    def line_settled(path: tuple[int, ...]) -> bool:
        """Whether a line (four points or more) or a line above it is decided."""
        return settled(*path[:3]) or any(usable(ckpt.line_row(path[:k]))
                                         for k in range(4, len(path) + 1))

    def decide_line(path: tuple[int, ...]) -> None:
        """Save a split line's row once its proven children decide it: the
        placer to move at its end (an even number of points) wins iff some
        child wins, else iff every child does."""
        if usable(ckpt.line_row(path)):
            return
        order, rep = children(path)
        proven = {k[-1]: row for k, row in ckpt.lines.items()
                  if len(k) == len(path) + 1 and k[:-1] == path}
        rows = {c: proven[rep[c]] for c in order if rep[c] in proven}
        combine = combine_answers if len(path) % 2 == 0 else combine_moves
        row = combine(rows, order, win_loss_only)
        if row is None or not order:
            return
        used = [x for x in proven.values() if usable(x)]
        row["nodes"] = sum(x["nodes"] for x in used)
        row["seconds"] = round(sum(x["seconds"] for x in used), 3)
        row["units"] = _unit_costs(proven, usable)
        lost = ckpt.lost_below(path)
        if lost:
            row["lost"] = lost
        ckpt.drop_lines(path)
        if len(path) == 4:
            row["reply"], row["answer"], row["move"] = path[1:]
            ckpt.save_move(*path, row)
        else:
            row["line"] = list(path)
            ckpt.save_line(path, row)

    def decide_up_from(path: tuple[int, ...]) -> None:
        """Decide the line ``path`` and the lines, answer, reply and class above
        it, as far as the proven units allow."""
        for k in range(len(path), 3, -1):
            decide_line(path[:k])
        decide_answer(*path[:3])
        decide_reply(*path[:2])
        decide(path[0])

    def split_at_once(path: tuple[int, ...]) -> None:
        """With ``eager``, mark a unit with the placer to move (a move after an answer,
        or a line of even length below one) that has children and no saved work, to
        be proven through them."""
        if (eager and len(path) % 2 == 0 and path not in ckpt.split
                and not ckpt.has_progress(path) and children(path)[0]):
            ckpt.mark_split(path, 0, 0.0)
            extra["lines_split_at_once"] = extra.get("lines_split_at_once", 0) + 1

    def line_tasks(path: tuple[int, ...]):
        """The units of a split line, depth first in search order."""
        decide_up_from(path)  # children saved by an earlier run may decide it
        if line_settled(path):
            return
        order, rep = children(path)
        for c in visit(path, order, rep):
            if line_settled(path):
                return
            child = path + (c,)
            if usable(ckpt.lines.get(child)):
                continue
            split_at_once(child)
            if child in ckpt.split and children(child)[0]:
                yield from line_tasks(child)
                continue
            p, r, a, m = path[:4]
            yield (size, p, tt_mb, win_loss_only, ckpt.progress_file(*child[:4], line=child[4:]),
                   node_progress if serial else None, r, method, a, threads, m, child[4:],
                   unit_budget)
            if child in ckpt.split and children(child)[0]:  # split as it ran (one worker)
                yield from line_tasks(child)

    def settled(p: int, r: int, a: int = -1) -> bool:
        """Whether the class, the reply or (given) the answer is decided."""
        return (p in results or usable(ckpt.replies.get(p, {}).get(r))
                or a >= 0 and usable(ckpt.answers.get(p, {}).get(r, {}).get(a)))

    def decide(p: int) -> None:
        proven = ckpt.replies.get(p, {})
        rows = {r: proven[mirror[p][r]] for r in replies[p] if mirror[p][r] in proven}
        row = combine_replies(rows, replies[p], win_loss_only)
        if row is not None:  # work done: each proven reply once, not once per image
            row["nodes"] = sum(x["nodes"] for x in proven.values())
            row["seconds"] = round(sum(x["seconds"] for x in proven.values()), 3)
        if row is not None and p not in results:
            results[p] = row
            lost = ckpt.lost_below((p,))
            if lost:
                row["lost"] = lost
            ckpt.drop_answers(p)
            ckpt.save(p, row)
            if bar is not None:
                bar.update(1)

    def tasks():
        """Generated lazily: replies of an opening decided meanwhile are skipped."""
        for p in todo:
            if split == "class":
                yield (size, p, tt_mb, win_loss_only, ckpt.progress_file(p),
                       node_progress if serial else None, -1, method, -1, threads, -1)
                continue
            decide(p)  # replies saved by an earlier run may already decide it
            if p in results:
                continue
            for r in visit((p,), replies[p], mirror[p]):
                if p in results:
                    break
                if usable(ckpt.replies.get(p, {}).get(r)):
                    continue
                order, rep = answers(p, r)
                if not order:  # the reply ends the game: proven whole
                    yield (size, p, tt_mb, win_loss_only, ckpt.progress_file(p, r),
                           node_progress if serial else None, r, method, -1, threads, -1)
                    continue
                decide_reply(p, r)  # answers saved by an earlier run may decide it
                decide(p)
                if settled(p, r):
                    continue
                for a in visit((p, r), order, rep):
                    if settled(p, r):
                        break
                    if settled(p, r, a):
                        continue
                    after = moves(p, r, a)[0] if split == "moves" else []
                    if not after:  # a reply split, or the answer ends the game
                        yield (size, p, tt_mb, win_loss_only, ckpt.progress_file(p, r, a),
                               node_progress if serial else None, r, method, a, threads, -1)
                        continue
                    decide_answer(p, r, a)  # moves saved by an earlier run may decide it
                    decide_reply(p, r)
                    decide(p)
                    if settled(p, r, a):
                        continue
                    mrep = moves(p, r, a)[1]
                    for m in visit((p, r, a), after, mrep):
                        if settled(p, r, a):
                            break
                        if usable(ckpt.moves.get(p, {}).get(r, {}).get(a, {}).get(m)):
                            continue
                        split_at_once((p, r, a, m))
                        if (p, r, a, m) in ckpt.split and children((p, r, a, m))[0]:
                            yield from line_tasks((p, r, a, m))
                            continue
                        yield (size, p, tt_mb, win_loss_only, ckpt.progress_file(p, r, a, m),
                               node_progress if serial else None, r, method, a, threads, m,
                               (), unit_budget)
                        if (p, r, a, m) in ckpt.split and children((p, r, a, m))[0]:
                            yield from line_tasks((p, r, a, m))  # split as it ran

    def record(args: tuple, row: dict) -> None:
        """Save a finished unit's row and decide what it decides."""
        p, r = args[1], args[6]
        a, m = args[8], args[10]
        line = args[11] if len(args) > 11 else ()
        if line:
            path = (p, r, a, m, *line)
            ckpt.clear_progress(p, r, a, m, line)
            # a unit finishing after a line above it was decided adds nothing
            if not line_settled(path):
                ckpt.save_line(path, row)
                decide_up_from(path[:-1])
        elif m >= 0:
            ckpt.clear_progress(p, r, a, m)
            # a move finishing after its answer, reply or class was decided adds nothing
            if not settled(p, r, a):
                ckpt.save_move(p, r, a, m, row)
                decide_answer(p, r, a)
                decide_reply(p, r)
                decide(p)
        elif a >= 0:
            ckpt.clear_progress(p, r, a)
            # an answer finishing after its reply or class was decided (by
            # another worker's answer) adds nothing
            if p not in results and not usable(ckpt.replies.get(p, {}).get(r)):
                ckpt.save_answer(p, r, a, row)
                decide_reply(p, r)
                decide(p)
        elif r < 0:
            results[p] = row
            ckpt.save(p, row)
            ckpt.clear_progress(p)
            if bar is not None:
                bar.update(1)
        else:
            ckpt.save_reply(p, r, row)
            ckpt.clear_progress(p, r)
            decide(p)

    reason = None
    try:
        elapsed = time.perf_counter() - t0
        remaining = None if time_limit is None else max(0.0, time_limit - elapsed)
        split_in_pass = True
        while split_in_pass and len(results) < len(classes):
            # a pass over the units; one that split a unit runs again for its children
            split_in_pass = False
            for args, row in executor.run(solve_opening_search, tasks(), timeout=remaining):
                if not row.get("too_long"):
                    record(args, row)
                else:
                    path = _unit_path(args)
                    ckpt.clear_progress(*path[:4], line=path[4:])
                    if not line_settled(path):
                        ckpt.mark_split(path, row["nodes"], row["seconds"])
                        extra.setdefault("lines_split_now", []).append(line_tag(path))
                        split_in_pass = True
                if time_limit is not None and time.perf_counter() - t0 > time_limit:
                    if len(results) < len(classes):
                        raise TimeoutError
            if time_limit is not None:
                remaining = max(0.0, time_limit - (time.perf_counter() - t0))
        if len(results) < len(classes):  # pragma: no cover - defensive
            raise RuntimeError("the run ended with undecided classes")
    except KeyboardInterrupt:
        reason = "interrupted"
    except SystemError as e:  # Ctrl-C/SIGTERM landing inside a Numba callback
        if not interrupted_inside(e):
            raise
        reason = "interrupted"
    except TimeoutError:
        reason = f"time limit of {time_limit:g} s reached"
    finally:
        if bar is not None:
            bar.close()
    study = _study(size, method, classes, results, time.perf_counter() - t0, extra, win_loss_only)
    if reason is not None:
        study.extra["unfinished_work"] = ckpt.unfinished_work()
        study.extra.update(proven_on_record(size, ckpt, results))
        raise Interrupted(study, reason, checkpoint_path)
    return study


def _brief(row: dict) -> dict:
    """A proven row as the metadata file shows it: its verdict and cost, with its
    tree of units (``"units"``, ``"lost"``) replaced by how many units it has;
    the checkpoint keeps the whole tree (``trilab confirm`` reads it there)."""
    brief = {k: v for k, v in row.items() if k not in ("units", "lost")}
    if row.get("units"):
        brief["units_in_checkpoint"] = len(row["units"])
    return brief


def proven_on_record(size: int, ckpt: Checkpoint, results: dict[int, dict]) -> dict:
    """What a stopped run proved below its undecided classes, for the metadata
    file, by point label: the proven replies, answers, moves and lines below
    split moves, each row brief (:func:`_brief`), and the split lines with the
    work they lost."""
    def label(path) -> str:
        return "-".join(point_label(size, x) for x in path)

    return {
        "proven_replies": {
            point_label(size, p): {point_label(size, r): _brief(row) for r, row in v.items()}
            for p, v in ckpt.replies.items() if p not in results},
        "proven_answers": {
            point_label(size, p): {point_label(size, r): {point_label(size, a): _brief(row)
                                                          for a, row in rows.items()}
                                   for r, rows in v.items()}
            for p, v in ckpt.answers.items() if p not in results},
        "proven_moves": {
            point_label(size, p): {
                point_label(size, r): {
                    point_label(size, a): {point_label(size, m): _brief(row)
                                           for m, row in ms.items()}
                    for a, ms in by_a.items()}
                for r, by_a in v.items()}
            for p, v in ckpt.moves.items() if p not in results},
        "proven_lines": {label(k): _brief(row) for k, row in ckpt.lines.items()},
        "split_lines": {label(k): row for k, row in ckpt.split.items()},
    }


def centrality(size: int, point: int) -> tuple[int, int]:
    """Sorted barycentric distances to the sides (smallest, middle): larger
    means more central.  Central openings solve fastest (size 7: the centre
    33M nodes, a corner 756M)."""
    r, c = trike.point_coords(size)[point]
    a, b, e = sorted((c, r - c, size - 1 - r))
    return a, b


def _study(size, method, classes, results, seconds, extra, win_loss_only) -> OpeningStudy:
    coords = trike.point_coords(size)
    rows, open_classes = [], []
    for cls_id, cls in enumerate(classes):
        res = results.get(cls[0])
        if res is None:
            open_classes.append(cls)
            continue
        for p in cls:
            r, c = coords[p]
            rows.append({"point": p, "row": r, "col": c, "symmetry_class": cls_id, **res})
    table = pd.DataFrame(rows, columns=COLUMNS)
    if len(table):
        table = table.sort_values("point").reset_index(drop=True)
    for col in ("margin", "remoteness", "winning_replies"):
        table[col] = table[col].astype("Int64")
    return OpeningStudy(size, method, table, seconds, extra, open_classes, win_loss_only)


def board_text(study: OpeningStudy) -> str:
    """The board as text, each point marked P (placer wins), M (mover wins)
    or ? (not solved yet)."""
    n = study.size
    mark = dict(zip(study.table.point, study.table.winner.map({"placer": "P", "mover": "M"})))
    lines = []
    for r in range(n):
        cells = [mark.get(trike.point_index(r, c), "?") for c in range(r + 1)]
        lines.append(" " * (n - 1 - r) + " ".join(cells))
    return "\n".join(lines)


def format_table(study: OpeningStudy) -> str:
    t = study.table.copy()
    t["seconds"] = t["seconds"].map(lambda x: f"{x:.3f}")
    return t.to_string(index=False)


def format_summary(study: OpeningStudy) -> str:
    s = study.summary()
    lines = []
    if not study.complete:
        lines.append(f"Partial: {len(study.open_classes)} symmetry classes still open: "
                     + ", ".join(c[0] for c in s["open_classes"]) + " (and their images).")
    solved = "" if study.complete else " solved"
    lines.append(f"Openings won by the placer: {s['placer_wins']} of {s['openings']}{solved} "
                 f"({s['symmetry_classes']} symmetry classes)")
    if s["first_player_wins_without_pie"]:
        lines.append("Without the pie rule the first player wins, by opening on "
                     + ", ".join(s["winning_openings_without_pie"]) + ".")
    elif study.complete:
        lines.append("Without the pie rule the first player loses: every opening "
                     "wins for the second player.")
    if s["pie_swap_on"]:
        lines.append("With the pie rule the second player swaps on "
                     + ", ".join(s["pie_swap_on"]) + " and plays on elsewhere.")
    elif study.complete:
        lines.append("With the pie rule the second player never swaps (no opening "
                     "wins for the placer).")
    if "pie_second_player_margin" in s and study.complete:
        lines.append("The second player then wins; the first player's best openings "
                     f"(second player's margin {s['pie_second_player_margin']}): "
                     + ", ".join(s["pie_best_openings_for_first_player"]) + ".")
    return "\n".join(lines)
