"""The monotonic clock inside compiled code.

Numba's nopython mode has no clock (``time.perf_counter`` is a Python call), so a
compiled loop that must stop at a deadline had to return to Python to read one:
the MCTS under a time budget called its kernel in batches, and each call paid
Numba's dispatch (about 65 microseconds for the MCTS kernel's 25 arguments, several
percent of a 10 ms move).  :func:`monotonic` reads POSIX ``clock_gettime`` with
the ``CLOCK_MONOTONIC`` of Python's :mod:`time` module (the clock of
:func:`time.monotonic`) from compiled code, about 30 ns a reading, so a kernel can
check its own deadline.  The call is declared by its C name and resolved when the
code is linked, so functions that use it are cached like every other.
"""

from __future__ import annotations

import time

import numba as nb
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_CLOCK_ID = time.CLOCK_MONOTONIC


@intrinsic
def _clock_gettime(typingctx):
    """``clock_gettime(CLOCK_MONOTONIC)`` as float seconds."""

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        timespec = ir.LiteralStructType([i64, i64])  # tv_sec, tv_nsec (64-bit POSIX)
        fnty = ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        ts = cgutils.alloca_once(builder, timespec)
        builder.call(fn, [ir.Constant(ir.IntType(32), _CLOCK_ID), ts])
        sec = builder.sitofp(builder.load(cgutils.gep_inbounds(builder, ts, 0, 0)),
                             ir.DoubleType())
        nsec = builder.sitofp(builder.load(cgutils.gep_inbounds(builder, ts, 0, 1)),
                              ir.DoubleType())
        return builder.fadd(sec, builder.fmul(nsec, ir.Constant(ir.DoubleType(), 1e-9)))

    return types.float64(), codegen


@nb.njit(cache=True, nogil=True, inline="always")
def monotonic() -> float:
    """Seconds of the monotonic clock (that of :func:`time.monotonic`), from compiled
    code or from Python."""
    return _clock_gettime()
