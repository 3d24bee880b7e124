"""rt41: decorators of the file that only wrap an autograd method, in flash-linear-attention's factory shape.

tp38 left the ``backward`` of an autograd Function unscanned when nothing in the file can run it (Liger-Kernel's
norms sum weight gradients with ``_dW.sum(dim=0)`` there), and tp39 the methods of a class nothing can reach, as
long as their decorators cannot hand the method to other code. Of the file's own decorators only Liger-Kernel's
``def ensure_contiguous(fn): @wraps(fn) def wrapper(...); return wrapper`` counted. FLA decorates every Function's
forward and backward with ``input_guard``, a factory written bare or called with keywords that reads
``inspect.signature(fn)`` before returning its closure: its backwards (``dw.sum(0)`` in fused_norm_gate.py) were
findings. The tests pin the factory shapes that now only wrap, and the neighbouring ones that can hand the function
out (and so keep it scanned)."""
from __future__ import annotations

import textwrap

import pytest

from kernelgenbench.verify.scan import scan_source

_FUNCTION = '''
    class Norm(torch.autograd.Function):
        @staticmethod
        @DEC
        def forward(ctx, x, w):
            ctx.save_for_backward(w)
            return x

        @staticmethod
        @DEC
        def backward(ctx, dy):
            (w,) = ctx.saved_tensors
            return dy, dy.sum(dim=0).to(w.dtype)

    def rms_norm(out, input, weight, epsilon):
        out.copy_(Norm.apply(input, weight))
'''

#: FLA's shape, written afresh: a factory with ``fn=None`` and keyword-only options, a nested decorator that maps
#: parameter names with inspect.signature and returns a functools.wraps closure
_GUARD = '''
    import functools
    import inspect

    import torch

    _KEPT = []

    def guard(fn=None, *, keep=False):
        """Make tensor arguments contiguous, but those named in ``keep``."""
        def decorate(fn):
            names = list(inspect.signature(fn).parameters.keys())
            skip = set(keep) if isinstance(keep, (list, tuple)) else set()

            @functools.wraps(fn)
            def run(*args, **kwargs):
                args = [a.contiguous() if isinstance(a, torch.Tensor) and keep is not True
                        and (i >= len(names) or names[i] not in skip) else a for i, a in enumerate(args)]
                return fn(*args, **kwargs)
            return run
        if fn is not None:
            return decorate(fn)
        return decorate
'''


#: a factory of options only, called ``@guard(("x",))``
_OPTIONS = (_GUARD.replace("def guard(fn=None, *, keep=False):", "def guard(keep=(), *, strict=False):")
            .replace("        if fn is not None:\n            return decorate(fn)\n", ""))
#: Liger-Kernel's plain shape with FLA's signature read before the closure
_PLAIN = '''
    import functools
    import inspect

    import torch

    def guard(fn):
        names = list(inspect.signature(fn).parameters)

        @functools.wraps(fn)
        def run(*args):
            return fn(*[a.contiguous() if n != "ctx" else a for n, a in zip(names, args)])
        return run
'''


def _rules(pre: str, dec: str, body: str = _FUNCTION) -> list[str]:
    src = textwrap.dedent(pre) + textwrap.dedent(body).replace("DEC", dec)
    return sorted(f.rule for f in scan_source(src, entry_points=frozenset({"rms_norm"})))


@pytest.mark.parametrize("pre,dec", [
    (_GUARD, "guard"),                                       # bare: guard(fn) returns decorate(fn)
    (_GUARD, "guard(keep=True)"),                            # called with its keyword-only options
    (_GUARD, "guard(keep=('dy',))"),
    (_GUARD.replace("        if fn is not None:\n            return decorate(fn)\n        return decorate\n",
                    "        return decorate if fn is None else decorate(fn)\n"), "guard"),
    (_GUARD.replace("        if fn is not None:\n            return decorate(fn)\n        return decorate\n",
                    "        if fn is None:\n            return decorate\n        else:\n"
                    "            return decorate(fn)\n"), "guard(keep=True)"),
    # keyword-only factory, as Liger-Kernel/unsloth-style option decorators are written, and an inner name apart
    (_GUARD.replace("def guard(fn=None, *, keep=False):", "def guard(*, keep=False):")
     .replace("        if fn is not None:\n            return decorate(fn)\n", ""), "guard(keep=False)"),
    # options taken positionally by a factory that has no ``fn=None``
    (_OPTIONS, "guard(('dy',))"),
    (_OPTIONS, "guard(keep=('dy',), strict=True)"),
    # the plain shape reading the parameter names before its closure
    (_PLAIN, "guard"),
])
def test_a_backward_under_a_factory_that_only_wraps_stays_unscanned(pre: str, dec: str) -> None:
    """FLA's ``@input_guard`` / ``@input_guard(no_guard_contiguous=True)`` on a Function's backward: the factory's
    closure calls the backward only when autograd runs it, so its ``dy.sum(dim=0)`` is not scanned (it was a
    tensor-method finding before rt41)."""
    assert _rules(pre, dec) == []


