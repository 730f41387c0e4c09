"""Long Trike runs: checkpoints, kill/resume, executors (processes, Dask)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from trilab.analysis import executors
from trilab.analysis.trike import openings as trike_openings
from trilab.cli import cli
from trilab.solver.trike import engine as trike

ROOT = Path(__file__).resolve().parent.parent
VALUES = ["point", "symmetry_class", "winner", "margin", "remoteness", "winning_replies", "nodes"]


def trilab(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "trilab.cli", *args],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def wait_for_saved_class(ckpt: Path, proc: subprocess.Popen, timeout: float = 120) -> int:
    t0 = time.time()
    while time.time() - t0 < timeout:
        if ckpt.exists():
            try:
                return len(json.loads(ckpt.read_text())["classes"])
            except ValueError:
                pytest.fail("checkpoint is not valid JSON: writes must be atomic")
        if proc.poll() is not None:
            pytest.fail("run ended before saving a class: " + proc.stderr.read())
        time.sleep(0.005)
    pytest.fail("no class saved in time")


def children(pid: int) -> list[int]:
    """Live (not zombie) processes whose parent is ``pid``."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(stat.parent.name))
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture(scope="module")
def clean_size6() -> pd.DataFrame:
    study = trike_openings.run(6, tt_mb=64)
    return study.table


@pytest.mark.parametrize("sig, jobs", [(signal.SIGKILL, 1), (signal.SIGINT, 1),
                                       (signal.SIGTERM, 1), (signal.SIGINT, 2),
                                       (signal.SIGKILL, 2)])
def test_killed_run_resumes_to_the_same_table(tmp_path, sig, jobs, clean_size6):
    out = tmp_path / "size-6.csv"
    ckpt = tmp_path / "size-6.checkpoint.json"
    args = ("solve", "trike", "--size", "6", "--tt-mb", "64", "--out", str(out),
            "--jobs", str(jobs))
    proc = trilab(*args, cwd=tmp_path)
    saved = wait_for_saved_class(ckpt, proc)
    workers = children(proc.pid)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    if proc.returncode == 0:  # finished before the signal landed: nothing to resume
        pytest.skip("run finished before the signal")
    if jobs > 1:  # the workers die with the run, even when it is SIGKILLed
        assert workers, "no worker processes seen"
        deadline = time.time() + 10
        while any(alive(w) for w in workers) and time.time() < deadline:
            time.sleep(0.1)
        assert not any(alive(w) for w in workers), "worker processes outlived the run"
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 130, err
        assert "Traceback" not in err, err
        if "saved in" in err:  # else the signal landed after the last class was solved
            assert "Run the same command to resume" in err
            partial = pd.read_csv(out)  # the proven classes, written on the way out
            assert 1 <= partial.symmetry_class.nunique() < 5
    assert saved >= 1 and ckpt.exists()
    assert not list(tmp_path.glob("*.tmp"))
    resumed = trilab(*args, cwd=tmp_path)
    stdout, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert "from the checkpoint" in stdout
    final = pd.read_csv(out)
    pd.testing.assert_frame_equal(final[VALUES], clean_size6[VALUES].astype(final[VALUES].dtypes))
    assert not ckpt.exists()


def test_time_limit_keeps_proven_classes_and_resumes(tmp_path, clean_size6):
    out = tmp_path / "size-6.csv"
    runner = CliRunner()
    args = ["solve", "trike", "--size", "6", "--tt-mb", "64", "--out", str(out)]
    first = runner.invoke(cli, args + ["--time-limit", "0.001"])
    assert first.exit_code == 0, first.output
    assert "time limit" in first.stderr and "resume" in first.stderr
    meta = json.loads(out.with_suffix(".meta.json").read_text())
    assert meta["complete"] is False and meta["summary"]["open_classes"]
    second = runner.invoke(cli, args)
    assert second.exit_code == 0, second.output
    final = pd.read_csv(out)
    pd.testing.assert_frame_equal(final[VALUES], clean_size6[VALUES].astype(final[VALUES].dtypes))


def test_process_pool_and_dask_give_identical_tables(clean_size6):
    serial = trike_openings.run(5, tt_mb=16)
    pool = executors.make_executor(jobs=2)
    try:
        by_pool = trike_openings.run(5, tt_mb=16, executor=pool)
    finally:
        pool.close()
    dask = executors.make_executor(dask="local:2")
    try:
        assert dask.workers == 2
        by_dask = trike_openings.run(5, tt_mb=16, executor=dask)
        by_dask_wl = trike_openings.run(5, tt_mb=16, executor=dask, win_loss_only=True)
    finally:
        dask.close()
    for other in (by_pool, by_dask):
        pd.testing.assert_frame_equal(serial.table[VALUES], other.table[VALUES])
    assert list(by_dask_wl.table.winner) == list(serial.table.winner)
    assert by_dask_wl.table.margin.isna().all()


def test_checkpoints_written_by_dask_match_local(tmp_path):
    local = tmp_path / "local.json"
    remote = tmp_path / "dask.json"
    trike_openings.run(4, tt_mb=4, checkpoint_path=local)
    dask = executors.make_executor(dask="local:2")
    try:
        trike_openings.run(4, tt_mb=4, checkpoint_path=remote, executor=dask)
    finally:
        dask.close()

    def values(path):
        data = json.loads(path.read_text())
        return {k: {c: v for c, v in row.items() if c != "seconds"}
                for k, row in data["classes"].items()}

    assert values(local) == values(remote)


