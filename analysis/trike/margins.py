"""``trilab margins trike``: exact margins (and remoteness) of a size solved win/loss.

:func:`margins_trike` starts from the per-reply record of a reply-split
win/loss run (``trilab solve trike --size N --split replies
--win-loss-only``), refines every opening class's value by the null-window
probes of :mod:`trilab.analysis.trike.margin_search` (each answer saved at
once to ``size-N.margins.json``, so a run resumes) and writes the per-class
table ``size-N.margins.csv`` with its metadata.  The next solve of the size
reads the probes into the opening table
(:mod:`trilab.analysis.trike.size_table`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from trilab.analysis import artifacts
from trilab.analysis.common import StudyError, output_path
from trilab.analysis.trike import margin_search, size_table
from trilab.analysis.trike.openings import default_tt_mb


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
    win/loss map a reply-split run proved
    (:mod:`trilab.analysis.trike.margin_search`);
    resumable, saved after each probe.  Ctrl-C stops it like the time limit,
    keeping every answer.  ``keys="whole"`` re-proves with whole-position
    table keys into ``size-N.margins-whole.*`` (a second code path)."""
    paths = size_table.paths(size, output_path(size_table.paths(size, out)["csv"]))
    record = size_table.reply_record(size, paths)
    if keys not in ("region", "whole"):
        raise StudyError(f"unknown keys {keys!r}: region or whole", "--keys")
    tt_mb = default_tt_mb(size) if tt_mb is None else tt_mb
    modes = ("margin", "remoteness") if remoteness else ("margin",)
    probes = paths["margins"]
    if keys == "whole":
        probes = probes.with_name(probes.name.replace(".margins.", ".margins-whole."))
    t0 = time.perf_counter()
    try:
        states, timed_out = margin_search.run(size, record, probes, tt_mb, time_limit,
                                              progress, modes, region_keys=keys == "region")
        stopped = f"time limit of {time_limit:g} s reached" if timed_out else None
    except KeyboardInterrupt:
        states, _ = margin_search.run(size, record, probes, tt_mb, modes=modes,
                                      replay_only=True)
        stopped = "interrupted"
    except ValueError as e:
        raise StudyError(str(e)) from None
    rows = margin_search.table_rows(size, states)
    outcome = MarginsOutcome(size, rows, [], stopped)
    table = probes.with_suffix(".csv")
    meta = probes.with_suffix(".meta.json")
    with artifacts.OutputSet() as files_out:  # the table and its metadata, or neither
        files_out.csv(table, pd.DataFrame(rows))
        files_out.json(meta, artifacts.base_metadata(
            command=command or artifacts.command_line(), game="trike", size=size, tt_mb=tt_mb,
            record=str(record), modes=list(modes), keys=keys, complete=outcome.complete,
            stopped=stopped,
            seconds_this_run=round(time.perf_counter() - t0, 1),
            cpu_seconds=round(sum(r["seconds"] for r in rows), 1)))
    outcome.files = [probes, table, meta]
    return outcome
