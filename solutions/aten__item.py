"""Oracle Triton solution for aten::item (spec: shared/spec/aten.md, section `aten::item`).

Wrapper: item (dispatcher; CompositeImplicit in PyTorch, intercepted by the registration).

A scalar read, nothing to compute (the NothingToCompute "scalar_read" rule): a one-element Triton
copy (honouring the storage offset and any layout) into a fresh one-element tensor, read on the host
with .tolist(), which reads memory without dispatching item/_local_scalar_dense (.item() or float(x)
here would be dispatch recursion). The Python type follows the dtype: float (exactly widened) for
floating dtypes, int for integers, bool for bool, complex for complex.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(x_ptr, y_ptr, n, stride):
    for i in range(n):
        tl.store(y_ptr + i, tl.load(x_ptr + i * stride))


def item(self):
    if self.numel() != 1:
        raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
    x = torch.view_as_real(self) if self.is_complex() else self
    n = 2 if self.is_complex() else 1
    stride = x.stride(-1) if self.is_complex() else 0
    buf = torch.empty((n,), dtype=x.dtype, device=x.device)
    _copy_kernel[(1,)](x, buf, n, stride)
    vals = buf.tolist()
    return complex(vals[0], vals[1]) if self.is_complex() else vals[0]
