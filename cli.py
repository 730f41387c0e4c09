"""trilab's command line (click): parse, validate, call one function, print.

Each command calls one function, which checks its inputs (raising
:class:`trilab.analysis.common.StudyError`), writes the result files and
returns an outcome whose ``text()`` or ``to_json()`` is printed; games come
from :mod:`trilab.solver.registry`::

    trilab solve trike --size N [--method alphabeta|dfpn|retrograde] [--jobs J] ...
        analysis.trike.solve.solve_trike
    trilab confirm trike --size N [--sample K] [--time-limit S] [--json]
        analysis.trike.confirm.confirm_trike
    trilab margins trike --size N [--remoteness] [--keys region|whole] [--json]
        analysis.trike.margins.margins_trike
    trilab analyze trike --size N --position POS [--json]
        analysis.trike.analyze.analyze_trike
    trilab move trike [--size N] [--position POS] --agent mcts:N|mcts:Ns [--seed S] [--json]
        analysis.trike.move.trike_move
    trilab play trike --size N [--agent mcts:N|perfect] [--as placer|mover] [--seed S]
        analysis.trike.play.new_match, then analysis.trike.play.play
    trilab strength trike [--sizes 7] [--positions K | --openings | --replies] --agents A,...
        analysis.trike.strength.strength_trike
    trilab duel trike --size N --agents A,B [--games G] [--seed S]
        analysis.trike.duel.duel_trike
    trilab balance trike --sizes 2-8 --exact | --sizes 7,9,13 --agent mcts:N --games G --seed S
        analysis.trike.balance.balance_trike
    trilab simulate GAME --policy P[,P...] --games G --seed S [--jobs J] [--json] ...
        analysis.simulation.simulate
    trilab board trio-board [--fortress sides|row3|general] [--json] [--out PNG]
        analysis.trio_board_view.board
    trilab report GAME [--json]
        analysis.simulation.report
    trilab report [--json]
        analysis.report_html.report_all

Bad input is reported as one line on stderr with exit code 2 (click usage
errors), with no traceback and no file written.  Heavy libraries are imported
only by the command that needs them.
"""

from __future__ import annotations

import gc
import json
import math
import os
import re
import shlex
import signal
import sys

import click
from trilab.analysis.outputs import OutputError
from trilab.solver.compiled import purge_stale_caches


class TrilabGroup(click.Group):
    """A click group whose errors are one line on stderr (exit 2 for usage errors)."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        # Keep the arguments: result metadata records the exact command.
        extra.setdefault("obj", {})["argv"] = list(sys.argv[1:] if args is None else args)
        purge_stale_caches()  # edited engine sources: compile afresh, never run stale code
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
        except OutputError as e:  # a result that cannot be written where asked
            click.echo(f"trilab: error: {e}", err=True)
            sys.exit(2)
        except OSError as e:  # a full disk or a vanished folder mid-run: one line, no trace
            where = f" ({e.filename})" if getattr(e, "filename", None) else ""
            click.echo(f"trilab: error: {e.strerror or e}{where}", err=True)
            sys.exit(2)
        except (click.Abort, KeyboardInterrupt):
            click.echo("trilab: interrupted", err=True)
            sys.exit(130)
        except SystemError as e:  # an interrupt that landed inside Numba's own callbacks
            from trilab.analysis.executors import interrupted_inside

            if not interrupted_inside(e):
                raise
            click.echo("trilab: interrupted", err=True)
            sys.exit(130)
        sys.exit(rv if isinstance(rv, int) else 0)


MAX_SEED = 2**64 - 1
SEED = click.IntRange(0, MAX_SEED)
"""Every random stream is keyed by a uint64 seed: 0 .. 2**64 - 1."""
MAX_GAMES = 100_000_000
"""The most games one ``simulate`` run keeps (32 bytes a game in memory)."""


class Seconds(click.ParamType):
    """A positive, finite number of seconds (``nan`` and ``inf`` are refused)."""

    name = "seconds"

    def convert(self, value, param, ctx):
        if isinstance(value, float):
            return value
        try:
            seconds = float(value)
        except ValueError:
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(seconds) or seconds <= 0:
            self.fail(f"{value!r} is not a positive, finite number of seconds", param, ctx)
        return seconds


SECONDS = Seconds()


def _memory_mib() -> float:
    """This machine's physical memory in MiB (a large number where unknown)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, AttributeError):
        return float(1 << 20)


