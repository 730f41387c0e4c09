"""Monte Carlo studies of the simulated games (``trilab simulate``, ``trilab report GAME``).

The games are played by :func:`run_games`: chunks of games on any executor,
each chunk one :func:`trilab.solver.montecarlo.play_chunk_task`.  Game ``g`` of
a study depends only on ``(seed, g)``, so the arrays it returns are
bit-identical for any chunk size, job count or executor.  The rest of the
module turns them into per-seat win rates with confidence intervals, game
lengths, end reasons and the first-seat advantage, writes the study's files
(:func:`simulate`) and collects a game's studies into one overview
(:func:`report`).

A study of more than one chunk resumes: every finished chunk is saved in
``<table>.chunks/`` beside its table (with the settings it was played with) and a
rerun of the same command plays only the missing chunks; the folder is removed
once the table is written (it stays, as the run's record, when writing fails).
Its ``elapsed.json`` adds up the seconds of the runs, so the table's metadata
gives the time of the whole study.  A rerun with other settings (game, options,
seed, chunk size) discards it.

Definitions used in every report:

* ``win_rate`` of a seat: games it won (alone or with its team) / games;
  95% Wilson interval (:func:`trilab.analysis.stats.wilson`).
* ``unfinished``: games stopped by a turn or ply cap (an end reason whose
  name contains "cap"); ``draws``: other games without a winner
  (e.g. threefold repetition).
* ``fair share``: the share of games with a winner divided by the number of
  sides (seats, or teams in team play); the first-seat advantage is seat 0's
  rate minus its fair share, with seat 0's interval shifted the same way.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from trilab.analysis import artifacts
from trilab.analysis.common import RESULTS, StudyError, make_executor, output_path
from trilab.analysis.executors import SerialExecutor
from trilab.analysis.stats import wilson
from trilab.solver import registry
from trilab.solver.game_api import GameConfig, GameSpec
from trilab.solver.montecarlo import play_chunk_task

DEFAULT_CHUNK = 20_000
"""Games per task (does not change the results)."""


@dataclass
class SimulationResult:
    """Raw per-game outcomes, indexed by game number."""

    winners: np.ndarray  # int64 bitmask of winning seats
    length: np.ndarray  # int64 turns
    reason: np.ndarray  # int64 index into spec.end_reasons
    digest: np.ndarray  # uint64 digest of each game's moves
    seconds: float


def run_games(
    spec: GameSpec,
    config: GameConfig,
    games: int,
    seed: int,
    executor=None,
    chunk: int = DEFAULT_CHUNK,
    progress: Callable | None = None,
    checkpoint: Path | None = None,
) -> SimulationResult:
    """Play ``games`` games in chunks on ``executor`` (default: this process).

    ``progress(total=)`` makes a bar that is advanced by the number of games
    of each finished chunk.  ``checkpoint``: a folder where every finished chunk
    is saved, and from which the chunks of an interrupted run with the same
    settings are taken instead of being played again.
    """
    if games < 1:
        raise ValueError("games must be at least 1")
    if chunk < 1:
        raise ValueError("chunk must be at least 1")
    executor = executor or SerialExecutor()
    winners = np.empty(games, dtype=np.int64)
    length = np.empty(games, dtype=np.int64)
    reason = np.empty(games, dtype=np.int64)
    digest = np.empty(games, dtype=np.uint64)
    done = _saved_chunks(checkpoint, spec, config, seed, chunk) if checkpoint else {}
    earlier = _earlier_seconds(checkpoint) if done else 0.0  # of the saved chunks' runs
    for s, (w, n, r, d) in done.items():
        if s + len(w) <= games:
            winners[s:s + len(w)], length[s:s + len(w)] = w, n
            reason[s:s + len(w)], digest[s:s + len(w)] = r, d
    tasks = [(spec.name, seed, s, min(chunk, games - s), config.icfg, config.fcfg)
             for s in range(0, games, chunk)
             if s not in done or len(done[s][0]) != min(chunk, games - s)]
    bar = progress(total=games) if progress else None
    t0 = time.perf_counter()
    try:
        if bar is not None:
            bar.update(games - sum(t[3] for t in tasks))
        for args, (w, n, r, d) in executor.run(play_chunk_task, tasks):
            s, c = args[2], args[3]
            winners[s:s + c], length[s:s + c], reason[s:s + c], digest[s:s + c] = w, n, r, d
            if checkpoint:
                _save_chunk(checkpoint, s, w, n, r, d)
                artifacts.write_json(checkpoint / ELAPSED,
                                     {"seconds": earlier + time.perf_counter() - t0})
            if bar is not None:
                bar.update(c)
    finally:
        if bar is not None:
            bar.close()
    return SimulationResult(winners, length, reason, digest,
                            earlier + time.perf_counter() - t0)


ELAPSED = "elapsed.json"
"""The file of a study's saved chunks that keeps the seconds its runs spent so far, so
a resumed study reports the time of all its runs."""


def _earlier_seconds(folder: Path) -> float:
    path = folder / ELAPSED
    try:
        seconds = float(json.loads(path.read_text())["seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0
    return seconds if math.isfinite(seconds) and seconds >= 0 else 0.0


def _chunk_settings(spec: GameSpec, config: GameConfig, seed: int, chunk: int) -> dict:
    return {"game": spec.name, "seed": int(seed), "chunk": int(chunk),
            "icfg": [int(x) for x in config.icfg], "fcfg": [float(x) for x in config.fcfg]}


def _saved_chunks(folder: Path, spec: GameSpec, config: GameConfig, seed: int,
                  chunk: int) -> dict[int, tuple]:
    """The chunks an earlier run with the same settings saved in ``folder`` (first game
    -> arrays); a folder of other settings is emptied and set up for these."""
    settings = _chunk_settings(spec, config, seed, chunk)
    path = folder / "settings.json"
    if path.exists() and json.loads(path.read_text()) == settings:
        out = {}
        for f in folder.glob("chunk-*.npz"):
            with np.load(f) as z:
                out[int(f.stem.split("-")[1])] = (z["winners"], z["length"], z["reason"],
                                                  z["digest"])
        return out
    if folder.exists():
        for f in folder.iterdir():
            f.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    artifacts.write_json(path, settings)
    return {}


def _save_chunk(folder: Path, first: int, w, n, r, d) -> None:
    tmp = folder / f"tmp-chunk-{first}.npz"
    np.savez(tmp, winners=w, length=n, reason=r, digest=d)
    tmp.replace(folder / f"chunk-{first}.npz")


def remove_checkpoint(folder: Path) -> None:
    """Delete a study's saved chunks (after its table is written)."""
    if folder.exists():
        for f in folder.iterdir():
            f.unlink()
        folder.rmdir()


