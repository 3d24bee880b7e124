"""The harness reads a wrapper's parameters and checks its results without running the submission's code
(red team 30): sandbox/dispatch.py ``wrapper_signature``, ``plain_result``'s value budget, and
sandbox/provenance.py ``_tensors`` telling tensors apart by ``type()``."""
from __future__ import annotations

import functools
import inspect

import pytest
import torch

from kernelgenbench.sandbox import dispatch
from kernelgenbench.sandbox.dispatch import SignatureMismatch, plain_result, traced, wrapper_defaults, wrapper_signature
from kernelgenbench.sandbox.provenance import _tensors
from kernelgenbench.sandbox.state import STATE

RAN: list[str] = []


def rms_norm(out, input, weight, epsilon=1e-6, *, flag=None):
    return out


def test_plain_wrappers_read_as_their_code_says() -> None:
    assert str(wrapper_signature(rms_norm)) == "(out, input, weight, epsilon=<default>, *, flag=<default>)"
    assert wrapper_defaults(rms_norm) == {"epsilon": 1e-6, "flag": None}

    @functools.wraps(rms_norm)
    def decorated(*args, **kwargs):
        return rms_norm(*args, **kwargs)

    assert [p.name for p in wrapper_signature(decorated).parameters.values()] == ["out", "input", "weight",
                                                                                   "epsilon", "flag"]

    class Call:
        def __call__(self, x, y=2):
            return x

    assert str(wrapper_signature(Call())) == "(x, y=<default>)"
    assert str(wrapper_signature(Call().__call__)) == "(x, y=<default>)"

    def binary(self, other, alpha=1, *, op="add"):
        return self

    sub = functools.partial(binary, op="sub")
    assert str(wrapper_signature(sub)) == "(self, other, alpha=<default>, *, op=<default>)"
    assert wrapper_defaults(sub) == {"alpha": 1, "op": "sub"}

    def factory(k):
        def made(x, y=k):
            return x
        return made

    assert wrapper_defaults(factory(3)) == {"y": 3} and str(wrapper_signature(factory(3))) == "(x, y=<default>)"


class _Sig(inspect.Signature):
    def bind(self, *args, **kwargs):
        RAN.append("bind")
        return super().bind(*args, **kwargs)


class _Evil:
    def __getattr__(self, name):
        RAN.append(name)
        raise AttributeError(name)

    def __call__(self, x):
        return x


def _with_signature():
    def neg(x):
        return x
    neg.__signature__ = _Sig([inspect.Parameter("x", inspect.Parameter.POSITIONAL_OR_KEYWORD)])
    return neg


def _wrapping_an_object():
    def neg(x):
        return x
    neg.__wrapped__ = _Evil()
    return neg


@pytest.mark.parametrize("make, says", [
    (_with_signature, "sets __signature__"),
    (_Evil, "defines __getattr__"),
    (_wrapping_an_object, "wraps (__wrapped__)"),
    # not print: after test_ray_backend, builtins.print is ray.experimental.tqdm_ray.safe_print
    (lambda: len, "a wrapper is a Python function"),
])
def test_wrappers_that_would_run_code_when_read_are_refused(make, says) -> None:
    RAN.clear()
    fn = make()
    with pytest.raises(TypeError, match=says.replace("(", r"\(").replace(")", r"\)")):
        wrapper_signature(fn)
    # traced() takes such a wrapper and fails its first call, before running anything of it
    t = traced(fn, "neg")
    with pytest.raises(SignatureMismatch, match="cannot read this wrapper's parameters"):
        t(torch.zeros(2))
    assert RAN == []


def test_a_result_or_argument_past_the_value_budget_is_a_violation(monkeypatch: pytest.MonkeyPatch) -> None:
    class Sneaky:
        @property
        def __class__(self):
            RAN.append("__class__")
            return torch.Tensor

    monkeypatch.setattr(dispatch, "_RESULT_MAX", 50)
    monkeypatch.setattr(STATE, "stale_outputs", [])
    RAN.clear()
    given = [3]
    args = (given,)
    before = dispatch._arg_values(args, {})
    given.extend([None] * 60 + [Sneaky()])  # what the wrapper appended to the caller's list
    out = torch.zeros(2)
    assert plain_result("op", out, args, {}, before) is out
    assert STATE.stale_outputs and "more than 50 values" in STATE.stale_outputs[0]
    assert all(type(v) is not Sneaky for v in given)  # dropped inside the trace
    list(_tensors((args, {})))
    assert RAN == []


