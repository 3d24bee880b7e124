"""What the vLLM families share (vllm.md §2): the dtype axis, the baseline picker and its label, row
views of padded inputs, element sizes for cost models."""
from __future__ import annotations

import importlib
from typing import Any, Callable

import torch

from ..baselines import BASELINE_KINDS
from ..common import make_tensor
from ..spec import Call, dtype_of

#: The activation dtypes of most vLLM grids.
FLOAT3 = ["fp16", "bf16", "fp32"]


def vllm_ops() -> Any | None:
    """The ``vllm._custom_ops`` module when it imports here, else None."""
    try:
        return importlib.import_module("vllm._custom_ops")
    except Exception:  # noqa: BLE001 - any import failure means "not available"
        return None


NATIVE_COMPILED = "native-compiled (the native PyTorch reference under torch.compile, compiled before timing)"
NATIVE_EAGER = "native-eager (the native PyTorch reference, eager)"


def baseline_label() -> str:
    """The baseline an unforced timing run uses here (vllm.md §2.4; recorded as the job's ``baseline``
    on platforms that time nothing): ``vllm`` when ``vllm._custom_ops`` imports, else ``native-compiled``
    (which falls back to ``native-eager`` per operator where compilation fails; the timed record says)."""
    return "vllm (vllm._custom_ops)" if vllm_ops() is not None else f"{NATIVE_COMPILED}; vLLM not importable"


def _compiled(native: Callable[[Call], Any], call: Call, backend: str) -> Callable[[Call], Any]:
    """``native`` under ``torch.compile`` over the call's arguments, compiled now on a clone of ``call``
    (so that compilation stays outside the timed region). Raises whatever compilation raises."""
    import torch._dynamo
    from torch._dynamo.utils import counters

    written, unchanged = call.written, call.unchanged

    def core(*args: Any, **kwargs: Any) -> Any:
        return native(Call(list(args), dict(kwargs), written, unchanged))

    # A fresh cache per case: the recompile limit of one code object would otherwise turn the later cases of
    # a grid (new shapes) silently eager.
    torch._dynamo.reset()
    graphs = counters["stats"]["unique_graphs"]
    compiled = torch.compile(core, dynamic=False, backend=backend)
    warm = call.clone()
    compiled(*warm.args, **warm.kwargs)
    if warm.args and isinstance(warm.args[0], torch.Tensor) and warm.args[0].is_cuda:
        torch.cuda.synchronize()
    if counters["stats"]["unique_graphs"] <= graphs:  # dynamo skipped the frame: the reference would run eagerly
        raise RuntimeError("torch.compile captured no graph")
    return lambda c: compiled(*c.args, **c.kwargs)


def pick_baseline(name: str, native: Callable[[Call], Any], call: Call, prefer: str | None = None,
                  backend: str = "inductor", eager_reason: str | None = None) -> tuple[Callable[[Call], Any], str]:
    """The baseline the vLLM op ``name`` is timed against on ``call``'s case: ``(fn, label)``, the label
    starting with its kind (:data:`BASELINE_KINDS`).

    Args:
        name: the ``vllm._custom_ops`` function.
        native: the native reference, ``native(call)`` runs one call (writes its written arguments,
            returns what the op returns).
        call: a warm-up input set of the case (not modified: compilation runs on a clone).
        prefer: None picks ``vllm`` when importable, else ``native-compiled``; a kind forces it
            (``kgb eval --baseline``). ``native-compiled`` falls back to ``native-eager`` where
            ``torch.compile`` fails, and the label says why.
        backend: the ``torch.compile`` backend (tests use ``"eager"``).
        eager_reason: set where the native reference must not be compiled (a Python loop over tokens that
            ``torch.compile`` would unroll): ``native-compiled`` runs it eagerly instead, and the label says why.

    Raises:
        ValueError: ``prefer`` is not a kind.
        RuntimeError: ``prefer="vllm"`` where ``vllm._custom_ops`` (or its ``name``) is not importable.
    """
    if prefer is not None and prefer not in BASELINE_KINDS:
        raise ValueError(f"vllm::{name}: unknown baseline {prefer!r}; expected one of {', '.join(BASELINE_KINDS)}")
    if prefer in (None, "vllm"):
        ops = vllm_ops()
        if ops is not None and hasattr(ops, name):
            fn = getattr(ops, name)
            return (lambda c: fn(*c.args, **c.kwargs)), f"vllm (vllm._custom_ops.{name})"
        if prefer == "vllm":
            why = "vllm._custom_ops is not importable" if ops is None else f"vllm._custom_ops has no {name}"
            raise RuntimeError(f"vllm::{name}: the vllm baseline was requested but "
                               f"{why}"
                               f" here")
    if prefer == "native-eager":
        return native, NATIVE_EAGER
    if eager_reason:
        return native, f"{NATIVE_EAGER}; not compiled: {eager_reason}"
    try:
        return _compiled(native, call, backend), NATIVE_COMPILED
    except Exception as exc:  # noqa: BLE001 - any compilation failure falls back to eager, said in the label
        reason = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ''}"
        return native, f"{NATIVE_EAGER}; torch.compile failed ({reason})"


def baseline(name: str, native: Callable[[Call], Any],
             eager_reason: str | None = None) -> Callable[..., tuple[Callable[[Call], Any], str]]:
    """The ``baseline(call, platform, prefer=None) -> (fn, label)`` hook of the vLLM op ``name`` whose
    native reference runs a call as ``native(call)`` (:func:`pick_baseline`; ``eager_reason``: never compiled)."""
    def pick(call: Call, platform: Any, prefer: str | None = None) -> tuple[Callable[[Call], Any], str]:
        return pick_baseline(name, native, call, prefer, eager_reason=eager_reason)
    pick.kinds = BASELINE_KINDS  # type: ignore[attr-defined]
    return pick


def rows_view(shape: list[int], dtype: str, device: torch.device, gen: torch.Generator, pad: int = 0,
              heads_pad: int = 0) -> torch.Tensor:
    """An input of ``shape`` whose last dim is contiguous; rows padded by ``pad`` elements, or (3-D)
    the middle dim sliced out of a larger buffer (``heads_pad`` extra heads)."""
    if heads_pad and len(shape) == 3:
        buf = make_tensor([shape[0], shape[1] + heads_pad, shape[2]], dtype, device, gen)
        return buf[:, : shape[1], :]
    if pad:
        buf = make_tensor(list(shape[:-1]) + [shape[-1] + pad], dtype, device, gen)
        return buf[..., : shape[-1]]
    return make_tensor(shape, dtype, device, gen)


def true_div(a: torch.Tensor, c: float) -> torch.Tensor:
    """``a / c``, correctly rounded in a's dtype on every device. PyTorch's CUDA division by a Python number
    multiplies by its rounded reciprocal (not the IEEE quotient), so a reference written ``a / 255.0`` was a
    different function on a GPU than on the CPU: scales the spec defines as fp32 divisions (vLLM's kernels
    divide, e.g. ``(max - min) / 255.0f``) differ by one ulp in some rows, and every value quantised with them
    may round the other way (found on the H200: scaled_int8_quant held-out)."""
    return a / torch.full_like(a, c)


def esize(dtype: str | torch.dtype) -> int:
    """Bytes per element of ``dtype`` (short name or torch dtype)."""
    return torch.empty(0, dtype=dtype_of(dtype)).element_size()
