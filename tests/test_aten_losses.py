"""The losses and backward family (suite/aten/losses.py): grids against the counts of aten.md §1/§8, the wrappers
against the installed PyTorch, smoke and held-out coverage, hand-computed reference values (the rounding points
and device semantics the rows pin), the tolerance rule, the upsample index mapping, the oracles' L1 scan, and wrong
kernels of each kind caught through the real pipeline."""
from __future__ import annotations

import math
import os
import textwrap
from pathlib import Path

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from kernelgenbench.platforms import PROFILES
from kernelgenbench.run.job import JobSpec, Settings, Verifier
from kernelgenbench.suite.aten.family import resolve_api
from kernelgenbench.suite.aten.losses import OPERATORS, LossOperator, TensorRow
from kernelgenbench.suite.compare import compare_values
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.spec import Call, Tolerance
from kernelgenbench.verify.scan import scan_file

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"
PLATFORM = PROFILES[os.environ.get("KGB_TEST_PLATFORM", "interpreter")]
CPU = torch.device("cpu")

OUT_OVERLOAD = {
    "binary_cross_entropy_with_logits": "out", "huber_loss": "out", "margin_ranking_loss": None,
    "soft_margin_loss": "out", "log_sigmoid_backward": "grad_input", "mish_backward": None,
    "smooth_l1_loss_backward": "grad_input", "softplus_backward": "grad_input", "rrelu_with_noise_backward": "out",
    "reflection_pad1d_backward": "grad_input", "select_backward": "out", "upsample_nearest2d_backward": "grad_input",
}
ROWS: dict[str, TensorRow] = {op.name: op for op in OPERATORS}


def _build(op: TensorRow, params: dict, seed: int = 0) -> Call:
    return op.build(params, CPU, torch.Generator().manual_seed(seed))


def _ref(op: TensorRow, params: dict, *tensors: torch.Tensor) -> torch.Tensor:
    """The reference of a case whose drawn tensors are replaced by ``tensors`` (in argument order)."""
    call = _build(op, params)
    slots = [i for i, a in enumerate(call.args) if isinstance(a, torch.Tensor)]
    assert len(slots) == len(tensors)
    for i, t in zip(slots, tensors):
        call.args[i] = t
    exp = op.reference(params, call.clone())
    return exp[0].value if exp[0].slot == "return" else exp[0].value[exp[0].region]


class _Reached(TorchDispatchMode):
    def __init__(self, op: str) -> None:
        super().__init__()
        self.op, self.seen = op, []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func._schema.name == f"aten::{self.op}":
            self.seen.append(func._overloadname)
        return func(*args, **(kwargs or {}))


def test_every_row_is_registered() -> None:
    assert len({op.name for op in OPERATORS}) == len(OPERATORS)  # one row per name
    for name in ROWS:
        assert get_operator(f"aten::{name}") is ROWS[name]
    assert {n for n, op in ROWS.items() if isinstance(op, LossOperator)} == {
        "binary_cross_entropy_with_logits", "huber_loss", "margin_ranking_loss", "soft_margin_loss"}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_full_tier_cases_are_distinct(name: str) -> None:
    cases = ROWS[name].cases("full")
    assert len({c.seed for c in cases}) == len(cases), "two full-tier cases draw the same inputs"
    if name == "huber_loss":
        assert all(c.timed == (c.params.get("overload") != "out") for c in cases)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_wrappers_are_the_overloads_of_pytorch(name: str) -> None:
    op = ROWS[name]
    packet = getattr(torch.ops.aten, name)
    want = {name if o == "default" else f"{name}.{o}" for o in packet.overloads()}
    assert {w.overload for w in op.interface.wrappers} == want
    assert op.out_overload == OUT_OVERLOAD[name]
    for w in op.interface.wrappers:
        assert w.kind == "dispatcher" and w.exercised and w.schema.startswith(f"aten::{name}")
    assert op.composite == (name == "margin_ranking_loss")


