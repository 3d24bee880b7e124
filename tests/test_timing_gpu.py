"""Timing cheats (GPU only: the CPU interpreter does not time): each file in tests/bad_timing/, named
``<what>__<source>__<op>.py`` (or ``.patch.py``, an oracle patched: tests/fixture_files.py), passes
the correctness runs and L1-L3 and misbehaves only while timed; the full tier's timing must fail it
with its class. Run with ``KGB_TEST_PLATFORM=cuda``."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from fixture_files import fixture_kind, fixture_name, fixture_op, fixtures, write_submission

from kernelgenbench.platforms import PROFILES
from kernelgenbench.run.job import JobSpec, Settings, Verifier
from kernelgenbench.suite.registry import get_operator

BAD = Path(__file__).parent / "bad_timing"
PLATFORM = PROFILES[os.environ.get("KGB_TEST_PLATFORM", "interpreter")]

#: file stem prefix -> expected failure class
EXPECTED = {
    "grad_flip": "profile",         # red team 33: leaves torch.no_grad() entered after its warm-up calls, so that the
                                    # compiled vLLM baseline compiles in a timed block (the eager bar); the child's
                                    # global-state check fails the call (sandbox/drive.py global_state_change)
    "retime_memo": "profile",       # red team 33: the same flip, then a memo of its own results answering a retime
                                    # on values already drawn; nothing is timed again now, and the flip fails
    "timed_noop": "wrong_result",   # detects timing (unpoisoned allocation), launches a no-op when timed
    "partial_skip": "wrong_result",  # timed_noop on about 3 of 4 timed calls at random: the fastest repetitions are
                                     # judged (Settings.timing_fastest), and they are skipped ones (red team 32)
    "finalizer_defer": "profile",   # when timed, leaves the work to a finalizer attached to the input tensor: the
                                    # timed calls' L3 check of Python attributes on the call's tensors (red team 28)
                                    # catches it first (H100 check at 393f58f; timer_tampering before it)
    "gc_partial": "profile",        # red team 34: when timed, leaves the work to a cycle whose __del__ is a C callable
                                    # (functools.partial over maps of tensor methods), freed by the collection between
                                    # timed blocks; the collector's guard records ops of any finalizer but PyTorch's,
                                    # Triton's and the harness's own (sandbox/collector.py _submission_frame)
}


@pytest.mark.slow
@pytest.mark.skipif(PLATFORM.interpreter, reason="timing runs on GPUs only")
@pytest.mark.parametrize("path", fixtures(BAD), ids=fixture_name)
def test_timing_cheat_fails_with_its_class(tmp_path: Path, path: Path) -> None:
    what = fixture_kind(path)
    op = get_operator(fixture_op(path))
    sub = write_submission(path, tmp_path / op.filename)
    # the CLI's default warm-up (25 ms): a cheat tuned to the defaults must be caught at the defaults. (gc_partial's
    # job passed on an H100 at 26922af with 5 ms and at 9530296 with 25 ms: it cheated on fp32 only, which the full
    # tier of rms_norm never times; it now cheats on every dtype)
    rec = Verifier(JobSpec(op, sub, "full"), PLATFORM, 0, tmp_path / "job", Settings(reps=10, warmup_ms=25)).run()
    assert rec["failure_class"] == EXPECTED[what], (rec["failure_class"], rec["first_failure"])
    assert "timed" in rec["first_failure"]["message"], rec["first_failure"]


def test_every_timing_fixture_has_an_expected_class() -> None:
    assert {fixture_kind(p) for p in fixtures(BAD)} == set(EXPECTED)


@pytest.mark.slow
@pytest.mark.skipif(PLATFORM.interpreter, reason="timing runs on GPUs only")
def test_an_honest_oracle_is_timed_and_records_where_the_time_went(tmp_path: Path) -> None:
    """The full tier of an oracle passes and each timed case records its harness cost (CaseRecord.harness_ms):
    every phase, the child's phases inside the verifier's wall clock of the command, the device time within it."""
    op = get_operator("aten::cumsum")
    sub = Path(__file__).resolve().parents[1] / "solutions" / op.filename
    rec = Verifier(JobSpec(op, sub, "full"), PLATFORM, 0, tmp_path / "job", Settings(reps=10, warmup_ms=5)).run()
    assert rec["status"] == "passed", rec["first_failure"]
    timed = [c for c in rec["cases"] if c.get("candidate_ms")]
    assert timed
    for c in timed:
        h = c["harness_ms"]
        # prep, made (the prepare command: warm-up sets and the baseline, untimed), then the timed command and
        # the child's phases of its handler (load and baseline were spent by the prepare command, load partly by
        # the timed one), check (the judged repetitions), device (the median timed repetition's device time)
        assert set(h) == {"prep", "made", "load", "baseline", "warmup", "build", "blocks", "save", "collect",
                          "handler", "check", "command", "device"}, h
        assert all(v >= 0 for v in h.values()), h
        # the timed command's own phases (since e36ae43 the checked repetitions are written by a save command of
        # their own, after the exclusive hold: "save" is not inside the timed command's handler)
        inside = h["collect"] + h["warmup"] + h["build"] + h["blocks"]
        assert inside <= h["handler"] * 1.01 + 1, h
        assert h["handler"] <= h["command"] * 1.01 + 1, h
        assert h["load"] + h["baseline"] <= (h["made"] + h["command"]) * 1.01 + 1, h
        assert h["device"] <= h["blocks"] * 1.05 + 0.05, h


@pytest.mark.slow
@pytest.mark.skipif(PLATFORM.interpreter, reason="timing runs on GPUs only")
def test_a_host_tensor_of_a_case_reaches_the_timed_candidate_where_a_case_load_puts_it(tmp_path: Path) -> None:
    """vllm::swap_blocks builds its block_mapping on the host; a case's inputs reach the child through
    torch.load(map_location=device), so its correctness runs see the mapping on the device, and so must its timed
    repetitions and warm-up sets, which the child builds itself (sandbox/child.py placed_as_loaded). At 76a872c the
    oracle passed its 54 correctness cases on an H100 and failed its first timed case: "Pointer argument (at 2)
    cannot be accessed from Triton (cpu tensor?)". Shard 0 of 9: cases 0, 9, ..., 45, three of them timed."""
    op = get_operator("vllm::swap_blocks")
    sub = Path(__file__).resolve().parents[1] / "solutions" / op.filename
    rec = Verifier(JobSpec(op, sub, "full", shard=(0, 9)), PLATFORM, 0, tmp_path / "job",
                   Settings(reps=10, warmup_ms=5)).run()
    assert rec["status"] == "passed", rec["first_failure"]
    assert len([c for c in rec["cases"] if c.get("candidate_ms")]) == 3
