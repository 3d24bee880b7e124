"""The vLLM native references against hand-computed small cases (issue 14 item 3), and the grids' shapes of
the operators added family by family (vllm.md §3)."""
from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite.common import generator
from kernelgenbench.suite.registry import get_operator, select
from kernelgenbench.suite.spec import Call, Tolerance

CPU = torch.device("cpu")


def _build(op_id: str, tier: str, i: int) -> tuple[object, Call]:
    op = get_operator(op_id)
    p = op.grid(tier)[i]
    return op, op.build(p, CPU, generator(CPU, 1234))


def test_repetition_penalty_hand_case() -> None:
    from kernelgenbench.suite.vllm.sampling import rep_native

    logits = torch.tensor([[2.0, -1.0, 0.0, 3.0], [1.0, 1.0, -2.0, float("nan")]])
    prompt = torch.tensor([[True, False, False, False], [False, True, False, False]])
    output = torch.tensor([[False, True, True, False], [False, False, True, True]])
    pen = torch.tensor([2.0, 4.0])
    got = rep_native(logits, prompt, output, pen)
    # row 0: 2/2, -1*2, 0*2 (masked), 3 untouched; row 1: 1 untouched, 1/4, -2*4, nan*4
    want = torch.tensor([[1.0, -2.0, 0.0, 3.0], [1.0, 0.25, -8.0, float("nan")]])
    assert torch.equal(got.nan_to_num(7.0), want.nan_to_num(7.0))
    # fp16: one fp32 division rounded once (1/3 in fp16 is 0.33325195...)
    h = rep_native(torch.tensor([[1.0]], dtype=torch.float16), torch.ones(1, 1, dtype=torch.bool),
                   torch.zeros(1, 1, dtype=torch.bool), torch.tensor([3.0], dtype=torch.float16))
    assert h.dtype == torch.float16 and h.item() == pytest.approx(0.333251953125, abs=0)


def test_moe_sum_hand_cases() -> None:
    from kernelgenbench.suite.vllm.moe import moe_sum_native

    x = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]])  # T=1, k=3, H=2
    assert torch.equal(moe_sum_native(x), torch.tensor([[9.0, 12.0]]))
    # sequential fp16 rounding for k <= 4: 2048 + 1 rounds to 2048 in fp16, twice: 2048 (an fp32 sum gives 2050)
    h = torch.tensor([[[2048.0], [1.0], [1.0]]], dtype=torch.float16)
    assert moe_sum_native(h).item() == 2048.0
    # k = 5: fp32 accumulation rounded once: 2048 + 1 + 1 + 0 + 0 = 2050
    h5 = torch.tensor([[[2048.0], [1.0], [1.0], [0.0], [0.0]]], dtype=torch.float16)
    assert moe_sum_native(h5).item() == 2050.0
    # the upstream 2-D input: row sums
    assert torch.equal(moe_sum_native(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])), torch.tensor([6.0, 15.0]))


def test_moe_sum_upstream_2d_case_writes_the_flat_prefix() -> None:
    op, call = _build("vllm::moe_sum", "heldout", 2)
    x, out = call.args
    assert x.shape == (8, 64) and out.shape == (4, 64)
    (exp,) = op.reference(op.grid("heldout")[2], call)
    assert int(exp.region.sum()) == 8 and bool(exp.region[:8].all())


def test_gathers_hand_cases() -> None:
    shuffle, permute = get_operator("vllm::shuffle_rows"), get_operator("vllm::permute_cols")
    x = torch.arange(6.0).reshape(3, 2)
    (e,) = shuffle.reference({}, Call([x, torch.tensor([2, 0, 2], dtype=torch.int32)]))
    assert torch.equal(e.value, torch.tensor([[4.0, 5.0], [0.0, 1.0], [4.0, 5.0]]))
    a = torch.arange(8.0).reshape(2, 4)
    (e,) = permute.reference({}, Call([a, torch.tensor([3, 3, 0, 1], dtype=torch.int32)]))
    assert torch.equal(e.value, torch.tensor([[3.0, 3.0, 0.0, 1.0], [7.0, 7.0, 4.0, 5.0]]))


@pytest.mark.parametrize("op_id,full", [("vllm::apply_repetition_penalties_cuda", 10), ("vllm::moe_sum", 48),
                                        ("vllm::shuffle_rows", 48), ("vllm::permute_cols", 30),
                                        ("vllm::scaled_int8_quant", 105), ("vllm::merge_attn_states", 18),
                                        ("vllm::reshape_and_cache", 18), ("vllm::reshape_and_cache_flash", 18),
                                        ("vllm::swap_blocks", 54), ("vllm::moe_align_block_size", 360),
                                        ("vllm::rotary_embedding", 360),
                                        ("vllm::rms_norm_dynamic_per_token_quant", 48),
                                        ("vllm::concat_and_cache_mla", 18), ("vllm::cp_gather_cache", 8),
                                        ("vllm::paged_attention_v1", 960), ("vllm::batched_moe_align_block_size", 9),
                                        ("vllm::paged_attention_v2", 8), ("vllm::gather_and_maybe_dequant_cache", 13),
                                        ("vllm::moe_lora_align_block_size", 10), ("vllm::rms_norm_per_block_quant", 64),
                                        ("vllm::hadacore_transform", 16), ("vllm::copy_blocks", 12),
                                        ("vllm::copy_blocks_mla", 12), ("vllm::convert_fp8", 32),
                                        ("vllm::gptq_shuffle", 6), ("vllm::grouped_topk", 288),
                                        ("vllm::cutlass_pack_scale_fp8", 8), ("vllm::allspark_w8a16_gemm", 13),
                                        ("vllm::awq_gemm", 8), ("vllm::gptq_gemm", 4), ("vllm::ggml_dequantize", 8),
                                        ("vllm::ggml_moe_a8", 7), ("vllm::ggml_moe_a8_vec", 7),
                                        ("vllm::ggml_mul_mat_a8", 13), ("vllm::ggml_mul_mat_vec_a8", 13),
                                        ("vllm::scaled_fp8_quant", 540), ("vllm::cutlass_scaled_mm", 32),
                                        ("vllm::cutlass_scaled_mm_azp", 8), ("vllm::fused_qk_norm_rope", 120),
                                        ("vllm::cp_gather_indexer_k_quant_cache", 13),
                                        ("vllm::convert_vertical_slash_indexes", 13),
                                        ("vllm::selective_scan_fwd", 160),
                                        ("vllm::gptq_marlin_moe_repack", 10), ("vllm::awq_marlin_moe_repack", 10),
                                        ("vllm::marlin_int4_fp8_preprocess", 8), ("vllm::gptq_marlin_gemm", 8),
                                        ("vllm::gptq_marlin_24_gemm", 7)])
def test_grid_sizes_follow_the_spec(op_id: str, full: int) -> None:
    op = get_operator(op_id)
    assert len(op.grid("full")) == full
    assert 2 <= len(op.grid("smoke")) <= 4 and 2 <= len(op.grid("heldout")) <= 3
    for p in op.grid("smoke"):  # smoke: every tensor at most 64K elements (vllm.md §2.9)
        call = op.build(p, CPU, generator(CPU, 0))
        for t in call.args:
            if isinstance(t, torch.Tensor):
                assert t.untyped_storage().nbytes() // t.element_size() <= 65536, (op_id, p)