@pytest.mark.parametrize("name", sorted(ROWS))
def test_every_case_drives_its_overload(name: str) -> None:
    """Smoke and held-out cases call the dispatcher entry of the overload they name (run natively on the CPU);
    the full tier drives every overload."""
    op = ROWS[name]
    full = {op.overload_of(c.params) for c in op.cases("full")}
    assert full == {w.overload for w in op.interface.wrappers}
    for case in op.cases("smoke") + op.cases("heldout"):
        call = _build(op, case.params, case.seed)
        if case.params["dtype"] == "bf16" or op.composite:
            continue
        mode = _Reached(name)
        with mode:
            resolve_api(call.api)(*call.args, **call.kwargs)
        key = op.overload_of(case.params)
        assert mode.seen and mode.seen[0] == ("default" if key == name else key.split(".", 1)[1]), case.params


#: Smoke cases beyond the family's 3-4, by row (each a catch that must not depend on the input draw).
EXTRA_SMOKE = {name: 2 for name in ("binary_cross_entropy_with_logits", "huber_loss", "margin_ranking_loss",
                                     "soft_margin_loss")}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_smoke_and_heldout_tiers(name: str) -> None:
    op = ROWS[name]
    smoke, held = op.cases("smoke"), op.cases("heldout")
    # the losses: two tiny fp32 reductions more, so that tests/bad/fp16_terms's class fails on every secret draw
    assert 3 <= len(smoke) <= 4 + EXTRA_SMOKE.get(name, 0) and len(held) >= 3
    assert not any(c.timed for c in smoke + held)
    wrappers = {w.overload for w in op.interface.wrappers}
    runnable = {op.overload_of(c.params) for c in smoke if c.params["dtype"] != "bf16"}
    assert runnable == wrappers, "every wrapper runs in smoke on the interpreter (bf16 is unsupported there)"
    assert {c.params["dtype"] for c in smoke} == {"fp32", "fp16", "bf16"}
    full = [c.params for c in op.cases("full")]
    assert not any(c.params in full for c in held), "a held-out case repeats a full-tier case"
    for case in smoke + held:
        call = _build(op, case.params, case.seed)
        tensors = [a for a in [*call.args, *call.kwargs.values()] if isinstance(a, torch.Tensor)]
        if case.tier == "smoke":
            assert all(t.numel() <= 65536 for t in tensors), case.params
        expected = op.reference(case.params, call.clone())
        if op.out_overload in call.kwargs:
            assert call.written == (op.out_overload,)
            assert [e.slot for e in expected] == [f"arg.{op.out_overload}", "return"]
            assert expected[1].alias == f"arg.{op.out_overload}"
        else:
            assert call.written == () and [e.slot for e in expected] == ["return"]


