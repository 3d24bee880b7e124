"""What the vLLM families share (vllm.md §2): the dtype axis, the baseline picker and its label, row
views of padded inputs, element sizes for cost models."""
from __future__ import annotations

import importlib
from typing import Any, Callable

import torch

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


def baseline_label() -> str:
    """``vllm._custom_ops`` when importable here, else the native reference (vllm.md §2.4)."""
    return "vllm._custom_ops" if vllm_ops() is not None else "native PyTorch reference (vLLM not importable)"


def baseline(name: str, native: Callable[[Call], Any]) -> Callable[[Call, Any], tuple[Callable[[Call], Any], str]]:
    """The ``baseline(call, platform) -> (fn, label)`` hook of the vLLM op ``name`` whose native
    reference runs a call as ``native(call)``."""
    def pick(call: Call, platform: Any) -> tuple[Callable[[Call], Any], str]:
        ops = vllm_ops()
        if ops is not None and hasattr(ops, name):
            fn = getattr(ops, name)
            return (lambda c: fn(*c.args, **c.kwargs)), f"vllm._custom_ops.{name}"
        return native, "native PyTorch reference (vLLM not importable)"
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


def esize(dtype: str | torch.dtype) -> int:
    """Bytes per element of ``dtype`` (short name or torch dtype)."""
    return torch.empty(0, dtype=dtype_of(dtype)).element_size()