def test_every_vllm_operator_has_an_oracle_and_names_its_section() -> None:
    from pathlib import Path

    sols = Path(__file__).resolve().parents[1] / "solutions"
    for op in select(source="vllm"):
        assert (sols / op.filename).exists(), op.id
        assert op.section == f"vllm.md § {op.id}", op.id


def test_int8_quant_hand_cases() -> None:
    from kernelgenbench.suite.vllm.quant import int8_native

    x = torch.tensor([[0.25, -0.75, 1.25, 100.0]])
    # static symmetric, scale 0.5: 0.5 -> 0 (half to even), -1.5 -> -2, 2.5 -> 2, 200 -> 127
    q, s, z = int8_native(x, torch.tensor([0.5]), None, True)
    assert q.tolist() == [[0, -2, 2, 127]] and z is None
    # static asymmetric, azp -3: rne(x * (1/0.5)) + azp, saturated after the add (200 - 3 -> 127)
    q, _, _ = int8_native(x, torch.tensor([0.5]), torch.tensor([-3], dtype=torch.int32), False)
    assert q.tolist() == [[-3, -5, -1, 127]]
    # dynamic symmetric: a = 127 -> scale 1, r = 1; a zero row gives scale 0 and zeros
    q, s, z = int8_native(torch.tensor([[127.0, -63.5, 0.5], [0.0, 0.0, 0.0]]), None, None, True)
    assert q.tolist() == [[127, -64, 0], [0, 0, 0]] and s.tolist() == [[1.0], [0.0]] and z is None
    # dynamic asymmetric: mn = -1, mx = 254 -> s = 1, zp = rne(-128 + 1) = -127
    q, s, z = int8_native(torch.tensor([[-1.0, 254.0, 10.5]]), None, None, False)
    assert s.tolist() == [[1.0]] and z.tolist() == [[-127]] and q.tolist() == [[-128, 127, -117]]


def test_merge_attn_states_hand_case() -> None:
    from kernelgenbench.suite.vllm.attention import merge_native

    po = torch.tensor([[[1.0, 2.0], [5.0, 6.0]]])      # T=1, H=2, D=2
    so = torch.tensor([[[3.0, 4.0], [7.0, 8.0]]])
    pl = torch.tensor([[0.0], [-float("inf")]])        # [H, T]
    sl = torch.tensor([[0.0], [-float("inf")]])
    out, lse = merge_native(po, pl, so, sl)
    # head 0: equal LSEs -> the mean, lse log 2; head 1: both -inf -> prefix copied, lse -inf
    assert torch.allclose(out, torch.tensor([[[2.0, 3.0], [5.0, 6.0]]]))
    assert lse[0, 0].item() == pytest.approx(0.6931471805599453) and lse[1, 0].item() == -float("inf")
    # +inf reads as -inf: only the suffix counts
    out, lse = merge_native(po[:, :1], torch.tensor([[float("inf")]]), so[:, :1], torch.tensor([[1.0]]))
    assert torch.equal(out, so[:, :1]) and lse.item() == pytest.approx(1.0)


def test_kv_cache_hand_cases() -> None:
    from kernelgenbench.suite.vllm.kv_cache import cache_convert, flash_native, rc_native, swap_native

    key = torch.arange(8.0).reshape(2, 1, 4)            # T=2, H=1, D=4
    value = -key
    one = torch.ones(1)
    kc = torch.full((2, 2, 1, 4), 9.0)                  # NB=2, BS=2
    vc = kc.clone()
    nk, nv, mask = flash_native(key, value, kc, vc, torch.tensor([3, -1]), "auto", one, one)
    assert torch.equal(nk[1, 1, 0], key[0, 0]) and torch.equal(nv[1, 1, 0], value[0, 0])
    assert int(mask.sum()) == 4 and bool((nk[mask.logical_not()] == 9).all())
    # x-split key cache: x = 2 -> key_cache[b, h, d // 2, o, d % 2]
    kc5 = torch.zeros(2, 1, 2, 2, 2)
    vc4 = torch.zeros(2, 1, 4, 2)
    nk, nv, mk, mv = rc_native(key, value, kc5, vc4, torch.tensor([2, 1]), "auto", one, one)
    assert nk[1, 0, :, 0, :].flatten().tolist() == [0.0, 1.0, 2.0, 3.0]   # token 0 -> block 1, offset 0
    assert nv[0, 0, :, 1].tolist() == [-4.0, -5.0, -6.0, -7.0]           # token 1 -> block 0, offset 1
    assert int(mk.sum()) == int(mv.sum()) == 8
    # fp8: 1000 / 2 saturates to 448 (E4M3 0x7E); -0.5 / 2 = -2^-2: sign 1, exponent 5 (bias 7), mantissa 0 = 0xA8
    b = cache_convert(torch.tensor([1000.0, -0.5]), "fp8", torch.tensor([2.0]))
    assert b.dtype == torch.uint8 and b.tolist() == [0x7E, 0xA8]
    # swap: a later row wins on a duplicated destination
    src = torch.arange(6.0).reshape(3, 2)
    dst = torch.zeros(3, 2)
    exp, m = swap_native(src, dst, torch.tensor([[0, 1], [2, 1]]))
    assert exp.tolist() == [0.0, 0.0, 4.0, 5.0, 0.0, 0.0] and m.tolist() == [False, False, True, True, False, False]


def test_moe_align_hand_case_and_segment_judge() -> None:
    from kernelgenbench.suite.vllm.moe_align import _segment_check, align_native

    ids = torch.tensor([[2, 0], [2, 5], [0, 2]], dtype=torch.int32)   # N = 6; 5 >= E is ignored
    s, ex, post, seg = align_native(ids, 4, 2, lmax=6 + 4 * 1, nblocks=5)
    # expert 0: entries 1, 4 (2 slots); expert 1: none; expert 2: entries 0, 2, 5 (padded to 4)
    assert s.tolist() == [1, 4, 0, 2, 5, 6, 6, 6, 6, 6]
    assert ex.tolist() == [0, 2, 2, 0, 0] and post.tolist() == [6]
    assert seg.tolist() == [0, 0, 2, 2, 2, -1, -1, -1, -1, -1]
    check = _segment_check(s, seg, 6)
    assert check(torch.tensor([4, 1, 5, 0, 2, 6, 6, 6, 6, 6], dtype=torch.int32), {}).ok   # any order inside
    bad = check(torch.tensor([1, 4, 0, 2, 5, 6, 6, 6, 6, 0], dtype=torch.int32), {})
    assert not bad.ok and "sentinel 6" in bad.message
    swapped = check(torch.tensor([1, 0, 4, 2, 5, 6, 6, 6, 6, 6], dtype=torch.int32), {})   # 0 moved to expert 0
    assert not swapped.ok and "expert" in swapped.message
    # an entry of a run that is neither a token index nor the sentinel fails, whatever it stands for (red team 32:
    # -7 for token 0 passed while the judge clamped the candidate's entries)
    for wrong in (-7, -1234567891, 7, 1234567891):
        out = check(torch.tensor([1, 4, wrong, 2, 5, 6, 6, 6, 6, 6], dtype=torch.int32), {})
        assert not out.ok and f"got {wrong}, expected 0" in out.message and "neither a token index" in out.message
    # an expert map: global 0 and 3 are not local, 1 -> 0, 2 -> 1
    s, ex, post, _ = align_native(torch.tensor([[1], [3], [2]], dtype=torch.int32), 4, 2, lmax=3 + 4, nblocks=4,
                                  emap=torch.tensor([-1, 0, 1, -1], dtype=torch.int32))
    assert s.tolist() == [0, 3, 2, 3, 3, 3, 3] and ex.tolist() == [0, 1, 0, 0] and post.tolist() == [4]


