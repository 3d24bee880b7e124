"""The GGUF family (vllm.md §2.8, § ggml_*): block packers and unpacker, the Q8_1 quantizer, the native references
against hand-computed cases, the input builders, and tolerances that reject the usual mistakes."""
from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite.common import generator
from kernelgenbench.suite.compare import compare_values
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.spec import Call
from kernelgenbench.suite.vllm import gguf
from kernelgenbench.suite.vllm.gguf import (
    Q4_0,
    Q8_0,
    dequantize_native,
    moe_entries,
    moe_native,
    moe_vec_native,
    mul_mat_native,
    pack_q4_0,
    pack_q8_0,
    q4_sum_allowance,
    quantize_q8_1,
    unpack_blocks,
)

CPU = torch.device("cpu")


def _q8(d: list[float], q: list[list[int]]) -> torch.Tensor:
    return pack_q8_0(torch.tensor(d), torch.tensor(q))


def _q4(d: list[float], u: list[list[int]]) -> torch.Tensor:
    return pack_q4_0(torch.tensor(d), torch.tensor(u))


def test_q8_0_block_bytes_by_hand() -> None:
    q = [[-1, 2] + [0] * 29 + [-128]]
    b = _q8([1.0], q)
    assert b.dtype == torch.uint8 and b.shape == (1, 34)
    # fp16 1.0 is 0x3C00, little-endian; -1 is 0xFF, -128 is 0x80
    assert b[0, :4].tolist() == [0x00, 0x3C, 0xFF, 0x02] and int(b[0, 33]) == 0x80
    d, qq = unpack_blocks(b, Q8_0, 1)
    assert d.tolist() == [1.0] and qq.tolist() == q


def test_q4_0_block_bytes_by_hand() -> None:
    u = [[3] + [0] * 15 + [10] + [15] * 15]
    b = _q4([-0.5], u)
    assert b.shape == (1, 18)
    # fp16 -0.5 is 0xB800; byte 2 = element 0 (low nibble 3) | element 16 (high nibble 10) = 0xA3
    assert b[0, :3].tolist() == [0x00, 0xB8, 0xA3] and b[0, 3:].tolist() == [0xF0] * 15
    d, uu = unpack_blocks(b, Q4_0, 1)
    assert d.tolist() == [-0.5] and uu.tolist() == u


def test_pack_unpack_round_trip_and_errors() -> None:
    g = generator(CPU, 3)
    for qt in (Q8_0, Q4_0):
        blocks = gguf.random_blocks(7, qt, CPU, g)
        d, q = unpack_blocks(blocks, qt, 7)
        again = pack_q8_0(d, q) if qt == Q8_0 else pack_q4_0(d, q)
        assert torch.equal(again, blocks)
    with pytest.raises(ValueError, match="ggml Q4_0 packer"):
        pack_q4_0(torch.ones(1), torch.full((1, 32), 16))
    with pytest.raises(ValueError, match="ggml_dequantize: quant_type 3"):
        dequantize_native(torch.zeros(34, dtype=torch.uint8), 3, 1, 32, None)
    with pytest.raises(ValueError, match="fewer than 2 Q8_0 blocks"):
        unpack_blocks(torch.zeros(40, dtype=torch.uint8), Q8_0, 2, "ggml_dequantize")


def test_dequantize_rounds_the_product_to_fp16() -> None:
    # d = 1 + 2^-10, q = 3: the product 3.0029296875 is a tie between fp16 neighbours -> 3.00390625 (even)
    w = _q8([1.0009765625, 60000.0], [[3, -2] + [0] * 30, [2, -2] + [0] * 30])
    out = dequantize_native(w, Q8_0, 1, 64, torch.float32)
    assert out.dtype == torch.float32 and out.shape == (1, 64)
    assert out[0, 0].item() == 3.00390625 and out[0, 1].item() == -2.001953125
    assert out[0, 32].item() == float("inf") and out[0, 33].item() == float("-inf")   # fp16 overflow
    assert dequantize_native(w, Q8_0, 1, 64, None).dtype == torch.float16
    assert dequantize_native(w, Q8_0, 1, 64, torch.bfloat16)[0, 0].item() == 3.0      # bf16 re-rounds the fp16 value
    w4 = _q4([0.5], [[3] + [8] * 15 + [10] + [8] * 15])
    o4 = dequantize_native(w4, Q4_0, 1, 32, torch.float32)
    assert o4[0, 0].item() == -2.5 and o4[0, 16].item() == 1.0 and o4[0, 1].item() == 0.0


