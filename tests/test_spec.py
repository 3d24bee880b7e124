"""The spec model and the slice's grids against the counts the spec documents."""
from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite.registry import all_operators, by_filename, get_operator, select
from kernelgenbench.suite.spec import EXACT, Call, Tolerance, Wrapper, clone_tree, product, region_mask, storage_view

# (full-tier cases, timed cases) from vllm.md §3 / cublas.md §3. The ATen rows state their own counts
# (Operator.counts, checked in tests/test_rows.py); these sources' rows do not yet.
FULL = {
    "vllm::rms_norm": (60, 16), "vllm::fused_add_rms_norm": (225, 63), "vllm::topk_softmax": (108, 36),
    "cublas::cublasSaxpy_v2": (648, 288), "cublas::cublasSgemm_v2": (352, 128), "cublas::cublasStrsv_v2": (96, 48),
}


#: The ATen operators of the first slice (their counts: tests/test_rows.py).
ATEN_SLICE = ["aten::add", "aten::_softmax", "aten::sum", "aten::mm", "aten::cumsum", "aten::index_select"]


def test_slice_is_registered() -> None:
    assert {o.id for o in all_operators()} >= set(FULL) | set(ATEN_SLICE)


@pytest.mark.parametrize("op_id", sorted(FULL))
def test_full_grid_and_timing_gate_match_the_spec(op_id: str) -> None:
    cases = get_operator(op_id).cases("full")
    assert (len(cases), sum(c.timed for c in cases)) == FULL[op_id]


@pytest.mark.parametrize("op_id", sorted(FULL) + ATEN_SLICE)
def test_smoke_and_heldout_tiers(op_id: str) -> None:
    op = get_operator(op_id)
    smoke, held = op.cases("smoke"), op.cases("heldout")
    assert 2 <= len(smoke) <= 8 and len(held) >= 3
    assert not any(c.timed for c in smoke + held)
    full_params = [c.params for c in op.cases("full")]
    assert not any(c.params in full_params for c in held), "a held-out case repeats a full-tier case"


def test_smoke_cases_are_small_and_cover_every_exercised_wrapper() -> None:
    for op in all_operators():
        gen = torch.Generator().manual_seed(0)
        for case in op.cases("smoke"):
            call = op.build(case.params, torch.device("cpu"), gen)
            for t in list(call.args) + list(call.kwargs.values()):
                if isinstance(t, torch.Tensor):
                    assert t.numel() <= 65536, (op.id, case.params, t.shape)


def test_case_seeds_are_stable_and_distinct() -> None:
    cases = get_operator("aten::add").cases("full")
    seeds = [c.seed for c in cases]
    assert seeds == [c.seed for c in get_operator("aten::add").cases("full")]
    assert len(set(seeds)) == len(seeds)


def test_tolerance_rules() -> None:
    assert Tolerance().resolve(torch.float16)[:2] == (1e-3, 1e-4)
    assert Tolerance().resolve(torch.bfloat16)[:2] == (1.6e-2, 1e-4)
    rtol, atol, rule = Tolerance(reduce_dim=71).resolve(torch.float32)
    assert (rtol, round(atol, 10)) == (1e-5, 0.0071) and "1e-4*71" in rule
    assert Tolerance().resolve(torch.int32)[:2] == (0.0, 0.0)
    assert EXACT.resolve(torch.float32)[2] == "exact"
    assert Tolerance().resolve(torch.float32, scale=2.0)[:2] == (2e-5, 2e-4)


def test_wrapper_names_follow_the_protocol() -> None:
    assert Wrapper("add.Tensor", "").name == "add_Tensor"
    assert Wrapper("add_.Tensor", "").name == "add__Tensor"
    assert Wrapper("_softmax", "").name == "_softmax"
    assert Wrapper("add.int", "", kind="jit").required is False
    assert Wrapper("add.out", "").required is True


def test_filenames_and_lookup() -> None:
    assert get_operator("aten::_softmax").filename == "aten___softmax.py"
    assert by_filename("cublas__cublasSgemm_v2.py").id == "cublas::cublasSgemm_v2"
    assert get_operator("rms_norm").id == "vllm::rms_norm"
    with pytest.raises(KeyError, match="unknown operator"):
        get_operator("aten::nope")
    with pytest.raises(ValueError, match="unknown source"):
        select(None, "rocm")
    assert {o.source for o in select(None, "vllm")} == {"vllm"}


def test_product_binds_tuples() -> None:
    assert product(**{"a": [1, 2], "m,n": [(3, 4)]}) == [{"a": 1, "m": 3, "n": 4}, {"a": 2, "m": 3, "n": 4}]


def test_clone_tree_keeps_views_and_sharing() -> None:
    buf = torch.arange(20.0)
    a, b = buf[2:10:2], buf.view(4, 5)[:, 1]
    ca, cb = clone_tree([a, b])
    assert ca.untyped_storage().data_ptr() == cb.untyped_storage().data_ptr() != buf.untyped_storage().data_ptr()
    assert (ca.stride(), ca.storage_offset(), cb.stride(), cb.storage_offset()) == ((2,), 2, (5,), 1)
    assert torch.equal(ca, a) and torch.equal(cb, b)
    call = Call([a], {"k": b}, written=(0,))
    assert call.unchanged_slots() == ["k"]