def test_rotary_hand_case() -> None:
    from kernelgenbench.suite.vllm.rotary import rope_native

    # one token, one head, D = 4, rot_dim = 4 (E = 2): cache row p holds (c0, c1, s0, s1)
    cache = torch.tensor([[1.0, 1.0, 0.0, 0.0], [0.0, 0.5, 1.0, 0.5]])
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0]])
    pos = torch.tensor([1])
    neox = rope_native(pos, x, 1, 4, cache, True)[0, 0]
    # NeoX pairs (0, 2), (1, 3): x0' = 1*0 - 3*1 = -3, x2' = 3*0 + 1*1 = 1;
    # x1' = 2*.5 - 4*.5 = -1, x3' = 4*.5 + 2*.5 = 3
    assert neox.tolist() == [-3.0, -1.0, 1.0, 3.0]
    gptj = rope_native(pos, x, 1, 4, cache, False)[0, 0]
    # GPT-J pairs (0, 1) with j = 0, (2, 3) with j = 1: (1*0 - 2*1, 2*0 + 1*1), (3*.5 - 4*.5, 4*.5 + 3*.5)
    assert gptj.tolist() == [-2.0, 1.0, -0.5, 3.5]
    # partial rotary (rot_dim 2 of D 4): dims 2, 3 untouched; half-type rounding of each product
    h = torch.tensor([[1.0, 3.0, 7.0, 9.0]], dtype=torch.float16)
    c2 = torch.tensor([[0.333, 0.333]], dtype=torch.float16)   # c = s = fp16(0.333)
    r = rope_native(torch.tensor([0]), h, 1, 4, c2, True)[0, 0]
    cs = torch.tensor(0.333, dtype=torch.float16)
    assert r.tolist() == [(h[0, 0] * cs - h[0, 1] * cs).item(), (h[0, 1] * cs + h[0, 0] * cs).item(), 7.0, 9.0]


def test_rms_norm_dynamic_per_token_quant_hand_case() -> None:
    from kernelgenbench.suite.vllm.norms import _int8_within_one, dpt_native

    # one row (3, 4): var = 25/2, eps 0 -> inv = 1/sqrt(12.5); y = x*inv*w with w = (1, 2)
    x = torch.tensor([[3.0, 4.0]])
    w = torch.tensor([1.0, 2.0])
    q, scale, res, a = dpt_native(x, w, 0.0, torch.int8, None, None)
    inv = (1.0 / torch.sqrt(torch.tensor(12.5, dtype=torch.float64))).float()
    y = torch.stack([x[0, 0] * inv, x[0, 1] * inv * 2])
    assert a.item() == y.abs().max().item() and scale.item() == pytest.approx(y.max().item() / 127, rel=1e-7)
    assert q.tolist() == [[round(float(y[0] * (1 / scale.item()))), 127]] and res is None
    # residual: stored rounded to T, the unrounded sum normalised; a zero row gives the minimum scale, q = 0
    q, scale, res, _ = dpt_native(torch.zeros(1, 2), w, 1e-6, torch.int8, None, torch.zeros(1, 2))
    assert q.tolist() == [[0, 0]] and scale.item() == 2.0 ** -23 and res.tolist() == [[0.0, 0.0]]
    # scale_ub caps the row maximum (fp8): a = min(max|y|, ub); qmax 448
    _, scale, _, _ = dpt_native(x, w, 0.0, torch.float8_e4m3fn, torch.tensor([0.5]), None)
    assert scale.item() == pytest.approx(0.5 / 448, rel=1e-7)
    ref = torch.tensor([[5, -7]], dtype=torch.int8)
    check = _int8_within_one(ref)
    assert check(torch.tensor([[6, -7]], dtype=torch.int8), {}).ok
    assert not check(torch.tensor([[7, -7]], dtype=torch.int8), {}).ok


def test_mla_and_gather_hand_cases() -> None:
    from kernelgenbench.suite.vllm.kv_cache import mla_native
    from kernelgenbench.suite.vllm.kv_gather import gather_native

    kv_c = torch.tensor([[1.0, 2.0], [3.0, 4.0]])        # T=2, R=2
    k_pe = torch.tensor([[5.0], [6.0]])                  # P=1
    cache = torch.full((2, 2, 3), 9.0)                   # NB=2, BS=2
    new, mask = mla_native(kv_c, k_pe, cache, torch.tensor([-1, 2]), "auto", torch.ones(1))
    assert new[1, 0].tolist() == [3.0, 4.0, 6.0] and int(mask.sum()) == 3 and float(new[mask.logical_not()].min()) == 9
    src = torch.arange(2 * 2 * 1.0).reshape(2, 2, 1) * 10  # entries (0,0)=0 (0,1)=10 (1,0)=20 (1,1)=30
    dst = torch.full((4, 1), -1.0)
    table = torch.tensor([[1, 0], [0, 1]], dtype=torch.int32)
    cu = torch.tensor([0, 3, 4], dtype=torch.int32)
    # seq 0 from token 1: p = 1, 2, 3 -> (1,1), (0,0), (0,1); seq 1 not processed (batch_size 1)
    new, mask = gather_native(src, dst, table, cu, 1, torch.tensor([1, 0], dtype=torch.int32))
    assert new.flatten().tolist() == [30.0, 0.0, 10.0, -1.0] and mask.flatten().tolist() == [True, True, True, False]


def test_paged_attention_hand_case() -> None:
    from kernelgenbench.suite.vllm.attention import paged_native

    # S=1, Hq=Hkv=1, D=2 (x = 2 for fp32... use x = 2 so key_cache is [NB, 1, 1, BS, 2]), BS=2, L=3 over blocks (1, 0)
    kc = torch.zeros(2, 1, 1, 2, 2)
    vc = torch.zeros(2, 1, 2, 2)
    keys = [torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0]), torch.tensor([1.0, 1.0])]   # tokens 0, 1, 2
    vals = [torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]), torch.tensor([5.0, 6.0])]
    where = [(1, 0), (1, 1), (0, 0)]
    for (b, t), k, v in zip(where, keys, vals):
        kc[b, 0, 0, t] = k
        vc[b, 0, :, t] = v
    q = torch.tensor([[[2.0, 0.0]]])
    out = paged_native(q, kc, vc, 1, 1.0, torch.tensor([[1, 0]], dtype=torch.int32), torch.tensor([3]), 2, None,
                       "auto", torch.ones(1), torch.ones(1))
    lg = torch.tensor([2.0, 0.0, 2.0])
    e = torch.exp(lg - 2)
    p = e / (e.sum() + 1e-6)
    want = p[0] * vals[0] + p[1] * vals[1] + p[2] * vals[2]
    assert torch.allclose(out[0, 0], want, rtol=1e-6)
    # ALiBi slope 1: logits + (i - L + 1) = (-2, -1, 0)
    out = paged_native(q, kc, vc, 1, 1.0, torch.tensor([[1, 0]], dtype=torch.int32), torch.tensor([3]), 2,
                       torch.tensor([1.0]), "auto", torch.ones(1), torch.ones(1))
    e = torch.exp(torch.tensor([0.0, -1.0, 2.0]) - 2)
    p = e / (e.sum() + 1e-6)
    assert torch.allclose(out[0, 0], p[0] * vals[0] + p[1] * vals[1] + p[2] * vals[2], rtol=1e-6)


