"""The value of every legal move of a Trike position, for the explorer.

Exact values, from the view of the side to move (``result`` win/lose,
``margin`` > 0 for a win, ``remoteness`` in moves to the end):

* the empty board of sides up to 8: the committed opening tables
  (``results/trike/size-N.csv``; the value of each opening for the placer,
  without the swap);
* the replies to an opening on sides 7 and 8: the per-reply records of the
  reply-split solves (``results/trike/replies/size-7.replies.json``, with
  margins and remoteness; ``results/trike/size-8.replies.json``, win/loss
  only, shown as a margin of at least one point);
* sides up to :data:`DB_MAX_SIZE`: the retrograde database
  ``results/trike/db/size-N.npz`` when it is there;
* sides up to :data:`EXACT_MAX_SIZE`: the alpha-beta solver, move by move
  (margins first, then remoteness) until the time limit of the request.

Whatever is not exact by then, and every move of sides 9..19, gets the MCTS
agent's estimate: the mover's mean reward (win rate) and the visits of the
move.  An :class:`Analyst` runs on one worker thread; :class:`Budget` carries
the request's deadline and cancel flag, checked between solver chunks (every
``CHUNK_NODES`` nodes) and before each agent search, so a search never runs
past its limit by more than a chunk or one agent budget.
"""

from __future__ import annotations

import csv
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from trilab.analysis.explorer import positions
from trilab.analysis.explorer.positions import SWAP, Ply
from trilab.solver.rng import game_stream
from trilab.solver.trike import agents as trike_arrays
from trilab.solver.trike import engine as trike
from trilab.solver.trike.engine import TrikePosition

EXACT_MAX_SIZE = 8
"""Largest side the solver is tried on (size 9 positions are out of reach near the opening)."""
DB_MAX_SIZE = 5
"""Largest side whose retrograde database is looked up (sizes 2..5 are committed)."""
CHUNK_NODES = 1 << 18
"""Solver nodes between two checks of the deadline and the cancel flag."""
MAX_TREE_NODES = 1 << 20
"""Bound on the agent's search tree (memory per request)."""
TABLE_MAX_SIZE = 8


class Cancelled(Exception):
    """The request was cancelled (the page moved on, or the server stops)."""


class _OutOfTime(Exception):
    """The solver's deadline passed (internal: the rest is estimated)."""


@dataclass
class Budget:
    """The limits of one request: a cancel flag and the solver's time limit."""

    seconds: float
    cancel: threading.Event = field(default_factory=threading.Event)
    started: float = field(default_factory=time.monotonic)

    @property
    def deadline(self) -> float:
        return self.started + self.seconds

    def check(self) -> None:
        if self.cancel.is_set():
            raise Cancelled("cancelled")

    def left(self) -> float:
        return self.deadline - time.monotonic()


def canonical_key(pos: TrikePosition) -> tuple[int, int, int]:
    """The position's key up to the board's symmetries (from its mover's view)."""
    mine, theirs = pos.mine_theirs()
    m, th, pawn, _ = trike.canonical(trike.tables(pos.size).symmetry, np.uint64(mine),
                                     np.uint64(theirs), pos.pawn)
    return int(m), int(th), int(pawn)


def exact_entry(margin: int, remoteness: int | None, mover: str) -> dict:
    other = "w" if mover == "b" else "b"
    return {"kind": "exact", "result": "win" if margin > 0 else "lose",
            "winner": mover if margin > 0 else other, "margin": int(margin),
            "remoteness": None if remoteness is None else int(remoteness)}


def estimate_entry(win_rate: float, visits: int, proven: bool) -> dict:
    return {"kind": "estimate", "win_rate": round(float(win_rate), 4), "visits": int(visits),
            "proven": bool(proven)}


