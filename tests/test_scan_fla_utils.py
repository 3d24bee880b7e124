"""tp39b: flash-linear-attention's shared utilities (``fla/utils``) as L1 reads them.

FLA picks PyTorch's device module at import (``device_torch_lib = getattr(torch, device)``, ``device`` a backend's
name) and its ``input_guard`` decorator maps arguments to names with ``inspect.signature(fn)`` of the function it
decorates. Both were refused (dynamic-attr, tensor-method, introspection) in every FLA module; the tests below pin
what now passes and the neighbouring forms that stay refused."""
from __future__ import annotations

import textwrap

import pytest

from kernelgenbench.verify.scan import scan_source

_PICK = '''
    import functools
    import torch
    import triton

    @functools.cache
    def backend():
        try:
            return triton.runtime.driver.active.get_current_target().backend
        except Exception:
            return "cpu"

    device = backend() if backend() != "hip" else "cuda"
    lib = getattr(torch, device)
    if device == "cpu":
        device = "cuda"
        lib = getattr(torch, device)

    def ctx(index):
        return lib.device(index)
'''


def rules(source: str) -> list[str]:
    """The rules of every finding of the dedented ``source``."""
    return [f.rule for f in scan_source(textwrap.dedent(source))]


def test_a_module_name_that_only_holds_a_backend_name_picks_a_device_module() -> None:
    """FLA's ``_device.py``: ``getattr(torch, device)`` is one of PyTorch's device modules, judged as torch.cuda;
    its ``device(index)`` context passes, and what else it reaches is judged as torch.cuda's."""
    assert rules(_PICK) == []
    assert rules(_PICK + '''
    def grab():
        return lib.memory_allocated()
    ''') == ["torch-compute"]


@pytest.mark.parametrize("change", [
    ('return "cpu"', 'return "add"'),                                     # a return that is not a backend
    ('device = "cuda"\n', 'device = "_C"\n'),                             # a literal that is not a backend
    ('@functools.cache\n', '@functools.wraps(print)\n'),                  # a decorator that may replace the function
    ('def backend():', 'def backend(name="add"):'),                       # a function of arguments
    ('def ctx(index):', 'for device in ["add"]:\n    pass\n\ndef ctx(index):'),  # another binding form
    ('def ctx(index):', 'device: str = "add"\n\ndef ctx(index):'),
    ('def ctx(index):', 'device += ""\n\ndef ctx(index):'),
    ('def ctx(index):', 'def backend():\n    return "add"\n\ndef ctx(index):'),  # two defs
    ('def ctx(index):', 'backend = str\n\ndef ctx(index):'),
    ('def ctx(index):', 'x = [(device := "add")]\n\ndef ctx(index):'),  # a walrus
    ('def ctx(index):', 'def f():\n    global device\n    device = "add"\n\ndef ctx(index):'),
    ('return triton.runtime.driver.active.get_current_target().backend', 'return triton.runtime.driver.active.name'),
])
def test_a_name_that_could_hold_another_string_is_no_backend(change: tuple[str, str]) -> None:
    """Every binding of the name must be a backend's name: a literal of cuda/cpu/xpu, Triton's target backend
    through a memoized function of no arguments bound once, or a conditional of such; anything else (another
    string, another binding form, a global rebinding) leaves ``getattr(torch, name)`` a dynamic-attr finding."""
    old, new = change
    src = textwrap.dedent(_PICK)
    assert old in src
    assert "dynamic-attr" in rules(src.replace(old, new, 1))


def test_a_local_name_shadowing_the_backend_name_is_no_backend() -> None:
    """``getattr(torch, device)`` reads the module's binding only: a parameter or a class attribute of the same
    name could hold any string."""
    assert "dynamic-attr" in rules(_PICK + '''
    def pick(device):
        return getattr(torch, device)
    ''')
    assert "dynamic-attr" in rules(_PICK + '''
    class Lib:
        device = "add"
        op = getattr(torch, device)
    ''')


_GUARD = '''
    import functools
    import inspect
    import torch

    def guard(fn=None, *, keep=()):
        def deco(fn):
            sig = inspect.signature(fn)
            names = list(sig.parameters.keys())
            named = set(sig.parameters)

            @functools.wraps(fn)
            def run(*args):
                return fn(*[a if names[i] in keep or names[i] not in named else a.contiguous()
                            for i, a in enumerate(args)])
            return run
        return deco(fn) if fn is not None else deco
'''


def test_a_signature_read_for_its_parameter_names_passes() -> None:
    """FLA's ``input_guard``: ``sig = inspect.signature(fn)``, ``list(sig.parameters.keys())`` of the function it
    decorates; parameter names are metadata. Also ``len``/``in``/direct forms."""
    assert rules(_GUARD) == []
    assert rules('''
        import inspect

        def arity(fn):
            return len(inspect.signature(fn).parameters), "x" in inspect.signature(fn).parameters
    ''') == []


@pytest.mark.parametrize("use", [
    'sig.parameters["x"].default',                    # a parameter's default is an object
    'list(sig.parameters.values())',
    'sig.bind(1)',
    'sig.return_annotation',
    'sig',                                            # the signature handed out
    '[p for p in sig.parameters]',
])
def test_a_signature_read_for_more_than_names_is_introspection(use: str) -> None:
    """Anything of the Signature but its parameters' names (defaults, annotations, bind, the object itself) keeps
    ``import inspect`` refused."""
    assert "introspection" in rules(_GUARD + f'''
    def more(fn):
        sig = inspect.signature(fn)
        return {use}
    ''')


@pytest.mark.parametrize("extra", [
    'def f(fn):\n    fn = torch.add\n    return list(inspect.signature(fn).parameters)\n',   # the parameter rebound
    'def f():\n    return list(inspect.signature(torch.add).parameters)\n',  # not a parameter (a torch path)
    'def f(fn):\n    return list(inspect.signature(fn, follow_wrapped=False).parameters)\n',
    'list = lambda p: p["x"].default\n',                                   # the collector shadowed
    'def f(fn):\n    sig = inspect.signature(fn)\n    sig = 1\n    return list(sig.parameters)\n',  # bound twice
])
def test_a_signature_of_other_things_or_collectors_is_introspection(extra: str) -> None:
    """The signature's argument must be a parameter of the function the call is in, never rebound there, and the
    names must go to a builtin collector the file does not rebind."""
    assert "introspection" in rules(_GUARD + textwrap.indent(extra, "    "))


def test_only_a_device_type_attribute_is_a_device_backend() -> None:
    """The name rule does not widen the ``d.type`` one: another attribute of a device is no backend's name."""
    assert "dynamic-attr" in rules('''
        import torch

        def f(device):
            device = torch.device(device)
            return getattr(torch, device.index)
    ''')


def test_a_backend_function_is_judged_where_it_is_defined() -> None:
    """Red-teaming the rule (tp39b): a function that binds ``triton`` itself returns what its own object says, and a
    decorator is looked up in the module, not through an alias of the function holding the ``getattr``; both
    would let the name hold any string (``getattr(torch, "nn")``)."""
    assert "dynamic-attr" in rules('''
        import functools
        import torch
        import triton

        @functools.cache
        def backend():
            triton = Fake()
            return triton.runtime.driver.active.get_current_target().backend

        lib = getattr(torch, backend())
    ''')
    assert "dynamic-attr" in rules('''
        import torch

        def mycache(fn):
            return lambda: "nn"

        @mycache
        def backend():
            return "cuda"

        def pick():
            from functools import cache as mycache
            return getattr(torch, backend()).device(0), mycache
    ''')
