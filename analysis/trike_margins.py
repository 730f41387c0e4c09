"""Exact margins of Trike's opening classes, starting from a win/loss record.

A reply-split win/loss run (``trilab solve trike --size 8``) proves who wins
each opening class and after which mover replies.  The *margin* (by how many
points the winner wins under perfect play) then costs a few null-window
probes, because the sign is already known and margins are small (every
opening of sizes 3-7 is won by exactly 1).  Values are the placer's, as in
the opening table: the placer moves after the mover's reply, and the class
margin is the least of the placer's margins over the replies.

* **Placer-won class** (every reply leaves the placer winning, margin >= 1):
  replies are taken cheapest first (by the win/loss run's node count); each
  reply's margin is found by probes "margin >= k?" for k = 2, 3, ... up to
  the least margin found so far.  As soon as one reply gives 1 the class
  margin is exactly 1 and the other replies need nothing.
* **Mover-won class**: the winning reply the run found gets its exact margin
  first (probes "placer's margin >= -k?" for k = 1, 2, ...; the mover wins
  by the first k where the answer is yes).  Every other reply that the run did
  not prove placer-won then needs one probe "placer's margin >= -k?" (does it
  let the mover win by more?); a "no" sends that reply through the same
  search.  Until every reply is done the class is only bounded.

Every probe's answer is saved at once in ``size-N.margins.json`` (atomic
writes), keyed by ``(point, reply, k)``; the plan above is a pure function of
those answers, so a stopped run resumes by replaying the record and probing
only what is new.  Successive probes of one position share its table (the
second costs a fraction of the first), so node counts, unlike answers, depend
on where a run was resumed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from trilab.analysis import artifacts
from trilab.analysis.trike_openings import read_reply_record, reply_representatives
from trilab.solver import trike
from trilab.solver.alphabeta import AlphaBetaSolver

FORMAT = "trilab-trike-margins"


class Stop(Exception):
    """The time limit was reached inside a probe (what is saved stays saved)."""


@dataclass
class ClassMargin:
    """What is known of one opening class's margin (the placer's, as in the table).

    ``low <= margin <= high``; exact when they are equal.  ``None`` bounds are
    open (nothing probed yet on that side).
    """

    point: int
    winner: str
    low: int | None
    high: int | None
    replies_done: int
    replies_total: int
    nodes: int
    seconds: float

    @property
    def exact(self) -> bool:
        return self.low is not None and self.low == self.high

    def to_row(self, size: int) -> dict:
        r, c = trike.point_coords(size)[self.point]
        return {"point": self.point, "row": r, "col": c, "winner": self.winner,
                "margin": self.low if self.exact else None,
                "margin_low": self.low, "margin_high": self.high, "exact": self.exact,
                "replies_done": self.replies_done, "replies_total": self.replies_total,
                "nodes": self.nodes, "seconds": round(self.seconds, 3)}


def load(path: Path, size: int) -> dict:
    if not path.exists():
        return {"format": FORMAT, "size": size, "probes": []}
    data = json.loads(path.read_text())
    if data.get("format") != FORMAT or data.get("size") != size:
        raise ValueError(f"{path} is not a Trike size-{size} margins file")
    return data


class Prober:
    """Answers "is the placer's margin after ``reply`` to ``point`` at least k?",
    from the saved record when it has the answer, else by one search (saved)."""

    def __init__(self, size: int, out: Path, tt_mb: float,
                 deadline: float | None = None,
                 progress: Callable[[str], None] | None = None):
        self.size, self.out = size, out
        self.data = load(out, size)
        self.known = {(x["point"], x["reply"], x["k"]): x for x in self.data["probes"]}
        self.deadline = deadline
        self.progress = progress
        self.solver = AlphaBetaSolver(size, tt_mb=tt_mb, progress=self._tick)
        self.last: tuple[int, int] | None = None

    def _tick(self, nodes: int) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise Stop

    def at_least(self, point: int, reply: int, k: int) -> bool:
        key = (point, reply, k)
        if key not in self.known:
            if self.deadline is not None and time.perf_counter() > self.deadline:
                raise Stop
            if self.last != (point, reply):  # probes of one position share its table
                self.solver.reset()
                self.last = (point, reply)
            n0, t0 = self.solver.nodes, time.perf_counter()
            answer = self.solver.margin_at_least(trike.opening(self.size, point).play(reply), k)
            row = {"point": point, "reply": reply, "k": k, "answer": bool(answer),
                   "nodes": self.solver.nodes - n0,
                   "seconds": round(time.perf_counter() - t0, 3)}
            self.data["probes"].append(row)
            self.known[key] = row
            artifacts.write_json(self.out, self.data)
            if self.progress is not None:
                self.progress(f"opening {label(self.size, point)} reply "
                              f"{label(self.size, reply)}: placer's margin >= {k}? "
                              f"{'yes' if answer else 'no'} ({row['nodes']:,} nodes, "
                              f"{row['seconds']:.1f} s)")
        return self.known[key]["answer"]

    def cost(self, point: int) -> tuple[int, float]:
        rows = [x for x in self.data["probes"] if x["point"] == point]
        return sum(x["nodes"] for x in rows), sum(x["seconds"] for x in rows)


def _placer_margin(prober: Prober, point: int, reply: int, lo: int, cap: int | None) -> int:
    """The placer's margin after ``reply``, known to be >= ``lo``, searched
    upwards; stops at ``cap`` (returns ``cap`` when the margin is at least it)."""
    k = lo
    while cap is None or k < cap:
        if not prober.at_least(point, reply, k + 1):
            return k
        k += 1
    return k


def class_margin(prober: Prober, point: int, winner: str, replies: dict[int, dict],
                 winning_reply_only: bool = False) -> tuple[ClassMargin, bool]:
    """One class's margin refined by the plan of the module docstring, as far
    as the prober's deadline allows: ``(state, finished)``.  Every answer is
    saved as it comes, so an unfinished class resumes where it stopped.
    ``winning_reply_only`` stops a mover-won class after its known winning
    reply's exact margin (a bound for the class)."""
    size = prober.size
    reps = sorted(set(reply_representatives(size, point).values()))
    by_cost = sorted(reps, key=lambda r: (replies.get(r, {}).get("nodes", 1 << 62), r))
    state = ClassMargin(point, winner, None, None, 0, len(reps), 0, 0.0)
    try:
        if winner == "placer":
            state.low = 1  # every reply leaves the placer winning
            for reply in by_cost:
                m = _placer_margin(prober, point, reply, 1, state.high)
                state.high = m if state.high is None else min(state.high, m)
                state.replies_done += 1
                if state.high == 1:
                    state.replies_done = len(reps)  # no reply can give less
                    break
            state.low = state.high  # the least over every reply
        else:
            won = [r for r in by_cost if r in replies and not replies[r]["placer_wins"]]
            if not won:
                raise ValueError(f"the record has no winning reply of class {point}")
            lost_for_mover = {r for r in reps if r in replies and replies[r]["placer_wins"]}
            first = won[0]
            k = 1  # the mover wins by at least k: the placer's margin is at most -k
            state.high = -k
            while not prober.at_least(point, first, -k):
                k += 1
                state.high = -k
            state.replies_done = 1 + len(lost_for_mover)
            for reply in ([] if winning_reply_only else by_cost):
                if reply == first or reply in lost_for_mover:
                    continue
                while not prober.at_least(point, reply, -k):  # this reply wins by more
                    k += 1
                    state.high = -k
                state.replies_done += 1
            if state.replies_done == len(reps):
                state.low = state.high
        finished = True
    except Stop:
        finished = False
    state.nodes, state.seconds = prober.cost(point)
    return state, finished