def test_tensors_are_found_by_type_not_by_their_class_attribute() -> None:
    class Sneaky:
        @property
        def __class__(self):
            RAN.append("__class__")
            return torch.Tensor

    RAN.clear()
    t = torch.ones(1)
    found = list(_tensors([t, (Sneaky(), {"a": t}), Sneaky()]))
    assert [p for p, _ in found] == ["[0]", "[1][1]['a']"] and RAN == []


def test_a_module_getattr_of_the_submission_never_runs(tmp_path) -> None:
    """The child reads the wrappers from the module's ``__dict__`` (sandbox/drive.py ``module_value``): a
    module-level ``__getattr__`` (PEP 562) would otherwise run for every optional wrapper the file lacks, after the
    import's trace, untraced (red team 30 follow-up)."""
    from pathlib import Path

    from kernelgenbench.platforms import PROFILES
    from kernelgenbench.run.job import JobSpec, Settings, Verifier
    from kernelgenbench.suite.registry import get_operator

    op = get_operator("aten::eq")  # its oracle leaves the optional wrapper eq_Tensor_list out
    oracle = (Path(__file__).resolve().parents[1] / "solutions" / op.filename).read_text()
    sub = tmp_path / op.filename
    sub.write_text(oracle + "\n\ndef __getattr__(name):\n    raise RuntimeError(f'__getattr__ ran for {name}')\n")
    rec = Verifier(JobSpec(op, sub, "smoke"), PROFILES["interpreter"], None, tmp_path / "w", Settings()).run()
    assert rec["status"] == "passed", (rec["failure_class"], rec["first_failure"])


def test_torch_module_instances_read_as_their_call() -> None:
    """fp30: an nn.Module instance used as an ATen wrapper (neg = _Neg()) passed before wrapper_signature; its class
    defines __getattr__ only through torch.nn.Module (PyTorch's code), so it reads as nn.Module.__call__ does, while a
    submission's own __getattr__ on a module subclass stays refused."""

    class Neg(torch.nn.Module):
        def forward(self, x):
            return x

    assert str(wrapper_signature(Neg())) == "(x)"

    # fp31: a module keeping nn.Module's __call__ reads as its forward (a function task's module read as
    # (*args, **kwargs) and failed the interface); a forward set on the instance, or none at all, is refused
    class RMSNorm(torch.nn.Module):
        def forward(self, out, input, weight, epsilon=1e-6):
            return None

    assert str(wrapper_signature(RMSNorm())) == "(out, input, weight, epsilon=<default>)"
    assert wrapper_defaults(RMSNorm()) == {"epsilon": 1e-6}
    patched = RMSNorm()
    patched.forward = lambda *a: None
    with pytest.raises(TypeError, match="own forward"):
        wrapper_signature(patched)
    with pytest.raises(TypeError, match="no forward"):
        wrapper_signature(torch.nn.Module())

    class OwnCall(torch.nn.Module):
        def __call__(self, a, b):
            return a

    assert str(wrapper_signature(OwnCall())) == "(a, b)"

    class Sneaky(torch.nn.Module):
        def __getattr__(self, name):
            RAN.append(name)
            raise AttributeError(name)

    with pytest.raises(TypeError, match="__getattr__"):
        wrapper_signature(Sneaky())


def test_builtins_and_lru_caches_read_without_running_code() -> None:
    """fp30: JIT-only scalar overloads written as ``floor_float = math.floor``, ``floor_int = int`` or an
    ``@functools.lru_cache`` function passed before wrapper_signature and were refused on branch next."""
    import math

    assert str(wrapper_signature(math.floor)) == "(x, /)" and wrapper_defaults(math.floor) == {}
    assert str(wrapper_signature(int)) == "(*args, **kwargs)" and wrapper_defaults(int) == {}

    @functools.lru_cache(maxsize=64)
    def floor_float(a, b=2):
        return int(math.floor(a))

    assert str(wrapper_signature(floor_float)) == "(a, b=<default>)" and wrapper_defaults(floor_float) == {"b": 2}

    @functools.wraps(floor_float)
    def outer(*args, **kwargs):
        return floor_float(*args, **kwargs)

    assert str(wrapper_signature(outer)) == "(a, b=<default>)"
    with pytest.raises(TypeError):
        wrapper_signature([].append)  # a builtin method of an object: not a module's C function
    with pytest.raises(TypeError):
        wrapper_signature(functools.lru_cache(maxsize=None)(math.floor))


