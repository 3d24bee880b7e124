"""LEGAL (false-rejection hunt 32): aten::zero_ in place, the launch inside ``with torch.device(self.device):`` (the
common way to make every allocation and launch of a block land on the tensor's device). The context pushes PyTorch's
own DeviceContext, a torch function mode, and the launch window (red team 31, sandbox/window.py) refused any function
mode on the stack when the harness snapshots a launch's arguments: "1 torch function mode(s) pushed while the harness
snapshots a launch's arguments" (profile) on every case. DeviceContext (exactly that class) for the launch device is
now admitted; another device or any other mode stays a violation. Strided views go through a right-aligned 4-d index
after merging contiguous dims; bool through a uint8 view, complex through view_as_real."""
import torch
import triton
import triton.language as tl

_MAXD = 4


@triton.jit
def _zero_kernel(o_ptr, n, s1, s2, s3, t0, t1, t2, t3, BLOCK: tl.constexpr):
    lin = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = lin < n
    i3 = lin % s3
    r = lin // s3
    i2 = r % s2
    r = r // s2
    i1 = r % s1
    i0 = r // s1
    off = i0 * t0 + i1 * t1 + i2 * t2 + i3 * t3
    zero = tl.zeros([BLOCK], dtype=o_ptr.dtype.element_ty)
    tl.store(o_ptr + off, zero, mask=m)


def _geometry(t):
    shape, strides = [], []
    for s, st in zip(t.shape, t.stride()):
        if s == 1:
            continue
        if shape and strides[-1] == st * s:  # merge with the outer dim
            shape[-1] *= s
            strides[-1] = st
        else:
            shape.append(s)
            strides.append(st)
    return shape, strides


def zero_(self):
    if self.numel() == 0:
        return self
    target = self.view(torch.uint8) if self.dtype == torch.bool else self
    if target.is_complex():
        target = torch.view_as_real(target)
    n = target.numel()
    shape, strides = _geometry(target)
    if len(shape) > _MAXD:  # more dims than the kernel indexes: one launch per leading index
        for i in range(self.shape[0]):
            zero_(self[i])
        return self
    shape = [1] * (_MAXD - len(shape)) + shape
    strides = [0] * (_MAXD - len(strides)) + strides
    BLOCK = 1024
    with torch.device(self.device):
        _zero_kernel[(triton.cdiv(n, BLOCK),)](target, n, shape[1], shape[2], shape[3],
                                               strides[0], strides[1], strides[2], strides[3], BLOCK=BLOCK)
    return self
