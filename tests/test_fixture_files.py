"""The patched-oracle fixtures (tests/fixture_files.py): every patch still applies to its oracle, and
a patch that no longer applies fails loudly instead of evaluating the unpatched oracle."""
from __future__ import annotations

from pathlib import Path

import pytest
from fixture_files import (
    PATCH_SUFFIX,
    PatchDoesNotApply,
    fixture_name,
    fixture_op,
    oracle_of,
    submission_text,
    write_submission,
)

from kernelgenbench.suite.registry import get_operator
from kernelgenbench.verify.scan import scan_source

TESTS = Path(__file__).parent
PATCHES = sorted([*TESTS.glob(f"*/*{PATCH_SUFFIX}"), *(TESTS.parent / "bench" / "redteam").glob(f"*{PATCH_SUFFIX}")])


def test_there_are_patched_fixtures() -> None:
    assert {p.parent.name for p in PATCHES} == {"bad", "good", "bad_timing", "redteam"}


@pytest.mark.parametrize("path", PATCHES, ids=fixture_name)
def test_patch_applies_and_the_submission_passes_l1(path: Path) -> None:
    """Each patched fixture is a whole submission that differs from its oracle and passes L1 (every
    one is caught later, or is legal)."""
    text = submission_text(path)
    assert text != oracle_of(path).read_text()
    op = get_operator(fixture_op(path))
    findings = scan_source(text, filename=path.name, **op.scan_policy())
    assert not findings, [f.message for f in findings]


def test_a_patch_that_no_longer_applies_fails_loudly(tmp_path: Path) -> None:
    stale = tmp_path / f"stale__aten__neg{PATCH_SUFFIX}"
    stale.write_text('"""A patch whose text the oracle no longer has."""\n\n'
                     'SUBSTITUTIONS = [("def neg_no_such_wrapper(", "def neg_other(")]\n')
    with pytest.raises(PatchDoesNotApply, match="occurs 0 time"):
        write_submission(stale, tmp_path / "aten__neg.py")
    assert not (tmp_path / "aten__neg.py").exists()
