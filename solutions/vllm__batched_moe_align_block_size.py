import torch
import triton
import triton.language as tl

_BLOCK = 256


@triton.jit
def _offsets_kernel(counts_ptr, offs_ptr, post_ptr, E, BS, BLOCK_E: tl.constexpr):
    i = tl.arange(0, BLOCK_E)
    c = tl.load(counts_ptr + i, mask=i < E, other=0)
    p = (c + BS - 1) // BS * BS
    tl.store(offs_ptr + i, tl.cumsum(p, axis=0) - p, mask=i < E)
    tl.store(post_ptr, tl.sum(p, axis=0))


@triton.jit
def _fill_kernel(counts_ptr, offs_ptr, sorted_ptr, experts_ptr, E, BS, MT, PP, BLOCK: tl.constexpr):
    # program e: the sentinel/-1 fill of its share (positions [e*PP, (e+1)*PP)), then, after the fill of every
    # share, its own entries; the two stages are separate launches so no program overwrites another's entries
    e = tl.program_id(0).to(tl.int64)
    for j0 in range(0, PP, BLOCK):
        j = j0 + tl.arange(0, BLOCK)
        m = j < PP
        tl.store(sorted_ptr + e * PP + j, tl.zeros([BLOCK], dtype=tl.int32) + E * MT, mask=m)
        jb = j0 + tl.arange(0, BLOCK)
        tl.store(experts_ptr + e * (PP // BS) + jb, tl.zeros([BLOCK], dtype=tl.int32) - 1, mask=jb < PP // BS)


@triton.jit
def _write_kernel(counts_ptr, offs_ptr, sorted_ptr, experts_ptr, BS, MT, BLOCK: tl.constexpr):
    e = tl.program_id(0)
    c = tl.load(counts_ptr + e)
    o = tl.load(offs_ptr + e)
    for i0 in range(0, c, BLOCK):
        i = i0 + tl.arange(0, BLOCK)
        tl.store(sorted_ptr + o + i, e * MT + i, mask=i < c)
    nb = (c + BS - 1) // BS
    for b0 in range(0, nb, BLOCK):
        b = b0 + tl.arange(0, BLOCK)
        tl.store(experts_ptr + o // BS + b, tl.zeros([BLOCK], dtype=tl.int32) + e, mask=b < nb)


def batched_moe_align_block_size(max_tokens_per_batch, block_size, expert_num_tokens, sorted_ids, expert_ids,
                                 num_tokens_post_pad):
    E = expert_num_tokens.numel()
    BS = int(block_size)
    MT = int(max_tokens_per_batch)
    PP = -(-MT // BS) * BS
    dev = expert_num_tokens.device
    offs = torch.empty(E, dtype=torch.int32, device=dev)
    _offsets_kernel[(1,)](expert_num_tokens, offs, num_tokens_post_pad, E, BS, BLOCK_E=triton.next_power_of_2(E))
    _fill_kernel[(E,)](expert_num_tokens, offs, sorted_ids, expert_ids, E, BS, MT, PP, BLOCK=_BLOCK)
    _write_kernel[(E,)](expert_num_tokens, offs, sorted_ids, expert_ids, BS, MT, BLOCK=_BLOCK)
    return None
