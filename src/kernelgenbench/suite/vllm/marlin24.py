"""vLLM's 2:4-sparse Marlin GEMM (vllm.md §2.7 and §3: gptq_marlin_24_gemm), split from :mod:`.marlin`.

The whole Marlin-24 input chain (vLLM's ``marlin_24_quantize``: 2:4 pruning, quantization, compression, metadata
reorder, tile permutation) is harness code that builds inputs, each step tested on its own in
``tests/test_vllm_marlin.py`` (round trips and hand-checked elements). The reference is an fp64 product of the
unpacked dense weights with the spec's rounding points; the dense Marlin GEMM, the ScalarType stand-in and the
typed baseline are :mod:`.marlin`'s."""
from __future__ import annotations

from typing import Any

import torch

from ..common import make_tensor
from ..function import FunctionOperator
from ..spec import Call, Cost, Expected, Interface, accumulation_rule, accumulation_text
from .common import baseline_label
from .marlin import _check_bits, _qtype, _typed_baseline, dequant_matmul
from .quant import _as_int32

# ------------------------------------------------------------------------------------------- gptq_marlin_24_gemm
#: The 2:4 index table (vllm.md § gptq_marlin_24_gemm step 3): flags f0 f1 f2 f3 (bit i = f_i) -> (i0, i1).
SPARSE24_PAIRS = {0b0000: (2, 3), 0b0001: (0, 2), 0b0010: (1, 2), 0b0011: (0, 1), 0b0100: (2, 3), 0b0101: (0, 2),
                  0b0110: (1, 2), 0b0111: (0, 1), 0b1000: (2, 3), 0b1001: (0, 3), 0b1010: (1, 3), 0b1011: (0, 1),
                  0b1100: (2, 3), 0b1101: (0, 3), 0b1110: (1, 3), 0b1111: (0, 1)}
#: Marlin-24's grouped scale order: packed column 8i + j of a 64-column block holds logical column 8i + ORDER[j].
SCALE24_ORDER = (0, 4, 1, 5, 2, 6, 3, 7)


def _as_int16(v: torch.Tensor) -> torch.Tensor:
    """int64 values in [0, 2^16) as the int16 with the same 16 bits."""
    v = v & 0xFFFF
    return (v - ((v >> 15) & 1) * (1 << 16)).to(torch.int16)


