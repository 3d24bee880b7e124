"""The sandbox's dispatch trace and memory provenance (sandbox/dispatch.py CandidateMode,
sandbox/provenance.py CallEvidence) and how the verifier judges them (verify/profile.py judge_trace,
verify/ghost.py L2 helpers).

* the trace is the same on every call path: a wrapper entered inside another mode's handler (the
  interpreter's InterceptMode), called at the top level, or registered at a dispatch key (the GPU path,
  emulated with a CPU kernel of a test op) sees the same keys (composite ops decomposed);
* copies and fills are marked where they compute or convert (every operator fails) and where they move
  elements along a mapping of the candidate's making (data-movement operators fail);
* copies and fills of packed inputs (Operator.packed_args), or of copies of them, that rearrange or reinterpret
  their bytes are marked as unpacking (every operator fails); copies as given and dtype views are not;
* tensor data built from host Python is counted; a returned output must live in storage of its call;
* a ghost replay whose right result is made of Triton-derived host reads is not counted as passed.
"""
from __future__ import annotations

from typing import Any, Callable

import torch

from kernelgenbench.sandbox.dispatch import InterceptMode, trace_import, traced
from kernelgenbench.sandbox.provenance import CallEvidence, _note_native, layout_form, splits_elements
from kernelgenbench.sandbox.state import STATE
from kernelgenbench.suite.spec import Expected, Tolerance
from kernelgenbench.verify import profile
from kernelgenbench.verify.ghost import from_triton_reads, triton_read_values
from kernelgenbench.verify.profile import judge_trace, key_marks


def _trace(fn: Callable[..., Any], *args: Any) -> tuple[dict[str, int], Any]:
    """Run ``fn`` as a candidate wrapper called at the top level; its trace and return value."""
    STATE.begin_case(False)
    try:
        ret = traced(fn, "wrapper_under_test")(*args)
    finally:
        STATE.end_case()
    return dict(STATE.trace), ret


# -- layouts and the sides of a copy -------------------------------------------------------------------
def test_layout_form_is_equal_for_reshapes_and_same_layout_dtype_views_only() -> None:
    x = torch.zeros(4, 6)
    assert layout_form(x) == layout_form(x.view(24)) == layout_form(x.view(2, 2, 6)) == layout_form(x.unsqueeze(0))
    assert layout_form(x.t()) != layout_form(x)                 # a transpose enumerates other bytes in order
    assert layout_form(x[1:]) != layout_form(x)                 # a slice: fewer bytes, another offset
    assert layout_form(x[:, ::2]) != layout_form(x)
    assert layout_form(x.expand(2, 4, 6)) != layout_form(x)
    b = torch.zeros(3, 5, dtype=torch.bool)
    assert layout_form(b.view(torch.uint8)) == layout_form(b)  # bools as bytes: the same bytes in order
    c = torch.zeros(3, 4, dtype=torch.complex64).t()           # non-contiguous complex
    assert layout_form(torch.view_as_real(c)) == layout_form(c)
    assert layout_form(torch.zeros(0, 3)) is None
    ptr, offset, dims = layout_form(x[1])
    assert (offset, dims) == (6 * 4, ((24, 1),))


def test_a_side_is_trivial_when_it_is_a_call_tensor_as_given_or_a_whole_fresh_buffer() -> None:
    x = torch.randn(4, 6)
    xt = torch.randn(6, 4).t()                                  # a non-contiguous input, as given
    ev = CallEvidence((x, [xt]), {})
    assert ev.side_ok(x) and ev.side_ok(x.view(24)) and ev.side_ok(xt)
    assert not ev.side_ok(x.t()) and not ev.side_ok(x[1:]) and not ev.side_ok(x.select(0, 0))
    assert not ev.side_ok(xt.t())                               # contiguous bytes, but not the input's order
    fresh = torch.empty(4, 6)
    ev.after_op(torch.ops.aten.empty.memory_format, ((4, 6),), {}, fresh, set(), None)
    assert ev.side_ok(fresh) and ev.side_ok(fresh.view(-1))
    assert not ev.side_ok(fresh.t()) and not ev.side_ok(fresh[:2]) and not ev.side_ok(fresh.narrow(1, 0, 3))
    other = torch.empty(4, 6)                                   # not allocated in the call (a module-level pool)
    assert not ev.side_ok(other)
    assert ev.side_ok(torch.empty(0))                           # nothing moves


