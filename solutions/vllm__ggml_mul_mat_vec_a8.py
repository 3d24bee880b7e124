import torch
import triton
import triton.language as tl

_QBLOCKS = 32   # Q8_1 blocks per quantizer program
_BN = 64        # weight rows per GEMV program


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
def _mv_kernel(w_ptr, xq_ptr, xd_ptr, xs_ptr, y_ptr, R, NB,
               BPB: tl.constexpr, IS_Q4: tl.constexpr, BN: tl.constexpr):
    # one activation row b, BN weight rows; per block: integer dot of 32 quants, then the fp32 block formula
    b = tl.program_id(0).to(tl.int64)
    rr = (tl.program_id(1) * BN + tl.arange(0, BN)).to(tl.int64)
    mr = rr < R
    j = tl.arange(0, 32)
    acc = tl.zeros([BN], dtype=tl.float32)
    for i in range(0, NB):
        xq = tl.load(xq_ptr + b * NB * 32 + i * 32 + j).to(tl.int32)                  # [32]
        wbase = (rr * NB + i) * BPB                                                    # [BN]
        if IS_Q4:
            byte = tl.load(w_ptr + wbase[:, None] + 2 + (j[None, :] % 16), mask=mr[:, None], other=0).to(tl.int32)
            wq = (byte >> ((j[None, :] // 16) * 4)) & 15
        else:
            wq = tl.load(w_ptr + wbase[:, None] + 2 + j[None, :], mask=mr[:, None], other=0)
            wq = wq.to(tl.int8, bitcast=True).to(tl.int32)
        isum = tl.sum(wq * xq[None, :], axis=1).to(tl.float32)                         # exact [BN]
        b0 = tl.load(w_ptr + wbase, mask=mr, other=0).to(tl.uint16)
        b1 = tl.load(w_ptr + wbase + 1, mask=mr, other=0).to(tl.uint16)
        dw = (b0 | (b1 << 8)).to(tl.float16, bitcast=True).to(tl.float32)
        dx = tl.load(xd_ptr + b * NB + i).to(tl.float32)
        if IS_Q4:
            sx = tl.load(xs_ptr + b * NB + i).to(tl.float32)
            acc += dw * (isum * dx - 8.0 * sx)
        else:
            acc += (dw * dx) * isum
    tl.store(y_ptr + b * R + rr, acc.to(y_ptr.dtype.element_ty), mask=mr)


def ggml_mul_mat_vec_a8(W, X, quant_type, row):
    if quant_type not in (2, 8):
        raise ValueError(f"ggml_mul_mat_vec_a8: quant_type {quant_type} not supported (2 = Q4_0, 8 = Q8_0)")
    B, col = X.shape
    if col % 32:
        raise ValueError(f"ggml_mul_mat_vec_a8: X has {col} columns, not a multiple of 32")
    x = X.contiguous()
    y = torch.empty((B, row), dtype=X.dtype, device=X.device)
    nb = col // 32
    if B == 0 or row == 0:
        return y
    xq = torch.empty((B, col), dtype=torch.int8, device=X.device)
    xd = torch.empty((B, nb), dtype=torch.float16, device=X.device)
    xs = torch.empty((B, nb), dtype=torch.float16, device=X.device)
    if nb:
        _q8_1_kernel[(B, triton.cdiv(nb, _QBLOCKS))](x, xq, xd, xs, nb, x.stride(0), BLOCKS=_QBLOCKS, num_warps=4)
    bn = _BN   # narrower tiles where the grid would leave most SMs idle
    while bn > 16 and B * triton.cdiv(row, bn) < 256:
        bn //= 2
    _mv_kernel[(B, triton.cdiv(row, bn))](W.reshape(-1), xq, xd, xs, y, row, nb,
                                          BPB=18 if quant_type == 2 else 34, IS_Q4=quant_type == 2, BN=bn,
                                          num_warps=4)
    return y
