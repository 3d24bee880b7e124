"""Pointer-array batched cuBLAS routines (cublas.md §2.2 ``*Batched``): the case holds the tensor the batches'
arrays live in plus their offsets (``Call.pointers``); the int64 address tensor the routine takes is built in
the process that makes the call (``suite/spec.py`` ``bind_pointers``), so it is right after the inputs travel
to the sandbox child through ``torch.save``; the reference reads the same arrays; the binding receives the
address tensor; the interpreter's bounds checks admit what an address tensor points into."""
from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
import torch

from kernelgenbench.suite.cublas import blas
from kernelgenbench.suite.cublas.decl import PTR_GUARD as G
from kernelgenbench.suite.cublas.decl import ROUTINES, build_call
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.spec import Call, PointerArrayTampered, bind_pointers, unbind_result
from kernelgenbench.suite.tensors import is_poison

CPU = torch.device("cpu")


def _case(op_id: str, p: dict) -> tuple[object, Call]:
    op = get_operator(op_id)
    return op, op.build(p, CPU, torch.Generator().manual_seed(3))


def _roundtrip(call: Call) -> Call:
    buf = io.BytesIO()
    torch.save(call.saved(), buf)
    buf.seek(0)
    return Call.loaded(torch.load(buf, weights_only=True))


def test_builder_lays_out_batches_with_gaps_and_shared_inputs():
    p = dict(m=5, n=3, trans="N", alpha=1.0, beta=0.5, batchCount=3, incx=2, incy=1, lda=7, gap=4,
             shared=("Aarray",), poison=True)
    _, call = _case("cublas::cublasSgemvBatched", p)
    r = ROUTINES["cublasSgemvBatched"]
    a, x, y = (call.args[r.position(n)] for n in ("Aarray", "xarray", "yarray"))
    # A shared: one 5x3 matrix with lda 7 (2*7+5 = 19 elements), every entry at offset G (the guard band before
    # the first array), G more elements after it
    assert call.pointers[r.position("Aarray")] == (G, G, G) and a.numel() == G + 19 + G
    # x: n=3 elements at inc 2 -> extent 5, plus a gap of 4 -> batches 9 apart
    # batch b sits in a random slot of the tensor (no strided shortcut from the first address)
    assert sorted(call.pointers[r.position("xarray")]) == [G, G + 9, G + 18] and x.numel() == G + 27 + G
    assert sorted(call.pointers[r.position("yarray")]) == [G, G + 9, G + 18] and y.numel() == G + 27 + G
    # the poisoned output: the gaps between the y arrays and the guard bands are poison, the y elements finite
    logical = torch.zeros(G + 27 + G, dtype=torch.bool)
    for b in range(3):
        logical[G + b * 9: G + b * 9 + 5] = True
    assert bool(is_poison(y[~logical]).all()) and bool(torch.isfinite(y[logical]).all())
    assert call.written == (r.position("yarray"),)
    with pytest.raises(ValueError, match="output pointer array yarray cannot be shared"):
        build_call(r, dict(p, shared=("yarray",)), CPU, torch.Generator().manual_seed(0))


def test_addresses_are_rebuilt_from_the_tensors_after_save_and_load():
    p = dict(m=4, n=6, k=3, transa="T", transb="N", alpha=1.0, beta=0.0, batchCount=3, gap=2)
    _, call = _case("cublas::cublasDgemmBatched", p)
    r = ROUTINES["cublasDgemmBatched"]
    ia, ic = r.position("Aarray"), r.position("Carray")
    bound = bind_pointers(call)
    assert bind_pointers(call) is bound                                        # built once per Call
    a_addr = bound.args[ia]
    assert a_addr.dtype == torch.int64 and a_addr.shape == (3,)
    # A for T is k x m = 3 x 4 with lda 3: extent 12, plus the gap 2 -> 14 elements apart, 8 bytes each
    base = call.args[ia].data_ptr()
    assert sorted(call.pointers[ia]) == [G, G + 14, G + 28]
    assert a_addr.tolist() == [base + o * 8 for o in call.pointers[ia]]
    assert not any(isinstance(v, torch.Tensor) and v.dtype == torch.int64 for v in call.args)
    loaded = _roundtrip(call)
    assert loaded.pointers == call.pointers
    lb = bind_pointers(loaded)
    lbase = loaded.args[ic].data_ptr()
    assert lbase != call.args[ic].data_ptr()
    assert lb.args[ic].tolist() == [lbase + o * 8 for o in call.pointers[ic]]
    # a clone is a new case: its own storage, its own addresses
    cl = call.clone()
    cbase = cl.args[ia].data_ptr()
    assert cbase != base and bind_pointers(cl).args[ia].tolist() == [cbase + o * 8 for o in call.pointers[ia]]


