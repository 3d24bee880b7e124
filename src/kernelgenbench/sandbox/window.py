"""The launch window: the harness's and Triton's own work inside a candidate's call, which the dispatch trace
does not count (``STATE.inside_launch``), and the guards that keep the submission's code out of it.

The harness opens the window around its snapshot of a launch's arguments (``CallEvidence.note_launch``), the
interpreter's argument copies (``GridExecutor._init_args_hst``/``_restore_args_dev``), Triton's autotune
benchmarking (``Autotuner._bench``) and the host reads it logs (:mod:`.host_reads`). ATen ops reach
:class:`.dispatch.CandidateMode` there and pass untraced. Red team 31 (tests/bad/mode_relay): a dispatch mode the
submission pushed inside its call (and popped before returning, so :func:`.drive.foreign_modes` never saw it)
ran its handler on those ops and computed the result with ATen, untraced. Closed as a class:

* :class:`harness_window` (every place the harness opens the window): a mode on either of PyTorch's mode stacks
  that is not the harness's own (:data:`HARNESS_MODES`) when the window opens or closes is a launch violation
  (the job fails as ``profile``); a mode's handler, a tensor subclass's or a ``__torch_function__`` override is
  code the submission could run there.
* :func:`foreign_code`: an ATen op that reaches the trace while the window is open is passed untraced only when no
  frame of the submission's file lies between it and the window's opening (finalizers, weakref callbacks, hooks
  Triton calls while it benchmarks): otherwise it is traced and judged as the candidate's op.
"""
from __future__ import annotations

import os
import sys
from typing import Any

import torch

from .state import STATE

#: The types of the harness's own modes that may be on the dispatch mode stack inside a call (filled by
#: :mod:`.dispatch`: ``CandidateMode``, ``TimedTraceMode``, ``InterceptMode``). Judged by ``type()``, exactly.
HARNESS_MODES: set[type] = set()

#: The frames where the open windows began (innermost last): :func:`foreign_code` looks above the innermost only.
_OPENED: list[Any] = []


