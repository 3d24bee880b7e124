"""The vLLM quantised-GEMM family (vllm.md §3: allspark_w8a16_gemm, awq_gemm, gptq_gemm): packers and unpackers
against hand-computed words and bytes, round trips, and the native references against hand-computed small
cases that pin down each rounding point."""
from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite.common import generator
from kernelgenbench.suite.compare import compare_values
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.spec import Call
from kernelgenbench.suite.vllm.qgemm import (
    allspark_byte_index,
    allspark_native,
    allspark_pack,
    allspark_pack_scales,
    allspark_unpack,
    allspark_unpack_scales,
    awq_native,
    awq_pack,
    awq_unpack,
    gptq_allowance,
    gptq_gemm_native,
    gptq_gemm_weights,
)
from kernelgenbench.suite.vllm.quant import GPTQ_SIGMA, gptq_pack

CPU = torch.device("cpu")
F16 = torch.float16
I32 = torch.int32


def _word(v: int) -> int:
    """A 32-bit pattern as the int32 holding it."""
    return v - (1 << 32) if v >= 1 << 31 else v


# ------------------------------------------------------------------------------------------------------ AWQ
def test_awq_pack_hand_word_and_round_trip() -> None:
    # columns 0..7 hold values 0..7: column c sits at nibble (0, 4, 1, 5, 2, 6, 3, 7)[c], so nibbles 0..7 read
    # columns 0, 2, 4, 6, 1, 3, 5, 7
    w = awq_pack(torch.arange(8).reshape(1, 8))
    assert w.dtype == I32 and w.tolist() == [[0x75316420]]
    assert awq_unpack(torch.tensor([[_word(0xF0000001)]], dtype=I32)).tolist() == [[1, 0, 0, 0, 0, 0, 0, 15]]
    q = torch.randint(0, 16, (5, 24), generator=generator(CPU, 3))
    assert torch.equal(awq_unpack(awq_pack(q)), q)
    with pytest.raises(ValueError, match="awq_gemm"):
        awq_pack(torch.zeros(2, 12, dtype=torch.int64))


