"""Failure attribution (issue 11): a limit of the Triton CPU interpreter makes a case ``unsupported``,
never the submission's failure, while the kernel's own errors stay its own; an out-of-bounds access of an
interpreted kernel fails the case that makes it (it used to corrupt the heap and abort the sandbox one
case later, charged to the next case)."""
from __future__ import annotations

from pathlib import Path

import pytest
from fixture_files import write_submission

from kernelgenbench.platforms import PROFILES
from kernelgenbench.run.job import JobSpec, Settings, Verifier
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.verify.failures import classify_error, interpreter_limit

INTERP = PROFILES["interpreter"]
CUDA = PROFILES["cuda"]
TRITON_INTERP = "/venv/lib/python3.11/site-packages/triton/runtime/interpreter.py"
SEMANTIC = "/venv/lib/python3.11/site-packages/triton/language/semantic.py"


def _err(chain, origins, message, tb=""):
    return {"type": chain[0], "chain": chain, "origins": origins, "message": message, "traceback": tb}


def test_numpy_overflow_inside_the_interpreter_is_a_platform_limit() -> None:
    err = _err(["InterpreterError", "OverflowError"], ["/sub/aten__x.py", TRITON_INTERP],
               "OverflowError('Python integer -1 out of bounds for uint8')")
    assert "OverflowError inside the interpreter" in interpreter_limit(err)
    assert classify_error(err, INTERP) == "platform"
    # on a GPU the same record is the kernel's (a GPU compiles ~x on uint8; nothing of the interpreter ran)
    assert classify_error(err, CUDA) == "runtime_error"


def test_the_kernels_own_errors_stay_its_own_on_the_interpreter() -> None:
    # raised in the submission's own frame: not a limit, whatever its type
    own = _err(["OverflowError"], ["/sub/aten__x.py"], "Python integer -1 out of bounds for uint8")
    assert interpreter_limit(own) is None and classify_error(own, INTERP) == "runtime_error"
    # Triton's front end refuses it: a GPU compile refuses it too
    front = _err(["InterpreterError", "NotImplementedError"], ["/sub/aten__x.py", SEMANTIC], "unsupported")
    assert interpreter_limit(front) is None and classify_error(front, INTERP) == "runtime_error"
    # a type the interpreter does not raise for its own limits
    value = _err(["InterpreterError", "ValueError"], ["/sub/aten__x.py", TRITON_INTERP],
                 "ValueError('Scalar 255 is out of range for type int8')")
    assert interpreter_limit(value) is None and classify_error(value, INTERP) == "runtime_error"


def test_a_subclass_of_tritons_compile_error_is_a_compile_error() -> None:
    """Triton's GPU front end raises subclasses of CompilationError with other names (UnsupportedLanguageConstruct
    for an f-string of a block: the H100 at f7ceeac classified red team 32's block_str runtime_error by the names)."""
    import ast

    from triton.compiler.errors import CompilationError, UnsupportedLanguageConstruct

    from kernelgenbench.sandbox.child import error_report

    node = ast.parse("f'{x}'").body[0]
    try:
        try:
            raise UnsupportedLanguageConstruct("f'{x}'", node, "Cannot evaluate f-string containing non-constexpr")
        except CompilationError as inner:
            raise RuntimeError("launch failed") from inner  # a wrapper's re-raise: the cause is still Triton's
    except RuntimeError as exc:
        wrapped = error_report(exc, "call")
    assert wrapped["chain"][:2] == ["RuntimeError", "UnsupportedLanguageConstruct"] and wrapped["triton_compile"]
    assert classify_error(wrapped, CUDA) == "compile_error"
    # a class of the submission's own that is merely named like Triton's stays a runtime error when no name matches
    own = type("UnsupportedConstruct", (Exception,), {})
    try:
        raise own("no")
    except Exception as exc:  # noqa: BLE001
        plain = error_report(exc, "call")
    assert not plain["triton_compile"] and classify_error(plain, CUDA) == "runtime_error"


def test_out_of_bounds_access_is_a_device_fault() -> None:
    err = _err(["InterpreterError", "OutOfBoundsAccess"], ["/sub/a.py", "/src/kernelgenbench/sandbox/hooks.py"],
               "out-of-bounds memory access: kernel k stores 4 element(s) outside every tensor argument")
    assert classify_error(err, INTERP) == "cuda_fault"


@pytest.mark.slow
def test_interpreter_limit_cases_are_unsupported_and_the_rest_judged(tmp_path: Path) -> None:
    op = get_operator("aten::bitwise_not")
    good = Path(__file__).parent / "good" / "interp_limit__aten__bitwise_not.patch.py"
    sub = write_submission(good, tmp_path / op.filename)
    rec = Verifier(JobSpec(op, sub, "smoke"), INTERP, None, tmp_path / "job", Settings()).run()
    # never failed; not passed either: the cases its kernels made unjudgeable could be cases it chose to skip
    assert rec["failure_class"] is None and rec["status"] == "unsupported", rec["first_failure"]
    assert rec["unsupported_reason"].startswith("2 case(s) could not be judged on interpreter with this "
                                                 "submission's kernels"), rec["unsupported_reason"]
    unsupported = [c for c in rec["cases"] if c["status"] == "unsupported"]
    assert [c["params"]["dtype"] for c in unsupported] == ["bool", "bool"]
    assert all("interpreter cannot run this case: OverflowError inside" in c["message"]
               and "out of bounds for uint8" in c["message"] for c in unsupported)
    assert rec["cases_passed"] == rec["cases_total"] - 2