def _tt_mb(ctx, param, value: float | None) -> float | None:
    """A transposition table that fits in this machine's memory (per worker)."""
    if value is not None and value > 0.9 * _memory_mib():
        raise click.BadParameter(f"{value:g} MiB does not fit in this machine's "
                                 f"{_memory_mib():,.0f} MiB of memory")
    return value


def _game(kind: str):
    """A callback accepting a registered game of ``kind`` ("solvable" or "simulated")."""

    def check(ctx, param, value: str) -> str:
        from trilab.solver import registry as games

        try:
            info = games.get(value)
        except ValueError as e:
            raise click.BadParameter(str(e)) from None
        if not getattr(info, kind):
            names, what = {
                "solvable": (games.solvable(), "cannot be solved exactly"),
                "simulated": (games.simulated(), "is not simulated"),
                "agents": (games.with_agents(), "has no agents"),
            }[kind]
            label = "games with agents" if kind == "agents" else f"{kind} games"
            raise click.BadParameter(f"{value!r} {what}; {label}: {', '.join(names)}")
        return value

    return check


def _trike_only(kind: str, why: str):
    """A callback accepting a registered game of ``kind`` that is Trike (the commands
    written for Trike only so far); ``why`` says so, ``{value}`` naming the game."""

    def check(ctx, param, value: str) -> str:
        value = _game(kind)(ctx, param, value)
        if value != "trike":
            raise click.BadParameter(f"{value!r}: " + why.format(value=value))
        return value

    return check


_trike_solvable = _trike_only(
    "solvable", "the exact solvers are written for trike only so far (docs/adding-a-game.md)")
_trike_agents = _trike_only(
    "agents", "this command plays trike only so far (its agent plays in studies: trilab "
    "simulate {value} --policy mcts:N,...)")


def _position_games(ctx, param, value: str) -> str:
    """``move``/``play``: Trike, Tabula Trivium or (``move``) the Trio board game
    (their notations: analysis/move.py)."""
    if value == "tabula-trivium" or (value == "trio-board" and ctx.command.name == "move"):
        return value
    return _trike_agents(ctx, param, value)


def _trike_size(ctx, param, value: int) -> int:
    from trilab.solver.trike.engine import MAX_SIZE, MIN_SIZE

    if not MIN_SIZE <= value <= MAX_SIZE:
        raise click.BadParameter(
            f"{value} is not in {MIN_SIZE}..{MAX_SIZE} "
            "(larger boards are not exactly solvable here)"
        )
    return value


def _usage_error(e) -> click.UsageError:
    """A :class:`trilab.analysis.common.StudyError` (or an input error of an
    agent command) as click's one-line usage error."""
    if e.option:
        return click.BadParameter(str(e), param_hint=f"'{e.option}'")
    return click.UsageError(str(e))


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
@click.argument("game", callback=_trike_solvable)
@click.option("--size", type=int, required=True, callback=_trike_size,
              help="Board side, 2..10.")
@click.option("--method", type=click.Choice(["alphabeta", "dfpn", "retrograde"]),
              default="alphabeta", show_default=True,
              help="Alpha-beta search; proof-number search (win/loss only, its table goes to "
                   "results/trike/dfpn/); or a strong solution by tiers (sizes 2..7).")
@click.option("--tt-mb", type=click.FloatRange(min=1, max=1 << 20), default=None,
              callback=_tt_mb,
              help="Transposition table size in MiB (per worker) [default: measured per size, "
                   "16 for size 6, 256 for 7, 4096 from 8].")
@click.option("--win-loss-only", is_flag=True,
              help="Only who wins each opening (no margin, remoteness or replies).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Local worker processes (one opening class each at a time).")
@click.option("--threads", type=click.IntRange(min=1, max=64), default=1, show_default=True,
              help="Search threads per worker, sharing its table (alpha-beta; 2 threads "
                   "make one task 1.5-1.8x faster).")
@click.option("--dask", "dask_address", default=None, metavar="ADDRESS|local[:WORKERS]",
              help="Run the opening classes on a Dask scheduler, or on a LocalCluster.")
@click.option("--split", type=click.Choice(["class", "replies", "moves"]), default=None,
              help="Task size: one opening class; one reply of the mover (proven answer by "
                   "answer, each saved as soon as proven); or one move of the mover after "
                   "each answer [default: class to size 7, replies at 8, moves from 9].")
@click.option("--unit-order", type=click.Choice(["search", "agent"]), default=None,
              help="The order a split run tries the units below a node: the search's own, "
                   "or the MCTS agent's ranking (a won node usually stops at its first "
                   "unit) [default: agent with --split moves, else search].")