def test_splits_elements_only_when_a_dtype_view_cuts_the_storage_elements_apart() -> None:
    x = torch.randn(4, 6)
    _note_native(x)
    halves = x.view(torch.int16)
    assert not splits_elements(halves)                          # whole elements, in pairs
    assert splits_elements(halves[:, 1::2])                     # the high halves: a truncation
    c = torch.randn(3, 4, dtype=torch.complex64)
    _note_native(c)
    assert not splits_elements(torch.view_as_real(c.t()))       # moves whole complex elements


# -- marks on the trace keys ---------------------------------------------------------------------------
def test_copies_are_marked_by_what_they_do() -> None:
    def body(x, out):
        buf = torch.empty(4, 6)
        buf.copy_(x)                                            # fresh whole <- as given: unmarked
        x.contiguous()                                          # contiguous input: no copy at all
        x.t().contiguous()                                      # a transpose materialised
        out.copy_(buf)                                          # out as given <- fresh whole: unmarked
        out[1:].copy_(x[:-1])                                   # slice assignment: both sides derived
        z = torch.zeros(5)
        z[1:] = x[0, :4]                                        # slice assignment out[...] = x
        x.to(torch.float64)                                     # a conversion
        x._neg_view().clone()                                   # resolves a negative bit: a negation
        x._neg_view().resolve_neg()
        buf.view(torch.int16)[:, 1::2].contiguous()             # high halves: bytes cut apart
        out.fill_(torch.tensor(2, dtype=torch.int32))           # a fill from another dtype
        out[0].zero_()                                          # a partial fill
        torch.arange(0, 1, 0.25)                                # computes floating values
        torch.arange(6)                                         # an integer sequence: fine
        return out

    trace, _ = _trace(body, torch.randn(4, 6), torch.empty(4, 6))
    assert trace["aten::copy_"] == 2
    assert trace["aten::clone (non-trivial mapping)"] == 1
    assert trace["aten::copy_ (non-trivial mapping)"] == 2
    assert trace["aten::_to_copy (dtype conversion)"] == 1
    assert trace["aten::clone (materialises a negative bit)"] == 2
    assert trace["aten::clone (non-trivial mapping; reinterprets bytes)"] == 1
    assert trace["aten::fill_.Tensor (dtype conversion)"] == 1
    assert trace["aten::zero_ (partial fill)"] == 1
    assert trace["aten::arange.start_step (computes values)"] == 1
    assert trace["aten::arange"] == 1
    assert trace["aten::host_data"] == 1                        # torch.tensor(2): one element from Python
    assert "aten::contiguous" not in trace and "aten::resolve_neg" not in trace


def test_a_fill_with_the_host_read_of_another_dtype_just_made_is_a_conversion() -> None:
    def body(x):
        a = torch.full((), x[0], dtype=torch.float16)           # full with a tensor: item() then full
        b = torch.full((), x[1].item(), dtype=torch.float32)    # the same dtype: a fill value
        c = torch.full((3,), 0.5)                               # no read before it
        return a, b, c

    trace, _ = _trace(body, torch.randn(4))
    assert trace["aten::full (dtype conversion)"] == 1
    assert trace["aten::full"] == 2


def test_the_trace_budget_counts_tensor_data_built_from_host_python() -> None:
    trace, _ = _trace(lambda x: torch.tensor(list(range(200)), dtype=torch.int16), torch.zeros(1))
    assert trace["aten::host_data"] == 200
    v = judge_trace(trace, frozenset({"neg"}))
    assert v.failure == "profile" and "200 units of tensor data from host Python" in v.message
    small, _ = _trace(lambda x: torch.tensor([1, 2, 4, 8]), torch.zeros(1))
    assert judge_trace(small, frozenset({"neg"})).failure is None


