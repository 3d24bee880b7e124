"""Red team 44 (verify/scan/exception_attrs.py): a caught AttributeError's ``obj`` handed back the object whose
attribute lookup failed, ``torch`` itself for ``torch.kgb_missing``, as a value L1 no longer followed."""
from __future__ import annotations

import textwrap

from kernelgenbench.verify.scan import scan_source


def hits(source: str) -> list[tuple[int, str]]:
    """(line, rule) of every finding of the dedented ``source`` (entry points ``erfc``, ``erfc_out``)."""
    return [(f.line, f.rule) for f in scan_source(textwrap.dedent(source),
                                                  entry_points=frozenset({"erfc", "erfc_out"}))]


def test_an_exception_s_obj_is_introspection() -> None:
    """tests/bad/attr_error_obj: ``e.obj`` of ``torch.kgb_missing`` is the torch module, and every path through it
    (``T.sys.modules``, ``T.os.system``, ``T._C._DisableTorchDispatch``) passed as an unknown receiver's attributes.
    Every way to read it is refused: the attribute, getattr with its name, an ``__exit__`` parameter, a class
    pattern's keyword, an instance of the file's own class called unbound with the exception as ``self``."""
    src = """
        import torch
        try:
            torch.kgb_missing
        except AttributeError as e:
            T = e.obj
        def erfc(x):
            try:
                torch.special.nope
            except AttributeError as err:
                S = getattr(err, "obj")
                match err:
                    case AttributeError(obj=o):
                        pass
                return T.os.system("true"), S, o
        class Catch:
            def __enter__(self):
                return self
            def __exit__(self, t, exc, tb):
                self.got = exc.obj
                return True
        class Holder:
            def get(self):
                return self.obj
        def erfc_out(x, out):
            with Catch():
                torch.nope
            try:
                torch.nope
            except AttributeError as e2:
                return Holder.get(e2)
        """
    assert hits(src) == [(6, "introspection"), (11, "introspection"), (13, "introspection"),
                         (20, "introspection"), (24, "introspection")]


def test_the_file_s_own_obj_attribute_passes() -> None:
    """``self.obj`` of the file's own plain class, which only the file instantiates, is the file's attribute; stores
    of ``.obj`` anywhere (``h.obj = 2``, ``setattr(h, "obj", 3)``) hand nothing back; ``e.name`` is a string."""
    src = """
        import torch
        class Holder:
            def __init__(self, o):
                self.obj = o
            def get(self):
                return self.obj
        H = Holder(3)
        def erfc(x):
            h = Holder(1)
            h.obj = 2
            setattr(h, "obj", 3)
            try:
                torch.nope
            except AttributeError as e:
                return H.get(), e.name
        """
    assert hits(src) == []
