import torch
import triton
import triton.language as tl


@triton.jit
def _save(bo_ptr, nbo, rs, re, kv, BN, CAP):
    # append rs, rs+BN, ... < min(re, kv) when rs < kv (positions past the row's capacity are never written)
    lim = tl.minimum(re, kv)
    x = rs
    if rs < kv:
        while x < lim:
            tl.store(bo_ptr + nbo, x, mask=nbo < CAP)
            nbo += 1
            x += BN
    return nbo


@triton.jit
def _vs_kernel(qs_ptr, kvs_ptr, v_ptr, s_ptr, bc_ptr, bo_ptr, cc_ptr, ci_ptr, H, NR, NV, NS, BM, BN,
               CAUSAL: tl.constexpr):
    row = tl.program_id(0)
    m = row % NR
    bh = row // NR
    b = bh // H
    q = tl.load(qs_ptr + b)
    kv = tl.load(kvs_ptr + b)
    start = m * BM
    if start < q:
        vp = v_ptr + bh.to(tl.int64) * NV
        sp = s_ptr + bh.to(tl.int64) * NS
        bop = bo_ptr + row.to(tl.int64) * NS
        cip = ci_ptr + row.to(tl.int64) * NV
        end = start + BM
        if CAUSAL:
            off = kv - q
        else:
            off = kv
        v = tl.load(vp)
        vi = q * 0 + 1
        s = tl.load(sp)
        si = q * 0 + 1
        go = (s >= end + off) & (si < NS)
        while go:
            s = tl.load(sp + si)
            si += 1
            go = (s >= end + off) & (si < NS)
        has = s <= end + off
        s = tl.maximum(off + end - s, BM)
        if CAUSAL:
            alt = off + end
        else:
            alt = kv
        rs = tl.where(has, s - BM, alt)
        re = tl.where(has, s, alt + BN)
        done_slash = q * 0
        nbo = q * 0
        nci = q * 0
        running = q * 0 + 1
        while running > 0:
            if v < re:
                if v < rs:
                    tl.store(cip + nci, v, mask=nci < NV)
                    nci += 1
                if vi < NV:
                    v = tl.load(vp + vi)
                    vi += 1
                else:
                    v = end + BN + off
            else:
                sv = tl.load(sp + si, mask=si < NS, other=0)
                if CAUSAL:
                    take = si < NS
                else:
                    take = (si < NS) & (sv >= start)
                if take:
                    s = tl.maximum(off + end - sv, BM)
                    si += 1
                    if done_slash == 0:
                        if s > re + BM:
                            nbo = _save(bop, nbo, rs, re, kv, BN, NS)
                            rs = s - BM
                            re = s
                        elif s > re:
                            re += BM
                else:
                    if CAUSAL:
                        stop = (vi == NV) | (v > rs)
                    else:
                        stop = vi == NV
                    if stop:
                        if not CAUSAL:
                            if (vi == NV) & (v < kv):
                                tl.store(cip + nci, v, mask=nci < NV)
                                nci += 1
                        nbo = _save(bop, nbo, rs, re, kv, BN, NS)
                        running = 0
                    else:
                        if not CAUSAL:
                            nbo = _save(bop, nbo, rs, re, kv, BN, NS)
                        rs = alt
                        re = alt + BN
                        done_slash = 1
        tl.store(bc_ptr + row, nbo)
        tl.store(cc_ptr + row, nci)


def convert_vertical_slash_indexes(q_seqlens, kv_seqlens, vertical_indexes, slash_indexes, context_size,
                                   block_size_M, block_size_N, causal=True):
    B, H, NV = vertical_indexes.shape
    NS = slash_indexes.shape[2]
    NR = -(-int(context_size) // int(block_size_M))
    dt = q_seqlens.dtype
    dev = q_seqlens.device
    block_count = torch.zeros(B, H, NR, dtype=dt, device=dev)
    block_offset = torch.zeros(B, H, NR, NS, dtype=dt, device=dev)
    column_count = torch.zeros(B, H, NR, dtype=dt, device=dev)
    column_index = torch.zeros(B, H, NR, NV, dtype=dt, device=dev)
    rows = B * H * NR
    if rows > 0:
        _vs_kernel[(rows,)](q_seqlens, kv_seqlens, vertical_indexes.contiguous(), slash_indexes.contiguous(),
                            block_count, block_offset, column_count, column_index, H, NR, NV, NS,
                            int(block_size_M), int(block_size_N), CAUSAL=bool(causal), num_warps=1)
    return block_count, block_offset, column_count, column_index