# -- the verdict on marks --------------------------------------------------------------------------------
def test_compute_marks_fail_every_operator_and_move_marks_only_data_movement_ones() -> None:
    moved = {"aten::empty.memory_format": 1, "aten::copy_ (non-trivial mapping)": 1, "aten::slice.Tensor": 1}
    assert judge_trace(moved, frozenset({"mm"})).failure is None
    v = judge_trace(moved, frozenset({"rot90"}), data_movement=True)
    assert v.failure == "profile" and "aten::copy_ (non-trivial mapping) x1" in v.message
    assert "data-movement operator's work" in v.message and "slice assignment" in v.message
    for mark in sorted(profile.COMPUTE_MARKS):
        v = judge_trace({f"aten::clone ({mark})": 1}, frozenset({"mm"}))
        assert v.failure == "profile" and f"aten::clone ({mark})" in v.message, mark
    assert judge_trace({"aten::zero_ (partial fill)": 1}, frozenset({"gather"}),
                       data_movement=True).failure == "profile"
    assert key_marks("aten::copy_ (non-trivial mapping; reinterprets bytes)") == {"non-trivial mapping",
                                                                                  "reinterprets bytes"}
    assert key_marks("aten::copy_") == frozenset()


def test_data_movement_operators_are_flagged_from_the_suite() -> None:
    from kernelgenbench.suite.registry import all_operators

    flagged = {o.name for o in all_operators() if o.data_movement}
    assert {"index_select", "gather", "embedding", "select_backward", "rot90", "im2col", "scatter",
            "index_put_", "reflection_pad1d_backward"} <= flagged
    assert not flagged & {"mm", "neg", "sum", "add", "reshape", "t", "expand", "clone", "_softmax"}


# -- packed inputs (Operator.packed_args): their layout is decoded by Triton, never by ATen copies --------------
def _trace_packed(fn: Callable[..., Any], *args: Any, packed: tuple[tuple[int, str], ...] = ((0, "w"),)) -> dict:
    """The trace of ``fn`` called as a wrapper whose parameters at ``packed`` hold packed data."""
    STATE.begin_case(False)
    try:
        traced(fn, "wrapper_under_test", packed)(*args)
    finally:
        STATE.end_case()
    return dict(STATE.trace)


def _words() -> torch.Tensor:
    return torch.randint(-2 ** 31, 2 ** 31 - 1, (8, 16), dtype=torch.int32)


def test_copies_of_packed_data_as_given_and_dtype_views_stay_unmarked() -> None:
    def body(w, z):
        w.clone()                                               # the words exactly as given
        w.view(torch.uint8).view(torch.int32).clone()           # a view round trip: the same words
        z.t().contiguous()                                      # not packed: only a mapping
        buf = torch.empty(w.numel() * 4, dtype=torch.uint8)     # scratch made as bytes, filled whole as words
        buf.view(torch.int32).view(w.shape).copy_(w)
        w.view(torch.uint8)                                     # a pointer cast (what a kernel would get)
        return buf

    trace = _trace_packed(body, _words(), torch.randn(4, 6))
    assert trace["aten::clone"] == 2 and trace["aten::copy_"] == 1, trace
    assert trace["aten::clone (non-trivial mapping)"] == 1, trace
    assert not any(profile.MARK_UNPACK in key_marks(k) for k in trace), trace


def test_copies_that_rearrange_or_reinterpret_packed_bytes_are_marked_unpacking() -> None:
    def body(w, z):
        w[:, ::2].contiguous()                                  # a slice of the words
        w.view(torch.uint8).view(8, 16, 4).permute(0, 2, 1).contiguous()  # bytes of each word split out
        w.view(torch.uint8).clone()                             # the words as bytes: another element size
        buf = torch.empty(w.numel() * 4, dtype=torch.uint8)     # laundered into a buffer made as bytes ...
        buf.view(torch.int32).view(w.shape).copy_(w)
        buf.view(8, 16, 4).permute(0, 2, 1).contiguous()        # ... its bytes are still packed words
        out = torch.empty((), dtype=torch.int32)
        out.fill_(w[0, 1])                                      # one word picked by a fill
        z.view(torch.uint8).clone()                             # not packed: unmarked
        return out

    trace = _trace_packed(body, _words(), torch.randn(4, 6))
    unpack = {k: n for k, n in trace.items() if profile.MARK_UNPACK in key_marks(k)}
    assert unpack == {"aten::clone (non-trivial mapping; unpacks a packed input)": 2,  # the slice, the laundered bytes
                      "aten::clone (non-trivial mapping; reinterprets bytes; unpacks a packed input)": 1,
                      "aten::clone (unpacks a packed input)": 1,
                      "aten::fill_.Tensor (unpacks a packed input)": 1}, trace
    assert trace["aten::clone"] == 1 and trace["aten::copy_"] == 1, trace
    v = judge_trace(trace, frozenset({"gptq_gemm"}))
    assert v.failure == "profile" and "packed input" in v.message
    plain = _trace_packed(body, _words(), torch.randn(4, 6), packed=())   # the same code, nothing declared packed
    assert not any(profile.MARK_UNPACK in key_marks(k) for k in plain), plain


