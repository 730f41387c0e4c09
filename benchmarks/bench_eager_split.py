"""Eager split: what a win/loss move split costs when the units with the placer to
move are searched until they give up (then proven through their children) against
proven through their children at once (:data:`trilab.analysis.trike.openings.EAGER_SPLIT`).

A model of the run on the five size-8 replies of the solver benchmark
(``bench_trike.SIZE8_REPLIES``, all placer-won): the reply (placer to move) and
its answers are split at once, as a move split does; below them a unit is one
alpha-beta win/loss search that gives up after ``--budgets`` nodes and is then
proven through its children, the units below a node tried in the MCTS agent's
order (:func:`trilab.analysis.trike.unit_order.agent_order`) and stopped at the
first that decides it.  Under ``eager`` a unit with the placer to move and moves
left is split before any search.  One table per reply, kept across its units
(as a run keeps it for the units of one reply).  Nodes are exact; the agent's
ranking time is reported apart (about 0.2 s a position here, small beside size-9
units of minutes).  Rows go to ``results/bench/eager-split.csv``.

    python benchmarks/bench_eager_split.py [--budgets 4e6 16e6]
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_trike import SIZE8_REPLIES  # noqa: E402
from trilab.analysis import artifacts  # noqa: E402
from trilab.analysis.trike import openings, unit_order  # noqa: E402
from trilab.solver.trike import alphabeta  # noqa: E402
from trilab.solver.trike import engine as trike  # noqa: E402


class SplitModel:
    """One reply proven as a move split would, with or without the eager split."""

    def __init__(self, size: int, budget: int, eager: bool, ranks: dict, tt_mb: float):
        self.solver = alphabeta.AlphaBetaSolver(size, tt_mb=tt_mb)
        self.budget, self.eager, self.ranks = budget, eager, ranks
        self.lost = self.units = self.given_up = 0
        self.rank_seconds = 0.0

    def search(self, pos: trike.TrikePosition, budget: int) -> bool | None:
        """Win/loss of ``pos`` for the side to move, or None after ``budget`` nodes."""
        s, t = self.solver, self.solver.tables
        mine, theirs = pos.mine_theirs()
        stack = alphabeta._new_stack(np.uint64(mine), np.uint64(theirs), pos.pawn, -1, 1,
                                     t.symmetry)
        busy = np.zeros(1, dtype=np.uint8)
        start = s.nodes
        while True:
            left = budget - (s.nodes - start)
            if left <= 0:
                self.lost += s.nodes - start
                return None
            finished, v = alphabeta._run(
                alphabeta.MODE_MARGIN, *stack, t.ray_masks, t.neighbours, t.score_mask,
                t.symmetry, t.symmetry_bytes, t.n_points, s.tt.array, s.stats, 6, True,
                s.tt_min_moves, min(left, 1 << 20), 0, busy, 0)
            if finished:
                return v > 0

    def order(self, pos: trike.TrikePosition, moves: list[int]) -> list[int]:
        key = (pos.black, pos.white, pos.pawn)
        if key not in self.ranks:
            t0 = time.perf_counter()
            self.ranks[key] = unit_order.agent_order(pos, moves) if len(moves) > 1 else moves
            self.rank_seconds += time.perf_counter() - t0
        return self.ranks[key]

    def prove(self, pos: trike.TrikePosition, depth: int) -> bool:
        """Whether the side to move wins; ``depth`` 0 is the reply (placer to move)."""
        moves = openings.search_order(pos)
        placer = depth % 2 == 0
        if not moves or not (depth < 2 or self.eager and placer):
            self.units += 1
            won = self.search(pos, self.budget if depth >= 2 else 1 << 62)
            if won is not None:
                return won
            self.given_up += 1
        return any(not self.prove(pos.play(m), depth + 1) for m in self.order(pos, moves))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budgets", type=float, nargs="+", default=[4e6])
    ap.add_argument("--tt-mb", type=float, default=1024)
    ap.add_argument("--note", default="")
    args = ap.parse_args()
    ranks: dict = {}
    for budget in args.budgets:
        for eager in (False, True):
            for point, reply in SIZE8_REPLIES:
                pos = trike.opening(8, point).play(reply)
                model = SplitModel(8, int(budget), eager, ranks, args.tt_mb)
                t0 = time.perf_counter()
                won = model.prove(pos, 0)
                seconds = time.perf_counter() - t0 - model.rank_seconds
                row = {"date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                       "commit": artifacts.git_commit(), "size": 8, "opening": point,
                       "reply": reply, "unit_budget": int(budget),
                       "policy": "eager" if eager else "give up", "placer_wins": won,
                       "nodes": model.solver.nodes, "lost_nodes": model.lost,
                       "units_searched": model.units, "units_given_up": model.given_up,
                       "search_seconds": round(seconds, 2),
                       "new_ranking_seconds": round(model.rank_seconds, 1), "note": args.note}
                print(row, flush=True)
                artifacts.append_csv(ROOT / "results" / "bench" / "eager-split.csv", [row])


if __name__ == "__main__":
    main()