def test_held_out_layouts_and_broadcasts_are_drawn() -> None:
    call = _build(ROWS["binary_cross_entropy_with_logits"], dict(shape=[511, 257], dtype="fp16", weight=True,
                                                                 pos_weight=True, reduction=0, pos_weight_shape=[257]))
    assert call.args[3].shape == (257,) and call.args[2].shape == (511, 257)
    call = _build(ROWS["huber_loss"], dict(shape=[6, 5], dtype="fp32", reduction=0, delta=1.0,
                                           self_layout="transposed"))
    assert call.args[0].shape == (6, 5) and call.args[0].stride() == (1, 6)
    call = _build(ROWS["log_sigmoid_backward"], dict(shape=[3, 4], dtype="fp32", buffer_shape=[0]))
    assert call.args[2].shape == (0,)
    call = _build(ROWS["margin_ranking_loss"], dict(shape=[64, 64], dtype="fp16", margin=0.0, reduction=0))
    assert set(call.args[2].unique().tolist()) == {-1.0, 1.0}
    call = _build(ROWS["rrelu_with_noise_backward"], dict(shape=[64, 64], dtype="fp32", training=True))
    noise = call.args[2]
    assert 0.1 <= float(noise.min()) and float(noise.max()) < 0.3 and call.args[3:] == [0.1, 0.3, True, False]
    assert _build(ROWS["rrelu_with_noise_backward"], dict(shape=[2], dtype="fp32", training=False,
                                                          overload="out")).args[6] is True
    call = _build(ROWS["smooth_l1_loss_backward"], dict(shape=[4, 5], dtype="fp32", reduction=1, beta=1.0))
    assert call.args[0].dim() == 0  # grad_output of a reduced loss
    call = _build(ROWS["select_backward"], dict(sizes=[7, 17, 31], dim=1, index_mode="neg1", dtype="fp32"))
    assert call.args[0].shape == (7, 31) and call.args[1:] == [[7, 17, 31], 1, -1]
    call = _build(ROWS["upsample_nearest2d_backward"], dict(case=[4, 8, 16, 32, 24, 48], scales=True, dtype="fp32"))
    assert call.args[0].shape == (4, 8, 24, 48) and call.args[1:] == [[24, 48], [4, 8, 16, 32], 1.5, 1.5]


def test_out_buffers_have_pytorchs_result_shape() -> None:
    for name, params, shape in [
        ("binary_cross_entropy_with_logits", dict(shape=[4, 5], dtype="fp32", weight=False, pos_weight=False,
                                                  reduction=0, overload="out"), (4, 5)),
        ("soft_margin_loss", dict(shape=[4, 5], dtype="fp16", reduction=2, overload="out"), ()),
        ("huber_loss", dict(shape=[4, 5], dtype="fp32", reduction=1, delta=1.0, overload="out"), ()),
        ("reflection_pad1d_backward", dict(shape=[2, 3, 8], dtype="fp32", padding=[2, 3], overload="grad_input"),
         (2, 3, 8)),
        ("select_backward", dict(sizes=[4, 6], dim=-1, index=2, dtype="fp16", overload="out"), (4, 6)),
    ]:
        op = ROWS[name]
        call = _build(op, params)
        out = call.kwargs[op.out_overload]
        assert tuple(out.shape) == shape and out.dtype == call.args[0].dtype, name


# -- hand-computed reference values ----------------------------------------------------------------------------
def test_bce_reference_values() -> None:
    op = ROWS["binary_cross_entropy_with_logits"]
    x, t = torch.tensor([0.0, 0.0, 2.0]), torch.tensor([0.5, 1.0, 0.0])
    p = dict(shape=[3], dtype="fp32", weight=False, pos_weight=False, reduction=0)
    want = [math.log(2), math.log(2), 2 + math.log1p(math.exp(-2))]  # (1-t)x - logsigmoid(x)
    assert torch.allclose(_ref(op, p, x, t), torch.tensor(want), rtol=1e-6)
    pw, w = torch.tensor([2.0, 2.0, 2.0]), torch.tensor([1.0, 0.5, 1.0])
    p = dict(p, weight=True, pos_weight=True)
    want = [1.5 * math.log(2), 0.5 * 2 * math.log(2), want[2]]  # w_p = 1 + (pw - 1)t
    assert torch.allclose(_ref(op, p, x, t, w, pw), torch.tensor(want), rtol=1e-6)
    p = dict(p, reduction=1)
    assert float(_ref(op, p, x, t, w, pw)) == pytest.approx(sum(want) / 3, rel=1e-6)
    # an fp16 sum is the exact sum rounded once: inf past the fp16 range (n·log 2 > 65520), finite below
    for n, finite in ((90000, True), (100000, False)):
        p = dict(shape=[n], dtype="fp16", weight=False, pos_weight=False, reduction=2)
        s = _ref(op, p, torch.zeros(n, dtype=torch.float16), torch.full((n,), 0.5, dtype=torch.float16))
        assert s.dtype == torch.float16 and math.isfinite(float(s)) == finite
        if finite:
            assert float(s) == pytest.approx(n * math.log(2), rel=1e-3)


