"""The cyclic garbage collector in the sandbox child (red team 29).

A collection runs finalizers (``__del__``, a suspended generator's ``finally``) of whatever garbage it finds, at
whatever allocation crosses its threshold. A submission can time that moment: red team 29 dropped a cyclic object
with a ``__del__`` and padded the allocation count so that the collection fell inside the harness's own untraced
window (the interpreter's argument copies, :mod:`.launch`'s snapshot of a launch), where the finalizer computed
the whole result with ATen, untraced, and wrote it into the output (aten::mm, cublasSgemm_v2, vllm::rms_norm and
aten::neg passed their smoke and held-out tiers so). So, after the submission is imported, the child switches
automatic collection off (:func:`take_over`) and collects only where it chooses (:func:`collect`, before each
command's inputs are loaded), under a guard: an ATen op, a host read or a Triton launch that a finalizer of the
submission runs there is recorded as a launch-rule violation (the verifier fails the job as ``profile``).
"""
from __future__ import annotations

import gc
import os
import sys
import types
from collections import Counter
from typing import Any

from .state import STATE

#: the violation recorded when a finalizer of the submission computes during a collection
FINALIZER_WORK = ("the garbage collector ran code of the submission ({what}): a finalizer (__del__, a generator's "
                  "finally) that computes, reads tensors or launches kernels runs where no call is traced; the "
                  "result must come from the candidate call itself")


#: the submission's file (absolute), set by :func:`take_over`; None before (nothing is guarded then)
_SUBMISSION: str | None = None


def take_over(submission: str | None = None) -> None:
    """Switch automatic collection off for the rest of the child's life and move everything alive now (the harness,
    PyTorch, Triton, the submission's module and its import-time garbage) to the permanent generation, so that an
    explicit collection scans only what the cases make (milliseconds). Called once, right after the submission's
    traced import. ``submission``: its file, which :func:`collect_young` guards."""
    global _SUBMISSION
    _SUBMISSION = submission
    gc.disable()
    gc.freeze()


#: code flags of a generator's or coroutine's frame (``inspect.CO_GENERATOR``, ``CO_COROUTINE``,
#: ``CO_ASYNC_GENERATOR``): a collection that frees a suspended one resumes it (its ``finally``), as it calls a
#: ``__del__``
_RESUMED_CODE = 0x20 | 0x80 | 0x200

#: the folders whose ``__del__`` methods and generators are finalizers of PyTorch's, Triton's or the harness's own
#: garbage (:func:`_own_finalizer`); set at the first guarded collection
_OWN_DIRS: tuple[str, ...] | None = None


def _own_dirs() -> tuple[str, ...]:
    global _OWN_DIRS
    if _OWN_DIRS is None:
        import torch
        import triton

        _OWN_DIRS = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep
                          for m in (torch, triton, sys.modules[__name__.rsplit(".", 2)[0]]))
    return _OWN_DIRS


def _own_finalizer(frame: Any) -> bool:
    """Whether ``frame``, the outermost one a collection runs (right below :func:`collect`), is a finalizer of
    PyTorch's, Triton's or the harness's own garbage: a generator defined in their files, or a ``__del__`` method
    defined there that finalizes an instance of the class defining it. A submission's class that borrows one
    (``__del__ = <a PyTorch class>.__del__``, a body such as ``self._cleanup()`` calling back into the submission's
    object) is no such instance. The class is found from the code's module and qualified name; its instances are
    told by the raw MRO of the finalized object's type (no code of the submission runs)."""
    code = frame.f_code
    fn = code.co_filename
    if not (fn.startswith(_own_dirs()) or os.path.abspath(fn).startswith(_own_dirs())):
        return False
    if code.co_flags & _RESUMED_CODE:
        return True
    if code.co_name != "__del__" or code.co_argcount < 1:
        return False
    qualname = getattr(code, "co_qualname", None)  # Python 3.11+; before, no class is found (recorded)
    owner: Any = sys.modules.get(frame.f_globals.get("__name__", "")) if qualname else None
    for part in (qualname or "").split(".")[:-1]:
        # a module's or class's own namespace, read without attribute lookup (no descriptor or __getattr__ runs)
        space = vars(owner) if isinstance(owner, (type, types.ModuleType)) else None
        owner = space.get(part) if space is not None else None
    if not isinstance(owner, type):
        return False
    this = frame.f_locals.get(code.co_varnames[0])
    return owner in type.__dict__["__mro__"].__get__(type(this))


