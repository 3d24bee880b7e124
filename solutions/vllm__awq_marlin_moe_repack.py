import torch
import triton
import triton.language as tl

_BLOCK_W = 256


@triton.jit
def _marlin_src(kt_row, col, ROWW, N, I: tl.constexpr, BITS: tl.constexpr, A8: tl.constexpr):
    # the logical (k, n) held by field I of word `col` of output row `kt_row` (Marlin layout, vllm.md 2.7)
    WPT: tl.constexpr = 32 * BITS  # 1024 / pf words per tile
    if A8:
        f = kt_row * ROWW + col
        tile = f // WPT
        o = f % WPT
        kt = tile // (N // 32)
        nt = tile % (N // 32)
        if BITS == 4:
            t = o // 4
            w = o % 4
            k = 32 * kt + 4 * (t % 4) + (I // 2) + 16 * (I % 2)
        else:
            t = o // 8
            w = (o % 8) // 2
            k = 32 * kt + 4 * (t % 4) + I + 16 * (o % 2)
        n = 32 * nt + 16 * (w // 2) + t // 4 + 8 * (w % 2)
    else:
        nt = col // WPT
        o = col % WPT
        if BITS == 4:
            t = o // 4
            w = o % 4
            k = 16 * kt_row + 2 * (t % 4) + 8 * (I % 2) + I // 4
            n = 64 * nt + 16 * w + t // 4 + 8 * ((I // 2) % 2)
        else:
            t = o // 8
            w = (o % 8) // 2
            k = 16 * kt_row + 2 * (t % 4) + 8 * (I % 2) + I // 2
            n = 64 * nt + 16 * w + t // 4 + 8 * (o % 2)
    return k, n


@triton.jit
def _repack_kernel(src_ptr, out_ptr, K, N, ROWW,
                   BITS: tl.constexpr, A8: tl.constexpr, BLOCK_W: tl.constexpr):
    # one program: BLOCK_W output words of one row (expert e, k-tile row kt_row); the source is AWQ-packed
    # along N: column n sits at field (0, 4, 1, 5, 2, 6, 3, 7)[n % 8] (4-bit) / (0, 2, 1, 3)[n % 4] (8-bit)
    PF: tl.constexpr = 32 // BITS
    row = tl.program_id(0)
    kt_rows = K // 16
    e = (row // kt_rows).to(tl.int64)
    kt_row = row % kt_rows
    col = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    m = col < ROWW
    acc = tl.zeros([BLOCK_W], dtype=tl.uint32)
    for i in tl.static_range(PF):
        k, n = _marlin_src(kt_row, col, ROWW, N, i, BITS, A8)
        j = n % PF
        field = j // 2 + (PF // 2) * (j % 2)
        word = tl.load(src_ptr + e * K * (N // PF) + k.to(tl.int64) * (N // PF) + n // PF, mask=m, other=0)
        v = (word.to(tl.uint32, bitcast=True) >> (field * BITS).to(tl.uint32)) & ((1 << BITS) - 1)
        acc = acc | (v << (i * BITS))
    tl.store(out_ptr + (e * kt_rows + kt_row) * ROWW + col, acc.to(tl.int32, bitcast=True), mask=m)


def awq_marlin_moe_repack(b_q_weight, perm, size_k, size_n, num_bits, is_a_8bit=False):
    if num_bits not in (4, 8):
        raise ValueError(f"awq_marlin_moe_repack: num_bits {num_bits} (4 or 8)")
    e = b_q_weight.shape[0]
    pf = 32 // num_bits
    roww = size_n * 16 // pf
    out = torch.empty((e, size_k // 16, roww), dtype=torch.int32, device=b_q_weight.device)
    if out.numel() == 0:
        return out
    src = b_q_weight.contiguous()
    grid = (e * (size_k // 16), triton.cdiv(roww, _BLOCK_W))
    _repack_kernel[grid](src, out, size_k, size_n, roww, BITS=num_bits, A8=bool(is_a_8bit), BLOCK_W=_BLOCK_W,
                         num_warps=4)
    return out
