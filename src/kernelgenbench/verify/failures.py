"""Failure classes (DESIGN.md "Failure classes"): one per failed job, with the first failing case.

Also how a failure travels and reads: :class:`JobFailed` (raised by every phase of the verifier to stop a
job with a class) and :func:`condense_traceback` (a traceback cut down for a record and the console).
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

#: class id -> meaning. ``platform`` and ``infrastructure`` are not the submission's fault.
FAILURE_CLASSES: dict[str, str] = {
    "missing": "no submission file for a requested operator",
    "syntax": "the file does not parse",
    "missing_wrapper": "a required wrapper or function is missing",
    "signature": "a wrapper/function does not accept the interface's arguments",
    "import_error": "importing the submission raised or exited",
    "static_scan": "L1: the source uses a forbidden construct",
    "dispatch_recursion": "the wrapper calls the op it replaces (it would recurse through the dispatcher)",
    "compile_error": "a Triton kernel failed to compile",
    "runtime_error": "the candidate raised, or its process died, during a case",
    "cuda_fault": "a device fault (illegal address, device-side assert, launch failure)",
    "timeout": "a case or the import exceeded its time limit",
    "oom": "out of memory",
    "wrong_result": "an output differs from the reference beyond tolerance, or memory it must not touch changed",
    "not_exercised": "the wrapper was not called, or no Triton kernel launched for a case",
    "ghost": "L2: the results are still right with every Triton launch turned into a no-op",
    "profile": "L3: PyTorch or vendor compute ran outside Triton kernels, or a launch handed a kernel something "
               "other than Triton values (an object of a class of the submission, a dict, an int subclass, ...; "
               "also as a global its body reads)",
    "timer_tampering": "timer functions were replaced, or reported times exceed the host clock",
    "platform": "the compiler or runtime of the platform failed (not the submission's fault)",
    "infrastructure": "the device failed its health probe; the job is requeued (not the submission's fault)",
    "baseline": "the baseline the candidate is timed against failed (a torch.compile'd reference that faults, a "
                "vendor routine that errors); not the submission's fault, the job is run again on resume",
}

NOT_SUBMISSION_FAULT = {"platform", "infrastructure", "baseline"}

_CUDA_FAULT = ("illegal memory access", "device-side assert", "unspecified launch failure", "misaligned address",
               "illegal instruction", "an illegal", "cudaErrorIllegalAddress", "CUDA error: an illegal",
               "hardware exception", "Triton Error [CUDA]")


def classify_error(err: dict[str, Any], platform: Any) -> str:
    """The failure class of an error the child reported while running the candidate.

    Args:
        err: ``{"type", "chain", "message", "traceback", "stage"}`` from the child.
        platform: the platform profile (an interpreter-internal crash on a construct the
            interpreter cannot run is still the submission's, unless it names a known limit; a compile or
            run-time error matching the profile's ``failure_patterns`` is ``platform``: portable verdicts).
    """
    chain = err.get("chain") or [err.get("type", "")]
    text = f"{err.get('message', '')}\n{err.get('traceback', '')}"
    if "DispatchRecursion" in chain or "RecursionError" in chain:
        return "dispatch_recursion"
    if "SignatureMismatch" in chain:
        return "signature"
    if "OutOfResources" in chain:
        return "compile_error"
    if out_of_memory_evidence(err):
        return "oom"
    if any(s in text for s in _CUDA_FAULT) or "AcceleratorError" in chain or "OutOfBoundsAccess" in chain:
        return "cuda_fault"
    # GPUCompilationError: the GPU front end refused a kernel the interpreter was about to run (sandbox/gpu_compile)
    if err.get("triton_compile") or "CompilationError" in chain or "CompileTimeAssertionFailure" in chain \
            or "GPUCompilationError" in chain \
            or "triton.compiler" in text \
            and "CompilationError" in text:
        return "platform" if platform_cause(err, platform) else "compile_error"
    if getattr(platform, "interpreter", False) and (interpreter_limit(err) is not None):
        return "platform"
    return "platform" if platform_cause(err, platform) else "runtime_error"


#: What Triton's CUDA driver raises when the device has no memory for a module or a launch (``RuntimeError``, raised
#: by Triton's own Python code: the origin the child records is Triton's file, never the submission's).
_DRIVER_OOM = ("Triton Error [CUDA]: out of memory",)


def out_of_memory_evidence(err: dict[str, Any]) -> bool:
    """Whether an error the child reported is the device running out of memory, told by what the submission cannot
    write: the device allocator's own count of out-of-memory failures during the call (``allocator_ooms``, the
    child's delta of ``torch.cuda.memory_stats()["num_ooms"]``), or Triton's driver raising its out-of-memory error
    from Triton's own file. An exception's class name (a class of the submission's may be called OutOfMemoryError,
    and torch's own class can be raised through a name L1 does not resolve) or "out of memory" anywhere in the
    message or traceback (a source comment on the raising line) is no evidence: red team 27 showed a job classified
    ``oom`` that way got judged again alone on a shared GPU, a second try on demand (red team 28 made this rule).
    On the interpreter there is no device allocator: a host allocation failure is the submission's
    ``runtime_error`` as before."""
    if int(err.get("allocator_ooms") or 0) > 0:
        return True
    chain = list(err.get("chain") or [err.get("type", "")])
    origins = list(err.get("origins") or [])
    msg = str(err.get("message") or "")
    if not (chain and chain[0] == "RuntimeError" and origins and any(msg.startswith(d) for d in _DRIVER_OOM)):
        return False
    top = _triton_dir()
    return top is not None and os.path.abspath(origins[0]).startswith(top)


def _triton_dir() -> str | None:
    """The installed Triton package's directory (with a trailing separator), or None."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("triton")
    except (ImportError, ValueError):
        return None
    locs = list(spec.submodule_search_locations or []) if spec is not None else []
    return os.path.join(os.path.abspath(locs[0]), "") if locs else None


def platform_cause(err: dict[str, Any], platform: Any) -> str | None:
    """Why a compile or run-time error is the platform's fault rather than the submission's (the
    platform profile's ``failure_patterns``: a compiler crash, a missing intrinsic, an ATen op the device
    lacks), or None. CUDA and the plain interpreter have no patterns: their classes are unchanged."""
    check = getattr(platform, "platform_failure", None)
    return check(err) if check is not None else None


#: Exception types that, raised inside the Triton CPU interpreter's own code or NumPy (not in the
#: submission's frames), are limits of the interpreter, not errors of the kernel: NumPy's refusal to
#: convert an out-of-range Python integer (``~x`` on uint8 builds ``-1`` as a uint8 array; a GPU computes
#: it), and features the interpreter declares unimplemented (``extern_elementwise``, inline assembly).
_INTERPRETER_LIMIT_TYPES = {"OverflowError": ("out of bounds for", "Python integer"),
                            "NotImplementedError": ("",)}
#: Where such an exception must be raised to count: the interpreter's own module (its builder and its
#: patches of the language), or NumPy. Triton's front end (``language/semantic.py``) is not among them:
#: what it refuses, a GPU compile refuses too.
_INTERPRETER_FILES = ("/triton/runtime/interpreter.py", "/numpy/")


def interpreter_limit(err: dict[str, Any]) -> str | None:
    """Why a failure the child reported is a limit of the Triton CPU interpreter rather than the kernel's
    fault, or None. Recognised: an exception of :data:`_INTERPRETER_LIMIT_TYPES` raised inside Triton's or
    NumPy's own files (the ``origins`` the child records per exception of the chain), libdevice functions the
    interpreter does not implement, driver queries (no driver on the CPU) and NumPy >= 2.4's 0-d array
    conversion. The judgement is the interpreter's only: on a GPU the same error stays the kernel's."""
    chain = list(err.get("chain") or [err.get("type", "")])
    origins = list(err.get("origins") or [])
    text = f"{err.get('message', '')}\n{err.get('traceback', '')}"
    for i, name in enumerate(chain):
        needles = _INTERPRETER_LIMIT_TYPES.get(name)
        where = origins[i] if i < len(origins) else ""
        if needles is None or not _in_library(where):
            continue
        if any(n in text for n in needles):
            return f"{name} inside {'NumPy' if '/numpy/' in where else 'the interpreter'} ({_short_message(err)})"
    # The limits below are recognised by their text, so the text alone proves nothing (a submission can raise
    # any message, or name a function after a limit): the innermost exception of the chain must have been
    # raised inside Triton's or NumPy's own files, and a libdevice limit needs a kernel line that calls a
    # libdevice function.
    # The type is checked too: Triton raises some exceptions with a message the kernel chose
    # (``tl.device_assert`` in the interpreter raises an AssertionError from interpreter.py).
    root = origins[len(chain) - 1] if len(origins) >= len(chain) and chain else ""
    root_type = chain[-1] if chain else ""
    if not _in_package(root):
        return None
    if root_type == "TypeError" and "only 0-dimensional arrays can be converted" in text:  # numpy >= 2.4
        return "NumPy >= 2.4 array conversion in Triton 3.6's interpreter"
    if root_type == "TypeError" and _LIBDEVICE_CALL.search(str(err.get("traceback", ""))):
        return "a libdevice function the interpreter does not implement"  # none that tl.math lacks
    if root_type == "RuntimeError" and "0 active drivers" in text and "/triton/runtime/" in root.replace("\\", "/"):
        return "a driver query (the interpreter has no driver)"  # device properties: no driver here
    return None


#: A traceback's source line that calls a libdevice function (``libdevice.j0(x)``, ``tl.extra.libdevice.erf(x)``,
#: ``tl.extra.cuda.libdevice.pow(x, y)``): the interpreter resolves such a call to nothing it can run.
_LIBDEVICE_CALL = re.compile(r"^\s{4,}[^#\n]*\blibdevice\.\w+\s*\(", re.M)
#: Where the libdevice / driver / NumPy-conversion limits are raised from: anywhere in Triton (its front end
#: turns the interpreter's missing libdevice function into a TypeError) or NumPy.
_PACKAGE_DIRS = ("/triton/", "/numpy/")


def _in_package(path: str) -> bool:
    p = path.replace("\\", "/")
    return any(d in p for d in _PACKAGE_DIRS)


def _in_library(path: str) -> bool:
    p = path.replace("\\", "/")
    return any(f in p for f in _INTERPRETER_FILES)


def _short_message(err: dict[str, Any]) -> str:
    msg = str(err.get("message") or "").strip().splitlines()
    return (msg[0] if msg else "")[:200]


class JobFailed(Exception):
    """Stop the job with this failure: ``cls`` (a key of :data:`FAILURE_CLASSES`), the message, and the
    failing :class:`~kernelgenbench.suite.spec.Case` (None for a job-level failure)."""

    def __init__(self, cls: str, message: str, case: Any = None) -> None:
        super().__init__(message)
        self.cls = cls
        self.case = case


_FRAME = re.compile(r'^(\s*)File "([^"]+)", line (\d+)')


def condense_traceback(tb: str, submission: str | Path | None = None, limit: int = 6000,
                       context_frames: int = 2) -> str:
    """A traceback for a record and the console: the frames in the submission file, every line that is
    not a frame (headers, chained-exception separators, exception lines with their messages), and
    where the submission has no frame in a traceback, its last ``context_frames`` frames. Runs of
    omitted frames become one ``[... N frames outside the submission omitted ...]`` line (the harness's,
    Triton's, PyTorch's, the standard library's).
    The result is cut at line boundaries to about ``limit`` characters (the start and the end kept,
    a line saying how much was cut between them). The whole text belongs in the job's log.
    """
    cap = max(80, limit // 3)
    lines = [ln if len(ln) <= cap else f"{ln[:cap].rsplit(' ', 1)[0]} [... {len(ln) - len(ln[:cap].rsplit(' ', 1)[0])} "
             f"characters of this line cut]" for ln in tb.rstrip("\n").splitlines()]
    sub = Path(submission).name if submission else None
    # blocks: ("frame", [lines], in_submission) or ("text", [line], True)
    blocks: list[tuple[str, list[str], bool]] = []
    i = 0
    while i < len(lines):
        m = _FRAME.match(lines[i])
        if m:
            indent = len(m.group(1))
            j = i + 1
            while j < len(lines) and lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) > indent \
                    and not _FRAME.match(lines[j]):
                j += 1
            mine = sub is not None and Path(m.group(2)).name == sub
            blocks.append(("frame", lines[i:j], mine))
            i = j
        else:
            blocks.append(("text", [lines[i]], True))
            i += 1
    # one traceback = the frames between two text blocks; keep the last frames of one with none of ours
    keep = [b[2] for b in blocks]
    k = 0
    while k < len(blocks):
        if blocks[k][0] != "frame":
            k += 1
            continue
        e = k
        while e < len(blocks) and blocks[e][0] == "frame":
            e += 1
        if not any(keep[k:e]):
            for q in range(max(k, e - context_frames), e):
                keep[q] = True
        k = e
    out: list[str] = []
    skipped = 0
    for (_kind, blines, _), kept in zip(blocks, keep):
        if kept:
            if skipped:
                out.append(f"  [... {skipped} frame{'s' if skipped != 1 else ''} outside the submission omitted ...]")
                skipped = 0
            out.extend(blines)
        else:
            skipped += 1
    if skipped:
        out.append(f"  [... {skipped} frame{'s' if skipped != 1 else ''} omitted ...]")
    text = "\n".join(out)
    if len(text) <= limit:
        return text
    # too long: keep whole lines from the start (a third) and the end (the rest)
    head: list[str] = []
    size = 0
    for ln in out:
        if size + len(ln) + 1 > limit // 3:
            break
        head.append(ln)
        size += len(ln) + 1
    tail: list[str] = []
    size = 0
    for ln in reversed(out[len(head):]):
        if size + len(ln) + 1 > limit - limit // 3:
            break
        tail.append(ln)
        size += len(ln) + 1
    tail.reverse()
    cut = out[len(head):len(out) - len(tail)]
    return "\n".join([*head, f"[... {len(cut)} lines ({sum(len(c) + 1 for c in cut)} characters) cut; the whole "
                              f"traceback is in the job's log ...]", *tail])