def test_the_backward_is_scanned_when_nothing_wraps_it() -> None:
    """The body above is a finding of its own when the decorator may keep it (the control for every case here)."""
    assert _rules("import torch\n_KEPT = []\ndef keep(fn):\n    _KEPT.append(fn)\n    return fn\n", "keep") \
        == ["tensor-method"]


_KEEPER = "\n    def keeper(f):\n        _KEPT.append(f)\n        return f\n"


@pytest.mark.parametrize("pre,dec", [
    # a positional argument is what the factory wraps: the backward is then handed to it
    (_GUARD + _KEEPER, "guard(keeper)"),
    (_GUARD, "guard(**{'keep': True})"),                      # keywords the scan cannot name
    (_GUARD + _KEEPER, "guard(fn=keeper)"),                   # the positional parameter by name
    (_GUARD, "guard(kept=True)"),                             # not one of its keyword-only names
    # the inner decorator hands the function out as the class is made
    (_GUARD.replace("            skip = set(keep)", "            skip = _KEPT.append(fn) or set(keep)"), "guard"),
    (_GUARD.replace("            skip = set(keep)", "            _KEPT.append(fn)\n            skip = set(keep)"),
     "guard"),
    # the outer parameter (the backward, written bare) read inside an inner decorator of another parameter name
    (_GUARD.replace("def decorate(fn):", "def decorate(g):").replace("inspect.signature(fn)", "inspect.signature(g)")
     .replace("@functools.wraps(fn)", "@functools.wraps(g)").replace("return fn(*args", "return g(*args")
     .replace("            skip = set(keep)", "            skip = _KEPT.append(fn) or set(keep)"), "guard"),
    # a local name that makes ``functools.wraps`` / ``inspect.signature`` the file's own code
    (_GUARD.replace("            skip = set(keep)", "            functools = K()\n            skip = set(keep)")
     + "    class K:\n        def wraps(self, f):\n            _KEPT.append(f)\n"
       "            return lambda w: w\n", "guard"),
    (_GUARD.replace("            skip = set(keep)", "            inspect = K()\n            skip = set(keep)")
     + "    class K:\n        def signature(self, f):\n            _KEPT.append(f)\n            return f\n", "guard"),
    # a factory option shadowing the module the inner decorator's ``functools.wraps`` is read from (red team of rt41)
    (_GUARD.replace("def guard(fn=None, *, keep=False):", "def guard(fn=None, *, keep=False, functools=K()):")
     .replace("    _KEPT = []\n", "    _KEPT = []\n\n    class K:\n        def wraps(self, f):\n"
              "            _KEPT.append(f)\n            return lambda w: w\n"), "guard"),
    (_GUARD.replace("def guard(fn=None, *, keep=False):", "def guard(fn=None, *, keep=False, inspect=K()):")
     .replace("    _KEPT = []\n", "    _KEPT = []\n\n    class K:\n        def signature(self, f):\n"
              "            _KEPT.append(f)\n            return f\n"), "guard"),
    # the tail returns something else, or the inner closure escapes
    (_GUARD.replace("        return decorate\n", "        return _KEPT.append\n"), "guard(keep=True)"),
    (_GUARD.replace("            return run\n", "            _KEPT.append(run)\n            return run\n"), "guard"),
    (_GUARD.replace("def guard(fn=None, *, keep=False):", "def guard(fn=print, *, keep=False):"), "guard"),
    # bare, an options-only factory binds the function to its first option (here kept as the class is made)
    (_OPTIONS.replace("            skip = set(keep)", "            skip = _KEPT.append(keep) or ()"), "guard"),
    (_GUARD + _KEEPER, "guard(*[keeper])"),
    (_PLAIN.replace("list(inspect.signature(fn).parameters)", "_KEPT.append(fn)") + "    _KEPT = []\n", "guard"),
])
def test_a_factory_that_could_hand_the_backward_out_keeps_it_scanned(pre: str, dec: str) -> None:
    """Every neighbouring shape through which the decorated function could reach other code as the class is made
    (then the wrapper could call the unscanned backward: rb38's tests/bad kept_backward) keeps it scanned."""
    assert "tensor-method" in _rules(pre, dec)


_DEAD_CLASS = '''
    class Gated(torch.autograd.Function):
        @staticmethod
        @DEC
        def forward(ctx, x, w):
            return torch.nn.functional.linear(x, w)

    def rms_norm(out, input, weight, epsilon):
        out.copy_(input)
'''


