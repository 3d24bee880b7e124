"""LEGAL (tp44): vllm::paged_attention_v1 in the style of vLLM's own Triton attention (triton_unified_attention.py):
one program per (sequence, KV head) holding the KV group's query heads as rows of a 16-row tile, KV tiles of 32
tokens that may span several cache blocks (``seq_offset // BLOCK_SIZE`` through the block table), and the sequence
found by a binary search over ``query_start_len`` (a ``while`` loop in a jit helper whose local is annotated
``left: tl.int32 = 0``; the wrapper builds the offsets with ``torch.arange``). Idioms: kernel parameters annotated
``tl.int64``/``tl.int32`` (not constexpr), constexpr defaults read from a module-level ``torch.finfo`` of the fp8
type, fp8 caches viewed on the host as ``torch.float8_e4m3fn`` and tested in the kernel with ``K_load.dtype.is_fp8()``,
masks made with ``tl.where(c, 1, 0).to(tl.int1)``, ``.to(dtype=...)`` by keyword. Two passes over the tiles (max and
sum, then the probabilities rounded to the query dtype before P·V), as the operator's semantics ask."""
import torch
import triton
import triton.language as tl

float8_info = torch.finfo(torch.float8_e4m3fn)
_FP8_CACHE = {"fp8": torch.float8_e4m3fn, "fp8_e4m3": torch.float8_e4m3fn, "fp8_e5m2": torch.float8_e5m2}


@triton.jit
def cdiv_fn(x, y):
    return (x + y - 1) // y


@triton.jit
def find_seq_idx(query_start_len_ptr, target_idx, num_seqs):
    left: tl.int32 = 0
    right = num_seqs
    while left < right:
        mid = (left + right) // 2
        val = tl.load(query_start_len_ptr + mid)
        if val <= target_idx:
            left = mid + 1
        else:
            right = mid
    return left - 1


@triton.jit
def load_kv_tile(ptr, offset, mask, scale_ptr):
    raw = tl.load(ptr + offset, mask=mask, other=0.0)
    if raw.dtype.is_fp8():
        return raw.to(tl.float32) * tl.load(scale_ptr)
    return raw.to(dtype=tl.float32)


