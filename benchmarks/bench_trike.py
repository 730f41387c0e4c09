"""Trike solver benchmark: nodes per second and wall time per board size.

Run with ``make bench`` (not part of CI).  For each size, all opening
classes are solved with margins, remoteness and winning replies, after a
warm-up that compiles (or loads) the Numba kernels; compile time is
reported apart.  One row per size is appended to ``results/bench/trike.csv``
with the commit and machine.  A second measurement runs the same win/loss
search without the symmetry-reduced table key, side by side in this process,
so their ratio is meaningful on a noisy shared machine.

A third (``--tt-min-moves 2 3 4 5``) times the table threshold
``TT_MIN_MOVES`` (nodes with at most that many moves skip the table): the
size-7 win/loss study and five size-8 mover replies (placer-won positions
that took 11-23 s when first proven), each position under every setting in
turn, into ``results/bench/trike-tt-min-moves.csv``.

A fourth (``--dfpn 2 4``) compares alpha-beta with proof-number search
(:mod:`trilab.solver.trike.dfpn`, with each ``1 + 1/k`` threshold factor given) on
the same positions, into ``results/bench/trike-dfpn.csv``.

A fifth (``--threads 1 2``) runs the same positions with one search
thread and with two sharing the table (``AlphaBetaSolver(threads=2)``),
side by side, into ``results/bench/trike-threads.csv``; run it on an
otherwise idle machine, the two threads need both cores.

A sixth (``--resume 0.25 0.5 0.75``) measures what a stop costs a search that
saves its stack (:mod:`trilab.solver.trike.stack_file`): each size-7 class,
win/loss, stopped after the given fractions of its whole search's nodes and
resumed from the saved stack with an empty table, into
``results/bench/trike-resume.csv`` (node counts are exact: it may run beside
other work).

    python benchmarks/bench_trike.py [--sizes 5 6] [--tt-mb 1024] [--tt-min-moves 2 3 4 5]
    python benchmarks/bench_trike.py --resume 0.25 0.5 0.75
    python benchmarks/bench_trike.py --dfpn 2 4
    python benchmarks/bench_trike.py --threads 1 2
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
from trilab.analysis.trike import openings as trike_openings  # noqa: E402
from trilab.solver.trike import engine as trike  # noqa: E402
from trilab.solver.trike.alphabeta import TT_MIN_MOVES, AlphaBetaSolver, warm_up  # noqa: E402


def solve_all(size: int, tt_mb: float, use_symmetry: bool = True, full: bool = True):
    solver = AlphaBetaSolver(size, tt_mb=tt_mb, use_symmetry=use_symmetry)
    solver.tt.array.fill(1)  # fault the pages in before timing, then empty the table
    solver.tt.clear()
    t0 = time.perf_counter()
    for cls in trike.opening_classes(size):
        pos = trike.opening(size, cls[0])
        if full:
            solver.solve_position(pos)
        else:
            solver.is_win(pos)
    return solver.nodes, time.perf_counter() - t0


def scaling(size: int, tt_mb: float, win_loss_only: bool, out: Path) -> None:
    """Per-class nodes/s and wall time: 1 worker, 2 local processes, Dask LocalCluster(2).

    Each executor is timed twice: ``cold`` (the clock starts before the first
    task, so it includes spawning workers and loading the Numba caches) and
    ``warm`` (the same executor again after that run, as in any long job,
    where start-up is negligible).  Speed-ups are reported for both.
    """
    rows = []
    walls: dict[tuple[str, str], float] = {}
    for label, make in [
        ("serial", lambda: executors.make_executor(1)),
        ("processes:2", lambda: executors.make_executor(2)),
        ("dask local:2", lambda: executors.make_executor(dask="local:2")),
    ]:
        ex = make()
        try:
            for start in ("cold", "warm"):
                t0 = time.perf_counter()
                study = trike_openings.run(size, tt_mb=tt_mb, executor=ex,
                                           win_loss_only=win_loss_only)
                wall = walls[label, start] = time.perf_counter() - t0
                classes = study.table.drop_duplicates("symmetry_class")
                for r in classes.itertuples():
                    rows.append({
                        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                        "commit": artifacts.git_commit(), "size": size, "executor": label,
                        "start": start, "win_loss_only": win_loss_only,
                        "symmetry_class": r.symmetry_class, "point": f"({r.row},{r.col})",
                        "nodes": r.nodes, "seconds": r.seconds,
                        "nodes_per_second": round(r.nodes / max(r.seconds, 1e-9)),
                        "run_wall_seconds": round(wall, 2),
                    })
                print(f"size {size} {label} ({start}): wall {wall:.1f} s, "
                      f"{classes.nodes.sum():,} nodes, "
                      f"{classes.nodes.sum() / classes.seconds.sum() / 1e6:.2f} M nodes/s "
                      f"per worker", flush=True)
        finally:
            ex.close()
    for label in ("processes:2", "dask local:2"):
        for start in ("cold", "warm"):
            print(f"speed-up serial -> {label} ({start}): "
                  f"{walls['serial', start] / walls[label, start]:.2f}x")
    artifacts.append_csv(out, rows)
    print(f"appended {len(rows)} rows to {out}")


# (opening point, mover reply point) of size 8: placer-won, 11-23 s each when first proven
SIZE8_REPLIES = ((7, 18), (6, 7), (7, 12), (4, 16), (1, 13))


def benchmark_positions() -> list[tuple[int, int, int, trike.TrikePosition]]:
    """``(size, opening, reply, position)``: the seven size-7 classes (reply -1)
    and the five size-8 replies of :data:`SIZE8_REPLIES`."""
    tasks = [(7, cls[0], -1) for cls in trike.opening_classes(7)]
    tasks += [(8, point, reply) for point, reply in SIZE8_REPLIES]
    out = []
    for size, point, reply in tasks:
        pos = trike.opening(size, point)
        out.append((size, point, reply, pos.play(reply) if reply >= 0 else pos))
    return out


def timed_win(solver, pos: trike.TrikePosition) -> tuple[bool, float]:
    """Win/loss of ``pos`` from an empty table, and the seconds it took."""
    solver.reset()
    t0 = time.perf_counter()
    win = solver.is_win(pos)
    return win, time.perf_counter() - t0


def resume(fractions: list[float], out: Path) -> None:
    """Nodes of a whole win/loss search against the same search stopped after a
    fraction of them and resumed from its saved stack with an empty table."""
    import tempfile

    from trilab.solver.trike.stack_file import SearchCheckpoint

    class Stop(Exception):
        pass

    rows = []
    size = 7
    chunk = 1 << 18
    with tempfile.TemporaryDirectory() as tmp:
        for _, point, _, pos in [p for p in benchmark_positions() if p[0] == size]:
            solver = AlphaBetaSolver(size, tt_mb=trike_openings.default_tt_mb(size),
                                     chunk_nodes=chunk)
            win, _ = timed_win(solver, pos)
            whole = solver.nodes
            for fraction in fractions:
                path = Path(tmp) / f"{point}-{fraction}.npz"

                def stop(nodes: int, after: int = int(whole * fraction)) -> None:
                    if nodes > after:
                        raise Stop

                solver.reset()
                solver.checkpoint = SearchCheckpoint(path, every_seconds=0.0)
                solver.progress = stop
                try:
                    solver.is_win(pos)
                    continue  # finished before the stop: nothing to resume
                except Stop:
                    pass
                solver.progress = None
                solver.reset()
                solver.checkpoint = saved = SearchCheckpoint(path, every_seconds=0.0)
                assert solver.is_win(pos) == win and saved.resumed
                solver.checkpoint = None
                before, after = saved.prior_nodes, solver.nodes
                rows.append({"date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                             "commit": artifacts.git_commit(), "size": size, "opening": point,
                             "stopped_at": fraction, "whole_nodes": whole,
                             "nodes_before_stop": before, "nodes_after_resume": after,
                             "extra_nodes": before + after - whole,
                             "extra_share": round((before + after - whole) / whole, 4)})
                print(f"size {size} opening {point:>2} stop at {fraction:.2f}: whole {whole:,}, "
                      f"{before:,} + {after:,} resumed ({rows[-1]['extra_share']:+.1%})",
                      flush=True)
    artifacts.append_csv(out, rows)
    total = sum(r["whole_nodes"] for r in rows)
    extra = sum(r["extra_nodes"] for r in rows)
    print(f"appended {len(rows)} rows to {out}; the stops cost {extra / total:+.1%} nodes")


def tt_min_moves(settings: list[int], out: Path) -> None:
    """Nodes and seconds of the same searches under each ``tt_min_moves``."""
    tasks = [(7, cls[0], -1) for cls in trike.opening_classes(7)]
    tasks += [(8, point, reply) for point, reply in SIZE8_REPLIES]
    solvers = {size: AlphaBetaSolver(size, tt_mb=trike_openings.default_tt_mb(size))
               for size in (7, 8)}
    for solver in solvers.values():
        solver.tt.array.fill(1)  # fault the pages in before timing
    totals: dict[tuple[int, int], list[float]] = {}
    rows = []
    for size, point, reply in tasks:
        pos = trike.opening(size, point)
        pos = pos.play(reply) if reply >= 0 else pos
        solver = solvers[size]
        answers = set()
        for k in settings:
            solver.tt_min_moves = k
            solver.reset()
            t0 = time.perf_counter()
            answers.add(solver.is_win(pos))
            secs = time.perf_counter() - t0
            tot = totals.setdefault((size, k), [0, 0.0])
            tot[0] += solver.nodes
            tot[1] += secs
            print(f"size {size} opening {point} reply {reply:>2} tt_min_moves {k}: "
                  f"{solver.nodes:>13,} nodes {secs:8.2f} s", flush=True)
        assert len(answers) == 1, "the threshold changed an answer"
    for (size, k), (nodes, secs) in sorted(totals.items()):
        rows.append({"date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                     "commit": artifacts.git_commit(), "size": size,
                     "task": ("all opening classes, win/loss" if size == 7 else
                              f"{len(SIZE8_REPLIES)} mover replies, win/loss"),
                     "tt_mb": solvers[size].tt.megabytes, "tt_min_moves": k, "nodes": nodes,
                     "seconds": round(secs, 3), "nodes_per_second": round(nodes / secs),
                     "default": k == TT_MIN_MOVES})
        print(f"size {size} tt_min_moves {k}: {nodes:,} nodes {secs:.1f} s", flush=True)
    artifacts.append_csv(out, rows)
    print(f"appended {len(rows)} rows to {out}")


def threads(counts: list[int], out: Path) -> None:
    """Wall time of the same win/loss searches with each thread count (each
    position under every count in turn, the table emptied before each)."""
    for n in counts:  # compile the threaded path before any clock starts
        AlphaBetaSolver(5, tt_mb=16, threads=n).is_win(trike.opening(5, 0))
    solvers = {(size, n): AlphaBetaSolver(size, tt_mb=trike_openings.default_tt_mb(size),
                                          threads=n)
               for size in (7, 8) for n in counts}
    for solver in solvers.values():
        solver.tt.array.fill(1)  # fault the pages in before timing
    rows = []
    for size, point, reply, pos in benchmark_positions():
        answers = set()
        for n in counts:
            solver = solvers[size, n]
            win, secs = timed_win(solver, pos)
            answers.add(win)
            rows.append({"date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                         "commit": artifacts.git_commit(), "size": size, "opening": point,
                         "reply": reply, "threads": n, "nodes": solver.nodes,
                         "seconds": round(secs, 3)})
            print(f"size {size} opening {point:>2} reply {reply:>2} threads {n}: "
                  f"{solver.nodes:>13,} nodes {secs:8.2f} s", flush=True)
        assert len(answers) == 1, "the thread counts disagree"
    artifacts.append_csv(out, rows)
    by: dict[tuple[int, int], list[float]] = {}
    for r in rows:
        t = by.setdefault((r["size"], r["threads"]), [0, 0.0])
        t[0] += r["nodes"]
        t[1] += r["seconds"]
    for (size, n), (nodes, secs) in sorted(by.items()):
        print(f"size {size} threads {n}: {nodes:,} nodes {secs:.1f} s "
              f"(x{by[size, counts[0]][1] / secs:.2f} against {counts[0]})", flush=True)
    print(f"appended {len(rows)} rows to {out}")


def algorithms(out: Path, epsilons: list[int]) -> None:
    """Alpha-beta against df-pn (one row per position and algorithm) on the
    same positions as ``tt_min_moves``, each position under each algorithm in
    turn; the answers must agree."""
    from trilab.solver.trike.dfpn import DfpnSolver
    from trilab.solver.trike.dfpn import warm_up as dfpn_warm_up

    dfpn_warm_up()
    solvers = {}
    for size in (7, 8):
        mb = trike_openings.default_tt_mb(size)
        solvers[size, "alphabeta"] = AlphaBetaSolver(size, tt_mb=mb)
        for e in epsilons:
            solvers[size, f"dfpn eps=1/{e}" if e else "dfpn eps=0"] = DfpnSolver(
                size, tt_mb=mb, epsilon_inverse=e)
    for solver in solvers.values():
        table = solver.tt.array if isinstance(solver, AlphaBetaSolver) else solver.table
        table.fill(1)  # fault the pages in before timing
        solver.reset()
    rows = []
    for size, point, reply, pos in benchmark_positions():
        answers = set()
        for (sz, label), solver in solvers.items():
            if sz != size:
                continue
            win, secs = timed_win(solver, pos)
            answers.add(win)
            rows.append({"date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                         "commit": artifacts.git_commit(), "size": size, "opening": point,
                         "reply": reply, "algorithm": label, "side_to_move_wins": answers.pop(),
                         "nodes": solver.nodes, "seconds": round(secs, 3),
                         "nodes_per_second": round(solver.nodes / secs)})
            answers.add(rows[-1]["side_to_move_wins"])
            print(f"size {size} opening {point:>2} reply {reply:>2} {label:>12}: "
                  f"{solver.nodes:>13,} nodes {secs:8.2f} s", flush=True)
        assert len(answers) == 1, "the algorithms disagree"
    artifacts.append_csv(out, rows)
    by = {}
    for r in rows:
        t = by.setdefault((r["size"], r["algorithm"]), [0, 0.0])
        t[0] += r["nodes"]
        t[1] += r["seconds"]
    for (size, label), (nodes, secs) in sorted(by.items()):
        print(f"size {size} {label:>12}: {nodes:,} nodes {secs:.1f} s", flush=True)
    print(f"appended {len(rows)} rows to {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[5, 6])
    ap.add_argument("--tt-mb", type=float, default=1024)
    ap.add_argument("--out", default=str(ROOT / "results" / "bench" / "trike.csv"))
    ap.add_argument("--scaling", type=int, default=None, metavar="SIZE",
                    help="also time 1 vs 2 workers vs Dask per opening class on SIZE")
    ap.add_argument("--scaling-full", action="store_true",
                    help="scaling with margins and remoteness (default: win/loss only)")
    ap.add_argument("--tt-min-moves", type=int, nargs="+", default=None, metavar="K",
                    help="only time these table thresholds (size 7 and size-8 replies)")
    ap.add_argument("--dfpn", type=int, nargs="+", default=None, metavar="1/EPSILON",
                    help="only compare alpha-beta with df-pn (these 1/epsilon; 0: no "
                         "epsilon trick) on size 7 and size-8 replies")
    ap.add_argument("--threads", type=int, nargs="+", default=None, metavar="N",
                    help="only time these search thread counts on size 7 and size-8 replies")
    ap.add_argument("--resume", type=float, nargs="+", default=None, metavar="FRACTION",
                    help="only measure stops at these fractions of size-7 searches, resumed "
                         "from their saved stacks")
    args = ap.parse_args()

    compile_s = warm_up()
    if args.resume:
        resume(args.resume, Path(args.out).with_name("trike-resume.csv"))
        return
    if args.threads:
        threads(args.threads, Path(args.out).with_name("trike-threads.csv"))
        return
    if args.dfpn:
        algorithms(Path(args.out).with_name("trike-dfpn.csv"), args.dfpn)
        return
    if args.tt_min_moves:
        tt_min_moves(args.tt_min_moves, Path(args.out).with_name("trike-tt-min-moves.csv"))
        return
    rows = []
    for size in args.sizes:
        nodes, secs = solve_all(size, args.tt_mb)
        wl_nodes, wl_secs = solve_all(size, args.tt_mb, full=False)
        ns_nodes, ns_secs = solve_all(size, args.tt_mb, use_symmetry=False, full=False)
        row = {
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "commit": artifacts.git_commit(),
            "machine": f"{artifacts.machine()['machine']} x{os.cpu_count()}",
            "size": size,
            "task": "all openings: margin+remoteness+winning replies",
            "nodes": nodes,
            "seconds": round(secs, 3),
            "nodes_per_second": round(nodes / secs),
            "compile_seconds": round(compile_s, 3),
            "winloss_nodes": wl_nodes,
            "winloss_seconds": round(wl_secs, 3),
            "winloss_no_symmetry_nodes": ns_nodes,
            "winloss_no_symmetry_seconds": round(ns_secs, 3),
            "tt_mb": args.tt_mb,
        }
        rows.append(row)
        print(f"size {size}: {nodes:,} nodes in {secs:.2f} s = {nodes / secs / 1e6:.2f} M nodes/s "
              f"(compile {compile_s:.2f} s); win/loss only {wl_nodes:,} nodes {wl_secs:.2f} s, "
              f"without symmetry {ns_nodes:,} nodes {ns_secs:.2f} s", flush=True)
    out = Path(args.out)
    artifacts.append_csv(out, rows)
    print(f"appended {len(rows)} rows to {out}")
    if args.scaling:
        scaling(args.scaling, args.tt_mb, not args.scaling_full,
                out.with_name("trike-scaling.csv"))


if __name__ == "__main__":
    main()
