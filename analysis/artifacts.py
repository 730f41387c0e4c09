"""Writing result files safely, and the metadata recorded next to every table.

The output layer of every command:

* :func:`trilab.analysis.outputs.check_output_path` runs *before any work*: it follows a symlink to
  its target, refuses an existing path that is not a regular file (a device,
  a FIFO, a folder) and a place that cannot be written (a parent that is a
  file, a read-only folder), each with :class:`OutputError`, one line.
* Every file is written to a temporary file in the destination folder and then
  renamed over the target (:func:`atomic_write`), so an interrupted run never
  leaves a partial file.
* The files of one result (a table, its metadata, its figure) are written
  together by :class:`OutputSet`: all are staged as temporary files, and only
  when every one was written are they renamed into place; a failure (a full
  disk) removes the staged files and leaves the old set as it was.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from importlib import metadata as _md
from pathlib import Path

import pandas as pd
from trilab.analysis.outputs import OutputError, check_output_path

PACKAGES = (
    "trilab", "numba", "numpy", "pandas", "matplotlib", "click", "scipy", "dask", "distributed",
)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class OutputSet:
    """The files of one result, written all or none.

    ``stage(path, write)`` writes ``write(tmp)`` to a temporary file beside
    ``path`` at once (so a failure surfaces before anything is replaced);
    :meth:`commit` renames every staged file onto its target (with the
    permissions of an ordinary new file: the temp file's 0600 would make shared
    results unreadable to others); leaving the ``with`` block by an exception
    removes the staged files instead.  The targets are checked by
    :func:`~trilab.analysis.outputs.check_output_path` first.
    """

    def __init__(self) -> None:
        self._staged: list[tuple[str, Path]] = []

    def __enter__(self) -> OutputSet:
        return self

    def __exit__(self, kind, value, tb) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()

    def stage(self, path: str | os.PathLike, write: Callable[[str], None]) -> Path:
        real = check_output_path(path)
        try:
            real.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".tmp")
        except OSError as e:
            raise OutputError(f"cannot write {path}: {e.strerror or e}") from None
        os.close(fd)
        self._staged.append((tmp, real))
        try:
            write(tmp)
            os.chmod(tmp, 0o666 & ~_umask())
        except OSError as e:
            raise OutputError(f"cannot write {path}: {e.strerror or e}") from None
        return Path(path)

    def text(self, path: str | os.PathLike, text: str) -> Path:
        def _w(tmp: str) -> None:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text)

        return self.stage(path, _w)

    def json(self, path: str | os.PathLike, obj: object) -> Path:
        return self.text(path, json.dumps(obj, indent=2, sort_keys=False, default=str) + "\n")

    def csv(self, path: str | os.PathLike, df: pd.DataFrame) -> Path:
        return self.stage(path, lambda tmp: df.to_csv(tmp, index=False))

    def figure(self, path: str | os.PathLike, fig) -> Path:
        """A matplotlib figure (closed afterwards, as :func:`save_figure` does)."""
        import matplotlib.pyplot as plt

        fmt = Path(path).suffix.lstrip(".") or "png"
        try:
            return self.stage(
                path, lambda tmp: fig.savefig(tmp, format=fmt, dpi=120, bbox_inches="tight"))
        finally:
            plt.close(fig)

    def commit(self) -> None:
        try:
            for tmp, real in self._staged:
                os.replace(tmp, real)
        except OSError as e:
            self.discard()
            raise OutputError(f"cannot write {real}: {e.strerror or e}") from None
        self._staged = []

    def discard(self) -> None:
        for tmp, _ in self._staged:
            Path(tmp).unlink(missing_ok=True)
        self._staged = []


def atomic_write(path: str | os.PathLike, write: Callable[[str], None]) -> Path:
    """Call ``write(tmp_path)`` and then rename the temp file onto ``path``: a result
    of one file (an :class:`OutputSet` of one), for records saved as a run goes."""
    with OutputSet() as out:
        return out.stage(path, write)


def write_text(path: str | os.PathLike, text: str) -> Path:
    with OutputSet() as out:
        return out.text(path, text)


def write_json(path: str | os.PathLike, obj: object) -> Path:
    with OutputSet() as out:
        return out.json(path, obj)


def write_csv(path: str | os.PathLike, df: pd.DataFrame) -> Path:
    with OutputSet() as out:
        return out.csv(path, df)


def append_csv(path: str | os.PathLike, rows: list[dict]) -> Path:
    """Append rows to a CSV table (rewritten atomically); create it if missing.
    The ``.meta.json`` beside it records the command, versions and machine of
    the run that appended last."""
    path = Path(path)
    new = pd.DataFrame(rows)
    table = pd.concat([pd.read_csv(path), new], ignore_index=True) if path.exists() else new
    write_json(path.with_suffix(".meta.json"),
               base_metadata(rows=len(table), rows_appended=len(new)))
    return write_csv(path, table)


def import_in_background(*modules: str) -> threading.Thread:
    """Start importing ``modules`` on a daemon thread and return it.

    A command that will draw a figure after a long Numba kernel (which releases
    the GIL) calls this first, so that matplotlib's import (a third of a second)
    overlaps the computation instead of following it.  The later ordinary
    ``import`` waits for the thread's import to finish (Python's per-module
    import lock); a failure here is ignored and surfaces there instead.
    """

    def load() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - re-raised by the real import
                return

    thread = threading.Thread(target=load, name="trilab-import", daemon=True)
    thread.start()
    return thread


def save_figure(path: str | os.PathLike, fig) -> Path:
    """Write a matplotlib figure atomically, then close it (pyplot keeps every
    open figure alive until it is closed)."""
    with OutputSet() as out:
        return out.figure(path, fig)


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = _md.version(name)
        except _md.PackageNotFoundError:
            pass
    return out


def git_commit() -> str | None:
    """The commit of the trilab checkout, if it is one."""
    here = Path(__file__).resolve().parent.parent
    try:
        out = subprocess.run(["git", "-C", str(here), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def machine() -> dict[str, object]:
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or None,
        "cpus": os.cpu_count(),
    }


def command_line() -> str:
    prog = Path(sys.argv[0]).name if sys.argv else "trilab"
    return " ".join([prog, *sys.argv[1:]])


def base_metadata(**extra: object) -> dict[str, object]:
    """Command, versions, commit, machine and time; ``extra`` is merged in."""
    meta: dict[str, object] = {
        "command": command_line(),
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "commit": git_commit(),
        "versions": versions(),
        "machine": machine(),
    }
    meta.update(extra)
    return meta