def test_methods_of_a_class_nothing_reaches_under_the_factory_are_not_scanned() -> None:
    """tp39's unreachable classes (FLA's unused ``LayerNormGatedLinearFunction``, F.linear in its forward): a method
    decorated by the factory's call form is one whose decorator only wraps it."""
    assert _rules(_GUARD, "guard(keep=True)", _DEAD_CLASS) == []
    assert _rules(_GUARD + _KEEPER, "guard(keeper)", _DEAD_CLASS) == ["torch-compute"]


#: unsloth's habit, written afresh: PyTorch's autograd decorators bound to module names by PyTorch's version
_AMP_ALIASES = '''
    import torch
    from packaging.version import Version

    if Version(torch.__version__) < Version("2.4.0"):
        amp_fwd = torch.cuda.amp.custom_fwd
        amp_bwd = torch.cuda.amp.custom_bwd
    else:
        amp_fwd = torch.amp.custom_fwd(device_type="cuda")
        amp_bwd = torch.amp.custom_bwd(device_type="cuda")
'''
_AMP_FUNCTION = _FUNCTION.replace("        @DEC\n        def forward", "        @amp_fwd\n        def forward") \
    .replace("        @DEC\n        def backward", "        @amp_bwd\n        def backward")


def test_a_backward_under_a_module_alias_of_custom_bwd_stays_unscanned() -> None:
    """unsloth decorates its Functions with ``@torch_amp_custom_fwd``/``@torch_amp_custom_bwd``, module names bound
    to ``torch.cuda.amp.custom_bwd`` or ``torch.amp.custom_bwd(device_type="cuda")`` by PyTorch's version: L1 judged
    the name as no known decorator and scanned the backward (its ``dy.sum(dim=0)`` a tensor-method finding before
    rt41). A name every module-level binding of which is such a decorator is that decorator."""
    assert _rules(_AMP_ALIASES, "", _AMP_FUNCTION) == []


@pytest.mark.parametrize("change", [
    ('        amp_bwd = torch.amp.custom_bwd(device_type="cuda")\n',
     '        amp_bwd = torch.amp.custom_bwd(device_type="cuda")\n    amp_bwd = keeper\n'),  # another binding
    ('        amp_bwd = torch.amp.custom_bwd(device_type="cuda")\n',
     '        amp_bwd = torch.amp.custom_bwd(device_type=_KIND)\n'),  # an argument the scan cannot read
    ('        amp_bwd = torch.amp.custom_bwd(device_type="cuda")\n',
     '        for amp_bwd in (keeper,):\n            pass\n'),  # a loop binding
    ('        amp_bwd = torch.amp.custom_bwd(device_type="cuda")\n',
     '        amp_bwd = torch.amp.custom_bwd(device_type="cuda")\n    def rebind():\n'
     '        global amp_bwd\n        amp_bwd = keeper\n'),  # rebound through global
    ('        amp_bwd = torch.amp.custom_bwd(device_type="cuda")\n',
     '        amp_bwd = torch.amp.custom_bwd(device_type="cuda")\n    _ = [(amp_bwd := keeper)]\n'),  # a walrus
    ('        amp_bwd = torch.cuda.amp.custom_bwd\n', '        amp_bwd = torch.amp.custom_fwd\n'),  # not a bwd one
])
def test_a_module_alias_that_could_be_another_decorator_keeps_the_backward_scanned(change: tuple[str, str]) -> None:
    """Any binding of the name that is not one of PyTorch's backward decorators keeps the backward scanned."""
    pre = _AMP_ALIASES.replace(*change)
    assert pre != _AMP_ALIASES
    assert "tensor-method" in _rules(pre + "    _KIND = 'cuda'\n    _KEPT = []\n" + _KEEPER, "", _AMP_FUNCTION)


#: rb41: a def of the file that keeps the function it is given, bound (on a branch always taken) over an import
_REBOUND = '''
    _KEPT = []

    if torch.__version__:
        def NAME(f):
            _KEPT.append(f)
            return KEEP
'''
#: rb41: a class of the file named ``torch``, bound over ``import torch``, whose ``cuda.amp.custom_bwd`` keeps it
_TORCH_CLASS = '''
    _KEPT = []

    def _keep(f):
        _KEPT.append(f)
        return f

    class _Amp:
        custom_bwd = staticmethod(_keep)
        custom_fwd = staticmethod(_keep)

    class _Cuda:
        amp = _Amp

    if torch.__version__:
        class torch:
            cuda = _Cuda
'''


