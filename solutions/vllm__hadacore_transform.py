import torch
import triton
import triton.language as tl

_BLOCK = 1024


@triton.jit
def _load_row(x_ptr, s_ptr, row, x_s0, N, BLOCK: tl.constexpr):
    # copy the row into its fp32 scratch row
    for c0 in range(0, N, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        m = c < N
        v = tl.load(x_ptr + row * x_s0 + c, mask=m, other=0.0).to(tl.float32)
        tl.store(s_ptr + row * N + c, v, mask=m)


@triton.jit
def _hada_kernel(x_ptr, y_ptr, s_ptr, x_s0, y_s0, N, LOGN, inv_sqrt, BLOCK: tl.constexpr, SOFT_BF16: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    _load_row(x_ptr, s_ptr, row, x_s0, N, BLOCK)
    base = s_ptr + row * N
    # butterfly stages through the scratch row: element i pairs with i ^ h
    h = 1
    for _ in range(0, LOGN):
        tl.debug_barrier()
        for c0 in range(0, N // 2, BLOCK):
            k = c0 + tl.arange(0, BLOCK)
            m = k < N // 2
            lo = (k // h) * 2 * h + k % h
            a = tl.load(base + lo, mask=m, other=0.0)
            b = tl.load(base + lo + h, mask=m, other=0.0)
            tl.debug_barrier()
            tl.store(base + lo, a + b, mask=m)
            tl.store(base + lo + h, a - b, mask=m)
        h = h * 2
    tl.debug_barrier()
    for c0 in range(0, N, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        m = c < N
        v = tl.load(base + c, mask=m, other=0.0) * inv_sqrt
        if SOFT_BF16:
            bits = v.to(tl.uint32, bitcast=True)
            bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
            r = tl.where(v != v, v, bits.to(tl.float32, bitcast=True)).to(tl.bfloat16)
        else:
            r = v.to(y_ptr.dtype.element_ty)
        tl.store(y_ptr + row * y_s0 + c, r, mask=m)


def hadacore_transform(x, inplace=True):
    n = x.shape[-1]
    if n & (n - 1) or n == 0:
        raise ValueError("hadacore_transform: the last dim must be a power of two")
    rows = x.numel() // n
    if x.dim() == 2 or x.dim() == 1:
        xv = x if x.dim() == 2 else x.view(1, n)
    else:
        xv = x.reshape(rows, n)
    if xv.stride(-1) != 1:
        raise ValueError("hadacore_transform: the last dim must be contiguous")
    y = xv if inplace else torch.empty((rows, n), dtype=x.dtype, device=x.device)
    if rows == 0:
        return x if inplace else y.view(x.shape)
    scratch = torch.empty((rows, n), dtype=torch.float32, device=x.device)
    soft = x.dtype == torch.bfloat16 and x.device.type == "cpu"
    _hada_kernel[(rows,)](xv, y, scratch, xv.stride(0), y.stride(0), n, n.bit_length() - 1, float(n) ** -0.5,
                          BLOCK=min(_BLOCK, triton.next_power_of_2(n)), SOFT_BF16=soft, num_warps=4)
    if inplace:
        return x
    return y.view(x.shape)