def test_huber_and_margin_reference_values() -> None:
    op = ROWS["huber_loss"]
    a, b = torch.tensor([0.5, 3.0, -1.0, 0.0]), torch.zeros(4)
    p = dict(shape=[4], dtype="fp32", reduction=0, delta=1.0)
    assert _ref(op, p, a, b).tolist() == [0.125, 2.5, 0.5, 0.0]
    assert float(_ref(op, dict(p, reduction=2), a, b)) == 3.125
    assert float(_ref(op, dict(p, reduction=1, delta=2.0), a, b)) == pytest.approx((0.125 + 4.0 + 0.5) / 4)
    # fp16: the reference is the fp64 loss rounded once (aten.md §3.1), not PyTorch's in-dtype arithmetic
    x = torch.tensor([1.3], dtype=torch.float16)
    want = torch.tensor([0.5 * 1.2998046875 ** 2], dtype=torch.float64).to(torch.float16)
    assert torch.equal(_ref(op, dict(shape=[1], dtype="fp16", reduction=0, delta=2.0), x, torch.zeros(1).half()), want)
    op = ROWS["margin_ranking_loss"]
    x1, x2, t = torch.tensor([1.0, 1.0, -2.0]), torch.tensor([0.0, 0.0, 1.0]), torch.tensor([1.0, -1.0, 1.0])
    p = dict(shape=[3], dtype="fp32", margin=0.5, reduction=0)
    assert _ref(op, p, x1, x2, t).tolist() == [0.0, 1.5, 3.5]
    assert float(_ref(op, dict(p, reduction=1), x1, x2, t)) == pytest.approx(5.0 / 3)


def test_soft_margin_reference_keeps_pytorchs_exp_overflow() -> None:
    op = ROWS["soft_margin_loss"]
    x, t = torch.tensor([-12.0, 0.0, 3.0]), torch.tensor([1.0, 1.0, -1.0])
    p = dict(shape=[3], dtype="fp16", reduction=0)
    ref = _ref(op, p, x.half(), t.half())
    assert math.isinf(float(ref[0]))  # exp(12) = 162755 overflows fp16, as in PyTorch's composite
    assert float(ref[1]) == pytest.approx(math.log(2), rel=1e-3) and float(ref[2]) == pytest.approx(3.0486, rel=1e-3)
    ref = _ref(op, dict(p, dtype="fp32"), x, t)  # fp32 does not overflow there
    assert float(ref[0]) == pytest.approx(math.log1p(math.exp(12)), rel=1e-6)
    assert math.isinf(float(_ref(op, dict(p, dtype="fp16", reduction=1), x.half(), t.half())))
    # PyTorch itself (fp16 on the CPU) agrees on the infinity
    assert math.isinf(float(torch.ops.aten.soft_margin_loss(x.half(), t.half(), 0)[0]))


