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

Results are saved after each proof in ``size-N.confirmations.json`` beside
the table (atomic writes; a run resumes where it stopped).  A disagreement
raises :class:`ConfirmationMismatch` at once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from trilab.analysis import artifacts
from trilab.solver.rng import PyRng
from trilab.solver.trike import engine as trike
from trilab.solver.trike.alphabeta import AlphaBetaSolver

FORMAT = "trilab-trike-confirmations"
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


def load(path: Path, size: int) -> dict:
    if not path.exists():
        return {"format": FORMAT, "size": size, "proofs": []}
    data = json.loads(path.read_text())
    if data.get("format") != FORMAT or data.get("size") != size:
        raise ValueError(f"{path} is not a Trike size-{size} confirmation file")
    return data


def run(size: int, checkpoint: Path, out: Path, tt_mb: float, sample: int = 2,
        time_limit: float | None = None, progress: Callable[[str], None] | None = None,
        executor=None) -> dict:
    """Re-prove the planned replies not yet in ``out``; return the confirmation data.

    ``executor`` (:mod:`trilab.analysis.executors`, default this process) runs
    the proofs, longest first; each is saved as soon as it finishes.  After
    ``time_limit`` seconds the run stops, keeping what is done (unfinished
    proofs are redone by the next run).
    """
    from trilab.analysis.executors import SerialExecutor
    from trilab.analysis.trike.openings import read_reply_record

    classes, replies = read_reply_record(checkpoint, size)
    data = load(out, size)
    done = {(x["point"], x["reply"]) for x in data["proofs"]}
    todo = [(p, r) for p, r in plan(size, classes, replies, sample) if (p, r) not in done]
    todo.sort(key=lambda pr: -replies[pr[0]][pr[1]]["seconds"])  # longest first
    executor = executor or SerialExecutor()
    serial = isinstance(executor, SerialExecutor)
    t0 = time.perf_counter()

    def tick(nodes: int) -> None:  # in-process runs stop inside a proof
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            raise TimeoutError

    tasks = [(size, p, r, tt_mb, tick if serial else None) for p, r in todo]
    if progress is not None:
        progress(f"{len(todo)} proofs to redo on {executor.describe()}: "
                 + ", ".join(f"{label(size, r)} to {label(size, p)}" for p, r in todo))
    try:
        for (_, point, reply, _, _), row in executor.run(confirm_reply, tasks,
                                                         timeout=time_limit):
            first = replies[point][reply]["placer_wins"]
            row["first_proof_placer_wins"] = first
            data["proofs"].append(row)
            artifacts.write_json(out, data)
            if progress is not None:
                progress(f"reply {label(size, reply)} to {label(size, point)}: "
                         f"{row['nodes']:,} nodes, {row['seconds']:.0f} s")
            if row["placer_wins"] != first:
                raise ConfirmationMismatch(
                    f"reply {label(size, reply)} to {label(size, point)}: first proof says the "
                    f"placer {'wins' if first else 'loses'}, {row['keys']} keys say otherwise")
    except TimeoutError:
        pass
    finally:
        executor.close()
    return data


def label(size: int, point: int) -> str:
    r, c = trike.point_coords(size)[point]
    return f"({r},{c})"


def status(size: int, data: dict) -> dict[int, str]:
    """Per opening class (representative point): what has been re-proven, in words."""
    out: dict[int, str] = {}
    by_point: dict[int, list[dict]] = {}
    for x in data["proofs"]:
        by_point.setdefault(x["point"], []).append(x)
    for point, proofs in by_point.items():
        how = "whole-position keys" if proofs[0]["keys"] == "whole" else "region keys"
        won = [x for x in proofs if not x["placer_wins"]]
        if won:
            out[point] = f"winning reply {label(size, won[0]['reply'])} re-proven ({how})"
        else:
            replies = ", ".join(label(size, x["reply"]) for x in proofs)
            out[point] = f"refutations of {replies} re-proven ({how})"
    return out
