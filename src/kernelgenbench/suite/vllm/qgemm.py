"""vLLM quantised GEMMs (vllm.md §3: allspark_w8a16_gemm, awq_gemm, gptq_gemm): weight-only GEMMs whose weights
arrive packed (AllSpark's N32K16 byte reorder, AWQ's interleaved nibbles along N, GPTQ/exllama's shuffled fields
along K) with grouped or per-channel scales and zero points.

References are pure PyTorch written from the spec: the weights are unpacked with the inverse maps, dequantised with
the spec's rounding points, and multiplied in fp64 (the timed native baseline multiplies in fp32). The packers
(AllSpark bytes and scales, AWQ nibbles) are harness code that builds inputs and are tested on their own; GPTQ's
packer, unpacker and nibble order are ``quant.py``'s (``gptq_shuffle``)."""
from __future__ import annotations

from typing import Any

import torch

from ..common import make_tensor
from ..function import FunctionOperator
from ..spec import Call, Cost, Expected, Interface, Tolerance, dtype_of, ulp
from .common import baseline, baseline_label, esize
from .quant import GPTQ_SIGMA, _as_int32, gptq_pack, gptq_shuffle_native, gptq_unpack

F16 = torch.float16


def _randint(lo: int, hi: int, shape: tuple[int, ...], device: torch.device, gen: torch.Generator) -> torch.Tensor:
    return torch.randint(lo, hi, shape, generator=gen, device=device, dtype=torch.int64)


def _rand(shape: tuple[int, ...], device: torch.device, gen: torch.Generator) -> torch.Tensor:
    return torch.rand(shape, generator=gen, device=device, dtype=torch.float32)


# ------------------------------------------------------------------------------------------------- awq_gemm
#: AWQ's nibble of column ``8w + c`` of a packed word: ``AWQ_NIBBLE[c]`` (vllm.md § awq_gemm).
AWQ_NIBBLE = (0, 4, 1, 5, 2, 6, 3, 7)


def awq_unpack(words: torch.Tensor) -> torch.Tensor:
    """The int64 ``[R, 8*W]`` nibbles of AWQ-packed int32 ``words`` ``[R, W]``: column ``8w + c`` is nibble
    ``AWQ_NIBBLE[c]`` (bits ``4*AWQ_NIBBLE[c]`` upward) of word ``[r, w]`` (vllm.md § awq_gemm)."""
    w = words.to(torch.int64) & 0xFFFFFFFF
    shifts = torch.tensor(AWQ_NIBBLE, device=words.device, dtype=torch.int64) * 4
    return ((w[:, :, None] >> shifts[None, None, :]) & 15).reshape(words.shape[0], -1)