# ------------------------------------------------------------------ tables and plots


def per_game_frame(spec: GameSpec, config: GameConfig, res: SimulationResult) -> pd.DataFrame:
    """One row per game: index, winners bitmask, per-seat win flags, length, end reason."""
    df = pd.DataFrame({
        "game": np.arange(len(res.winners), dtype=np.int64),
        "winners": res.winners,
        "length": res.length,
        "end_reason": pd.Categorical.from_codes(res.reason, categories=list(spec.end_reasons)),
    })
    for s in range(config.n_seats):
        df[f"seat{s}_win"] = (res.winners >> s) & 1 == 1
    return df


def seat_table(config: GameConfig, res: SimulationResult) -> pd.DataFrame:
    n = len(res.winners)
    rows = []
    for s in range(config.n_seats):
        wins = int(((res.winners >> s) & 1).sum())
        lo, hi = wilson(wins, n)
        rows.append({"seat": s, "policy": config.seat_policies[s], "games": n, "wins": wins,
                     "win_rate": wins / n, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows)


def summarise(spec: GameSpec, config: GameConfig, res: SimulationResult, seed: int) -> dict:
    """The study as a JSON-ready dict (the CLI's ``--json`` object)."""
    n = len(res.winners)
    table = seat_table(config, res)
    names = np.array(spec.end_reasons)
    no_winner = res.winners == 0
    capped = np.array(["cap" in r for r in spec.end_reasons])[res.reason]
    unfinished = int((no_winner & capped).sum())
    draws = int((no_winner & ~capped).sum())
    sides = len(config.teams) if config.teams else config.n_seats
    fair = (n - draws - unfinished) / n / sides
    seat0 = table.iloc[0]
    q1, med, q3 = np.percentile(res.length, [25, 50, 75])
    reasons = pd.Series(names[res.reason]).value_counts()
    return {
        "game": spec.name,
        "games": n,
        "seed": seed,
        "options": config.options,
        "seats": [
            {"seat": int(r.seat), "policy": r.policy, "wins": int(r.wins),
             "win_rate": float(r.win_rate), "ci_low": float(r.ci_low), "ci_high": float(r.ci_high)}
            for r in table.itertuples()
        ],
        "draws": draws,
        "unfinished": unfinished,
        "mean_length": float(res.length.mean()),
        "length_quartiles": [float(q1), float(med), float(q3)],
        "end_reasons": {k: int(v) for k, v in reasons.items()},
        "fair_share": fair,
        "first_seat_advantage": float(seat0.win_rate - fair),
        "first_seat_advantage_ci": [float(seat0.ci_low - fair), float(seat0.ci_high - fair)],
        "teams": [list(t) for t in config.teams] if config.teams else None,
        "seconds": round(res.seconds, 3),
        "games_per_second": _rate(n / max(res.seconds, 1e-9)),
    }


def _rate(per_second: float) -> float | int:
    """A speed to keep: whole games a second from 100 up, else three significant
    figures (a strong 6-player table plays 0.175 games a second, not 0)."""
    return round(per_second) if per_second >= 100 else float(f"{per_second:.3g}")


def format_report(summary: dict) -> str:
    lines = [f"{summary['game']}: {summary['games']:,} games, seed {summary['seed']}, "
             f"{summary['seconds']:.2f} s ({summary['games_per_second']:,} games/s)"]
    lines.append(f"{'seat':>4} {'policy':<16} {'wins':>10} {'win rate':>9}  95% CI")
    for s in summary["seats"]:
        lines.append(f"{s['seat']:>4} {s['policy']:<16} {s['wins']:>10,} {s['win_rate']:>9.4f}  "
                     f"[{s['ci_low']:.4f}, {s['ci_high']:.4f}]")
    if summary["teams"]:
        lines.append("teams (partners win together): "
                     + ", ".join("+".join(map(str, t)) for t in summary["teams"]))
    q1, med, q3 = summary["length_quartiles"]
    lines.append(f"draws {summary['draws']:,}, unfinished (cap) {summary['unfinished']:,}; "
                 f"length mean {summary['mean_length']:.1f}, quartiles {q1:g} / {med:g} / {q3:g}")
    lo, hi = summary["first_seat_advantage_ci"]
    lines.append(f"first-seat advantage: {summary['first_seat_advantage']:+.4f} "
                 f"(seat 0 minus fair share {summary['fair_share']:.4f}; 95% CI "
                 f"[{lo:+.4f}, {hi:+.4f}])")
    lines.append("end reasons: " + ", ".join(f"{k} {v:,}" for k, v in
                                             summary["end_reasons"].items()))
    return "\n".join(lines)


def plot_win_rates(summary: dict, title: str):
    """Bar chart of win rate by seat with 95% CI bars and the fair share."""

    from trilab.analysis.plots import plt  # the Agg backend

    seats = summary["seats"]
    fig, ax = plt.subplots(figsize=(1.2 * len(seats) + 3, 3.6))
    x = np.arange(len(seats))
    rate = np.array([s["win_rate"] for s in seats])
    err = np.array([[s["win_rate"] - s["ci_low"] for s in seats],
                    [s["ci_high"] - s["win_rate"] for s in seats]])
    ax.bar(x, rate, yerr=err, capsize=6, color="#00798c", edgecolor="black")
    ax.axhline(summary["fair_share"], color="#d1495b", ls="--", label="fair share")
    ax.set_xticks(x, [f"seat {s['seat']}\n{s['policy']}" for s in seats])
    ax.set_ylabel("win rate (95% CI)")
    ax.set_title(title, fontsize=10)
    ax.legend(frameon=False)
    return fig


def collect(folder) -> pd.DataFrame:
    """One row per study in a results folder, from the ``.meta.json`` files
    that ``trilab simulate`` wrote (the overview behind ``trilab report``)."""
    rows = []
    for meta_path in sorted(Path(folder).glob("*.meta.json")):
        if meta_path.name.startswith("summary"):
            continue
        m = json.loads(meta_path.read_text())
        if "seats" not in m or "first_seat_advantage_ci" not in m:
            continue  # not a `trilab simulate` study (e.g. a strength ladder's table)
        o = m.get("options", {})
        lo, hi = m["first_seat_advantage_ci"]
        rows.append({
            "study": meta_path.name.removesuffix(".meta.json"),
            "players": o.get("players", len(m["seats"])),
            "mode": o.get("mode", ""),
            "teams": bool(o.get("teams", False)),
            "policies": ",".join(s["policy"] for s in m["seats"]),
            "games": m["games"], "seed": m["seed"],
            "seat_win_rates": " / ".join(f"{s['win_rate']:.4f}" for s in m["seats"]),
            "fair_share": m["fair_share"],
            "first_seat_advantage": m["first_seat_advantage"],
            "ci_low": lo, "ci_high": hi,
            "draws": m["draws"], "unfinished": m["unfinished"],
            "mean_length": m["mean_length"],
        })
    return pd.DataFrame(rows)


def plot_first_seat_advantage(table: pd.DataFrame, title: str):
    """Every study's first-seat advantage with its 95% CI, one row per study."""
    from trilab.analysis.plots import plt  # the Agg backend

    t = table.sort_values(["policies", "teams", "players", "mode"]).reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(t) + 1.5))
    y = np.arange(len(t))
    x = t.first_seat_advantage * 100
    err = np.array([x - t.ci_low * 100, t.ci_high * 100 - x])
    colours = ["#d1495b" if v < 0 else "#00798c" for v in x]
    ax.errorbar(x, y, xerr=err, fmt="none", ecolor="black", capsize=3, zorder=2)
    ax.scatter(x, y, color=colours, zorder=3)
    ax.axvline(0, color="grey", lw=1)
    ax.set_yticks(y, t.study)
    ax.invert_yaxis()
    ax.set_xlabel("first-seat advantage, percentage points (seat 0 win rate - fair share), 95% CI")
    ax.set_title(title, fontsize=10)
    return fig