@click.option("--eager-split/--no-eager-split", default=None,
              help="With --split moves and --win-loss-only: prove a unit with the placer to "
                   "move through the placer's answers before searching it, instead of after "
                   "it gives up [default: eager].")
@click.option("--time-limit", type=SECONDS, default=None,
              metavar="SECONDS", help="Stop after this long, keeping what is proven.")
@click.option("--restart", is_flag=True,
              help="Ignore an existing checkpoint (it is kept as *.discarded) and start over.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="CSV path (the .meta.json, .png and .checkpoint.json go beside it) "
                   "[default: results/trike/size-N.csv].")
@click.option("--db", "db_out", type=click.Path(dir_okay=False), default=None,
              help="Where --method retrograde writes its database "
                   "[default: results/trike/db/size-N.npz].")
def solve(game: str, size: int, method: str, tt_mb: float | None, win_loss_only: bool,
          jobs: int, threads: int, dask_address: str | None, split: str | None,
          unit_order: str | None, eager_split: bool | None, time_limit: float | None,
          restart: bool, as_json: bool, out: str | None, db_out: str | None) -> None:
    """Solve every opening of GAME exactly (who wins, margin, remoteness).

    Each solved opening class is saved at once to a checkpoint beside the
    table; run the same command again after an interruption to resume.
    """
    from trilab.analysis.common import StudyError
    from trilab.analysis.trike.solve import solve_trike

    previous = signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
    try:
        outcome = solve_trike(
            size, method, tt_mb, win_loss_only, jobs, dask_address, split, time_limit, out,
            db_out, restart, progress=_progress_bar(f"trike size {size}"),
            command=_invocation(), threads=threads, unit_order=unit_order,
            eager_split=eager_split)
    except StudyError as e:
        raise _usage_error(e) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    if outcome.interrupted:
        click.echo(outcome.message, err=True)
        if outcome.interrupted == "interrupted":
            sys.exit(130)
        return
    click.echo(json.dumps(outcome.to_json()) if as_json else outcome.text())


@cli.command()
@click.argument("game", callback=_trike_solvable)
@click.option("--size", type=int, required=True, callback=_trike_size, help="Board side.")
@click.option("--sample", type=click.IntRange(min=0), default=2, show_default=True,
              help="Refuted replies re-proven per opening class the placer wins.")
@click.option("--tt-mb", type=click.FloatRange(min=1, max=1 << 20), default=None,
              callback=_tt_mb,
              help="Transposition table size in MiB [default: measured per size].")
@click.option("--time-limit", type=SECONDS, default=None,
              metavar="SECONDS", help="Stop after this long, keeping what is re-proven.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Local worker processes (one proof each at a time).")
@click.option("--dask", "dask_address", default=None, metavar="ADDRESS|local[:WORKERS]",
              help="Run the proofs on a Dask scheduler, or on a LocalCluster.")
@click.option("--threads", type=click.IntRange(min=1, max=64), default=1, show_default=True,
              help="Search threads for the replies re-proven unit by unit (size 9 up).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="The opening table's CSV path [default: results/trike/size-N.csv]; the "
                   "per-reply record and the confirmations are beside it.")
def confirm(game: str, size: int, sample: int, tt_mb: float | None, time_limit: float | None,
            jobs: int, dask_address: str | None, threads: int, as_json: bool,
            out: str | None) -> None:
    """Re-prove a reply-split solve's claims with the other table keying.

    For each opening the mover wins, its winning reply; for each the placer
    wins, a seeded sample of refuted replies.  Saved after each proof to
    size-N.confirmations.json; run again to continue.
    """
    from trilab.analysis.common import StudyError
    from trilab.analysis.trike.confirm import ConfirmationMismatch, confirm_trike

    try:
        outcome = confirm_trike(size, sample, tt_mb, time_limit, out,
                                progress=lambda m: click.echo(m, err=True),
                                jobs=jobs, dask=dask_address, command=_invocation(),
                                threads=threads)
    except StudyError as e:
        raise _usage_error(e) from None
    except ConfirmationMismatch as e:
        raise click.ClickException(str(e)) from None
    click.echo(json.dumps(outcome.to_json()) if as_json else outcome.text())


@cli.command()
@click.argument("game", callback=_trike_solvable)
@click.option("--size", type=int, required=True, callback=_trike_size, help="Board side.")
@click.option("--tt-mb", type=click.FloatRange(min=1, max=1 << 20), default=None,
              callback=_tt_mb,
              help="Transposition table size in MiB [default: measured per size].")