OOB = '''import torch
import triton
import triton.language as tl


@triton.jit
def _neg(x_ptr, o_ptr, n, BLOCK: tl.constexpr, SPILL: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(o_ptr + offs, -tl.load(x_ptr + offs, mask=mask, other=0), mask=mask)
    if SPILL:  # a store past the end of the output, unmasked
        tl.store(o_ptr + n + tl.arange(0, 64), tl.zeros([64], dtype=o_ptr.dtype.element_ty))


def neg(self):
    res = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    n = self.numel()
    if n:
        xc = self.contiguous()
        _neg[(triton.cdiv(n, 256),)](xc, res, n, BLOCK=256, SPILL=self.dim() == 1)
    return res


def neg_out(self, *, out):
    r = neg(self)
    out.resize_(r.shape)
    out.copy_(r)
    return out
'''


@pytest.mark.slow
def test_an_out_of_bounds_store_fails_the_case_that_makes_it(tmp_path: Path) -> None:
    op = get_operator("aten::neg")
    sub = tmp_path / "sub" / op.filename
    sub.parent.mkdir()
    sub.write_text(OOB)
    rec = Verifier(JobSpec(op, sub, "smoke"), INTERP, None, tmp_path / "job", Settings()).run()
    assert rec["failure_class"] == "cuda_fault", rec["first_failure"]
    first = rec["first_failure"]
    assert len(first["case"]["shape"]) == 1, first  # the first 1-d case, the one that spills
    assert "out-of-bounds memory access: kernel _neg stores 64 element(s)" in first["message"]
    # where, in words (fresh user 26 could not parse "the first 0 bytes past the end")
    assert "the first starts right at the end of the nearest argument's memory: its " in first["message"], first
    # exactly that case failed; every other case was judged and passed: nothing was corrupted for the cases
    # after it
    failed = [c for c in rec["cases"] if c["status"] == "failed"]
    assert [c["id"] for c in failed] == [first["case_id"]]
    assert {c["status"] for c in rec["cases"] if c is not failed[0]} == {"passed"}


SLOW = '''import torch
import triton
import triton.language as tl


@triton.jit
def _neg(x_ptr, o_ptr, n, SPIN: tl.constexpr):
    i = tl.program_id(0)
    x = tl.load(x_ptr + i)
    k = 0
    for _ in range(SPIN):  # busy work that a GPU does in nanoseconds, the interpreter in milliseconds
        k = k + 1
    if SPIN < 0:  # waits for a flag that is never set: the program never finishes
        while tl.load(o_ptr + n) != 12345.0:
            k = k + 1
    tl.store(o_ptr + i, tl.where(k >= 0, -x, x))


def neg(self, _spin=SPIN_VALUE):
    xc = self.contiguous()
    n = xc.numel()
    res = torch.empty(n + 1, dtype=self.dtype, device=self.device)
    if n:
        # only the first smoke case (2,112 elements) is slowed down; the small ones stay fast under any load
        _neg[(n,)](xc, res, n, SPIN=_spin if n >= 2000 or _spin < 0 else 0)
    return res[:n].view(self.shape)


def neg_out(self, *, out):
    r = neg(self)
    out.resize_(r.shape)
    out.copy_(r)
    return out
'''


def _job(tmp_path: Path, text: str, timeout: float) -> dict:
    op = get_operator("aten::neg")
    sub = tmp_path / "sub" / op.filename
    sub.parent.mkdir()
    sub.write_text(text)
    return Verifier(JobSpec(op, sub, "smoke"), INTERP, None, tmp_path / "job",
                    Settings(case_timeout_s=timeout, ghost_cases=0)).run()


@pytest.mark.slow
def test_a_case_still_computing_at_its_timeout_is_unsupported_on_the_interpreter(tmp_path: Path) -> None:
    """Issue 12, class 8: slow is not wrong on the interpreter. The first smoke case (2,112 programs of busy
    work) reaches the timeout while programs keep starting; the other cases are judged in a fresh process."""
    rec = _job(tmp_path, SLOW.replace("SPIN_VALUE", "400"), timeout=4.0)
    first = rec["cases"][0]
    assert first["status"] == "unsupported", first
    assert "interpreter is too slow for this case" in first["message"]
    assert rec["failure_class"] is None and rec["status"] == "unsupported"  # not charged, not passed
    assert sum(c["status"] == "passed" for c in rec["cases"]) >= 2