def test_activation_backward_reference_values() -> None:
    g = torch.tensor([2.0, 2.0, 2.0, 2.0])
    x = torch.tensor([0.0, 30.0, -30.0, 1.0])
    op = ROWS["log_sigmoid_backward"]
    p = dict(shape=[4], dtype="fp32")
    ref = _ref(op, p, g, x, torch.full((4,), 123.0))  # the buffer is ignored (CUDA semantics)
    assert ref[0] == 1.0 and float(ref[1]) < 1e-12 and ref[2] == 2.0
    assert float(ref[3]) == pytest.approx(2 / (1 + math.e), rel=1e-6)
    op = ROWS["mish_backward"]
    ref = _ref(op, p, g, x)
    assert float(ref[0]) == pytest.approx(2 * 0.6, rel=1e-6)  # tanh(log 2) = 0.6, x·s·(1 - t²) = 0
    assert float(ref[1]) == pytest.approx(2.0, rel=1e-6) and abs(float(ref[2])) < 1e-9
    op = ROWS["softplus_backward"]
    ref = _ref(op, dict(p, beta=2.0, threshold=20.0), g, torch.tensor([0.0, 10.0, 10.5, -1.0]))
    assert ref[0] == 1.0 and float(ref[1]) == pytest.approx(2 / (1 + math.exp(-20)), rel=1e-7)
    assert ref[2] == 2.0 and float(ref[3]) == pytest.approx(2 / (1 + math.exp(2)), rel=1e-6)  # x·beta > 20: grad
    op = ROWS["rrelu_with_noise_backward"]
    noise = torch.tensor([0.1, 0.2, 0.25, 0.3])
    xs = torch.tensor([1.0, 0.0, -1.0, -0.0])
    assert _ref(op, dict(p, training=True), g, xs, noise).tolist() == pytest.approx([0.2, 0.4, 0.5, 0.6])
    assert _ref(op, dict(p, training=False), g, xs, noise).tolist() == pytest.approx([2.0, 0.4, 0.4, 0.4])


def test_smooth_l1_backward_reference_values() -> None:
    op = ROWS["smooth_l1_loss_backward"]
    x = torch.tensor([0.25, -3.0, 3.0, 0.0])
    t = torch.zeros(4)
    p = dict(shape=[4], dtype="fp32", reduction=1, beta=0.5)
    # mean: norm = 1/4; g = d/beta inside, ±1 outside; grad_output 0-d
    assert _ref(op, p, torch.tensor(2.0), x, t).tolist() == [0.25, -0.5, 0.5, 0.0]
    assert _ref(op, dict(p, reduction=2), torch.tensor(2.0), x, t).tolist() == [1.0, -2.0, 2.0, 0.0]
    g = torch.tensor([1.0, 2.0, 3.0, 4.0])
    assert _ref(op, dict(p, reduction=0, beta=1.0), g, x, t).tolist() == [0.25, -2.0, 3.0, 0.0]


def test_smooth_l1_beta_zero_held_out_case_has_no_ties() -> None:
    """At d = 0 with beta = 0 PyTorch's CPU (-norm·grad) and CUDA (NaN) kernels disagree: no tie may be drawn."""
    op = ROWS["smooth_l1_loss_backward"]
    for case in op.cases("heldout"):
        if case.params["beta"] == 0.0:
            call = _build(op, case.params, case.seed)
            assert case.params["dtype"] == "fp32" and not bool((call.args[1] == call.args[2]).any())


def test_structural_backward_reference_values() -> None:
    op = ROWS["reflection_pad1d_backward"]
    g = torch.arange(7.0).view(1, 1, 7)  # W = 4, padding (2, 1): j -> i = 2, 1, 0, 1, 2, 3, 2
    ref = _ref(op, dict(shape=[1, 1, 4], dtype="fp32", padding=[2, 1]), g, torch.zeros(1, 1, 4))
    assert ref.flatten().tolist() == [2.0, 1.0 + 3.0, 0.0 + 4.0 + 6.0, 5.0]
    op = ROWS["select_backward"]
    ref = _ref(op, dict(sizes=[2, 3], dim=0, index=-1, dtype="fp32"), torch.tensor([1.0, 2.0, 3.0]))
    assert ref.tolist() == [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]
    assert ROWS["select_backward"].tolerance({}).exact
    op = ROWS["upsample_nearest2d_backward"]
    g = torch.arange(16.0).view(1, 1, 4, 4)
    ref = _ref(op, dict(case=[1, 1, 2, 2, 4, 4], scales=False, dtype="fp32"), g)
    assert ref.flatten().tolist() == [0 + 1 + 4 + 5, 2 + 3 + 6 + 7, 8 + 9 + 12 + 13, 10 + 11 + 14 + 15]
    g = torch.ones(1, 1, 7, 1)  # 3 -> 7 rows: src = floor(oy·3/7) = 0, 0, 0, 1, 1, 2, 2
    assert _ref(op, dict(case=[1, 1, 3, 1, 7, 1], scales=False, dtype="fp32"), g).flatten().tolist() == [3, 2, 2]