@click.option("--time-limit", type=SECONDS, default=None,
              metavar="SECONDS", help="Stop after this long, keeping every answer.")
@click.option("--remoteness", is_flag=True,
              help="Also the remoteness (plies to the end), after every margin.")
@click.option("--keys", type=click.Choice(["region", "whole"]), default="region",
              show_default=True,
              help="Table keys; 'whole' re-proves into size-N.margins-whole.* (a second "
                   "code path).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="The opening table's CSV path [default: results/trike/size-N.csv]; the "
                   "per-reply record and size-N.margins.* are beside it.")
def margins(game: str, size: int, tt_mb: float | None, time_limit: float | None,
            remoteness: bool, keys: str, as_json: bool, out: str | None) -> None:
    """Exact winning margins (and remoteness) of a size solved win/loss reply by reply.

    Starts from the per-reply record of `trilab solve trike --size N --split
    replies --win-loss-only` (size 8's is committed) and asks null-window
    questions "is the placer's value at least k?", cheapest first; each answer
    is saved at once to size-N.margins.json, so run again to continue.
    """
    from trilab.analysis.common import StudyError
    from trilab.analysis.trike.margins import margins_trike

    previous = signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)  # a kill stops cleanly
    try:
        outcome = margins_trike(size, tt_mb, time_limit, out,
                                progress=lambda m: click.echo(m, err=True),
                                remoteness=remoteness, keys=keys, command=_invocation())
    except StudyError as e:
        raise _usage_error(e) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    click.echo(json.dumps(outcome.to_json()) if as_json else outcome.text())
    if outcome.stopped == "interrupted":
        sys.exit(130)


@cli.command()
@click.argument("game", callback=_position_games)
@click.option("--size", type=int, default=None,
              help="Board side, 2..19 (the empty board when no --position is given).")
@click.option("--position", "position_text", default=None,
              help="Rows from the apex joined by '/': '.' empty, b/w checkers, pawn upper case "
                   "(as for analyze) [default: the empty board: choose the opening].")
@click.option("--agent", "agent_text", required=True, metavar="mcts:N|mcts:Ns|...",
              help="N simulations per move, or N seconds per move (Trike also "
                   "mcts-solve:N, with exact endgames).")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="The search's random stream (same seed and N: same move).")
@click.option("--no-pie", is_flag=True,
              help="Play without the pie rule (no swap after the opening).")