def test_q8_1_quantizer_by_hand() -> None:
    x = torch.zeros(1, 64)
    x[0, :5] = torch.tensor([127.0, 2.5, -2.5, 0.5, -1.49])   # amax 127 -> d = 1; block 2 stays zero
    q, d, s = quantize_q8_1(x)
    # roundf: half away from zero (2.5 -> 3, -2.5 -> -3, 0.5 -> 1), not half to even
    assert q[0, 0, :5].tolist() == [127, 3, -3, 1, -1] and not bool(q[0, 1].any())
    assert d.tolist() == [[1.0, 0.0]] and s.dtype == torch.float16
    assert s[0, 0].item() == torch.tensor(127.0 + 0.5 - 1.49).half().item() and s[0, 1].item() == 0.0
    # d is amax / 127 in fp32, stored as fp16 (nearest even)
    _, d2, _ = quantize_q8_1(torch.full((1, 32), 1.0))
    assert d2.item() == torch.tensor(1.0 / 127, dtype=torch.float32).half().item()


def test_block_dot_products_by_hand() -> None:
    # Q8_0: d_w = 0.5, q_w = 1 everywhere; x = [127, 0, ...]: d_x = 1, isum = 127 -> 0.5 * 1 * 127
    x = torch.zeros(1, 32)
    x[0, 0] = 127.0
    y = mul_mat_native(_q8([0.5], [[1] * 32]), x, Q8_0, 1)
    assert y.tolist() == [[63.5]]
    # Q4_0: d_w = 1, u = 9 (value 1); x = [127, 1, 0...]: d_x = 1, isum = 9 * 128, s = 128 -> 1152 - 8 * 128 = 128
    x[0, 1] = 1.0
    y4 = mul_mat_native(_q4([1.0], [[9] * 32]), x, Q4_0, 1)
    assert y4.tolist() == [[128.0]]
    # the fp16 s (not the sum of quants) enters: x = [127, 0.4]: q = [127, 0], s = fp16(127.4) = 127.375
    x[0, 1] = 0.4
    y4 = mul_mat_native(_q4([1.0], [[9] * 32]), x, Q4_0, 1)
    assert y4.item() == pytest.approx(9 * 127 - 8 * 127.375, abs=0)
    # two rows, two blocks each, batch 2; output in X's dtype
    w = _q8([1.0, 2.0, 0.25, 1.0], [[1] * 32, [-1] * 32, [2] * 32, [0] * 32])
    xx = torch.zeros(2, 64, dtype=torch.float16)
    xx[0, 0], xx[0, 32], xx[1, 0] = 127.0, 127.0, -127.0
    yy = mul_mat_native(w, xx, Q8_0, 2)
    assert yy.dtype == torch.float16 and yy.tolist() == [[127.0 - 254.0, 63.5], [-127.0, -63.5]]


def test_q4_sum_allowance_marks_only_blocks_near_an_fp16_boundary() -> None:
    x = torch.zeros(2, 32)
    x[0, 0] = 1.0 + 2.0 ** -11      # exactly halfway between fp16 1 and 1 + 2^-10
    x[1, 0] = 1.0
    a = q4_sum_allowance(x)
    assert a.tolist() == [[2.0 ** -10], [0.0]]
    w = _q4([2.0], [[9] * 32])
    extra = gguf.q_allowance(unpack_blocks(w, Q4_0, 1)[0].reshape(1, 1), Q4_0, x)
    assert extra.tolist() == [[8 * 2.0 * 2.0 ** -10], [0.0]]
    assert gguf.q_allowance(torch.ones(1, 1, dtype=torch.float16), Q8_0, x) is None


def test_moe_entries_follow_groups_experts_and_padding() -> None:
    sorted_ids = torch.tensor([0, 2, 4, 4, 1, 3, 4, 4, 0, 1, 2, 3], dtype=torch.int32)
    experts = torch.tensor([1, 0, 1], dtype=torch.int32)
    ids, ex = moe_entries(sorted_ids, experts, torch.tensor([7], dtype=torch.int32), 4, 2)
    assert ids.tolist() == [0, 2, 1, 3] and ex.tolist() == [1, 1, 0, 0]   # group 2: 4*2 > 7 = post-padded total
    ids, _ = moe_entries(sorted_ids, experts, torch.tensor([8], dtype=torch.int32), 4, 2)
    assert ids.tolist() == [0, 2, 1, 3, 0, 1, 2, 3]                       # 4*2 <= 8: vLLM's test is '>' to skip
    ids, ex = moe_entries(sorted_ids, torch.tensor([1, 300, 0], dtype=torch.int32),
                          torch.tensor([12], dtype=torch.int32), 4, 2)
    assert ids.tolist() == [0, 2, 0, 1, 2, 3] and ex.tolist() == [1, 1, 0, 0, 0, 0]   # expert 300 > 255: skipped
    with pytest.raises(ValueError, match="ggml_moe_a8: a processed group names an expert >= E = 1"):
        moe_entries(sorted_ids, experts, torch.tensor([8], dtype=torch.int32), 4, 1)


