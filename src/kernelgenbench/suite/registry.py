"""The operator registry: every task of the benchmark by id (``aten::add``).

Families are found, not listed: every module under ``suite/<source>/`` (``aten``, ``vllm``, ``cublas``;
subpackages included) that defines ``OPERATORS`` contributes its rows. A new family module is picked up as it
is; a row object that a package re-exports from its submodule counts once, credited to the module that
defines it (:func:`defined_in`); two rows with one id are an error.
"""
from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from pathlib import Path

from .spec import SOURCES, Operator


def family_modules() -> list[str]:
    """The modules that define operators: every module under ``suite/<source>/`` with an ``OPERATORS`` list,
    by source (:data:`~kernelgenbench.suite.spec.SOURCES` order) then module name."""
    out = []
    for source in SOURCES:
        package = importlib.import_module(f"{__package__}.{source}")
        names = [package.__name__] + [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
        out += [n for n in names if hasattr(importlib.import_module(n), "OPERATORS")]
    return out


@lru_cache(maxsize=1)
def _registry() -> tuple[dict[str, Operator], dict[str, str]]:
    """Every operator by id, and the module that defines each (by id)."""
    ops: dict[str, Operator] = {}
    where: dict[str, str] = {}
    for module in family_modules():
        for op in importlib.import_module(module).OPERATORS:
            if op.id not in ops:
                ops[op.id], where[op.id] = op, module
                continue
            first = where[op.id]
            if ops[op.id] is not op:
                raise RuntimeError(f"operator {op.id} is defined twice ({first}, {module})")
            # The same row listed twice is a package re-exporting its submodule's rows: the submodule defines
            # them. Two unrelated modules listing one row cannot be told apart, so that is an error too.
            if module.startswith(first + "."):
                where[op.id] = module
            elif not first.startswith(module + "."):
                raise RuntimeError(f"operator {op.id} is listed by both {first} and {module}; list it only in "
                                   "the module that defines it (or in a package re-exporting that module)")
    return ops, where


def _all() -> dict[str, Operator]:
    return _registry()[0]


def defined_in(op: Operator | str) -> str:
    """The file that defines operator ``op`` (an operator or its id), relative to the ``kernelgenbench``
    package: ``"suite/aten/binary.py"``.

    Raises:
        KeyError: no such operator.
    """
    op_id = op if isinstance(op, str) else op.id
    module = importlib.import_module(_registry()[1][op_id])
    root = Path(importlib.import_module(__package__.rpartition(".")[0]).__file__).parent
    return Path(module.__file__).relative_to(root).as_posix()


def all_operators() -> list[Operator]:
    """Every operator, by source then name."""
    return sorted(_all().values(), key=lambda o: (SOURCES.index(o.source), o.name))


def get_operator(op_id: str) -> Operator:
    """The operator with id ``op_id`` (``aten::add``); ``add`` alone works when unambiguous.

    Raises:
        KeyError: no such operator (the message lists close matches).
    """
    ops = _all()
    if op_id in ops:
        return ops[op_id]
    matches = [o for o in ops.values() if o.name == op_id or o.filename == op_id
               or o.filename[:-3] == op_id]
    if len(matches) == 1:
        return matches[0]
    import difflib

    close = [k for k in ops if op_id.split("::")[-1].lower() in k.lower()]
    close += [k for k in difflib.get_close_matches(op_id, list(ops), n=3, cutoff=0.6) if k not in close]
    raise KeyError(f"unknown operator {op_id}" + (f"; did you mean {', '.join(close[:5])}?" if close else ""))


def defining_module(op_id: str) -> str:
    """The module that defines operator ``op_id`` (``kernelgenbench.suite.aten.binary``): what a process that
    needs this one operator imports instead of every family (:func:`operator_from_module`).

    Raises:
        KeyError: no such operator.
    """
    return _registry()[1][get_operator(op_id).id]


def operator_from_module(op_id: str, module: str) -> Operator:
    """Operator ``op_id`` read from ``module`` alone (its ``OPERATORS``): the sandbox child imports the one
    family its job needs (the registry walks all of them: about 1.3 s of CPU per child, as much as importing
    torch, measured on this project's 2-core CI machine).

    Raises:
        KeyError: ``module`` is not a family module of this package or does not list ``op_id``.
    """
    if not module.startswith(__package__.rpartition(".")[0] + ".suite."):
        raise KeyError(f"{module} is not a family module of kernelgenbench.suite")
    for op in getattr(importlib.import_module(module), "OPERATORS", ()):
        if op.id == op_id:
            return op
    raise KeyError(f"{module} does not define {op_id}")


def by_filename(name: str) -> Operator | None:
    """The operator a submission file is for (``aten__add.py`` → ``aten::add``), or None."""
    for op in _all().values():
        if op.filename == name:
            return op
    return None


def select(ops: list[str] | None = None, source: str | None = None, category: str | None = None) -> list[Operator]:
    """Operators filtered by ids/names, source and category (substring match).

    Raises:
        KeyError: an id in ``ops`` is unknown.
        ValueError: ``source`` is not one of aten, vllm, cublas.
    """
    if source is not None and source not in SOURCES:
        raise ValueError(f"unknown source {source!r}; expected one of {', '.join(SOURCES)}")
    chosen = [get_operator(o) for o in ops] if ops else all_operators()
    if source:
        chosen = [o for o in chosen if o.source == source]
    if category:
        chosen = [o for o in chosen if category.lower() in o.category.lower()]
    return chosen
