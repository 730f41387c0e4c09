"""Where results may be written: the check every command makes before any work.

Light to import (``os`` and ``pathlib`` only), so the command line can catch
:class:`OutputError` without loading pandas.  The writing itself (temporary
files renamed into place, all the files of a result or none) is
:mod:`trilab.analysis.artifacts`.
"""

from __future__ import annotations

import os
from pathlib import Path


class OutputError(OSError):
    """An output path that cannot be written: one line for the user (an ``OSError``,
    so best-effort writers that ignore a failed write ignore this one too)."""


def _resolve(path: str | os.PathLike) -> Path:
    """``path`` with symlinks followed (a dangling link names its target)."""
    return Path(os.path.realpath(os.fspath(path)))


def check_output_path(path: str | os.PathLike, folder: bool = False) -> Path:
    """The path to write for ``path`` (its target if it is a symlink), after
    checking a result can be written there.

    Refuses (:class:`OutputError`) an existing path that is not a regular file
    (or, with ``folder``, not a folder), and a place where the file or folder
    cannot be created.  Nothing is created."""
    given = Path(path)
    real = _resolve(given)
    if real.exists():
        if folder and not real.is_dir():
            raise OutputError(f"cannot write into {given}: it is not a folder")
        if not folder and not real.is_file():
            raise OutputError(f"cannot write {given}: it exists and is not a regular file")
    ancestor = real if folder and real.exists() else real.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputError(f"cannot write {given}: {ancestor} is not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {given}: {ancestor} is not writable")
    # a symlink is followed (renaming onto it would replace the link); any other
    # path is kept as given, so messages show what the user typed
    return real if given.is_symlink() else given
