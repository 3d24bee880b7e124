"""Oracle Triton solution for aten::upsample_nearest2d_backward (spec: shared/spec/aten.md, section
`aten::upsample_nearest2d_backward`).

Wrappers: upsample_nearest2d_backward, upsample_nearest2d_backward_grad_input.

Legacy "nearest": output row oy comes from input row src(oy) = oy if OH == IH, oy >> 1 if OH == 2·IH, else
min(floor(oy·sh), IH - 1) in fp32 with sh = fp32(1/scales_h) when scales_h is given and > 0, else
fp32(IH)/fp32(OH) divided in the kernel with IEEE rounding (likewise for columns). src is non-decreasing,
so the rows feeding input row iy are the range [lo(iy), lo(iy + 1)) with lo(i) = the first oy whose src is
>= i: i and 2i in the exact cases, a binary search over src in the others (the same float formula, so every
boundary falls where PyTorch puts it).

Gather, no atomics: a program owns a [rows, cols] tile of one (n, c) plane of grad_input, computes the row
and column ranges once per tile, and sums the grad_output block of every pixel in fp32 (fp64 for fp64),
rounding once. grad_output and grad_input may have any strides.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _src(o, I, scale, MODE: tl.constexpr):
    # MODE 0: same size; 1: exactly twice the size; 2: fp32 scale
    if MODE == 0:
        r = o
    elif MODE == 1:
        r = o // 2
    else:
        r = tl.minimum(tl.floor(o.to(tl.float32) * scale).to(tl.int32), I - 1)
    return r


@triton.jit
def _first(i, I, O, scale, MODE: tl.constexpr, STEPS: tl.constexpr):
    # the smallest o in [0, O] with src(o) >= i (src(O) counts as +inf)
    if MODE == 0:
        r = tl.minimum(i, O)
    elif MODE == 1:
        r = tl.minimum(2 * i, O)
    else:
        lo = i * 0
        hi = lo + O
        for _ in tl.static_range(STEPS):
            active = lo < hi
            mid = (lo + hi) // 2
            ge = _src(mid, I, scale, MODE) >= i
            hi = tl.where(active & ge, mid, hi)
            lo = tl.where(active & (ge == 0), mid + 1, lo)
        r = lo
    return r


@triton.jit
def _kernel(g_ptr, o_ptr, C, IH, IW, OH, OW, sh_num, sh_den, sw_num, sw_den,
            gsn, gsc, gsh, gsw, osn, osc, osh, osw,
            MODE_H: tl.constexpr, MODE_W: tl.constexpr, STEPS_H: tl.constexpr, STEPS_W: tl.constexpr,
            COMPUTE: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    plane = tl.program_id(0)
    iy = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    ix = tl.program_id(2) * BLOCK_W + tl.arange(0, BLOCK_W)
    n = plane // C
    c = plane % C
    sh = tl.math.div_rn(sh_num, sh_den)  # C++: (float)IH / OH, or (float)(1.0 / scales_h) over 1
    sw = tl.math.div_rn(sw_num, sw_den)
    ylo = _first(iy, IH, OH, sh, MODE_H, STEPS_H)
    yhi = _first(iy + 1, IH, OH, sh, MODE_H, STEPS_H)
    xlo = _first(ix, IW, OW, sw, MODE_W, STEPS_W)
    xhi = _first(ix + 1, IW, OW, sw, MODE_W, STEPS_W)
    ymask = iy < IH
    xmask = ix < IW
    yhi = tl.where(ymask, yhi, ylo)
    xhi = tl.where(xmask, xhi, xlo)
    nh = tl.max(yhi - ylo, axis=0)
    nw = tl.max(xhi - xlo, axis=0)
    gbase = g_ptr + n.to(tl.int64) * gsn + c.to(tl.int64) * gsc
    acc = tl.zeros([BLOCK_H, BLOCK_W], COMPUTE)
    for ky in range(0, nh):
        oy = ylo + ky
        ym = oy < yhi
        for kx in range(0, nw):
            ox = xlo + kx
            m = ym[:, None] & (ox < xhi)[None, :]
            v = tl.load(gbase + oy[:, None] * gsh + ox[None, :] * gsw, mask=m, other=0.0)
            acc += v.to(COMPUTE)
    obase = o_ptr + n.to(tl.int64) * osn + c.to(tl.int64) * osc
    tl.store(obase + iy[:, None] * osh + ix[None, :] * osw, acc.to(o_ptr.dtype.element_ty),
             mask=ymask[:, None] & xmask[None, :])


def _cdiv(a, b):
    return -(-a // b)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _mode(i, o, scale):
    """(MODE, scale numerator, scale denominator, binary-search steps) of one dimension; the kernel
    divides the two in fp32 (they reach it as fp32: 1/scale rounded once, or the exact sizes)."""
    if o == i:
        return 0, 1.0, 1.0, 1
    if o == 2 * i:
        return 1, 1.0, 2.0, 1
    if scale is not None and scale > 0:
        return 2, 1.0 / scale, 1.0, max(1, (o + 1).bit_length())
    return 2, float(i), float(o), max(1, (o + 1).bit_length())


def _up_bwd(grad_output, output_size, input_size, scales_h, scales_w, grad_input):
    if len(output_size) != 2 or len(input_size) != 4:
        raise RuntimeError("upsample_nearest2d_backward: output_size must have 2 and input_size 4 elements")
    OH, OW = int(output_size[0]), int(output_size[1])
    N, C, IH, IW = (int(s) for s in input_size)
    if list(grad_output.shape) != [N, C, OH, OW]:
        raise RuntimeError(f"upsample_nearest2d_backward: grad_output has shape {list(grad_output.shape)}, "
                           f"expected {[N, C, OH, OW]}")
    shape = [N, C, IH, IW]
    out = grad_input
    if out is None:
        out = torch.empty(shape, dtype=grad_output.dtype, device=grad_output.device)
    elif list(out.shape) != shape:
        out.resize_(shape)
    if out.numel() == 0:
        return out
    mh, sh_num, sh_den, steps_h = _mode(IH, OH, scales_h)
    mw, sw_num, sw_den, steps_w = _mode(IW, OW, scales_w)
    if out.device.type == "cpu":
        bw = min(_next_pow2(IW), 256)
        bh = min(_next_pow2(IH), max(1, 16384 // bw))
        warps = 4
    else:
        bw = min(_next_pow2(IW), 64)
        bh = min(_next_pow2(IH), max(1, 1024 // bw))
        warps = 4
    compute = tl.float64 if out.dtype == torch.float64 else tl.float32
    _kernel[(N * C, _cdiv(IH, bh), _cdiv(IW, bw))](
        grad_output, out, C, IH, IW, OH, OW, sh_num, sh_den, sw_num, sw_den, *grad_output.stride(), *out.stride(),
        MODE_H=mh, MODE_W=mw, STEPS_H=steps_h, STEPS_W=steps_w, COMPUTE=compute, BLOCK_H=bh, BLOCK_W=bw,
        num_warps=warps)
    return out


def upsample_nearest2d_backward(grad_output, output_size, input_size, scales_h=None, scales_w=None):
    return _up_bwd(grad_output, output_size, input_size, scales_h, scales_w, None)


def upsample_nearest2d_backward_grad_input(grad_output, output_size, input_size, scales_h=None, scales_w=None, *,
                                           grad_input):
    return _up_bwd(grad_output, output_size, input_size, scales_h, scales_w, grad_input)
