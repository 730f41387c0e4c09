"""Result files: written whole (temp file + rename) with ordinary permissions."""

from __future__ import annotations

import os
import stat

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