def test_batched_moe_align_hand_case() -> None:
    from kernelgenbench.suite.vllm.moe_align import batched_native

    # E=3, bs=4, max_tokens=8 (P = 8): counts (0, 5, 2) -> p = (0, 8, 4), o = (0, 0, 8); sentinel 24
    s, e, post = batched_native(8, 4, torch.tensor([0, 5, 2], dtype=torch.int32), 24, 6)
    assert s.tolist() == [8, 9, 10, 11, 12, 24, 24, 24, 16, 17, 24, 24] + [24] * 12
    assert e.tolist() == [1, 1, 2, -1, -1, -1] and post.tolist() == [12]


def test_paged_attention_v2_partitions_agree_with_v1() -> None:
    from kernelgenbench.suite.vllm.attention import _pa2_args, paged2_native, paged_native

    op, call = _build("vllm::paged_attention_v2", "smoke", 2)     # fp32, lens (1030, 2), max_seq_len 1600: P = 4
    q, kc, vc, hkv, scale, tables, seq_lens, bs, parts, alibi, mode, ks, vs = _pa2_args(call)
    out2, es, ml, tmp, written = paged2_native(*_pa2_args(call))
    out1 = paged_native(q, kc, vc, hkv, scale, tables, seq_lens, bs, alibi, mode, ks, vs)
    assert parts == 4 and written[0].sum(-1).tolist() == [3] * 4 and written[1].sum(-1).tolist() == [1] * 4
    # merging three partitions gives single-pass attention up to fp32 rounding (and the +1e-6 terms)
    assert torch.allclose(out2, out1, rtol=1e-4, atol=1e-5)
    # one partition: out is tmp_out's partition 0, max_logits the partition max
    assert torch.equal(out2[1], tmp[1, :, 0])


def test_gather_and_maybe_dequant_hand_case() -> None:
    from kernelgenbench.suite.vllm.kv_gather import gd_native

    src = torch.arange(2 * 2 * 576, dtype=torch.float32).reshape(2, 2, 1, 576)   # entry (b, o) starts at (2b+o)*576
    dst = torch.full((3, 576), -1.0)
    table = torch.tensor([[1, 0], [0, 0]], dtype=torch.int32)
    cu = torch.tensor([0, 2, 3], dtype=torch.int32)
    t2s = torch.tensor([0, 0, 1], dtype=torch.int32)
    # seq 0 from token 1: rows 0, 1 <- entries (1, 1), (0, 0); num_tokens 2 leaves row 2 untouched
    new, mask = gd_native(src, dst, table, cu, t2s, 2, "auto", torch.ones(1), torch.tensor([1, 0], dtype=torch.int32))
    assert new[0, 0].item() == 3 * 576 and new[1, 0].item() == 0 and new[2, 0].item() == -1
    assert mask[:, 0].tolist() == [True, True, False]
    # fp8: float(e4m3) * scale, rounded to dst's dtype: 1.5 * 0.5 = 0.75
    f8 = torch.full((1, 1, 1, 576), 1.5).to(torch.float8_e4m3fn).view(torch.uint8)
    new, _ = gd_native(f8, torch.zeros(1, 576, dtype=torch.float16), torch.zeros(1, 1, dtype=torch.int32),
                       torch.tensor([0, 1], dtype=torch.int32), torch.zeros(1, dtype=torch.int32), 1, "fp8",
                       torch.tensor([0.5]), None)
    assert new.dtype == torch.float16 and bool((new == 0.75).all())


def test_moe_lora_align_hand_case() -> None:
    from kernelgenbench.suite.vllm.moe_align import lora_native

    ids = torch.tensor([[1], [0], [1], [1]], dtype=torch.int32)          # T=4, k=1, E=2
    mapping = torch.tensor([1, 1, 0, 1], dtype=torch.int32)              # tokens 0, 1, 3 -> adapter 1; 2 -> adapter 0
    lp, mb = 2 * 1 + 2 * 2, 3                                            # bs = 2
    sorted_ids = torch.full((2 * lp,), -7, dtype=torch.int32)
    experts = torch.full((2 * mb,), -7, dtype=torch.int32)
    post = torch.full((2,), -7, dtype=torch.int32)
    enabled = torch.tensor([0, 1], dtype=torch.int32)                    # adapter 0 disabled: segment 0 untouched
    s, e, p, seg, em, pm = lora_native(ids, mapping, 2, 2, 2, lp, mb, sorted_ids, experts, post, enabled,
                                       torch.tensor([0, 1], dtype=torch.int32), None)
    # adapter 1: expert 0 <- entry 1 (padded to 2), expert 1 <- entries 0, 3; sentinel T*k = 4
    assert s.tolist() == [-7] * 6 + [1, 4, 0, 3, 4, 4]
    assert e.tolist() == [-7, -7, -7, 0, 1, -1] and p.tolist() == [-7, 4]
    assert em.tolist() == [False] * 3 + [True] * 3 and pm.tolist() == [False, True]
    assert seg.tolist()[6:] == [3, -1, 4, 4, -1, -1]                      # runs keyed per adapter: e + 1*(E+1)


def test_rms_norm_per_block_quant_hand_case_and_layout() -> None:
    from kernelgenbench.suite.vllm.norms import _scale_layout_check, dpt_native, pbq_native

    x = torch.tensor([[1.0, -2.0, 0.0, 0.0], [3.0, 1.0, 2.0, -4.0]])
    w = torch.ones(4)
    q, scale, _, a = pbq_native(x, w, 0.0, torch.int8, 2, None, None)
    # row 0's second group is all zero: the minimum scale 2^-23 and zeros; group maxima otherwise
    inv0 = 1.0 / (5.0 / 4) ** 0.5
    assert scale[0, 1].item() == 2.0 ** -23 and q[0, 2:].tolist() == [0, 0]
    assert scale[0, 0].item() == pytest.approx(2 * inv0 / 127, rel=1e-6) and q[0, :2].tolist() == [64, -127]
    # a single group of the whole row equals the per-token op
    q1, s1, _, _ = pbq_native(x, w, 1e-6, torch.int8, 4, None, None)
    q2, s2, _, _ = dpt_native(x, w, 1e-6, torch.int8, None, None)
    assert torch.equal(q1, q2) and torch.equal(s1, s2)
    t = torch.empty(2, 3).t()           # [3, 2] with strides (1, 3): the transposed view of a [2, 3] buffer
    assert _scale_layout_check(True)(t, {}).ok and not _scale_layout_check(False)(t, {}).ok
    assert _scale_layout_check(False)(torch.empty(3, 2), {}).ok
    assert not _scale_layout_check(True)(torch.empty(3, 2), {}).ok


def test_hadamard_hand_case() -> None:
    from kernelgenbench.suite.vllm.rotation import _x_check, hadamard_native

    x = torch.tensor([[1.0, 2.0, 3.0, 4.0]], dtype=torch.float16)
    # H_4 rows: (1,1,1,1), (1,-1,1,-1), (1,1,-1,-1), (1,-1,-1,1); / 2
    assert hadamard_native(x).tolist() == [[5.0, -1.0, -2.0, 0.0]]
    assert torch.equal(hadamard_native(hadamard_native(x.float())), x.float())   # an involution
    y = hadamard_native(x)
    tol = Tolerance(rtol=1e-2, atol=1e-2)
    check = _x_check(x.clone(), y, tol)
    assert check(x.clone(), {}).ok and check(y.clone(), {}).ok          # unchanged (a copy) or transformed
    assert not check(torch.zeros_like(x), {}).ok





