"""LEGAL (false-rejection hunt 31): aten::cumsum through a generic scan kernel whose combine function is a
``tl.constexpr`` parameter (one kernel for cumsum, cumprod, cummax; ``COMBINE=_add`` here): rows scanned in blocks
with ``tl.associative_scan(x, 0, COMBINE)``, the carry between blocks from ``tl.reduce(x, 0, COMBINE)``. L1 refused
both (rule kernel-body: "must be a @triton.jit function named directly") although it lets the body call
``COMBINE(a, b)``; the launch rule admits only jit functions as constexpr arguments (tests/bad/py_combine). The
scanned dim goes last with movedim + contiguous.

Not legal Triton after all: Triton 3.6's compiler does not unwrap a constexpr combine function (``tl.associative_scan``
hands the ``constexpr`` to ``call_JitFunction``, which reads ``.fn``: AttributeError), so the truthful verdict is
compile_error, Triton's own: on a GPU (gate at ae9b2b6 on an H100) and, since the interpreter compiles every launched
kernel for sm_90 before running it (sandbox/gpu_compile.py), on the interpreter too (tests/test_legal_submissions.py
GPU_COMPILE_ERROR)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _scan_rows(x_ptr, o_ptr, L, ACC: tl.constexpr, COMBINE: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * L
    carry = tl.zeros((1,), ACC)
    for c0 in range(0, L, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        m = cols < L
        x = tl.load(x_ptr + base + cols, mask=m, other=0).to(ACC)
        y = tl.associative_scan(x, 0, COMBINE)
        tl.store(o_ptr + base + cols, (y + carry).to(o_ptr.dtype.element_ty), mask=m)
        carry = carry + tl.reduce(x, 0, COMBINE)


_ACC = {torch.float16: tl.float32, torch.bfloat16: tl.float32, torch.float32: tl.float32, torch.float64: tl.float64}


def _cumsum_into(self, dim, out):
    if self.dim() == 0:
        x = self.reshape(1)
        dim = 0
    else:
        x = self
        dim = dim % x.dim()
    xt = x.movedim(dim, -1).contiguous()
    L = xt.shape[-1]
    rows = xt.numel() // L if L else 0
    res = torch.empty(xt.shape, dtype=out.dtype, device=out.device)
    if rows:
        acc = _ACC.get(out.dtype, tl.int64)
        src = xt.view(torch.uint8) if xt.dtype == torch.bool else xt
        _scan_rows[(rows,)](src, res, L, ACC=acc, COMBINE=_add, BLOCK=min(1024, triton.next_power_of_2(L)))
    res = res.movedim(-1, dim).reshape(out.shape)
    out.copy_(res)
    return out


def _dtype(self, dtype):
    if dtype is not None:
        return dtype
    return self.dtype if (self.dtype.is_floating_point or self.dtype.is_complex) else torch.int64


def cumsum(self, dim, *, dtype=None):
    out = torch.empty(self.shape, dtype=_dtype(self, dtype), device=self.device)
    return _cumsum_into(self, dim, out)


def cumsum_out(self, dim, *, dtype=None, out):
    if out.shape != self.shape:
        out.resize_(self.shape)
    return _cumsum_into(self, dim, out)
