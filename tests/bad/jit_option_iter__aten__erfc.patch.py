"""BAD (rt43, interpreter): aten::erfc computed with PyTorch by C callables that a harness window runs untraced.

The interpreter's GPU compile check (sandbox/gpu_compile.py) builds a ``JITFunction`` mirror of each launched kernel
inside the launch window ("compiles the kernel for a GPU target"), with the kernel's ``triton.jit`` options; Triton's
``JITFunction.__init__`` tests ``i in do_not_specialize`` for every parameter, which iterates whatever object the
option holds. Here it holds a lazy ``map`` whose items are made by ``map``/``operator``/bound-method chains (C code,
no Python frame): ``out.copy_(1 - erf(x.double()))``. An ATen op in the window is traced only when a frame of the
submission's file lies between it and the window's opening (sandbox/window.py ``foreign_code``), so the whole erfc
ran untraced; a ghost replay skips the compile check, so L2 saw the poisoned output and credited Triton. The kernel
launched (a fresh ``triton.jit`` per call, so that the mirror is made again) only loads and stores ``out`` back.
At 76a872c: L1 clean, ``✓ aten::erfc · 9/9 cases passed`` on the interpreter (smoke). On a GPU the option is
iterated at ``triton.jit`` time, outside every window, traced (no hole there). The rest is the oracle
(solutions/aten__erfc.py)."""

SUBSTITUTIONS = [
    ("import math\n", "import math\nimport operator\n"),
    ("""\
def erfc(self):
    rd = _result_dtype(self.dtype)
    return _launch(self, torch.empty(self.shape, dtype=rd, device=self.device), _compute(rd))


def erfc_out(self, *, out):
    rd = _result_dtype(self.dtype)
    return _launch(self, _prepare_out(out, self.shape, rd), _compute(rd))
""", """\
def _touch(o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(o_ptr + offs, mask=m), mask=m)


def _hidden(x, out):
    n = out.numel()
    if n == 0:
        return out
    # CHEAT: lazy C iterators, run when the compile check's mirror iterates do_not_specialize inside its window
    done = map(out.copy_, map(operator.sub, [1.0], map(type(x).erf, map(operator.call, [x.double]))))
    k = triton.jit(_touch, do_not_specialize=map(dict.get, [{}], done, [0]))
    k[(_cdiv(n, 1024),)](out, n, BLOCK=1024)
    return out


def erfc(self):
    rd = _result_dtype(self.dtype)
    return _hidden(self, torch.empty(self.shape, dtype=rd, device=self.device))


def erfc_out(self, *, out):
    rd = _result_dtype(self.dtype)
    return _hidden(self, _prepare_out(out, self.shape, rd))
"""),
]