def _awq_operands(k: int, n: int, g: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """All-zero weights (q = z = 0), unit scales: a blank to fill by hand."""
    q = torch.zeros(k, n, dtype=torch.int64)
    z = torch.zeros(k // g, n, dtype=torch.int64)
    s = torch.ones(k // g, n, dtype=F16)
    inp = torch.zeros(1, k, dtype=F16)
    return inp, q, s, z


def test_awq_native_rounds_the_weight_to_fp16() -> None:
    inp, q, s, z = _awq_operands(32, 8, 32)
    s[0, 3] = 1.0 + 2.0 ** -10
    z[0, 3] = 1
    q[0, 3], q[1, 3] = 4, 3                   # W = rd16(3 * s) = 3.00390625 (a tie to even), rd16(2 * s) exact
    inp[0, 0], inp[0, 1] = 1.0, -1.0
    c, parts = awq_native(inp, awq_pack(q), s, awq_pack(z), 1)
    assert parts.shape == (1, 1, 8)
    # 3.00390625 - 2.001953125; the unrounded weights would give 1.0009765625
    assert c[0, 3].item() == 1.001953125
    assert c[0, 0].item() == 0.0 and c.dtype == F16


def test_awq_native_rounds_each_split_partial() -> None:
    inp, q, s, z = _awq_operands(64, 8, 32)
    q[0, 0] = q[1, 0] = q[32, 0] = 1           # W = 1 on rows 0, 1 (chunk 0) and 32 (chunk 1)
    inp[0, 0], inp[0, 1], inp[0, 32] = 2048.0, 1.0, 1.0
    args = (inp, awq_pack(q), s, awq_pack(z))
    # one split: rd16(2050) = 2050; two: P_0 = rd16(2049) = 2048 (tie to even), P_1 = 1, rd16(2049) = 2048
    assert awq_native(*args, 1)[0][0, 0].item() == 2050.0
    c, parts = awq_native(*args, 2)
    assert parts[:, 0, 0].tolist() == [2048.0, 1.0] and c[0, 0].item() == 2048.0
    # chunks go round robin: with 3 splits chunk 1 is split 1 and split 2 is empty
    c3, parts3 = awq_native(*args, 3)
    assert parts3[:, 0, 0].tolist() == [2048.0, 1.0, 0.0] and c3[0, 0].item() == 2048.0


def test_awq_groups_take_their_own_scale_and_zero() -> None:
    inp, q, s, z = _awq_operands(64, 8, 32)
    inp[0, :] = 1.0
    q[:32, 5], q[32:, 5] = 9, 9
    z[0, 5], z[1, 5] = 1, 7
    s[0, 5], s[1, 5] = 0.5, 2.0
    c, _ = awq_native(inp, awq_pack(q), s, awq_pack(z), 1)
    assert c[0, 5].item() == 32 * (8 * 0.5) + 32 * (2 * 2.0)


# ----------------------------------------------------------------------------------------------------- GPTQ
def _gptq_hand(perm: list[int] | None, v2: bool) -> torch.Tensor:
    qw = torch.zeros(1, 8, dtype=I32)
    qw[0, 0] = 0x75316420                      # shuffled: element j of column 0 (value j) at nibble sigma(j)
    qz = torch.tensor([[2]], dtype=I32)        # column 0's stored zero 2, the others 0
    sc = torch.full((1, 8), 0.5, dtype=F16)
    a = torch.arange(8, dtype=F16).reshape(1, 8)
    g_idx = torch.tensor(perm, dtype=I32) if perm is not None else torch.empty(0, dtype=I32)
    return gptq_gemm_native(a, qw, qz, sc, g_idx, True, v2, 4, acc=torch.float64)


def test_gptq_gemm_hand_cases() -> None:
    # v1: z = 2 + 1, W[:, 0] = (j - 3) / 2; columns 1..7: W = (0 - 1) / 2
    assert _gptq_hand(None, False)[0, :2].tolist() == [28.0, -14.0]           # sum j (j - 3) / 2, -28 / 2
    # b_g_idx reversed: row k multiplies a[7 - k]: sum (7 - k)(k - 3) / 2
    assert _gptq_hand(list(range(7, -1, -1)), False)[0, :2].tolist() == [-14.0, -14.0]
    # v2: the stored zero as it is: sum j (j - 2) / 2; columns 1..7 W = 0
    assert _gptq_hand(None, True)[0, :2].tolist() == [42.0, 0.0]
    with pytest.raises(ValueError, match="b_g_idx"):
        _gptq_hand([0, 1, 2], False)


def test_gptq_gemm_weights_8bit_and_groups() -> None:
    # 8-bit: byte k mod 4 of word [k // 4, n], no shuffle; zeros byte n mod 4 of qzeros[g, n // 4]
    qw = torch.zeros(2, 4, dtype=I32)
    qw[0, 1] = 10 | 20 << 8 | 30 << 16 | 40 << 24
    qw[1, 1] = 50 | 60 << 8 | 70 << 16 | _word(200 << 24)
    qz = torch.tensor([[5 << 8], [9 << 8]], dtype=I32)   # column 1: zero 5 (group 0), 9 (group 1)
    sc = torch.ones(2, 4, dtype=F16)
    sc[1, 1] = 0.25
    w = gptq_gemm_weights(qw, qz, sc, False, 8)
    assert w[:, 1].tolist() == [4.0, 14.0, 24.0, 34.0, 10.0, 12.5, 15.0, 47.5]
    assert w[:, 0].tolist() == [-1.0] * 8                  # stored zero 0 (+1), value 0, scale 1


def test_gptq_tolerance_passes_fp16_weights_and_fails_fp16_accumulation() -> None:
    gen = generator(CPU, 5)
    m, k, n = 4, 2048, 64
    a = torch.randn(m, k, generator=gen).to(F16)
    q = torch.randint(0, 16, (k, n), generator=gen)
    qw = gptq_pack(q, 4, GPTQ_SIGMA)
    qz = gptq_pack(torch.randint(0, 15, (n, k // 128), generator=gen), 4).t().contiguous()
    sc = (torch.rand(k // 128, n, generator=gen) + 0.01).to(F16)
    g_idx = torch.empty(0, dtype=I32)
    (exp,) = get_operator("vllm::gptq_gemm").reference({}, Call([a, qw, qz, sc, g_idx, True, False, 4]))
    w = gptq_gemm_weights(qw, qz, sc, False, 4)
    assert torch.allclose(exp.atol_extra, gptq_allowance(a, g_idx, w))
    # vLLM's dequantise path: W rounded to fp16, fp32 accumulation: within the tolerance
    deq = (a.float() @ w.to(F16).float()).to(F16)
    assert compare_values(deq, exp.value, exp.tol, atol_extra=exp.atol_extra).ok
    # an fp16 running sum over K: outside it
    run = torch.zeros(m, n, dtype=F16)
    terms = (a.float()[:, :, None] * w[None]).to(F16)
    for i in range(k):
        run = run + terms[:, i]
    assert not compare_values(run, exp.value, exp.tol, atol_extra=exp.atol_extra).ok


# ------------------------------------------------------------------------------------------------- AllSpark
def test_allspark_byte_index_hand_element_and_bijection() -> None:
    # q[37, 45], K = 64: j = 32*1 + 16*0 + 8*1 + 5 (g=1, p odd bit 0, u//4 = 1, e = 5); k = 16*2 + 2*2 + 8*0 + 1
    # (w=2, p//2 = 2, (u mod 4)//2 = 0, u mod 2 = 1): p = 4, u = 5 -> R[8 + 5, 64*2 + 8*4 + 5] = R[13, 165]
    idx = allspark_byte_index(64, 64)
    assert int(idx[37, 45]) == 13 * 256 + 165
    assert int(idx[0, 0]) == 0 and int(idx[1, 0]) == 1 and int(idx[0, 1]) == 256 and int(idx[0, 8]) == 4
    for k, n32 in ((64, 32), (80, 96), (272, 160)):     # partial 64-row and 128-column blocks too
        flat = allspark_byte_index(k, n32).reshape(-1)
        assert torch.equal(torch.sort(flat).values, torch.arange(k * n32))
    with pytest.raises(ValueError, match="allspark"):
        allspark_byte_index(40, 32)


def test_allspark_pack_round_trip_and_scale_reorder() -> None:
    gen = generator(CPU, 7)
    q = torch.randint(0, 256, (48, 72), generator=gen)
    packed = allspark_pack(q, 96)
    assert packed.dtype == torch.uint8 and packed.shape == (96, 48)
    assert torch.equal(allspark_unpack(packed, 72), q)
    # the padding columns (j >= n) hold 0
    full = allspark_unpack(packed, 96)
    assert int(full[:, 72:].abs().sum()) == 0
    s = torch.arange(64, dtype=torch.float32).reshape(1, 64)
    re = allspark_pack_scales(s, 64)
    # S_re[32G + d] = s[32G + 8 (d mod 4) + d // 4]
    assert re[0, :6].tolist() == [0.0, 8.0, 16.0, 24.0, 1.0, 9.0] and re[0, 33].item() == 40.0
    assert torch.equal(allspark_unpack_scales(re, 64), s.reshape(-1))
    s40 = torch.arange(1, 41, dtype=torch.float32)
    re40 = allspark_pack_scales(s40, 64)
    assert torch.equal(allspark_unpack_scales(re40, 40), s40) and int((re40 == 0).sum()) == 24


def test_allspark_native_rounds_in_the_activation_dtype() -> None:
    k, n = 16, 32
    q = torch.full((k, n), 128, dtype=torch.int64)
    q[3, 5] = 130                                           # v = 2
    s = torch.ones(1, n, dtype=F16)
    s[0, 5] = 3.0
    z = torch.zeros(1, n, dtype=F16)
    z[0, 5] = 0.1
    a = torch.zeros(1, k, dtype=F16)
    a[0, 3] = 1.0
    args = [a, allspark_pack(q, 32), allspark_pack_scales(s, 32)]
    tail = [n, -1, 108, 80, 16, True, True]
    c = allspark_native(*args, allspark_pack_scales(z, 32), *tail)
    # rd16(2 - rd16(0.1)) = 1.900390625; times 3 = 5.701171875, a tie, rd16 -> 5.703125 (exact math: 5.69921875)
    assert c[0, 5].item() == 5.703125 and c.dtype == F16
    assert allspark_native(*args, None, *tail)[0, 5].item() == 6.0   # no zeros: (130 - 128) * 3
    q[3, 6] = 0
    c0 = allspark_native(a, allspark_pack(q, 32), allspark_pack_scales(s, 32), None, *tail)
    assert c0[0, 6].item() == -128.0                         # the bias is 128, not an int8 reinterpretation
    with pytest.raises(ValueError, match="group_size"):
        allspark_native(*args, None, n, 128, 108, 80, 16, False, True)


# ---------------------------------------------------------------------------------------------------- rows
@pytest.mark.parametrize("op_id", ["vllm::awq_gemm", "vllm::gptq_gemm", "vllm::allspark_w8a16_gemm"])
def test_smallest_full_case_builds_and_matches_its_logical_weights(op_id: str) -> None:
    op = get_operator(op_id)
    p = op.grid("full")[0]
    call = op.build(p, CPU, generator(CPU, 11))
    (exp,) = op.reference(p, call)
    assert exp.value.shape == (p["m"], p["n"]) and exp.value.dtype == F16
    # the reference in fp64 and the timed native baseline in fp32 agree within the row's tolerance
    base, _ = op.baseline(call.clone(), None, prefer="native-eager")
    assert compare_values(base(call.clone()), exp.value, exp.tol, atol_extra=exp.atol_extra).ok
    # zeroing the activations makes every reference element 0: the values come from the inputs
    call.args[0].zero_()
    assert float(op.reference(p, call)[0].value.abs().max()) == 0.0
