"""Input builders shared by all sources: seeded tensors in given layouts."""
from __future__ import annotations

from typing import Any, Sequence

import torch

from .spec import dtype_of


def generator(device: torch.device, seed: int) -> torch.Generator:
    """A generator on ``device`` seeded with ``seed``."""
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    return g


def make_tensor(shape: Sequence[int], dtype: str | torch.dtype, device: torch.device, gen: torch.Generator,
                layout: str = "contig", low: float | None = None, high: float | None = None,
                dist: str = "randn") -> torch.Tensor:
    """A seeded tensor of ``shape`` and ``dtype`` on ``device`` in ``layout``.

    Args:
        shape: the logical shape.
        dtype: short dtype name or torch dtype.
        layout: ``"contig"``; ``"transposed"`` (a transposed view: the last two dims swapped in
            memory); ``"step2"`` / ``"step3"`` (the last dim sliced with that step from a wider
            buffer); ``"permuted"`` (dims stored in reverse order).
        low, high: integer range for integer dtypes (default [-100, 100)), or uniform range for
            ``dist="uniform"``.
        dist: ``"randn"`` (floats) or ``"uniform"``.

    Raises:
        ValueError: unknown layout.
    """
    dt = dtype_of(dtype)
    shape = tuple(int(s) for s in shape)
    if layout == "contig" or len(shape) == 0:
        store = shape
    elif layout == "transposed":
        if len(shape) < 2:
            store = shape
        else:
            store = shape[:-2] + (shape[-1], shape[-2])
    elif layout in ("step2", "step3"):
        step = int(layout[-1])
        store = shape[:-1] + (shape[-1] * step,)
    elif layout == "permuted":
        store = tuple(reversed(shape))
    else:
        raise ValueError(f"unknown layout {layout!r}")
    if dt.is_floating_point:
        if dist == "uniform":
            lo = 0.0 if low is None else low
            hi = 1.0 if high is None else high
            base = torch.rand(store, generator=gen, device=device, dtype=torch.float32) * (hi - lo) + lo
        else:
            base = torch.randn(store, generator=gen, device=device, dtype=torch.float32)
        base = base.to(dt)
    elif dt.is_complex:
        base = torch.randn(store, generator=gen, device=device, dtype=dt)
    elif dt == torch.bool:
        base = torch.randint(0, 2, store, generator=gen, device=device).bool()
    else:
        lo = -100 if low is None else int(low)
        hi = 100 if high is None else int(high)
        base = torch.randint(lo, hi, store, generator=gen, device=device, dtype=torch.int64).to(dt)
    if layout == "contig" or len(shape) == 0:
        return base
    if layout == "transposed":
        return base.transpose(-1, -2) if len(shape) >= 2 else base
    if layout in ("step2", "step3"):
        return base[..., :: int(layout[-1])]
    return base.permute(*reversed(range(len(shape))))


def upcast(obj: Any) -> Any:
    """float16/bfloat16/float32 tensors → float64 (complex → complex128), recursively; others unchanged."""
    if isinstance(obj, torch.Tensor):
        if obj.is_floating_point():
            return obj.to(torch.float64)
        if obj.is_complex():
            return obj.to(torch.complex128)
        return obj
    if isinstance(obj, (list, tuple)):
        return type(obj)(upcast(o) for o in obj)
    if isinstance(obj, dict):
        return {k: upcast(v) for k, v in obj.items()}
    return obj
