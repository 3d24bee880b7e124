"""False-rejection hunt 33: the honest ways of touching PyTorch's global state that the sandbox child's run-time check
(sandbox/drive.py ``record_global_state`` / ``global_state_change``, around the import, every call and every
collection) must accept, and the leaks it must keep refusing. In-process and fast: the check is called as the child
calls it, with the state recorded first (the end-to-end runs are the fixtures tests/good/grad_ctx_raise__aten__index
and tests/good/inference_deco__vllm__rms_norm)."""
from __future__ import annotations

import contextlib
import gc
import warnings

import pytest
import torch


@pytest.fixture()
def recorded(monkeypatch: pytest.MonkeyPatch):
    from kernelgenbench.sandbox import drive

    monkeypatch.setattr(drive, "_GLOBAL", None)
    grad = torch.is_grad_enabled()
    drive.record_global_state()  # as the child does before the submission's import
    yield drive
    torch.set_grad_enabled(grad)


class _Scale(torch.autograd.Function):
    """Liger/Unsloth style: autocast decorators, ctx.save_for_backward."""

    @staticmethod
    @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    @torch.amp.custom_bwd(device_type="cuda")
    def backward(ctx, g):
        return g * 2


@torch.no_grad()
def _decorated_raises(x):
    raise IndexError("too many indices")


@torch.inference_mode()
def _inference(x):
    with torch.inference_mode(False):
        y = torch.empty_like(x)
    return y


def _with_raises(x):
    with torch.no_grad():
        raise RuntimeError("shape mismatch")


def _walk(items):
    with torch.no_grad():  # held across the yields
        yield from items


def _walk_raises(items):
    walk = _walk(items)
    for _ in walk:
        raise IndexError("raised while the generator is suspended inside its no_grad")


def _nested_fresh(x):
    with torch.no_grad():
        with torch.no_grad():
            return x


HONEST = {
    "no_grad decorator, raising": _decorated_raises,
    "inference_mode decorator, inference_mode(False) inside": _inference,
    "with no_grad, raising": _with_raises,
    "generator holding no_grad, the caller raising": _walk_raises,
    "nested fresh no_grad": _nested_fresh,
    "autograd.Function with custom_fwd(cast_inputs)/custom_bwd": _Scale.apply,
}


@pytest.mark.parametrize("name", list(HONEST))
def test_an_honest_grad_context_leaves_no_global_state_change(recorded, name: str) -> None:
    drive = recorded
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # autocast on a CPU-only build: "CUDA is not available"
        try:
            HONEST[name](torch.ones(4))
        except (IndexError, RuntimeError):
            pass  # the harness judges the error; the state must be as it was when it looks
    assert drive.global_state_change("after a call") is None
    gc.collect()
    assert drive.global_state_change("during the collection") is None


def test_importing_dynamo_compiles_nothing(recorded) -> None:
    """A submission (or an allowed module it imports) that brings torch._dynamo in compiles no graph."""
    drive = recorded
    graphs = drive.compiled_graphs()
    import torch._dynamo  # noqa: F401

    assert drive.compiler_used(graphs, "during the import") is None


_SHARED = torch.no_grad()  # one object entered twice, nested: not reentrant


@contextlib.contextmanager
def _no_grad_without_finally():
    prev = torch.is_grad_enabled()
    torch._C._set_grad_enabled(False)
    yield
    torch._C._set_grad_enabled(prev)  # never reached when the body raises


def _shared_nested():
    with _SHARED:
        with _SHARED:
            pass


def _sloppy_raises():
    with _no_grad_without_finally():
        raise IndexError("x")


def _generator_inside_with_raises():
    with torch.no_grad():  # the wrapper's block exits as the exception leaves it ...
        _walk_raises([1, 2])  # ... while the traceback keeps _walk suspended inside its own no_grad (entered with
        # grad already off): closed when the exception is dropped, it restores "off"


@pytest.mark.parametrize("leak", [_shared_nested, _sloppy_raises, _generator_inside_with_raises],
                         ids=["shared_no_grad_nested", "cm_without_finally", "generator_inside_with_raises"])
def test_a_real_leak_of_grad_mode_stays_refused(recorded, leak) -> None:
    """Right verdicts, not false rejections: each leaves grad mode off after the wrapper returned, in any program
    (for every later autograd user of the process, and for the compiled baseline's guards)."""
    drive = recorded
    try:
        leak()
    except IndexError:
        pass
    msg = drive.global_state_change("after a call")
    assert msg is not None and "grad_mode" in msg
    if leak is _shared_nested:
        assert "entered twice, nested" in msg  # the message names the shared object's trap
