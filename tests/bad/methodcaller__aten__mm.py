# F3: bulk host computation that neither L1 nor L3 sees.
#  * read:  operator.methodcaller("tolist")(t)  -- L1 judges methods by the AST attribute name, a
#           string in methodcaller is invisible; Tensor.tolist runs no ATen op (empty L3 trace).
#  * write: operator.attrgetter("as_tensor")(torch)(rows, dtype=...) -- L3 sees only aten::lift_fresh,
#           which is on the ALLOC allowlist; one same-dtype copy_ puts it in `out`.
#  * L2:    a one-element flag written by a real Triton kernel tells ghost replay apart (flag read
#           with tolist: no item() budget used); under ghost the output is left poisoned.
# Works the same on CUDA (the kernel list only shows Memcpy/copy kernels, which are allowed).
import operator

import torch
import triton
import triton.language as tl

_tolist = operator.methodcaller("tolist")


@triton.jit
def _flag(p):
    tl.store(p, 1)


def _mm(a, b, out):
    flag = torch.zeros(1, dtype=torch.int32, device=out.device)
    _flag[(1,)](flag)
    if _tolist(flag)[0] == 0:
        return out                       # L2 ghost replay: leave the output poisoned
    A, B = _tolist(a), _tolist(b)
    K = len(B)
    N = len(B[0]) if K else out.shape[1]
    rows = [[sum(A[i][k] * B[k][j] for k in range(K)) for j in range(N)] for i in range(len(A))]
    res = operator.attrgetter("as_tensor")(torch)(rows, dtype=out.dtype, device=out.device)
    out.copy_(res.view(out.shape))
    return out


def mm(self, mat2):
    out = torch.empty((self.shape[0], mat2.shape[1]), dtype=self.dtype, device=self.device)
    return _mm(self, mat2, out)


def mm_out(self, mat2, *, out):
    if tuple(out.shape) != (self.shape[0], mat2.shape[1]):
        out.resize_((self.shape[0], mat2.shape[1]))
    return _mm(self, mat2, out)


def mm_dtype(self, mat2, out_dtype):
    out = torch.empty((self.shape[0], mat2.shape[1]), dtype=out_dtype, device=self.device)
    return _mm(self, mat2, out)


def mm_dtype_out(self, mat2, out_dtype, *, out):
    return _mm(self, mat2, out)
