"""The accumulation bound (README "Tolerance and precision policy"; issue 12, class 4): honest fp32
accumulation in any order passes, fp32 results from TF32- or fp16-rounded operands and fp16
accumulation fail, NaN/inf handling is the plain comparison's, and the rows that reduce carry it."""
from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.suite.common import generator
from kernelgenbench.suite.compare import compare_slot, compare_values
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.spec import (
    ACCUMULATION_LAMBDA,
    Tolerance,
    accumulation_allowance,
    accumulation_rule,
    written_expected,
)

F32, F64 = torch.float32, torch.float64


def _operands(m: int, n: int, k: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(m, k, generator=g), torch.randn(k, n, generator=g)


def _judge(a: torch.Tensor, b: torch.Tensor, got: torch.Tensor, out: torch.dtype = F32):
    ref = (a.double() @ b.double()).to(out)
    tol, extra = accumulation_rule(out, a.abs().double() @ b.abs().double(), a.shape[1], a.shape[1])
    return compare_values(got.to(out), ref, tol, atol_extra=extra)


def _seq(a: torch.Tensor, b: torch.Tensor, fma: bool = False, acc: torch.dtype = F32) -> torch.Tensor:
    """Left to right over K, every step an fp32 operation (rounded to ``acc`` after each step)."""
    out = torch.zeros(a.shape[0], b.shape[1])
    for k in range(a.shape[1]):
        if fma:
            out = (out.double() + a[:, k, None].double() * b[None, k, :].double()).float()
        else:
            out = out + a[:, k, None] * b[None, k, :]
        if acc != F32:
            out = out.to(acc).float()
    return out


def _blocked(a: torch.Tensor, b: torch.Tensor, bk: int) -> torch.Tensor:
    """fp32 block products (torch's fp32 matmul per block) added to an fp32 accumulator."""
    out = torch.zeros(a.shape[0], b.shape[1])
    for s in range(0, a.shape[1], bk):
        out = out + a[:, s:s + bk] @ b[s:s + bk]
    return out


def _sorted(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The worst order constructed: each element's products summed largest first (partial sums grow
    to half of sum |a_i b_i|)."""
    p = torch.sort(a[:, None, :] * b.t()[None, :, :], dim=-1, descending=True).values
    out = torch.zeros(p.shape[:-1])
    for k in range(p.shape[-1]):
        out = out + p[..., k]
    return out


def _tf32(x: torch.Tensor) -> torch.Tensor:
    return (x.contiguous().view(torch.int32) & ~0x1FFF).view(F32)


@pytest.mark.parametrize("k", [64, 1024])
def test_honest_fp32_orders_pass_with_a_wide_margin(k: int) -> None:
    a, b = _operands(8, 12, k)
    for name, got in (("seq", _seq(a, b)), ("fma", _seq(a, b, fma=True)), ("blocked16", _blocked(a, b, 16)),
                      ("split4", _blocked(a, b, -(-k // 4))), ("blas", a @ b), ("sorted", _sorted(a, b))):
        res = _judge(a, b, got)
        assert res.ok and res.ratio < 0.25, (name, res.ratio, res.message)
        assert "accumulation bound" in res.rule


@pytest.mark.parametrize("k", [64, 1024])
def test_reduced_precision_fp32_operands_fail(k: int) -> None:
    a, b = _operands(8, 12, k, seed=1)
    for name, (ra, rb) in (("tf32", (_tf32(a), _tf32(b))),
                           ("fp16", (a.half().float(), b.half().float())),
                           ("bf16", (a.bfloat16().float(), b.bfloat16().float()))):
        res = _judge(a, b, _seq(ra, rb, fma=True))
        assert not res.ok and res.ratio > 2, (name, res.ratio)
        assert "outside tolerance" in res.message and "x its bound" in res.message
        # the spec's atol = 1e-4 x K alone let the same results pass from K ~ 256 on
        if k >= 1024 and name != "bf16":
            assert compare_values(_seq(ra, rb, fma=True), (a.double() @ b.double()).float(), Tolerance(reduce_dim=k)).ok


def test_fp16_inputs_accumulate_in_fp32() -> None:
    a, b = _operands(8, 12, 1024, seed=2)
    a, b = a.half().float(), b.half().float()  # fp16 inputs, exact in fp32
    assert _judge(a, b, _seq(a, b, fma=True), out=torch.float16).ok
    res = _judge(a, b, _seq(a, b, acc=torch.float16), out=torch.float16)
    assert not res.ok, res.ratio


def test_allowance_formula_and_cap() -> None:
    s = torch.tensor([0.0, 1.0, 1e6], dtype=F64)
    got = accumulation_allowance(s, 100)
    want = ACCUMULATION_LAMBDA * 10 * 2.0 ** -24 * s + 100 * torch.finfo(F32).tiny
    assert torch.equal(got, want)
    tol, extra = accumulation_rule(F32, s, 100, 100)
    assert tol.accumulate == "fp32" and tol.reduce_dim == 100
    assert extra.tolist()[2] == pytest.approx(1e-2)  # capped by the spec's 1e-4 x reduce_dim
    # per-element counts (scans) broadcast
    n = torch.arange(1, 4, dtype=F64)
    assert accumulation_allowance(torch.ones(2, 3, dtype=F64), n).shape == (2, 3)
    # NaN sums (a NaN operand) give an unbounded allowance: such elements are judged by the NaN rules
    assert accumulation_allowance(torch.tensor([math.nan], dtype=F64), 4).tolist() == [math.inf]


def test_integers_keep_the_spec_rule_and_fp64_takes_the_fp64_bound() -> None:
    tol, extra = accumulation_rule(torch.int64, None, 10, 10)
    assert extra is None and tol.resolve(torch.int64)[2] == "exact"
    tol, extra = accumulation_rule(F64, torch.ones(3, dtype=F64), 71, 71)
    assert tol.accumulate == "fp64" and tol.rtol == 8 * 2.0 ** -53
    # twice the fp64 bound: the fp64 reference rounds too
    assert extra.tolist() == pytest.approx([2 * ACCUMULATION_LAMBDA * math.sqrt(71) * 2.0 ** -53] * 3)
    # complex: the error's magnitude over two components of 2n real products (4n under the root)
    _, c64 = accumulation_rule(torch.complex64, torch.ones(1, dtype=F64), 16, 16)
    assert c64.item() == pytest.approx(ACCUMULATION_LAMBDA * 8 * 2.0 ** -24, rel=1e-6)


def _judge64(a: torch.Tensor, b: torch.Tensor, got: torch.Tensor):
    """An fp64 or complex128 result judged as the cuBLAS D/Z rows judge it: against an fp64 product."""
    ref = a @ b
    tol, extra = accumulation_rule(ref.dtype, a.abs() @ b.abs(), a.shape[1], a.shape[1])
    return compare_values(got, ref, tol, atol_extra=extra)


@pytest.mark.parametrize("k", [64, 1024])
def test_fp64_results_pass_in_fp64_and_fail_in_fp32_or_tf32(k: int) -> None:
    """Red team 2026-12-05 (tests/bad/fp32_for_fp64): under the spec's rtol 1e-5 an fp64 GEMM computed in fp32
    passed every tier. Honest fp64 orders pass the fp64 bound with a margin; fp32 and TF32 arithmetic fail."""
    g = torch.Generator().manual_seed(7)
    a, b = torch.randn(8, 12, k, generator=g, dtype=F64)[:, 0, :], torch.randn(k, 12, generator=g, dtype=F64)
    seq = torch.zeros(8, 12, dtype=F64)
    for i in range(k):
        seq = seq + a[:, i, None] * b[None, i, :]
    p = torch.sort(a[:, None, :] * b.t()[None, :, :], dim=-1, descending=True).values
    worst = torch.zeros(8, 12, dtype=F64)
    for i in range(k):
        worst = worst + p[..., i]
    blocked = sum(a[:, s:s + 16] @ b[s:s + 16] for s in range(0, k, 16))
    for name, got in (("seq", seq), ("sorted", worst), ("blocked16", blocked)):
        res = _judge64(a, b, got)
        assert res.ok and res.ratio < 0.5, (name, res.ratio, res.message)
    for name, got in (("fp32", (a.float() @ b.float()).double()),
                      ("tf32", (_tf32(a.float()) @ _tf32(b.float())).double())):
        res = _judge64(a, b, got)
        assert not res.ok and res.ratio > 10, (name, res.ratio)
    # the spec's rule (rtol 1e-5) let the fp32 computation pass
    assert compare_values((a.float() @ b.float()).double(), a @ b, Tolerance(reduce_dim=k)).ok


@pytest.mark.parametrize("k", [128, 256])
def test_complex64_results_fail_from_tf32_operands(k: int) -> None:
    """Red team 2026-12-05 (tests/bad/tf32_complex): Cgemm with TF32-rounded operands passed the spec's rule at
    K = 128 and 256. complex64 arithmetic in any order passes the complex bound; TF32 operands fail it."""
    g = torch.Generator().manual_seed(3)
    a = torch.complex(torch.randn(8, k, generator=g), torch.randn(8, k, generator=g))
    b = torch.complex(torch.randn(k, 12, generator=g), torch.randn(k, 12, generator=g))
    ref = a.to(torch.complex128) @ b.to(torch.complex128)
    tol, extra = accumulation_rule(torch.complex64, a.abs().double() @ b.abs().double(), k + 2, k)

    def judge(got: torch.Tensor):
        return compare_values(got, ref.to(torch.complex64), tol, atol_extra=extra)

    seq = torch.zeros(8, 12, dtype=torch.complex64)
    for i in range(k):
        seq = seq + a[:, i, None] * b[None, i, :]
    for name, got in (("blas", a @ b), ("seq", seq)):
        res = judge(got)
        assert res.ok and res.ratio < 0.5, (name, res.ratio, res.message)

    def tf32c(x: torch.Tensor) -> torch.Tensor:
        return torch.complex(_tf32(x.real.contiguous()), _tf32(x.imag.contiguous()))

    res = judge(tf32c(a) @ tf32c(b))
    assert not res.ok and res.ratio > 2, res.ratio


def test_rule_needs_its_allowance_and_the_platform_scale_multiplies_it() -> None:
    e = torch.tensor([1.0, 2.0])
    tol = Tolerance(reduce_dim=4, accumulate="fp32")
    with pytest.raises(ValueError, match="needs its elementwise allowance"):
        compare_values(e, e, tol)
    extra = torch.tensor([1e-3, 1e-3], dtype=F64)
    a = e + torch.tensor([0.0, 1.5e-3])
    assert not compare_values(a, e, tol, atol_extra=extra).ok
    res = compare_values(a, e, tol, 2.0, atol_extra=extra)
    assert res.ok and "x2 (platform)" in res.rule


def test_nan_and_inf_handling_is_unchanged() -> None:
    e = torch.tensor([math.nan, math.inf, -math.inf, 1.0])
    tol = Tolerance(reduce_dim=8, accumulate="fp32")
    extra = torch.full((4,), math.inf, dtype=F64)
    extra[3] = 1e-6
    assert compare_values(e.clone(), e, tol, atol_extra=extra).ok
    assert "NaN positions differ" in compare_values(torch.tensor([0.0, math.inf, -math.inf, 1.0]), e, tol,
                                                    atol_extra=extra).message
    assert "infinities differ" in compare_values(torch.tensor([math.nan, -math.inf, -math.inf, 1.0]), e, tol,
                                                 atol_extra=extra).message
    assert not compare_values(torch.tensor([math.nan, math.inf, -math.inf, 1.1]), e, tol, atol_extra=extra).ok


def test_written_output_carries_the_allowance_in_storage_order() -> None:
    out = torch.full((4, 3), math.nan).t()  # a transposed out= view
    ref = torch.arange(12.0).reshape(3, 4)
    extra = torch.arange(12, dtype=F64).reshape(3, 4) * 1e-3
    exp = written_expected("arg.out", out, ref, Tolerance(reduce_dim=2, accumulate="fp32"), atol_extra=extra)
    got = out.clone()
    got.copy_(ref + extra.float() * 0.9)
    assert compare_slot(exp, got).ok
    got[2, 3] += 0.02  # beyond its own 0.011
    assert not compare_slot(exp, got).ok


CPU = torch.device("cpu")


@pytest.mark.parametrize("op_id,tier,index", [
    ("aten::mm", "smoke", 3), ("aten::bmm", "smoke", 3), ("aten::linear", "smoke", 3), ("aten::matmul", "smoke", 4),
    ("cublas::cublasSgemm_v2", "smoke", 1), ("aten::sum", "smoke", 4), ("aten::mean", "smoke", 3),
    ("aten::cumsum", "smoke", 4)])
def test_rows_judge_fp32_results_by_the_bound(op_id: str, tier: str, index: int) -> None:
    """Every reducing row's fp32 case carries the rule; the reference itself passes, and the same
    result computed from fp16-rounded inputs fails."""
    op = get_operator(op_id)
    case = op.cases(tier)[index]
    call = op.build(case.params, CPU, generator(CPU, case.seed))
    expected = [e for e in op.reference(case.params, call.clone()) if e.value is not None]
    assert expected and all(e.tol.accumulate == "fp32" and e.atol_extra is not None for e in expected)
    rounded = call.clone()
    for x in rounded.args:
        if isinstance(x, torch.Tensor) and x.dtype == F32:
            x.copy_(x.half().float())
    cheat = op.reference(case.params, rounded)
    for e, c in zip(expected, (c for c in cheat if c.value is not None)):
        assert compare_slot(e, e.value.clone()).ok
        assert "accumulation bound" in compare_slot(e, e.value.clone()).rule
        assert not compare_slot(e, c.value).ok, (op_id, e.slot)


# -- through the real pipeline (interpreter): the class-4 hole at K = 1024 -------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("what", ["fp16_operands", "tf32_dot"])
def test_reduced_precision_mm_passed_the_spec_atol_and_fails_the_bound(tmp_path, monkeypatch, what: str) -> None:
    """The bad fixtures on the full tier's 15x160x1024 fp32 case (the red team's): under the spec's
    atol = 1e-4 x K they pass; under the accumulation bound they fail as wrong_result (secret inputs).

    The spec-atol run uses fixed inputs (``l2_salt=1``; the public seed, salt 0, is one of the draws below):
    the margin is thin for tf32_dot, whose truncated operands err by 0.89 x atol at the median draw and
    beyond it on 14 of 200 draws (measured on the CPU over seeds 0-199; fp16_operands: 0.33 x median,
    0.42 x worst), so with secret inputs the claim held only most of the time (CI failed on one such
    draw). The claim is "the spec's atol lets the cheat through", which one passing draw shows."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from fixture_files import find_fixture, write_submission

    from kernelgenbench.platforms import PROFILES
    from kernelgenbench.run.job import JobSpec, Settings, Verifier
    from kernelgenbench.suite.aten import shape

    op = get_operator("aten::mm")
    case = dict(m=15, n=160, k=1024, dtype="fp32")
    assert case in [{k: v for k, v in p.items() if k != "b_column_major"} for p in op.grid("full")]
    monkeypatch.setitem(op._grids, "smoke", [case])
    sub = write_submission(find_fixture(Path(__file__).parent / "bad", what), tmp_path / op.filename)

    def run(name: str, **kw) -> dict:
        return Verifier(JobSpec(op, sub, "smoke"), PROFILES["interpreter"], None, tmp_path / name,
                        Settings(**kw)).run()

    rec = run("bound")
    assert rec["failure_class"] == "wrong_result", rec["first_failure"]
    assert "accumulation bound" in rec["first_failure"]["message"]
    monkeypatch.setattr(shape, "accumulation_rule", lambda dt, s, n, rd: (Tolerance(reduce_dim=rd), None))
    rec = run("spec_atol", l2_salt=1)
    assert rec["status"] == "passed", rec["first_failure"]


