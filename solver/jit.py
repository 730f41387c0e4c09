"""Numba decorators shared by the engines.

:func:`kernel` compiles a hot function *without reference counting* of the
arrays it touches (Numba's ``_nrt=False`` target option).  Numba otherwise
wraps every array passed to, or bound inside, a compiled function in atomic
``NRT_incref``/``NRT_decref`` calls; in the Monte Carlo move loops these
atomics took about two thirds of the time (measured with ``perf`` on the
Trio card engine: 19k -> 25k random games/s from this flag alone; with the
per-node steps inlined, the Trike search went from 11 to 21 M nodes/s).

Contract of a kernel: it allocates nothing (no ``np.empty``/``np.zeros``,
no slicing into new arrays it keeps, no lists); all buffers come in as
arguments from an ordinary ``@nb.njit`` function that owns them.  Numba
refuses to compile a kernel that needs an allocation, so a violation fails
loudly at the first call (the tests compile every kernel).  Kernels are
cached like every other compiled function.
"""

from __future__ import annotations

import numba as nb

KERNEL_OPTIONS: dict = {"cache": True, "_nrt": False}
"""``njit`` options of a kernel.  ``_nrt`` is a target option of Numba's own
(``numba.core.options.DefaultOptions``); it is underscored, so a Numba upgrade
that renamed it would fail at the first compile, which the tests do."""


def kernel(fn=None, **options):
    """``@kernel`` or ``@kernel(inline="always")``: ``nb.njit`` without reference counting."""
    opts = {**KERNEL_OPTIONS, **options}
    if fn is None:
        return nb.njit(**opts)
    return nb.njit(**opts)(fn)