def test_buffers_a_launch_may_have_copied_packed_data_into_are_packed() -> None:
    """A Triton launch that received packed data beside a fresh integer buffer no larger than it may have copied
    the words there (red team 26, triton_launder fixtures): that buffer's bytes count as packed words, so an ATen
    permute of them unpacks. A wider integer buffer (4-bit values widened to int8: the kernel's own unpacking)
    and floating-point results are the kernel's output and stay unmarked."""
    def body(w, z):
        same = torch.empty(w.numel() * 4, dtype=torch.uint8)    # as many bytes as the words: maybe a copy
        wide = torch.empty(w.numel() * 8, dtype=torch.int8)     # 8 values per word: an unpacking
        res = torch.empty(w.numel(), dtype=torch.float16)       # a result
        STATE.call.note_launch((w, same, wide, res), {})        # what the launch hook records for a launch
        same.view(8, 16, 4).permute(0, 2, 1).contiguous()       # bytes of the copied words split out: unpacks
        wide.view(64, 16).t().contiguous()                      # a transpose of unpacked values: not unpacking
        res.view(8, 16).t().contiguous()                        # a transpose of the result: not unpacking
        other = torch.empty(w.numel() * 4, dtype=torch.uint8)   # never given to a launch with packed data
        STATE.call.note_launch((other,), {})
        other.view(8, 16, 4).permute(0, 2, 1).contiguous()
        return res

    trace = _trace_packed(body, _words(), torch.randn(4, 6))
    unpack = {k: n for k, n in trace.items() if profile.MARK_UNPACK in key_marks(k)}
    assert unpack == {"aten::clone (non-trivial mapping; unpacks a packed input)": 1}, trace
    assert trace["aten::clone (non-trivial mapping)"] == 3, trace


def test_a_selecting_operand_laid_out_in_a_buffer_of_the_call_is_no_mapping() -> None:
    """``mask.expand(shape).contiguous()`` (masked_fill_, red team 26) materialises a broadcast selector: no
    data moves, so no mapping mark; the same copy of the moved tensor, or of the mask into a call tensor, stays
    a mapping."""
    def body(x, mask):
        mask.expand(x.shape).contiguous()                       # the selector laid out: unmarked
        x.t().contiguous()                                      # the moved tensor: a mapping
        x[:1].copy_(mask.to(x.dtype))                           # into a call tensor: a mapping (and a conversion)
        return x

    STATE.begin_case(False)
    try:
        traced(body, "masked_fill__Scalar", selectors=((1, "mask"),))(torch.randn(4, 6), torch.rand(1, 6) > 0.5)
    finally:
        STATE.end_case()
    trace = dict(STATE.trace)
    assert trace["aten::clone (non-trivial mapping)"] == 1, trace
    assert trace.get("aten::clone") == 1, trace                 # the mask's layout copy, unmarked
    assert any(k.startswith("aten::copy_ (") and "non-trivial mapping" in k for k in trace), trace
    from kernelgenbench.sandbox.drive import schema_param_names
    from kernelgenbench.suite.registry import get_operator
    op = get_operator("aten::masked_fill_")
    assert op.selector_args == {"mask"} and not get_operator("aten::cat").selector_args
    assert [schema_param_names(w.schema).index("mask") for w in op.interface.wrappers] == [1, 1]