def run(size: int, record: Path, out: Path, tt_mb: float, time_limit: float | None = None,
        progress: Callable[[str], None] | None = None,
        replay_only: bool = False) -> tuple[list[ClassMargin], bool]:
    """Every class of the record refined, cheapest work first: placer-won
    classes (often one probe each), then the known winning reply of each
    mover-won class (cheapest proof first), then the mover-won classes' other
    replies.  Returns the per-class states and whether the time limit stopped
    the run (what follows is then reported from saved answers only).
    ``replay_only`` searches nothing: the states from the saved answers."""
    classes, replies = read_reply_record(record, size)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    deadline = -1.0 if replay_only else deadline
    prober = Prober(size, out, tt_mb, deadline, progress)

    def winning_cost(point: int) -> float:
        rows = replies.get(point, {}).values()
        return min((x["seconds"] for x in rows if not x["placer_wins"]), default=0.0)

    placer = sorted(p for p in classes if classes[p]["winner"] == "placer")
    mover = sorted((p for p in classes if classes[p]["winner"] != "placer"), key=winning_cost)
    passes = [(p, False) for p in placer] + [(p, True) for p in mover]
    passes += [(p, False) for p in mover]
    states: dict[int, ClassMargin] = {}
    stopped = False
    for point, winning_reply_only in passes:
        if stopped:
            prober.deadline = -1.0  # replay saved answers, search nothing new
        state, finished = class_margin(prober, point, classes[point]["winner"],
                                       replies.get(point, {}), winning_reply_only)
        states[point] = state
        stopped = stopped or not finished
    return [states[p] for p in sorted(states)], stopped


def label(size: int, point: int) -> str:
    r, c = trike.point_coords(size)[point]
    return f"({r},{c})"
