"""Failure classes (DESIGN.md "Failure classes"): one per failed job, with the first failing case."""
from __future__ import annotations

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
}

NOT_SUBMISSION_FAULT = {"platform", "infrastructure"}

_CUDA_FAULT = ("illegal memory access", "device-side assert", "unspecified launch failure", "misaligned address",
               "illegal instruction", "an illegal", "cudaErrorIllegalAddress", "CUDA error: an illegal",
               "hardware exception", "Triton Error [CUDA]")


def classify_error(err: dict[str, Any], platform: Any) -> str:
    """The failure class of an error the child reported while running the candidate.

    Args:
        err: ``{"type", "chain", "message", "traceback", "stage"}`` from the child.
        platform: the platform profile (an interpreter-internal crash on a construct the
            interpreter cannot run is still the submission's, unless it names a known limit).
    """
    chain = err.get("chain") or [err.get("type", "")]
    text = f"{err.get('message', '')}\n{err.get('traceback', '')}"
    if "DispatchRecursion" in chain or "RecursionError" in chain:
        return "dispatch_recursion"
    if "SignatureMismatch" in chain:
        return "signature"
    if "OutOfMemoryError" in chain or "out of memory" in text.lower() or "OutOfResources" in chain:
        return "oom" if "OutOfResources" not in chain else "compile_error"
    if any(s in text for s in _CUDA_FAULT) or "AcceleratorError" in chain:
        return "cuda_fault"
    if "CompilationError" in chain or "CompileTimeAssertionFailure" in chain or "triton.compiler" in text \
            and "CompilationError" in text:
        return "compile_error"
    if getattr(platform, "interpreter", False) and (
            "only 0-dimensional arrays can be converted" in text  # numpy >= 2.4 with triton 3.6
            or "libdevice" in text  # the interpreter implements no libdevice function tl.math lacks
            or "0 active drivers" in text):  # driver queries (device properties) have no driver here
        return "platform"
    return "runtime_error"

