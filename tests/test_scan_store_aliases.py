"""L1 (red team rt39b): stores into Triton's and PyTorch's classes reached through ``type()`` and kept in a name, a
loop variable or a container, and instance attributes that shadow what Triton's kernel classes define."""
from __future__ import annotations

import textwrap

import pytest

from kernelgenbench.verify.scan import scan_source

HEAD = '''
import functools

import torch
import triton
import triton.language as tl


@triton.jit
def _k(X, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(X + i, tl.load(X + i))


@triton.autotune(configs=[triton.Config({})], key=[])
@triton.jit
def _a(X):
    pass


def _body(X):
    pass


_j = triton.jit(_body)


def _f(*a, **k):
    return None
'''


def rules(body: str) -> list[str]:
    """The rules of the findings of HEAD followed by the dedented ``body``."""
    return sorted({f.rule for f in scan_source(HEAD + textwrap.dedent(body))})


@pytest.mark.parametrize("body", [
    "_KT = type(_k)\n_KT.run = _f",                            # rb39's reproduction
    "_KT = type(_k)\nsetattr(_KT, 'run', _f)",
    "_KT = type(_k)\ndel _KT.run",
    "_KT = type(_k)\nfunctools.update_wrapper(_KT.run, _f)",  # writes the hooked run's attributes
    "for _c in (type(_k),):\n    _c.run = _f",
    "_l = [type(_k)]\n_x = _l[0]\n_x.run = _f",
    "_d = {'a': type(_k)}\n_d['a'].run = _f",
    "def g(t):\n    T = type(t)\n    T.add = _f",               # torch.Tensor through a tensor
    "_FT = type(_f)\n_FT.x = 1",
    "with open('x') as _h:\n    pass\n_T = [type(_h)][0]\n_T.read = _f",
])
def test_store_through_a_name_bound_to_type_of_an_object(body: str) -> None:
    assert "monkey-patch" in rules(body)


@pytest.mark.parametrize("body", [
    "_k.run = _f", "setattr(_k, 'run', _f)", "_k.src = 'def f(): pass'", "_k.pre_run_hooks = [_f]",
    "_k.arg_names = []", "_k.__getitem__ = _f", "_a.configs = []", "_a.base_fn = _f", "_a.do_bench = _f",
    "_a.pre_hook = _f", "_j.run = _f", "_r = _k\n_r.run = _f", "for _x in (_k, _a):\n    _x.warmup = _f",
    "_k.params[0] = None",
    # in place, through a mutating method of the attribute's container
    "_k.pre_run_hooks.append(_f)", "_a.configs.append(triton.Config({}))", "_k.params.clear()",
    "_k.arg_names.append('x')", "for _x in (_k,):\n    _x.cache.clear()",
])
def test_store_of_a_triton_attribute_on_a_kernel(body: str) -> None:
    assert "monkey-patch" in rules(body)


@pytest.mark.parametrize("body", [
    "_k.my_cache = {}",                              # the file's own attribute names on its kernels stay legal
    "_a.best = None\n_k.launches = 0",
    "_k.my_hooks = []\n_k.my_hooks.append(_f)",    # the file's own container on its kernel
    "_k.add_pre_run_hook(_f)",                       # Triton's API (the hook runs traced, in ghost replays too)
    "class _Own:\n    pass\n\n\n_o = _Own()\n_o.run = _f\nfunctools.update_wrapper(_o, _f)",
    "class _Own:\n    n = 0\n\n\n_Own.n = 1\n_t = _Own\n_t.m = 2",  # the file's own class through a name
    "def g(x, out):\n    y = out.view(-1)\n    y[0] = 1\n    return y",
])
def test_own_objects_stay_legal(body: str) -> None:
    assert rules(body) == []
