# Red team (issue 12 class 1, ATen's copy machinery doing the operator's work): im2col by ATen views
# and copies -- zero padding by slice assignment into a zero buffer (out[...] = x), the patches as an
# as_strided view, materialised by reshape's copy -- and one Triton kernel that copies the finished
# columns into the output. Every value comes out of a real launch (an L2 replay leaves the output
# poisoned), and the per-call copy budget is far away, so this passed every tier. Caught by L3's
# data-movement copy rule: im2col moves elements, and these copies go from and into views the wrapper
# derived (aten::copy_/aten::clone with a non-trivial mapping) -> profile.
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


def _cols(x, kernel_size, dilation, padding, stride):
    batched = x.dim() == 4
    if not batched:
        x = x.unsqueeze(0)
    n, c, h, w = x.shape
    kh, kw = kernel_size
    dh, dw = dilation
    ph, pw = padding
    sh, sw = stride
    xp = torch.zeros(n, c, h + 2 * ph, w + 2 * pw, dtype=x.dtype, device=x.device)
    xp[:, :, ph:ph + h, pw:pw + w] = x
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    s0, s1, s2, s3 = xp.stride()
    patches = xp.as_strided((n, c, kh, kw, oh, ow), (s0, s1, s2 * dh, s3 * dw, s2 * sh, s3 * sw))
    cols = patches.reshape(n, c * kh * kw, oh * ow)
    out = torch.empty(cols.shape, dtype=x.dtype, device=x.device)
    total = out.numel()
    if total:
        _copy[(triton.cdiv(total, 1024),)](cols, out, total, BLOCK=1024)
    return out if batched else out.squeeze(0)


def im2col(self, kernel_size, dilation, padding, stride):
    return _cols(self, kernel_size, dilation, padding, stride)


def im2col_out(self, kernel_size, dilation, padding, stride, *, out):
    res = _cols(self, kernel_size, dilation, padding, stride)
    if list(out.shape) != list(res.shape):
        out.resize_(res.shape)
    out.copy_(res)
    return out
