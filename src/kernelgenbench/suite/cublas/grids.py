"""Shared grids and helpers of the cuBLAS rows (cublas.md §2.10)."""
from __future__ import annotations

from typing import Any

import torch

from ..spec import product  # noqa: F401  (re-exported for the level modules)
from ..tensors import storage_view
from .decl import vec_offsets

N11 = [1, 17, 32, 33, 71, 160, 497, 1024, 4113, 4096, 5333]
N9 = [1, 32, 71, 160, 497, 1024, 4113, 4096, 5333]
N6 = [1, 32, 71, 1024, 4096, 5333]
A8 = [1.0, 0.0, 0.001, -0.999, 100.001, -111.999, 0.5, -0.5]
A9 = A8 + [-1.0]
A5 = [1.0, 0.0, -0.999, 0.5, 100.001]
INC3 = [1, 2, 3]
AB3 = [(1.0, 0.0), (0.5, 0.5), (-1.0, 1.0)]
AB6 = [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5), (-1.0, 1.0), (2.0, -0.5), (0.001, 0.999)]
AB6C = [(1, 0), (0, 1), (1 + 0.5j, 0), (0.5 + 0.3j, 0.5 - 0.2j), (-1, 1), (0.001 + 0.001j, 0.999 - 0.999j)]
G5 = [(1, 1, 1), (16, 16, 16), (64, 32, 48), (128, 256, 64), (17, 33, 65)]
G9 = [(1, 1, 1), (16, 16, 16), (32, 64, 16), (64, 32, 48), (128, 256, 64), (256, 128, 128), (17, 33, 65),
      (128, 128, 128), (256, 256, 256)]
TT4 = [("N", "N"), ("N", "T"), ("T", "N"), ("T", "T")]


def f32(v: float) -> float:
    """A Python float rounded to fp32 (cublas.md §2.4: scalars are converted to the routine's type)."""
    return float(torch.tensor(v, dtype=torch.float32))


def vec_mask(buf: torch.Tensor, n: int, inc: int) -> torch.Tensor:
    """Flat bool mask over ``buf``'s storage: the n elements of the BLAS vector at its base."""
    mask = torch.zeros(storage_view(buf).numel(), dtype=torch.bool, device=buf.device)
    if n > 0:
        mask[buf.storage_offset() + vec_offsets(n, inc, buf.device)] = True
    return mask


def fp32_only(p: dict[str, Any]) -> set[torch.dtype]:
    return {torch.float32}
