import torch
import triton
import triton.language as tl

_QBLOCKS = 32   # Q8_1 blocks per quantizer program


@triton.jit
def _q8_1_kernel(x_ptr, xq_ptr, xd_ptr, xs_ptr, NB, stride_x, BLOCKS: tl.constexpr):
    # Q8_1 of one row, BLOCKS blocks of 32: d = amax / 127 (IEEE), q = roundf(x / d) (half away from zero),
    # s = sum x; d and s stored as fp16
    row = tl.program_id(0).to(tl.int64)
    blk = tl.program_id(1) * BLOCKS + tl.arange(0, BLOCKS)
    bm = blk < NB
    j = tl.arange(0, 32)
    offs = blk[:, None] * 32 + j[None, :]
    x = tl.load(x_ptr + row * stride_x + offs, mask=bm[:, None], other=0.0).to(tl.float32)
    amax = tl.max(tl.abs(x), axis=1)
    s = tl.sum(x, axis=1)
    d = tl.math.div_rn(amax, tl.zeros_like(amax) + 127.0)
    safe = tl.where(amax == 0.0, 1.0, d)
    v = tl.math.div_rn(x, safe[:, None] + tl.zeros_like(x))
    t = v.to(tl.int32)                      # truncation toward zero (|v| <= 127)
    f = v - t.to(tl.float32)                # exact
    q = t + (f >= 0.5).to(tl.int32) - (f <= -0.5).to(tl.int32)
    q = tl.where(amax[:, None] == 0.0, 0, q)
    tl.store(xq_ptr + row * NB * 32 + offs, q.to(tl.int8), mask=bm[:, None])
    tl.store(xd_ptr + row * NB + blk, d.to(tl.float16), mask=bm)
    tl.store(xs_ptr + row * NB + blk, s.to(tl.float16), mask=bm)


@triton.jit
def _mm_kernel(w_ptr, xq_ptr, xd_ptr, xs_ptr, y_ptr, B, R, NB,
               BPB: tl.constexpr, IS_Q4: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rb = (pid_m * BM + tl.arange(0, BM)).to(tl.int64)
    rr = (pid_n * BN + tl.arange(0, BN)).to(tl.int64)
    mb = rb < B
    mr = rr < R
    j = tl.arange(0, 32)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for i in range(0, NB):
        xq = tl.load(xq_ptr + rb[:, None] * NB * 32 + i * 32 + j[None, :], mask=mb[:, None], other=0)   # int8
        wbase = (rr * NB + i) * BPB                                                                     # [BN]
        # weight quants loaded [BN, 32] (each row's 32 bytes contiguous), transposed for the dot
        if IS_Q4:
            byte = tl.load(w_ptr + wbase[:, None] + 2 + (j[None, :] % 16), mask=mr[:, None], other=0).to(tl.int32)
            wq = ((byte >> ((j[None, :] // 16) * 4)) & 15).to(tl.int8)                                    # [BN, 32]
        else:
            wq = tl.load(w_ptr + wbase[:, None] + 2 + j[None, :], mask=mr[:, None], other=0).to(tl.int8, bitcast=True)
        isum = tl.dot(xq, tl.trans(wq)).to(tl.float32)       # exact integer block sums [BM, BN]
        b0 = tl.load(w_ptr + wbase, mask=mr, other=0).to(tl.uint16)
        b1 = tl.load(w_ptr + wbase + 1, mask=mr, other=0).to(tl.uint16)
        dw = (b0 | (b1 << 8)).to(tl.float16, bitcast=True).to(tl.float32)
        dx = tl.load(xd_ptr + rb * NB + i, mask=mb, other=0.0).to(tl.float32)
        if IS_Q4:
            sx = tl.load(xs_ptr + rb * NB + i, mask=mb, other=0.0).to(tl.float32)
            acc += dw[None, :] * (isum * dx[:, None] - 8.0 * sx[:, None])
        else:
            acc += (dx[:, None] * dw[None, :]) * isum
    tl.store(y_ptr + rb[:, None] * R + rr[None, :], acc.to(y_ptr.dtype.element_ty), mask=mb[:, None] & mr[None, :])


def quantize_q8_1(x):
    rows, col = x.shape
    nb = col // 32
    xq = torch.empty((rows, col), dtype=torch.int8, device=x.device)
    xd = torch.empty((rows, nb), dtype=torch.float16, device=x.device)
    xs = torch.empty((rows, nb), dtype=torch.float16, device=x.device)
    if rows and nb:
        _q8_1_kernel[(rows, triton.cdiv(nb, _QBLOCKS))](x, xq, xd, xs, nb, x.stride(0), BLOCKS=_QBLOCKS, num_warps=4)
    return xq, xd, xs


def ggml_mul_mat_a8(W, X, quant_type, row):
    if quant_type not in (2, 8):
        raise ValueError(f"ggml_mul_mat_a8: quant_type {quant_type} not supported (2 = Q4_0, 8 = Q8_0)")
    B, col = X.shape
    if col % 32:
        raise ValueError(f"ggml_mul_mat_a8: X has {col} columns, not a multiple of 32")
    x = X.contiguous()
    y = torch.empty((B, row), dtype=X.dtype, device=X.device)
    if B == 0 or row == 0:
        return y
    xq, xd, xs = quantize_q8_1(x)
    bm = min(64, max(16, triton.next_power_of_2(B)))
    bn = 64   # narrower tiles where the grid would leave most SMs idle
    while bn > 16 and triton.cdiv(B, bm) * triton.cdiv(row, bn) < 256:
        bn //= 2
    _mm_kernel[(triton.cdiv(B, bm), triton.cdiv(row, bn))](W.reshape(-1), xq, xd, xs, y, B, row, col // 32,
                                                          BPB=18 if quant_type == 2 else 34, IS_Q4=quant_type == 2,
                                                          BM=bm, BN=bn, num_warps=4)
    return y
