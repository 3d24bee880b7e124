"""Legal: aten::neg in real-world kernel styles the file-level scan does not follow by name (the file
starts with a UTF-8 byte-order mark): a project decorator that calls triton.jit with options, and kernel
variants made by triton.jit in a comprehension. Each runs as a kernel body only after the verifier has
scanned it as one (sandbox/launch_args.py UNSCANNED, verify.scan.scan_kernel_body)."""
import torch
import triton
import triton.language as tl


def _kernel(fn):
    """One place for the project's jit options."""
    return triton.jit(fn, do_not_specialize=["n"])


@_kernel
def _neg(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=mask, other=0) * -1, mask=mask)


def _copy_body(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=mask, other=0), mask=mask)


def _neg_body(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=mask, other=0) * -1, mask=mask)


_VARIANTS = {name: triton.jit(f) for name, f in (("copy", _copy_body), ("neg", _neg_body))}


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    xc = x.contiguous()
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = xc.numel()
    if n:
        # the decorated kernel for even sizes, the comprehension's variant for odd ones
        kern = _neg if n % 2 == 0 else _VARIANTS["neg"]
        kern[(triton.cdiv(n, 512),)](xc, res, n, BLOCK=512)
    if out is None:
        return res
    if out.shape != x.shape:
        out.resize_(x.shape)
    out.copy_(res)
    return out


def neg(self):
    return _run(self, None)


def neg_out(self, *, out):
    return _run(self, out)
