"""CPU stand-ins on the interpreter for what GPU-minded wrapper code does with CUDA outside the CUDA runtime calls
(:func:`.interpreter._cuda_runtime_calls_accept_cpu`): ``x.is_cuda`` checks, ``torch.cuda.is_available()`` and
``device_count()`` (and ``torch.accelerator``'s, and ``torch.utils._triton.has_triton()``), NVTX ranges, and
allocations on ``device="cuda"``. Each acts only where the interpreter's PyTorch cannot do what a GPU would, and the
device answers only for reads and calls made from the submission's own file (``launch_args.KERNEL_BODIES``' path):
PyTorch's and the harness's own calls keep the truth."""
from __future__ import annotations

import functools
import sys
from typing import Any

import torch


def install_cuda_stand_ins() -> None:
    """Install the three stand-ins (each once)."""
    _is_cuda_in_the_submission()
    _nvtx_no_ops()
    _cuda_allocations_on_the_cpu()
    _cuda_present_for_the_submission()


def _from_submission(depth: int) -> bool:
    """Whether the frame ``depth`` levels above the caller belongs to the submission's file."""
    from . import launch_args

    path = (launch_args.KERNEL_BODIES or ("",))[0]
    return bool(path) and sys._getframe(depth + 1).f_code.co_filename == path


def _nvtx_no_ops() -> None:
    """NVTX ranges and marks (``torch.cuda.nvtx.range_push("neg")`` / ``range_pop()``, ``with
    torch.cuda.nvtx.range(...)``), which L1 admits around launches, raise "NVTX functions not installed" in a PyTorch
    built without CUDA (false-rejection hunt 37); there they do nothing, as on a GPU without a profiler attached
    (``range_push`` answers the range's depth)."""
    import contextlib

    nvtx = torch.cuda.nvtx
    try:
        nvtx.range_push("kgb")
        nvtx.range_pop()
        return
    except RuntimeError:
        pass
    depth = [0]

    def range_push(msg: str) -> int:
        depth[0] += 1
        return depth[0] - 1

    def range_pop() -> int:
        depth[0] = max(0, depth[0] - 1)
        return depth[0]

    def mark(msg: str) -> None:
        return None

    @contextlib.contextmanager
    def range(msg: str, *args: Any, **kwargs: Any):  # noqa: A001 - PyTorch's name
        # formatted as PyTorch's own range does on a GPU (red team 37): a tensor among the arguments is printed there,
        # ATen work the trace judges, so the interpreter must not be the lenient platform
        range_push(msg.format(*args, **kwargs))
        try:
            yield
        finally:
            range_pop()

    for fn in (range_push, range_pop, mark, range):
        setattr(nvtx, fn.__name__, fn)


def _is_cuda_in_the_submission() -> None:
    """``assert x.is_cuda`` (or ``if not x.is_cuda: raise``) is the input check of GPU-minded wrappers; on the
    interpreter every tensor is a CPU tensor, so an honest wrapper failed as ``runtime_error`` there (false-rejection
    hunt 37). Read from a frame of the submission's own file (``launch_args.KERNEL_BODIES``' path), a CPU tensor's
    ``is_cuda`` answers True, as the same tensor on a GPU would; PyTorch's and the harness's own reads get the real
    answer. The value is constant for the whole job (calls, timed calls and L2 replays alike), so it tells nothing
    apart. ``x.device.type == "cuda"`` still tells the truth."""
    real = torch._C.TensorBase.is_cuda
    if getattr(getattr(torch.Tensor.__dict__.get("is_cuda"), "fget", None), "_kgb_cpu", False):
        return

    def is_cuda(self: torch.Tensor) -> bool:
        if real.__get__(self):
            return True
        return self.device.type == "cpu" and _from_submission(1)

    is_cuda._kgb_cpu = True  # type: ignore[attr-defined]
    prop = property(is_cuda, doc=real.__doc__)
    torch.Tensor.is_cuda = prop  # type: ignore[assignment, method-assign]


#: The factories whose ``device=`` a wrapper may hard-code as ``"cuda"`` (L1 admits each).
_FACTORIES = ("empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like", "arange",
              "empty_strided", "tensor", "as_tensor")


def _cuda_device(dev: Any) -> bool:
    if isinstance(dev, str):
        return dev == "cuda" or dev.startswith("cuda:")
    return isinstance(dev, torch.device) and dev.type == "cuda"


