"""LEGAL (false-rejection hunt 32): cublas::cublasSdot_v2 as a two-kernel reduction (per-block partial products, then
one program sums the partials in fp32), BLAS offsets for negative increments from a @triton.jit helper, and the block
size chosen by ``INTERPRET = "TRITON_INTERPRET" in os.environ and os.environ["TRITON_INTERPRET"] == "1"``. L1
refused both environment reads: "os.environ uses os.environ: of os only os.environ.get and os.getenv ... are allowed"
(rule file-io), although they read the environment exactly as ``os.environ.get`` does. A subscript load and an
``in``/``not in`` test of os.environ are now reads; writes, deletions and the mapping as a value stay refused."""
import os

import torch
import triton
import triton.language as tl

# the CPU interpreter runs every program in Python: fewer, bigger blocks there
INTERPRET = "TRITON_INTERPRET" in os.environ and os.environ["TRITON_INTERPRET"] == "1"
BLOCK = 4096 if INTERPRET else 1024


@triton.jit
def _blas_off(i, n, inc):
    return tl.where(inc >= 0, i * inc, (n - 1 - i) * (-inc))


@triton.jit
def _dot_partials(x_ptr, y_ptr, part_ptr, n, incx, incy, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    i = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + _blas_off(i, n, incx), mask=m, other=0.0)
    y = tl.load(y_ptr + _blas_off(i, n, incy), mask=m, other=0.0)
    tl.store(part_ptr + pid, tl.sum(x * y, axis=0))


@triton.jit
def _dot_finish(part_ptr, out_ptr, parts, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in range(0, parts, BLOCK):
        j = s + tl.arange(0, BLOCK)
        acc += tl.load(part_ptr + j, mask=j < parts, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))


def cublasSdot_v2(n, x, incx, y, incy, result):
    parts = triton.cdiv(max(n, 0), BLOCK)
    if parts == 0:
        _dot_finish[(1,)](result, result, 0, BLOCK=16)  # n <= 0: the result is 0
        return result
    partial = torch.empty(parts, dtype=torch.float32, device=result.device)
    _dot_partials[(parts,)](x, y, partial, n, incx, incy, BLOCK=BLOCK)
    _dot_finish[(1,)](partial, result, parts, BLOCK=min(1024, triton.next_power_of_2(parts)))
    return result
