"""Monte Carlo benchmark: games per second per core, engine vs reference, 1 vs 2 jobs.

For each game and policy set, in this one process: the Numba engine plays N
games (after a warm-up that compiles or loads the kernels), the pure-Python
reference plays the first M of the same games (same seed, same streams, so
the same games), and the ratio of their games/s is reported (``ismcts`` and
``infer`` have no reference twin: their reference columns stay empty).  Then
``--scaling-factor`` times N games run with 1 and 2 local processes, each
pool warmed up first by a small run (spawned workers, Numba caches loaded),
as in a long study where start-up does not count; a case whose N is under
:data:`MIN_SCALING_GAMES` (the slowest policies, a few games) skips this part
(its wall columns stay empty).  Rows are appended to
``results/bench/montecarlo.csv`` with the commit, the machine and ``--note``
(what else ran on the machine).

    python benchmarks/bench_montecarlo.py [--games 20000] [--reference-games 200] [--only tabula]
        [--note TEXT]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from trilab.analysis import artifacts, executors  # noqa: E402
from trilab.analysis.simulation import run_games  # noqa: E402
from trilab.solver.montecarlo import load_spec  # noqa: E402

MIN_SCALING_GAMES = 20  # fewer engine games: no 1 vs 2 jobs runs

# (game, options, cost): a case plays games/cost engine games, reference_games/cost reference ones
CASES = [
    ("trio-cards", {"players": 3, "mode": "simple", "policies": ["random"]}, 1),
    ("trio-cards", {"players": 6, "mode": "simple", "policies": ["random"]}, 1),
    ("trio-cards", {"players": 3, "mode": "simple", "policies": ["memory"]}, 1),
    ("trio-cards", {"players": 6, "mode": "simple", "policies": ["memory"]}, 1),
    ("trio-cards", {"players": 6, "mode": "spicy", "teams": True, "policies": ["memory"]}, 1),
    ("trio-cards", {"players": 3, "mode": "simple", "policies": ["forgetful:0.3"]}, 1),
    ("trio-cards", {"players": 6, "mode": "simple", "policies": ["forgetful:0.3"]}, 1),
    ("trio-cards", {"players": 3, "mode": "simple", "policies": ["deduce"]}, 20),
    ("trio-cards", {"players": 6, "mode": "simple", "policies": ["deduce"]}, 400),
    ("trio-cards", {"players": 3, "mode": "simple", "policies": ["infer:64"]}, 1000),
    ("trio-cards", {"players": 6, "mode": "simple", "policies": ["infer:64"]}, 6000),
    ("trio-cards", {"players": 3, "mode": "simple", "policies": ["ismcts:200"]}, 400),
    ("trio-cards", {"players": 6, "mode": "simple", "policies": ["ismcts:200"]}, 2000),
    ("trio-cards", {"players": 3, "mode": "simple", "policies": ["ismcts-flat:48"]}, 2000),
    ("trio-cards", {"players": 6, "mode": "simple", "policies": ["ismcts-flat:8"]}, 6000),
    ("trio-cards", {"players": 3, "mode": "simple", "policies": ["ismcts-deduce:64"]}, 2000),
    ("trio-cards", {"players": 6, "mode": "simple", "policies": ["ismcts-deduce:8"]}, 6000),
    ("trio-cards", {"players": 3, "mode": "simple", "policies": ["ismcts-infer:64"]}, 2000),
    ("trio-cards", {"players": 6, "mode": "simple", "policies": ["ismcts-infer:8"]}, 6000),
    ("tabula-trivium", {"policies": ["random"]}, 1),
    ("tabula-trivium", {"policies": ["greedy"]}, 20),
    ("tabula-trivium", {"policies": ["lookahead:1", "random"]}, 10),
    ("trio-board", {"policies": ["random"], "fortress": "sides"}, 2),
    ("trio-board", {"policies": ["greedy"], "fortress": "row3"}, 1),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--reference-games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scaling-factor", type=int, default=5,
                    help="the 1 vs 2 jobs runs play this many times --games games")
    ap.add_argument("--out", default=str(ROOT / "results" / "bench" / "montecarlo.csv"))
    ap.add_argument("--only", default="",
                    help="run only the cases whose 'game options' text contains this")
    ap.add_argument("--note", default="", help="what else ran on the machine")
    args = ap.parse_args()
    rows = []
    for game, options, cost in CASES:
        if args.only not in f"{game} {options}":
            continue
        spec = load_spec(game)
        config = spec.make_config(options)
        n = max(1, args.games // cost)
        no_twin = "ismcts" in str(options) or "infer" in str(options)
        m = 0 if no_twin else max(1, args.reference_games // cost)
        run_games(spec, config, 1, args.seed)  # compile / load the cache
        eng = run_games(spec, config, n, args.seed)
        t0 = time.perf_counter()
        for g in range(m):
            spec.reference_game(args.seed, g, options)
        ref_s = time.perf_counter() - t0
        eng_rate = n / eng.seconds
        ref_rate = m / ref_s if m else float("nan")
        walls = {1: float("nan"), 2: float("nan")}
        n_scaling = n * args.scaling_factor if n >= MIN_SCALING_GAMES else 0
        for jobs in (1, 2) if n_scaling else ():
            ex = executors.make_executor(jobs)
            try:
                run_games(spec, config, 4 * jobs, args.seed, executor=ex, chunk=1)
                t0 = time.perf_counter()
                run_games(spec, config, n_scaling, args.seed, executor=ex,
                                    chunk=max(1, n_scaling // 16))
                walls[jobs] = time.perf_counter() - t0
            finally:
                ex.close()
        row = {
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "commit": artifacts.git_commit(),
            "machine": f"{artifacts.machine()['machine']} x{os.cpu_count()}",
            "game": game, "options": str(options), "games": n,
            # 3 significant figures: the slowest policies play under one game a second
            "engine_games_per_s": float(f"{eng_rate:.3g}"), "reference_games": m,
            "reference_games_per_s": round(ref_rate, 1),
            "speedup_vs_reference": round(eng_rate / ref_rate, 1) if m else None,
            "wall_1_job_s": round(walls[1], 2), "wall_2_jobs_s": round(walls[2], 2),
            "speedup_2_jobs": round(walls[1] / walls[2], 2),
            "scaling_games": n_scaling, "note": args.note,
        }
        rows.append(row)
        ref_text = f"reference {ref_rate:,.1f} games/s ({row['speedup_vs_reference']}x)" \
            if m else "no reference twin"
        print(f"{game} {options}: engine {eng_rate:,.3g} games/s, {ref_text}; "
              f"1 job {walls[1]:.2f} s, 2 jobs {walls[2]:.2f} s ({row['speedup_2_jobs']}x)",
              flush=True)
    out = Path(args.out)
    artifacts.append_csv(out, rows)
    print(f"appended {len(rows)} rows to {out}")


if __name__ == "__main__":
    main()
