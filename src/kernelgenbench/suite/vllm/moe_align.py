"""vLLM MoE block alignment (vllm.md §3: moe_align_block_size, batched_moe_align_block_size,
moe_lora_align_block_size): token ids grouped by expert into block-padded runs. References are pure PyTorch written
from the spec; ``sorted_token_ids`` is judged run by run in any order (:func:`_segment_check`)."""
from __future__ import annotations

from typing import Any

import torch

from ..compare import SlotResult, outside_untouched
from ..function import FunctionOperator
from ..spec import (
    EXACT,
    Call,
    Cost,
    Expected,
    Interface,
    product,
    written_expected,
)
from ..tensors import poison_
from .common import baseline as _baseline
from .common import baseline_label


# ----------------------------------------------------------------------------------- moe_align_block_size
def _align_lmax(p: dict[str, Any]) -> int:
    return p["t"] * p["k"] + p["e"] * (p["bs"] - 1)


def _align_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    t, k, e, bs = p["t"], p["k"], p["e"], p["bs"]
    hi = e - 1 if p.get("empty_expert") else e      # the last expert gets no entry
    ids = torch.randint(0, hi, (t, k), generator=gen, device=device, dtype=torch.int64).to(torch.int32)
    emap = None
    if p.get("expert_map") is not None:
        m = p["expert_map"]
        if m == "half":  # every other global expert is local, numbered in order
            local = torch.arange(e, device=device) % 2 == 0
            emap = torch.where(local, torch.cumsum(local.long(), 0) - 1, torch.full((e,), -1, device=device))
        else:
            emap = torch.tensor(m, device=device)
        emap = emap.to(torch.int32)
    lmax = _align_lmax(p)
    sorted_ids = poison_(torch.empty(lmax, dtype=torch.int32, device=device))
    experts = poison_(torch.empty(-(-lmax // bs), dtype=torch.int32, device=device))
    post = poison_(torch.empty(1, dtype=torch.int32, device=device))
    return Call([ids, e, bs, sorted_ids, experts, post, emap], written=(3, 4, 5))


def align_native(ids: torch.Tensor, num_experts: int, bs: int, lmax: int, nblocks: int,
                 emap: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """``moe_align_block_size`` in its canonical order (vllm.md § moe_align_block_size): ``(sorted_token_ids
    [lmax], experts_ids [nblocks], num_tokens_post_pad [1], segment [lmax])`` where ``segment[j]`` is the
    expert whose real entries occupy position j (-1 for sentinel positions); entries of one expert come in
    flat-index order, though any order within a segment is right."""
    flat = ids.reshape(-1).long()
    n = flat.numel()
    dev = ids.device
    valid = (flat >= 0) & (flat < num_experts)
    e = flat.clone()
    if emap is not None:
        e = torch.where(valid, emap.long()[flat.clamp(0, num_experts - 1)], torch.full_like(flat, -1))
        valid = valid & (e >= 0)
    # Static shapes throughout (no host read, one compiled graph): every entry is kept, the ignored ones under the
    # key num_experts (a bucket past the last expert, sorted last and written nowhere). The same runs as selecting
    # the valid entries first: the stable sort keeps flat-index order within each expert.
    key = torch.where(valid, e, torch.full_like(e, num_experts))
    counts_all = torch.zeros(num_experts + 1, dtype=torch.int64, device=dev).scatter_add_(
        0, key, torch.ones_like(key))
    counts = counts_all[:num_experts]
    padded = (counts + bs - 1) // bs * bs
    offs = torch.cumsum(padded, 0) - padded
    order = torch.sort(key, stable=True).indices
    key_sorted = key[order]
    rank = torch.arange(n, device=dev) - (torch.cumsum(counts_all, 0) - counts_all)[key_sorted]
    kept = key_sorted < num_experts
    # the ignored entries go to position lmax of a buffer one longer, cut off below
    pos = torch.where(kept, offs[key_sorted.clamp(max=num_experts - 1)] + rank, lmax)
    sorted_ids = torch.full((lmax + 1,), n, dtype=torch.int32, device=dev)
    sorted_ids[pos] = order.to(torch.int32)
    segment = torch.full((lmax + 1,), -1, dtype=torch.int64, device=dev)
    segment[pos] = torch.where(kept, key_sorted, -1)
    # block j belongs to the expert whose padded run holds position j*bs: the number of runs ending (in blocks) at or
    # before j (num_experts past the padded total P: 0 there)
    ends = torch.cumsum(padded // bs, 0)
    blocks = torch.searchsorted(ends, torch.arange(nblocks, device=dev), right=True)
    experts = torch.where(blocks < num_experts, blocks, 0).to(torch.int32)
    total = padded.sum().reshape(1).to(torch.int32)
    return sorted_ids[:lmax], experts, total, segment[:lmax]


def _segment_check(ref: torch.Tensor, segment: torch.Tensor, sentinel: int) -> Any:
    """The judge of ``sorted_token_ids``: at every position where ``segment`` is negative exactly the reference
    (the sentinel; or the poison of a segment nothing may write), and in each run (``segment`` >= 0, one value
    per run) the same entries as the reference in any order."""
    def check(actual: Any, out: dict[str, Any]) -> SlotResult:
        if not isinstance(actual, torch.Tensor) or actual.shape != ref.shape or actual.dtype != ref.dtype:
            return SlotResult(False, f"arg.3 (sorted_token_ids): expected int32 {list(ref.shape)}, got "
                                     f"{getattr(actual, 'dtype', type(actual).__name__)} "
                                     f"{list(getattr(actual, 'shape', []))}")
        a = actual.to(ref.device).long()
        seg = segment.to(ref.device)
        pad = seg < 0
        bad = torch.nonzero(pad & (a != ref.long())).flatten()
        if bad.numel():
            j = int(bad[0])
            what = f"the sentinel {sentinel}" if int(ref[j]) == sentinel else "their bits (nothing may write there)"
            return SlotResult(False, f"arg.3 (sorted_token_ids): {bad.numel()} positions outside the expert runs do "
                                     f"not hold {what}; first at {j}: got {int(a[j])}, expected {int(ref[j])}")
        real = torch.nonzero(~pad).flatten()
        # an entry of a run is a token index (0 <= id < sentinel) or the sentinel: anything else fails before the
        # runs are compared as multisets (red team 32: a clamp here read -7 as token 0 and any huge id as the
        # sentinel; vLLM's fused MoE indexes rows with a negative id)
        outside = real[(a[real] < 0) | (a[real] > sentinel)]
        if outside.numel():
            j = int(outside[0])
            return SlotResult(False, f"arg.3 (sorted_token_ids): {outside.numel()} entries of the expert runs are "
                                     f"neither a token index (0..{sentinel - 1}) nor the sentinel {sentinel}; first "
                                     f"at {j}: got {int(a[j])}, expected {int(ref[j])}")
        scale = sentinel + 1
        got = torch.sort(seg[real] * scale + a[real]).values
        want = torch.sort(seg[real] * scale + ref.long()[real]).values
        if not torch.equal(got, want):
            k = int(torch.nonzero(got != want).flatten()[0])
            return SlotResult(False, f"arg.3 (sorted_token_ids): expert {int(want[k] // scale)}'s segment does not "
                                     f"hold the same entries as the reference (in any order): e.g. entry "
                                     f"{int(want[k] % scale)} expected, got {int(got[k] % scale)}")
        return SlotResult(True, rule="exact (entries of each expert's segment in any order; sentinel elsewhere)")
    return check


def _align_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    ids, e, bs, sorted_ids, experts, post, emap = call.args
    rs, rexp, rpost, seg = align_native(ids, e, bs, sorted_ids.numel(), experts.numel(), emap)
    return [Expected("arg.3", rs, EXACT,
                     check=outside_untouched("arg.3", sorted_ids, _segment_check(rs, seg, ids.numel()))),
            written_expected("arg.4", experts, rexp, EXACT), written_expected("arg.5", post, rpost, EXACT)]


def _align_base(c: Call) -> None:
    ids, e, bs, sorted_ids, experts, post, emap = c.args
    rs, rexp, rpost, _ = align_native(ids, e, bs, sorted_ids.numel(), experts.numel(), emap)
    sorted_ids.copy_(rs)
    experts.copy_(rexp)
    post.copy_(rpost)


MOE_ALIGN_BLOCK_SIZE = FunctionOperator(
    "moe_align_block_size", source="vllm", category="moe routing", section="vllm.md § vllm::moe_align_block_size",
    semantics="N = T*k; flat entry i < N has expert e = topk_ids_flat[i] (ignored if e >= num_experts; with "
              "expert_map, e = expert_map[e] and -1 is ignored). c_e = entries of expert e, p_e = ceil(c_e/bs)*bs, "
              "o_e = sum of p_e' for e' < e, P = sum p_e. sorted_token_ids: the sentinel N everywhere except "
              "[o_e, o_e + c_e), which holds the flat indices of expert e's entries in any order; experts_ids[j] = e "
              "for j in [o_e/bs, (o_e + p_e)/bs), 0 for j in [P/bs, ceil(Lmax/bs)); num_tokens_post_pad[0] = P.",
    interface=Interface(
        function="moe_align_block_size",
        params=("topk_ids", "num_experts", "block_size", "sorted_token_ids", "experts_ids", "num_tokens_post_pad",
                "expert_map"),
        defaults={"expert_map": None}, written=("sorted_token_ids", "experts_ids", "num_tokens_post_pad"),
        returns="None",
        args_doc={"topk_ids": "int32 [T, k] contiguous", "num_experts": "int E (the global count when expert_map "
                  "is given), ceil(E/32)*32 < 1024", "block_size": "int bs",
                  "sorted_token_ids": "written; int32 [Lmax], Lmax = T*k + E*(bs-1)",
                  "experts_ids": "written; int32 [ceil(Lmax/bs)]", "num_tokens_post_pad": "written; int32 [1]",
                  "expert_map": "None or int32 [E] global -> local expert id (-1 = not local)"}),
    grids={
        "smoke": [
            dict(t=5, k=2, e=4, bs=4, empty_expert=True),
            dict(t=3, k=1, e=4, bs=8, expert_map=[-1, 0, 1, -1]),
            dict(t=16, k=4, e=8, bs=16),
        ],
        "full": product(t=[128, 1024, 4096, 6152, 11575, 16384], e=[4, 8, 16, 32, 64], bs=[8, 16, 32, 64],
                        k=[2, 4, 10]),
        "heldout": [
            dict(t=2256, k=8, e=257, bs=128),
            dict(t=1, k=16, e=160, bs=64),
            dict(t=4096, k=32, e=256, bs=32, expert_map="half"),
        ],
    },
    build=_align_build, reference=_align_ref,
    cost=lambda p: Cost(0.0, 4 * (2 * p["t"] * p["k"] + _align_lmax(p) + -(-_align_lmax(p) // p["bs"]))),
    timed=lambda p: p["t"] >= 1024,
    baseline=_baseline("moe_align_block_size", _align_base), label=baseline_label,
    dtypes=lambda p: {torch.int32},
    notes="experts_ids is sized ceil(Lmax/bs) (upstream: floor(Lmax/bs), which vLLM may overrun by one entry); "
          "outputs arrive poisoned rather than uninitialised; sorted_token_ids is judged per expert segment in any "
          "order, the sentinel everywhere else.",
)

# ------------------------------------------------------------------------------ batched_moe_align_block_size
def _batched_p(p: dict[str, Any]) -> int:
    return -(-p["max_tokens"] // p["bs"]) * p["bs"]


def _batched_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    e, bs, mt = p["e"], p["bs"], p["max_tokens"]
    if isinstance(p.get("counts"), list):
        counts = torch.tensor(p["counts"], device=device)
    else:
        counts = torch.randint(1, max(2, mt // 2), (e,), generator=gen, device=device)
        if p.get("counts") == "edges" and e >= 2:
            counts[0], counts[-1] = 0, mt
    pp = _batched_p(p)
    sorted_ids = poison_(torch.empty(e * pp, dtype=torch.int32, device=device))
    expert_ids = poison_(torch.empty(e * pp // bs, dtype=torch.int32, device=device))
    post = poison_(torch.empty(1, dtype=torch.int32, device=device))
    return Call([mt, bs, counts.to(torch.int32), sorted_ids, expert_ids, post], written=(3, 4, 5))


def batched_native(mt: int, bs: int, counts: torch.Tensor, n_sorted: int, n_blocks: int
                   ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``batched_moe_align_block_size``'s ``(sorted_ids, expert_ids, num_tokens_post_pad)``: the sentinel
    E*max_tokens and -1 everywhere, then ``sorted_ids[o_e + i] = e*max_tokens + i`` (i < c_e) and
    ``expert_ids[o_e/bs + b] = e`` (b < p_e/bs), with ``p_e = ceil(c_e/bs)*bs`` and ``o_e`` their prefix sums."""
    e = counts.numel()
    c = counts.long()
    padded = (c + bs - 1) // bs * bs
    offs = torch.cumsum(padded, 0) - padded
    sorted_ids = torch.full((n_sorted,), e * mt, dtype=torch.int64, device=counts.device)
    experts = torch.full((n_blocks,), -1, dtype=torch.int64, device=counts.device)
    for ex in range(e):
        n = int(c[ex])
        o = int(offs[ex])
        sorted_ids[o: o + n] = ex * mt + torch.arange(n, device=counts.device)
        experts[o // bs: (o + int(padded[ex])) // bs] = ex
    return (sorted_ids.to(torch.int32), experts.to(torch.int32),
            torch.tensor([int(padded.sum())], dtype=torch.int32, device=counts.device))


def _batched_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    mt, bs, counts, sorted_ids, experts, post = call.args
    rs, re, rp = batched_native(mt, bs, counts, sorted_ids.numel(), experts.numel())
    return [written_expected("arg.3", sorted_ids, rs, EXACT), written_expected("arg.4", experts, re, EXACT),
            written_expected("arg.5", post, rp, EXACT)]


def segment_of(ends: torch.Tensor, n: int) -> torch.Tensor:
    """For positions j < n, the number of ``ends`` at or before j (int64 ``[n]``): the index of the segment
    holding j when ``ends`` are the non-decreasing segment ends. A scatter of ones and a prefix sum (no
    searchsorted, no host sync)."""
    hits = torch.zeros(n + 1, dtype=torch.long, device=ends.device)
    hits.index_add_(0, ends.long().clamp(0, n), torch.ones_like(ends, dtype=torch.long))
    return torch.cumsum(hits, 0)[:n]


def batched_baseline(mt: int, bs: int, counts: torch.Tensor, sorted_ids: torch.Tensor, experts: torch.Tensor,
                     post: torch.Tensor) -> None:
    """The timed baseline of ``batched_moe_align_block_size``: :func:`batched_native` without its loop over
    experts. Position j lies in expert e(j)'s padded segment (:func:`segment_of` over the segment ends);
    block b's expert is e(b*bs) (the segments start at multiples of bs)."""
    e = counts.numel()
    c = counts.long()
    padded = (c + bs - 1) // bs * bs
    ends = torch.cumsum(padded, 0)
    offs = ends - padded
    j = torch.arange(sorted_ids.numel(), device=counts.device)
    seg = segment_of(ends, max(j.numel(), experts.numel() * bs))
    ej = seg[: j.numel()]
    ec = ej.clamp(max=e - 1)
    i = j - offs[ec]
    sorted_ids.copy_(torch.where((ej < e) & (i < c[ec]), ec * mt + i, e * mt))
    eb = seg[torch.arange(experts.numel(), device=counts.device) * bs]
    experts.copy_(torch.where(eb < e, eb, -1))
    post.copy_(padded.sum().reshape(1))


def _batched_base(c: Call) -> None:
    batched_baseline(*c.args)


BATCHED_MOE_ALIGN_BLOCK_SIZE = FunctionOperator(
    "batched_moe_align_block_size", source="vllm", category="moe routing",
    section="vllm.md § vllm::batched_moe_align_block_size",
    semantics="SNT = E*max_tokens_per_batch; p_e = ceil(c_e/bs)*bs, o_e = sum of p_e' for e' < e. Every entry of "
              "sorted_ids is SNT and every entry of expert_ids -1, except sorted_ids[o_e + i] = e*max_tokens + i for "
              "i < c_e and expert_ids[o_e/bs + b] = e for b < p_e/bs; num_tokens_post_pad[0] = sum p_e. Every output "
              "element is written.",
    interface=Interface(
        function="batched_moe_align_block_size",
        params=("max_tokens_per_batch", "block_size", "expert_num_tokens", "sorted_ids", "expert_ids",
                "num_tokens_post_pad"),
        written=("sorted_ids", "expert_ids", "num_tokens_post_pad"), returns="None",
        args_doc={"max_tokens_per_batch": "int", "block_size": "int bs",
                  "expert_num_tokens": "int32 [E], E <= 1024, each count <= max_tokens_per_batch",
                  "sorted_ids": "written; int32 [E*P], P = ceil(max_tokens/bs)*bs",
                  "expert_ids": "written; int32 [E*P/bs]", "num_tokens_post_pad": "written; int32 [1]"}),
    grids={
        "smoke": [
            dict(e=3, bs=4, max_tokens=8, counts=[0, 5, 8]),
            dict(e=1, bs=16, max_tokens=16),
            dict(e=5, bs=8, max_tokens=24),
        ],
        "full": [dict(e=e, bs=bs, max_tokens=mt) for e, bs, mt in
                 [(4, 4, 32), (8, 8, 64), (16, 4, 128), (8, 4, 256), (32, 8, 128), (32, 8, 64), (64, 8, 128),
                  (64, 16, 256), (128, 16, 256)]],
        "heldout": [
            dict(e=256, bs=64, max_tokens=512, counts="edges"),
            dict(e=1024, bs=16, max_tokens=64, counts="edges"),
        ],
    },
    build=_batched_build, reference=_batched_ref,
    cost=lambda p: Cost(0.0, 4 * (p["e"] + p["e"] * _batched_p(p) * (1 + 1 / p["bs"]) + 1)),
    timed=lambda p: p["e"] >= 16 and p["max_tokens"] >= 128,
    baseline=_baseline("batched_moe_align_block_size", _batched_base), label=baseline_label,
    dtypes=lambda p: {torch.int32},
    notes="Outputs arrive poisoned rather than zero-initialised: every element must be written. The timed native "
          "baseline is a vectorized PyTorch statement of the reference (each position's expert from a prefix sum "
          "over the padded segment ends; the reference loops over the experts).",
)

# ------------------------------------------------------------------------------- moe_lora_align_block_size
def _lora_sizes(p: dict[str, Any]) -> tuple[int, int]:
    lp = p["t"] * p["k"] + p["e"] * p["bs"]
    lp = -(-lp // p["bs"]) * p["bs"]
    return lp, lp // p["bs"]


def _lora_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    t, k, e, bs, nl = p["t"], p["k"], p["e"], p["bs"], p["loras"]
    ids = torch.randint(0, e, (t, k), generator=gen, device=device).to(torch.int32)
    lora_ids = torch.tensor(p["lora_ids"], device=device) if "lora_ids" in p else torch.arange(nl, device=device)
    n_adapters = int(lora_ids.max()) + 1
    enabled = torch.ones(n_adapters, dtype=torch.int32, device=device)
    for a in p.get("disabled", []):
        enabled[a] = 0
    active = lora_ids[lora_ids >= 0]
    mapping = active[torch.randint(0, active.numel(), (t,), generator=gen, device=device)].to(torch.int32)
    lp, mb = _lora_sizes(p)
    segs = max(nl, n_adapters)  # segment L belongs to adapter id L
    sorted_ids = poison_(torch.empty(segs * lp, dtype=torch.int32, device=device))
    experts = poison_(torch.empty(segs * mb, dtype=torch.int32, device=device))
    post = poison_(torch.empty(segs, dtype=torch.int32, device=device))
    return Call([ids, mapping, e, bs, nl, lp, mb, sorted_ids, experts, post, enabled, lora_ids.to(torch.int32), None],
                written=(7, 8, 9))


def lora_native(ids, mapping, e, bs, nl, lp, mb, sorted_ids, experts, post, enabled, lora_ids, emap
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """``moe_lora_align_block_size``'s outputs from the given (poisoned) buffers: for each slot with adapter
    L = lora_ids[slot] != -1 enabled, moe_align_block_size over the entries of L's tokens (global flat indices,
    sentinel T*k) into segment L, unused block ids -1, num_tokens_post_pad[L] = P_L; other segments untouched.
    Returns ``(sorted, experts, post, segment, experts_mask, post_mask)``; ``segment`` as :func:`align_native`'s,
    made unique per adapter, and -1 outside the runs."""
    k = ids.shape[-1]
    n = ids.numel()
    s_out, e_out, p_out = sorted_ids.clone(), experts.clone(), post.clone()
    seg = torch.full(s_out.shape, -1, dtype=torch.int64, device=ids.device)
    em = torch.zeros(e_out.shape, dtype=torch.bool, device=ids.device)
    pm = torch.zeros(p_out.shape, dtype=torch.bool, device=ids.device)
    tok_adapter = mapping.long().repeat_interleave(k)
    for slot in range(nl):
        a = int(lora_ids[slot])
        if a < 0 or int(enabled[a]) == 0:
            continue
        masked = torch.where(tok_adapter.reshape(ids.shape) == a, ids.long(), torch.full_like(ids.long(), e))
        rs, rex, rp, sg = align_native(masked, e, bs, lp, mb, emap)
        total = int(rp[0])
        rex[total // bs:] = -1
        s_out[a * lp:(a + 1) * lp] = rs
        seg[a * lp:(a + 1) * lp] = torch.where(sg >= 0, sg + a * (e + 1), sg)
        e_out[a * mb:(a + 1) * mb] = rex
        em[a * mb:(a + 1) * mb] = True
        p_out[a] = total
        pm[a] = True
    assert n == ids.numel()
    return s_out, e_out, p_out, seg, em, pm


def _lora_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    from .kv_cache import storage_expected

    s_out, e_out, p_out, seg, em, pm = lora_native(*call.args)
    return [Expected("arg.7", s_out, EXACT,
                     check=outside_untouched("arg.7", call.args[7], _segment_check(s_out, seg, call.args[0].numel()))),
            storage_expected("arg.8", call.args[8], e_out, em), storage_expected("arg.9", call.args[9], p_out, pm)]


def lora_baseline(ids, mapping, e, bs, nl, lp, mb, sorted_ids, experts, post, enabled, lora_ids, emap) -> None:
    """The timed baseline of ``moe_lora_align_block_size``: :func:`lora_native` without its loop over the slots.
    Every entry gets the key L*E + expert (L its token's adapter; invalid entries and adapters of no enabled slot
    a key past the end), one stable sort orders them by (adapter, expert, flat index) as the reference's
    per-adapter :func:`align_native` does, and the positions, block experts and totals follow from per-adapter
    prefix sums. Active segments are rewritten whole, the others with their own bits; no host sync."""
    dev = ids.device
    n = ids.numel()
    segs = post.numel()
    la = lora_ids[:nl].long()
    slot_ok = (la >= 0) & (enabled.long()[la.clamp(min=0)] != 0)
    active = torch.zeros(segs, dtype=torch.long, device=dev).index_add_(0, la.clamp(0, segs - 1),
                                                                        slot_ok.long()) > 0
    flat = ids.reshape(-1).long()
    valid = (flat >= 0) & (flat < e)
    ex = flat
    if emap is not None:
        ex = torch.where(valid, emap.long()[flat.clamp(0, e - 1)], torch.full_like(flat, -1))
        valid = valid & (ex >= 0)
    ad = mapping.long()[:, None].expand(mapping.numel(), n // mapping.numel()).reshape(-1)
    valid = valid & (ad >= 0) & (ad < segs) & active[ad.clamp(0, segs - 1)]
    nk = segs * e
    key = torch.where(valid, ad * e + ex, nk)
    counts = torch.zeros(nk + 1, dtype=torch.long, device=dev).index_add_(0, key, torch.ones_like(key))[:nk]
    padded = (counts + bs - 1) // bs * bs
    ends = torch.cumsum(padded.view(segs, e), 1)
    offs = (ends - padded.view(segs, e)).reshape(-1)
    order = torch.sort(key, stable=True).indices
    ks = key[order]
    kc = ks.clamp(max=nk - 1)
    rank = torch.arange(n, device=dev) - (torch.cumsum(counts, 0) - counts)[kc]
    pos = torch.where(ks < nk, (kc // e) * lp + offs[kc] + rank, segs * lp)   # segs*lp: a dump slot
    rows = sorted_ids.view(segs, lp)
    buf = torch.cat([torch.where(active[:, None], n, rows).reshape(-1), rows.new_zeros(1)])
    buf[pos] = order.to(buf.dtype)
    sorted_ids.copy_(buf[: segs * lp])
    # block b of adapter L: expert = #{ends of L <= b*bs} (ends are multiples of bs), -1 from P_L/bs on
    ends_b = (ends // bs).clamp(max=mb) + torch.arange(segs, device=dev)[:, None] * mb
    eb = segment_of(ends_b.reshape(-1), segs * mb).view(segs, mb) - torch.arange(segs, device=dev)[:, None] * e
    total = ends[:, -1] if e > 0 else torch.zeros(segs, dtype=torch.long, device=dev)
    b = torch.arange(mb, device=dev)
    blocks = torch.where(b[None, :] < (total // bs)[:, None], eb, -1)
    erows = experts.view(segs, mb)
    erows.copy_(torch.where(active[:, None], blocks, erows))
    post.copy_(torch.where(active, total, post))


def _lora_base(c: Call) -> None:
    lora_baseline(*c.args)


MOE_LORA_ALIGN_BLOCK_SIZE = FunctionOperator(
    "moe_lora_align_block_size", source="vllm", category="moe routing (lora)",
    section="vllm.md § vllm::moe_lora_align_block_size",
    semantics="for each slot l < max_loras with adapter L = lora_ids[l] != -1 and adapter_enabled[L] != 0: over the "
              "entries of tokens t with token_lora_mapping[t] == L (global flat index i = t*k + j), "
              "moe_align_block_size into segment L: sorted_token_ids[L*Lp:(L+1)*Lp] = the sentinel T*k except the "
              "expert runs (any order inside a run); experts_ids[L*MB + b] = the expert of block b for b < P_L/bs, -1 "
              "for b in [P_L/bs, MB); num_tokens_post_pad[L] = P_L. Disabled or empty slots write nothing.",
    interface=Interface(
        function="moe_lora_align_block_size",
        params=("topk_ids", "token_lora_mapping", "num_experts", "block_size", "max_loras", "max_num_tokens_padded",
                "max_num_m_blocks", "sorted_token_ids", "experts_ids", "num_tokens_post_pad", "adapter_enabled",
                "lora_ids", "expert_map"),
        defaults={"expert_map": None}, written=("sorted_token_ids", "experts_ids", "num_tokens_post_pad"),
        returns="None",
        args_doc={"topk_ids": "int32 [T, k]", "token_lora_mapping": "int32 [T]: the adapter id of each token",
                  "num_experts": "int E", "block_size": "int bs", "max_loras": "int",
                  "max_num_tokens_padded": "int Lp (segment length)", "max_num_m_blocks": "int MB",
                  "sorted_token_ids": "written; int32 [segments*Lp]; segment L belongs to adapter id L",
                  "experts_ids": "written; int32 [segments*MB]", "num_tokens_post_pad": "written; int32 [segments]",
                  "adapter_enabled": "int32 [>= max adapter id + 1]",
                  "lora_ids": "int32 [>= max_loras]: the adapter of each slot (-1 = empty; distinct)",
                  "expert_map": "None (the graded cases pass none)"}),
    grids={
        "smoke": [
            dict(t=8, k=2, e=4, bs=4, loras=2),
            dict(t=6, k=1, e=4, bs=4, loras=3, lora_ids=[2, -1, 0], disabled=[2]),
            dict(t=12, k=3, e=8, bs=4, loras=3, lora_ids=[1, 0, 2]),
        ],
        "full": [dict(t=t, k=k, e=e, bs=bs, loras=nl) for t, k, e, bs, nl in
                 [(16, 2, 8, 4, 2), (32, 2, 8, 8, 4), (64, 4, 16, 4, 2), (128, 2, 16, 8, 4), (128, 4, 16, 4, 2),
                  (32, 4, 8, 4, 2), (256, 4, 16, 8, 4), (256, 2, 16, 4, 2), (128, 2, 32, 8, 4), (64, 2, 8, 4, 2)]],
        "heldout": [
            dict(t=4096, k=6, e=256, bs=16, loras=32),
            dict(t=100, k=6, e=64, bs=16, loras=2),
        ],
    },
    build=_lora_build, reference=_lora_ref,
    cost=lambda p: Cost(0.0, 4 * (p["t"] * p["k"] + p["loras"] * sum(_lora_sizes(p)))),
    timed=lambda p: p["t"] >= 128 and p["e"] >= 16,
    baseline=_baseline("moe_lora_align_block_size", _lora_base), label=baseline_label,
    dtypes=lambda p: {torch.int32},
    notes="Full tier: well-formed inputs on the upstream axes (random token-to-adapter mapping over max_loras "
          "adapters, lora_ids = arange, all enabled, one segment per adapter), not the upstream test's all-zero "
          "lora_ids/adapter_enabled (adapter 0 disabled: nothing written; vllm.md §2.10). Lp = T*k + E*bs rounded up "
          "to bs, MB = Lp/bs. Outputs arrive poisoned: a disabled segment must stay so. The timed native baseline is "
          "a vectorized PyTorch statement of the reference (one stable sort by (adapter, expert) and per-adapter "
          "prefix sums; the reference runs moe_align_block_size once per slot).",
)

OPERATORS = [MOE_ALIGN_BLOCK_SIZE, BATCHED_MOE_ALIGN_BLOCK_SIZE, MOE_LORA_ALIGN_BLOCK_SIZE]