def test_moe_references_are_the_dense_product_per_entry() -> None:
    g = generator(CPU, 5)
    e, t, k, col, row = 3, 3, 2, 64, 8
    for qt in (Q8_0, Q4_0):
        w = gguf.random_blocks(e * row * col // 32, qt, CPU, g).reshape(e, row, -1)
        x = torch.randn(t, col, generator=g)
        topk = torch.tensor([[2, 0], [1, 1], [0, 2]], dtype=torch.int32)
        yv = moe_vec_native(x, w, topk, k, qt, row, t)
        for tt in range(t):
            for j in range(k):
                dense = mul_mat_native(w[int(topk[tt, j])], x[tt: tt + 1], qt, row)
                assert torch.equal(yv[tt * k + j], dense[0])
        # ggml_moe_a8 with sorted entries [(0,2) (2,0) pad pad | (1,1) (1,1)' ...]: id // top_k is the token
        sorted_ids = torch.tensor([1, 4, 6, 6, 0, 5, 6, 6, 2, 3, 6, 6], dtype=torch.int32)
        experts = torch.tensor([0, 2, 1], dtype=torch.int32)
        y = moe_native(x, w, sorted_ids, experts, torch.tensor([12], dtype=torch.int32), qt, row, k, t)
        assert torch.equal(y, yv)


def _variant(w: torch.Tensor, x: torch.Tensor, row: int, rounding: str) -> torch.Tensor:
    """ggml_mul_mat_a8 (Q8_0) with a Q8_1 quantizer variant: ``roundf`` (the spec), ``even`` (half to even) or
    ``fp16d`` (dividing by the fp16-rounded d)."""
    b, col = x.shape
    xf = x.float().reshape(b, col // 32, 32)
    d = xf.abs().amax(-1, keepdim=True) / 127
    v = xf / (d.half().float() if rounding == "fp16d" else d)
    q = torch.round(v) if rounding == "even" else gguf.roundf(v)
    d_w, q_w = unpack_blocks(w, Q8_0, row * col // 32)
    return gguf.q_rowdot(d_w.reshape(row, -1), q_w.reshape(row, -1, 32), Q8_0, q.to(torch.int32), d[..., 0].half(),
                         xf.sum(-1).half()).float()


def test_the_tolerance_rejects_the_usual_q8_1_mistakes() -> None:
    op = get_operator("vllm::ggml_mul_mat_a8")
    p = dict(row=16, col=256, batch=4, qtype=Q8_0, dtype="fp32")
    w = op.build(p, CPU, generator(CPU, 9)).args[0]
    x = torch.randn(4, 256, generator=generator(CPU, 11))
    (exp,) = op.reference(p, Call([w, x, Q8_0, 16]))
    assert compare_values(_variant(w, x, 16, "roundf"), exp.value, exp.tol).ok
    assert not compare_values(_variant(w, x, 16, "fp16d"), exp.value, exp.tol).ok
    x[:, ::32], x[:, 1::32] = 127.0, 2.5      # d = 1 in every block and an exact .5 tie in each
    (exp,) = op.reference(p, Call([w, x, Q8_0, 16]))
    assert compare_values(_variant(w, x, 16, "roundf"), exp.value, exp.tol).ok
    assert not compare_values(_variant(w, x, 16, "even"), exp.value, exp.tol).ok


def test_builders_follow_the_upstream_constructions() -> None:
    g = generator(CPU, 0)
    mm = get_operator("vllm::ggml_mul_mat_a8")
    p = mm.grid("full")[0]                    # upstream (m, n, batch) = (64, 32, 4): W [m, n/32*18], row = n
    w, x, qt, row = mm.build(p, CPU, g).args
    assert w.shape == (64, 18) and x.shape == (4, 64) and qt == Q4_0 and row == 32
    blocks = w.reshape(-1, 18)
    assert bool((blocks[:, 0] == 0).all()) and bool((blocks[:, 1] == 0x3C).all()) and int(blocks[:, 2:].max()) <= 254
    dq = get_operator("vllm::ggml_dequantize")
    w, qt, m, n, dt = dq.build(dq.grid("smoke")[0], CPU, g).args
    assert dt is None and unpack_blocks(w, qt, 2)[0].tolist() == [0.0, -0.5]
    moe = get_operator("vllm::ggml_moe_a8")
    x, w, sids, eids, ntpp, qt, row, k, t = moe.build(moe.grid("smoke")[0], CPU, g).args
    n = t * k
    real = sids[sids < n]
    assert sorted(real.tolist()) == list(range(n)) and int(ntpp) % 4 == 0 and w.shape == (2, 16, 68)
    assert eids.numel() * 4 >= sids.numel()
    x, w, sids, eids, ntpp, *_ = moe.build(moe.grid("full")[6], CPU, g).args
    assert x.shape == (64, 4096) and sids.tolist() == list(range(64)) and eids.numel() == 64 and ntpp.tolist() == [64]


@pytest.mark.parametrize("op_id", ["vllm::ggml_dequantize", "vllm::ggml_mul_mat_a8", "vllm::ggml_mul_mat_vec_a8",
                                   "vllm::ggml_moe_a8", "vllm::ggml_moe_a8_vec"])
def test_timed_gates_and_smallest_full_case(op_id: str) -> None:
    op = get_operator(op_id)
    want = {"vllm::ggml_dequantize": 6, "vllm::ggml_mul_mat_a8": 11, "vllm::ggml_mul_mat_vec_a8": 11,
            "vllm::ggml_moe_a8": 4, "vllm::ggml_moe_a8_vec": 4}[op_id]
    assert sum(op.timed(p) for p in op.grid("full")) == want
    p = op.grid("full")[0]
    (exp,) = op.reference(p, op.build(p, CPU, generator(CPU, 1)))
    assert torch.isfinite(exp.value.float()).all() and exp.value.float().abs().max() > 0


def test_moe_a8_grades_only_the_named_rows() -> None:
    """Rows of Y no processed entry names are unspecified (vLLM leaves them uninitialised): a case where a group's
    expert is out of vLLM's range is judged on the other rows only, and a wrong named row still fails."""
    op = get_operator("vllm::ggml_moe_a8")
    p = op.grid("smoke")[2]                     # upstream layout: tokens 4, top_k 2, 2 groups of 4
    call = op.build(p, CPU, generator(CPU, 2))
    call.args[3][1] = 300                       # group 1 (ids 4..7) is skipped
    (exp,) = op.reference(p, call)
    assert exp.check is not None
    junk = exp.value.clone()
    junk[4:] = float("nan")
    assert exp.check(junk, {}).ok
    junk[0, 0] += 1.0
    res = exp.check(junk, {})
    assert not res.ok and "named rows" in res.message
    assert not exp.check(exp.value.float(), {}).ok    # the dtype is X's


def _baseline_equals_reference(op_id: str, tier: str, i: int, compiled: bool = False) -> None:
    """The timed native baseline returns the reference's value bit for bit (eager; ``compiled``: also under
    torch.compile(backend="eager"), which must capture a graph)."""
    from kernelgenbench.suite.baselines import baseline_kind
    from kernelgenbench.suite.vllm import common as vc

    op = get_operator(op_id)
    p = op.grid(tier)[i]
    call = op.build(p, CPU, generator(CPU, 1234))
    (exp,) = op.reference(p, call.clone())
    native, _ = op.baseline(call.clone(), None, prefer="native-eager")
    runs = [native]
    if compiled:
        fn, label = vc.pick_baseline(op_id, native, call, backend="eager")
        assert baseline_kind(label) == "native-compiled", label
        runs.append(fn)
    for run in runs:
        got = run(call.clone())
        assert got.dtype == exp.value.dtype and got.shape == exp.value.shape
        assert torch.equal(got, exp.value), (op_id, tier, i)


@pytest.mark.parametrize("op_id,tier,i", [(o, t, i) for o in ("vllm::ggml_moe_a8", "vllm::ggml_moe_a8_vec")
                                          for t, n in (("smoke", 3), ("heldout", 2), ("full", 7))
                                          for i in range(n) if t != "full" or i in (0, 3, 5)
                                          if i < len(get_operator(o).grid(t))])
def test_moe_batched_baselines_match_the_reference(op_id: str, tier: str, i: int) -> None:
    p = get_operator(op_id).grid(tier)[i]
    if min(p["e"], p["tokens"] * p["top_k"]) * p["row"] * p["col"] > 2 ** 27:
        pytest.skip("the experts' weights in use exceed 2^27 elements: too large for the CPU (gigabytes)")
    _baseline_equals_reference(op_id, tier, i, compiled=(tier == "smoke" and i == 0))
