"""Whole-process times of `trilab solve` and the transposition-table size per board.

Run with ``make bench`` (not part of CI).  Two measurements:

* ``--tt``: for each size, the opening study (``trike_openings.run``, one
  fresh table per class as in every real run) with tables of 1 to 2048 MiB,
  side by side in this process; the fastest is the default of that size
  (``trilab.analysis.trike.openings.DEFAULT_TT_MB``).  Rows go to
  ``results/bench/trike-tt.csv``.
* ``--cli``: ``trilab solve trike --size N`` as a user runs it (a new
  process: interpreter start, imports, Numba cache loads, search, files),
  the median of ``--repeats`` runs.  Rows go to ``results/bench/trike-cli.csv``.

    python benchmarks/bench_cli.py [--tt 5 6 7] [--cli 2 6] [--repeats 5]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from trilab.analysis import artifacts
from trilab.analysis.trike import openings as trike_openings
from trilab.solver.trike.alphabeta import warm_up

ROOT = Path(__file__).resolve().parent.parent
TT_SIZES = (1, 4, 16, 64, 256, 1024, 2048)


def bench_tt(sizes: list[int], out: Path) -> None:
    warm_up()
    rows = []
    for size in sizes:
        win_loss_only = size >= 7  # full values of size 7 take minutes per setting
        for tt in TT_SIZES:
            t0 = time.perf_counter()
            study = trike_openings.run(size, tt_mb=tt, win_loss_only=win_loss_only)
            secs = time.perf_counter() - t0
            rows.append({"date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                         "commit": artifacts.git_commit(), "size": size, "tt_mb": tt,
                         "win_loss_only": win_loss_only, "nodes": study.nodes,
                         "seconds": round(secs, 3),
                         "default": trike_openings.default_tt_mb(size) == tt})
            print(f"size {size} tt {tt:>5} MiB: {study.nodes:>13,} nodes {secs:8.2f} s",
                  flush=True)
    artifacts.append_csv(out, rows)
    print(f"appended {len(rows)} rows to {out}")


def bench_cli(sizes: list[int], repeats: int, out: Path) -> None:
    trilab = shutil.which("trilab") or str(Path(os.sys.executable).with_name("trilab"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            cmd = [trilab, "solve", "trike", "--size", str(size), "--out",
                   str(Path(tmp) / f"size-{size}.csv")]
            subprocess.run(cmd, check=True, capture_output=True)  # Numba caches warm
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                subprocess.run(cmd, check=True, capture_output=True)
                times.append(time.perf_counter() - t0)
            med = statistics.median(times)
            rows.append({"date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                         "commit": artifacts.git_commit(),
                         "command": f"trilab solve trike --size {size}",
                         "repeats": repeats, "median_seconds": round(med, 3),
                         "min_seconds": round(min(times), 3),
                         "max_seconds": round(max(times), 3)})
            print(f"trilab solve trike --size {size}: median {med:.2f} s "
                  f"(min {min(times):.2f}, max {max(times):.2f}, {repeats} runs)", flush=True)
    artifacts.append_csv(out, rows)
    print(f"appended {len(rows)} rows to {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tt", type=int, nargs="*", default=[], metavar="SIZE")
    ap.add_argument("--cli", type=int, nargs="*", default=[], metavar="SIZE")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out-dir", default=str(ROOT / "results" / "bench"))
    args = ap.parse_args()
    if args.tt:
        bench_tt(args.tt, Path(args.out_dir) / "trike-tt.csv")
    if args.cli:
        bench_cli(args.cli, args.repeats, Path(args.out_dir) / "trike-cli.csv")


if __name__ == "__main__":
    main()
