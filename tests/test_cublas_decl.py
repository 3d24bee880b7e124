"""The cuBLAS routine declarations (suite/cublas/decl.py, routines.py) and what is derived from them: the
binding's methods (against a stand-in libcublas), the interface, the case builder's buffers and poison, and
the reference's written-region masks (cublas.md §2.2, §2.5)."""
from __future__ import annotations

import inspect

import pytest
import torch

from kernelgenbench.suite.cublas import blas
from kernelgenbench.suite.cublas.decl import ROUTINES, Ref, build_call, trans_code, vec_offsets
from kernelgenbench.suite.registry import select
from kernelgenbench.suite.spec import Call
from kernelgenbench.suite.tensors import is_poison


class _FakeLib:
    """A stand-in libcublas recording every call (name, args) and returning status 0."""

    _name = "fake-libcublas"

    def __init__(self):
        self.calls = []

    def __getitem__(self, name):
        lib = self

        class _Fn:
            argtypes = restype = None

            def __call__(self, *args):
                lib.calls.append((name, args))
                return 0
        return _Fn()


def test_every_row_is_declared_and_its_interface_is_the_declarations():
    rows = {o.name: o for o in select(source="cublas")}
    assert set(rows) <= set(ROUTINES) and len(rows) >= 40
    for name, op in rows.items():
        r = ROUTINES[name]
        assert op.interface.params == r.params == blas.SIGNATURES[name].names
        assert op.interface.written == r.outputs and op.interface.returns == r.returns
        assert list(inspect.signature(getattr(blas, name)).parameters) == list(r.params)
        assert list(inspect.signature(getattr(blas.Cublas, r.method)).parameters)[1:] == list(r.params)
        assert blas.BASELINE_FUNCTIONS[name] is getattr(blas, name)
        assert f"### cublas::{name}" in getattr(blas.Cublas, r.method).__doc__


def test_complex_interfaces_say_how_the_storage_is_viewed():
    doc = ROUTINES["cublasZdotc_v2"].interface().args_doc
    assert "view_as_real" in doc["x"] and "interleaved float64" in doc["x"]
    assert "garbage" in doc["result"]
    gemv = ROUTINES["cublasCgemv_v2"].interface().args_doc
    assert "n for trans = N, m otherwise" in gemv["x"]


@pytest.fixture
def fake(monkeypatch):
    lib = _FakeLib()
    cb = blas.Cublas(lib=lib)
    cb._handles[0] = blas._Handle(0xABC, 0)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(blas, "_current_raw_stream", lambda d: 5)
    # CPU tensors stand in for device tensors: the checks only need their device index and storage
    monkeypatch.setattr(blas.Cublas, "_device_of", staticmethod(lambda r, n, t: 0))
    monkeypatch.setattr(blas.Cublas, "_tensor", staticmethod(_tensor_check))
    monkeypatch.setattr(blas.Cublas, "_scalar_ptr", lambda self, r, n, v, dt, dev: ("scalar", n, dt, v))
    return cb, lib


def _tensor_check(routine, name, t, dtype, device):
    if t.dtype != dtype:
        raise ValueError(f"{routine}: {name} must have dtype {dtype}, got {t.dtype}")


def test_derived_method_converts_flags_checks_extents_and_orders_arguments(fake):
    cb, lib = fake
    A = torch.zeros(2 * 7 * 4 + 5, dtype=torch.float64)        # 2 batches of a 7 x 4 block, lda 7, stride 33
    x = torch.zeros(2 * 4 * 2, dtype=torch.float64)
    y = torch.zeros(40, dtype=torch.float64)
    out = cb.dgemvStridedBatched("t", 7, 4, 1.5, A, 7, 33, y[:0].new_zeros(2 * 7 * 2), 2, 14, 0.0, y, 1, 7, 2)
    assert out is y
    name, args = lib.calls[-1]
    assert name == "cublasDgemvStridedBatched"
    assert args[1:4] == (1, 7, 4)                                # handle, trans code, m, n
    assert args[4] == ("scalar", "alpha", torch.float64, 1.5) and args[5] == A.data_ptr()
    assert args[6:8] == (7, 33)                                  # lda, strideA
    assert args[11] == ("scalar", "beta", torch.float64, 0.0) and args[12] == y.data_ptr()
    assert args[13:] == (1, 7, 2)                                # incy, stridey, batchCount
    # y for trans T has n = 4 elements per batch: stride 7, 2 batches -> 11 elements needed
    with pytest.raises(ValueError, match=r"cublasDgemvStridedBatched: y has 10 elements .* spans 11"):
        cb.dgemvStridedBatched("T", 7, 4, 1.0, A, 7, 33, x, 1, 8, 0.0, y[:10].clone(), 1, 7, 2)
    with pytest.raises(ValueError, match=r"cublasDgemvStridedBatched: A has 30 elements .* spans 61"):
        cb.dgemvStridedBatched("N", 7, 4, 1.0, A[:30].clone(), 7, 33, x, 1, 4, 0.0, y, 1, 7, 2)
    with pytest.raises(ValueError, match=r"invalid trans flag 'X'"):
        cb.dgemvStridedBatched("X", 7, 4, 1.0, A, 7, 33, x, 1, 4, 0.0, y, 1, 7, 2)
    with pytest.raises(ValueError, match=r"x must have dtype torch.float64"):
        cb.dgemvStridedBatched("N", 7, 4, 1.0, A, 7, 33, x.float(), 1, 4, 0.0, y, 1, 7, 2)
    r = torch.zeros(1, dtype=torch.complex128)
    z = torch.zeros(9, dtype=torch.complex128)
    assert cb.zdotc(5, z, -2, z, 2, r) is r                     # negative increments span |inc|
    assert lib.calls[-1][0] == "cublasZdotc_v2" and lib.calls[-1][1][-1] == r.data_ptr()
    with pytest.raises(TypeError, match="takes 6 arguments"):
        cb.zdotc(5, z, 1, z, 1)


