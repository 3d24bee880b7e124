# F2: introspection through operator.attrgetter with a dotted string. L1 checks attribute names in
# the AST (INTROSPECTION_ATTRS) and literal getattr names, but attrgetter("a.__globals__") hides
# the dunder in a string. From the hooks' patched launcher we reach state.STATE (and, from there,
# `inspect` -> `sys`/`os`: a complete sandbox escape).
import operator

import torch
import triton
import triton.runtime.interpreter as _interp
import triton.runtime.jit as _jit
import triton.language as tl

_G = operator.attrgetter("run.__globals__")


def _state():
    try:
        return _G(_interp.InterpretedFunction)["STATE"]
    except KeyError:
        return _G(_jit.JITFunction)["STATE"]


def _os():
    # full escape: the hooks module imported `inspect`; inspect.os is the os module
    return _G(_interp.InterpretedFunction)["inspect"].os


@triton.jit
def _noop(p):
    pass


def _mm(a, b, out):
    st = _state()
    _noop[(1,)](out)                 # a real launch: launch accounting sees one
    if st.ghost:
        return out                   # L2: leave the output poisoned
    st.inside_launch += 1            # CandidateMode: "inside a launch", nothing traced
    try:
        a64 = torch.empty(a.shape, dtype=torch.float64, device=a.device)
        b64 = torch.empty(b.shape, dtype=torch.float64, device=b.device)
        a64.copy_(a)
        b64.copy_(b)
        out.copy_(a64 @ b64)
    finally:
        st.inside_launch -= 1
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
