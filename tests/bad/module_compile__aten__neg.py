"""CHEAT (the compiler stack through a method): aten::neg computed by a module the submission compiles with its own
``compile()`` method (``torch.nn.Module.compile``), then carried into the output by an honest Triton copy. L1 refuses
``torch.compile`` and the compiler's paths, but a module's method reads like any method (red team 33's lead): Inductor
would generate Triton kernels the submission did not write. Dynamo skips a frame it meets under a dispatch mode, and
every call of the submission runs under the harness's trace mode, so the module runs eagerly and the L3 dispatch
trace sees its ATen ops; the child also counts the graphs dynamo compiles around the import, every call and every
collection (sandbox/drive.py compiler_used). profile."""
import torch
import triton
import triton.language as tl


class _Neg(torch.nn.Module):
    def forward(self, x):
        return x * -1.0


_MOD = _Neg()
_MOD.compile()


@triton.jit
def _copy(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


def neg_out(x, *, out):
    y = _MOD(x.contiguous())
    n = y.numel()
    if n:
        _copy[(triton.cdiv(n, 256),)](y, out, n, BLOCK=256)
    return out


def neg(x):
    return neg_out(x, out=torch.empty_like(x, memory_format=torch.contiguous_format))
