"""Operators whose submission is one Python function with a fixed signature (vLLM, cuBLAS).

The candidate is called directly with the case's arguments (``sandbox/drive.py``, in the child); written
arguments are outputs that already exist and must be filled in place (vllm.md §2.1, cublas.md §2.1).
"""
from __future__ import annotations

from typing import Any, Callable

import torch

from .spec import Call, Cost, Expected, Interface, Operator


class FunctionOperator(Operator):
    """A vLLM or cuBLAS task (a row).

    Args:
        name: the function / routine name.
        source: ``"vllm"`` or ``"cublas"``.
        interface: the exact signature.
        grids: case parameters per tier.
        build: ``build(params, device, gen) -> Call``.
        reference: ``reference(params, call) -> list[Expected]`` on a clone of the inputs.
        cost: FLOPs/bytes of a case.
        timed: the spec's timing gate.
        baseline: ``baseline(call, platform) -> (fn, label)`` (runs in the child); a hook with a ``kinds``
            attribute (vLLM: ``vllm``, ``native-compiled``, ``native-eager``) also takes ``prefer=kind``.
        dtypes: ``dtypes(params) -> set[torch.dtype]`` the case computes in.
        atol_text: the row's atol in words where the spec fixes its reduce_dim (``kgb show``).
        label: ``label() -> str``, the :meth:`baseline_label` where it is not the source's default (vLLM:
            whether ``vllm._custom_ops`` is importable).
        data_movement: the task's work is moving elements (gathers, block copies, cache writes):
            :attr:`Operator.data_movement`.
        packed_args: parameters holding an encoded layout (:attr:`Operator.packed_args`).
    """

    def __init__(self, name: str, *, source: str, category: str, section: str, semantics: str,
                 interface: Interface, grids: dict[str, list[dict[str, Any]]],
                 build: Callable[..., Call], reference: Callable[[dict[str, Any], Call], list[Expected]],
                 cost: Callable[[dict[str, Any]], Cost], timed: Callable[[dict[str, Any]], bool],
                 baseline: Callable[[Call, Any], tuple[Callable[[Call], Any], str]],
                 dtypes: Callable[[dict[str, Any]], set[torch.dtype]] | None = None,
                 own_ops: frozenset[str] = frozenset(), notes: str = "", atol_text: str | None = None,
                 label: Callable[[], str] | None = None, data_movement: bool = False,
                 packed_args: frozenset[str] | set[str] = frozenset()) -> None:
        super().__init__(name, category=category, section=section, semantics=semantics, interface=interface,
                         notes=notes)
        self.source = source  # type: ignore[misc]
        self._grids = grids
        self._build = build
        self._reference = reference
        self._cost = cost
        self._timed = timed
        self._baseline = baseline
        self._dtypes = dtypes
        self.own_ops = own_ops
        self.allow_copies = True
        self.atol_text = atol_text
        self._label = label
        self.data_movement = data_movement
        unknown = set(packed_args) - set(interface.params)
        if unknown:
            raise ValueError(f"{source}::{name}: packed_args {sorted(unknown)} are not parameters of the interface")
        self.packed_args = frozenset(packed_args)

    def grid(self, tier: str) -> list[dict[str, Any]]:
        return list(self._grids.get(tier, []))

    def timed(self, params: dict[str, Any]) -> bool:
        return self._timed(params)

    def build(self, params: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
        return self._build(params, device, gen)

    def reference(self, params: dict[str, Any], call: Call) -> list[Expected]:
        return self._reference(params, call)

    def cost(self, params: dict[str, Any]) -> Cost:
        return self._cost(params)

    def tensor_dtypes(self, params: dict[str, Any]) -> set[torch.dtype]:
        if self._dtypes is not None:
            return self._dtypes(params)
        return super().tensor_dtypes(params)

    @property
    def baseline_kinds(self) -> tuple[str, ...]:
        """The baselines ``kgb eval --baseline`` can force for this operator (empty: only its own)."""
        return tuple(getattr(self._baseline, "kinds", ()))

    @property
    def baseline_description(self) -> str | None:
        """What GPU timing compares this operator against, in words, where it has a choice of baselines
        (``kgb show``); None otherwise."""
        describe = getattr(self._baseline, "describe", None)
        return describe() if describe is not None else None

    def baseline(self, call: Call, platform: Any, prefer: str | None = None) -> tuple[Callable[[Call], Any], str]:
        """``(fn, label)`` of the baseline; ``prefer`` forces one of :attr:`baseline_kinds`.

        Raises:
            ValueError: ``prefer`` is given but is not one of this operator's kinds.
        """
        if prefer is None:
            return self._baseline(call, platform)
        if prefer not in self.baseline_kinds:
            choices = ("choose one of " + ", ".join(self.baseline_kinds) if self.baseline_kinds
                       else "it has only its own")
            raise ValueError(f"{self.id}: baseline {prefer!r} cannot be forced; "
                             f"{choices}")
        return self._baseline(call, platform, prefer=prefer)

    def baseline_label(self) -> str:
        if self._label is not None:
            return self._label()
        return super().baseline_label()
