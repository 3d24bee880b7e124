"""Per-case correctness: compare candidate outputs with trusted references (DESIGN.md
"Correctness per case" and "Tolerance"; aten.md §3).

Every check here runs in the trusted verifier, on tensors the sandbox child sent back. The comparison a
tolerance means and the result of a judged slot are the spec's (``suite/compare.py``, which custom judges
use too), the poison patterns a property of the spec's inputs (``suite/tensors.py``); both are re-exported
here as the verifier's vocabulary. This module adds the rule of operators with nothing to compute.
"""
from __future__ import annotations

import math
from typing import Any

import torch

from ..suite.compare import SlotResult, compare_slot, compare_values, same_storage, unchanged
from ..suite.spec import Expected
from ..suite.tensors import (
    FALLBACK_BYTE,
    FALLBACK_BYTE_ALT,
    INT_POISON,
    INT_POISON_ALT,
    POISON_BITS,
    holds_poison,
    is_poison,
    poison_,
    poison_is_ambiguous,
    poison_variant,
)

__all__ = ["FALLBACK_BYTE", "FALLBACK_BYTE_ALT", "INT_POISON", "INT_POISON_ALT", "POISON_BITS", "SlotResult",
           "compare_nothing_to_compute", "compare_slot", "compare_values", "holds_poison", "is_poison", "poison_",
           "poison_is_ambiguous", "poison_variant", "same_storage", "unchanged"]


def _scalar_equal(a: Any, b: Any) -> bool:
    if isinstance(b, float):
        if math.isnan(b):
            return math.isnan(a)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(b, complex):
        return _scalar_equal(a.real, b.real) and _scalar_equal(a.imag, b.imag)
    return a == b


def compare_nothing_to_compute(exp: Expected, actual: Any, *, alias_target: Any = None,
                               inputs: tuple[Any, ...] = (), device_type: str | None = None) -> SlotResult:
    """Judge one result slot of an operator with nothing to compute (the rule of
    :class:`~kernelgenbench.suite.spec.NothingToCompute`; ``exp.rule`` names its kind).

    Args:
        exp: the expectation (``alias_of``, ``layout``, ``check_values``, ``fresh``,
            ``check_device``, ``py_scalar`` say which checks apply).
        actual: what the candidate produced for the slot (loaded from the sandbox).
        alias_target: the tensor of ``exp.alias_of`` after the call.
        inputs: every tensor argument after the call (for ``fresh``).
        device_type: the device type the sandbox reported for the result (None when unknown).
    """
    what = f"{exp.slot} ({exp.rule})"
    if exp.py_scalar:
        want = exp.value.item()
        if isinstance(actual, torch.Tensor) or type(actual) is not type(want):
            got = f"a tensor ({actual.dtype})" if isinstance(actual, torch.Tensor) else type(actual).__name__
            return SlotResult(False, f"{what}: must be a Python {type(want).__name__} (as PyTorch returns for this "
                                     f"dtype), got {got}", rule="exact value and Python type")
        if not _scalar_equal(actual, want):
            return SlotResult(False, f"{what}: got {actual!r}, expected {want!r} (exact)",
                              rule="exact value and Python type")
        return SlotResult(True, rule="exact value and Python type")
    ref = exp.value
    if not isinstance(actual, torch.Tensor):
        return SlotResult(False, f"{what}: expected a tensor, got {type(actual).__name__}")
    if exp.check_dtype and actual.dtype != ref.dtype:
        return SlotResult(False, f"{what}: dtype {actual.dtype} != expected {ref.dtype}")
    if exp.check_device and device_type is not None and device_type != ref.device.type:
        return SlotResult(False, f"{what}: the result is on device {device_type!r}, expected {ref.device.type!r}")
    if exp.layout:
        got = (tuple(actual.shape), actual.stride(), actual.storage_offset())
        want = (tuple(ref.shape), ref.stride(), ref.storage_offset())
        if got != want:
            names = ("sizes", "strides", "storage_offset")
            diff = "; ".join(f"{n} {g} != expected {w}" for n, g, w in zip(names, got, want) if g != w)
            return SlotResult(False, f"{what}: {diff} (the result must have exactly PyTorch's sizes, strides and "
                                     f"storage offset)")
        if actual.numel():
            last = actual.storage_offset() + sum((n - 1) * st for n, st in zip(actual.shape, actual.stride()))
            if (last + 1) * actual.element_size() > actual.untyped_storage().nbytes():
                return SlotResult(False, f"{what}: the storage ({actual.untyped_storage().nbytes()} bytes) does not "
                                         f"cover the elements the result addresses")
    # An input with an empty storage has no memory a view could share (and torch.load does not keep
    # empty storages shared), so aliasing is checked where the input's storage has bytes.
    empty_input = isinstance(alias_target, torch.Tensor) and alias_target.untyped_storage().nbytes() == 0
    if exp.alias_of is not None and not empty_input and not same_storage(actual, alias_target):
        return SlotResult(False, f"{what}: not a view: the result must share the storage of {exp.alias_of} "
                                 f"(aliasing), but it has storage of its own (a copy, however right its values, "
                                 f"is not a view)")
    if exp.fresh and any(same_storage(actual, t) for t in inputs):
        return SlotResult(False, f"{what}: the result shares the storage of an argument; it must be a new tensor")
    if exp.check_values:
        res = compare_values(actual, ref, exp.tol, 1.0, what)
        if not res.ok:
            return res
        return SlotResult(True, "", res.max_abs, res.max_rel, res.rule)
    return SlotResult(True, rule="metadata only (contents unspecified)")
