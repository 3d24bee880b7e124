"""vLLM Marlin weight layout ops (vllm.md §2.7 and §3: gptq_marlin_moe_repack, awq_marlin_moe_repack,
marlin_int4_fp8_preprocess, gptq_marlin_gemm; the 2:4-sparse gptq_marlin_24_gemm is :mod:`.marlin24`).

The Marlin tile packer and unpacker, the AWQ packer and the Marlin scale permutations are harness code that
builds inputs, each tested on its own in ``tests/test_vllm_marlin.py`` (round trips and
hand-checked elements); the GPTQ packer is :mod:`.quant`'s. References are pure PyTorch from the spec: the repacks
and the int4 recode are exact integer maps, the GEMMs fp64 products of the unpacked weights with the spec's
rounding points (weights rounded to the activation dtype where the scale is applied before the product)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from ..common import make_tensor
from ..function import FunctionOperator
from ..spec import EXACT, Call, Cost, Expected, Interface, accumulation_rule, accumulation_text, dtype_of
from .common import baseline, baseline_label, esize
from .quant import _as_int32, gptq_unpack


# ------------------------------------------------------------------------------------------- ScalarType
@dataclass(frozen=True)
class MarlinScalarType:
    """The stand-in for vLLM's ``ScalarType`` argument ``b_q_type`` (vllm.md §2.1): a submission may rely only
    on ``size_bits``, ``bias``, ``signed`` and ``str(b_q_type)`` (e.g. ``"uint4b8"``). It travels to the sandbox
    inside a case (registered as a safe global for ``torch.load(weights_only=True)``)."""

    name: str
    size_bits: int
    bias: int
    signed: bool = False

    def __str__(self) -> str:
        return self.name


torch.serialization.add_safe_globals([MarlinScalarType])

UINT4B8 = MarlinScalarType("uint4b8", 4, 8)
UINT8B128 = MarlinScalarType("uint8b128", 8, 128)
_QTYPES = {"uint4b8": UINT4B8, "uint8b128": UINT8B128}


def _vllm_scalar_type(t: Any) -> Any:
    """vLLM's own ``scalar_types.<name>`` for a stand-in (the vllm baseline needs the real class)."""
    from vllm.scalar_type import scalar_types  # only reached where vllm imports

    return getattr(scalar_types, str(t))


# ------------------------------------------------------------------------------------------- layouts
#: AWQ's field of logical column n mod 8 (4-bit) / n mod 4 (8-bit) inside a word (vllm.md §2.7).
AWQ_ORDER = {4: (0, 4, 1, 5, 2, 6, 3, 7), 8: (0, 2, 1, 3)}


def _check_bits(op: str, bits: int) -> int:
    if bits not in (4, 8):
        raise ValueError(f"vllm::{op}: num_bits {bits} is not supported (4 or 8)")
    return 32 // bits


