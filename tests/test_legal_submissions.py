"""Odd but legal submissions must pass: autotuned/heuristic kernels, config-dependent grids.

The files live in tests/good/: whole submissions or patched oracles (tests/fixture_files.py)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from kernelgenbench.platforms import PROFILES
from kernelgenbench.run.job import JobSpec, Settings, Verifier
from kernelgenbench.suite.registry import get_operator

from fixture_files import fixture_name, fixture_op, fixtures, write_submission

GOOD = Path(__file__).parent / "good"
PLATFORM = PROFILES[os.environ.get("KGB_TEST_PLATFORM", "interpreter")]


@pytest.mark.slow
@pytest.mark.parametrize("path", fixtures(GOOD), ids=fixture_name)
def test_legal_submission_passes(tmp_path: Path, path: Path) -> None:
    op = get_operator(fixture_op(path))
    sub = write_submission(path, tmp_path / op.filename)
    for tier in ("smoke", "heldout") if not PLATFORM.interpreter else ("smoke",):
        rec = Verifier(JobSpec(op, sub, tier), PLATFORM, None if PLATFORM.interpreter else 0, tmp_path / tier,
                       Settings()).run()
        assert rec["status"] == "passed", (tier, rec["failure_class"], rec["first_failure"])
        assert rec["anti_hack"]["L2"]["ok"] and rec["anti_hack"]["L2"]["checked"] >= 1
