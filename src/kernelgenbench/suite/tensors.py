"""The poison patterns: what is written into memory a case hands the candidate to write, and into every
tensor the candidate allocates, so that an element nobody wrote is visible (DESIGN.md "Correctness per
case"; aten.md §3).

A property of the spec's inputs: builders (``suite/``) poison the outputs and written arguments of the
calls they build, the sandbox child poisons the candidate's allocations with the same patterns
(``sandbox/dispatch.py``), and the comparison (:mod:`.compare`) and the verifier recognise them.

Also the whole-storage helpers of the spec's tensors (:func:`clone_tree`, :func:`storage_view`,
:func:`region_mask`): written arguments are compared storage and all.
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any

import torch

#: Bit patterns written into outputs before the candidate runs: quiet NaNs with a payload no
#: arithmetic produces (a computed NaN is canonical), and sentinels for integers and bools.
POISON_BITS: dict[torch.dtype, tuple[torch.dtype, int]] = {
    torch.float64: (torch.int64, 0x7FF8DEADBEEF0BAD),
    torch.float32: (torch.int32, 0x7FC0DEAD),
    torch.float16: (torch.int16, 0x7E5B),
    torch.bfloat16: (torch.int16, 0x7FDB),
    torch.complex64: (torch.int32, 0x7FC0DEAD),
    torch.complex128: (torch.int64, 0x7FF8DEADBEEF0BAD),
}
INT_POISON = {torch.int8: -77, torch.uint8: 0xA5, torch.int16: -30001, torch.int32: -1234567891,
              torch.int64: -0x5EEDBADC0FFEE, torch.bool: True}


#: The second pattern, used by L2 ghost replay and by the alternate-poison re-run of a passed case
#: (run/job.py): an output the reference fills with exactly the first pattern (an all-True bool
#: result, say) must not look like a result nobody wrote, and an element that equals the first
#: pattern must be shown to be written by a run under the second. It differs from the first for
#: every dtype whose first pattern a result can equal (integers and bools here; other dtypes
#: without a NaN payload get the bytes :data:`FALLBACK_BYTE` / :data:`FALLBACK_BYTE_ALT`).
INT_POISON_ALT = {torch.int8: 55, torch.uint8: 0x5A, torch.int16: 29999, torch.int32: 1234567891,
                  torch.int64: 0x5EEDBADC0FFEE, torch.bool: False}
#: The byte written into every byte of an element of any other dtype (unsigned 16/32/64-bit
#: integers, float8), and its alternate.
FALLBACK_BYTE, FALLBACK_BYTE_ALT = 0xA5, 0x5A

_VARIANT = threading.local()


@contextlib.contextmanager
def poison_variant(alt: bool):
    """Within the block (this thread), :func:`poison_` writes the alternate pattern when ``alt``."""
    old = getattr(_VARIANT, "alt", False)
    _VARIANT.alt = alt
    try:
        yield
    finally:
        _VARIANT.alt = old


def poison_(t: torch.Tensor) -> torch.Tensor:
    """Fill the elements ``t`` addresses with the poison pattern of its dtype, in place (the
    alternate pattern inside :func:`poison_variant` for integers and bools; floats always get the
    payload NaN, which no arithmetic produces)."""
    if t.numel() == 0:
        return t
    alt = getattr(_VARIANT, "alt", False)
    if alt and t.dtype in INT_POISON_ALT:
        t.fill_(INT_POISON_ALT[t.dtype])
        return t
    if t.dtype in POISON_BITS:
        idt, bits = POISON_BITS[t.dtype]
        if bits >= 2 ** (8 * torch.empty(0, dtype=idt).element_size() - 1):
            bits -= 2 ** (8 * torch.empty(0, dtype=idt).element_size())
        # complex: through the (real, imag) view, which any layout has (0-d and strided ones included)
        (torch.view_as_real(t) if t.is_complex() and not t.is_conj() else t).view(idt).fill_(bits)
    elif t.dtype in INT_POISON:
        t.fill_(INT_POISON[t.dtype])
    else:
        t.view(torch.uint8).fill_(FALLBACK_BYTE_ALT if alt else FALLBACK_BYTE)
    return t


def is_poison(t: torch.Tensor) -> torch.Tensor:
    """Elementwise: does ``t`` still hold the poison bit pattern of its dtype (floats and complex
    only; a complex element counts when either part holds the payload NaN, which no arithmetic
    produces)? Shaped like ``t``; all False for other dtypes."""
    if t.dtype not in POISON_BITS:
        return torch.zeros(t.shape, dtype=torch.bool, device=t.device)
    idt, bits = POISON_BITS[t.dtype]
    size = torch.empty(0, dtype=idt).element_size()
    if bits >= 2 ** (8 * size - 1):
        bits -= 2 ** (8 * size)
    if t.is_complex():
        return (torch.view_as_real(t.resolve_conj()).contiguous().view(idt) == bits).any(-1)
    return t.contiguous().view(idt) == bits


def poison_is_ambiguous(dtype: torch.dtype) -> bool:
    """Whether a computed result can equal the (main) poison pattern of ``dtype``: true for
    integers, bools and every other dtype without a payload NaN, whose unwritten elements only an
    alternate-poison run can tell from written ones (see :func:`holds_poison`)."""
    return dtype not in POISON_BITS


def holds_poison(t: torch.Tensor, alt: bool = False) -> torch.Tensor:
    """Elementwise (shaped like ``t``): does the element equal the poison pattern of its dtype that
    :func:`poison_` writes (inside ``poison_variant(alt)``)? Floats and complex: the payload NaN
    (:func:`is_poison`, the same for both variants); integers and bools: the sentinel; any other
    dtype: every byte equal to the fallback byte."""
    if t.dtype in POISON_BITS:
        return is_poison(t)
    table = INT_POISON_ALT if alt else INT_POISON
    if t.dtype in table:
        return t == table[t.dtype]
    size = t.element_size()
    raw = t.contiguous().view(torch.uint8).reshape(*t.shape, size)
    return (raw == (FALLBACK_BYTE_ALT if alt else FALLBACK_BYTE)).all(-1)


def clone_tree(obj: Any) -> Any:
    """Clone every tensor in a nested list/tuple/dict, preserving views on whole storages.

    Tensors that share one storage in ``obj`` still share one (cloned) storage in the result,
    with the same sizes, strides and storage offsets. Makes no reference cycle: the sandbox child collects cycles
    only between commands (sandbox/collector.py), and a recursive closure over the memo of cloned storages kept
    every clone alive until then: a timing warm-up clones its inputs on every call (a 200 ms warm-up of
    vllm::rms_norm's 5333x8192 fp16 case ran out of memory on an H100 at 9530296 with 69 GiB allocated; this was the
    one per-call cycle holding tensors that a CPU run's collections found).
    """
    return _clone_rec(obj, {})


def _storage_clone(t: torch.Tensor, memo: dict[Any, torch.Tensor]) -> torch.Tensor:
    """``t`` over a clone of its whole storage (one clone per storage: ``memo``, keyed by data pointer)."""
    st = t.untyped_storage()
    # every empty storage reports data pointer 0: key those by tensor, or distinct empty tensors (an empty
    # input and an empty out= to resize) would come back sharing one storage
    key = st.data_ptr() if st.nbytes() else ("empty", id(t))
    if key not in memo:
        flat = torch.empty(0, dtype=torch.uint8, device=t.device)
        flat.set_(st.clone())
        memo[key] = flat
    base = memo[key]
    out = torch.empty(0, dtype=t.dtype, device=t.device)
    out.set_(base.untyped_storage(), t.storage_offset(), t.size(), t.stride())
    # keep the lazy conjugate/negative bits (resolve_conj/resolve_neg inputs): same memory, same meaning
    if t.is_conj():
        out = out._conj()
    if t.is_neg():
        out = out._neg_view()
    return out


def _clone_rec(o: Any, memo: dict[Any, torch.Tensor]) -> Any:
    if isinstance(o, torch.Tensor):
        return _storage_clone(o, memo)
    if isinstance(o, list):
        return [_clone_rec(x, memo) for x in o]
    if isinstance(o, tuple):
        return tuple(_clone_rec(x, memo) for x in o)
    if isinstance(o, dict):
        return {k: _clone_rec(v, memo) for k, v in o.items()}
    return o


def storage_view(t: torch.Tensor) -> torch.Tensor:
    """A flat tensor of ``t``'s dtype over the whole of ``t``'s storage (from element 0)."""
    n = t.untyped_storage().nbytes() // t.element_size()
    out = torch.empty(0, dtype=t.dtype, device=t.device)
    out.set_(t.untyped_storage(), 0, (n,), (1,))
    return out


def region_mask(t: torch.Tensor) -> torch.Tensor:
    """A flat bool mask over ``t``'s storage marking the elements the view ``t`` addresses."""
    n = t.untyped_storage().nbytes() // t.element_size()
    mask = torch.zeros(n, dtype=torch.bool, device=t.device)
    if t.numel():
        mask.as_strided(t.size(), t.stride(), t.storage_offset()).fill_(True)
    return mask
