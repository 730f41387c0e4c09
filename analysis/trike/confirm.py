"""Second proofs of a reply-split Trike run: every claim re-proven another way.

A reply-split run (``trilab solve trike --size 8``) records, per opening
class, which mover replies it proved lost or won for the placer.  A result
nobody can reproduce cheaply deserves an independent confirmation before it
is published, so this module re-proves, with a *different solver setting*:

* for a class the mover wins: the winning reply the run found (one proof is
  enough for the class);
* for a class the placer wins: a seeded random sample of its refuted replies
  (``sample`` per class; all of them would cost as much as the run).

The second setting is the transposition-table key: whole-position keys when
the original proof used region keys (the default since region keys were
introduced), region keys for the classes listed in
:data:`WHOLE_KEY_CLASSES` (proven with whole-position keys before region keys
existed).  Both keyings are exact, but share nothing in how positions are
merged in the table, so a bug in either would show up as a disagreement.

A reply whose row keeps the tree of units a split run proved it through (its
``"units"``), and from size 9 (the move split) every reply, is not searched whole:
its claim is re-proven from that tree (two plies of it where none is on record),
each leaf searched again with the other keying and saved on its own
(:mod:`trilab.analysis.trike.confirm_units`), in this process, ``threads`` search
threads sharing one table.

Results are saved after each proof in ``size-N.confirmations.json`` beside
the table (atomic writes; a run resumes where it stopped; the record is read
by :mod:`trilab.analysis.trike.size_table`, which adds what it confirmed to
the table).  A disagreement raises :class:`ConfirmationMismatch` at once.
:func:`confirm_trike` is the command ``trilab confirm trike``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from trilab.analysis import artifacts
from trilab.analysis.common import StudyError, make_executor, output_path
from trilab.analysis.executors import SerialExecutor
from trilab.analysis.trike import size_table
from trilab.analysis.trike.confirm_units import (
    RecordError,
    UnitVerifier,
    leaf_prover,
    two_ply_tree,
)
from trilab.analysis.trike.openings import (
    default_split,
    default_tt_mb,
    point_label,
    read_reply_record,
)
from trilab.solver.rng import PyRng
from trilab.solver.trike import engine as trike
from trilab.solver.trike.alphabeta import AlphaBetaSolver

WHOLE_KEY_CLASSES: dict[int, tuple[int, ...]] = {8: (12,)}
"""Opening classes (representative point) whose replies were first proven with
whole-position keys: the size-8 centre (4,2)."""


class ConfirmationMismatch(RuntimeError):
    """A second proof disagrees with the first: a bug in one of the solvers."""


def plan(size: int, classes: dict[int, dict], replies: dict[int, dict[int, dict]],
         sample: int) -> list[tuple[int, int]]:
    """The ``(point, reply)`` proofs to redo, in order: the winning reply of each
    mover-won class first (cheapest recorded first), then ``sample`` refuted
    replies per placer-won class, drawn with ``PyRng(size, point)``.  Classes
    proven without a per-reply record (class-split runs) are skipped."""
    mover, placer = [], []
    for point, row in sorted(classes.items()):
        rows = replies.get(point, {})
        if row["winner"] == "mover":
            won = [r for r, x in rows.items() if not x["placer_wins"]]
            if won:
                best = min(won, key=lambda r: rows[r]["seconds"])
                mover.append((rows[best]["seconds"], point, best))
            continue
        pool = sorted(r for r, x in rows.items() if x["placer_wins"])
        stream = PyRng(size, point)
        for _ in range(min(sample, len(pool))):
            placer.append((point, pool.pop(stream.below(len(pool)))))
    return [(p, r) for _, p, r in sorted(mover)] + placer


def keying(size: int, point: int) -> str:
    """``"whole"`` or ``"region"``: the key setting that differs from the first proof."""
    return "region" if point in WHOLE_KEY_CLASSES.get(size, ()) else "whole"


def confirm_reply(size: int, point: int, reply: int, tt_mb: float,
                  progress: Callable[[int], None] | None = None) -> dict:
    """Re-prove whether the placer wins after ``reply`` to the opening on ``point``."""
    keys = keying(size, point)
    solver = AlphaBetaSolver(size, tt_mb=tt_mb, region_keys=keys == "region",
                             progress=progress)
    t0 = time.perf_counter()
    placer_wins = solver.is_win(trike.opening(size, point).play(reply))
    return {"point": point, "reply": reply, "placer_wins": bool(placer_wins), "keys": keys,
            "nodes": solver.nodes, "seconds": round(time.perf_counter() - t0, 3)}


def confirm_by_units(size: int, point: int, reply: int, row: dict, data: dict, out: Path,
                     tt_mb: float, threads: int = 1,
                     tick: Callable[[int], None] | None = None,
                     progress: Callable[[str], None] | None = None) -> dict:
    """Re-prove a split reply's claim from its unit tree (module docstring); the
    leaves are saved in ``data["leaves"]`` (and ``out``) as they are proven, a leaf's
    search stack beside ``out`` as it goes.  Returns the proof's row, whose ``nodes``,
    ``seconds`` and ``leaves`` count every leaf searched under the reply (in earlier
    runs too, and in tries that did not prove it; ``seconds`` of search, whatever the
    threads).  A tree that does not prove the claim, or names a move its position does
    not have, raises :class:`ConfirmationMismatch`."""
    keys = keying(size, point)
    found = data.setdefault("leaves", {})
    prefix = f"{point}-{reply}-"
    t0 = time.perf_counter()

    def save(tag: str, leaf: dict) -> None:
        found[tag] = leaf
        artifacts.write_json(out, data)
        if progress is not None:
            progress(f"  unit {tag}: placer {'wins' if leaf['placer_wins'] else 'loses'}, "
                     f"{leaf['nodes']:,} nodes, {leaf['seconds']:.0f} s")

    prover = leaf_prover(size, tt_mb, threads, keys == "region", save, tick,
                         stacks=Path(out).with_suffix(""))
    verifier = UnitVerifier(size, prover, {t: x["placer_wins"] for t, x in found.items()})
    claim = bool(row["placer_wins"])
    tree = row if row.get("units") else two_ply_tree(size, (point, reply))
    try:
        proven = verifier.verify(tree, (point, reply), claim)
    except RecordError as e:
        raise ConfirmationMismatch(f"the first proof's record is damaged: {e}") from None
    if not proven:
        raise ConfirmationMismatch(
            f"reply {point_label(size, reply)} to {point_label(size, point)}: first proof "
            f"says the placer {'wins' if claim else 'loses'}; its units, searched again with "
            f"{keys} keys, do not prove it")
    mine = [x for t, x in found.items() if t.startswith(prefix)]
    return {"point": point, "reply": reply, "placer_wins": claim, "keys": keys,
            "nodes": sum(x["nodes"] for x in mine),
            "seconds": round(sum(x["seconds"] for x in mine), 3), "leaves": len(mine),
            "tree": "record" if row.get("units") else "two plies",
            "wall_seconds": round(time.perf_counter() - t0, 1)}


def run(size: int, checkpoint: Path, out: Path, tt_mb: float, sample: int = 2,
        time_limit: float | None = None, progress: Callable[[str], None] | None = None,
        executor=None, threads: int = 1) -> dict:
    """Re-prove the planned replies not yet in ``out``; return the confirmation data.

    ``executor`` (:mod:`trilab.analysis.executors`, default this process; the
    caller closes it) runs the proofs of whole replies, longest first; each is
    saved as soon as it finishes.  Replies proven through units are re-proven
    afterwards in this process, leaf by leaf, with ``threads`` threads (each leaf
    saved as it is proven).  After ``time_limit`` seconds the run stops, keeping
    what is done (an unfinished proof of a whole reply, or the leaf in progress, is
    redone by the next run).
    """
    classes, replies = read_reply_record(checkpoint, size)
    data = size_table.load_confirmations(out, size)
    done = {(x["point"], x["reply"]) for x in data["proofs"]}
    todo = [(p, r) for p, r in plan(size, classes, replies, sample) if (p, r) not in done]
    todo.sort(key=lambda pr: -replies[pr[0]][pr[1]]["seconds"])  # longest first
    by_units = [(p, r) for p, r in todo
                if replies[p][r].get("units") or default_split(size) == "moves"]
    todo = [pr for pr in todo if pr not in by_units]
    executor = executor or SerialExecutor()
    serial = isinstance(executor, SerialExecutor)
    t0 = time.perf_counter()

    def tick(nodes: int) -> None:  # in-process runs stop inside a proof
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            raise TimeoutError

    tasks = [(size, p, r, tt_mb, tick if serial else None) for p, r in todo]
    if progress is not None and todo:
        progress(f"{len(todo)} proofs to redo on {executor.describe()}: "
                 + ", ".join(f"{point_label(size, r)} to {point_label(size, p)}"
                             for p, r in todo))
    if progress is not None and by_units:
        progress(f"{len(by_units)} proofs to redo unit by unit in this process "
                 f"({threads} thread{'s' if threads > 1 else ''}): "
                 + ", ".join(f"{point_label(size, r)} to {point_label(size, p)}"
                             for p, r in by_units))

    def saved(row: dict) -> None:
        point, reply = row["point"], row["reply"]
        first = replies[point][reply]["placer_wins"]
        row["first_proof_placer_wins"] = first
        data["proofs"].append(row)
        artifacts.write_json(out, data)
        if progress is not None:
            how = f" ({row['leaves']} units)" if "leaves" in row else ""
            progress(f"reply {point_label(size, reply)} to {point_label(size, point)}: "
                     f"{row['nodes']:,} nodes, {row['seconds']:.0f} s{how}")
        if row["placer_wins"] != first:
            raise ConfirmationMismatch(
                f"reply {point_label(size, reply)} to {point_label(size, point)}: first "
                f"proof says the placer {'wins' if first else 'loses'}, {row['keys']} keys "
                "say otherwise")

    try:
        for _, row in executor.run(confirm_reply, tasks, timeout=time_limit):
            saved(row)
        for point, reply in by_units:
            saved(confirm_by_units(size, point, reply, replies[point][reply], data, out, tt_mb,
                                   threads, tick, progress))
    except TimeoutError:
        pass
    return data


# ------------------------------------------------------------------ the command


@dataclass
class ConfirmOutcome:
    data: dict
    files: list[Path]
    planned: int

    def to_json(self) -> dict:
        return self.data

    def text(self) -> str:
        size = self.data["size"]
        lines = [f"Trike size {size}: {len(self.data['proofs'])} of {self.planned} planned "
                 "proofs re-done, all agreeing with the first proofs"]
        for x in self.data["proofs"]:
            lines.append(f"  opening {point_label(size, x['point'])}, reply "
                         f"{point_label(size, x['reply'])}: placer "
                         f"{'wins' if x['placer_wins'] else 'loses'} ({x['keys']} keys, "
                         f"{x['nodes']:,} nodes, {x['seconds']:.0f} s"
                         + (f", {x['leaves']} units" if "leaves" in x else "") + ")")
        return "\n".join(lines + ["Wrote " + ", ".join(str(f) for f in self.files)])


def confirm_trike(size: int, sample: int = 2, tt_mb: float | None = None,
                  time_limit: float | None = None, out: str | Path | None = None,
                  progress: Callable[[str], None] | None = None, jobs: int = 1,
                  dask: str | None = None, command: str | None = None,
                  threads: int = 1) -> ConfirmOutcome:
    """Re-prove a reply-split run's claims with the other table keying
    (see the module docstring); resumable, saved after each proof (and each unit
    of a split reply)."""
    paths = size_table.paths(size, output_path(size_table.paths(size, out)["csv"]))
    record = size_table.reply_record(size, paths)
    if sample < 0:
        raise StudyError("--sample must be at least 0", "--sample")
    tt_mb = default_tt_mb(size) if tt_mb is None else tt_mb
    executor = make_executor(jobs, dask)
    try:  # a disagreement raises ConfirmationMismatch
        data = run(size, record, paths["confirmations"], tt_mb, sample, time_limit, progress,
                   executor, threads)
    finally:
        executor.close()
    meta = paths["confirmations"].with_suffix(".meta.json")
    artifacts.write_json(meta, artifacts.base_metadata(
        command=command or artifacts.command_line(), game="trike", size=size, sample=sample,
        tt_mb=tt_mb, threads=threads, record=str(record), proofs=len(data["proofs"]),
        leaves=len(data.get("leaves", {})),
        # the proofs' search time (wall seconds of searches of ``threads`` threads each,
        # or of one for leaves searched before a resume with another --threads)
        search_seconds=round(sum(x["seconds"] for x in data["proofs"]), 1)))
    planned = len(plan(size, *read_reply_record(record, size), sample))
    return ConfirmOutcome(data, [paths["confirmations"], meta], planned)
