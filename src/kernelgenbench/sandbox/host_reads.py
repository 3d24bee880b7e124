"""Host reads: values that reach the candidate's Python from tensor data, counted, logged and replayed.

Replay (L2): in a normal case run, the result of every host read the candidate makes and the outcome
of every launch are logged (:meth:`.state.State.begin_case`); in a ghost replay of the same inputs, the
k-th host read returns what the k-th read of the normal run returned and the k-th launch raises
what it raised, so the candidate cannot tell a replay from a normal run by what it reads back (see
:func:`host_read` and :func:`.launch.install_launch_hooks`). Covered on both platforms (on the interpreter
the tensors are CPU tensors and the same reads reach the same hooks): ``.item()``, ``bool``/``int``/
``float``/``complex``/``__index__`` of a tensor, ``is_nonzero``, ``tolist``, ``numpy``, ``__array__``,
``str``/``repr``/``format``; a device-to-host copy (``.cpu()``) is not a read by itself, the read of
its result is. Not covered, and why that is acceptable: reads through raw storage, ``data_ptr``,
NumPy, ctypes, DLPack or pickling (L1 rejects them); reads inside an interpreted kernel body (a
replay runs no body); reads of more than :data:`MAX_LOGGED_ELEMENTS` elements (live, and the
replay reports a divergence; L3's budget fails them anyway); a logged launch error whose class
cannot be rebuilt from its arguments (raised as ``RuntimeError`` with the same message); errors a
GPU raises later, at a synchronisation (not a launch outcome). Other traces a launch leaves are
closed elsewhere: warnings, Triton's runtime state, Python objects changed by a kernel body and
polls or timers of device work are rejected by L1 (``verify/scan/``).

The reads the dispatcher sees (``.item()`` and friends) reach :func:`host_read` from the dispatch modes
(:mod:`.dispatch`); the others (``tolist``, ``str``/``repr``/``format``, ``numpy``, ``__array__``) from
:func:`install_host_read_hooks`.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable

import torch

from .state import STATE
from .window import harness_window

#: Host reads of more elements than this keep no value in the replay log (a ghost replay then reads
#: the live value and reports a divergence); L3's host-read budget fails such calls anyway.
MAX_LOGGED_ELEMENTS = 1 << 16


def host_read(kind: str, t: torch.Tensor, extra: str, live: Callable[[], Any],
              again: Callable[[torch.Tensor], Any] | None = None) -> Any:
    """One host read of tensor ``t`` by the candidate: a value that reaches Python from tensor data
    (``.item()``, ``bool()``/``int()``/``float()``/``__index__`` as ``aten::item``,
    ``aten::_local_scalar_dense`` or ``aten::is_nonzero``; ``tolist``, ``numpy``, ``__array__``,
    ``str``/``repr``/``format``).

    Normal run: returns ``live()`` and logs ``{kind, shape, dtype, extra, value}``: the value returned
    (a Python scalar or string), or with ``again`` a CPU copy of ``t`` from which ``again(copy)``
    gives the value back (None above :data:`MAX_LOGGED_ELEMENTS` elements). Ghost replay: when the next
    logged read has the same kind, shape, dtype and ``extra`` (the call's other arguments), returns the
    logged value, so a flag that a no-op launch left unwritten reads as the normal run read it; else
    reads live and records the divergence (:meth:`State.diverge`). Reads inside a kernel body
    (interpreter) are live and not logged: a replay runs no kernel body. ``t`` may live on any device;
    a replayed read transfers nothing.

    A read of memory a Triton launch of this call received (or an ATen copy of it), other than a
    read-only input of the case, is *derived from Triton* (:meth:`CallEvidence.triton_derived`): its
    log entry says ``"triton": true``, and a replay of it counts in the report's
    ``triton_reads_replayed`` (it is replayed all the same, so that control flow stays that of the
    normal run; the verifier does not count a replay as passed where its result could be made of
    such values: a kernel's result read back and re-wrapped is the kernel's work).
    """
    if STATE.in_kernel or (STATE.log is None and STATE.replay is None):
        return live()
    key = {"kind": kind, "shape": list(t.shape), "dtype": str(t.dtype), "extra": extra}
    # triton_derived may compare bytes: not the candidate's ops
    with harness_window("reads a tensor for the replay log"):
        triton = STATE.call is not None and STATE.call.triton_derived(t)
    if STATE.replay is not None:
        want = STATE.next_logged("reads")
        if want is not None and all(want.get(k) == v for k, v in key.items()) and want.get("value") is not None:
            assert STATE.report is not None
            STATE.report["reads_replayed"] += 1
            if want.get("triton"):
                STATE.report["triton_reads_replayed"] += 1
            value = want["value"]
            return again(value) if again is not None else value
        STATE.diverge("reads", key, want)
        return live()
    value = live()
    if STATE.log is not None:
        if again is None:
            logged: Any = value
        elif t.numel() <= MAX_LOGGED_ELEMENTS:
            logged = t.detach().to("cpu", copy=True)
        else:
            logged = None
        STATE.log["reads"].append({**key, "value": logged, "triton": triton})
    return value


#: The trace key of the host-read units a read carries beyond its elements (``CallEvidence.read_units``: a read
#: through a wider dtype view than its data's), counted against L3's host-read budget (``verify/profile.py``).
WIDENED_KEY = "aten::host_read_widened"


def count_widened(counter: Counter[str], t: torch.Tensor) -> None:
    """Count, under :data:`WIDENED_KEY`, the host-read units a read of ``t`` carries beyond its elements
    (``CallEvidence.read_units``; nothing outside a candidate call)."""
    ev = STATE.call
    if ev is None:
        return
    with harness_window("weighs a host read by the data it carries"):  # may compare bytes: not the candidate's ops
        extra = ev.read_units(t) - max(1, t.numel())
    if extra > 0:
        counter[WIDENED_KEY] += extra


def _read_counter() -> Counter[str] | None:
    """The op counter a host read outside the dispatcher counts in: the import's while the submission is
    imported, the timed call's while timing, the case's while a wrapper runs; None for the harness's own
    reads and reads inside a launch."""
    if STATE.inside_launch:
        return None
    if STATE._import_trace is not None:
        return STATE._import_trace
    if not STATE.active_wrappers:
        return None
    if STATE._call_trace is not None:
        return STATE._call_trace
    return STATE.trace if STATE.tracing else None


def install_host_read_hooks() -> None:
    """Count the tensor values a candidate reads on the host through paths the dispatcher does not
    see (``tolist``, ``str``/``repr``/``format``, ``numpy``, ``__array__``): each element counts as
    one ``host_read`` in the trace (L3 budgets it like ``.item()``). The reads are logged and replayed
    like ``.item()`` (:func:`host_read`). Also installs :func:`guard_method_shadowing`."""
    guard_method_shadowing()
    for name in ("tolist", "__repr__", "__str__", "__format__", "numpy", "__array__"):
        orig = getattr(torch.Tensor, name)
        if not getattr(orig, "_kgb_hooked", False):
            setattr(torch.Tensor, name, _counted_read(orig, name))


def _counted_read(_orig: Any, _name: str) -> Any:
    """The hooked host read ``_name`` of :func:`install_host_read_hooks`; the wrapped method is closed over, not a
    keyword default (red team rt39b: ``t.__str__(_orig=f)`` ran ``f`` inside the read's untraced window)."""

    def read(self, *a, **k):
        counter = _read_counter()
        if counter is not None and type(self) is torch.Tensor and self.__dict__ \
                and not _amp_tags_only(self.__dict__):
            # its methods, called below where nothing is traced, may be shadowed (red team 29c: written into
            # the tensor's __dict__ past the Tensor.__setattr__ guard by functools.update_wrapper)
            msg = (f"a host read ({_name}) of a tensor that carries Python attributes "
                   f"({', '.join(repr(x) for x in list(self.__dict__)[:3])}): the harness reads it outside the "
                   "traced call, where an instance attribute would replace the tensor's methods")
            STATE.note_violation(msg)
            raise RuntimeError(msg)
        if counter is not None:
            counter["aten::host_read"] += max(1, self.numel())
            count_widened(counter, self)
            # The read is counted above; the device-to-host copy PyTorch runs inside it
            # (aten::to on CUDA tensors) is part of the read, not the candidate's compute.
            with harness_window(f"reads a tensor on the host ({_name})"):
                extra = repr((a, sorted(k.items())))
                if _name in ("__repr__", "__str__", "__format__"):  # a string: logged as returned
                    return host_read(_name, self, extra, lambda: _orig(self, *a, **k))
                return host_read(_name, self, extra, lambda: _orig(self, *a, **k),
                                 lambda copy: _orig(copy, *a, **k))
        return _orig(self, *a, **k)

    read._kgb_hooked = True  # type: ignore[attr-defined]
    return read


_MISSING = object()


def _amp_tags_only(attrs: Any) -> bool:
    """``launch_args.amp_tags_only`` (imported when a tensor carries attributes, which is rare)."""
    from . import launch_args

    return launch_args.amp_tags_only(attrs)


def _submission_on_stack() -> bool:
    """Whether a frame of the submission's file is on the stack (``launch_args.KERNEL_BODIES``' path)."""
    import os
    import sys

    from . import launch_args

    path = (launch_args.KERNEL_BODIES or ("",))[0]
    if not path:
        return False
    f = sys._getframe(2)
    while f is not None:
        fn = f.f_code.co_filename
        if fn == path or os.path.abspath(fn) == path:
            return True
        f = f.f_back
    return False


def guard_method_shadowing() -> None:
    """Refuse an instance attribute of a tensor that would shadow one of its class's methods or plain class
    attributes (``buf.storage_offset = f``, ``x.dim = f``) when the submission sets it (sandbox child, installed
    with the host-read hooks, before the harness snapshot). Red team 29b: the interpreter calls
    ``arg.storage_offset()`` on every launch argument while it copies the arguments, where nothing is traced, and
    a replaced method computed the whole result with ATen there (mm, Sgemm, rms_norm and neg passed smoke and
    held-out); the host-read hooks call ``dim()`` and ``numel()`` the same way. Data descriptors (``grad``,
    ``requires_grad``, ``data``) cannot be shadowed and stay settable; attributes of new names stay allowed here
    (a tensor of the call that carries any is judged when the call ends, ``dispatch.plain_result``). The refusal
    is recorded as a launch-rule violation (the job fails as ``profile``) and raised as AttributeError."""
    import inspect

    if getattr(torch.Tensor.__dict__.get("__setattr__"), "_kgb_hooked", False):
        return
    base = torch._C.TensorBase.__setattr__

    def __setattr__(self, name, value):
        if type(name) is not str and _submission_on_stack():  # a str subclass (red team 29c) compares as it likes
            msg = (f"the submission set an attribute of a tensor under a name of type {type(name).__name__}: only "
                   "plain str names (the harness calls tensor methods outside the traced call)")
            STATE.note_violation(msg)
            raise AttributeError(msg)
        if type(name) is str:
            static = inspect.getattr_static(type(self), name, _MISSING)
            data = static is not _MISSING and (hasattr(type(static), "__set__") or hasattr(type(static), "__delete__"))
            if static is not _MISSING and not data and _submission_on_stack():
                msg = (f"the submission set the attribute {name!r} of a tensor, which would shadow the tensor's own "
                       f"{name}: the harness calls tensor methods outside the traced call (red team 29b: a replaced "
                       "storage_offset ran while the interpreter copied launch arguments)")
                STATE.note_violation(msg)
                raise AttributeError(msg)
        base(self, name, value)

    __setattr__._kgb_hooked = True  # type: ignore[attr-defined]
    torch.Tensor.__setattr__ = __setattr__
