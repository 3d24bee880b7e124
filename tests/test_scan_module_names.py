"""Red team 44 (verify/scan/module_names.py): ``enum.global_enum`` wrote an Enum's members into the globals of the
module its ``__module__`` named (the sandbox's dispatch module: the trace's op keys and host-read log replaced)."""
from __future__ import annotations

import textwrap

from kernelgenbench.verify.scan import scan_source


def hits(source: str) -> list[tuple[int, str]]:
    """(line, rule) of every finding of the dedented ``source`` (entry point ``erfc``)."""
    return [(f.line, f.rule) for f in scan_source(textwrap.dedent(source), entry_points=frozenset({"erfc"}))]


def test_writing_into_a_module_named_by_a_string_is_refused() -> None:
    """tests/bad/global_enum: every spelling of enum's exporters, and every binding of ``__module__``, is
    monkey-patch."""
    src = """
        import collections
        import enum
        from enum import global_enum as G
        class K(enum.Enum):
            __module__ = "kernelgenbench.sandbox.dispatch"
            _op_key = 1
        enum.global_enum(K)
        G(K)
        enum.IntEnum._convert_("X", "math", lambda n: n == "pi")
        E = enum.Enum("E", "a b", module="torch")
        N = collections.namedtuple("N", "a", module="torch")
        def erfc(x):
            setattr(erfc, "__module__", "torch")
            erfc.__module__ = "torch"
            C = type("C", (), {"__module__": "torch"})
            return getattr(enum, "global_enum"), C
        """
    assert hits(src) == [(4, "monkey-patch"), (6, "monkey-patch"), (8, "monkey-patch"), (10, "monkey-patch"),
                         (11, "monkey-patch"), (12, "monkey-patch"), (14, "monkey-patch"), (15, "monkey-patch"),
                         (16, "monkey-patch"), (17, "monkey-patch")]


def test_enums_namedtuples_and_reading_a_module_name_pass() -> None:
    """Plain enums (members, ``enum.member``, ``auto``, ``IntEnum``), namedtuples without ``module=``, dataclasses and
    reads of ``__module__`` (``getattr``'s name, the names ``functools.wraps`` copies, a lookup in a dict) and binding
    it to the file's own ``__name__`` stay clean."""
    src = """
        import collections
        import dataclasses
        import enum
        import functools
        import torch
        class Mode(enum.IntEnum):
            A = enum.auto()
            B = 2
        class Kind(enum.Enum):
            fn = enum.member(len)
        N = collections.namedtuple("N", "a b")
        @dataclasses.dataclass
        class Cfg:
            block: int = 64
        def erfc(x):
            where = getattr(erfc, "__module__", None)
            return Mode.B, Kind.fn, N(1, 2), Cfg(), where, type(x).__module__ == "torch"
        @functools.wraps(erfc, assigned=("__module__", "__name__", "__doc__"), updated=())
        def erfc_out(x, out):
            ns = {"a": 1}
            erfc_out.__module__ = __name__
            return erfc(x), ns.get("__module__"), "__module__" in ns, ns["__module__"] if ns else None
        """
    assert hits(src) == []


def test_a_namespace_built_with_a_module_name_is_refused() -> None:
    """The string ``"__module__"`` anywhere but as ``getattr``/``hasattr``'s name: a namespace item set by subscript
    or ``setdefault`` (then handed to ``type``) names a module as well as a dict literal's key does; so does rebinding
    the module's ``__name__``, which a class body's ``__module__`` takes."""
    src = """
        def erfc(x):
            ns = {}
            ns["__module__"] = "torch"
            ns.setdefault("__module__", "torch")
            C = type("C", (), ns)
            return C, hasattr(C, "__module__")
        __name__ = "torch"
        class D:
            __module__ = __name__
        """
    assert hits(src) == [(4, "monkey-patch"), (5, "monkey-patch"), (8, "monkey-patch")]
