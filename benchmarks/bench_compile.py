"""Compile-time benchmark: seconds of a cold Numba compile of each game's kernels.

For each game, a fresh Python process with ``NUMBA_CACHE_DIR`` pointing at a new
empty temporary folder (so nothing is loaded from, or written to, the real
caches) runs :func:`trilab.solver.compiled.compile_game`: the engine import
(agent cfuncs compile at import), every registry example's policies, the agent
search and, for Trike, the solvers; the same work as the set-up command's
warm-up.  It reports that time, the number of compiled function signatures and
the same work again in a second fresh process on the now-filled cache (the cost
of loading it).  One game at a time, so on an otherwise idle machine each
number is one core's compile.  Rows are appended to
``results/bench/compile-times.csv`` (with ``.meta.json``).

    python benchmarks/bench_compile.py [--games tabula-trivium,trio-cards] [--note TEXT]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from numba.core import event
count = [0]
class L(event.Listener):
    def on_start(self, ev): pass
    def on_end(self, ev): count[0] += 1
event.register("numba:compile", L())
from trilab.solver.compiled import compile_game
compile_game(sys.argv[1])
print(json.dumps({"seconds": time.perf_counter() - t0, "signatures": count[0]}))
"""


def run_child(game: str, cache: str) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    out = subprocess.run([sys.executable, "-c", CHILD, game], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    from trilab.analysis import artifacts
    from trilab.solver import registry

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default=",".join(registry.GAMES))
    ap.add_argument("--note", default="", help="e.g. what else ran on the machine")
    ap.add_argument("--out", default=str(ROOT / "results" / "bench" / "compile-times.csv"))
    args = ap.parse_args()
    rows = []
    for game in args.games.split(","):
        with tempfile.TemporaryDirectory(prefix="trilab-numba-") as cache:
            cold = run_child(game, cache)
            warm = run_child(game, cache)
        row = {
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "commit": artifacts.git_commit(),
            "machine": f"{artifacts.machine()['machine']} x{os.cpu_count()}",
            "game": game,
            "cold_compile_s": round(cold["seconds"], 2),
            "compiled_signatures": cold["signatures"],
            "warm_load_s": round(warm["seconds"], 2),
            "note": args.note,
        }
        rows.append(row)
        print(f"{game}: cold {row['cold_compile_s']} s ({cold['signatures']} signatures), "
              f"from the cache {row['warm_load_s']} s", flush=True)
    out = Path(args.out)
    artifacts.append_csv(out, rows)
    print(f"appended {len(rows)} rows to {out}")


if __name__ == "__main__":
    main()
