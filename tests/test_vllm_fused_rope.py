"""vllm::fused_qk_norm_rope (vllm.md § fused_qk_norm_rope): the native reference on hand-computed cases, its single
rounding point, the grid and the written region."""
from __future__ import annotations

import torch

from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.vllm.fused_rope import qk_norm_rope_native


def _hand_inputs() -> tuple[torch.Tensor, ...]:
    # one token, Hq = Hk = Hv = 1, D = 4; cos = (0, 1), sin = (1, 0) at position 1
    qkv = torch.tensor([[1.0, 1.0, 1.0, 1.0, 2.0, 0.0, 0.0, 0.0, 9.0, 9.0, 9.0, 9.0]], dtype=torch.float16)
    qw = torch.ones(4, dtype=torch.float16)
    kw = torch.tensor([0.5, 1.0, 1.0, 1.0], dtype=torch.float16)
    cache = torch.tensor([[5.0, 5.0, 5.0, 5.0], [0.0, 1.0, 1.0, 0.0]])
    return qkv, qw, kw, cache, torch.tensor([1])


def test_hand_case_neox_and_gptj() -> None:
    qkv, qw, kw, cache, pos = _hand_inputs()
    # Q: sum x^2 / 4 = 1 -> rr = 1, y = (1,1,1,1); K: y = 2 * 1/sqrt(1) * (0.5, 1, 1, 1) * (1,0,0,0) = (1,0,0,0)
    neox = qk_norm_rope_native(qkv, 1, 1, 4, 0.0, qw, kw, cache, True, pos)
    # pairs (0,2) rotate by (c, s) = (0, 1), pairs (1,3) by (1, 0)
    assert torch.equal(neox.float(), torch.tensor([[[-1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.0]]]))
    gptj = qk_norm_rope_native(qkv, 1, 1, 4, 0.0, qw, kw, cache, False, pos)
    # pairs (0,1) by (0, 1), pairs (2,3) by (1, 0)
    assert torch.equal(gptj.float(), torch.tensor([[[-1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 0.0, 0.0]]]))


def test_eps_enters_the_norm() -> None:
    qkv, qw, kw, cache, pos = _hand_inputs()
    out = qk_norm_rope_native(qkv, 1, 1, 4, 3.0, qw, kw, cache, True, pos)
    # rr = 1/sqrt(1 + 3) = 0.5: every Q value halves
    assert torch.equal(out[0, 0].float(), torch.tensor([-0.5, 0.5, 0.5, 0.5]))


def test_one_rounding_at_the_end() -> None:
    g = torch.Generator().manual_seed(3)
    t, d = 64, 64
    qkv = torch.randn(t, 3 * d, generator=g).to(torch.bfloat16)
    qw, kw = torch.randn(d, generator=g).to(torch.bfloat16), torch.randn(d, generator=g).to(torch.bfloat16)
    cache = torch.randn(t, d, generator=g)
    pos = torch.randperm(t, generator=g)
    out = qk_norm_rope_native(qkv, 1, 1, d, 1e-5, qw, kw, cache, True, pos)
    # fp64 with one rounding agrees (up to fp32 noise flipping a rare tie); rounding y to bf16 before RoPE
    # (vLLM's test helper) is a different function
    x = qkv[:, : 2 * d].double().reshape(t, 2, d)
    w = torch.stack([qw, kw]).double()[None]
    y = x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-5) * w
    c, s = cache[pos, : d // 2].double()[:, None], cache[pos, d // 2:].double()[:, None]
    y1, y2 = y[..., : d // 2], y[..., d // 2:]
    exact = torch.cat([y1 * c - y2 * s, y2 * c + y1 * s], -1).to(torch.bfloat16)
    assert (out != exact).float().mean() < 0.01
    yr = y.to(torch.bfloat16).double()
    y1, y2 = yr[..., : d // 2], yr[..., d // 2:]
    early = torch.cat([y1 * c - y2 * s, y2 * c + y1 * s], -1).to(torch.bfloat16)
    assert (out != early).float().mean() > 0.1


def test_grid_timing_and_untouched_v_heads() -> None:
    op = get_operator("vllm::fused_qk_norm_rope")
    full = op.grid("full")
    assert len(full) == 120
    assert sum(op.timed(p) for p in full) == 16
    p = op.grid("smoke")[0]
    call = op.build(p, torch.device("cpu"), torch.Generator().manual_seed(0))
    qkv = call.args[0]
    assert qkv.shape == (3, 4 * 64)
    (exp,) = op.reference(p, call)
    # only the Q and K columns are compared; the V head must keep its bits
    assert int(exp.region.sum()) == 3 * 3 * 64
    assert not bool(exp.region.reshape(3, 256)[:, 192:].any())
    assert torch.equal(exp.value.reshape(3, 256)[:, 192:], qkv[:, 192:])