def test_packed_arguments_name_parameters_of_their_rows() -> None:
    from kernelgenbench.suite.registry import all_operators

    rows = {o.name: o.packed_args for o in all_operators()}
    for o in all_operators():
        assert o.packed_args <= set(o.interface.params), o.id
    assert rows["gptq_gemm"] == {"b_q_weight", "b_gptq_qzeros"}
    assert rows["allspark_w8a16_gemm"] == {"b_qweight", "b_scales", "b_qzeros"}
    assert rows["ggml_dequantize"] == {"W"} and rows["gptq_marlin_24_gemm"] >= {"b_q_weight", "b_meta"}
    assert {"awq_gemm", "gptq_marlin_gemm", "gptq_marlin_moe_repack", "awq_marlin_moe_repack", "ggml_moe_a8",
            "marlin_int4_fp8_preprocess", "gptq_shuffle"} <= {n for n, p in rows.items() if p}
    assert not rows["rms_norm"] and not rows["mm"]


# -- the same trace on every path (issue 12 class 6) ---------------------------------------------------------
def _body(x: torch.Tensor) -> torch.Tensor:
    """Composite ops of every kind a wrapper uses, and their pieces."""
    a = x.t().reshape(-1)                   # reshape's copy path: clone of a transposed view
    x.reshape(-1)                           # a view
    x.contiguous()
    x.t().contiguous()
    x.flatten()
    x.expand(2, 4, 6).reshape(-1)
    x.to(torch.float64)
    x.float()
    torch.tensor([1.0, 2.0])
    bool(x[0, 0] > -1e9) if False else None
    x[0, 0].item()
    int(x[0, 0])
    x._neg_view().resolve_neg()
    x.movedim(0, 1)
    x.chunk(2)
    torch.atleast_2d(x)
    x.swapaxes(0, 1)
    x.narrow(0, 0, 2)
    out = torch.empty(24)
    out.copy_(a)
    return out


def _interpreter_path(fn: Callable[..., Any], x: torch.Tensor) -> dict[str, int]:
    """The wrapper entered inside InterceptMode's handler, as on the Triton interpreter."""
    STATE.begin_case(False)
    try:
        with InterceptMode({"neg": traced(fn, "neg")}):
            torch.neg(x)
    finally:
        STATE.end_case()
    return dict(STATE.trace)


_LIB: Any = None


def _dispatcher_path(fn: Callable[..., Any], x: torch.Tensor) -> dict[str, int]:
    """The wrapper registered at a dispatch key and reached through the dispatcher, as on GPUs (a CPU
    kernel of a test op here)."""
    global _LIB
    if _LIB is None:
        _LIB = torch.library.Library("kgbtest", "DEF")
        _LIB.define("wrapped(Tensor x) -> Tensor")
    impl = torch.library.Library("kgbtest", "IMPL")
    impl.impl("wrapped", traced(fn, "wrapped"), "CPU")
    STATE.begin_case(False)
    try:
        torch.ops.kgbtest.wrapped(x)
    finally:
        STATE.end_case()
        impl._destroy()
    return dict(STATE.trace)


def test_the_trace_is_the_same_on_every_call_path() -> None:
    x = torch.randn(4, 6)
    top, _ = _trace(_body, x)
    interp = _interpreter_path(_body, x)
    dispatched = _dispatcher_path(_body, x)
    assert interp == top == dispatched
    # composites are traced as their pieces on every path
    assert not {k for k in top if k.split(" ")[0] in ("aten::reshape", "aten::contiguous", "aten::item",
                                                       "aten::to.dtype", "aten::flatten.using_ints",
                                                       "aten::resolve_neg", "aten::is_nonzero")}
    assert top["aten::clone (non-trivial mapping)"] == 3      # two transposed copies and the expanded one
    assert top["aten::_local_scalar_dense"] == 2
    assert top["aten::_to_copy (dtype conversion)"] == 1  # .float() of a float32 tensor copies nothing
    assert top["aten::clone (materialises a negative bit)"] == 1


# -- outputs that share storage across calls (issue 12 class 3) --------------------------------------------
_POOL = torch.empty(64)


