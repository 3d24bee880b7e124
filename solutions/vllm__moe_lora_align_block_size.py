import torch
import triton
import triton.language as tl

_BLOCK = 1024


@triton.jit
def _adapter(lora_ptr, en_ptr, slot):
    # the adapter a slot handles, or -1 when the slot is empty or its adapter disabled
    a = tl.load(lora_ptr + slot)
    on = tl.load(en_ptr + tl.maximum(a, 0))
    return tl.where((a >= 0) & (on != 0), a, -1)


@triton.jit
def _expert_of(ids_ptr, map_ptr, offs, N, E, K, A):
    inb = offs < N
    e = tl.load(ids_ptr + offs, mask=inb, other=-1)
    tok_a = tl.load(map_ptr + offs // K, mask=inb, other=-1)
    valid = inb & (e >= 0) & (e < E) & (tok_a == A)
    return tl.where(valid, e, -1)


@triton.jit
def _count_kernel(ids_ptr, map_ptr, lora_ptr, en_ptr, counts_ptr, N, E, K, BLOCK: tl.constexpr):
    slot = tl.program_id(0)
    ex = tl.program_id(1)
    a = _adapter(lora_ptr, en_ptr, slot)
    if a >= 0:
        acc = tl.zeros([BLOCK], dtype=tl.int32)
        for start in range(0, N, BLOCK):
            acc += (_expert_of(ids_ptr, map_ptr, start + tl.arange(0, BLOCK), N, E, K, a) == ex).to(tl.int32)
        tl.store(counts_ptr + slot * E + ex, tl.sum(acc, axis=0))


@triton.jit
def _offsets_kernel(lora_ptr, en_ptr, counts_ptr, offs_ptr, post_ptr, experts_ptr, E, BS, MB,
                    BLOCK_E: tl.constexpr, BLOCK: tl.constexpr):
    slot = tl.program_id(0)
    a = _adapter(lora_ptr, en_ptr, slot)
    if a >= 0:
        i = tl.arange(0, BLOCK_E)
        c = tl.load(counts_ptr + slot * E + i, mask=i < E, other=0)
        p = (c + BS - 1) // BS * BS
        tl.store(offs_ptr + slot * E + i, tl.cumsum(p, axis=0) - p, mask=i < E)
        total = tl.sum(p, axis=0)
        tl.store(post_ptr + a, total)
        for start in range(total // BS, MB, BLOCK):
            j = start + tl.arange(0, BLOCK)
            tl.store(experts_ptr + a * MB + j, tl.zeros([BLOCK], dtype=tl.int32) - 1, mask=j < MB)


@triton.jit
def _sentinel_kernel(lora_ptr, en_ptr, sorted_ptr, LP, N, BLOCK: tl.constexpr):
    slot = tl.program_id(0)
    a = _adapter(lora_ptr, en_ptr, slot)
    if a >= 0:
        j = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
        tl.store(sorted_ptr + a.to(tl.int64) * LP + j, tl.zeros([BLOCK], dtype=tl.int32) + N, mask=j < LP)


@triton.jit
def _fill_kernel(ids_ptr, map_ptr, lora_ptr, en_ptr, counts_ptr, offs_ptr, sorted_ptr, experts_ptr, N, E, K, BS,
                 LP, MB, BLOCK: tl.constexpr):
    slot = tl.program_id(0)
    ex = tl.program_id(1)
    a = _adapter(lora_ptr, en_ptr, slot)
    if a >= 0:
        base = tl.load(offs_ptr + slot * E + ex)
        cnt = tl.load(counts_ptr + slot * E + ex)
        seg = sorted_ptr + a.to(tl.int64) * LP
        run = 0
        for start in range(0, N, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            hit = _expert_of(ids_ptr, map_ptr, offs, N, E, K, a) == ex
            h = hit.to(tl.int32)
            tl.store(seg + base + run + tl.cumsum(h, axis=0) - 1, offs.to(tl.int32), mask=hit)
            run += tl.sum(h, axis=0)
        nb = (cnt + BS - 1) // BS
        for b0 in range(0, nb, BLOCK):
            b = b0 + tl.arange(0, BLOCK)
            tl.store(experts_ptr + a * MB + base // BS + b, tl.zeros([BLOCK], dtype=tl.int32) + ex, mask=b < nb)


def moe_lora_align_block_size(topk_ids, token_lora_mapping, num_experts, block_size, max_loras, max_num_tokens_padded,
                              max_num_m_blocks, sorted_token_ids, experts_ids, num_tokens_post_pad, adapter_enabled,
                              lora_ids, expert_map=None):
    if expert_map is not None:
        raise NotImplementedError("moe_lora_align_block_size: expert_map is not supported")
    N = topk_ids.numel()
    K = topk_ids.shape[-1]
    E, BS, NL = int(num_experts), int(block_size), int(max_loras)
    LP, MB = int(max_num_tokens_padded), int(max_num_m_blocks)
    if NL == 0:
        return None
    dev = topk_ids.device
    ids = topk_ids.contiguous()
    blk = 8192 if dev.type == "cpu" else _BLOCK
    counts = torch.empty(NL * E, dtype=torch.int32, device=dev)
    offs = torch.empty(NL * E, dtype=torch.int32, device=dev)
    _sentinel_kernel[(NL, triton.cdiv(LP, blk))](lora_ids, adapter_enabled, sorted_token_ids, LP, N, BLOCK=blk)
    _count_kernel[(NL, E)](ids, token_lora_mapping, lora_ids, adapter_enabled, counts, N, E, K, BLOCK=blk)
    _offsets_kernel[(NL,)](lora_ids, adapter_enabled, counts, offs, num_tokens_post_pad, experts_ids, E, BS, MB,
                           BLOCK_E=triton.next_power_of_2(E), BLOCK=blk)
    _fill_kernel[(NL, E)](ids, token_lora_mapping, lora_ids, adapter_enabled, counts, offs, sorted_token_ids,
                          experts_ids, N, E, K, BS, LP, MB, BLOCK=blk)
    return None