def test_win_loss_only_checkpoint_is_not_reused_for_full_values(tmp_path):
    ckpt = tmp_path / "c.json"
    wl = trike_openings.run(4, tt_mb=4, checkpoint_path=ckpt, win_loss_only=True)
    assert wl.table.margin.isna().all()
    full = trike_openings.run(4, tt_mb=4, checkpoint_path=ckpt)
    assert full.extra["resumed_classes"] == 0 and full.table.margin.notna().all()
    again = trike_openings.run(4, tt_mb=4, checkpoint_path=ckpt, win_loss_only=True)
    assert again.extra["resumed_classes"] == 3


@pytest.mark.parametrize("spec, needle", [
    ("nonsense", "bad Dask address"),
    ("local:0", "at least 1 worker"),
    ("local:two", "bad worker count"),
    ("tcp://127.0.0.1:9", "cannot reach the Dask scheduler"),
])
def test_bad_dask_address_is_a_usage_error(tmp_path, spec, needle):
    res = CliRunner().invoke(cli, ["solve", "trike", "--size", "3", "--dask", spec,
                                   "--out", str(tmp_path / "x.csv")])
    assert res.exit_code == 2, res.output
    assert needle in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("size", [9, 10])
def test_largest_sizes_are_accepted_and_stop_on_time(tmp_path, size):
    out = tmp_path / f"size-{size}.csv"
    res = CliRunner().invoke(cli, ["solve", "trike", "--size", str(size), "--win-loss-only",
                                   "--tt-mb", "16", "--time-limit", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "time limit of 1 s reached: 0 of" in res.stderr
    meta = json.loads(out.with_suffix(".meta.json").read_text())
    assert meta["complete"] is False and meta["size"] == size
    assert len(meta["summary"]["open_classes"]) == len(trike_openings.trike.opening_classes(size))


@pytest.mark.parametrize("win_loss_only", [False, True])
def test_reply_split_gives_the_class_values(win_loss_only):
    by_class = trike_openings.run(6, tt_mb=64, win_loss_only=win_loss_only, split="class")
    by_reply = trike_openings.run(6, tt_mb=64, win_loss_only=win_loss_only, split="replies")
    cols = ["point", "winner", "margin", "remoteness"]
    pd.testing.assert_frame_equal(by_class.table[cols], by_reply.table[cols])
    if not win_loss_only:
        assert list(by_class.table.winning_replies) == list(by_reply.table.winning_replies)


def test_reply_split_mover_wins_on_size5_and_resumes(tmp_path):
    """Size 5 has mover-won classes (early exit) and placer-won ones (all replies)."""
    ckpt = tmp_path / "c.json"
    full = trike_openings.run(5, tt_mb=16, split="class")
    with pytest.raises(trike_openings.Interrupted) as stop:
        trike_openings.run(5, tt_mb=16, split="replies", checkpoint_path=ckpt,
                           time_limit=1e-9)
    assert stop.value.study.open_classes
    saved = json.loads(ckpt.read_text())
    # proven work (here the first answer to a reply) is on record before the class is decided
    assert saved["replies"] or saved["answers"]
    resumed = trike_openings.run(5, tt_mb=16, split="replies", checkpoint_path=ckpt)
    cols = ["point", "winner", "margin", "remoteness", "winning_replies"]
    pd.testing.assert_frame_equal(full.table[cols], resumed.table[cols])
    wl = trike_openings.run(5, tt_mb=16, split="replies", win_loss_only=True)
    assert list(wl.table.winner) == list(full.table.winner)
    placer = wl.table[wl.table.winner == "placer"]
    assert (placer.winning_replies == 0).all()


def test_combine_replies_rules():
    rows = {1: {"placer_wins": True, "margin": 1, "remoteness": 10, "nodes": 5, "seconds": 0.1},
            2: {"placer_wins": False, "margin": -3, "remoteness": 8, "nodes": 7, "seconds": 0.2},
            3: {"placer_wins": False, "margin": -1, "remoteness": 6, "nodes": 1, "seconds": 0.1}}
    assert trike_openings.combine_replies({1: rows[1]}, [1, 2, 3], False) is None
    assert trike_openings.combine_replies({2: rows[2]}, [1, 2, 3], True)["winner"] == "mover"
    row = trike_openings.combine_replies(rows, [1, 2, 3], False)
    assert row["winner"] == "mover" and row["margin"] == -3
    assert row["remoteness"] == 7 and row["winning_replies"] == 2 and row["nodes"] == 13
    placer = trike_openings.combine_replies({1: rows[1]}, [1], False)
    assert placer["winner"] == "placer" and placer["remoteness"] == 11


def test_executors_close_twice():
    for ex in (executors.make_executor(jobs=2), executors.make_executor(dask="local:1")):
        assert [r for _, r in ex.run(abs, [(-3,), (4,)])] in ([3, 4], [4, 3])
        ex.close()
        ex.close()


def test_damaged_checkpoint_is_named_set_aside_and_restart_starts_over(tmp_path):
    out = tmp_path / "size-4.csv"
    ckpt = tmp_path / "size-4.checkpoint.json"
    ckpt.write_text('{\n  "format": "trilab-trike-checkpoint",\n  "cla')  # truncated
    args = ["solve", "trike", "--size", "4", "--out", str(out)]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and str(ckpt) in lines[0] and "damaged" in lines[0]
    assert "--restart" in lines[0] and "Traceback" not in res.output
    assert not ckpt.exists() and (tmp_path / "size-4.checkpoint.json.damaged").exists()
    assert not out.exists()  # nothing written
    # a valid partial checkpoint is resumed, and --restart sets it aside instead
    study = trike_openings.run(4, tt_mb=4)
    row = study.table.iloc[0]
    partial = json.dumps({
        "format": "trilab-trike-checkpoint", "version": 1, "size": 4, "solver": "alphabeta-1",
        "classes": {"0": {"winner": row.winner, "margin": int(row.margin),
                          "remoteness": int(row.remoteness),
                          "winning_replies": int(row.winning_replies), "nodes": 1,
                          "seconds": 0.0}}})
    ckpt.write_text(partial)
    assert CliRunner().invoke(cli, args).exit_code == 0
    assert json.loads(out.with_suffix(".meta.json").read_text())["resumed_classes"] == 1
    ckpt.write_text(partial)
    fresh = CliRunner().invoke(cli, args + ["--restart"])
    assert fresh.exit_code == 0, fresh.output
    assert json.loads(out.with_suffix(".meta.json").read_text())["resumed_classes"] == 0
    assert (tmp_path / "size-4.checkpoint.json.discarded").exists() and not ckpt.exists()
    table = pd.read_csv(out)[VALUES]
    pd.testing.assert_frame_equal(table, study.table[VALUES].astype(table.dtypes))


def test_mirror_replies_are_proven_once_and_have_equal_values():
    from trilab.solver.trike.alphabeta import AlphaBetaSolver

    reps = trike_openings.reply_representatives(5, 0)  # the corner: a symmetric opening
    assert len(reps) == 8 and len(set(reps.values())) == 4
    edge = trike_openings.reply_representatives(5, 1)  # no symmetry fixes (1,0)
    assert all(r == rep for r, rep in edge.items())
    solver = AlphaBetaSolver(5, tt_mb=4)
    opening = trike_openings.trike.opening(5, 0)
    for r, rep in reps.items():
        a = solver.solve_position(opening.play(r), count_winning_moves=False)
        b = solver.solve_position(opening.play(rep), count_winning_moves=False)
        assert (a.margin, a.remoteness) == (b.margin, b.remoteness)


def test_confirm_reproves_winning_and_refuted_replies_with_other_keys(tmp_path):
    out = tmp_path / "size-5.csv"
    args = ["solve", "trike", "--size", "5", "--split", "replies", "--out", str(out)]
    assert CliRunner().invoke(cli, args).exit_code == 0
    record = tmp_path / "size-5.replies.json"
    assert record.exists() and not (tmp_path / "size-5.checkpoint.json").exists()
    res = CliRunner().invoke(cli, ["confirm", "trike", "--size", "5", "--out", str(out),
                                   "--json"])
    assert res.exit_code == 0, res.output
    proofs = json.loads(res.stdout)["proofs"]
    table = pd.read_csv(out)
    mover_classes = set(table[table.winner == "mover"].symmetry_class)
    placer_classes = set(table[table.winner == "placer"].symmetry_class)
    assert len(proofs) == len(mover_classes) + 2 * len(placer_classes)
    assert all(p["keys"] == "whole" and p["placer_wins"] == p["first_proof_placer_wins"]
               for p in proofs)
    # the table says what was confirmed once the solve is run again (from the record)
    again = CliRunner().invoke(cli, args + ["--json"])
    assert again.exit_code == 0
    assert json.loads(out.with_suffix(".meta.json").read_text())["resumed_classes"] == 4
    confirmed = pd.read_csv(out).confirmed
    assert confirmed.notna().all() and confirmed.str.contains("re-proven").all()
    # a wrong first proof is caught: one line, exit 1.  Claim that a refuted reply
    # of a mover-won class wins for the mover (and cost nothing: it is re-proven first)
    data = json.loads(record.read_text())
    p = str(next(x["point"] for x in proofs if not x["placer_wins"]))
    r = next(k for k, v in data["replies"][p].items() if v["placer_wins"])
    data["replies"][p][r].update(placer_wins=False, seconds=0.0)
    record.write_text(json.dumps(data))
    (tmp_path / "size-5.confirmations.json").unlink()
    bad = CliRunner().invoke(cli, ["confirm", "trike", "--size", "5", "--out", str(out)])
    assert bad.exit_code == 1 and "first proof says" in bad.stderr


def test_an_interrupt_wrapped_by_numba_is_recognised():
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as inner:
            raise SystemError("returned a result with an exception set") from inner
    except SystemError as e:
        assert executors.interrupted_inside(e)
    assert not executors.interrupted_inside(SystemError("other"))


def test_on_ready_runs_once_before_the_search(monkeypatch):
    """`run(on_ready=...)` (used to import matplotlib during the search) is
    called once, after the kernels are loaded and before any class is solved."""
    events = []
    real = trike_openings.solve_opening_search

    def solve(*args, **kwargs):
        events.append("solve")
        return real(*args, **kwargs)

    monkeypatch.setattr(trike_openings, "solve_opening_search", solve)
    study = trike_openings.run(3, tt_mb=1, on_ready=lambda: events.append("ready"))
    assert study.complete and events[0] == "ready" and events.count("ready") == 1
    assert events.count("solve") == len(trike.opening_classes(3))


def _stopping_search(real, done: list, started: list, k: int, unit):
    """``solve_opening_search`` that records each task's ``unit(args)`` in
    ``started`` and, once proven, in ``done``, and raises KeyboardInterrupt
    (a Ctrl-C) when the next task starts after ``k`` finished ones."""
    def solve(*args):
        started.append(unit(args))
        if len(done) == k:
            raise KeyboardInterrupt
        row = real(*args)
        done.append(unit(args))
        return row
    return solve


@pytest.mark.parametrize("win_loss_only", [False, True])
def test_a_reply_stopped_midway_loses_at_most_the_answer_in_progress(
        tmp_path, monkeypatch, win_loss_only):
    """A reply-split run proves each reply through the placer's answers, one
    resumable unit each: stopped inside a reply (a Ctrl-C after k units), the
    rerun redoes only the unit that was running and gives the same table."""
    size, ckpt = 6, tmp_path / "c.json"
    whole = trike_openings.run(size, tt_mb=16, split="replies", win_loss_only=win_loss_only)
    real = trike_openings.solve_opening_search
    done, started = [], []

    def stop_after(k):
        return _stopping_search(real, done, started, k, lambda a: (a[1], a[6], a[8]))

    monkeypatch.setattr(trike_openings, "solve_opening_search", stop_after(7))
    with pytest.raises(trike_openings.Interrupted) as stop:
        trike_openings.run(size, tt_mb=16, split="replies", checkpoint_path=ckpt,
                           win_loss_only=win_loss_only)
    lost = started[-1]
    assert len(done) == 7 and lost[2] >= 0 and lost not in done
    saved = json.loads(ckpt.read_text())
    assert saved["version"] == trike_openings.CHECKPOINT_VERSION
    # the reply in progress has its proven answers on record, not yet its row
    p, r = str(lost[0]), str(lost[1])
    assert saved["answers"][p][r] and r not in saved["replies"].get(p, {})
    assert stop.value.study.extra["proven_answers"]
    first = list(done)
    done.clear()
    started.clear()
    monkeypatch.setattr(trike_openings, "solve_opening_search", stop_after(-1))
    resumed = trike_openings.run(size, tt_mb=16, split="replies", checkpoint_path=ckpt,
                                 win_loss_only=win_loss_only)
    assert not set(first) & set(started)  # nothing proven before is proven again
    assert started[0] == lost  # the one unit lost is the one that was running
    cols = ["point", "winner", "margin", "remoteness", "winning_replies"]
    pd.testing.assert_frame_equal(whole.table[cols], resumed.table[cols])
    by_class = trike_openings.run(size, tt_mb=16, split="class", win_loss_only=win_loss_only)
    pd.testing.assert_frame_equal(by_class.table[cols[:4]], resumed.table[cols[:4]])
    # finished: the answers are folded into the replies' rows
    assert not json.loads(ckpt.read_text())["answers"]


def test_a_time_limit_inside_a_reply_keeps_its_proven_answers(tmp_path):
    """A time limit that stops the run inside a reply keeps the answers it proved
    there (the limit grows until it falls after a first answer: machines differ)."""
    ckpt = tmp_path / "c.json"
    answers = {}
    for limit in (0.5, 1.0, 2.0, 4.0, 8.0):
        ckpt.unlink(missing_ok=True)
        with pytest.raises(trike_openings.Interrupted):
            trike_openings.run(6, tt_mb=16, split="replies", checkpoint_path=ckpt,
                               time_limit=limit)
        answers = json.loads(ckpt.read_text())["answers"]
        if any(rows for by_reply in answers.values() for rows in by_reply.values()):
            break
    assert any(rows for by_reply in answers.values() for rows in by_reply.values())
    full = trike_openings.run(6, tt_mb=16, split="class")
    resumed = trike_openings.run(6, tt_mb=16, split="replies", checkpoint_path=ckpt)
    cols = VALUES[:-1]  # the values; the node counts depend on the split
    pd.testing.assert_frame_equal(full.table[cols], resumed.table[cols])


def test_checkpoint_versions_and_answer_rows_are_checked(tmp_path):
    ckpt = tmp_path / "c.json"
    base = {"format": "trilab-trike-checkpoint", "size": 5, "solver": "alphabeta-1",
            "classes": {},
            "replies": {"0": {"1": {"placer_wins": True, "margin": 1, "remoteness": 9,
                                    "nodes": 5, "seconds": 0.1}}}}
    ckpt.write_text(json.dumps({**base, "version": 1}))  # before answers: still read
    assert trike_openings.Checkpoint(ckpt, 5).replies[0][1]["margin"] == 1
    ckpt.write_text(json.dumps({**base, "version": 5}))
    with pytest.raises(trike_openings.CheckpointError) as e:
        trike_openings.Checkpoint(ckpt, 5)
    assert "version-5" in str(e.value) and "\n" not in str(e.value)
    answer = {"placer_wins": False, "margin": -2, "remoteness": 8, "nodes": 3, "seconds": 0.0}
    ckpt.write_text(json.dumps({**base, "version": 2,
                                "answers": {"3": {"4": {"5": answer}}}}))
    assert trike_openings.Checkpoint(ckpt, 5).answers == {3: {4: {5: answer}}}
    for bad in ({**answer, "margin": 2}, {**answer, "placer_wins": "no"},
                {**answer, "nodes": -1}):
        ckpt.write_text(json.dumps({**base, "version": 2, "answers": {"3": {"4": {"5": bad}}}}))
        with pytest.raises(trike_openings.CheckpointError, match="reply 4, answer 5"):
            trike_openings.Checkpoint(ckpt, 5)
    ckpt.write_text(json.dumps({**base, "version": 2, "answers": {"3": {"4": {"3": answer}}}}))
    with pytest.raises(trike_openings.CheckpointError, match="no such points"):
        trike_openings.Checkpoint(ckpt, 5)
    # version 3: the mover's moves after an answer, checked the same way
    move = {**answer, "placer_wins": True, "margin": 1}
    ckpt.write_text(json.dumps({**base, "version": 3,
                                "moves": {"3": {"4": {"5": {"6": move}}}}}))
    assert trike_openings.Checkpoint(ckpt, 5).moves == {3: {4: {5: {6: move}}}}
    for bad, message in (({**move, "margin": -1}, "answer 5, move 6"),
                         (move, "no such points")):
        where = "6" if bad is not move else "5"
        ckpt.write_text(json.dumps({**base, "version": 3,
                                    "moves": {"3": {"4": {"5": {where: bad}}}}}))
        with pytest.raises(trike_openings.CheckpointError, match=message):
            trike_openings.Checkpoint(ckpt, 5)
    # version 4: lines below a split move, and the split marks with the work they lost
    lost = {"nodes": 7, "seconds": 1.5}
    ckpt.write_text(json.dumps({**base, "version": 4, "split": {"3-4-5-6": lost},
                                "lines": {"3-4-5-6-7": answer}}))
    read = trike_openings.Checkpoint(ckpt, 5)
    assert read.split == {(3, 4, 5, 6): lost} and read.lines == {(3, 4, 5, 6, 7): answer}
    for split, lines, message in (
            ({"3-4-5-6": lost}, {"3-4-5-6-6": answer}, "line 3-4-5-6-6: no such points"),
            ({"3-4-5-6": lost}, {"3-4-5-6-7": {**answer, "margin": 3}}, "line 3-4-5-6-7"),
            ({"3-4-5": lost}, {}, "split line 3-4-5: no such points"),
            ({"3-4-5-6": {"nodes": -1}}, {}, "split line 3-4-5-6: negative"),
            ({"3-4-5-6-99": lost}, {}, "no such points")):
        ckpt.write_text(json.dumps({**base, "version": 4, "split": split, "lines": lines}))
        with pytest.raises(trike_openings.CheckpointError, match=message):
            trike_openings.Checkpoint(ckpt, 5)


def test_combine_answers_rules():
    rows = {1: {"placer_wins": False, "margin": -1, "remoteness": 10, "nodes": 5, "seconds": 0.1},
            2: {"placer_wins": True, "margin": 3, "remoteness": 8, "nodes": 7, "seconds": 0.2},
            3: {"placer_wins": True, "margin": 1, "remoteness": 6, "nodes": 1, "seconds": 0.1}}
    combine = trike_openings.combine_answers
    assert combine({1: rows[1]}, [1, 2, 3], True) is None
    assert combine({2: rows[2]}, [1, 2, 3], True)["placer_wins"] is True
    assert combine({2: rows[2]}, [1, 2, 3], False) is None
    row = combine(rows, [1, 2, 3], False)
    assert row["placer_wins"] and row["margin"] == 3 and row["remoteness"] == 7
    lost = combine({1: rows[1]}, [1], False)
    assert not lost["placer_wins"] and lost["margin"] == -1 and lost["remoteness"] == 11


def test_combine_moves_rules():
    """The mover chooses after an answer: the placer wins only if every move
    leaves it a win; the answer's row is in the answers' format."""
    rows = {1: {"placer_wins": True, "margin": 3, "remoteness": 10, "nodes": 5, "seconds": 0.1},
            2: {"placer_wins": True, "margin": 1, "remoteness": 8, "nodes": 7, "seconds": 0.2},
            3: {"placer_wins": False, "margin": -1, "remoteness": 6, "nodes": 1, "seconds": 0.1}}
    combine = trike_openings.combine_moves
    assert combine({1: rows[1]}, [1, 2, 3], True) is None
    lost = combine({3: rows[3]}, [1, 2, 3], True)
    assert lost["placer_wins"] is False and lost["margin"] is None
    assert combine({3: rows[3]}, [1, 2, 3], False) is None
    row = combine(rows, [1, 2, 3], False)
    assert not row["placer_wins"] and row["margin"] == -1 and row["remoteness"] == 7
    won = combine({1: rows[1], 2: rows[2]}, [1, 2], False)
    assert won["placer_wins"] and won["margin"] == 1 and won["remoteness"] == 11
    assert won["nodes"] == 12 and set(won) == {"placer_wins", "margin", "remoteness", "nodes",
                                               "seconds"}


@pytest.mark.parametrize("win_loss_only", [True, False])
def test_an_answer_stopped_midway_loses_at_most_the_move_in_progress(
        tmp_path, monkeypatch, win_loss_only):
    """A move-split run proves each answer through the mover's moves after it,
    one resumable unit each: stopped inside an answer, the rerun redoes only
    the move that was running and gives the same table as the other splits."""
    size, ckpt = 6, tmp_path / "c.json"
    whole = trike_openings.run(size, tt_mb=16, split="replies", win_loss_only=win_loss_only)
    real = trike_openings.solve_opening_search
    done, started = [], []

    def stop_after(k):
        return _stopping_search(real, done, started, k, lambda a: (a[1], a[6], a[8], a[10]))

    # stop at the first unit that is the second move tried after its answer
    monkeypatch.setattr(trike_openings, "solve_opening_search", stop_after(-1))
    trike_openings.run(size, tt_mb=16, split="moves", win_loss_only=win_loss_only)
    units = list(started)
    k = next(i for i in range(1, len(units)) if units[i][:3] == units[i - 1][:3])
    done.clear()
    started.clear()
    monkeypatch.setattr(trike_openings, "solve_opening_search", stop_after(k))
    with pytest.raises(trike_openings.Interrupted) as stop:
        trike_openings.run(size, tt_mb=16, split="moves", checkpoint_path=ckpt,
                           win_loss_only=win_loss_only)
    lost = started[-1]
    assert len(done) == k and lost[3] >= 0 and lost not in done and lost == units[k]
    saved = json.loads(ckpt.read_text())
    assert saved["version"] == trike_openings.CHECKPOINT_VERSION
    # the answer in progress has its proven moves on record, not yet its row
    p, r, a = (str(x) for x in lost[:3])
    assert saved["moves"][p][r][a] and a not in saved["answers"].get(p, {}).get(r, {})
    assert stop.value.study.extra["proven_moves"]
    assert '"units"' not in json.dumps(stop.value.study.extra)  # trees stay in the checkpoint
    first = list(done)
    done.clear()
    started.clear()
    monkeypatch.setattr(trike_openings, "solve_opening_search", stop_after(-1))
    resumed = trike_openings.run(size, tt_mb=16, split="moves", checkpoint_path=ckpt,
                                 win_loss_only=win_loss_only)
    assert not set(first) & set(started)  # nothing proven before is proven again
    assert started[0] == lost  # the one unit lost is the one that was running
    cols = ["point", "winner", "margin", "remoteness", "winning_replies"]
    pd.testing.assert_frame_equal(whole.table[cols], resumed.table[cols])
    saved = json.loads(ckpt.read_text())  # finished: moves and answers folded into replies
    assert not saved["moves"] and not saved["answers"]
    # ... and each reply's row keeps what every answer and move cost
    moves_seen = 0
    for rows in saved["replies"].values():
        for reply in rows.values():
            units = reply["units"]
            assert units and sum(u["nodes"] for u in units.values()) == reply["nodes"]
            for u in units.values():
                if "units" in u:
                    assert sum(m["nodes"] for m in u["units"].values()) == u["nodes"]
                    moves_seen += len(u["units"])
    assert moves_seen > 0


def _unit(args: tuple) -> tuple[int, ...]:
    """A move-split task's path from the opening: (point, reply, answer, move, *line)."""
    return (args[1], args[6], args[8], args[10], *(args[11] if len(args) > 11 else ()))


def _position_after(size: int, path: tuple[int, ...]):
    pos = trike.opening(size, path[0])
    for d in path[1:]:
        pos = pos.play(d)
    return pos


def _long_unit_search(real, started: list, done: list, stop_at):
    """``solve_opening_search`` that stops (Ctrl-C) at the first unit for which
    ``stop_at(path)`` holds, after writing its progress file as a unit that ran
    10**12 nodes would: a unit far longer than the split threshold."""
    def solve(*args):
        path = _unit(args)
        started.append(path)
        if stop_at(path):
            record = {"point": path[0], "reply": path[1], "answer": path[2], "move": path[3],
                      "nodes": 10**12, "seconds": 3600.0}
            if len(path) > 4:
                record["line"] = list(path)
            Path(args[4]).write_text(json.dumps(record))
            raise KeyboardInterrupt
        row = real(*args)
        done.append(path)
        return row
    return solve


@pytest.mark.parametrize("win_loss_only,order", [(True, "search"), (True, "agent"),
                                                  (False, "search")])
def test_a_unit_left_unfinished_after_many_nodes_is_split_on_the_next_run(
        tmp_path, monkeypatch, win_loss_only, order):
    """A move unit stopped after more than ``split_after_nodes`` is proven on
    the next run through its children (the placer's answers to it), each a
    unit of its own; a child stopped the same way is split again (the mover's
    moves): the lost work is the unit that was running, nothing proven is
    redone, the rows the split lines fold into are those of a direct search,
    and the table is the one the other splits give."""
    from trilab.analysis.trike import unit_order

    size, ckpt = 6, tmp_path / "c.json"
    whole = trike_openings.run(size, tt_mb=16, split="replies", win_loss_only=win_loss_only)
    real = trike_openings.solve_opening_search
    started, done = [], []
    folded = {}  # path -> the row a split line folded into
    save_move, save_line = trike_openings.Checkpoint.save_move, trike_openings.Checkpoint.save_line

    def spy_move(self, p, r, a, m, row):
        folded[(p, r, a, m)] = row
        return save_move(self, p, r, a, m, row)

    def spy_line(self, path, row):
        folded[path] = row
        return save_line(self, path, row)

    monkeypatch.setattr(trike_openings.Checkpoint, "save_move", spy_move)
    monkeypatch.setattr(trike_openings.Checkpoint, "save_line", spy_line)

    def first_child(pos):
        moves = trike_openings.search_order(pos)
        if order == "agent" and len(moves) > 1:
            moves = unit_order.agent_order(pos, moves)
        return moves[0] if moves else None

    def deep(path: tuple[int, ...], plies: int) -> bool:
        """Whether play goes on ``plies`` more moves along the first children the
        run tries (``order``)."""
        pos = _position_after(size, path)
        for _ in range(plies):
            m = first_child(pos)
            if m is None:
                return False
            pos = pos.play(m)
        return bool(pos.legal_moves())

    def run(stop_at):
        monkeypatch.setattr(trike_openings, "solve_opening_search",
                            _long_unit_search(real, started, done, stop_at))
        return trike_openings.run(size, tt_mb=16, split="moves", checkpoint_path=ckpt,
                                  win_loss_only=win_loss_only, split_after_nodes=10**9,
                                  unit_order=order, eager_split=False)

    # 1. a move whose first answer's first move still leaves play is stopped "long"
    with pytest.raises(trike_openings.Interrupted):
        run(lambda path: len(path) == 4 and deep(path, 2))
    move = started[-1]
    assert len(move) == 4 and move not in done
    proven_first = list(done)
    # 2. the next run splits it: its answers are the units; the first is stopped "long"
    started.clear()
    done.clear()
    with pytest.raises(trike_openings.Interrupted) as stop:
        run(lambda path: len(path) == 5)
    assert stop.value.study.extra["lines_split_now"] == [trike_openings.line_tag(move)]
    answer = started[-1]
    assert answer[:4] == move and move not in started and not set(proven_first) & set(started)
    saved = json.loads(ckpt.read_text())
    assert saved["split"] == {trike_openings.line_tag(move): {"nodes": 10**12,
                                                               "seconds": 3600.0}}
    proven_second = list(done)
    # 3. the last run splits the answer too and finishes
    started.clear()
    done.clear()
    resumed = run(lambda path: False)
    assert resumed.extra["lines_split_now"] == [trike_openings.line_tag(answer)]
    assert answer not in started and move not in started
    assert any(len(u) == 6 and u[:5] == answer for u in started)
    assert not (set(proven_first) | set(proven_second)) & set(started)
    cols = ["point", "winner", "margin", "remoteness", "winning_replies"]
    pd.testing.assert_frame_equal(whole.table[cols], resumed.table[cols])
    saved = json.loads(ckpt.read_text())  # finished: lines folded into the replies' rows
    assert not saved["lines"] and not saved["split"] and not saved["moves"]
    text = json.dumps(saved["replies"])
    assert '"lost": {"nodes": 1000000000000' in text
    # the split move and answer folded into the rows a search of each gives at once
    for path in (move, answer):
        direct = real(size, path[0], 16, win_loss_only, None, None, path[1], "alphabeta",
                      path[2], 1, path[3], path[4:])
        assert {k: folded[path][k] for k in ("placer_wins", "margin", "remoteness")} == {
            k: direct[k] for k in ("placer_wins", "margin", "remoteness")}


def test_the_split_defaults_by_size():
    assert [trike_openings.default_split(n) for n in (5, 7, 8, 9, 12)] == [
        "class", "class", "replies", "moves", "moves"]


def test_answer_order_is_the_searchs_and_mirrors_are_proven_once():
    # every legal answer, once; answers that end the game first
    for point, reply in ((0, 1), (4, 7), (12, 3)):
        pos = trike_openings.trike.opening(6, point).play(reply)
        order = trike_openings.answer_order(6, point, reply)
        assert sorted(order) == sorted(pos.legal_moves())
        ends = [pos.play(a).is_terminal() for a in order]
        assert ends == sorted(ends, reverse=True)
    # the corner opening with a reply on its axis is symmetric: its answers pair up
    pos = trike_openings.trike.opening(5, 0).play(4)
    reps = trike_openings.move_representatives(pos, trike_openings.answer_order(5, 0, 4))
    assert len(set(reps.values())) < len(reps)


def test_the_agent_ranks_a_winning_unit_first_and_reproducibly():
    """On won size-6 positions (checked by the solver, move by move) the agent's
    first unit wins, where the search order's first often does not; the ranking is
    a permutation of the moves and the same on a second call."""
    from trilab.analysis.trike import unit_order
    from trilab.solver.trike.alphabeta import AlphaBetaSolver

    solver = AlphaBetaSolver(6, tt_mb=16)
    rnd = np.random.default_rng(7)
    won = first_search = first_agent = 0
    while won < 12:
        pos = trike.opening(6, int(rnd.integers(trike.n_points(6))))
        for _ in range(int(rnd.integers(2, 6))):
            moves = pos.legal_moves()
            pos = pos.play(int(moves[rnd.integers(len(moves))])) if moves else pos
        moves = pos.legal_moves()
        if len(moves) < 2:
            continue
        wins = {m: not solver.is_win(pos.play(m)) for m in moves}
        if not any(wins.values()):
            continue
        won += 1
        search = trike_openings.search_order(pos)
        ranked = unit_order.agent_order(pos, search, "mcts-squeeze:5000")
        assert sorted(ranked) == sorted(moves)
        assert ranked == unit_order.agent_order(pos, search, "mcts-squeeze:5000")
        first_search += wins[search[0]]
        first_agent += wins[ranked[0]]
    assert first_agent == won and first_search < won
    with pytest.raises(ValueError, match="fixed number of simulations"):
        unit_order.agent_order(pos, moves, "mcts-squeeze:0.1s")


def test_the_unit_order_changes_the_work_not_the_values():
    """A move-split run gives the same table with either unit order; the agent's
    order proves the size-6 board with fewer nodes (2.5x at the time of writing)."""
    by_order = {order: trike_openings.run(6, tt_mb=16, split="moves", unit_order=order,
                                          win_loss_only=True)
                for order in ("search", "agent")}
    cols = ["point", "winner"]
    pd.testing.assert_frame_equal(by_order["search"].table[cols], by_order["agent"].table[cols])
    assert by_order["agent"].nodes < by_order["search"].nodes
    assert by_order["agent"].extra["unit_order"] == "agent"
    assert trike_openings.run(6, tt_mb=16, split="moves",
                              win_loss_only=True).extra["unit_order"] == "agent"
    assert trike_openings.run(5, tt_mb=4, split="replies").extra["unit_order"] == "search"
    with pytest.raises(ValueError, match="unknown unit order"):
        trike_openings.run(5, tt_mb=4, split="moves", unit_order="random")


def test_solve_refuses_a_unit_order_without_a_split(tmp_path):
    res = CliRunner().invoke(cli, ["solve", "trike", "--size", "4", "--unit-order", "agent",
                                   "--out", str(tmp_path / "t.csv")])
    assert res.exit_code == 2 and "--unit-order applies to --split" in res.stderr
    assert not (tmp_path / "t.csv").exists()
    res = CliRunner().invoke(cli, ["solve", "trike", "--size", "4", "--split", "moves",
                                   "--unit-order", "agent", "--out", str(tmp_path / "t.csv")])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "t.meta.json").read_text())["unit_order"] == "agent"



