"""Shared pytest setup: every test starts with Ctrl-C delivered as KeyboardInterrupt.

``kgb eval`` and ``kgb agent`` ignore a second Ctrl-C once they handle the first (SIGINT set to SIG_IGN before
they print what was recorded). Invoked in-process (typer's CliRunner), that setting outlives the command: later
tests that send SIGINT to themselves would see nothing, and subprocesses they start would inherit the ignored
signal (an ignored disposition survives exec)."""
from __future__ import annotations

import signal

import pytest


@pytest.fixture(autouse=True)
def _default_sigint():
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, signal.default_int_handler)
