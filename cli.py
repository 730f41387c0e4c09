"""trilab's command line (click).

Commands::

    trilab solve trike --size N [--method alphabeta|retrograde] [--tt-mb M] [--json] [--out PATH]
    trilab analyze trike --size N --position POS [--json]

Bad input is reported as one line on stderr with exit code 2 (click usage
errors), with no traceback and no file written.
"""

from __future__ import annotations

import json
import shlex
import signal
import sys
from pathlib import Path

import click

GAMES = ("trike", "tabula-trivium", "trio-board", "trio-cards")
SOLVABLE_GAMES = ("trike",)


class TrilabGroup(click.Group):
    """A click group whose errors are one line on stderr (exit 2 for usage errors)."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        # Keep the arguments: result metadata records the exact command.
        extra.setdefault("obj", {})["argv"] = list(sys.argv[1:] if args is None else args)
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name or "trilab", complete_var, standalone_mode=False,
                              **extra)
        except click.UsageError as e:
            ctx = e.ctx
            where = f"{ctx.command_path}: " if ctx is not None else "trilab: "
            click.echo(f"{where}error: {e.format_message()}", err=True)
            sys.exit(e.exit_code)
        except click.ClickException as e:
            click.echo(f"trilab: error: {e.format_message()}", err=True)
            sys.exit(e.exit_code)
        except (click.Abort, KeyboardInterrupt):
            click.echo("trilab: interrupted", err=True)
            sys.exit(130)
        sys.exit(rv if isinstance(rv, int) else 0)


def _game(solvable: bool):
    def check(ctx, param, value: str) -> str:
        if value not in GAMES:
            raise click.BadParameter(f"unknown game {value!r}; games: {', '.join(GAMES)}")
        if solvable and value not in SOLVABLE_GAMES:
            raise click.BadParameter(
                f"{value!r} cannot be solved exactly; solvable games: {', '.join(SOLVABLE_GAMES)}"
            )
        return value

    return check


def _trike_size(ctx, param, value: int) -> int:
    from trilab.solver.trike import MAX_SIZE, MIN_SIZE

    if not MIN_SIZE <= value <= MAX_SIZE:
        raise click.BadParameter(
            f"{value} is not in {MIN_SIZE}..{MAX_SIZE} "
            "(larger boards are not exactly solvable here)"
        )
    return value


def _progress_bar(desc: str):
    """A factory of tqdm bars on stderr, shown only on a terminal."""
    from tqdm import tqdm

    def make(total: int, initial: int = 0):
        return tqdm(total=total, initial=initial, desc=desc, unit="class", file=sys.stderr,
                    disable=not sys.stderr.isatty())

    return make


@click.group(cls=TrilabGroup)
@click.version_option(package_name="trilab", prog_name="trilab")
def cli() -> None:
    """trilab: solve and analyse the four 'tri' games."""


@cli.command()
@click.argument("game", callback=_game(solvable=True))
@click.option("--size", type=int, required=True, callback=_trike_size,
              help="Board side, 2..10.")
@click.option("--method", type=click.Choice(["alphabeta", "retrograde"]), default="alphabeta",
              show_default=True, help="Search, or a strong solution by tiers (sizes 2..7).")
@click.option("--tt-mb", type=click.FloatRange(min=1, max=1 << 20), default=1024,
              show_default=True, help="Transposition table size in MiB (per worker).")
@click.option("--win-loss-only", is_flag=True,
              help="Only who wins each opening (no margin, remoteness or replies).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Local worker processes (one opening class each at a time).")
@click.option("--dask", "dask_address", default=None, metavar="ADDRESS|local[:WORKERS]",
              help="Run the opening classes on a Dask scheduler, or on a LocalCluster.")
@click.option("--split", type=click.Choice(["class", "replies"]), default=None,
              help="Task size: one opening class, or one reply of the mover (saved as soon as "
                   "proven) [default: replies from size 8].")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="SECONDS", help="Stop after this long, keeping what is proven.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="CSV path (the .meta.json, .png and .checkpoint.json go beside it) "
                   "[default: results/trike/size-N.csv].")
@click.option("--db", "db_out", type=click.Path(dir_okay=False), default=None,
              help="Where --method retrograde writes its database "
                   "[default: results/trike/db/size-N.npz].")
def solve(game: str, size: int, method: str, tt_mb: float, win_loss_only: bool, jobs: int,
          dask_address: str | None, split: str | None, time_limit: float | None, as_json: bool,
          out: str | None, db_out: str | None) -> None:
    """Solve every opening of GAME exactly (who wins, margin, remoteness).

    Each solved opening class is saved at once to a checkpoint beside the
    table; run the same command again after an interruption to resume.
    """
    from trilab.solver.retrograde import MAX_RETROGRADE_SIZE

    if method == "retrograde" and size > MAX_RETROGRADE_SIZE:
        raise click.BadParameter(
            f"retrograde supports sizes 2..{MAX_RETROGRADE_SIZE}; use --method alphabeta",
            param_hint="'--method'",
        )
    if method == "retrograde" and (jobs > 1 or dask_address or win_loss_only or time_limit
                                   or split):
        raise click.UsageError("--jobs, --dask, --split, --win-loss-only and --time-limit "
                               "apply to --method alphabeta")
    from trilab.analysis import executors, trike_openings

    csv_path = Path(out) if out else Path("results") / "trike" / f"size-{size}.csv"
    db_path = None
    if method == "retrograde":
        db_path = Path(db_out) if db_out else Path("results") / "trike" / "db" / f"size-{size}.npz"
    try:
        executor = executors.make_executor(jobs, dask_address)
    except executors.ExecutorError as e:
        hint = "'--dask'" if dask_address else "'--jobs'"
        raise click.BadParameter(str(e), param_hint=hint) from None
    checkpoint = csv_path.with_suffix(".checkpoint.json")
    previous = signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
    try:
        try:
            study = trike_openings.run(
                size, method, tt_mb, progress=_progress_bar(f"trike size {size}"),
                db_path=db_path, executor=executor, checkpoint_path=checkpoint,
                win_loss_only=win_loss_only, time_limit=time_limit, split=split,
            )
        except trike_openings.Interrupted as stop:
            study = stop.study
            _write_study(study, csv_path, tt_mb)
            click.echo(f"trilab: {stop.reason}: {len(study.table.symmetry_class.unique())} of "
                       f"{len(study.table.symmetry_class.unique()) + len(study.open_classes)} "
                       f"opening classes are saved in {checkpoint}; the partial table is in "
                       f"{csv_path}. Run the same command to resume.", err=True)
            if stop.reason == "interrupted":
                sys.exit(130)
            return
        except ValueError as e:  # a checkpoint that belongs to something else
            raise click.UsageError(str(e)) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
        executor.close()
    _write_study(study, csv_path, tt_mb)
    checkpoint.unlink(missing_ok=True)  # the table is the record of a complete run
    if as_json:
        click.echo(json.dumps(study.to_json()))
        return
    work = (f"{study.extra['database_positions']:,} positions in the database"
            if method == "retrograde" else f"{study.nodes:,} nodes")
    resumed = study.extra.get("resumed_classes")
    click.echo(f"Trike size {size}, method {method}: {work}, {study.seconds:.2f} s"
               + (f" ({resumed} {'class' if resumed == 1 else 'classes'} from the checkpoint)"
                  if resumed else ""))
    click.echo(trike_openings.format_table(study))
    click.echo("\nWho wins each opening (P = placer, M = mover):")
    click.echo(trike_openings.board_text(study))
    click.echo("")
    click.echo(trike_openings.format_summary(study))
    click.echo(f"\nWrote {csv_path}, {csv_path.with_suffix('.meta.json')}, "
               f"{csv_path.with_suffix('.png')}" + (f", {db_path}" if db_path else ""))


def _invocation() -> str:
    """The command being run, as a user would type it (for metadata)."""
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx is not None else None
    if isinstance(obj, dict) and "argv" in obj:
        return shlex.join(["trilab", *obj["argv"]])
    from trilab.analysis import artifacts

    return artifacts.command_line()


def _raise_keyboard_interrupt(signum, frame):
    raise KeyboardInterrupt


def _write_study(study, csv_path: Path, tt_mb: float) -> None:
    from trilab.analysis import artifacts, plots

    meta = artifacts.base_metadata(
        command=_invocation(), game="trike", size=study.size, method=study.method, tt_mb=tt_mb,
        win_loss_only=study.win_loss_only, complete=study.complete, nodes=study.nodes,
        seconds=round(study.seconds, 3), summary=study.summary(), **study.extra,
    )
    fig = plots.trike_opening_map(study.table, study.size)
    artifacts.write_csv(csv_path, study.table)
    artifacts.save_figure(csv_path.with_suffix(".png"), fig)
    artifacts.write_json(csv_path.with_suffix(".meta.json"), meta)


@cli.command()
@click.argument("game", callback=_game(solvable=True))
@click.option("--size", type=int, required=True, callback=_trike_size, help="Board side, 2..10.")
@click.option("--position", "position_text", required=True,
              help="Rows from the apex joined by '/': '.' empty, b/w checkers, pawn upper case.")
@click.option("--tt-mb", type=click.FloatRange(min=1, max=65536), default=256, show_default=True,
              help="Transposition table size in MiB (when searching).")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None,
              help="Retrograde database [default: results/trike/db/size-N.npz if present].")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
def analyze(game: str, size: int, position_text: str, tt_mb: float, db_path: str | None,
            as_json: bool) -> None:
    """Value of a position for the side to move and of every legal move."""
    from trilab.solver.trike import NotationError, parse_position

    try:
        pos = parse_position(position_text, size)
    except NotationError as e:
        raise click.BadParameter(str(e), param_hint="'--position'") from None
    from trilab.analysis import trike_analysis

    path = Path(db_path) if db_path else Path("results") / "trike" / "db" / f"size-{size}.npz"
    if db_path and not path.exists():
        raise click.BadParameter(f"no such database: {path}", param_hint="'--db'")
    report = trike_analysis.analyze(pos, tt_mb=tt_mb, db_path=path if path.exists() else None)
    if as_json:
        click.echo(json.dumps(report.to_json()))
    else:
        click.echo(trike_analysis.format_report(report))


@cli.command()
@click.argument("game", callback=_game(solvable=False))
@click.option("--players", type=int, default=None,
              help="trio-cards: number of players, 3..6 [default: 3].")
@click.option("--mode", type=click.Choice(["simple", "spicy"]), default=None,
              help="trio-cards: winning condition [default: simple].")
@click.option("--teams", is_flag=True, help="trio-cards: team play (4 or 6 players).")
@click.option("--policy", "policy_text", default="random", show_default=True,
              help="A policy for every seat, or one per seat separated by commas.")
@click.option("--games", type=click.IntRange(min=1), required=True, help="Games to play.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Study seed: game g uses the stream (seed, g).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Local worker processes.")
@click.option("--dask", "dask_address", default=None, metavar="ADDRESS|local[:WORKERS]",
              help="Run the chunks on a Dask scheduler, or on a LocalCluster.")
@click.option("--cap", type=click.IntRange(min=1), default=None,
              help="Turn cap (trio-cards, default 500) or ply cap (tabula-trivium, default 400).")
@click.option("--chunk", type=click.IntRange(min=1), default=20_000, show_default=True,
              help="Games per task (does not change the results).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="CSV path of the per-seat table (.meta.json, .png and the per-game "
                   ".parquet go beside it) [default: results/GAME/NAME.csv].")
def simulate(game: str, players: int | None, mode: str | None, teams: bool, policy_text: str,
             games: int, seed: int, jobs: int, dask_address: str | None, cap: int | None,
             chunk: int, as_json: bool, out: str | None) -> None:
    """Play GAME many times with the given policies; win rates per seat with 95% CIs."""
    from trilab.solver import montecarlo

    if game not in montecarlo.GAME_MODULES:
        raise click.BadParameter(f"{game!r} is not simulated yet; simulated games: "
                                 f"{', '.join(montecarlo.GAME_MODULES)}", param_hint="'GAME'")
    policies = [p.strip() for p in policy_text.split(",")]
    if game == "trio-cards":
        options = {"players": 3 if players is None else players, "mode": mode or "simple",
                   "teams": teams, "policies": policies}
        if cap is not None:
            options["turn_cap"] = cap
    else:
        for flag, value in (("--players", players), ("--mode", mode), ("--teams", teams or None)):
            if value is not None:
                raise click.UsageError(f"{flag} applies to trio-cards only")
        options = {"policies": policies}
        if cap is not None:
            options["ply_cap"] = cap
    spec = montecarlo.load_spec(game)
    try:
        config = spec.make_config(options)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    from trilab.analysis import executors

    try:
        executor = executors.make_executor(jobs, dask_address)
    except executors.ExecutorError as e:
        hint = "'--dask'" if dask_address else "'--jobs'"
        raise click.BadParameter(str(e), param_hint=hint) from None
    from trilab.analysis import artifacts, mc_study

    csv_path = Path(out) if out else Path("results") / game / f"{_study_name(game, config)}.csv"
    try:
        res = montecarlo.simulate(spec, config, games, seed, executor, chunk,
                                  progress=_game_bar(game))
    finally:
        executor.close()
    summary = mc_study.summarise(spec, config, res, seed)
    summary["executor"] = executor.describe()
    table = mc_study.seat_table(config, res)
    frame = mc_study.per_game_frame(spec, config, res)
    fig = mc_study.plot_win_rates(summary, f"{game} {_study_name(game, config)}: "
                                           f"{games:,} games, seed {seed}")
    meta = artifacts.base_metadata(
        **summary, command=_invocation(), regenerate=_invocation(),
        per_game_rows=str(csv_path.with_suffix(".parquet")) + " (not committed; rerun the "
                                                              "command to regenerate)",
    )
    artifacts.atomic_write(csv_path.with_suffix(".parquet"),
                           lambda tmp: frame.to_parquet(tmp, index=False))
    artifacts.write_csv(csv_path, table)
    artifacts.save_figure(csv_path.with_suffix(".png"), fig)
    artifacts.write_json(csv_path.with_suffix(".meta.json"), meta)
    if as_json:
        keys = ["game", "games", "seed", "seats", "draws", "unfinished", "mean_length",
                "first_seat_advantage", "first_seat_advantage_ci", "options"]
        click.echo(json.dumps({k: summary[k] for k in keys}))
        return
    click.echo(mc_study.format_report(summary))
    click.echo(f"Wrote {csv_path}, {csv_path.with_suffix('.meta.json')}, "
               f"{csv_path.with_suffix('.png')}, {csv_path.with_suffix('.parquet')}")


@cli.command()
@click.argument("game", callback=_game(solvable=False))
@click.option("--results-dir", type=click.Path(file_okay=False), default="results",
              show_default=True, help="Where the studies of `trilab simulate` are.")
@click.option("--json", "as_json", is_flag=True, help="Print the overview as JSON records.")
def report(game: str, results_dir: str, as_json: bool) -> None:
    """Overview of every simulated study of GAME: results/GAME/summary.csv and .png."""
    from trilab.analysis import artifacts, mc_study

    folder = Path(results_dir) / game
    table = mc_study.collect(folder)
    if table.empty:
        raise click.UsageError(f"no studies in {folder}; run `trilab simulate {game} ...` first")
    out = folder / "summary.csv"
    fig = mc_study.plot_first_seat_advantage(table, f"{game}: first-seat advantage by study")
    artifacts.write_csv(out, table)
    artifacts.save_figure(out.with_suffix(".png"), fig)
    artifacts.write_json(out.with_suffix(".meta.json"), artifacts.base_metadata(
        command=_invocation(), game=game, studies=len(table), sources=sorted(table.study)))
    if as_json:
        click.echo(table.to_json(orient="records"))
        return
    cols = ["study", "games", "seat_win_rates", "first_seat_advantage", "ci_low", "ci_high",
            "unfinished", "mean_length"]
    with pd_options():
        click.echo(table[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    click.echo(f"Wrote {out}, {out.with_suffix('.png')}, {out.with_suffix('.meta.json')}")


def pd_options():
    import pandas as pd

    return pd.option_context("display.width", 200, "display.max_colwidth", 60)


def _study_name(game: str, config) -> str:
    pol = "_".join(p.replace(":", "-") for p in config.seat_policies)
    if len(set(config.seat_policies)) == 1:
        pol = config.seat_policies[0].replace(":", "-")
    if game == "trio-cards":
        o = config.options
        return f"p{o['players']}-{o['mode']}{'-teams' if o['teams'] else ''}-{pol}"
    return "-vs-".join(p.replace(":", "-") for p in config.seat_policies)


def _game_bar(desc: str):
    from tqdm import tqdm

    def make(total: int):
        return tqdm(total=total, desc=desc, unit="game", unit_scale=True, file=sys.stderr,
                    disable=not sys.stderr.isatty())

    return make


def main() -> None:
    """Console-script entry point."""
    cli()


if __name__ == "__main__":
    main()