def _cuda_allocations_on_the_cpu() -> None:
    """``torch.empty(n, device="cuda")`` (a workspace, an output), ``x.cuda()`` and ``x.to("cuda")`` in a wrapper
    written for one GPU raised "Torch not compiled with CUDA enabled" on the interpreter (false-rejection hunt 37). Made
    from the submission's file in a PyTorch without CUDA, they allocate on (or keep the tensor on) the CPU, where the
    interpreter's launches run, as a GPU's wrapper gets the tensors on its device."""
    if torch.cuda.is_available() or getattr(torch.empty, "_kgb_cpu", False):
        return

    def factory(orig: Any) -> Any:
        @functools.wraps(orig)
        def make(*args: Any, **kwargs: Any) -> Any:
            if _cuda_device(kwargs.get("device")) and _from_submission(1):
                kwargs["device"] = "cpu"
            return orig(*args, **kwargs)

        make._kgb_cpu = True  # type: ignore[attr-defined]
        return make

    for name in _FACTORIES:
        setattr(torch, name, factory(getattr(torch, name)))
    to, cuda = torch.Tensor.to, torch.Tensor.cuda

    @functools.wraps(to)
    def to_(self: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        if (args and _cuda_device(args[0]) or _cuda_device(kwargs.get("device"))) and _from_submission(1):
            args = ("cpu", *args[1:]) if args and _cuda_device(args[0]) else args
            kwargs = {**kwargs, "device": "cpu"} if "device" in kwargs else kwargs
        return to(self, *args, **kwargs)

    @functools.wraps(cuda)
    def cuda_(self: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        if self.device.type == "cpu" and _from_submission(1):
            return self
        return cuda(self, *args, **kwargs)

    for fn, name in ((to_, "to"), (cuda_, "cuda")):
        fn._kgb_cpu = True  # type: ignore[attr-defined]
        setattr(torch.Tensor, name, fn)


def _cuda_present_for_the_submission() -> None:
    """``assert torch.cuda.is_available()`` (or ``torch.cuda.device_count() > 0``) at import or in a wrapper written for
    a GPU failed on the interpreter (false-rejection hunt 37). Asked from the submission's file in a PyTorch without
    CUDA, they answer as a one-GPU machine (True, 1); with the other stand-ins of this module, what the submission then
    does on "cuda" runs on the CPU. PyTorch's and the harness's own questions keep the truth."""
    if torch.cuda.is_available() or getattr(torch.cuda.is_available, "_kgb_cpu", False):
        return
    available, count = torch.cuda.is_available, torch.cuda.device_count

    @functools.wraps(available)
    def is_available() -> bool:
        return True if _from_submission(1) else available()

    @functools.wraps(count)
    def device_count() -> int:
        return max(1, count()) if _from_submission(1) else count()

    for fn in (is_available, device_count):
        fn._kgb_cpu = True  # type: ignore[attr-defined]
        setattr(torch.cuda, fn.__name__, fn)
    _accelerator_present_for_the_submission()
    _triton_present_for_the_submission()


def _accelerator_present_for_the_submission() -> None:
    """The device-generic twins (PyTorch 2.6+ ``torch.accelerator``): bitsandbytes picks its device module at import
    with ``device_type = torch.accelerator.current_accelerator().type`` and ``getattr(torch, device_type,
    torch.cuda)``; without CUDA the current accelerator is None and the import failed on ``None.type`` (false-rejection
    hunt 43). Asked from the submission's file, ``current_accelerator()`` answers ``cuda``, ``is_available()`` True
    and ``device_count()`` 1, as :func:`_cuda_present_for_the_submission`'s one-GPU machine."""
    acc = getattr(torch, "accelerator", None)
    if acc is None or getattr(acc.current_accelerator, "_kgb_cpu", False):
        return
    current, available, count = acc.current_accelerator, acc.is_available, acc.device_count

    @functools.wraps(current)
    def current_accelerator(*args: Any, **kwargs: Any) -> Any:
        return torch.device("cuda") if _from_submission(1) else current(*args, **kwargs)

    @functools.wraps(available)
    def is_available() -> bool:
        return True if _from_submission(1) else available()

    @functools.wraps(count)
    def device_count() -> int:
        return max(1, count()) if _from_submission(1) else count()

    for fn in (current_accelerator, is_available, device_count):
        fn._kgb_cpu = True  # type: ignore[attr-defined]
        setattr(acc, fn.__name__, fn)


def _triton_present_for_the_submission() -> None:
    """torchao defines its Triton kernel modules under ``if has_triton():`` (``from torch.utils._triton import
    has_triton``); PyTorch's answer asks for a CUDA device of compute capability 7 or more (or Triton's CPU backend),
    so on the interpreter's CPU PyTorch it was False and such a file defined its wrappers' fallback instead of its
    kernels (false-rejection hunt 44). Asked from the submission's file, ``has_triton()`` answers True, as on a GPU;
    PyTorch's own callers (Inductor) keep the truth."""
    import torch.utils._triton as triton_utils

    real = triton_utils.has_triton
    if getattr(real, "_kgb_cpu", False):
        return

    @functools.wraps(real)
    def has_triton() -> bool:
        return True if _from_submission(1) else real()

    has_triton._kgb_cpu = True  # type: ignore[attr-defined]
    triton_utils.has_triton = has_triton