def test_prompts_name_only_the_unjudgeable_dtypes_an_operator_uses() -> None:
    from kernelgenbench.llm.prompt import build_prompt
    from kernelgenbench.platforms import PROFILES, emulate

    # the interpreter judges every dtype now (bf16, fp8: sandbox/interpreter_numerics.py): no such line
    interp = PROFILES["interpreter"]
    flash = build_prompt(get_operator("vllm::reshape_and_cache_flash"), interp).text()
    assert "cannot be judged on this platform" not in flash
    # a profile that cannot run fp64 names it for an operator whose shown cases use it, and only for such
    ascend = emulate("ascend")
    assert "float64" in ascend.unsupported_dtypes
    dgemv = build_prompt(get_operator("cublas::cublasDgemv_v2"), ascend).text()
    assert "dtype float64 cannot be judged on this platform" in dgemv
    sgemm = build_prompt(get_operator("cublas::cublasSgemm_v2"), ascend).text()
    assert "cannot be judged on this platform" not in sgemm     # fp32 only


def test_copy_blocks_hand_cases_and_list_slots() -> None:
    from kernelgenbench.suite.vllm.kv_cache import block_copy_native
    from kernelgenbench.verify.judge import judge_values, resolve_slot

    cache = torch.arange(12.0).reshape(4, 3)             # 4 blocks of 3 elements
    new, mask = block_copy_native(cache, torch.tensor([[0, 2], [1, 3]]), 3)
    # pre-copy values: block 2 <- block 0, block 3 <- block 1; blocks 0 and 1 unchanged
    assert new.tolist() == [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5]
    assert mask.tolist() == [False] * 6 + [True] * 6
    # a view with a storage offset and a footprint wider than the block (copy_blocks_mla's padding)
    buf = torch.arange(10.0)
    view = buf[2:].view(2, 4)[:, :3]                      # F = stride(0) = 4, data pointer at element 2
    new, mask = block_copy_native(view, torch.tensor([[1, 0]]), view.stride(0))
    assert new.tolist() == [0, 1, 6, 7, 8, 9, 6, 7, 8, 9] and mask.tolist() == [False] * 2 + [True] * 4 + [False] * 4

    # copy_blocks: value caches use key_caches[0]'s per-block numel; each cache is its own slot arg.<pos>.<layer>
    op = get_operator("vllm::copy_blocks")
    p = dict(nb=6, h=2, d=8, bs=4, pn=2, dtype="fp32", layers=2)
    call = op.build(p, CPU, generator(CPU, 3))
    exp = op.reference(p, call.clone())
    assert [e.slot for e in exp] == ["arg.0.0", "arg.0.1", "arg.1.0", "arg.1.1"]
    assert all(int(e.region.sum()) == 2 * 64 for e in exp)
    assert call.get("1.1") is call.args[1][1] and call.get(0) is call.args[0]
    done = call.clone()
    op.baseline(done, None, prefer="native-eager")[0](done)
    out = {"args": done.args, "kwargs": {}, "ret": None}
    assert resolve_slot("arg.1.1", out) is done.args[1][1] and resolve_slot("arg.1.2", out) is None
    assert judge_values(out, exp)[0] is None
    done.args[1][1].view(-1)[int(torch.nonzero(exp[3].region)[0])] += 1.0   # one element of one value cache wrong
    msg, _ = judge_values(out, exp)
    assert msg is not None and msg.startswith("arg.1.1")
    # the upstream mapping: disjoint sources and destinations
    m = call.args[2]
    assert m.dtype == torch.int64 and len(set(m[:, 0].tolist()) | set(m[:, 1].tolist())) == 4
    # L = 0: nothing to judge, nothing to launch
    empty = op.build(dict(p, layers=0), CPU, generator(CPU, 3))
    assert op.reference(p, empty) == [] and not empty.needs_launch


def test_a_written_list_is_judged_as_the_case_passed_it() -> None:
    """copy_blocks written out of place (red team, bad fixture list_swap): written clones put into the caller's
    lists leave the caches it holds unwritten; the sandbox child reports the tensors the case passed."""
    from kernelgenbench.sandbox.child import as_given, given_lists
    from kernelgenbench.verify.judge import judge_values

    op = get_operator("vllm::copy_blocks")
    p = dict(nb=6, h=2, d=8, bs=4, pn=2, dtype="fp32", layers=2)
    call = op.build(p, CPU, generator(CPU, 3))
    exp = op.reference(p, call.clone())
    given = given_lists(call)
    caches = list(call.args[0]) + list(call.args[1])
    done = call.clone()
    op.baseline(done, None, prefer="native-eager")[0](done)
    for pos in (0, 1):                                       # the right values, in new tensors in the lists
        for i in range(2):
            call.args[pos][i] = done.args[pos][i]
    assert judge_values({"args": call.args, "kwargs": {}, "ret": None}, exp)[0] is None   # the old report passed
    args, kwargs = as_given(call, given)
    judged = [t for lst in args[:2] for t in lst]
    assert len(judged) == 4 and all(a is b for a, b in zip(judged, caches)) and kwargs == {}
    assert args[2] is call.args[2] and call.args[0][0] is done.args[0][0]   # the call itself is left as it is
    msg, _ = judge_values({"args": args, "kwargs": kwargs, "ret": None}, exp)
    assert msg is not None and msg.startswith("arg.0.0")


def test_convert_fp8_hand_cases() -> None:
    from kernelgenbench.suite.vllm.kv_cache import convert_fp8_native

    # quantise, scale 0.5 (x / 0.5): 1 -> 2 = 0x40; -0.5 -> -1 = 0xB8; 1000 -> 2000 saturates to 448 = 0x7E;
    # 0.0017 -> 0.0034 = 1.74 * 2^-9 -> subnormal 2 = 0x02; NaN -> 0x7F; ties at 3 mantissa bits go to even:
    # 0.53125 -> 1.0625 -> 1.0 (0x38), 0.59375 -> 1.1875 -> 1.25 (0x3A)
    x = torch.tensor([1.0, -0.5, 1000.0, 0.0017, float("nan"), 0.53125, 0.59375])
    out = torch.empty(7, dtype=torch.uint8)
    assert convert_fp8_native(out, x, 0.5, "fp8").tolist() == [0x40, 0xB8, 0x7E, 0x02, 0x7F, 0x38, 0x3A]
    # dequantise to fp16, scale 2: 0x40 = 2 -> 4; 0xB8 = -1 -> -2; 0x01 = 2^-9 -> 2^-8; 0x7F NaN
    b = torch.tensor([0x40, 0xB8, 0x01, 0x7F], dtype=torch.uint8)
    y = convert_fp8_native(torch.empty(4, dtype=torch.float16), b, 2.0, "fp8_e4m3")
    assert y.dtype == torch.float16 and y[:3].tolist() == [4.0, -2.0, 2.0 ** -8] and bool(torch.isnan(y[3]))
    with pytest.raises(ValueError, match="convert_fp8: kv_dtype 'auto'"):
        convert_fp8_native(out, x, 1.0, "auto")
    with pytest.raises(ValueError, match="no direction"):
        convert_fp8_native(torch.empty(7), x, 1.0, "fp8")
    op = get_operator("vllm::convert_fp8")
    call = op.build(op.grid("smoke")[1], CPU, generator(CPU, 0))       # (17, 33) bf16 with planted specials
    (e,) = op.reference(op.grid("smoke")[1], call.clone())
    assert int(e.region.sum()) == 17 * 33 and {0x7E, 0xFE, 0x7F} <= set(e.value.tolist())