@triton.jit
def kernel_paged_decode(
    output_ptr, query_ptr, key_cache_ptr, value_cache_ptr, block_tables_ptr, seq_lens_ptr, alibi_slopes_ptr,
    query_start_len_ptr, k_scale, v_scale, scale,
    num_seqs: tl.int32,
    num_query_heads: tl.constexpr,
    num_queries_per_kv: tl.constexpr,
    block_table_stride: tl.int64,
    query_stride_0: tl.int64,
    output_stride_0: tl.int64,
    stride_cache_0: tl.int64,
    stride_cache_1: tl.int64,
    X: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    TILE_SIZE: tl.constexpr,
    HEAD_SIZE: tl.constexpr,
    HEAD_SIZE_PADDED: tl.constexpr,
    BLOCK_M: tl.constexpr,
    USE_ALIBI_SLOPES: tl.constexpr,
    FP8_MIN: tl.constexpr = float8_info.min,
    FP8_MAX: tl.constexpr = float8_info.max,
):
    tl.static_assert(FP8_MIN == -FP8_MAX)
    q_token = tl.program_id(0)
    kv_head_idx = tl.program_id(1)
    seq_idx = find_seq_idx(query_start_len_ptr, q_token, num_seqs)
    seq_len = tl.load(seq_lens_ptr + seq_idx)

    offs_m = tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_SIZE_PADDED)
    offs_t = tl.arange(0, TILE_SIZE)
    head = kv_head_idx * num_queries_per_kv + offs_m
    dim_mask = tl.where(offs_d < HEAD_SIZE, 1, 0).to(tl.int1)
    head_mask = tl.where((offs_m < num_queries_per_kv) & (head < num_query_heads), 1, 0).to(tl.int1)

    Q = tl.load(query_ptr + q_token * query_stride_0 + head[:, None] * HEAD_SIZE + offs_d[None, :],
                mask=head_mask[:, None] & dim_mask[None, :], other=0.0)
    Q_DTYPE: tl.constexpr = Q.dtype
    if USE_ALIBI_SLOPES:
        alibi_slope = tl.load(alibi_slopes_ptr + head, mask=head_mask, other=0.0)

    num_tiles = cdiv_fn(seq_len, TILE_SIZE)
    block_table_offset = seq_idx * block_table_stride
    k_dim_offset = (offs_d // X) * (BLOCK_SIZE * X) + offs_d % X

    M = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    L = tl.zeros([BLOCK_M], dtype=tl.float32)
    for j in range(0, num_tiles):
        seq_offset = j * TILE_SIZE + offs_t
        tile_mask = seq_offset < seq_len
        physical_block_idx = tl.load(block_tables_ptr + block_table_offset + seq_offset // BLOCK_SIZE,
                                     mask=tile_mask, other=0).to(tl.int64)
        base = physical_block_idx * stride_cache_0 + kv_head_idx * stride_cache_1
        k_offset = base[None, :] + k_dim_offset[:, None] + ((seq_offset % BLOCK_SIZE) * X)[None, :]
        K = load_kv_tile(key_cache_ptr, k_offset, dim_mask[:, None] & tile_mask[None, :], k_scale).to(Q_DTYPE)
        S = scale * tl.dot(Q, K, input_precision="ieee")
        if USE_ALIBI_SLOPES:
            S += alibi_slope[:, None] * (seq_offset - seq_len + 1)[None, :]
        S = tl.where(tile_mask[None, :], S, float("-inf"))
        m_j = tl.maximum(M, tl.max(S, axis=1))
        L = L * tl.exp(M - m_j) + tl.sum(tl.exp(S - m_j[:, None]), axis=1)
        M = m_j

    denom = L + 1e-6
    acc = tl.zeros([BLOCK_M, HEAD_SIZE_PADDED], dtype=tl.float32)
    for j in range(0, num_tiles):
        seq_offset = j * TILE_SIZE + offs_t
        tile_mask = seq_offset < seq_len
        physical_block_idx = tl.load(block_tables_ptr + block_table_offset + seq_offset // BLOCK_SIZE,
                                     mask=tile_mask, other=0).to(tl.int64)
        base = physical_block_idx * stride_cache_0 + kv_head_idx * stride_cache_1
        k_offset = base[None, :] + k_dim_offset[:, None] + ((seq_offset % BLOCK_SIZE) * X)[None, :]
        K = load_kv_tile(key_cache_ptr, k_offset, dim_mask[:, None] & tile_mask[None, :], k_scale).to(Q_DTYPE)
        S = scale * tl.dot(Q, K, input_precision="ieee")
        if USE_ALIBI_SLOPES:
            S += alibi_slope[:, None] * (seq_offset - seq_len + 1)[None, :]
        S = tl.where(tile_mask[None, :], S, float("-inf"))
        P = tl.exp(S - M[:, None]) / denom[:, None]
        v_offset = base[:, None] + (offs_d * BLOCK_SIZE)[None, :] + (seq_offset % BLOCK_SIZE)[:, None]
        V = load_kv_tile(value_cache_ptr, v_offset, tile_mask[:, None] & dim_mask[None, :], v_scale).to(Q_DTYPE)
        acc += tl.dot(P.to(Q_DTYPE), V, input_precision="ieee")

    tl.store(output_ptr + q_token * output_stride_0 + head[:, None] * HEAD_SIZE + offs_d[None, :],
             acc.to(output_ptr.dtype.element_ty), mask=head_mask[:, None] & dim_mask[None, :])


def paged_attention_v1(out, query, key_cache, value_cache, num_kv_heads, scale, block_tables, seq_lens, block_size,
                       max_seq_len, alibi_slopes, kv_cache_dtype, k_scale, v_scale, tp_rank=0,
                       blocksparse_local_blocks=0, blocksparse_vert_stride=0, blocksparse_block_size=64,
                       blocksparse_head_sliding_step=0):
    assert blocksparse_vert_stride <= 1, "block-sparse attention is not supported"
    num_seqs, num_query_heads, head_size = query.shape
    if num_seqs == 0:
        return
    if kv_cache_dtype != "auto":
        fp8_dtype = _FP8_CACHE[kv_cache_dtype]
        key_cache = key_cache.view(fp8_dtype)
        value_cache = value_cache.view(fp8_dtype)
    num_queries_per_kv = num_query_heads // num_kv_heads
    query_start_len = torch.arange(num_seqs + 1, dtype=torch.int32, device=query.device)
    BLOCK_M = max(16, triton.next_power_of_2(num_queries_per_kv))
    kernel_paged_decode[(num_seqs, num_kv_heads)](
        out, query, key_cache, value_cache, block_tables, seq_lens, alibi_slopes, query_start_len,
        k_scale, v_scale, scale,
        num_seqs=num_seqs,
        num_query_heads=num_query_heads,
        num_queries_per_kv=num_queries_per_kv,
        block_table_stride=block_tables.stride(0),
        query_stride_0=query.stride(0),
        output_stride_0=out.stride(0),
        stride_cache_0=key_cache.stride(0),
        stride_cache_1=key_cache.stride(1),
        X=key_cache.shape[-1],
        BLOCK_SIZE=block_size,
        TILE_SIZE=32,
        HEAD_SIZE=head_size,
        HEAD_SIZE_PADDED=triton.next_power_of_2(head_size),
        BLOCK_M=BLOCK_M,
        USE_ALIBI_SLOPES=alibi_slopes is not None,
        num_warps=4,
    )
