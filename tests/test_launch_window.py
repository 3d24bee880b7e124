"""The launch window (sandbox/window.py): the harness's own ATen work inside a candidate's call, which the dispatch
trace passes untraced, is guarded against the submission's code (red team 31, tests/bad/mode_relay).

* a PyTorch mode that is not the harness's own, on either mode stack when the window opens or closes, is a launch
  violation (its handler would run on the harness's ops there);
* an ATen op that reaches the trace inside the window from code outside the harness and the installed packages
  (a foreign handler, a finalizer, a hook Triton runs while benchmarking) is traced as the candidate's.
"""
from __future__ import annotations

from collections import Counter

import pytest
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from kernelgenbench.sandbox import window
from kernelgenbench.sandbox.dispatch import CandidateMode, InterceptMode, traced
from kernelgenbench.sandbox.state import STATE
from kernelgenbench.sandbox.window import harness_window


@pytest.fixture(autouse=True)
def _fresh_violations(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(STATE, "launch_violations", [])


class _Relay(TorchDispatchMode):
    """The fixture's channel: a mode whose handler runs a job on the first op it sees (here: inside the window)."""

    def __init__(self, job: list) -> None:
        super().__init__()
        self.job = job

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        while self.job:
            self.job.pop()()
        return func(*args, **(kwargs or {}))


def _launch(ws: torch.Tensor, out: torch.Tensor) -> None:
    """Stands for a Triton launch: the harness's copy of the arguments inside the window (note_launch, the
    interpreter's copies), then the kernel's copy of ws into out."""
    with harness_window("copies a launch's arguments (test)"):
        ws.clone()
    out.copy_(ws)


def _relay_wrapper(x: torch.Tensor) -> torch.Tensor:
    ws = torch.empty_like(x)
    out = torch.empty_like(x)
    with _Relay([lambda: ws.copy_(x * -1)]):
        _launch(ws, out)
    return out


def _run(fn, *args):
    STATE.begin_case(False)
    try:
        return traced(fn, "neg")(*args), dict(STATE.trace)
    finally:
        STATE.end_case()


def test_a_mode_pushed_inside_the_call_fails_when_the_harness_opens_the_window() -> None:
    x = torch.randn(8)
    with pytest.raises(RuntimeError, match="torch dispatch mode pushed"):
        _run(_relay_wrapper, x)
    assert len(STATE.launch_violations) == 1 and "_Relay" in STATE.launch_violations[0]


def test_ops_of_a_foreign_handler_inside_the_window_are_traced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Behind the mode check: the handler's ATen ops reach the trace from frames outside the harness and the
    installed packages (this file stands for the submission's), so they are traced, not passed."""
    monkeypatch.setattr(window, "mode_stacks_foreign", lambda: None)
    x = torch.randn(8)
    out, trace = _run(_relay_wrapper, x)
    assert torch.equal(out, -x)
    assert trace.get("aten::mul.Tensor") == 1, trace
    assert not STATE.launch_violations


def test_ops_of_code_made_by_exec_in_the_submissions_module_are_traced(monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame of exec'd code ("<string>": a dataclass or namedtuple method, the submission's own exec) counts as
    the module whose globals it runs in: here this file's, standing for the submission's (red team 32: every
    "<...>" frame was trusted as the harness's)."""
    monkeypatch.setattr(window, "mode_stacks_foreign", lambda: None)
    ns: dict = {}
    src = ("class Relay(TorchDispatchMode):\n"
           "    def __init__(self, ws, x):\n"
           "        super().__init__()\n"
           "        self.job = [(ws, x)]\n"
           "    def __torch_dispatch__(self, func, types, args=(), kwargs=None):\n"
           "        while self.job:\n"
           "            ws, x = self.job.pop()\n"
           "            ws.copy_(x * -1)\n"
           "        return func(*args, **(kwargs or {}))\n")
    exec(compile(src, "<string>", "exec"), globals(), ns)   # every frame between the op and the window: "<string>"
    x = torch.randn(8)

    def wrapper(x: torch.Tensor) -> torch.Tensor:
        ws, out = torch.empty_like(x), torch.empty_like(x)
        with ns["Relay"](ws, x):
            _launch(ws, out)
        return out

    out, trace = _run(wrapper, x)
    assert torch.equal(out, -x) and trace.get("aten::mul.Tensor") == 1, trace
    # the same code in a trusted module's globals (the standard library's) stays the harness's
    import json

    assert window._trusted_globals(vars(json), "") and not window._trusted_globals(globals(), "")
    assert not window._trusted_globals({"__name__": "namedtuple_Point"}, "")


def test_the_harness_own_ops_in_the_window_stay_untraced() -> None:
    x = torch.randn(8)

    def honest(x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        _launch(x, out)
        return out

    out, trace = _run(honest, x)
    assert torch.equal(out, x)
    assert "aten::clone" not in trace and trace.get("aten::copy_") == 1, trace
    assert not STATE.launch_violations


def test_the_harness_modes_are_allowed_and_foreign_function_modes_are_not() -> None:
    counter: Counter[str] = Counter()
    with InterceptMode({}), CandidateMode(counter):
        with harness_window("test"):
            pass
    assert not STATE.launch_violations
    with CandidateMode(counter), TorchFunctionMode():
        with pytest.raises(RuntimeError, match="torch function mode"):
            with harness_window("test"):
                pass
    assert len(STATE.launch_violations) == 1


def test_a_mode_pushed_inside_the_window_fails_when_it_closes() -> None:
    mode = _Relay([])
    with pytest.raises(RuntimeError, match="torch dispatch mode pushed"):
        with harness_window("test"):
            mode.__enter__()
    mode.__exit__(None, None, None)
    assert STATE.inside_launch == 0 and len(STATE.launch_violations) == 1


class _Courier(torch.nn.Parameter):
    """tests/bad/param_subclass's channel: a Parameter subclass whose handler computes (here: only counts)."""

    ran = 0

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        _Courier.ran += 1
        unwrap = [torch.Tensor._make_subclass(torch.Tensor, a) if type(a) is _Courier else a for a in args]
        return func(*unwrap, **(kwargs or {}))


def test_an_op_on_a_tensor_subclass_with_its_own_handler_is_refused() -> None:
    """The subclass's handler would run after the trace's mode, untraced: the op is refused before it runs (plain
    tensors and Parameter pass)."""
    scratch = _Courier(torch.zeros(4))

    def wrapper(x: torch.Tensor) -> torch.Tensor:
        torch.nn.Parameter(torch.zeros(2)).view(-1)
        scratch.view(-1)
        return x.clone()

    with pytest.raises(RuntimeError, match="tensor subclass with its own __torch_dispatch__"):
        _run(wrapper, torch.randn(4))
    assert _Courier.ran == 0 and len(STATE.launch_violations) == 1


def test_a_device_context_for_the_launch_device_is_not_foreign() -> None:
    """fp32: ``with torch.device(x.device):`` around a launch pushes PyTorch's DeviceContext (a torch function mode);
    its handler is PyTorch's own and only names the device for factory calls, so the window admits it for the device
    the harness launches on. Another device (meta) or any other function mode stays a violation."""
    here = "cuda" if torch.cuda.is_available() else "cpu"
    counter: Counter[str] = Counter()
    with CandidateMode(counter), torch.device(here):
        with harness_window("test"):
            torch.empty(2)
    assert not STATE.launch_violations
    with CandidateMode(counter), torch.device("meta"):
        with pytest.raises(RuntimeError, match="torch function mode"):
            with harness_window("test"):
                pass
    with CandidateMode(counter), torch.device(here), TorchFunctionMode():
        with pytest.raises(RuntimeError, match="1 torch function mode"):
            with harness_window("test"):
                pass
    assert STATE.launch_violations
