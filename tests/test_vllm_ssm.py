"""vllm::selective_scan_fwd (vllm.md § selective_scan_fwd): the native scan on hand-computed recurrences (D, z,
bias, softplus, groups, initial states, cache slots, padded sequences, batch mode), the rounding allowance (an
honest order passes it, fp16 arithmetic does not) and the grid."""
from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.vllm.ssm import selective_scan_allowance, selective_scan_native

F32 = torch.float32


def _one_channel(D=None, z=None, bias=None, softplus=False, delta=(0.5, 1.0)):
    u = torch.tensor([[1.0, 2.0]])
    dl = torch.tensor([list(delta)])
    A = torch.tensor([[-1.0]])
    B = torch.tensor([[[1.0, 1.0]]])
    C = torch.tensor([[[2.0, 1.0]]])
    qsl = torch.tensor([0, 2], dtype=torch.int32)
    st = torch.zeros(1, 1, 1)
    return [u, dl, A, B, C, D, z, bias, softplus, qsl, None, None, st, -1]


def test_hand_recurrence_with_d_and_z() -> None:
    # h1 = 0.5*1*1 = 0.5, y1 = 0.5*2 = 1; h2 = exp(-1)*0.5 + 1*2*1, y2 = h2*1
    h2 = math.exp(-1.0) * 0.5 + 2.0
    y, z, st, slots = selective_scan_native(*_one_channel())
    assert torch.allclose(y, torch.tensor([[1.0, h2]]), rtol=1e-6, atol=0) and z is None
    assert slots == [0] and abs(float(st[0, 0, 0]) - h2) < 1e-6
    y, z, st, _ = selective_scan_native(*_one_channel(D=torch.tensor([3.0]), z=torch.tensor([[0.0, 1.0]])))
    assert torch.allclose(y, torch.tensor([[4.0, 6.0 + h2]]), rtol=1e-6, atol=0)
    # gated: y * silu(z): silu(0) = 0, silu(1) = 1/(1 + e^-1)
    assert torch.allclose(z, torch.tensor([[0.0, (6.0 + h2) / (1.0 + math.exp(-1.0))]]), rtol=1e-6, atol=0)


def test_bias_and_softplus() -> None:
    sp = [math.log1p(math.exp(0.5 + 0.25)), math.log1p(math.exp(1.0 + 0.25))]
    y, _, st, _ = selective_scan_native(*_one_channel(bias=torch.tensor([0.25]), softplus=True))
    h1 = sp[0] * 1.0
    h2 = math.exp(-sp[1]) * h1 + sp[1] * 2.0
    assert torch.allclose(y, torch.tensor([[2.0 * h1, h2]]), rtol=1e-6, atol=0)
    # above 20 softplus is the identity: dt = 25 exactly
    y, _, st, _ = selective_scan_native(*_one_channel(softplus=True, delta=(25.0, 0.0)))
    assert abs(float(y[0, 0]) - 25.0 * 2.0) < 1e-4


def test_groups_cache_slots_initial_states_and_padding() -> None:
    # Dm = 2 channels in G = 2 groups, N = 1; sequences of 1 and 2 tokens, the second padded
    u = torch.ones(2, 3)
    dl = torch.ones(2, 3)
    A = torch.full((2, 1), -1.0)
    B = torch.tensor([[[0.0, 0.0, 0.0]], [[1.0, 1.0, 1.0]]])
    C = torch.ones(2, 1, 3)
    qsl = torch.tensor([0, 1, 3], dtype=torch.int32)
    st = torch.tensor([[[10.0], [20.0]], [[30.0], [40.0]], [[50.0], [60.0]]])
    args = [u, dl, A, B, C, None, None, None, False, qsl, torch.tensor([2, -1], dtype=torch.int32),
            torch.tensor([True, True]), st, -1]
    y, _, new, slots = selective_scan_native(*args)
    e = math.exp(-1.0)
    # sequence 0 -> slot 2 (initial 50, 60); channel 0's group has B = 0: h = e*50; channel 1: h = e*60 + 1
    assert slots == [2]
    assert torch.allclose(new[2, :, 0], torch.tensor([e * 50.0, e * 60.0 + 1.0]))
    assert torch.allclose(y[:, 0], torch.tensor([e * 50.0, e * 60.0 + 1.0]))
    # the padded sequence's tokens and the other slots keep their values
    assert torch.equal(y[:, 1:], dl[:, 1:]) and torch.equal(new[:2], st[:2])
    # without has_initial_state the states start at 0
    args[11] = None
    y0, _, _, _ = selective_scan_native(*args)
    assert torch.allclose(y0[:, 0], torch.tensor([0.0, 1.0]))