def _submission_frame(path: str) -> bool:
    """Whether the op the guard sees during :func:`collect` is the submission's (``path``: its file, absolute): a
    frame of its file is on the stack, or the finalizer that runs it is not one of PyTorch's, Triton's or the
    harness's own (:func:`_own_finalizer`). The frames between the op and :func:`collect` are those of the dispatch
    mode's handler (PyTorch wraps it in frames of its own: ``torch._compile`` ``inner``, ``torch._dynamo.eval_frame``
    ``_fn``), of the finalizer and of what it calls. Red team 34: a submission's ``__del__`` may be a C callable
    (``staticmethod(functools.partial(list, map(torch.Tensor.copy_, [out], ...)))``: no frame of its own), code that
    the standard library generated (a dataclass's ``__init__``, file ``<string>``) or a PyTorch function bound as one
    (``functools.partial(torch.Tensor.__rdiv__, ...)``); no frame of the submission's file is on the stack then, and
    the guard, which also took a stack without Python frames for the submission's, saw PyTorch's wrapper frames
    there and recorded nothing, while the finalizer computed the whole timed result with ATen between the timing
    blocks."""
    f = sys._getframe(2)
    entry = None
    while f is not None:
        co = f.f_code
        if co is collect.__code__:
            return entry is None or not _own_finalizer(entry)
        fn = co.co_filename
        if fn == path or os.path.abspath(fn) == path:
            return True
        entry = f
        f = f.f_back
    return False


class _Guard:
    """A dispatch mode that counts the ATen ops run from the submission's finalizers during :func:`collect`."""

    def __init__(self, path: str) -> None:
        from torch.utils._python_dispatch import TorchDispatchMode

        guard = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                if _submission_frame(guard.path):
                    guard.ops[str(getattr(func, "__name__", func))] += 1
                return func(*args, **(kwargs or {}))

        self.path = path
        self.ops: Counter[str] = Counter()
        self.mode = Mode()


def collect_young(where: str = "the collection between timed blocks") -> None:
    """A guarded collection of the two young generations (what the last moments made; cheap), where the child had
    a collection run automatically before: between the timing protocol's blocks and during its warm-up once the
    calls piled up device memory (sandbox/timed_loop.py), so that garbage cycles of many timed repetitions (a
    launch's argument records hold its tensors in one) do not hold device memory until the next command.
    ``where`` names the collection in a violation's message. Nothing before :func:`take_over`."""
    if _SUBMISSION is not None:
        collect(_SUBMISSION, generation=1, where=where)


#: every how many commands' collections (:func:`collect_command`) one is full, the oldest generation too; the others
#: collect the two young generations. What lives across two commands (caches, the compiler stack imported after
#: take_over) moves to the oldest generation, and a full collection scans all of it: on an H100 at 8b0cb99 it was
#: 30-70 ms a command for ATen and cuBLAS operators (Triton's GPU back end, imported at the first launch) and 150-190 ms
#: for vLLM ones (dynamo and Inductor, imported for the compiled baseline), twice per timed case (the gate's ``collect``
#: phase), one to two fifths of the harness's cost per timed case. Old cyclic garbage (a compiled baseline that
#: ``torch._dynamo.reset`` dropped) waits at most this many commands; a finalizer runs only in a guarded collection
#: either way.
FULL_EVERY = 16

#: commands collected since take_over (:func:`collect_command`)
_COMMANDS = 0


def collect_command(submission: str | None) -> int:
    """The collection at a command's start (sandbox/child.py, before the command's inputs are loaded): a guarded
    :func:`collect` of the young generations, every :data:`FULL_EVERY`-th (the first included) a full one. Returns
    the generation collected (1 or 2)."""
    global _COMMANDS
    generation = 2 if _COMMANDS % FULL_EVERY == 0 else 1
    _COMMANDS += 1
    collect(submission, generation=generation)
    return generation


def collect(submission: str | None, generation: int = 2, where: str = "") -> None:
    """A collection (``generation``: 2 full, 1 the young generations) of what the cases made since :func:`take_over`,
    guarded: ATen ops that the submission's
    finalizers run (``submission``: the absolute path of its file; None: unguarded, nothing of a submission is
    loaded) and Triton launches during it are recorded in ``STATE.launch_violations`` (:data:`FINALIZER_WORK`).
    Host reads (``.item()``, ``tolist``) dispatch ``aten::_local_scalar_dense``/copies and count as ops.
    ``where``: the collection, named in the record (:func:`collect_young`'s: between timed blocks). Runs outside any
    traced call; raises nothing."""
    if submission is None:
        gc.collect(generation)
        return
    from .drive import compiled_graphs, compiler_used, global_state_change

    guard = _Guard(submission)
    launches = len(STATE.launches)
    graphs = compiled_graphs()
    try:
        with guard.mode:
            gc.collect(generation)
    except BaseException:  # noqa: BLE001 - a finalizer's exception is printed by Python, never raised here
        pass
    found: list[str] = []
    if guard.ops:
        found.append("ran " + ", ".join(f"{k} x{v}" for k, v in sorted(guard.ops.items())[:6]))
    new = STATE.launches[launches:]
    if new:
        found.append("launched " + ", ".join(sorted(set(new))[:4]))
        del STATE.launches[launches:]
    compiled = compiler_used(graphs, "during the collection")
    if compiled:
        found.append(compiled)
    changed = global_state_change("during the collection")  # a finalizer that entered no_grad / inference_mode
    if changed:
        found.append("changed PyTorch's global state: " + changed)
    if found:
        msg = FINALIZER_WORK.format(what="; ".join(found)) + (f" ({where})" if where else "")
        STATE.note_violation(msg)


def submission_path(path: Any) -> str:
    """The absolute path :func:`collect` compares frames with."""
    return os.path.abspath(str(path))