# ------------------------------------------------------------------ the commands


def simulated_game(game: str):
    """The registry entry of a simulated game, or a StudyError naming the choices."""
    try:
        info = registry.get(game)
    except ValueError as e:
        raise StudyError(str(e), "GAME") from None
    if not info.simulated:
        raise StudyError(f"{game!r} is not simulated; simulated games: "
                         f"{', '.join(registry.simulated())}", "GAME")
    return info


def card_table_prefix(players: int, mode: str, teams: bool) -> str:
    """The start of a Trio card game study's file name: ``p<n>-<mode>[-teams]``."""
    return f"p{players}-{mode}{'-teams' if teams else ''}"


def study_name(game: str, config) -> str:
    """The file name of a simulated study: options and policies."""
    pols = [p.replace(":", "-") for p in config.seat_policies]
    if game == "trio-cards":
        o = config.options
        pol = pols[0] if len(set(pols)) == 1 else "_".join(pols)
        return f"{card_table_prefix(o['players'], o['mode'], o['teams'])}-{pol}"
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
        return (format_report(self.summary) + "\nWrote "
                + ", ".join(str(f) for f in self.files))


def simulate(
    game: str,
    options: dict,
    games: int,
    seed: int = 0,
    jobs: int = 1,
    dask: str | None = None,
    chunk: int = DEFAULT_CHUNK,
    out: str | Path | None = None,
    progress: Callable | None = None,
    command: str | None = None,
) -> SimulateOutcome:
    """Play ``games`` games of a simulated game; write the per-seat table, the
    per-game rows (parquet), the plot and the metadata."""
    info = simulated_game(game)
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
    csv = output_path(Path(out) if out else RESULTS / game / f"{study_name(game, config)}.csv")
    for suffix in (".parquet", ".png", ".meta.json"):
        output_path(csv.with_suffix(suffix))
    executor = make_executor(jobs, dask, work=-(-games // chunk))
    # a study of one chunk has nothing to resume: no saved chunks
    checkpoint = csv.with_suffix(".chunks") if games > chunk else None
    try:
        res = run_games(spec, config, games, seed, executor, chunk, progress=progress,
                        checkpoint=checkpoint)
    finally:
        executor.close()
    summary = summarise(spec, config, res, seed)
    summary["executor"] = executor.describe()
    command = command or artifacts.command_line()
    meta = artifacts.base_metadata(
        **summary, command=command, regenerate=command,
        per_game_rows=f"{csv.with_suffix('.parquet')} (not committed; rerun the command to "
                      "regenerate)")
    frame = per_game_frame(spec, config, res)
    fig = plot_win_rates(
        summary, f"{game} {study_name(game, config)}: {games:,} games, seed {seed}")
    with artifacts.OutputSet() as files_out:  # all four, or none
        files_out.stage(csv.with_suffix(".parquet"),
                        lambda tmp: frame.to_parquet(tmp, index=False))
        files_out.csv(csv, seat_table(config, res))
        files_out.figure(csv.with_suffix(".png"), fig)
        files_out.json(csv.with_suffix(".meta.json"), meta)
    if checkpoint is not None:
        remove_checkpoint(checkpoint)
    files = [csv, csv.with_suffix(".meta.json"), csv.with_suffix(".png"),
             csv.with_suffix(".parquet")]
    return SimulateOutcome(summary, files)


@dataclass
class ReportOutcome:
    table: Any  # pandas.DataFrame, one row per study
    files: list[Path]

    COLUMNS = ("study", "games", "seat_win_rates", "first_seat_advantage", "ci_low", "ci_high",
               "unfinished", "mean_length")

    def to_json(self) -> list[dict]:
        return json.loads(self.table.to_json(orient="records"))

    def text(self) -> str:
        with pd.option_context("display.width", 200, "display.max_colwidth", 60):
            body = self.table[list(self.COLUMNS)].to_string(
                index=False, float_format=lambda v: f"{v:.4f}")
        return body + "\nWrote " + ", ".join(str(f) for f in self.files)


def report(game: str, results_dir: str | Path = RESULTS,
           command: str | None = None) -> ReportOutcome:
    """Every simulated study of ``game`` in one table and one first-seat-advantage plot."""
    simulated_game(game)
    folder = Path(results_dir) / game
    table = collect(folder)
    if table.empty:
        raise StudyError(f"no studies in {folder}; run `trilab simulate {game} ...` first")
    out = output_path(folder / "summary.csv", "--results-dir")
    fig = plot_first_seat_advantage(table, f"{game}: first-seat advantage by study")
    with artifacts.OutputSet() as files_out:
        files_out.csv(out, table)
        files_out.figure(out.with_suffix(".png"), fig)
        files_out.json(out.with_suffix(".meta.json"), artifacts.base_metadata(
            command=command or artifacts.command_line(), game=game, studies=len(table),
            sources=sorted(table.study)))
    return ReportOutcome(table, [out, out.with_suffix(".png"), out.with_suffix(".meta.json")])
