"""Attributes through which a caught exception hands back the object an operation failed on (red team 44).

L1 judges a module, a PyTorch class or function by the path it is reached through (``torch.os.system`` is refused,
``torch.special`` used through its attributes is fine, ``f(torch)`` passes a module on and is refused). Python 3.10
and later put the receiver of a failed attribute lookup on the ``AttributeError``: ``torch.kgb_missing`` raises one
whose ``obj`` is the ``torch`` module itself. Read from the exception (``except AttributeError as e: T = e.obj``), the
module became a value L1 did not follow: ``T.sys.modules[...]`` (the sandbox's state), ``T.os.system``,
``T._C._DisableTorchDispatch`` and ``T.compile`` all passed as attributes of an unknown receiver (tests/bad/
attr_error_obj: erfc computed with ATen, untraced, 9/9 passed at 175b6c3).

So reading ``.obj`` is refused (rule introspection) on any receiver that may be an exception, which L1 cannot tell
apart from others (a handler's name, an ``__exit__`` parameter, anything it was handed on to); only ``self.obj`` of
a method of the file's own plain class, whose instances the file alone makes (:func:`.own_attrs.own_instance`), is
the file's own attribute. The other attributes of Python's exceptions hold what the code raising them chose
(``args``, ``StopIteration.value``: the submission's own generators return there), strings or numbers (``name``,
``path``, ``filename``), or another exception (``__context__``/``__cause__``, refused with the traceback)."""
from __future__ import annotations

import ast
from typing import Any

from .own_attrs import own_instance

#: attribute -> why reading it is refused (the finding's message)
HANDED_BACK: dict[str, str] = {
    "obj": "reads .obj: an AttributeError's obj is the object whose attribute lookup failed (torch.missing hands "
           "back the torch module itself), a value the scan no longer follows; only self.obj of the file's own "
           "class is its own attribute",
}


def handed_back(scan: Any, node: ast.AST, receiver: ast.AST, attr: str) -> str | None:
    """The finding's message when ``node`` reads ``attr`` of ``receiver`` and that may hand back an object an
    operation failed on (:data:`HANDED_BACK`): an attribute load, a ``getattr`` with that literal name or a class
    pattern's keyword (``case AttributeError(obj=o)``); None for stores (``self.obj = x``, ``setattr``) and for
    ``self`` of the file's own plain class (:func:`.own_attrs.own_instance`). ``scan`` is the scanner."""
    why = HANDED_BACK.get(attr)
    if why is None:
        return None
    if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
        return None
    if own_instance(scan, receiver):
        return None
    return why
