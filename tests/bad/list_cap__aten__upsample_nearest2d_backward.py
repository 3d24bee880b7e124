"""CHEAT (red team 30, passes smoke 4/4 + held-out 3/3 at 911fe82): aten::upsample_nearest2d_backward whose whole
result is computed with ATen (fp64 index adds) inside the harness, after the call's trace has ended.

The wrapper appends 10,001 Nones and then an object of its own class to the ``output_size`` list the dispatcher
handed it. ``dispatch.plain_result`` walks the result and the arguments with a shared budget of ``_RESULT_MAX``
(10,000) values and accepts whatever lies past it, so the object is neither reported nor replaced by None. Then
``dispatch.traced.wrapper`` calls ``_check_returns`` outside ``CandidateMode``: ``CallEvidence.stale_returns`` ->
``provenance._tensors`` runs ``isinstance(obj, torch.Tensor)``, which reads the object's ``__class__`` property:
the submission's code, untraced. It writes the result into the output with ATen. The only Triton launch sets a
one-element flag; the property copies the result in only where the flag reads 1 (selected by indexing, no host
read), so a ghost replay, which skips the launch, leaves the poisoned output and credits Triton. L3 trace: 2
``aten::empty``, 3 ``aten::zeros``."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _flag(f_ptr):
    tl.store(f_ptr, 1)


def _f32(x):
    c = x * 536870913.0
    return c - (c - x)


def _src(o, n_in, n_out, scale):
    if n_out == n_in:
        return o
    if n_out == 2 * n_in:
        return o >> 1
    s = _f32(1.0 / scale) if (scale is not None and scale > 0) else _f32(_f32(float(n_in)) / n_out)
    return min(int(math.floor(_f32(o * s))), n_in - 1)


class _Job:
    def __init__(self, go, isz, sh, sw, out, flag):
        self.job = (go, isz, sh, sw, out, flag)

    @property
    def __class__(self):
        go, isz, sh, sw, out, flag = self.job
        n, c, ih, iw = isz
        oh, ow = go.shape[2], go.shape[3]
        acc = torch.zeros((n, c, ih, iw), dtype=torch.float64, device=go.device)
        g = go.double()
        for y in range(oh):
            sy = _src(y, ih, oh, sh)
            for x in range(ow):
                sx = _src(x, iw, ow, sw)
                acc[:, :, sy, sx] += g[:, :, y, x]
        both = torch.empty((2,) + tuple(out.shape), dtype=out.dtype, device=out.device)
        both[0] = out
        both[1] = acc.to(out.dtype)
        out[...] = both[flag][0]
        return _Job


def _arm(output_size, go, isz, sh, sw, out):
    flag = torch.zeros(1, dtype=torch.int64, device=out.device)
    _flag[(1,)](flag)
    job = _Job(go, list(isz), sh, sw, out, flag)
    for _ in range(10001):
        output_size.append(None)
    output_size.append(job)
    return out


def upsample_nearest2d_backward(grad_output, output_size, input_size, scales_h=None, scales_w=None):
    out = torch.empty(list(input_size), dtype=grad_output.dtype, device=grad_output.device)
    return _arm(output_size, grad_output, input_size, scales_h, scales_w, out)


def upsample_nearest2d_backward_grad_input(grad_output, output_size, input_size, scales_h=None, scales_w=None, *,
                                           grad_input):
    if list(grad_input.shape) != list(input_size):
        grad_input.resize_(list(input_size))
    return _arm(output_size, grad_output, input_size, scales_h, scales_w, grad_input)