@click.option("--fortress", default="sides", show_default=True, metavar="sides|row3|general",
              help="trio-board: the Fortress reading.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
def move(game: str, size: int | None, position_text: str | None, agent_text: str, seed: int,
         no_pie: bool, fortress: str, as_json: bool) -> None:
    """The agent's move in a position, with the visits and value of every move.

    Positions: Trike as for analyze; Tabula Trivium and the Trio board game in
    their notations (docs/commands.md; the default is the setup)."""
    from trilab.analysis.trike import move as agents

    if game in ("tabula-trivium", "trio-board"):  # notations: solver/<game>/notation.py
        from trilab.analysis import move as notation_games

        try:
            report = (notation_games.tabula_move(position_text, agent_text, seed)
                      if game == "tabula-trivium" else
                      notation_games.trio_board_move(position_text, agent_text, seed, fortress))
        except agents.AgentInputError as e:
            raise _usage_error(e) from None
        click.echo(json.dumps(report.to_json()) if as_json else report.text())
        return
    try:
        report = agents.trike_move(size, position_text, agent_text, seed, pie=not no_pie)
    except agents.AgentInputError as e:
        raise _usage_error(e) from None
    click.echo(json.dumps(report.to_json()) if as_json else report.text())


@cli.command()
@click.argument("game", callback=_position_games)
@click.option("--size", type=int, default=5, show_default=True, help="Board side, 2..19.")
@click.option("--agent", "opponent", default=None,
              metavar="mcts:N|mcts:Ns|mcts-solve:N|mcts-trap:N|mcts-squeeze:N|perfect",
              help="The computer: the MCTS agent (mcts-solve: with exact endgames), or the "
                   "exact solver (sizes up to 7).  [default: mcts-squeeze:1s; Tabula "
                   "Trivium: mcts-greedy:1s:4]")
@click.option("--as", "as_seat", type=click.Choice(["placer", "mover"]), default="placer",
              show_default=True, help="Your seat: the first checker, or the reply (and swap).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="The computer's seed.")
@click.option("--no-pie", is_flag=True, help="Play without the pie rule.")
def play(game: str, size: int, opponent: str | None, as_seat: str, seed: int,
         no_pie: bool) -> None:
    """Play a game in the terminal against an agent or the exact solver."""
    from trilab.analysis.trike import play as trike_play
    from trilab.solver.trike import agents as trike_agents

    if game == "tabula-trivium":  # you are seat A with --as placer, B with --as mover
        from trilab.analysis import move as tabula

        opponent = opponent or tabula.DEFAULT_TABULA_AGENT
        try:
            tabula.tabula_play(opponent, 0 if as_seat == "placer" else 1, seed,
                               read=_read_line, write=click.echo)
        except tabula.AgentInputError as e:
            raise _usage_error(e) from None
        except EOFError:
            click.echo("\nend of input: game left unfinished")
        return
    opponent = opponent or trike_agents.DEFAULT_AGENT
    try:
        match = trike_play.new_match(size, opponent, as_seat, seed, pie=not no_pie)
    except trike_play.PlayInputError as e:
        raise _usage_error(e) from None
    try:
        trike_play.play(match, read=_read_line, write=click.echo)
    except EOFError:
        click.echo("\nend of input: game left unfinished")


def _read_line(prompt: str) -> str:
    """One line typed at ``prompt``; ``EOFError`` at the end of input (Ctrl-D),
    which ``play`` takes as quitting, unlike Ctrl-C (interrupted, exit 130)."""
    click.echo(f"{prompt}> ", nl=False)
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    line = line.rstrip("\r\n")
    if not sys.stdin.isatty():  # a terminal echoes what is typed; piped moves are shown
        click.echo(line)
    return line


def _study_options(folder: str):
    """The options every resumable agent study shares: --seed, --jobs, --dask,
    --out-dir (default ``folder``) and --json."""
    options = [
        click.option("--seed", type=SEED, default=0, show_default=True, help="Study seed."),
        click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
                     help="Local worker processes (one task each at a time)."),
        click.option("--dask", "dask_address", default=None, metavar="ADDRESS|local[:WORKERS]",
                     help="Run the tasks on a Dask scheduler, or on a LocalCluster."),
        click.option("--out-dir", type=click.Path(file_okay=False), default=None,
                     help=f"Folder of the tables [default: {folder}]."),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout."),
    ]

    def wrap(fn):
        for option in reversed(options):
            fn = option(fn)
        return fn

    return wrap


def _int_list(lowest: int, highest: int):
    """A callback parsing ``7,9,11``, ranges ``2-8`` or a mixture, each number
    in ``lowest .. highest``, into a list in the order given, without repeats (checked
    before any list is built, so ``2-1000000000`` costs nothing)."""
    pattern = re.compile(r"(\d+)(?:-(\d+))?")

    def parse(ctx, param, value: str) -> list[int]:
        out: list[int] = []
        for part in value.split(","):
            m = pattern.fullmatch(part.strip())
            if m is None:
                raise click.BadParameter(
                    f"{value!r} is not a list of integers like 7,9 or 2-8")
            lo = int(m.group(1))
            hi = int(m.group(2)) if m.group(2) is not None else lo
            if lo > hi:
                raise click.BadParameter(f"{part.strip()!r}: the range is empty")
            if lo < lowest or hi > highest:
                raise click.BadParameter(f"{part.strip()!r} is not in {lowest}..{highest}")
            out += [n for n in range(lo, hi + 1) if n not in out]
        return out

    return parse


def _size_caps(ctx, param, value: str | None) -> int | dict[int, int] | None:
    """``--max-games``: one number (``100``) or numbers by size (``9-13:100,14-19:50``;
    a later item wins where sizes overlap)."""
    if value is None or value.strip().isdigit():
        return None if value is None else int(value)
    caps: dict[int, int] = {}
    sizes = _int_list(2, 19)
    for part in value.split(","):
        head, sep, cap = part.strip().partition(":")
        if not sep or not cap.strip().isdigit():
            raise click.BadParameter(f"{part.strip()!r}: use M or SIZES:M, e.g. 14-19:50")
        caps.update(dict.fromkeys(sizes(ctx, param, head), int(cap)))
    return caps


@cli.command()
@click.argument("game", callback=_trike_agents)
@click.option("--sizes", required=True, callback=_int_list(2, 19),
              help="Board sides, 2..19: 2-8, 7,9,13 or a mixture.")
@click.option("--exact", is_flag=True, help="From the exact opening tables (results/trike).")
@click.option("--agent", "agent_text", default=None,
              metavar="mcts:N|mcts-solve:N|mcts-trap:N|mcts-squeeze:N",
              help="From games of this agent against itself, per opening class.")
@click.option("--games", type=click.IntRange(1, 1_000_000), default=20, show_default=True,
              help="--agent: games per opening class (a batch, with --max-games).")
@click.option("--max-games", default=None, callback=_size_caps, metavar="M|SIZES:M[,...]",
              help="--agent: sequential sampling: batches of --games until the class's "
                   "interval leaves 50% or it has M games [default: --games]; one M, or "
                   "one per size, e.g. 9-13:100,14-19:50.")
@_study_options("results/balance")
def balance(game: str, sizes: list[int], exact: bool, agent_text: str | None, games: int,
            max_games: int | dict[int, int] | None, seed: int, jobs: int,
            dask_address: str | None, out_dir: str | None, as_json: bool) -> None:
    """Pie-rule balance by board size: swap maps, pie value, first-player advantage.

    Resumable with --agent: run the same command again after an interruption.
    """
    from trilab.analysis.common import StudyError
    from trilab.analysis.trike.balance import balance_trike

    try:
        outcome = balance_trike(sizes, exact, agent_text, games, seed, jobs, dask_address,
                                out_dir, progress=lambda m: click.echo(m, err=True),
                                command=_invocation(), max_games=max_games)
    except StudyError as e:
        raise _usage_error(e) from None
    click.echo(json.dumps(outcome.to_json()) if as_json else outcome.text())


@cli.command()
@click.argument("game", callback=_trike_solvable)
@click.option("--sizes", default="7", show_default=True, callback=_int_list(2, 10),
              help="Board sides, comma-separated (one for the winning-move study).")
@click.option("--agents", "agents_text", required=True, metavar="A[,B...]",
              help="Agents to measure: mcts:N (simulations per move), mcts:Ns (seconds), "
                   "mcts-solve:N (with exact endgames), mcts-trap:N (and playouts that see "
                   "traps), mcts-squeeze:N (and playouts that squeeze the pawn).")
@click.option("--positions", type=click.IntRange(1, 1_000_000), default=1000, show_default=True,
              help="Random won positions (a third each early, middle and late).")
@click.option("--openings", is_flag=True,
              help="Instead: the agent against itself from every opening class (no swap), "
                   "compared with the exact winner.")
@click.option("--replies", is_flag=True,
              help="Instead: the agent against itself after every recorded opening and reply "
                   "(sizes 7, 8), compared with the exact winner.")
@click.option("--games", type=click.IntRange(1, 1_000_000), default=10, show_default=True,
              help="--openings: games per opening class; --replies: per position.")
@_study_options("results/agents")
def strength(game: str, sizes: list[int], agents_text: str, positions: int, openings: bool,
             replies: bool, games: int, seed: int, jobs: int, dask_address: str | None,
             out_dir: str | None, as_json: bool) -> None:
    """How often agents play like the exact solver (winning moves, opening winners).

    Resumable: run the same command again after an interruption.
    """
    from trilab.analysis.common import StudyError
    from trilab.analysis.trike.strength import strength_trike

    agents = [a.strip() for a in agents_text.split(",") if a.strip()]
    try:
        outcome = strength_trike(sizes, agents, seed, positions, openings, games, jobs,
                                 dask_address, out_dir, progress=lambda m: click.echo(m, err=True),
                                 command=_invocation(), replies=replies)
    except StudyError as e:
        raise _usage_error(e) from None
    click.echo(json.dumps(outcome.to_json()) if as_json else outcome.text())


@cli.command()
@click.argument("game", callback=_trike_solvable)
@click.option("--size", type=click.IntRange(2, 19), required=True, help="Board side, 2..19.")
@click.option("--agents", "agents_text", required=True, metavar="A,B",
              help="Two agents (mcts:N, mcts:Ns, mcts-solve:N, mcts-trap:N, mcts-squeeze:N, or "
                   ":Ns); give both "
                   "the same seconds for a match at equal time.")
@click.option("--games", type=click.IntRange(1, 1_000_000), default=20, show_default=True,
              help="Games; each agent places the opening in half of them (no pie rule).")
@click.option("--equal-time", is_flag=True,
              help="Matched time: A searches each move for as long as B takes on the same "
                   "position (B searches it first, its move discarded); A's budget then "
                   "sets only its threads.")
@_study_options("results/agents")
def duel(game: str, size: int, agents_text: str, games: int, equal_time: bool, seed: int,
         jobs: int, dask_address: str | None, out_dir: str | None, as_json: bool) -> None:
    """Two agents against each other, each first in half the games.

    Resumable: run the same command again after an interruption.
    """
    from trilab.analysis.common import StudyError
    from trilab.analysis.trike.duel import duel_trike

    agents = [a.strip() for a in agents_text.split(",") if a.strip()]
    if len(agents) != 2:
        raise click.BadParameter("give two agents, A,B", param_hint="'--agents'")
    try:
        outcome = duel_trike(size, agents[0], agents[1], games, seed, jobs, dask_address,
                             out_dir, progress=lambda m: click.echo(m, err=True),
                             command=_invocation(), equal_time=equal_time)
    except StudyError as e:
        raise _usage_error(e) from None
    click.echo(json.dumps(outcome.to_json()) if as_json else outcome.text())


def _invocation() -> str:
    """The command being run, as a user would type it (for metadata)."""
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx is not None else None
    if isinstance(obj, dict) and "argv" in obj:
        return shlex.join(["trilab", *obj["argv"]])
    return shlex.join(["trilab", *sys.argv[1:]])


def _raise_keyboard_interrupt(signum, frame):
    raise KeyboardInterrupt


@cli.command()
@click.argument("game", callback=_trike_solvable)
@click.option("--size", type=int, required=True, callback=_trike_size, help="Board side, 2..10.")
@click.option("--position", "position_text", required=True,
              help="Rows from the apex joined by '/': '.' empty, b/w checkers, pawn upper case.")
@click.option("--tt-mb", type=click.FloatRange(min=1, max=65536), default=256,
              callback=_tt_mb, show_default=True,
              help="Transposition table size in MiB (when searching).")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None,
              help="Retrograde database [default: results/trike/db/size-N.npz if present].")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
