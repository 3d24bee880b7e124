"""The operator registry: every task of the benchmark by id (``aten::add``)."""
from __future__ import annotations

from functools import lru_cache

from .spec import SOURCES, Operator


#: The modules that define operators, each with an ``OPERATORS`` list (one per family).
FAMILIES: tuple[str, ...] = (
    "aten.ops", "aten.pointwise", "aten.binary", "aten.views", "aten.reduction", "aten.losses",
    "aten.indexing", "aten.factory", "aten.copies", "aten.shape", "aten.random",
    "vllm.ops",
    "cublas.level1", "cublas.level2", "cublas.level3", "cublas.batched", "cublas.extensions",
)


@lru_cache(maxsize=1)
def _all() -> dict[str, Operator]:
    import importlib

    ops: dict[str, Operator] = {}
    for module in FAMILIES:
        for op in importlib.import_module(f"{__package__}.{module}").OPERATORS:
            if op.id in ops:
                raise RuntimeError(f"operator {op.id} is defined twice")
            ops[op.id] = op
    return ops


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