def _tile_map(bits: int, is_a_8bit: bool, device: torch.device | str) -> tuple[torch.Tensor, torch.Tensor]:
    """Inside one tile (16x64, or 32x32 with is_a_8bit): int64 ``(lk, ln)`` ``[1024/pf, pf]``, the tile-local
    (k, n) of field i of tile word o (vllm.md §2.7)."""
    pf = 32 // bits
    o = torch.arange(1024 // pf, device=device)[:, None]   # word offset inside a tile
    i = torch.arange(pf, device=device)[None, :]           # field
    if bits == 4:
        t, w, h = o // 4, o % 4, torch.zeros_like(o)
    else:
        t, w, h = o // 8, (o % 8) // 2, o % 2
    if not is_a_8bit:
        c, r = 16 * w + t // 4, 2 * (t % 4)
        if bits == 4:  # dk = (0, 8, 0, 8, 1, 9, 1, 9), dn = (0, 0, 8, 8, 0, 0, 8, 8)
            return r + 8 * (i % 2) + i // 4, c + 8 * ((i // 2) % 2)
        return r + 8 * (i % 2) + i // 2, c + 8 * h + 0 * i      # dk = (0, 8, 1, 9), dn = 8h
    c, r = 16 * (w // 2) + t // 4 + 8 * (w % 2), 4 * (t % 4)
    if bits == 4:  # nibble i holds v_j, j = (0, 4, 1, 5, 2, 6, 3, 7)[i]: k offset i//2 + 16 * (i % 2)
        return r + i // 2 + 16 * (i % 2), c + 0 * i
    return r + i + 16 * h, c + 0 * i                           # word 8t + 2w + h holds v_{4h + i}


def _tile_shape(op: str, k: int, n: int, bits: int, is_a_8bit: bool) -> tuple[int, int]:
    _check_bits(op, bits)
    th, tw = (32, 32) if is_a_8bit else (16, 64)
    if k % th or n % tw or k <= 0 or n <= 0:
        raise ValueError(f"vllm::{op}: K = {k}, N = {n} must be positive multiples of {th} and {tw}"
                         f"{' (is_a_8bit)' if is_a_8bit else ''}")
    return th, tw


def marlin_index_map(k: int, n: int, bits: int, is_a_8bit: bool = False,
                     device: torch.device | str = "cpu") -> tuple[torch.Tensor, torch.Tensor]:
    """Where every field of a Marlin-packed ``[K/16, N*16/pf]`` int32 array comes from (vllm.md §2.7).

    Returns ``(src_k, src_n)``, int64 ``[K*N/pf, pf]``: field i (bits ``b*i``) of flat output word f holds
    the logical element ``q[src_k[f, i], src_n[f, i]]``. Standard layout: 16x64 tiles, tile (kt, nt) the
    ``1024/pf`` words of row kt from column ``nt*1024/pf``; ``is_a_8bit``: 32x32 tiles laid out flat, tile
    (kt, nt) at word ``(kt*(N/32) + nt)*1024/pf``. Both orders are tile-major (kt, then nt, then the word).

    Raises:
        ValueError: bits is not 4 or 8, or K, N do not fit the tiles (K % 16, N % 64; 32 and 32 for is_a_8bit).
    """
    th, tw = _tile_shape("marlin", k, n, bits, is_a_8bit)
    lk, ln = _tile_map(bits, is_a_8bit, device)
    kt = torch.arange(k // th, device=device)[:, None, None, None]
    nt = torch.arange(n // tw, device=device)[None, :, None, None]
    src_k = th * kt + lk[None, None] + 0 * nt
    src_n = tw * nt + ln[None, None] + 0 * kt
    return src_k.reshape(-1, lk.shape[1]), src_n.reshape(-1, lk.shape[1])


def marlin_pack(q: torch.Tensor, bits: int, is_a_8bit: bool = False, check: bool = True) -> torch.Tensor:
    """Pack unsigned ``q [..., K, N]`` (``0 <= q < 2^bits``; leading dims are batch, e.g. experts) into the Marlin
    layout: int32 ``[..., K/16, N*16/pf]`` (vllm.md §2.7; the inverse of :func:`marlin_unpack`; the same map as
    :func:`marlin_index_map`, applied tile by tile so that no K x N index arrays are built). ``check=False`` skips
    the value-range check (a device sync; the native baselines pack fields they have just unpacked).

    Raises:
        ValueError: bits not 4 or 8, shapes off the tiles, or (with ``check``) a value out of range.
    """
    *batch, k, n = q.shape
    th, tw = _tile_shape("marlin", k, n, bits, is_a_8bit)
    if check and q.numel() and (int(q.min()) < 0 or int(q.max()) >= 1 << bits):
        raise ValueError(f"vllm::marlin: values must lie in [0, {1 << bits})")
    lk, ln = _tile_map(bits, is_a_8bit, q.device)
    tiles = q.to(torch.int64).reshape(-1, k // th, th, n // tw, tw).permute(0, 1, 3, 2, 4)  # [B, KT, NT, th, tw]
    fields = tiles[:, :, :, lk, ln]                                                          # [B, KT, NT, wpt, pf]
    shifts = torch.arange(lk.shape[1], device=q.device, dtype=torch.int64) * bits
    return _as_int32((fields << shifts).sum(-1)).reshape(*batch, k // 16, n * bits // 2)


def marlin_unpack(packed: torch.Tensor, k: int, n: int, bits: int, is_a_8bit: bool = False) -> torch.Tensor:
    """The logical int64 ``q [K, N]`` of a Marlin-packed int32 ``[K/16, N*16/pf]`` array (vllm.md §2.7).

    Raises:
        ValueError: bits not 4 or 8, K/N off the tiles, or ``packed`` not of the layout's shape.
    """
    th, tw = _tile_shape("marlin", k, n, bits, is_a_8bit)
    if tuple(packed.shape) != (k // 16, n * bits // 2):
        raise ValueError(f"vllm::marlin: packed shape {list(packed.shape)} is not [K/16, N*16/pf] = "
                         f"[{k // 16}, {n * bits // 2}]")
    lk, ln = _tile_map(bits, is_a_8bit, packed.device)
    pf = lk.shape[1]
    shifts = torch.arange(pf, device=packed.device, dtype=torch.int64) * bits
    words = packed.reshape(k // th, n // tw, lk.shape[0], 1).to(torch.int64)
    tiles = torch.empty(k // th, n // tw, th, tw, dtype=torch.int64, device=packed.device)
    tiles[:, :, lk, ln] = (words >> shifts) & ((1 << bits) - 1)
    return tiles.permute(0, 2, 1, 3).reshape(k, n)


def awq_pack(q: torch.Tensor, bits: int) -> torch.Tensor:
    """Pack unsigned ``q [K, N]`` along N, AWQ order: column n goes to field ``AWQ_ORDER[bits][n mod pf]`` of
    word ``[k, n // pf]``; int32 ``[K, N/pf]`` (vllm.md §2.7).

    Raises:
        ValueError: bits not 4 or 8, or N not a multiple of pf.
    """
    pf = _check_bits("awq_marlin_moe_repack", bits)
    k, n = q.shape
    if n % pf:
        raise ValueError(f"vllm::awq_marlin_moe_repack: N = {n} is not a multiple of {pf}")
    shifts = torch.tensor(AWQ_ORDER[bits], device=q.device, dtype=torch.int64) * bits
    return _as_int32((q.to(torch.int64).reshape(k, n // pf, pf) << shifts).sum(-1))


def awq_unpack(words: torch.Tensor, bits: int) -> torch.Tensor:
    """The int64 ``q [K, N]`` of AWQ-packed int32 ``[K, N/pf]`` words (the inverse of :func:`awq_pack`).

    Raises:
        ValueError: bits not 4 or 8.
    """
    pf = _check_bits("awq_marlin_moe_repack", bits)
    k, wn = words.shape
    shifts = torch.tensor(AWQ_ORDER[bits], device=words.device, dtype=torch.int64) * bits
    return ((words.to(torch.int64)[..., None] >> shifts) & ((1 << bits) - 1)).reshape(k, wn * pf)


#: Marlin's scale permutations (vllm.md § gptq_marlin_gemm): packed column 8i + j of a 64-column block holds
#: logical column i + 8j (grouped); packed column 8i + j of a 32-column block holds logical column 2i + D[j].
CHANNEL_D = (0, 1, 8, 9, 16, 17, 24, 25)


def _scale_src(n: int, grouped: bool, device: torch.device) -> torch.Tensor:
    """For each packed column, the logical column it holds."""
    p = torch.arange(n, device=device)
    if grouped:
        if n % 64:
            raise ValueError(f"vllm::gptq_marlin_gemm: N = {n} is not a multiple of 64")
        i, j = (p % 64) // 8, p % 8
        return 64 * (p // 64) + i + 8 * j
    if n % 32:
        raise ValueError(f"vllm::gptq_marlin_gemm: N = {n} is not a multiple of 32")
    i, j = (p % 32) // 8, p % 8
    return 32 * (p // 32) + 2 * i + torch.tensor(CHANNEL_D, device=device)[j]


def marlin_permute_scales(s: torch.Tensor, grouped: bool) -> torch.Tensor:
    """Logical scales ``s [G, N]`` in Marlin's order ``b_scales`` (the inverse of
    :func:`marlin_unpermute_scales`)."""
    return s[:, _scale_src(s.shape[1], grouped, s.device)].contiguous()


def marlin_unpermute_scales(b_scales: torch.Tensor, grouped: bool) -> torch.Tensor:
    """The logical scales ``s [G, N]`` of Marlin-permuted ``b_scales`` (vllm.md § gptq_marlin_gemm)."""
    out = torch.empty_like(b_scales)
    out[:, _scale_src(b_scales.shape[1], grouped, b_scales.device)] = b_scales
    return out


# ------------------------------------------------------------------------------------------- repacks
def _expert_chunk(k: int, n: int) -> int:
    """How many experts of K x N fields the native repacks unpack at once (about 2^25 fields)."""
    return max(1, (1 << 25) // max(1, k * n))


def gptq_marlin_repack_native(b_q_weight: torch.Tensor, perm: torch.Tensor, size_k: int, size_n: int,
                              num_bits: int, is_a_8bit: bool = False) -> torch.Tensor:
    """``gptq_marlin_moe_repack``: per expert e, ``q'[k, n] = q_e[perm[e, k], n]`` (no gather for an empty
    perm) of the GPTQ words ``b_q_weight [E, K/pf, N]``, Marlin-packed: int32 ``[E, K/16, N*bits/2]``.

    Raises:
        ValueError: bits not 4 or 8, shapes inconsistent, or a perm with is_a_8bit.
    """
    e = b_q_weight.shape[0]
    pf = _check_bits("gptq_marlin_moe_repack", num_bits)
    if tuple(b_q_weight.shape[1:]) != (size_k // pf, size_n):
        raise ValueError(f"vllm::gptq_marlin_moe_repack: b_q_weight {list(b_q_weight.shape)} is not "
                         f"[E, K/pf, N] = [{e}, {size_k // pf}, {size_n}]")
    has_perm = perm.numel() > 0
    if has_perm and is_a_8bit:
        raise ValueError("vllm::gptq_marlin_moe_repack: a permutation is not allowed with is_a_8bit")
    out = []
    for lo in range(0, e, _expert_chunk(size_k, size_n)):  # experts in chunks of ~2^25 elements (bounded memory)
        w = b_q_weight[lo:lo + _expert_chunk(size_k, size_n)]
        q = gptq_unpack(w.reshape(-1, size_n), num_bits).reshape(w.shape[0], size_k, size_n)
        if has_perm:
            idx = perm[lo:lo + w.shape[0]].long()
            q = torch.gather(q, 1, idx[:, :, None].expand(w.shape[0], size_k, size_n))
        out.append(marlin_pack(q, num_bits, is_a_8bit, check=False))
    return torch.cat(out)


def awq_marlin_repack_native(b_q_weight: torch.Tensor, size_k: int, size_n: int, num_bits: int,
                             is_a_8bit: bool = False) -> torch.Tensor:
    """``awq_marlin_moe_repack`` (perm ignored): per expert, the AWQ words ``[K, N/pf]`` Marlin-packed: int32
    ``[E, K/16, N*bits/2]``.

    Raises:
        ValueError: bits not 4 or 8, or shapes inconsistent.
    """
    e = b_q_weight.shape[0]
    pf = _check_bits("awq_marlin_moe_repack", num_bits)
    if tuple(b_q_weight.shape[1:]) != (size_k, size_n // pf):
        raise ValueError(f"vllm::awq_marlin_moe_repack: b_q_weight {list(b_q_weight.shape)} is not "
                         f"[E, K, N/pf] = [{e}, {size_k}, {size_n // pf}]")
    out = []
    for lo in range(0, e, _expert_chunk(size_k, size_n)):  # experts in chunks of ~2^25 elements (bounded memory)
        w = b_q_weight[lo:lo + _expert_chunk(size_k, size_n)]
        q = awq_unpack(w.reshape(-1, size_n // pf), num_bits).reshape(w.shape[0], size_k, size_n)
        out.append(marlin_pack(q, num_bits, is_a_8bit, check=False))
    return torch.cat(out)


REPACK_CONFIGS = [(4, 256, 256, 4), (8, 256, 512, 4), (4, 512, 256, 4), (16, 256, 256, 4), (4, 256, 256, 8),
                  (8, 512, 512, 4), (8, 512, 512, 8), (16, 512, 512, 4), (16, 512, 512, 8), (8, 1024, 512, 4)]


def _repack_grids(awq: bool) -> dict[str, list[dict[str, Any]]]:
    full = [dict(e=e, k=k, n=n, bits=b, perm="identity") for e, k, n, b in REPACK_CONFIGS]
    # smoke's last case and every held-out case draw words over all 32 bits (upstream's randint(0, 2^31) never sets
    # bit 31, so the top field of a source word never has its top bit set there)
    if awq:
        smoke = [dict(e=1, k=16, n=64, bits=4, perm="identity"), dict(e=2, k=32, n=64, bits=8, perm="identity"),
                 dict(e=1, k=32, n=128, bits=4, perm="identity", bit31=True)]
        held = [dict(e=64, k=2048, n=1536, bits=4, perm="identity", bit31=True),
                dict(e=8, k=1024, n=2048, bits=8, perm="identity", bit31=True),
                dict(e=4, k=256, n=256, bits=4, perm="identity", is_a_8bit=True, bit31=True)]
    else:
        smoke = [dict(e=1, k=16, n=64, bits=4, perm="identity"), dict(e=2, k=32, n=64, bits=8, perm="random"),
                 dict(e=1, k=32, n=128, bits=4, perm="empty", bit31=True)]
        held = [dict(e=64, k=2048, n=1536, bits=4, perm="random", bit31=True),
                dict(e=8, k=1024, n=2048, bits=8, perm="identity", bit31=True),
                dict(e=4, k=256, n=256, bits=4, perm="empty", is_a_8bit=True, bit31=True)]
    return {"smoke": smoke, "full": full, "heldout": held}


def _repack_build(awq: bool) -> Any:
    def build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
        e, k, n, bits = p["e"], p["k"], p["n"], p["bits"]
        pf = 32 // bits
        shape = (e, k, n // pf) if awq else (e, k // pf, n)
        # the upstream construction: randint(0, 2^31) (bit 31 never set); bit31: all 32 bits random
        w = _as_int32(torch.randint(0, 2 ** 32 if p.get("bit31") else 2 ** 31, shape, generator=gen, device=device))
        kind = p["perm"]
        if kind == "identity":
            perm = torch.arange(k, device=device).repeat(e, 1)
        elif kind == "random":
            perm = torch.stack([torch.randperm(k, generator=gen, device=device) for _ in range(e)])
        elif kind == "empty":
            perm = torch.empty(e, 0, device=device)
        else:
            raise ValueError(f"vllm::{'awq' if awq else 'gptq'}_marlin_moe_repack: unknown perm kind {kind!r}")
        return Call([w, perm.to(torch.int32), k, n, bits, bool(p.get("is_a_8bit", False))])
    return build


def _gptq_repack_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    return [Expected("return", gptq_marlin_repack_native(*call.args), EXACT)]


def _awq_repack_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    w, _perm, k, n, bits, a8 = call.args
    return [Expected("return", awq_marlin_repack_native(w, k, n, bits, a8), EXACT)]


def _repack_cost(p: dict[str, Any]) -> Cost:
    words = p["e"] * p["k"] * p["n"] * p["bits"] // 32
    return Cost(0.0, 2 * 4 * words + (4 * p["e"] * p["k"] if p["perm"] != "empty" else 0))


def _repack_timed(p: dict[str, Any]) -> bool:
    return p["e"] >= 8 and p["k"] >= 512 and p["n"] >= 512


_REPACK_ARGS = {
    "size_k": "int K: K % 16 == 0 (32 with is_a_8bit)",
    "size_n": "int N: N % 64 == 0 (32 with is_a_8bit)",
    "num_bits": "int, 4 or 8 (pf = 32 / num_bits)",
    "is_a_8bit": "bool: the 32x32-tile layout of the FP8/INT8-activation Marlin kernel (held-out only)",
}
_LAYOUT_TEXT = (
    "Marlin layout (vllm.md §2.7): the output [K/16, N*16/pf] of expert e holds 16x64 tiles; tile (kt, nt) is the "
    "1024/pf words of row kt from column nt*1024/pf; inside it, for t < 32, w < 4, c = 16w + t//4, r = 2(t mod 4): "
    "4-bit word 4t + w has at nibble i (bits 4i..4i+3) q[16kt + r + dk_i, 64nt + c + dn_i] with dk = (0, 8, 0, 8, 1, "
    "9, 1, 9), dn = (0, 0, 8, 8, 0, 0, 8, 8); 8-bit words 8t + 2w + h (h < 2) have at byte i q[16kt + r + dk_i, 64nt "
    "+ c + 8h] with dk = (0, 8, 1, 9). is_a_8bit: 32x32 tiles, tile (kt, nt) at flat word (kt*(N/32) + nt)*1024/pf; "
    "c = 16(w//2) + t//4 + 8(w mod 2), r = 4(t mod 4), v_i = q[32kt + r + i, 32nt + c], v_{4+i} = q[32kt + r + 16 + "
    "i, 32nt + c] (i < 4); 4-bit word 4t + w nibble i = v_(0, 4, 1, 5, 2, 6, 3, 7)[i]; 8-bit word 8t + 2w holds bytes "
    "v_0..v_3, word 8t + 2w + 1 v_4..v_7. Outputs are compared bit for bit (words may have bit 31 set).")

GPTQ_MARLIN_MOE_REPACK = FunctionOperator(
    "gptq_marlin_moe_repack", source="vllm", category="weight repack",
    section="vllm.md § vllm::gptq_marlin_moe_repack",
    semantics="per expert e: q_e[k, n] = field k mod pf (bits b*(k mod pf)) of b_q_weight[e, k // pf, n] (pf = 32/b); "
              "q'[k, n] = q_e[perm[e, k], n] (a gather of source rows; an [E, 0] perm means none); returns the "
              "Marlin packing of q' per expert, int32 [E, K/16, N*b/2]. " + _LAYOUT_TEXT,
    interface=Interface(
        function="gptq_marlin_moe_repack",
        params=("b_q_weight", "perm", "size_k", "size_n", "num_bits", "is_a_8bit"), defaults={"is_a_8bit": False},
        returns="int32 [E, K/16, N*num_bits/2], a new tensor",
        args_doc={"b_q_weight": "int32 [E, K/pf, N] contiguous, GPTQ-packed along K", **{
            "perm": "int32 [E, K] act-order permutation per expert (a gather of source rows), or [E, 0]: none "
                    "(not allowed with is_a_8bit)"}, **_REPACK_ARGS}),
    grids=_repack_grids(awq=False), build=_repack_build(awq=False), reference=_gptq_repack_ref,
    cost=_repack_cost, timed=_repack_timed,
    baseline=baseline("gptq_marlin_moe_repack", lambda c: gptq_marlin_repack_native(*c.args)), label=baseline_label,
    dtypes=lambda p: {torch.int32}, data_movement=True,
    notes="Full tier as upstream: words randint(0, 2^31), perm = arange(K) per expert (the act-order path with the "
          "identity). Smoke and held-out add random per-expert permutations, an empty [E, 0] perm, the is_a_8bit "
          "layout (not in the upstream grid) and words with bit 31 set (upstream's never have it).",
    packed_args=frozenset({"b_q_weight"}),
)

AWQ_MARLIN_MOE_REPACK = FunctionOperator(
    "awq_marlin_moe_repack", source="vllm", category="weight repack",
    section="vllm.md § vllm::awq_marlin_moe_repack",
    semantics="per expert e: q_e[k, n] = field AWQ(n mod pf) of b_q_weight[e, k, n // pf] (pf = 32/b; AWQ = (0, 4, 1, "
              "5, 2, 6, 3, 7) for 4-bit, (0, 2, 1, 3) for 8-bit; field f = bits b*f..b*f+b-1); perm is ignored; "
              "returns the Marlin packing of q_e per expert, int32 [E, K/16, N*b/2]. " + _LAYOUT_TEXT,
    interface=Interface(
        function="awq_marlin_moe_repack",
        params=("b_q_weight", "perm", "size_k", "size_n", "num_bits", "is_a_8bit"), defaults={"is_a_8bit": False},
        returns="int32 [E, K/16, N*num_bits/2], a new tensor",
        args_doc={"b_q_weight": "int32 [E, K, N/pf] contiguous, AWQ-packed along N",
                  "perm": "int32 [E, K]: ignored (AWQ has no act-order)", **_REPACK_ARGS}),
    grids=_repack_grids(awq=True), build=_repack_build(awq=True), reference=_awq_repack_ref,
    cost=_repack_cost, timed=_repack_timed,
    baseline=baseline("awq_marlin_moe_repack",
                      lambda c: awq_marlin_repack_native(c.args[0], *c.args[2:])), label=baseline_label,
    dtypes=lambda p: {torch.int32}, data_movement=True,
    notes="Full tier as upstream: words randint(0, 2^31), perm = arange(K) per expert (ignored). Held-out adds the "
          "is_a_8bit layout (not in the upstream grid); smoke and held-out add words with bit 31 set (upstream's never "
          "have it).",
    packed_args=frozenset({"b_q_weight"}),
)


# --------------------------------------------------------------------------------- marlin_int4_fp8_preprocess
def int4_fp8_preprocess_native(qweight: torch.Tensor, qzeros: torch.Tensor | None = None) -> torch.Tensor:
    """``marlin_int4_fp8_preprocess``'s output (int32, qweight's shape): every nibble v of every word (positions
    kept) becomes ``v - z`` if ``v >= z`` else ``15 - v``; z = 8 without zeros (flat, shape-agnostic); with AWQ
    zeros ``[K/gs, N/8]``, z is the nibble at the same position of ``qzeros[k // gs, w]`` for word
    ``qweight[k, w]`` (gs = K / qzeros.size(0)).

    Raises:
        ValueError: numel % 32 != 0 without zeros; with zeros, shapes that do not match or a group size not a
            multiple of 8.
    """
    shifts = torch.arange(8, device=qweight.device, dtype=torch.int64) * 4
    v = (qweight.reshape(-1, 1).to(torch.int64) >> shifts) & 15          # [words, 8]
    if qzeros is None:
        if qweight.numel() % 32:
            raise ValueError(f"vllm::marlin_int4_fp8_preprocess: qweight has {qweight.numel()} words, not a "
                             f"multiple of 32")
        z = torch.full_like(v, 8)
    else:
        if qweight.dim() != 2 or qzeros.dim() != 2 or qzeros.shape[1] != qweight.shape[1] or not qzeros.shape[0] \
                or qweight.shape[0] % qzeros.shape[0] or (qweight.shape[0] // qzeros.shape[0]) % 8 \
                or qweight.shape[0] % 32:
            raise ValueError(f"vllm::marlin_int4_fp8_preprocess: qweight {list(qweight.shape)} and qzeros "
                             f"{list(qzeros.shape)} are not [K, N/8] and [K/gs, N/8] with K % 32 == 0, gs % 8 == 0")
        gs = qweight.shape[0] // qzeros.shape[0]
        zw = qzeros.repeat_interleave(gs, dim=0)
        z = (zw.reshape(-1, 1).to(torch.int64) >> shifts) & 15
    nv = torch.where(v >= z, v - z, 15 - v)
    return _as_int32((nv << shifts).sum(1)).reshape(qweight.shape)


def _pre_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    k, n = p["k"], p["n"]
    if p.get("zeros"):
        shape, lo = (k, n // 8), 0
    else:
        shape, lo = (k // 8, n), 0
    hi = 2 ** 32 if p.get("bit31") else 2 ** 31
    w = _as_int32(torch.randint(lo, hi, shape, generator=gen, device=device))
    if p.get("all_nibbles"):  # the first 2 words hold the nibbles 0..15 once each
        w.view(-1)[:2] = torch.tensor([0x76543210, -0x01234568], dtype=torch.int32, device=device)  # 0xFEDCBA98
    zeros = None
    if p.get("zeros"):
        zeros = _as_int32(torch.randint(0, 2 ** 32, (k // p["gs"], n // 8), generator=gen, device=device))
    return Call([w, zeros, bool(p.get("inplace", False))], written=(0,) if p.get("inplace") else ())


def _pre_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    w, z, inplace = call.args
    out = int4_fp8_preprocess_native(w, z)
    if inplace:
        return [Expected("arg.0", out.reshape(-1), EXACT, torch.ones(out.numel(), dtype=torch.bool,
                                                                       device=out.device)),
                Expected("return", None, EXACT, alias="arg.0")]
    return [Expected("return", out, EXACT)]


def _pre_base(c: Call) -> torch.Tensor:
    w, z, inplace = c.args
    out = int4_fp8_preprocess_native(w, z)
    if inplace:
        return w.copy_(out)
    return out


MARLIN_INT4_FP8_PREPROCESS = FunctionOperator(
    "marlin_int4_fp8_preprocess", source="vllm", category="weight recode",
    section="vllm.md § vllm::marlin_int4_fp8_preprocess",
    semantics="every 4-bit field v of every int32 word (all 8 nibbles, bits 4i..4i+3, positions unchanged) becomes "
              "v' = v - z if v >= z else 15 - v. Without zeros z = 8 (qweight is a flat array of words, any shape "
              "with numel % 32 == 0). With zeros (AWQ): qweight [K, N/8], qzeros [K/gs, N/8] (gs = K / "
              "qzeros.size(0)); z is the nibble at the same position of qzeros[k // gs, w] for word qweight[k, w]. "
              "Returns a new int32 tensor of qweight's shape, or with inplace=True writes qweight and returns it "
              "(the same object). Compared bit for bit.",
    interface=Interface(
        function="marlin_int4_fp8_preprocess", params=("qweight", "qzeros_or_none", "inplace"),
        defaults={"qzeros_or_none": None, "inplace": False}, written=("qweight",),
        returns="int32 of qweight's shape: a new tensor, or qweight itself with inplace=True",
        args_doc={"qweight": "int32 contiguous; written only with inplace=True. Without zeros any shape, numel % 32 "
                             "== 0; with zeros [K, N/8], K % 32 == 0",
                  "qzeros_or_none": "None, or int32 [K/gs, N/8] AWQ zero points (same nibble positions), gs % 8 == 0",
                  "inplace": "bool: write the result into qweight and return qweight"}),
    grids={
        "smoke": [dict(k=32, n=32, all_nibbles=True), dict(k=64, n=8, zeros=True, gs=32),
                  dict(k=32, n=8, inplace=True, bit31=True)],
        "full": [dict(k=k, n=n) for k, n in ((256, 256), (512, 256), (256, 512), (512, 512), (1024, 512),
                                              (512, 1024), (1024, 1024), (2048, 1024))],
        "heldout": [dict(k=8192, n=1024), dict(k=4096, n=4096, zeros=True, gs=128, bit31=True),
                    dict(k=1024, n=256, bit31=True, inplace=True)],
    },
    build=_pre_build, reference=_pre_ref,
    cost=lambda p: Cost(0.0, 4 * (2 * p["k"] * p["n"] // 8 + (p["k"] // p["gs"] * p["n"] // 8 if p.get("zeros")
                                                                  else 0))),
    timed=lambda p: p["k"] >= 512 and p["n"] >= 512,
    baseline=baseline("marlin_int4_fp8_preprocess", _pre_base), label=baseline_label,
    dtypes=lambda p: {torch.int32},
    notes="Full tier as upstream: qweight = randint(0, 2^31) of [K/8, N], no zeros, inplace=False. Smoke and held-out "
          "add AWQ zero points, inplace=True and words with bit 31 set (not in the upstream grid).",
    packed_args=frozenset({"qweight", "qzeros_or_none"}),
)


# ------------------------------------------------------------------------------------------- gptq_marlin_gemm
def marlin_gemm_native(a: torch.Tensor, b_q_weight: torch.Tensor, b_scales: torch.Tensor, perm: torch.Tensor | None,
                       b_q_type: Any, size_k: int, size_n: int, acc: torch.dtype = torch.float32
                       ) -> tuple[torch.Tensor, torch.Tensor]:
    """``gptq_marlin_gemm`` without zero points (vllm.md § gptq_marlin_gemm): ``(C, abs_sum)``.

    ``q`` = the Marlin-layout weights unpacked (§2.7), ``s`` = ``b_scales`` un-permuted, G = s.size(0), gs = K/G;
    ``a' = a[:, perm]`` where perm is non-empty (act-order; the group of row k is k // gs). Grouped (G > 1):
    ``W = rd_T((q - bias) * s[k // gs])``, ``C = rd_T(a' @ W)``; channelwise (G = 1): ``C = rd_T((a' @ (q - bias))
    * s)``. The product accumulates in ``acc`` (fp64 for the reference, fp32 for the baseline). ``abs_sum`` is the
    per-element sum of absolute terms (fp64, for the accumulation tolerance; None unless acc is fp64).

    Raises:
        ValueError: shapes that do not match K, N and the layout, or a group count that does not divide K.
    """
    bits, bias = int(b_q_type.size_bits), int(b_q_type.bias)
    m = a.shape[0]
    if tuple(a.shape) != (m, size_k) or b_scales.dim() != 2 or b_scales.shape[1] != size_n:
        raise ValueError(f"vllm::gptq_marlin_gemm: a {list(a.shape)} / b_scales {list(b_scales.shape)} do not match "
                         f"K = {size_k}, N = {size_n}")
    g = b_scales.shape[0]
    if g < 1 or size_k % g:
        raise ValueError(f"vllm::gptq_marlin_gemm: {g} scale groups do not divide K = {size_k}")
    q = marlin_unpack(b_q_weight, size_k, size_n, bits) - bias
    s = marlin_unpermute_scales(b_scales, grouped=g > 1)
    if perm is not None and perm.numel():
        a = a[:, perm.long()]
    return dequant_matmul(a, q, s, acc)


def dequant_matmul(a: torch.Tensor, q: torch.Tensor, s: torch.Tensor, acc: torch.dtype = torch.float32
                   ) -> tuple[torch.Tensor, torch.Tensor | None]:
    """``(C, abs_sum)`` of the Marlin GEMMs on logical operands: a ``[M, K]`` (fp16/bf16), signed integer weights
    ``q [K, N]`` (the bias already subtracted) and logical scales ``s [G, N]`` of a's dtype T. Grouped (G > 1, gs =
    K/G): ``C = rd_T(a @ rd_T(q * s[k // gs]))``; channelwise (G = 1): ``C = rd_T((a @ q) * s)``. Accumulates in
    ``acc``; ``abs_sum`` (fp64 per-element sum of absolute terms) only when acc is fp64."""
    g, size_k = s.shape[0], q.shape[0]
    t = a.dtype
    af = a.to(acc)
    if g > 1:
        w = (q.to(torch.float32) * s.float().repeat_interleave(size_k // g, 0)).to(t)
        c = af @ w.to(acc)
        absum = af.abs() @ w.to(acc).abs() if acc == torch.float64 else None
    else:
        qa = q.to(acc)
        c = (af @ qa) * s.to(acc)
        absum = (af.abs() @ qa.abs()) * s.to(acc).abs() if acc == torch.float64 else None
    return c.to(t), absum


def _qtype(p: dict[str, Any]) -> MarlinScalarType:
    return _QTYPES[p.get("qtype", "uint4b8")]


def _gemm_build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    m, k, n, dt = p["m"], p["k"], p["n"], p["dtype"]
    qt = _qtype(p)
    bits = qt.size_bits
    a = make_tensor([m, k], dt, device, gen)
    # the upstream construction: raw GPTQ words randint(0, 2^31) of [K/pf, N], Marlin-repacked with the act-order
    # permutation (gptq_marlin_repack gathers the source rows)
    words = _as_int32(torch.randint(0, 2 ** 32 if p.get("bit31") else 2 ** 31, (k * bits // 32, n), generator=gen,
                                    device=device))
    q = gptq_unpack(words, bits)
    act = p.get("act_order")
    empty = torch.empty(0, dtype=torch.int32, device=device)
    if act == "identity":
        perm = torch.arange(k, device=device, dtype=torch.int32)
    elif act == "random":
        perm = torch.randperm(k, generator=gen, device=device).to(torch.int32)
    elif act is None:
        perm = empty
    else:
        raise ValueError(f"vllm::gptq_marlin_gemm: unknown act_order {act!r}")
    if perm.numel():
        q = q[perm.long()]
    b_q_weight = marlin_pack(q, bits)
    groups = k // p["gs"] if p.get("gs") else 1
    # upstream: rand(G, N) + 0.01, used as the (already permuted) b_scales
    b_scales = (torch.rand(groups, n, generator=gen, device=device) + 0.01).to(dtype_of(dt))
    g_idx = (torch.arange(k, device=device) // (k // groups)).to(torch.int32) if perm.numel() else empty
    workspace = torch.zeros(max(n, 1024), dtype=torch.int32, device=device)
    return Call([a, None, b_q_weight, None, b_scales, None, None, empty.clone(), g_idx, perm, workspace, qt, m, n, k,
                 True, False, False, False])


def _gemm_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    a, _c, bq, _bias, bs, *_rest = call.args
    perm, qt, _m, n, k = call.args[9], call.args[11], call.args[12], call.args[13], call.args[14]
    c, absum = marlin_gemm_native(a, bq, bs, perm, qt, k, n, acc=torch.float64)
    terms = k + (1 if bs.shape[0] == 1 else 0)  # the channelwise scale multiplies the accumulator once more
    tol, extra = accumulation_rule(c.dtype, absum, terms, k)
    return [Expected("return", c, tol, atol_extra=extra)]


def _gemm_native_call(c: Call) -> torch.Tensor:
    a, out, bq, _bias, bs, *_rest = c.args
    res, _ = marlin_gemm_native(a, bq, bs, c.args[9], c.args[11], c.args[14], c.args[13])
    if out is not None:
        return out.copy_(res)
    return res


def _typed_baseline(name: str, native: Any) -> Any:
    """:func:`.common.baseline` whose vLLM kind gets vLLM's own ``ScalarType`` in place of the stand-in."""
    pick = baseline(name, native)

    def hook(call: Call, platform: Any, prefer: str | None = None) -> tuple[Any, str]:
        fn, label = pick(call, platform, prefer)
        if not label.startswith("vllm"):
            return fn, label
        inner = fn

        def with_types(c: Call) -> Any:
            args = [_vllm_scalar_type(x) if isinstance(x, MarlinScalarType) else x for x in c.args]
            return inner(Call(args, c.kwargs, c.written, c.unchanged))
        return with_types, label
    hook.kinds = pick.kinds  # type: ignore[attr-defined]
    return hook


def _gemm_cost(p: dict[str, Any]) -> Cost:
    m, k, n, e = p["m"], p["k"], p["n"], esize(p["dtype"])
    groups = k // p["gs"] if p.get("gs") else 1
    return Cost(2.0 * m * n * k, m * k * e + k * n * _qtype(p).size_bits / 8 + groups * n * e + m * n * e
                + (4 * k if p.get("act_order") else 0), compute="fp16")


def _gemm_full() -> list[dict[str, Any]]:
    return [dict(m=m, k=k, n=n, dtype="fp16", gs=128, act_order="identity")
            for m, k, n in ((1, 256, 256), (32, 256, 256), (64, 256, 512), (128, 512, 256), (128, 1024, 512),
                            (256, 1024, 512), (512, 1024, 512), (1024, 2048, 1024))]


GPTQ_MARLIN_GEMM = FunctionOperator(
    "gptq_marlin_gemm", source="vllm", category="quantized GEMM", section="vllm.md § vllm::gptq_marlin_gemm",
    semantics="C = rd_T(a' @ W), T = a's dtype, fp32 accumulation. q[k, n] = the Marlin-layout weights unpacked "
              "(vllm.md §2.7; b_q_type uint4b8: 4-bit, bias 8). s = b_scales un-permuted: grouped (G = "
              "b_scales.size(0) > 1) s[g, 64b + i + 8j] = b_scales[g, 64b + 8i + j] (i, j < 8); channelwise (G = 1) "
              "s[0, 32b + 2i + (0, 1, 8, 9, 16, 17, 24, 25)[j]] = b_scales[0, 32b + 8i + j] (i < 4, j < 8). gs = "
              "K / G. Act-order (g_idx and perm both non-empty, is_k_full): a' = a[:, perm] and the group of row k is "
              "k // gs (g_idx is not consulted; an identity perm is still act-order); otherwise a' = a. Grouped: "
              "W[k, n] = rd_T((q[k, n] - 8) * s[k // gs, n]) (the scale applied in T before the product); "
              "channelwise: C = rd_T((a' @ (q - 8)) * s[0, n]) (the scale multiplies the fp32 accumulator). "
              "c = None: a new [M, N] tensor is returned. workspace is scratch that must stay zero. Marlin layout "
              "(vllm.md §2.7): b_q_weight [K/16, N*16/pf] holds 16x64 tiles; tile (kt, nt) is the 1024/pf words of row "
              "kt from column nt*1024/pf; inside it, for t < 32, w < 4, c = 16w + t//4, r = 2(t mod 4): 4-bit word "
              "4t + w has at nibble i (bits 4i..4i+3) q[16kt + r + dk_i, 64nt + c + dn_i] with dk = (0, 8, 0, 8, 1, "
              "9, 1, 9), dn = (0, 0, 8, 8, 0, 0, 8, 8); 8-bit (uint8b128, bias 128) words 8t + 2w + h (h < 2) have "
              "at byte i q[16kt + r + dk_i, 64nt + c + 8h] with dk = (0, 8, 1, 9).",
    interface=Interface(
        function="gptq_marlin_gemm",
        params=("a", "c", "b_q_weight", "b_bias", "b_scales", "a_scales", "global_scale", "b_zeros", "g_idx", "perm",
                "workspace", "b_q_type", "size_m", "size_n", "size_k", "is_k_full", "use_atomic_add",
                "use_fp32_reduce", "is_zp_float"),
        defaults={"is_k_full": True, "use_atomic_add": False, "use_fp32_reduce": False, "is_zp_float": False},
        returns="[M, N] of a's dtype (c itself when c is given)",
        args_doc={"a": "fp16/bf16 [M, K] contiguous",
                  "c": "None (graded) or an [M, N] output to write and return",
                  "b_q_weight": "int32 [K/16, N*16/pf] Marlin layout (vllm.md §2.7), pf = 32 / b_q_type.size_bits",
                  "b_bias": "None (graded)",
                  "b_scales": "[G, N] of a's dtype, Marlin-permuted (G = 1: channelwise; else groups of K/G rows)",
                  "a_scales": "None (16-bit a)", "global_scale": "None",
                  "b_zeros": "empty int32 tensor (no zero points)",
                  "g_idx": "int32 [K] (act-order; not consulted) or empty",
                  "perm": "int32 [K] act-order column permutation of a (a' = a[:, perm]) or empty",
                  "workspace": "int32 zeros (scratch; must be zero again on return)",
                  "b_q_type": "ScalarType stand-in: size_bits, bias, signed, str() (uint4b8 graded)",
                  "size_m": "int M", "size_n": "int N (N % 64 == 0)", "size_k": "int K (K % 16 == 0)",
                  "is_k_full": "True (graded)", "use_atomic_add": "bool (no effect on the result)",
                  "use_fp32_reduce": "bool (no effect on the graded result)", "is_zp_float": "False"}),
    grids={
        "smoke": [dict(m=1, k=128, n=64, dtype="fp16"),
                  dict(m=5, k=256, n=128, dtype="fp16", gs=128, act_order="random", bit31=True),
                  dict(m=17, k=256, n=64, dtype="fp16", gs=64)],
        "full": _gemm_full(),
        "heldout": [dict(m=33, k=4096, n=14336, dtype="bf16", gs=128, bit31=True),
                    dict(m=256, k=2048, n=4096, dtype="fp16", gs=128, act_order="random", bit31=True),
                    dict(m=1, k=11008, n=4096, dtype="fp16", bit31=True)],
    },
    build=_gemm_build, reference=_gemm_ref, cost=_gemm_cost,
    timed=lambda p: p["m"] >= 128 and p["k"] >= 512 and p["n"] >= 256,
    baseline=_typed_baseline("gptq_marlin_gemm", _gemm_native_call), label=baseline_label,
    dtypes=lambda p: {dtype_of(p["dtype"])},
    atol_text=accumulation_text("K", "(|a'| @ |W|)[m, n] (channelwise: (|a'| @ |q - 8|)[m, n] * |s[n]|)", "1e-4 x K"),
    notes="Full tier as upstream: a = randn fp16, raw GPTQ words randint(0, 2^31) Marlin-packed with perm = arange(K), "
          "b_scales = rand(K/128, N) + 0.01 used as the permuted scales, g_idx = arange(K) // 128, perm = arange(K) "
          "(the act-order path with the identity, gs = 128), b_zeros empty, c = None; workspace zeros(max(N, 1024)). "
          "Smoke and held-out add channelwise scales, no act-order, a random act-order permutation (the weights "
          "repacked with it, as vLLM does), bf16, and raw words over all 32 bits (upstream's randint(0, 2^31) keeps "
          "every k mod 8 = 7 row's weight below 8, i.e. negative after the bias). Tolerance (ours, not the spec's): "
          "the accumulation rule (README \"Tolerance and precision policy\") against an fp64 product of the T-rounded "
          "weights, never looser than the spec's 1e-4 x K (reduce_dim = K); vLLM's own kernel may round K-slice "
          "partial sums to T when use_fp32_reduce is False.",
    packed_args=frozenset({"b_q_weight", "b_scales", "b_zeros"}),
)


OPERATORS = [AWQ_MARLIN_MOE_REPACK, GPTQ_MARLIN_GEMM, GPTQ_MARLIN_MOE_REPACK,
             MARLIN_INT4_FP8_PREPROCESS]