def analyze(game: str, size: int, position_text: str, tt_mb: float, db_path: str | None,
            as_json: bool) -> None:
    """Value of a position for the side to move and of every legal move."""
    from trilab.analysis.common import StudyError
    from trilab.analysis.trike.analyze import analyze_trike, format_report

    try:
        report = analyze_trike(size, position_text, tt_mb, db_path)
    except StudyError as e:
        raise _usage_error(e) from None
    click.echo(json.dumps(report.to_json()) if as_json else format_report(report))


@cli.command()
@click.argument("game", callback=_game("simulated"))
@click.option("--players", type=int, default=None,
              help="trio-cards: number of players, 3..6 [default: 3].")
@click.option("--mode", type=click.Choice(["simple", "spicy"]), default=None,
              help="trio-cards: winning condition [default: simple].")
@click.option("--teams", is_flag=True, help="trio-cards: team play (4 or 6 players).")
@click.option("--fortress", default=None, metavar="sides|row3|general",
              help="trio-board: the cells that touch a Fortress [default: sides].")
@click.option("--policy", "policy_text", default="random", show_default=True,
              help="A policy for every seat, or one per seat separated by commas.")
@click.option("--games", type=click.IntRange(1, MAX_GAMES), required=True,
              help="Games to play.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Study seed: game g uses the stream (seed, g).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Local worker processes.")
