"""Shared pytest setup: every test starts with Ctrl-C delivered as KeyboardInterrupt.

``kgb eval`` and ``kgb agent`` ignore a second Ctrl-C once they handle the first (SIGINT set to SIG_IGN before
they print what was recorded). Invoked in-process (typer's CliRunner), that setting outlives the command: later
tests that send SIGINT to themselves would see nothing, and subprocesses they start would inherit the ignored
signal (an ignored disposition survives exec).

With ``KGB_FAILURE_LOG=path`` every failed test's report is appended to that file as it happens (the GPU gate sets
it: a call cut off by its time limit still leaves the tracebacks of the failures before the cut)."""
from __future__ import annotations

import os
import signal

import pytest


@pytest.fixture(autouse=True)
def _default_sigint():
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Append a failed test's report to ``$KGB_FAILURE_LOG`` at once (runs in the xdist controller too)."""
    path = os.environ.get("KGB_FAILURE_LOG")
    # under pytest-xdist both the worker and the controller see each report: the controller writes it
    if path and report.failed and not os.environ.get("PYTEST_XDIST_WORKER"):
        with open(path, "a") as f:
            f.write(f"==== {report.nodeid} ({report.when}) ====\n{report.longreprtext}\n\n")


class CpuEvent:
    """A stand-in for ``torch.cuda.Event`` on the CPU: the host clock at ``record``, ms between two."""

    def record(self) -> None:
        import time

        self.t = time.perf_counter()

    def elapsed_time(self, other: "CpuEvent") -> float:
        return (other.t - self.t) * 1e3


@pytest.fixture
def timed_loop_on_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """sandbox/timed_loop.py with its device parts faked on the CPU (events, synchronisation, the L2 flush, the
    device lead): the protocol's logic runs here, the real thing on GPUs."""
    from kernelgenbench.sandbox import timed_loop

    monkeypatch.setattr(timed_loop, "_new_event", CpuEvent)
    monkeypatch.setattr(timed_loop, "_synchronize", lambda: None)
    monkeypatch.setattr(timed_loop, "flush_l2", lambda device, state: None)
    monkeypatch.setattr(timed_loop, "_device_lead", lambda ms: None)
