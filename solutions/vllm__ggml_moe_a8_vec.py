import torch
import triton
import triton.language as tl

_QBLOCKS = 32   # Q8_1 blocks per quantizer program
_BN = 64        # weight rows per program


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
def _moe_vec_kernel(w_ptr, xq_ptr, xd_ptr, xs_ptr, y_ptr, topk_ptr, R, NB, top_k, stride_e,
                    BPB: tl.constexpr, IS_Q4: tl.constexpr, BN: tl.constexpr):
    # output row p = t * top_k + j (token t, slot j) x BN features, expert topk_ids[t, j]
    p = tl.program_id(0).to(tl.int64)
    rr = (tl.program_id(1) * BN + tl.arange(0, BN)).to(tl.int64)
    mr = rr < R
    e = tl.load(topk_ptr + p).to(tl.int64)
    t = p // top_k
    wexp = w_ptr + e * stride_e
    j = tl.arange(0, 32)
    acc = tl.zeros([BN], dtype=tl.float32)
    for i in range(0, NB):
        xq = tl.load(xq_ptr + t * NB * 32 + i * 32 + j).to(tl.int32)                      # [32]
        wbase = (rr * NB + i) * BPB                                                        # [BN]
        if IS_Q4:
            byte = tl.load(wexp + wbase[:, None] + 2 + (j[None, :] % 16), mask=mr[:, None], other=0).to(tl.int32)
            wq = (byte >> ((j[None, :] // 16) * 4)) & 15
        else:
            wq = tl.load(wexp + wbase[:, None] + 2 + j[None, :], mask=mr[:, None], other=0)
            wq = wq.to(tl.int8, bitcast=True).to(tl.int32)
        isum = tl.sum(wq * xq[None, :], axis=1).to(tl.float32)                             # exact [BN]
        b0 = tl.load(wexp + wbase, mask=mr, other=0).to(tl.uint16)
        b1 = tl.load(wexp + wbase + 1, mask=mr, other=0).to(tl.uint16)
        dw = (b0 | (b1 << 8)).to(tl.float16, bitcast=True).to(tl.float32)
        dx = tl.load(xd_ptr + t * NB + i).to(tl.float32)
        if IS_Q4:
            sx = tl.load(xs_ptr + t * NB + i).to(tl.float32)
            acc += dw * (isum * dx - 8.0 * sx)
        else:
            acc += (dw * dx) * isum
    tl.store(y_ptr + p * R + rr, acc.to(y_ptr.dtype.element_ty), mask=mr)


def _quantize_q8_1(x):
    rows, col = x.shape
    nb = col // 32
    xq = torch.empty((rows, col), dtype=torch.int8, device=x.device)
    xd = torch.empty((rows, nb), dtype=torch.float16, device=x.device)
    xs = torch.empty((rows, nb), dtype=torch.float16, device=x.device)
    if rows and nb:
        _q8_1_kernel[(rows, triton.cdiv(nb, _QBLOCKS))](x, xq, xd, xs, nb, x.stride(0), BLOCKS=_QBLOCKS, num_warps=4)
    return xq, xd, xs


def ggml_moe_a8_vec(X, W, topk_ids, top_k, quant_type, row, tokens):
    if quant_type not in (2, 8):
        raise ValueError(f"ggml_moe_a8_vec: quant_type {quant_type} not supported (2 = Q4_0, 8 = Q8_0)")
    col = X.shape[1]
    if col % 32:
        raise ValueError(f"ggml_moe_a8_vec: X has {col} columns, not a multiple of 32")
    y = torch.empty((tokens * top_k, row), dtype=X.dtype, device=X.device)   # every row is written below
    if tokens * top_k == 0 or row == 0:
        return y
    x = X[:tokens].contiguous()
    xq, xd, xs = _quantize_q8_1(x)
    ids = topk_ids.contiguous()
    bn = _BN   # narrower tiles where the grid would leave most SMs idle
    while bn > 16 and tokens * top_k * triton.cdiv(row, bn) < 256:
        bn //= 2
    _moe_vec_kernel[(tokens * top_k, triton.cdiv(row, bn))](W, xq, xd, xs, y, ids, row, col // 32, top_k,
                                                            W.stride(0), BPB=18 if quant_type == 2 else 34,
                                                            IS_Q4=quant_type == 2, BN=bn, num_warps=4)
    return y