def test_builder_gives_minimal_buffers_and_poisons_outside_the_logical_output():
    r = ROUTINES["cublasDcopy_v2"]
    p = dict(n=5, incx=-3, incy=2, poison=True)
    call = build_call(r, p, torch.device("cpu"), torch.Generator().manual_seed(0))
    x, y = call.args[1], call.args[3]
    assert x.numel() == 1 + 4 * 3 and y.numel() == 1 + 4 * 2 and call.written == (3,)
    gaps = torch.ones(9, dtype=torch.bool)
    gaps[vec_offsets(5, 2, y.device)] = False
    assert bool(is_poison(y[gaps]).all()) and not bool(torch.isnan(y[~gaps]).any())
    assert not bool(torch.isnan(x).any())                       # inputs are never poisoned by `poison`


def test_reference_masks_cover_exactly_the_written_region():
    op = {o.name: o for o in select(source="cublas")}["cublasSsyrk_v2"]
    p = dict(n=5, k=3, uplo=1, trans=0, alpha=1.0, beta=0.5, ldc=7, tri_arg="C", nan_other=True)
    call = op.build(p, torch.device("cpu"), torch.Generator().manual_seed(1))
    C = call.args[8]
    assert C.numel() == 4 * 7 + 5
    exp = {e.slot: e for e in op.reference(p, call.clone())}["arg.8"]
    i = torch.arange(C.numel())
    row, col = i % 7, i // 7
    assert torch.equal(exp.region, (row < 5) & (row <= col))   # the upper triangle, diagonal included
    assert bool(torch.isnan(C[(row < 5) & (row > col)]).all())  # the other triangle: NaN that must survive
    assert bool(torch.isnan(C[row >= 5]).all())                 # the padding rows likewise
    assert not bool(torch.isnan(exp.value[exp.region]).any())


def test_reference_reads_negative_increments_backwards_and_rounds_scalars():
    r = ROUTINES["cublasSaxpy_v2"]
    x = torch.tensor([1.0, 0.0, 2.0, 0.0, 3.0])                # incx -2: x = (3, 2, 1)
    y = torch.tensor([10.0, 20.0, 30.0])
    ref = Ref(r, Call([3, 0.1, x, -2, y, 1], written=(4,)))
    assert torch.equal(ref.vec("x"), torch.tensor([3.0, 2.0, 1.0], dtype=torch.float64))
    assert ref.scalar("alpha") == float(torch.tensor(0.1, dtype=torch.float32))
    assert ROUTINES["cublasZdotc_v2"].dtype == torch.complex128


def test_every_increment_is_negative_in_some_case():
    """rt44b: BLAS walks a vector with a negative increment from its far end. Where no case of a routine gives an
    increment parameter a negative value, a kernel that takes |inc| from the first element passes every tier
    (tests/bad/inc_sign: six batched gemv routines had no negative increment at all; cublasCgemv_v2, cublasCgeru_v2,
    cublasZgerc_v2, cublasZdotc_v2, cublasDsyr2_v2, cublasDsbmv_v2 and cublas{S,D}gemvBatched none for incy,
    cublasCsymv_v2 none for incx). Every increment of every routine is negative in at least one case of some tier."""
    missing = []
    for op in select(source="cublas"):
        r = ROUTINES[op.name]
        incs = [a.name for a in r.args if a.role == "int" and a.name.startswith("inc")]
        cases = [p for tier in ("smoke", "full", "heldout") for p in op.grid(tier)]
        missing += [f"{op.name}.{n}" for n in incs if not any(p.get(n, 1) < 0 for p in cases)]
    assert missing == []


def test_every_trans_flag_of_a_complex_routine_is_c_in_some_case():
    """rt44b: op = C conjugates. Where no case of a complex routine sets a trans flag to C, a kernel that takes C as T
    (no conjugation) passes every tier (tests/bad/conj_b: cublasCgemmStridedBatched's transb was N or T in every
    case). Every trans flag of every complex routine is C in at least one case of some tier."""
    missing = []
    for op in select(source="cublas"):
        r = ROUTINES[op.name]
        if not r.dtype.is_complex:
            continue
        flags = [a.name for a in r.args if a.role == "flag" and a.kind == "trans"]
        cases = [p for tier in ("smoke", "full", "heldout") for p in op.grid(tier)]
        missing += [f"{op.name}.{n}" for n in flags if not any(trans_code(p.get(n, 0)) == 2 for p in cases)]
    assert missing == []