def awq_pack(q: torch.Tensor) -> torch.Tensor:
    """Pack int ``[R, N]`` values in ``0..15`` into AWQ int32 words ``[R, N/8]`` (the inverse of :func:`awq_unpack`).

    Raises:
        ValueError: N is not a multiple of 8, or a value lies outside 0..15.
    """
    r, n = q.shape
    if n % 8:
        raise ValueError(f"vllm::awq_gemm: N = {n} is not a multiple of 8 (8 nibbles per word)")
    if q.numel() and (int(q.min()) < 0 or int(q.max()) > 15):
        raise ValueError("vllm::awq_gemm: packed values must lie in 0..15")
    shifts = torch.tensor(AWQ_NIBBLE, device=q.device, dtype=torch.int64) * 4
    return _as_int32((q.to(torch.int64).reshape(r, n // 8, 8) << shifts).sum(-1))


def awq_native(inp: torch.Tensor, qweight: torch.Tensor, scales: torch.Tensor, qzeros: torch.Tensor,
               split_k_iters: int, acc: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
    """``awq_gemm`` (vllm.md § awq_gemm): ``(C fp16 [M, N], partials fp16 [split, M, N])``.

    ``W[k, j] = rd16((q[k, j] - z[k // G, j]) * s[k // G, j])`` (G = K / scales.size(0)); K is cut into 32-row
    chunks, chunk c belongs to split ``c mod split_k_iters``; split z's partial ``P_z = rd16(sum over its rows of
    input * W)`` (accumulated in ``acc``), ``C = rd16(fp32 sum of the P_z)``.

    Raises:
        ValueError: input is not fp16 [M, K], the shapes disagree, K is not a multiple of 32 or of the group
            count, or split_k_iters < 1.
    """
    if inp.dtype != F16 or inp.dim() != 2:
        raise ValueError(f"vllm::awq_gemm: input must be fp16 [M, K], got {inp.dtype} {list(inp.shape)}")
    m, k = inp.shape
    groups = scales.shape[0]
    if k % 32 or groups == 0 or k % groups or split_k_iters < 1:
        raise ValueError(f"vllm::awq_gemm: K = {k} must be a multiple of 32 and of scales.size(0) = {groups}; "
                         f"split_k_iters = {split_k_iters} must be >= 1")
    if qweight.shape[0] != k or qzeros.shape[0] != groups or scales.shape[1] != 8 * qweight.shape[1]:
        raise ValueError(f"vllm::awq_gemm: shapes disagree: qweight {list(qweight.shape)}, scales "
                         f"{list(scales.shape)}, qzeros {list(qzeros.shape)}, K = {k}")
    gsize = k // groups
    q = awq_unpack(qweight)
    z = awq_unpack(qzeros)
    grp = torch.arange(k, device=inp.device) // gsize
    w = ((q - z[grp]).float() * scales.float()[grp]).to(F16)
    # split s's rows: the 32-row chunks s, s + split_k_iters, ... in order, taken by strided slices of the chunked
    # views (a boolean row mask gave the same rows through nonzero: a host read and a graph break per split)
    xc, wc = inp.reshape(m, k // 32, 32), w.reshape(k // 32, 32, w.shape[1])
    parts = []
    for s in range(split_k_iters):
        xs, ws = xc[:, s::split_k_iters].reshape(m, -1), wc[s::split_k_iters].reshape(-1, w.shape[1])
        parts.append((xs.to(acc) @ ws.to(acc)).to(F16))
    partials = torch.stack(parts)
    return partials.float().sum(0).to(F16), partials


def _awq_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    m, k, n, g, split = p["m"], p["k"], p["n"], p["g"], p["split"]
    inp = make_tensor([m, k], "fp16", device, gen)
    # upstream: randint(0, 2^31) int32 words (every nibble random, the top one <= 7)
    qweight = _randint(0, 2 ** 31, (k, n // 8), device, gen).to(torch.int32)
    qzeros = _randint(0, 2 ** 31, (k // g, n // 8), device, gen).to(torch.int32)
    scales = (_rand((k // g, n), device, gen) + 0.01).to(F16)
    return Call([inp, qweight, scales, qzeros, split])


def _awq_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    c, partials = awq_native(*call.args, acc=torch.float64)
    extra = None
    if partials.shape[0] > 1:  # one fp16 ulp per split partial: its rounding may flip with the fp32 order
        extra = ulp(partials, F16).sum(0)
    return [Expected("return", c, Tolerance(reduce_dim=call.args[0].shape[1]), atol_extra=extra)]


def _awq_cost(p: dict[str, Any]) -> Cost:
    m, k, n, g = p["m"], p["k"], p["n"], p["g"]
    groups = k // g
    return Cost(2.0 * m * k * n, 2 * m * k + k * n // 2 + groups * n * 2 + groups * n // 2 + 2 * m * n, "fp16")


def _awq_full() -> list[dict[str, Any]]:
    return [dict(m=m, k=k, n=n, g=g, split=s) for m, k, n, g, s in
            [(1, 256, 128, 128, 1), (16, 256, 128, 128, 1), (32, 512, 256, 128, 1), (64, 1024, 512, 128, 1),
             (128, 4096, 4096, 128, 1), (1, 4096, 11008, 128, 1), (32, 8192, 8192, 128, 1),
             (512, 4096, 11008, 128, 1)]]


AWQ_GEMM = FunctionOperator(
    "awq_gemm", source="vllm", category="W4A16 GEMM (AWQ)", section="vllm.md § vllm::awq_gemm",
    semantics="G = K / scales.size(0) rows per group. Column 8w + c of a packed row is nibble "
              "(0, 4, 1, 5, 2, 6, 3, 7)[c] (bits 4*nibble upward) of word [.., w], unsigned 0..15, in qweight "
              "[K, N/8] and qzeros [K/G, N/8] alike. W[k, j] = rd16((q[k, j] - z[k // G, j]) * s[k // G, j]) "
              "(the difference exact, one fp16 rounding of the product). K is cut into 32-row chunks; chunk c "
              "belongs to split c mod split_k_iters; split z's partial P_z[m, j] = rd16(sum over its rows k of "
              "input[m, k] * W[k, j]) (fp32 accumulation); returns C = rd16(sum_z P_z) (an fp32 sum of the fp16 "
              "partials): with split_k_iters = 1, "
              "rd16(input @ W).",
    interface=Interface(
        function="awq_gemm", params=("input", "qweight", "scales", "qzeros", "split_k_iters"),
        returns="Tensor fp16 [M, N] (new)",
        args_doc={"input": "fp16 [M, K] contiguous, K % 32 == 0",
                  "qweight": "int32 [K, N/8] contiguous, AWQ nibble order along N",
                  "scales": "fp16 [K/G, N] contiguous (G = group size, G % 32 == 0, N % 64 == 0)",
                  "qzeros": "int32 [K/G, N/8] contiguous, AWQ nibble order along N",
                  "split_k_iters": "int >= 1: 32-row chunks of K are split round-robin, partials rounded to fp16"}),
    grids={
        "smoke": [dict(m=1, k=64, n=64, g=32, split=1), dict(m=3, k=128, n=128, g=64, split=2),
                  dict(m=16, k=64, n=128, g=32, split=1)],
        "full": _awq_full(),
        "heldout": [dict(m=7, k=2048, n=5632, g=128, split=1), dict(m=256, k=4096, n=4096, g=64, split=4),
                    dict(m=1, k=14336, n=4096, g=128, split=8)],
    },
    build=_awq_build, reference=_awq_ref, cost=_awq_cost,
    timed=lambda p: p["m"] * p["k"] >= 65_536,
    baseline=baseline("awq_gemm", lambda c: awq_native(*c.args)[0]), label=baseline_label,
    dtypes=lambda p: {F16},
    atol_text="1e-4 x K; with split_k_iters > 1 plus, per element, the sum of one fp16 ulp of each split's partial",
    notes="Reference: the fp16-rounded W of the spec multiplied in fp64, each split partial rounded to fp16. With "
          "split_k_iters > 1 the tolerance adds one fp16 ulp of each partial per element (a partial's rounding may "
          "flip with the fp32 summation order). Inputs as upstream: words randint(0, 2^31), scales rand + 0.01.",
    packed_args=frozenset({"qweight", "qzeros"}),
)


# ------------------------------------------------------------------------------------------------ gptq_gemm
def gptq_gemm_weights(b_q_weight: torch.Tensor, b_gptq_qzeros: torch.Tensor, b_gptq_scales: torch.Tensor,
                      use_v2_format: bool, bit: int) -> torch.Tensor:
    """The fp32 dequantised exllama weight ``W [K, N] = (q - z) * s`` of ``gptq_gemm`` (vllm.md § gptq_gemm):
    4-bit ``q[k, n]`` is nibble ``GPTQ_SIGMA[k mod 8]`` of word ``[k // 8, n]`` (the shuffled order); 8-bit
    byte ``k mod 4`` of word ``[k // 4, n]``; ``z[g, n]`` is field ``n mod (32/bit)`` of ``qzeros[g, n // (32/bit)]``
    plus 1 (v1 format) or 0 (v2); ``g = k // (K / G)``, G = qzeros.size(0).

    Raises:
        ValueError: bit is not 4 or 8, or the shapes disagree.
    """
    if bit not in (4, 8):
        raise ValueError(f"vllm::gptq_gemm: bit {bit} is not graded (4 or 8)")
    pf = 32 // bit
    fields = gptq_unpack(b_q_weight, bit)
    k, n = fields.shape
    q = fields.reshape(-1, pf, n)[:, list(GPTQ_SIGMA), :].reshape(k, n) if bit == 4 else fields
    groups = b_gptq_qzeros.shape[0]
    if groups == 0 or k % groups or b_gptq_qzeros.shape[1] * pf != n or tuple(b_gptq_scales.shape) != (groups, n):
        raise ValueError(f"vllm::gptq_gemm: shapes disagree: b_q_weight {list(b_q_weight.shape)} (K = {k}), "
                         f"qzeros {list(b_gptq_qzeros.shape)}, scales {list(b_gptq_scales.shape)}")
    z = gptq_unpack(b_gptq_qzeros.t().contiguous(), bit).t() + (0 if use_v2_format else 1)
    grp = torch.arange(k, device=b_q_weight.device) // (k // groups)
    return (q - z[grp]).float() * b_gptq_scales.float()[grp]


def _gptq_operands(a: torch.Tensor, b_g_idx: torch.Tensor, k: int) -> torch.Tensor:
    """``a`` with its columns gathered by ``b_g_idx`` where that has K entries (else ``a``)."""
    if b_g_idx is None or b_g_idx.is_meta or b_g_idx.numel() == 0:
        return a
    if b_g_idx.numel() != k:
        raise ValueError(f"vllm::gptq_gemm: b_g_idx has {b_g_idx.numel()} entries; expected 0 or K = {k}")
    return a[:, b_g_idx.long()]


def gptq_gemm_native(a: torch.Tensor, b_q_weight: torch.Tensor, b_gptq_qzeros: torch.Tensor,
                     b_gptq_scales: torch.Tensor, b_g_idx: torch.Tensor, use_exllama: bool, use_v2_format: bool,
                     bit: int, acc: torch.dtype = torch.float32) -> torch.Tensor:
    """``gptq_gemm`` on the exllama path (vllm.md § gptq_gemm): ``C[m, n] = rd16(sum_k a[m, c_k] * W[k, n])``
    with ``W`` of :func:`gptq_gemm_weights` (unrounded), ``c_k = b_g_idx[k]`` where b_g_idx has K entries (else
    ``c_k = k``), accumulated in ``acc``. Returns fp16 [M, N].

    Raises:
        ValueError: use_exllama is False (not graded), a is not fp16 [M, K], or the shapes disagree.
    """
    if not use_exllama:
        raise ValueError("vllm::gptq_gemm: use_exllama=False is not graded")
    w = gptq_gemm_weights(b_q_weight, b_gptq_qzeros, b_gptq_scales, use_v2_format, bit)
    if a.dtype != F16 or a.dim() != 2 or a.shape[1] != w.shape[0]:
        raise ValueError(f"vllm::gptq_gemm: a must be fp16 [M, K = {w.shape[0]}], got {a.dtype} {list(a.shape)}")
    x = _gptq_operands(a, b_g_idx, w.shape[0])
    return (x.to(acc) @ w.to(acc)).to(F16)


#: The standard deviations of fp16 term rounding that gptq_gemm's tolerance allows (see GPTQ_GEMM's notes).
GPTQ_SIGMAS = 8.0


def gptq_allowance(a: torch.Tensor, b_g_idx: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """``GPTQ_SIGMAS * 2^-11 * sqrt(sum_k (a[m, c_k] * W[k, n])^2)`` (fp64 [M, N]): the size of the error that
    rounding every term (or every dequantised weight) to fp16 leaves in a sum of independent terms, as vLLM's two
    paths do (fp16 products on half2 lanes; ``rd16(s*(q - z))`` before an fp16 GEMM)."""
    x = _gptq_operands(a, b_g_idx, w.shape[0]).double()
    return GPTQ_SIGMAS * 2.0 ** -11 * torch.sqrt((x * x) @ (w.double() ** 2))


def _gptq_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    m, k, n, bit, gs = p["m"], p["k"], p["n"], p["bit"], p["gs"]
    a = make_tensor([m, k], "fp16", device, gen)
    q = _randint(0, 2 ** bit, (k, n), device, gen)
    perm = (torch.randperm(k, generator=gen, device=device).to(torch.int32) if p.get("perm")
            else torch.empty(0, dtype=torch.int32, device=device))
    # the well-formed exllama pipeline: sequential GPTQ packing, then gptq_shuffle (act-order gather + sigma)
    qweight = gptq_shuffle_native(gptq_pack(q, bit), perm, bit)
    groups = k // gs
    zeros = _randint(0, 2 ** bit - 1, (groups, n), device, gen)
    qzeros = gptq_pack(zeros.t().contiguous(), bit).t().contiguous()
    scales = (_rand((groups, n), device, gen) + 0.01).to(F16)
    return Call([a, qweight, qzeros, scales, perm, True, bool(p.get("v2", False)), bit])


def _gptq_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    a, qw, qz, sc, g_idx, _, v2, bit = call.args
    c = gptq_gemm_native(*call.args, acc=torch.float64)
    w = gptq_gemm_weights(qw, qz, sc, v2, bit)
    tol = Tolerance(reduce_dim=a.shape[1], rtol=1e-2)
    return [Expected("return", c, tol, atol_extra=gptq_allowance(a, g_idx, w))]


def _gptq_cost(p: dict[str, Any]) -> Cost:
    m, k, n, bit, gs = p["m"], p["k"], p["n"], p["bit"], p["gs"]
    groups = k // gs
    return Cost(2.0 * m * k * n, 2 * m * k + k * n * bit // 8 + groups * n * (2 + bit / 8) + 2 * m * n
                + (4 * k if p.get("perm") else 0), "fp16")


GPTQ_GEMM = FunctionOperator(
    "gptq_gemm", source="vllm", category="W4A16 GEMM (exllama)", section="vllm.md § vllm::gptq_gemm",
    semantics="Exllama path (use_exllama=True; graded bit 4 and 8). K = rows of b_q_weight * 32 / bit, G = "
              "b_gptq_qzeros.size(0), gs = K / G. 4-bit q[k, n] = nibble sigma(k mod 8) of word b_q_weight[k // 8, "
              "n], sigma = (0, 4, 1, 5, 2, 6, 3, 7) (gptq_shuffle's order); 8-bit q[k, n] = byte k mod 4 of word "
              "[k // 4, n]. Zero z[g, n] = field n mod (32/bit) (bits bit*(n mod 32/bit)) of qzeros[g, n // (32/bit)] "
              "+ (0 if use_v2_format else 1); scale s[g, n]. W[k, n] = (q[k, n] - z[k // gs, n]) * s[k // gs, n]. "
              "If b_g_idx has K entries, row k of W multiplies activation column b_g_idx[k] (the group is still "
              "k // gs): C[m, n] = sum_k a[m, b_g_idx[k]] * W[k, n]; with b_g_idx empty (or meta) C = a @ W. Returns "
              "fp16 [M, N]. vLLM accumulates parts in fp16 (M <= 50) or rounds W to fp16 (M > 50): the tolerance "
              "allows that, not fp16 accumulation over K.",
    interface=Interface(
        function="gptq_gemm",
        params=("a", "b_q_weight", "b_gptq_qzeros", "b_gptq_scales", "b_g_idx", "use_exllama", "use_v2_format",
                "bit"),
        returns="Tensor fp16 [M, N] (new)",
        args_doc={"a": "fp16 [M, K] contiguous",
                  "b_q_weight": "int32 [K*bit/32, N] contiguous, packed along K; 4-bit words in exllama's shuffled "
                                "order (element j of 8 rows at nibble sigma(j)), 8-bit bytes in order",
                  "b_gptq_qzeros": "int32 [G, N*bit/32] contiguous, packed along N, sequential fields",
                  "b_gptq_scales": "fp16 [G, N] contiguous",
                  "b_g_idx": "int32 [K] (activation column of each weight row: an act-order permutation) or empty "
                             "(no gather)",
                  "use_exllama": "bool; True in every graded case",
                  "use_v2_format": "bool; False adds 1 to every stored zero",
                  "bit": "int; 4 or 8 graded (2 and 3: a submission may raise)"}),
    grids={
        "smoke": [dict(m=1, k=128, n=64, bit=4, gs=32), dict(m=5, k=256, n=64, bit=4, gs=64, perm=True),
                  dict(m=3, k=128, n=64, bit=8, gs=64, v2=True)],
        "full": [dict(m=m, k=k, n=n, bit=4, gs=128, perm=True) for m, k, n in
                 [(1, 256, 256), (16, 256, 256), (32, 256, 256), (64, 512, 512)]],
        "heldout": [dict(m=37, k=4096, n=11008, bit=4, gs=128, perm=True), dict(m=64, k=2048, n=2048, bit=4, gs=128),
                    dict(m=7, k=1024, n=4096, bit=8, gs=128, v2=True)],
    },
    build=_gptq_build, reference=_gptq_ref, cost=_gptq_cost,
    timed=lambda p: p["k"] >= 256,
    baseline=baseline("gptq_gemm", lambda c: gptq_gemm_native(*c.args)), label=baseline_label,
    dtypes=lambda p: {F16},
    atol_text=f"1e-4 x K (rtol 1e-2, the spec's) plus, per element, {GPTQ_SIGMAS:g} * 2^-11 * sqrt(sum_k "
              "(a[m, c_k] * W[k, n])^2) (fp16 rounding of every term)",
    notes="Corrected grid (vllm.md §2.10): upstream passes unshuffled weights, qzeros packed along the group axis "
          "and g_idx = k // 128 as the activation permutation (one group; the M = 64 case reads uninitialised "
          "scratch). Here, on the same (M, K, N, 4-bit, exllama, v1) axes with groups of 128 rows: weights packed "
          "and shuffled by a reference gptq_shuffle with a random act-order permutation, which is also b_g_idx; "
          "qzeros [G, N/8] drawn in 0..14 (stored zero - 1, as GPTQ stores them), scales rand + 0.01. Tolerance: "
          "the spec's rtol 1e-2 and atol 1e-4 x K, plus 8 standard deviations of fp16 rounding of every term "
          "(vLLM's own paths do that; exact math passes with a wide margin, an fp16 accumulation over K does not).",
    packed_args=frozenset({"b_q_weight", "b_gptq_qzeros"}),
)

#: the row's rtol is the spec's 1e-2, not fp16's 1e-3: ``kgb show`` and prompts state the whole rule
GPTQ_GEMM.tolerance_text = (
    f"|out - ref| <= atol + rtol*|ref| with rtol 1e-2 (fp16 results; the spec's override of fp16's 1e-3), atol = "
    f"1e-4 x K plus, per element, {GPTQ_SIGMAS:g} * 2^-11 * sqrt(sum_k (a[m, c_k] * W[k, n])^2) (fp16 rounding of "
    f"every term, as vLLM's kernels round; an fp16 accumulation over K exceeds it); NaN positions must match.")


# -------------------------------------------------------------------------------------- allspark_w8a16_gemm
def _n32(n: int) -> int:
    return (n + 31) // 32 * 32


def allspark_byte_index(k: int, n32: int, device: torch.device | None = None) -> torch.Tensor:
    """int64 ``[K, N32]``: the flat byte offset in ``b_qweight`` (``[N32, K]`` bytes, viewed as ``R[N32/4, 4K]``)
    of logical weight ``q[k, j]`` (vllm.md § allspark_w8a16_gemm): with ``j = 128by + 32g + 16(p mod 2) +
    8(u // 4) + e`` and ``k = 64bx + 16w + 2(p // 2) + 8((u mod 4) // 2) + (u mod 2)``, the byte is
    ``R[32by + 8g + e, 256bx + 64w + 8p + u]``.

    Raises:
        ValueError: K is not a multiple of 16 or N32 of 32.
    """
    if k % 16 or n32 % 32:
        raise ValueError(f"vllm::allspark_w8a16_gemm: K = {k} must be a multiple of 16 and N32 = {n32} of 32")
    kk = torch.arange(k, device=device, dtype=torch.int64)
    jj = torch.arange(n32, device=device, dtype=torch.int64)
    bx, w, rk = kk // 64, (kk % 64) // 16, kk % 16
    p_hi, u_mid, u_lo = (rk % 8) // 2, rk // 8, rk % 2
    col_k = 256 * bx + 64 * w + 16 * p_hi + 2 * u_mid + u_lo
    by, g, rj = jj // 128, (jj % 128) // 32, jj % 32
    p_lo, u_hi, e = rj // 16, (rj % 16) // 8, rj % 8
    row = 32 * by + 8 * g + e
    return col_k[:, None] + (row * 4 * k + 8 * p_lo + 4 * u_hi)[None, :]


def allspark_pack(q: torch.Tensor, n32: int) -> torch.Tensor:
    """uint8 ``b_qweight [N32, K]`` holding logical ``q [K, n]`` (values 0..255) in the N32K16 reorder; columns
    ``j >= n`` hold 0 (vllm.md § allspark_w8a16_gemm).

    Raises:
        ValueError: n > N32, or K / N32 are not multiples of 16 / 32.
    """
    k, n = q.shape
    if n > n32:
        raise ValueError(f"vllm::allspark_w8a16_gemm: n = {n} exceeds N32 = {n32}")
    idx = allspark_byte_index(k, n32, q.device)
    out = torch.zeros(n32 * k, dtype=torch.uint8, device=q.device)
    out[idx[:, :n].reshape(-1)] = q.to(torch.uint8).reshape(-1)
    return out.reshape(n32, k)


def allspark_unpack(b_qweight: torch.Tensor, n: int) -> torch.Tensor:
    """The logical int64 ``q [K, n]`` of an N32K16-reordered ``b_qweight [N32, K]`` (inverse of
    :func:`allspark_pack`)."""
    n32, k = b_qweight.shape
    idx = allspark_byte_index(k, n32, b_qweight.device)[:, :n]
    return b_qweight.reshape(-1)[idx.reshape(-1)].to(torch.int64).reshape(k, n)


def allspark_pack_scales(s: torch.Tensor, n32: int) -> torch.Tensor:
    """``[1, N32]`` reordered per-column values: in each 32-wide chunk G, ``out[32G + d] = s[32G + 8(d mod 4) +
    d // 4]`` (0 beyond n), dtype of ``s`` (``[1, n]`` or ``[n]``)."""
    flat = s.reshape(-1)
    pad = torch.zeros(n32, dtype=s.dtype, device=s.device)
    pad[: flat.numel()] = flat
    d = torch.arange(32, device=s.device)
    src = (torch.arange(n32 // 32, device=s.device)[:, None] * 32 + 8 * (d % 4) + d // 4).reshape(-1)
    return pad[src].reshape(1, n32)


def allspark_unpack_scales(s_re: torch.Tensor, n: int) -> torch.Tensor:
    """The logical ``[n]`` values of reordered ``[1, N32]`` scales or zeros: ``s[32G + i] = s_re[32G + 4(i mod 8)
    + i // 8]``."""
    flat = s_re.reshape(-1)
    i = torch.arange(n, device=s_re.device)
    return flat[(i // 32) * 32 + 4 * (i % 8) + (i % 32) // 8]


def allspark_weights(b_qweight: torch.Tensor, b_scales: torch.Tensor, b_qzeros: torch.Tensor | None, n: int,
                     dtype: torch.dtype) -> torch.Tensor:
    """The dequantised ``W [K, n]`` in ``dtype`` T: ``v = q - 128``; with zeros ``v = rd_T(v - z[j])``;
    ``W = rd_T(v * s[j])`` (each operation in fp32, rounded to T)."""
    q = allspark_unpack(b_qweight, n)
    v = (q - 128).float()
    if b_qzeros is not None:
        v = (v - allspark_unpack_scales(b_qzeros, n).float()).to(dtype).float()
    return (v * allspark_unpack_scales(b_scales, n).float()).to(dtype)


def allspark_native(a: torch.Tensor, b_qweight: torch.Tensor, b_scales: torch.Tensor, b_qzeros: torch.Tensor | None,
                    n: int, group_size: int, sm_count: int, sm_version: int, cublas_m_threshold: int, has_zp: bool,
                    n32k16_reorder: bool, acc: torch.dtype = torch.float32) -> torch.Tensor:
    """``allspark_w8a16_gemm`` (vllm.md § allspark_w8a16_gemm): ``C [M, n] = rd_T(a @ W)`` with ``W`` of
    :func:`allspark_weights` in a's dtype T, accumulated in ``acc``; the zero point applies iff ``b_qzeros`` is
    given; the dispatch arguments change nothing.

    Raises:
        ValueError: group_size is not -1, a is not fp16/bf16 [M, K], or b_qweight is not uint8 [N32, K].
    """
    if group_size != -1:
        raise ValueError(f"vllm::allspark_w8a16_gemm: group_size must be -1 (per channel), got {group_size}")
    if a.dtype not in (F16, torch.bfloat16) or a.dim() != 2:
        raise ValueError(f"vllm::allspark_w8a16_gemm: a must be fp16/bf16 [M, K], got {a.dtype} {list(a.shape)}")
    if b_qweight.dtype != torch.uint8 or tuple(b_qweight.shape) != (_n32(n), a.shape[1]):
        raise ValueError(f"vllm::allspark_w8a16_gemm: b_qweight must be uint8 [{_n32(n)}, {a.shape[1]}], got "
                         f"{b_qweight.dtype} {list(b_qweight.shape)}")
    w = allspark_weights(b_qweight, b_scales, b_qzeros, n, a.dtype)
    return (a.to(acc) @ w.to(acc)).to(a.dtype)


def _as_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    m, k, n, dt = p["m"], p["k"], p["n"], dtype_of(p["dtype"])
    n32 = _n32(n)
    a = make_tensor([m, k], dt, device, gen)
    q = _randint(0, 255, (k, n), device, gen)  # upstream: randint(0, 255) (0..254)
    s = make_tensor([1, n], dt, device, gen)
    zeros = None
    if p.get("zp"):
        zeros = allspark_pack_scales((make_tensor([1, n], "fp32", device, gen) * 4.0).to(dt), n32)
    # has_zp follows b_qzeros unless the case sets it apart (the zero point applies iff b_qzeros is given)
    return Call([a, allspark_pack(q, n32), allspark_pack_scales(s, n32), zeros, n, -1, 108, 80, 16,
                 bool(p.get("has_zp", p.get("zp"))), True])


def _as_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    c = allspark_native(*call.args, acc=torch.float64)
    return [Expected("return", c, Tolerance(reduce_dim=call.args[0].shape[1]))]


def _as_cost(p: dict[str, Any]) -> Cost:
    m, k, n = p["m"], p["k"], p["n"]
    e = esize(p["dtype"])
    n32 = _n32(n)
    return Cost(2.0 * m * k * n, e * m * k + n32 * k + e * n32 * (2 if p.get("zp") else 1) + e * m * n, "fp16")


ALLSPARK_W8A16_GEMM = FunctionOperator(
    "allspark_w8a16_gemm", source="vllm", category="W8A16 GEMM (AllSpark)",
    section="vllm.md § vllm::allspark_w8a16_gemm",
    semantics="Logical weight q[k, j] in 0..255 (uint8 with bias 128), per-column scale s[j] and optional zero z[j] "
              "(dtype T of a). b_qweight [N32, K] (N32 = ceil(n/32)*32) viewed as bytes R[N32/4, 4K]: R[32by + 8g + "
              "e, 256bx + 64w + 8p + u] = q[k, j] with j = 128by + 32g + 16(p mod 2) + 8(u // 4) + e and k = 64bx + "
              "16w + 2(p // 2) + 8((u mod 4) // 2) + (u mod 2) (e, p, u in 0..7; g, w in 0..3). Scales and zeros "
              "[1, N32]: in each 32-wide chunk G, S_re[32G + d] = s[32G + 8(d mod 4) + d // 4]. Dequantisation in T: "
              "v = q - 128; if b_qzeros is not None v = rd_T(v - z[j]); W[k, j] = rd_T(v * s[j]). Returns C [M, n] = "
              "rd_T(sum_k a[m, k] * W[k, j]) with fp32 accumulation. sm_count, sm_version, CUBLAS_M_THRESHOLD and "
              "n32k16_reorder change nothing; has_zp does not decide whether zeros apply (b_qzeros does).",
    interface=Interface(
        function="allspark_w8a16_gemm",
        params=("a", "b_qweight", "b_scales", "b_qzeros", "n", "group_size", "sm_count", "sm_version",
                "CUBLAS_M_THRESHOLD", "has_zp", "n32k16_reorder"),
        returns="Tensor [M, n], dtype of a (new)",
        args_doc={"a": "fp16 or bf16 [M, K] contiguous, K % 16 == 0",
                  "b_qweight": "uint8 [N32, K] contiguous, N32 = ceil(n/32)*32, N32K16 byte reorder",
                  "b_scales": "dtype of a [1, N32], chunk-reordered",
                  "b_qzeros": "None, or dtype of a [1, N32] chunk-reordered (applied iff given)",
                  "n": "int, logical N (n % 8 == 0)", "group_size": "int, -1 (per channel only)",
                  "sm_count": "int (dispatch heuristic)", "sm_version": "int (dispatch heuristic)",
                  "CUBLAS_M_THRESHOLD": "int (dispatch heuristic: must not change results)",
                  "has_zp": "bool (validity checks only)", "n32k16_reorder": "bool (unused; always N32K16)"}),
    grids={
        "smoke": [dict(m=1, k=64, n=32, dtype="fp16"), dict(m=5, k=128, n=96, dtype="bf16"),
                  dict(m=17, k=64, n=32, dtype="fp16", zp=True),
                  dict(m=3, k=64, n=32, dtype="fp16", zp=True, has_zp=False)],
        "full": [dict(m=m, k=k, n=n, dtype="fp16") for m, k, n in
                 [(1, 256, 128), (32, 256, 128), (64, 256, 256), (128, 512, 128), (256, 512, 256), (256, 512, 512),
                  (256, 1024, 256), (256, 1024, 512), (512, 512, 256), (512, 512, 512), (512, 1024, 512),
                  (1024, 512, 512), (1024, 1024, 512)]],
        "heldout": [dict(m=16, k=4096, n=4096, dtype="fp16"), dict(m=48, k=2048, n=1056, dtype="bf16", zp=True),
                    dict(m=300, k=1536, n=2080, dtype="fp16")],
    },
    build=_as_build, reference=_as_ref, cost=_as_cost,
    timed=lambda p: p["m"] >= 256 and p["k"] >= 512 and p["n"] >= 256,
    baseline=baseline("allspark_w8a16_gemm", lambda c: allspark_native(*c.args)), label=baseline_label,
    dtypes=lambda p: {dtype_of(p["dtype"])},
    atol_text="1e-4 x K (reduce_dim = K, the case's k)",
    notes="Inputs built with our N32K16 packer (vLLM's allspark_repack_weight is not needed): q = randint(0, 255) "
          "and fp16 randn scales as upstream; zero points (smoke and held-out only) are randn * 4 in T. vLLM 0.13 "
          "builds AllSpark only for SM 8.0-8.9, so on an H200 the baseline is the native reference. A smoke case "
          "passes b_qzeros with has_zp = False (the flag gates validity checks only; the zeros apply: red team "
          "2026-12-05, upstream's cases always have them agree).",
    packed_args=frozenset({"b_qweight", "b_scales", "b_qzeros"}),
)

OPERATORS = [ALLSPARK_W8A16_GEMM, AWQ_GEMM, GPTQ_GEMM]