def test_a_returned_output_must_live_in_storage_of_its_call() -> None:
    workspace: dict[str, torch.Tensor] = {}

    def pooled(x):
        return _POOL[: x.numel()].view(x.shape)

    def per_call(x):
        return torch.empty_like(x)

    def lazy_workspace(x):  # reused across calls, never returned
        ws = workspace.setdefault("ws", torch.empty(16))
        out = torch.empty_like(x)
        return out if ws.numel() else None

    def returns_input(x):
        return x.view(-1)

    def returns_tuple(x):
        return torch.empty(2), _POOL[:2]

    for fn, stale in [(pooled, 1), (per_call, 0), (lazy_workspace, 0), (returns_input, 0), (returns_tuple, 1)]:
        for _ in range(2):
            _trace(fn, torch.randn(2, 3))
            assert len(STATE.stale_outputs) == stale, (fn.__name__, STATE.stale_outputs)
    _trace(returns_tuple, torch.randn(2, 3))
    assert STATE.stale_outputs[0].startswith("wrapper_under_test returned [1] in storage that was not "
                                                   "allocated during this call")


# -- L2: results made of Triton-derived host reads (issue 11 item 2.1) ---------------------------------------
def _log(*reads: tuple[Any, bool]) -> dict[str, Any]:
    return {"reads": [{"kind": "item", "value": v, "triton": t} for v, t in reads], "launches": []}


def test_triton_read_values_are_the_marked_reads_the_replay_handed_back() -> None:
    log = _log((3.5, True), (7, False), (torch.tensor([1.0, 2.0]), True), ("tensor(1.)", True))
    assert triton_read_values(log, {"reads_replayed": 4}) == [3.5, 1.0, 2.0]
    assert triton_read_values(log, {"reads_replayed": 1}) == [3.5]      # the replay stopped after one read
    assert triton_read_values(None, {"reads_replayed": 4}) == []


def test_a_result_made_of_triton_read_values_does_not_count_as_passed_without_triton() -> None:
    ret = torch.tensor(3.25, dtype=torch.float16)
    exp = [Expected("return", ret.clone(), Tolerance())]
    assert from_triton_reads(exp, {"ret": ret}, [3.25])
    assert from_triton_reads(exp, {"ret": ret}, [3.2500001])        # rounded to the output's dtype alike
    assert not from_triton_reads(exp, {"ret": ret}, [1.0])          # a value computed on the host
    big = torch.full((5,), 3.25)
    assert not from_triton_reads([Expected("return", big.clone(), Tolerance())], {"ret": big}, [3.25])  # 5 > 1 read
    idx = torch.tensor(4)
    assert from_triton_reads([Expected("return", idx.clone(), Tolerance())], {"ret": idx}, [4.0])
    assert not from_triton_reads([Expected("return", idx.clone(), Tolerance())], {"ret": idx}, [4.4])
    assert not from_triton_reads(exp, {"ret": ret}, [])


def test_a_composite_op_the_candidate_replaces_is_the_op_itself_on_every_path(monkeypatch) -> None:
    """On GPUs a composite op the submission registers reaches its registration (dispatch recursion when
    its own wrapper calls it); the modes count it whole there instead of decomposing it."""
    monkeypatch.setattr(STATE, "replaced", frozenset({"reshape"}))
    trace = _interpreter_path(lambda x: x.t().reshape(-1), torch.randn(4, 6))
    assert trace == {"aten::t": 1, "aten::reshape": 1}
    assert judge_trace(trace, frozenset({"reshape"})).failure == "dispatch_recursion"


# -- the import (issue 12 class 2) ---------------------------------------------------------------------
def test_the_import_is_traced_like_a_call() -> None:
    namespace: dict[str, Any] = {"torch": torch}
    code = ("SETTINGS = {'cpu': (1024, 4)}\nSETTINGS.update(cuda=(128, 8))\n"
            "SCRATCH = torch.zeros(8)\n"
            "LUT = torch.arange(-8, 8, dtype=torch.int16).view(torch.float16) ** 2\n")
    trace = trace_import(lambda: exec(code, namespace))  # noqa: S102 - a module body
    assert trace["aten::zeros"] == 1 and trace["aten::pow.Tensor_Scalar"] == 1 and trace["aten::arange.start"] == 1
    v = judge_trace(trace, frozenset({"rsqrt"}))
    assert v.failure == "profile" and "aten::pow.Tensor_Scalar x1" in v.message
    assert STATE.call is None and STATE._import_trace is None       # nothing left behind
    allowed = trace_import(lambda: exec("T = torch.full((4,), 3)\nV = T.view(2, 2).t()\n", namespace))
    assert judge_trace(allowed, frozenset({"rsqrt"})).failure is None


