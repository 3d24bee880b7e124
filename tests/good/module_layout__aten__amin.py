"""LEGAL (false-rejection hunt 35): aten::amin laid out the way kernel libraries lay out modules: ``__all__``, type
annotations, a frozen dataclass of launch settings picked by an ``functools.lru_cache``d function,
``logger = logging.getLogger(__name__)`` with ``logger.debug``/``logger.info`` calls, ``warnings.warn`` on a slow
path, an ``os.environ.get("MY_FLAG")`` switch, host helpers as staticmethods of a class, one kernel defined inside an
``if True:`` block and another made by a factory function called at import. Refused before by L1: "import logging
imports logging, which is outside the allowed imports (rule forbidden-import)"; getLogger, the level constants and
the log calls are now allowed (a logger's handlers and filters are not)."""
from __future__ import annotations

import dataclasses
import functools
import logging
import os
import warnings
from typing import List, Optional, Sequence, Tuple, Union

import torch
import triton
import triton.language as tl

__all__ = ["amin", "amin_out"]

logger = logging.getLogger(__name__)
_DEBUG = os.environ.get("MY_FLAG", "0") == "1"


@dataclasses.dataclass(frozen=True)
class ReduceConfig:
    block_r: int
    block_o: int
    num_warps: int = 4


@functools.lru_cache(maxsize=None)
def pick_config(n_rows: int, row_len: int, interpreted: bool) -> ReduceConfig:
    block_r = min(1024 if not interpreted else 256, triton.next_power_of_2(max(row_len, 1)))
    block_o = max(1, min(64, 4096 // block_r))
    cfg = ReduceConfig(block_r=block_r, block_o=triton.next_power_of_2(block_o), num_warps=4 if block_r <= 512 else 8)
    logger.debug("amin config for %d x %d: %s", n_rows, row_len, cfg)
    return cfg


if True:  # kernels

    @triton.jit
    def _amin_rows_kernel(x_ptr, out_ptr, n_rows, row_len, IS_FLOAT: tl.constexpr, BLOCK_O: tl.constexpr,
                          BLOCK_R: tl.constexpr):
        rows = tl.program_id(0) * BLOCK_O + tl.arange(0, BLOCK_O)
        row_mask = rows < n_rows
        rows64 = rows.to(tl.int64)
        acc = tl.load(x_ptr + rows64 * row_len, mask=row_mask, other=0)
        nan_seen = tl.zeros([BLOCK_O], dtype=tl.int32)
        for start in range(0, row_len, BLOCK_R):
            cols = start + tl.arange(0, BLOCK_R)
            m = row_mask[:, None] & (cols[None, :] < row_len)
            x = tl.load(x_ptr + rows64[:, None] * row_len + cols[None, :], mask=m)
            first = tl.load(x_ptr + rows64 * row_len, mask=row_mask, other=0)
            x = tl.where(m, x, first[:, None])
            if IS_FLOAT:
                nan_seen = tl.maximum(nan_seen, tl.max((x != x).to(tl.int32), axis=1))
            acc = tl.minimum(acc, tl.min(x, axis=1)).to(x.dtype)
        if IS_FLOAT:
            acc = tl.where(nan_seen > 0, float("nan"), acc)
        tl.store(out_ptr + rows64, acc, mask=row_mask)


def _make_bool_kernel():
    @triton.jit
    def _all_kernel(x_ptr, out_ptr, n_rows, row_len, BLOCK_O: tl.constexpr, BLOCK_R: tl.constexpr):
        # amin of bools: True only where every element is True
        rows = tl.program_id(0) * BLOCK_O + tl.arange(0, BLOCK_O)
        row_mask = rows < n_rows
        rows64 = rows.to(tl.int64)
        acc = tl.full([BLOCK_O], 1, dtype=tl.int32)
        for start in range(0, row_len, BLOCK_R):
            cols = start + tl.arange(0, BLOCK_R)
            m = row_mask[:, None] & (cols[None, :] < row_len)
            x = tl.load(x_ptr + rows64[:, None] * row_len + cols[None, :], mask=m, other=1)
            acc = tl.minimum(acc, tl.min((x != 0).to(tl.int32), axis=1))
        tl.store(out_ptr + rows64, acc.to(tl.uint8), mask=row_mask)

    return _all_kernel


_bool_kernel = _make_bool_kernel()


class _Host:
    """Shape bookkeeping (metadata only)."""

    @staticmethod
    def dims(x: torch.Tensor, dim: Union[int, Sequence[int], None]) -> List[int]:
        nd = max(x.dim(), 1)
        if dim is None:
            dims = list(range(nd))
        elif isinstance(dim, int):
            dims = [dim]
        else:
            dims = list(dim) or list(range(nd))
        norm = [d % nd for d in dims]
        if len(set(norm)) != len(norm):
            raise RuntimeError("dim appears multiple times in the list of dims")
        return sorted(norm)

    @staticmethod
    def out_shape(x: torch.Tensor, dims: List[int], keepdim: bool) -> Tuple[int, ...]:
        if x.dim() == 0:
            return ()
        return tuple((1 if i in dims else s) for i, s in enumerate(x.shape) if keepdim or i not in dims)

    @staticmethod
    def as_rows(x: torch.Tensor, dims: List[int]) -> Tuple[torch.Tensor, int, int]:
        if x.dim() == 0:
            return x.reshape(1, 1), 1, 1
        keep = [i for i in range(x.dim()) if i not in dims]
        for d in dims:
            if x.shape[d] == 0:
                raise IndexError("amin(): Expected reduction dim to have non-zero size")
        perm = keep + dims
        moved = x.permute(perm).contiguous()
        row_len = 1
        for d in dims:
            row_len *= x.shape[d]
        n_rows = moved.numel() // max(row_len, 1)
        return moved.view(n_rows, row_len), n_rows, row_len


def _launch(x: torch.Tensor, dims: List[int], res: torch.Tensor) -> torch.Tensor:
    rows, n_rows, row_len = _Host.as_rows(x, dims)
    if n_rows == 0:
        return res
    cfg = pick_config(n_rows, row_len, x.device.type == "cpu")
    if row_len > (1 << 20):
        warnings.warn("amin: very long rows are reduced by one program each", RuntimeWarning)
    flat = res if res.is_contiguous() else torch.empty(res.shape, dtype=res.dtype, device=res.device)
    grid = (triton.cdiv(n_rows, cfg.block_o),)
    if x.dtype == torch.bool:
        _bool_kernel[grid](rows.view(torch.uint8), flat.view(torch.uint8), n_rows, row_len, BLOCK_O=cfg.block_o,
                           BLOCK_R=cfg.block_r, num_warps=cfg.num_warps)
    else:
        _amin_rows_kernel[grid](rows, flat, n_rows, row_len, IS_FLOAT=x.dtype.is_floating_point,
                                BLOCK_O=cfg.block_o, BLOCK_R=cfg.block_r, num_warps=cfg.num_warps)
    if flat is not res:
        res.copy_(flat)
    if _DEBUG:
        logger.info("amin over dims %s of %s", dims, tuple(x.shape))
    return res


def amin(self: torch.Tensor, dim: Union[int, Sequence[int], None] = (), keepdim: bool = False) -> torch.Tensor:
    dims = _Host.dims(self, dim)
    res = torch.empty(_Host.out_shape(self, dims, keepdim), dtype=self.dtype, device=self.device)
    return _launch(self, dims, res)


def amin_out(self: torch.Tensor, dim: Union[int, Sequence[int], None] = (), keepdim: bool = False, *,
             out: torch.Tensor) -> torch.Tensor:
    dims = _Host.dims(self, dim)
    shape = _Host.out_shape(self, dims, keepdim)
    if tuple(out.shape) != shape:
        out.resize_(shape)
    return _launch(self, dims, out)
