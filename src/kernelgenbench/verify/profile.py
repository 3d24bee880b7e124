"""L3: the dispatch-level trace and kernel-list checks (DESIGN.md "L3").

The sandbox child records every ATen op the candidate's Python code ran (Triton's own launcher work
inside a launch excluded), the Triton launches, and on CUDA the profiler's device kernel list for
one case. These functions judge that evidence in the trusted verifier.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

#: ATen ops a candidate may run outside Triton kernels: allocation and initialisation, views and
#: metadata, and same-dtype copies (DESIGN.md "Allowed: allocation, views, metadata, .contiguous()").
ALLOC = {"empty", "empty_strided", "empty_like", "new_empty", "new_empty_strided", "zeros", "zeros_like",
         "ones", "ones_like", "full", "full_like", "new_zeros", "new_ones", "new_full", "fill_", "zero_",
         "resize_", "arange", "set_"}
VIEWS = {"view", "_unsafe_view", "as_strided", "t", "transpose", "permute", "expand", "unsqueeze", "squeeze",
         "select", "slice", "narrow", "split", "split_with_sizes", "unbind", "alias", "detach", "view_as_real",
         "view_as_complex", "_reshape_alias", "reshape", "unfold", "chunk", "flatten", "unflatten", "movedim",
         "expand_as", "view_as", "_conj", "_neg_view", "diagonal", "swapaxes", "squeeze_", "unsqueeze_",
         "as_strided_", "resolve_conj", "resolve_neg", "broadcast_tensors", "atleast_1d", "atleast_2d", "atleast_3d"}
META = {"sym_size", "sym_stride", "sym_numel", "sym_storage_offset", "_local_scalar_dense", "item", "is_contiguous",
        "is_same_size", "size", "stride", "result_type", "can_cast", "promote_types", "is_nonzero", "dim",
        "numel", "is_floating_point", "is_complex", "is_signed", "element_size", "storage_offset"}
COPIES = {"clone", "contiguous", "copy_", "_to_copy", "_copy_from", "_copy_from_and_resize"}
#: Ops that turn host Python data into a tensor (``torch.tensor``, ``torch.as_tensor``, a Python number
#: assigned into a tensor): allowed, their elements budgeted (``aten::host_data``, HOST_DATA_BUDGET).
HOST_DATA = {"lift_fresh", "lift_fresh_copy", "lift"}

# Marks the sandbox puts on the trace key of an allowed op (``"aten::copy_ (dtype conversion)"``,
# ``sandbox/provenance.py`` ``op_marks``), for what the op did beyond allocating, viewing, moving or reading.
MARK_CONVERSION = "dtype conversion"
MARK_NEG = "materialises a negative bit"
MARK_CONJ = "materialises a conjugate bit"
MARK_VALUES = "computes values"
MARK_BYTES = "reinterprets bytes"
MARK_MAPPING = "non-trivial mapping"
MARK_PARTIAL_FILL = "partial fill"
MARK_UNPACK = "unpacks a packed input"
#: Marks of ops that compute or convert: a dtype change (a copy, a fill from a tensor or a host read of
#: another dtype), a negation or conjugation (a copy or fill across a negative/conjugate bit:
#: ``resolve_neg``, ``clone`` of ``_neg_view``), values an ``arange`` computes (floating, non-integral),
#: a copy that cuts elements apart through a dtype view (byte extraction, truncation), and a copy or fill
#: that rearranges or reinterprets the bytes of a packed input (``Operator.packed_args``: GPTQ/AWQ words,
#: Marlin tiles, GGUF blocks, reordered scales; decoding that layout is the operator's work, so only a
#: copy of it exactly as given may run in ATen, while dtype views handed to a Triton kernel stay legal).
#: They fail every operator.
COMPUTE_MARKS = frozenset({MARK_CONVERSION, MARK_NEG, MARK_CONJ, MARK_VALUES, MARK_BYTES, MARK_UNPACK})
#: Marks of copies and fills that move elements along a mapping of the candidate's making: a copy from
#: or into a view the candidate derived (slice, select, transpose, permute, expand, unfold, diagonal,
#: as_strided, slice assignment ``out[...] = x``), a broadcasting copy, a copy into another memory format,
#: a fill of part of a tensor. They fail operators whose work is data movement (``Operator.data_movement``).
MOVE_MARKS = frozenset({MARK_MAPPING, MARK_PARTIAL_FILL})


#: Per candidate call, at most this many tensor values read on the host (``.item()``, ``bool(t)``,
#: and the elements behind ``tolist``/``str``/``repr``/``format``/``numpy``, recorded by the child
#: as ``host_read``; a read through a dtype view wider than the data's counts the elements its bytes carry,
#: ``host_read_widened``) and this many
#: fills/copies. Allowed ops used element by element are host computation in disguise (read with
#: ``.item()``, compute in Python, write with ``fill_``); real wrappers read a few scalar arguments
#: and initialise a few buffers.
ITEM_BUDGET = 16
FILL_COPY_BUDGET = 64
#: Per candidate call at most this many units of tensor data built from host Python data (``torch.tensor``,
#: ``torch.as_tensor``: ``aten::host_data``; a unit is an element, or 4 bytes where an element is wider:
#: ``sandbox/provenance.py`` host_data_units), and for the submission's import at most
#: IMPORT_HOST_DATA_BUDGET. Fill values and small tables of launch settings fit (Marlin's two scale permutations,
#: 96 int32 entries, at import); a table of answers does not: every result of a 16-bit dtype (65536), nor any
#: 8-bit input domain's 256 results wider than a byte (fp16 answers for E4M3 codes: 128 units).
HOST_DATA_BUDGET = 64
IMPORT_HOST_DATA_BUDGET = 96
#: Per case, at most this many random values drawn with PyTorch (``aten::random_draw``,
#: counted by the child), where an operator's ``allow_trace`` admits a draw at all (random
#: operators may draw a seed with ``torch.randint``; their samples must come from a Triton kernel).
RANDOM_DRAW_BUDGET = 16
#: ``host_read_widened``: the units a read carries beyond its elements (``CallEvidence.read_units``: the bytes of
#: an ``.item()`` of a complex128 view of fp32 data are four fp32 values, and count four).
_ITEM_OPS = {"_local_scalar_dense", "item", "is_nonzero", "host_read", "host_read_widened"}
_FILL_COPY_OPS = {"fill_", "zero_", "copy_", "clone", "_to_copy", "contiguous", "_copy_from",
                  "_copy_from_and_resize"}


def allowlist(allow_copies: bool = True) -> set[str]:
    """The ATen op names (no namespace, no overload) a candidate may run."""
    return ALLOC | VIEWS | META | HOST_DATA | (COPIES if allow_copies else set())


def _base(key: str) -> str:
    name = key.split("::", 1)[-1].split(" ", 1)[0]
    return name.split(".", 1)[0]


def key_marks(key: str) -> frozenset[str]:
    """The marks of a trace key: ``"aten::copy_ (non-trivial mapping; reinterprets bytes)"`` ->
    ``{"non-trivial mapping", "reinterprets bytes"}``."""
    _, sep, rest = key.partition(" (")
    if not sep or not rest.endswith(")"):
        return frozenset()
    return frozenset(m.strip() for m in rest[:-1].split(";"))


@dataclass
class TraceVerdict:
    """Outcome of the dispatch-trace check of one case.

    Attributes:
        failure: ``None``, ``"profile"`` (ATen compute outside Triton) or ``"dispatch_recursion"``
            (the candidate ran the op it replaces).
        message: what was seen.
        forbidden: the offending ops with their counts.
    """

    failure: str | None
    message: str = ""
    forbidden: dict[str, int] | None = None


def where_in_submission(tv: TraceVerdict, sites: dict[str, str]) -> str:
    """The suffix of an L3 trace verdict's message naming where the submission's file first ran each offending op
    (``sites``: op key -> ``"line N in fn"``, recorded by the child, ``sandbox/dispatch.py`` ``note_site``), e.g.
    ``"; in the submission: aten::mul.Tensor at line 21 in neg"``; empty when none is known."""
    named = [f"{k} at {sites[k]}" for k in sorted(tv.forbidden or {}) if k in sites]
    return f"; in the submission: {', '.join(named)}" if named else ""


def judge_trace(trace: dict[str, int], own_ops: frozenset[str], allow_copies: bool = True,
                allow_extra: frozenset[str] = frozenset(), data_movement: bool = False,
                host_data_budget: int = HOST_DATA_BUDGET) -> TraceVerdict:
    """Judge the ATen ops the candidate ran (one case's calls, a timed call, or the import).

    Args:
        trace: op key (``"aten::add.Tensor"``, ``"aten::copy_ (dtype conversion)"``) -> count; the
            pseudo-ops ``aten::host_read``, ``aten::random_draw`` and ``aten::host_data`` count elements.
        own_ops: names of the op under test (calling them is dispatch recursion).
        allow_copies: same-dtype copies are allowed.
        allow_extra: names allowed for this op beyond :func:`allowlist` (its nothing-to-compute
            kind's ``trace``: ``host_read`` for scalar reads, whose result is a host read); the
            budgets still apply.
        data_movement: the operator's work is data movement (``Operator.data_movement``): copies and
            fills marked with :data:`MOVE_MARKS` (a mapping of the candidate's making) are its work done
            by ATen and fail.
        host_data_budget: the host-data budget (:data:`HOST_DATA_BUDGET` for a call,
            :data:`IMPORT_HOST_DATA_BUDGET` for the import).

    Returns:
        The verdict; its message names the offending keys and the rule they break. Order: dispatch
        recursion, ops outside the allowlist, allowed ops that computed or converted
        (:data:`COMPUTE_MARKS`), moves of a data-movement operator (:data:`MOVE_MARKS`), budgets.
    """
    allowed = (allowlist(allow_copies) | set(allow_extra) | {"host_data", "host_read_widened"}) - set(own_ops)
    forbidden: dict[str, int] = {}
    converted: dict[str, int] = {}
    moved: dict[str, int] = {}
    recursion: dict[str, int] = {}
    for key, n in trace.items():
        base = _base(key)
        marks = key_marks(key)
        if base in own_ops or base.rstrip("_") in own_ops:
            recursion[key] = n
        elif base not in allowed:
            forbidden[key] = n
        elif marks & COMPUTE_MARKS:
            converted[key] = n
        elif data_movement and marks & MOVE_MARKS:
            moved[key] = n

    def listed(d: dict[str, int]) -> str:
        return ", ".join(f"{k} x{v}" for k, v in sorted(d.items()))

    if recursion:
        return TraceVerdict("dispatch_recursion", f"the candidate ran the op it replaces through PyTorch "
                                                  f"({listed(recursion)})", recursion)
    if forbidden:
        return TraceVerdict("profile", f"the candidate computed with PyTorch outside Triton kernels "
                                       f"({listed(forbidden)}); "
                                       f"only allocation, views, metadata and same-dtype copies are allowed", forbidden)
    if converted:
        return TraceVerdict("profile", f"allowed ATen ops computed or converted values outside Triton kernels "
                                       f"({listed(converted)}); a copy or fill may not change a dtype, resolve a "
                                       f"negative or conjugate view, cut elements apart through a dtype view, or "
                                       f"rearrange or reinterpret the bytes of a packed input (a packed layout "
                                       f"is decoded by Triton kernels; only a copy of it exactly as given may run "
                                       f"in ATen), and arange may build only integer sequences", converted)
    if moved:
        return TraceVerdict("profile", f"ATen copies or fills did this data-movement operator's work "
                                       f"({listed(moved)}): "
                                       f"for an operator whose work is moving elements, a copy may only take a call "
                                       f"tensor exactly as given (or a reshape of it) or a whole fresh buffer of the "
                                       f"call on each side, in the same shape; a copy from or into a view the "
                                       f"wrapper derived (slice, select, transpose, permute, expand, unfold, "
                                       f"diagonal, as_strided, slice assignment out[...] = x), a broadcasting copy, "
                                       f"and a fill of part of a tensor move elements as the operator does, which "
                                       f"is the Triton kernel's job", moved)
    items = sum(n for k, n in trace.items() if _base(k) in _ITEM_OPS)
    fills = sum(n for k, n in trace.items() if _base(k) in _FILL_COPY_OPS)
    draws = sum(n for k, n in trace.items() if _base(k) == "random_draw")
    host_data = sum(n for k, n in trace.items() if _base(k) == "host_data")
    if host_data > host_data_budget:
        return TraceVerdict("profile", f"the candidate built {host_data} units of tensor data from host Python data "
                                       f"(an element, or 4 bytes of a wider one) "
                                       f"(torch.tensor, torch.as_tensor, assignments of Python numbers; also the "
                                       f"scalars handed to Triton launches that receive none of the call's tensors, "
                                       f"and at import those of every launch) in one call "
                                       f"(budget {host_data_budget}): fill values and small tables of launch "
                                       f"settings fit; a table of results computed on the host does not")
    if draws > RANDOM_DRAW_BUDGET:
        return TraceVerdict("profile", f"the candidate drew {draws} random values with PyTorch in one case (budget "
                                       f"{RANDOM_DRAW_BUDGET}: a seed may be drawn with PyTorch, the samples must "
                                       f"come from a Triton kernel)")
    if items > ITEM_BUDGET or fills > FILL_COPY_BUDGET:
        return TraceVerdict("profile", f"the candidate read {items} tensor values on the host (a read through a "
                                       f"wider dtype view counted by the elements of the data its bytes carry) "
                                       f"and ran {fills} "
                                       f"fills/copies in one call (budgets {ITEM_BUDGET} and {FILL_COPY_BUDGET}): "
                                       f"element-wise host computation through allowed ops is not a Triton kernel")
    return TraceVerdict(None)


#: Device kernels that mean vendor or ATen compute ran (cuBLAS, cuDNN, CUTLASS, ATen native).
VENDOR_KERNEL = re.compile(r"(cublas|cudnn|cutlass|gemm|gemv|sm\d+_xmma|ampere_|hopper_|volta_|nvjet|"
                           r"at::native::|void at::|cub::|thrust::|reduce_kernel|softmax|elementwise_kernel)",
                           re.IGNORECASE)
#: ATen kernels that only allocate-initialise or copy (allowed where the trace allowed them).
ALLOWED_NATIVE = re.compile(r"(FillFunctor|fill_kernel|copy_kernel|direct_copy|Memset|Memcpy|memset|memcpy|"
                            r"CatArrayBatchedCopy)", re.IGNORECASE)


def judge_kernels(kernels: list[str], launches: list[str]) -> TraceVerdict:
    """Judge the CUDA profiler's kernel list of one candidate call.

    Every launched Triton kernel must appear in the list, and no vendor or ATen compute kernel may.
    """
    vendor = [k for k in kernels if VENDOR_KERNEL.search(k) and not ALLOWED_NATIVE.search(k)
              and not any(k == ln or k.startswith(ln) for ln in launches)]
    if vendor:
        return TraceVerdict("profile", f"vendor/ATen compute kernels ran during the candidate call: "
                                       f"{', '.join(sorted(set(vendor))[:5])}")
    missing = sorted({ln for ln in launches if not any(k == ln or k.startswith(ln) for k in kernels)})
    if missing:
        return TraceVerdict("profile", f"Triton launches recorded by the hooks did not appear in the CUDA kernel "
                                       f"list: {', '.join(missing[:5])}")
    return TraceVerdict(None)
