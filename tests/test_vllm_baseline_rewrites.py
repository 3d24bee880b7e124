"""The natives rewritten without host reads (helper bl34: one compiled graph per baseline, no device synchronisation
per timed call) compute bit for bit what they computed before, run eagerly, on the smoke cases (and a few odd
inputs). The earlier versions are kept here as frozen copies, only to compare against."""
from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite.common import generator
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.vllm import fused_rope, gguf, indexer_cache, moe_align, qgemm, rotary

CPU = torch.device("cpu")
BITS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def _same(a, b) -> bool:
    """Bit for bit: tensors of one dtype, shape and strides holding the same bytes (lists and tuples item by item)."""
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, torch.Tensor):
        return (a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
                and torch.equal(a.contiguous().view(BITS[a.element_size()]),
                                b.contiguous().view(BITS[b.element_size()])))
    return a == b


def _calls(op_id: str, tier: str = "smoke"):
    op = get_operator(op_id)
    return [op.build(p, CPU, generator(CPU, seed)) for p in op.grid(tier) for seed in (7, 8)]


def _written(c) -> list:
    return [c.args[k] for k in c.written]


# --------------------------------------------------------------------------------------- moe_align_block_size
def _old_align_native(ids, num_experts, bs, lmax, nblocks, emap=None):
    """align_native before bl34 (nonzero, bincount, int(sum), repeat_interleave: host reads)."""
    flat = ids.reshape(-1).long()
    n = flat.numel()
    valid = (flat >= 0) & (flat < num_experts)
    e = flat.clone()
    if emap is not None:
        e = torch.where(valid, emap.long()[flat.clamp(0, num_experts - 1)], torch.full_like(flat, -1))
        valid = valid & (e >= 0)
    idx = torch.nonzero(valid).flatten()
    ev = e[idx]
    counts = torch.bincount(ev, minlength=num_experts)[:num_experts]
    padded = (counts + bs - 1) // bs * bs
    offs = torch.cumsum(padded, 0) - padded
    total = int(padded.sum())
    order = torch.sort(ev, stable=True).indices
    ev_sorted, idx_sorted = ev[order], idx[order]
    rank = torch.arange(ev_sorted.numel()) - (torch.cumsum(counts, 0) - counts)[ev_sorted]
    pos = offs[ev_sorted] + rank
    sorted_ids = torch.full((lmax,), n, dtype=torch.int32)
    sorted_ids[pos] = idx_sorted.to(torch.int32)
    segment = torch.full((lmax,), -1, dtype=torch.int64)
    segment[pos] = ev_sorted
    experts = torch.zeros(nblocks, dtype=torch.int32)
    blocks = torch.repeat_interleave(torch.arange(num_experts), padded // bs)
    experts[: blocks.numel()] = blocks.to(torch.int32)
    return sorted_ids, experts, torch.tensor([total], dtype=torch.int32), segment


def test_align_native_as_before() -> None:
    cases = [(c.args[0], c.args[1], c.args[2], c.args[3].numel(), c.args[4].numel(), c.args[6])
             for c in _calls("vllm::moe_align_block_size")]
    t = torch.tensor
    for ids, e, bs, emap in [(t([[0, 5, -1], [2, 2, 9]]), 4, 4, None),          # ignored ids: >= E and negative
                             (t([[0, 1, 2, 3]]), 4, 2, t([-1, 0, -1, 1])),        # an expert map
                             (torch.zeros(0, 2), 4, 4, None),                     # no entries
                             (torch.full((3, 2), 7), 4, 2, None)]:                 # every entry ignored
        lmax = ids.numel() + e * (bs - 1)
        cases.append((ids.to(torch.int32), e, bs, lmax, -(-lmax // bs), None if emap is None else emap.int()))
    for args in cases:
        assert _same(moe_align.align_native(*args), _old_align_native(*args))
    for c in _calls("vllm::moe_align_block_size"):   # the timed baseline's writes
        c1, c2 = c.clone(), c.clone()
        moe_align._align_base(c1)
        ids, e, bs, sorted_ids, experts, post, emap = c2.args
        for out, ref in zip((sorted_ids, experts, post),
                            _old_align_native(ids, e, bs, sorted_ids.numel(), experts.numel(), emap)):
            out.copy_(ref)
        assert _same(_written(c1), _written(c2))


# ---------------------------------------------------------------------------------------------------- awq_gemm
def _old_awq_splits(inp, w, split_k_iters, acc):
    """awq_native's split partials before bl34 (a boolean row mask per split: nonzero, a host read)."""
    k = inp.shape[1]
    chunk = torch.arange(k) // 32
    parts = []
    for s in range(split_k_iters):
        rows = (chunk % split_k_iters) == s
        parts.append((inp[:, rows].to(acc) @ w[rows].to(acc)).to(torch.float16))
    partials = torch.stack(parts)
    return partials.float().sum(0).to(torch.float16), partials


@pytest.mark.parametrize("acc", [torch.float32, torch.float64])
def test_awq_native_as_before(acc) -> None:
    for c in _calls("vllm::awq_gemm"):
        inp, qweight, scales, qzeros, split = c.args
        for s in sorted({split, 1, 3, inp.shape[1] // 32 + 2}):   # more splits than chunks: empty partials
            k = inp.shape[1]
            gsize = k // scales.shape[0]
            grp = torch.arange(k) // gsize
            w = ((qgemm.awq_unpack(qweight) - qgemm.awq_unpack(qzeros)[grp]).float() * scales.float()[grp]).to(
                torch.float16)
            assert _same(qgemm.awq_native(inp, qweight, scales, qzeros, s, acc=acc), _old_awq_splits(inp, w, s, acc))


# ------------------------------------------------------------------------------------- cp_gather_indexer_k_quant
def test_indexer_gather_unchecked_as_checked() -> None:
    for c in _calls("vllm::cp_gather_indexer_k_quant_cache"):
        assert _same(indexer_cache.indexer_gather_native(*c.args, check=False),
                     indexer_cache.indexer_gather_native(*c.args))
        c1, c2 = c.clone(), c.clone()
        indexer_cache._base(c1)      # the timed baseline: unchecked
        keys, scales = indexer_cache.indexer_gather_native(*c2.args)
        c2.args[1].copy_(keys)
        c2.args[2].copy_(scales)
        assert _same(_written(c1), _written(c2))
    cache, dk, ds, table, cu = _calls("vllm::cp_gather_indexer_k_quant_cache")[0].args
    with pytest.raises(ValueError, match="cu_seq_lens ends at"):   # the reference still checks
        indexer_cache.indexer_gather_native(cache, dk, ds, table, cu + 1)


# ------------------------------------------------------------------------------------------------- ggml_moe_a8
def _old_moe_entries(sorted_ids, expert_ids, ntpp, n_ids, num_experts):
    """gguf.moe_entries before bl34 (int() of num_tokens_post_padded; the expert check always on)."""
    groups = sorted_ids.numel() // gguf.MOE_BLOCK
    s = torch.arange(groups * gguf.MOE_BLOCK)
    beta = s // gguf.MOE_BLOCK
    e = expert_ids.reshape(-1)[:groups].long()[beta]
    ids = sorted_ids.reshape(-1)[: groups * gguf.MOE_BLOCK].long()
    ok = (e >= 0) & (e <= 255) & (gguf.MOE_BLOCK * beta <= int(ntpp.reshape(-1)[0])) & (ids < n_ids) & (ids >= 0)
    if bool((ok & (e >= num_experts)).any()):
        raise ValueError(f"vllm::ggml_moe_a8: a processed group names an expert >= E = {num_experts}")
    return ids[ok], e[ok]


def test_moe_entries_as_before() -> None:
    for c in _calls("vllm::ggml_moe_a8"):
        x, w, sorted_ids, expert_ids, ntpp, qt, row, k, t = c.args
        for cut in (ntpp, ntpp - 4, ntpp * 0):   # num_tokens_post_padded as built, and cutting groups off
            want = _old_moe_entries(sorted_ids, expert_ids, cut, t * k, w.shape[0])
            assert _same(gguf.moe_entries(sorted_ids, expert_ids, cut, t * k, w.shape[0]), want)
            assert _same(gguf.moe_entries(sorted_ids, expert_ids, cut, t * k, w.shape[0], check=False), want)
        with pytest.raises(ValueError, match="names an expert"):   # the reference still checks
            gguf.moe_entries(sorted_ids, expert_ids, ntpp, t * k, 0)


# --------------------------------------------------------------------------------- rotary_embedding, fused rope
def _old_heads_view(x, ntok, heads, d, npos_dims):
    ts = x.stride(npos_dims - 1)
    hs = x.stride(-2) if x.dim() == npos_dims + 2 else d
    return x.as_strided((ntok, heads, d), (ts, hs, 1), x.storage_offset())


def _views(x, ntok, heads, d, npos):
    new, old = rotary._heads_view(x, ntok, heads, d, npos), _old_heads_view(x, ntok, heads, d, npos)
    return new, old, new.data_ptr() == old.data_ptr()


def test_rotary_heads_view_as_before() -> None:
    op = get_operator("vllm::rotary_embedding")
    padded = [op.build(p, CPU, generator(CPU, 7)) for p in op.grid("heldout") if p.get("head_pad")]
    for c in _calls("vllm::rotary_embedding") + padded:   # + the held-out case with a padded head dim
        pos, q, k, d, cache, neox = c.args
        for x in (q, k):
            if x is None:
                continue
            heads = (x.shape[-1] // d) if x.dim() == pos.dim() + 1 else x.shape[-2]
            new, old, same_ptr = _views(x, pos.numel(), heads, d, pos.dim())
            assert same_ptr and _same(new, old)
    # odd layouts: an uneven batch stride (as_strided's view), a row offset, a wider flat row
    big = torch.randn(2, 6, 3, 40)
    for x, ntok, heads, d, npos in [(big[:, ::2, :, :32], 6, 3, 32, 2), (torch.randn(3, 50)[1:, :40], 2, 5, 8, 1),
                                    (torch.randn(4, 2, 3, 16)[1:], 3, 3, 16, 1)]:
        new, old, same_ptr = _views(x, ntok, heads, d, npos)
        assert same_ptr and _same(new, old)


def test_rope_baselines_as_reference() -> None:
    """The timed rotary and fused-rope baselines write what the references compute (indices now made on the device;
    on the CPU the same tensors)."""
    for c in _calls("vllm::rotary_embedding"):
        c1 = c.clone()
        rotary._rope_base(c1)
        pos, q, k, d, cache, neox = c.args
        for x, got in ((q, c1.args[1]), (k, c1.args[2])):
            if x is None:
                continue
            heads = (x.shape[-1] // d) if x.dim() == pos.dim() + 1 else x.shape[-2]
            assert _same(_old_heads_view(got, pos.numel(), heads, d, pos.dim()).contiguous(),
                         rotary.rope_native(pos, x, heads, d, cache, neox))
    for c in _calls("vllm::fused_qk_norm_rope"):
        c1 = c.clone()
        fused_rope._base(c1)
        assert torch.equal(c1.args[0], _old_fused_base(c.clone()).args[0])


def _old_fused_base(c):
    """fused_rope._base before bl34 (host-made indices; qk_norm_rope_native's text at that time, checks left out)."""
    qkv, hq, hk, hv, d, eps, q_weight, k_weight, cache, neox, positions = c.args
    t = qkv.shape[0]
    x = qkv[:, : (hq + hk) * d].float().reshape(t, hq + hk, d)
    w = torch.cat([q_weight.float().expand(hq, d), k_weight.float().expand(hk, d)])[None]
    rr = torch.rsqrt((x * x).sum(-1, keepdim=True) / d + eps)
    y = x * (rr * w)
    e = d // 2
    pos = positions.long()
    cs = cache[pos, :e].float()[:, None, :]
    sn = cache[pos, e:d].float()[:, None, :]
    idx1, idx2 = (torch.arange(e), torch.arange(e) + e) if neox else (torch.arange(0, d, 2), torch.arange(1, d, 2))
    y1, y2 = y[..., idx1], y[..., idx2]
    out = torch.empty_like(y)
    out[..., idx1] = y1 * cs - y2 * sn
    out[..., idx2] = y2 * cs + y1 * sn
    fused_rope._qk_view(qkv, hq, hk, d).copy_(out.to(qkv.dtype))
    return c
