"""A per-device gate: several job slots may share one GPU, but a timed case has the GPU alone.

Correctness, ghost replay, the kernel list and sandbox start-up/teardown of the jobs on one device
hold the gate *shared*, so they overlap one another (their GPU work is judged, not timed); the timing
of a job holds it *exclusively*, so while a case is timed no other job's process runs GPU work on that
device (the other slots wait, or do host-only work such as the static scan). Waiting writers have
priority, so timing is never starved by a stream of correctness phases.

Used by :mod:`kernelgenbench.run.scheduler` (one gate per device) and
:class:`kernelgenbench.run.job.Verifier`.
"""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Iterator


class DeviceGate:
    """A writer-preferring readers-writer lock for the threads of one process (one per device).

    Attributes:
        waited_s: seconds threads spent waiting for the gate (both modes), for the run's accounting.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0
        self.waited_s = 0.0

    @contextmanager
    def shared(self) -> Iterator[None]:
        """Hold the gate with other shared holders (untimed GPU work). Not re-entrant."""
        t0 = time.perf_counter()
        with self._cond:
            while self._writer or self._writers_waiting:
                self._cond.wait()
            self._readers += 1
            self.waited_s += time.perf_counter() - t0
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the gate alone (timing). Not re-entrant; a shared holder must release first."""
        t0 = time.perf_counter()
        with self._cond:
            self._writers_waiting += 1
            try:
                while self._writer or self._readers:
                    self._cond.wait()
            finally:
                self._writers_waiting -= 1
            self._writer = True
            self.waited_s += time.perf_counter() - t0
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()