def test_triangular_solve_bound_rejects_fp16_inputs_where_reduce_dim_is_long() -> None:
    """cublas::cublasStrsv_v2 with a long reduce_dim (atol 1e-4 x n exceeds the solution itself): an
    honest fp32 substitution passes, a solve from fp16-rounded inputs no longer does."""
    from kernelgenbench.suite.cublas.decl import mat_view

    op = get_operator("cublas::cublasStrsv_v2")
    p = dict(n=512, incx=1, uplo=1, trans=1, diag=0, data="dominant", reduce_dim=512)
    call = op.build(p, CPU, generator(CPU, 7))
    exp = op.reference(p, call.clone())[0]
    assert exp.tol.accumulate == "fp32"
    tri = torch.triu(mat_view(call.args[4], 512, 512, 512)).t()  # op(A) = A^T of the upper triangle
    x = call.args[6]

    def judged(t: torch.Tensor, rhs: torch.Tensor):
        z = torch.linalg.solve_triangular(t, rhs[:, None], upper=False)[:, 0]
        return compare_slot(exp, z.float())

    honest = judged(tri, x.clone())
    assert honest.ok and honest.ratio < 0.25, honest
    cheat = judged(tri.half().float(), x.half().float())
    assert not cheat.ok and cheat.ratio > 2, cheat.ratio
    assert compare_values(torch.linalg.solve_triangular(tri.half().float(), x.half().float()[:, None],
                                                        upper=False)[:, 0],
                          exp.value, Tolerance(reduce_dim=512)).ok  # the spec's atol alone passed it