def test_reference_computes_on_the_pointed_to_arrays_and_keeps_the_gaps():
    p = dict(m=3, n=2, k=4, transa="N", transb="T", alpha=0.5, beta=-1.0, batchCount=2, gap=3, poison=True,
             shared=("Barray",))
    op, call = _case("cublas::cublasDgemmBatched", p)
    r = ROUTINES["cublasDgemmBatched"]
    exp = op.reference(p, call.clone())
    ic = r.position("Carray")
    (out,) = [e for e in exp if e.slot == f"arg.{ic}"]
    A, B, C = (call.args[r.position(n)] for n in ("Aarray", "Barray", "Carray"))
    for b in range(2):
        oa, oc = call.pointers[r.position("Aarray")][b], call.pointers[ic][b]
        a = A[oa: oa + 12].reshape(4, 3).T                                   # m x k, lda 3
        bm = B[G: G + 8].reshape(4, 2)                                           # stored n x k = 2 x 4, ldb 2; shared
        c = C[oc: oc + 6].reshape(2, 3).T
        want = 0.5 * (a @ bm) - c
        got = out.value[oc: oc + 6].reshape(2, 3).T
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
        assert bool(out.region[oc: oc + 6].all())
    gaps = ~out.region
    assert int(gaps.sum()) == 3 * 2 + 2 * G and bool(is_poison(out.value[gaps]).all())


def test_unbind_maps_the_returned_address_tensor_and_catches_tampering():
    p = dict(m=3, n=3, trans="T", alpha=1.0, beta=1.0, batchCount=2, incx=1, incy=1)
    _, call = _case("cublas::cublasDgemvBatched", p)
    iy = ROUTINES["cublasDgemvBatched"].position("yarray")
    bound = bind_pointers(call)
    assert unbind_result(call, bound.args[iy]) is call.args[iy]                 # yarray returned: the y storage
    other = torch.zeros(2, dtype=torch.int64)
    assert unbind_result(call, other) is other                                  # anything else stays itself
    bound.args[iy].copy_(bound.args[iy].flip(0))
    assert unbind_result(call, None, check=False) is None                       # timed repetitions: no read-back
    with pytest.raises(PointerArrayTampered, match=f"pointer array argument {iy} was changed"):
        unbind_result(call, bound.args[iy])
    # a call without pointer arrays is passed through untouched
    plain = Call([torch.zeros(2)])
    assert bind_pointers(plain) is plain and unbind_result(plain, 5) == 5


def test_binding_gets_address_tensors_of_batchcount_entries(monkeypatch):
    lib = type("Lib", (), {})()
    calls = []

    class _Fn:
        argtypes = restype = None

        def __init__(self, name):
            self.name = name

        def __call__(self, *args):
            calls.append((self.name, args))
            return 0

    lib._name = "fake"
    lib.__class__.__getitem__ = lambda self, name: _Fn(name)
    cb = blas.Cublas(lib=lib)
    cb._handles[0] = blas._Handle(0xABC, 0)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(blas, "_current_raw_stream", lambda d: 5)
    monkeypatch.setattr(blas.Cublas, "_device_of", staticmethod(lambda r, n, t: 0))

    def check(routine, name, t, dtype, device):
        if t.dtype != dtype:
            raise ValueError(f"{routine}: {name} must have dtype {dtype}, got {t.dtype}")

    monkeypatch.setattr(blas.Cublas, "_tensor", staticmethod(check))
    monkeypatch.setattr(blas.Cublas, "_scalar_ptr", lambda self, r, n, v, dt, dev: ("scalar", n))
    monkeypatch.setattr(blas, "_INSTANCE", cb)                                  # the baseline's get_cublas()
    monkeypatch.setattr(blas.Cublas, "library_version", lambda self: 130100)
    p = dict(m=4, n=5, k=2, transa="N", transb="N", alpha=1.0, beta=0.0, batchCount=3)
    op, call = _case("cublas::cublasSgemmBatched_64", p)
    fn, label = op.baseline(call, None)
    ret = fn(call)
    r = ROUTINES["cublasSgemmBatched_64"]
    assert ret is call.args[r.position("Carray")]                               # Carray returned: the case's tensor
    name, args = calls[-1]
    assert name == "cublasSgemmBatched_64"
    bound = bind_pointers(call)
    for n in ("Aarray", "Barray", "Carray"):
        assert args[1 + r.position(n)] == bound.args[r.position(n)].data_ptr()  # the same address tensors
    # the binding refuses an address tensor of the wrong dtype or length
    with pytest.raises(ValueError, match="Carray must have dtype torch.int64"):
        cb.sgemmBatched_64(*[a if i != r.position("Carray") else call.args[i] for i, a in enumerate(bound.args)])
    short = list(bound.args)
    short[r.position("Barray")] = bound.args[r.position("Barray")][:2].clone()
    with pytest.raises(ValueError, match="Barray"):
        cb.sgemmBatched_64(*short)


