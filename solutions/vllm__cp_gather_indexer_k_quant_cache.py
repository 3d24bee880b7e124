import torch
import triton
import triton.language as tl

_ROWS = 16


@triton.jit
def _indexer_gather_kernel(cache_ptr, dk_ptr, ds_ptr, table_ptr, cu_ptr, T, B, BS, BSTR, TSTR, KW, SW, DK_STR,
                           DS_STR, ROWS: tl.constexpr, BLOCK_B: tl.constexpr, BLOCK_K: tl.constexpr,
                           BLOCK_S: tl.constexpr):
    # all sizes and offsets in 4-byte words: KW key words and SW scale words per token
    t = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    tm = t < T
    # the sequence of each token: the number of sequence ends cu[1..B] at or before it
    b = tl.zeros([ROWS], dtype=tl.int32)
    for b0 in range(0, B, BLOCK_B):
        kk = b0 + tl.arange(0, BLOCK_B)
        ends = tl.load(cu_ptr + 1 + kk, mask=kk < B, other=2147483647)
        b += tl.sum((ends[None, :] <= t[:, None]).to(tl.int32), axis=1)
    b = tl.minimum(b, B - 1)
    i = t - tl.load(cu_ptr + b, mask=tm, other=0)
    blk = tl.load(table_ptr + b.to(tl.int64) * TSTR + i // BS, mask=tm, other=0).to(tl.int64)
    slot = (i % BS).to(tl.int64)
    base = blk * BSTR
    trow = t.to(tl.int64)
    kc = tl.arange(0, BLOCK_K)
    for c0 in range(0, KW, BLOCK_K):
        c = c0 + kc
        m = tm[:, None] & (c < KW)[None, :]
        v = tl.load(cache_ptr + (base + slot * KW)[:, None] + c[None, :], mask=m)
        tl.store(dk_ptr + (trow * DK_STR)[:, None] + c[None, :], v, mask=m)
    sc = tl.arange(0, BLOCK_S)
    m = tm[:, None] & (sc < SW)[None, :]
    v = tl.load(cache_ptr + (base + BS * KW + slot * SW)[:, None] + sc[None, :], mask=m)
    tl.store(ds_ptr + (trow * DS_STR)[:, None] + sc[None, :], v, mask=m)


def cp_gather_indexer_k_quant_cache(kv_cache, dst_k, dst_scale, block_table, cu_seq_lens):
    t, d = dst_k.shape
    sbytes = dst_scale.shape[1]
    B = block_table.shape[0]
    if t == 0 or B == 0:
        return None
    if d % 16 or sbytes % 4 or kv_cache.stride(0) % 4:
        raise ValueError("cp_gather_indexer_k_quant_cache: D must be a multiple of 16 and the scale bytes and "
                         "block stride multiples of 4")
    cache_w = kv_cache.view(torch.uint8).view(torch.int32)
    dk_w = dst_k.view(torch.uint8).view(torch.int32)
    ds_w = dst_scale.view(torch.uint8).view(torch.int32)
    kw, sw = d // 4, sbytes // 4
    grid = (triton.cdiv(t, _ROWS),)
    _indexer_gather_kernel[grid](cache_w, dk_w, ds_w, block_table, cu_seq_lens, t, B, kv_cache.shape[1],
                                 kv_cache.stride(0) // 4, block_table.stride(0), kw, sw, dk_w.stride(0),
                                 ds_w.stride(0), ROWS=_ROWS, BLOCK_B=min(64, triton.next_power_of_2(B)),
                                 BLOCK_K=min(256, triton.next_power_of_2(kw)),
                                 BLOCK_S=triton.next_power_of_2(sw), num_warps=4)
    return None
