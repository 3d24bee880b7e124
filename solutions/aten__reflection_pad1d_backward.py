"""Oracle Triton solution for aten::reflection_pad1d_backward (spec: shared/spec/aten.md, section
`aten::reflection_pad1d_backward`).

Wrappers: reflection_pad1d_backward, reflection_pad1d_backward_grad_input.

grad_input (N, C, W) or (C, W) gathers, for each input position i, the grad_output positions that reflect
onto it: j = i + pl always; j = pl - i when 1 <= i <= pl (left pad); j = pl + 2(W - 1) - i when
W - 1 - pr <= i <= W - 2 (right pad). At most three terms, summed in fp32 (fp64 for fp64) and rounded
once: no zero-fill pass and no atomics. One kernel over [rows, positions] tiles; grad_output and
grad_input may have any strides.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _kernel(g_ptr, o_ptr, R, C, W, pl, pr, gsn, gsc, gsw, osn, osc, osw,
            COMPUTE: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_W: tl.constexpr, USE_I64: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_w = tl.program_id(1)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_w * BLOCK_W + tl.arange(0, BLOCK_W)
    if USE_I64:
        rows = rows.to(tl.int64)
        cols = cols.to(tl.int64)
    rmask = rows < R
    cmask = cols < W
    n = rows // C
    c = rows % C
    gb = (n * gsn + c * gsc)[:, None]
    m = rmask[:, None] & cmask[None, :]
    i = cols[None, :]
    acc = tl.load(g_ptr + gb + (i + pl) * gsw, mask=m, other=0.0).to(COMPUTE)
    left = m & (i >= 1) & (i <= pl)
    acc += tl.load(g_ptr + gb + (pl - i) * gsw, mask=left, other=0.0).to(COMPUTE)
    right = m & (i >= W - 1 - pr) & (i <= W - 2)
    acc += tl.load(g_ptr + gb + (pl + 2 * (W - 1) - i) * gsw, mask=right, other=0.0).to(COMPUTE)
    ob = (n * osn + c * osc)[:, None]
    tl.store(o_ptr + ob + i * osw, acc.to(o_ptr.dtype.element_ty), mask=m)


def _cdiv(a, b):
    return -(-a // b)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _span(t):
    if t.numel() == 0:
        return 0
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))


def _pad_bwd(grad_output, self, padding, grad_input):
    if self.dim() not in (2, 3):
        raise RuntimeError(f"reflection_pad1d_backward: expected 2D or 3D input, got {self.dim()}D")
    pl, pr = int(padding[0]), int(padding[1])
    W = self.shape[-1]
    if pl >= W or pr >= W or pl < 0 or pr < 0:
        raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                           f"but got: padding ({pl}, {pr}) at dimension 1 of input {list(self.shape)}")
    wo = W + pl + pr
    if grad_output.shape[-1] != wo or list(grad_output.shape[:-1]) != list(self.shape[:-1]):
        raise RuntimeError(f"grad_output has shape {list(grad_output.shape)}, expected "
                           f"{list(self.shape[:-1]) + [wo]}")
    out = grad_input
    if out is None:
        out = torch.empty(self.shape, dtype=grad_output.dtype, device=grad_output.device)
    elif list(out.shape) != list(self.shape):
        out.resize_(self.shape)
    if out.numel() == 0:
        return out
    if self.dim() == 3:
        N, C = self.shape[0], self.shape[1]
        gsn, gsc, gsw = grad_output.stride()
        osn, osc, osw = out.stride()
    else:
        N, C = 1, self.shape[0]
        gsn, (gsc, gsw) = 0, grad_output.stride()
        osn, (osc, osw) = 0, out.stride()
    R = N * C
    if out.device.type == "cpu":
        bw = min(_next_pow2(W), 1024)
        br = min(_next_pow2(R), max(1, 65536 // bw))
        warps = 4
    else:
        bw = min(_next_pow2(W), 512)
        br = min(_next_pow2(R), max(1, 2048 // bw))
        warps = 4 if br * bw <= 1024 else 8
    big = max(_span(grad_output), _span(out)) + 65536 >= 2 ** 31
    compute = tl.float64 if out.dtype == torch.float64 else tl.float32
    _kernel[(_cdiv(R, br), _cdiv(W, bw))](grad_output, out, R, C, W, pl, pr, gsn, gsc, gsw, osn, osc, osw,
                                          COMPUTE=compute, BLOCK_R=br, BLOCK_W=bw, USE_I64=big, num_warps=warps)
    return out


def reflection_pad1d_backward(grad_output, self, padding):
    return _pad_bwd(grad_output, self, padding, None)


def reflection_pad1d_backward_grad_input(grad_output, self, padding, *, grad_input):
    return _pad_bwd(grad_output, self, padding, grad_input)
