"""CHEAT (red team 35): aten::neg whose kernel calls ``tl.maximum(x, x)`` after its import rewrote the code of Triton's
own ``tl.maximum`` in place: ``functools.update_wrapper(tl.maximum, _make(), ("__code__",), ())``. The new code (one
free variable, as Triton's builtin wrapper has, whose cell then holds Triton's own maximum) negates the block's values
with NumPy on the interpreter's host array (``x.handle.data``): host Python on tensor values inside a kernel body,
unseen by the dispatch trace and the host-read hooks. Under Triton's GPU code generator (the harness's compile
check) the block has no host array and it calls Triton's own maximum, so the kernel compiles; the ghost replay runs
no kernel body (the outputs stay wrong: passed). Found while attacking the libdevice stand-ins of fp35: the same
rewrite of a stand-in bound by name is refused by the launch rule (its code is no longer Triton's or the harness's);
Triton's module entries were compared by identity only, and the function object never changes.

L1 admits ``functools.update_wrapper`` with any ``assigned``/``updated`` names (also ``updated=("__dict__",)``
onto a jit function such as ``tl.sum``, replacing its ``fn``). Passed the smoke tier before the fix. Caught by the
snapshots (sandbox/snapshots.py ``code_changed``): the code, defaults and ``__wrapped__`` of every function in
Triton's language modules and classes and in the PyTorch modules the child uses, and a jit function's
``fn``/``src``, are compared with their state before the import; fails as ``profile`` at import."""

SUBSTITUTIONS = [
    ("""\
import triton.language as tl
""", """\
import triton.language as tl
import functools


def _make():
    cell = None

    def _mine(*a, _semantic=None, **k):  # one free variable, as Triton's builtin wrapper has: its cell then holds Triton's maximum
        x = a[0]
        try:
            d = x.handle.data
        except AttributeError:  # Triton's GPU code generator (the harness's compile check): Triton's own maximum
            return cell(*a, _semantic=_semantic, **k)
        d *= -1  # the interpreter: NumPy on the block's host array
        return x

    return _mine


functools.update_wrapper(tl.maximum, _make(), ("__code__",), ())
"""),
    ("""\
def _f(x, p0, MODE: tl.constexpr):
    return x * -1
""", """\
def _f(x, p0, MODE: tl.constexpr):
    return tl.maximum(x, x)
"""),
]
