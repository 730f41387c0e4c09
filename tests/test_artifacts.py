"""Result files: written whole (temp file + rename) with ordinary permissions."""

from __future__ import annotations

import importlib
import os
import stat
import sys
from pathlib import Path

import pytest
from trilab.analysis import artifacts


def test_written_files_have_ordinary_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        path = artifacts.write_text(tmp_path / "a" / "t.txt", "hello\n")
    finally:
        os.umask(old)
    assert path.read_text() == "hello\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_a_failed_write_leaves_nothing(tmp_path):
    def boom(tmp: str) -> None:
        with open(tmp, "w") as fh:
            fh.write("partial")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        artifacts.atomic_write(tmp_path / "t.csv", boom)
    assert list(tmp_path.iterdir()) == []


def test_import_in_background_loads_modules_and_defers_failures(tmp_path, monkeypatch):
    (tmp_path / "trilab_bg_ok.py").write_text("VALUE = 42\n")
    (tmp_path / "trilab_bg_broken.py").write_text("raise ImportError('broken on purpose')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("trilab_bg_ok", "trilab_bg_broken"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    artifacts.import_in_background("trilab_bg_ok").join(timeout=30)
    assert sys.modules["trilab_bg_ok"].VALUE == 42
    thread = artifacts.import_in_background("trilab_bg_broken")
    thread.join(timeout=30)
    assert not thread.is_alive() and "trilab_bg_broken" not in sys.modules
    with pytest.raises(ImportError, match="broken on purpose"):  # the real import reports it
        importlib.import_module("trilab_bg_broken")


def test_every_committed_table_has_its_metadata():
    """Every table under results/ has a .meta.json beside it (seed, versions, command)."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    proc = subprocess.run(["git", "-C", str(root), "ls-files", "results"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr  # a git error must not pass as "no tables"
    tracked = proc.stdout.split()
    assert tracked
    tables = [root / f for f in tracked if f.endswith(".csv")]
    missing = [str(t.relative_to(root)) for t in tables
               if not t.with_suffix(".meta.json").exists()]
    assert not missing, missing
