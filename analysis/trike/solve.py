"""``trilab solve trike``: every opening of a size solved, its table written.

:func:`solve_trike` checks the options, runs the opening study
(:func:`trilab.analysis.trike.openings.run`) on the executor of ``--jobs`` /
``--dask``, resuming from the checkpoint beside the table, and has
:mod:`trilab.analysis.trike.size_table` write the table, the opening map and
the metadata::

    from trilab.analysis.trike.solve import solve_trike

    out = solve_trike(size=5, out="/tmp/size-5.csv")
    print(out.study.summary()["placer_wins"])        # 9
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from trilab.analysis import artifacts
from trilab.analysis.common import RESULTS, StudyError, make_executor, output_path
from trilab.analysis.trike import openings, size_table
from trilab.analysis.trike import unit_order as unit_orders
from trilab.analysis.trike.openings import OpeningStudy
from trilab.solver.trike import engine as trike
from trilab.solver.trike.retrograde import MAX_RETROGRADE_SIZE


@dataclass
class SolveOutcome:
    """A finished or stopped opening study and the files it wrote."""

    study: OpeningStudy
    files: list[Path]
    interrupted: str | None = None  # "interrupted" or "time limit of ... reached"
    message: str | None = None  # what to tell the user on stderr when stopped
    checkpoint: Path | None = None

    def to_json(self) -> dict:
        return self.study.to_json()

    def text(self) -> str:
        s = self.study
        work = (f"{s.extra['database_positions']:,} positions in the database"
                if s.method == "retrograde" else f"{s.nodes:,} nodes")
        resumed = s.extra.get("resumed_classes")
        head = f"Trike size {s.size}, method {s.method}: {work}, {s.seconds:.2f} s"
        if resumed:
            head += f" ({resumed} {'class' if resumed == 1 else 'classes'} from the checkpoint)"
        return "\n".join([
            head, openings.format_table(s), "",
            "Who wins each opening (P = placer, M = mover):", openings.board_text(s), "",
            openings.format_summary(s), "",
            "Wrote " + ", ".join(str(f) for f in self.files)])


def solve_trike(
    size: int,
    method: str = "alphabeta",
    tt_mb: float | None = None,
    win_loss_only: bool = False,
    jobs: int = 1,
    dask: str | None = None,
    split: str | None = None,
    time_limit: float | None = None,
    out: str | Path | None = None,
    db: str | Path | None = None,
    restart: bool = False,
    progress: Callable | None = None,
    command: str | None = None,
    threads: int = 1,
    unit_order: str | None = None,
    eager_split: bool | None = None,
) -> SolveOutcome:
    """Solve every opening of Trike ``size`` and write the table, map and metadata.

    Resumes from the checkpoint beside the table unless ``restart``; a damaged
    checkpoint is renamed aside and reported (:class:`StudyError`).  Ctrl-C
    (KeyboardInterrupt) and ``time_limit`` stop the run with the proven
    classes saved: the outcome then has ``interrupted`` set and the partial
    table is written.  ``threads`` alpha-beta search threads share each
    worker's table (two threads: 1.5-1.8x on one size-7 or size-8 task).
    ``unit_order``: how a split run orders its units (``"search"`` or ``"agent"``,
    :mod:`trilab.analysis.trike.unit_order`; default: by split).  ``eager_split``:
    whether a win/loss move split proves the placer-to-move units through their
    children before searching them (default: yes, :data:`openings.EAGER_SPLIT`).
    """
    try:
        trike.check_size(size)
    except ValueError as e:
        raise StudyError(str(e), "--size") from None
    if method not in openings.METHODS:
        raise StudyError(f"unknown method {method!r}: alphabeta, dfpn or retrograde", "--method")
    if method == "dfpn" and not win_loss_only:
        raise StudyError("--method dfpn answers win/loss only: add --win-loss-only", "--method")
    if method == "retrograde" and size > MAX_RETROGRADE_SIZE:
        raise StudyError(f"retrograde supports sizes 2..{MAX_RETROGRADE_SIZE}; use "
                         "--method alphabeta", "--method")
    if method == "retrograde" and (jobs > 1 or dask or win_loss_only or time_limit or split):
        raise StudyError("--jobs, --dask, --split, --win-loss-only and --time-limit apply to "
                         "--method alphabeta")
    if threads < 1:
        raise StudyError("--threads must be at least 1", "--threads")
    if unit_order is not None and unit_order not in unit_orders.ORDERS:
        raise StudyError(f"unknown unit order {unit_order!r}: "
                         f"{' or '.join(unit_orders.ORDERS)}", "--unit-order")
    if unit_order is not None and (split or openings.default_split(size)) == "class":
        raise StudyError("--unit-order applies to --split replies or moves (the default "
                         "from size 8)", "--unit-order")
    if eager_split is not None and (split or openings.default_split(size)) != "moves":
        raise StudyError("--eager-split applies to --split moves (the default from size 9)",
                         "--eager-split")
    if threads > 1 and method != "alphabeta":
        raise StudyError("--threads applies to --method alphabeta", "--threads")
    tt_mb = openings.default_tt_mb(size) if tt_mb is None else tt_mb
    if method == "dfpn" and out is None:  # its own table: never resumes an alpha-beta run
        out = RESULTS / "trike" / "dfpn" / f"size-{size}.csv"
    paths = size_table.paths(size, output_path(size_table.paths(size, out)["csv"]))
    db_path = None
    if method == "retrograde":
        db_path = output_path(db if db else RESULTS / "trike" / "db" / f"size-{size}.npz",
                              "--db")
    if restart:
        openings.Checkpoint.discard(paths["checkpoint"])
    elif paths["replies"].exists() and not paths["checkpoint"].exists():
        # a finished reply-split run: its per-reply record resumes it (nothing to redo)
        shutil.copyfile(paths["replies"], paths["checkpoint"])
    try:
        versions = openings.SOLVER_VERSIONS
        ckpt = openings.Checkpoint(paths["checkpoint"], size,
                                   versions.get(method, versions["alphabeta"]))
    except openings.CheckpointError as e:
        raise StudyError(str(e)) from None
    del ckpt  # read again by the run; opened here only to report damage early
    classes = len(trike.opening_classes(size))
    executor = make_executor(jobs, dask, work=None if split in ("replies", "moves") or size >= 8
                             else classes)
    stopped = None
    try:
        study = openings.run(
            size, method, tt_mb, progress=progress, db_path=db_path, executor=executor,
            checkpoint_path=paths["checkpoint"], win_loss_only=win_loss_only,
            time_limit=time_limit, split=split, threads=threads, unit_order=unit_order,
            eager_split=eager_split,
            # the opening map is drawn at the end: import matplotlib while the
            # search (which releases the GIL) runs, not after it
            on_ready=lambda: artifacts.import_in_background("trilab.analysis.plots"))
    except openings.Interrupted as stop:
        study, stopped = stop.study, stop.reason
    except openings.CheckpointError as e:
        raise StudyError(str(e)) from None
    finally:
        executor.close()
    kept = size_table.keeps_existing(study, paths)
    table_paths = size_table.partial_paths(paths) if kept else paths
    try:
        files = size_table.write(study, table_paths, tt_mb, command)
    except artifacts.OutputError as e:
        raise StudyError(str(e), "--out") from None
    if db_path is not None:
        files.append(db_path)
    if stopped is None:
        if study.extra.get("split") in ("replies", "moves") and paths["checkpoint"].exists():
            # the per-reply proofs are the record that `trilab confirm` re-proves
            paths["checkpoint"].replace(paths["replies"])
            files.append(paths["replies"])
        paths["checkpoint"].unlink(missing_ok=True)  # the table records a complete run
        return SolveOutcome(study, files)
    done = study.table.symmetry_class.nunique()
    saved = (f"are saved in {paths['checkpoint']}" if paths["checkpoint"].exists()
             else "are proven (nothing to save yet)")
    where = (f"the complete table in {paths['csv']} is kept; the partial one is in "
             f"{table_paths['csv']}" if kept else f"the partial table is in {paths['csv']}")
    message = (f"trilab: {stopped}: {done} of {done + len(study.open_classes)} opening classes "
               f"{saved}; {where}. Run the same command to resume.")
    return SolveOutcome(study, files, stopped, message,
                        paths["checkpoint"] if paths["checkpoint"].exists() else None)
