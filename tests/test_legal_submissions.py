"""Odd but legal submissions must pass: autotuned/heuristic kernels, config-dependent grids."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from kernelgenbench.platforms import PROFILES
from kernelgenbench.run.job import JobSpec, Settings, Verifier
from kernelgenbench.suite.registry import get_operator

GOOD = Path(__file__).parent / "good"
PLATFORM = PROFILES[os.environ.get("KGB_TEST_PLATFORM", "interpreter")]


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(GOOD.glob("*.py")), ids=lambda p: p.stem)
def test_legal_submission_passes(tmp_path: Path, path: Path) -> None:
    op = get_operator(path.stem.split("__", 1)[1].replace("__", "::", 1))
    sub = tmp_path / op.filename
    shutil.copy(path, sub)
    for tier in ("smoke", "heldout") if not PLATFORM.interpreter else ("smoke",):
        rec = Verifier(JobSpec(op, sub, tier), PLATFORM, None if PLATFORM.interpreter else 0, tmp_path / tier,
                       Settings()).run()
        assert rec["status"] == "passed", (tier, rec["failure_class"], rec["first_failure"])
        assert rec["anti_hack"]["L2"]["ok"] and rec["anti_hack"]["L2"]["checked"] >= 1