def test_gptq_pack_and_shuffle_hand_cases() -> None:
    from kernelgenbench.suite.vllm.quant import gptq_pack, gptq_shuffle_native, gptq_unpack

    # one 4-bit word of 8 rows, element k = k + 1 at nibble k: 0x87654321
    q = torch.arange(1, 9).reshape(8, 1)
    w = gptq_pack(q, 4)
    assert w.dtype == torch.int32 and w.item() == 0x87654321 - (1 << 32)   # top bit set: a negative int32
    assert gptq_unpack(w, 4).flatten().tolist() == list(range(1, 9))
    # shuffle without a permutation: nibble p holds e_{2p} (p < 4), e_{2(p-4)+1} (p >= 4): nibbles 0..7 hold
    # 1, 3, 5, 7, 2, 4, 6, 8 -> 0x86427531 (top bit set)
    empty = torch.empty(0, dtype=torch.int32)
    assert gptq_shuffle_native(w, empty, 4).item() == 0x86427531 - (1 << 32)
    # with a permutation (reverse): e = 8, 7, ..., 1, then the shuffle: nibbles 8, 6, 4, 2, 7, 5, 3, 1 -> 0x13572468
    rev = torch.arange(7, -1, -1, dtype=torch.int32)
    assert gptq_shuffle_native(w, rev, 4).item() == 0x13572468
    # 8-bit: 4 rows per word, a gather only: rows (3, 0, 1, 2) of bytes 0x11, 0x22, 0x33, 0x44
    w8 = gptq_pack(torch.tensor([[0x11], [0x22], [0x33], [0x44]]), 8)
    assert w8.item() == 0x44332211
    assert gptq_shuffle_native(w8, torch.tensor([3, 0, 1, 2], dtype=torch.int32), 8).item() == 0x33221144
    assert torch.equal(gptq_shuffle_native(w8, empty, 8), w8)
    with pytest.raises(ValueError, match="q_perm has 3 entries, K = 4"):
        gptq_shuffle_native(w8, torch.tensor([0, 1, 2], dtype=torch.int32), 8)
    with pytest.raises(ValueError, match="bit 3 is not graded"):
        gptq_unpack(w8, 3)
    # the corrected last upstream config: K = 8192 with a full-length permutation
    op = get_operator("vllm::gptq_shuffle")
    last = op.grid("full")[-1]
    assert (last["k"], last["n"], last["bit"]) == (8192, 512, 4) and op.timed(last)
    assert [op.timed(p) for p in op.grid("full")] == [False, True, True, False, True, True]


def test_grouped_topk_hand_case() -> None:
    from kernelgenbench.suite.vllm.moe import SIGMOID_MARGIN, grouped_topk_native, grouped_topk_sigmoid

    # E = 8 in 4 groups of 2; cand = scores + bias = [1, 5 | 4, 4 | 6, -2 | 2, 4]; group scores: 6, 8 (the doubled
    # maximum counts twice), 4, 6 (ties group 0: the lower index wins) -> groups 1 and 0; expert 4 (cand 6) is out.
    # Their experts by cand: e1 (5), then e2 and e3 (4, index order) -> ids [1, 2, 3], weights the unbiased scores
    scores = torch.tensor([[1.0, 5.0, 4.0, 4.0, 6.0, 0.0, 2.0, 4.0], [-torch.inf] * 8])
    bias = torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0])
    w, ids = grouped_topk_native(scores, 4, 2, 3, False, 1.0, bias)
    assert ids.dtype == torch.int32 and ids[0].tolist() == [1, 2, 3] and w[0].tolist() == [5.0, 4.0, 4.0]
    # a row of -inf scores: every group score is -inf -> experts 0..topk-1, weights 1/topk
    assert ids[1].tolist() == [0, 1, 2] and w[1].tolist() == [pytest.approx(1 / 3)] * 3
    # renormalised (fp32: w / (1e-20 + 13)) and scaled by 2
    w, _ = grouped_topk_native(scores[:1], 4, 2, 3, True, 2.0, bias)
    assert w[0].tolist() == pytest.approx([10 / 13, 8 / 13, 8 / 13], rel=1e-6)
    # topk_group 1: group 1 alone -> e2, e3 (equal candidates, index order)
    assert grouped_topk_native(scores[:1], 4, 1, 2, False, 1.0, bias)[1].tolist() == [[2, 3]]
    # sigmoid: rd_S(0.5 tanh(0.5 x) + 0.5); x = 0 -> 0.5, and the weights are the unbiased sigmoid values
    s = grouped_topk_sigmoid(torch.tensor([[0.0, 2.0]], dtype=torch.float16))
    assert s.dtype == torch.float16 and s[0, 0].item() == 0.5 and s[0, 1].item() == pytest.approx(0.8808, abs=5e-4)
    w, ids = grouped_topk_native(torch.tensor([[0.0, 2.0]]), 1, 1, 1, False, 1.0, torch.tensor([1.0, 0.0]), 1)
    assert ids.tolist() == [[0]] and w.tolist() == [[0.5]]        # cand 1.5 vs 0.88: the bias picks expert 0
    with pytest.raises(ValueError, match="groups of >= 2"):
        grouped_topk_native(scores, 8, 1, 1, False, 1.0, bias)
    # the sigmoid inputs of 16-bit cases sit away from rounding boundaries; the planted ties are in place
    op = get_operator("vllm::grouped_topk")
    p = op.grid("heldout")[0]
    call = op.build(p, CPU, generator(CPU, 7))
    x = call.args[0].float()
    sig = 0.5 * torch.tanh(0.5 * x) + 0.5
    assert SIGMOID_MARGIN == 2.0 ** -20
    assert torch.equal((sig - SIGMOID_MARGIN).to(torch.bfloat16), (sig + SIGMOID_MARGIN).to(torch.bfloat16))
    tie = op.build(op.grid("smoke")[1], CPU, generator(CPU, 7)).args[0]
    assert torch.equal(tie[0, :4], tie[0, 4:])