def test_batch_mode_matches_varlen() -> None:
    g = torch.Generator().manual_seed(1)
    bt, dm, n, L = 2, 4, 3, 5
    u, dl, z = (torch.randn(bt, dm, L, generator=g) for _ in range(3))
    B, C = torch.randn(bt, 1, n, L, generator=g), torch.randn(bt, 1, n, L, generator=g)
    A = -torch.rand(dm, n, generator=g) - 0.1
    st = torch.zeros(bt, dm, n)
    yb, zb, sb, _ = selective_scan_native(u, dl, A, B, C, None, z, None, True, None, None, None, st, -1)
    cat = lambda x: torch.cat(list(x), -1)  # noqa: E731
    qsl = torch.tensor([0, L, 2 * L], dtype=torch.int32)
    yv, zv, sv, _ = selective_scan_native(cat(u), cat(dl), A, cat(B.squeeze(1)).unsqueeze(0),
                                          cat(C.squeeze(1)).unsqueeze(0), None, cat(z), None, True, qsl, None, None,
                                          st, -1)
    assert torch.allclose(cat(yb), yv) and torch.allclose(cat(zb), zv) and torch.allclose(sb, sv)


def _case(i: int) -> tuple[dict, list]:
    op = get_operator("vllm::selective_scan_fwd")
    p = op.grid("full")[i]
    return p, op.build(p, torch.device("cpu"), torch.Generator().manual_seed(i)).args


@pytest.mark.parametrize("i", [134, 158])  # no softplus (states grow past 1e11), softplus
def test_allowance_passes_fp64_and_fails_fp16_arithmetic(i: int) -> None:
    p, args = _case(i)
    _, _, s32, _ = selective_scan_native(*args)
    _, _, s64, _ = selective_scan_native(*args, acc=torch.float64)
    _, _, s16, _ = selective_scan_native(*[a.to(torch.float16) if isinstance(a, torch.Tensor) and a.is_floating_point()
                                           else a for a in args], acc=torch.float16)
    _, _, extra = selective_scan_allowance(*args)
    bound = 1e-5 * s64.abs() + 1e-4 * max(p["lens"]) + extra
    assert bool(((s32.double() - s64).abs() <= 0.1 * bound).all())    # fp32 in our order: well inside
    assert bool(((s16.double() - s64).abs() > bound).any())           # fp16 arithmetic: outside


def test_grid_and_regions() -> None:
    op = get_operator("vllm::selective_scan_fwd")
    full = op.grid("full")
    assert len(full) == 160 and sum(op.timed(p) for p in full) == 64
    p = op.grid("smoke")[2]   # three sequences, the second padded (cache index -1)
    call = op.build(p, torch.device("cpu"), torch.Generator().manual_seed(0))
    exps = {e.slot: e for e in op.reference(p, call)}
    assert set(exps) == {"arg.1", "arg.6", "arg.12"}
    # delta/z: the padded sequence's 3 tokens (columns 2-4) are outside the region; states: slots 2 and 0 only
    assert int(exps["arg.1"].region.sum()) == 8 * 6 and not bool(exps["arg.1"].region.reshape(8, 9)[:, 2:5].any())
    assert exps["arg.12"].region.reshape(3, 8, 8)[:, 0, 0].tolist() == [True, False, True]
    assert exps["arg.1"].atol_extra.shape == (8 * 6,) and float(exps["arg.1"].atol_extra.max()) > 0


def test_the_native_baseline_is_eager_and_says_why() -> None:
    """The scan's Python loop over tokens is never compiled (torch.compile would unroll it): native-compiled
    runs it eagerly and the label says why; vLLM when importable is unaffected (not installed here)."""
    from kernelgenbench.suite.registry import get_operator
    from kernelgenbench.suite.vllm.common import vllm_ops

    op = get_operator("vllm::selective_scan_fwd")
    case = op.cases("smoke")[0]
    call = op.build(case.params, torch.device("cpu"), torch.Generator().manual_seed(0))
    fn, label = op.baseline(call, None, prefer="native-compiled")
    assert label.startswith("native-eager") and label.endswith("not compiled: torch.compile would unroll the "
                                                               "per-token loop"), label
    if vllm_ops() is None:
        assert op.baseline(call, None)[1] == label


def _scan_cases() -> list[tuple[str, int]]:
    op = get_operator("vllm::selective_scan_fwd")
    cases = [(t, i) for t in ("smoke", "heldout") for i in range(len(op.grid(t)))]
    return cases + [("full", i) for i in (0, 7, len(op.grid("full")) - 1)]


@pytest.mark.parametrize("tier,i", _scan_cases())
def test_batched_baseline_writes_what_the_reference_computes(tier: str, i: int) -> None:
    """The timed baseline (sequences batched, in place) writes delta, z and the state slots bit for bit as
    selective_scan_native computes them, and leaves everything else (unwritten slots, tokens of no sequence)."""
    from kernelgenbench.suite.common import generator
    from kernelgenbench.suite.vllm.ssm import DELTA, STATES, Z

    op = get_operator("vllm::selective_scan_fwd")
    p = op.grid(tier)[i]
    if p["bt"] * p["dm"] * p["n"] * p.get("max_len", p.get("l", 0)) > 2 ** 26:
        pytest.skip("too large for the CPU")
    cpu = torch.device("cpu")
    call = op.build(p, cpu, generator(cpu, 1234))
    y, z, st, _ = selective_scan_native(*call.clone().args)
    native, label = op.baseline(call.clone(), None)
    assert label.startswith("native-eager")
    c = call.clone()
    native(c)
    assert torch.equal(c.args[DELTA], y)
    assert torch.equal(c.args[STATES], st)
    if z is not None:
        assert torch.equal(c.args[Z], z)
