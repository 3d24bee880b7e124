"""Oracle Triton solution for aten::reshape (spec: shared/spec/aten.md, section `aten::reshape`).

Wrapper: reshape (dispatcher; CompositeImplicit in PyTorch, intercepted by the registration).

The NothingToCompute "view" rule with a copy path: when self's strides allow the new shape as a view
(PyTorch's computeStride rule: each run of dims that is contiguous in memory splits or merges
freely), the result is that view, through as_strided, sharing self's storage. Otherwise PyTorch
copies, and so does this: a Triton strided gather (up to 6 dims, right-aligned, int64 offsets when
the input spans 2^31 elements) writes the elements in logical order into a new contiguous tensor.
Copies through PyTorch are not allowed for this op; .reshape here would be dispatch recursion.
"""
import torch
import triton
import triton.language as tl

_MAXD = 6


def _infer(shape, n):
    shape = [int(s) for s in shape]
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if neg:
        if known == 0 or n % known:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {n}")
        shape[neg[0]] = n // known
    elif known != n:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {n}")
    return shape


def _view_strides(old, old_stride, new):
    """PyTorch's computeStride: the strides of a view of (old, old_stride) with shape new, or None."""
    if len(old) == 0:
        return [1] * len(new)
    n = 1
    for s in old:
        n *= s
    if n == 0:
        if list(old) == list(new):
            return list(old_stride)
        out = [0] * len(new)
        for d in range(len(new) - 1, -1, -1):
            out[d] = 1 if d == len(new) - 1 else max(new[d + 1], 1) * out[d + 1]
        return out
    out = [0] * len(new)
    view_d = len(new) - 1
    chunk = old_stride[-1]
    tensor_numel = 1
    view_numel = 1
    for d in range(len(old) - 1, -1, -1):
        tensor_numel *= old[d]
        if d == 0 or (old[d - 1] != 1 and old_stride[d - 1] != tensor_numel * chunk):
            while view_d >= 0 and (view_numel < tensor_numel or new[view_d] == 1):
                out[view_d] = view_numel * chunk
                view_numel *= new[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk = old_stride[d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return out


@triton.jit
def _gather_kernel(x_ptr, o_ptr, n, s1, s2, s3, s4, s5, xs0, xs1, xs2, xs3, xs4, xs5,
                   BLOCK: tl.constexpr, USE_I64: tl.constexpr):
    # six dims, right-aligned (dim 5 innermost); dim 0 takes what is left of the linear index
    pid = tl.program_id(0)
    if USE_I64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    mask = lin < n
    i5 = lin % s5
    r = lin // s5
    i4 = r % s4
    r = r // s4
    i3 = r % s3
    r = r // s3
    i2 = r % s2
    r = r // s2
    i1 = r % s1
    i0 = r // s1
    xo = i0 * xs0 + i1 * xs1 + i2 * xs2 + i3 * xs3 + i4 * xs4 + i5 * xs5
    tl.store(o_ptr + lin, tl.load(x_ptr + xo, mask=mask), mask=mask)


def _coalesce(sizes, strides):
    """Merge adjacent dims that are contiguous with each other in memory; drop size-1 dims."""
    out_s, out_st = [], []
    for s, st in zip(sizes, strides):
        if s == 1:
            continue
        if out_s and out_st[-1] == s * st:
            out_s[-1] *= s
            out_st[-1] = st
        else:
            out_s.append(s)
            out_st.append(st)
    return out_s, out_st


def reshape(self, shape):
    n = self.numel()
    new = _infer(shape, n)
    strides = _view_strides(list(self.size()), list(self.stride()), new)
    if strides is not None:
        return self.as_strided(new, strides, self.storage_offset())
    out = torch.empty(new, dtype=self.dtype, device=self.device)
    if n == 0:
        return out
    sizes, xst = _coalesce(list(self.size()), list(self.stride()))
    if len(sizes) > _MAXD:
        raise NotImplementedError(f"reshape: copies of inputs with more than {_MAXD} non-mergeable dims")
    pad = _MAXD - len(sizes)
    sizes = [1] * pad + sizes
    xst = [0] * pad + xst
    span = self.storage_offset() + sum((s - 1) * st for s, st in zip(sizes, xst))
    use_i64 = max(n, span) >= 2 ** 31 - 1
    block = 1024
    grid = (triton.cdiv(n, block),)
    x = self.view(torch.uint8) if self.dtype == torch.bool else self
    o = out.view(torch.uint8) if self.dtype == torch.bool else out
    _gather_kernel[grid](x, o, n, *sizes[1:], *xst, BLOCK=block, USE_I64=use_i64)
    return out