@pytest.mark.slow
def test_a_kernel_stuck_in_one_program_is_still_a_timeout(tmp_path: Path) -> None:
    rec = _job(tmp_path, SLOW.replace("SPIN_VALUE", "-1"), timeout=12.0)
    assert rec["failure_class"] == "timeout", rec["first_failure"]
    assert rec["cases"][0]["status"] == "failed"


# -- submissions that try to make the cases they cannot compute "unsupported" on the interpreter -------------

def test_a_limit_named_by_the_submissions_own_error_is_its_failure() -> None:
    """The text rules (libdevice, driver queries, NumPy conversion) need the innermost exception raised in
    Triton's or NumPy's files: a submission that raises a message naming a limit itself, or fails an assert
    in a helper named after one, gets no ``unsupported``."""
    own = _err(["RuntimeError"], ["/sub/aten__neg.py"], "this path needs libdevice",
               '  File "/sub/aten__neg.py", line 16, in _unsupported\n    raise RuntimeError("this path needs '
               'libdevice")\nRuntimeError: this path needs libdevice\n')
    assert interpreter_limit(own) is None and classify_error(own, INTERP) == "runtime_error"
    named = _err(["AssertionError"], ["/sub/aten__neg.py"], "shape not handled",
                 '  File "/sub/aten__neg.py", line 16, in _libdevice_tail\n    assert False, "shape not handled"\n')
    assert interpreter_limit(named) is None and classify_error(named, INTERP) == "runtime_error"
    drivers = _err(["RuntimeError"], ["/sub/aten__neg.py"], "0 active drivers ([]). There should only be one.")
    assert interpreter_limit(drivers) is None
    # a comment that names a libdevice call on the failing line does not make Triton's own error a limit
    commented = _err(["InterpreterError", "TypeError"], [TRITON_INTERP, SEMANTIC], "cannot convert None",
                     '  File "/sub/aten__neg.py", line 9, in k\n    tl.store(o, None)  # libdevice.j0(x)\n')
    assert interpreter_limit(commented) is None


def test_a_libdevice_call_the_interpreter_cannot_run_is_a_platform_limit() -> None:
    """The real shape of the limit (Triton 3.6): the interpreter maps ``libdevice.j0`` to nothing, and Triton's
    front end raises a TypeError converting the None it got."""
    err = _err(["InterpreterError", "TypeError"], [TRITON_INTERP, SEMANTIC],
               "TypeError(\"cannot convert None of type <class 'NoneType'> to tensor\")",
               '  File "/sub/aten__i0.py", line 9, in k\n    v = libdevice.j0(v)\n  File '
               f'"{SEMANTIC}", line 151, in to_tensor\n')
    assert interpreter_limit(err) == "a libdevice function the interpreter does not implement"
    assert classify_error(err, INTERP) == "platform"
    assert classify_error(err, CUDA) == "runtime_error"


@pytest.mark.slow
def test_busy_launches_on_a_small_case_are_a_timeout_not_slow(tmp_path: Path) -> None:
    """Progress counters are the sandbox's word: a case whose work could not keep the interpreter busy for
    its timeout (here 2,112 elements of neg against 30 s: ~8 s at 1 ms per unit) that times out while
    launches keep starting is the submission's timeout (launching until the timeout ends the case is how a
    submission would skip what it cannot compute)."""
    rec = _job(tmp_path, SLOW.replace("SPIN_VALUE", "400"), timeout=30.0)
    assert rec["failure_class"] == "timeout", rec["first_failure"]
    assert rec["cases"][0]["status"] == "failed"
    assert "exceeded 30 s" in rec["first_failure"]["message"]


def test_oom_needs_the_allocators_evidence_not_words():
    """Red team 27/28: "out of memory" in a message or a traceback (a comment on the raising line), or an exception
    class so named, made a job oom, which the scheduler judges again alone on a shared GPU (a second try on demand).
    Only the device allocator's own count (the child's allocator_ooms) or Triton's driver error raised from Triton's
    files classify oom now."""
    import os

    import triton

    words = {"type": "ValueError", "chain": ["ValueError"], "message": "retry", "origins": ["/subs/aten__x.py"],
             "traceback": 'File "aten__x.py", line 9\n    raise ValueError("retry")  # out of memory\n'}
    assert classify_error(words, CUDA) == "runtime_error"
    named = {"type": "OutOfMemoryError", "chain": ["OutOfMemoryError"], "origins": ["/subs/aten__x.py"],
             "message": "CUDA out of memory. Tried to allocate 1.16 GiB.", "traceback": ""}
    assert classify_error(named, CUDA) == "runtime_error"
    assert classify_error({**named, "allocator_ooms": 1}, CUDA) == "oom"  # a real allocation failed in the call
    driver = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "driver.py")
    launch = {"type": "RuntimeError", "chain": ["RuntimeError"], "origins": [driver], "traceback": "",
              "message": "Triton Error [CUDA]: out of memory"}
    assert classify_error(launch, CUDA) == "oom"
    # the same words raised by a submission (here from a folder called triton): a fault of its own, no oom
    assert classify_error({**launch, "origins": ["/subs/triton/aten__x.py"]}, CUDA) == "cuda_fault"