def test_cutlass_pack_scale_fp8_hand_case() -> None:
    from kernelgenbench.suite.vllm.quant import _bytes_check, pack_scale_fp8_native

    s = torch.tensor([1.125, -0.0, 448.0, 2.0 ** -9]).to(torch.float8_e4m3fn)
    out = pack_scale_fp8_native(s)
    assert out.dtype == torch.float8_e4m3fn and out.shape == (32,)
    b = out.view(torch.uint8).reshape(4, 8).tolist()
    # 1.125 (0x39) times -8..-2 (E4M3 steps: 0.5 in [4, 8), 0.25 in [2, 4)): -9 (0xD1); -7.875 -> -8 (0xD0);
    # -6.75, a tie between -6.5 (odd mantissa) and -7 -> -7 (0xCE); -5.625 -> -5.5 (0xCB); -4.5 (0xC9); -3.375, a
    # tie between -3.25 and -3.5 -> -3.5 (0xC6); -2.25 (0xC1); element 7 = -1.125 (0xB9)
    assert b[0] == [0xD1, 0xD0, 0xCE, 0xCB, 0xC9, 0xC6, 0xC1, 0xB9]
    # -0: every product is +0 (0x00), the negation +0 (0x00)
    assert b[1] == [0x00] * 8
    # 448: every product saturates to -448 (0xFE); the negation -448
    assert b[2] == [0xFE] * 8
    # 2^-9 (0x01): -8 * 2^-9 = -2^-6 (0x88, the smallest normal), then subnormals -7..-2 (0x87..0x82); -2^-9 (0x81)
    assert b[3] == [0x88, 0x87, 0x86, 0x85, 0x84, 0x83, 0x82, 0x81]
    # the bitwise judge tells -0 from +0 and wants the dtype and the 1-D shape
    check = _bytes_check("return", out)
    assert check(out.clone(), {}).ok
    flipped = out.view(torch.uint8).clone()
    flipped[8] = 0x80
    res = check(flipped.view(torch.float8_e4m3fn), {})
    assert not res.ok and "first at 8: got 0x80, expected 0x00" in res.message
    assert not check(out.view(torch.uint8), {}).ok and not check(out.reshape(4, 8), {}).ok
    with pytest.raises(ValueError, match="float8_e4m3fn"):
        pack_scale_fp8_native(torch.ones(2))


def test_moe_sum_allowance_covers_the_references_rounding_points_only() -> None:
    """vllm.md § moe_sum: the reference adds k <= 4 terms sequentially in T; an fp32-accumulating kernel rounds once
    and differs from it by up to an ulp per partial sum (false-rejection hunt 29: rejected under cancellation). The
    allowance covers that difference on every element, is absent for k > 4 and 2-D inputs, and stays a few ulps."""
    import torch

    from kernelgenbench.suite.spec import ulp
    from kernelgenbench.suite.vllm.moe import moe_sum_allowance, moe_sum_native

    x = torch.tensor([[[-0.2139], [-0.2793], [0.7422], [0.0850]]], dtype=torch.bfloat16)  # the hunt's element
    once = x.double().sum(1).to(torch.bfloat16)
    ref = moe_sum_native(x)
    assert once.item() != ref.item()
    assert (once.double() - ref.double()).abs().item() <= moe_sum_allowance(x).item()
    g = torch.Generator().manual_seed(0)
    for dt in (torch.bfloat16, torch.float16):
        for k in (2, 3, 4):
            x = (torch.randn(64, k, 128, generator=g) * 4).to(dt)
            diff = (x.double().sum(1).to(dt).double() - moe_sum_native(x).double()).abs()
            extra = moe_sum_allowance(x)
            assert bool((diff <= extra).all()), (dt, k)
            big = ulp(x.double().abs().sum(1), dt) * k
            assert bool((extra <= big).all()), (dt, k)  # no more than k ulps of the terms' magnitude
    assert moe_sum_allowance(torch.randn(4, 5, 8)) is None and moe_sum_allowance(torch.randn(4, 8)) is None