def _fwd_map(i: int, o: int, scale: float | None) -> list[int]:
    """PyTorch's CPU mapping (per output index): exact cases, else floor(oy·fp32 scale), clamped."""
    if o == i:
        return list(range(o))
    if o == 2 * i:
        return [k >> 1 for k in range(o)]
    s = torch.tensor(1.0 / scale if scale else i, dtype=torch.float32)
    if not scale:
        s = s / torch.tensor(float(o), dtype=torch.float32)
    return [min(int(torch.floor(torch.tensor(float(k), dtype=torch.float32) * s)), i - 1) for k in range(o)]


def _cuda_map(i: int, o: int, scale: float | None) -> list[int]:
    """PyTorch's CUDA backward mapping (per input index): rows [ceil(iy·s'), ceil((iy+1)·s')), s' in fp32."""
    s = torch.tensor(scale if scale else float(o), dtype=torch.float32)
    if not scale:
        s = s / torch.tensor(float(i), dtype=torch.float32)
    src = [-1] * o
    for iy in range(i):
        lo = min(int(torch.ceil(torch.tensor(float(iy), dtype=torch.float32) * s)), o)
        hi = min(int(torch.ceil(torch.tensor(float(iy + 1), dtype=torch.float32) * s)), o)
        for k in range(lo, hi):
            src[k] = iy
    return src


def test_upsample_cases_map_pixels_alike_on_cpu_and_cuda() -> None:
    """Every case's sizes and scales select the same input pixel for each output pixel under both PyTorch
    formulas, so the fp64 reference does not depend on the verifier's device."""
    op = ROWS["upsample_nearest2d_backward"]
    for tier in ("smoke", "full", "heldout"):
        for p in op.grid(tier):
            _, _, ih, iw, oh, ow = p["case"]
            for i, o in ((ih, oh), (iw, ow)):
                scale = o / i if p["scales"] else None
                assert _fwd_map(i, o, scale) == _cuda_map(i, o, scale), (tier, p)


def test_loss_tolerance_keeps_reduce_dim_one() -> None:
    """aten.md §6b.10: the long-tail losses keep upstream's atol of 1e-4 for mean and sum too (reduce_dim 1)."""
    for name in ("binary_cross_entropy_with_logits", "huber_loss", "margin_ranking_loss", "soft_margin_loss"):
        op = ROWS[name]
        for reduction in (0, 1, 2):
            tol = op.tolerance(dict(reduction=reduction))
            assert tol == Tolerance(reduce_dim=1)
            assert tol.resolve(torch.float32)[:2] == (1e-5, 1e-4)
    assert ROWS["mish_backward"].tolerance({}) == Tolerance()


def test_pytorch_itself_passes_the_fp32_references() -> None:
    """PyTorch's own fp32 CPU result is within tolerance of every row's reference on a smoke-sized fp32 case
    (the references compute the op, not something else)."""
    for name, op in ROWS.items():
        for case in op.cases("smoke"):
            if case.params["dtype"] != "fp32":
                continue
            call = _build(op, case.params, case.seed)
            (exp, *_) = op.reference(case.params, call.clone())
            native = op.fn(*call.args)
            want = exp.value if exp.slot == "return" else exp.value[exp.region].view(native.shape)
            res = compare_values(native, want, exp.tol, atol_extra=exp.atol_extra)
            assert res.ok, (name, case.params, res.message)