def test_solve_refuses_an_eager_split_without_the_move_split(tmp_path):
    res = CliRunner().invoke(cli, ["solve", "trike", "--size", "5", "--no-eager-split",
                                   "--out", str(tmp_path / "t.csv")])
    assert res.exit_code == 2 and "--eager-split applies to --split moves" in res.stderr
    assert not (tmp_path / "t.csv").exists()
    res = CliRunner().invoke(cli, ["solve", "trike", "--size", "5", "--split", "moves",
                                   "--win-loss-only", "--no-eager-split",
                                   "--out", str(tmp_path / "t.csv")])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "t.meta.json").read_text())["eager_split"] is False

def test_lost_work_of_split_units_is_summed_and_dropped_with_their_line(tmp_path):
    """The split marks at or below a line (units split after a long unfinished run)
    add up to the work ``lost`` recorded when the line is decided, and go with it."""
    ckpt = trike_openings.Checkpoint(tmp_path / "c.json", 6)
    ckpt.split = {(1, 2, 3, 4): {"nodes": 5, "seconds": 1.0},
                  (1, 2, 3, 4, 5): {"nodes": 7, "seconds": 0.5},
                  (1, 2, 3, 9): {"nodes": 11, "seconds": 2.0}}
    ckpt.lines = {(1, 2, 3, 4, 5, 6): {"placer_wins": True}, (1, 2, 8, 9, 10): {}}
    assert ckpt.lost_below((1, 2, 3, 4)) == {"nodes": 12, "seconds": 1.5}
    assert ckpt.lost_below((1, 2, 3)) == {"nodes": 23, "seconds": 3.5}
    assert ckpt.lost_below((1, 2, 8)) is None
    ckpt.drop_lines((1, 2, 3, 4))
    assert set(ckpt.split) == {(1, 2, 3, 9)} and set(ckpt.lines) == {(1, 2, 8, 9, 10)}
    ckpt.drop_moves(1, 2, 3)  # an answer decided: everything below it goes
    assert not ckpt.split and set(ckpt.lines) == {(1, 2, 8, 9, 10)}


