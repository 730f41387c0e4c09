"""Timed moves: simulations a move under a time budget, the kernel reading the clock
against the batches it replaced.

A time budget (``mcts:Ns``) used to return to Python between batches of simulations
to read the clock (a first batch of 256, then half of what the rate so far fitted
into the time left, at most 20 ms) and started the helper threads of a
root-parallel search at every move.  Now :func:`trilab.solver.mcts.run_simulations`
reads the clock itself (:mod:`trilab.solver.clock`): one kernel call a tree and a
move, on helper threads kept between moves.  This script plays both side by side in
one process, position by position in turn, on the positions of one size-13
``mcts-squeeze:3000`` self-play game (plies 2-49): the *batched* rows rebuild the
old loop here from the same kernel (:func:`batched_search`), the *kernel clock* rows
are :func:`trilab.solver.mcts.search`, and on two threads the *shared tree* rows the
same threads growing one tree (``Ns@2t``).  Reported: simulations and milliseconds a
move for ``mcts-squeeze`` and ``mcts`` at ``--seconds`` on one and two threads.
Rows are appended to ``results/bench/timed-moves.csv`` with the commit, the machine
and ``--note``.

    python benchmarks/bench_timed_moves.py [--seconds 0.0084] [--rounds 5] [--note TEXT]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from trilab.analysis import artifacts  # noqa: E402
from trilab.solver import mcts, rng  # noqa: E402
from trilab.solver.trike import agents as trike_agents  # noqa: E402

OLD_FIRST_BATCH = 256
OLD_MAX_BATCH_SECONDS = 0.02


def _old_grow(game: mcts.AgentGame, root: np.ndarray, stream: np.ndarray, tree: mcts.Tree,
              deadline: float) -> None:
    """The batches of the former ``mcts._grow`` (``perf_counter`` deadline)."""
    tables = np.array(game.tables, dtype=np.int64)
    scratch = mcts._new_scratch(root, game.n_seats, game.max_actions, game.playout_scratch)

    def run(n: int) -> int:
        return mcts.run_simulations(*game.kernels, tables, root, stream, *tree[:-1],
                                    tree.counters, *scratch, n, mcts.DEFAULT_EXPLORATION,
                                    game.expand)

    start = time.perf_counter()
    done = run(OLD_FIRST_BATCH)
    while tree.proven[0] == 0:
        now = time.perf_counter()
        if now >= deadline:
            break
        rate = done / max(now - start, 1e-9)
        seconds = min((deadline - now) / 2, OLD_MAX_BATCH_SECONDS)
        done += run(max(OLD_FIRST_BATCH, int(rate * seconds)))


def batched_search(game: mcts.AgentGame, root: np.ndarray, seconds: float, threads: int,
                   stream: np.ndarray) -> tuple[int, float]:
    """One move the former way: ``(simulations, seconds)``; ``threads`` root-parallel
    trees, the helpers on threads started for this move."""
    t0 = time.perf_counter()
    deadline = t0 + seconds
    trees = [mcts.reused_tree(i, game.n_seats, mcts.DEFAULT_MAX_NODES) for i in range(threads)]
    streams = [rng.game_stream(np.uint64(rng.next_u64(stream)), np.uint64(i))
               for i in range(threads)]
    if threads == 1:
        _old_grow(game, root, streams[0], trees[0], deadline)
    else:
        with ThreadPoolExecutor(max_workers=threads - 1) as pool:
            jobs = [pool.submit(_old_grow, game, root, streams[i], trees[i], deadline)
                    for i in range(1, threads)]
            _old_grow(game, root, streams[0], trees[0], deadline)
            for job in jobs:
                job.result()
    elapsed = time.perf_counter() - t0
    return sum(int(t.counters[mcts.C_SIMULATIONS]) for t in trees), elapsed


def game_positions(size: int, seed: int) -> list[np.ndarray]:
    """The positions of one ``mcts-squeeze:3000`` self-play game, plies 2-49."""
    agent = trike_agents.parse_agent("mcts-squeeze:3000")
    game = agent.game(size)
    stream = rng.game_stream(np.uint64(seed), np.uint64(0))
    state = trike_agents.new_state(size, pie=False)
    positions = []
    while game.legal(state):
        positions.append(state.copy())
        game.apply(state, agent.search(size, state, stream).action)
    return positions[2:50]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=13)
    ap.add_argument("--seconds", type=float, default=0.0084)
    ap.add_argument("--rounds", type=int, default=5, help="passes over the positions")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--note", default="", help="what else ran on the machine")
    ap.add_argument("--out", default=str(ROOT / "results" / "bench" / "timed-moves.csv"))
    args = ap.parse_args()
    common = {"date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
              "commit": artifacts.git_commit(),
              "machine": f"{artifacts.machine()['machine']} x{os.cpu_count()}",
              "note": args.note, "size": args.size, "seconds_budget": args.seconds}
    positions = game_positions(args.size, args.seed)
    stream = rng.game_stream(np.uint64(args.seed), np.uint64(1))
    rows = []
    for family in ("mcts-squeeze", "mcts"):
        for threads in (1, 2):
            agent = trike_agents.parse_agent(f"{family}:{args.seconds}s@{threads}")
            game = agent.game(args.size)
            totals = {"batched": [0, 0.0], "kernel clock": [0, 0.0]}
            specs = {"kernel clock": agent.spec}
            if threads > 1:  # the same threads growing one tree (@Tt)
                totals["shared tree"] = [0, 0.0]
                specs["shared tree"] = replace(agent.spec, shared_tree=True)
            for p in positions[:2]:  # warm-up: compile or load, fill the reused trees
                batched_search(game, p, args.seconds, threads, stream)
                for spec in specs.values():
                    game.search(p, spec, stream)
            for _ in range(args.rounds):
                for p in positions:
                    sims, secs = batched_search(game, p, args.seconds, threads, stream)
                    totals["batched"][0] += sims
                    totals["batched"][1] += secs
                    for way, spec in specs.items():
                        res = game.search(p, spec, stream)
                        totals[way][0] += res.simulations
                        totals[way][1] += res.seconds
            moves = args.rounds * len(positions)
            base = totals["batched"][0] / totals["batched"][1]
            for way, (sims, secs) in totals.items():
                text = agent.text + ("t" if way == "shared tree" else "")
                rows.append({**common, "agent": text, "way": way, "moves": moves,
                             "simulations_per_move": round(sims / moves),
                             "ms_per_move": round(1000 * secs / moves, 3),
                             "simulations_per_ms": round(sims / secs / 1000, 1),
                             "vs_batched": round(sims / secs / base, 3)})
                print(f"{text:28s} {way:12s} {sims / moves:8,.0f} simulations a move "
                      f"in {1000 * secs / moves:5.2f} ms ({sims / secs / base:.2f}x)",
                      flush=True)
    out = Path(args.out)
    artifacts.append_csv(out, rows)
    print(f"appended {len(rows)} rows to {out}")


if __name__ == "__main__":
    main()
