"""Where long jobs run: in this process, in local worker processes, or on Dask.

Every long job in trilab is a list of independent tasks (a module-level
function and its argument tuples).  An executor runs them and yields
``(index, result)`` as tasks finish, in any order; callers key results by
index, so the output never depends on the executor or on the worker count.

* ``SerialExecutor``: in this process, in order (``--jobs 1``).
* ``ProcessExecutor``: a pool of ``J`` spawned worker processes (``--jobs J``).
* ``DaskExecutor``: an existing ``dask.distributed`` scheduler
  (``--dask tcp://host:8786``) or a ``LocalCluster`` started in process
  (``--dask local`` or ``--dask local:WORKERS``), one thread per worker.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import os
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

Task = tuple[Any, ...]


class ExecutorError(ValueError):
    """A bad executor specification (shown to the user as a usage error)."""


class SerialExecutor:
    name = "serial"
    workers = 1

    def run(self, fn: Callable, tasks: Sequence[Task],
            timeout: float | None = None) -> Iterator[tuple[int, Any]]:
        """Run in order; ``timeout`` is left to the tasks (they run here)."""
        for i, args in enumerate(tasks):
            yield i, fn(*args)

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return "in process"


class ProcessExecutor:
    name = "processes"

    def __init__(self, workers: int):
        self.workers = workers
        self._pool = cf.ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn"))

    def run(self, fn: Callable, tasks: Sequence[Task],
            timeout: float | None = None) -> Iterator[tuple[int, Any]]:
        """Yield results as tasks finish; TimeoutError after ``timeout`` seconds."""
        futures = {self._pool.submit(fn, *args): i for i, args in enumerate(tasks)}
        try:
            for fut in cf.as_completed(futures, timeout=timeout):
                yield futures[fut], fut.result()
        finally:
            for fut in futures:
                fut.cancel()

    def close(self) -> None:
        # Kill the workers rather than wait for running tasks (Ctrl-C, errors).
        for proc in list(getattr(self._pool, "_processes", {}).values()):
            proc.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def describe(self) -> str:
        return f"{self.workers} local processes"


class DaskExecutor:
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

    def run(self, fn: Callable, tasks: Sequence[Task],
            timeout: float | None = None) -> Iterator[tuple[int, Any]]:
        """Yield results as tasks finish; TimeoutError after ``timeout`` seconds."""
        from distributed import wait

        futures = [self._client.submit(fn, *args, pure=False) for args in tasks]
        index = {f.key: i for i, f in enumerate(futures)}
        deadline = None if timeout is None else time.monotonic() + timeout
        pending = set(futures)
        try:
            while pending:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise TimeoutError
                done, pending = wait(pending, timeout=left, return_when="FIRST_COMPLETED")
                for fut in sorted(done, key=lambda f: index[f.key]):
                    yield index[fut.key], fut.result()
        finally:
            for fut in futures:
                fut.cancel()

    def close(self) -> None:
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
