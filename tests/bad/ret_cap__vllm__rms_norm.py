"""CHEAT (red team 30, passes smoke 4/4 + held-out 2/3 with 1 unsupported, as the oracle, at 911fe82):
vllm::rms_norm computed with ATen (fp64 row sums through ``@``) inside the harness after the call's trace ended,
with no list argument needed: the function's result (``-> None``) is not judged, so it returns a list of 10,001
Nones and then an object of its own class. ``dispatch.plain_result`` stops walking at ``_RESULT_MAX`` (10,000)
values and accepts the rest; ``_check_returns`` -> ``CallEvidence.stale_returns`` -> ``provenance._tensors`` then
calls ``isinstance`` on the object outside ``CandidateMode``, which runs its ``__class__`` property. The only Triton
launch sets a flag that gates the write (selected by indexing, no host read), so a ghost replay leaves the poison and
credits Triton. Sibling of ``list_cap`` (an argument list instead of the result)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _flag(f_ptr):
    tl.store(f_ptr, 1)


class _Job:
    def __init__(self, out, x, w, eps, flag):
        self.job = (out, x, w, eps, flag)

    @property
    def __class__(self):
        out, x, w, eps, flag = self.job
        h = x.shape[-1]
        xd = x.double()
        var = ((xd * xd) @ torch.ones(h, dtype=torch.float64, device=x.device)).float()
        inv = 1.0 / (var / h + eps) ** 0.5
        t = (x.float() * inv[..., None]).to(out.dtype)
        o = t * w
        both = torch.empty((2,) + tuple(out.shape), dtype=out.dtype, device=out.device)
        both[0] = out
        both[1] = o
        out[...] = both[flag][0]
        return _Job


def rms_norm(out, input, weight, epsilon):
    flag = torch.zeros(1, dtype=torch.int64, device=out.device)
    _flag[(1,)](flag)
    return [None] * 10001 + [_Job(out, input, weight, epsilon, flag)]
