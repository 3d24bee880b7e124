import torch
import triton
import triton.language as tl

_BLOCK = 1024


@triton.jit
def _expert_of(ids_ptr, map_ptr, offs, N, E, HAS_MAP: tl.constexpr):
    inb = offs < N
    e = tl.load(ids_ptr + offs, mask=inb, other=-1).to(tl.int32)
    valid = inb & (e >= 0) & (e < E)
    if HAS_MAP:
        e = tl.load(map_ptr + e, mask=valid, other=-1)
        valid = valid & (e >= 0)
    return tl.where(valid, e, -1)


@triton.jit
def _count_kernel(ids_ptr, map_ptr, counts_ptr, N, E, HAS_MAP: tl.constexpr, BLOCK: tl.constexpr):
    ex = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for start in range(0, N, BLOCK):
        e = _expert_of(ids_ptr, map_ptr, start + tl.arange(0, BLOCK), N, E, HAS_MAP)
        acc += (e == ex).to(tl.int32)
    tl.store(counts_ptr + ex, tl.sum(acc, axis=0))


@triton.jit
def _offsets_kernel(counts_ptr, offs_ptr, post_ptr, experts_ptr, E, BS, NBLK,
                    BLOCK_E: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK_E)
    c = tl.load(counts_ptr + i, mask=i < E, other=0)
    p = (c + BS - 1) // BS * BS
    incl = tl.cumsum(p, axis=0)
    tl.store(offs_ptr + i, incl - p, mask=i < E)
    total = tl.sum(p, axis=0)
    tl.store(post_ptr, total)
    # unused block ids after the last expert's blocks are 0
    for start in range(total // BS, NBLK, BLOCK):
        j = start + tl.arange(0, BLOCK)
        tl.store(experts_ptr + j, tl.zeros([BLOCK], dtype=tl.int32), mask=j < NBLK)


@triton.jit
def _sentinel_kernel(sorted_ptr, LMAX, N, BLOCK: tl.constexpr):
    j = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(sorted_ptr + j, tl.zeros([BLOCK], dtype=tl.int32) + N, mask=j < LMAX)


@triton.jit
def _fill_kernel(ids_ptr, map_ptr, counts_ptr, offs_ptr, sorted_ptr, experts_ptr, N, E, BS,
                 HAS_MAP: tl.constexpr, BLOCK: tl.constexpr):
    ex = tl.program_id(0)
    base = tl.load(offs_ptr + ex)
    cnt = tl.load(counts_ptr + ex)
    run = 0
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        hit = _expert_of(ids_ptr, map_ptr, offs, N, E, HAS_MAP) == ex
        h = hit.to(tl.int32)
        pos = base + run + tl.cumsum(h, axis=0) - 1
        tl.store(sorted_ptr + pos, offs.to(tl.int32), mask=hit)
        run += tl.sum(h, axis=0)
    nb = (cnt + BS - 1) // BS
    for b0 in range(0, nb, BLOCK):
        b = b0 + tl.arange(0, BLOCK)
        tl.store(experts_ptr + base // BS + b, tl.zeros([BLOCK], dtype=tl.int32) + ex, mask=b < nb)


def moe_align_block_size(topk_ids, num_experts, block_size, sorted_token_ids, experts_ids, num_tokens_post_pad,
                         expert_map=None):
    N = topk_ids.numel()
    E = int(num_experts)
    BS = int(block_size)
    dev = topk_ids.device
    lmax = sorted_token_ids.numel()
    nblk = min(experts_ids.numel(), -(-lmax // BS))
    ids = topk_ids.contiguous()
    has_map = expert_map is not None
    counts = torch.empty(E, dtype=torch.int32, device=dev)
    offs = torch.empty(E, dtype=torch.int32, device=dev)
    mp = expert_map if has_map else ids
    # the CPU interpreter runs programs one at a time: fewer, larger blocks there
    blk = 8192 if dev.type == "cpu" else _BLOCK
    _sentinel_kernel[(triton.cdiv(lmax, blk),)](sorted_token_ids, lmax, N, BLOCK=blk)
    _count_kernel[(E,)](ids, mp, counts, N, E, HAS_MAP=has_map, BLOCK=blk)
    _offsets_kernel[(1,)](counts, offs, num_tokens_post_pad, experts_ids, E, BS, nblk,
                          BLOCK_E=triton.next_power_of_2(E), BLOCK=blk)
    _fill_kernel[(E,)](ids, mp, counts, offs, sorted_token_ids, experts_ids, N, E, BS, HAS_MAP=has_map,
                       BLOCK=blk)
    return None
