"""vLLM KV-cache gathers (vllm.md §3: cp_gather_cache, gather_and_maybe_dequant_cache), split from
:mod:`.kv_cache`, whose fp8 modes and written-storage judge (:func:`~.kv_cache.storage_expected`) they share.
References are pure PyTorch written from the spec (fp8 sources dequantised as ``rd_T(float(fp8) * scale)``)."""
from __future__ import annotations

from typing import Any

import torch

from ..common import make_tensor
from ..function import FunctionOperator
from ..spec import EXACT_ATOL, Call, Cost, Expected, Interface, dtype_of
from ..tensors import poison_
from .common import baseline, baseline_label, esize
from .kv_cache import FP8_MODES, storage_expected


# ----------------------------------------------------------------------------------------- cp_gather_cache
def _gather_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    nb, bs, h, d, b = p["nb"], p["bs"], p["h"], p["d"], p["b"]
    dt = dtype_of(p["dtype"])
    if dt == torch.uint8:
        src = torch.randint(0, 256, (nb, bs, h, d), generator=gen, device=device).to(torch.uint8)
    else:
        src = make_tensor([nb, bs, h, d], dt, device, gen)
    starts = p.get("seq_starts")
    if p.get("lengths") == "random":
        maxb = p.get("maxb", 4)
        st = (torch.randint(0, bs * 2, (b,), generator=gen, device=device) if starts == "random"
              else torch.zeros(b, dtype=torch.int64, device=device))
        lens = torch.stack([torch.randint(1, int(maxb * bs - s) + 1, (1,), generator=gen, device=device)[0]
                            for s in st.tolist()])
    elif isinstance(p.get("lengths"), list):
        lens = torch.tensor(p["lengths"], device=device)
        st = torch.tensor(starts, device=device) if isinstance(starts, list) else torch.zeros(b, dtype=torch.int64,
                                                                                            device=device)
        maxb = int(((lens + st + bs - 1) // bs).max())
    else:  # upstream: two full blocks per sequence
        maxb = 2
        lens = torch.full((b,), 2 * bs, device=device)
        st = torch.zeros(b, dtype=torch.int64, device=device)
    table = torch.randint(0, nb, (b, maxb), generator=gen, device=device).to(torch.int32)
    cu = torch.cat([torch.zeros(1, dtype=torch.int64, device=device), torch.cumsum(lens, 0)]).to(torch.int32)
    total = int(cu[-1])
    rows = total + p.get("extra_rows", 0)
    if p.get("dst_pad"):
        dst = poison_(torch.empty(rows, h * d + p["dst_pad"], dtype=dt, device=device))[:, : h * d].unflatten(1, (h, d))
    else:
        dst = poison_(torch.empty(rows, h, d, dtype=dt, device=device))
    seq_starts = st.to(torch.int32) if starts is not None else None
    return Call([src, dst, table, cu, p.get("batch_size", b), seq_starts], written=(1,))


def gather_native(src, dst, table, cu, batch, starts) -> tuple[torch.Tensor, torch.Tensor]:
    """``dst`` after ``cp_gather_cache`` and the mask of its written rows: row ``cu[b] + i`` = entry
    ``(table[b, p // BS], p mod BS)`` of ``src`` with ``p = i + starts[b]``, for ``b < batch``."""
    bs = src.shape[1]
    new = dst.clone()
    mask = torch.zeros(dst.shape, dtype=torch.bool, device=dst.device)
    for b in range(batch):
        n = int(cu[b + 1] - cu[b])
        if n <= 0:
            continue
        pos = torch.arange(n, device=src.device) + (int(starts[b]) if starts is not None else 0)
        blk = table[b].long()[pos // bs]
        rows = int(cu[b]) + torch.arange(n, device=src.device)
        new[rows] = src[blk, pos % bs]
        mask[rows] = True
    return new, mask


def _gather_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    new, mask = gather_native(*call.args)
    return [storage_expected("arg.1", call.args[1], new, mask)]


def gather_baseline(src, dst, table, cu, batch, starts) -> None:
    """The timed baseline of ``cp_gather_cache``: :func:`gather_native` without its loop over sequences. Row r
    of dst belongs to sequence b(r) = #{j in 1..batch: cu[j] <= r} (a scatter of ones at the sequence ends and a
    prefix sum; cu is non-decreasing, as the interface requires) and is written when cu[0] <= r and
    b(r) < batch; every other row is rewritten with its own bits. No host sync, no data-dependent shape."""
    if batch <= 0:
        return
    bs = src.shape[1]
    n = dst.shape[0]
    dev = dst.device
    cu = cu.long()
    ends = torch.zeros(n + 1, dtype=torch.long, device=dev)
    ends.index_add_(0, cu[1: batch + 1].clamp(0, n), torch.ones(batch, dtype=torch.long, device=dev))
    r = torch.arange(n, device=dev)
    b = torch.cumsum(ends, 0)[:n]
    ok = (r >= cu[0]) & (b < batch)
    b = b.clamp(max=batch - 1)
    pos = r - cu[b] + (starts.long()[b] if starts is not None else 0)
    pos = torch.where(ok, pos, torch.zeros_like(pos))
    vals = src[table.long()[b, pos // bs], pos % bs]
    dst.copy_(torch.where(ok.reshape((n,) + (1,) * (dst.dim() - 1)), vals, dst))


def _gather_base(c: Call) -> None:
    gather_baseline(*c.args)


CP_GATHER_CACHE = FunctionOperator(
    "cp_gather_cache", source="vllm", category="kv cache gather", section="vllm.md § vllm::cp_gather_cache",
    atol_text=EXACT_ATOL,
    semantics="for b < batch_size, i in [0, cu[b+1] - cu[b]): p = i + (seq_starts[b] if given else 0); blk = "
              "block_table[b, p // BS]; dst[cu[b] + i, ...] = src_cache[blk, p mod BS, ...] (raw bits). Rows of dst "
              "outside [cu[0], cu[batch_size]) stay untouched.",
    interface=Interface(
        function="cp_gather_cache", params=("src_cache", "dst", "block_table", "cu_seq_lens", "batch_size",
                                            "seq_starts"),
        defaults={"seq_starts": None}, written=("dst",), returns="None",
        args_doc={"src_cache": "[NB, BS, *E], element size 1, 2 or 4 bytes; block stride stride(0), token stride "
                               "stride(1), each entry contiguous",
                  "dst": "written; [Ttot, *E] same dtype; row stride dst.stride(0), entry contiguous",
                  "block_table": "int32 [B, maxb]", "cu_seq_lens": "int32 [B+1], non-decreasing",
                  "batch_size": "int (sequences processed)",
                  "seq_starts": "None or int32 [B]: token offset into each sequence's block list"}),
    grids={
        "smoke": [
            dict(nb=4, bs=4, h=1, d=8, b=2, dtype="fp32", lengths=[5, 2], seq_starts=[0, 3]),
            dict(nb=3, bs=8, h=2, d=4, b=1, dtype="uint8"),
            dict(nb=5, bs=4, h=2, d=8, b=3, dtype="fp16", lengths=[3, 0, 6], seq_starts=[1, 0, 2], batch_size=2,
                 extra_rows=2),
        ],
        "full": [dict(nb=nb, bs=bs, h=h, d=d, b=b, dtype="fp16") for nb, bs, h, d, b in
                 [(8, 16, 4, 64, 2), (16, 16, 8, 128, 2), (32, 32, 4, 64, 4), (16, 32, 8, 64, 2), (32, 16, 4, 128, 4),
                  (64, 16, 4, 64, 4), (64, 32, 8, 128, 4), (128, 32, 8, 256, 8)]],
        "heldout": [
            dict(nb=512, bs=64, h=1, d=576, b=16, dtype="bf16", lengths="random", seq_starts="random", maxb=4),
            dict(nb=64, bs=16, h=8, d=128, b=5, dtype="fp32", dst_pad=32),
        ],
    },
    build=_gather_build, reference=_gather_ref,
    cost=lambda p: Cost(0.0, 2 * p["b"] * 2 * p["bs"] * p["h"] * p["d"] * esize(p["dtype"])),
    timed=lambda p: p["nb"] >= 32 and p["b"] >= 4,
    baseline=baseline("cp_gather_cache", _gather_base), label=baseline_label, data_movement=True,
    notes="dst arrives poisoned rather than zeroed (upstream: zeros), so rows outside the gathered range are "
          "checked untouched. The timed native baseline is a vectorized PyTorch statement of the reference (each "
          "row's sequence from a prefix sum over the sequence ends; the reference loops over the sequences).",
)

# --------------------------------------------------------------------------- gather_and_maybe_dequant_cache
def _gd_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    nb, bs, b = p["nb"], p["bs"], p["b"]
    ent = 576
    dt = dtype_of(p["dtype"])
    mode = p.get("kv", "auto")
    if mode == "auto":
        src = make_tensor([nb, bs, 1, ent], dt, device, gen)
    else:
        src = make_tensor([nb, bs, 1, ent], "fp32", device, gen).to(FP8_MODES[mode][0]).view(torch.uint8)
    starts = p.get("seq_starts")
    if p.get("lengths") == "random":
        maxb = p.get("maxb", 4)
        lens = torch.randint(1, maxb * bs + 1, (b,), generator=gen, device=device)
        st = torch.zeros(b, dtype=torch.int64, device=device)
    elif isinstance(p.get("lengths"), list):
        lens = torch.tensor(p["lengths"], device=device)
        st = torch.tensor(starts, device=device) if isinstance(starts, list) else torch.zeros(b, dtype=torch.int64,
                                                                                            device=device)
        maxb = int(((lens + st + bs - 1) // bs).max())
    else:  # upstream: two full blocks per sequence
        maxb, lens, st = 2, torch.full((b,), 2 * bs, device=device), torch.zeros(b, dtype=torch.int64, device=device)
    table = torch.randint(0, nb, (b, maxb), generator=gen, device=device).to(torch.int32)
    cu = torch.cat([torch.zeros(1, dtype=torch.int64, device=device), torch.cumsum(lens, 0)]).to(torch.int32)
    total = int(cu[-1])
    tok2seq = torch.repeat_interleave(torch.arange(b, device=device), lens).to(torch.int32)
    num_tokens = p.get("num_tokens", total)
    dst = poison_(torch.empty(total, ent, dtype=dt, device=device))
    scale = torch.tensor([p.get("scale", 1.0)], dtype=torch.float32, device=device)
    seq_starts = st.to(torch.int32) if starts is not None else None
    return Call([src, dst, table, cu, tok2seq, num_tokens, mode, scale, seq_starts], written=(1,))


def gd_native(src, dst, table, cu, tok2seq, num_tokens, mode, scale, starts) -> tuple[torch.Tensor, torch.Tensor]:
    """``dst`` after ``gather_and_maybe_dequant_cache`` and the mask of its written rows: row t < num_tokens of
    sequence b = token_to_seq[t] (skipped when t >= cu[b+1]) = entry (block_table[b, p // BS], p mod BS) with
    p = t - cu[b] + seq_starts[b]; fp8 sources dequantised as rd_T(float(fp8) * scale)."""
    bs = src.shape[1]
    new = dst.clone()
    mask = torch.zeros(dst.shape, dtype=torch.bool, device=dst.device)
    t = torch.arange(int(num_tokens), device=dst.device)
    b = tok2seq[: int(num_tokens)].long()
    ok = t < cu.long()[b + 1]
    t, b = t[ok], b[ok]
    pos = t - cu.long()[b] + (starts.long()[b] if starts is not None else 0)
    blk = table.long()[b, pos // bs]
    ent = src[blk, pos % bs].reshape(t.numel(), -1)
    if mode != "auto":
        ent = (ent.view(FP8_MODES[mode][0]).float() * scale.reshape(-1)[0].float()).to(dst.dtype)
    rows = new.reshape(new.shape[0], -1)
    rows[t] = ent.to(dst.dtype)
    mask.reshape(mask.shape[0], -1)[t] = True
    return new, mask


def _gd_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    new, mask = gd_native(*call.args)
    return [storage_expected("arg.1", call.args[1], new, mask)]


def gd_baseline(src, dst, table, cu, tok2seq, num_tokens, mode, scale, starts) -> None:
    """The timed baseline of ``gather_and_maybe_dequant_cache``: :func:`gd_native`'s computation written in place
    over rows [0, num_tokens) (a skipped row is rewritten with its own bits) instead of a copy of dst, a mask and
    boolean indexing: no host sync, no data-dependent shape."""
    n = int(num_tokens)
    bs = src.shape[1]
    t = torch.arange(n, device=dst.device)
    b = tok2seq[:n].long()
    ok = t < cu.long()[b + 1]
    pos = t - cu.long()[b] + (starts.long()[b] if starts is not None else 0)
    pos = torch.where(ok, pos, torch.zeros_like(pos))
    ent = src[table.long()[b, pos // bs], pos % bs].reshape(n, -1)
    if mode != "auto":
        ent = (ent.view(FP8_MODES[mode][0]).float() * scale.reshape(-1)[0].float()).to(dst.dtype)
    rows = dst[:n]
    rows.copy_(torch.where(ok.reshape((n,) + (1,) * (rows.dim() - 1)), ent.to(dst.dtype).reshape(rows.shape), rows))


def _gd_base(c: Call) -> None:
    gd_baseline(*c.args)


def _gd_dtypes(p: dict[str, Any]) -> set[torch.dtype]:
    return {dtype_of(p["dtype"])} | ({FP8_MODES[p["kv"]][0]} if p.get("kv", "auto") != "auto" else set())


GATHER_AND_MAYBE_DEQUANT_CACHE = FunctionOperator(
    "gather_and_maybe_dequant_cache", source="vllm", category="kv cache gather",
    atol_text=EXACT_ATOL,
    section="vllm.md § vllm::gather_and_maybe_dequant_cache",
    semantics="for t < num_tokens: b = token_to_seq[t]; skipped if t >= cu_seq_lens[b+1]; p = t - cu_seq_lens[b] + "
              "(seq_starts[b] if given else 0); blk = block_table[b, p // BS]; dst[t, 0:576] = f(src_cache[blk, p mod "
              "BS, 0:576]) with f = copy ('auto') or rd_T(float(fp8) * scale[0]) (a multiply). Rows not processed stay "
              "untouched.",
    interface=Interface(
        function="gather_and_maybe_dequant_cache",
        params=("src_cache", "dst", "block_table", "cu_seq_lens", "token_to_seq", "num_tokens", "kv_cache_dtype",
                "scale", "seq_starts"),
        defaults={"seq_starts": None}, written=("dst",), returns="None",
        args_doc={"src_cache": "[NB, BS, *E] with prod(E) = 576 contiguous per entry; dtype of dst ('auto') or "
                               "uint8 fp8 bytes", "dst": "written; [>= num_tokens, 576] fp16/bf16/fp32, row stride "
                                                         "dst.stride(0)",
                  "block_table": "int32 [B, maxb]", "cu_seq_lens": "int32 [B+1]",
                  "token_to_seq": "int32 [>= num_tokens]: the sequence of each output row", "num_tokens": "int",
                  "kv_cache_dtype": "'auto', 'fp8', 'fp8_e4m3', 'fp8_e5m2'", "scale": "fp32 tensor, element 0",
                  "seq_starts": "None or int32 [B] (token offsets)"}),
    grids={
        "smoke": [
            dict(nb=3, bs=4, b=2, dtype="fp32", lengths=[5, 3], seq_starts=[0, 2], num_tokens=6),
            dict(nb=2, bs=4, b=1, dtype="bf16", kv="fp8", scale=0.5),
            dict(nb=4, bs=8, b=3, dtype="fp16", lengths=[9, 1, 4]),
        ],
        "full": [dict(nb=nb, bs=bs, b=b, dtype="fp16") for nb, bs, b in
                 [(4, 16, 2), (8, 16, 2), (8, 32, 4), (16, 16, 4), (32, 32, 4), (32, 64, 4), (64, 32, 4), (64, 32, 8),
                  (64, 64, 4), (64, 64, 8), (128, 32, 4), (128, 64, 4), (128, 64, 8)]],
        "heldout": [
            dict(nb=1024, bs=64, b=32, dtype="bf16", lengths="random", maxb=4),
            dict(nb=16, bs=16, b=3, dtype="fp16", kv="fp8_e4m3", scale=0.03125, lengths=[20, 7, 33],
                 seq_starts=[3, 0, 1]),
            dict(nb=16, bs=16, b=3, dtype="fp32", lengths=[20, 7, 33], seq_starts=[3, 0, 1], num_tokens=50),
        ],
    },
    build=_gd_build, reference=_gd_ref, dtypes=_gd_dtypes,
    cost=lambda p: Cost(0.0, 2 * p["b"] * 2 * p["bs"] * 576 * esize(p["dtype"])),
    timed=lambda p: p["nb"] >= 32 and p["b"] >= 4,
    baseline=baseline("gather_and_maybe_dequant_cache", _gd_base), label=baseline_label, data_movement=True,
    notes="dst arrives poisoned rather than zeroed (upstream: zeros). The timed native baseline is a vectorized "
          "PyTorch statement of the reference written in place over the first num_tokens rows (no copy of dst, no "
          "mask, no boolean indexing).",
)


OPERATORS = [CP_GATHER_CACHE, GATHER_AND_MAYBE_DEQUANT_CACHE]
