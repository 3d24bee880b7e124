"""The L3 launch rule (sandbox/launch_args.py): what a Triton launch may hand to a kernel, and what a
kernel body may read as globals. The checker is called directly here (no hooks installed); the
end-to-end cases are the ``launch_*`` fixtures of tests/bad and tests/good, and the hooks' recording
is checked in tests/test_ghost_replay.py."""
from __future__ import annotations

import collections
import os
import time
import typing
from pathlib import Path

import numpy as np
import pytest
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

from kernelgenbench.sandbox import launch_args as la
from kernelgenbench.sandbox import snapshots as snap


@triton.jit
def _plain(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@triton.jit
def _touch(p, T: tl.constexpr):
    if T:
        pass


@triton.jit
def _combine(a, b):
    return a + b


_Pair = collections.namedtuple("_Pair", ["a", "b"])


class _Typed(typing.NamedTuple):
    a: int
    b: float = 1.0


class _Tally:
    def __init__(self):
        self.n = 0


def _bump(self, *a):
    self.n += 1
    return True


class _Dunder:
    __bool__ = _bump


class _MyInt(int):
    pass


class _FakeTensor:
    dtype = torch.float32

    def data_ptr(self):
        return 0


class _SubTensor(torch.Tensor):
    pass


_CALLS: list[str] = []


class _Meta(type):
    def __getattr__(cls, name):
        _CALLS.append(f"meta.{name}")
        raise AttributeError(name)

    def __instancecheck__(cls, obj):
        _CALLS.append("instancecheck")
        return True


class _Loud(metaclass=_Meta):
    """Every way Python could run code of the object: none may run during the check."""

    def __getattribute__(self, name):
        _CALLS.append(f"getattribute.{name}")
        return object.__getattribute__(self, name)

    def __getattr__(self, name):
        _CALLS.append(f"getattr.{name}")
        raise AttributeError(name)

    @property
    def __class__(self):  # noqa: D401 - isinstance() would read this
        _CALLS.append("__class__")
        return torch.Tensor

    def __bool__(self):
        _CALLS.append("bool")
        return True

    def __eq__(self, other):
        _CALLS.append("eq")
        return True

    def __hash__(self):
        _CALLS.append("hash")
        return 0

    def __len__(self):
        _CALLS.append("len")
        return 0

    def __iter__(self):
        _CALLS.append("iter")
        return iter(())

    def __repr__(self):
        _CALLS.append("repr")
        return "loud"

    def data_ptr(self):
        _CALLS.append("data_ptr")
        return 0


def _check(*args, kernel=_plain, **kwargs):
    return la.check_launch(kernel, args, kwargs)


def _desc() -> TensorDescriptor:
    return TensorDescriptor.from_tensor(torch.zeros(8, 8), [4, 4])


ALLOWED = [
    ("tensor", lambda: torch.zeros(3)),
    ("parameter", lambda: torch.nn.Parameter(torch.zeros(3))),
    ("int", lambda: 3), ("big int", lambda: 2 ** 40), ("float", lambda: 1.5), ("bool", lambda: True),
    ("None", lambda: None), ("str", lambda: "neg"),
    ("numpy scalars", lambda: (np.int32(3), np.float16(1.0), np.bool_(True))),
    ("torch dtype", lambda: torch.float16), ("triton dtypes", lambda: (tl.float32, tl.pointer_type(tl.int8))),
    ("constexpr", lambda: tl.constexpr(4)), ("constexpr str", lambda: tl.constexpr("max")),
    ("tuple", lambda: (1, (2.0, torch.zeros(1)), None)), ("torch.Size", lambda: torch.Size([2, 3])),
    ("namedtuple", lambda: _Pair(1, torch.zeros(2))), ("typing.NamedTuple", lambda: _Typed(1)),
    ("namedtuple with Triton values as defaults", lambda: _JitDefault(2)),
    ("jit function", lambda: _combine),
    ("autotuned", lambda: triton.autotune(configs=[triton.Config({"BLOCK": 16})], key=["n"])(_plain)),
    ("heuristics", lambda: triton.heuristics({"BLOCK": lambda a: 16})(_plain)),
    ("tensor descriptor", _desc),
    ("reinterpret", lambda: triton.reinterpret(torch.zeros(4, dtype=torch.int8), tl.uint8)),
]


@pytest.mark.parametrize("make", [a[1] for a in ALLOWED], ids=[a[0] for a in ALLOWED])
def test_triton_values_are_accepted(make) -> None:
    v = make()
    assert _check(v, torch.zeros(3), 3, BLOCK=v) is None
    assert _check(torch.zeros(3), torch.zeros(3), 3, BLOCK=v) is None


def _defaultdict():
    return collections.defaultdict(int)


def _patched_namedtuple():
    cls = collections.namedtuple("_Patched", "a")
    cls.__bool__ = _bump  # added after the class was made (L1 cannot see setattr(P, "__bool__", f))
    return cls(1)


class _WithMethod(typing.NamedTuple):
    a: int

    def total(self):
        return self.a


def _namedtuple_with_method():
    return _WithMethod(1)


#: red team 38: a field default is what a kernel body's ``Cls()`` fills in (the class read as a global)
_HostDefault = collections.namedtuple("_HostDefault", "a f", defaults=(_Tally(),))
_JitDefault = collections.namedtuple("_JitDefault", "a f", defaults=(1, _combine))


def _host_default_rebound():
    cls = collections.namedtuple("_Rebound", "a", defaults=(1,))
    assert la.check_launch(_plain, (torch.zeros(3), torch.zeros(3), 3), {"BLOCK": cls(2)}) is None  # approved once
    cls.__new__.__defaults__ = (_Tally(),)  # then the default the body's cls() takes, rebound in place
    return cls(2)


def _desc_with_fake_base():
    d = _desc()
    d.base = _FakeTensor()
    return d


REJECTED = [
    ("user object", lambda: _Tally(), "argument BLOCK is a _Tally"),
    ("dunder by assignment", lambda: _Dunder(), "argument BLOCK is a _Dunder"),
    ("int subclass", lambda: _MyInt(3), "argument BLOCK is a _MyInt (a subclass of int)"),
    ("bool-like numpy subclass", lambda: type("_F", (np.float64,), {})(1.0), "argument BLOCK is a _F"),
    ("defaultdict", _defaultdict, "argument BLOCK is a defaultdict"),
    ("dict", lambda: {"a": 1}, "argument BLOCK is a dict"),
    ("list", lambda: [1, 2], "argument BLOCK is a list"),
    ("set", lambda: {1}, "argument BLOCK is a set"),
    ("complex", lambda: 1j, "argument BLOCK is a complex"),
    ("fake tensor", lambda: _FakeTensor(), "argument BLOCK is a _FakeTensor"),
    ("tensor subclass", lambda: torch.zeros(2).as_subclass(_SubTensor),
     "argument BLOCK is a _SubTensor (a subclass of torch.Tensor)"),
    ("class object", lambda: _Tally, "argument BLOCK is the class _Tally"),
    ("plain function", lambda: _bump, "argument BLOCK is a function"),
    ("bound method", lambda: [].append, "argument BLOCK is a builtin_function_or_method"),
    ("constexpr of object", lambda: tl.constexpr(_Tally()), "argument BLOCK.value is a _Tally"),
    ("tuple element", lambda: (1, (2, _Tally())), "argument BLOCK[1][1] is a _Tally"),
    ("namedtuple element", lambda: _Pair(1, {}), "argument BLOCK[1] is a dict"),
    ("namedtuple patched", _patched_namedtuple, "argument BLOCK is a _Patched (a subclass of tuple)"),
    ("namedtuple with a method", _namedtuple_with_method, "argument BLOCK is a _WithMethod (a subclass of tuple)"),
    ("namedtuple with an object as default", lambda: _HostDefault(1, 2),
     "argument BLOCK is a _HostDefault (a subclass of tuple)"),
    ("namedtuple default rebound", _host_default_rebound, "argument BLOCK is a _Rebound (a subclass of tuple)"),
    ("descriptor with a fake base", _desc_with_fake_base, "argument BLOCK.base is a _FakeTensor"),
    ("jit subclass", lambda: type("_J", (type(_plain),), {}).__new__(type("_J", (type(_plain),), {})),
     "argument BLOCK is a _J"),
]


@pytest.mark.parametrize("make,expected", [r[1:] for r in REJECTED], ids=[r[0] for r in REJECTED])
def test_other_objects_are_rejected(make, expected) -> None:
    msg = _check(torch.zeros(3), torch.zeros(3), 3, BLOCK=make())
    assert msg is not None and msg.startswith(f"kernel _plain: {expected} ("), msg
    assert msg.endswith(f"({la.ALLOWED_ARGS})")


def test_message_names_kernel_argument_and_type() -> None:
    # positional arguments are named by the kernel's parameter names
    assert la.check_launch(_touch, (torch.zeros(1), _Tally()), {}) == (
        "kernel _touch: argument T is a _Tally (launch arguments must be tensors, numbers, strings, dtypes, "
        "constexprs, jit functions or tensor descriptors)")
    msg = la.check_launch(_plain, (torch.zeros(1), _FakeTensor(), 1), {"BLOCK": 4})
    assert msg.startswith("kernel _plain: argument o_ptr is a _FakeTensor (")


def test_launch_options_are_checked_too() -> None:
    assert _check(torch.zeros(3), torch.zeros(3), 3, BLOCK=4, num_warps=4, num_stages=2) is None
    assert "argument num_warps is a _MyInt" in _check(torch.zeros(3), torch.zeros(3), 3, BLOCK=4, num_warps=_MyInt(4))
    # grid and warmup are the launch's own, not the kernel's
    assert _check(torch.zeros(3), torch.zeros(3), 3, BLOCK=4, grid=lambda m: (1,), warmup=False) is None


def test_wrappers_are_checked_at_their_own_entry() -> None:
    tuned = triton.autotune(configs=[triton.Config({"BLOCK": 16})], key=["n"])(_plain)
    heur = triton.heuristics({"BLOCK": lambda a: 16})(_plain)
    for k in (tuned, heur):
        assert la.check_launch(k, (torch.zeros(3), torch.zeros(3), 3), {}) is None
        assert la.check_launch(k, (torch.zeros(3), _FakeTensor(), 3), {}).startswith(
            "kernel _plain: argument o_ptr is a _FakeTensor")


def test_the_check_runs_no_code_of_the_object() -> None:
    loud = _Loud()
    values = (loud, (1, loud), tl.constexpr(loud), _Pair(loud, 1))  # tl.constexpr() itself reads __class__
    _CALLS.clear()
    for v in values:
        msg = _check(torch.zeros(3), torch.zeros(3), 3, BLOCK=v)
        assert msg is not None and "is a _Loud" in msg, msg
    assert la.bad_global(loud, []) is not None and la.bad_global(_Loud, []) is not None
    assert _CALLS == []


# -- globals a kernel body reads ------------------------------------------------------------------

_G_TALLY = _Dunder()
_G_TABLE = {"a": 1}
_G_INT = 4
_G_CONST = tl.constexpr(8)
_G_TUPLE = (1, 2.0, "x")
_G_SLOT = 1


@triton.jit
def _reads_object(p):
    if _G_TALLY:
        pass


@triton.jit
def _reads_table(p):
    v = _G_TABLE["a"]  # noqa: F841 - the read is the point


@triton.jit
def _reads_constants(p, n):
    offs = tl.arange(0, _G_CONST) + _G_INT + _G_TUPLE[0]
    tl.store(p + offs, tl.zeros([_G_CONST], dtype=tl.float32), mask=offs < n)


@triton.jit
def _calls_helper_reading_object(p):
    _reads_object(p)


@triton.jit
def _reads_slot(p):
    x = _G_SLOT + 1  # noqa: F841 - the read is the point


@triton.jit
def _reads_in_comprehension(p):
    x = [_G_TABLE for _ in range(1)]  # noqa: F841 - the read is the point


def _make_closure_kernel(value):
    @triton.jit
    def _closure_kernel(p):
        x = value  # noqa: F841 - the read is the point

    return _closure_kernel


@triton.jit
def _with_default(p, D: tl.constexpr = _G_TABLE):
    pass


@triton.jit
def _calls_param(p, FN: tl.constexpr):
    FN(p, p)


def test_globals_of_modules_jit_functions_and_constants_are_accepted() -> None:
    assert la.check_launch(_reads_constants, (torch.zeros(8), 8), {}) is None
    assert la.check_launch(_plain, (torch.zeros(3), torch.zeros(3), 3), {"BLOCK": 4}) is None
    assert la.check_launch(_make_closure_kernel(3), (torch.zeros(1),), {}) is None
    assert la.check_launch(_calls_param, (torch.zeros(1),), {"FN": _combine}) is None


def test_globals_of_other_objects_are_rejected() -> None:
    def msg(kernel, *args, **kwargs):
        return la.check_launch(kernel, args or (torch.zeros(1),), kwargs)

    assert msg(_reads_object) == (f"kernel _reads_object: global _G_TALLY is a _Dunder ({la.ALLOWED_GLOBALS})")
    assert msg(_reads_table).startswith("kernel _reads_table: global _G_TABLE is a dict (")
    # transitively, through the jit functions a body calls (named by the function that reads it)
    assert msg(_calls_helper_reading_object).startswith("kernel _reads_object: global _G_TALLY is a _Dunder")
    # names loaded in nested code objects (comprehensions run as Python on the interpreter)
    assert msg(_reads_in_comprehension).startswith("kernel _reads_in_comprehension: global _G_TABLE is a dict")
    assert msg(_make_closure_kernel(_Tally())).startswith(
        "kernel _closure_kernel: closure variable value is a _Tally (")
    assert msg(_with_default).startswith("kernel _with_default: default of argument D is a dict (")
    # a jit function passed as an argument: its own globals are checked
    assert msg(_calls_param, FN=_calls_helper_reading_object).startswith(
        "kernel _reads_object: global _G_TALLY is a _Dunder")


def test_a_global_rebound_after_a_passed_launch_is_seen() -> None:
    global _G_SLOT
    assert la.check_launch(_reads_slot, (torch.zeros(1),), {}) is None  # cached
    old = _G_SLOT
    try:
        _G_SLOT = _Tally()
        assert la.check_launch(_reads_slot, (torch.zeros(1),), {}).startswith(
            "kernel _reads_slot: global _G_SLOT is a _Tally")
        _G_SLOT = tl.constexpr(2)
        assert la.check_launch(_reads_slot, (torch.zeros(1),), {}) is None
        _G_SLOT.value = _Tally()  # the same constexpr, now holding an object: re-checked every launch
        assert la.check_launch(_reads_slot, (torch.zeros(1),), {}).startswith(
            "kernel _reads_slot: global _G_SLOT.value is a _Tally")
    finally:
        _G_SLOT = old
    assert la.check_launch(_reads_slot, (torch.zeros(1),), {}) is None


def test_overhead_per_launch_is_small() -> None:
    """A typical launch (two tensors, ints, constexprs; a kernel reading tl and a jit helper): the check
    costs a few microseconds (measured on the interpreter's objects; loose bound for shared CI)."""
    x, o = torch.zeros(64), torch.zeros(64)
    args, kwargs = (x, o, 64), {"BLOCK": 64, "num_warps": 4}
    assert la.check_launch(_plain, args, kwargs) is None
    n = 2000
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            la.check_launch(_plain, args, kwargs)
        best = min(best, (time.perf_counter() - t0) / n)
    assert best < 50e-6, f"{best * 1e6:.1f} us per launch"


def _intenum(**extra):
    import enum

    ns = {"PLAIN": 0, "FAST": 1, **extra}
    return enum.IntEnum("Mode", ns) if not extra else type(enum.IntEnum)("Mode", (enum.IntEnum,), _enum_dict(ns))


def _enum_dict(ns):
    import enum

    d = enum.EnumType.__prepare__("Mode", (enum.IntEnum,))
    for k, v in ns.items():
        d[k] = v
    return d


def test_intenum_callables_must_be_the_enum_modules_under_their_own_names() -> None:
    """Red team 27: an IntEnum's dictionary may hold the enum module's functions only under their own names, int's
    and object's builtins only, and its bookkeeping containers and members' dictionaries names, values and
    members only; each rejected class here ran submission code when a kernel body evaluated MODE == 1."""
    import enum

    def gen():
        while True:
            yield False

    g = gen()
    next(g)
    ok = [_intenum(), _intenum(_generate_next_value_=staticmethod(enum.Enum._generate_next_value_))]
    for cls in ok:
        assert la.bad_value(cls.FAST) is None, cls.__dict__
    sent = _intenum(__eq__=g.send, __hash__=int.__hash__)
    renamed = _intenum(__eq__=classmethod(enum.Enum.__new__), __hash__=int.__hash__)
    keyed = _intenum()

    class Key:
        def __hash__(self):
            return 1

    keyed._value2member_map_[Key()] = keyed.PLAIN
    named = _intenum()
    named.PLAIN.__dict__["_name_"] = Key()
    for cls in (sent, renamed, keyed, named):
        assert la.bad_value(cls.FAST) is not None, cls.__dict__


def test_changes_to_tritons_language_modules_are_reported(monkeypatch) -> None:
    """Red team 27: `for m in (tl,): m.sum = f` passed L1; the sandbox compares Triton's language modules and classes
    with their snapshot (entries rebound to something not Triton's or the harness's own, callables added)."""
    import builtins
    import functools

    monkeypatch.setattr(snap, "_TRITON_SNAPSHOT", None)
    snap.snapshot_triton()
    assert snap.triton_changed() is None

    def mine(*a):
        return 0

    orig = tl.sum
    try:
        for m in (tl,):
            m.sum = mine
        assert snap.triton_changed() == (f"triton.language.sum was changed after the harness started "
                                       f"({la.ALLOWED_GLOBALS})")
        tl.sum = functools.partial(orig, axis=0)      # Triton's own function with a plain argument: allowed
        assert snap.triton_changed() is None
        tl.sum = functools.partial(orig, combine=mine)  # a submission callable inside: not
        assert snap.triton_changed() is not None
        tl.sum = builtins.print                      # the interpreter's static_print stand-in
        assert snap.triton_changed() is None
    finally:
        tl.sum = orig
    tl.core.my_helper = mine
    try:
        assert snap.triton_changed() == (f"triton.language.core.my_helper was added after the harness started "
                                       f"({la.ALLOWED_GLOBALS})")
    finally:
        del tl.core.my_helper
    assert snap.triton_changed() is None


def test_harness_changed_sees_pytorch_entries_the_child_uses_replaced(monkeypatch):
    """Red team 28: ``for _t in (torch,): _t.save = f`` ran the submission's code on every case's outputs after the
    traced call. The child compares the modules and classes it uses with their state before the import."""
    import torch

    monkeypatch.setattr(snap, "_HARNESS_SNAPSHOT", None)
    snap.snapshot_harness()
    assert snap.harness_changed() is None

    def mine(*a, **k):
        return None

    orig = torch.save
    try:
        for m in (torch,):
            m.save = mine
        assert snap.harness_changed().startswith("torch.save was changed after the harness started")
    finally:
        torch.save = orig
    assert snap.harness_changed() is None
    torch.Tensor.my_probe = property(mine)  # a new class entry (a property the harness's attribute reads would run)
    try:
        assert snap.harness_changed().startswith("Tensor.my_probe was added after the harness started")
    finally:
        del torch.Tensor.my_probe
    assert snap.harness_changed() is None
    torch.Tensor.is_cuda = True  # a constant on a class shadows what every tensor says of itself
    try:
        assert snap.harness_changed().startswith("Tensor.is_cuda was added after the harness started")
    finally:
        del torch.Tensor.is_cuda
    assert snap.harness_changed() is None
    # PyTorch's own lazy initialisation adds C functions to its modules (torch.cuda._get_device_properties on the
    # first CUDA use: the gate at 25eac36 failed every operator so): an added torch builtin is PyTorch's own; a
    # Python function added under a new name, or a torch builtin rebound over an existing entry, is not
    cuda = torch.cuda
    cuda._kgb_probe = torch._C._get_cublas_allow_tf32
    try:
        assert snap.harness_changed() is None
        cuda._kgb_probe2 = mine
        assert snap.harness_changed().startswith("torch.cuda._kgb_probe2 was added after the harness started")
        del cuda._kgb_probe2
        orig_sync = cuda.synchronize
        cuda.synchronize = torch._C._get_cublas_allow_tf32
        try:
            assert snap.harness_changed().startswith("torch.cuda.synchronize was changed after the harness started")
        finally:
            cuda.synchronize = orig_sync
    finally:
        del cuda._kgb_probe
    assert snap.harness_changed() is None


def test_a_tensor_that_carries_attributes_is_no_launch_argument() -> None:
    """Red team 29c: ``functools.update_wrapper(buf, h, ())`` wrote ``storage_offset`` into a tensor's ``__dict__``
    (past the child's Tensor.__setattr__ guard); the harness calls that method on launch arguments outside the
    trace. A tensor with any instance attribute is refused where it is used, at the launch: plain, in a tuple, as a
    tensor descriptor's base."""
    plain = torch.zeros(4)
    assert la.check_launch(_touch, (plain, 1), {}) is None
    tagged = torch.zeros(4)
    tagged.__dict__["storage_offset"] = lambda: 0
    msg = la.check_launch(_touch, (tagged, 1), {})
    assert msg.startswith("kernel _touch: argument ") and "carries Python attributes ('storage_offset')" in msg
    assert "carries Python attributes" in (la.check_launch(_touch, (plain, (1, tagged)), {}) or "")
    big = torch.zeros(16, 16)
    big.__dict__["dim"] = lambda: 2
    desc = TensorDescriptor.from_tensor(big, [16, 16])
    assert "carries Python attributes" in (la.check_launch(_touch, (desc, 1), {}) or "")


def test_custom_fwd_on_a_plain_wrapper_tags_the_tensor_and_the_launch_is_accepted() -> None:
    """False-rejection hunt 33: ``@torch.amp.custom_fwd(device_type="cuda")`` on a plain wrapper (it decorates a
    ``torch.autograd.Function``'s forward) writes ``_dtype`` and ``_fwd_used_autocast`` on the caller's tensor. Those
    two names, with the types PyTorch writes, shadow nothing the harness calls: the launch is accepted. Anything
    beside them, or other values under them, is still refused, and the message says where the two came from."""
    @torch.amp.custom_fwd(device_type="cuda")
    def wrapper(x):
        return x

    import warnings

    t = torch.zeros(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # autocast queries on a CPU-only build
        wrapper(t)
    assert set(t.__dict__) == la.CUSTOM_FWD_ATTRS  # what PyTorch's decorator writes (if it changes, follow it)
    assert la.amp_tags_only(t.__dict__)
    assert la.check_launch(_touch, (t, 1), {}) is None
    other = torch.zeros(4)
    other.__dict__["_dtype"] = torch.float16
    other.__dict__["storage_offset"] = lambda: 0
    msg = la.check_launch(_touch, (other, 1), {}) or ""
    assert "carries Python attributes" in msg and "custom_fwd" not in msg
    forged = torch.zeros(4)
    forged.__dict__.update(_dtype=lambda: 0, _fwd_used_autocast=False)  # the names, not the types
    msg = la.check_launch(_touch, (forged, 1), {}) or ""
    assert "carries Python attributes" in msg and "torch.amp.custom_fwd writes these" in msg


def test_autotune_configs_must_be_plain(monkeypatch) -> None:
    """Triton's untraced autotune benchmarking calls ``config.all_kwargs()`` (which iterates ``config.kwargs``) and
    ``do_bench``: a Config subclass, an attribute put on a config, a kwargs dict subclass (red team 29c) or a
    do_bench of the submission would run its code there (sandbox/launch.py ``check_autotuner``)."""
    from kernelgenbench.sandbox import launch
    from kernelgenbench.sandbox.state import STATE

    monkeypatch.setattr(STATE, "launch_violations", [])

    def make(configs, **kw):
        return triton.autotune(configs=configs, key=["n"], **kw)(triton.jit(_touch.fn))

    launch.check_autotuner(make([triton.Config({"B": 1}, num_warps=2)]))  # plain: nothing
    assert STATE.launch_violations == []

    class Keys(dict):
        def keys(self):
            return super().keys()

    odd = triton.Config({"B": 1})
    odd.kwargs = Keys(B=1)
    with pytest.raises(la.LaunchArgumentError, match="kwargs of type Keys"):
        launch.check_autotuner(make([odd]))
    tagged = triton.Config({"B": 1})
    tagged.all_kwargs = lambda: {}
    with pytest.raises(la.LaunchArgumentError, match="with attributes all_kwargs"):
        launch.check_autotuner(make([tagged]))
    with pytest.raises(la.LaunchArgumentError, match="do_bench="):
        launch.check_autotuner(make([triton.Config({"B": 1})], do_bench=lambda fn, quantiles=None: [1.0] * 3))
    assert len(STATE.launch_violations) == 3


def test_logging_changed_sees_a_logger_made_to_run_the_submissions_code(monkeypatch):
    """Red team 35: L1 admits logging.getLogger (fp35); a logger's parent, method or level cache set to the
    submission's objects ran its code whenever anyone logged, outside the traced calls. Loggers left as they were,
    or set with setLevel/propagate, pass."""
    import functools
    import logging

    monkeypatch.setattr(snap, "_HARNESS_SNAPSHOT", None)
    snap.snapshot_harness()
    assert snap.logging_changed() is None
    mine = logging.getLogger("kgb.rt35.mine")
    mine.setLevel(logging.DEBUG)
    mine.propagate = False
    assert snap.logging_changed() is None

    class P:
        level = 0

    class B:
        def __bool__(self):
            return True

    class C:
        isEnabledFor = print

    root, lg = logging.getLogger(), logging.getLogger("kgb.rt35")
    old = root.parent
    root.parent = P()
    try:
        assert "parent: an object of the class" in snap.logging_changed()
    finally:
        root.parent = old
    lg.isEnabledFor = lambda level: True
    assert "isEnabledFor: the function" in snap.logging_changed()
    del lg.isEnabledFor
    lg._cache[5] = B()
    assert "_cache: an object of the class" in snap.logging_changed()
    del lg._cache[5]
    functools.update_wrapper(lg, C, assigned=("isEnabledFor",), updated=())
    assert snap.logging_changed() is not None
    del lg.isEnabledFor, lg.__wrapped__
    sub = type("L", (logging.Logger,), {})
    mine.parent, keep = sub("x"), mine.parent
    try:
        assert "parent: an object of the class" in snap.logging_changed()
    finally:
        mine.parent = keep
    assert snap.logging_changed() is None


_GPU_FRONT_END = """
import triton, triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.backends import backends
from triton.compiler import ASTSource
from triton._C.libtriton import ir
from kernelgenbench.sandbox import snapshots as snap

@triton.jit
def kern(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    y = tl.sum(x, 0) + tl.max(x, 0) + tl.min(x, 0) + tl.cdiv(n, 2)
    z = tl.cumsum(x, 0) + tl.zeros([BLOCK], tl.float32) + tl.rand(7, offs)
    tl.store(x_ptr + offs, z + y, mask=offs < n)

snap.snapshot_triton()
uv = tl.sum.used_global_vals
target = GPUTarget("cuda", 90, 32)
backend = backends["nvidia"].compiler(target)
opts = backend.parse_options({})
src = ASTSource(kern, {"x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}, {(2,): 128})
ctx = ir.context(); ir.load_dialects(ctx); backend.load_dialects(ctx)
src.make_ir(target, opts, backend.get_codegen_implementation(opts), backend.get_module_map(), ctx)
print("REBOUND", tl.sum.used_global_vals is not uv and tl.sum.hash is not None)
print("CHANGED", snap.triton_changed())
"""


def test_code_changed_ignores_what_a_gpu_compile_hashes(tmp_path: Path):
    """Triton's front end for a GPU (what ``JITFunction.run`` compiles; no GPU needed) hashes every jit function a
    kernel calls, which rebinds their ``hash`` and ``used_global_vals``: Triton's own caches, not a change of what
    runs. The GPU run at 9cc2a7b failed 115 of 210 held-out oracles as ``profile`` ("triton.language.sum was changed
    in place") because ``used_global_vals`` was compared; the interpreter never compiles this way. Run without
    TRITON_INTERPRET, in a child."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1] / "src")
    script = tmp_path / "front_end.py"  # a file: @triton.jit reads the kernel's source
    script.write_text(_GPU_FRONT_END)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "REBOUND True" in out.stdout  # the front end did hash the callees: the test sees the real path
    assert "CHANGED None" in out.stdout, out.stdout


def test_code_changed_sees_triton_functions_rewritten_in_place(monkeypatch):
    """Red team 35: functools.update_wrapper(tl.maximum, mine, ("__code__",), ()) kept the object (identity snapshots
    passed) and gave Triton's builtin the submission's code; updated=("__dict__",) onto tl.sum replaced its fn."""
    import functools

    import triton.language as tl

    monkeypatch.setattr(snap, "_TRITON_SNAPSHOT", None)
    snap.snapshot_triton()
    assert snap.triton_changed() is None
    f = tl.maximum
    saved = (f.__code__, f.__dict__.get("__wrapped__"))

    def make():
        cell = None

        def mine(*a, _semantic=None, **k):
            return cell(*a, _semantic=_semantic, **k)

        return mine

    try:
        functools.update_wrapper(f, make(), ("__code__",), ())
        assert "maximum was changed in place" in snap.triton_changed()
    finally:
        f.__code__, f.__wrapped__ = saved
    assert snap.triton_changed() is None

    class Holder:
        pass

    o, fn = Holder(), tl.sum.__dict__["fn"]
    o.fn = lambda *a: None
    try:
        functools.update_wrapper(tl.sum, o, (), ("__dict__",))
        assert "sum was changed in place" in snap.triton_changed()
    finally:
        tl.sum.fn = fn
        tl.sum.__dict__.pop("__wrapped__", None)
    assert snap.triton_changed() is None


def test_a_cached_property_triton_fills_is_not_a_shadowing_entry() -> None:
    """Gate at aadd375 (H100): ``Autotuner.do_bench`` is a ``functools.cached_property``; the first benchmark on a
    GPU stores its value on the autotuner, over the class's entry, and rt39b's rule refused every autotuned kernel
    there as monkey-patching. The value Triton's own property returns is allowed; any other value, and any other
    entry, is still refused."""
    import warnings

    from kernelgenbench.sandbox import kernel_guard

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # warmup= keeps a do_bench lambda of Triton's own file
        tuner = triton.autotune(configs=[triton.Config({"BLOCK": 16})], key=["n"], warmup=5)(_plain)
    assert kernel_guard.shadowed_entry(tuner) is None
    bench = tuner.do_bench  # what a GPU's first benchmark does
    assert vars(tuner)["do_bench"] is bench and kernel_guard.shadowed_entry(tuner) is None
    x = torch.zeros(16)
    assert la.check_launch(tuner, (x, x, 16), {}) is None
    tuner.__dict__["do_bench"] = lambda fn, quantiles: (0.0, 0.0, 0.0)
    msg = kernel_guard.shadowed_entry(tuner)
    assert msg is not None and ".do_bench set on the kernel object" in msg
    assert la.check_launch(tuner, (x, x, 16), {}) == msg
    tuner.__dict__["do_bench"] = bench
    tuner.run = tuner.run
    assert ".run set on the kernel object" in kernel_guard.shadowed_entry(tuner)


def test_only_triton_s_own_benchmark_functions_pass_the_autotune_rule(monkeypatch) -> None:
    """Red team rt40: the autotune rule passed any do_bench= whose ``__code__`` was Triton's (a bound method of
    another autotuner, whose ``warmup`` calls that tuner's early_config_prune), a Triton lambda closing over the
    submission's ``warmup=`` object (Triton's do_bench divides it), and never looked at the value cached over
    ``Autotuner.do_bench`` (stored through a parameter after the launch rule ran) or at the driver's benchmarker.
    Triton's own functions, its deprecated warmup=/rep= lambdas with numbers, and a default tuner still pass; so do
    reset_to_zero=/restore_value= names that are plain strings (a str subclass's __hash__ would run there)."""
    import warnings

    import triton.testing
    from triton.runtime.driver import driver

    from kernelgenbench.sandbox import kernel_guard, launch
    from kernelgenbench.sandbox.state import STATE

    monkeypatch.setattr(STATE, "launch_violations", [])

    def make(**kw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return triton.autotune(configs=[triton.Config({"B": 1})], key=["n"], **kw)(triton.jit(_touch.fn))

    class Ms:
        def __truediv__(self, other):
            return 1.0

    class Name(str):
        def __hash__(self):
            return str.__hash__(self)

    for ok in (make(), make(warmup=5, rep=20), make(rep=20, use_cuda_graph=True),
               make(do_bench=triton.testing.do_bench), make(reset_to_zero=["p"], restore_value=["p"])):
        assert kernel_guard.foreign_bench(ok) is None
        launch.check_autotuner(ok)
    other = make()
    for bad, what in ((make(do_bench=other.warmup), "do_bench= of the submission"),
                      (make(warmup=Ms(), rep=20), "do_bench= of the submission"),
                      (make(rep=Ms(), use_cuda_graph=True), "do_bench= of the submission"),
                      (make(restore_value=[Name("p")]), "restore_value= name of type Name")):
        with pytest.raises(la.LaunchArgumentError, match=what):
            launch.check_autotuner(bad)
    class Flag:
        def __bool__(self):
            return False

    def tuned(cfg):
        return triton.autotune(configs=[cfg], key=["n"])(triton.jit(_touch.fn))

    launch.check_autotuner(tuned(triton.Config({"B": 1}, pre_hook=lambda nargs: None)))  # a callable: traced
    with pytest.raises(la.LaunchArgumentError, match="with attributes pre_hook of type Flag"):
        launch.check_autotuner(tuned(triton.Config({"B": 1}, pre_hook=Flag())))  # `if config.pre_hook:` untraced
    class Values(dict):
        def items(self):
            return dict.items(self)

    def over(values):
        return triton.autotune(configs=[triton.Config({})], key=[])(triton.heuristics(values)(triton.jit(_touch.fn)))

    launch.check_autotuner(over({"T": lambda args: 1}))  # a plain dict: its functions are traced there
    with pytest.raises(la.LaunchArgumentError, match="heuristics values of type Values"):
        launch.check_autotuner(over(Values({"T": lambda args: 1})))
    cached = make()
    cached.__dict__["do_bench"] = triton.testing.do_bench  # what Triton's first GPU benchmark stores: passes
    launch.check_autotuner(cached)
    cached.__dict__["do_bench"] = lambda fn, quantiles: [1.0] * 3
    with pytest.raises(la.LaunchArgumentError, match="do_bench set over the autotuner's own"):
        launch.check_autotuner(cached)

    class Driver:
        def get_benchmarker(self):
            return lambda fn, quantiles: [1.0] * 3

    monkeypatch.setattr(driver, "_active", Driver())
    with pytest.raises(la.LaunchArgumentError, match="benchmarker of the active driver"):
        launch.check_autotuner(make())
    assert len(STATE.launch_violations) == 6  # recorded once per message


def test_a_keyword_name_must_be_a_plain_string() -> None:
    """Red team rt40: ``k[grid](x, **{Name("n"): n})`` keeps the ``str`` subclass as the keyword's name, and Triton's
    autotune benchmarking hashes the launch's names inside its untraced benchmarking (its ``__hash__`` ran there)."""
    class Name(str):
        def __hash__(self):
            return str.__hash__(self)

    x = torch.zeros(3)
    assert la.check_launch(_plain, (x, x), {"n": 3, "BLOCK": 4}) is None
    assert la.check_launch(_plain, (x, x), {Name("n"): 3, "BLOCK": 4}) == (
        "kernel _plain: a keyword's name is a Name, not a plain string")


def _opt_body(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_triton_jit_options_are_plain_values(monkeypatch) -> None:
    """Red team 43 (tests/bad/jit_option_iter): Triton reads a kernel's ``triton.jit`` options where nothing is traced
    (``JITFunction.__init__`` iterates ``do_not_specialize`` when the interpreter's GPU compile check makes its mirror
    inside the launch window; a GPU compile inside autotune benchmarking calls ``repr``), and C callables (a ``map`` of
    ``operator`` functions and bound methods, ``functools.partial``) have no frame of the submission's for the window to
    trace. The launch rule takes lists and tuples of names or indices, flags, and functions of the file only, judged by
    ``type()`` (the map is never iterated); on the kernel and on the kernels an autotuner wraps."""
    import functools

    monkeypatch.setattr(la, "KERNEL_BODIES", (str(Path(__file__).resolve()), frozenset()))
    x, o = torch.zeros(4), torch.zeros(4)

    def verdict(**options):
        return la.check_launch(triton.jit(_opt_body, **options), (x, o, 4), {"BLOCK": 4})

    assert verdict(do_not_specialize=["n"], do_not_specialize_on_alignment=("n", 0), debug=False, noinline=None) is None
    assert verdict(repr=lambda _: "opt_kernel", launch_metadata=lambda *a: {}) is None  # the file's own: traced
    ran: list = []
    lazy = map(dict.get, [{}], map(ran.append, [1]), [0])
    for options, key in [({"do_not_specialize": lazy}, "do_not_specialize"),
                         ({"do_not_specialize": ["n", 1.5]}, "do_not_specialize"),
                         ({"noinline": torch.ones(1)}, "noinline"),
                         ({"repr": functools.partial(next, iter(["k"]))}, "repr"),
                         ({"repr": os.path.basename}, "repr"),
                         ({"launch_metadata": dict}, "launch_metadata")]:
        msg = verdict(**options)
        assert msg is not None and f"triton.jit's {key}=" in msg, (options, msg)
    # the interpreter keeps the keywords as given: the rule never iterates them; a GPU JITFunction iterated the map when
    # triton.jit made it (in the wrapper or at import, outside every window: traced there)
    assert ran == ([] if type(triton.jit(_opt_body)).__name__ == "InterpretedFunction" else [1])
    tuned = triton.autotune(configs=[triton.Config({"BLOCK": 4})], key=["n"])(
        triton.jit(_opt_body, repr=functools.partial(next, iter(["k"]))))
    msg = la.check_launch(tuned, (x, o, 4), {})
    assert msg is not None and "triton.jit's repr=" in msg
