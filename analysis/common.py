"""What every study shares: its input error, the results folder, the executor
from ``--jobs``/``--dask`` and the guard on resuming a study's rows.

Light to import (no pandas, Numba or matplotlib): the command line reads
:class:`StudyError` from here, and a command that fails validation should
not pay for libraries it never uses.
"""

from __future__ import annotations

import json
from pathlib import Path

from trilab.analysis import executors

RESULTS = Path("results")
"""Default results folder (relative to the working directory)."""


class StudyError(ValueError):
    """Bad input to a study; ``option`` names the CLI option at fault (or None)."""

    def __init__(self, message: str, option: str | None = None):
        super().__init__(message)
        self.option = option


def make_executor(jobs: int = 1, dask: str | None = None):
    """:func:`trilab.analysis.executors.make_executor`, its errors as a
    :class:`StudyError` naming ``--dask`` or ``--jobs``.  The caller closes it."""
    try:
        return executors.make_executor(jobs, dask)
    except executors.ExecutorError as e:
        raise StudyError(str(e), "--dask" if dask else "--jobs") from None


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
