"""A real sandbox child on the CPU, driven command by command as the verifier drives it (tests only).

The child (sandbox/child.py) runs unchanged except for what has no CPU counterpart: the timed loop's device parts
(events, synchronisation, the L2 flush, the device lead) and torch.compile's backend, set to ``"eager"`` (the
compiled vLLM baseline's guards and graphs are what such tests show, not Inductor's code). Used by the red-team
tests that need the real command loop (tests/test_rt33_baseline_state.py, tests/test_rt34_gc_frames.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from kernelgenbench.platforms import PROFILES
from kernelgenbench.sandbox.runner import child_env

#: the child's entry point with the device parts faked (see the module's docstring)
CHILD_DRIVER = r"""
import sys, time
from kernelgenbench.sandbox import child, timed_loop
from kernelgenbench.suite.vllm import common


class Ev:
    def record(self):
        self.t = time.perf_counter()

    def elapsed_time(self, other):
        return (other.t - self.t) * 1e3


timed_loop._new_event = Ev
timed_loop._synchronize = lambda: None
timed_loop.flush_l2 = lambda device, state: None
timed_loop._device_lead = lambda ms: None
_compiled = common._compiled
common._compiled = lambda native, call, backend, **kw: _compiled(native, call, "eager", **kw)
child.main(sys.argv[1:])
"""


class DrivenChild:
    """``with DrivenChild(op, submission, tmp) as ch: ch.ask({...})``: a sandbox child of ``op`` (interpreter
    platform, the job environment of ``tmp``) that imported ``submission``; ``ready`` is its first answer,
    :meth:`ask` sends one command (a JSON object) and returns the child's answer. ``prelude``: Python run before
    the driver (instrumentation). The child's stdout/stderr go to ``tmp``/child.out and child.log; leaving the
    block sends ``exit`` and waits for the child."""

    def __init__(self, op: str, submission: Path, tmp: Path, prelude: str = "") -> None:
        self.op, self.submission, self.tmp, self.prelude = op, submission, tmp, prelude
        self.ready: dict[str, Any] = {}

    def __enter__(self) -> "DrivenChild":
        r, w = os.pipe()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", self.prelude + CHILD_DRIVER, "--op", self.op, "--submission", str(self.submission),
             "--platform", "interpreter", "--resp-fd", str(w)],
            stdin=subprocess.PIPE, stdout=open(self.tmp / "child.out", "w"), stderr=open(self.tmp / "child.log", "w"),
            pass_fds=(w,), env=child_env(PROFILES["interpreter"], None, self.tmp), cwd=self.tmp, text=True)
        os.close(w)
        self.answers = os.fdopen(r)
        self.ready = json.loads(self.answers.readline())
        return self

    def ask(self, cmd: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.answers.readline())

    def __exit__(self, *exc: Any) -> None:
        assert self.proc.stdin is not None
        try:
            if self.proc.poll() is None:
                self.proc.stdin.write(json.dumps({"cmd": "exit"}) + "\n")
                self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        finally:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
            self.answers.close()
