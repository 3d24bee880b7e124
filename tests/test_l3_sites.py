"""L3's dispatch-trace verdicts name where in the submission's own file each offending ATen op first ran
(``sandbox/dispatch.py`` ``note_site``, ``verify/profile.py`` ``where_in_submission``): the wrapper's line for a
case, the module's line for the import. Information for the author; the verdict is unchanged."""

from __future__ import annotations

from pathlib import Path

from kernelgenbench.platforms import PROFILES
from kernelgenbench.run.job import JobSpec, Settings, Verifier
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.verify.profile import TraceVerdict, where_in_submission

KERNEL = '''import torch
import triton
import triton.language as tl


@triton.jit
def _neg(x, y, n, B: tl.constexpr):
    i = tl.program_id(0) * B + tl.arange(0, B)
    m = i < n
    tl.store(y + i, -tl.load(x + i, mask=m), mask=m)


def _launch(self):
    y = torch.empty_like(self)
    if self.numel():
        _neg[(triton.cdiv(self.numel(), 256),)](self, y, self.numel(), B=256)
    return y


def _scale(t):
    return t * 1{import_line}


def neg(self):
    return _scale(_launch(self))


def neg_out(self, *, out):
    out.copy_(_launch(self))
    return out
'''


def _run(tmp_path: Path, source: str) -> dict:
    op = get_operator("aten::neg")
    sub = tmp_path / "sub" / op.filename
    sub.parent.mkdir()
    sub.write_text(source)
    return Verifier(JobSpec(op, sub, "smoke"), PROFILES["interpreter"], None, tmp_path / "job", Settings()).run()


def _line_of(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def test_a_case_verdict_names_the_line_and_function_of_the_op(tmp_path: Path) -> None:
    source = KERNEL.format(import_line="")
    rec = _run(tmp_path, source)
    msg = rec["first_failure"]["message"]
    assert rec["failure_class"] == "profile", rec["first_failure"]
    # the innermost frame of the file: _scale's line, not neg's
    assert f"in the submission: aten::mul.Tensor at line {_line_of(source, 'return t * 1')} in _scale" in msg, msg


def test_an_import_verdict_names_the_module_line(tmp_path: Path) -> None:
    source = KERNEL.format(import_line="\n\n\n_TABLE = torch.ones(8) * 3")
    rec = _run(tmp_path, source)
    msg = rec["first_failure"]["message"]
    assert rec["failure_class"] == "profile" and "submission's import" in msg, rec["first_failure"]
    assert f"aten::mul.Tensor at line {_line_of(source, '_TABLE =')} in <module>" in msg, msg


def test_where_in_submission_names_only_offending_keys_it_knows() -> None:
    tv = TraceVerdict("profile", "x", {"aten::mul.Tensor": 2, "aten::add.Tensor": 1})
    sites = {"aten::mul.Tensor": "line 7 in f", "aten::empty.memory_format": "line 3 in f"}
    assert where_in_submission(tv, sites) == "; in the submission: aten::mul.Tensor at line 7 in f"
    assert where_in_submission(tv, {}) == ""
    assert where_in_submission(TraceVerdict(None), sites) == ""