def test_plain_result_judges_by_type_and_runs_no_code_of_the_result(monkeypatch):
    """Red team 28: an object returned by a wrapper (rms_norm's None is not judged) ran its __class__ property when
    the harness's isinstance() read it, after the traced call; an instance attribute __getstate__ on an argument ran
    when torch.save pickled it. plain_result reads types and tensors' own dictionaries only."""
    from kernelgenbench.sandbox.dispatch import plain_result
    from kernelgenbench.sandbox.state import STATE

    monkeypatch.setattr(STATE, "stale_outputs", [])
    ran = []

    class Sneaky:
        @property
        def __class__(self):
            ran.append(1)
            return type(self)

    x = torch.zeros(3)
    ok = (x, [torch.ones(2), 3, None], torch.float32)
    assert plain_result("f", ok, (x,), {}) is ok and STATE.stale_outputs == []
    assert plain_result("f", Sneaky(), (x,), {}) is None
    assert not ran and STATE.stale_outputs[0].startswith("f: the return value is a <class ")
    y = torch.zeros(2)
    y.__getstate__ = lambda: ran.append(2)
    assert plain_result("f", None, (x, [y]), {}) is None
    assert "args[1][0] carries Python attributes ('__getstate__')" in STATE.stale_outputs[1]
    assert not vars(y) and not ran  # dropped, never called
    caches = [torch.zeros(2), torch.zeros(2)]
    given = [caches, *caches]
    caches[1] = Sneaky()  # an object of the submission's put into the caller's list
    plain_result("f", None, (caches,), {}, given)
    assert "args[0][1] is a <class " in STATE.stale_outputs[2] and not ran and caches[1] is None
    # red team 29b: a .grad keeps a Python object (with a finalizer, say) alive with an argument
    z = torch.zeros(2)
    z.grad = torch.ones(2)
    plain_result("f", z, (x,), {})
    assert STATE.stale_outputs[3].startswith("f: the return value carries a .grad") and z.grad is None
    import collections

    Pair = collections.namedtuple("Pair", "values indices")
    pair = plain_result("f", Pair(x, y), (x,), {})  # an honest namedtuple result: a plain tuple, no violation
    assert type(pair) is tuple and pair[0] is x and pair[1] is y and len(STATE.stale_outputs) == 4
    import enum

    class Status(enum.IntEnum):
        SUCCESS = 0

    assert plain_result("f", Status.SUCCESS, (x,), {}) is Status.SUCCESS and len(STATE.stale_outputs) == 4
    gen = torch.Generator()
    n = len(STATE.stale_outputs)
    plain_result("f", None, (x,), {"generator": gen}, [x, gen])  # an argument as the harness passed it
    assert len(STATE.stale_outputs) == n


def test_only_lossless_integer_widening_counts_as_laying_out_an_index() -> None:
    """An index operand widened (int32 -> int64, bool -> uint8) keeps every value; narrowing, a change of
    signedness that can wrap, and any float conversion do not (sandbox/provenance.py ``_widens_losslessly``)."""
    import torch

    from kernelgenbench.sandbox.provenance import _widens_losslessly

    assert _widens_losslessly(torch.int32, torch.int64) and _widens_losslessly(torch.uint8, torch.int16)
    assert _widens_losslessly(torch.bool, torch.uint8) and _widens_losslessly(torch.int8, torch.int32)
    assert not _widens_losslessly(torch.int64, torch.int32) and not _widens_losslessly(torch.int8, torch.uint8)
    assert not _widens_losslessly(torch.uint8, torch.int8) and not _widens_losslessly(torch.int32, torch.float64)
    assert not _widens_losslessly(torch.float16, torch.float32) and not _widens_losslessly(torch.int32, torch.int32)