def test_region_mask_marks_exactly_the_view() -> None:
    buf = torch.zeros(12)
    v = buf.view(3, 4)[:, :2]
    m = region_mask(v)
    assert m.tolist() == [True, True, False, False] * 3
    assert storage_view(v).numel() == 12


def test_dimname_overloads_are_optional_whoever_builds_the_row():
    """PyTorch 2.11 (the GPU image) lists Dimname overloads that 2.13 lacks; a family that builds its
    rows from the installed PyTorch's overloads must not make them required (seen on the H200:
    mean, sort, gather and scatter failed `missing_wrapper` on mean_names_dim, sort_dimname, ...)."""
    from kernelgenbench.suite.spec import Wrapper

    w = Wrapper("mean.names_dim", "aten::mean.names_dim(Tensor self, Dimname[1] dim, bool keepdim=False, *, "
                                  "ScalarType? dtype=None) -> Tensor")
    assert w.kind == "named" and not w.required
    plain = Wrapper("mean.dim", "aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, "
                                "ScalarType? dtype=None) -> Tensor")
    assert plain.kind == "dispatcher" and plain.required
    # PyTorch 2.11 prints a Dimname argument as `str`: the overload name decides
    printed = Wrapper("gather.dimname", "aten::gather.dimname(Tensor self, str dim, Tensor index, *, "
                                        "bool sparse_grad=False) -> Tensor")
    assert printed.kind == "named" and not printed.required
    for ov in ("sort.dimname_values_stable", "scatter.dimname_src", "mean.names_out", "select.Dimname"):
        assert not Wrapper(ov, f"aten::{ov}(Tensor self, str dim) -> Tensor").required, ov
    jit = Wrapper("x.Dimname", "x(Dimname d)", kind="jit")
    assert jit.kind == "jit"


def test_families_mark_overloads_as_the_wrapper_would():
    """``family.overload_kind`` (the kind a family gives each installed overload) agrees with
    ``spec.is_named_overload``, which ``Wrapper`` applies to dispatcher rows: over every overload of
    every registered ATen operator the row keeps the kind its family gave it."""
    from kernelgenbench.suite.aten.family import is_dispatcher, overload_kind
    from kernelgenbench.suite.spec import is_named_overload

    assert overload_kind("mean.names_dim", "aten::mean.names_dim(Tensor self, Dimname[1] dim) -> Tensor",
                         True) == "named"
    assert overload_kind("gather.dimname", "aten::gather.dimname(Tensor self, str dim, Tensor index) -> Tensor",
                         True) == "named"  # PyTorch 2.11 prints Dimname as `str`
    assert overload_kind("mean.dim", "aten::mean.dim(Tensor self, int[1]? dim) -> Tensor", True) == "dispatcher"
    assert overload_kind("neg.int", "neg.int(int a) -> int", False) == "jit"
    seen = 0
    for op in all_operators():
        packet = getattr(torch.ops.aten, op.id.split("::", 1)[1], None) if op.source == "aten" else None
        for ov in packet.overloads() if packet is not None else ():
            name = op.id.split("::", 1)[1]
            key = name if ov == "default" else f"{name}.{ov}"
            schema = str(getattr(packet, ov)._schema)
            kind = overload_kind(key, schema, is_dispatcher(name, ov))
            assert Wrapper(key, schema, kind=kind).kind == kind, key
            assert (kind == "named") == is_named_overload(key, schema), key
            seen += 1
    assert seen > 300


def test_clone_tree_and_the_timing_tensor_walk_make_no_reference_cycle() -> None:
    """The sandbox child collects cycles only between commands (sandbox/collector.py): a cycle made per call kept
    what it held alive through a whole timing warm-up. clone_tree's recursive closure over its memo of cloned
    storages held every clone (most likely why a 200 ms warm-up of vllm::rms_norm's 5333x8192 fp16 case ran out of
    memory on an H100 at 9530296), and timed_loop._tensors' walk held its tensors. With automatic collection off,
    calling them leaves nothing for a collection to find."""
    import gc

    from kernelgenbench.sandbox.timed_loop import _tensors

    x = torch.arange(12.0).reshape(3, 4)
    tree = {"a": [x, x[1:], (x.t(),)], "b": torch.zeros(0), "c": 3}
    gc.collect()
    gc.disable()
    try:
        out = clone_tree(tree)
        assert torch.equal(out["a"][1], x[1:]) and out["a"][0].untyped_storage().data_ptr() == \
            out["a"][1].untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
        found = _tensors((out, tree))
        assert len(found) == 6  # three layouts of the clone's storage, three of x's (the empty tensor: none)
        del out, found
        assert gc.collect() == 0
    finally:
        gc.enable()
