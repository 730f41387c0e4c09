"""What every study shares: its input error, the results folder, the executor
from ``--jobs``/``--dask`` and the guard on resuming a study's rows.

Light to import (no pandas, Numba or matplotlib): the command line reads
:class:`StudyError` from here, and a command that fails validation should
not pay for libraries it never uses.
"""

from __future__ import annotations

import json
from pathlib import Path

from trilab.analysis import executors, outputs

RESULTS = Path("results")
"""Default results folder (relative to the working directory)."""


class StudyError(ValueError):
    """Bad input to a study; ``option`` names the CLI option at fault (or None)."""

    def __init__(self, message: str, option: str | None = None):
        super().__init__(message)
        self.option = option


def make_executor(jobs: int = 1, dask: str | None = None, work: int | None = None):
    """:func:`trilab.analysis.executors.make_executor`, its errors as a
    :class:`StudyError` naming ``--dask`` or ``--jobs``.  ``work`` (the number
    of tasks, when known) caps the local processes: a worker with nothing to do
    only costs its start-up.  The caller closes it."""
    if work is not None:
        jobs = max(1, min(jobs, work))
    try:
        return executors.make_executor(jobs, dask)
    except executors.ExecutorError as e:
        raise StudyError(str(e), "--dask" if dask else "--jobs") from None


def output_path(path: str | Path, option: str = "--out", folder: bool = False) -> Path:
    """The real path a result goes to (symlinks followed), checked before any
    work by :func:`trilab.analysis.outputs.check_output_path`; a device,
    FIFO or folder in the way, or an unwritable place, is a :class:`StudyError`."""
    try:
        return outputs.check_output_path(path, folder=folder)
    except outputs.OutputError as e:
        raise StudyError(str(e), option) from None


def check_resume(path: Path, params: dict) -> None:
    """Rows of an earlier run may only be resumed with the same parameters."""
    if path.exists():
        old = json.loads(path.read_text())
        if old != params:
            raise StudyError(f"{path.with_suffix('.csv')} was made with {old}; "
                             f"delete it or use another --out-dir", "--seed")
    else:
        from trilab.analysis import artifacts  # imports pandas: not at this module's import

        artifacts.write_json(path, params)
