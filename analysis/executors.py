"""Where long jobs run: in this process, in local worker processes, or on Dask.

Every long job in trilab is a stream of independent tasks (a module-level
function and its argument tuples).  An executor runs them, keeping a few in
flight and pulling the next ones lazily, and yields ``(args, result)`` as
tasks finish, in any order; callers key results by the arguments, so the
output never depends on the executor or on the worker count.

* ``SerialExecutor``: in this process, in order (``--jobs 1``).
* ``ProcessExecutor``: a pool of ``J`` spawned worker processes (``--jobs J``).
  Workers die with their parent, even when it is killed with SIGKILL (Linux's
  parent-death signal, :func:`die_with_parent`), so an interrupted run never
  leaves solvers holding gigabytes of tables.
* ``DaskExecutor``: an existing ``dask.distributed`` scheduler
  (``--dask tcp://host:8786``) or a ``LocalCluster`` started in process
  (``--dask local`` or ``--dask local:WORKERS``), one thread per worker.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import os
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

Task = tuple[Any, ...]


def interrupted_inside(error: BaseException) -> bool:
    """True when ``error`` wraps a KeyboardInterrupt: a signal that arrived while
    Numba ran Python code of its own (loading a cached kernel) surfaces as a
    ``SystemError`` whose cause is the interrupt."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


class ExecutorError(ValueError):
    """A bad executor specification (shown to the user as a usage error)."""


def _windowed(submit, wait_first, cancel, tasks: Iterable[Task], window: int,
              timeout: float | None) -> Iterator[tuple[Task, Any]]:
    """Keep at most ``window`` tasks in flight, pulling new ones from ``tasks``
    lazily (so a caller's generator can drop work that became unnecessary);
    yield ``(args, result)`` as tasks finish."""
    deadline = None if timeout is None else time.monotonic() + timeout
    source = iter(tasks)
    in_flight: dict[Any, Task] = {}
    exhausted = False
    try:
        while True:
            while not exhausted and len(in_flight) < window:
                args = next(source, None)
                if args is None:
                    exhausted = True
                else:
                    in_flight[submit(args)] = args
            if not in_flight:
                return
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError
            for fut, result in wait_first(list(in_flight), left):
                yield in_flight.pop(fut), result
    finally:
        for fut in in_flight:
            cancel(fut)


class SerialExecutor:
    """Runs tasks one after the other in this process."""

    name = "serial"
    workers = 1

    def run(self, fn: Callable, tasks: Iterable[Task],
            timeout: float | None = None) -> Iterator[tuple[Task, Any]]:
        """Run in order; ``timeout`` is left to the tasks (they run here)."""
        for args in tasks:
            yield args, fn(*args)

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return "in process"


PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def die_with_parent(parent_pid: int) -> None:
    """Worker initializer: ask the kernel to SIGKILL this process when its parent dies.

    A watcher thread would not do: the workers spend their time in Numba code
    that holds the GIL.  The signal is tied to the thread that started the
    worker, which is the pool's caller here (workers are spawned on submit).
    If the parent died before the request took effect, exit at once.  On
    systems without ``prctl`` this does nothing.
    """
    import ctypes
    import signal
    import sys

    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl
            return
    if os.getppid() != parent_pid:
        os._exit(1)


class ProcessExecutor:
    """A pool of spawned local worker processes that die with their parent."""

    name = "processes"

    def __init__(self, workers: int):
        self.workers = workers
        self._pool = cf.ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn"),
                                            initializer=die_with_parent,
                                            initargs=(os.getpid(),))

    def run(self, fn: Callable, tasks: Iterable[Task],
            timeout: float | None = None) -> Iterator[tuple[Task, Any]]:
        """Yield ``(args, result)`` as tasks finish; TimeoutError after ``timeout`` s."""

        def wait_first(futures, left):
            done, _ = cf.wait(futures, timeout=left, return_when=cf.FIRST_COMPLETED)
            if not done:
                raise TimeoutError
            return [(f, f.result()) for f in done]

        yield from _windowed(lambda args: self._pool.submit(fn, *args), wait_first,
                             lambda f: f.cancel(), tasks, 2 * self.workers, timeout)

    def close(self) -> None:
        """Kill the workers rather than wait for running tasks (Ctrl-C, errors).
        Safe to call more than once."""
        for proc in list((getattr(self._pool, "_processes", None) or {}).values()):
            proc.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def describe(self) -> str:
        return f"{self.workers} local processes"


class DaskExecutor:
    """A ``dask.distributed`` client: an existing scheduler or a LocalCluster."""

    name = "dask"

    def __init__(self, spec: str):
        try:
            from distributed import Client, LocalCluster
        except ImportError as e:  # pragma: no cover - dask is a dependency
            raise ExecutorError("dask.distributed is not installed") from e
        self.spec = spec
        self._cluster = None
        if spec == "local" or spec.startswith("local:"):
            workers = _parse_workers(spec.partition(":")[2] or str(os.cpu_count() or 1))
            self._cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                         processes=True, dashboard_address=None)
            self._client = Client(self._cluster)
        else:
            if "://" not in spec and ":" not in spec:
                raise ExecutorError(f"bad Dask address {spec!r}: use tcp://HOST:PORT or "
                                    "local[:WORKERS]")
            try:
                self._client = Client(spec, timeout="5s")
            except (OSError, TimeoutError, ValueError) as e:
                raise ExecutorError(f"cannot reach the Dask scheduler at {spec}: {e}") from None
        self.workers = max(1, len(self._client.scheduler_info().get("workers", {})))

    def run(self, fn: Callable, tasks: Iterable[Task],
            timeout: float | None = None) -> Iterator[tuple[Task, Any]]:
        """Yield ``(args, result)`` as tasks finish; TimeoutError after ``timeout`` s."""
        from distributed import wait

        def wait_first(futures, left):
            done, _ = wait(futures, timeout=left, return_when="FIRST_COMPLETED")
            return [(f, f.result()) for f in done]

        yield from _windowed(lambda args: self._client.submit(fn, *args, pure=False),
                             wait_first, lambda f: f.cancel(), tasks, 2 * self.workers,
                             timeout)

    def close(self) -> None:
        """Safe to call more than once."""
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def describe(self) -> str:
        where = "LocalCluster" if self._cluster is not None else self.spec
        return f"Dask ({where}, {self.workers} workers)"


def _parse_workers(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise ExecutorError(f"bad worker count {text!r} in --dask local:WORKERS") from None
    if n < 1:
        raise ExecutorError("--dask local:WORKERS needs at least 1 worker")
    return n


def make_executor(jobs: int = 1, dask: str | None = None):
    """The executor for ``--jobs`` / ``--dask`` (``dask`` wins when given)."""
    if dask:
        return DaskExecutor(dask)
    if jobs < 1:
        raise ExecutorError("--jobs must be at least 1")
    return SerialExecutor() if jobs == 1 else ProcessExecutor(jobs)
