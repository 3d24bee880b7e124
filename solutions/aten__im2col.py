"""Oracle Triton solution for aten::im2col (spec: shared/spec/aten.md, section `aten::im2col`).

Wrappers: im2col, im2col_out.

Unfolds sliding blocks: input (C,H,W) or (N,C,H,W) -> (C*kh*kw, L) or (N, C*kh*kw, L), L = OH*OW; row
c*kh*kw + i*kw + j, column oh*OW + ow holds x[c, oh*sh - ph + i*dh, ow*sw - pw + j*dw], 0 outside the image.
One 2-D tiled kernel per (batch, row block, column block): the row decomposition (c, i, j) and column
decomposition (oh, ow) are computed once per tile edge, the input is read through its strides with masked
loads (zero padding), and the output is written with contiguous stores along L. Any input layout; an out=
tensor of the wrong shape is resized, a strided one written through its strides. Values are copied bit
for bit.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _im2col_kernel(x_ptr, o_ptr, R, L, H, W, OW, KW, KK, sh, sw, ph, pw, dh, dw,
                   xs0, xs1, xs2, xs3, os0, os1, os2, nrb, nlb,
                   BLOCK_R: tl.constexpr, BLOCK_L: tl.constexpr, I64: tl.constexpr):
    pid = tl.program_id(0)
    per_n = nrb * nlb
    n = pid // per_n
    rest = pid % per_n
    pr = rest // nlb
    pl = rest % nlb
    rows = pr * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pl * BLOCK_L + tl.arange(0, BLOCK_L)
    rm = rows < R
    cm = cols < L
    c = rows // KK
    ij = rows % KK
    i = ij // KW
    j = ij % KW
    oh = cols // OW
    ow = cols % OW
    ih = (oh * sh - ph)[None, :] + (i * dh)[:, None]
    iw = (ow * sw - pw)[None, :] + (j * dw)[:, None]
    ok = rm[:, None] & cm[None, :] & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
    if I64:
        src = n.to(tl.int64) * xs0 + (c.to(tl.int64) * xs1)[:, None] + ih.to(tl.int64) * xs2 + iw.to(tl.int64) * xs3
        dst = n.to(tl.int64) * os0 + (rows.to(tl.int64) * os1)[:, None] + (cols.to(tl.int64) * os2)[None, :]
    else:
        src = n * xs0 + (c * xs1)[:, None] + ih * xs2 + iw * xs3
        dst = n * os0 + (rows * os1)[:, None] + (cols * os2)[None, :]
    val = tl.load(x_ptr + src, mask=ok, other=0)
    tl.store(o_ptr + dst, val, mask=rm[:, None] & cm[None, :])


def _cdiv(a, b):
    return -(-a // b)


def _pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _span(t):
    if t.numel() == 0:
        return 0
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))


def _geometry(self, kernel_size, dilation, padding, stride):
    if self.dim() not in (3, 4):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor for input with possibly 0 batch size and "
                           f"non-zero dimensions for input, but got: {list(self.shape)}")
    kh, kw = kernel_size
    dh, dw = dilation
    ph, pw = padding
    sh, sw = stride
    if min(kh, kw, dh, dw, sh, sw) <= 0 or min(ph, pw) < 0:
        raise RuntimeError("im2col: kernel size, dilation and stride must be positive, padding non-negative")
    H, W = self.shape[-2], self.shape[-1]
    oh = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input with spatial size ({H}, {W}), kernel_size=({kh}, {kw}), dilation=({dh}, "
                           f"{dw}), padding=({ph}, {pw}), calculated shape of the array of sliding blocks as ({oh}, "
                           f"{ow}), which is too small (non-positive)")
    C = self.shape[-3]
    shape = list(self.shape[:-3]) + [C * kh * kw, oh * ow]
    return shape, (kh, kw, dh, dw, ph, pw, sh, sw, H, W, oh, ow, C)


def _im2col(self, geo, out):
    kh, kw, dh, dw, ph, pw, sh, sw, H, W, oh, ow, C = geo
    x = self if self.dim() == 4 else self.view(1, *self.shape)
    o = out if out.dim() == 3 else out.view(1, *out.shape)
    nb = x.shape[0]
    R = C * kh * kw
    L = oh * ow
    if nb * R * L == 0:
        return out
    on_cpu = self.device.type == "cpu"
    tile = 65536 if on_cpu else 4096
    block_l = min(_pow2(L), 256 if not on_cpu else tile)
    block_r = min(_pow2(R), max(1, tile // block_l))
    nrb = _cdiv(R, block_r)
    nlb = _cdiv(L, block_l)
    i64 = max(_span(x), _span(o)) >= 2 ** 31 - 65536
    warps = 8 if block_r * block_l >= 4096 else 4
    xs = list(x.stride())
    os_ = list(o.stride())
    _im2col_kernel[(nb * nrb * nlb,)](x, o, R, L, H, W, ow, kw, kh * kw, sh, sw, ph, pw, dh, dw,
                                      xs[0], xs[1], xs[2], xs[3], os_[0], os_[1], os_[2], nrb, nlb,
                                      BLOCK_R=block_r, BLOCK_L=block_l, I64=i64, num_warps=warps)
    return out


def im2col(self, kernel_size, dilation, padding, stride):
    shape, geo = _geometry(self, kernel_size, dilation, padding, stride)
    out = torch.empty(shape, dtype=self.dtype, device=self.device)
    return _im2col(self, geo, out)


def im2col_out(self, kernel_size, dilation, padding, stride, *, out):
    shape, geo = _geometry(self, kernel_size, dilation, padding, stride)
    if list(out.shape) != shape:
        out.resize_(shape)
    return _im2col(self, geo, out)