def rank(entry: dict) -> tuple:
    """Sort key, best first for the mover: exact wins (largest margin, then
    fastest), then estimates (most visits: the agent's choice), then exact
    losses (smallest loss, then slowest)."""
    if entry["kind"] == "exact":
        rem = entry["remoteness"] if entry["remoteness"] is not None else 999
        if entry["margin"] > 0:
            return (0, -entry["margin"], rem, 0.0)
        return (2, -entry["margin"], -rem, 0.0)
    return (1, 0, -entry["visits"], -entry["win_rate"])


def best(moves: list[dict]) -> dict | None:
    return min(moves, key=rank) if moves else None


class Analyst:
    """Values of positions with a cache; one instance per server, used by one
    worker thread at a time (the solver and its table are not shared)."""

    def __init__(self, results_dir: Path, time_limit: float = 10.0,
                 agent: str = trike_arrays.DEFAULT_AGENT, tt_mb: float = 64,
                 cache_entries: int = 512, seed: int = 0):
        self.results_dir = Path(results_dir)
        self.time_limit = float(time_limit)
        self.agent = trike_arrays.parse_agent(agent)
        self.tt_mb = tt_mb
        self.seed = seed
        self.cache_entries = cache_entries
        self._cache: OrderedDict[tuple, dict] = OrderedDict()
        self._lock = threading.Lock()
        self._solver = None
        self._budget: Budget | None = None
        self._dbs: dict[int, object] = {}
        self._tables: dict[int, dict[int, tuple[int, int]] | None] = {}
        self._replies: dict[int, dict | None] = {}

    def fork(self) -> Analyst:
        """A twin for a fresh worker thread (the old one is stuck): the same
        limits, cache and tables, its own solver."""
        twin = Analyst(self.results_dir, self.time_limit, self.agent.text, self.tt_mb,
                       self.cache_entries, self.seed)
        twin._cache, twin._lock = self._cache, self._lock
        twin._dbs, twin._tables, twin._replies = self._dbs, self._tables, self._replies
        return twin

    # ------------------------------------------------------------ cache

    def cached(self, size: int, notation: str) -> dict | None:
        with self._lock:
            hit = self._cache.get((size, notation))
            if hit is not None:
                self._cache.move_to_end((size, notation))
            return hit

    def _store(self, size: int, notation: str, result: dict) -> None:
        with self._lock:
            self._cache[(size, notation)] = result
            while len(self._cache) > self.cache_entries:
                self._cache.popitem(last=False)

    # ------------------------------------------------------------ sources

    def _solver_for(self, size: int):
        from trilab.solver.trike.alphabeta import AlphaBetaSolver

        if self._solver is None or self._solver.size != size:
            self._solver = None  # free the old table first
            self._solver = AlphaBetaSolver(size, tt_mb=self.tt_mb, progress=self._progress,
                                           chunk_nodes=CHUNK_NODES)
        return self._solver

    def _progress(self, _nodes: int) -> None:
        budget = self._budget
        if budget is None:
            return
        budget.check()
        if budget.left() <= 0:
            raise _OutOfTime

    def _db(self, size: int):
        if size not in self._dbs:
            from trilab.solver.trike.retrograde import RetrogradeDatabase

            path = self.results_dir / "trike" / "db" / f"size-{size}.npz"
            self._dbs[size] = RetrogradeDatabase.load(path) if path.exists() else None
        return self._dbs[size]

    def opening_table(self, size: int) -> dict[int, tuple[int, int]] | None:
        """``{point: (margin for the placer, remoteness after the opening)}`` from
        ``results/trike/size-N.csv`` (None when missing or incomplete)."""
        if size not in self._tables:
            path = self.results_dir / "trike" / f"size-{size}.csv"
            table: dict[int, tuple[int, int]] | None = None
            if size <= TABLE_MAX_SIZE and path.exists():
                table = {}
                with path.open() as f:
                    for row in csv.DictReader(f):
                        if not row.get("margin") or not row.get("remoteness"):
                            continue
                        table[int(row["point"])] = (int(row["margin"]), int(row["remoteness"]))
                if len(table) != trike.n_points(size):
                    table = None
            self._tables[size] = table
        return self._tables[size]

    def reply_table(self, size: int) -> dict | None:
        """``{canonical key of the position after a reply: (placer wins, placer's
        margin or None, remoteness after the reply or None)}`` for every reply
        to every opening, from the reply record of ``size`` (None without one).
        Symmetric images share a key, so any opening point and reply is found."""
        if size not in self._replies:
            from trilab.analysis.trike.openings import read_reply_record

            table = None
            for path in (self.results_dir / "trike" / "replies" / f"size-{size}.replies.json",
                         self.results_dir / "trike" / f"size-{size}.replies.json"):
                if path.exists():
                    _, replies = read_reply_record(path, size)
                    table = {}
                    for point, rows in replies.items():
                        opening = trike.opening(size, point)
                        for reply, row in rows.items():
                            table[canonical_key(opening.play(reply))] = (
                                bool(row["placer_wins"]), row.get("margin"),
                                row.get("remoteness"))
                    break
            self._replies[size] = table
        return self._replies[size]

    # ------------------------------------------------------------ analysis

    def analyze(self, size: int, pos: TrikePosition | None, budget: Budget) -> dict:
        """Values of every legal move of ``pos`` (None: the empty board), cached."""
        notation = "" if pos is None else pos.to_notation()
        hit = self.cached(size, notation)
        if hit is not None:
            return {**hit, "cached": True}
        budget.check()
        t0 = time.perf_counter()
        result = self._analyze(size, pos, budget)
        result["seconds"] = round(time.perf_counter() - t0, 3)
        budget.check()
        self._store(size, notation, result)
        return {**result, "cached": False}

    def _analyze(self, size: int, pos: TrikePosition | None, budget: Budget) -> dict:
        mover = "b" if pos is None else pos.to_move
        if pos is None:
            points = list(range(trike.n_points(size)))
            children = [trike.opening(size, p) for p in points]
        else:
            points = positions.legal_points(pos)
            children = [pos.play(p) for p in points]
        exact: dict[int, dict] = {}
        sources: list[str] = []
        timed_out = False
        if pos is None and self.opening_table(size) is not None:
            table = self.opening_table(size)
            for p in points:
                m, r = table[p]
                exact[p] = exact_entry(m, r + 1, mover)
            sources.append("opening table")
        elif (pos is not None and pos.checkers == 1 and points
              and self.reply_table(size) is not None):
            # a record holds the replies its run proved (for a mover-won opening,
            # the winning one); the solver and the agent answer for the others
            for p, child in zip(points, children):
                found = self.reply_table(size).get(canonical_key(child))
                if found is None:
                    continue
                placer_wins, margin, rem = found
                if margin is None:  # a win/loss record: the margin is at least one point
                    exact[p] = {**exact_entry(-1 if placer_wins else 1, None, mover),
                                "margin_at_least": True}
                else:
                    exact[p] = exact_entry(-margin, None if rem is None else rem + 1, mover)
            if exact:
                sources.append("reply record")
        elif pos is not None and points and size <= DB_MAX_SIZE and self._db(size) is not None:
            found = [self._db(size).lookup(c) for c in children]
            if all(f is not None for f in found):
                for p, (m, r) in zip(points, found):
                    exact[p] = exact_entry(-m, r + 1, mover)
                sources.append("database")
        unsolved = [(p, c) for p, c in zip(points, children) if p not in exact]
        if unsolved and size <= EXACT_MAX_SIZE:
            before = len(exact)
            timed_out = self._solve(size, [p for p, _ in unsolved], [c for _, c in unsolved],
                                    mover, exact, budget)
            if len(exact) > before:
                sources.append("solver")
        estimates: dict = {}
        root_estimate = None
        missing = [p for p in points if p not in exact]
        swap_here = pos is not None and pos.checkers == 1
        if missing or (swap_here and len(exact) < len(points)):
            budget.check()
            estimates, root_estimate = self._estimate(size, pos, budget)
            sources.append("agent")
        moves = []
        for p in points:
            r, c = positions.coords(size, p)
            entry = exact.get(p) or estimates.get(p)
            if entry is None:  # the agent's tree did not expand it (a huge budget cut)
                entry = estimate_entry(0.5, 0, False)
            moves.append({"move": f"{r}.{c}", "row": r, "col": c, **entry})
        moves.sort(key=rank)
        value = self._position_value(pos, moves, root_estimate)
        swap = None
        if swap_here:
            if value is not None and value["kind"] == "exact":
                swap = exact_entry(-value["margin"], None if value["remoteness"] is None
                                   else value["remoteness"] + 1, mover)
            else:
                swap = estimates.get(SWAP)
            if swap is not None:
                swap = {"move": SWAP, **swap}
        n_exact = sum(m["kind"] == "exact" for m in moves)
        note = ""
        if timed_out and n_exact < len(moves):
            note = (f"the solver's time limit ({self.time_limit:g} s) ran out: "
                    f"{len(moves) - n_exact} of {len(moves)} moves are the agent's estimates")
        elif timed_out:
            note = f"the solver's time limit ({self.time_limit:g} s) ran out before the remoteness"
        return {"size": size, "pos": "" if pos is None else pos.to_notation(),
                "to_move": mover, "value": value, "moves": moves, "swap": swap,
                "exact_moves": n_exact, "estimated_moves": len(moves) - n_exact,
                "sources": sources, "note": note, "agent": self.agent.text,
                "opening": pos is None}

    def _solve(self, size: int, points: list[int], children: list[TrikePosition], mover: str,
               exact: dict, budget: Budget) -> bool:
        """Exact margins, then remoteness, of the children until the deadline;
        True if it ran out."""
        solver = self._solver_for(size)
        self._budget = Budget(min(budget.seconds, self.time_limit), budget.cancel,
                              budget.started)
        margins: dict[int, int] = {}
        try:
            for p, child in zip(points, children):
                if self._budget.left() <= 0:
                    raise _OutOfTime
                margins[p] = -solver.margin(child)
                exact[p] = exact_entry(margins[p], None, mover)
            for p, child in zip(points, children):
                if self._budget.left() <= 0:
                    raise _OutOfTime
                rem = solver.remoteness(child) + 1
                exact[p] = exact_entry(margins[p], rem, mover)
        except _OutOfTime:
            return True
        finally:
            self._budget = None
        return False

    def _estimate(self, size: int, pos: TrikePosition | None, budget: Budget):
        """The agent's estimates ``({point or SWAP: entry}, root estimate)``."""
        if pos is None:
            state = trike_arrays.new_state(size, False)  # opening values without the swap
        else:
            state = trike_arrays.from_position(pos, pos.checkers == 1)
        game = self.agent.game(size)
        stream = game_stream(np.uint64(self.seed), np.uint64(0))
        res = game.search(state, self.agent.spec, stream, max_nodes=MAX_TREE_NODES)
        budget.check()
        n = trike.n_points(size)
        out: dict = {}
        for ch in res.children:
            key = SWAP if ch.action == n else int(ch.action)
            out[key] = estimate_entry(ch.value, ch.visits, ch.proven)
        board = [ch for ch in res.children if ch.action != n]
        root = None
        if board:
            top = max(board, key=lambda ch: (ch.visits, ch.value))
            root = estimate_entry(top.value, res.simulations, top.proven)
        return out, root

    @staticmethod
    def _position_value(pos: TrikePosition | None, moves: list[dict],
                        root_estimate: dict | None) -> dict | None:
        """The value of the position for the side to move (without the swap)."""
        if pos is None:
            return None
        if not moves:  # the game is over
            sc = positions.scores(pos)
            mover = pos.to_move
            other = "w" if mover == "b" else "b"
            return exact_entry(sc[mover] - sc[other], 0, mover)
        if all(m["kind"] == "exact" for m in moves):
            top = best(moves)
            if top["margin"] > 0:
                rems = [m["remoteness"] for m in moves if m["margin"] > 0]
                rem = None if None in rems else min(rems)
            else:
                rems = [m["remoteness"] for m in moves]
                rem = None if None in rems else max(rems)
            value = exact_entry(top["margin"], rem, pos.to_move)
            if any(m.get("margin_at_least") for m in moves):
                value["margin_at_least"] = True
            return value
        wins = [m for m in moves if m["kind"] == "exact" and m["margin"] > 0]
        if wins:  # one exact winning move settles the win (margin at least its own)
            top = best(wins)
            return {**exact_entry(top["margin"], None, pos.to_move), "margin_at_least": True}
        return root_estimate

    # ------------------------------------------------------------ lines and moves

    def best_line(self, size: int, ply: Ply, budget: Budget, plies: int = 10) -> list[dict]:
        """The best line from ``ply``: each side's best move (by :func:`rank`) in turn,
        until the game ends, ``plies`` moves, or the budget runs out."""
        line = []
        pos = ply.pos
        while len(line) < plies and budget.left() > 0:
            budget.check()
            step = Budget(budget.left(), budget.cancel)
            res = self.analyze(size, pos, step)
            top = best(res["moves"])
            if top is None:
                break
            line.append({k: top[k] for k in top if k not in ("row", "col")}
                        | {"row": top["row"], "col": top["col"], "to_move": res["to_move"]})
            point = trike.point_index(top["row"], top["col"])
            pos = trike.opening(size, point) if pos is None else pos.play(point)
        return line

    def solver_move(self, ply: Ply, budget: Budget) -> tuple[int | str, str]:
        """The solver's move: the swap when the placer wins the opening, else the
        best move by :func:`rank`; on the empty board the opening with the
        longest loss (with the pie rule every opening loses against perfect play)."""
        res = self.analyze(ply.size, ply.pos, budget)
        moves = list(res["moves"])
        if ply.pos is None:
            losing = [m for m in moves if m["kind"] == "exact" and m["margin"] < 0]
            if losing:
                top = max(losing, key=lambda m: (m["remoteness"] or 0, m["margin"]))
                note = "an opening the placer loses, so no swap (every opening loses " \
                       "against perfect play under the pie rule)"
            else:
                top = min(moves, key=lambda m: abs(m.get("win_rate", 1.0) - 0.5))
                note = "an opening (every one loses against perfect play under the pie rule)"
            return trike.point_index(top["row"], top["col"]), note
        if ply.swap_allowed and res["swap"] is not None:
            moves.append(res["swap"])
        top = best(moves)
        if top["move"] == SWAP:
            return SWAP, "the placer wins this opening, so it swaps"
        point = trike.point_index(top["row"], top["col"])
        if top["kind"] == "exact":
            word = "wins" if top["margin"] > 0 else "loses"
            return point, f"perfect play: {word} by {abs(top['margin'])}"
        return point, "the solver ran out of time: the agent's choice"

    def agent_move(self, ply: Ply, budget: Budget) -> tuple[int | str, str]:
        """The agent's move (its own search, with the swap when it is allowed)."""
        budget.check()
        size = ply.size
        if ply.pos is None:
            state = trike_arrays.new_state(size, True)
        else:
            state = trike_arrays.from_position(ply.pos, ply.swap_allowed)
        game = self.agent.game(size)
        plies = 0 if ply.pos is None else ply.pos.checkers + int(ply.swapped)
        stream = game_stream(np.uint64(self.seed), np.uint64(plies))
        res = game.search(state, self.agent.spec, stream, max_nodes=MAX_TREE_NODES)
        budget.check()
        action: int | str = SWAP if res.action == trike.n_points(size) else int(res.action)
        note = (f"{self.agent.text}: value {res.value:.2f}{' (proven)' if res.proven else ''}, "
                f"{res.simulations:,} simulations")
        return action, note
