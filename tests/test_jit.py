"""solver.jit.kernel: compiled without reference counting, refuses allocations."""

from __future__ import annotations

import numpy as np
import pytest
from trilab.solver.jit import kernel


@kernel
def _fill(out: np.ndarray, value: int) -> int:
    for i in range(out.shape[0]):
        out[i] = value + i
    return out.shape[0]


@kernel
def _allocates(n: int) -> float:
    a = np.empty(n)
    a[:] = 1.0
    return a.sum()


def test_a_kernel_works_on_the_buffers_it_is_given():
    out = np.zeros(5, dtype=np.int64)
    assert _fill(out, 10) == 5
    assert out.tolist() == [10, 11, 12, 13, 14]


def test_a_kernel_that_allocates_does_not_compile():
    with pytest.raises(Exception, match="(?i)empty|nrt"):
        _allocates(3)