def sparse24_prune(w: torch.Tensor) -> torch.Tensor:
    """``w [K, N]`` with, in every column and every quad of rows ``[4u, 4u + 4)``, the two entries of smallest
    ``|w|`` set to zero (ties: the earlier position is zeroed first; step 1).

    Raises:
        ValueError: K is not a multiple of 4.
    """
    k, n = w.shape
    if k % 4:
        raise ValueError(f"vllm::gptq_marlin_24_gemm: K = {k} is not a multiple of 4")
    quads = w.t().reshape(n, k // 4, 4)
    drop = torch.argsort(quads.abs().float(), dim=-1, stable=True)[..., :2]
    keep = torch.ones_like(quads, dtype=torch.bool).scatter_(-1, drop, False)
    return (quads * keep).reshape(n, k).t().contiguous()


def quantize24(w24: torch.Tensor, bits: int, group: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Symmetric quantization of ``w24 [K, N]`` (fp16) per (group of ``group`` rows, column), in fp16 arithmetic
    (step 2): ``s = max(|max w|/qmax, |min w|/(-qmin))`` (qmax = 7 / 127, qmin = -8 / -128), ``q = clamp(rne(w/s),
    qmin, qmax)``, ``w_ref = fp16(q) * s``. Returns ``(q int64 [K, N] signed, s [K/group, N], w_ref [K, N])``.

    Raises:
        ValueError: bits not 4 or 8, or group does not divide K.
    """
    _check_bits("gptq_marlin_24_gemm", bits)
    k, n = w24.shape
    if k % group:
        raise ValueError(f"vllm::gptq_marlin_24_gemm: group {group} does not divide K = {k}")
    qmax, qmin = (1 << (bits - 1)) - 1, -(1 << (bits - 1))
    g = w24.reshape(k // group, group, n)
    mx, mn = g.amax(1), g.amin(1)
    s = torch.maximum((mx / torch.full_like(mx, qmax)).abs(), (mn / torch.full_like(mn, qmin)).abs())
    safe = torch.where(s == 0, torch.ones_like(s), s)
    q = torch.round(g / safe[:, None, :]).float().clamp(qmin, qmax).to(torch.int64)
    q = torch.where((s == 0)[:, None, :], torch.zeros_like(q), q).reshape(k, n)
    w_ref = q.to(w24.dtype) * s.repeat_interleave(group, 0)
    return q, s, w_ref


def compress24(q: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Compress signed 2:4-sparse ``q [K, N]`` (step 3): per column and quad, the flags ``f_i = (q_i != 0)`` pick
    ``(i0, i1)`` (:data:`SPARSE24_PAIRS`); returns ``(qc [K/2, N], meta int16 [N, K/16])`` with ``qc[2u + j, n] =
    q[4u + i_j, n]`` and ``meta[n, v] = c_0 | c_1 << 4 | c_2 << 8 | c_3 << 12``, ``c_l = i0 | i1 << 2`` of quad
    ``4v + l``.

    Raises:
        ValueError: K is not a multiple of 16, or a quad has more than two non-zeros.
    """
    k, n = q.shape
    if k % 16:
        raise ValueError(f"vllm::gptq_marlin_24_gemm: K = {k} is not a multiple of 16")
    quads = q.t().reshape(n, k // 4, 4)
    nz = quads != 0
    if bool((nz.sum(-1) > 2).any()):
        raise ValueError("vllm::gptq_marlin_24_gemm: a quad holds more than two non-zero values (not 2:4 sparse)")
    flags = (nz.long() * torch.tensor([1, 2, 4, 8], device=q.device)).sum(-1)
    table = torch.tensor([SPARSE24_PAIRS[f] for f in range(16)], device=q.device)
    idx = table[flags]                                                   # [N, K/4, 2]
    qc = torch.gather(quads, -1, idx).reshape(n, k // 2).t().contiguous()
    codes = (idx[..., 0] | (idx[..., 1] << 2)).reshape(n, k // 16, 4)
    meta = (codes << torch.tensor([0, 4, 8, 12], device=q.device)).sum(-1)
    return qc, _as_int16(meta)


def _meta_offsets(m: int, cols: int, device: torch.device) -> torch.Tensor:
    """Step 4: the flat position of metadata element ``[r, c]`` (``m`` rows, ``cols`` columns), int64 ``[m, cols]``."""
    r = torch.arange(m, device=device)[:, None].expand(m, cols)
    c = torch.arange(cols, device=device)[None, :].expand(m, cols)
    rr = 64 * (r // 64) + 2 * (r % 2) + (r % 8) // 4 + 32 * (((r % 32) % 4) // 2) + 4 * ((r % 64) // 8)
    up = ((rr % 2 == 0) & (c % 2 == 1)).long()
    down = ((rr % 2 == 1) & (c % 2 == 0)).long()
    rr, cc = rr + up - down, c - up + down
    return (cc // 2) * 2 * m + 2 * rr + cc % 2


def meta_reorder(meta: torch.Tensor) -> torch.Tensor:
    """int16 ``meta [N, K/16]`` scattered to its reordered flat positions (step 4), viewed as ``b_meta [K/32, 2N]``
    (the inverse of :func:`meta_unreorder`)."""
    m, cols = meta.shape
    flat = torch.empty(m * cols, dtype=meta.dtype, device=meta.device)
    flat[_meta_offsets(m, cols, meta.device).reshape(-1)] = meta.reshape(-1)
    return flat.reshape(cols // 2, 2 * m)


def meta_unreorder(b_meta: torch.Tensor, n: int, k: int) -> torch.Tensor:
    """int16 ``meta [N, K/16]`` of ``b_meta [K/32, 2N]`` (step 4 inverted)."""
    return b_meta.reshape(-1)[_meta_offsets(n, k // 16, b_meta.device)]


def perm24(bits: int) -> torch.Tensor:
    """Marlin-24's in-chunk permutation (step 5), int64 [1024]: packed position x of every 1024-value chunk holds
    tiled position ``perm24[x]``; the interleave is (0, 2, 4, 6, 1, 3, 5, 7) in groups of 8 (4-bit) or (0, 2, 1, 3)
    in groups of 4 (8-bit)."""
    _check_bits("gptq_marlin_24_gemm", bits)
    out: list[int] = []
    for i in range(32):
        col, ri = i // 4, i % 4
        base = [16 * row + 256 * (col // 2) + 8 * (col % 2) + 4 * blk
                for blk in (0, 1) for row in (2 * ri, 2 * ri + 1, 2 * (ri + 4), 2 * (ri + 4) + 1)]
        for j in range(4):
            out += [b + j for b in base]
    il = (0, 2, 4, 6, 1, 3, 5, 7) if bits == 4 else (0, 2, 1, 3)
    t = torch.tensor(out).reshape(-1, len(il))[:, list(il)]
    return t.reshape(-1)


def pack24(qc: torch.Tensor, bits: int) -> torch.Tensor:
    """Unsigned compressed ``qc [K/2, N]`` (``0 <= v < 2^bits``) to ``b_q_weight [K/32, N*16/pf]`` (step 5): 16x16
    tiles ``Qt[rho, 256 tn + 16 a + b] = qc[16 rho + a, 16 tn + b]``, ``perm24`` inside every 1024-value chunk, then
    pf consecutive values per word (value i at bits ``bits*i``). The inverse of :func:`unpack24`.

    Raises:
        ValueError: K/2 not a multiple of 16 or N not a multiple of 64.
    """
    kc, n = qc.shape
    pf = 32 // bits
    if kc % 16 or n % 64:
        raise ValueError(f"vllm::gptq_marlin_24_gemm: compressed [K/2, N] = [{kc}, {n}] needs K % 32 == 0, N % 64 == 0")
    qt = qc.to(torch.int64).reshape(kc // 16, 16, n // 16, 16).permute(0, 2, 1, 3).reshape(kc // 16, n * 16)
    qp = qt.reshape(kc // 16, -1, 1024)[:, :, perm24(bits).to(qc.device)].reshape(kc // 16, n * 16 // pf, pf)
    shifts = torch.arange(pf, device=qc.device, dtype=torch.int64) * bits
    return _as_int32((qp << shifts).sum(-1))


def unpack24(b_q_weight: torch.Tensor, k: int, n: int, bits: int) -> torch.Tensor:
    """The unsigned compressed ``qc [K/2, N]`` (int64) of ``b_q_weight [K/32, N*16/pf]`` (step 5 inverted).

    Raises:
        ValueError: b_q_weight is not ``[K/32, N*16/pf]``.
    """
    pf = _check_bits("gptq_marlin_24_gemm", bits)
    if tuple(b_q_weight.shape) != (k // 32, n * 16 // pf):
        raise ValueError(f"vllm::gptq_marlin_24_gemm: b_q_weight {list(b_q_weight.shape)} is not [K/32, N*16/pf] = "
                         f"[{k // 32}, {n * 16 // pf}]")
    shifts = torch.arange(pf, device=b_q_weight.device, dtype=torch.int64) * bits
    qp = ((b_q_weight.to(torch.int64)[..., None] >> shifts) & ((1 << bits) - 1)).reshape(k // 32, -1, 1024)
    qt = torch.empty_like(qp)
    qt[:, :, perm24(bits).to(qp.device)] = qp
    return qt.reshape(k // 32, n // 16, 16, 16).permute(0, 2, 1, 3).reshape(k // 2, n)


def permute_scales24(s: torch.Tensor, grouped: bool) -> torch.Tensor:
    """Logical scales ``s [G, N]`` in Marlin-24's order (step 6): grouped ``S[64b + 8i + j] = s[64b + 8i +
    (0, 4, 1, 5, 2, 6, 3, 7)[j]]``; channelwise unchanged."""
    if not grouped:
        return s.clone()
    n = s.shape[1]
    p = torch.arange(n, device=s.device)
    src = 8 * (p // 8) + torch.tensor(SCALE24_ORDER, device=s.device)[p % 8]
    return s[:, src].contiguous()


def unpermute_scales24(b_scales: torch.Tensor, grouped: bool) -> torch.Tensor:
    """The logical scales of Marlin-24-permuted ``b_scales`` (the inverse of :func:`permute_scales24`)."""
    if not grouped:
        return b_scales.clone()
    n = b_scales.shape[1]
    p = torch.arange(n, device=b_scales.device)
    out = torch.empty_like(b_scales)
    out[:, 8 * (p // 8) + torch.tensor(SCALE24_ORDER, device=b_scales.device)[p % 8]] = b_scales
    return out


def marlin24_quantize(w: torch.Tensor, qtype: Any, group: int
                      ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The whole input chain of ``gptq_marlin_24_gemm`` from a dense fp16 ``w [K, N]`` (vllm.md § gptq_marlin_24_gemm
    steps 1-6; vLLM's ``marlin_24_quantize``): ``(w_ref [K, N], b_q_weight [K/32, N*16/pf], b_meta int16 [K/32, 2N],
    b_scales [Gs, N])``; the group is all of K (channelwise, Gs = 1) where ``group >= K``.

    Raises:
        ValueError: shapes the layout cannot hold.
    """
    k, n = w.shape
    bits, bias = int(qtype.size_bits), int(qtype.bias)
    grp = k if group >= k else group
    q, s, w_ref = quantize24(sparse24_prune(w), bits, grp)
    qc, meta = compress24(q)
    return w_ref, pack24(qc + bias, bits), meta_reorder(meta), permute_scales24(s, grouped=grp < k)


def marlin24_dense(b_q_weight: torch.Tensor, b_meta: torch.Tensor, k: int, n: int, bits: int, bias: int
                   ) -> torch.Tensor:
    """The signed dense int64 weights ``[K, N]`` (``v - bias`` at the two kept positions of every quad, 0 elsewhere)
    of Marlin-24 inputs: the unpacker of the whole chain (steps 3-5 inverted)."""
    qc = unpack24(b_q_weight, k, n, bits) - bias                          # [K/2, N]
    meta = meta_unreorder(b_meta, n, k).to(torch.int64) & 0xFFFF         # [N, K/16]
    codes = (meta[..., None] >> torch.tensor([0, 4, 8, 12], device=meta.device)) & 15   # [N, K/16, 4]
    idx = torch.stack([codes & 3, codes >> 2], -1).reshape(n, k // 4, 2)
    dense = torch.zeros(n, k // 4, 4, dtype=torch.int64, device=qc.device)
    dense.scatter_(-1, idx, qc.t().reshape(n, k // 4, 2))
    return dense.reshape(n, k).t().contiguous()


def marlin24_gemm_native(a: torch.Tensor, b_q_weight: torch.Tensor, b_meta: torch.Tensor, b_scales: torch.Tensor,
                         b_q_type: Any, size_k: int, size_n: int, acc: torch.dtype = torch.float32
                         ) -> tuple[torch.Tensor, torch.Tensor | None]:
    """``gptq_marlin_24_gemm``: ``(C, abs_sum)`` of :func:`dequant_matmul` on the dense weights of
    :func:`marlin24_dense` and the un-permuted scales (grouped: G = K/128 > 1).

    Raises:
        ValueError: shapes that do not match K, N.
    """
    if tuple(a.shape) != (a.shape[0], size_k) or b_scales.dim() != 2 or b_scales.shape[1] != size_n \
            or size_k % b_scales.shape[0]:
        raise ValueError(f"vllm::gptq_marlin_24_gemm: a {list(a.shape)} / b_scales {list(b_scales.shape)} do not "
                         f"match K = {size_k}, N = {size_n}")
    q = marlin24_dense(b_q_weight, b_meta, size_k, size_n, int(b_q_type.size_bits), int(b_q_type.bias))
    s = unpermute_scales24(b_scales, grouped=b_scales.shape[0] > 1)
    return dequant_matmul(a, q, s, acc)


def _g24_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    m, k, n = p["m"], p["k"], p["n"]
    qt = _qtype(p)
    w = make_tensor([k, n], "fp16", device, gen)
    a = make_tensor([m, k], "fp16", device, gen)
    _w_ref, bq, meta, bs = marlin24_quantize(w, qt, p.get("group", 128))
    workspace = torch.zeros(max(n, 1024), dtype=torch.int32, device=device)
    return Call([a, bq, meta, bs, workspace, qt, m, n, k])


def _g24_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    a, bq, meta, bs, _ws, qt, _m, n, k = call.args
    c, absum = marlin24_gemm_native(a, bq, meta, bs, qt, k, n, acc=torch.float64)
    terms = k + (1 if bs.shape[0] == 1 else 0)
    tol, extra = accumulation_rule(c.dtype, absum, terms, k)
    return [Expected("return", c, tol, atol_extra=extra)]


def _g24_native_call(c: Call) -> torch.Tensor:
    a, bq, meta, bs, _ws, qt, _m, n, k = c.args
    return marlin24_gemm_native(a, bq, meta, bs, qt, k, n)[0]


def _g24_cost(p: dict[str, Any]) -> Cost:
    m, k, n = p["m"], p["k"], p["n"]
    groups = k // 128 if p.get("group", 128) < k else 1
    return Cost(2.0 * m * n * k, 2 * m * k + k * n * _qtype(p).size_bits / 16 + k * n // 8 + 2 * groups * n
                + 2 * m * n, compute="fp16")


GPTQ_MARLIN_24_GEMM = FunctionOperator(
    "gptq_marlin_24_gemm", source="vllm", category="quantized GEMM (2:4 sparse)",
    section="vllm.md § vllm::gptq_marlin_24_gemm",
    semantics="C = rd16(a @ W) (fp16, fp32 accumulation). W [K, N] is dense 2:4-sparse: in every column n and k-quad "
              "[4u, 4u+4) positions i0 < i1 carry (v - bias) * s (bias 8 for uint4b8, 128 for uint8b128), the other "
              "two are 0. Decoding: 1. values: b_q_weight [K/32, N*16/pf] holds pf values per word (value i at bits "
              "b*i); packed position x of each 1024-value chunk of row rho holds tiled position perm24[x], and tiled "
              "position 256 tn + 16 a + b of row rho is qc[16 rho + a, 16 tn + b] (qc [K/2, N]). perm24: for i < 32, "
              "col = i//4, base = [16 row + 256 (col//2) + 8 (col mod 2) + 4 blk for blk in (0, 1) for row in "
              "(2(i mod 4), 2(i mod 4) + 1, 2(i mod 4 + 4), 2(i mod 4 + 4) + 1)], append base + j for j = 0..3 "
              "(32 entries per i); then inside each group of 8 (4-bit) reorder by (0, 2, 4, 6, 1, 3, 5, 7), of 4 "
              "(8-bit) by (0, 2, 1, 3). 2. metadata: the flat int16 b_meta (N*K/16 values, viewed [K/32, 2N]) holds "
              "meta[r, c] (r < N, c < K/16) at (c'//2)*2N + 2r' + (c' mod 2) with r' = 64(r//64) + 2(r mod 2) + "
              "(r mod 8)//4 + 32(((r mod 32) mod 4)//2) + 4((r mod 64)//8), then if r' even and c odd: r' += 1, c' = "
              "c - 1; if r' odd and c even: r' -= 1, c' = c + 1; else c' = c. Nibble l of meta[n, c] is the code of "
              "quad u = 4c + l: i0 = code & 3, i1 = code >> 2; W[4u + i0, n] from qc[2u, n], W[4u + i1, n] from "
              "qc[2u + 1, n]. 3. scales b_scales [Gs, N]: Gs = K/128 (grouped): packed column 64b + 8i + j holds "
              "logical column 64b + 8i + (0, 4, 1, 5, 2, 6, 3, 7)[j], W = rd16((v - bias) * s[k // 128]) before the "
              "product; Gs = 1 (channelwise): unpermuted, C = rd16((a @ (v - bias)) * s). workspace is scratch that "
              "must be zero again on return.",
    interface=Interface(
        function="gptq_marlin_24_gemm",
        params=("a", "b_q_weight", "b_meta", "b_scales", "workspace", "b_q_type", "size_m", "size_n", "size_k"),
        returns="fp16 [M, N], a new tensor",
        args_doc={"a": "fp16 [M, K] contiguous",
                  "b_q_weight": "int32 [K/32, N*16/pf] compressed 2:4 values in the Marlin-24 layout",
                  "b_meta": "int16 [K/32, 2N] reordered 2:4 metadata (sign bit used)",
                  "b_scales": "fp16 [Gs, N]: Gs = 1 (channelwise) or K/128 (group 128), permuted",
                  "workspace": "int32 zeros, >= N/128*16 elements (scratch; must be zero again on return)",
                  "b_q_type": "ScalarType stand-in: size_bits, bias, signed, str() (uint4b8 graded; uint8b128 "
                              "held-out)",
                  "size_m": "int M", "size_n": "int N (N % 128 == 0)", "size_k": "int K (K % 128 == 0)"}),
    grids={
        "smoke": [dict(m=1, k=128, n=128), dict(m=3, k=256, n=128)],
        "full": [dict(m=m, k=k, n=n) for m, k, n in ((1, 128, 256), (64, 128, 256), (128, 256, 256), (256, 256, 512),
                                                     (128, 512, 256), (256, 512, 512), (128, 256, 512))],
        "heldout": [dict(m=16, k=4096, n=4096), dict(m=512, k=1024, n=2048, group=1024),
                    dict(m=7, k=512, n=256, qtype="uint8b128")],
    },
    build=_g24_build, reference=_g24_ref, cost=_g24_cost, timed=lambda p: p["m"] >= 128,
    baseline=_typed_baseline("gptq_marlin_24_gemm", _g24_native_call), label=baseline_label,
    dtypes=lambda p: {torch.float16},
    atol_text=accumulation_text("K", "(|a| @ |W|)[m, n] (channelwise: (|a| @ |v - bias|)[m, n] * |s[n]|)", "1e-4 x K"),
    notes="Inputs are built by our implementation of vLLM's marlin_24_quantize (vllm.md §2.10: prune the two smallest "
          "|w| per quad, symmetric fp16 quantization per 128-row group, compress, reorder the metadata, tile, permute "
          "and pack; the group is all of K where K <= 128, i.e. channelwise), from w = randn(K, N) fp16 and a = "
          "randn(M, K) as upstream; the held-out channelwise case uses one group of all K = 1024 rows. Tolerance "
          "(ours, not the spec's): the accumulation rule against an fp64 product of the fp16-rounded weights, never "
          "looser than the spec's 1e-4 x K (reduce_dim = K).",
    packed_args=frozenset({"b_q_weight", "b_meta", "b_scales"}),
)


OPERATORS = [GPTQ_MARLIN_24_GEMM]
