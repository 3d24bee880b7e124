"""LEGAL (tp44): vllm::topk_softmax in the style of Triton's own MoE routing library (triton_kernels' topk): the
expert index is packed under the probability's order-preserving bit key in one wider unsigned word, and Triton's
bitonic network picks the k largest words (``tl.topk``), sorted afterwards with ``tl.sort(descending=True)``; ties
go to the lower expert because the packed index is ``E_PAD - e``. Idioms: ``X.dtype.element_ty.primitive_bitwidth``
and ``tl.dtype(f"uint{n}")`` in a kernel body, annotated constexpr locals bound in both arms of an ``if``,
``x.dtype.is_int_unsigned()`` in ``tl.static_assert``, a jit helper returning a pair, ``tl.softmax(..., dim=1,
keep_dims=True)``, an optional row-count pointer left ``None``, an early ``return``, and a wrapper ``cdiv`` lambda."""
import triton
import triton.language as tl


@triton.jit
def _masks_like(x):
    tl.static_assert(x.dtype.is_int_unsigned(), "keys are built from the raw bits of a float")
    top: tl.constexpr = 1 << (x.dtype.primitive_bitwidth - 1)
    full: tl.constexpr = (1 << x.dtype.primitive_bitwidth) - 1
    return tl.full(x.shape, top, dtype=x.dtype), tl.full(x.shape, full, dtype=x.dtype)


@triton.jit
def _float_bits_to_key(x):
    top, full = _masks_like(x)
    return x ^ tl.where((x & top) != 0, full, top)


@triton.jit
def _key_to_float_bits(x):
    top, full = _masks_like(x)
    return x ^ tl.where((x & top) == 0, full, top)


@triton.jit
def _routing_fwd(G, stride_gm, W, I, TEI, stride_om, n_tokens, n_experts, NRows,
                 K: tl.constexpr, K_PAD: tl.constexpr, E_PAD: tl.constexpr, BLOCK_M: tl.constexpr,
                 RENORM: tl.constexpr):
    pid = tl.program_id(0)
    n_rows = n_tokens
    if NRows is not None:
        n_rows = tl.load(NRows)
    if pid * BLOCK_M >= n_rows:
        return
    tl.static_assert(E_PAD < 65536)
    p_nbits: tl.constexpr = 32
    p_utype: tl.constexpr = tl.dtype(f"uint{p_nbits}")
    if p_nbits < 32:
        w_nbits: tl.constexpr = 32
    else:
        w_nbits: tl.constexpr = p_nbits * 2
    w_utype: tl.constexpr = tl.dtype(f"uint{w_nbits}")
    g_nbits: tl.constexpr = G.dtype.element_ty.primitive_bitwidth
    tl.static_assert(g_nbits <= 32)

    offs_m = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_e = tl.arange(0, E_PAD)
    mask_m = offs_m[:, None] < n_rows
    mask_e = offs_e[None, :] < n_experts
    g_ptrs = G + offs_m[:, None].to(tl.int64) * stride_gm + offs_e[None, :]
    logits = tl.load(g_ptrs, mask=mask_m & mask_e, other=float("-inf")).to(tl.float32)
    logits = tl.where(mask_m, logits, 0.0)  # rows past the end stay finite (never stored)
    probs = tl.softmax(logits, dim=1, keep_dims=True)

    key = _float_bits_to_key(probs.to(p_utype, bitcast=True))
    packed = (key.to(w_utype) << 16) | (E_PAD - offs_e)[None, :].to(w_utype)
    best = tl.topk(packed, K_PAD, dim=1)
    best = tl.sort(best, dim=1, descending=True)

    experts = (E_PAD - (best & 0xFFFF)).to(tl.int32)
    weights = _key_to_float_bits((best >> 16).to(p_utype)).to(tl.float32, bitcast=True)
    offs_k = tl.arange(0, K_PAD)
    mask_k = offs_k[None, :] < K
    if RENORM:
        total = tl.sum(tl.where(mask_k, weights, 0.0), axis=1, keep_dims=True)
        weights = weights / tl.where(total > 0.0, total, 1.0)

    out = offs_m[:, None].to(tl.int64) * stride_om + offs_k[None, :]
    tl.store(W + out, weights, mask=mask_m & mask_k)
    tl.store(I + out, experts.to(I.dtype.element_ty), mask=mask_m & mask_k)
    tl.store(TEI + out, offs_k[None, :] * n_rows + offs_m[:, None], mask=mask_m & mask_k)


def topk_softmax(topk_weights, topk_ids, token_expert_indices, gating_output, renormalize=False):
    cdiv = lambda a, b: (a + b - 1) // b  # noqa: E731
    n_experts = gating_output.shape[-1]
    x = gating_output.reshape(-1, n_experts)
    if x.stride(-1) != 1:
        x = x.contiguous()
    n_tokens = x.shape[0]
    k = topk_weights.shape[-1]
    assert k <= n_experts and n_experts < 32768
    if n_tokens == 0 or k == 0:
        return
    BLOCK_M = 8
    E_PAD = max(16, triton.next_power_of_2(n_experts))
    K_PAD = triton.next_power_of_2(k)
    grid = (cdiv(n_tokens, BLOCK_M),)
    _routing_fwd[grid](x, x.stride(0), topk_weights, topk_ids, token_expert_indices, k, n_tokens, n_experts, None,
                       K=k, K_PAD=K_PAD, E_PAD=E_PAD, BLOCK_M=BLOCK_M, RENORM=bool(renormalize), num_warps=4)
