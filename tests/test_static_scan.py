"""Tests of the L1 static scan (src/kernelgenbench/verify/scan/).

Every rule has at least one rejected snippet whose exact (line, rule) list is asserted, and realistic
clean submissions must give no finding at all. No GPU; everything here is pure AST work.
"""
from __future__ import annotations

import dataclasses
import textwrap

import pytest

from kernelgenbench.suite.registry import get_operator
from kernelgenbench.verify.scan import RULES, Finding, scan_file, scan_source


def hits(source: str, **kw) -> list[tuple[int, str]]:
    """(line, rule) of every finding of the dedented ``source``."""
    return [(f.line, f.rule) for f in scan_source(textwrap.dedent(source), **kw)]


def recursion_of(op_id: str) -> dict[str, frozenset[str]]:
    """The names the row of ``op_id`` holds a submission to: its own ops and its recursion aliases."""
    policy = get_operator(op_id).scan_policy()
    return {"own_ops": policy["own_ops"], "aliases": policy["aliases"]}


# ------------------------------------------------------------------------------------------------
# Clean submissions
# ------------------------------------------------------------------------------------------------

CLEAN_SUBMISSION = '''
"""A realistic submission: aten::_softmax with an autotuned row kernel."""
from __future__ import annotations

import functools
import math
from typing import Optional

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

_BLOCKS = {"small": 256, "large": 4096}          # constant table, only read
_DTYPES = (torch.float16, torch.bfloat16, torch.float32)


@triton.autotune(
    configs=[triton.Config({"BLOCK": b}, num_warps=w) for b in (256, 1024) for w in (4, 8)],
    key=["N"],
)
@triton.heuristics({"EVEN": lambda args: args["N"] % args["BLOCK"] == 0})
@triton.jit
def _softmax_kernel(x_ptr, y_ptr, stride, N, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    e = libdevice.exp(x - m)
    acc = e.sum(axis=0)
    s = tl.sum(e, axis=0) + acc * 0
    y = (e / s).to(y_ptr.dtype.element_ty)
    tl.store(y_ptr + row * stride + offs, y, mask=mask)


@triton.jit
def _scale_kernel(x_ptr, n, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, (v.to(tl.float32) * alpha).to(v.dtype), mask=offs < n)


@functools.lru_cache(maxsize=None)
def _num_sms(index: int) -> int:
    return torch.cuda.get_device_properties(index).multi_processor_count


def _block_for(n: int) -> int:
    return _BLOCKS["small"] if n <= 256 else min(_BLOCKS["large"], triton.next_power_of_2(n))


def _softmax(self: torch.Tensor, dim: int, half_to_float: bool) -> torch.Tensor:
    dtype = torch.float32 if half_to_float else self.dtype
    out_dtype = torch.result_type(self, 1.0) if not self.is_floating_point() else dtype
    x = self.contiguous()
    rows = x.numel() // max(x.size(dim), 1)
    out = torch.empty_like(x, dtype=out_dtype)
    if x.numel() == 0:
        return out
    N = x.shape[-1]
    grid = (rows,)
    _softmax_kernel[grid](x, out, x.stride(-2) if x.dim() > 1 else N, N)
    return out


def _softmax_out(self, dim, half_to_float, *, out):
    res = _softmax(self, dim, half_to_float)
    out.resize_(res.shape)
    n = res.numel()
    scale = torch.full((), 2.0, dtype=torch.float32, device=res.device)
    alpha = scale.item() if scale.dim() == 0 else 1.0
    _scale_kernel[(triton.cdiv(n, 1024),)](res, n, alpha, BLOCK=1024)
    out.view(-1)
    sizes = [res.size(d) for d in range(res.dim())]
    sizes.append(1)
    parts = {"n": n}
    parts.update(extra=math.prod(sizes))
    print("launched", len(parts), "kernels".upper())
    return out
'''


def test_realistic_submission_is_clean():
    assert scan_source(CLEAN_SUBMISSION, own_ops=frozenset({"_softmax"})) == []


def test_clean_submission_without_own_ops_is_clean():
    assert scan_source(CLEAN_SUBMISSION) == []


def test_clean_wrapper_idioms():
    src = """
    import torch
    import triton
    import triton.language as tl
    from torch import Tensor

    @triton.jit(do_not_specialize=["n"])
    def k(x_ptr, n, BLOCK: tl.constexpr):
        pass

    def add_Tensor(self: Tensor, other: Tensor, *, alpha=1) -> Tensor:
        a, b = torch.broadcast_tensors if False else (self, other)
        shape = torch.broadcast_shapes(self.shape, other.shape)
        dt = torch.promote_types(self.dtype, other.dtype)
        out = torch.empty(shape, dtype=dt, device=self.device)
        ex = self.expand(shape).permute(0, 1).unsqueeze(0).squeeze(0)
        if not isinstance(self, torch.Tensor) or torch.finfo(torch.float32).eps > 1:
            raise ValueError("bad")
        with torch.cuda.device(self.device):
            k[(triton.cdiv(out.numel(), 1024),)](out, out.numel(), BLOCK=1024)
        return out
    """
    # `torch.broadcast_tensors` only builds views (allowed since a red-team found a legal kernel
    # rejected for it): no finding.
    assert hits(src) == []


def test_main_guard_is_skipped():
    src = """
    import torch

    def f(x):
        return x

    if __name__ == "__main__":
        import numpy as np
        print(torch.sum(f(torch.ones(3))), np.zeros(3))
    """
    assert hits(src) == []


def test_main_guard_is_scanned_when_name_is_rebound():
    src = """
    import torch
    __name__ = "__main__"
    if __name__ == "__main__":
        torch.sum(torch.ones(3))
    """
    # rebinding __name__ is itself refused since red team 44 (classes take it as their __module__)
    assert hits(src) == [(3, "monkey-patch"), (5, "torch-compute")]


def test_constant_flag_through_global_is_allowed():
    src = """
    _READY = False

    def f(x):
        global _READY
        _READY = True
        return x
    """
    assert hits(src) == []


# ------------------------------------------------------------------------------------------------
# One rejected snippet (or more) per rule: exact lines and rule ids
# ------------------------------------------------------------------------------------------------

# (id, source, kwargs, expected [(line, rule), ...])
CASES = [
    # syntax
    ("syntax", "def f(:\n    pass\n", {}, [(1, "syntax")]),
    # Triton's launch hooks, runtime classes and raw device pointers (red team 30)
    ("triton-knobs-hook", """
        import triton

        def f(x):
            triton.knobs.runtime.launch_enter_hook.add(print)
            return x
        """, {}, [(5, "monkey-patch")]),
    ("triton-autotuner-bench", """
        import triton
        from triton.runtime.autotuner import Autotuner

        def f(x):
            return Autotuner._bench(x, config=triton.Config({}))
        """, {}, [(6, "introspection")]),
    # fp31: a runtime class imported by name is judged where the name is read: a type position passes (typed code,
    # often under `if TYPE_CHECKING:`), a call, an alias, a default, a base class are refused at their lines
    ("triton-runtime-class-import-typing", """
        from typing import TYPE_CHECKING, Optional
        import triton
        from triton.runtime.autotuner import Autotuner
        if TYPE_CHECKING:
            from triton.runtime.jit import JITFunction

        def launch(kernel: "JITFunction", tuned: Optional[Autotuner] = None) -> None:
            if isinstance(tuned, Autotuner) or type(kernel) is Autotuner:
                return None
        """, {}, []),
    ("triton-runtime-class-import-uses", """
        from triton.runtime.autotuner import Autotuner
        from triton.runtime.jit import JITFunction as JF

        K = JF
        def g(fn, k=Autotuner):
            return JF(fn)

        class T(Autotuner):
            pass
        """, {}, [(5, "introspection"), (6, "introspection"), (7, "introspection"), (9, "introspection")]),
    ("triton-jitfunction", """
        import triton

        def f(g):
            return type(triton.runtime.jit.JITFunction(g).signature)
        """, {}, [(5, "introspection")]),
    ("triton-jitfunction-annotation", """
        import triton
        from typing import Optional

        def launch(kernel: triton.JITFunction, tuned: Optional[triton.runtime.Autotuner] = None) -> None:
            if isinstance(kernel, (triton.runtime.JITFunction, triton.runtime.autotuner.Heuristics)):
                return None
            size: triton.JITFunction = kernel
        """, {}, []),
    ("triton-autotuner-subclass", """
        import triton

        class T(triton.runtime.Autotuner):
            pass

        def f(k):
            return triton.runtime.JITFunction, k
        """, {}, [(4, "introspection"), (8, "introspection")]),
    ("cuda-array-interface", """
        def f(x):
            return x.__cuda_array_interface__["data"][0]
        """, {}, [(3, "raw-storage")]),
    # dispatch-recursion
    ("recursion-method", """
        def add_Tensor(x, y):
            return x.add(y)
        """, {"own_ops": frozenset({"add"})}, [(3, "dispatch-recursion")]),
    ("recursion-inplace-method", """
        def add_(x, y):
            return x.add_(y)
        """, {"own_ops": frozenset({"add"})}, [(3, "dispatch-recursion")]),
    ("recursion-torch-ops", """
        import torch
        def add_Tensor(x, y):
            return torch.ops.aten.add.Tensor(x, y)
        """, {"own_ops": frozenset({"add"})}, [(4, "dispatch-recursion")]),
    ("recursion-torch-fn", """
        import torch
        def cumsum(x, dim):
            y = torch.cumsum(x, dim)
            return x.cumsum(0)
        """, {"own_ops": frozenset({"cumsum"})}, [(4, "dispatch-recursion"), (5, "dispatch-recursion")]),
    ("recursion-softmax-family", """
        import torch.nn.functional as F
        import torch
        def _softmax(x, dim, h):
            a = F.softmax(x, dim)
            b = x.softmax(dim)
            return torch._softmax(x, dim, h)
        """, recursion_of("aten::_softmax"),
     [(5, "dispatch-recursion"), (6, "dispatch-recursion"), (7, "dispatch-recursion")]),
    ("recursion-to-copy", """
        import torch
        def _to_copy(x, *, dtype=None):
            if dtype is torch.float:
                return x.float()
            return x.to(dtype)
        """, recursion_of("aten::_to_copy"), [(5, "dispatch-recursion"), (6, "dispatch-recursion")]),
    ("recursion-allowed-method", """
        def contiguous(x, memory_format=None):
            return x.contiguous()
        """, {"own_ops": frozenset({"contiguous"})}, [(3, "dispatch-recursion")]),
    ("recursion-allowed-factory", """
        import torch
        def fill__Scalar(x, v):
            t = torch.zeros(3, device=x.device)
            return x
        """, recursion_of("aten::fill_"), [(4, "dispatch-recursion")]),
    ("recursion-vllm", """
        import torch
        def rms_norm(out, x, w, eps):
            out.copy_(torch.nn.functional.rms_norm(x, (x.shape[-1],), w, eps))
        """, {"own_ops": frozenset({"rms_norm"})}, [(4, "dispatch-recursion")]),
    # torch-compute
    ("torch-sum", """
        import torch
        def f(x):
            return torch.sum(x)
        """, {}, [(4, "torch-compute")]),
    ("torch-alias-module", """
        import torch as T
        def f(x):
            return T.sum(x)
        """, {}, [(4, "torch-compute")]),
    ("torch-alias-from", """
        from torch import sum as s
        def f(x):
            return s(x)
        """, {}, [(4, "torch-compute")]),
    ("torch-getattr-literal", """
        import torch
        def f(x):
            return getattr(torch, "sum")(x)
        """, {}, [(4, "torch-compute")]),
    ("torch-assigned-alias", """
        import torch
        s = torch.sum
        def f(x):
            g = torch.nn.functional
            return s(x) + g.gelu(x)
        """, {}, [(3, "torch-compute"), (6, "torch-compute"), (6, "torch-compute")]),
    ("torch-functional-variants", """
        import torch
        import torch.nn.functional as F
        from torch.nn import functional
        from torch.nn.functional import gelu
        def f(x):
            a = F.relu(x)
            b = functional.silu(x)
            c = gelu(x)
            return torch.nn.functional.softmax(x, -1)
        """, {}, [(7, "torch-compute"), (8, "torch-compute"), (9, "torch-compute"), (10, "torch-compute")]),
    ("torch-linalg-fft-special", """
        import torch
        def f(x):
            a = torch.linalg.norm(x)
            b = torch.fft.fft(x)
            return torch.special.erf(x)
        """, {}, [(4, "torch-compute"), (5, "torch-compute"), (6, "torch-compute")]),
    ("torch-ops-any", """
        import torch
        from torch import ops
        def f(x, y):
            return torch.ops.aten.mul.Tensor(x, y) + ops.aten.add(x, y)
        """, {}, [(3, "torch-compute"), (5, "torch-compute"), (5, "torch-compute")]),
    ("torch-random-state", """
        import torch
        def f(x):
            torch.manual_seed(0)
            return x
        """, {}, [(4, "torch-compute")]),
    ("torch-function-as-value", """
        import functools
        import torch
        f = functools.partial(torch.sum, dim=0)
        """, {}, [(4, "torch-compute")]),
    ("torch-clone-without-copies", """
        import torch
        def f(x):
            return torch.clone(x)
        """, {"allow_copies": False}, [(4, "torch-compute")]),
    # compile
    ("compile", """
        import torch
        @torch.compile
        def f(x):
            return torch.jit.script(x)
        """, {}, [(3, "compile"), (5, "compile")]),
    ("compile-imports", """
        import torch._dynamo
        from torch import _inductor
        """, {}, [(2, "compile"), (3, "compile")]),
    # tensor-method
    ("tensor-method", """
        def f(x, y):
            a = x.sum()
            b = x.float()
            c = y.to("cuda")
            d = x.cpu().numpy()
            e = x.tolist()
            return x.add(y)
        """, {}, [(3, "tensor-method"), (6, "tensor-method"), (7, "tensor-method"), (8, "tensor-method")]),
    # conversions (.float(), .to(), .cpu() on lines 4-6) are L3's to judge at run time, except as the op's own
    ("tensor-method-conversion-own-op", """
        def f(x, y):
            b = x.float()
            c = y.to("cuda")
            d = x.half()
            return b, c, d
        """, {"own_ops": frozenset({"_to_copy"}), "aliases": frozenset({"to", "float", "half"})},
     [(3, "dispatch-recursion"), (4, "dispatch-recursion"), (5, "dispatch-recursion")]),
    ("tensor-method-getattr", """
        def f(x):
            return getattr(x, "sum")()
        """, {}, [(3, "tensor-method")]),
    ("tensor-method-unbound", """
        import torch
        def f(x):
            return torch.Tensor.sum(x)
        """, {}, [(4, "tensor-method")]),
    ("tensor-method-copies-forbidden", """
        def f(x):
            y = x.contiguous()
            return y.clone()
        """, {"allow_copies": False}, [(3, "tensor-method"), (4, "tensor-method")]),
    # raw-storage
    ("raw-storage", """
        def f(x, y):
            p = x.data_ptr()
            s = x.untyped_storage()
            x.set_(y)
        """, {}, [(3, "raw-storage"), (4, "raw-storage"), (5, "raw-storage")]),
    # host-compute
    ("host-compute", """
        import numpy as np
        from scipy import special
        """, {}, [(2, "host-compute"), (3, "host-compute")]),
    # foreign-compute
    ("foreign-compute", """
        import ctypes
        import cupy
        from vllm import _custom_ops as ops
        from torch.utils.cpp_extension import load_inline
        from torch.utils import cpp_extension
        import flag_gems
        """, {}, [(2, "foreign-compute"), (3, "foreign-compute"), (4, "foreign-compute"),
                  (5, "foreign-compute"), (6, "foreign-compute"), (7, "foreign-compute")]),
    # forbidden-import
    ("forbidden-import", """
        import json
        from . import helper
        import torchvision
        """, {}, [(2, "forbidden-import"), (3, "forbidden-import"), (4, "forbidden-import")]),
    # file-io
    ("file-io", """
        import sys
        from pathlib import Path
        import torch
        def f(x):
            with open("/tmp/x") as fh:
                pass
            torch.save(x, "/tmp/y")
        """, {}, [(2, "file-io"), (3, "file-io"), (6, "file-io"), (8, "file-io")]),
    # process
    ("process", """
        import subprocess
        from concurrent.futures import ThreadPoolExecutor
        import multiprocessing as mp
        """, {}, [(2, "process"), (3, "process"), (4, "process")]),
    # network
    ("network", """
        import socket
        from urllib.request import urlopen
        """, {}, [(2, "network"), (3, "network")]),
    # threads
    ("threads", "import threading\nthreading.Thread(target=print).start()\n", {}, [(2, "threads")]),
    # dynamic-import
    ("dynamic-import", """
        import importlib
        from torch.nn.functional import *
        import builtins
        """, {}, [(2, "dynamic-import"), (3, "dynamic-import"), (4, "dynamic-import")]),
    # introspection
    ("introspection-imports", """
        import inspect
        import gc
        from types import FrameType
        """, {}, [(2, "introspection"), (3, "introspection"), (4, "introspection")]),
    ("introspection-attrs", """
        import sys
        def f(x, fn):
            a = x.__class__
            b = fn.__globals__
            c = sys._getframe(1).f_back
            d = type(x).__mro__
            return __builtins__
        """, {}, [(2, "file-io"), (4, "introspection"), (5, "introspection"), (6, "introspection"),
                  (6, "introspection"), (7, "introspection"), (8, "introspection")]),
    # exec-eval
    ("exec-eval", """
        def f(x, src):
            exec(src)
            y = eval("x + 1")
            code = compile(src, "<s>", "exec")
            m = __import__("os")
            g = globals()
            run = eval
            return vars(x)
        """, {}, [(3, "exec-eval"), (4, "exec-eval"), (5, "exec-eval"), (6, "exec-eval"), (7, "exec-eval"),
                  (8, "exec-eval"), (9, "exec-eval")]),
    # dynamic-attr
    ("dynamic-attr", """
        import torch
        def f(x, name, obj):
            fn = getattr(torch, name)
            setattr(obj, name, 1)
            g = getattr
            return hasattr(x, name)
        """, {}, [(4, "dynamic-attr"), (5, "dynamic-attr"), (6, "dynamic-attr"), (7, "dynamic-attr")]),
    # monkey-patch
    ("monkey-patch", """
        import torch
        import triton
        import triton.language as tl
        import torch.nn.functional as F
        torch.add = None
        torch.Tensor.add = lambda self, other: self
        triton.jit = None
        tl.x = 1
        F.softmax = None
        setattr(torch, "mul", None)
        del torch.sub
        torch.backends.cuda.matmul.allow_tf32 = True
        """, {}, [(6, "monkey-patch"), (7, "monkey-patch"), (8, "monkey-patch"), (9, "monkey-patch"),
                  (10, "monkey-patch"), (11, "monkey-patch"), (12, "monkey-patch"), (13, "monkey-patch")]),
    ("monkey-patch-functions", """
        import torch
        from torch import Tensor
        def f(x):
            global torch
            torch = None
            Tensor.sum = None
            type(x).foo = 1
            torch.library.Library("aten", "IMPL")
        """, {}, [(6, "monkey-patch"), (7, "monkey-patch"), (8, "monkey-patch"), (9, "monkey-patch")]),
    ("monkey-patch-through-expressions", """
        import functools
        import enum
        def mine():
            return []
        def f(x, out):
            [enum.IntEnum][0].__eq__ = None
            next(iter([enum.IntEnum])).__hash__ = None
            functools.reduce(max, [enum.IntEnum]).x = 1
            (enum.IntEnum or x).y = 1
            out.view(-1)[:3] = 0
            mine().append = None
            x[0].y = 1
        """, {}, [(7, "monkey-patch"), (8, "monkey-patch"), (9, "monkey-patch"), (10, "monkey-patch")]),
    # streams
    ("streams", """
        import torch
        def f(x):
            s = torch.cuda.Stream()
            with torch.cuda.stream(s):
                g = torch.cuda.CUDAGraph()
            x.record_stream(s)
        """, {}, [(4, "streams"), (5, "streams"), (6, "streams"), (7, "streams")]),
    # timer
    ("timer", """
        import time
        import torch
        import triton
        from triton.testing import do_bench
        def f(x):
            e = torch.cuda.Event(enable_timing=True)
            return triton.testing.do_bench(lambda: x)
        """, {}, [(2, "timer"), (5, "timer"), (7, "timer"), (8, "timer")]),
    # L2 ghost-replay channels: what tells a real launch from a replay's no-op
    ("ghost-channel-polls", """
        import torch
        def f(x, ev):
            done = torch.cuda.current_stream().query()
            return done, ev.elapsed_time(ev)
        """, {}, [(4, "timer"), (5, "timer")]),
    ("ghost-channel-warnings", """
        import warnings
        from warnings import catch_warnings
        def f(x):
            warnings.warn("fine")
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
            return w
        """, {}, [(3, "introspection"), (6, "introspection"), (7, "introspection")]),
    ("ghost-channel-triton-state", """
        import triton
        from triton.runtime.interpreter import interpreter_builder
        @triton.autotune(configs=[], key=[])
        @triton.jit
        def _k(p):
            pass
        def f(x):
            triton.runtime.interpreter.interpreter_builder.set_grid_dim(1, 1, 1)
            return _k.cache, _k.device_caches, getattr(_k, "rewritten_fn"), _k.best_config
        """, {}, [(3, "introspection"), (9, "introspection"), (10, "introspection"), (10, "introspection"),
                  (10, "introspection"), (10, "introspection")]),
    ("ghost-channel-jit-side-effect", """
        import triton
        import triton.language as tl
        @triton.jit
        def _k(p, BOX: tl.constexpr):
            BOX.append(1)
            BOX[0] = 2
            v = tl.sort(tl.load(p))
            acc = tl.add(v, v)
            acc += v.sort()  # the method form reads like list.sort(); tl.sort(v) is the way
        def f(x):
            box = []
            box.append(0)
            _k[(1,)](x, BOX=box)
            return box
        """, {}, [(6, "kernel-body"), (7, "kernel-body"), (10, "kernel-body")]),
    # kernel bodies call only Triton: a user method or any other Python callable would run in a normal
    # launch and not in a ghost replay's no-op (red-team: PR.mark() on an object passed as tl.constexpr)
    ("kernel-body-calls", """
        import functools
        import operator
        import torch
        import triton
        import triton.language as tl
        def _plain(x):
            return x
        @triton.jit
        def _helper(x):
            return x
        _alias = _helper
        @triton.jit
        def _k(p, PR: tl.constexpr, FN: tl.constexpr, G: tl.constexpr):
            PR.mark()
            getattr(PR, "mark")()
            PR.to(tl.float32)
            _plain(p)
            FN(p)
            _alias(p)
            operator.setitem(PR, 0, 1)
            next(G)
            torch.empty(1)
            print(p, file=PR)
            m = max(G) + min(1, 2, key=PR.key)
            tl.reduce(p, 0, PR.combine)
            for i in G:
                pass
            with PR:
                pass
            _helper(p)[0]()
        class _Probe:
            def to(self, dt):
                return self
        """, {}, [(15, "kernel-body"), (16, "kernel-body"), (17, "kernel-body"), (18, "kernel-body"),
                  # line 19, FN(p): FN is a tl.constexpr parameter, allowed (the launch rule admits only
                  # Triton values there); see test_a_constexpr_parameter_may_be_called_...; line 20, _alias(p): a
                  # module-level variable (fp31), allowed like a closure variable (the launch rule admits only
                  # Triton values as the globals a body reads); see test_a_module_variable_may_be_called_...
                  (21, "kernel-body"), (22, "kernel-body"),
                  (23, "kernel-body"), (24, "kernel-body"), (25, "kernel-body"), (25, "kernel-body"),
                  (26, "kernel-body"), (27, "kernel-body"), (29, "kernel-body"), (31, "kernel-body")]),
    ("ghost-channel-exception-chain", """
        def f(x):
            try:
                return x
            except Exception as e:
                return e.__cause__, e.__context__, e.__traceback__
        """, {}, [(6, "introspection"), (6, "introspection"), (6, "introspection")]),
]


