"""Exact margins and remoteness of Trike's opening classes, from a win/loss record.

A reply-split win/loss run (``trilab solve trike --size 8``) proves who wins
each opening class and after which mover replies.  Exact values then cost a
few null-window probes per reply, because the signs are known and the values
are small (every opening of sizes 3-7 is won by exactly 1).

Both values are the placer's, as in the opening table, and both come out of
one rule: after the mover's reply the placer is to move, and the mover picks
the reply that is worst for the placer, so **a class's value is the least of
the placer's values over the replies** (in the solver's two scorings):

* margin: the final score difference;
* remoteness mode: ``+(W - r)`` for a win in ``r`` plies, ``-(W - r)`` for a
  loss (``W`` = ``WIN_BASE``), so the least value is the mover's fastest win or,
  when every reply loses for the mover, its slowest loss; the class's
  remoteness is ``1 + W - |value|``.

The least over replies is found reply by reply, with each reply's known sign
(placer-won replies are ``>= 1``, the mover's winning replies ``<= -1``):

1. the first reply (the mover's known winning reply in a mover-won class,
   else the cheapest by the win/loss run's node count) gets its exact value:
   probes "value >= k?" from the end of its known range nearest zero for
   margins (they are small), by bisection with fail-soft bounds for
   remoteness;
2. every other reply gets one probe "value >= least so far?" (none when its
   known sign already says yes); a "no" sends it through step 1 below the
   least so far.

So a placer-won class's margin is settled by one probe when some reply gives
+1, and a mover-won class's by one probe per reply not already proven lost.

Every probe's answer and fail-soft bound are saved at once in
``size-N.margins.json`` (atomic writes), keyed by ``(point, reply, mode, k)``;
the plan is a pure function of those answers, so a stopped run resumes by
replaying the record and probing only what is new (and
:mod:`trilab.analysis.trike.size_table` replays it to fill in the opening
table).  Successive probes of one
position share its table (the second costs a fraction of the first), so node
counts, unlike answers, depend on where a run was resumed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from trilab.analysis import artifacts
from trilab.analysis.trike.openings import point_label, read_reply_record, reply_representatives
from trilab.solver.trike import engine as trike
from trilab.solver.trike.alphabeta import (
    MAX_MARGIN,
    MODE_MARGIN,
    MODE_REMOTENESS,
    WIN_BASE,
    AlphaBetaSolver,
)

FORMAT = "trilab-trike-margins"
MODES = {"margin": MODE_MARGIN, "remoteness": MODE_REMOTENESS}


class Stop(Exception):
    """The time limit was reached (every answer so far is saved)."""


@dataclass
class ClassValue:
    """What is known of one opening class's value in one mode (the placer's).

    ``low <= value <= high``; exact when they are equal.
    """

    point: int
    mode: str
    winner: str
    low: int
    high: int
    replies_done: int
    replies_total: int
    nodes: int = 0
    seconds: float = 0.0

    @property
    def exact(self) -> bool:
        return self.low == self.high


def load(path: Path, size: int) -> dict:
    if not path.exists():
        return {"format": FORMAT, "size": size, "probes": []}
    data = json.loads(path.read_text())
    if data.get("format") != FORMAT or data.get("size") != size:
        raise ValueError(f"{path} is not a Trike size-{size} margins file")
    return data


class Prober:
    """Answers "is the placer's value after ``reply`` to ``point`` at least k?"
    (with the search's fail-soft bound), from the saved record when it has
    the answer, else by one search whose answer is saved at once."""

    def __init__(self, size: int, out: Path, tt_mb: float,
                 deadline: float | None = None,
                 progress: Callable[[str], None] | None = None, region_keys: bool = True):
        self.size, self.out = size, out
        self.data = load(out, size)
        self.known = {(x["point"], x["reply"], x.get("mode", "margin"), x["k"]): x
                      for x in self.data["probes"]}
        self.deadline = deadline
        self.progress = progress
        self.tt_mb = tt_mb
        self.region_keys = region_keys
        self._solver: AlphaBetaSolver | None = None
        self.last: tuple | None = None

    def _tick(self, nodes: int) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise Stop

    @property
    def solver(self) -> AlphaBetaSolver:
        if self._solver is None:  # a replay needs no table
            self._solver = AlphaBetaSolver(self.size, tt_mb=self.tt_mb, progress=self._tick,
                                           region_keys=self.region_keys)
        return self._solver

    def probe(self, point: int, reply: int, mode: str, k: int) -> tuple[bool, int]:
        key = (point, reply, mode, k)
        if key not in self.known:
            self._tick(0)
            solver = self.solver
            if self.last != (point, reply, mode):  # probes of one search share its table
                solver.reset()
                self.last = (point, reply, mode)
            n0, t0 = solver.nodes, time.perf_counter()
            v = solver.null_window(trike.opening(self.size, point).play(reply), k, MODES[mode])
            row = {"point": point, "reply": reply, "mode": mode, "k": k, "answer": v >= k,
                   "bound": int(v), "nodes": solver.nodes - n0,
                   "seconds": round(time.perf_counter() - t0, 3)}
            self.data["probes"].append(row)
            self.known[key] = row
            artifacts.write_json(self.out, self.data)
            if self.progress is not None:
                self.progress(f"opening {point_label(self.size, point)} reply "
                              f"{point_label(self.size, reply)}: placer's {mode} >= {k}? "
                              f"{'yes' if v >= k else 'no'} ({row['nodes']:,} nodes, "
                              f"{row['seconds']:.1f} s)")
        row = self.known[key]
        return row["answer"], row.get("bound", k if row["answer"] else k - 1)

    def cost(self, point: int, mode: str) -> tuple[int, float]:
        rows = [x for x in self.data["probes"]
                if x["point"] == point and x.get("mode", "margin") == mode]
        return sum(x["nodes"] for x in rows), sum(x["seconds"] for x in rows)


def value_range(mode: str, sign: int) -> tuple[int, int]:
    """The values a position of known sign (+1 won, -1 lost, 0 unknown) can take."""
    top = MAX_MARGIN if mode == "margin" else WIN_BASE
    return {1: (1, top), -1: (-top, -1), 0: (-top, top)}[sign]


def exact_value(prober: Prober, point: int, reply: int, mode: str, lo: int, hi: int) -> int:
    """The exact value in ``[lo, hi]``: margins step from the end nearest zero
    (they are small), remoteness values bisect (fail-soft bounds narrow both)."""
    while lo < hi:
        if mode == "margin":  # ask "value >= k" next to the likely answer
            k = lo + 1 if lo >= 0 else (hi if hi <= 0 else 1)
        else:
            k = (lo + hi + 1) // 2
        yes, bound = prober.probe(point, reply, mode, k)
        if yes:
            lo = max(k, min(bound, hi))
        else:
            hi = min(k - 1, max(bound, lo))
    return lo


def class_value(prober: Prober, point: int, winner: str, replies: dict[int, dict],
                mode: str = "margin",
                first_reply_only: bool = False) -> tuple[ClassValue, bool]:
    """One class's value, refined by the plan of the module docstring as far as
    the prober's deadline allows: ``(state, finished)``.  ``first_reply_only``
    stops after the first reply's exact value (a bound for the class)."""
    reps = sorted(set(reply_representatives(prober.size, point).values()))
    by_cost = sorted(reps, key=lambda r: (replies.get(r, {}).get("nodes", 1 << 62), r))

    def sign(r: int) -> int:
        return 0 if r not in replies else (1 if replies[r]["placer_wins"] else -1)

    if winner == "mover":
        won = [r for r in by_cost if sign(r) < 0]
        if not won:
            raise ValueError(f"the record has no winning reply of class {point}")
        by_cost.remove(won[0])
        by_cost.insert(0, won[0])
    low, high = value_range(mode, 1 if winner == "placer" else -1)
    state = ClassValue(point, mode, winner, low, high, 0, len(reps))
    least: int | None = None
    try:
        for reply in by_cost:
            lo, hi = value_range(mode, sign(reply))
            if mode == "remoteness":
                lo, hi = _remoteness_range(prober.size, point, reply, lo, hi)
            if least is not None:
                if lo >= least:  # its sign says it cannot go lower
                    state.replies_done += 1
                    continue
                if prober.probe(point, reply, mode, least)[0]:
                    state.replies_done += 1
                    continue
                hi = min(hi, least - 1)
            least = exact_value(prober, point, reply, mode, lo, hi)
            state.high = least
            state.replies_done += 1
            if first_reply_only:
                break
        if state.replies_done == len(reps):
            state.low = state.high
        finished = True
    except Stop:
        finished = False
    state.nodes, state.seconds = prober.cost(point, mode)
    return state, finished


def run(size: int, record: Path, out: Path, tt_mb: float, time_limit: float | None = None,
        progress: Callable[[str], None] | None = None, modes: tuple[str, ...] = ("margin",),
        replay_only: bool = False, region_keys: bool = True) -> tuple[list[ClassValue], bool]:
    """Every class of the record refined in each mode, all margins before any
    remoteness, cheapest work first.  Margins: placer-won classes (one probe
    each when some reply gives +1), then the known winning reply of each
    mover-won class (cheapest proof first), then their other replies.
    Remoteness: the mover-won classes first (replies proven lost for the mover
    need no probe), then the placer-won ones (a probe for every reply).
    Returns the per-(class, mode) states and whether the time limit stopped
    the run (what follows is then reported from saved answers only).
    ``replay_only`` searches nothing; ``region_keys=False`` keys the table by
    whole positions (a second code path for the same answers: keep its record
    apart)."""
    classes, replies = read_reply_record(record, size)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    prober = Prober(size, out, tt_mb, -1.0 if replay_only else deadline, progress, region_keys)

    def winning_cost(point: int) -> float:
        rows = replies.get(point, {}).values()
        return min((x["seconds"] for x in rows if not x["placer_wins"]), default=0.0)

    placer = sorted(p for p in classes if classes[p]["winner"] == "placer")
    mover = sorted((p for p in classes if classes[p]["winner"] != "placer"), key=winning_cost)
    states: dict[tuple[int, str], ClassValue] = {}
    stopped = False
    for mode in modes:
        passes = [(p, True) for p in mover] + [(p, False) for p in mover]
        placer_passes = [(p, False) for p in placer]
        passes = placer_passes + passes if mode == "margin" else passes + placer_passes
        for point, first_only in passes:
            if stopped:
                prober.deadline = -1.0  # replay saved answers, search nothing new
            state, finished = class_value(prober, point, classes[point]["winner"],
                                          replies.get(point, {}), mode, first_only)
            states[point, mode] = state
            stopped = stopped or not finished
    return [states[k] for k in sorted(states)], stopped


def _remoteness_range(size: int, point: int, reply: int, lo: int, hi: int) -> tuple[int, int]:
    """``[lo, hi]`` narrowed by what the position allows: a game that goes on
    lasts at least one more ply and at most one ply per empty point, so
    ``W - empty <= |value| <= W - 1`` (probing outside would search the whole
    tree to refute the impossible)."""
    child = trike.opening(size, point).play(reply)
    if not child.legal_moves():
        return lo, hi
    empty = trike.n_points(size) - child.checkers
    if lo >= 1:
        return max(lo, WIN_BASE - empty), min(hi, WIN_BASE - 1)
    if hi <= -1:
        return max(lo, 1 - WIN_BASE), min(hi, empty - WIN_BASE)
    return max(lo, 1 - WIN_BASE), min(hi, WIN_BASE - 1)


def table_rows(size: int, states: list[ClassValue]) -> list[dict]:
    """One row per class: margin and remoteness (exact or bounds), cost."""
    rows: dict[int, dict] = {}
    for st in states:
        r, c = trike.point_coords(size)[st.point]
        row = rows.setdefault(st.point, {"point": st.point, "row": r, "col": c,
                                         "winner": st.winner, "nodes": 0, "seconds": 0.0})
        if st.mode == "margin":
            row.update(margin=st.low if st.exact else None, margin_low=st.low,
                       margin_high=st.high, margin_exact=st.exact)
        else:  # remoteness from the placer's remoteness-mode value
            def rem(v: int) -> int:
                return 1 + WIN_BASE - abs(v)

            row.update(remoteness=rem(st.low) if st.exact else None,
                       remoteness_exact=st.exact,
                       remoteness_bounds=None if st.exact else
                       sorted({rem(st.low), rem(st.high)}))
        row[f"{st.mode}_replies_done"] = st.replies_done
        row["replies_total"] = st.replies_total
        row["nodes"] += st.nodes
        row["seconds"] = round(row["seconds"] + st.seconds, 3)
    return [rows[p] for p in sorted(rows)]
