"""Odd but legal submissions must pass: autotuned/heuristic kernels, config-dependent grids.

The files live in tests/good/: whole submissions or patched oracles (tests/fixture_files.py)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from fixture_files import find_fixture, fixture_kind, fixture_name, fixture_op, fixtures, write_submission

from kernelgenbench.platforms import PROFILES
from kernelgenbench.run.job import JobSpec, Settings, Verifier
from kernelgenbench.suite.registry import get_operator

GOOD = Path(__file__).parent / "good"
#: Fixtures whose kernels hit a limit of the CPU interpreter on some cases (status ``unsupported`` there).
INTERPRETER_LIMITED = {"interp_limit",
                       # (tp42) PTX through tl.inline_asm_elementwise on its float32 cases: Triton's interpreter raises
                       # NotImplementedError there; a GPU judges every case (unverified on a GPU by tp42: the gate's)
                       "inline_asm"}
PLATFORM = PROFILES[os.environ.get("KGB_TEST_PLATFORM", "interpreter")]

#: Honest submissions rejected today (false rejections): each stays a fixture that should pass, marked xfail
#: (strict: when a fix admits it, the mark must go). The fixture's docstring says what it does.
XFAIL = {
    "ptr_stack": "L1 rule raw-storage: stacking the caches' data_ptr() values into an address tensor (vLLM's own "
                 "copy_blocks) is refused; the legal one-launch route is a tuple of tensors (list_tuple_launch)",
}

#: Fixtures legal on the smoke tier only (their docstrings say why): judged on the smoke tier on GPUs too.
SMOKE_ONLY = {
    "ptr_host_addresses": "three host reads and three launch scalars per batch: the held-out tier's batchCount=64 "
                          "exceeds L3's budgets (140 host-built elements of 64), as the fixture says; measured on "
                          "an H100 at 5aa46ce",
}

#: Honest fixtures whose kernels Triton itself cannot compile for a GPU: the truthful verdict is compile_error
#: (Triton's, not the harness's), on every platform since the interpreter compiles every launched kernel for sm_90 too
#: (sandbox/gpu_compile.py), asserted so that it is never reported as a cheat, with Triton's message.
GPU_COMPILE_ERROR = {
    "constexpr_combine": "Triton 3.6's compiler passes a constexpr combine function to call_JitFunction unwrapped "
                         "(AttributeError: 'constexpr' object has no attribute 'fn'; gate at ae9b2b6, H100)",
}


def _good_cases():
    for path in fixtures(GOOD):
        what = fixture_kind(path)
        marks = [pytest.mark.xfail(reason=XFAIL[what], strict=True)] if what in XFAIL else []
        yield pytest.param(path, id=fixture_name(path), marks=marks)


@pytest.mark.slow
@pytest.mark.parametrize("path", list(_good_cases()))
def test_legal_submission_passes(tmp_path: Path, path: Path) -> None:
    op = get_operator(fixture_op(path))
    sub = write_submission(path, tmp_path / op.filename)
    gpu_tiers = ("smoke",) if fixture_kind(path) in SMOKE_ONLY else ("smoke", "heldout")
    for tier in gpu_tiers if not PLATFORM.interpreter else ("smoke",):
        rec = Verifier(JobSpec(op, sub, tier), PLATFORM, None if PLATFORM.interpreter else 0, tmp_path / tier,
                       Settings()).run()
        # a kernel that hits a limit of the CPU interpreter on some cases is never failed there, nor passed: the
        # cases its kernels made unjudgeable could be cases it chose to skip (run/job.py); a GPU judges it all
        want = "unsupported" if PLATFORM.interpreter and fixture_kind(path) in INTERPRETER_LIMITED else "passed"
        if fixture_kind(path) in GPU_COMPILE_ERROR:
            assert (rec["status"], rec["failure_class"]) == ("failed", "compile_error"), rec["first_failure"]
            assert "'constexpr' object has no attribute 'fn'" in rec["first_failure"]["message"]
            continue
        assert rec["status"] == want, (tier, rec["failure_class"], rec["first_failure"], rec["unsupported_reason"])
        assert rec["failure_class"] is None
        assert rec["anti_hack"]["L2"]["ok"] and rec["anti_hack"]["L2"]["checked"] >= 1


@pytest.mark.slow
def test_a_kernel_result_read_back_and_rewrapped_is_recorded_as_triton_derived(tmp_path: Path) -> None:
    """Issue 11 item 2.1: the full reductions of tests/good/host_scalar__aten__sum return the kernel's
    value read back with .item(); their ghost replays pass from the replayed Triton-derived reads, which
    the L2 record counts and names instead of failing the job as ghost."""
    path = find_fixture(GOOD, "host_scalar")
    op = get_operator(fixture_op(path))
    sub = write_submission(path, tmp_path / op.filename)
    rec = Verifier(JobSpec(op, sub, "smoke"), PLATFORM, None if PLATFORM.interpreter else 0, tmp_path / "job",
                   Settings()).run()
    l2 = rec["anti_hack"]["L2"]
    assert rec["status"] == "passed", (rec["failure_class"], rec["first_failure"])
    assert l2["triton_derived_reads"] >= 1 and l2["passed_from_triton_reads"] == ["smoke/0"], l2
    assert l2["cases"]["smoke/0"]["ghost"] == "passed from Triton-derived host reads", l2["cases"]
    assert not l2["passed_without_triton"]
