"""Hostile input: no result lost, no traceback (issue 19, one test per fault found).

Every case runs the real command line (click's runner, or a subprocess where a
signal, a hang or the interpreter's exit matters) and checks the three promises
of bad input: one line on stderr, exit code 2, nothing half-written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from trilab.cli import cli

ROOT = Path(__file__).resolve().parent.parent
MAX_SEED = 2**64 - 1


def run(*args, input=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input)


def assert_refused(res, *fragments):
    """Exit 2, one line on stderr (besides a first-run compile notice), no traceback."""
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    lines = [line for line in res.stderr.splitlines() if not line.startswith("trilab: compil")]
    assert len(lines) == 1 and "Traceback" not in res.output, res.stderr
    for f in fragments:
        assert f in lines[0], res.stderr


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# ------------------------------------------------------------------ 1. a complete table survives


def test_time_limited_rerun_keeps_the_complete_table(tmp_path):
    out = tmp_path / "size-5.csv"
    assert run("solve", "trike", "--size", 5, "--out", out).exit_code == 0
    before = snapshot(tmp_path)
    res = run("solve", "trike", "--size", 5, "--out", out, "--restart", "--time-limit", 1e-9)
    assert res.exit_code == 0, res.output
    after = snapshot(tmp_path)
    for name in ("size-5.csv", "size-5.meta.json", "size-5.png"):
        assert after[name] == before[name], name  # byte for byte
    partial = tmp_path / "size-5.partial.csv"
    assert partial.exists() and "partial" in res.stdout + res.stderr
    assert partial.read_text().count("\n") < out.read_text().count("\n")


def test_interrupted_rerun_keeps_the_complete_table(tmp_path):
    """SIGINT during a rerun over the complete size-7 table: it stays byte for byte."""
    import shutil
    import signal
    import time

    for suffix in (".csv", ".meta.json", ".png"):
        shutil.copy(ROOT / "results" / "trike" / f"size-7{suffix}", tmp_path)
    out = tmp_path / "size-7.csv"
    before = snapshot(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "trilab.cli", "solve", "trike", "--size", "7",
                             "--out", str(out), "--tt-mb", "64"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in err, err
    after = snapshot(tmp_path)
    for name in ("size-7.csv", "size-7.meta.json", "size-7.png"):
        assert after[name] == before[name], name
    assert "is kept" in err and (tmp_path / "size-7.partial.csv").exists()


# ------------------------------------------------------------------ 2. special files at --out


# every command that writes a result, with the option naming where
WRITERS = [
    (("solve", "trike", "--size", 3), "--out"),
    (("confirm", "trike", "--size", 3), "--out"),
    (("margins", "trike", "--size", 3), "--out"),
    (("simulate", "trio-cards", "--games", 10), "--out"),
    (("board", "trio-board"), "--out"),
    (("report",), "--out"),
    (("balance", "trike", "--sizes", "2-4", "--exact"), "--out-dir"),
    (("strength", "trike", "--sizes", 4, "--agents", "mcts:10", "--positions", 2), "--out-dir"),
]
WRITER_IDS = [w[0][0] for w in WRITERS]


@pytest.mark.parametrize("args, option", WRITERS, ids=WRITER_IDS)
def test_fifo_at_out_is_refused(tmp_path, args, option):
    fifo = tmp_path / "table.csv"
    os.mkfifo(fifo)
    res = run(*args, option, fifo)
    assert_refused(res, "not a")
    assert fifo.is_fifo() and sorted(p.name for p in tmp_path.iterdir()) == ["table.csv"]


def test_symlink_at_out_is_followed(tmp_path):
    target = tmp_path / "real" / "size-3.csv"
    target.parent.mkdir()
    target.write_text("old\n")
    link = tmp_path / "size-3.csv"
    link.symlink_to(target)
    assert run("solve", "trike", "--size", 3, "--out", link).exit_code == 0
    assert link.is_symlink() and target.read_text().startswith("point,row,")
    assert (target.parent / "size-3.meta.json").exists()


# ------------------------------------------------------------------ 3. tiny boards in strength


@pytest.mark.parametrize("size", [2, 3])
def test_strength_on_tiny_boards_returns(tmp_path, size):
    proc = subprocess.run([sys.executable, "-m", "trilab.cli", "strength", "trike", "--sizes",
                           str(size), "--agents", "mcts:10", "--positions", "4", "--out-dir",
                           str(tmp_path)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 0, proc.stderr  # a tiny board is measured, not refused
    assert (tmp_path / f"trike-{size}-moves.csv").exists()


# ------------------------------------------------------------------ 4. seeds outside 0..2^64-1

SEED_COMMANDS = [
    ("move", "trike", "--size", 3, "--agent", "mcts:10"),
    ("simulate", "trio-cards", "--games", 4),
    ("simulate", "tabula-trivium", "--games", 2),
    ("simulate", "trio-board", "--games", 2),
    ("balance", "trike", "--sizes", 3, "--agent", "mcts:10", "--games", 2),
    ("strength", "trike", "--sizes", 4, "--agents", "mcts:10", "--positions", 2),
    ("play", "trike", "--size", 3, "--agent", "mcts:10"),
]


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1])
@pytest.mark.parametrize("args", SEED_COMMANDS, ids=lambda a: f"{a[0]}-{a[1]}")
def test_seed_out_of_range_is_refused(tmp_path, args, seed):
    extra = ["--out-dir", tmp_path] if args[0] in ("balance", "strength") else (
        ["--out", tmp_path / "t.csv"] if args[0] == "simulate" else [])
    res = run(*args, "--seed", seed, *extra, input="")
    assert_refused(res, "--seed")
    assert not any(tmp_path.iterdir())


def test_largest_seed_is_accepted(tmp_path):
    res = run("simulate", "trio-cards", "--games", 4, "--seed", MAX_SEED,
              "--out", tmp_path / "t.csv")
    assert res.exit_code == 0, res.output


# ------------------------------------------------------------------ 5. unwritable outputs


@pytest.mark.parametrize("args, option", WRITERS, ids=WRITER_IDS)
def test_out_under_a_file_is_refused_before_work(tmp_path, args, option):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = run(*args, option, blocker / "inside" / "t.csv")
    assert_refused(res, "cannot write", "is not a folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_failure_while_writing_leaves_nothing_half_written(tmp_path, monkeypatch):
    """A write that fails midway (a full disk on the figure, the third of four
    files) leaves no file of the set and no temporary file."""
    from trilab.analysis import artifacts

    def full_disk(self, path, fig):
        def fail(tmp):
            raise OSError(28, "No space left on device")

        return self.stage(path, fail)

    monkeypatch.setattr(artifacts.OutputSet, "figure", full_disk)
    res = run("simulate", "trio-cards", "--games", 10, "--out", tmp_path / "t.csv")
    assert_refused(res, "No space left")
    assert not any(tmp_path.iterdir()), list(tmp_path.iterdir())


# ------------------------------------------------------------------ 6. huge ranges


@pytest.mark.parametrize("args", [
    ("balance", "trike", "--sizes", "2-1000000000", "--exact"),
    ("strength", "trike", "--sizes", "2-1000000000", "--agents", "mcts:10"),
    ("simulate", "trio-cards", "--games", "1000000000000"),
])
def test_huge_ranges_are_refused_at_once(tmp_path, args):
    extra = ["--out", tmp_path / "t.csv"] if args[0] == "simulate" else ["--out-dir", tmp_path]
    res = run(*args, *extra)
    assert_refused(res)
    assert not any(tmp_path.iterdir())


# ------------------------------------------------------------------ 7. damaged databases


def test_damaged_db_is_named(tmp_path):
    text = tmp_path / "text.npz"
    text.write_text("not a database")
    res = run("analyze", "trike", "--size", 4, "--position", "B/../.../....", "--db", text)
    assert_refused(res, "text.npz")
    good = tmp_path / "size-4.npz"
    assert run("solve", "trike", "--size", 4, "--method", "retrograde", "--out",
               tmp_path / "t.csv", "--db", good).exit_code == 0
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    res = run("analyze", "trike", "--size", 4, "--position", "B/../.../....", "--db", cut)
    assert_refused(res, "cut.npz")
    res = run("analyze", "trike", "--size", 5, "--position", "B/../.../..../.....", "--db", good)
    assert_refused(res, "size 4")


# ------------------------------------------------------------------ 8. absurd agent budgets


@pytest.mark.parametrize("agent", ["mcts:99999999999999999999", "mcts:9223372036854775808",
                                   "mcts:infs", "mcts:nans"])
def test_absurd_budgets_are_refused(agent):
    res = run("move", "trike", "--size", 3, "--agent", agent)
    assert_refused(res, "--agent")
    assert "at least" not in res.stderr or agent != "mcts:infs"


# ------------------------------------------------------------------ 9. checkpoint values


def test_checkpoint_values_are_validated(tmp_path):
    from trilab.analysis.trike.openings import Checkpoint

    out = tmp_path / "size-5.csv"
    ckpt = out.with_suffix(".checkpoint.json")
    Checkpoint(ckpt, 5).save(0, {"winner": "mover", "margin": -1, "remoteness": 14,
                                 "winning_replies": 2, "nodes": 10, "seconds": 0.1})
    assert Checkpoint(ckpt, 5).classes[0]["winner"] == "mover"  # a sound one loads
    data = json.loads(ckpt.read_text())
    data["classes"]["0"].update(winner="nobody", margin=99)
    ckpt.write_text(json.dumps(data))
    res = run("solve", "trike", "--size", 5, "--out", out)
    assert_refused(res, "impossible value", "winner 'nobody'")
    assert not out.exists()
    assert ckpt.with_name(ckpt.name + ".damaged").exists()


# ------------------------------------------------------------------ 10. smaller ones


def test_eof_at_the_play_prompt_quits_cleanly():
    res = run("play", "trike", "--size", 3, "--agent", "mcts:10", input="")
    assert res.exit_code == 0, (res.exit_code, res.output)
    assert "interrupted" not in res.output


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_time_limit_must_be_a_number(tmp_path, value):
    res = run("solve", "trike", "--size", 3, "--time-limit", value, "--out", tmp_path / "t.csv")
    assert_refused(res, "--time-limit")


@pytest.mark.parametrize("sizes", ["2,,3", ",3", "3-", "4-3"])
def test_malformed_size_lists_are_refused(tmp_path, sizes):
    res = run("balance", "trike", "--sizes", sizes, "--exact", "--out-dir", tmp_path)
    assert_refused(res, "--sizes")


def test_jobs_are_capped_by_the_work(tmp_path):
    out = tmp_path / "size-3.csv"
    res = run("solve", "trike", "--size", 3, "--jobs", 1000, "--out", out)
    assert res.exit_code == 0, res.output
    meta = json.loads(out.with_suffix(".meta.json").read_text())
    assert "1000" not in json.dumps(meta.get("executor", "")), meta.get("executor")


def test_stop_message_names_only_files_that_exist(tmp_path):
    out = tmp_path / "size-5.csv"
    res = run("solve", "trike", "--size", 5, "--out", out, "--time-limit", 1e-9)
    assert res.exit_code == 0, res.output
    named = [w.strip(".,;()") for w in (res.stdout + res.stderr).split()]
    named = [w for w in named if w.endswith(".json") or w.endswith(".csv")]
    assert named, res.output  # the message names the checkpoint and the partial table
    for word in named:
        assert Path(word).exists(), word


def test_a_table_larger_than_memory_is_refused(tmp_path):
    res = run("solve", "trike", "--size", 3, "--tt-mb", 1_000_000, "--out", tmp_path / "t.csv")
    assert_refused(res, "--tt-mb", "memory")
    assert not any(tmp_path.iterdir())
