"""LEGAL (false-rejection hunt 37): aten::cos through a FlagGems-like ``pointwise_dynamic`` decorator: the scalar
``@triton.jit`` body is wrapped by a factory into a persistent grid-stride kernel (``tl.num_programs(0)``), held by a
launcher class that keeps a per-dtype block-size dict in ``self._cache`` and is made to look like the body with
``functools.update_wrapper``; the file logs with ``logger = logging.getLogger(__name__)``. L1 refused every
``self._cache`` (rule monkey-patch: "reaches ._cache in a file that imports logging"), although the attribute is
the class's own, not a logger's level cache; ``self``/``cls`` of a plain class's methods are now exempt
(verify/scan/class_rules.py ``own_instance_receivers``)."""
import enum
import functools
import logging
from typing import Callable, Dict, Tuple

import torch
import triton
import triton.language as tl

logger = logging.getLogger(__name__)


class Promotion(enum.Enum):
    DEFAULT = 0
    INT_TO_FLOAT = 1


def _out_dtype(dt: torch.dtype, rule: Promotion) -> torch.dtype:
    if rule is Promotion.INT_TO_FLOAT and not (dt.is_floating_point or dt.is_complex):
        return torch.get_default_dtype()
    return dt


def _make_kernel(body):
    @triton.jit
    def _pointwise_kernel(in_ptr, out_ptr, n, BLOCK: tl.constexpr, COMPUTE_F32: tl.constexpr):
        pid = tl.program_id(0)
        num_ctas = tl.num_programs(0)
        for start in range(pid * BLOCK, n, num_ctas * BLOCK):
            offs = start + tl.arange(0, BLOCK)
            mask = offs < n
            x = tl.load(in_ptr + offs, mask=mask)
            if COMPUTE_F32:
                x = x.to(tl.float32)
            y = body(x)
            tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)
    return _pointwise_kernel


class PointwiseDynamic:
    """Launcher made from a scalar body; one compiled kernel per dtype class via Triton's own cache."""

    def __init__(self, body, promotion: Promotion, max_ctas: int = 65536):
        self.body = body
        self.promotion = promotion
        self.max_ctas = max_ctas
        self.kernel = _make_kernel(body)
        self._cache: Dict[Tuple[torch.dtype, torch.dtype], int] = {}
        functools.update_wrapper(self, body.fn if hasattr(body, "fn") else body)

    def _block(self, key: Tuple[torch.dtype, torch.dtype]) -> int:
        if key not in self._cache:
            self._cache[key] = 1024 if key[1] == torch.float64 else 512
        return self._cache[key]

    def __call__(self, x: torch.Tensor, *, out: torch.Tensor = None) -> torch.Tensor:
        x = x.contiguous()
        dt = _out_dtype(x.dtype, self.promotion)
        if out is None:
            out = torch.empty_like(x, dtype=dt, memory_format=torch.contiguous_format)
        n = x.numel()
        if n == 0:
            return out
        block = self._block((x.dtype, dt))
        ctas = min(triton.cdiv(n, block), self.max_ctas)
        with torch.cuda.device(x.device):
            self.kernel[(ctas,)](x, out, n, BLOCK=block, COMPUTE_F32=dt in (torch.float16, torch.bfloat16)
                                 or not dt.is_floating_point)
        return out


def pointwise_dynamic(promotion_method: Promotion = Promotion.DEFAULT) -> Callable:
    def decorator(body):
        return PointwiseDynamic(body, promotion_method)
    return decorator


@pointwise_dynamic(promotion_method=Promotion.INT_TO_FLOAT)
@triton.jit
def cos_func(x):
    return tl.cos(x.to(tl.float32)) if x.dtype != tl.float64 else tl.cos(x)


def cos(self):
    logger.debug("GEMS COS")
    return cos_func(self)


def cos_out(self, *, out):
    logger.debug("GEMS COS_OUT")
    dt = _out_dtype(self.dtype, Promotion.INT_TO_FLOAT)
    if out.shape != self.shape:
        out.resize_(self.shape)
    if out.is_contiguous() and out.dtype == dt:
        return cos_func(self, out=out)
    tmp = cos_func(self)
    out.copy_(tmp)
    return out
