"""Ctrl-C across a dataset run's worker threads (execution/dataset_run.py).

Python delivers Ctrl-C (and SIGTERM, which the CLI turns into KeyboardInterrupt) only to the main
thread. `WorkerInterrupts` knows which workers are inside `run_scenario` and on which host, and
raises KeyboardInterrupt once in each of them (PyThreadState_SetAsyncExc) when the run stops or a
host is given up; `run_scenario` handles it like its own Ctrl-C (an "interrupted" result.json, its
container removed). `wait_for` lets the main thread wait for that cleanup through further Ctrl-Cs.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

JOIN_POLL_S = 0.2
H = TypeVar("H")  # where a worker runs (execution/hosts.py Host)


class WorkerInterrupts(Generic[H]):
    """The workers inside run_scenario, by thread, with the host each runs on. `lock` is the run's
    own: a worker enters only while `refused()` (checked under it) says no."""

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock
        self._active: dict[int, H] = {}  # thread ident -> host

    @contextmanager
    def inside(self, host: H, refused: Callable[[], bool]) -> Iterator[None]:
        """Mark this worker interruptible for the block; KeyboardInterrupt at once when refused."""
        ident = threading.get_ident()
        with self._lock:
            if refused():
                raise KeyboardInterrupt
            self._active[ident] = host
        try:
            yield
        finally:
            with self._lock:
                self._active.pop(ident, None)

    def running_on(self, host: H) -> int:
        with self._lock:
            return sum(1 for where in self._active.values() if where is host)

    def interrupt(self, host: H | None = None) -> None:
        """Raise KeyboardInterrupt once in each worker inside run_scenario (on `host`, or all)
        (never twice: a second one could cut its cleanup short, as deferred_interrupts only
        guards the main thread)."""
        with self._lock:
            for ident, where in list(self._active.items()):
                if host is None or where is host:
                    ctypes.pythonapi.PyThreadState_SetAsyncExc(
                        ctypes.c_ulong(ident), ctypes.py_object(KeyboardInterrupt)
                    )
                    del self._active[ident]


def wait_for(done: threading.Event, warn: Callable[[str], None]) -> None:
    """Wait until every worker set `done`; a second Ctrl-C does not cut the cleanup short.

    Not with Thread.join: a KeyboardInterrupt landing inside join() can make CPython mark a
    still-running thread as stopped (bpo-45274), so the workers set our own event instead."""
    while True:
        try:
            while not done.wait(JOIN_POLL_S):
                pass
            return
        except KeyboardInterrupt:
            warn("still removing containers, please wait…")
