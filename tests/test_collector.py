"""The sandbox child's garbage collector guard (sandbox/collector.py, red team 29): finalizers of the submission
that compute with PyTorch or launch kernels are recorded when the child collects; the harness's and PyTorch's
own garbage, and a submission's finalizer that only does Python work, are not."""
from __future__ import annotations

import gc
import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

from kernelgenbench.sandbox import collector
from kernelgenbench.sandbox.state import STATE

SUBMISSION = '''
import torch

class Cycle:
    def __init__(self, x, out, work):
        self.job = (x, out, work)
        self.me = self

    def __del__(self):
        x, out, work = self.job
        if work == "aten":
            out.copy_(x * 2)
        elif work == "read":
            float(x[0])
        elif work == "python":
            self.job = None


def leave(x, out, work):
    Cycle(x, out, work)


def gen_leave(x, out):
    def g():
        try:
            yield 1
        finally:
            out.copy_(x + 1)
    it = g()
    next(it)
    holder = [it]
    holder.append(holder)
'''


@pytest.fixture
def submission(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "aten__neg.py"
    path.write_text(textwrap.dedent(SUBMISSION))
    spec = importlib.util.spec_from_file_location("kgb_test_collector_sub", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(STATE, "launch_violations", [])
    was = gc.isenabled()
    gc.disable()  # the test decides when to collect, as the child does after take_over
    yield mod, collector.submission_path(path)
    if was:
        gc.enable()


def test_a_finalizer_that_computes_with_pytorch_is_recorded(submission) -> None:
    import torch

    mod, path = submission
    x, out = torch.arange(4.0), torch.zeros(4)
    mod.leave(x, out, "aten")
    collector.collect(path)
    assert len(STATE.launch_violations) == 1
    msg = STATE.launch_violations[0]
    assert msg.startswith("the garbage collector ran code of the submission (ran ")
    assert "copy_" in msg and "mul" in msg
    assert torch.equal(out, x * 2)  # it ran (the verdict is the violation, not an undone write)


def test_a_generator_finally_and_a_host_read_are_recorded(submission) -> None:
    import torch

    mod, path = submission
    mod.gen_leave(torch.ones(3), torch.zeros(3))
    collector.collect(path)
    assert len(STATE.launch_violations) == 1 and "add" in STATE.launch_violations[0]
    STATE.launch_violations.clear()
    mod.leave(torch.ones(3), torch.zeros(3), "read")
    collector.collect(path)
    assert len(STATE.launch_violations) == 1 and "_local_scalar_dense" in STATE.launch_violations[0]


def test_python_only_finalizers_and_pytorch_garbage_are_not_recorded(submission) -> None:
    import torch

    mod, path = submission
    mod.leave(torch.ones(3), torch.zeros(3), "python")
    a = [torch.ones(5)]
    a.append(a)  # a cycle of the harness's holding a tensor: freeing it dispatches nothing
    del a
    collector.collect(path)
    assert STATE.launch_violations == []
    # the same finalizer that computes, collected unguarded (no submission loaded): nothing recorded
    mod.leave(torch.ones(3), torch.zeros(3), "aten")
    collector.collect(None)
    assert STATE.launch_violations == []


FRAMELESS = '''
import dataclasses
import functools

import torch


def leave_partial(x, out):
    class K:
        __del__ = staticmethod(functools.partial(list, map(torch.Tensor.copy_, [out], map(torch.Tensor.mul, [x], [2]))))

    k = K()
    k.me = k


def leave_dataclass(x, out):
    @dataclasses.dataclass
    class Fix:
        done: object = dataclasses.field(default_factory=functools.partial(torch.Tensor.copy_, out, x))

    class K:
        __del__ = Fix

    k = K()
    k.me = k


def leave_torch_function(x):
    class K:
        __del__ = staticmethod(functools.partial(torch.Tensor.__rsub__, x, 1.0))

    k = K()
    k.me = k
'''

OWN = '''
class Forker:
    def __del__(self):
        self._cleanup()


class Own:
    def __init__(self, x, out):
        self.job = (x, out)
        self.me = self

    def __del__(self):
        x, out = self.job
        out.copy_(x * 2)
'''

BORROW = '''

def borrow(forker, x, out):
    import functools

    import torch

    class K:
        __del__ = forker.__del__
        _cleanup = staticmethod(functools.partial(torch.Tensor.copy_, out, x))

    k = K()
    k.me = k
'''


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_finalizer_with_no_frame_of_the_submission_is_recorded(tmp_path: Path, monkeypatch) -> None:
    """Red team 34: a submission's ``__del__`` that is a C callable (functools.partial over map of tensor methods),
    a dataclass's generated ``__init__`` (file ``<string>``) or a PyTorch function bound as one runs ATen ops with no
    frame of the submission's file on the stack (and PyTorch's frames around the guard's handler); each is recorded,
    and the op ran (tests/bad_timing/gc_partial__vllm__rms_norm.patch.py computed a timed rms_norm so)."""
    import torch

    path = tmp_path / "vllm__rms_norm.py"
    path.write_text(FRAMELESS)
    mod = _load(path, "kgb_test_frameless_sub")
    sub = collector.submission_path(path)
    monkeypatch.setattr(STATE, "launch_violations", [])
    was = gc.isenabled()
    gc.disable()
    try:
        x, out = torch.arange(4.0), torch.zeros(4)
        mod.leave_partial(x, out)
        collector.collect(sub, generation=1)
        assert torch.equal(out, x * 2)
        assert len(STATE.launch_violations) == 1 and "copy_" in STATE.launch_violations[0] \
            and "mul" in STATE.launch_violations[0]
        out.zero_()
        mod.leave_dataclass(x, out)
        collector.collect(sub)
        assert torch.equal(out, x) and len(STATE.launch_violations) == 2 and "copy_" in STATE.launch_violations[1]
        mod.leave_torch_function(x)
        collector.collect(sub)
        assert len(STATE.launch_violations) == 3 and "rsub" in STATE.launch_violations[2]
    finally:
        if was:
            gc.enable()


def test_finalizers_of_pytorch_triton_and_the_harness_are_not_recorded(tmp_path: Path, monkeypatch) -> None:
    """A ``__del__`` defined in PyTorch's, Triton's or the harness's files (here a folder taken for theirs) may
    dispatch ops when the collector frees its garbage: not the submission's doing, not recorded; the same class in
    the submission's file is, and so is a class of the submission's that borrows their ``__del__``."""
    import torch

    own, theirs = tmp_path / "own", tmp_path / "sub"
    own.mkdir()
    theirs.mkdir()
    (own / "harness_thing.py").write_text(OWN)
    (theirs / "aten__neg.py").write_text(OWN + BORROW)
    monkeypatch.setattr(collector, "_OWN_DIRS", (str(own) + "/",))
    monkeypatch.setattr(STATE, "launch_violations", [])
    harness = _load(own / "harness_thing.py", "kgb_test_own_finalizer")
    monkeypatch.setitem(sys.modules, "kgb_test_own_finalizer", harness)  # as PyTorch's modules are
    sub_mod = _load(theirs / "aten__neg.py", "kgb_test_own_finalizer_sub")
    sub = collector.submission_path(theirs / "aten__neg.py")
    was = gc.isenabled()
    gc.disable()
    try:
        x, out = torch.arange(3.0), torch.zeros(3)
        harness.Own(x, out)
        collector.collect(sub)
        assert torch.equal(out, x * 2) and STATE.launch_violations == []
        sub_mod.Own(x, out)
        collector.collect(sub)
        assert len(STATE.launch_violations) == 1
        # a class of the submission's that borrows a __del__ of theirs calling back into its object: recorded
        out.zero_()
        sub_mod.borrow(harness.Forker, x, out)
        collector.collect(sub)
        assert torch.equal(out, x) and len(STATE.launch_violations) == 2 and "copy_" in STATE.launch_violations[1]
    finally:
        if was:
            gc.enable()


def test_take_over_switches_automatic_collection_off() -> None:
    was = gc.isenabled()
    gc.enable()
    try:
        collector.take_over()
        assert not gc.isenabled()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        if was:
            gc.enable()


def test_young_collections_between_timing_blocks_are_guarded_too(submission, monkeypatch) -> None:
    """The timing protocol collects the young generations between its blocks (sandbox/timed_loop.py), under the
    same guard, once the child has taken the collector over; before that, nothing."""
    import torch

    mod, path = submission
    monkeypatch.setattr(collector, "_SUBMISSION", None)
    mod.leave(torch.ones(2), torch.zeros(2), "python")
    collector.collect_young()  # not taken over: no collection, nothing recorded
    assert STATE.launch_violations == []
    monkeypatch.setattr(collector, "_SUBMISSION", path)
    mod.leave(torch.ones(2), torch.zeros(2), "aten")
    collector.collect_young()
    assert len(STATE.launch_violations) == 1 and "copy_" in STATE.launch_violations[0]



def test_command_collections_are_young_and_every_nth_full(submission, monkeypatch) -> None:
    """A command's collection (collector.collect_command) scans the young generations, and every FULL_EVERY-th one
    (the first included) the oldest too: cyclic garbage that lived across two collections is freed at the next
    full one, not before, and a submission's finalizer is recorded in a young one as in a full one."""
    import weakref

    import torch

    mod, path = submission
    monkeypatch.setattr(collector, "FULL_EVERY", 3)
    monkeypatch.setattr(collector, "_COMMANDS", 0)

    class Node:
        pass

    old = Node()
    old.me = old  # a cycle, alive across the next two collections: it reaches the oldest generation
    gone = weakref.ref(old)
    assert collector.collect_command(path) == 2
    assert collector.collect_command(path) == 1
    gc.collect(1)
    del old
    assert collector.collect_command(path) == 1
    assert gone() is not None  # old garbage: a young collection does not scan it
    young = Node()
    young.me = young
    fresh = weakref.ref(young)
    del young
    mod.leave(torch.ones(2), torch.zeros(2), "aten")
    assert collector.collect_command(path) == 2  # the 4th command: 3 % 3 == 0
    assert gone() is None and fresh() is None
    assert len(STATE.launch_violations) == 1 and "copy_" in STATE.launch_violations[0]
    STATE.launch_violations.clear()
    mod.leave(torch.ones(2), torch.zeros(2), "aten")
    assert collector.collect_command(path) == 1
    assert len(STATE.launch_violations) == 1  # the finalizer's garbage is young: found without a full collection


SHADOW = '''
import functools


def shadow(t, name, value):
    setattr(t, name, value)


class _Name(str):
    pass


def shadow_odd_name(t, value):
    functools.update_wrapper(t, value, assigned=(_Name("storage_offset"),), updated=())


def read(t):
    return t.tolist()
'''


def test_a_tensor_method_shadowed_by_the_submission_is_refused(tmp_path: Path, monkeypatch) -> None:
    """Red team 29b: ``buf.storage_offset = f`` ran ``f`` while the interpreter copied launch arguments (untraced).
    The child's Tensor.__setattr__ refuses, from the submission's code, an instance attribute that shadows a method
    or plain class attribute; data descriptors (grad, requires_grad) and new names stay settable, and PyTorch's or
    the harness's own code is not judged."""
    import torch

    from kernelgenbench.sandbox import host_reads, launch_args

    path = tmp_path / "aten__neg.py"
    path.write_text(SHADOW)
    spec = importlib.util.spec_from_file_location("kgb_test_shadow_sub", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(launch_args, "KERNEL_BODIES", (str(path.resolve()), frozenset()))
    monkeypatch.setattr(STATE, "launch_violations", [])
    host_reads.guard_method_shadowing()
    t = torch.zeros(3)
    for name in ("storage_offset", "dim", "new_empty", "__format__"):
        with pytest.raises(AttributeError, match="would shadow"):
            mod.shadow(t, name, lambda *a: 0)
        assert name not in vars(t)
    assert len(STATE.launch_violations) == 4
    mod.shadow(t, "grad", torch.ones(3))      # a data descriptor: the tensor's own grad
    mod.shadow(t, "my_tag", 1)                # a new name: judged when a call ends (plain_result)
    assert t.grad is not None and t.my_tag == 1
    u = torch.zeros(2)
    u.dim = lambda: 7                          # not the submission's code (this test file): not judged here
    assert u.dim() == 7 and len(STATE.launch_violations) == 4
    # red team 29c: a str subclass as the name (through functools, which L1 does not follow) is refused too
    v = torch.zeros(2)

    class H:
        storage_offset = staticmethod(lambda: 0)

    with pytest.raises(AttributeError, match="name of type _Name"):
        mod.shadow_odd_name(v, H)
    assert not vars(v)



def test_a_host_read_of_a_tensor_that_carries_attributes_is_refused(monkeypatch) -> None:
    """Red team 29c: attributes written into a tensor's ``__dict__`` past the Tensor.__setattr__ guard shadow the
    methods the host-read hooks call outside the trace (``dim`` under ``__format__``). A counted host read of such a
    tensor is refused and recorded; a plain tensor reads as before."""
    import torch

    from kernelgenbench.sandbox import host_reads

    host_reads.install_host_read_hooks()
    monkeypatch.setattr(STATE, "launch_violations", [])
    monkeypatch.setattr(host_reads, "_read_counter", lambda: __import__("collections").Counter())
    t = torch.arange(3.0)
    assert t.tolist() == [0.0, 1.0, 2.0]
    t.__dict__["dim"] = lambda: 0
    with pytest.raises(RuntimeError, match="carries Python attributes"):
        t.tolist()
    assert len(STATE.launch_violations) == 1 and "host read (tolist)" in STATE.launch_violations[0]
