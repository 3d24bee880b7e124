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
def _count_kernel(ids_ptr, map_ptr, lora_ptr, en_ptr, counts_ptr, N, E, K, BLOCK_N: tl.constexpr,
                  BLOCK_E: tl.constexpr):
    # one program per slot: the expert histogram of its adapter's entries, through a one-hot tile
    slot = tl.program_id(0)
    a = _adapter(lora_ptr, en_ptr, slot)
    if a >= 0:
        ev = tl.arange(0, BLOCK_E)
        cnt = tl.zeros([BLOCK_E], dtype=tl.int32)
        for start in range(0, N, BLOCK_N):
            e = _expert_of(ids_ptr, map_ptr, start + tl.arange(0, BLOCK_N), N, E, K, a)
            cnt += tl.sum((e[:, None] == ev[None, :]).to(tl.int32), axis=0)
        tl.store(counts_ptr + slot * E + ev, cnt, mask=ev < E)


@triton.jit
def _offsets_kernel(lora_ptr, en_ptr, counts_ptr, offs_ptr, post_ptr, experts_ptr, E, BS, MB,
                    BLOCK_E: tl.constexpr, BLOCK_J: tl.constexpr):
    slot = tl.program_id(0)
    a = _adapter(lora_ptr, en_ptr, slot)
    if a >= 0:
        ev = tl.arange(0, BLOCK_E)
        c = tl.load(counts_ptr + slot * E + ev, mask=ev < E, other=0)
        p = (c + BS - 1) // BS * BS
        ends = tl.cumsum(p, axis=0)
        tl.store(offs_ptr + slot * E + ev, ends - p, mask=ev < E)
        total = tl.sum(p, axis=0)
        tl.store(post_ptr + a, total)
        # block j belongs to the first expert whose run ends after it; -1 past the last run
        end_blk = tl.where(ev < E, ends // BS, 2147483647)
        for j0 in range(0, MB, BLOCK_J):
            j = j0 + tl.arange(0, BLOCK_J)
            ex = tl.sum((end_blk[None, :] <= j[:, None]).to(tl.int32), axis=1)
            ex = tl.where(j < total // BS, ex, -1)
            tl.store(experts_ptr + a * MB + j, ex, mask=j < MB)


@triton.jit
def _sentinel_kernel(lora_ptr, en_ptr, sorted_ptr, LP, N, BLOCK: tl.constexpr):
    slot = tl.program_id(0)
    a = _adapter(lora_ptr, en_ptr, slot)
    if a >= 0:
        j = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
        tl.store(sorted_ptr + a.to(tl.int64) * LP + j, tl.zeros([BLOCK], dtype=tl.int32) + N, mask=j < LP)


@triton.jit
def _fill_kernel(ids_ptr, map_ptr, lora_ptr, en_ptr, offs_ptr, sorted_ptr, N, E, K, LP,
                 BLOCK_N: tl.constexpr, BLOCK_E: tl.constexpr):
    # one program per slot: each entry's position = its expert's offset + its rank among that expert's entries
    slot = tl.program_id(0)
    a = _adapter(lora_ptr, en_ptr, slot)
    if a >= 0:
        ev = tl.arange(0, BLOCK_E)
        base = tl.load(offs_ptr + slot * E + ev, mask=ev < E, other=0)
        run = tl.zeros([BLOCK_E], dtype=tl.int32)
        seg = sorted_ptr + a.to(tl.int64) * LP
        for start in range(0, N, BLOCK_N):
            offs = start + tl.arange(0, BLOCK_N)
            e = _expert_of(ids_ptr, map_ptr, offs, N, E, K, a)
            oh = (e[:, None] == ev[None, :]).to(tl.int32)
            rank = tl.cumsum(oh, axis=0) - 1 + run[None, :] + base[None, :]
            pos = tl.sum(tl.where(oh != 0, rank, 0), axis=1)
            tl.store(seg + pos, offs.to(tl.int32), mask=e >= 0)
            run += tl.sum(oh, axis=0)


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
    be = triton.next_power_of_2(E)
    bn = max(16, min(1024, 16384 // be))         # one-hot tiles of at most 16K elements (a GPU keeps the cumsum in shared memory)
    counts = torch.empty(NL * E, dtype=torch.int32, device=dev)
    offs = torch.empty(NL * E, dtype=torch.int32, device=dev)
    _sentinel_kernel[(NL, triton.cdiv(LP, _BLOCK))](lora_ids, adapter_enabled, sorted_token_ids, LP, N, BLOCK=_BLOCK)
    _count_kernel[(NL,)](ids, token_lora_mapping, lora_ids, adapter_enabled, counts, N, E, K, BLOCK_N=bn, BLOCK_E=be)
    _offsets_kernel[(NL,)](lora_ids, adapter_enabled, counts, offs, num_tokens_post_pad, experts_ids, E, BS, MB,
                           BLOCK_E=be, BLOCK_J=max(16, min(256, 16384 // be)))
    _fill_kernel[(NL,)](ids, token_lora_mapping, lora_ids, adapter_enabled, offs, sorted_token_ids, N, E, K, LP,
                        BLOCK_N=bn, BLOCK_E=be)
    return None
