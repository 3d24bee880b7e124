"""The Marlin family (vllm.md §2.7, §3: the MoE repacks, marlin_int4_fp8_preprocess, gptq_marlin_gemm): the
tile packer, AWQ packer and scale permutations on their own (round trips, hand-computed elements), and the
native references against hand-computed small cases."""
from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite.common import generator
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.vllm.marlin import (
    UINT4B8,
    MarlinScalarType,
    awq_marlin_repack_native,
    awq_pack,
    awq_unpack,
    gptq_marlin_repack_native,
    int4_fp8_preprocess_native,
    marlin_gemm_native,
    marlin_index_map,
    marlin_pack,
    marlin_permute_scales,
    marlin_unpack,
    marlin_unpermute_scales,
)
from kernelgenbench.suite.vllm.quant import gptq_pack

CPU = torch.device("cpu")


def _u32(v: int) -> int:
    """The int32 value with the 32 bits of ``v``."""
    return v - (1 << 32) if v >= 1 << 31 else v


@pytest.mark.parametrize("bits,a8", [(4, False), (8, False), (4, True), (8, True)])
def test_marlin_pack_round_trip_and_bijection(bits: int, a8: bool) -> None:
    k, n = 64, 128
    sk, sn = marlin_index_map(k, n, bits, a8)
    assert sk.shape == (k * n * bits // 32, 32 // bits)
    # every logical element is held by exactly one field
    assert torch.unique(sk * n + sn).numel() == k * n
    q = torch.randint(0, 1 << bits, (k, n), generator=generator(CPU, 3))
    p = marlin_pack(q, bits, a8)
    assert p.dtype == torch.int32 and p.shape == (k // 16, n * bits // 2)
    assert bool((p < 0).any())  # top fields >= 8 set bit 31: compared as bit patterns
    assert torch.equal(marlin_unpack(p, k, n, bits, a8), q)


def test_marlin_pack_hand_elements() -> None:
    # 4-bit, K = 32, N = 128: q[16*1 + 2 + 9, 64*1 + 16*3 + 5 + 8] -> kt 1, nt 1, r 2 (t mod 4 = 1), dk 9, dn 8
    # (nibble 7), c = 53 = 16*3 + 5 (w 3, t // 4 = 5: t = 21): word 4*21 + 3 = 87 of the tile, column 128 + 87
    q = torch.zeros(32, 128, dtype=torch.int64)
    q[27, 125] = 0xB
    p = marlin_pack(q, 4)
    assert p[1, 215].item() == _u32(0xB << 28) and int((p != 0).sum()) == 1
    # 8-bit, K = 16, N = 64: q[6 + 1, 16*2 + 3 + 8] -> r 6 (t mod 4 = 3), dk 1 (byte 2), c = 35 (w 2, t // 4 = 3:
    # t = 15), h = 1: word 8*15 + 2*2 + 1 = 125
    q = torch.zeros(16, 64, dtype=torch.int64)
    q[7, 43] = 200
    p = marlin_pack(q, 8)
    assert p.shape == (1, 256) and p[0, 125].item() == 200 << 16 and int((p != 0).sum()) == 1
    # is_a_8bit 4-bit, K = 32, N = 64: tile (0, 1) at flat word 128; t = 6 (r = 8, t // 4 = 1), w = 3
    # (c = 16 + 1 + 8 = 25): v_6 = q[8 + 16 + 2, 32 + 25] sits at nibble 5 ((0, 4, 1, 5, 2, 6, 3, 7)[5] = 6)
    # of word 4*6 + 3 = 27: flat 155 = row 1, column 27 of [2, 128]
    q = torch.zeros(32, 64, dtype=torch.int64)
    q[26, 57] = 9
    p = marlin_pack(q, 4, True)
    assert p[1, 27].item() == 9 << 20 and int((p != 0).sum()) == 1


def test_marlin_pack_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="multiples of 16 and 64"):
        marlin_pack(torch.zeros(16, 32, dtype=torch.int64), 4)
    with pytest.raises(ValueError, match=r"\[0, 16\)"):
        marlin_pack(torch.full((16, 64), 16), 4)
    with pytest.raises(ValueError, match="num_bits 3"):
        marlin_pack(torch.zeros(16, 64, dtype=torch.int64), 3)


def test_awq_pack_hand_word_and_round_trip() -> None:
    q = torch.arange(8).reshape(1, 8)
    # column j goes to nibble (0, 4, 1, 5, 2, 6, 3, 7)[j]: nibbles 0..7 hold 0, 2, 4, 6, 1, 3, 5, 7
    assert awq_pack(q, 4).item() == 0x75316420
    # 8-bit: column j to byte (0, 2, 1, 3)[j]: bytes hold 10, 12, 11, 13
    assert awq_pack(torch.tensor([[10, 11, 12, 13]]), 8).item() == 0x0D0B0C0A
    for bits in (4, 8):
        r = torch.randint(0, 1 << bits, (8, 32), generator=generator(CPU, bits))
        assert torch.equal(awq_unpack(awq_pack(r, bits), bits), r)


def test_marlin_scale_permutations() -> None:
    s = torch.arange(128.0).reshape(1, 128)
    g = marlin_permute_scales(s, grouped=True)
    # packed column 64b + 8i + j holds logical column 64b + i + 8j
    assert g[0, 64 + 8 * 2 + 3].item() == 64 + 2 + 24
    c = marlin_permute_scales(s, grouped=False)
    # packed column 32b + 8i + j holds logical column 32b + 2i + (0, 1, 8, 9, 16, 17, 24, 25)[j]
    assert c[0, 32 + 8 * 1 + 5].item() == 32 + 2 + 17
    for grouped, perm in ((True, g), (False, c)):
        assert sorted(perm[0].tolist()) == s[0].tolist()
        assert torch.equal(marlin_unpermute_scales(perm, grouped), s)


def test_gptq_repack_hand_case() -> None:
    # one expert, K = 16, N = 64, 4-bit; word [0, 0] has field 1 = 5: q[1, 0] = 5. perm[9] = 1 gathers it to row 9,
    # which the Marlin layout puts at word 0, nibble 5 (dk 9 = nibble 5, r = 0, c = 0)
    w = torch.zeros(1, 2, 64, dtype=torch.int32)
    w[0, 0, 0] = 5 << 4
    perm = torch.arange(16, dtype=torch.int32)
    perm[1], perm[9] = 9, 1
    out = gptq_marlin_repack_native(w, perm[None], 16, 64, 4)
    assert out.shape == (1, 1, 128) and out[0, 0, 0].item() == 5 << 20 and int((out != 0).sum()) == 1
    # without the gather (empty perm) row 1 is r = 0 + dk 1: nibble 4 of word 0
    out = gptq_marlin_repack_native(w, torch.empty(1, 0, dtype=torch.int32), 16, 64, 4)
    assert out[0, 0, 0].item() == 5 << 16
    # experts do not bleed: expert 1 all zero
    w2 = torch.cat([w, torch.zeros_like(w)])
    out = gptq_marlin_repack_native(w2, torch.empty(2, 0, dtype=torch.int32), 16, 64, 4)
    assert out[0, 0, 0].item() == 5 << 16 and not bool(out[1].any())
    with pytest.raises(ValueError, match="not allowed with is_a_8bit"):
        gptq_marlin_repack_native(torch.zeros(1, 4, 32, dtype=torch.int32), perm[None].repeat(1, 2), 32, 32, 4, True)


def test_repacks_agree_on_the_same_logical_weights() -> None:
    q = torch.randint(0, 16, (2, 32, 128), generator=generator(CPU, 7))
    gw = torch.stack([gptq_pack(q[e], 4) for e in range(2)])
    aw = torch.stack([awq_pack(q[e], 4) for e in range(2)])
    g = gptq_marlin_repack_native(gw, torch.arange(32, dtype=torch.int32).repeat(2, 1), 32, 128, 4)
    a = awq_marlin_repack_native(aw, 32, 128, 4)
    assert torch.equal(g, a)
    assert torch.equal(marlin_unpack(g[1], 32, 128, 4), q[1])


def test_int4_fp8_preprocess_hand_words() -> None:
    w = torch.tensor([0x76543210, _u32(0xFEDCBA98)] + [0] * 30, dtype=torch.int32)
    out = int4_fp8_preprocess_native(w)
    # v < 8 -> 15 - v; v >= 8 -> v - 8; a zero word becomes 0xFFFFFFFF (-1)
    assert out[0].item() == _u32(0x89ABCDEF) and out[1].item() == 0x76543210 and out[2].item() == -1
    # with zeros, K = 32, gs = 32 (one zero row), N/8 = 1: z = 5 everywhere; v = 3 -> 12, v = 7 -> 2, v = 5 -> 0
    qw = torch.full((32, 1), 0x00000573, dtype=torch.int32)
    qz = torch.full((1, 1), 0x55555555, dtype=torch.int32)
    o = int4_fp8_preprocess_native(qw, qz)
    # nibbles 0..7 of 0x00000573: 3, 7, 5, 0, 0, ...: 12, 2, 0, 15, 15, ...
    assert o[0, 0].item() == _u32(0xFFFFF02C)
    with pytest.raises(ValueError, match="multiple of 32"):
        int4_fp8_preprocess_native(torch.zeros(31, dtype=torch.int32))


def _gemm_operands(k: int, n: int, scales: torch.Tensor, entries: dict[tuple[int, int], int]
                   ) -> tuple[torch.Tensor, torch.Tensor]:
    """Marlin weights with q = 8 (zero after the bias) except ``entries``, and the permuted scales."""
    q = torch.full((k, n), 8, dtype=torch.int64)
    for (r, c), v in entries.items():
        q[r, c] = v
    return marlin_pack(q, 4), marlin_permute_scales(scales, grouped=scales.shape[0] > 1)


def test_marlin_gemm_hand_cases() -> None:
    # channelwise, K = 16, N = 64: q[3, 5] - 8 = 2, q[15, 5] - 8 = -8, s[5] = 0.5; a[3] = 1.5, a[15] = 0.25:
    # C[5] = (1.5*2 - 0.25*8) * 0.5 = 0.5, every other column 0
    s = torch.ones(1, 64, dtype=torch.float16)
    s[0, 5] = 0.5
    bq, bs = _gemm_operands(16, 64, s, {(3, 5): 10, (15, 5): 0})
    a = torch.zeros(1, 16, dtype=torch.float16)
    a[0, 3], a[0, 15] = 1.5, 0.25
    c, absum = marlin_gemm_native(a, bq, bs, None, UINT4B8, 16, 64, acc=torch.float64)
    want = torch.zeros(1, 64, dtype=torch.float16)
    want[0, 5] = 0.5
    assert torch.equal(c, want) and absum[0, 5].item() == (1.5 * 2 + 0.25 * 8) * 0.5
    # grouped, K = 32, gs = 16: q[3, 5] - 8 = 2 (group 0, s 0.5), q[20, 5] - 8 = 4 (group 1, s 0.25); a[3] = 1,
    # a[20] = 1, a[7] = 3: C[5] = 2*0.5 + 4*0.25 = 2; with the act-order perm swapping 3 and 7, a'[3] = a[7] = 3:
    # C[5] = 3*2*0.5 + 4*0.25 = 4
    s = torch.ones(2, 64, dtype=torch.float16)
    s[0, 5], s[1, 5] = 0.5, 0.25
    bq, bs = _gemm_operands(32, 64, s, {(3, 5): 10, (20, 5): 12})
    a = torch.zeros(1, 32, dtype=torch.float16)
    a[0, 3], a[0, 20], a[0, 7] = 1.0, 1.0, 3.0
    assert marlin_gemm_native(a, bq, bs, torch.empty(0, dtype=torch.int32), UINT4B8, 32, 64)[0][0, 5].item() == 2.0
    perm = torch.arange(32, dtype=torch.int32)
    perm[3], perm[7] = 7, 3
    assert marlin_gemm_native(a, bq, bs, perm, UINT4B8, 32, 64)[0][0, 5].item() == 4.0


def test_marlin_gemm_scale_rounding_points() -> None:
    # s = fp16(1/3) = 0.333251953125, q - 8 = 7, a = 3. Grouped: W = rd16(7 s) = rd16(2.332763671875) = 2.33203125,
    # C = rd16(3 W) = 6.99609375 (exact). Channelwise: C = rd16((3*7) s) = rd16(6.998291015625) = 7.0
    third = torch.tensor(1 / 3, dtype=torch.float16)
    assert third.item() == 0.333251953125
    a = torch.zeros(1, 32, dtype=torch.float16)
    a[0, 0] = 3.0
    bq, bs = _gemm_operands(32, 64, torch.full((2, 64), third.item(), dtype=torch.float16), {(0, 9): 15})
    assert marlin_gemm_native(a, bq, bs, None, UINT4B8, 32, 64)[0][0, 9].item() == 6.99609375
    bq, bs = _gemm_operands(32, 64, torch.full((1, 64), third.item(), dtype=torch.float16), {(0, 9): 15})
    assert marlin_gemm_native(a, bq, bs, None, UINT4B8, 32, 64)[0][0, 9].item() == 7.0
    # 8-bit (uint8b128): q = 130 -> +2
    q = torch.full((16, 64), 128, dtype=torch.int64)
    q[1, 2] = 130
    a8 = torch.ones(1, 16, dtype=torch.float16)
    s = torch.full((1, 64), 0.5, dtype=torch.float16)
    u8 = MarlinScalarType("uint8b128", 8, 128)
    c, _ = marlin_gemm_native(a8, marlin_pack(q, 8), marlin_permute_scales(s, False), None, u8, 16, 64)
    assert c[0, 2].item() == 1.0 and int((c != 0).sum()) == 1


def test_scalar_type_stand_in_travels_in_a_case(tmp_path) -> None:
    path = tmp_path / "case.pt"
    torch.save({"t": UINT4B8}, path)
    back = torch.load(path, weights_only=True)["t"]
    assert back == UINT4B8 and str(back) == "uint4b8" and back.size_bits == 4 and back.bias == 8 and not back.signed


def test_gemm_full_case_reference_matches_a_dense_recomputation() -> None:
    op = get_operator("vllm::gptq_marlin_gemm")
    p = op.grid("full")[1]                                   # M = 32, K = N = 256, gs 128, identity act-order
    call = op.build(p, CPU, generator(CPU, 5))
    a, bq, bs, perm = call.args[0], call.args[2], call.args[4], call.args[9]
    assert bq.shape == (16, 512) and bs.shape == (2, 256) and perm.tolist() == list(range(256))
    (exp,) = op.reference(p, call)
    q = marlin_unpack(bq, 256, 256, 4) - 8
    s = marlin_unpermute_scales(bs, True).float().repeat_interleave(128, 0)
    dense = (a.float() @ (q.float() * s).half().float()).half()
    assert torch.allclose(exp.value.float(), dense.float(), rtol=1e-3, atol=1e-3)
    assert exp.atol_extra is not None and exp.atol_extra.shape == (32, 256)


@pytest.mark.parametrize("op_id", ["vllm::gptq_marlin_moe_repack", "vllm::awq_marlin_moe_repack",
                                   "vllm::marlin_int4_fp8_preprocess"])
def test_small_full_and_heldout_cases_build_and_check(op_id: str) -> None:
    op = get_operator(op_id)
    for tier, i in (("full", 0), ("heldout", 2)):
        p = op.grid(tier)[i]
        call = op.build(p, CPU, generator(CPU, 11))
        exp = op.reference(p, call)
        assert exp and all(e.value is None or e.value.dtype == torch.int32 for e in exp)


def test_every_full_case_builds_with_the_spec_shapes() -> None:
    for op_id in ("vllm::gptq_marlin_moe_repack", "vllm::awq_marlin_moe_repack"):
        op = get_operator(op_id)
        for p in op.grid("full"):
            w, perm, k, n, bits, a8 = op.build(p, CPU, generator(CPU, 1)).args
            pf = 32 // bits
            want = (p["e"], k, n // pf) if "awq" in op_id else (p["e"], k // pf, n)
            assert tuple(w.shape) == want and tuple(perm.shape) == (p["e"], k) and not a8
    op = get_operator("vllm::marlin_int4_fp8_preprocess")
    for p in op.grid("full"):
        w, z, inplace = op.build(p, CPU, generator(CPU, 1)).args
        assert tuple(w.shape) == (p["k"] // 8, p["n"]) and z is None and not inplace
    op = get_operator("vllm::gptq_marlin_gemm")
    for p in op.grid("full"):
        args = op.build(p, CPU, generator(CPU, 1)).args
        m, k, n = p["m"], p["k"], p["n"]
        assert tuple(args[0].shape) == (m, k) and tuple(args[2].shape) == (k // 16, 2 * n)
        assert tuple(args[4].shape) == (k // 128, n) and args[7].numel() == 0
        assert args[8].tolist() == [i // 128 for i in range(k)] and args[9].tolist() == list(range(k))
        assert args[12:15] == [m, n, k]


# ------------------------------------------------------------------------------------------- Marlin-24
def test_sparse24_prune_and_quantize_hand_cases() -> None:
    from kernelgenbench.suite.vllm.marlin24 import quantize24, sparse24_prune

    w = torch.tensor([[1.0], [-3.0], [0.5], [2.0]], dtype=torch.float16)
    assert sparse24_prune(w).flatten().tolist() == [0.0, -3.0, 0.0, 2.0]   # the two smallest |w| dropped
    # one group of 4: s = max(3.5/7, |-2|/8) = 0.5; q = rne(w/s) = (7, -4, 0, 2); 1.25/0.5 = 2.5 rounds to even 2
    q, s, w_ref = quantize24(torch.tensor([[3.5], [-2.0], [0.0], [1.25]], dtype=torch.float16), 4, 4)
    assert q.flatten().tolist() == [7, -4, 0, 2] and s.tolist() == [[0.5]]
    assert w_ref.flatten().tolist() == [3.5, -2.0, 0.0, 1.0]
    # 8-bit: qmax 127, qmin -128: s = max(127/127, |-64|/128) = 1
    q, s, _ = quantize24(torch.tensor([[127.0], [-64.0], [0.0], [0.0]], dtype=torch.float16), 8, 4)
    assert q.flatten().tolist() == [127, -64, 0, 0] and s.item() == 1.0


def test_compress24_hand_quads() -> None:
    from kernelgenbench.suite.vllm.marlin24 import compress24

    # one column, four quads: [0, 5, 0, -3] -> (1, 3) code 13; zeros -> (2, 3) code 14; [4, 0, 0, 0] -> (0, 2)
    # code 8 (a kept pair may hold a zero); [0, 0, 6, 1] -> (2, 3) code 14
    q = torch.tensor([0, 5, 0, -3, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 6, 1])[:, None]
    qc, meta = compress24(q)
    assert qc.flatten().tolist() == [5, -3, 0, 0, 4, 0, 6, 1]
    # 13 | 14 << 4 | 8 << 8 | 14 << 12 = 59629 = 0xE8ED: int16 -5907 (the sign bit is used)
    assert meta.dtype == torch.int16 and meta.tolist() == [[59629 - 65536]]
    with pytest.raises(ValueError, match="more than two"):
        compress24(torch.tensor([1, 1, 1, 0] * 4)[:, None])


def test_meta_reorder_hand_positions_and_round_trip() -> None:
    from kernelgenbench.suite.vllm.marlin24 import _meta_offsets, meta_reorder, meta_unreorder

    off = _meta_offsets(64, 2, CPU)
    # [1, 0]: r' = 2, no swap -> 2*2 = 4; [0, 1]: r' = 0 even, c odd -> r' 1, c' 0 -> 2; [3, 0]: r' = 2 + 32 = 34 -> 68;
    # [4, 0]: r' = 1 odd, c even -> r' 0, c' 1 -> 1; [8, 0]: r' = 4 -> 8
    got = [off[1, 0].item(), off[0, 1].item(), off[3, 0].item(), off[4, 0].item(), off[8, 0].item()]
    assert got == [4, 2, 68, 1, 8]
    assert torch.unique(_meta_offsets(128, 8, CPU)).numel() == 128 * 8
    meta = torch.randint(-2 ** 15, 2 ** 15, (128, 8), generator=generator(CPU, 2)).to(torch.int16)
    b = meta_reorder(meta)
    assert b.shape == (4, 256) and torch.equal(meta_unreorder(b, 128, 128), meta)


def test_perm24_and_weight_packing() -> None:
    from kernelgenbench.suite.vllm.marlin24 import pack24, perm24, unpack24

    p = perm24(4)
    assert sorted(p.tolist()) == list(range(1024))
    # i = 0: base rows 0, 1, 8, 9 (blk 0) then + 4 (blk 1): 0, 16, 128, 144, 4, 20, 132, 148; interleaved by
    # (0, 2, 4, 6, 1, 3, 5, 7)
    assert p[:8].tolist() == [0, 128, 4, 132, 16, 144, 20, 148]
    assert p[8].item() == 1 and p[32].item() == 32 and p[128].item() == 8 and p[256].item() == 256
    assert perm24(8)[:4].tolist() == [0, 128, 16, 144]   # groups of 4, interleave (0, 2, 1, 3)
    for bits in (4, 8):
        qc = torch.randint(0, 1 << bits, (64, 128), generator=generator(CPU, bits))
        bq = pack24(qc, bits)
        assert bq.shape == (4, 128 * bits // 2) and torch.equal(unpack24(bq, 128, 128, bits), qc)
    # hand element: qc[0, 0] is tiled position 0 = perm24[0]: word 0, nibble 0; qc[8, 0] is tiled 128 = perm24[1]:
    # nibble 1
    qc = torch.zeros(16, 64, dtype=torch.int64)
    qc[0, 0], qc[8, 0] = 3, 9
    assert pack24(qc, 4)[0, 0].item() == 3 | 9 << 4


def test_scales24_permutation() -> None:
    from kernelgenbench.suite.vllm.marlin24 import permute_scales24, unpermute_scales24

    s = torch.arange(128.0)[None]
    g = permute_scales24(s, True)
    assert g[0, 8 + 1].item() == 12.0 and g[0, 64 + 8 * 7 + 7].item() == 127.0   # 8i + (0, 4, 1, 5, 2, 6, 3, 7)[j]
    assert torch.equal(unpermute_scales24(g, True), s) and torch.equal(permute_scales24(s, False), s)


def test_marlin24_chain_round_trip_and_hand_product() -> None:
    from kernelgenbench.suite.vllm.marlin import UINT8B128
    from kernelgenbench.suite.vllm.marlin24 import (
        marlin24_dense,
        marlin24_gemm_native,
        marlin24_quantize,
        unpermute_scales24,
    )

    for qt, group in ((UINT4B8, 128), (UINT4B8, 256), (UINT8B128, 128)):
        w = torch.randn(256, 128, generator=generator(CPU, 4)).half()
        w_ref, bq, meta, bs = marlin24_quantize(w, qt, group)
        dense = marlin24_dense(bq, meta, 256, 128, qt.size_bits, qt.bias)
        assert int((dense.t().reshape(128, 64, 4) != 0).sum(-1).max()) <= 2
        s = unpermute_scales24(bs, bs.shape[0] > 1)
        assert torch.equal(dense.half() * s.repeat_interleave(256 // s.shape[0], 0), w_ref)
    # column 5 holds 3.5 at k = 1 and -2 at k = 3 (quad 0), everything else 0; channelwise (K = 128): s = 0.5,
    # q = 7 and -4; a[1] = 2, a[3] = 0.5: C[5] = (2*7 - 0.5*4) * 0.5 = 6
    w = torch.zeros(128, 128, dtype=torch.float16)
    w[1, 5], w[3, 5] = 3.5, -2.0
    _, bq, meta, bs = marlin24_quantize(w, UINT4B8, 128)
    assert bs.shape == (1, 128) and bs[0, 5].item() == 0.5
    a = torch.zeros(1, 128, dtype=torch.float16)
    a[0, 1], a[0, 3] = 2.0, 0.5
    c, _ = marlin24_gemm_native(a, bq, meta, bs, UINT4B8, 128, 128)
    want = torch.zeros(1, 128, dtype=torch.float16)
    want[0, 5] = 6.0
    assert torch.equal(c, want)


def test_marlin24_row_cases_build() -> None:
    op = get_operator("vllm::gptq_marlin_24_gemm")
    for p in op.grid("full"):
        a, bq, meta, bs, ws, qt, m, n, k = op.build(p, CPU, generator(CPU, 1)).args
        assert tuple(bq.shape) == (k // 32, 2 * n) and tuple(meta.shape) == (k // 32, 2 * n)
        assert meta.dtype == torch.int16 and tuple(bs.shape) == ((k // 128 if k > 128 else 1), n)
        assert str(qt) == "uint4b8" and (m, n, k) == (p["m"], p["n"], p["k"]) and not bool(ws.any())
    p = op.grid("smoke")[1]
    call = op.build(p, CPU, generator(CPU, 1))
    (exp,) = op.reference(p, call)
    assert exp.value.shape == (3, 128) and exp.value.dtype == torch.float16


@pytest.mark.parametrize("op_id,timed", [("vllm::gptq_marlin_moe_repack", 5), ("vllm::awq_marlin_moe_repack", 5),
                                         ("vllm::marlin_int4_fp8_preprocess", 5), ("vllm::gptq_marlin_gemm", 5),
                                         ("vllm::gptq_marlin_24_gemm", 5)])
def test_timing_gates_follow_the_spec(op_id: str, timed: int) -> None:
    op = get_operator(op_id)
    assert sum(op.timed(p) for p in op.grid("full")) == timed
