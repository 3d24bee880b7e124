"""LEGAL (false-rejection hunt 32): cublas::cublasSscal_v2 in place with a Triton version gate,
``_TRITON_VERSION = tuple(int(p) for p in triton.__version__.split(".")[:2])``, that turns on autotune's
``restore_value`` (an in-place kernel must be restored between tuning runs) only where Triton has it; also an
``enum.Enum`` layout with a classmethod, an ``lru_cache`` config list, a grid lambda and an ``os.environ`` debug flag.
Red team 31's Triton allowlist refused the version read: "triton.__version__.split uses triton.__version__.split,
Triton's internals outside its language" (rule introspection; ``torch.__version__.split`` was torch-compute).
Public ``str`` methods of the libraries' version strings are now plain data, as are reads of torch.backends flags."""
import enum
import functools
import os

import torch
import triton
import triton.language as tl

# restore_value (re-running an in-place kernel while tuning) needs Triton 3.0
_TRITON_VERSION = tuple(int(p) for p in triton.__version__.split(".")[:2])
_TUNE_KW = {"restore_value": ["x_ptr"]} if _TRITON_VERSION >= (3, 0) else {}
_DEBUG = os.environ.get("SSCAL_DEBUG", "0") == "1"


class Layout(enum.Enum):
    UNIT = "unit"
    STRIDED = "strided"
    NONE = "none"

    @classmethod
    def of(cls, incx: int) -> "Layout":
        if incx <= 0:
            return cls.NONE
        return cls.UNIT if incx == 1 else cls.STRIDED


@functools.lru_cache(maxsize=None)
def _configs():
    blocks = (256, 1024) if torch.cuda.is_available() else (256,)
    return [triton.Config({"BLOCK": b}, num_warps=4) for b in blocks]


@triton.autotune(configs=_configs(), key=["n", "UNIT"], **_TUNE_KW)
@triton.jit
def _scal_kernel(x_ptr, alpha, n, incx, UNIT: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    off = i if UNIT else i * incx
    x = tl.load(x_ptr + off, mask=m)
    tl.store(x_ptr + off, alpha * x, mask=m)


def cublasSscal_v2(n, alpha, x, incx):
    layout = Layout.of(incx)
    if n <= 0 or layout is Layout.NONE:
        return x
    if _DEBUG:
        print(f"sscal n={n} incx={incx} layout={layout.value} triton={_TRITON_VERSION}")
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    _scal_kernel[grid](x, float(alpha), n, incx, UNIT=layout is Layout.UNIT)
    return x
