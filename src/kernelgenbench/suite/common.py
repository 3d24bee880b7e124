"""Input builders shared by all sources: seeded tensors in given layouts, poisoned output buffers."""
from __future__ import annotations

from typing import Any, Sequence

import torch

from .spec import dtype_of
from .tensors import poison_


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


def poisoned(shape: Sequence[int], dtype: str | torch.dtype, device: torch.device,
             layout: str = "contig") -> torch.Tensor:
    """A fresh output buffer (an ``out=`` or in-place destination a case hands the candidate) whose
    every element holds the poison pattern of its dtype, so that an element the candidate never
    writes cannot pass for a result.

    Args:
        shape: the logical shape of the output.
        dtype: short dtype name (``"fp16"``) or :class:`torch.dtype`.
        device: where it lives.
        layout: ``"contig"`` (a contiguous tensor; also any other name); ``"step2"`` (the view
            ``base[..., ::2]`` of a buffer twice as wide in the last dim, so the skipped elements,
            also poisoned, show writes outside the view; 0-d: contiguous); ``"transposed"`` (the
            last two dims swapped in memory, a ``transpose(-1, -2)`` view; fewer than 2 dims:
            contiguous); ``"resize"`` (an empty tensor of shape ``[0]``, which the wrapper must
            resize to ``shape`` itself).

    The poison is :func:`kernelgenbench.suite.tensors.poison_`'s: for floating and complex dtypes a
    quiet NaN with a payload no arithmetic produces (``POISON_BITS``: fp32 ``0x7FC0DEAD``, fp64
    ``0x7FF8DEADBEEF0BAD``, fp16 ``0x7E5B``, bf16 ``0x7FDB``; complex: both parts), so an unwritten
    element is told apart from any computed one, a computed NaN included; for integers and bool an
    unlikely sentinel (``INT_POISON``: int16 -30001, int32 -1234567891, bool True, ...), which a
    result can equal, so the verifier re-runs passed cases with the alternate pattern
    (``poison_variant``: int16 29999, bool False, ...); other dtypes get the byte 0xA5 throughout.
    """
    dt = dtype_of(dtype)
    shape = list(shape)
    if layout == "resize":
        return poison_(torch.empty(0, dtype=dt, device=device))
    if layout == "step2" and shape:
        return poison_(torch.empty(shape[:-1] + [2 * shape[-1]], dtype=dt, device=device))[..., ::2]
    if layout == "transposed" and len(shape) >= 2:
        return poison_(torch.empty(shape[:-2] + [shape[-1], shape[-2]], dtype=dt, device=device)).transpose(-1, -2)
    return poison_(torch.empty(shape, dtype=dt, device=device))


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


def flat_tensors(obj: Any) -> list[torch.Tensor]:
    """The tensors in ``obj``, in order: a tensor, or lists, tuples and dict values of them, nested (other leaves
    are skipped)."""
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in flat_tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in flat_tensors(o)]
    return []

