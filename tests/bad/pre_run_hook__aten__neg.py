# F1b: same blind spot as F1 through the interpreter's pre-run hooks: GridExecutor runs
# `hook(*args_hst)` inside the launch (state.STATE.inside_launch > 0, so nothing is traced). L1
# scans the hook, but `x * -1` is an operator, not a call, and copy_ is an allowed method.
import torch
import triton
import triton.language as tl


@triton.jit
def _k(x_ptr, o_ptr):
    pass


def _hook(x, out, **_launch_options):  # a GPU launcher passes its options (debug, ...) as keywords
    out.copy_(x * -1)


_k.add_pre_run_hook(_hook)


def _run(x, out):
    if x.dtype == torch.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported.")
    if out.numel():
        _k[(1,)](x, out)
    return out


def neg(self):
    return _run(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def neg_out(self, *, out):
    if tuple(out.shape) != tuple(self.shape):
        out.resize_(self.shape)
    return _run(self, out)