def _trusted_roots() -> tuple[str, ...]:
    import sysconfig

    import triton

    roots = {os.path.dirname(os.path.abspath(m.__file__)) for m in (torch, triton) if getattr(m, "__file__", None)}
    roots.add(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # kernelgenbench
    try:
        import numpy

        roots.add(os.path.dirname(os.path.abspath(numpy.__file__)))
    except ImportError:  # pragma: no cover - numpy ships with torch's CPU wheels
        pass
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            roots.add(os.path.abspath(p))
    return tuple(r.rstrip(os.sep) + os.sep for r in roots)


_ROOTS: tuple[str, ...] | None = None


def _launch_device_type() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def _device_context(mode: object) -> bool:
    """Whether ``mode`` is PyTorch's own ``DeviceContext`` (what ``with torch.device(x.device):`` pushes, exactly
    that class: L1 refuses PyTorch bases) for the device the harness launches on (fp32: honest launches run under
    it). Its handler is PyTorch's: it only gives the harness's device to factory calls that name none, so it runs
    none of the submission's code in the window; a context for another device ("meta", the CPU beside a GPU)
    would move the harness's own allocations and stays a violation."""
    from torch.utils._device import DeviceContext

    if type(mode) is not DeviceContext:
        return False
    device = mode.__dict__.get("device")
    return type(device) is torch.device and device.type == _launch_device_type()


def mode_stacks_foreign() -> str | None:
    """What is on PyTorch's mode stacks besides the harness's own modes, in words, or None. Reads the stacks'
    lengths and ``type()`` only (no code of a mode runs); PyTorch's ``DeviceContext`` for the launch device
    (:func:`_device_context`) is not foreign."""
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

    n_fn = torch._C._len_torch_function_stack()
    foreign_fn = [m for m in (torch._C._get_function_stack_at(i) for i in range(n_fn)) if not _device_context(m)]
    if foreign_fn:
        return f"{len(foreign_fn)} torch function mode(s) pushed"
    stack = _get_current_dispatch_mode_stack()
    foreign = [type(m) for m in stack if type(m) not in HARNESS_MODES]
    if foreign:
        return f"a torch dispatch mode pushed ({type.__repr__(foreign[-1])})"
    return None


def _violation(where: str, found: str) -> None:
    msg = (f"{found} while the harness {where}: a submission may not install PyTorch modes (their handlers run on "
           f"the harness's own ATen ops inside a launch, where nothing is traced)")
    STATE.note_violation(msg)
    raise RuntimeError(msg)


class harness_window:
    """Open the launch window for the harness's own work (``with harness_window("copies a launch's arguments"):``):
    ``STATE.inside_launch`` is raised inside. The mode stacks are judged when it opens and when it closes
    (:func:`mode_stacks_foreign`; a foreign mode is recorded as a launch violation and raised as RuntimeError, before
    anything runs in the window)."""

    __slots__ = ("where",)

    def __init__(self, where: str) -> None:
        self.where = where

    def __enter__(self) -> None:
        found = mode_stacks_foreign()
        if found is not None:
            _violation(self.where, found)
        _OPENED.append(sys._getframe(1))
        STATE.inside_launch += 1

    def __exit__(self, *exc: Any) -> None:
        STATE.inside_launch -= 1
        if _OPENED:
            _OPENED.pop()
        if exc[0] is None:
            found = mode_stacks_foreign()
            if found is not None:
                _violation(self.where, found)


class registration_lifted:  # noqa: N801 - used like a function
    """Lift the candidate's ATen registration (``STATE.registration``, GPUs) for the duration, as the child's
    ``harness_io`` does around its own tensor work: inside Triton's autotune benchmarking (``Autotuner._bench``),
    ``triton.testing.do_bench`` allocates its L2-flush buffer with ``torch.empty`` and zeroes it with ``zero_`` before
    every timed call, and Triton's ``reset_to_zero``/``restore_value`` hooks run ``zero_``, ``clone`` and ``copy_``:
    on a GPU these reached a registered candidate of that op, which was running (its kernel being tuned), and failed
    the honest candidate as a dispatch recursion (session 40, reproduced on the CPU with a registration at the CPU
    key; the interpreter, which registers nothing, never saw it). Lifted, they run PyTorch's own kernels, untraced
    as all of Triton's work in the window is; the candidate's own hooks that Triton calls there still run traced
    (``launch.traced_autotune_hooks``), so a call of the op under test from them is in the trace and judged as a
    dispatch recursion, as on the interpreter."""

    __slots__ = ("impl",)

    def __init__(self) -> None:
        self.impl: Any = None

    def __enter__(self) -> None:
        impl = STATE.registration
        if impl is not None and getattr(impl, "lib", None) is not None:
            self.impl = impl
            impl.deactivate()

    def __exit__(self, *exc: Any) -> None:
        if self.impl is not None:
            self.impl.activate()


def _submission_path() -> str:
    from . import launch_args

    return (launch_args.KERNEL_BODIES or ("",))[0]


def foreign_code() -> bool:
    """Whether the ATen op being dispatched now, inside the launch window, comes from code that is not the
    harness's or an installed package's: a frame of the submission's file (or of any other file outside Python's
    library paths and the harness's package) between the op and the frame that opened the window
    (:class:`harness_window`). Such an op is the candidate's and is traced."""
    global _ROOTS
    if _ROOTS is None:
        _ROOTS = _trusted_roots()
    if not _OPENED:  # raised by hand, not by harness_window (unit tests' stand-ins for a launch)
        return False
    sub = _submission_path()
    stop = _OPENED[-1]
    f = sys._getframe(2)
    while f is not None and f is not stop:
        name = f.f_code.co_filename
        if name.startswith("<"):
            # code made by exec/eval ("<string>": dataclass and namedtuple methods, a submission's own exec) is
            # judged by the module whose globals it runs in (red team 32: every "<...>" frame was trusted)
            if not _trusted_globals(f.f_globals, sub):
                return True
        elif name == sub or not os.path.abspath(name).startswith(_ROOTS):
            return True
        f = f.f_back
    return False


def _trusted_globals(g: dict, sub: str) -> bool:
    """Whether globals ``g`` of an exec/eval frame are a trusted module's: one loaded from the harness's package,
    Python's library paths or an installed package (frozen standard modules included), not the submission's."""
    mod = sys.modules.get(g.get("__name__")) if isinstance(g.get("__name__"), str) else None
    if mod is None or getattr(mod, "__dict__", None) is not g:
        return False
    file = getattr(mod, "__file__", None)
    if not file:
        spec = getattr(mod, "__spec__", None)
        return getattr(spec, "origin", None) in ("frozen", "built-in")
    path = os.path.abspath(file)
    return path != sub and path.startswith(_ROOTS)