@pytest.mark.parametrize("source,kw,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rejected(source, kw, expected):
    assert hits(source, **kw) == expected


def test_every_rule_is_exercised():
    exercised = {rule for *_, expected in CASES for _, rule in expected}
    assert exercised == set(RULES)


# ------------------------------------------------------------------------------------------------
# Specific behaviours the brief names
# ------------------------------------------------------------------------------------------------

def test_add_method_depends_on_own_ops():
    src = "def add_Tensor(x, y):\n    return x.add(y)\n"
    assert hits(src, own_ops=frozenset({"add"})) == [(2, "dispatch-recursion")]
    assert hits(src) == [(2, "tensor-method")]
    assert hits(src, own_ops=frozenset({"mul"})) == [(2, "tensor-method")]


def test_torch_ops_add_depends_on_own_ops():
    src = "import torch\ndef f(x, y):\n    return torch.ops.aten.add.Tensor(x, y)\n"
    assert hits(src, own_ops=frozenset({"add"})) == [(3, "dispatch-recursion")]
    assert hits(src) == [(3, "torch-compute")]


def test_dtype_named_like_own_op_is_not_recursion():
    # `torch.float` / `torch.int` are dtypes; only calls of .float() / .int() reach _to_copy
    src = "import torch\nDT = (torch.float, torch.int, torch.bool)\n"
    assert hits(src, **recursion_of("aten::_to_copy")) == []


def test_recursion_message_of_a_vllm_op_names_the_library_not_only_the_dispatcher():
    """fresh38: torch.nn.functional.rms_norm in a vllm::rms_norm wrapper said only that "under the harness's
    registration it dispatches back into the submission", which the harness never does for a vLLM operator (it
    registers ATen wrappers only): the message now says PyTorch would do the work, the dispatcher as the ATen case."""
    src = "import torch\ndef rms_norm(out, input, weight, epsilon):\n" \
          "    out.copy_(torch.nn.functional.rms_norm(input, (input.shape[-1],), weight, epsilon))\n"
    found = scan_source(src, **recursion_of("vllm::rms_norm"))
    assert [(f.line, f.rule) for f in found] == [(3, "dispatch-recursion")], found
    assert ("reaches the op this submission replaces (rms_norm): PyTorch or a library would do the work instead of "
            "the submission's Triton kernels (for an ATen operator, under the harness's registration the call "
            "dispatches back into the submission)") in found[0].message, found[0].message


def test_jit_bodies_allow_tensor_methods_but_not_torch_calls():
    src = """
    import torch
    import triton
    import triton.language as tl
    from triton import jit

    @jit
    def k1(x_ptr, BLOCK: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, BLOCK)).to(tl.float32)
        s = x.sum(0) + tl.sum(x, axis=0) + x.exp().max()
        tl.store(x_ptr, s)

    @triton.jit
    def k2(x_ptr):
        y = torch.sum(x_ptr)

    def not_jit(x):
        return x.sum(0)
    """
    assert hits(src) == [(15, "torch-compute"), (18, "tensor-method")]


def test_homemade_jit_decorator_does_not_exempt():
    src = """
    def jit(fn):
        return fn

    @jit
    def cheat(x):
        return x.sum()
    """
    assert hits(src) == [(7, "tensor-method")]


def test_jit_decorator_aliases():
    src = """
    import triton as tr
    from triton import autotune, heuristics, Config

    @autotune(configs=[Config({"B": 1})], key=[])
    @heuristics({"E": lambda a: True})
    @tr.jit
    def k(x):
        y = x.to(x.dtype).sum()
    """
    assert hits(src) == []


def test_allowed_methods_and_factories():
    src = """
    import torch
    def f(x, shape):
        a = x.size(0) + x.stride(0) + x.dim() + x.numel() + x.element_size() + x.storage_offset()
        v = x.view(-1).reshape(shape).expand(shape).permute(1, 0).transpose(0, 1).t()
        v = v.unsqueeze(0).squeeze(0).flatten().narrow(0, 0, 1).select(0, 0)
        c = x.contiguous().clone()
        c.copy_(x)
        n = x.new_empty((2,)).zero_().fill_(1)
        n.resize_((3,))
        o = torch.zeros_like(x) if x.is_contiguous() else torch.empty_strided((2,), (1,), device=x.device)
        r = torch.arange(4, device=x.device)
        z = x.detach().requires_grad_(False)
        i = x[0].item()
        d = {"a": 1}.get("a")
        s = "a,b".split(",")
        return torch.iinfo(torch.int32).max, d, s, "x{}".format(1), x.split(1), x.chunk(2), x.unbind(0)
    """
    assert hits(src) == []


def test_python_container_methods_not_flagged():
    src = """
    def f(configs, d, names):
        ks = list(d.keys()) + list(d.values()) + [v for _, v in d.items()]
        configs.append(1)
        configs.extend([2])
        names.index("a")
        return ", ".join(names).strip().lower()
    """
    assert hits(src) == []


def test_local_containers_may_be_mutated():
    src = """
    TABLE = {"a": 1}
    def f(x):
        acc = {}
        acc["k"] = TABLE["a"]
        out = []
        out.append(acc)
        def helper(i):
            out.append(i)
        return out
    """
    assert hits(src) == []


def test_module_level_table_built_at_import_is_fine():
    src = """
    _T = {}
    for _k in ("a", "b"):
        _T[_k] = len(_k)
    _T["c"] = 3
    def f(k):
        return _T[k]
    """
    assert hits(src) == []


def test_message_names_code_line_and_rule():
    [f] = scan_source("import torch\n\ndef f(x):\n    return torch.sum(x)\n")
    assert f == Finding(
        4, 11, "torch-compute",
        "line 4: torch.sum(x) computes with PyTorch: torch.sum is not on the allowlist of allocation, "
        "view, metadata and device-query functions; the result must come from a Triton kernel "
        "(rule torch-compute)",
    )


def test_syntax_error_position():
    [f] = scan_source("x = 1\ny = (\n", filename="sub.py")
    assert (f.line, f.rule) == (2, "syntax")
    assert f.message.startswith("line 2:") and "sub.py" in f.message and f.message.endswith("(rule syntax)")
    [g] = scan_source("def f():\n  return 1 +\n")
    assert (g.line, g.col, g.rule) == (2, 12, "syntax")


def test_findings_sorted_and_frozen():
    src = "import sys\nimport torch\ndef f(x):\n    return torch.sum(x), x.sum()\nimport json\n"
    fs = scan_source(src)
    assert [(f.line, f.col, f.rule) for f in fs] == [
        (1, 0, "file-io"), (4, 11, "torch-compute"), (4, 25, "tensor-method"), (5, 0, "forbidden-import"),
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        fs[0].line = 3  # type: ignore[misc]


def test_rules_have_descriptions():
    assert all(isinstance(v, str) and v and "\n" not in v for v in RULES.values())
    assert "tensor-method" in RULES and "syntax" in RULES


def test_scan_file(tmp_path):
    p = tmp_path / "aten__add.py"
    p.write_text("import torch\ndef add_Tensor(x, y):\n    return x.add(y)\n")
    assert [(f.line, f.rule) for f in scan_file(p, own_ops=frozenset({"add"}))] == [(3, "dispatch-recursion")]
    assert [(f.line, f.rule) for f in scan_file(str(p))] == [(3, "tensor-method")]
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"def f(:\n")
    assert [(f.line, f.rule) for f in scan_file(bad)] == [(1, "syntax")]
    with pytest.raises(OSError):
        scan_file(tmp_path / "missing.py")


def test_reassigned_name_is_not_an_alias():
    # `out` is a dtype first and a tensor later: `out.stride(0)` must not read as torch.float32.stride
    src = """
    import torch
    def f(x):
        out = torch.float32
        out = torch.empty(3, dtype=out)
        return out.stride(0)
    """
    assert hits(src) == []


def test_literal_getattr_of_harmless_names_is_fine():
    src = """
    import torch
    def f(x):
        return getattr(x, "shape"), getattr(torch, "float16"), getattr(x, "stride")(0), hasattr(x, "dtype")
    """
    assert hits(src) == []


def test_augmented_and_chained_stores():
    src = """
    import triton.language as tl
    A = B = {}
    tl.x += 1
    def f(k):
        B.update(k=k)
    """
    assert hits(src) == [(4, "monkey-patch")]  # B.update(): state across calls, not judged by L1


def test_pointer_array_idiom_is_rejected():
    # cat/stack kernels sometimes pass a device array of input pointers: raw storage (torch.tensor of a
    # list of Python ints is allowed since issue 11 item 2.2; data_ptr() stays raw-storage)
    src = """
    import torch
    def cat(tensors, dim=0):
        ptrs = torch.tensor([t.data_ptr() for t in tensors], device=tensors[0].device)
        return ptrs
    """
    assert hits(src) == [(4, "raw-storage")]


def test_monkey_patch_message_names_the_owner():
    [f] = scan_source("import torch\ntorch.Tensor.add = None\n")
    assert f.message == (
        "line 2: torch.Tensor.add changes torch.Tensor, which belongs to another module; modules and "
        "classes defined elsewhere must not be modified (rule monkey-patch)"
    )


def test_tensor_subclasses_dispatch_handlers_and_jit_bodies_called_as_python_are_rejected() -> None:
    src = '''
import torch
import triton

class Box(torch.Tensor):
    pass

class Handler:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))

@triton.jit
def body(x):
    return x.sum()

def wrapper(x):
    return body.fn(x)

def helper(x):
    return x

def fine(x, obj):
    return obj.fn, helper(x)
'''
    rules = [(f.line, f.rule) for f in scan_source(src)]
    assert (5, "introspection") in rules and (10, "introspection") in rules and (18, "introspection") in rules
    assert not any(line >= 20 for line, _ in rules)  # .fn of something undecorated is not flagged


def test_kernel_bodies_may_call_triton_and_jit_helpers() -> None:
    # the kernel-body rule: calls that resolve to Triton, math, @triton.jit functions of the submission,
    # the builtins Triton compiles, and methods of Triton values; classes without implicit methods
    src = """
    import dataclasses
    import enum
    import math
    from typing import NamedTuple
    import triton
    import triton.language as tl
    from triton.language.extra import libdevice

    @dataclasses.dataclass(frozen=True)
    class Cfg:
        block: int = 128

    class Pair(NamedTuple):
        a: int
        b: int

    class Mode(enum.Enum):
        FAST = 1

    @triton.jit
    def _combine(a, b):
        return a + b

    @triton.jit
    def _helper(x, DT: tl.constexpr):
        return libdevice.exp(x).to(DT)

    @triton.jit
    def _k(x_ptr, y_ptr, n, BLOCK: tl.constexpr, K: tl.constexpr):
        pid = tl.program_id(0).to(tl.int64)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        DT: tl.constexpr = y_ptr.dtype.element_ty
        HALF: tl.constexpr = max(BLOCK // 2, 1) + min(K, 4) + int(math.log2(BLOCK)) + len((1, 2))
        if DT.is_fp16() or isinstance(K, int) or hasattr(tl, "float8e4nv"):
            x = x.to(tl.float32, bitcast=False)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for i in tl.static_range(K):
            acc += _helper(x, tl.float32)
        for j in range(0, triton.cdiv(n, BLOCK)):
            acc = tl.where(acc > 0, acc, tl.math.exp(acc))
        s = tl.reduce(acc, 0, _combine) + acc.reduce(0, _combine) + x.sum(0) + tl.sum(x, axis=0)
        y = getattr(tl, "maximum")(acc, s).to(DT)
        print("y", HALF)
        tl.store(y_ptr + offs, y, mask=offs < n)

    def make():
        @triton.jit
        def inner(x):
            return x

        @triton.jit
        def outer(x):
            return inner(x)
        return outer
    """
    assert hits(src) == []


CROSS_CALL_STATE = {
    # the red-team case: launch configurations cached in a module-level dict
    "module-dict": """
        _CFG = {}
        def block(n):
            if n not in _CFG:
                _CFG[n] = min(1024, n)
            return _CFG[n]
        """,
    "closure-dict": """
        def _make():
            cfg = {}
            def block(n):
                if n not in cfg:
                    cfg[n] = min(1024, n)
                return cfg[n]
            return block
        block = _make()
        """,
    "lru-cache": """
        import functools
        @functools.lru_cache(maxsize=None)
        def block(n):
            return min(1024, n)
        """,
    "default-dict": """
        def block(n, _cfg={}):
            if n not in _cfg:
                _cfg[n] = min(1024, n)
            return _cfg[n]
        """,
    "global-rebind": """
        _LAST = None
        def block(n):
            global _LAST
            _LAST = (n, min(1024, n))
            return _LAST[1]
        """,
    "function-attribute": """
        def block(n):
            block.last = min(1024, n)
            return block.last
        """,
    "module-list-and-deque": """
        import collections
        _SEEN = []
        _RECENT = collections.deque(maxlen=4)
        def block(n):
            _SEEN.append(n)
            _RECENT.appendleft(n)
            return min(1024, n)
        """,
}


@pytest.mark.parametrize("form", sorted(CROSS_CALL_STATE))
def test_state_across_calls_gets_one_verdict_in_every_form(form):
    # What a cache holds (results or launch configuration) cannot be decided statically, and where it
    # lives does not matter; L1 passes every form and leaves result caches to the dynamic tiers
    # (module docstring, "State across calls").
    assert hits(CROSS_CALL_STATE[form]) == []


def test_global_rebinding_of_an_imported_name_is_still_monkey_patching():
    src = """
    import torch
    def f(x):
        global torch
        torch = None
    """
    assert hits(src) == [(5, "monkey-patch")]


def test_classes_may_define_special_methods_and_properties() -> None:
    # Special methods and properties run implicitly (P + 1, if P:, P.hits); in a kernel body on the
    # interpreter that would be a ghost-replay channel, but no object of a submission's class reaches a
    # kernel body: the runtime launch rule (sandbox/launch_args.py, tests/test_launch_args.py) rejects it
    # as an argument or a global. L1 no longer judges class bodies (red-team false reject: a host-side
    # config class with __repr__ and a property).
    src = """
        import dataclasses
        import functools
        import torch
        class _Probe:
            def __init__(self):
                self.n = 0
            def __add__(self, other):
                return other
            def __bool__(self):
                return True
            @property
            def hits(self):
                return self.n
            @functools.cached_property
            def more(self):
                return 1
            size = property(lambda self: 1)
        class _Mod(torch.nn.Module):
            pass
        _P = type("P", (), {"__add__": lambda s, o: o})
        _Q = dataclasses.make_dataclass("Q", [], namespace={"__bool__": lambda s: True})
        """
    assert hits(src) == []


def test_a_constexpr_parameter_may_be_called_in_a_kernel_body_but_not_another_parameter() -> None:
    """``FN: tl.constexpr`` called as ``FN(x)`` (a jit function passed in; the runtime launch check admits
    only Triton values there) passes L1; the same call of a parameter without the constexpr annotation,
    or of a module-level name that is no jit function, does not."""
    from kernelgenbench.verify.scan import scan_source

    head = "import triton\nimport triton.language as tl\n\n@triton.jit\n"
    ok = head + "def k(x_ptr, FN: tl.constexpr):\n    x = tl.load(x_ptr)\n    tl.store(x_ptr, FN(x))\n"
    plain = head + "def k(x_ptr, FN):\n    x = tl.load(x_ptr)\n    tl.store(x_ptr, FN(x))\n"
    other = ("def G(x):\n    return x\n" + head
             + "def k(x_ptr, FN: tl.constexpr):\n    tl.store(x_ptr, G(tl.load(x_ptr)))\n")
    assert [f for f in scan_source(ok) if f.rule == "kernel-body"] == []
    assert [f.rule for f in scan_source(plain)] == ["kernel-body"]
    assert [f.rule for f in scan_source(other)] == ["kernel-body"]


def test_a_module_variable_may_be_called_in_a_kernel_body_but_not_a_plain_def() -> None:
    """fp31: jit helpers made by a factory and bound to module-level names (``_rescale, _exp = _helpers()``,
    ``_alias = _helper``) were refused by L1 although the same helpers read as closure variables pass: the runtime
    launch check judges every global a kernel body reads (only Triton values, jit functions among them, whose bodies
    are judged as kernel bodies; a plain function or object there fails as ``profile``). A name bound by a def or
    class that is not @triton.jit stays refused."""
    from kernelgenbench.verify.scan import scan_source

    made = """
import triton
import triton.language as tl

def _helpers():
    @triton.jit
    def rescale(a, b):
        return tl.exp(a - b)

    @triton.jit
    def twice(x):
        return x * 2
    return rescale, twice

_rescale, _twice = _helpers()
_alias = _twice

@triton.jit
def k(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, _alias(_rescale(x, _twice(x))))
"""
    assert scan_source(made) == []
    for bad in ("def _twice(x):\n    return x\n", "class _twice:\n    pass\n"):
        src = made.replace("_rescale, _twice = _helpers()\n", "_rescale = _helpers()[0]\n" + bad)
        assert "kernel-body" in [f.rule for f in scan_source(src)], bad


def test_constexpr_function_bodies_follow_the_kernel_body_rule() -> None:
    """A ``@triton.constexpr_function`` body runs inside the kernel body that calls it on the interpreter
    (every launch, never in a ghost replay): a store into a Python object there (red-team: a call
    counter on the function object, read by the wrapper to tell a ghost replay apart) is a kernel-body
    finding; pure scalar code (``bit_length``, ``abs``, ``math``) and the kernel's call of it pass."""
    legal = """
        import math
        import triton
        import triton.language as tl

        @triton.constexpr_function
        def _np2(x):
            return max(abs(int(x)), 1 << (int(x) - 1).bit_length(), int(math.log2(16)))

        @triton.jit
        def k(x_ptr, N: tl.constexpr):
            offs = tl.arange(0, _np2(N))
            tl.store(x_ptr + offs, tl.load(x_ptr + offs))
        """
    counter = """
        import triton
        import triton.language as tl

        @triton.constexpr_function
        def _tick(x):
            _tick.n += 1
            return x

        _tick.n = 0

        @triton.jit
        def k(p, FN: tl.constexpr):
            FN(0)
        """
    host_call = """
        import triton

        def helper(x):
            return x

        @triton.constexpr_function
        def _f(x):
            return helper(x)
        """
    assert hits(legal) == []
    assert [r for _, r in hits(counter)] == ["kernel-body"]
    assert [r for _, r in hits(host_call)] == ["kernel-body"]


def test_functions_made_kernels_by_a_call_are_kernel_bodies() -> None:
    """``triton.jit(f)`` / ``triton.constexpr_function(f)`` / ``triton.autotune(...)(f)`` called, not used
    as decorators (red-team: f's body was scanned as host code and mutated a module's list); and a
    constexpr function may loop over tuples and use pure builtins and str methods."""
    calls = """
        _LOG = []
        import triton

        def _a(p):
            _LOG.append(None)

        def _b(x):
            _b.n = 1
            return x

        def _c(p):
            _LOG.pop()

        KA = triton.jit(_a)
        KB = triton.constexpr_function(fn=_b)
        KC = triton.autotune(configs=[], key=[])(triton.jit(_c))
        """
    legal = """
        import triton

        @triton.constexpr_function
        def _prod(dims, dt):
            p = 1
            for d in dims:
                p *= d
            t = tuple(i * 2 for i in range(p))
            return max(t) + sum(x for x in t) + len(f"{dt}".upper())
        """
    assert [r for _, r in hits(calls)] == ["kernel-body"] * 3
    assert hits(legal) == []


def test_a_function_that_ran_as_a_kernel_is_scanned_as_one_on_demand() -> None:
    """scan.scan_kernel_body: the verifier's scan of a function that ran as a kernel body although
    the file-level scan did not follow how it became one (a project decorator calling triton.jit)."""
    from kernelgenbench.verify.scan import scan_kernel_body

    src = textwrap.dedent("""
        _LOG = []
        import triton

        def kernel(fn):
            return triton.jit(fn)

        @kernel
        def good(p):
            pass

        @kernel
        def bad(p):
            _LOG.append(None)

        def fn(p):
            _LOG.append(None)
        """)
    assert hits(src) == []  # host code at file level; `fn` (the decorator's parameter name) stays host code
    assert scan_kernel_body(src, "good", 8) == []
    assert [f.rule for f in scan_kernel_body(src, "bad", 12)] == ["kernel-body"]
    assert scan_kernel_body(src, "bad", 13) == [f for f in scan_kernel_body(src, "bad", 12)]  # def line
    assert scan_kernel_body(src, "missing", 8) is None


# ------------------------------------------------------------------------------------------------
# Issue 11 item 2.3: cmath is allowed like math (JIT-only scalar overloads); numpy & co. stay forbidden
# ------------------------------------------------------------------------------------------------

def test_cmath_is_allowed_like_math_for_scalar_overloads() -> None:
    """aten.md: the JIT-only scalar overloads follow Python ``math``/``cmath``; a submission that
    implements ``asin.complex`` with ``cmath.asin`` must pass L1 (it was ``host-compute``)."""
    src = """
    import cmath
    import math
    import numbers
    import operator
    from cmath import log10 as clog10, sqrt

    def asin_complex(a):
        return cmath.asin(complex(a))

    def asin_Scalar(a):
        if isinstance(a, numbers.Complex) and not isinstance(a, numbers.Real):
            return asin_complex(a)
        return math.asin(operator.index(a)) if isinstance(a, int) else math.asin(a)

    def log10_complex(a):
        return clog10(a) + 0 * sqrt(1j) + cmath.pi - cmath.pi
    """
    assert hits(src) == []


def test_host_numeric_libraries_stay_forbidden() -> None:
    src = """
    import numpy
    import statistics
    from decimal import Decimal
    from fractions import Fraction
    import scipy.special
    import mpmath
    """
    assert hits(src) == [(2, "host-compute"), (3, "host-compute"), (4, "host-compute"), (5, "host-compute"),
                         (6, "host-compute"), (7, "host-compute")]


def test_cmath_in_a_kernel_body_is_not_triton() -> None:
    # math.* is mapped by Triton in a kernel body; cmath is not: a kernel-body finding
    src = """
    import cmath
    import triton
    import triton.language as tl

    @triton.jit
    def k(p):
        tl.store(p, cmath.sqrt(tl.load(p)))
    """
    assert hits(src) == [(8, "kernel-body")]


def test_forbidden_import_names_every_allowed_module() -> None:
    from kernelgenbench.verify.scan import IMPORT_ALLOWED, IMPORT_ORDER

    [f] = scan_source("import json\n")
    listed = f.message.split("(", 1)[1].split(")", 1)[0].split(", ")
    assert listed == list(IMPORT_ORDER) and set(listed) == IMPORT_ALLOWED and "cmath" in listed
    assert all(m in RULES["forbidden-import"] for m in IMPORT_ORDER)


# ------------------------------------------------------------------------------------------------
# Issue 12 class 6: plain host Python (lists, dicts, tuples, sets, strings, numbers) is not tensor code
# ------------------------------------------------------------------------------------------------

def test_methods_of_plain_python_values_are_not_tensor_methods() -> None:
    """Names bound only to plain Python values (literals, comprehensions, list()/sorted()/set()/...,
    tensor metadata, str methods, arithmetic of those) may call methods whose names torch.Tensor also
    has, even when the name is the op being replaced."""
    src = """
    import collections
    import math
    import torch

    def sort(x, dim=-1, descending=False, names=()):
        shape = list(x.shape)
        shape.sort()
        order = sorted(range(x.dim()), key=lambda d: x.stride(d))
        order.sort(reverse=True)
        idx = shape.index(max(shape))
        zeros = x.stride().count(0) + tuple(x.size()).count(1)
        d = {}
        e = d.copy()
        e.sort()  # a plain Python value's method, whatever its name (AttributeError at run time)
        sizes = [x.size(i) for i in range(x.dim())]
        last = sizes.pop()
        seen = set(range(3)) | {dim}
        seen.add(last)
        tag = str(x.dtype).split(".")[-1].split("_")
        left, *rest = x.shape
        rest.sort()
        n = 0
        for s in x.shape:
            n += s
            s.add(1)  # an element of frozen host data (x.shape) is frozen host data
        n.add(1)
        c = collections.Counter(shape)
        c.subtract(shape)
        w = math.prod(x.shape) + n
        w.add(1)
        z = (shape + [1]) if names else shape[1:]
        z.sort()
        return shape, idx, zeros, tag, left, w
    """
    assert hits(src, own_ops=frozenset({"sort", "add", "split", "index", "copy_"})) == []


def test_host_inference_is_conservative() -> None:
    """A name is plain Python only when every binding of it in its scope is: a rebinding to a tensor, a
    parameter, a loop over a tensor, an unknown call, a `global`/`nonlocal` rebinding anywhere, a
    comprehension target over a tensor (also when the name is a list outside it), an element of a list
    (a list may be given a tensor: `.append(x)`), or an attribute name the submission gives its own
    objects keeps today's verdict."""
    src = """
    import math
    import torch

    _TABLE = []

    def reset(x):
        global _TABLE
        _TABLE = x

    def sort(x, names, dim=-1):
        xs = []
        xs = x
        xs.sort()
        ys = [] if names else x
        ys.sort()
        names.sort()
        for row in x:
            row.sort()
        a, *rest = x
        a.sort()
        v = math.floor(x)
        v.sort()
        m = max(x, x)
        m.sort()
        u = helper(x)
        u.sort()
        _TABLE.sort()
        k = x.shape[0] == x
        k.sort()
        def inner():
            nonlocal zs
            zs = x
        zs = []
        zs.sort()
        o = _Obj()
        o.shape.sort()
        ws = []
        out = [ws.sort() for ws in x] + [r.sort() for r in names]
        lst = [1, 2]
        lst.append(x)
        lst[2].sort()
        for e in lst:
            e.sort()
        return xs, out

    def helper(x):
        return x

    class _Obj:
        shape = None

    def made(x):
        import dataclasses
        P = dataclasses.make_dataclass("P", ["stride"])
        p = P(x)
        s = p.stride()
        s.sort()
        return s
    """
    lines = [14, 16, 17, 19, 21, 23, 25, 27, 28, 30, 35, 37, 39, 39, 42, 44, 58]
    assert hits(src, own_ops=frozenset({"sort"})) == [(ln, "dispatch-recursion") for ln in lines]
    assert hits(src) == [(ln, "tensor-method") for ln in lines]


def test_host_levels_settle_exactly_over_long_chains() -> None:
    # a worklist settles the levels: the last binding decides the whole chain, in either direction
    chain = "".join(f"    a{i} = a{i + 1} + 1\n" for i in range(300))
    assert hits("def f(x):\n" + chain + "    a300 = x\n    a0.sort()\n") == [(303, "tensor-method")]
    assert hits("def f(x):\n" + chain + "    a300 = 5\n    a0.sort()\n") == []


def test_host_levels() -> None:
    """scan.scope host_level on expressions of one scope: host data (no tensor anywhere), a plain
    Python value (never a tensor, contents unknown), unknown."""
    import ast

    from kernelgenbench.verify import scan as l1
    from kernelgenbench.verify.scan.scanner import _Scanner

    src = textwrap.dedent("""
    import math
    import torch
    def f(x, p):
        a = [1, 2.0, "s", None, True]
        b = [x, 1]
        c = (x.shape[0], x.stride(1), x.numel(), len(p), int(p), float(p), x.item(), math.pi)
        d = {"k": x}
        e = list(x)
        g = torch.finfo(x.dtype).max
        h = [i * 2 for i in range(x.dim())]
        i = a + b
        j = x + 1
        k = p
        m = torch.Size([2, 3])
        return a
    """)
    tree = ast.parse(src)
    sc = _Scanner(src, frozenset(), True)
    sc.scopes.append(sc.build_scope(tree))
    fn = tree.body[2]
    sc.scopes.append(sc.build_scope(fn))
    levels = {stmt.targets[0].id: sc.host_level(stmt.value) for stmt in fn.body if isinstance(stmt, ast.Assign)}
    assert levels == {"a": l1.HOST_DATA, "b": l1.HOST, "c": l1.FROZEN_DATA, "d": l1.HOST, "e": l1.HOST,
                      "g": l1.FROZEN_DATA, "h": l1.HOST_DATA, "i": l1.HOST, "j": l1.UNKNOWN, "k": l1.UNKNOWN,
                      "m": l1.FROZEN_DATA}
    # a name keeps frozen data; a list bound to a name may be given a tensor later: a plain Python value
    assert sc.scopes[-1].host == {n: min(v, l1.HOST) if v < l1.FROZEN_DATA else v for n, v in levels.items() if v}


# ------------------------------------------------------------------------------------------------
# Issue 11 item 2.2: torch.tensor / torch.as_tensor / x.new_tensor of Python data is data movement
# ------------------------------------------------------------------------------------------------

def test_tensors_built_from_python_data_are_allowed() -> None:
    """Fill values and shape/stride tables built from Python numbers, lists and tuples (like
    torch.full: data movement, not computation); also through names bound only to such values."""
    src = """
    import math
    import torch
    from torch import tensor as T

    _TABLE = (1, 2, 4)

    def f(x, value, sizes, dims):
        a = torch.tensor(2.0, dtype=x.dtype, device=x.device)
        b = torch.tensor([1, 2, 3], dtype=torch.int64)
        c = torch.tensor(x.shape) + 0 * torch.tensor(x.stride())
        d = torch.as_tensor(list(x.stride()), device=x.device)
        e = x.new_tensor([0.5, float(value)])
        g = torch.tensor([int(s) for s in sizes], dtype=torch.int32)
        h = torch.tensor(data=[x.size(0), x.stride(0)])
        i = T(_TABLE) if x.dim() else torch.tensor(math.pi)
        meta = []
        for k in range(x.dim()):
            meta += [x.size(k), x.stride(k)]
        j = torch.tensor(meta, dtype=torch.int64, device=x.device)
        shape = list(dims)
        k = torch.tensor(shape[1:] + [1])
        m = torch.tensor(torch.finfo(x.dtype).min)
        n = torch.tensor([value])
        return a, b, c, d, e, g, h, i, j, k, m, n
    """
    assert hits(src) == []


def test_tensors_built_from_what_may_be_a_tensor_stay_rejected() -> None:
    """torch.tensor(t) copies (and with a dtype converts) a tensor with PyTorch: what L1 cannot prove
    is Python data keeps today's verdict (a parameter, a tensor expression, a name also bound to a
    tensor, an unknown call); the reference as a value, asarray, and a kernel body too."""
    src = """
    import torch
    import triton

    def f(x, value):
        a = torch.tensor(x, dtype=torch.float64)
        b = torch.as_tensor(x[0])
        c = x.new_tensor(value)
        d = torch.tensor(value)
        xs = []
        xs = x
        e = torch.tensor(xs)
        g = torch.tensor(helper(x))
        h = torch.asarray([1, 2])
        make = torch.tensor
        i = torch.Tensor.new_tensor(x, x)
        return a, b, c, d, e, g, h, make, i

    def helper(x):
        return x

    @triton.jit
    def k(p):
        t = torch.tensor([1])
    """
    assert hits(src) == [(6, "torch-compute"), (7, "torch-compute"), (8, "tensor-method"), (9, "torch-compute"),
                         (12, "torch-compute"), (13, "torch-compute"), (14, "torch-compute"), (15, "torch-compute"),
                         (16, "tensor-method"), (17, "torch-compute"), (24, "kernel-body")]  # 17: `make` (an alias)


def test_tensor_from_data_message_names_the_argument_and_the_fix() -> None:
    [f] = scan_source("import torch\ndef f(x):\n    return torch.tensor(x, dtype=torch.float64)\n")
    assert f == Finding(
        3, 11, "torch-compute",
        "line 3: torch.tensor(x, dtype=torch.float64) builds a tensor from `x`, which L1 cannot prove is Python "
        "data (a number, list or tuple) rather than a tensor: torch.tensor of a tensor copies or converts it with "
        "PyTorch. Build it from Python values (literals, x.shape, x.stride(), int()/float() of a scalar, a list "
        "or tuple of them) or pass the values to the kernel as arguments (rule torch-compute)",
    )


# ------------------------------------------------------------------------------------------------
# Issue 11 item 2.4: every finding is reported, the most relevant first
# ------------------------------------------------------------------------------------------------

MANY_FINDINGS = """\
import sys
import numpy as np
import torch


def neg(self):
    out = torch.empty_like(self)
    out.copy_(self.neg())
    return torch.sum(out) * 0 + out
"""


def test_findings_are_ranked_by_relevance_then_position() -> None:
    from kernelgenbench.verify.scan import RULE_RELEVANCE, rank_findings

    fs = scan_source(MANY_FINDINGS, own_ops=frozenset({"neg"}))
    assert [(f.line, f.rule) for f in fs] == [(1, "file-io"), (2, "host-compute"), (8, "dispatch-recursion"),
                                            (9, "torch-compute")]  # scan order: by position
    assert [(f.line, f.rule) for f in rank_findings(fs)] == [
        (8, "dispatch-recursion"), (9, "torch-compute"), (2, "host-compute"), (1, "file-io")]
    assert RULE_RELEVANCE[:2] == ("syntax", "dispatch-recursion") and RULE_RELEVANCE[-1] == "forbidden-import"
    assert set(RULE_RELEVANCE) == set(RULES)


def test_describe_findings_lists_each_with_its_line_and_rule() -> None:
    from kernelgenbench.verify.scan import describe_findings, rank_findings

    fs = scan_source(MANY_FINDINGS, own_ops=frozenset({"neg"}))
    lines = describe_findings(fs).splitlines()
    header = "L1 static scan (4 findings, the most relevant first): "
    assert lines[0].startswith(header + "line 8: self.neg() calls neg")
    assert [lines[0][len(header):], *lines[1:]] == [f.message for f in rank_findings(fs)]
    assert [ln.split(":")[0] for ln in lines[1:]] == ["line 9", "line 2", "line 1"]
    assert [ln.rsplit("(rule ", 1)[1] for ln in lines] == [
        "dispatch-recursion)", "torch-compute)", "host-compute)", "file-io)"]
    # one finding: the message as it always was
    [one] = scan_source("import torch\ndef f(x):\n    return torch.sum(x)\n")
    assert describe_findings([one]) == "L1 static scan: " + one.message
    assert describe_findings([one], "L1 static scan of k (line 3)") == "L1 static scan of k (line 3): " + one.message
    # bounded: past the limit, the rest are counted by rule
    capped = describe_findings(fs, limit=2).splitlines()
    assert len(capped) == 3 and capped[1].startswith("line 9:")
    assert capped[2] == "... and 2 more (host-compute x1, file-io x1); the job record keeps up to 100"


def test_findings_record_keeps_all_bounded_and_counts_them() -> None:
    from kernelgenbench.verify.scan import findings_record

    fs = scan_source(MANY_FINDINGS, own_ops=frozenset({"neg"}))
    rec = findings_record(fs)
    assert rec["ok"] is False and rec["count"] == 4
    assert rec["rules"] == {"dispatch-recursion": 1, "torch-compute": 1, "host-compute": 1, "file-io": 1}
    assert list(rec["rules"]) == ["dispatch-recursion", "torch-compute", "host-compute", "file-io"]
    assert rec["findings"][0].startswith("line 8: self.neg()") and len(rec["findings"]) == 4
    small = findings_record(fs, limit=1)
    assert small["count"] == 4 and len(small["findings"]) == 1
    assert findings_record([]) == {"ok": True, "count": 0, "rules": {}, "findings": []}
    many = scan_source("import torch\ndef f(x):\n" + "".join(f"    torch.sum(x{i})\n" for i in range(150)))
    assert len(many) == 150 and findings_record(many)["count"] == 150 and len(findings_record(many)["findings"]) == 100


# -- second red team: honest styles that were rejected --------------------------------------------------------

def test_an_alignment_check_of_data_ptr_is_allowed() -> None:
    """``x.data_ptr() % 16 == 0`` (production wrappers pick vectorised paths by it) says how a buffer is
    aligned, never where: allowed for a literal modulus up to 1024; any other use of data_ptr stays raw-storage."""
    ok = "def f(x):\n    return x.data_ptr() % 16 == 0 and (x.data_ptr() % 128) == 0\n"
    assert scan_source(ok) == []
    for bad in ("def f(x):\n    return x.data_ptr()\n", "def f(x):\n    return x.data_ptr() % 4096\n",
                "def f(x, n):\n    return x.data_ptr() % n\n", "def f(x):\n    return x.data_ptr() // 16\n"):
        assert [f.rule for f in scan_source(bad)] == ["raw-storage"], bad


def test_reading_an_environment_variable_through_os_is_allowed() -> None:
    """``import os`` to read ``TRITON_INTERPRET`` (block sizes for the interpreter) is honest; anything else of
    os (files, processes, writing the environment, os.path) stays file-io."""
    ok = ('import os\nfrom os import getenv\n_I = os.environ.get("TRITON_INTERPRET", "0") == "1"\n'
          '_J = os.getenv("X") or getenv("Y")\n')
    assert scan_source(ok) == []
    for bad in ('import os\nos.system("ls")\n', 'import os\nos.environ["X"] = "1"\n', 'import os\nE = os.environ\n',
                'import os\nos.listdir(".")\n', 'from os import path\n', 'import os.path\n',
                'import os\nf = getattr(os, "remove")\n'):
        assert "file-io" in {f.rule for f in scan_source(bad)}, bad


def test_the_conversions_l1_leaves_to_l3_are_the_names_that_reach_to_copy():
    """L1 does not judge .to()/.float()/... (a no-op when the tensor already has the dtype and device); the set it
    leaves to L3's trace is exactly the family the _to_copy rows hold submissions to (their recursion aliases)."""
    from kernelgenbench.suite.aten.copies import TO_FAMILY
    from kernelgenbench.verify.scan import TENSOR_CONVERSION_METHODS

    assert TENSOR_CONVERSION_METHODS == TO_FAMILY
    assert hits("def f(x):\n    return x.to(x.dtype).float().cpu()\n") == []
    assert hits("def f(x):\n    return x.float()\n", **recursion_of("aten::_to_copy")) == [(2, "dispatch-recursion")]


@pytest.mark.parametrize("call,what", [("x.tolist()", "reads every element of the tensor to the host"),
                                       ("x.numpy()", "reads the tensor to the host as a NumPy array"),
                                       ("torch.Tensor.tolist(x)", "reads every element of the tensor to the host")])
def test_host_read_findings_say_what_they_are(call, what):
    """.tolist()/.numpy() stay findings (README: a wrapper reads single scalars), but the text calls them host
    reads and says why, not "computes with PyTorch"; .item() is allowed, and the scalar-read operators'
    rule allows .tolist()."""
    [f] = scan_source(f"import torch\n\ndef f(x):\n    return {call}\n")
    assert f.rule == "tensor-method" and what in f.message and "host read" in f.message, f.message
    assert "computes with PyTorch" not in f.message and "What a submission may do" in f.message
    assert scan_source("import torch\n\ndef f(x):\n    return x.item()\n") == []
    policy = get_operator("aten::item").scan_policy()
    assert scan_source("import torch\n\ndef f(x):\n    return x.tolist()\n", **policy) == []


def test_torch_library_wrap_triton_alone_is_allowed():
    """``torch.library.wrap_triton`` registers nothing (red team 26): allowed as an import and a call; the rest of
    torch.library (Library, impl, custom_op, register_kernel) stays ``monkey-patch``."""
    ok = textwrap.dedent('''
        import torch
        import triton
        from torch.library import wrap_triton

        @triton.jit
        def k(x):
            pass

        def f(x):
            wrap_triton(k)[(1,)](x)
            torch.library.wrap_triton(k)[(1,)](x)
            return x
    ''')
    assert scan_source(ok) == []
    for bad in ("from torch.library import wrap_triton, Library", "from torch.library import impl",
                "import torch.library", "x = torch.library.Library('aten', 'IMPL')"):
        rules = {f.rule for f in scan_source("import torch\n" + bad + "\n")}
        assert "monkey-patch" in rules, (bad, rules)


# ------------------------------------------------------------------------------------------------
# Modules as values (red team 28)
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("src", [
    "import torch\nfor _t in (torch,):\n    _t.save = print\n",                       # a loop variable
    "import torch\ndef f(m):\n    m.save = print\nf(torch)\n",                        # a parameter
    "import torch\nm = [torch][0]\nm.save = print\n",                                 # a display's element
    "import triton.language as tl\ndef f(m=tl):\n    return m\n",                    # a default
    "import torch\nm = getattr(torch, 'cuda') if True else 0\n",                      # a conditional
    "import torch\nm = torch\nm = 1\n",                                                # a name not only an alias
    "import functools\nx = [functools.reduce, functools]\n",                          # a module in a list
])
def test_a_module_used_as_a_value_is_a_finding(src: str) -> None:
    found = [f for f in scan_source(src) if f.rule == "dynamic-import"]
    assert found and "as a value" in found[0].message, scan_source(src)


def test_modules_read_through_attributes_probes_and_aliases_are_allowed() -> None:
    src = textwrap.dedent('''
        import torch
        import triton
        import triton.language as tl
        libdevice = tl.math
        F = getattr(tl, "math")
        HAS_DESC = hasattr(tl, "make_tensor_descriptor") and hasattr(triton, "set_allocator")
        ON_GPU = torch.cuda.is_available()
        def f(x):
            return libdevice.exp(x) if HAS_DESC else F.exp(x)
    ''')
    assert [f for f in scan_source(src) if "as a value" in f.message] == []


def test_a_libdevice_version_fallback_between_triton_language_modules_is_allowed() -> None:
    """False-rejection hunt 28: ``libdevice`` bound by an import and, on ImportError (or in an else branch), to
    ``tl.math`` was a dynamic-import finding (a name bound twice is not one alias). Both are Triton language
    modules, so the name's uses are judged alike; a fallback to a PyTorch module or a name also bound otherwise
    stays a finding, and a store through the name stays monkey-patch."""
    head = "import torch\nimport triton.language as tl\n"
    for ok in ("try:\n    from triton.language.extra import libdevice\nexcept ImportError:\n    libdevice = tl.math\n",
               "if hasattr(tl, 'extra'):\n    libdevice = tl.extra.cuda.libdevice\nelse:\n    libdevice = tl.math\n"):
        assert scan_source(head + ok) == [], ok
    for bad, want in (
            ("try:\n    from triton.language.extra import libdevice\nexcept ImportError:\n    libdevice = torch\n",
             (6, "dynamic-import")),
            ("if 1:\n    m = tl.math\nelse:\n    m = torch\n", (6, "dynamic-import")),
            ("m = tl.math\nfor m in (torch,):\n    pass\n", (3, "dynamic-import")),
            ("if 1:\n    m = tl.math\nelse:\n    m = tl.extra.cuda.libdevice\nm.exp = 3\n", (7, "monkey-patch"))):
        assert want in hits(head + bad), (bad, scan_source(head + bad))
    # the one-line conditional stays a finding, and its message shows the statement form that passes
    found = scan_source(head + "libdevice = tl.extra.cuda.libdevice if hasattr(tl, 'extra') else tl.math\n")
    assert found and all("except ImportError: libdevice = tl.math" in f.message for f in found), found


def test_building_a_torch_return_types_result_is_allowed() -> None:
    """False-rejection hunt 28: ``torch.return_types.sort((v, i))`` packs a result as ATen returns it (the sandbox
    accepts these classes); it was torch-compute, and dispatch-recursion for the op of the same name. Other
    callables of torch.return_types stay findings."""
    for op in ("sort", "max", "topk"):
        src = (f"import torch\nR = torch.return_types.{op}\n"
               f"def f(v, i):\n    return torch.return_types.{op}((v, i)), R((v, i))\n")
        assert scan_source(src, own_ops=frozenset({op})) == [], op
    assert hits("import torch\nx = torch.return_types.pytree_register_structseq(1)\n") == [(2, "torch-compute")]


def test_the_harness_state_reached_through_a_loop_variable_is_a_finding() -> None:
    # red team 28: the child's STATE (ghost flag, trace switch) through torch.serialization.sys.modules
    src = "import torch\nfor _t in (torch,):\n    S = _t.serialization.sys.modules['kernelgenbench.sandbox.state']\n"
    assert hits(src) == [(2, "dynamic-import")]


def test_a_torch_class_read_as_a_value_outside_type_positions_is_a_finding() -> None:
    """Red team 28: torch._C._DisableTorchDispatch in a tuple, called through the loop variable, turned the L3 trace
    off around PyTorch compute (a class read as a value was 'fine'; only calls of torch names were judged)."""
    src = textwrap.dedent('''
        import torch
        for D in (torch._C._DisableTorchDispatch,):
            pass
        OFF = [torch._C._DisableTorchDispatch]
        Alias = torch._C._DisableTorchDispatch
        def f(x: torch.Tensor, d: torch.dtype = torch.float32) -> "torch.Tensor":
            if isinstance(x, (torch.Tensor, int)) or type(x) is torch.Tensor:
                return Alias()
            try:
                pass
            except torch.OutOfMemoryError:
                pass
            return (torch.Tensor, torch.Generator)
    ''')
    assert hits(src) == [(3, "torch-compute"), (5, "torch-compute"), (9, "torch-compute")]


def test_contextlib_context_managers_pass_and_its_process_changing_parts_do_not() -> None:
    """False-rejection hunt 28: ``import contextlib`` was refused as a whole; nullcontext, contextmanager and suppress
    are what wrappers use, chdir/redirect_stdout change the process and ExitStack keeps callbacks for later."""
    ok = """
        import contextlib
        from contextlib import nullcontext

        @contextlib.contextmanager
        def scope():
            with contextlib.suppress(ValueError):
                yield

        def f(x):
            with nullcontext(), scope():
                return x
    """
    assert hits(ok) == []
    for bad in ("contextlib.chdir('/tmp')", "contextlib.redirect_stdout(None)", "contextlib.ExitStack()"):
        found = hits(f"import contextlib\n\ndef f(x):\n    {bad}\n    return x\n")
        assert found == [(4, "introspection")], (bad, found)


def test_host_argument_checks_and_device_selection_pass() -> None:
    """Wrappers validate arguments with ``torch._check`` and friends (a Python condition, a message callable run only
    on failure) and pick the inputs' GPU with ``torch.cuda.set_device``: no computation, no finding. The tensor form
    ``torch._check_tensor_all`` reduces its argument with PyTorch and stays a finding."""
    ok = """
        import torch

        def f(x, y):
            torch._check(x.dim() == 2, lambda: f"x must be 2-D, got {x.dim()}")
            torch._check_value(x.dtype == y.dtype, lambda: "dtypes differ")
            torch._check_index(x.size(0) > 0)
            torch.cuda.set_device(x.device)
            return torch.empty_like(x)
    """
    assert hits(ok) == []
    assert hits("import torch\n\ndef f(x):\n    torch._check_tensor_all(x > 0)\n    return x\n") == \
        [(4, "torch-compute")]


def test_ravel_and_flag_reads_pass() -> None:
    """False-rejection hunt 29: ``x.ravel()``/``torch.ravel`` are ``reshape(-1)`` (a view, or a same-dtype copy
    that L3 judges as reshape's), and the deterministic-algorithms, stream-capture, bf16-support and is-compiling
    switches are flag reads wrappers branch on."""
    ok = """
        import torch

        def f(x):
            a = x.ravel()
            b = torch.ravel(x)
            if torch.are_deterministic_algorithms_enabled() or torch.compiler.is_compiling():
                return a
            if torch.cuda.is_current_stream_capturing() or torch.cuda.is_bf16_supported():
                return b
            if torch.accelerator.is_available() and torch.accelerator.device_count() > 1:
                return a[: torch.accelerator.current_device_index() + 1]
            return a
    """
    assert hits(ok) == []
    assert hits("import torch\n\ndef f(x):\n    torch.use_deterministic_algorithms(True)\n    return x\n") == \
        [(4, "torch-compute")]


def test_matmul_precision_and_other_flag_reads_pass() -> None:
    """False-rejection hunt 31: a drop-in mm that follows PyTorch's fp32 matmul precision
    (``torch.get_float32_matmul_precision()``, as ``torch.backends.cuda.matmul.allow_tf32`` is read), warn-only
    determinism, autocast and the older ``torch.compiler.is_dynamo_compiling()`` reads flags; setting them stays
    refused."""
    ok = """
        import torch
        from torch.compiler import is_dynamo_compiling

        def f(x):
            prec = "ieee" if torch.get_float32_matmul_precision() == "highest" else "tf32"
            if torch.is_deterministic_algorithms_warn_only_enabled() or torch.is_autocast_enabled():
                return prec
            if torch.compiler.is_dynamo_compiling() or is_dynamo_compiling():
                return prec
            return torch.backends.cuda.matmul.allow_tf32
    """
    assert hits(ok) == []
    assert hits("import torch\n\ndef f(x):\n    torch.set_float32_matmul_precision('high')\n    return x\n") == \
        [(4, "torch-compute")]


def test_triton_knobs_findings_say_what_knobs_are() -> None:
    """fp31: a read of ``triton.knobs.runtime.interpret`` (an interpreter check) was refused with the text of PyTorch's
    dispatcher ("registers into or overrides the PyTorch dispatcher"); the finding now names Triton's settings and
    hooks and the allowed way to read TRITON_INTERPRET. Still refused (rule monkey-patch)."""
    from kernelgenbench.verify.scan import scan_source

    for src in ("import triton\nBIG = not triton.knobs.runtime.interpret\n", "from triton import knobs\n"):
        found = scan_source(src)
        assert [f.rule for f in found] == ["monkey-patch"], found
        assert "PyTorch dispatcher" not in found[0].message and "os.environ.get" in found[0].message, found[0].message


def test_abstract_base_classes_pass_and_abcs_internals_do_not() -> None:
    """fp31: ``import abc`` for an op object's abstract base class (``abc.ABC``, ``@abc.abstractmethod``) passes;
    the rest of abc (its private registry helpers) is refused."""
    ok = """
        import abc
        from abc import ABC, abstractmethod

        class UnaryOp(abc.ABC):
            @abc.abstractmethod
            def kernel(self):
                ...

        class Base(ABC, metaclass=abc.ABCMeta):
            @abstractmethod
            def run(self, x):
                ...
    """
    assert hits(ok) == []
    assert hits("import abc\n\nabc._reset_registry(abc.ABC)\n") == [(3, "introspection")]


def test_a_combine_function_may_be_a_constexpr_parameter_closure_or_module_variable() -> None:
    """fp31: a generic scan/reduce kernel taking its combine function as ``COMBINE: tl.constexpr`` (or from a factory's
    closure, or a module-level variable) was refused for ``tl.associative_scan``/``tl.reduce`` although calling the
    same name directly passes; the launch rule admits only jit functions there (a plain function fails as
    ``profile``: tests/bad/py_combine). An attribute or another computed value stays refused."""
    from kernelgenbench.verify.scan import scan_source

    src = """
import triton
import triton.language as tl

def _make():
    @triton.jit
    def mul(a, b):
        return a * b
    return mul

_mul = _make()

@triton.jit
def scan(x_ptr, o_ptr, N, COMBINE: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r, mask=r < N, other=0)
    y = tl.associative_scan(x, 0, COMBINE) + tl.reduce(x, 0, combine_fn=COMBINE) + x.reduce(0, _mul)
    tl.store(o_ptr + r, y + tl.associative_scan(x, 0, _mul), mask=r < N)

def make_scan(combine):
    @triton.jit
    def k(x_ptr, o_ptr, N, BLOCK: tl.constexpr):
        r = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + r, mask=r < N, other=0)
        tl.store(o_ptr + r, tl.associative_scan(x, 0, combine), mask=r < N)
    return k
"""
    assert scan_source(src) == []
    bad = src.replace("tl.associative_scan(x, 0, combine)", "tl.associative_scan(x, 0, (combine, 1)[0])")
    assert [f.rule for f in scan_source(bad)] == ["kernel-body"]


def test_alignment_checks_with_a_mask_or_a_module_constant_pass() -> None:
    """fp31: ``x.data_ptr() & 15`` (a low-bit mask) and ``x.data_ptr() % _ALIGN`` (``_ALIGN = 16`` at module level) say
    no more than ``% 16``; a wide mask, a large or rebound constant and a parameter stay refused (raw-storage)."""
    src = """
        _ALIGN = 16
        _BIG = 1 << 40
        _TWICE = 16
        _TWICE = 32

        def f(x):
            a = x.data_ptr() % 16 == 0
            b = (x.data_ptr() & 15) == 0
            c = x.data_ptr() % _ALIGN == 0
            return a, b, c

        def g(x, _ALIGN=8):
            return x.data_ptr() & 0xFFFFFFFF, x.data_ptr() % _BIG, x.data_ptr() & 12, x.data_ptr() % _TWICE, \\
                x.data_ptr() % _ALIGN
    """
    assert hits(src) == [(14, "raw-storage")] * 4 + [(15, "raw-storage")]


def test_type_positions_do_not_hand_classes_out() -> None:
    """fp31 (a lead for the red team, found while hunting false rejections): L1 admits classes it refuses as values
    (torch._C._DisableTorchDispatch, red team 28's; Triton's runtime classes) in type positions. Three ways got them
    out: a submission's own ``isinstance`` (``def isinstance(x, cls): return cls``), a comparison whose other operand's
    ``__eq__`` keeps what it is given, and ``f.__annotations__``. Identity comparisons, isinstance where the file does
    not rebind it, and literals beside ``==`` stay type positions."""
    grab = """
        import torch
        import triton

        def isinstance(x, cls):
            return cls

        class Grab:
            def __eq__(self, other):
                return other is None

        def _t(k: torch._C._DisableTorchDispatch):
            pass

        def f(x):
            a = isinstance(x, torch._C._DisableTorchDispatch)
            b = Grab() == triton.JITFunction
            c = _t.__annotations__
            return a, b, c
    """
    assert hits(grab) == [(16, "torch-compute"), (17, "introspection"), (18, "introspection")]
    ok = """
        import torch
        import triton

        def f(k, x):
            if type(k) is triton.JITFunction or isinstance(k, triton.runtime.Autotuner):
                return None
            if type(x) is not torch._C._DisableTorchDispatch and triton.JITFunction != None:
                return x
    """
    assert hits(ok) == []


# ------------------------------------------------------------------------------------------------
# Red team 31: library classes as bases, assigned dispatch handlers, tensor subclasses by what they are,
# Triton values' internals in kernel bodies, evaluated annotations, Triton's build and cache helpers
# ------------------------------------------------------------------------------------------------

def test_library_classes_as_bases_are_judged_like_their_use() -> None:
    """Red team 31 (A): a base class was a type position, so any PyTorch class passed L1 as a base and the subclass
    was 'the submission's own class': torch.package's _SysImporter imported the harness's state, a
    torch._C._DisableTorchDispatch subclass turned the L3 trace off, a TorchDispatchMode from torch.autograd.graph ran
    inside launches. Of torch and triton only nn.Module, autograd.Function and exceptions may be bases now; a base
    L1 cannot name (a call's result, ``*bases``, a name bound to a computed value, a parameter) is refused too."""
    src = textwrap.dedent('''
        import torch
        import triton
        import triton.language as tl
        from torch._C import _DisableTorchDispatch as Off

        class A(torch.package.importer._SysImporter):
            pass
        class B(torch._C._DisableTorchDispatch):
            pass
        class C(torch.autograd.graph._CloneArgBeforeMutateMode):
            pass
        class D(Off):
            pass
        class E(triton.Config):
            pass
        class F(tl.tensor):
            pass
        class G(object, metaclass=torch._C._TensorMeta):
            pass
        class H(type(torch.empty(0))):
            pass
        K = type(torch.empty(0))
        class I(K):
            pass
        def make(base):
            class J(base):
                pass
            return J
        class L(torch.utils.flop_counter.FlopCounterMode):
            pass
    ''')
    assert hits(src) == [(7, "monkey-patch"), (9, "monkey-patch"), (11, "monkey-patch"), (13, "monkey-patch"),
                         (15, "monkey-patch"), (17, "monkey-patch"), (19, "monkey-patch"), (21, "introspection"),
                         (24, "introspection"), (27, "introspection"), (30, "monkey-patch")]


def test_legal_base_classes_still_pass() -> None:
    """What honest submissions subclass (tests/good): nn.Module, autograd.Function, enums, NamedTuple (class and call
    forms), dataclasses, exceptions (Python's, PyTorch's, Triton's), Generic[...] and the submission's own classes."""
    ok = """
        import collections
        import dataclasses
        import enum
        import typing
        from typing import NamedTuple

        import torch
        import triton

        T = typing.TypeVar("T")
        _P = collections.namedtuple("_P", "a b")

        class Mod(torch.nn.Module):
            def forward(self, x):
                return x
        class Fn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x
        class Mode(enum.IntEnum):
            A = 1
        class Pair(NamedTuple):
            a: int
            b: int
        class P2(_P):
            pass
        class P3(collections.namedtuple("P3", "x y")):
            pass
        @dataclasses.dataclass(frozen=True)
        class Cfg:
            block: int = 128
        class Oops(Exception):
            pass
        class Oom(torch.OutOfMemoryError):
            pass
        class Tri(triton.runtime.errors.OutOfResources):
            pass
        class Box(typing.Generic[T]):
            pass
        class Sub(Mod):
            pass
        class Plain(object):
            pass
        Alias = Mode
        class Again(Alias):
            pass
    """
    assert hits(ok) == []


def test_tensor_subclasses_are_told_by_what_the_base_is() -> None:
    """Red team 31 (C): the tensor-subclass check matched the base's last name (Tensor, _TensorBase, TensorBase); a
    torch.nn.Parameter subclass reopened tests/bad/tensor_subclass. Any torch.Tensor subclass as a base is refused."""
    src = textwrap.dedent('''
        import torch
        from torch.nn import Parameter as P

        class A(torch.nn.Parameter):
            pass
        class B(P):
            pass
        class C(torch.nn.parameter.UninitializedParameter):
            pass
        class D(torch.nn.Buffer):
            pass
        class E(torch.Tensor):
            pass
    ''')
    found = scan_source(src)
    assert [(f.line, f.rule) for f in found] == [(5, "introspection"), (7, "introspection"), (9, "introspection"),
                                                  (11, "introspection"), (13, "introspection")]
    assert all("subclasses torch.Tensor" in f.message for f in found)


def test_dispatch_handlers_are_refused_however_they_are_bound() -> None:
    """Red team 31 (B): L1 looked only for ``def __torch_dispatch__``; an assigned handler (``__torch_dispatch__ =
    f``, ``classmethod(f)``), a stored attribute, setattr with the name, or a type() namespace key binds it too."""
    src = textwrap.dedent('''
        def _h(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

        class A:
            __torch_dispatch__ = _h
        class B:
            __torch_function__ = classmethod(_h)
        class C:
            pass
        C.__torch_dispatch__ = _h
        setattr(C, "__torch_function__", _h)
        D = type("D", (), {"__torch_dispatch__": _h})
        E = type("E", (), dict(__torch_function__=_h))
    ''')
    assert hits(src) == [(6, "introspection"), (8, "introspection"), (11, "introspection"), (12, "introspection"),
                         (13, "introspection"), (14, "introspection")]


def test_kernel_bodies_may_not_read_the_internals_of_triton_values() -> None:
    """Red team 31 (D): on the interpreter ``x.handle.data`` is the NumPy array behind a block, whose cumsum/sum share
    names with tl.tensor's methods: NumPy computed a scan inside a "kernel". ``.handle`` and ``_``-prefixed attributes
    of anything in a kernel body are refused; the public attributes and methods stay allowed."""
    bad = textwrap.dedent('''
        import triton
        import triton.language as tl

        @triton.jit
        def k(x_ptr, y_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs)
            s = tl.zeros_like(x)
            x.handle.data.cumsum(axis=0, out=s.handle.data)
            v = x._flatten_ir
            h = getattr(x, "handle")
            tl.store(y_ptr + offs, s)
    ''')
    assert hits(bad) == [(10, "kernel-body"), (10, "kernel-body"), (11, "kernel-body"), (12, "kernel-body")]
    ok = textwrap.dedent('''
        import triton
        import triton.language as tl

        @triton.jit
        def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < N).to(tl.float32)
            bits: tl.constexpr = y_ptr.dtype.element_ty.primitive_bitwidth
            t = tl.reshape(x, (BLOCK // 2, 2)).T
            if x.dtype.is_fp16():
                x = x * 2
            tl.store(y_ptr + offs, tl.sum(t, axis=0).to(y_ptr.dtype.element_ty) + x.shape[0] + bits, mask=offs < 2)
    ''')
    assert hits(ok) == []


def test_annotation_evaluators_are_refused_and_string_annotations_are_scanned_as_code() -> None:
    """Red team 31 (F): typing.get_type_hints evaluated a string annotation, ``__import__('kernelgenbench.sandbox
    .state').STATE``, source L1 never parsed. The evaluators (get_type_hints, ForwardRef), private members of the
    allowed standard modules (typing._eval_type; dataclasses._create_fn runs exec) and ``__annotations__`` are refused,
    and every string annotation is scanned as the expression it holds (so what functools.singledispatch evaluates is
    scanned code)."""
    src = textwrap.dedent('''
        import dataclasses
        import typing
        from typing import get_type_hints

        def f(a: "__import__('os').system"):
            pass
        def g(a: typing.Optional["torch.sum(a)"] = None) -> "eval('1')":
            pass
        H = typing.get_type_hints(f)
        R = typing.ForwardRef("x")._evaluate(None, None, frozenset())
        E = typing._eval_type
        M = dataclasses._create_fn
        f.__annotations__["a"] = "x"
        __annotations__["b"] = "y"
    ''')
    assert hits(src) == [(4, "exec-eval"), (6, "exec-eval"), (8, "tensor-method"), (8, "exec-eval"),
                         (10, "exec-eval"), (11, "exec-eval"), (12, "introspection"), (13, "introspection"),
                         (14, "introspection"), (15, "introspection")]


def test_plain_and_string_annotations_stay_legal() -> None:
    """Annotations are for readers: ``from __future__ import annotations``, forward references as strings, typing
    constructs, functools.singledispatch with plain annotations, enum's sunder names."""
    ok = """
        from __future__ import annotations

        import enum
        import functools
        from typing import Optional, Literal

        import torch
        import triton

        class Mode(enum.Enum):
            @staticmethod
            def _generate_next_value_(name, start, count, last_values):
                return name

        def f(x: torch.Tensor, out: Optional["torch.Tensor"] = None, how: Literal["a", "b"] = "a") -> "torch.Tensor":
            y: "Optional[torch.Tensor]" = out
            return x if y is None else y

        def kern(k: "triton.JITFunction") -> None:
            pass

        @functools.singledispatch
        def size(v) -> int:
            return 0

        @size.register
        def _(v: int) -> int:
            return v
    """
    assert hits(ok) == []


def test_tritons_build_cache_and_compiler_internals_are_refused() -> None:
    """Red team 31 (G): triton.runtime.build.compile_module_from_src compiled the submission's C source and imported
    it; _load_module_from_path imports any file and the cache manager writes files. Outside triton.language only the
    decorators, Config, cdiv/next_power_of_2, the device queries and the tensor descriptor are allowed."""
    src = textwrap.dedent('''
        import triton
        from triton.runtime.build import _load_module_from_path
        from triton.runtime import build

        EXT = triton.runtime.build.compile_module_from_src("", "m")
        M = build._load_module_from_path("m", "/tmp/m.so")
        triton.runtime.cache.get_cache_manager("k").put(b"", "f")
        K = triton.compile(None)
        D = triton.runtime.driver.active.utils.load_binary
    ''')
    assert hits(src) == [(3, "foreign-compute"), (4, "foreign-compute"), (6, "foreign-compute"), (7, "foreign-compute"),
                         (8, "file-io"), (8, "tensor-method"), (9, "introspection"), (10, "introspection")]
    ok = """
        import torch
        import triton
        import triton.language as tl
        from triton.language.extra import libdevice
        from triton.runtime import driver
        from triton.tools.tensor_descriptor import TensorDescriptor

        @triton.autotune(configs=[triton.Config({"B": 64})], key=["n"])
        @triton.heuristics({"E": lambda a: a["n"] % 64 == 0})
        @triton.jit
        def k(x, n, B: tl.constexpr, E: tl.constexpr):
            tl.store(x, libdevice.exp(tl.load(x)))

        def f(x: torch.Tensor, kernel: triton.JITFunction = k) -> torch.Tensor:
            dev = driver.active.get_active_torch_device()
            sms = triton.runtime.driver.active.utils.get_device_properties(0)["multiprocessor_count"]
            grid = (triton.cdiv(x.numel(), triton.next_power_of_2(sms)),)
            try:
                kernel[grid](x, x.numel())
            except triton.compiler.errors.CompilationError:
                raise
            return TensorDescriptor.from_tensor(x, [16]), dev, triton.__version__
    """
    assert hits(ok) == []


def test_aliases_in_a_class_body_are_not_followed() -> None:
    """A plain alias of a PyTorch class or a module is allowed where the scan resolves its uses by name; in a class body
    it becomes an attribute (``H.Q()``, ``H.m._C...``) that the scan does not resolve (found while closing red team 31:
    ``class H: Q = torch._C._DisableTorchDispatch`` then ``with H.Q():`` passed L1). A base class reached through such
    an attribute (``class X(H.P)``) is refused as well."""
    src = textwrap.dedent('''
        import torch

        class H:
            Q = torch._C._DisableTorchDispatch
            m = torch
            P = torch.nn.Parameter
            D = torch.float32
        def f(x):
            with H.Q():
                return x * 2
        class X(H.P):
            pass
    ''')
    assert hits(src) == [(5, "torch-compute"), (6, "dynamic-import"), (12, "introspection")]


def test_classes_made_at_run_time_have_their_bases_judged() -> None:
    """A class statement's bases are judged (red team 31); a class made by a call must not escape that:
    ``type("X", (torch.Tensor,), {k: handler})`` with a computed handler name made a tensor subclass. Bases written in
    the call are judged like a class statement's, bases L1 cannot see (a variable) are refused, and so are metaclasses
    (their ``__new__`` picks bases at run time) and ``type.__new__``. Namespaces stay free (special methods)."""
    src = textwrap.dedent('''
        import dataclasses
        import enum
        import torch

        K = "__torch_" + "dispatch__"
        X = type("X", (torch.Tensor,), {K: classmethod(lambda *a: None)})
        B = (object,)
        Y = type("Y", B, {})
        Z = type.__new__(type, "Z", (), {})
        D = dataclasses.make_dataclass("D", [], bases=(torch.nn.Parameter,))
        E = enum.Enum("E", "a b", type=torch.Tensor)
        class M(type):
            pass
        class EM(enum.EnumMeta):
            pass
        H = type("H", (torch._C._DisableTorchDispatch,), {})
    ''')
    assert hits(src) == [(7, "introspection"), (9, "introspection"), (10, "introspection"), (11, "introspection"),
                         (12, "introspection"), (13, "introspection"), (15, "introspection"), (17, "monkey-patch"),
                         (17, "torch-compute")]
    ok = """
        import dataclasses
        import enum

        P = type("P", (), {"__add__": lambda s, o: o})
        Q = dataclasses.make_dataclass("Q", [("a", int)], namespace={"__bool__": lambda s: True})
        R = type("R", (P, object), {})
        F = enum.IntEnum("F", "a b")
        G = enum.Enum("G", "a b", type=int)
        class Fine(enum.IntEnum, metaclass=enum.EnumMeta):
            A = 1
        def kind(x):
            return type(x).__name__
    """
    assert hits(ok) == []


def test_a_torch_object_read_as_a_value_where_the_scan_does_not_follow_it_is_a_finding() -> None:
    """Found while closing red team 31 (A1's importer, without a subclass): ``torch.package.sys_importer`` is an
    instance, neither a class nor a function, so reading it as a value was 'fine', and handed to a function of the
    submission its ``import_module`` (no tensor method's name) imported any module. A PyTorch object read as a value
    must be plain data (a number, string, dtype, device, layout, size, a generator) or be used where the scan follows
    it (an attribute's base, a plain alias)."""
    src = textwrap.dedent('''
        import torch

        def f(i):
            return i.import_module("kernelgenbench.sandbox.state").STATE
        S = f(torch.package.sys_importer)
        T = [torch.package.sys_importer][0]
        imp = torch.package.sys_importer
    ''')
    assert hits(src) == [(6, "torch-compute"), (7, "torch-compute")]
    ok = """
        import torch

        def g(x, generator=None):
            gen = torch.default_generator if generator is None else generator
            flags = (torch.backends.cuda.matmul.allow_tf32, torch.float32, torch.strided, torch.pi, torch.version.cuda,
                     torch.__version__, torch.contiguous_format, torch.cuda.default_generators)
            return gen, flags
    """
    assert hits(ok) == []


def test_triton_allocator_reinterpret_and_stream_pass() -> None:
    """fp31's TMA fixture (tests/good/tma_align) sets the scratch allocator device-side tensor descriptors need; red
    team 31's Triton allowlist refused it. triton.set_allocator, triton.reinterpret and the current-stream query pass;
    the build and cache helpers stay refused."""
    ok = """
        import triton
        import triton.language as tl

        def _alloc(size, alignment, stream):
            return None

        triton.set_allocator(_alloc)

        def f(x):
            s = triton.runtime.driver.active.get_current_stream()
            return triton.reinterpret(x, tl.float8e4nv), s
    """
    assert hits(ok) == []
    assert hits("import triton\n\ntriton.runtime.build.compile_module_from_src('', 'm')\n") == [(3, "foreign-compute")]


def test_literal_and_annotated_values_are_not_scanned_as_code() -> None:
    """fp32: the strings of ``typing.Literal[...]`` and ``Annotated``'s metadata are values typing never evaluates;
    ``Literal["input", "output"]`` was scanned as the code ``input`` (file-io), ``Literal["eval"]`` as exec-eval. A
    ``Literal`` name that is rebound (``Literal = typing.Optional`` makes its strings forward references) or not
    typing's, and ``Annotated``'s first argument, stay scanned as code."""
    ok = '''
        import typing
        from typing import Annotated, Literal, Optional

        import torch

        def f(x: torch.Tensor, role: Literal["input", "output"] = "input",
              backend: typing.Literal["triton", "compile"] = "triton",
              w: Annotated[torch.Tensor, "shape (H,)", "open"] = None) -> "Optional[Literal['eval']]":
            return None
    '''
    assert hits(ok) == []
    bad = '''
        import typing
        from typing import Annotated
        from typing import Optional as Literal
        from typing import Literal as L2
        L2 = typing.Optional

        def f(a: Literal["eval(1)"], b: L2["open"], c: Annotated["input", "x"]):
            pass
    '''
    assert hits(bad) == [(8, "exec-eval"), (8, "file-io"), (8, "exec-eval")]


def test_version_strings_and_backend_flags_are_plain_data() -> None:
    """fp32: version gates (``tuple(int(p) for p in triton.__version__.split(".")[:2])``, ``torch.__version__``,
    ``torch.version.cuda.split(".")``) call ``str`` methods, not Triton's internals or PyTorch compute; a
    ``torch.backends`` flag (``torch.backends.cudnn.allow_tf32``, a ContextProp) reads as a bool. Setting a flag and
    non-str attributes stay refused."""
    ok = '''
        import torch
        import triton

        _TRITON = tuple(int(p) for p in triton.__version__.split(".")[:2])
        _TORCH = torch.__version__.split("+")[0]
        _NEW = triton.__version__.startswith("3.")
        _CUDA = torch.version.cuda.split(".") if torch.version.cuda else None

        def flags():
            if torch.backends.cudnn.allow_tf32:
                return (torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)
            return None
    '''
    assert hits(ok) == []
    bad = '''
        import torch
        import triton

        def g():
            torch.backends.cudnn.allow_tf32 = False
            return triton.__version__.__class__, triton.runtime.driver.active.get_device_interface()
    '''
    assert hits(bad) == [(6, "monkey-patch"), (7, "introspection"), (7, "introspection"), (7, "introspection")]


def test_autocast_decorators_of_an_autograd_function_are_allowed() -> None:
    """fp32: Liger/Unsloth decorate an autograd Function's forward and backward with ``torch.amp.custom_fwd`` /
    ``custom_bwd`` (device_type="cuda"); they compute nothing (a cast under an enabled autocast is a ``.to()`` the
    trace judges). Autocast itself stays refused."""
    ok = '''
        import torch

        class F(torch.autograd.Function):
            @staticmethod
            @torch.amp.custom_fwd(device_type="cuda")
            def forward(ctx, x):
                return x

            @staticmethod
            @torch.amp.custom_bwd(device_type="cuda")
            def backward(ctx, g):
                return g
    '''
    assert hits(ok) == []
    bad = '''
        import torch

        def f(x):
            with torch.autocast("cuda", dtype=torch.float16):
                return x
    '''
    assert hits(bad) == [(5, "torch-compute")]


def test_the_deprecated_cuda_amp_spellings_of_the_autocast_decorators_are_allowed() -> None:
    """false-rejection hunt 37: older Liger-Kernel and Unsloth modules decorate with ``@torch.cuda.amp.custom_fwd`` /
    ``custom_bwd`` (PyTorch's deprecated aliases of the allowed ``torch.amp`` decorators, with device_type="cuda"),
    bare or called, or bind them once. ``torch.cuda.amp.autocast`` stays refused like ``torch.autocast``."""
    ok = '''
        import torch

        fwd = torch.cuda.amp.custom_fwd
        from torch.cuda.amp import custom_bwd

        class F(torch.autograd.Function):
            @staticmethod
            @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
            def forward(ctx, x):
                return x

            @staticmethod
            @custom_bwd
            def backward(ctx, g):
                return g
    '''
    assert hits(ok) == []
    bad = '''
        import torch

        def f(x):
            with torch.cuda.amp.autocast():
                return x
    '''
    assert hits(bad) == [(5, "torch-compute")]


def test_torch_compiler_disable_is_allowed_and_compiling_is_not() -> None:
    """false-rejection hunt 37: ``@torch.compiler.disable`` keeps torch.compile from tracing a launcher and compiles
    nothing (eagerly it calls the function); it was refused as rule compile. What it wraps is judged as before (a
    torch op handed to it is torch-compute), and ``torch.compile``, the rest of ``torch.compiler`` and of
    ``torch._dynamo`` stay refused (``torch._dynamo.disable``, what torch.compiler.disable calls, is judged as it is
    since tp42: tests/test_scan_indirect.py)."""
    assert hits('''
        import torch
        from torch.compiler import disable

        @torch.compiler.disable
        def f(x):
            return x

        @torch.compiler.disable(recursive=False)
        def g(x):
            return x

        h = disable(f)
    ''') == []
    assert hits('''
        import torch
        neg = torch.compiler.disable(torch.neg)
        k = torch._dynamo.reset()
        c = torch.compile(lambda x: x)
        from torch.compiler import disable, reset
    ''') == [(3, "monkey-patch"), (3, "torch-compute"), (4, "compile"), (5, "compile"), (6, "compile")]
    # (red team 37) given anything but the file's own function or class it is also monkey-patch: it rebinds a
    # class's __init__/__call__ (tests/test_scan_indirect.py)


def test_packaging_version_is_allowed_and_the_rest_of_packaging_is_not() -> None:
    """false-rejection hunt 37: Liger-Kernel and Unsloth gate features with ``packaging.version.Version``; it parses and
    compares version strings and is allowed in every import form. Tags and markers (which read the platform),
    utils, metadata and requirements stay refused, imported or reached as attributes."""
    assert hits('''
        import packaging.version
        import triton
        from packaging import version
        from packaging.version import InvalidVersion, Version, parse

        NEW = Version(triton.__version__) >= Version("3.0")
        OLD = version.parse(triton.__version__) < version.Version("3.6")
        MAJOR = packaging.version.Version("3.6.0").major + parse("1.2").release[0]
        try:
            Version("x")
        except InvalidVersion:
            pass
    ''') == []
    assert hits('''
        import packaging.tags
        from packaging.markers import Marker
        from packaging import utils
        import packaging
        t = packaging.tags.sys_tags()
    ''') == [(2, "forbidden-import"), (3, "forbidden-import"), (4, "forbidden-import"), (6, "forbidden-import")]


def test_registering_a_custom_op_is_refused_with_a_reason_that_says_what_to_do() -> None:
    """false-rejection hunt 37 (a rule, kept): ``torch.library.custom_op``/``triton_op`` wrapping is refused, since the
    op's kernel would run inside the dispatcher below the harness's trace; the finding now says so and what to write
    instead. A call of the submission's own ``torch.ops.<its namespace>.<name>`` is torch-compute, not a dispatch
    recursion into the replaced op of the same name; ``torch.ops._C.rms_norm`` still is one."""
    src = '''
        import torch
        from torch.library import triton_op

        @torch.library.custom_op("mine::rms_norm", mutates_args=("out",))
        def _op(out: torch.Tensor, x: torch.Tensor) -> None:
            pass

        def rms_norm(out, input, weight, epsilon):
            torch.ops.mine.rms_norm(out, input)
            torch.ops._C.rms_norm(out, input, weight, epsilon)
    '''
    found = scan_source(textwrap.dedent(src), **recursion_of("vllm::rms_norm"))
    assert sorted((f.line, f.rule) for f in found) == [
        (3, "monkey-patch"), (5, "monkey-patch"), (10, "torch-compute"), (11, "dispatch-recursion")]
    reg = next(f for f in found if f.line == 5)
    assert "runs its kernel inside the dispatcher" in reg.message and "call the launching function directly" in \
        reg.message


def test_version_gates_through_the_interpreter_or_package_metadata_say_what_to_use() -> None:
    """false-rejection hunt 37 (rules, kept): ``importlib.metadata.version("triton")`` reads metadata files and
    ``sys.version_info`` reaches the interpreter's module; the findings name the allowed gate instead of calling the
    first a dynamic import."""
    found = scan_source("from importlib.metadata import version\nimport sys\n")
    assert [f.rule for f in found] == ["file-io", "file-io"]
    assert all("torch.__version__" in f.message and "packaging.version" in f.message for f in found)


def test_nvtx_ranges_are_allowed() -> None:
    """false-rejection hunt 37: NVTX ranges and marks around launches are host annotations for a profiler; they were
    refused as torch-compute. The rest of ``torch.cuda``'s profiling stays refused."""
    assert hits('''
        import torch

        def f(x):
            torch.cuda.nvtx.range_push("f")
            torch.cuda.nvtx.mark("launch")
            with torch.cuda.nvtx.range("inner"):
                pass
            torch.cuda.nvtx.range_pop()
            return x
    ''') == []
    assert [r for _, r in hits('''
        import torch
        torch.cuda.Event(enable_timing=True)
        torch.cuda.profiler.start()
    ''')] == ["timer", "torch-compute"]


def test_backend_presence_and_scripting_flags_are_allowed() -> None:
    """fp32: Liger's ``infer_device()`` asks ``torch.xpu.is_available()``; wrappers for several callers read
    ``torch.jit.is_scripting()`` / ``is_tracing()`` and ``torch.get_autocast_dtype``. They only report state;
    scripting and tracing themselves stay refused."""
    ok = '''
        import torch

        def infer_device():
            if torch.cuda.is_available():
                return "cuda"
            if torch.xpu.is_available() and torch.xpu.device_count():
                return "xpu"
            return "mps" if torch.backends.mps.is_available() or torch.mps.is_available() else "cpu"

        def f(x):
            if torch.jit.is_scripting() or torch.jit.is_tracing():
                return x
            return torch.get_autocast_dtype("cuda")
    '''
    assert hits(ok) == []
    bad = '''
        import torch

        def f(x):
            return torch.jit.script(x), torch.jit.trace(x, (x,))
    '''
    assert hits(bad) == [(5, "compile"), (5, "compile")]


def test_aliasing_checks_compare_data_ptrs() -> None:
    """fp32: ``if x.data_ptr() == y.data_ptr():`` (also ``!=`` and ``in`` a tuple of data_ptr reads) asks whether two
    tensors start at the same address; the result is a bool, no address reaches a kernel or the host. A comparison
    with anything else (a number, an order, arithmetic) stays raw-storage."""
    ok = '''
        def f(x, y, out):
            if out.data_ptr() == x.data_ptr() or x.data_ptr() != y.data_ptr():
                return out
            return out.data_ptr() in (x.data_ptr(), y.data_ptr())
    '''
    assert hits(ok) == []
    bad = '''
        def g(x, y):
            a = x.data_ptr() == 5
            b = x.data_ptr() < y.data_ptr()
            c = x.data_ptr() in [y.data_ptr(), 7]
            return a, b, c, x.data_ptr() == y.data_ptr() + 4
    '''
    assert [r for _, r in hits(bad)] == ["raw-storage"] * 7


def test_a_launcher_may_subclass_triton_kernel_interface() -> None:
    """fp32: FlagGems' ``class LibEntry(triton.KernelInterface)`` gives a launcher the ``kernel[grid](...)`` syntax
    (the base's code is ``__getitem__`` -> ``self.run`` and ``warmup``). Triton's other classes stay refused as bases
    (``triton.runtime.Autotuner``, ``triton.Config``)."""
    ok = '''
        import triton
        from triton.runtime import KernelInterface
        from triton.runtime.jit import KernelInterface as KI

        class LibEntry(triton.KernelInterface):
            def __init__(self, fn):
                self.fn = fn

            def run(self, *args, grid, warmup=False, **kwargs):
                return self.fn.run(*args, grid=grid, warmup=warmup, **kwargs)

        class Other(KernelInterface):
            pass

        def is_launcher(k):
            return isinstance(k, KI)
    '''
    assert hits(ok) == []
    bad = '''
        import triton

        class Tuner(triton.runtime.Autotuner):
            pass

        class Cfg(triton.Config):
            pass
    '''
    assert hits(bad) == [(4, "introspection"), (7, "monkey-patch")]


def test_triton_methods_on_kernel_values_despite_a_host_class_of_the_same_name() -> None:
    """fp32: a parameter holder with ``def to(self, device)`` (or a NamedTuple field named ``max``) made every
    ``x.to(tl.float32)`` / ``y.max(axis=0)`` in every kernel of the file a finding. A receiver rooted in a tensor
    argument or a Triton result cannot be the submission's object; one rooted in a ``tl.constexpr`` parameter, a
    global or a plain alias of those still can, and stays refused."""
    ok = '''
        import dataclasses
        import typing
        import triton
        import triton.language as tl

        @dataclasses.dataclass
        class Params:
            scale: float
            def to(self, device):
                return self

        class Stats(typing.NamedTuple):
            max: float
            sum: float

        @triton.jit
        def k(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
            r = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + r, mask=r < n, other=0.0)
            y = x.to(tl.float32)
            s = y.sum(axis=0) + y.max(axis=0)
            tl.store(o_ptr + r, (y + s).to(o_ptr.dtype.element_ty), mask=r < n)
    '''
    assert hits(ok) == []
    bad = '''
        import triton
        import triton.language as tl

        class Probe:
            def to(self, dt):
                return self

        P = Probe()

        @triton.jit
        def k(x_ptr, PR: tl.constexpr):
            q = PR
            PR.to(tl.float32)
            q.to(tl.float32)
            P.to(tl.float32)
            for v in PR:
                v.to(tl.float32)
    '''
    assert hits(bad) == [(14, "kernel-body"), (15, "kernel-body"), (16, "kernel-body"), (17, "kernel-body"),
                         (18, "kernel-body")]


def test_environment_reads_by_subscript_and_membership() -> None:
    """fp32: ``"TRITON_INTERPRET" in os.environ`` and ``os.environ["X"]`` read the environment like
    ``os.environ.get``; writes, deletions, copies and the mapping as a value stay refused."""
    ok = '''
        import os

        INTERP = "TRITON_INTERPRET" in os.environ and os.environ["TRITON_INTERPRET"] == "1"
        DEBUG = "KGB_DEBUG" not in os.environ or os.environ.get("KGB_DEBUG") == "0"
    '''
    assert hits(ok) == []
    bad = '''
        import os

        def f():
            os.environ["X"] = "1"
            return os.environ.copy(), list(os.environ)
    '''
    assert [r for _, r in hits(bad)] == ["file-io", "monkey-patch", "file-io", "file-io"]


def test_logging_through_a_logger_is_allowed_and_its_callbacks_are_not() -> None:
    """false-rejection hunt 35: ``import logging`` / ``logger = logging.getLogger(__name__)`` (FlagGems' op files and
    many kernel libraries) was refused as forbidden-import. Getting a logger, the level constants and the log calls
    pass; handlers, formatters, filters, the configuration and a logger's callback lists stay refused (a filter on
    PyTorch's or the harness's logger would run the submission's code outside the traced calls)."""
    assert hits("""
        import logging
        from logging import getLogger
        logger = logging.getLogger(__name__)
        log2 = getLogger("mine")
        def f(x: "torch.Tensor", lg: logging.Logger = logger):
            logger.debug("shape %s", tuple(x.shape))
            if logger.isEnabledFor(logging.DEBUG):
                logging.info("info")
            log2.warning("w")
            return x
        """) == []
    assert hits("""
        import logging
        lg = logging.getLogger("torch")
        lg.addFilter(lambda rec: True)
        lg.handlers.append(None)
        getattr(lg, "addHandler")(None)
        d = lg.manager.loggerDict
        stack = lg.findCaller(True, 1)[3]
        lg._cache[10] = True
        """) == [(4, "monkey-patch"), (5, "monkey-patch"), (6, "monkey-patch"), (7, "monkey-patch"),
                 (8, "introspection"), (9, "monkey-patch")]
    assert hits("""
        import logging
        import logging.config
        from logging.handlers import RotatingFileHandler
        from logging import FileHandler
        logging.basicConfig(filename="x.log")
        h = logging.StreamHandler()
        class H(logging.Handler):
            pass
        """) == [(3, "dynamic-import"), (4, "file-io"), (5, "introspection"), (6, "introspection"),
                 (7, "introspection"), (8, "introspection")]
    # without an import of logging, such names are a submission's own attributes
    assert hits("""
        def f(o):
            o.handlers.append(1)
            return o.filters
        """) == []


def test_a_plain_class_may_name_its_own_attributes_like_a_loggers_in_a_file_that_logs() -> None:
    """false-rejection hunt 37: FlagGems-like launcher classes keep ``self._cache`` (or ``self.handle``,
    ``self.filters``) in a file that also logs; the attribute is the class's own, not a logger's. Only the ``self``/
    ``cls`` of a method of a plain class of the file is exempt: a logger reached otherwise, a class derived from
    logging's, a rebound ``self`` or a static method's first parameter stay refused."""
    assert hits("""
        import logging
        logger = logging.getLogger(__name__)
        class Base:
            pass
        class Launcher(Base):
            def __init__(self):
                self._cache = {}
                self.filters = []
            def get(self, key):
                if key not in self._cache:
                    self._cache[key] = len(self.filters)
                logger.debug("hit")
                return self._cache[key]
            def handle(self, x):
                return x
            def run(self, x):
                return self.handle(getattr(self, "_cache"))
            @classmethod
            def make(cls):
                return cls._cache
        """) == []
    assert hits("""
        import logging
        from logging import LoggerAdapter
        class A(logging.Logger):
            def f(self):
                return self._cache
        class B(LoggerAdapter):
            def f(self):
                return self.manager
        class C:
            def f(self):
                self = logging.getLogger("torch")
                self._cache[10] = True
            @staticmethod
            def g(lg):
                lg.handlers.append(None)
            def h(self, lg):
                lg._cache[10] = True
                return self.x.handlers
        def k(self):
            return self._cache
        """) == [(6, "monkey-patch"), (9, "monkey-patch"), (13, "monkey-patch"), (16, "monkey-patch"),
                 (18, "monkey-patch"), (19, "monkey-patch"), (21, "monkey-patch")]
    # a class made in a function body is judged alike; a module class whose name is rebound may be another class
    assert hits("""
        import logging
        class A:
            pass
        A = logging.Logger
        class B(A):
            def f(self):
                return self._cache
        def make():
            class L:
                def __init__(self):
                    self._cache = {}
                def get(self, k):
                    return self._cache.get(k)
            class M(logging.Logger):
                def g(self):
                    return self._cache
            return L
        """) == [(8, "monkey-patch"), (17, "monkey-patch")]


def test_a_misspelt_triton_name_is_called_a_typo():
    """``triton.next_power_of_two`` does not exist: the finding says so and names the close public names, instead of
    calling it one of Triton's internals (fresh user 35); a real internal keeps its own reason."""
    import triton  # noqa: F401 - the scan looks names up in the loaded Triton

    (f,) = scan_source("import triton\n\nB = triton.next_power_of_two(8)\n")
    assert f.rule == "introspection" and "does not have (did you mean triton.next_power_of_2?)" in f.message
    (g,) = scan_source("import triton\n\nB = triton.runtime.build\n")
    assert "does not have" not in g.message


def test_update_wrapper_names_are_judged_like_setattrs() -> None:
    """Red team 37: ``functools.update_wrapper(k.fn, host, ("__code__",), ())`` gave a kernel's own function a host
    body's code (tests/bad/fn_code); red team 35 did it to Triton's ``tl.maximum`` (code_rewrite), 29c wrote a method
    into a tensor's ``__dict__`` with ``updated=("__dict__",)`` (dict_shadow). The names written in the call are judged
    as setattr's literal names, names L1 cannot read are dynamic; ``@functools.wraps(fn)`` with its defaults, or with
    plain names, stays clean."""
    src = '''
    import functools
    from functools import update_wrapper, wraps

    def f(k, host, names):
        functools.update_wrapper(k.fn, host, ("__code__",), ())
        update_wrapper(host, k, assigned=(), updated=("__dict__",))
        functools.wraps(host, ("__defaults__",))(k)
        functools.update_wrapper(k, host, names)
        functools.update_wrapper(k, host, functools.WRAPPER_ASSIGNMENTS, functools.WRAPPER_UPDATES)

    def deco(fn):
        @functools.wraps(fn)
        def w(*a):
            return fn(*a)

        @wraps(fn, assigned=("__module__", "__name__", "__doc__"), updated=())
        def v(*a):
            return fn(*a)
        return w, v
    '''
    assert hits(src) == [(6, "introspection"), (7, "introspection"), (8, "introspection"), (9, "dynamic-attr")]


def test_xpu_device_properties_is_a_device_query() -> None:
    """tp38 (real third-party kernels): Liger-Kernel's rms_norm, fused_add_rms_norm and layer_norm launchers pick a
    persistent grid per backend, ``torch.cuda.get_device_properties(dev).multi_processor_count`` on NVIDIA and
    ``torch.xpu.get_device_properties(dev).gpu_eu_count`` on Intel; the xpu form was refused as torch-compute while
    the cuda form passed. The rest of ``torch.xpu`` (streams, memory, synchronisation) stays refused."""
    assert hits('''
        import torch

        def programs(x):
            if x.device.type == "cuda":
                return torch.cuda.get_device_properties(x.device).multi_processor_count
            if x.device.type == "xpu":
                return torch.xpu.get_device_properties(x.device).gpu_eu_count
            return 1
    ''') == []
    assert [r for _, r in hits('''
        import torch
        torch.xpu.synchronize()
        torch.xpu.empty_cache()
    ''')] == ["torch-compute", "torch-compute"]


def test_importlib_version_helpers_say_which_gate_passes() -> None:
    """tp38: Liger-Kernel's ``compare_version(package, op, target)`` reads ``importlib.import_module(package)
    .__version__``; the refusal (kept: a computed module name reaches any module) named only the rule. It now says
    what to write instead, for the import and for a use of importlib (importlib.metadata keeps its own text)."""
    found = scan_source(textwrap.dedent('''
        import importlib
        import operator
        from packaging.version import Version

        def compare_version(package, op, target):
            pkg = importlib.import_module(package)
            return op(Version(pkg.__version__), Version(target))
    '''))
    assert [f.rule for f in found] == ["dynamic-import"] * len(found) and found
    assert all("triton.__version__" in f.message and "packaging.version" in f.message for f in found)
    assert any("imports importlib:" in f.message for f in found)
    meta = scan_source("from importlib.metadata import version\n")
    assert [f.rule for f in meta] == ["file-io"] and "metadata files" in meta[0].message
    # tp39: xformers' libdevice_find("rsqrt") looks for Triton's libdevice module with importlib.util.find_spec; the
    # refusal names the import that passes
    finder = scan_source("import importlib.util\nSPEC = importlib.util.find_spec('triton.language.extra.libdevice')\n")
    assert finder and all("from triton.language.extra.libdevice import rsqrt" in f.message for f in finder)


def test_xpu_device_context_is_allowed_like_the_cuda_one() -> None:
    """tp38: Unsloth binds ``torch_gpu_device = torch.xpu.device`` on Intel GPUs beside ``torch.cuda.device`` and
    launches under ``with torch_gpu_device(x.device):``; the xpu alias was refused as torch-compute ("references the
    PyTorch class torch.xpu.device as a value"). Another ``torch.xpu`` class as a value stays refused."""
    assert hits('''
        import torch

        if torch.xpu.is_available():
            torch_gpu_device = torch.xpu.device
        else:
            torch_gpu_device = torch.cuda.device

        def f(x):
            with torch_gpu_device(x.device):
                return x
    ''') == []
    assert [r for _, r in hits('''
        import torch
        make = torch.xpu.Stream
        make()
        torch.xpu.synchronize()
    ''')] == ["torch-compute", "torch-compute"]


_DEAD_BACKWARD = '''
    import torch

    def _weight_grad(partial, w):
        return partial.sum(dim=0).to(w.dtype)

    class Norm(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(w)
            return x

        @staticmethod
        def backward(ctx, dy):
            (w,) = ctx.saved_tensors
            return dy, _weight_grad(dy, w)

    def rms_norm(out, input, weight, epsilon):
        out.copy_(Norm.apply(input, weight))
'''


def _dead_backward_rules(extra: str = "", entry_points=frozenset({"rms_norm"}), source: str = _DEAD_BACKWARD) -> list:
    src = textwrap.dedent(source) + textwrap.dedent(extra)
    return sorted(f.rule for f in scan_source(src, entry_points=entry_points))


def test_an_autograd_backward_nothing_can_run_is_not_scanned() -> None:
    """tp38 (real third-party kernels): Liger-Kernel's norm modules keep an autograd Function's backward beside its
    forward, and the backward (through a module-level helper) sums per-program weight gradients with PyTorch. The
    forward pass never runs it, yet L1 refused the file. The backward's body, and helpers only it calls, are now left
    unscanned when nothing in the file can run them."""
    assert _dead_backward_rules() == []
    # the operator's entry points come from its interface (scan_policy), so a real job scans with them
    op = get_operator("vllm::rms_norm")
    assert op.scan_policy()["entry_points"] == frozenset({"rms_norm"})
    assert get_operator("aten::_softmax").scan_policy()["entry_points"] == frozenset({"_softmax", "_softmax_out"})


@pytest.mark.parametrize("extra", [
    "def g(y):\n    return Norm.backward(None, y)\n",            # called by name
    "def g(y):\n    y.sum().backward()\n",                       # a backward pass started by the file
    "def g(y):\n    return y.grad_fn.apply(y)\n",                # the output's node runs the backward
    "def g(ctx, y):\n    return ctx.apply(y)\n",                 # so does the forward's ctx (the same node)
    "def g(ctx, y):\n    return ctx.apply_boxed([y])\n",
    "def g(y):\n    return getattr(Norm, 'backward')(None, y)\n",
    "def g(y):\n    Norm = y\n    return Norm.apply(y)\n",        # a class name rebound: its apply is not the forward's
    "Alias = Norm\ndef g(y):\n    return Alias.apply(y)\n",     # apply through another name (judged conservatively)
    "def g(y):\n    return y.grad_fn.next_functions\n",
])
def test_a_backward_the_file_can_reach_is_scanned(extra: str) -> None:
    """tp38: every route by which a file could run a backward outside autograd's backward pass ends the exemption,
    so the backward's torch calls are judged again."""
    assert "tensor-method" in _dead_backward_rules(extra)


def test_dead_backward_exemption_keeps_entry_points_decorators_and_unknown_interfaces() -> None:
    """tp38: a helper named like one of the operator's entry points is scanned (the harness calls it by name), no
    helper is exempt when the entry points are not known, and a backward's decorators (run when the class is made)
    are scanned."""
    assert _dead_backward_rules(entry_points=frozenset({"rms_norm", "_weight_grad"})) == ["tensor-method"]
    assert _dead_backward_rules(entry_points=None) == ["tensor-method"]
    decorated = _DEAD_BACKWARD.replace("        @staticmethod\n        def backward",
                                       "        @staticmethod\n        @torch.compile\n        def backward")
    # (rb38: and a decorator that could keep the backward, as torch.compile does, ends its exemption)
    assert _dead_backward_rules(source=decorated) == ["compile", "tensor-method"]


def _decorated_backward(pre: str, dec: str) -> list:
    src = _DEAD_BACKWARD.replace("        @staticmethod\n        def backward",
                                 f"        @staticmethod\n        {dec}\n        def backward")
    assert src != _DEAD_BACKWARD
    return _dead_backward_rules(source=textwrap.dedent(pre) + textwrap.dedent(src))


@pytest.mark.parametrize("pre,dec", [
    ("_KEPT = []\ndef keep(fn):\n    _KEPT.append(fn)\n    return fn\n", "@keep"),   # the decorator keeps it
    ("_KEPT = []\n", "@_KEPT.append"),                                                # (and so does a method)
    ("def d(fn):\n    fn(None, 1)\n    def w(*a):\n        return fn(*a)\n    return w\n", "@d"),  # runs it
    ("K = []\ndef d(fn):\n    def w(*a):\n        K.append(fn)\n        return fn(*a)\n    return w\n", "@d"),
    ("def d(fn):\n    def w(*a, _f=fn):\n        return _f(*a)\n    return w\n", "@d"),  # a default keeps it
    ("def d(fn):\n    global G\n    def w(*a):\n        return fn(*a)\n    G = w\n    return w\n", "@d"),
    ("import functools\ndef d(fn):\n    @functools.wraps(fn, assigned=())\n    def w(*a):\n        return fn(*a)\n"
     "    return w\n", "@d"),
    ("def d(fn):\n    def w(*a):\n        return fn(*a)\n    return w\nd = print\n", "@d"),  # the name rebound
])
def test_a_backward_whose_decorator_could_keep_it_is_scanned(pre: str, dec: str) -> None:
    """rb38: a decorator of the backward is handed the function when the class is made; a decorator of the file that
    kept it (``_KEPT.append(fn)``) let the wrapper call the unscanned backward, which reached the sandbox's state
    through ``sys.modules`` and passed vllm::rms_norm computed with PyTorch (tests/bad kept_backward). Only decorators
    that cannot keep or run it leave the backward unscanned."""
    assert "tensor-method" in _decorated_backward(pre, dec)


def test_a_class_pattern_reads_its_attributes() -> None:
    """rb38: ``case C(name=p)`` reads ``subject.name`` with no attribute node or string in the file: ``case
    object(backward=run)`` ran an autograd backward L1 left unscanned (tests/bad match_backward), and ``case
    object(__globals__=g)`` read a function's globals. A class pattern's keyword names are judged as attribute reads."""
    assert "tensor-method" in _dead_backward_rules(
        "def g(y):\n    match Norm:\n        case object(backward=run):\n            return run(None, y)\n")
    assert [r for _, r in hits('''
        def h():
            pass

        def f(x):
            match h:
                case object(__globals__=g):
                    return g
    ''')] == ["introspection"]
    assert hits("def f(p):\n    match p:\n        case complex(real=r, imag=0):\n            return r\n") == []


@pytest.mark.parametrize("name", ['"back" + "ward"', '"__globals__"', '"real"'])
def test_a_positional_class_pattern_is_refused(name: str) -> None:
    """rb38: ``case C(p)`` reads the attribute ``C.__match_args__`` names, from any subject ``C.__subclasshook__``
    accepts; computed (``"back" + "ward"``, tests/bad match_args) or inherited, the scan cannot tell which, so an
    unscanned autograd backward ran and a function's ``__globals__`` was read. Positional sub-patterns are refused but
    for the builtins that match the subject itself (``case int(n)``); keyword patterns are judged by name."""
    source = f'''
        import abc

        class C(abc.ABC):
            __match_args__ = ({name},)

            @classmethod
            def __subclasshook__(cls, sub):
                return True

        def f(x):
            match x:
                case C(run):
                    return run
    '''
    assert "dynamic-attr" in [r for _, r in hits(source)]
    assert hits("def f(p):\n    match p:\n        case int(n) | str(n):\n            return n\n"
                "        case (a, b):\n            return a\n") == []


_ENSURE_CONTIGUOUS = '''
    import functools

    def ensure_contiguous(fn):
        @functools.wraps(fn)
        def wrapper(ctx, *args, **kwargs):
            def maybe_to_contiguous(x):
                return x.contiguous() if isinstance(x, torch.Tensor) else x

            args = [maybe_to_contiguous(arg) for arg in args]
            kwargs = {k: maybe_to_contiguous(v) for k, v in kwargs.items()}
            return fn(ctx, *args, **kwargs)
        return wrapper
'''


@pytest.mark.parametrize("pre,dec", [
    (_ENSURE_CONTIGUOUS, "@ensure_contiguous"),          # Liger-Kernel's: a closure that calls the function
    ("", "@torch.amp.custom_bwd(device_type='cuda')"),   # PyTorch's own backward decorator
])
def test_a_backward_whose_decorator_only_wraps_it_stays_unscanned(pre: str, dec: str) -> None:
    """rb38 kept tp38's allowance for the decorators that cannot keep the backward: Liger-Kernel decorates its
    backwards with ``ensure_contiguous``, which returns a closure calling the function."""
    assert _decorated_backward(pre, dec) == []


def test_a_decorated_autograd_class_keeps_its_backward_scanned() -> None:
    """rb38: a class decorator is handed the class (and so its backward) when it is made, and a name the class body
    binds is not the module's in its decorators."""
    src = _DEAD_BACKWARD.replace("    class Norm(", "    @cd\n    class Norm(")
    assert _dead_backward_rules(source="\ndef cd(c):\n    return c\n" + textwrap.dedent(src)) == ["tensor-method"]
    # a class-body binding shadows the decorator's module name: `staticmethod = keep` made `@staticmethod` keep it
    keep = "\n_KEPT = []\ndef keep(fn):\n    _KEPT.append(fn)\n    return fn\n"
    for binding in ("staticmethod = keep", "from functools import cache as staticmethod"):
        src = _DEAD_BACKWARD.replace("        @staticmethod\n        def forward",
                                     f"        {binding}\n\n        @staticmethod\n        def forward")
        assert _dead_backward_rules(source=keep + textwrap.dedent(src)) == ["tensor-method"], binding


_UNREACHABLE = '''
    import warnings

    import torch
    from torch import nn

    def rms_norm_ref(x, w, eps):
        return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps) * w

    class Norm(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            return x

    class FusedRMSNorm(nn.RMSNorm):
        def forward(self, x):
            return Norm.apply(x, self.weight)

    def rms_norm(out, input, weight, epsilon):
        out.copy_(Norm.apply(input, weight))
'''


def _unreachable_rules(extra: str = "", source: str = _UNREACHABLE, entry_points=frozenset({"rms_norm"})) -> list:
    src = textwrap.dedent(source) + textwrap.dedent(extra)
    return sorted(f.rule for f in scan_source(src, entry_points=entry_points))


def test_code_nothing_in_the_file_can_reach_is_not_scanned() -> None:
    """tp39 (real third-party kernels): mamba's, flash-attention's and FLA's kernel modules keep PyTorch references
    (``rms_norm_ref``) beside the kernels, and attorch's keep ``torch.nn`` layers subclassing PyTorch's own (``class
    Softmax(nn.Softmax)``); the wrapper calls neither, yet L1 refused the files (torch-compute, monkey-patch). A
    module-level function or class that no code of the file names is not scanned, nor is a torch.nn module base of
    such a class a finding; without the operator's entry points nothing is exempt."""
    assert _unreachable_rules() == []
    assert _unreachable_rules(entry_points=None) == ["monkey-patch", "tensor-method", "tensor-method",
                                                     "torch-compute"]
    # prose that names them (a docstring, a warning's, an assert's or an exception's message) reaches nothing
    assert _unreachable_rules(
        'def g(x):\n'
        '    """Like rms_norm_ref, or FusedRMSNorm."""\n'
        '    assert x is not None, "FusedRMSNorm needs an input"\n'
        '    warnings.warn("see rms_norm_ref")\n'
        '    raise ValueError(f"no FusedRMSNorm for {x!r}")\n', entry_points=frozenset({"rms_norm", "g"})) == []


@pytest.mark.parametrize("extra", [
    "def g(x, w):\n    return rms_norm_ref(x, w, 1e-6)\n",               # called by code that can run
    "def g(x, w):\n    return FusedRMSNorm(4)(x)\n",                       # a layer made
    "def g(m, x):\n    return getattr(m, 'rms_norm_ref')(x)\n",            # named in a string
    "def g(m, x):\n    return m.FusedRMSNorm(4)(x)\n",                     # or as an attribute
    "ALIAS = rms_norm_ref\n",                                             # bound to another name
    "def g(x):\n    match x:\n        case FusedRMSNorm():\n            return x\n",
    "class B(FusedRMSNorm):\n    pass\n",                                  # a base of a class of the file
    "import functools\nN = 'Fused' + 'RMSNorm'\n@functools.singledispatch\ndef h(x):\n    return x\n"
    "@h.register\ndef _(x: N):\n    return x\n",                           # an annotation singledispatch evaluates
])
def test_code_the_file_can_reach_is_scanned(extra: str) -> None:
    """tp39: any read of the name (outside a body that is itself unreachable), any string or attribute holding it,
    and functools.singledispatch (which evaluates annotations, a computed string among them, in the module's
    namespace) keep the function or class scanned. (``g`` is an entry point here: the harness calls it.)"""
    assert _unreachable_rules(extra, entry_points=frozenset({"rms_norm", "g"})) != []


def test_unreachable_exemption_keeps_entry_points_decorators_and_class_statements() -> None:
    """tp39: a function named like an entry point, a decorated function or class (the decorator is handed it), a
    class with a keyword (a metaclass), a method whose decorator could keep it (or a class-body name shadowing
    ``staticmethod``) and the statements of a class body (they run when the class is made) are scanned."""
    assert "torch-compute" in _unreachable_rules(entry_points=frozenset({"rms_norm", "rms_norm_ref"}))
    # a module-level __getattr__ (PEP 562) runs for any missing attribute read, though no code names it
    assert "tensor-method" in _unreachable_rules("def __getattr__(name):\n    return torch.ones(1).sum()\n")
    cached = _UNREACHABLE.replace("    def rms_norm_ref", "    @functools.cache\n    def rms_norm_ref")
    assert "torch-compute" in _unreachable_rules(source="import functools\n" + textwrap.dedent(cached))
    keep = "\n_KEPT = []\ndef keep(fn):\n    _KEPT.append(fn)\n    return fn\n"
    for src in (_UNREACHABLE.replace("    class FusedRMSNorm", "    @keep\n    class FusedRMSNorm"),
                _UNREACHABLE.replace("nn.RMSNorm):", "nn.RMSNorm, metaclass=type):"),
                _UNREACHABLE.replace("        def forward(self, x):", "        @keep\n        def forward(self, x):")
                .replace("Norm.apply(x, self.weight)", "x.sum()"),
                _UNREACHABLE.replace("        def forward(self, x):", "        staticmethod = keep\n\n"
                                     "        @staticmethod\n        def forward(self, x):")
                .replace("Norm.apply(x, self.weight)", "x.sum()"),
                _UNREACHABLE.replace("        def forward(self, x):", "        W = torch.ones(4).sum()\n\n"
                                     "        def forward(self, x):")):
        assert src != _UNREACHABLE
        assert _unreachable_rules(source=textwrap.dedent(src) + keep) != [], src


@pytest.mark.parametrize("pre,base,body", [
    # a base of the file's own hands every subclass to its __init_subclass__ when the class is made
    ("class Base:\n    def __init_subclass__(cls):\n        _REG.append(cls)\n", "Base", ""),
    # a class attribute's __set_name__ is handed the class
    ("class Keeper:\n    def __set_name__(self, owner, name):\n        _REG.append(owner)\n", "torch.nn.Module",
     "    k = Keeper()\n"),
])
def test_a_class_whose_making_hands_it_out_is_scanned(pre: str, base: str, body: str) -> None:
    """tp39: a class no code names is still reachable when making it runs code of the file that keeps it (a base's
    __init_subclass__, a class attribute's __set_name__): its methods stay scanned."""
    src = ("import torch\n_REG = []\n" + pre + f"class Dead({base}):\n" + body
           + "    def forward(self, x):\n        return x.sum()\n"
           + "def rms_norm(out, input, weight, epsilon):\n    out.copy_(_REG[0]().forward(input))\n")
    assert "tensor-method" in [f.rule for f in scan_source(src, entry_points=frozenset({"rms_norm"}))]
    inert = src.replace(f"class Dead({base}):\n" + body, "class Dead(torch.nn.Module):\n")
    assert "tensor-method" not in [f.rule for f in scan_source(inert, entry_points=frozenset({"rms_norm"}))]


def test_the_hooks_of_a_class_nothing_names_are_scanned() -> None:
    """tp39: an ABC base's isinstance check walks its subclasses and calls their ``__subclasshook__``, with no name
    or instance of the subclass (``torch.random.Generator`` is collections.abc's): a dunder method of a class nothing
    names stays scanned; ``__init__`` (which needs an instance) and plain methods do not."""
    src = textwrap.dedent('''
        import torch

        _BOX = []

        class Hook(torch.random.Generator):
            def __init__(self):
                self.w = torch.nn.Parameter(torch.ones(1))

            @classmethod
            def __subclasshook__(cls, sub):
                _BOX.append(_BOX[0].softmax(-1))
                return NotImplemented

        def rms_norm(out, input, weight, epsilon):
            _BOX.append(input)
            isinstance(input, torch.random.Generator)
            out.copy_(_BOX[-1])
    ''')
    found = [(f.rule, f.line) for f in scan_source(src, entry_points=frozenset({"rms_norm"}))]
    # (the base itself is refused too: not a torch.nn module class; defence in depth for the bases that pass)
    assert ("tensor-method", 12) in found and not [line for _, line in found if line == 8], found


@pytest.mark.parametrize("line", [
    "    def other(self, kept=_REG.append(forward)):\n        return kept\n",      # a default
    "    def other(self, *, kept=_REG.append(forward)):\n        return kept\n",   # a keyword-only default
    "    def other(self, x: _REG.append(forward)):\n        return x\n",          # a parameter's annotation
    "    def other(self) -> _REG.append(forward):\n        return self\n",        # a return annotation
    "    kept: _REG.append(forward)\n",                                            # a class-body annotation
    "    _SLOTS[forward] = 0\n",                                                   # an assignment's target
])
def test_a_method_the_class_code_reads_is_scanned(line: str) -> None:
    """rb39: in a class body a method's name is the method; code that runs as the class is made (a default, an
    annotation evaluated at the def, a subscript target) and reads it hands the method out, though no code names the
    class (tests/bad method_default_handout, subscript_key_handout: sys.modules reached, PyTorch rms_norm hidden from
    the trace). Such a method stays scanned; the class's other methods (``unread``) stay unreachable."""
    src = ("import torch\n_REG = []\n_SLOTS = {}\nclass Dead(torch.nn.Module):\n"
           "    def forward(self, x):\n        return x.sum()\n"
           "    def unread(self, x):\n        return x.mean()\n" + line
           + "def rms_norm(out, input, weight, epsilon):\n    out.copy_(_REG[0](None, input))\n")
    found = scan_source(src, entry_points=frozenset({"rms_norm"}))
    assert [f.message.split(" calls ")[0] for f in found if f.rule == "tensor-method"] == ["line 6: x.sum()"], \
        [f.message for f in found]
    assert "tensor-method" not in [f.rule for f in scan_source(src.replace(line, ""),
                                                               entry_points=frozenset({"rms_norm"}))]


@pytest.mark.parametrize("deco,use", [
    ("", "_reg.register(grab)"),                                        # a plain def handed to singledispatch
    ("@staticmethod\n", "_reg.register(T.grab)"),                        # a wrapped one, as an attribute (tp39)
    ("@classmethod\n", "_KEEP = T.grab"),
    ("@staticmethod\n", "triton.jit(T.grab).params[0]._param.annotation"),  # Triton's kernel parameters keep it
    ("@staticmethod\n", "_KEEP = [T.grab]"),                             # any value handed out
    ("@staticmethod\n", "_KEEP = getattr(T, 'grab')"),                   # named by a string
    ("@staticmethod\n", "match T:\n    case object(grab=g):\n        _reg.register(g)"),  # a class pattern
])
def test_annotations_of_a_function_handed_out_are_values(deco: str, use: str) -> None:
    """rb39: ``functools.singledispatch``'s register reads the annotations of the function it is handed and keeps the
    annotated class in its registry; Triton keeps a kernel's parameters' annotations. A type-only class there
    (``triton.runtime.JITFunction``) came back as a value the file then changed (``JITFunction.run = ...``: tests/bad
    annotation_registry): through a plain def since rb38, through a ``@staticmethod`` since tp39. Annotations of a
    function read as anything but a call's callee are judged as values; one only called keeps them as types."""
    src = ("import functools\nimport triton\nimport triton.runtime\n"
           "class T:\n    " + deco.replace("\n", "\n    ") + "def grab(x: triton.runtime.JITFunction):\n"
           "        return x\n"
           "def grab(x: triton.runtime.JITFunction):\n    return x\n"
           "@functools.singledispatch\ndef _reg(x):\n    return x\n")
    found = [f for f in scan_source(src + use + "\n") if f.rule == "introspection"]
    assert found and "annotating a function the file only calls" in found[0].message, use
    called = src + "def g(k):\n    return grab(k), T.grab(k)\n"
    assert "introspection" not in [f.rule for f in scan_source(called)]


def test_a_kernels_capture_scope_is_introspection() -> None:
    """tp39: ``kernel.get_capture_scope()`` (Triton's JITFunction) hands out the module's globals, where a computed
    name reached a function L1 leaves unscanned (an autograd backward's helper, code nothing names)."""
    assert "introspection" in _unreachable_rules(
        "import triton\n@triton.jit\ndef k(p):\n    pass\n"
        "def g(x, w):\n    return k.get_capture_scope()['rms_norm' + '_ref'](x, w, 1e-6)\n",
        entry_points=frozenset({"rms_norm", "g"}))


def test_a_jit_helper_defined_in_each_branch_is_a_jit_function() -> None:
    """tp39 (real third-party kernels): FLA defines its ``exp``/``log`` helpers under ``if os.environ.get(...)`` one
    way and ``else`` another, both @triton.jit; every call of them in a kernel was refused as kernel-body ("not
    defined once"). A name every binding of which is a @triton.jit def is a jit function; one also bound otherwise
    (a plain def, an assignment, ``global``) is not."""
    src = '''
        import os
        import triton
        import triton.language as tl

        if os.environ.get("FAST", "0") == "1":
            @triton.jit
            def ex(x):
                return tl.exp2(x * 1.4426950408889634)
        else:
            @triton.jit
            def ex(x):
                return tl.exp(x)

        @triton.jit
        def k(p):
            tl.store(p, ex(tl.load(p)))
    '''
    assert hits(src) == []
    for extra in ("def ex(x):\n    return x\n", "ex = print\n", "def g():\n    global ex\n    ex = print\n"):
        assert "kernel-body" in [r for _, r in hits(textwrap.dedent(src) + extra)], extra


def test_a_jit_helper_named_like_a_wrapper_says_so() -> None:
    """tp39: attorch's activation kernels call @triton.jit helpers named ``mish``, ``silu``, ``hardsigmoid``, the names
    of aten::mish's (...) wrappers; in one file the wrapper's def rebinds the name, so the kernel would call the
    wrapper (rule kept). The finding now says why and what to do."""
    src = textwrap.dedent('''
        import triton
        import triton.language as tl

        @triton.jit
        def mish(x):
            return x * tl.sigmoid(x)

        @triton.jit
        def k(p):
            tl.store(p, mish(tl.load(p)))

        def mish(self):
            return self
    ''')
    found = scan_source(src, entry_points=frozenset({"mish", "mish_out"}))
    assert [f.rule for f in found] == ["kernel-body"]
    assert "also the name of one of the operator's wrappers" in found[0].message
    assert "also the name of one of the operator's wrappers" not in scan_source(src)[0].message  # interface unknown


@pytest.mark.parametrize("extra,ok", [
    ('', True),
    ('def f(x):\n    return inspect.getsource(f)\n', False),                         # any other use of inspect
    ('def f(x):\n    return "x" in inspect.signature(f).parameters\n', False),       # of the file's own function
    ('S = inspect.signature(triton.autotune)\n', False),                            # the signature kept
    ('P = inspect.signature(triton.autotune).parameters\n', False),
    ('import inspect as insp\n', False),                                             # imported twice, renamed
    ('from inspect import signature\n', False),
    ('def g():\n    global inspect\n    inspect = print\n', False),                   # rebound
    ('ins = inspect\n', False),                                                      # as a value
    # a string annotation singledispatch evaluates is code the import check does not see
    ('import functools\n@functools.singledispatch\ndef g(x):\n    return x\n'
     '@g.register\ndef _(x: "inspect.stack()"):\n    return x\n', False),
])
def test_inspect_serves_feature_checks_of_library_callables_only(extra: str, ok: bool) -> None:
    """tp39: FLA picks the autotuner's keywords with ``"cache_results" in inspect.signature(triton.autotune)
    .parameters``; ``import inspect`` was refused (introspection). It passes when every read of the module is such a
    test of a torch or triton callable; any other use refuses the import as before."""
    src = ('import inspect\nimport triton\n'
           'HAS = "cache_results" in inspect.signature(triton.autotune).parameters\n' + extra)
    assert ("introspection" not in [r for _, r in hits(src)]) is ok
    # a refused import names the form that passes
    assert ok or any("inspect.signature(triton.autotune).parameters" in f.message for f in scan_source(src))


_DEVICE_CONTEXT = '''
    from contextlib import contextmanager
    import torch

    @contextmanager
    def device_context(device):
        device = torch.device(device)
        backend = getattr(torch, device.type, None)
        if backend is not None and hasattr(backend, "device"):
            with backend.device(device):
                yield
        else:
            yield
'''


def test_a_device_backend_picked_by_device_type_is_judged_as_torch_cuda() -> None:
    """tp38 (real third-party kernels): Liger-Kernel's ``device_context`` reads ``getattr(torch, device.type, None)``
    after ``device = torch.device(device)`` and enters ``backend.device(device)``. A torch.device's type names one of
    PyTorch's backends (cpu, cuda, xpu, mps, mtia as modules of torch), so the scan reads the result as torch.cuda:
    the idiom passes, and what else it reaches is judged as torch.cuda's (streams, memory queries refused)."""
    assert hits(_DEVICE_CONTEXT) == []
    assert [r for _, r in hits('''
        import torch

        def f(device):
            device = torch.device(device)
            getattr(torch, device.type).Stream()
            getattr(torch, torch.device("cuda").type).memory_allocated()
    ''')] == ["streams", "torch-compute"]


@pytest.mark.parametrize("source", [
    # a tensor's .device may be any object's attribute: its .type is not proven a device type
    "import torch\ndef f(x):\n    return getattr(torch, x.device.type, None)\n",
    # rebound after the torch.device call, or in a branch, or by a loop
    "import torch\ndef f(d, g):\n    d = torch.device(d)\n    d = g(d)\n    return getattr(torch, d.type)\n",
    "import torch\ndef f(d, g):\n    d = torch.device(d)\n    if g:\n        d = g\n"
    "    return getattr(torch, d.type)\n",
    "import torch\ndef f(d):\n    d = torch.device(d)\n    for d in g():\n        return getattr(torch, d.type)\n",
    # a name never bound by torch.device
    "import torch\ndef f(d):\n    return getattr(torch, d.type)\n",
    # another module than torch
    "import torch, triton\ndef f(d):\n    d = torch.device(d)\n    return getattr(triton, d.type)\n",
])
def test_getattr_on_torch_with_an_unproven_device_type_stays_dynamic(source: str) -> None:
    """tp38: only ``torch.device(...)``, or a name that a statement of the same body binds to it last before the
    getattr, proves the name a device type; anything else stays dynamic-attr."""
    assert "dynamic-attr" in [r for _, r in hits(source)]


def test_dtensor_is_a_type_only_class() -> None:
    """tp38 (real third-party kernels): Liger-Kernel's rms_norm imports ``DTensor`` in a try/except and tests
    ``isinstance(X, DTensor)`` before gathering a tensor-parallel input; L1 refused the import and the reads as rule
    network. Like Triton's runtime classes, DTensor may now be imported by name and read as a type; making one or
    reaching its attributes stays refused, and so does the rest of torch.distributed."""
    assert hits('''
        import torch
        try:
            from torch.distributed.tensor import DTensor as _DTensor
        except Exception:
            _DTensor = ()

        def f(x):
            if isinstance(x, _DTensor) or isinstance(x, torch.distributed.tensor.DTensor):
                x = x.full_tensor()
            return x
    ''') == []
    refused = [
        "from torch.distributed.tensor import DTensor\ndef f(t):\n    return DTensor.from_local(t)\n",
        "from torch.distributed.tensor import DTensor\ndef f(t):\n    return DTensor(t)\n",
        "from torch.distributed.tensor import DTensor\nmake = DTensor\n",
        "from torch.distributed.tensor import DTensor, distribute_tensor\n",
        "import torch\ndef f(t):\n    return torch.distributed.tensor.DTensor.from_local(t)\n",
        "import torch\ndef f(t):\n    return torch.distributed.all_reduce(t)\n",
    ]
    for source in refused:
        assert "network" in [r for _, r in hits(source)], source


@pytest.mark.parametrize("source", [
    # dataclasses.fields hands back a class body's annotations as values
    "import dataclasses\nfrom torch.distributed.tensor import DTensor\n@dataclasses.dataclass\nclass C:\n"
    "    t: DTensor = None\ndef f(x):\n    return dataclasses.fields(C)[0].type.from_local(x)\n",
    # functools.singledispatch's register keeps a parameter's annotated class in f.registry
    "import functools\nfrom torch.distributed.tensor import DTensor\n@functools.singledispatch\ndef g(x):\n"
    "    return x\n@g.register\ndef _(x: DTensor):\n    return x\n"
    "def f(x):\n    return list(g.registry)[-1].from_local(x)\n",
])
def test_a_type_only_class_in_an_annotation_a_library_reads_back_is_refused(source: str) -> None:
    """rb38: tp38 made DTensor type-only (an annotation passes), but the annotations of a class body and of a decorated
    function come back as values through dataclasses.fields and singledispatch's registry, so the file could call the
    class after all. There it is judged as any other read (and so are Triton's runtime classes)."""
    assert "network" in [r for _, r in hits(source)]
    triton_class = ("import dataclasses\nimport triton\n@dataclasses.dataclass\nclass C:\n"
                    "    k: triton.runtime.JITFunction = None\n")
    assert hits(triton_class) != []
    # a class body's annotations under `from __future__ import annotations` are strings dataclasses keep unevaluated
    assert hits("from __future__ import annotations\nimport dataclasses\nfrom torch.distributed.tensor import DTensor\n"
                "@dataclasses.dataclass\nclass C:\n    t: DTensor = None\n") == []
    # a parameter annotation of a plain function stays a type position (tests/good typing_only_import)
    assert hits("from torch.distributed.tensor import DTensor\ndef f(x: DTensor) -> DTensor:\n    return x\n") == []


_KERNL_FORWARD = """
    import functools
    import torch
    from torch.cuda.amp import custom_fwd
    from triton import JITFunction

    class LayerNorm(torch.autograd.Function):
        @staticmethod
        @custom_fwd(cast_inputs=torch.float16)
        def forward(ctx, x, implementation: JITFunction):
            return x
"""


def test_an_annotation_under_wrapping_decorators_is_a_type_position() -> None:
    """tp39 (real third-party kernels): kernl's layer norm annotates its autograd forward's kernel parameter
    ``implementation: JITFunction`` under ``@staticmethod @custom_fwd(cast_inputs=torch.float16)``; since rb38 every
    decorated function's annotations counted as kept values, and L1 refused the annotation (introspection). Decorators
    that only wrap the function (staticmethod, classmethod, property, PyTorch's autograd ones) keep no annotation;
    any other decorator, or such a name rebound in a class body, still makes them kept."""
    assert hits(_KERNL_FORWARD) == []
    for old, new in (("        @staticmethod\n", "        @functools.singledispatch\n"),
                     ("        @custom_fwd(cast_inputs=torch.float16)\n", "        @functools.cache\n"),
                     ("    class LayerNorm(torch.autograd.Function):\n",
                      "    class LayerNorm(torch.autograd.Function):\n        staticmethod = functools.cache\n")):
        src = _KERNL_FORWARD.replace(old, new)
        assert src != _KERNL_FORWARD
        assert "introspection" in [r for _, r in hits(src)], new


def test_a_device_backend_getattr_with_another_default_is_not_a_backend() -> None:
    """rb38: ``getattr(torch, d.type, x)`` is ``x`` for a device type torch has no module of (``meta``), so with any
    default but None the result is not a backend module and is not judged as torch.cuda (tp38 allowed any default)."""
    source = """
        import torch

        def f(x):
            d = torch.device("meta")
            b = getattr(torch, d.type, x)
            b.synchronize()
    """
    assert [r for _, r in hits(source)] == ["dynamic-attr"]
    assert hits(source.replace("d.type, x)", "d.type, None)")) == []


def test_tensor_flag_properties_called_are_not_tensor_methods() -> None:
    """tp38 (real third-party kernels): vLLM's Triton reshape_and_cache_flash picks num_warps with
    ``current_platform.is_rocm() or current_platform.is_xpu()``; the second was judged "the tensor method .is_xpu()".
    torch.Tensor's ``is_cuda``/``is_xpu``/... are properties (calling one on a tensor raises), so such a call is some
    other object's method. The real ``is_*`` methods keep their judgement (``is_pinned`` is allowed or not as
    before; ``is_nonzero`` still reads a tensor)."""
    assert hits('''
        class Platform:
            def is_xpu(self):
                return False

            def is_cuda(self):
                return True

        current_platform = Platform()

        def f(x):
            return current_platform.is_xpu() or current_platform.is_cuda() or x.is_cuda
    ''') == []
    assert [r for _, r in hits('''
        def f(x):
            return x.is_nonzero()
    ''')] == ["tensor-method"]


def test_a_module_s_import_machinery_is_introspection():
    """Red team 42 (tests/bad/loader_exec): a module's ``__loader__`` compiled a bytes literal (``source_to_code``)
    and ran it as the module's code (``load_module``), source L1 never scanned; ``math.__loader__`` is the builtin
    importer (``load_module("posix")``) and ``__spec__.loader`` the same loader. Every way to name one is refused,
    not the module's name or file."""
    src = """
        import math
        import torch
        LD = __loader__
        S = __spec__.loader
        B = math.__loader__.load_module("posix")
        T = torch.__spec__
        G = getattr(math, "__loader__")
        def erfc(x, ld=__loader__):
            return ld.get_data(__file__)
        """
    assert hits(src, entry_points=frozenset({"erfc"})) == [
        (4, "introspection"), (5, "introspection"), (6, "introspection"), (7, "introspection"),
        (8, "introspection"), (9, "introspection")]
    own = """
        import math
        __spec__ = None
        N = (__name__, __file__, math.__name__, __spec__)
        """
    assert hits(own) == []


def test_the_class_statement_s_builtin_is_refused():
    """Red team 42: ``__build_class__(body, "C", torch.Tensor)`` made a tensor subclass with no finding (its bases are
    call arguments, judged as values: ``torch.Tensor`` passes there), past the class rules that refuse
    ``class C(torch.Tensor)`` and ``type("C", (torch.Tensor,), {})``. No payload was shown; the builtin has no honest
    use, and a class statement stays judged by its own rules."""
    src = """
        import torch
        def body():
            pass
        C = __build_class__(body, "C", torch.Tensor)
        bc = __build_class__
        """
    assert hits(src) == [(5, "introspection"), (6, "introspection")]
    assert hits("import torch\nclass C(torch.nn.Module):\n    pass\n") == []


def test_site_helpers_that_import_or_read_files_are_refused():
    """Red team 42: ``help("ctypes")`` imports any module named by a string (pydoc's locate: ``help("antigravity")``
    starts a browser) and ``license()`` reads files; both read standard input, and both passed L1. No payload was
    shown. Bound by the file, the names are its own."""
    src = """
        def erfc(x):
            help("ctypes")
            license()
            h = help
            return x
        """
    assert hits(src, entry_points=frozenset({"erfc"})) == [
        (3, "dynamic-import"), (4, "file-io"), (5, "dynamic-import")]
    assert hits("def help(x):\n    return x\nY = help(1)\n") == []


def test_a_module_s_spec_read_for_its_name_or_against_none_passes():
    """rb42 false rejection of rt42's refusal: ``logging.getLogger(__spec__.name if __spec__ else __name__)`` (a
    logger named by the module's spec, as Backend.AI's modules write it) and ``if __name__ == "__main__" and __spec__
    is None`` (run as a script) read a string or a bool. Any other read of ``__spec__`` reaches its loader."""
    honest = """
        import logging
        logger = logging.getLogger(__spec__.name if __spec__ else __name__)
        PKG = __spec__.parent if __spec__ is not None else ""
        if __name__ == "__main__" and __spec__ is None and not __spec__:
            logger.info("self-test")
        """
    assert hits(honest) == []
    refused = """
        S = __spec__ or None
        L = __spec__.loader
        O = __spec__.origin
        E = __spec__ == None
        """
    assert hits(refused) == [(2, "introspection"), (3, "introspection"), (4, "introspection"),
                             (5, "introspection")]


def test_binding_the_module_s_builtins_is_refused():
    """rb42: a module's ``__builtins__`` is where the functions it defines afterwards look up built-in names:
    ``__builtins__ = dict(max=type)`` made ``max("C", (torch.Tensor,), {})`` in a function build a tensor subclass
    (checked on CPython 3.11) while L1 judged the built-in ``max``. Every binding of the name is refused."""
    src = """
        import torch
        __builtins__ = dict(max=type)
        def erfc(x):
            C = max("C", (torch.Tensor,), {})
            return x
        for __builtins__ in ():
            pass
        import math as __builtins__
        """
    assert hits(src) == [(3, "introspection"), (7, "introspection"), (9, "introspection")]


def test_a_binding_that_may_not_have_run_leaves_the_builtin_in_reach():
    """rb42 (tests/bad/loader_rebound): a module-level read finds the file's own binding of a name only once that
    binding has run; before it, when it never runs or after ``del``, Python reads the built-in (a module's
    ``__loader__`` and ``__spec__`` are globals set before the file's first line). L1 took any binding in the scope
    for the file's own name: ``__loader__ = __loader__`` brought back loader_exec, ``if False: exec = None`` passed
    ``exec``. A binding that runs first stays the file's own."""
    cases = {
        "__loader__ = __loader__\nL = __loader__.load_module()\n": [(1, "introspection"), (2, "introspection")],
        "if False:\n    exec = None\nexec('import os')\n": [(3, "exec-eval")],
        "open('/etc/hostname')\nopen = print\n": [(1, "file-io")],
        "def help(x):\n    return x\ndel help\nhelp('ctypes')\n": [(4, "dynamic-import")],
        "for vars in ():\n    pass\nV = vars()\n": [(3, "exec-eval")],
        "def f():\n    return getattr\ndef getattr(o, n):\n    return o\n": [(2, "dynamic-attr")],
        "class C:\n    if False:\n        __spec__ = None\n    S = __spec__\n": [(4, "introspection")],
        "try:\n    from math import sqrt as compile\nexcept ImportError:\n    pass\nC = compile\n": [(5, "exec-eval")],
        "import os\nif os.environ.get('X'):\n    open = print\nF = open\n": [(4, "file-io")],
    }
    for src, want in cases.items():
        assert hits(src) == want, src
    own = """
        import math
        license = "MIT"
        __spec__ = None
        def help(x):
            return help
        def erfc(x):
            return (license, __spec__, help(x), max(x, 0))
        if math.pi > 3:
            max = min
        try:
            from math import sqrt as compile
        except ImportError:
            compile = None
        if math.e > 2:
            open = print
        else:
            open = len
        C = (compile, open)
        """
    assert hits(own, entry_points=frozenset({"erfc"})) == []


def test_a_tensor_method_as_a_value_is_judged_as_its_call():
    """Red team 43 (tests/bad/tensor_method_value): ``torch.Tensor.<method>`` was judged only where it is called by
    that name or through a plain alias, while ``torch.<function>`` is judged as a value too: as an argument
    (``operator.call``, ``map``, a sort key, the file's own helper), an element of a container or a return value, a
    computing method passed L1 and ran where the scan does not follow it. Now judged as its call would be; the
    methods a wrapper may call (views, metadata, conversions, allowed copies) and the attributes that are no
    methods stay fine as values."""
    src = """
        import functools
        import operator
        import torch
        def g(f, x):
            return f(x)
        def erfc(x):
            a = operator.call(torch.Tensor.erf, x)
            b = list(map(torch.Tensor.exp, [x]))
            c = sorted([x, x], key=torch.Tensor.sum)
            d = g(torch.Tensor.__mul__, x)
            e = [torch.Tensor.tolist]
            f = functools.partial(torch.Tensor.new_tensor, x)
            T = torch.Tensor
            h = g(T.abs, x)
            return torch.Tensor.erfc
        """
    assert hits(src, own_ops=frozenset({"erfc"}), entry_points=frozenset({"erfc"})) == [
        (8, "tensor-method"), (9, "tensor-method"), (10, "tensor-method"), (11, "tensor-method"),
        (12, "tensor-method"), (13, "tensor-method"), (15, "tensor-method"), (16, "dispatch-recursion")]
    fine = """
        import functools
        import torch
        def erfc(x):
            a = list(map(torch.Tensor.size, [x]))
            b = functools.partial(torch.Tensor.view, x)
            c = [torch.Tensor.to, torch.Tensor.float, torch.Tensor.contiguous, torch.Tensor.item]
            d = (torch.Tensor.shape, torch.Tensor.dtype, torch.Tensor.T, torch.Tensor.is_cuda)
            e = isinstance(x, torch.Tensor)
            return torch.Tensor.__init__
        """
    assert hits(fine, own_ops=frozenset({"erfc"}), entry_points=frozenset({"erfc"})) == []


def test_a_coroutine_s_code_object_is_introspection():
    """Red team 43 (tests/bad/code_rebuild): ``coro.cr_code`` (an async generator's ``ag_code``) handed out a code
    object while ``gi_code``/``__code__``/``f_code`` were refused; ``code.replace(co_names=("exec",))`` and ``type(f)``
    (``types.FunctionType``) then ran exec of a bytes literal. Every spelling of the attribute is refused."""
    src = """
        async def _call(a, b):
            return _name(a, b)
        async def _agen():
            yield 1
        def erfc(x):
            c = _call(x, x)
            a = c.cr_code
            b = _agen().ag_code
            d = getattr(c, "cr_code")
            return a, b, d
        """
    assert hits(src, entry_points=frozenset({"erfc"})) == [(8, "introspection"), (9, "introspection"),
                                                           (10, "introspection")]
    fine = """
        async def _call(a):
            return a
        def erfc(x):
            c = _call(x)
            c.close()
            return c.cr_running, type(erfc)
        """
    assert hits(fine, entry_points=frozenset({"erfc"})) == []


def test_an_object_s_state_is_introspection():
    """Red team 43 (tests/bad/getstate_exec): Python 3.11's ``object.__getstate__`` returns an object's ``__dict__``,
    for a module its globals: ``tl.__getstate__()["__builtins__"]["exec"]`` ran a bytes literal and
    ``math.__getstate__()["__loader__"]`` is the builtin importer, while ``__dict__``/``vars()`` were refused. Every
    receiver and spelling is refused; a class of the file may still define the method (pickling support)."""
    src = """
        import math
        import triton.language as tl
        EX = tl.__getstate__()["__builtins__"]["exec"]
        LD = math.__getstate__()["__loader__"]
        def erfc(x):
            return getattr(x, "__getstate__")(), x.__getstate__()
        """
    assert hits(src, entry_points=frozenset({"erfc"})) == [(4, "introspection"), (5, "introspection"),
                                                           (7, "introspection"), (7, "introspection")]
    fine = """
        class Box:
            def __getstate__(self):
                return {"v": 1}
        def erfc(x):
            return Box()
        """
    assert hits(fine, entry_points=frozenset({"erfc"})) == []
