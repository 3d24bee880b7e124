"""Oracle Triton solution for aten::select_backward (spec: shared/spec/aten.md, section `aten::select_backward`).

Wrappers: select_backward, select_backward_out.

The result (input_sizes, grad_output's dtype) is zeros except the slice select(dim, index), which holds
grad_output. One kernel writes every element once in flat order (coalesced stores): the flat position is
split into (outer, s, inner) around `dim`; where s == index the value is loaded from grad_output (viewed as
(outer, inner), any strides), elsewhere it is 0 and nothing is read. No separate zero-fill pass. Values
are copied bit for bit.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _kernel(g_ptr, o_ptr, total, S, inner, index, gso, gsi,
            BLOCK: tl.constexpr, INNER_ONE: tl.constexpr, USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    if USE_I64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    mask = lin < total
    if INNER_ONE:
        i = lin * 0
        t = lin
    else:
        i = lin % inner
        t = lin // inner
    s = t % S
    o = t // S
    hit = mask & (s == index)
    v = tl.load(g_ptr + o * gso + i * gsi, mask=hit, other=0)
    tl.store(o_ptr + lin, v.to(o_ptr.dtype.element_ty), mask=mask)


def _cdiv(a, b):
    return -(-a // b)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _span(t):
    if t.numel() == 0:
        return 0
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))


def _merged_stride(sizes, strides):
    """The single stride of dims (sizes, strides) viewed as one flat dim, or None if they do not merge."""
    st = None
    expect = None
    for sz, s in reversed(list(zip(sizes, strides))):
        if sz == 1:
            continue
        if st is None:
            st, expect = s, s * sz
        elif s != expect:
            return None
        else:
            expect = s * sz
    return 0 if st is None else st


def _select_bwd(grad, input_sizes, dim, index, out):
    sizes = [int(s) for s in input_sizes]
    nd = len(sizes)
    if nd == 0:
        raise IndexError("select_backward: input_sizes must have at least one dimension")
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    dim %= nd
    S = sizes[dim]
    idx = int(index)
    if not -S <= idx < S:
        raise IndexError(f"select(): index {idx} out of range for tensor of size {sizes} at dimension {dim}")
    if idx < 0:
        idx += S
    gshape = sizes[:dim] + sizes[dim + 1:]
    if list(grad.shape) != gshape:
        raise RuntimeError(f"select_backward: grad_output has shape {list(grad.shape)}, expected {gshape}")
    if out is None:
        out = torch.empty(sizes, dtype=grad.dtype, device=grad.device)
    elif list(out.shape) != sizes:
        out.resize_(sizes)
    total = out.numel()
    if total == 0:
        return out
    if not out.is_contiguous():
        tmp = _select_bwd(grad, sizes, dim, idx, None)
        out.copy_(tmp)
        return out
    gso = _merged_stride(grad.shape[:dim], grad.stride()[:dim])
    gsi = _merged_stride(grad.shape[dim:], grad.stride()[dim:])
    if gso is None or gsi is None:
        grad = grad.contiguous()
        gso = _merged_stride(grad.shape[:dim], grad.stride()[:dim])
        gsi = _merged_stride(grad.shape[dim:], grad.stride()[dim:])
    inner = 1
    for s in sizes[dim + 1:]:
        inner *= s
    src, dst = grad, out
    if out.dtype == torch.bool:  # bools travel as their bytes
        src, dst = grad.view(torch.uint8), out.view(torch.uint8)
    if out.device.type == "cpu":
        block, warps = min(65536, max(16, _next_pow2(total))), 4
    elif total >= (1 << 22):
        block, warps = 4096, 8
    else:
        block, warps = max(128, min(2048, _next_pow2(total))), 4
    big = max(total, _span(grad)) + block >= 2 ** 31
    _kernel[(_cdiv(total, block),)](src, dst, total, S, inner, idx, gso, gsi, BLOCK=block, INNER_ONE=inner == 1,
                                    USE_I64=big, num_warps=warps)
    return out


def select_backward(grad_output, input_sizes, dim, index):
    return _select_bwd(grad_output, input_sizes, dim, index, None)


def select_backward_out(grad_output, input_sizes, dim, index, *, out):
    return _select_bwd(grad_output, input_sizes, dim, index, out)