@click.option("--dask", "dask_address", default=None, metavar="ADDRESS|local[:WORKERS]",
              help="Run the chunks on a Dask scheduler, or on a LocalCluster.")
@click.option("--cap", type=click.IntRange(min=1), default=None,
              help="Turn cap (trio-cards, default 500) or ply cap (tabula-trivium 400, "
                   "trio-board 600).")
@click.option("--chunk", type=click.IntRange(min=1), default=20_000, show_default=True,
              help="Games per task (does not change the results).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="CSV path of the per-seat table (.meta.json, .png and the per-game "
                   ".parquet go beside it) [default: results/GAME/NAME.csv].")
def simulate(game: str, players: int | None, mode: str | None, teams: bool,
             fortress: str | None, policy_text: str, games: int, seed: int, jobs: int,
             dask_address: str | None, cap: int | None, chunk: int, as_json: bool,
             out: str | None) -> None:
    """Play GAME many times with the given policies; win rates per seat with 95% CIs."""
    from trilab.analysis.common import StudyError
    from trilab.analysis.simulation import simulate as simulate_game
    from trilab.solver.compiled import ensure_compiled
    from trilab.solver.registry import GAMES

    options: dict = {"policies": [p.strip() for p in policy_text.split(",")]}
    for key, value in (("players", players), ("mode", mode), ("teams", teams or None),
                       ("fortress", fortress)):
        if value is not None:
            options[key] = value
    if cap is not None:
        options[next((k for k in GAMES[game].options if k.endswith("_cap")), "cap")] = cap
    ensure_compiled(game)  # a line on stderr, then the compile, if the kernels are not cached
    try:
        outcome = simulate_game(game, options, games, seed, jobs, dask_address, chunk, out,
                                progress=_game_bar(game), command=_invocation())
    except StudyError as e:
        raise _usage_error(e) from None
    click.echo(json.dumps(outcome.to_json()) if as_json else outcome.text())


@cli.command()
@click.argument("game")
@click.option("--fortress", default="sides", show_default=True, metavar="sides|row3|general",
              help="The cells that touch a Fortress: the 2 sharing a side with it, all of "
                   "row 3, or those 2 and the General's start cell.")
@click.option("--json", "as_json", is_flag=True, help="Print the board as one JSON object.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="PNG of the drawing [default: results/trio-board/board-FORTRESS.png].")
def board(game: str, fortress: str, as_json: bool, out: str | None) -> None:
    """Print and draw the board of GAME (trio-board): cells, zones, setup, Fortresses."""
    from trilab.analysis import trio_board_view
    from trilab.analysis.common import StudyError

    try:
        outcome = trio_board_view.board(game, fortress, out)
    except StudyError as e:
        raise _usage_error(e) from None
    click.echo(json.dumps(outcome.to_json()) if as_json else outcome.text())


def _optional_simulated(ctx, param, value: str | None) -> str | None:
    return None if value is None else _game("simulated")(ctx, param, value)


@cli.command()
@click.argument("game", required=False, callback=_optional_simulated)
@click.option("--results-dir", type=click.Path(file_okay=False), default="results",
              show_default=True, help="Where the studies are.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Without GAME: the page's path [default: RESULTS_DIR/report.html].")
@click.option("--json", "as_json", is_flag=True, help="Print the overview as JSON records.")
def report(game: str | None, results_dir: str, out: str | None, as_json: bool) -> None:
    """Without GAME: results/report.html, one self-contained page of every game's
    results, and the all-games first-seat-advantage figure.  With GAME: the
    overview of its simulated studies (results/GAME/summary.csv and .png)."""
    from trilab.analysis.common import StudyError
    from trilab.analysis.report_html import report_all
    from trilab.analysis.simulation import report as report_game

    try:
        if game is None:
            outcome = report_all(results_dir, out, command=_invocation())
        else:
            outcome = report_game(game, results_dir, command=_invocation())
    except StudyError as e:
        raise _usage_error(e) from None
    click.echo(json.dumps(outcome.to_json()) if as_json else outcome.text())


def _game_bar(desc: str):
    from tqdm import tqdm

    def make(total: int):
        return tqdm(total=total, desc=desc, unit="game", unit_scale=True, file=sys.stderr,
                    disable=not sys.stderr.isatty())

    return make


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (loopback: only this machine).")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port (0: any free port).")
@click.option("--no-browser", is_flag=True, help="Do not open a browser tab.")
@click.option("--time-limit", type=click.FloatRange(min=0.1, max=3600), default=10.0,
              show_default=True, help="Seconds the exact solver gets per position.")
@click.option("--agent", "agent_text", default="mcts-squeeze:1s", show_default=True,
              metavar="mcts:N|mcts:Ns|mcts-solve:N|mcts-trap:N|mcts-squeeze:N",
              help="The agent for estimates and as an opponent.")
def explore(host: str, port: int, no_browser: bool, time_limit: float, agent_text: str) -> None:
    """A local web explorer of Trike positions: the value of every move."""
    from trilab.analysis.explorer import server
    from trilab.solver.trike import agents as trike_agents

    try:
        trike_agents.parse_agent(agent_text)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--agent'") from None
    try:
        server.serve(host, port, open_browser=not no_browser, time_limit=time_limit,
                     agent=agent_text, echo=click.echo)
    except OSError as e:
        raise click.UsageError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None


def main() -> None:
    """Console-script entry point."""
    try:
        cli()
    finally:
        # The process is about to end: exempt every object from the collector,
        # so interpreter shutdown does not spend ~0.35 s walking the object
        # graphs of numba, pandas and matplotlib only to free memory the OS
        # reclaims anyway (atexit handlers still run as usual).
        gc.freeze()


if __name__ == "__main__":
    main()
