"""The interpreter runs the kernel body Python compiled at import (sandbox/launch.py,
``_install_verified_rewriter``): Triton 3.6's ``FunctionRewriter`` re-reads a kernel's source lines and
starts at the last line beginning with ``def `` (red-team: a second ``def`` inside the docstring ran
hidden code); the harness starts at the function's own ``def`` statement and requires the source to
compile to the imported code object."""
from __future__ import annotations

import importlib.util
import linecache
import sys
from pathlib import Path

import pytest

from kernelgenbench.sandbox import launch_args
from kernelgenbench.sandbox.launch import _install_verified_rewriter
from kernelgenbench.sandbox.state import STATE

KERNEL = '''from __future__ import annotations
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, n, BLOCK: tl.constexpr):
    """Doubles n elements.

    def kern(x_ptr, n, BLOCK):  (an example line that starts with def)
    """
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
'''


def _load(tmp_path: Path, name: str, text: str):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return path, mod


def _rewrite(fn):
    from triton.runtime.interpreter import FunctionRewriter

    _install_verified_rewriter()
    return FunctionRewriter(getattr(fn, "fn", fn)).rewrite_ast()


def test_the_function_s_own_def_line_is_used_and_module_imports_do_not_break_the_match(tmp_path: Path) -> None:
    _, mod = _load(tmp_path, "kgb_src_ok", KERNEL)
    out = _rewrite(mod.kern)
    assert callable(out) and out.__name__ == "kern"
    assert out.__code__.co_varnames[:3] == ("x_ptr", "n", "BLOCK")


def test_source_changed_after_import_is_a_launch_violation(tmp_path: Path) -> None:
    path, mod = _load(tmp_path, "kgb_src_changed", KERNEL)
    path.write_text(KERNEL.replace("* 2", "* 3"))  # same lines, other code
    linecache.checkcache(str(path))
    before = len(STATE.launch_violations)
    try:
        with pytest.raises(launch_args.LaunchArgumentError, match="other code than the imported function"):
            _rewrite(mod.kern)
        assert len(STATE.launch_violations) == before + 1
    finally:
        del STATE.launch_violations[before:]


def test_code_match_ignores_line_numbers_but_not_constants() -> None:
    a = compile("def f(x):\n    return x * 2\n", "a", "exec").co_consts[0]
    b = compile("\n\ndef f(x):\n    return x * 2\n", "b", "exec").co_consts[0]
    c = compile("def f(x):\n    return x * 3\n", "a", "exec").co_consts[0]
    assert launch_args.code_matches(a, b)
    assert not launch_args.code_matches(a, c)


DECOY = '''import triton


def deco(_text):
    return lambda f: f


@deco("""
def kern(x):
    return 1
""")
def kern(x):
    return 2


def clean(x):
    return 3
'''


def test_gpu_source_must_define_the_imported_function(tmp_path: Path) -> None:
    """On a GPU, Triton compiles a JITFunction's ``_src``: its source from the first line that starts with
    ``def name(``, which may sit inside a decorator's string (red-team). The launch rule requires that
    text to define the function Python imported."""
    from triton.runtime.jit import JITFunction

    _, mod = _load(tmp_path, "kgb_src_decoy", DECOY)
    decoy, clean = JITFunction(mod.kern), JITFunction(mod.clean)
    assert decoy._src.startswith("def kern(x):\n    return 1")  # what a GPU would compile
    assert not launch_args.source_matches(decoy._src, mod.kern)
    assert launch_args.source_matches(clean._src, mod.clean)


def test_launch_rule_applies_the_source_check_to_gpu_kernels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from triton.runtime.jit import JITFunction

    path, mod = _load(tmp_path, "kgb_src_decoy2", DECOY)
    line = mod.clean.__code__.co_firstlineno
    monkeypatch.setattr(launch_args, "KERNEL_BODIES", (str(path.resolve()), frozenset({("clean", line)})))
    msg = launch_args.check_globals(JITFunction(mod.kern))
    assert msg is not None and "its source as Triton compiles it does not define" in msg, msg
    assert launch_args.check_globals(JITFunction(mod.clean)) is None
    # a function of the submission the file-level scan did not hold to the kernel-body rule: recorded
    # for the verifier to scan as one; a function of another file: rejected
    monkeypatch.setattr(launch_args, "KERNEL_BODIES", (str(path.resolve()), frozenset()))
    monkeypatch.setattr(launch_args, "UNSCANNED", [])
    assert launch_args.check_globals(JITFunction(mod.clean)) is None
    assert launch_args.UNSCANNED == [("clean", line)]
    monkeypatch.setattr(launch_args, "KERNEL_BODIES", (str(tmp_path / "other.py"), frozenset()))
    msg = launch_args.check_globals(JITFunction(mod.clean))
    assert msg is not None and "is not a function of the submission file" in msg, msg


FACTORY = '''import triton
import triton.language as tl


@triton.jit
def _neg1(x):
    return -x


def make(block, op):
    import triton.language as tll

    BLOCK = tl.constexpr(block)

    @triton.jit
    def kern(x_ptr, n):
        """Applies op to n elements (a kernel made per block size and op)."""
        offs = tll.program_id(0) * BLOCK + tll.arange(0, BLOCK)
        tl.store(x_ptr + offs, op(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)

    return kern


kern = make(64, _neg1)
'''


def test_kernels_made_in_a_factory_with_closures_match_their_source(tmp_path: Path) -> None:
    """A kernel defined inside a function and closing over its variables (a local import, a constexpr, a
    jit function): the source Triton compiles (GPU ``_src``) and the interpreter's rewrite compile, in a
    scope like the function's own, to the imported code (issue 11: the harness's own L2-flush kernel and
    honest factory-made kernels were rejected as "a second 'def' line")."""
    from triton.runtime.jit import JITFunction

    _, mod = _load(tmp_path, "kgb_src_factory", FACTORY)
    fn = mod.kern.fn
    assert fn.__code__.co_freevars == ("BLOCK", "op", "tll")
    assert launch_args.source_matches(JITFunction(fn)._src, fn)
    out = _rewrite(mod.kern)
    assert out.__name__ == "kern" and out.__code__.co_freevars == ("BLOCK", "op", "tll")
    # the rewrite reads the imported function's own cells
    assert [c.cell_contents for c in out.__closure__] == [c.cell_contents for c in fn.__closure__]
    # an edit inside the factory's kernel is still caught
    assert not launch_args.source_matches(JITFunction(fn)._src.replace("op(", "_neg1("), fn)


def test_the_harness_s_own_l2_flush_kernel_passes_the_launch_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """sandbox/timed_loop.py's flush kernel is made in a function and closes over a local import: the GPU launch
    rule must accept it (main at fe3ec4a failed every timed case on the H200 on it)."""
    from triton.runtime.jit import JITFunction

    from kernelgenbench.sandbox import timed_loop

    kernel = timed_loop._flush_kernel()
    fn = kernel.fn
    gpu_kernel = kernel if isinstance(kernel, JITFunction) else JITFunction(fn)
    assert launch_args.source_matches(gpu_kernel._src, fn)
    monkeypatch.setattr(launch_args, "KERNEL_BODIES", ("/nonexistent/submission.py", frozenset()))
    assert launch_args.check_globals(gpu_kernel) is None