def test_costs() -> None:
    huber = ROWS["huber_loss"].cost(dict(shape=[512, 512], dtype="fp16", reduction=1, delta=1.0))
    assert huber.bytes == 2 * 512 * 512 * 2 + 2 and huber.flops == 5 * 512 * 512
    pad = ROWS["reflection_pad1d_backward"].cost(dict(shape=[2, 3, 8], dtype="fp32", padding=[1, 1]))
    assert pad.bytes == (2 * 3 * 10 + 2 * 3 * 8) * 4  # self is not read
    sel = ROWS["select_backward"].cost(dict(sizes=[512, 512], dim=0, index_mode="mid", dtype="bf16"))
    assert sel.bytes == (512 + 512 * 512) * 2 and sel.flops == 0
    lsb = ROWS["log_sigmoid_backward"].cost(dict(shape=[4, 4], dtype="fp32"))
    assert lsb.bytes == 3 * 16 * 4  # grad and self read, result written; buffer ignored


@pytest.mark.parametrize("name", sorted(ROWS))
def test_oracle_passes_the_static_scan(name: str) -> None:
    op = ROWS[name]
    path = SOLUTIONS / op.filename
    assert path.is_file()
    assert scan_file(path, **op.scan_policy()) == []


# -- wrong kernels through the real pipeline ------------------------------------------------------------------
def _mutant(name: str, old: str, new: str) -> str:
    src = (SOLUTIONS / f"aten__{name}.py").read_text()
    assert old in src, f"{name}: the oracle no longer contains {old!r}"
    return src.replace(old, new)


#: one wrong kernel per kind of row: a loss reduction, a rounding point, a pointwise gradient, a scatter into
#: zeros and a resampling index map (each a real Triton kernel, one line changed from the oracle; the padding
#: gather's reflections are checked by hand-computed values above)
MUTANTS = {
    "mean_is_sum": ("binary_cross_entropy_with_logits", "denom = float(n) if reduction == 1 else 1.0",
                    "denom = 1.0", "wrong_result", ""),
    "no_exp_rounding": ("soft_margin_loss", "e = tl.exp(-(a * b)).to(DT).to(a.dtype)", "e = tl.exp(-(a * b))",
                        "wrong_result", "infinities differ"),
    "sigmoid_of_x": ("log_sigmoid_backward", "s = tl.where(x < 0.0, 1.0, z) / (1.0 + z)",
                     "s = tl.where(x < 0.0, z, 1.0) / (1.0 + z)", "wrong_result", ""),
    "slice_only": ("select_backward", "tl.store(o_ptr + lin, v.to(o_ptr.dtype.element_ty), mask=mask)",
                   "tl.store(o_ptr + lin, v.to(o_ptr.dtype.element_ty), mask=hit)", "wrong_result",
                   "got nan, expected 0.0"),  # the unwritten zeros still hold the allocation poison
    "round_not_floor": ("upsample_nearest2d_backward",
                        "r = tl.minimum(tl.floor(o.to(tl.float32) * scale).to(tl.int32), I - 1)",
                        "r = tl.minimum(tl.floor(o.to(tl.float32) * scale + 0.5).to(tl.int32), I - 1)",
                        "wrong_result", ""),
}


def _run(tmp_path: Path, name: str, source: str) -> dict:
    op = get_operator(f"aten::{name}")
    sub = tmp_path / "sub" / op.filename
    sub.parent.mkdir(parents=True, exist_ok=True)
    sub.write_text(textwrap.dedent(source))
    return Verifier(JobSpec(op, sub, "smoke"), PLATFORM, None if PLATFORM.interpreter else 0, tmp_path / "job",
                    Settings(import_timeout_s=120.0, case_timeout_s=120.0)).run()


@pytest.mark.slow
@pytest.mark.parametrize("what", sorted(MUTANTS))
def test_wrong_kernels_fail(tmp_path: Path, what: str) -> None:
    name, old, new, cls, needle = MUTANTS[what]
    rec = _run(tmp_path, name, _mutant(name, old, new))
    assert (rec["status"], rec["failure_class"]) == ("failed", cls), rec["first_failure"]
    assert needle in rec["first_failure"]["message"], rec["first_failure"]["message"]
