"""A Trike size's opening table and the records beside it.

``trilab solve trike --size N`` writes the table ``results/trike/size-N.csv``
with its ``.meta.json`` and opening map (``.png``); beside the table live the
records of the longer runs:

* ``size-N.checkpoint.json``: the solved classes (and replies) of a run in
  progress (:class:`trilab.analysis.trike.openings.Checkpoint`);
* ``size-N.replies.json``: the per-reply record a finished reply-split run
  leaves, which ``trilab confirm`` and ``trilab margins`` start from;
* ``size-N.confirmations.json``: the second proofs of ``trilab confirm``
  (:mod:`trilab.analysis.trike.confirm`);
* ``size-N.margins.json``: the probes of ``trilab margins``
  (:mod:`trilab.analysis.trike.margin_search`).

This module owns those names, reads the records and writes the table: a
table gets a ``confirmed`` column from the confirmations, and a win/loss
table the margins and remoteness proven since from the probes.  The three
commands that make the records (:mod:`trilab.analysis.trike.solve`,
:mod:`trilab.analysis.trike.confirm`, :mod:`trilab.analysis.trike.margins`)
call it; it calls none of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from trilab.analysis import artifacts
from trilab.analysis.common import RESULTS, StudyError
from trilab.analysis.trike import margin_search
from trilab.analysis.trike.openings import OpeningStudy, point_label

CONFIRMATIONS_FORMAT = "trilab-trike-confirmations"


def paths(size: int, out: str | Path | None = None) -> dict[str, Path]:
    """Where the table of ``size`` and its records are: csv, meta, png,
    checkpoint, replies, confirmations and margins (``out`` is the csv)."""
    csv = Path(out) if out else RESULTS / "trike" / f"size-{size}.csv"
    return {"csv": csv, "meta": csv.with_suffix(".meta.json"), "png": csv.with_suffix(".png"),
            "checkpoint": csv.with_suffix(".checkpoint.json"),
            "replies": csv.with_suffix(".replies.json"),
            "confirmations": csv.with_suffix(".confirmations.json"),
            "margins": csv.with_suffix(".margins.json")}


def reply_record(size: int, paths: dict[str, Path], required: bool = True) -> Path | None:
    """The per-reply record of a reply-split run: the checkpoint of a run in
    progress, else the record a finished run left; without one a StudyError
    (or None when not ``required``)."""
    record = next((paths[k] for k in ("checkpoint", "replies") if paths[k].exists()), None)
    if record is None and required:
        raise StudyError(f"no per-reply record of size {size} ({paths['checkpoint']} or "
                         f"{paths['replies']}): run `trilab solve trike --size {size} --split "
                         "replies --win-loss-only` first", "--size")
    return record


def load_confirmations(path: Path, size: int) -> dict:
    """The confirmation record at ``path`` (empty if there is none yet)."""
    if not path.exists():
        return {"format": CONFIRMATIONS_FORMAT, "size": size, "proofs": []}
    data = json.loads(path.read_text())
    if data.get("format") != CONFIRMATIONS_FORMAT or data.get("size") != size:
        raise ValueError(f"{path} is not a Trike size-{size} confirmation file")
    return data


def confirmation_status(size: int, data: dict) -> dict[int, str]:
    """Per opening class (representative point): what has been re-proven, in words."""
    out: dict[int, str] = {}
    by_point: dict[int, list[dict]] = {}
    for x in data["proofs"]:
        by_point.setdefault(x["point"], []).append(x)
    for point, proofs in by_point.items():
        how = "whole-position keys" if proofs[0]["keys"] == "whole" else "region keys"
        won = [x for x in proofs if not x["placer_wins"]]
        if won:
            out[point] = f"winning reply {point_label(size, won[0]['reply'])} re-proven ({how})"
        else:
            replies = ", ".join(point_label(size, x["reply"]) for x in proofs)
            out[point] = f"refutations of {replies} re-proven ({how})"
    return out


def _with_probed_values(table, size: int, paths: dict[str, Path]):
    """A win/loss table with the exact margins and remoteness that `trilab
    margins` proved since (``size-N.margins.json``) filled in per class."""
    probes = paths["margins"]
    if not probes.exists() or table["margin"].notna().all():
        return table
    record = reply_record(size, paths, required=False)
    if record is None:
        return table
    states, _ = margin_search.run(size, record, probes, tt_mb=1, replay_only=True,
                                  modes=("margin", "remoteness"))
    rows = {r["point"]: r for r in margin_search.table_rows(size, states)}
    reps = table.groupby("symmetry_class").point.transform("min")
    table = table.copy()
    for col in ("margin", "remoteness"):
        proven = reps.map(lambda p, c=col: rows.get(p, {}).get(c))
        table[col] = table[col].astype("object").where(table[col].notna(), proven)
        table[col] = table[col].astype("Int64")
    return table


def table(study: OpeningStudy, paths: dict[str, Path]):
    """The study's table with what the records beside it add: the
    ``confirmed`` column and the probed margins and remoteness."""
    out = study.table
    if paths["confirmations"].exists():
        said = confirmation_status(study.size,
                                   load_confirmations(paths["confirmations"], study.size))
        reps = out.groupby("symmetry_class").point.transform("min")
        out = out.assign(confirmed=reps.map(said))
    return _with_probed_values(out, study.size, paths)


def write(study: OpeningStudy, paths: dict[str, Path], tt_mb: float,
          command: str | None = None) -> list[Path]:
    """The table (CSV), the opening map (PNG) and the metadata, each atomically."""
    # matplotlib: imported here, after the search (which imports it in the background)
    from trilab.analysis import plots

    full = table(study, paths)
    meta = artifacts.base_metadata(
        command=command or artifacts.command_line(), game="trike", size=study.size,
        method=study.method, tt_mb=tt_mb, win_loss_only=study.win_loss_only,
        complete=study.complete, nodes=study.nodes, seconds=round(study.seconds, 3),
        summary=study.summary(), **study.extra)
    with artifacts.OutputSet() as out:  # all three, or none
        out.csv(paths["csv"], full)
        out.figure(paths["png"], plots.trike_opening_map(full, study.size))
        out.json(paths["meta"], meta)
    return [paths["csv"], paths["meta"], paths["png"]]


def partial_paths(table_paths: dict[str, Path]) -> dict[str, Path]:
    """Where a stopped run writes its table when a more complete one is in place:
    ``size-N.partial.csv`` (and ``.partial.meta.json``, ``.partial.png``) beside it."""
    csv = table_paths["csv"]
    partial = csv.with_name(f"{csv.stem}.partial{csv.suffix}")
    return {**table_paths, "csv": partial, "meta": partial.with_suffix(".meta.json"),
            "png": partial.with_suffix(".png")}


def keeps_existing(study: OpeningStudy, table_paths: dict[str, Path]) -> bool:
    """Whether the table in place is more complete than what ``study`` holds
    (then the study's table is written beside it, see :func:`partial_paths`):
    a stopped run never replaces a complete table, nor one with more classes."""
    if study.complete or not table_paths["csv"].exists():
        return False
    try:
        meta = json.loads(table_paths["meta"].read_text())
    except (OSError, ValueError):
        meta = {}
    if meta.get("complete"):
        return True
    try:
        rows_there = len(pd.read_csv(table_paths["csv"]))
    except (OSError, ValueError):
        return False
    return rows_there > len(study.table)