@pytest.mark.parametrize("pre,dec,body", [
    # Liger's wrapping shape whose ``wraps``, imported from functools, a def binds again (a version fallback's form)
    ("    from functools import wraps\n    import torch\n" + _REBOUND.replace("NAME", "wraps")
     .replace("KEEP", "lambda w: w") + _PLAIN.replace("import functools\n", "").replace("functools.wraps", "wraps"),
     "guard", _FUNCTION),
    # the same with try/except ImportError around the import
    ("    import torch\n    _KEPT = []\n    try:\n        from functools import wraps\n    except ImportError:\n"
     "        def wraps(f):\n            _KEPT.append(f)\n            return lambda w: w\n"
     + _PLAIN.replace("import functools\n", "").replace("functools.wraps", "wraps"), "guard", _FUNCTION),
    # FLA's factory whose ``inspect``, imported, a def binds again
    (_GUARD + _REBOUND.replace("if torch.__version__:\n        def NAME(f):", "if torch.__version__:\n"
                               "        class inspect:\n            @staticmethod\n            def signature(f):")
     .replace("            _KEPT.append(f)\n            return KEEP", "                _KEPT.append(f)\n"
              "                return _KEPT"), "guard", _FUNCTION),
    # PyTorch's backward decorators imported, then bound again by a def
    ("    import torch\n    from torch.amp import custom_bwd\n" + _REBOUND.replace("NAME", "custom_bwd")
     .replace("KEEP", "f"), "custom_bwd", _FUNCTION),
    ("    import torch\n    from torch.autograd.function import once_differentiable\n"
     + _REBOUND.replace("NAME", "once_differentiable").replace("KEEP", "f"), "once_differentiable", _FUNCTION),
    # ``torch`` itself bound again: directly, and through unsloth's module alias
    ("    import torch\n" + _TORCH_CLASS, "torch.cuda.amp.custom_bwd", _FUNCTION),
    ("    import torch\n" + _TORCH_CLASS + "    amp_fwd = torch.cuda.amp.custom_fwd\n"
     "    amp_bwd = torch.cuda.amp.custom_bwd\n", "", _AMP_FUNCTION),
])
def test_an_allowance_s_name_bound_again_by_the_file_keeps_the_backward_scanned(pre: str, dec: str, body: str) -> None:
    """rb41: L1 resolved a name to its import although the file binds it again (``from torch.amp import custom_bwd``
    then ``def custom_bwd(f): _KEPT.append(f)``; ``class torch:``; ``wraps``/``inspect`` of the wrapping shapes): the
    backward it took for one only autograd runs was kept for the wrapper to call (tests/bad rebound_bwd_decorator and
    rebound_wraps passed vllm::rms_norm 4/4). An allowance's names must be bound by imports of one path only."""
    assert "tensor-method" in _rules(pre, dec, body)


def test_the_unreachable_class_exemption_reads_its_names_as_bound_by_imports_only() -> None:
    """rb41: a class nothing names is not scanned when its decorators only wrap and its bases run no code of the file
    as it is made; ``custom_fwd`` or ``torch`` bound again by the file made a decorator that keeps the forward, and a
    base whose ``__init_subclass__`` registers the class, look like PyTorch's."""
    fwd = "    import torch\n    from torch.amp import custom_fwd\n" + _REBOUND.replace("NAME", "custom_fwd") \
        .replace("KEEP", "f")
    assert _rules(fwd, "custom_fwd", _DEAD_CLASS) == ["torch-compute"]
    base = '''
    import torch

    _KEPT = []

    class _Base:
        def __init_subclass__(cls, **kw):
            _KEPT.append(cls)

    class _Autograd:
        Function = _Base

    if torch.__version__:
        class torch:
            autograd = _Autograd
    import torch
'''
    assert _rules(base, "staticmethod", _DEAD_CLASS) == ["torch-compute"]
    # the control: imported once, both stay exempt
    assert _rules("    import torch\n    from torch.amp import custom_fwd\n", "custom_fwd", _DEAD_CLASS) == []
    assert _rules("    import torch\n    import torch.nn\n", "staticmethod", _DEAD_CLASS) == []


def test_a_version_fallback_importing_the_decorators_from_two_modules_keeps_the_exemptions() -> None:
    """The common fallback ``try: from torch.amp import custom_fwd, custom_bwd`` / ``except ImportError: from
    torch.cuda.amp import ...`` binds each name by imports only, to one of PyTorch's decorators whichever runs: the
    backward, and an unreachable class's forward, stay unscanned (rb41's first form of the rule above, one import
    path only, scanned them)."""
    pre = '''
    import torch

    try:
        from torch.amp import custom_bwd, custom_fwd
    except ImportError:
        from torch.cuda.amp import custom_bwd, custom_fwd
'''
    assert _rules(pre, "custom_bwd") == []
    assert _rules(pre, "custom_fwd", _DEAD_CLASS) == []
    # one of the fallback's modules not PyTorch's: scanned
    other = pre.replace("from torch.cuda.amp import", "from torch.nn import")
    assert _rules(other, "custom_bwd") == ["tensor-method"]
