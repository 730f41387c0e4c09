"""Agent benchmark: Trike random playouts per second and MCTS simulations per second.

In this one process, one core, after a warm-up that compiles or loads the
kernels:

* **playouts**: uniformly random games from the empty board (no pie rule) per
  board side, by the Numba array engine (``trike_agents.playouts``), next to
  the pure-Python reference playing the same kind of games
  (``trike_reference``), and the ratio;
* **MCTS**: simulations per second of one search of ``--simulations``
  simulations, from the empty board (the opening choice) and from a position
  ``size // 2 + 1`` random plies in, for ``mcts``, ``mcts-solve`` (the same search
  whose playouts solve small endgames exactly; a third start, ``2 * size`` random
  plies in, shows the cost of the solves where they happen) and ``mcts-trap`` (the
  agent of the swap maps: ``mcts-solve`` whose playouts see traps), with the seconds
  that search took (``seconds_per_move``: the time of a move at that budget); and
  ``mcts-squeeze`` (``mcts-trap`` whose playouts also squeeze the pawn: the agent of
  the equal-time duels); ``mcts-trap@2`` and ``mcts-squeeze@2``, the same budget split
  between two root-parallel trees on two threads (the rows that use both cores).

Targets (issue 9): playouts >= 1,000,000/s at size 7 and >= 400,000/s at size
13; MCTS >= 300,000 simulations/s at size 7.  Rows are appended to
``results/bench/agents.csv`` with the commit, the machine and ``--note``
(say there when something else ran beside the benchmark).

    python benchmarks/bench_agents.py [--sizes 5 7 9 11 13 15 17 19] [--note TEXT]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from trilab.analysis import artifacts  # noqa: E402
from trilab.solver.rng import game_stream  # noqa: E402
from trilab.solver.trike import agents as trike_agents  # noqa: E402
from trilab.solver.trike import reference as ref  # noqa: E402

TARGET_PLAYOUTS = {7: 1_000_000, 13: 400_000}
TARGET_SIMULATIONS = {7: 300_000}


def reference_playouts(size: int, n: int, seed: int) -> float:
    """Reference playouts per second (random games by the pure-Python rules)."""
    rnd = random.Random(seed)
    cells = [(r, c) for r in range(size) for c in range(r + 1)]
    t0 = time.perf_counter()
    for _ in range(n):
        pawn = rnd.choice(cells)
        board = {pawn: "b"}
        while not ref.trapped(size, board, pawn):
            pawn = rnd.choice(sorted(ref.legal_moves(size, board, pawn)))
            board = ref.play(board, pawn)
        ref.scores(size, board, pawn)
    return n / (time.perf_counter() - t0)


def engine_playouts(size: int, seconds: float, seed: int) -> tuple[float, int]:
    t = trike_agents.tables(size)
    start = trike_agents.new_state(size, pie=False)
    trike_agents.playouts(t, start, np.uint64(seed), 0, 100)  # compile / load
    n = 10_000
    while True:
        t0 = time.perf_counter()
        trike_agents.playouts(t, start, np.uint64(seed), 0, n)
        dt_ = time.perf_counter() - t0
        if dt_ >= seconds:
            return n / dt_, n
        n *= 2


def midgame_state(size: int, seed: int) -> np.ndarray:
    """The opening and ``size // 2`` random plies (early enough not to be proven at once)."""
    rnd = random.Random(seed)
    state = trike_agents.new_state(size, pie=False)
    game = trike_agents.agent_game(size)
    game.apply(state, rnd.randrange(trike_agents.n_points(size)))
    for _ in range(size // 2):
        moves = game.legal(state)
        if not moves:
            break
        game.apply(state, rnd.choice(moves))
    return state


def mcts_rate(size: int, state: np.ndarray, sims: int, seed: int,
              family: str = "mcts") -> tuple[float, int]:
    """Simulations per second of one ``family:sims`` search (a proven root stops early),
    after a warm-up search of the same spec (it compiles or loads the kernels and leaves
    the thread's reused tree buffers of that shape, :func:`mcts.reused_tree`, as every
    move of a game after the first finds them)."""
    name, at, threads = family.partition("@")
    agent = trike_agents.parse_agent(f"{name}:{sims}{at}{threads}")
    game = agent.game(size)
    game.search(state, agent.spec, game_stream(np.uint64(seed), 0))
    res = game.search(state, agent.spec, game_stream(np.uint64(seed), np.uint64(1)))
    return res.simulations / res.seconds, res.simulations


def late_state(size: int, seed: int) -> np.ndarray | None:
    """The opening and ``2 * size`` random plies (None if the game ended before)."""
    rnd = random.Random(seed)
    state = trike_agents.new_state(size, pie=False)
    game = trike_agents.agent_game(size)
    game.apply(state, rnd.randrange(trike_agents.n_points(size)))
    for _ in range(2 * size):
        moves = game.legal(state)
        if not moves:
            return None
        game.apply(state, rnd.choice(moves))
    return state if game.legal(state) else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[5, 7, 9, 11, 13, 15, 17, 19])
    ap.add_argument("--seconds", type=float, default=1.0, help="engine time per size")
    ap.add_argument("--reference-playouts", type=int, default=300)
    ap.add_argument("--simulations", type=int, default=200_000)
    ap.add_argument("--mcts-sizes", type=int, nargs="+", default=[7, 9, 13, 19])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--note", default="", help="what else ran on the machine")
    ap.add_argument("--out", default=str(ROOT / "results" / "bench" / "agents.csv"))
    args = ap.parse_args()
    common = {"date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
              "commit": artifacts.git_commit(),
              "machine": f"{artifacts.machine()['machine']} x{os.cpu_count()}",
              "note": args.note}
    rows = []
    for size in args.sizes:
        rate, n = engine_playouts(size, args.seconds, args.seed)
        ref_rate = reference_playouts(size, max(10, args.reference_playouts // max(1, size // 5)),
                                      args.seed)
        target = TARGET_PLAYOUTS.get(size)
        rows.append({**common, "what": "random playouts", "size": size, "start": "empty board",
                     "count": n, "per_second": round(rate), "target": target,
                     "meets_target": None if target is None else rate >= target,
                     "reference_per_second": round(ref_rate, 1),
                     "speedup_vs_reference": round(rate / ref_rate, 1)})
        print(f"size {size:2d}: {rate:12,.0f} playouts/s (reference {ref_rate:9,.1f}/s, "
              f"{rate / ref_rate:7,.0f}x)" + (f"  target {target:,}" if target else ""),
              flush=True)
    for size in args.mcts_sizes:
        starts = [("empty board", trike_agents.new_state(size, pie=False)),
                  (f"{size // 2 + 1} plies in", midgame_state(size, args.seed))]
        late = late_state(size, args.seed)
        if late is not None:
            starts.append((f"{2 * size + 1} plies in", late))
        for family in ("mcts", "mcts-solve", "mcts-trap", "mcts-squeeze", "mcts-trap@2",
                       "mcts-squeeze@2"):
            for start, state in starts:
                rate, n = mcts_rate(size, state, args.simulations, args.seed, family)
                target = TARGET_SIMULATIONS.get(size) if family == "mcts" else None
                rows.append({**common, "what": f"{family} simulations", "size": size,
                             "start": start, "count": n, "per_second": round(rate),
                             "target": target,
                             "meets_target": None if target is None else rate >= target,
                             "reference_per_second": None, "speedup_vs_reference": None,
                             "seconds_per_move": round(n / rate, 4)})
                print(f"size {size:2d} {family} from {start}: {rate:12,.0f} simulations/s "
                      f"({n:,})" + (f"  target {target:,}" if target else ""), flush=True)
    out = Path(args.out)
    artifacts.append_csv(out, rows)
    print(f"appended {len(rows)} rows to {out}")


if __name__ == "__main__":
    main()
