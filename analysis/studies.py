"""trilab's studies as Python functions: what each CLI command does, without click.

Each function validates its inputs (raising :class:`StudyError`, a
``ValueError`` that names the offending option), runs the study, writes the
result files atomically next to a ``.meta.json`` (command, versions, seed,
timings) and returns an outcome object whose ``text()`` is what the command
prints and whose ``to_json()`` is its ``--json`` object.  ``cli.py`` only
parses arguments, calls one of these and prints.

Example::

    from trilab.analysis import studies

    out = studies.solve_trike(size=5, out="/tmp/size-5.csv")
    print(out.study.summary()["placer_wins"])        # 9
    sim = studies.simulate("trio-cards", {"players": 4, "policies": ["memory"]},
                           games=10_000, seed=1, out="/tmp/p4.csv")
    print(sim.summary["first_seat_advantage"])

Heavy libraries (Numba, pandas, matplotlib, Dask) are imported inside the
functions that need them, so ``trilab --help`` and small solves start fast.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RESULTS = Path("results")
"""Default results folder (relative to the working directory)."""

DEFAULT_TT_MB: dict[int, float] = {2: 4, 3: 4, 4: 4, 5: 4, 6: 16, 7: 256, 8: 4096, 9: 4096,
                                   10: 4096}
"""Transposition table per worker (MiB) when ``tt_mb`` is not given, chosen by
measurement (``benchmarks/bench_trike.py --tt``, ``results/bench/trike-tt.csv``):
every class starts from an empty table, and zeroing a large table costs more
than it saves on small boards (size 6: 1024 MiB took 2.5 s of search, 16 MiB
0.55 s with the same node count)."""


class StudyError(ValueError):
    """Bad input to a study; ``option`` names the CLI option at fault (or None)."""

    def __init__(self, message: str, option: str | None = None):
        super().__init__(message)
        self.option = option


def default_tt_mb(size: int) -> float:
    return DEFAULT_TT_MB.get(size, 4096)


# ------------------------------------------------------------------ trike solve


def trike_paths(size: int, out: str | Path | None = None) -> dict[str, Path]:
    """Where a size-``size`` opening study writes: csv, meta, png, checkpoint."""
    csv = Path(out) if out else RESULTS / "trike" / f"size-{size}.csv"
    return {"csv": csv, "meta": csv.with_suffix(".meta.json"), "png": csv.with_suffix(".png"),
            "checkpoint": csv.with_suffix(".checkpoint.json"),
            "replies": csv.with_suffix(".replies.json"),
            "confirmations": csv.with_suffix(".confirmations.json"),
            "margins": csv.with_suffix(".margins.json")}


@dataclass
class SolveOutcome:
    """A finished or stopped opening study and the files it wrote."""

    study: Any  # trike_openings.OpeningStudy
    files: list[Path]
    interrupted: str | None = None  # "interrupted" or "time limit of ... reached"
    message: str | None = None  # what to tell the user on stderr when stopped
    checkpoint: Path | None = None

    def to_json(self) -> dict:
        return self.study.to_json()

    def text(self) -> str:
        from trilab.analysis.trike import openings as trike_openings

        s = self.study
        work = (f"{s.extra['database_positions']:,} positions in the database"
                if s.method == "retrograde" else f"{s.nodes:,} nodes")
        resumed = s.extra.get("resumed_classes")
        head = f"Trike size {s.size}, method {s.method}: {work}, {s.seconds:.2f} s"
        if resumed:
            head += f" ({resumed} {'class' if resumed == 1 else 'classes'} from the checkpoint)"
        return "\n".join([
            head, trike_openings.format_table(s), "",
            "Who wins each opening (P = placer, M = mover):", trike_openings.board_text(s), "",
            trike_openings.format_summary(s), "",
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
) -> SolveOutcome:
    """Solve every opening of Trike ``size`` and write the table, map and metadata.

    Resumes from the checkpoint beside the table unless ``restart``; a damaged
    checkpoint is renamed aside and reported (:class:`StudyError`).  Ctrl-C
    (KeyboardInterrupt) and ``time_limit`` stop the run with the proven
    classes saved: the outcome then has ``interrupted`` set and the partial
    table is written.
    """
    from trilab.solver.trike import engine as trike
    from trilab.solver.trike.retrograde import MAX_RETROGRADE_SIZE

    try:
        trike.check_size(size)
    except ValueError as e:
        raise StudyError(str(e), "--size") from None
    if method not in ("alphabeta", "dfpn", "retrograde"):
        raise StudyError(f"unknown method {method!r}: alphabeta, dfpn or retrograde", "--method")
    if method == "dfpn" and not win_loss_only:
        raise StudyError("--method dfpn answers win/loss only: add --win-loss-only", "--method")
    if method == "retrograde" and size > MAX_RETROGRADE_SIZE:
        raise StudyError(f"retrograde supports sizes 2..{MAX_RETROGRADE_SIZE}; use "
                         "--method alphabeta", "--method")
    if method == "retrograde" and (jobs > 1 or dask or win_loss_only or time_limit or split):
        raise StudyError("--jobs, --dask, --split, --win-loss-only and --time-limit apply to "
                         "--method alphabeta")
    tt_mb = default_tt_mb(size) if tt_mb is None else tt_mb
    if method == "dfpn" and out is None:  # its own table: never resumes an alpha-beta run
        out = RESULTS / "trike" / "dfpn" / f"size-{size}.csv"
    paths = trike_paths(size, out)
    db_path = None
    if method == "retrograde":
        db_path = Path(db) if db else RESULTS / "trike" / "db" / f"size-{size}.npz"
    from trilab.analysis import artifacts, executors
    from trilab.analysis.trike import openings as trike_openings

    if restart:
        trike_openings.Checkpoint.discard(paths["checkpoint"])
    elif paths["replies"].exists() and not paths["checkpoint"].exists():
        # a finished reply-split run: its per-reply record resumes it (nothing to redo)
        import shutil

        shutil.copyfile(paths["replies"], paths["checkpoint"])
    try:
        versions = trike_openings.SOLVER_VERSIONS
        ckpt = trike_openings.Checkpoint(paths["checkpoint"], size,
                                         versions.get(method, versions["alphabeta"]))
    except trike_openings.CheckpointError as e:
        raise StudyError(str(e)) from None
    del ckpt  # read again by the run; opened here only to report damage early
    try:
        executor = executors.make_executor(jobs, dask)
    except executors.ExecutorError as e:
        raise StudyError(str(e), "--dask" if dask else "--jobs") from None
    stopped = None
    try:
        study = trike_openings.run(
            size, method, tt_mb, progress=progress, db_path=db_path, executor=executor,
            checkpoint_path=paths["checkpoint"], win_loss_only=win_loss_only,
            time_limit=time_limit, split=split,
            # the opening map is drawn at the end: import matplotlib while the
            # search (which releases the GIL) runs, not after it
            on_ready=lambda: artifacts.import_in_background("trilab.analysis.plots"))
    except trike_openings.Interrupted as stop:
        study, stopped = stop.study, stop.reason
    except trike_openings.CheckpointError as e:
        raise StudyError(str(e)) from None
    finally:
        executor.close()
    files = write_trike_study(study, paths, tt_mb, command)
    if db_path is not None:
        files.append(db_path)
    if stopped is None:
        if study.extra.get("split") == "replies" and paths["checkpoint"].exists():
            # the per-reply proofs are the record that `trilab confirm` re-proves
            paths["checkpoint"].replace(paths["replies"])
            files.append(paths["replies"])
        paths["checkpoint"].unlink(missing_ok=True)  # the table records a complete run
        return SolveOutcome(study, files)
    done = study.table.symmetry_class.nunique()
    message = (f"trilab: {stopped}: {done} of {done + len(study.open_classes)} opening classes "
               f"are saved in {paths['checkpoint']}; the partial table is in {paths['csv']}. "
               "Run the same command to resume.")
    return SolveOutcome(study, files, stopped, message, paths["checkpoint"])


def _with_probed_values(table, size: int, paths: dict[str, Path]):
    """A win/loss table with the exact margins and remoteness that `trilab
    margins` proved since (``size-N.margins.json``) filled in per class."""
    probes = paths.get("margins")
    if probes is None or not probes.exists() or table["margin"].notna().all():
        return table
    record = _reply_record(size, paths, required=False)
    if record is None:
        return table
    from trilab.analysis.trike import margins as trike_margins

    states, _ = trike_margins.run(size, record, probes, tt_mb=1, replay_only=True,
                                  modes=("margin", "remoteness"))
    rows = {r["point"]: r for r in trike_margins.table_rows(size, states)}
    reps = table.groupby("symmetry_class").point.transform("min")
    table = table.copy()
    for col in ("margin", "remoteness"):
        proven = reps.map(lambda p, c=col: rows.get(p, {}).get(c))
        table[col] = table[col].astype("object").where(table[col].notna(), proven)
        table[col] = table[col].astype("Int64")
    return table


def write_trike_study(study, paths: dict[str, Path], tt_mb: float,
                      command: str | None = None) -> list[Path]:
    """The table (CSV), the opening map (PNG) and the metadata, each atomically."""
    from trilab.analysis import artifacts, plots

    table = study.table
    if paths.get("confirmations") is not None and paths["confirmations"].exists():
        from trilab.analysis.trike import confirm as trike_confirm

        said = trike_confirm.status(study.size, trike_confirm.load(paths["confirmations"],
                                                                   study.size))
        reps = table.groupby("symmetry_class").point.transform("min")
        table = table.assign(confirmed=reps.map(said))
    table = _with_probed_values(table, study.size, paths)
    meta = artifacts.base_metadata(
        command=command or artifacts.command_line(), game="trike", size=study.size,
        method=study.method, tt_mb=tt_mb, win_loss_only=study.win_loss_only,
        complete=study.complete, nodes=study.nodes, seconds=round(study.seconds, 3),
        summary=study.summary(), **study.extra)
    artifacts.write_csv(paths["csv"], table)
    artifacts.save_figure(paths["png"], plots.trike_opening_map(table, study.size))
    artifacts.write_json(paths["meta"], meta)
    return [paths["csv"], paths["meta"], paths["png"]]


# ------------------------------------------------------------------ trike confirm


@dataclass
class ConfirmOutcome:
    data: dict
    files: list[Path]
    planned: int

    def to_json(self) -> dict:
        return self.data

    def text(self) -> str:
        from trilab.analysis.trike import confirm as trike_confirm

        size = self.data["size"]
        lines = [f"Trike size {size}: {len(self.data['proofs'])} of {self.planned} planned "
                 "proofs re-done, all agreeing with the first proofs"]
        for x in self.data["proofs"]:
            lines.append(f"  opening {trike_confirm.label(size, x['point'])}, reply "
                         f"{trike_confirm.label(size, x['reply'])}: placer "
                         f"{'wins' if x['placer_wins'] else 'loses'} ({x['keys']} keys, "
                         f"{x['nodes']:,} nodes, {x['seconds']:.0f} s)")
        return "\n".join(lines + ["Wrote " + ", ".join(str(f) for f in self.files)])


def _reply_record(size: int, paths: dict[str, Path], required: bool = True) -> Path | None:
    """The per-reply record of a reply-split run: the checkpoint of a run in
    progress, else the record a finished run left; without one a StudyError
    (or None when not ``required``)."""
    record = next((paths[k] for k in ("checkpoint", "replies") if paths[k].exists()), None)
    if record is None and required:
        raise StudyError(f"no per-reply record of size {size} ({paths['checkpoint']} or "
                         f"{paths['replies']}): run `trilab solve trike --size {size} --split "
                         "replies --win-loss-only` first", "--size")
    return record


def confirm_trike(size: int, sample: int = 2, tt_mb: float | None = None,
                  time_limit: float | None = None, out: str | Path | None = None,
                  progress: Callable[[str], None] | None = None, jobs: int = 1,
                  dask: str | None = None, command: str | None = None) -> ConfirmOutcome:
    """Re-prove a reply-split run's claims with the other table keying
    (:mod:`trilab.analysis.trike.confirm`); resumable, saved after each proof."""
    paths = trike_paths(size, out)
    record = _reply_record(size, paths)
    if sample < 0:
        raise StudyError("--sample must be at least 0", "--sample")
    from trilab.analysis.trike import confirm as trike_confirm

    tt_mb = default_tt_mb(size) if tt_mb is None else tt_mb
    from trilab.analysis import executors

    try:
        executor = executors.make_executor(jobs, dask)
    except executors.ExecutorError as e:
        raise StudyError(str(e), "--dask" if dask else "--jobs") from None
    data = trike_confirm.run(size, record, paths["confirmations"], tt_mb, sample, time_limit,
                             progress, executor)  # a disagreement raises ConfirmationMismatch
    from trilab.analysis import artifacts

    meta = paths["confirmations"].with_suffix(".meta.json")
    artifacts.write_json(meta, artifacts.base_metadata(
        command=command or artifacts.command_line(), game="trike", size=size, sample=sample,
        tt_mb=tt_mb, record=str(record), proofs=len(data["proofs"]),
        cpu_seconds=round(sum(x["seconds"] for x in data["proofs"]), 1)))
    from trilab.analysis.trike.openings import read_reply_record

    planned = len(trike_confirm.plan(size, *read_reply_record(record, size), sample))
    return ConfirmOutcome(data, [paths["confirmations"], meta], planned)


# ------------------------------------------------------------------ trike margins


@dataclass
class MarginsOutcome:
    size: int
    rows: list[dict]
    files: list[Path]
    stopped: str | None = None

    @property
    def complete(self) -> bool:
        return all(r.get("margin_exact") is not False and r.get("remoteness_exact") is not False
                   for r in self.rows)

    def to_json(self) -> dict:
        return {"size": self.size, "complete": self.complete, "stopped": self.stopped,
                "classes": self.rows}

    def text(self) -> str:
        lines = [f"Trike size {self.size}, per opening class: the placer's margin (negative: "
                 "the mover wins) and the remoteness (plies to the end under perfect play)"]
        for r in self.rows:
            if r["margin_exact"]:
                said = f"margin {r['margin']:+d}"
            else:
                said = f"margin in [{r['margin_low']:+d}, {r['margin_high']:+d}] (open)"
            if "remoteness_exact" in r:
                said += (f", remoteness {r['remoteness']}" if r["remoteness_exact"] else
                         ", remoteness in [{}, {}] (open)".format(*r["remoteness_bounds"]))
            lines.append(f"  ({r['row']},{r['col']}) {r['winner']:>6} wins: {said}; "
                         f"{r['nodes']:,} nodes, {r['seconds']:.0f} s")
        if self.stopped:
            lines.append(f"trilab: {self.stopped}: every answer so far is saved in "
                         f"{self.files[0]}. Run the same command to resume.")
        return "\n".join(lines + ["Wrote " + ", ".join(str(f) for f in self.files)])


def margins_trike(size: int, tt_mb: float | None = None, time_limit: float | None = None,
                  out: str | Path | None = None, progress: Callable[[str], None] | None = None,
                  remoteness: bool = False, keys: str = "region",
                  command: str | None = None) -> MarginsOutcome:
    """Exact margins (and with ``remoteness`` the remoteness) of a size whose
    win/loss map a reply-split run proved (:mod:`trilab.analysis.trike.margins`);
    resumable, saved after each probe.  Ctrl-C stops it like the time limit,
    keeping every answer.  ``keys="whole"`` re-proves with whole-position
    table keys into ``size-N.margins-whole.*`` (a second code path)."""
    paths = trike_paths(size, out)
    record = _reply_record(size, paths)
    from trilab.analysis import artifacts
    from trilab.analysis.trike import margins as trike_margins

    if keys not in ("region", "whole"):
        raise StudyError(f"unknown keys {keys!r}: region or whole", "--keys")
    tt_mb = default_tt_mb(size) if tt_mb is None else tt_mb
    modes = ("margin", "remoteness") if remoteness else ("margin",)
    probes = paths["margins"]
    if keys == "whole":
        probes = probes.with_name(probes.name.replace(".margins.", ".margins-whole."))
    t0 = time.perf_counter()
    try:
        states, timed_out = trike_margins.run(size, record, probes, tt_mb, time_limit,
                                              progress, modes, region_keys=keys == "region")
        stopped = f"time limit of {time_limit:g} s reached" if timed_out else None
    except KeyboardInterrupt:
        states, _ = trike_margins.run(size, record, probes, tt_mb, modes=modes,
                                      replay_only=True)
        stopped = "interrupted"
    except ValueError as e:
        raise StudyError(str(e)) from None
    rows = trike_margins.table_rows(size, states)
    outcome = MarginsOutcome(size, rows, [], stopped)
    table = probes.with_suffix(".csv")
    meta = probes.with_suffix(".meta.json")
    import pandas as pd

    artifacts.write_csv(table, pd.DataFrame(rows))
    artifacts.write_json(meta, artifacts.base_metadata(
        command=command or artifacts.command_line(), game="trike", size=size, tt_mb=tt_mb,
        record=str(record), modes=list(modes), keys=keys, complete=outcome.complete,
        stopped=stopped,
        seconds_this_run=round(time.perf_counter() - t0, 1),
        cpu_seconds=round(sum(r["seconds"] for r in rows), 1)))
    outcome.files = [probes, table, meta]
    return outcome


# ------------------------------------------------------------------ trike analyze


def analyze_trike(size: int, position: str, tt_mb: float = 256, db: str | Path | None = None):
    """The value of a Trike position and of each move (a ``PositionReport``)."""
    from trilab.solver.trike.engine import NotationError, parse_position

    try:
        pos = parse_position(position, size)
    except NotationError as e:
        raise StudyError(str(e), "--position") from None
    path = Path(db) if db else RESULTS / "trike" / "db" / f"size-{size}.npz"
    if db and not path.exists():
        raise StudyError(f"no such database: {path}", "--db")
    from trilab.analysis.trike import analyze as trike_analysis

    return trike_analysis.analyze(pos, tt_mb=tt_mb, db_path=path if path.exists() else None)


# ------------------------------------------------------------------ simulate


def _simulated_game(game: str):
    """The registry entry of a simulated game, or a StudyError naming the choices."""
    from trilab.solver import registry

    try:
        info = registry.get(game)
    except ValueError as e:
        raise StudyError(str(e), "GAME") from None
    if not info.simulated:
        raise StudyError(f"{game!r} is not simulated; simulated games: "
                         f"{', '.join(registry.simulated())}", "GAME")
    return info


def study_name(game: str, config) -> str:
    """The file name of a simulated study: options and policies."""
    pols = [p.replace(":", "-") for p in config.seat_policies]
    if game == "trio-cards":
        o = config.options
        pol = pols[0] if len(set(pols)) == 1 else "_".join(pols)
        return f"p{o['players']}-{o['mode']}{'-teams' if o['teams'] else ''}-{pol}"
    if game == "trio-board":
        o = config.options
        pol = pols[0] if len(set(pols)) == 1 else "_".join(pols)
        lost = "" if o["lost_general"] == "keep" else f"-{o['lost_general']}"
        return f"{o['fortress']}{lost}-{pol}"
    return "-vs-".join(pols)


@dataclass
class SimulateOutcome:
    summary: dict
    files: list[Path] = field(default_factory=list)

    JSON_KEYS = ("game", "games", "seed", "seats", "draws", "unfinished", "mean_length",
                 "first_seat_advantage", "first_seat_advantage_ci", "options")

    def to_json(self) -> dict:
        return {k: self.summary[k] for k in self.JSON_KEYS}

    def text(self) -> str:
        from trilab.analysis import mc_study

        return (mc_study.format_report(self.summary) + "\nWrote "
                + ", ".join(str(f) for f in self.files))


def simulate(
    game: str,
    options: dict,
    games: int,
    seed: int = 0,
    jobs: int = 1,
    dask: str | None = None,
    chunk: int = 20_000,
    out: str | Path | None = None,
    progress: Callable | None = None,
    command: str | None = None,
) -> SimulateOutcome:
    """Play ``games`` games of a simulated game; write the per-seat table, the
    per-game rows (parquet), the plot and the metadata."""
    info = _simulated_game(game)
    unknown = sorted(set(options) - set(info.options))
    if unknown:
        raise StudyError(f"{', '.join('--' + u.replace('_', '-') for u in unknown)} "
                         f"does not apply to {game}")
    if games < 1:
        raise StudyError("games must be at least 1", "--games")
    spec = info.load().SPEC
    try:
        config = spec.make_config(options)
    except ValueError as e:
        raise StudyError(str(e)) from None
    from trilab.analysis import artifacts, executors, mc_study, montecarlo

    try:
        executor = executors.make_executor(jobs, dask)
    except executors.ExecutorError as e:
        raise StudyError(str(e), "--dask" if dask else "--jobs") from None
    csv = Path(out) if out else RESULTS / game / f"{study_name(game, config)}.csv"
    try:
        res = montecarlo.simulate(spec, config, games, seed, executor, chunk, progress=progress)
    finally:
        executor.close()
    summary = mc_study.summarise(spec, config, res, seed)
    summary["executor"] = executor.describe()
    command = command or artifacts.command_line()
    meta = artifacts.base_metadata(
        **summary, command=command, regenerate=command,
        per_game_rows=f"{csv.with_suffix('.parquet')} (not committed; rerun the command to "
                      "regenerate)")
    frame = mc_study.per_game_frame(spec, config, res)
    fig = mc_study.plot_win_rates(
        summary, f"{game} {study_name(game, config)}: {games:,} games, seed {seed}")
    artifacts.atomic_write(csv.with_suffix(".parquet"),
                           lambda tmp: frame.to_parquet(tmp, index=False))
    artifacts.write_csv(csv, mc_study.seat_table(config, res))
    artifacts.save_figure(csv.with_suffix(".png"), fig)
    artifacts.write_json(csv.with_suffix(".meta.json"), meta)
    files = [csv, csv.with_suffix(".meta.json"), csv.with_suffix(".png"),
             csv.with_suffix(".parquet")]
    return SimulateOutcome(summary, files)


# ------------------------------------------------------------------ report


@dataclass
class ReportOutcome:
    table: Any  # pandas.DataFrame, one row per study
    files: list[Path]

    COLUMNS = ("study", "games", "seat_win_rates", "first_seat_advantage", "ci_low", "ci_high",
               "unfinished", "mean_length")

    def to_json(self) -> list[dict]:
        return json.loads(self.table.to_json(orient="records"))

    def text(self) -> str:
        import pandas as pd

        with pd.option_context("display.width", 200, "display.max_colwidth", 60):
            body = self.table[list(self.COLUMNS)].to_string(
                index=False, float_format=lambda v: f"{v:.4f}")
        return body + "\nWrote " + ", ".join(str(f) for f in self.files)


def report(game: str, results_dir: str | Path = RESULTS,
           command: str | None = None) -> ReportOutcome:
    """Every simulated study of ``game`` in one table and one first-seat-advantage plot."""
    _simulated_game(game)
    from trilab.analysis import artifacts, mc_study

    folder = Path(results_dir) / game
    table = mc_study.collect(folder)
    if table.empty:
        raise StudyError(f"no studies in {folder}; run `trilab simulate {game} ...` first")
    out = folder / "summary.csv"
    fig = mc_study.plot_first_seat_advantage(table, f"{game}: first-seat advantage by study")
    artifacts.write_csv(out, table)
    artifacts.save_figure(out.with_suffix(".png"), fig)
    artifacts.write_json(out.with_suffix(".meta.json"), artifacts.base_metadata(
        command=command or artifacts.command_line(), game=game, studies=len(table),
        sources=sorted(table.study)))
    return ReportOutcome(table, [out, out.with_suffix(".png"), out.with_suffix(".meta.json")])


# ------------------------------------------------------------------ agent strength


@dataclass
class StrengthOutcome:
    """What ``trilab strength`` computed and wrote."""

    kind: str  # "moves" or "openings"
    table: object  # pandas DataFrame
    files: list[Path]
    seconds: float

    def to_json(self) -> dict:
        return {"study": self.kind, "seconds": round(self.seconds, 3),
                "rows": json.loads(self.table.to_json(orient="records")),
                "files": [str(f) for f in self.files]}

    def text(self) -> str:
        import pandas as pd

        if self.kind == "moves":
            cols = ["agent", "stage", "positions", "winning_move_share", "ci_low", "ci_high",
                    "positions_with_a_losing_move", "share_there", "mean_simulations",
                    "mean_seconds"]
        else:
            cols = ["size", "agent", "row", "col", "exact_winner", "games", "placer_win_rate",
                    "ci_low", "ci_high", "agrees"]
        with pd.option_context("display.width", 220):
            body = self.table[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}")
        return body + f"\n{self.seconds:.1f} s. Wrote " + ", ".join(str(f) for f in self.files)


def _agents(texts: list[str]) -> list[str]:
    from trilab.solver import mcts

    if not texts:
        raise StudyError("give at least one agent", "--agents")
    for t in texts:
        try:
            mcts.parse_agent(t)
        except ValueError as e:
            raise StudyError(str(e), "--agents") from None
    return texts


def strength_trike(sizes: list[int], agents: list[str], seed: int = 0, positions: int = 1000,
                   openings: bool = False, games: int = 10, jobs: int = 1,
                   dask: str | None = None, out_dir: str | Path | None = None,
                   tt_mb: float = 256, progress: Callable | None = None,
                   command: str | None = None) -> StrengthOutcome:
    """The agents against the exact solver (see :mod:`trilab.analysis.trike.strength`).

    Without ``openings``: share of won positions of each size where each agent
    picks a winning move (files ``trike-N-moves.*``).  With ``openings``: per
    opening class of each size, games of the agent against itself and whether
    their majority agrees with the exact winner (``trike-openings-AGENT.*``).
    Both resume from their ``*.rows.csv`` (and the positions' labels) when run
    again with the same arguments.
    """
    from trilab.solver.trike import engine as trike

    agents = _agents(agents)
    folder = Path(out_dir) if out_dir else RESULTS / "agents"
    for size in sizes:
        if not trike.MIN_SIZE <= size <= trike.MAX_SIZE:
            raise StudyError(f"size {size} is not in {trike.MIN_SIZE}..{trike.MAX_SIZE} "
                             "(the exact solver is the reference)", "--sizes")
    if positions < 1:
        raise StudyError("positions must be at least 1", "--positions")
    if games < 1:
        raise StudyError("games must be at least 1", "--games")
    exact_tables = {}
    if openings:
        import pandas as pd

        if len(agents) != 1:
            raise StudyError("--openings plays one agent against itself: give one agent",
                             "--agents")
        for size in sizes:
            path = RESULTS / "trike" / f"size-{size}.csv"
            table = pd.read_csv(path) if path.exists() else None
            if table is None or table.winner.isna().any() or len(table) != trike.n_points(size):
                raise StudyError(f"size {size} has no complete exact table at {path}; "
                                 f"run `trilab solve trike --size {size}` first", "--sizes")
            exact_tables[size] = table
    elif len(sizes) != 1:
        raise StudyError("the winning-move study takes one size at a time", "--sizes")
    from trilab.analysis import artifacts, executors
    from trilab.analysis.trike import strength as agent_strength

    try:
        executor = executors.make_executor(jobs, dask)
    except executors.ExecutorError as e:
        raise StudyError(str(e), "--dask" if dask else "--jobs") from None
    command = command or artifacts.command_line()
    t0 = time.perf_counter()
    if openings:
        import pandas as pd

        agent = agents[0]
        base = folder / f"trike-openings-{agent.replace(':', '-')}"
        rows_path = base.with_suffix(".rows.csv")
        _check_resume(rows_path.with_suffix(".json"), {"seed": seed, "games": games})
        total = sum(len(trike.opening_classes(s)) for s in sizes)
        done = [0]

        def class_done(k: int) -> None:
            done[0] += k
            if progress is not None:
                progress(f"opening classes: {done[0]} new of {total}")

        rows = agent_strength.opening_rows(sizes, agent, seed, games, executor, rows_path,
                                           progress=class_done)
        tables = [agent_strength.opening_table(s, agent, rows, exact_tables[s]) for s in sizes]
        table = pd.concat(tables, ignore_index=True)
        fig = agent_strength.plot_openings(tables)
        summary = {str(s): {"classes": len(t), "agree": int(t.agrees.sum())}
                   for s, t in zip(sizes, tables, strict=True)}
        extra = {"study": "openings", "agent": agent, "games_per_class": games,
                 "sizes": sizes, "agreement": summary}
    else:
        size = sizes[0]
        base = folder / f"trike-{size}-moves"
        labels = folder / f"trike-{size}-positions.json"
        def labelled_one(k: int) -> None:
            if progress is not None and (k % 50 == 0 or k == positions):
                progress(f"positions solved: {k}/{positions}")

        try:
            labelled = agent_strength.label_positions(size, positions, seed, labels, tt_mb,
                                                      progress=labelled_one)
        except ValueError as e:
            raise StudyError(str(e), "--seed") from None
        rows_path = base.with_suffix(".rows.csv")
        _check_resume(rows_path.with_suffix(".json"), {"seed": seed})
        total = positions * len(agents)
        rows = agent_strength.move_rows(
            labelled, agents, seed, rows_path, executor,
            progress=None if progress is None else lambda k: progress(f"answers: {k}/{total}"))
        table = agent_strength.summarise_moves(labelled, rows, agents)
        fig = agent_strength.plot_moves(table, size)
        extra = {"study": "winning moves", "size": size, "positions": positions,
                 "agents": agents, "stages": [list(s) for s in agent_strength.STAGES],
                 "labels": str(labels)}
    seconds = time.perf_counter() - t0
    csv = base.with_suffix(".csv")
    meta = artifacts.base_metadata(command=command, regenerate=command, seed=seed,
                                   seconds_this_run=round(seconds, 3),
                                   executor=executor.describe(), rows=str(rows_path), **extra)
    artifacts.write_csv(csv, table)
    artifacts.save_figure(csv.with_suffix(".png"), fig)
    artifacts.write_json(csv.with_suffix(".meta.json"), meta)
    files = [csv, csv.with_suffix(".png"), csv.with_suffix(".meta.json"), rows_path]
    return StrengthOutcome("openings" if openings else "moves", table, files, seconds)


def _check_resume(path: Path, params: dict) -> None:
    """Rows of an earlier run may only be resumed with the same parameters."""
    from trilab.analysis import artifacts

    if path.exists():
        old = json.loads(path.read_text())
        if old != params:
            raise StudyError(f"{path.with_suffix('.csv')} was made with {old}; "
                             f"delete it or use another --out-dir", "--seed")
    else:
        artifacts.write_json(path, params)


# ------------------------------------------------------------------ balance


@dataclass
class BalanceOutcome:
    """What ``trilab balance`` computed and wrote."""

    summaries: list[dict]
    rows: object  # pandas DataFrame, one row per opening point
    files: list[Path]
    seconds: float

    def to_json(self) -> dict:
        from trilab.analysis.trike import balance

        return balance.to_json(self.summaries, self.rows)

    def text(self) -> str:
        lines = []
        for s in self.summaries:
            best = ", ".join(f"({r},{c})" for r, c in s["best_pie_openings"][:6])
            if len(s["best_pie_openings"]) > 6:
                best += f" ... ({len(s['best_pie_openings'])} openings)"
            if s["method"] == "exact":
                lines.append(
                    f"size {s['size']:>2} exact: placer wins {s['placer_wins']:>2}/"
                    f"{s['openings_total']:<3} first player "
                    f"{'wins' if s['first_player_wins_without_pie'] else 'loses'} without the "
                    f"pie rule; with it the mover swaps the {s['placer_wins']} placer-won "
                    f"openings; best pie openings {best}")
            else:
                lo, hi = s["pie_value_ci"]
                alo, ahi = s["first_player_advantage_ci"]
                agree = s.get("agreement_with_exact")
                lines.append(
                    f"size {s['size']:>2} agent: placer wins {s['placer_wins']:>3}/"
                    f"{s['openings_total']:<3} pie value {100 * s['pie_value']:.1f}% "
                    f"[{100 * lo:.1f}, {100 * hi:.1f}] at {best}; first-player advantage "
                    f"{100 * s['first_player_advantage']:+.1f} pp [{100 * alo:+.1f}, "
                    f"{100 * ahi:+.1f}]"
                    + ("" if agree is None else f"; agrees with exact on {100 * agree:.0f}%"))
        return "\n".join(lines) + f"\n{self.seconds:.1f} s. Wrote " + \
            ", ".join(str(f) for f in self.files)


def balance_trike(sizes: list[int], exact: bool = False, agent: str | None = None,
                  games: int = 20, seed: int = 0, jobs: int = 1, dask: str | None = None,
                  out_dir: str | Path | None = None, progress: Callable | None = None,
                  command: str | None = None) -> BalanceOutcome:
    """Pie-rule balance by board size (see :mod:`trilab.analysis.trike.balance`):
    from the exact opening tables (``exact``) or from agent games."""
    import pandas as pd
    from trilab.solver.trike import agents as trike_arrays
    from trilab.solver.trike import engine as trike

    if exact == (agent is not None):
        raise StudyError("choose --exact or --agent SPEC", "--exact")
    if not sizes:
        raise StudyError("give at least one size", "--sizes")
    folder = Path(out_dir) if out_dir else RESULTS / "balance"
    tables = {}
    for size in sizes:
        path = RESULTS / "trike" / f"size-{size}.csv"
        table = pd.read_csv(path) if path.exists() else None
        complete = (table is not None and len(table) == trike.n_points(size)
                    and table.winner.notna().all())
        if exact:
            if not trike.MIN_SIZE <= size <= trike.MAX_SIZE or not complete:
                raise StudyError(f"size {size} has no complete exact table at {path}",
                                 "--sizes")
            tables[size] = table
        else:
            try:
                trike_arrays.check_size(size)
            except ValueError as e:
                raise StudyError(str(e), "--sizes") from None
            tables[size] = table if complete else None
    if games < 1:
        raise StudyError("games must be at least 1", "--games")
    from trilab.analysis import artifacts
    from trilab.analysis.trike import balance

    command = command or artifacts.command_line()
    t0 = time.perf_counter()
    if exact:
        rows = pd.concat([balance.exact_rows(n, tables[n]) for n in sizes], ignore_index=True)
        name = "trike-exact"
        extra = {"method": "exact", "sources": [f"results/trike/size-{n}.csv" for n in sizes]}
        executor_text = "in process"
    else:
        from trilab.analysis import executors
        from trilab.solver import mcts

        try:
            spec = mcts.parse_agent(agent)
        except ValueError as e:
            raise StudyError(str(e), "--agent") from None
        if spec.seconds is not None:
            raise StudyError("a balance study needs a fixed simulation count (mcts:N) so that "
                             "the same seed gives the same table", "--agent")
        try:
            executor = executors.make_executor(jobs, dask)
        except executors.ExecutorError as e:
            raise StudyError(str(e), "--dask" if dask else "--jobs") from None
        executor_text = executor.describe()
        name = f"trike-{agent.replace(':', '-')}"
        rows_path = folder / f"{name}.rows.csv"
        _check_resume(rows_path.with_suffix(".json"), {"seed": seed, "games": games})
        report = None if progress is None else (
            lambda k, total: progress(f"opening classes: {k}/{total}"))
        class_rows = balance.agent_class_rows(sizes, agent, seed, games, executor, rows_path,
                                              progress=report)
        rows = pd.concat([balance.agent_rows(n, class_rows, tables[n]) for n in sizes],
                         ignore_index=True)
        extra = {"method": "agent", "agent": agent, "games_per_class": games,
                 "rows": str(rows_path)}
    summaries = [balance.summarise(rows[rows["size"] == n].reset_index(drop=True))
                 for n in sizes]
    seconds = time.perf_counter() - t0
    csv = folder / f"{name}.csv"
    artifacts.write_csv(csv, rows)
    artifacts.write_json(folder / f"{name}.summary.json", {"sizes": summaries})
    artifacts.save_figure(folder / f"{name}.png", balance.plot_maps(
        rows, summaries, f"Trike openings, {'perfect play' if exact else agent}"))
    artifacts.write_json(folder / f"{name}.meta.json", artifacts.base_metadata(
        command=command, regenerate=command, seed=seed, sizes=sizes, executor=executor_text,
        seconds_this_run=round(seconds, 3), **extra))
    all_summaries = []
    for path in sorted(folder.glob("trike-*.summary.json")):
        all_summaries += json.loads(path.read_text())["sizes"]
    by_size = folder / "trike-by-size.png"
    artifacts.save_figure(by_size, balance.plot_by_size(
        all_summaries, "Trike: first-player advantage and pie value by board size"))
    files = [csv, folder / f"{name}.summary.json", folder / f"{name}.png",
             folder / f"{name}.meta.json", by_size]
    return BalanceOutcome(summaries, rows, files, seconds)


@dataclass
class PageOutcome:
    """What ``trilab report`` (no game) wrote."""

    points: object  # pandas DataFrame of the all-games figure
    files: list[Path]

    def to_json(self) -> list[dict]:
        return json.loads(self.points.to_json(orient="records"))

    def text(self) -> str:
        games = ", ".join(dict.fromkeys(self.points.game)) or "no studies"
        return f"Report of {games}. Wrote " + ", ".join(str(f) for f in self.files)


def report_all(results_dir: str | Path = RESULTS, out: str | Path | None = None,
               command: str | None = None) -> PageOutcome:
    """``results/report.html`` and the all-games first-seat-advantage figure
    (``first-seat-advantage.png``/``.csv``/``.meta.json`` beside the page)."""
    from trilab.analysis import artifacts, overview, report_html

    results = Path(results_dir)
    if not results.is_dir():
        raise StudyError(f"no results folder {results}", "--results-dir")
    page = Path(out) if out else results / "report.html"
    points = overview.all_points(results)
    files = []
    fig_path = None
    if not points.empty:
        fig_path = page.parent / "first-seat-advantage.png"
        artifacts.save_figure(fig_path, overview.plot_all_games(points))
        artifacts.write_csv(fig_path.with_suffix(".csv"), points)
        artifacts.write_json(fig_path.with_suffix(".meta.json"), artifacts.base_metadata(
            command=command or artifacts.command_line(), games=sorted(set(points.game))))
        files += [fig_path, fig_path.with_suffix(".csv"), fig_path.with_suffix(".meta.json")]
    artifacts.write_text(page, report_html.build(results, fig_path))
    files.append(page)
    return PageOutcome(points, files)