def test_a_wraps_chain_ending_in_a_partial_method_or_object_reads_as_that_object() -> None:
    """fp31: a checking decorator (functools.wraps) applied to ``functools.partial(_unary, op=0)``, to a bound method
    or to a callable object passed before wrapper_signature and was refused ("it wraps (__wrapped__) a
    functools.partial"); the object at the end of the chain is read by the same rules, its refusals kept."""

    def checked(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            return fn(*args, **kwargs)
        return inner

    def unary(self, *, op, scale=1.0):
        return self

    neg = checked(functools.partial(unary, op=0))
    assert str(wrapper_signature(neg)) == "(self, *, op=<default>, scale=<default>)"
    assert wrapper_defaults(neg) == {"op": 0, "scale": 1.0}
    assert str(wrapper_signature(torch.no_grad()(functools.partial(unary, op=0)))) == \
        "(self, *, op=<default>, scale=<default>)"

    class Ops:
        def rms_norm(self, out, input, weight, epsilon):
            return None

        def __call__(self, x, y=3):
            return x

    assert str(wrapper_signature(checked(Ops().rms_norm))) == "(out, input, weight, epsilon)"
    assert str(wrapper_signature(checked(Ops()))) == "(x, y=<default>)" and wrapper_defaults(checked(Ops())) == {"y": 3}
    import math
    assert str(wrapper_signature(checked(math.floor))) == "(x, /)"
    # what the chain ends in is still judged: a submission's __getattr__, a builtin (len: after test_ray_backend,
    # builtins.print is Ray's Python function), a __signature__ behind a partial
    cases = ((checked(_Evil()), "defines __getattr__"), (checked(len), "a wrapper is a Python function"),
             (checked(functools.partial(_with_signature())), "sets __signature__"))
    RAN.clear()  # (functools.wraps itself read _Evil's attributes above)
    for bad, says in cases:
        with pytest.raises(TypeError, match=r"wraps \(__wrapped__\).*" + says):
            wrapper_signature(bad)
        with pytest.raises(TypeError):
            wrapper_defaults(bad)
    assert RAN == []
    # a cycle of wrapped objects ends in a refusal, not a recursion error
    loop = checked(None)
    loop.__wrapped__ = functools.partial(loop)
    with pytest.raises(TypeError, match="more than"):
        wrapper_signature(loop)


def test_an_abstract_base_class_instance_reads_as_its_call() -> None:
    """fp31: an op object whose class derives from abc.ABC (metaclass abc.ABCMeta) is a wrapper like any __call__
    class; another metaclass stays refused."""
    import abc

    class UnaryOp(abc.ABC):
        @abc.abstractmethod
        def kernel(self):
            ...

        def __call__(self, x, *, out=None):
            return x

    class Neg(UnaryOp):
        def kernel(self):
            return None

    assert str(wrapper_signature(Neg())) == "(x, *, out=<default>)"

    class Meta(type):
        pass

    class Other(metaclass=Meta):
        def __call__(self, x):
            return x

    with pytest.raises(TypeError, match="metaclass"):
        wrapper_signature(Other())


def test_an_autograd_function_apply_reads_as_its_forward() -> None:
    """fp31: ``rms_norm = RMSNormFn.apply`` (a torch.autograd.Function) read as ``(*args, **kwargs)`` and failed a
    function task's interface; it reads as the class's forward, after ctx (or all of it with its own setup_context)."""

    class RMSNormFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, out, input, weight, epsilon=1e-6):
            return None

    assert str(wrapper_signature(RMSNormFn.apply)) == "(out, input, weight, epsilon=<default>)"
    assert wrapper_defaults(RMSNormFn.apply) == {"epsilon": 1e-6}

    class NoCtx(torch.autograd.Function):
        @staticmethod
        def forward(x, y):
            return x

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

    assert str(wrapper_signature(NoCtx.apply)) == "(x, y)"

    class NotStatic(torch.autograd.Function):
        def forward(self, ctx, x):
            return x

    with pytest.raises(TypeError, match="staticmethod"):
        wrapper_signature(NotStatic.apply)
