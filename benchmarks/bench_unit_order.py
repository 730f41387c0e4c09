"""Unit order: what a split proof costs when it tries the moves in the solver's
search order against the MCTS agent's ranking (:mod:`trilab.analysis.trike.unit_order`).

Positions: random games from a random opening to ``--plies`` checkers, on a board of
``--size``.  Every move of a position is solved on its own (alpha-beta, win/loss, an
empty table each: one unit of a split run), so the cost of proving a won position
under an order is the nodes of the units tried up to and including the first
winning one; a lost position costs all its units whatever the order, so only won
ones are counted.  Reported per order: the total nodes, the share of positions
whose first unit wins, and the cheapest possible (the cheapest winning unit alone).
Node counts are exact and do not depend on the machine.  Rows are appended to
``results/bench/unit-order.csv`` with the commit and ``--note``, each as soon as
its ply count is done.

    python benchmarks/bench_unit_order.py [--size 7] [--positions 40] [--plies 4 5]
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

from trilab.analysis import artifacts  # noqa: E402
from trilab.analysis.trike import openings, unit_order  # noqa: E402
from trilab.solver.trike import engine as trike  # noqa: E402
from trilab.solver.trike.alphabeta import AlphaBetaSolver  # noqa: E402


def sample(size: int, plies: int, rnd: np.random.Generator) -> trike.TrikePosition | None:
    """A position after a random opening and ``plies - 1`` random moves, or None if
    the game ended before."""
    pos = trike.opening(size, int(rnd.integers(trike.n_points(size))))
    for _ in range(plies - 1):
        moves = pos.legal_moves()
        if not moves:
            return None
        pos = pos.play(int(moves[rnd.integers(len(moves))]))
    return pos if pos.legal_moves() else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=7)
    ap.add_argument("--positions", type=int, default=40, help="won positions per ply count")
    ap.add_argument("--plies", type=int, nargs="+", default=[4, 5])
    ap.add_argument("--agent", default="mcts-squeeze:20000")
    ap.add_argument("--tt-mb", type=float, default=64)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--note", default="")
    args = ap.parse_args()
    rnd = np.random.default_rng(args.seed)
    solver = AlphaBetaSolver(args.size, tt_mb=args.tt_mb)
    rows = []
    for plies in args.plies:
        cost = {"search": 0, "agent": 0, "cheapest": 0}
        first = {"search": 0, "agent": 0}
        found = tried = 0
        t0 = time.perf_counter()
        rank_seconds = 0.0
        while found < args.positions:
            pos = sample(args.size, plies, rnd)
            if pos is None:
                continue
            tried += 1
            units = {}
            for m in pos.legal_moves():
                solver.reset()
                wins = not solver.is_win(pos.play(m))  # the mover of pos wins by m
                units[m] = (wins, solver.nodes)
            if not any(w for w, _ in units.values()):
                continue  # lost: every unit is proven whatever the order
            found += 1
            r0 = time.perf_counter()
            orders = {"search": openings.search_order(pos),
                      "agent": unit_order.agent_order(pos, openings.search_order(pos),
                                                      args.agent)}
            rank_seconds += time.perf_counter() - r0
            for name, order in orders.items():
                for i, m in enumerate(order):
                    cost[name] += units[m][1]
                    if units[m][0]:
                        first[name] += i == 0
                        break
            cost["cheapest"] += min(n for w, n in units.values() if w)
        rows.append({
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "commit": artifacts.git_commit(), "size": args.size, "plies": plies,
            "won_positions": found, "positions_sampled": tried, "agent": args.agent,
            "nodes_search_order": cost["search"], "nodes_agent_order": cost["agent"],
            "nodes_cheapest_win": cost["cheapest"],
            "ratio_search_to_agent": round(cost["search"] / max(cost["agent"], 1), 3),
            "first_unit_wins_search": round(first["search"] / found, 3),
            "first_unit_wins_agent": round(first["agent"] / found, 3),
            "ranking_seconds_per_position": round(rank_seconds / found, 3),
            "seconds": round(time.perf_counter() - t0, 1), "seed": args.seed,
            "note": args.note})
        print(rows[-1], flush=True)
        artifacts.append_csv(ROOT / "results" / "bench" / "unit-order.csv", rows[-1:])


if __name__ == "__main__":
    main()