def test_paged_attention_allowance_admits_unrounded_probabilities_and_nothing_coarser() -> None:
    """vllm.md § paged_attention_v1 rounds p to the query dtype before PV; a kernel that keeps p in fp32 differs by
    at most u·sum p|V| (false-rejection hunt 29: rejected at 1.4-24x the bound). The allowance admits that result on
    every element of a smoke case (fp16) and is far below what dropping one token of the sequence moves."""
    from kernelgenbench.suite.vllm.attention import paged_native

    op, call = _build("vllm::paged_attention_v1", "smoke", 0)
    out, q, kc, vc, hkv, scale, tables, seq_lens, bs, _, alibi, mode, ks, vs = call.args
    ref, allow = paged_native(q, kc, vc, hkv, scale, tables, seq_lens, bs, alibi, mode, ks, vs, allowance=True)
    assert q.dtype == torch.float16 and allow.shape == ref.shape and bool((allow > 0).all())
    # the same attention with p unrounded (in fp64), rounded once at the end
    group = q.shape[1] // hkv
    exact = torch.empty_like(ref)
    dropped = torch.empty_like(ref)
    for si in range(q.shape[0]):
        n = int(seq_lens[si])
        i = torch.arange(n)
        blk, t = tables[si].long()[i // bs], i % bs
        keys = kc.double()[blk, :, :, t, :].reshape(n, hkv, -1).repeat_interleave(group, 1)
        vals = vc.double()[blk, :, :, t].repeat_interleave(group, 1)
        logit = (q[si].double()[None] * keys).sum(-1) * scale
        pr = torch.softmax(logit, 0)
        exact[si] = (pr[:, :, None] * vals).sum(0).to(ref.dtype)
        m = max(n - 1, 1)
        pd = torch.softmax(logit[:m], 0)
        dropped[si] = (pd[:, :, None] * vals[:m]).sum(0).to(ref.dtype)
    bound = 1e-3 * ref.double().abs() + 1e-4 + allow          # rtol[fp16], atol, the allowance
    assert bool(((exact.double() - ref.double()).abs() <= bound).all())
    assert bool(((dropped.double() - ref.double()).abs() > bound).any())


# ---------------------------------------------------------------- vectorized baselines (the timed native)
def _slot_tensor(call: Call, ret: object, slot: str) -> torch.Tensor:
    parts = slot.split(".")
    if parts[0] == "return":
        return ret if len(parts) == 1 else ret[int(parts[1])]
    t = call.args[int(parts[1])]
    return t if len(parts) == 2 else t[int(parts[2])]


def _bits(t: torch.Tensor) -> torch.Tensor:
    flat = t.contiguous().reshape(-1) if t.dim() else t.reshape(1)
    if t.dtype == torch.bool:
        return flat.to(torch.uint8)
    return flat.view(torch.uint8) if t.element_size() == 1 or t.is_floating_point() else flat


def assert_baseline_is_reference(op_id: str, tier: str, i: int, compiled: bool = False) -> None:
    """The operator's native baseline (the vectorized statement of its reference, as timed) writes every written
    output bit for bit as the reference expects (whole storages: unaddressed elements keep their bits) and
    returns what the reference returns; ``compiled``: also under torch.compile(backend="eager"), which must
    capture a graph (the label says native-compiled)."""
    from kernelgenbench.suite.baselines import baseline_kind
    from kernelgenbench.suite.tensors import storage_view
    from kernelgenbench.suite.vllm import common as vc

    op = get_operator(op_id)
    p = op.grid(tier)[i]
    call = op.build(p, CPU, generator(CPU, 1234))
    exps = op.reference(p, call.clone())
    native, _ = op.baseline(call.clone(), None, prefer="native-eager")
    runs = [native]
    if compiled:
        fn, label = vc.pick_baseline(op_id, native, call, backend="eager")
        assert baseline_kind(label) == "native-compiled", (op_id, tier, i, label)
        runs.append(fn)
    for run in runs:
        c = call.clone()
        ret = run(c)
        for e in exps:
            got = _slot_tensor(c, ret, e.slot)
            if e.slot.startswith("arg"):
                got = storage_view(got)
            assert got.shape == e.value.shape and got.dtype == e.value.dtype, (op_id, tier, i, e.slot)
            assert torch.equal(_bits(got), _bits(e.value)), (op_id, tier, i, e.slot)


def _baseline_cases(op_id: str, full: tuple[int, ...]) -> list[tuple[str, str, int]]:
    op = get_operator(op_id)
    return ([(op_id, "smoke", i) for i in range(len(op.grid("smoke")))]
            + [(op_id, "heldout", i) for i in range(len(op.grid("heldout")))]
            + [(op_id, "full", i) for i in full])


_KV_BASELINES = [c for op_id, full in [("vllm::reshape_and_cache_flash", (0, 1)), ("vllm::reshape_and_cache", (0, 1)),
                                        ("vllm::swap_blocks", (0, 5, 10)), ("vllm::copy_blocks", (0, 2)),
                                        ("vllm::copy_blocks_mla", (0, 2)), ("vllm::concat_and_cache_mla", (0, 1))]
                 for c in _baseline_cases(op_id, full)]


@pytest.mark.parametrize("op_id,tier,i", _KV_BASELINES)
def test_kv_cache_vectorized_baselines_match_the_reference(op_id: str, tier: str, i: int) -> None:
    assert_baseline_is_reference(op_id, tier, i, compiled=(tier == "smoke" and i == 0))


def test_slot_writes_skip_negative_slots_without_a_mask() -> None:
    from kernelgenbench.suite.vllm.kv_cache import mla_baseline, mla_native

    kv_c, k_pe = torch.arange(8.0).reshape(4, 2), -torch.arange(4.0).reshape(4, 1)
    for slots in ([-1, 2, -1, 0], [-1, -1, -1, -1], [3, -1, 1, -1], [1, 2, 3, 0]):
        cache = torch.full((2, 2, 3), float("nan"))
        sl = torch.tensor(slots)
        new, _ = mla_native(kv_c, k_pe, cache, sl, "auto", torch.ones(1))
        mla_baseline(kv_c, k_pe, cache, sl, "auto", torch.ones(1))
        assert torch.equal(cache.view(torch.int32), new.view(torch.int32)), slots


_GATHER_BASELINES = [c for op_id, full in [("vllm::cp_gather_cache", (0, 3, 7)),
                                            ("vllm::gather_and_maybe_dequant_cache", (0, 5, 12))]
                     for c in _baseline_cases(op_id, full)]


@pytest.mark.parametrize("op_id,tier,i", _GATHER_BASELINES)
def test_gather_vectorized_baselines_match_the_reference(op_id: str, tier: str, i: int) -> None:
    assert_baseline_is_reference(op_id, tier, i, compiled=(tier == "smoke"))


_MOE_BASELINES = [c for op_id, full in [("vllm::batched_moe_align_block_size", (0, 4, 8)),
                                         ("vllm::moe_lora_align_block_size", (0, 3, 6))]
                  for c in _baseline_cases(op_id, full)]


@pytest.mark.parametrize("op_id,tier,i", _MOE_BASELINES)
def test_moe_vectorized_baselines_match_the_reference(op_id: str, tier: str, i: int) -> None:
    assert_baseline_is_reference(op_id, tier, i, compiled=(tier == "smoke"))


def assert_baseline_within_reference(op_id: str, tier: str, i: int, compiled: bool = False) -> None:
    """As :func:`assert_baseline_is_reference` for float baselines with the reference's rounding points but another
    summation order: every written output within the operator's own tolerance (and allowance) of the reference,
    every element outside the written region bit for bit."""
    from kernelgenbench.suite.baselines import baseline_kind
    from kernelgenbench.suite.compare import compare_values
    from kernelgenbench.suite.tensors import storage_view
    from kernelgenbench.suite.vllm import common as vc

    op = get_operator(op_id)
    p = op.grid(tier)[i]
    call = op.build(p, CPU, generator(CPU, 1234))
    exps = op.reference(p, call.clone())
    native, _ = op.baseline(call.clone(), None, prefer="native-eager")
    runs = [native]
    if compiled:
        fn, label = vc.pick_baseline(op_id, native, call, backend="eager")
        assert baseline_kind(label) == "native-compiled", (op_id, tier, i, label)
        runs.append(fn)
    for run in runs:
        c = call.clone()
        run(c)
        for e in exps:
            got = storage_view(_slot_tensor(c, None, e.slot))
            region = e.region if e.region is not None else torch.ones_like(got, dtype=torch.bool)
            assert torch.equal(_bits(got[~region]), _bits(e.value[~region])), (op_id, tier, i, e.slot)
            res = compare_values(got[region], e.value[region], e.tol, atol_extra=e.atol_extra)
            assert res.ok, (op_id, tier, i, e.slot, res.message)


_ATTN_BASELINES = [*_baseline_cases("vllm::paged_attention_v1", (0, 100, 600)),
                   *_baseline_cases("vllm::paged_attention_v2", (0, 3, 6))]


@pytest.mark.parametrize("op_id,tier,i", _ATTN_BASELINES)
def test_paged_attention_vectorized_baselines_match_the_reference(op_id: str, tier: str, i: int) -> None:
    p = get_operator(op_id).grid(tier)[i]
    lens = p["lens"] if isinstance(p.get("lens"), list) else []
    longest = max(lens + [p.get("max_len", 0), p.get("max_seq_len", 0), p.get("context", 0)])
    if p["s"] * p["hq"] * p["d"] * longest > 2 ** 24:
        pytest.skip("too large for the CPU")
    assert_baseline_within_reference(op_id, tier, i, compiled=(tier == "smoke" and i == 0))


_VSI_BASELINES = _baseline_cases("vllm::convert_vertical_slash_indexes", tuple(range(13)))


@pytest.mark.parametrize("op_id,tier,i", _VSI_BASELINES)
def test_vertical_slash_vectorised_baseline_matches_the_reference(op_id: str, tier: str, i: int) -> None:
    """Every case of the grid (all 13 full ones: the CPU runs the largest in seconds), the smoke ones compiled."""
    assert_baseline_is_reference(op_id, tier, i, compiled=(tier == "smoke"))


_WHOLE_GRAPH = ["vllm::reshape_and_cache_flash", "vllm::reshape_and_cache", "vllm::swap_blocks", "vllm::copy_blocks",
                "vllm::copy_blocks_mla", "vllm::concat_and_cache_mla", "vllm::cp_gather_cache",
                "vllm::gather_and_maybe_dequant_cache", "vllm::batched_moe_align_block_size",
                "vllm::moe_lora_align_block_size", "vllm::paged_attention_v1", "vllm::paged_attention_v2",
                "vllm::convert_vertical_slash_indexes"]


@pytest.mark.parametrize("op_id", _WHOLE_GRAPH)
def test_vectorized_baselines_compile_without_graph_breaks(op_id: str) -> None:
    """These baselines have no host sync and no data-dependent shape: dynamo captures each smoke case whole."""
    op = get_operator(op_id)
    for i, p in enumerate(op.grid("smoke")):
        call = op.build(p, CPU, generator(CPU, 1234))
        native, _ = op.baseline(call.clone(), None, prefer="native-eager")
        written = call.written

        def core(*args, native=native, written=written):
            return native(Call(list(args), {}, written))
        torch._dynamo.reset()
        ex = torch._dynamo.explain(core)(*call.clone().args)
        assert ex.graph_break_count <= 0 and ex.graph_count <= 1, (op_id, i, [b.reason for b in ex.break_reasons])
