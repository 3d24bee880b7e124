"""Legal (false-rejection hunt 28): the aten::neg oracle launching its contiguous kernel inside a context manager
from ``contextlib``, as wrappers do in place of a device guard (``nullcontext``), or their own
(``contextmanager``), with ``suppress`` around nothing that matters. L1 refused ``import contextlib`` as a whole;
only its process-changing and deferred-callback parts stay refused (verify/scan/stdlib_rules.CONTEXTLIB_ALLOWED).
Must pass. The rest is the oracle (solutions/aten__neg.py)."""

SUBSTITUTIONS = [
    ("""\
import torch
import triton
import triton.language as tl
""", """\
import contextlib

import torch
import triton
import triton.language as tl


@contextlib.contextmanager
def _launch_scope(t):  # LEGAL: the wrapper's own context manager
    with contextlib.suppress(KeyError):
        {}.pop("unused")
    yield t
""", 1),
    ("""\
    if src.is_contiguous() and dst.is_contiguous():
        _contig_kernel[grid](src, dst, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block,
                             USE_I64=n + block >= 2 ** 31, num_warps=warps)
        return out
""", """\
    if src.is_contiguous() and dst.is_contiguous():
        guard = contextlib.nullcontext() if dst.device.type != "cuda" else _launch_scope(dst)  # LEGAL
        with guard:
            _contig_kernel[grid](src, dst, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block,
                                 USE_I64=n + block >= 2 ** 31, num_warps=warps)
        return out
""", 1),
]
