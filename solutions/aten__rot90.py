"""Oracle Triton solution for aten::rot90 (spec: shared/spec/aten.md, section `aten::rot90`).

Wrappers: rot90, rot90_out.

rot90 is a copy through a strided view with negative strides: with H = size(d0), W = size(d1) and
k mod 4,
  k = 0: out = x;
  k = 1: out[.., i@d0, .., j@d1, ..] = x[.., j@d0, .., W-1-i@d1, ..]  (flip(d1), then transpose);
  k = 2: out[i@d0, j@d1]             = x[H-1-i@d0, W-1-j@d1]         (flip both);
  k = 3: out[.., i@d0, .., j@d1, ..] = x[.., H-1-j@d0, .., i@d1, ..]  (flip(d0), then transpose).
The host turns that into one signed stride and a base offset per output dim, coalesces dims whose
input and output strides chain, and one 2-D tiled kernel copies: tile columns walk the output's last
dim (coalesced stores), tile rows the rest (up to four coalesced dims). Values are copied bit for bit
(bool as bytes). The result is contiguous (PyTorch's is a transposed view for odd k: values are what
counts); .out resizes out to the result shape and writes through its strides.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _rot_copy_kernel(x_ptr, y_ptr, base, R, C, R1, R2, R3,
                     xs0, xs1, xs2, xs3, xsc, ys0, ys1, ys2, ys3, ysc,
                     NR: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, USE_I64: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_c = tl.program_id(1)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    rmask = rows < R
    cmask = cols < C
    if USE_I64:
        rows = rows.to(tl.int64)
        cols = cols.to(tl.int64)
    rem = rows
    i = rem % R3
    rem = rem // R3
    xo = i * xs3
    yo = i * ys3
    if NR >= 2:
        i = rem % R2
        rem = rem // R2
        xo += i * xs2
        yo += i * ys2
    if NR >= 3:
        i = rem % R1
        rem = rem // R1
        xo += i * xs1
        yo += i * ys1
    if NR >= 4:
        xo += rem * xs0
        yo += rem * ys0
    m = rmask[:, None] & cmask[None, :]
    v = tl.load(x_ptr + base + xo[:, None] + cols[None, :] * xsc, mask=m)
    tl.store(y_ptr + yo[:, None] + cols[None, :] * ysc, v, mask=m)


# ----------------------------------------------------------------------------------------------
# host helpers (metadata only)


def _cdiv(a, b):
    return -(-a // b)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _plan(x, k, dims):
    """(out_shape, per-output-dim signed input strides, base offset)."""
    nd = x.dim()
    if len(dims) != 2:
        raise RuntimeError("expected total rotation dims == 2, but got dims = %d" % len(dims))
    if nd < 2:
        raise RuntimeError("expected total dims >= 2, but got total dims = %d" % nd)
    d0, d1 = int(dims[0]), int(dims[1])
    if not (-nd <= d0 < nd and -nd <= d1 < nd):
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d])" % (-nd, nd - 1))
    d0 %= nd
    d1 %= nd
    if d0 == d1:
        raise RuntimeError("expected rotation dims to be different, but got dim0 = %d and dim1 = %d" % (d0, d1))
    k = int(k) % 4
    shape = list(x.shape)
    st = list(x.stride())
    H, W = shape[d0], shape[d1]
    base = 0
    ist = list(st)
    if k == 1:
        shape[d0], shape[d1] = W, H
        ist[d0], ist[d1] = -st[d1], st[d0]
        base = (W - 1) * st[d1]
    elif k == 2:
        ist[d0], ist[d1] = -st[d0], -st[d1]
        base = (H - 1) * st[d0] + (W - 1) * st[d1]
    elif k == 3:
        shape[d0], shape[d1] = W, H
        ist[d0], ist[d1] = st[d1], -st[d0]
        base = (H - 1) * st[d0]
    return shape, ist, base


def _coalesce(sizes, xs, ys):
    dims = []
    for sz, a, b in zip(sizes, xs, ys):
        if sz == 1:
            continue
        if dims:
            psz, pa, pb = dims[-1]
            if pa == a * sz and pb == b * sz:
                dims[-1] = (psz * sz, a, b)
                continue
        dims.append((sz, a, b))
    return dims


def _rot_into(x, k, dims, out):
    shape, ist, base = _plan(x, k, dims)
    n = out.numel()
    if n == 0:
        return out
    if x.dtype == torch.bool:
        x, out_v = x.view(torch.uint8), out.view(torch.uint8)
    else:
        out_v = out
    d = _coalesce(shape, ist, list(out.stride()))
    if not d:
        d = [(1, 0, 0)]
    if len(d) > 5:
        raise NotImplementedError("rot90: more than 5 dims that do not coalesce")
    C, xsc, ysc = d[-1]
    rows = [(1, 0, 0)] * (5 - len(d)) + d[:-1]
    R = 1
    for r in rows:
        R *= r[0]
    span_x = 1 + sum((s - 1) * abs(st) for s, st in zip(x.shape, x.stride()))
    span_y = 1 + sum((s - 1) * abs(st) for s, st in zip(out.shape, out.stride()))
    use_i64 = max(span_x, span_y, n) >= 2 ** 31 - 65536
    BLOCK_C = min(_next_pow2(C), 128 if x.device.type != "cpu" else 4096)
    cap = 4096 if x.device.type != "cpu" else 65536
    BLOCK_R = max(1, min(_next_pow2(R), cap // BLOCK_C))
    grid = (_cdiv(R, BLOCK_R), _cdiv(C, BLOCK_C))
    _rot_copy_kernel[grid](
        x, out_v, base, R, C, rows[1][0], rows[2][0], rows[3][0],
        rows[0][1], rows[1][1], rows[2][1], rows[3][1], xsc,
        rows[0][2], rows[1][2], rows[2][2], rows[3][2], ysc,
        NR=max(1, len(d) - 1), BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, USE_I64=use_i64, num_warps=4)
    return out


# ----------------------------------------------------------------------------------------------
# wrappers

def rot90(self, k=1, dims=(0, 1)):
    shape = _plan(self, k, dims)[0]
    out = torch.empty(shape, dtype=self.dtype, device=self.device)
    return _rot_into(self, k, dims, out)


def rot90_out(self, k=1, dims=(0, 1), *, out):
    shape = _plan(self, k, dims)[0]
    if list(out.shape) != shape:
        out.resize_(shape)
    _rot_into(self, k, dims, out)
    return out
