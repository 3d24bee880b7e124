"""tp43: a launcher's own container attributes (verify/scan/own_attrs.py): ``self.seen = set()`` then
``self.seen.add(key)``, ``self.blocks.sort()``; L1 judged these as the tensor methods of the same names."""
from __future__ import annotations

import textwrap

import pytest

from kernelgenbench.verify.scan import scan_source

_LAUNCHER = '''
    import torch

    class Launcher:
        def __init__(self):
            self.seen = set()
            self.blocks = [256, 64]
            self.counts = {}

        def __call__(self, key):
            self.seen.add(key)
            self.blocks.sort()
            return self.counts.get(key, 0), self.blocks[-1]
'''


def rules(source: str) -> list[str]:
    """The rules of every finding of the dedented ``source``."""
    return [f.rule for f in scan_source(textwrap.dedent(source))]


def test_a_launchers_own_containers_have_python_methods() -> None:
    assert rules(_LAUNCHER) == []


@pytest.mark.parametrize("old,new", [
    # another store of the attribute, anywhere in the file, on any receiver
    ("            self.counts = {}\n", "            self.counts = {}\n            self.seen = torch.zeros(3)\n"),
    ("            self.counts = {}\n", "            self.counts = {}\n            other.seen = make()\n"),
    ("            self.seen = set()\n", "            self.seen = set(range(3))\n"),  # a factory with arguments
    ("            self.seen = set()\n", "            self.seen, self.x = set(), 1\n"),  # a tuple target
    ("            self.counts = {}\n", "            self.counts = {}\n            del self.seen\n"),
    ("            self.counts = {}\n", "            self.counts = {}\n            for self.seen in [set()]:\n"
                                     "                pass\n"),
    # a class-body binding or a method of that name, the name spelt in a string (register_buffer, setattr)
    ("        def __init__(self):", "        seen = None\n\n        def __init__(self):"),
    ("        def __init__(self):", "        def seen(self):\n            return 1\n\n        def __init__(self):"),
    ("    import torch\n", "    import torch\n    NAME = 'seen'\n"),
    ("    import torch\n", "    import torch\n    H = dict(seen=1)\n"),  # a keyword (an __init__ registering **kw)
    # a class that is not plain, a decorated method, a receiver that is not the method's first parameter
    ("    class Launcher:", "    class Launcher(torch.nn.Module):"),
    ("        def __call__(self, key):", "        @staticmethod\n        def __call__(self, key):"),
    ("        def __call__(self, key):\n            self.seen.add(key)",
     "        def __call__(self, key, other):\n            other.seen.add(key)"),
    ("        def __call__(self, key):\n", "        def __call__(self, key):\n            self = key\n"),
])
def test_an_attribute_that_could_hold_anything_else_keeps_tensor_methods(old: str, new: str) -> None:
    src = _LAUNCHER
    assert old in src
    assert "tensor-method" in rules(src.replace(old, new, 1))


def test_pytorch_attribute_names_are_never_proven() -> None:
    """``data`` is a tensor's attribute: a foreign object handed in as ``self`` would answer with a tensor."""
    src = _LAUNCHER.replace("self.seen", "self.data")
    assert "tensor-method" in rules(src)


@pytest.mark.parametrize("use", [
    "Launcher.__call__(slice(None, t), 1)",  # rb43: called unbound with a slice as self
    "type(Launcher())",  # an instance's class handed on: type(obj).__call__(foreign, ...)
    "f = Launcher",  # the class as a value
    "class B(Launcher, StopIteration):\n    pass",  # a subclass with another base: B(t).value is t
])
def test_a_class_that_escapes_may_get_a_foreign_self(use: str) -> None:
    """rb43: ``Launcher.note(slice(None, t), x)`` ran ``self.stop.add`` as ``Tensor.add`` (a slice keeps ``t`` as
    ``.stop``); ``self`` is an instance only where the class is read as nothing but the callee that makes one."""
    src = textwrap.dedent(_LAUNCHER) + "\n\nlauncher = Launcher()\nok = isinstance(launcher, Launcher)\n"
    assert rules(src) == []
    assert "tensor-method" in rules(src + use + "\n")


def test_type_compared_and_isinstance_keep_the_proof() -> None:
    src = textwrap.dedent(_LAUNCHER) + "\n\ndef pick(x):\n    return type(x) is Launcher or isinstance(x, Launcher)\n" \
        + "\n\ndef launch(l: Launcher, *rest: Launcher) -> Launcher:\n    held: Launcher = l\n    return held\n" \
        + "\n\ndef why(x):\n    return f'not a tensor: {type(x).__name__}'\n"
    assert rules(src) == []


@pytest.mark.parametrize("hook", [
    "    def __getattr__(self, name):\n        return HELD[0]\n",
    "    def __getattribute__(self, name):\n        return HELD[0]\n",
    "    def __setattr__(self, name, value):\n        super().__setattr__(name, HELD[0])\n",
    "    __getattr__ = lambda self, name: HELD[0]\n",
])
def test_a_class_hooking_attribute_access_may_answer_anything(hook: str) -> None:
    """rb43: ``__getattr__`` answered ``self.seen`` with a tensor where the only store (``self.seen = set()``) sat in
    a method never called, so ``self.seen.add(x, alpha=-1)`` was ``Tensor.add``."""
    src = textwrap.dedent(_LAUNCHER)
    assert "    def __init__(self):" in src
    assert "tensor-method" in rules("HELD = []\n" + src.replace("    def __init__(self):",
                                                                 hook + "\n    def __init__(self):", 1))
