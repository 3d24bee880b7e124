"""A cuBLAS row: a routine declaration (decl.py) plus what only that routine needs (cublas.md §3)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from ..function import FunctionOperator
from ..spec import Call, Cost, Expected, bind_pointers, unbind_result
from .blas import get_cublas
from .decl import Ref, Routine, build_call


def baseline_of(routine: Routine) -> Callable[[Call, Any], tuple[Callable[[Call], Any], str]]:
    """``baseline(call, platform) -> (fn, label)``: the real routine through the ctypes binding (§2.7)."""
    def pick(call: Call, platform: Any) -> tuple[Callable[[Call], Any], str]:
        lib = get_cublas()
        method = getattr(lib, routine.method)
        def run(c: Call) -> Any:
            if not c.pointers:
                return method(*c.args, **c.kwargs)
            b = bind_pointers(c)                     # the same address tensors the candidate gets (§2.2)
            return unbind_result(c, method(*b.args, **b.kwargs), check=False)
        return run, \
            f"cuBLAS {routine.method} (libcublas {lib.library_version()}, ctypes)"
    return pick


@dataclass
class Row:
    """What only one routine needs beside its declaration: semantics, grids, build/reference, cost, gate.

    ``build`` defaults to :func:`build_call` (with ``fill``); ``reference(p, ref)`` receives a
    :class:`Ref` and records outputs with :meth:`Ref.out` (or, as ``raw_reference(p, call)``, returns the
    Expected list itself)."""

    routine: Routine
    category: str
    semantics: str
    grids: dict[str, list[dict[str, Any]]]
    cost: Callable[[dict[str, Any]], Cost]
    timed: Callable[[dict[str, Any]], bool]
    reference: Callable[[dict[str, Any], Ref], None] | None = None
    raw_reference: Callable[[dict[str, Any], Call], list[Expected]] | None = None
    build: Callable[..., Call] | None = None
    #: the routine's work is moving elements (copy, swap): ATen copies along a non-trivial element mapping are
    #: refused as they are for the vLLM cache ops (:attr:`~kernelgenbench.suite.spec.Operator.data_movement`)
    data_movement: bool = False
    fill: Callable[[dict[str, Any], Any], Callable[[str, torch.Tensor], None]] | None = None
    atol_text: str | None = None
    notes: str = ""
    args_doc: dict[str, str] = field(default_factory=dict)


#: Rows of storage each matrix of the padded smoke case gets beyond its stored rows (:func:`padded_smoke`).
SMOKE_PAD = 3


def padded_smoke(row: Row) -> dict[str, list[dict[str, Any]]]:
    """``row.grids`` with, where the smoke tier has no case with a leading dimension larger than the stored rows, one
    more: the largest smoke case that can tell (alpha != 0, m and n >= 2, no NaN rule), with every derived leading
    dimension ``SMOKE_PAD`` rows more than its matrix's (``pad``, :func:`build_call`) and the padding of outputs
    filled with the poison that must survive (``poison``). Smoke is ``kgb eval``'s default tier: a kernel that reads
    ``m`` where it must read ``lda`` passed it and failed only on a held-out case (fresh user 28, cublasSger_v2; 38
    of the 50 routines had no padded smoke case). For rows with a matrix argument (``mat``, or a pointer array of
    matrices); a row's own ``build`` must honour ``pad`` as :func:`build_call` does (tests/test_smoke_coverage.py
    builds every such case and checks its leading dimensions)."""
    r = row.routine
    grids = dict(row.grids)
    smoke = list(grids.get("smoke") or [])
    mats = [a for a in r.args if a.role == "mat" or (a.role == "ptrs" and a.kind == "mat")]
    steps = {a.step for a in mats}
    if not mats or any("pad" in p or steps & set(p) for p in smoke):
        return grids

    def tells(p: dict[str, Any]) -> bool:
        return (complex(p.get("alpha", 1)) != 0 and all(not isinstance(p.get(k), int) or p[k] >= 2
                                                       for k in ("m", "n"))
                and "nan" not in p)  # not the quick-return cases (operands NaN)

    size = [p for p in smoke if tells(p)]
    if not size:
        return grids
    base = max(size, key=lambda p: int(p.get("m", p.get("n", 1))) * int(p.get("n", 1)) * int(p.get("k", 1)))
    grids["smoke"] = smoke + [{**base, "pad": SMOKE_PAD, "poison": True}]
    return grids


def routine_operator(row: Row):
    """The :class:`~kernelgenbench.suite.function.FunctionOperator` of a row: interface, baseline and dtypes
    from the declaration, the rest from the row."""
    r = row.routine

    def build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
        if row.build is not None:
            return row.build(p, device, gen)
        return build_call(r, p, device, gen, fill=row.fill(p, gen) if row.fill else None)

    def reference(p: dict[str, Any], call: Call) -> list[Expected]:
        if row.raw_reference is not None:
            return row.raw_reference(p, call)
        ref = Ref(r, call)
        row.reference(p, ref)
        return ref.expected()

    dtypes = {r.dtype} | ({torch.float64} if r.dtype == torch.complex128 else set())
    return FunctionOperator(
        r.name, source="cublas", category=row.category, section=f"cublas.md § cublas::{r.name}",
        semantics=row.semantics, interface=r.interface(row.args_doc), grids=padded_smoke(row), build=build,
        reference=reference, cost=row.cost, timed=row.timed, baseline=baseline_of(r),
        dtypes=lambda p: set(dtypes), atol_text=row.atol_text, notes=row.notes,
        data_movement=row.data_movement)