def test_interfaces_name_the_pointer_arrays():
    op = get_operator("cublas::cublasZgemvBatched")
    doc = op.interface.args_doc
    assert "int64 device tensor of batchCount device addresses" in doc["Aarray"]
    assert "tl.pointer_type" in doc["xarray"] and "written in place" in doc["yarray"]
    assert op.interface.returns == "yarray" and op.interface.written == ("yarray",)
    sizes = {n: {t: len(get_operator(f"cublas::{n}").cases(t)) for t in ("smoke", "full", "heldout")}
             for n in ("cublasSgemvBatched", "cublasDgemvBatched", "cublasDgemmBatched", "cublasHgemmBatched")}
    assert sizes["cublasSgemvBatched"]["full"] == 11664 and sizes["cublasDgemvBatched"]["full"] == 90
    # HgemmBatched's smoke: 5 cases + the padded one (suite/cublas/rows.padded_smoke)
    assert sizes["cublasDgemmBatched"]["full"] == 180 and sizes["cublasHgemmBatched"]["smoke"] == 6


def test_timed_repetitions_get_addresses_of_their_own_clones(monkeypatch):
    """The timed loop (CUDA faked on the CPU as in test_timing.py): each repetition's clone gets its own
    address tensors (built before its window, reused by the call), and a checked repetition's return is
    the case's y tensor, judged like a correctness run."""
    import test_timing

    from kernelgenbench.sandbox import timed_loop
    from kernelgenbench.sandbox.state import State

    test_timing.fake_cuda.__wrapped__(monkeypatch)
    op = get_operator("cublas::cublasSgemvBatched")
    p = dict(m=3, n=2, trans="N", alpha=1.0, beta=0.0, batchCount=2, incx=1, incy=1)
    r = ROUTINES["cublasSgemvBatched"]
    iy = r.position("yarray")
    state = State()
    seen: list[tuple[list[int], int]] = []

    def fn(*args):
        state.launches.append("k")
        seen.append((args[iy].tolist(), id(args[iy])))
        return args[iy]

    impl = SimpleNamespace(fn=fn, activate=lambda: None, deactivate=lambda: None)
    base_addrs: list[list[int]] = []

    def base(c):
        base_addrs.append(bind_pointers(c).args[iy].tolist())
        return unbind_result(c, bind_pointers(c).args[iy], check=False)

    def make_set(k):
        return op.build(p, CPU, torch.Generator().manual_seed(100 + k))

    sets = [make_set(-1), make_set(-2)]
    res = timed_loop.time_case(op, impl, base, sets, SimpleNamespace(device="cpu", interpreter=False), state,
                               reps=10, warmup_ms=1, block=5, check=[2, 7], make_set=make_set)
    assert sorted(res["checked"]) == [2, 7]
    for _k, (call, ret) in res["checked"].items():
        assert ret is call.args[iy]                                           # the y storage, not the addresses
        bound = call.__dict__["_bound"][0]
        base_ptr = call.args[iy].data_ptr()
        assert bound.args[iy].tolist() == [base_ptr + o * 4 for o in call.pointers[iy]]
    # every candidate call got an int64 address tensor laid out as its clone (y_1 three floats after y_0)
    assert len(seen) >= 10 and all(len(a) == 2 and abs(a[1] - a[0]) == 3 * 4 for a, _ in seen)
    assert len(base_addrs) >= 10


def test_batch_order_in_storage_is_not_the_batch_order():
    """Across a few seeds some case stores its batches out of order: a kernel that takes batch b at
    Aarray[0] + b*stride instead of loading Aarray[b] fails."""
    p = dict(m=4, n=3, k=2, transa="N", transb="N", alpha=1.0, beta=0.0, batchCount=4)
    ia = ROUTINES["cublasDgemmBatched"].position("Aarray")
    orders = {get_operator("cublas::cublasDgemmBatched").build(p, CPU, torch.Generator().manual_seed(s)).pointers[ia]
              for s in range(4)}
    assert any(list(o) != sorted(o) for o in orders) and all(sorted(o) == [G, G + 8, G + 16, G + 24] for o in orders)