def test_the_metadata_of_a_stopped_run_lists_proven_rows_without_their_unit_trees():
    """The checkpoint keeps each proven row's tree of units; the metadata file
    lists the row's verdict and cost and how many units it has, not the tree
    (a size-9 run's metadata would otherwise repeat the checkpoint)."""
    size = 6
    ckpt = trike_openings.Checkpoint(None, size)
    tree = {"3": {"nodes": 5, "seconds": 0.1, "units": {"7": {"nodes": 5, "seconds": 0.1}}},
            "4": {"nodes": 2, "seconds": 0.0}}
    row = {"placer_wins": True, "margin": None, "remoteness": None, "nodes": 7,
           "seconds": 0.1, "units": tree, "lost": {"nodes": 1, "seconds": 0.0}}
    ckpt.replies[1] = {2: dict(row)}
    ckpt.answers[1] = {5: {3: dict(row)}}
    ckpt.moves[1] = {5: {4: {3: dict(row), 7: {**row, "units": {}}}}}
    ckpt.lines[(1, 5, 4, 8, 9)] = dict(row)
    ckpt.split[(1, 5, 4, 8)] = {"nodes": 3, "seconds": 0.2}
    ckpt.moves[0] = {5: {4: {3: dict(row)}}}  # a class already decided: not listed
    extra = trike_openings.proven_on_record(size, ckpt, results={0: {"placer_wins": True}})

    def label(point: int) -> str:
        return trike_openings.point_label(size, point)

    assert '"units"' not in json.dumps(extra) and '"lost"' not in json.dumps(extra)
    brief = {k: v for k, v in row.items() if k not in ("units", "lost")}
    assert extra["proven_replies"] == {label(1): {label(2): {**brief, "units_in_checkpoint": 2}}}
    assert extra["proven_answers"][label(1)][label(5)][label(3)]["units_in_checkpoint"] == 2
    moves = extra["proven_moves"]
    assert list(moves) == [label(1)]
    assert moves[label(1)][label(5)][label(4)][label(7)] == brief  # no units: no count
    assert extra["proven_lines"]["-".join(map(label, (1, 5, 4, 8, 9)))]["nodes"] == 7
    assert extra["split_lines"] == {"-".join(map(label, (1, 5, 4, 8))): {"nodes": 3,
                                                                           "seconds": 0.2}}
    assert ckpt.replies[1][2]["units"] == tree  # the checkpoint's own rows are untouched
